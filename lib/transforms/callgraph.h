/* SPDX-License-Identifier: MIT */
/*
 * The callchains of a profile as gprof2dot sees them, shared by the
 * call-graph writers (gprof2dot JSON, dot); nothing here is installed.
 * A function is a (name, module) pair, the module being the mapping's
 * file name without its directory; a callchain lists functions leaf
 * first, the inlined functions of a location innermost first.
 */
#ifndef PROFKIT_CALLGRAPH_H
#define PROFKIT_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <profkit/profkit.h>

#include "util/strbuf.h"

struct pk_callgraph {
	struct pk_context *ctx;
	const struct pk_profile *p;
	int column;
	/*
	 * The graph's functions and callchains, interned in a profile of
	 * their own: a function is a pk_function whose filename holds the
	 * module, a callchain is a stack of function ids. Ids count from 1
	 * in order of first appearance, so the output is deterministic.
	 */
	struct pk_profile *fns;
	uint32_t *chain;
	size_t chain_len, chain_cap;
	int64_t *sums;		/* per callchain id */
	size_t sums_cap;
	uint64_t frameless;	/* samples with an empty stack */
	struct pk_strbuf text;	/* a string being composed */
};

/*
 * Sum the chosen value (opts' event and --value) of every sample of p
 * into g->sums by callchain; g need not be initialised. Returns 0 or a
 * PK_E code (set in ctx, except PK_ENOMEM from building the chains);
 * either way pki_callgraph_release(g) frees what g holds.
 */
int pki_callgraph_build(struct pk_callgraph *g, struct pk_context *ctx,
			const struct pk_profile *p,
			const struct pk_options *opts);

void pki_callgraph_release(struct pk_callgraph *g);

#endif
