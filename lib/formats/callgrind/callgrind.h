/* SPDX-License-Identifier: MIT */
/*
 * The callgrind format's pieces: the writer (write.c), the reader's
 * parser (read.c, with the descriptor) and what turns a call graph into
 * samples (stacks.c).
 */
#ifndef PROFKIT_FORMATS_CALLGRIND_H
#define PROFKIT_FORMATS_CALLGRIND_H

#include "core/internal.h"
#include "util/idtab.h"

int pki_callgrind_write(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct pk_output *out);

/*
 * A function as callgrind_annotate tells functions apart: by source file
 * and name. Code of another file inlined into a function (fi=, fe=) is a
 * function of its own, that file's, with the same name, called from it.
 */
struct cg_node {
	pk_str file;		/* 0 for callgrind's "???" */
	pk_str name;
	uint32_t mapping;	/* its object's, 0 for none */
	uint32_t function;	/* in the profile, made when first needed */
	int64_t start_line;	/* where calls= lines say it starts, or 0 */
	int defined;		/* seen at fn=: its object is from there */
};

/* Self cost of a function at a position. */
struct cg_self {
	uint32_t node;
	uint32_t location;	/* made with the samples */
	uint64_t pos;		/* a line, or an address without lines */
};

/* Calls from caller at a position to callee, and their inclusive cost. */
struct cg_arc {
	uint32_t caller, callee;
	uint32_t location;	/* the caller's frame at the call */
	uint64_t pos;
};

/*
 * A call graph: functions (kept for the whole file), and the self costs
 * and calls of a thread's parts, each with ncosts values (the events, in
 * the header's order) in the parallel arrays *_costs.
 */
struct cg_graph {
	struct cg_node *nodes;	/* [0] unused: ids are 1-based */
	size_t nnodes, nodes_cap;
	struct pk_idtab node_tab;

	size_t ncosts;
	struct cg_self *selfs;
	int64_t *self_costs;
	size_t nselfs, selfs_cap, self_costs_cap;
	struct pk_idtab self_tab;

	struct cg_arc *arcs;
	int64_t *arc_costs;
	size_t narcs, arcs_cap, arc_costs_cap;
	struct pk_idtab arc_tab;
};

/* How a graph's samples are made. */
struct cg_emit {
	const int *columns;	/* the profile's column of each cost */
	uint32_t labels;	/* the thread's label set (pid, tid) */
	int positions_are_lines;	/* else addresses */
	size_t max_paths;	/* call paths kept before some merge */
	size_t merged;		/* out: functions whose paths were merged */
};

/*
 * Turn g's costs into samples of p, each function's self cost as samples
 * of the stacks the graph leads to it by (stacks.c says how), then
 * forget the costs (the functions stay). 0 or a pk_err.
 */
int pki_callgrind_stacks(struct pk_context *ctx, struct pk_profile *p,
			 struct cg_graph *g, struct cg_emit *how);

#endif
