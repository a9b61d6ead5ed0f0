/* SPDX-License-Identifier: MIT */
/*
 * Reader for the text Go's `pprof -raw` prints of a profile (Profile's
 * String() in github.com/google/pprof/profile), what stackcollapse-go.pl
 * folds:
 *
 *     PeriodType: cpu nanoseconds
 *     Period: 10000000
 *     Time: 2024-03-01 10:00:00.123456789 +0100 CET
 *     Samples:
 *     samples/count cpu/nanoseconds[dflt]
 *               2   20000000: 1 2 3
 *                     comm:[demo]
 *                     tid:[4011]
 *     Locations
 *          1: 0x4b7126 M=1 main.hotLoop ./work.go:27 s=0
 *                  main.warmLoop ./work.go:33 s=0
 *          2: 0x4b726b M=1
 *     Mappings
 *     1: 0x400000/0x4b8000/0x0 /srv/work 4d2f... [FN][FL][LN]
 *
 * into the model the pprof reader makes of the profile itself: the same
 * sample types, labels, functions, inlined lines, addresses and mappings
 * (where the text says them: not the frame filters, nor the duration,
 * which pprof prints cut short). A sample's labels are two lines, the
 * strings' then the numbers'; a sample with one line of labels that are
 * all numbers is taken to have numeric labels. Samples come before the
 * locations and mappings they name, so they are kept until the end:
 * when the profile sums samples anyway, those of the same location ids
 * and labels are summed as they come, into the first of them, so that
 * what is kept grows with the distinct samples, not with the text (but
 * not past a few thousand samples of which fewer than half were summed:
 * there the table would cost more than it saves). A file is read where
 * it lies in memory, the last share of its samples and its locations and
 * mappings on a helper thread while the rest is read (read.c).
 */
#ifndef PROFKIT_FORMATS_PPROF_RAW_H
#define PROFKIT_FORMATS_PPROF_RAW_H

#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "core/memo.h"
#include "util/idtab.h"

/* A location as the text gives it, kept once for all the ids of the same
 * mapping, address and lines (a text merged from many profiles lists the
 * same location under many ids). */
struct raw_location {
	uint64_t address, mapping;
	uint64_t first_id;		/* the id it came under first */
	size_t first_line, nlines;
	uint32_t ours;
};

/* A location's id and which it is, in r->locations. */
struct raw_location_id {
	uint64_t id;
	uint32_t location;
};

/* A mapping; a helper's (struct raw_reader) with its strings still text,
 * interned when the reader of the samples takes its locations. */
struct raw_mapping {
	uint64_t id;
	uint32_t ours;
	struct pk_mapping m;
	const char *file, *build_id;
	size_t file_len, build_id_len;
};

/* A function as a location line names it: text of the input (system
 * NULL when the line names none). */
struct raw_function {
	const char *name, *filename, *system;
	size_t name_len, filename_len, system_len;
	int64_t start_line;
};

/* A sample, or the samples of its location ids and labels summed: its
 * values are r->values[index * ntypes...], its line the first's, which
 * an error names. */
struct raw_sample {
	size_t first_location, nlocations;
	uint32_t labels;
	uint64_t lineno;
};

enum section { HEADER, TYPES, SAMPLES, LOCATIONS, MAPPINGS };

struct raw_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	enum section section;
	size_t ntypes;
	int64_t *values;
	size_t nvalues, values_cap;
	uint64_t *ids;			/* the samples' location ids */
	size_t nids, ids_cap;
	struct raw_sample *samples;
	size_t nsamples, samples_cap;
	int sample_open;		/* the last sample's labels to come */
	int keeps_order;		/* the profile keeps each sample */
	int summing;			/* the profile sums samples anyway */
	struct pk_idtab sample_tab;	/* samples by ids and labels */
	size_t nsummed, next_check;	/* summed so far; when to look again */
	struct pk_label *labels;	/* the last sample's, so far */
	size_t nlabels, labels_cap, label_lines;
	struct raw_location_id *location_ids;
	size_t nlocation_ids, location_ids_cap;
	int ids_unordered;		/* an id not above the one before */
	struct raw_location *locations;	/* each once */
	size_t nlocations, locations_cap;
	struct pk_idtab location_tab;	/* locations by address and lines */
	struct raw_location open;	/* the location read last, its lines */
	int location_open;		/* last in r->lines */
	/* a location of one line by the text after its id: the same come
	 * under id after id in a text merged from many profiles (its id
	 * in location_memo, and the location it was, from 1; given up
	 * where it finds too few) */
	struct pki_memo location_memo;
	uint32_t open_text, open_known;
	size_t location_tries, location_finds;
	int location_memo_off;
	struct pk_line *lines;		/* a helper's: of its functions */
	size_t nlines, lines_cap;
	struct raw_mapping *mappings;
	size_t nmappings, mappings_cap;
	uint32_t *stack;
	size_t stack_cap;
	/* a line's function and line number by its text, when the number
	 * fits in 32 bits: the same functions come at location after
	 * location (a function's at each of its addresses) */
	struct pki_memo lines_memo;
	/* the labels a sample's first and second line of labels give, by
	 * the line's text (labels_memo[line - 1]: a run of labels_read,
	 * its start << 32 | its length): samples of a thread repeat them */
	struct pki_memo labels_memo[2];
	struct pk_label *labels_read;
	size_t nlabels_read, labels_read_cap;
	/* the last sample's lines of labels by their ids in labels_memo
	 * (0: not remembered), and the sets of the pairs met last by
	 * them: a thread's samples give the same labels over and over */
	uint32_t label_ids[2];
	uint32_t recent_labels[2][4];	/* the ids met last, by place */
	struct { uint64_t ids; uint32_t set; } label_sets[64];
	uint64_t lineno;		/* of the line read last */
	int quiet;			/* errors only returned */
	int threads;			/* a second thread for the stacks */
	/* A helper reading the last of the samples and the locations and
	 * mappings on a thread of its own (p NULL, quiet): its functions
	 * and mappings kept as text, its lines of labels as their ids in
	 * labels_memo, a sample's labels the id of their pair in
	 * label_pairs, all read or interned in the order they came when
	 * its work is taken (read.c) */
	int helper;
	struct raw_function *functions;
	size_t nfunctions, functions_cap;
	uint64_t *label_events;		/* place << 32 | id, as they came */
	size_t nlabel_events, label_events_cap;
	struct pki_memo label_pairs;	/* of label_ids */
};

/* ---- read.c ---- */

/* A line's error, named with its number and text (a helper's: only
 * returned); out of memory; array grown to need elements. */
int praw_bad(struct raw_reader *r, const char *what, const char *line, size_t len);
int praw_no_memory(struct raw_reader *r);
int praw_grow(struct raw_reader *r, void *array, size_t *cap, size_t need,
	      size_t size);

/* ---- samples.c: the header, the sample types, samples and labels ---- */

int praw_header_line(struct raw_reader *r, const char *line, size_t len);
int praw_types_line(struct raw_reader *r, const char *line, size_t len);
int praw_samples_line(struct raw_reader *r, const char *line, size_t len);
int praw_is_sample_line(const char *line, size_t len);
/* A line of labels read into r->labels, r->label_lines its place. */
int praw_read_label_line(struct raw_reader *r, const char *line, size_t len);
int praw_end_sample(struct raw_reader *r);
/* A helper's samples (h) appended to r's, which end where they start,
 * first_line before them: 0, 1 where r must read them itself (it gives
 * the error one reader gives), or a pk_err set in r's context. */
int praw_adopt_samples(struct raw_reader *r, struct raw_reader *h,
		       uint64_t first_line);

/* ---- locations.c: locations, mappings, and the profile made ---- */

int praw_locations_line(struct raw_reader *r, const char *line, size_t len);
int praw_end_location(struct raw_reader *r);
int praw_mappings_line(struct raw_reader *r, const char *line, size_t len);
uint32_t praw_intern_function(struct pk_profile *p, const struct raw_function *f);
int praw_intern_mapping(struct raw_reader *r, struct raw_mapping *raw);
int praw_build(struct raw_reader *r);

/* A sample's values added to a sum of them, wrapping as the profile sums:
 * a hostile text may sum to anything. */
static inline void praw_sum(const struct raw_reader *r, int64_t *sum,
			    const int64_t *values)
{
	size_t k;

	for (k = 0; k < r->ntypes; k++)
		sum[k] = (int64_t)((uint64_t)sum[k] + (uint64_t)values[k]);
}

/* ---- the pieces of a line: s[*i..len) is what is left ---- */

/* (The pieces go through a local index: a byte read through a char
 * pointer may be *i, for all the compiler knows, which it then reads
 * from memory again at every byte.) */
static inline void skip_blanks(const char *s, size_t len, size_t *i)
{
	static const uint64_t spaces = 0x2020202020202020ULL;
	size_t k = *i;
	uint64_t w;

	/* samples' values are right-aligned in wide columns, labels
	 * indented by 16: eight spaces at a time */
	while (k + 8 <= len && (memcpy(&w, s + k, 8), w == spaces))
		k += 8;
	while (k < len && s[k] == ' ')
		k++;
	*i = k;
}

/* A decimal integer, a '-' first when negative is set. */
static inline int integer(const char *s, size_t len, size_t *i, int negative,
			  int64_t *v)
{
	size_t start = *i, k = start;
	int minus = negative && k < len && s[k] == '-';
	uint64_t u = 0;

	k += (size_t)minus;
	for (; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
		if (u > (UINT64_MAX - 9) / 10) {
			*i = k;
			return -1;
		}
		u = u * 10 + (uint64_t)(s[k] - '0');
	}
	*i = k;
	if (k == start + (size_t)minus || u > (uint64_t)INT64_MAX + (uint64_t)minus)
		return -1;
	*v = minus ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

#endif
