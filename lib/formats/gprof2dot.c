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

#include <jansson.h>

#include "transforms/callgraph.h"
#include "registry.h"
#include "core/internal.h"

struct gprof2dot {
	struct pk_callgraph g;
	int64_t scale;		/* values are value / scale */
	struct pk_strbuf repair;	/* a string made UTF-8 */
};

/* ---- output ---- */

/* s with each byte that is not UTF-8 replaced by U+FFFD, into b. */
static int utf8_repair(struct pk_strbuf *b, const char *s, size_t len)
{
	size_t i = 0, n;

	b->len = 0;
	while (i < len) {
		n = pki_utf8_char((const unsigned char *)s + i, len - i);
		if (n ? pki_strbuf_add(b, s + i, n) :
			pki_strbuf_add(b, "\xef\xbf\xbd", 3))
			return -1;
		i += n ? n : 1;
	}
	return pki_strbuf_add(b, "", 0);
}

static int dump_to_output(const char *buf, size_t size, void *data)
{
	return pk_output_write(data, buf, size) ? -1 : 0;
}

static int put_string(struct gprof2dot *w, struct pk_output *out,
		      const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);
	int rc;

	if (!j) {	/* not UTF-8, which JSON must be */
		if (utf8_repair(&w->repair, s, len) < 0)
			return PK_ENOMEM;
		j = json_stringn(w->repair.s, w->repair.len);
		if (!j)
			return PK_ENOMEM;
	}
	rc = json_dump_callback(j, dump_to_output, out, JSON_ENCODE_ANY);
	json_decref(j);
	return rc ? PK_EIO : 0;
}

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

static int write_costs(struct gprof2dot *w, struct pk_output *out)
{
	const char *unit;
	int rc = describe_column(&w->g, &unit);

	if (!rc)
		rc = pk_output_puts(out, "{\"version\": 0,\n"
				    " \"costs\": [{\"description\": ");
	if (!rc)
		rc = put_string(w, out, w->g.text.s, w->g.text.len);
	if (!rc)
		rc = pk_output_puts(out, ", \"unit\": ");
	if (!rc)
		rc = put_string(w, out, unit, strlen(unit));
	return rc ? rc : pk_output_puts(out, "}],\n");
}

/* A string of the graph's own profile. */
static int put_interned(struct gprof2dot *w, struct pk_output *out, pk_str id)
{
	return put_string(w, out, pk_profile_string(w->g.fns, id),
			  pk_profile_string_len(w->g.fns, id));
}

static int write_functions(struct gprof2dot *w, struct pk_output *out)
{
	size_t n = pk_profile_function_count(w->g.fns), i;
	int rc = pk_output_puts(out, " \"functions\": [");

	for (i = 1; i <= n && !rc; i++) {
		const struct pk_function *f =
			pk_profile_function(w->g.fns, (uint32_t)i);

		rc = pk_output_puts(out, i > 1 ? ",\n  {\"name\": " :
						  "\n  {\"name\": ");
		if (!rc)
			rc = put_interned(w, out, f->name);
		if (!rc && f->filename) {
			rc = pk_output_puts(out, ", \"module\": ");
			if (!rc)
				rc = put_interned(w, out, f->filename);
		}
		if (!rc)
			rc = pk_output_puts(out, "}");
	}
	return rc ? rc : pk_output_puts(out, n ? "\n ],\n" : "],\n");
}

static int write_event(struct gprof2dot *w, struct pk_output *out,
		       uint32_t id, int first)
{
	size_t depth, i;
	const uint32_t *chain = pk_profile_stack(w->g.fns, id, &depth);
	int rc = pk_output_puts(out, first ? "\n  {\"callchain\": [" :
					     ",\n  {\"callchain\": [");

	/* function ids count from 1, gprof2dot's indexes from 0 */
	for (i = 0; i < depth && !rc; i++)
		rc = pk_output_printf(out, i ? ", %u" : "%u", chain[i] - 1);
	if (!rc)
		rc = pk_output_puts(out, "], \"cost\": [");
	if (!rc) {	/* fixed point when the input had fractions: 2.5 */
		char v[PK_VALUE_FORMAT_SIZE];

		pk_value_format(v, sizeof(v), w->g.sums[id], w->scale);
		rc = pk_output_puts(out, v);
	}
	return rc ? rc : pk_output_puts(out, "]}");
}

static int write_events(struct gprof2dot *w, struct pk_output *out)
{
	size_t n = pk_profile_stack_count(w->g.fns), i;
	int rc = pk_output_puts(out, " \"events\": [");
	int first = 1;

	for (i = 1; i <= n && !rc; i++) {
		if (!w->g.sums[i])
			continue;	/* values that cancelled out */
		rc = write_event(w, out, (uint32_t)i, first);
		first = 0;
	}
	return rc ? rc : pk_output_puts(out, first ? "]\n}\n" : "\n ]\n}\n");
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
		rc = write_costs(&w, out);
	if (!rc)
		rc = write_functions(&w, out);
	if (!rc)
		rc = write_events(&w, out);
	if (rc && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, rc == PK_ENOMEM ? "out of memory" :
			     "gprof2dot: cannot write the JSON output");
	pki_callgraph_release(&w.g);
	free(w.repair.s);
	return rc ? pk_context_error(ctx)->code : 0;
}

const struct pki_format pki_format_gprof2dot = {
	.name = "gprof2dot",
	.write_description = "JSON call graph for gprof2dot -f json",
	.extension = ".gprof2dot.json",
	.write = gprof2dot_write,
	.profile_flags = PK_PROFILE_NAMES_ONLY,
};
