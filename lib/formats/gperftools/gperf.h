/* SPDX-License-Identifier: MIT */
/* Internal to the two gperftools readers; defined in gperf.c. */
#ifndef PROFKIT_GPERF_H
#define PROFKIT_GPERF_H

#include "formats/registry.h"

/*
 * Shared by the gperftools readers: collect
 * samples and the memory map, then build the profile as pprof does.
 */
struct pk_gperf;

enum pk_gperf_fixups {
	PK_GPERF_STRIP_HANDLER_FRAMES = 1 << 0,	/* CPU profiles */
	PK_GPERF_DROP_DUPLICATE_LEAF = 1 << 1,	/* CPU and thread profiles */
};

struct pk_gperf *pki_gperf_new(struct pk_context *ctx, struct pk_input *in,
			       struct pk_profile *p);
void pki_gperf_free(struct pk_gperf *g);
/* addrs leaf first, already moved back onto call instructions. */
int pki_gperf_add(struct pk_gperf *g, const uint64_t *addrs, size_t n,
		  const int64_t *values, size_t nvalues, uint32_t labels);
/* 1 for a mapping, 0 for another line, <0 on error. */
int pki_gperf_map_line(struct pk_gperf *g, const char *line, size_t len);
size_t pki_gperf_map_count(const struct pk_gperf *g);
/* Drop Go's white space (as strings.TrimSpace) from both ends. */
void pki_gperf_trim(const char **s, size_t *len);
/* Sample types of p must be set; writes the samples into p. */
int pki_gperf_finish(struct pk_gperf *g, unsigned fixups);

/* What a legacy profile measures, for the frames pprof hides in it. */
enum pk_gperf_kind {
	PK_GPERF_CPU,		/* CPU and thread profiles */
	PK_GPERF_HEAP,		/* heap and growth profiles */
	PK_GPERF_LOCK,		/* contention profiles */
};

/* Set p's drop_frames and keep_frames as pprof sets them for kind. */
void pki_gperf_set_hidden_frames(struct pk_profile *p, enum pk_gperf_kind kind);

#endif
