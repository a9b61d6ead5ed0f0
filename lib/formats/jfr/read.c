/* SPDX-License-Identifier: MIT */
/*
 * Reader for Java Flight Recorder files (java -XX:StartFlightRecording,
 * jcmd PID JFR.dump, async-profiler -o jfr): one chunk after another,
 * each read in two passes (chunk.c: its constant pools and settings
 * first, as the JVM writes them after the events that use them; then
 * the events), so that memory holds one chunk's constants and the
 * model, whatever the length of the recording. A regular file is mapped
 * and each chunk's pages given back once read; a pipe or compressed
 * input is read a chunk at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/registry.h"
#include "jfr.h"
#include "transforms/fold.h"

/*
 * Every option the reader reads, read here: when formats declare their
 * own options (jfr:signatures), this is what changes.
 */
enum { SIGNATURES };

static const struct pki_option jfr_options[] = {
	[SIGNATURES] = { .key = "jfr:signatures", .type = PK_OPTION_FLAG,
		.flag = "jfr-signatures",
		.help = "method names with their descriptor, m(I)V" },
	{ .key = NULL },
};

/* Its own option, and the folded ones that mark frames by their type
 * (--jit, --kernel) as async-profiler's converter does. */
static void read_options(const struct pk_options *opts, struct jfr_options *o)
{
	struct pki_fold_settings fold;

	pki_fold_settings(opts, &fold);
	memset(o, 0, sizeof(*o));
	o->event = opts ? opts->event : NULL;
	o->signatures = pki_option_flag(opts, &jfr_options[SIGNATURES]) != 0;
	o->mark_jit = fold.annotate_jit;
	o->mark_kernel = fold.annotate_kernel;
}

/* ---- counts of every event type, for the facts and messages ---- */

static int count_events(struct jfr_reader *r)
{
	const struct jfr_metadata *md = &r->ch.md;
	size_t i, k;

	for (i = 0; i < md->ntypes; i++) {
		if (!r->type_counts[i])
			continue;
		for (k = 0; k < r->ncounts; k++)
			if (strcmp(r->counts[k].name, md->types[i].name) == 0)
				break;
		if (k == r->ncounts) {
			struct jfr_count *more = realloc(r->counts, (k + 1) * sizeof(*more));

			if (!more || !(more[k].name = strdup(md->types[i].name))) {
				if (more)
					r->counts = more;
				return jfr_nomem(r);
			}
			r->counts = more;
			r->counts[k].n = 0;
			r->counts[k].stacks = jfr_pooled_field(md, (int)i, "stackTrace",
							       JFR_POOL_STACK) != JFR_NO_FIELD;
			r->ncounts++;
		}
		r->counts[k].n += r->type_counts[i];
	}
	return 0;
}

static int compare_counts(const void *a, const void *b)
{
	const struct jfr_count *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * "jdk.ExecutionSample 92, jdk.ThreadPark 59 (and 3 events of 2 types
 * without stack traces)": the events of the file that a profile can be
 * made of, and how many others there are.
 */
static int list_events(struct jfr_reader *r, struct pk_strbuf *out)
{
	uint64_t others = 0, other_types = 0;
	size_t i, listed = 0;
	char num[96];

	if (r->ncounts)
		qsort(r->counts, r->ncounts, sizeof(*r->counts), compare_counts);
	out->len = 0;
	for (i = 0; i < r->ncounts; i++) {
		if (!r->counts[i].stacks) {
			others += r->counts[i].n;
			other_types++;
			continue;
		}
		snprintf(num, sizeof(num), " %llu", (unsigned long long)r->counts[i].n);
		if ((listed++ && pki_strbuf_adds(out, ", ")) ||
		    pki_strbuf_adds(out, r->counts[i].name) || pki_strbuf_adds(out, num))
			return -1;
	}
	if (!listed && pki_strbuf_adds(out, "none with stack traces"))
		return -1;
	snprintf(num, sizeof(num), " (and %llu events of %llu types without "
		 "stack traces)", (unsigned long long)others,
		 (unsigned long long)other_types);
	if (others && pki_strbuf_adds(out, num))
		return -1;
	return pki_strbuf_add(out, "", 0);
}

/* ---- chunks ---- */

static int read_chunk(struct jfr_reader *r, const unsigned char *base,
		      uint64_t avail, uint64_t offset)
{
	struct jfr_chunk *ch = &r->ch;
	int rc;

	ch->offset = offset;
	ch->index = r->chunks;
	rc = jfr_chunk_header(ch, base, avail);
	if (!rc)
		rc = jfr_metadata_read(ch);
	if (!rc)
		rc = jfr_events_scan(r);
	if (!rc)
		rc = jfr_events_read(r);
	if (!rc)
		rc = count_events(r);
	if (!rc) {
		if (!r->chunks || ch->start_nanos < r->start_nanos)
			r->start_nanos = ch->start_nanos;
		if (!r->chunks || ch->start_nanos + ch->duration_nanos > r->end_nanos)
			r->end_nanos = ch->start_nanos + ch->duration_nanos;
		r->chunks++;
		if (!r->version[0])
			snprintf(r->version, sizeof(r->version), "%u.%u",
				 ch->major, ch->minor);
	}
	jfr_pools_release(ch);
	jfr_metadata_release(&ch->md);
	return rc;
}

/* A mapped file (or memory): chunk after chunk, each let go once read. */
static int read_mapped(struct jfr_reader *r, struct pk_input *in,
		       const unsigned char *data, size_t size)
{
	uint64_t offset = 0;
	int rc = 0;

	while (offset < size && !rc) {
		rc = read_chunk(r, data + offset, size - offset, offset);
		if (!rc) {
			pki_input_unmap_part(in, data + offset, (size_t)r->ch.size);
			offset += r->ch.size;
		}
	}
	return rc;
}

/* Up to n bytes more into buf + *have: as many as the input has. */
static int read_more(struct pk_input *in, unsigned char *buf, size_t *have,
		     size_t n)
{
	while (*have < n) {
		ssize_t got = pk_input_read(in, buf + *have, n - *have);

		if (got < 0)
			return (int)got;
		if (got == 0)
			break;
		*have += (size_t)got;
	}
	return 0;
}

/* A stream: each chunk read whole into memory, within the limit. */
static int read_stream(struct jfr_reader *r, struct pk_input *in)
{
	uint64_t offset = 0, limit = pk_context_max_memory(r->ctx), size;
	unsigned char *buf = NULL;
	size_t cap = 0, have;
	int rc = 0;

	for (;;) {
		have = 0;
		if (pki_grow(&buf, &cap, JFR_HEADER_SIZE, 1)) {
			rc = jfr_nomem(r);
			break;
		}
		if ((rc = read_more(in, buf, &have, JFR_HEADER_SIZE)) || !have)
			break;
		size = have == JFR_HEADER_SIZE ? jfr_be64(buf + 8) : 0;
		if (size > limit && memcmp(buf, "FLR", 4) == 0) {
			rc = pk_error_set(r->ctx, PK_ENOMEM, "%s: offset 0x%llx: a chunk "
					  "of %llu bytes is more than the memory limit "
					  "of %llu KiB (see --max-memory; a file is "
					  "read without holding a chunk)", r->name,
					  (unsigned long long)offset,
					  (unsigned long long)size,
					  (unsigned long long)(limit >> 10));
			break;
		}
		if (size > JFR_HEADER_SIZE && memcmp(buf, "FLR", 4) == 0) {
			if (pki_grow(&buf, &cap, (size_t)size, 1)) {
				rc = jfr_nomem(r);
				break;
			}
			if ((rc = read_more(in, buf, &have, (size_t)size)))
				break;
		}
		/* a chunk cut short is an error the header check names */
		if ((rc = read_chunk(r, buf, have, offset)))
			break;
		offset += r->ch.size;
	}
	free(buf);
	return rc;
}

/* ---- the end: facts, the default event, what went missing ---- */

static void set_facts(struct jfr_reader *r)
{
	struct pk_profile *p = r->p;
	char buf[64];
	time_t secs = (time_t)(r->start_nanos / 1000000000);
	struct tm tm;
	size_t i;

	pk_profile_set_meta(p, "jfr-version", r->version);
	snprintf(buf, sizeof(buf), "%u", r->chunks);
	pk_profile_set_meta(p, "jfr-chunks", buf);
	if (gmtime_r(&secs, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03dZ",
			 (int)(r->start_nanos % 1000000000 / 1000000));
		pk_profile_set_meta(p, "recording-start", buf);
	}
	snprintf(buf, sizeof(buf), "%.3f s", (double)(r->end_nanos - r->start_nanos) / 1e9);
	pk_profile_set_meta(p, "recording-duration", buf);
	if (r->pid >= 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)r->pid);
		pk_profile_set_meta(p, "pid", buf);
	}
	if (r->truncated) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->truncated);
		pk_profile_set_meta(p, "truncated-stacks", buf);
	}
	if (!list_events(r, &r->text))
		pk_profile_set_meta(p, "jfr-events", r->text.s);
	for (i = 0; i < r->nevents; i++) {
		const struct jfr_event *ev = &r->events[i];

		if (!ev->spec->sampled || !ev->last_period)
			continue;
		snprintf(buf, sizeof(buf), "%lld ns (%s)", (long long)ev->last_period,
			 ev->period_observed ? "observed between samples" :
			 "the recording's setting");
		r->text.len = 0;
		if (!pki_strbuf_adds(&r->text, ev->spec->name) &&
		    !pki_strbuf_adds(&r->text, "-period"))
			pk_profile_set_meta(p, r->text.s, buf);
		if (!pk_profile_period(p))
			pk_profile_set_period(p, ev->spec->sampled, "nanoseconds",
					      ev->last_period);
	}
}

static void warn_of(struct jfr_reader *r)
{
	if (r->missing)
		pk_warn(r->ctx, "%s: %llu reference%s to constants the "
			"recording's pools lack (jfr print shows null): no thread, "
			"[missing method] or [missing class] in their place",
			r->name, (unsigned long long)r->missing,
			r->missing == 1 ? "" : "s");
	if (r->unknown_types)
		pk_warn(r->ctx, "%s: %llu event%s of types the metadata does not "
			"describe skipped", r->name,
			(unsigned long long)r->unknown_types,
			r->unknown_types == 1 ? "" : "s");
}

/* No sample of the events read: say which events there are. */
static int nothing_read(struct jfr_reader *r)
{
	int empty_ok = pk_profile_flags(r->p) & PK_PROFILE_KEEP_EMPTY;

	if (!r->opts.event && empty_ok)
		return 0;
	if (list_events(r, &r->text))
		return jfr_nomem(r);
	if (r->opts.event)
		return pk_error_set(r->ctx, PK_EUSAGE, "%s: no %s events in the "
				    "recording; its events: %s", r->name,
				    r->opts.event, r->text.s);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: no samples: the recording "
			    "has none of the events with stacks profkit reads "
			    "(jdk.ExecutionSample, jdk.NativeMethodSample, "
			    "jdk.ObjectAllocationSample, jdk.ObjectAllocationInNewTLAB, "
			    "jdk.ObjectAllocationOutsideTLAB, jdk.JavaMonitorEnter, "
			    "jdk.ThreadPark; another with --event); its events: %s",
			    r->name, r->text.s);
}

static int finish(struct jfr_reader *r)
{
	size_t i;
	int rc;

	if (!r->chunks)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: no chunk: the file "
				    "is empty", r->name);
	set_facts(r);
	pk_profile_set_time(r->p, r->start_nanos, r->end_nanos - r->start_nanos);
	warn_of(r);
	for (i = 0; i < r->nevents; i++)
		if (r->events[i].samples)
			break;
	if (i == r->nevents)
		return nothing_read(r);
	rc = jfr_model_finish(r);
	return rc;
}

static void reader_release(struct jfr_reader *r)
{
	size_t i;

	jfr_pools_release(&r->ch);
	jfr_metadata_release(&r->ch.md);
	jfr_events_release(r);
	jfr_model_release(r);
	for (i = 0; i < r->ncounts; i++)
		free(r->counts[i].name);
	free(r->counts);
}

static int jfr_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	struct jfr_reader r;
	const unsigned char *data;
	size_t size;
	int rc;

	memset(&r, 0, sizeof(r));
	r.ctx = r.ch.ctx = ctx;
	r.p = p;
	r.name = r.ch.name = pk_input_name(in);
	r.pid = -1;
	read_options(opts, &r.opts);
	rc = jfr_model_init(&r);
	if (!rc)
		rc = jfr_events_init(&r);
	if (!rc) {
		data = pki_input_map(in, &size);
		rc = data ? read_mapped(&r, in, data, size) : read_stream(&r, in);
	}
	if (!rc)
		rc = finish(&r);
	reader_release(&r);
	/* every failure said what it was, but running out of memory early */
	if (rc && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, "%s: out of memory", r.name);
	return rc ? pk_context_error(ctx)->code : 0;
}

/* "FLR\0" and a major version of the format. */
static int jfr_probe(const unsigned char *buf, size_t len)
{
	if (len < 8 || memcmp(buf, "FLR", 4) != 0)
		return 0;
	return buf[4] == 0 && (buf[5] == 1 || buf[5] == 2) ? 100 : 0;
}

const struct pki_format pki_format_jfr = {
	.name = "jfr",
	.read_description = "Java Flight Recorder (java -XX:StartFlightRecording, "
			    "jcmd JFR.dump, async-profiler -o jfr)",
	.probe = jfr_probe,
	.read = jfr_read,
	.options = jfr_options,
};
