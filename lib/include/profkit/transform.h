/* SPDX-License-Identifier: MIT */
/*
 * Operations on whole profiles that commands and writers share: choosing
 * the value to show, folding stacks into lines, merging, filtering.
 */
#ifndef PROFKIT_TRANSFORM_H
#define PROFKIT_TRANSFORM_H

#include <profkit/format.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The sample type column a single-value view shows: the event named by
 * opts->event (or the first event), weighted as opts->value says (the
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
 * new becomes NEW - BASE as pprof -diff_base computes it: BASE's samples
 * negated and labelled pprof::base=true (pprof then takes percentages of
 * BASE's total), headers combined as pk_profile_merge() does. The
 * compared column (opts) of both is brought to one scale; base is changed.
 */
int pk_profile_diff(struct pk_context *ctx, struct pk_profile *base,
		    struct pk_profile *new, const struct pk_options *opts,
		    unsigned flags);
/* Write "stack base new" lines of the column opts chooses, sorted by stack,
 * as difffolded.pl prints them. */
int pk_diff_write_folded(struct pk_context *ctx, struct pk_profile *base,
			 struct pk_profile *new, const struct pk_options *opts,
			 unsigned flags, struct pk_output *out);

struct pk_filter {
	const char *focus;	/* keep samples through a matching function */
	const char *ignore;	/* drop samples through a matching function */
	const char *prune_from;	/* cut stacks below the matching function */
	const char *comm;	/* keep samples whose comm matches */
	int64_t pid, tid;	/* keep this process or thread; -1: any */
	uint64_t from_time, to_time;	/* nanoseconds; 0: open */
	double min_percent;	/* drop stacks under this share of the total */
};

void pk_filter_init(struct pk_filter *f);
/*
 * The samples of src that pass f, as a new profile. Patterns are POSIX
 * extended regular expressions on function names (comm: on the comm).
 * opts->event keeps that event's samples; opts->value picks the value
 * --min-percent weighs.
 */
int pk_profile_filter(struct pk_context *ctx, const struct pk_profile *src,
		      const struct pk_filter *f, const struct pk_options *opts,
		      struct pk_profile **out);

/* pprof -top's table: flat and cumulative weight per function. */
struct pk_top_row {
	const char *name;
	int64_t flat, cum;
};

/* The rows and their names are valid until pk_top_release. */
struct pk_top {
	struct pk_top_row *rows;	/* sorted as pprof sorts them */
	size_t nrows;
	int64_t total;
	int column;			/* the value shown */
	struct pk_profile *names;	/* private: holds the names */
};

int pk_profile_top(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, int by_cumulative,
		   struct pk_top *top);
void pk_top_release(struct pk_top *top);
/*
 * What pprof -top prints of top, character for character: the profile's
 * labels (File, Build ID, Type, Time, Duration), what is shown and
 * dropped, and the first limit rows (0: all) of those pprof keeps.
 */
int pk_top_write(struct pk_context *ctx, const struct pk_profile *p,
		 const struct pk_top *top, size_t limit, struct pk_output *out);

#ifdef __cplusplus
}
#endif
#endif
