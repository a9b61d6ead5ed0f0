/* SPDX-License-Identifier: MIT */
/*
 * gprof2dot's JSON input (gprof2dot -f json), as its JsonParser reads it:
 *
 *     {"version": 0,
 *      "costs": [{"description": "cpu-clock", "unit": "nanoseconds"}],
 *      "functions": [{"name": "main", "module": "c-fp"}, ...],
 *      "events": [{"callchain": [2, 1, 0], "cost": [1500000]}, ...]}
 *
 * A callchain lists indexes into "functions", leaf first; the inlined
 * functions of a location are entries of their own, innermost first.
 * A function is a (name, module) pair, the module being the mapping's
 * file name without its directory. There is one event per distinct
 * callchain carrying the summed cost, never one per input sample.
 *
 * There is one cost column: the value folded output would show (the
 * first event or --event, weighed by --value). gprof2dot reads cost[0]
 * and nothing else, so more columns would be carried and never shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/callgraph.h"
#include "registry.h"
#include "core/internal.h"
#include "util/json.h"

struct gprof2dot {
	struct pk_callgraph g;
	int64_t scale;		/* values are value / scale */
	struct pki_json json;
};

/* ---- output ---- */

/* Describe the column: "cpu-clock" in nanoseconds, "cpu-clock samples"... */
static int describe_column(struct pk_callgraph *g, const char **unit)
{
	const struct pk_value_type *t = g->column >= 0 ?
		pk_profile_sample_type(g->p, (size_t)g->column) : NULL;
	const char *type = t ? pk_profile_string(g->p, t->type) : "samples";
	const char *event = t ? pk_profile_string(g->p, t->event) : "";

	*unit = t ? pk_profile_string(g->p, t->unit) : "count";
	g->text.len = 0;
	if (*event && strcmp(event, type) != 0 &&
	    (pki_strbuf_add(&g->text, event, strlen(event)) ||
	     pki_strbuf_add(&g->text, " ", 1)))
		return PK_ENOMEM;
	return pki_strbuf_add(&g->text, type, strlen(type)) ? PK_ENOMEM : 0;
}

/* The column, described in w->g.text, and its unit. */
static void write_costs(struct gprof2dot *w, const char *unit)
{
	struct pki_json *j = &w->json;

	pki_json_key(j, "costs");
	pki_json_begin_array(j);
	pki_json_begin_object(j);
	pki_json_key(j, "description");
	pki_json_string(j, w->g.text.s, w->g.text.len);
	pki_json_key(j, "unit");
	pki_json_cstring(j, unit);
	pki_json_end_object(j);
	pki_json_end_array(j);
}

/* A string of the graph's own profile. */
static void put_interned(struct gprof2dot *w, pk_str id)
{
	pki_json_string(&w->json, pk_profile_string(w->g.fns, id),
			pk_profile_string_len(w->g.fns, id));
}

/* An array's closing bracket on a line of its own, if it has members. */
static void end_list(struct pki_json *j, int empty)
{
	if (!empty)
		pki_json_raw(j, "\n ", 2);
	pki_json_end_array(j);
}

static void write_functions(struct gprof2dot *w)
{
	size_t n = pk_profile_function_count(w->g.fns), i;
	struct pki_json *j = &w->json;

	pki_json_key(j, "functions");
	pki_json_begin_array(j);
	for (i = 1; i <= n && !j->rc; i++) {
		const struct pk_function *f =
			pk_profile_function(w->g.fns, (uint32_t)i);

		pki_json_space(j, "\n  ");
		pki_json_begin_object(j);
		pki_json_key(j, "name");
		put_interned(w, f->name);
		if (f->filename) {
			pki_json_key(j, "module");
			put_interned(w, f->filename);
		}
		pki_json_end_object(j);
	}
	end_list(j, !n);
}

static void write_event(struct gprof2dot *w, uint32_t id)
{
	size_t depth, i;
	const uint32_t *chain = pk_profile_stack(w->g.fns, id, &depth);
	struct pki_json *j = &w->json;

	pki_json_space(j, "\n  ");
	pki_json_begin_object(j);
	pki_json_key(j, "callchain");
	pki_json_begin_array(j);
	/* function ids count from 1, gprof2dot's indexes from 0 */
	for (i = 0; i < depth; i++)
		pki_json_uint(j, chain[i] - 1);
	pki_json_end_array(j);
	pki_json_key(j, "cost");
	pki_json_begin_array(j);
	/* fixed point when the input had fractions: 2.5 */
	pki_json_fixed(j, w->g.sums[id], w->scale);
	pki_json_end_array(j);
	pki_json_end_object(j);
}

static void write_events(struct gprof2dot *w)
{
	size_t n = pk_profile_stack_count(w->g.fns), i;
	struct pki_json *j = &w->json;
	int empty = 1;

	pki_json_key(j, "events");
	pki_json_begin_array(j);
	for (i = 1; i <= n && !j->rc; i++) {
		if (!w->g.sums[i])
			continue;	/* values that cancelled out */
		write_event(w, (uint32_t)i);
		empty = 0;
	}
	end_list(j, empty);
}

/* Spaced as Python's json.dumps, each function and event on a line. */
static int write_graph(struct gprof2dot *w, struct pk_output *out)
{
	struct pki_json *j = &w->json;
	const char *unit;

	if (describe_column(&w->g, &unit))
		return PK_ENOMEM;
	pki_output_json(j, out);
	j->spaced = 1;
	pki_json_begin_object(j);
	pki_json_key(j, "version");
	pki_json_int(j, 0);
	pki_json_space(j, "\n ");
	write_costs(w, unit);
	pki_json_space(j, "\n ");
	write_functions(w);
	pki_json_space(j, "\n ");
	write_events(w);
	pki_json_raw(j, "\n", 1);
	pki_json_end_object(j);
	pki_json_raw(j, "\n", 1);
	return pki_json_finish(j);
}

static int gprof2dot_write(struct pk_context *ctx, const struct pk_profile *p,
			   const struct pk_options *opts, struct pk_output *out)
{
	struct gprof2dot w;
	int rc;

	memset(&w, 0, sizeof(w));
	rc = pki_callgraph_build(&w.g, ctx, p, opts);
	w.scale = pk_profile_sample_type_scale(p, (size_t)w.g.column);
	if (!rc)
		rc = write_graph(&w, out);
	if (rc && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, rc == PK_ENOMEM ? "out of memory" :
			     "gprof2dot: cannot write the JSON output");
	pki_callgraph_release(&w.g);
	return rc ? pk_context_error(ctx)->code : 0;
}

const struct pki_format pki_format_gprof2dot = {
	.name = "gprof2dot",
	.write_description = "JSON call graph for gprof2dot -f json",
	.extension = ".gprof2dot.json",
	.write = gprof2dot_write,
	.profile_flags = PK_PROFILE_NAMES_ONLY,
};
