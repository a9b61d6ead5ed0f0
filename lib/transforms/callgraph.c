/* SPDX-License-Identifier: MIT */
/* Callchains of (name, module) functions for the call-graph writers. */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "core/internal.h"
#include "core/names.h"

/* The mapping's file name without directory and " (deleted)", if any. */
static size_t module_name(const struct pk_profile *p, uint32_t mapping,
			  const char **base)
{
	const struct pk_mapping *m = pk_profile_mapping(p, mapping);

	return m ? pki_module_name(pk_profile_string(p, m->file), base) : 0;
}

static const char *function_name(const struct pk_profile *p, uint32_t id)
{
	const struct pk_function *f = pk_profile_function(p, id);
	const char *name = f ? pk_profile_string(p, f->name) : "";

	if (!*name && f)
		name = pk_profile_string(p, f->system_name);
	return pki_function_name(name);
}

static int chain_push(struct pk_callgraph *g, const char *name,
		      uint32_t mapping)
{
	struct pk_function f = { 0 };
	const char *mod = NULL;
	size_t mod_len = module_name(g->p, mapping, &mod);
	uint32_t id;

	f.name = pk_profile_intern_cstr(g->fns, name);
	if (mod_len)
		f.filename = pk_profile_intern(g->fns, mod, mod_len);
	id = pk_profile_intern_function(g->fns, &f);
	if (!id || pk_profile_failed(g->fns) ||
	    pki_grow(&g->chain, &g->chain_cap, g->chain_len + 1,
		    sizeof(*g->chain)) < 0)
		return PK_ENOMEM;
	g->chain[g->chain_len++] = id;
	return 0;
}

/* The sample's callchain into g->chain: leaf first, inlines innermost first. */
static int build_chain(struct pk_callgraph *g, const struct pk_sample *s)
{
	const uint32_t *stack;
	size_t depth, i, j;
	int rc = 0;

	g->chain_len = 0;
	stack = pk_profile_stack(g->p, s->stack, &depth);
	for (i = 0; i < depth && !rc; i++) {
		const struct pk_location *loc =
			pk_profile_location(g->p, stack[i]);
		const struct pk_line *lines;

		if (!loc)
			continue;
		lines = pk_profile_location_lines(g->p, loc);
		for (j = 0; j < loc->nlines && !rc; j++)
			rc = chain_push(g, function_name(g->p,
							 lines[j].function),
					loc->mapping);
		if (!loc->nlines && !rc)
			rc = chain_push(g, PKI_UNKNOWN, loc->mapping);
	}
	return rc;
}

/* Sum the chosen value of every sample into its callchain. */
static int collect_chains(struct pk_callgraph *g)
{
	size_t n = pk_profile_sample_count(g->p), nsums = 0, i;

	for (i = 0; i < n; i++) {
		int64_t value = pk_profile_sample_values(g->p, i)[g->column];
		uint32_t id;

		if (!value)
			continue;
		if (build_chain(g, pk_profile_sample(g->p, i)))
			return PK_ENOMEM;
		if (!g->chain_len) {
			g->frameless++;
			continue;
		}
		id = pk_profile_intern_stack(g->fns, g->chain, g->chain_len);
		if (!id || pki_grow(&g->sums, &g->sums_cap, (size_t)id + 1,
				   sizeof(*g->sums)) < 0)
			return PK_ENOMEM;
		for (; nsums <= id; nsums++)
			g->sums[nsums] = 0;
		/* wraps instead of overflowing */
		g->sums[id] = (int64_t)((uint64_t)g->sums[id] +
					(uint64_t)value);
	}
	if (g->frameless)
		pk_warn(g->ctx, "%llu samples without any frame are left out "
			"of the call graph", (unsigned long long)g->frameless);
	return 0;
}

int pki_callgraph_build(struct pk_callgraph *g, struct pk_context *ctx,
			const struct pk_profile *p,
			const struct pk_options *opts)
{
	memset(g, 0, sizeof(*g));
	g->ctx = ctx;
	g->p = p;
	g->column = pk_value_column(ctx, p, opts);
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	g->fns = pk_profile_new(0);
	if (!g->fns)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	pk_profile_set_memory_limit(g->fns, pk_context_max_memory(ctx));
	return g->column >= 0 ? collect_chains(g) : 0;
}

void pki_callgraph_release(struct pk_callgraph *g)
{
	pk_profile_free(g->fns);
	free(g->chain);
	free(g->sums);
	free(g->text.s);
}
