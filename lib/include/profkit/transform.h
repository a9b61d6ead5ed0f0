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
const char *pk_folded_stack(const struct pk_folded *f, size_t i, size_t *len);
int64_t pk_folded_value(const struct pk_folded *f, size_t i);
/* Values are fixed point: value / scale (1 unless the input had fractions). */
int64_t pk_folded_scale(const struct pk_folded *f);
/* Print " VALUE" (fixed point with the scale, e.g. " 2.5"). */
int pk_output_count(struct pk_output *out, int64_t value, int64_t scale);

#ifdef __cplusplus
}
#endif
#endif
