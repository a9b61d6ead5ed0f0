/* SPDX-License-Identifier: MIT */
/*
 * pprof -raw text (pprof-raw.h): its lines read, from a stream or from
 * memory with a helper thread, and the format's descriptor.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pprof-raw.h"
#include "core/parts.h"
#include "formats/registry.h"

/* The least share of the samples a helper reads. */
#define MIN_SHARE (4u << 10)

int praw_bad(struct raw_reader *r, const char *what, const char *line, size_t len)
{
	if (r->quiet)
		return PK_EINPUT;	/* the samples' reader reads it again */
	return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: %s: '%.*s'",
			    pk_input_name(r->in), (unsigned long long)r->lineno,
			    what, (int)(len > 60 ? 60 : len), line);
}

int praw_no_memory(struct raw_reader *r)
{
	return r->quiet ? PK_ENOMEM : pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
}

int praw_grow(struct raw_reader *r, void *array, size_t *cap, size_t need,
		size_t size)
{
	return pki_grow(array, cap, need, size) < 0 ? praw_no_memory(r) : 0;
}

static int raw_line(struct raw_reader *r, const char *line, size_t len)
{
	switch (r->section) {
	case HEADER:
		return praw_header_line(r, line, len);
	case TYPES:
		return praw_types_line(r, line, len);
	case SAMPLES:
		return praw_samples_line(r, line, len);
	case LOCATIONS:
		return praw_locations_line(r, line, len);
	case MAPPINGS:
		return praw_mappings_line(r, line, len);
	}
	return 0;
}

static void raw_free(struct raw_reader *r)
{
	free(r->values);
	free(r->ids);
	free(r->samples);
	pki_idtab_release(&r->sample_tab);
	free(r->labels);
	free(r->location_ids);
	free(r->locations);
	pki_idtab_release(&r->location_tab);
	free(r->lines);
	free(r->mappings);
	free(r->stack);
	pki_memo_free(&r->lines_memo);
	pki_memo_free(&r->location_memo);
	pki_memo_free(&r->labels_memo[0]);
	pki_memo_free(&r->labels_memo[1]);
	free(r->labels_read);
	free(r->functions);
	free(r->label_events);
	pki_memo_free(&r->label_pairs);
}

/* ---- reading: a stream, or the text in memory ---- */

static int read_stream(struct raw_reader *r)
{
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pk_input_line(r->in, &len))) {
		r->lineno = pk_input_lineno(r->in);
		rc = raw_line(r, line, len);
	}
	return rc ? rc : pk_context_error(r->ctx)->code;
}

/* The lines of the text in memory from *at to end while r's section is
 * before the one given; *at moves past them, and what was read leaves
 * memory as it goes (from *kept). */
static int read_memory(struct raw_reader *r, const char **at, const char *end,
		       const char **kept, enum section before)
{
	const char *s = *at, *line;
	size_t len;
	int rc = 0;

	while (!rc && s < end && r->section < before) {
		pki_cut_step(r->in, kept, s);
		line = s;
		len = pki_text_line(line, end, &s, NULL);
		r->lineno++;
		rc = raw_line(r, line, len);
	}
	*at = s;
	return rc;
}

/*
 * The locations and mappings, read on a thread of their own while the
 * samples are: they come after the samples, which name them, so one
 * reader would keep every sample until it has read them. The helper
 * starts at the last line that starts "Locations", and first reads the
 * samples' last share (from a sample's line), where the locations are
 * less than the samples. The reader of the samples takes the helper's
 * samples when it meets their first line, and its locations when it
 * meets the same line "Locations" as its first; where the helper failed
 * (a bad line, a "Locations" line before the one it started at) it reads
 * on itself, and gives the error one reader gives.
 */
struct raw_helper {
	struct raw_reader r;
	const char *share;	/* the samples it reads, up to: */
	const char *locations;	/* the line "Locations" it starts after */
	const char *end;
	uint64_t share_lines;
	pthread_t thread;
	int share_rc, rc;
};

/* The last line at or after from that starts "Locations"; NULL: none. */
static const char *last_locations_line(const char *from, const char *end)
{
	const char *s = end;

	while ((s = memrchr(from, 'L', (size_t)(s - from))))
		if ((s == from || s[-1] == '\n') && (size_t)(end - s) >= 9 &&
		    memcmp(s, "Locations", 9) == 0)
			return s;
	return NULL;
}

/*
 * Where the helper's share of the samples from..locations starts: a
 * sample's line, so that both take about as long. Measured on the
 * bench's text, the helper reads the locations (to end) at 1.6 times
 * the speed at which the samples' reader reads samples, and reads its
 * own (their labels left to the other) at 1.1 times it: its 5/8 rest +
 * share is about the other's samples - share.
 */
static const char *share_start(const char *from, const char *locations,
			       const char *end)
{
	size_t samples = (size_t)(locations - from), rest = (size_t)(end - locations);
	size_t share = samples > rest / 8 * 5 ? (samples - rest / 8 * 5) / 2 : 0;
	const char *s, *nl;

	if (share < MIN_SHARE)
		return locations;
	/* the first sample's line after the one at locations - share */
	for (s = memchr(locations - share, '\n', share); s && ++s < locations; s = nl) {
		nl = memchr(s, '\n', (size_t)(locations - s));
		if (praw_is_sample_line(s, (size_t)((nl ? nl : locations) - s)))
			return s;
	}
	return locations;
}

static void *help(void *arg)
{
	struct raw_helper *h = arg;
	struct raw_reader *r = &h->r;
	const char *kept = h->share, *s = h->share;

	if (h->share < h->locations) {
		r->section = SAMPLES;
		h->share_rc = read_memory(r, &s, h->locations, &kept, LOCATIONS);
		if (!h->share_rc && r->section != SAMPLES)
			h->share_rc = PK_EINPUT;
		if (!h->share_rc)
			h->share_rc = praw_end_sample(r);
		h->share_lines = r->lineno;
	}
	pki_text_line(h->locations, h->end, &s, NULL);
	kept = s;
	r->section = LOCATIONS;
	h->rc = read_memory(r, &s, h->end, &kept, MAPPINGS + 1);
	if (!h->rc)
		h->rc = praw_end_location(r);
	/* what only its reading needed, freed here rather than after */
	pki_memo_free(&r->lines_memo);
	pki_memo_free(&r->location_memo);
	pki_idtab_release(&r->location_tab);
	return NULL;
}

/* A helper for the text from samples (the line after the sample types)
 * to end, when there are threads for it; 0 when none was started. */
static int start_helper(struct raw_reader *r, struct raw_helper *h,
			const struct pk_options *opts, const char *samples,
			const char *end)
{
	memset(h, 0, sizeof(*h));
	if (pki_parts_threads(opts, (size_t)(end - samples)) < 2 ||
	    !(h->locations = last_locations_line(samples, end)))
		return 0;
	h->r.helper = h->r.quiet = 1;
	h->r.ctx = r->ctx;
	h->r.in = r->in;
	h->r.keeps_order = r->keeps_order;
	h->r.ntypes = r->ntypes;
	h->share = share_start(samples, h->locations, end);
	h->end = end;
	return !pthread_create(&h->thread, NULL, help, h);
}

/* The helper's locations and mappings taken as r's own, met at the
 * line locations: its functions, then its mappings, interned in the
 * order they came, as r would have interned them reading on. */
static int adopt_helper(struct raw_reader *r, struct raw_helper *h)
{
	struct raw_reader *hr = &h->r;
	uint32_t *ours;
	size_t i;
	int rc = 0;

	if (!(ours = malloc((hr->nfunctions + 1) * sizeof(*ours))))
		return praw_no_memory(r);
	for (i = 0; i < hr->nfunctions && !rc; i++)
		if (!(ours[i + 1] = praw_intern_function(r->p, &hr->functions[i])))
			rc = praw_no_memory(r);
	for (i = 0; i < hr->nlines && !rc; i++)
		hr->lines[i].function = ours[hr->lines[i].function];
	free(ours);
	for (i = 0; i < hr->nmappings && !rc; i++)
		rc = praw_intern_mapping(r, &hr->mappings[i]);
	if (rc)
		return rc;
#define TAKE(array, n, cap) \
	(free(r->array), r->array = hr->array, r->n = hr->n, r->cap = hr->cap, \
	 hr->array = NULL, hr->n = hr->cap = 0)
	TAKE(location_ids, nlocation_ids, location_ids_cap);
	TAKE(locations, nlocations, locations_cap);
	TAKE(lines, nlines, lines_cap);
	TAKE(mappings, nmappings, mappings_cap);
#undef TAKE
	r->ids_unordered = hr->ids_unordered;
	r->section = hr->section;
	return 0;
}

/* The text in memory: the header, then the samples while a helper reads
 * their last share, the locations and the mappings, or all on this
 * thread. */
static int read_in_memory(struct raw_reader *r, const struct pk_options *opts,
			  const char *data, size_t size)
{
	const char *end = data + size, *s = data, *kept = data, *locations;
	struct raw_helper h;
	int rc;

	if ((rc = read_memory(r, &s, end, &kept, SAMPLES)) ||
	    !start_helper(r, &h, opts, s, end))
		return rc ? rc : read_memory(r, &s, end, &kept, MAPPINGS + 1);
	r->threads = 1;
	rc = read_memory(r, &s, h.share, &kept, LOCATIONS);
	pthread_join(h.thread, NULL);
	if (!rc && r->section == SAMPLES && s == h.share && h.share < h.locations &&
	    !h.share_rc && !(rc = praw_adopt_samples(r, &h.r, r->lineno))) {
		r->lineno += h.share_lines;
		s = h.locations;
	}
	rc = rc == 1 ? 0 : rc;	/* (1: the helper's samples read here) */
	if (!rc && r->section == SAMPLES)
		rc = read_memory(r, &s, end, &kept, LOCATIONS);
	/* (the line read last, "Locations" when the samples ended) */
	locations = s > data ? memrchr(data, '\n', (size_t)(s - 1 - data)) : NULL;
	locations = locations ? locations + 1 : data;
	if (!rc && r->section == LOCATIONS && !h.rc && h.locations == locations)
		rc = adopt_helper(r, &h);
	raw_free(&h.r);
	if (!rc && r->section == LOCATIONS)
		rc = read_memory(r, &s, end, &kept, MAPPINGS + 1);
	return rc;
}

static int raw_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	struct raw_reader r;
	const char *data;
	size_t size;
	int rc;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	r.keeps_order = pki_profile_keeps_order(p);
	data = (const char *)pki_input_map(in, &size);
	rc = data ? read_in_memory(&r, opts, data, size) : read_stream(&r);
	if (!rc && r.section < LOCATIONS)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: the text ends before its "
				  "Locations (pprof -raw prints Samples:, "
				  "Locations and Mappings)", pk_input_name(in));
	if (!rc)
		rc = praw_end_sample(&r);
	if (!rc)
		rc = praw_end_location(&r);
	if (!rc)
		rc = praw_build(&r);
	raw_free(&r);
	return rc;
}

/* Its header: "PeriodType:", "Period:" or a "Comment:" first, then
 * "Samples:" and the sample types' line. */
static int raw_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len, *nl;
	int lines = 0;

	if (!pki_starts_with_n(s, len, "PeriodType: ") &&
	    !pki_starts_with_n(s, len, "Period: ") &&
	    !pki_starts_with_n(s, len, "Comment: "))
		return 0;
	for (; s < end && lines++ < 64 && (nl = memchr(s, '\n', (size_t)(end - s)));
	     s = nl + 1) {
		const char *types = nl + 1, *types_end;

		if (nl - s != 8 || memcmp(s, "Samples:", 8))
			continue;
		types_end = memchr(types, '\n', (size_t)(end - types));
		if (!types_end)
			types_end = end;
		return types_end == types || memchr(types, '/', (size_t)(types_end - types)) ?
		       90 : 0;
	}
	return 0;
}

const struct pki_format pki_format_pprof_raw = {
	.name = "pprof-raw",
	.read_description = "the text 'pprof -raw' prints (as "
			    "stackcollapse-go.pl reads it)",
	.probe = raw_probe,
	.read = raw_read,
	.read_flags = PKI_READ_PPROF_NAMES | PKI_READ_EMPTY_IS_NO_SAMPLES,
};
