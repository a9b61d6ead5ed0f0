/* SPDX-License-Identifier: MIT */
/*
 * The format registry. Adding a format is one file defining its table
 * and one line in a list below; cheap and specific probes come first.
 */
#include <string.h>

#include "registry.h"
#include "core/internal.h"

const struct pk_reader *const pk_readers[] = {
	&pki_reader_perf_data,
	&pki_reader_jfr,
	&pki_reader_gperf_cpu,
	&pki_reader_gperf_heap,
	&pki_reader_perf_script,
	&pki_reader_folded,
	&pki_reader_pprof,
	NULL,
};

const struct pk_writer *const pk_writers[] = {
	&pki_writer_folded,
	&pki_writer_perf_script,
	&pki_writer_pprof,
	&pki_writer_speedscope,
	&pki_writer_chrome_trace,
	&pki_writer_gprof2dot,
	&pki_writer_dot,
	&pki_writer_callgrind,
	&pki_writer_flamegraph,
	&pki_writer_firefox,
	NULL,
};

const struct pk_reader *pk_reader_find(const char *name)
{
	size_t i;

	for (i = 0; pk_readers[i]; i++)
		if (strcmp(pk_readers[i]->name, name) == 0)
			return pk_readers[i];
	return NULL;
}

const struct pk_writer *pk_writer_find(const char *name)
{
	size_t i;

	for (i = 0; pk_writers[i]; i++)
		if (strcmp(pk_writers[i]->name, name) == 0)
			return pk_writers[i];
	return NULL;
}

/* Enough for every magic number and a few text lines. */
#define PROBE_BYTES 4096

int pk_reader_detect(struct pk_context *ctx, struct pk_input *in,
		     const struct pk_reader **reader)
{
	const struct pk_reader *best = NULL;
	const unsigned char *buf;
	int best_score = 0, tie = 0;
	size_t len, i;

	buf = pk_input_peek(in, PROBE_BYTES, &len);
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	if (len == 0)
		return pk_error_set(ctx, PK_EINPUT, "%s: input is empty",
				    pk_input_name(in));
	for (i = 0; pk_readers[i]; i++) {
		int score = pk_readers[i]->probe(buf, len);

		if (score > best_score) {
			best = pk_readers[i];
			best_score = score;
			tie = 0;
		} else if (score == best_score && score > 0) {
			tie = 1;
		}
	}
	/* As FFmpeg does: a tie is "unknown", not a guess. */
	if (!best || best_score < PK_PROBE_MIN || tie)
		return pk_error_set(ctx, PK_EINPUT,
				    "%s: unknown profile format (see "
				    "--list-formats; name one with --from)",
				    pk_input_name(in));
	*reader = best;
	return 0;
}

int pk_read(struct pk_context *ctx, struct pk_input *in,
	    const struct pk_reader *reader, struct pk_profile *p,
	    const struct pk_options *opts)
{
	int rc;

	if (!reader) {
		rc = pk_reader_detect(ctx, in, &reader);
		if (rc)
			return rc;
	}
	pk_profile_set_memory_limit(p, pk_context_max_memory(ctx));
	pki_profile_set_max_stack(p, opts && opts->max_stack ? opts->max_stack :
				  PK_DEFAULT_MAX_STACK);
	if (!pk_profile_meta(p, PK_META_INPUT))
		pk_profile_set_meta(p, PK_META_INPUT, pk_input_name(in));
	if (!pk_profile_meta(p, PK_META_FORMAT))
		pk_profile_set_meta(p, PK_META_FORMAT, reader->name);
	rc = reader->read(ctx, in, p, opts);
	if (pk_profile_failed(p)) {
		/* say why, rather than the reader's bare "out of memory" */
		pk_context_clear_error(ctx);
		rc = pk_error_set(ctx, PK_ENOMEM,
				  "%s: the profile needs more than the memory "
				  "limit of %llu MiB (see --max-memory)",
				  pk_input_name(in),
				  (unsigned long long)(pk_context_max_memory(ctx) >> 20));
	}
	if (!rc && pki_profile_cut_stacks(p))
		pk_warn(ctx, "%s: %zu %s deeper than %zu frames: cut to "
			"their %zu leaf-side frames (see --max-stack)",
			pk_input_name(in), pki_profile_cut_stacks(p),
			pki_profile_cut_stacks(p) == 1 ? "stack was" : "stacks were",
			pki_profile_max_stack(p), pki_profile_max_stack(p));
	return rc;
}
