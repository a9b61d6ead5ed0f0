/* SPDX-License-Identifier: MIT */
/*
 * Operations on whole profiles that commands and writers share: choosing
 * the value to show, folding stacks into lines, merging, filtering, the
 * top functions, a summary.
 */
#ifndef PROFKIT_TRANSFORM_H
#define PROFKIT_TRANSFORM_H

#include <profkit/format.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The sample type column a single-value view shows: the event named by
 * "event" (or the first event), weighted as "value" says (the
 * period when there is one). Profiles without events: the last column,
 * as pprof shows by default. -1 when there is nothing to show; an error
 * in ctx when opts name something the profile lacks.
 */
int pk_value_column(struct pk_context *ctx, const struct pk_profile *p,
		    const struct pk_options *opts);

/* Stacks folded as stackcollapse-perf.pl does, summed and sorted. */
struct pk_folded;
int pk_folded_build(struct pk_context *ctx, const struct pk_profile *p,
		    const struct pk_options *opts, struct pk_folded **out);
void pk_folded_free(struct pk_folded *f);
size_t pk_folded_count(const struct pk_folded *f);
/* Not NUL-terminated: len bytes, valid until pk_folded_free. */
const char *pk_folded_stack(const struct pk_folded *f, size_t i, size_t *len);
int64_t pk_folded_value(const struct pk_folded *f, size_t i);
/* Values are fixed point: value / scale (1 unless the input had fractions). */
int64_t pk_folded_scale(const struct pk_folded *f);
/* Print " VALUE" (fixed point with the scale, e.g. " 2.5"). */
int pk_output_count(struct pk_output *out, int64_t value, int64_t scale);

/*
 * Add src's samples, times factor (1 to sum, -1 for a difference), to
 * dst; sample types missing in dst are added. As pprof merges: a mapping
 * of src with the build id (else file), offset and page-rounded size of
 * one of dst's becomes that one, its addresses rebased; dst's time
 * becomes the earlier of the two, its duration the sum of both, its
 * period the longer.
 */
int pk_profile_merge(struct pk_context *ctx, struct pk_profile *dst,
		     const struct pk_profile *src, int64_t factor);
/* Add one column of src into one column of dst (stacks and labels kept). */
int pk_profile_merge_column(struct pk_context *ctx, struct pk_profile *dst,
			    const struct pk_profile *src, size_t src_column,
			    size_t dst_column);
/*
 * 0 when b has the sample types of a (names and units, in order) and
 * its period type (unless one has none), as pprof requires to merge.
 */
int pk_profile_check_compatible(struct pk_context *ctx,
				const struct pk_profile *a,
				const struct pk_profile *b, const char *b_name);
/*
 * Add *p to *sum as profkit-merge does: checked with
 * pk_profile_check_compatible(), except that a plain folded profile (one
 * count, no event) adds to the column opts chooses; when *sum is the
 * plain one the two are swapped first. *p is left for the caller to free.
 */
int pk_profile_accumulate(struct pk_context *ctx, struct pk_profile **sum,
			  struct pk_profile **p, const char *name,
			  const struct pk_options *opts);

/* Scale BASE to NEW's total of the compared column (difffolded.pl -n). */
#define PK_DIFF_NORMALIZE 1u
/*
 * changed becomes NEW - BASE as pprof -diff_base computes it: BASE's
 * samples negated and labelled pprof::base=true (pprof then takes
 * percentages of BASE's total), headers combined as pk_profile_merge()
 * does. The compared column (opts) of both is brought to one scale;
 * base is changed.
 */
int pk_profile_diff(struct pk_context *ctx, struct pk_profile *base,
		    struct pk_profile *changed, const struct pk_options *opts,
		    unsigned flags);
/* Write "stack base new" lines of the column opts chooses, sorted by stack,
 * as difffolded.pl prints them. */
int pk_diff_write_folded(struct pk_context *ctx, struct pk_profile *base,
			 struct pk_profile *changed,
			 const struct pk_options *opts, unsigned flags,
			 struct pk_output *out);

/*
 * The samples of src that pass every test the options give, as a new
 * profile. The tests are keys of the scope "filter": focus, ignore
 * (POSIX extended regular expressions on function names, inline frames
 * too: keep samples through a match, drop them), prune-from (cut stacks
 * below the matching function), comm (a pattern on the thread's name),
 * pid, tid, from-time, to-time (seconds; src must keep its samples'
 * order and times, PK_PROFILE_KEEP_ORDER), min-percent (drop stacks
 * under this share of the total, weighed as "value" says) and field
 * (NAME=VALUE: tracepoint samples with this field). The bare "event"
 * keeps that event's samples.
 */
int pk_profile_filter(struct pk_context *ctx, const struct pk_profile *src,
		      const struct pk_options *opts, struct pk_profile **out);

/*
 * pprof -top's table: flat and cumulative weight per function, of the
 * column opts choose; without "sample-type" or "event", of the sample
 * type the profile names its default (pprof's default_sample_type), as
 * pprof shows it. Sorted as pprof sorts them, by flat weight or, with
 * by_cumulative, by cumulative weight. *out is for pk_top_free.
 */
struct pk_top;
int pk_profile_top(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, int by_cumulative,
		   struct pk_top **out);
void pk_top_free(struct pk_top *top);
size_t pk_top_count(const struct pk_top *top);
/* Row i's function and its weights; the name is valid until pk_top_free. */
const char *pk_top_name(const struct pk_top *top, size_t i);
int64_t pk_top_flat(const struct pk_top *top, size_t i);
int64_t pk_top_cum(const struct pk_top *top, size_t i);
/* The total of the column shown, and the column (-1: nothing to show). */
int64_t pk_top_total(const struct pk_top *top);
int pk_top_column(const struct pk_top *top);
/*
 * What pprof -top prints of top, character for character: the profile's
 * labels (File, Build ID, Type, Time, Duration), what is shown and
 * dropped, and the first limit rows (0: all) of those pprof keeps.
 */
int pk_top_write(struct pk_context *ctx, const struct pk_profile *p,
		 const struct pk_top *top, size_t limit, struct pk_output *out);

/*
 * What profkit-info prints of p: its format, sample types and their
 * totals, events, distinct stacks and functions, processes, threads,
 * time span, mappings and the facts the recording gives about itself.
 * As text, or with PK_SUMMARY_JSON as one JSON object (profkit-info
 * --json prints an array of them). name is the input as the caller
 * names it ("-" for standard input).
 */
#define PK_SUMMARY_JSON 1u
int pk_profile_summary(struct pk_context *ctx, const struct pk_profile *p,
		       const char *name, unsigned flags,
		       struct pk_output *out);

#ifdef __cplusplus
}
#endif
#endif
