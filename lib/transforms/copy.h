/* SPDX-License-Identifier: MIT */
/*
 * Copying samples from one profile into another, remapping every id on
 * the way (each source id is looked up once). Merging, filtering and
 * symbolizing are all copies with a twist.
 */
#ifndef PROFKIT_COPY_H
#define PROFKIT_COPY_H

#include "core/internal.h"

struct pk_copy {
	struct pk_profile *dst;
	const struct pk_profile *src;
	int64_t factor;		/* values are multiplied by it */
	uint32_t *strings;	/* dst id + 1, 0 when not copied yet */
	uint32_t *mappings, *functions, *locations;
	/* src stack and label set ids -> dst ids, 0 when not copied yet
	 * (each interned once however many samples share it) */
	uint32_t *stacks, *label_sets;
	/* src mapping id -> added to its addresses (a merge rebases
	 * mappings moved by address space randomization), or NULL */
	int64_t *shifts;
	/* added to every copied sample's labels unless its key is 0 */
	struct pk_label extra_label;
	int *columns;		/* src column -> dst column */
	int64_t *multipliers;	/* src column: factor times the scale change */
	int bad_column;		/* src column that overflowed, or -1 */
	int64_t *values;
	uint32_t *stack;
	size_t stack_cap;
};

int pki_copy_init(struct pk_copy *c, struct pk_profile *dst,
		 const struct pk_profile *src, int64_t factor);
/* by_name 0: every column unmapped (-1) for the caller to set. */
int pki_copy_init_columns(struct pk_copy *c, struct pk_profile *dst,
			 const struct pk_profile *src, int64_t factor,
			 int by_name);
void pki_copy_release(struct pk_copy *c);
/*
 * Bring each mapped pair of columns to the finer of their scales: the
 * destination's values are converted, the source's are multiplied as
 * they are copied. pki_copy_init() does it; a caller that maps columns
 * itself calls it after. PK_EINPUT when a value would overflow (then
 * bad_column names the source column).
 */
int pki_copy_scales(struct pk_copy *c);

pk_str pki_copy_string(struct pk_copy *c, pk_str s);
uint32_t pki_copy_mapping(struct pk_copy *c, uint32_t id);
uint32_t pki_copy_function(struct pk_copy *c, uint32_t id);
uint32_t pki_copy_location(struct pk_copy *c, uint32_t id);
/* A source stack or label set: copied the first time, its copy's id after
 * (a stack 0 without memory; a label set 0 also when it has no labels). */
uint32_t pki_copy_stack(struct pk_copy *c, uint32_t id);
uint32_t pki_copy_labels(struct pk_copy *c, uint32_t id);
/*
 * Copy sample i of the source. With locs, that stack (source location
 * ids, leaf first) replaces the sample's own. Returns 0 or a pk_err
 * (PK_EINPUT when a value overflows at the destination's scale).
 */
int pki_copy_sample(struct pk_copy *c, size_t i, const uint32_t *locs,
		   size_t depth);
/* Facts, period and time the destination does not have yet. */
void pki_copy_metadata(struct pk_copy *c);

/*
 * Append all of src to dst as if dst had gone on to read src's input:
 * every table in src's id order (columns matched by event and kind, as
 * readers find them), then its samples and facts, so that a
 * text read in chunks, each into a profile of its own, appended in input
 * order, gives what reading it whole gives. 0 or a pk_err.
 */
int pki_copy_append(struct pk_profile *dst, const struct pk_profile *src);

/* pk_profile_merge(), each copied sample labelled key=value (merge.c). */
int pki_merge_labelled(struct pk_context *ctx, struct pk_profile *dst,
		       const struct pk_profile *src, int64_t factor,
		       const char *key, const char *value);

#endif
