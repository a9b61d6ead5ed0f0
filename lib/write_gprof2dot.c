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

#include "formats.h"
#include "internal.h"

struct strbuf {
	char *s;
	size_t len, cap;
};

static int sb_add(struct strbuf *b, const char *s, size_t n)
{
	if (pk_grow(&b->s, &b->cap, b->len + n + 1, 1) < 0)
		return -1;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* ---- callchains of (name, module) functions ---- */

struct graph {
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
	int64_t scale;		/* values are value / scale */
	struct strbuf text;	/* a string being composed */
	struct strbuf repair;	/* a string made UTF-8 */
};

/* The mapping's file name without directory and " (deleted)", if any. */
static size_t module_name(const struct pk_profile *p, uint32_t mapping,
			  const char **base)
{
	const struct pk_mapping *m = pk_profile_mapping(p, mapping);
	const char *file, *slash;
	size_t len;

	if (!m || !m->file)
		return 0;
	file = pk_profile_string(p, m->file);
	if (strcmp(file, "[unknown]") == 0)
		return 0;	/* perf's word for "no mapping" */
	slash = strrchr(file, '/');
	*base = slash ? slash + 1 : file;
	len = strlen(*base);
	if (len > 10 && strcmp(*base + len - 10, " (deleted)") == 0)
		len -= 10;
	return len;
}

static const char *function_name(const struct pk_profile *p, uint32_t id)
{
	const struct pk_function *f = pk_profile_function(p, id);
	const char *name = f ? pk_profile_string(p, f->name) : "";

	if (!*name && f)
		name = pk_profile_string(p, f->system_name);
	return *name ? name : "[unknown]";
}

static int chain_push(struct graph *g, const char *name, uint32_t mapping)
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
	    pk_grow(&g->chain, &g->chain_cap, g->chain_len + 1,
		    sizeof(*g->chain)) < 0)
		return PK_ENOMEM;
	g->chain[g->chain_len++] = id;
	return 0;
}

/* The sample's callchain into g->chain: leaf first, inlines innermost first. */
static int build_chain(struct graph *g, const struct pk_sample *s)
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
			rc = chain_push(g, "[unknown]", loc->mapping);
	}
	return rc;
}

/* Sum the chosen value of every sample into its callchain. */
static int collect_chains(struct graph *g)
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
		if (!id || pk_grow(&g->sums, &g->sums_cap, (size_t)id + 1,
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

/* ---- output ---- */

/* Length of the valid UTF-8 character at s, or 0. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, surrogates or code points past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* s with each byte that is not UTF-8 replaced by U+FFFD, into b. */
static int utf8_repair(struct strbuf *b, const char *s, size_t len)
{
	size_t i = 0, n;

	b->len = 0;
	while (i < len) {
		n = utf8_char((const unsigned char *)s + i, len - i);
		if (n ? sb_add(b, s + i, n) : sb_add(b, "\xef\xbf\xbd", 3))
			return -1;
		i += n ? n : 1;
	}
	return sb_add(b, "", 0);
}

static int dump_to_output(const char *buf, size_t size, void *data)
{
	return pk_output_write(data, buf, size) ? -1 : 0;
}

static int put_string(struct graph *g, struct pk_output *out, const char *s,
		      size_t len)
{
	json_t *j = json_stringn(s, len);
	int rc;

	if (!j) {	/* not UTF-8, which JSON must be */
		if (utf8_repair(&g->repair, s, len) < 0)
			return PK_ENOMEM;
		j = json_stringn(g->repair.s, g->repair.len);
		if (!j)
			return PK_ENOMEM;
	}
	rc = json_dump_callback(j, dump_to_output, out, JSON_ENCODE_ANY);
	json_decref(j);
	return rc ? PK_EIO : 0;
}

/* Describe the column: "cpu-clock" in nanoseconds, "cpu-clock samples"... */
static int describe_column(struct graph *g, const char **unit)
{
	const struct pk_value_type *t = g->column >= 0 ?
		pk_profile_sample_type(g->p, (size_t)g->column) : NULL;
	const char *type = t ? pk_profile_string(g->p, t->type) : "samples";
	const char *event = t ? pk_profile_string(g->p, t->event) : "";

	*unit = t ? pk_profile_string(g->p, t->unit) : "count";
	g->text.len = 0;
	if (*event && strcmp(event, type) != 0 &&
	    (sb_add(&g->text, event, strlen(event)) ||
	     sb_add(&g->text, " ", 1)))
		return PK_ENOMEM;
	return sb_add(&g->text, type, strlen(type)) ? PK_ENOMEM : 0;
}

static int write_costs(struct graph *g, struct pk_output *out)
{
	const char *unit;
	int rc = describe_column(g, &unit);

	if (!rc)
		rc = pk_output_puts(out, "{\"version\": 0,\n"
				    " \"costs\": [{\"description\": ");
	if (!rc)
		rc = put_string(g, out, g->text.s, g->text.len);
	if (!rc)
		rc = pk_output_puts(out, ", \"unit\": ");
	if (!rc)
		rc = put_string(g, out, unit, strlen(unit));
	return rc ? rc : pk_output_puts(out, "}],\n");
}

/* A string of the graph's own profile. */
static int put_interned(struct graph *g, struct pk_output *out, pk_str id)
{
	return put_string(g, out, pk_profile_string(g->fns, id),
			  pk_profile_string_len(g->fns, id));
}

static int write_functions(struct graph *g, struct pk_output *out)
{
	size_t n = pk_profile_function_count(g->fns), i;
	int rc = pk_output_puts(out, " \"functions\": [");

	for (i = 1; i <= n && !rc; i++) {
		const struct pk_function *f =
			pk_profile_function(g->fns, (uint32_t)i);

		rc = pk_output_puts(out, i > 1 ? ",\n  {\"name\": " :
						  "\n  {\"name\": ");
		if (!rc)
			rc = put_interned(g, out, f->name);
		if (!rc && f->filename) {
			rc = pk_output_puts(out, ", \"module\": ");
			if (!rc)
				rc = put_interned(g, out, f->filename);
		}
		if (!rc)
			rc = pk_output_puts(out, "}");
	}
	return rc ? rc : pk_output_puts(out, n ? "\n ],\n" : "],\n");
}

static int write_event(struct graph *g, struct pk_output *out, uint32_t id,
		       int first)
{
	size_t depth, i;
	const uint32_t *chain = pk_profile_stack(g->fns, id, &depth);
	int rc = pk_output_puts(out, first ? "\n  {\"callchain\": [" :
					     ",\n  {\"callchain\": [");

	/* function ids count from 1, gprof2dot's indexes from 0 */
	for (i = 0; i < depth && !rc; i++)
		rc = pk_output_printf(out, i ? ", %u" : "%u", chain[i] - 1);
	if (!rc)
		rc = pk_output_puts(out, "], \"cost\": [");
	if (!rc && g->scale <= 1)
		rc = pk_output_printf(out, "%lld", (long long)g->sums[id]);
	else if (!rc)	/* fixed point: the input had fractions */
		rc = pk_output_count(out, g->sums[id], g->scale);
	return rc ? rc : pk_output_puts(out, "]}");
}

static int write_events(struct graph *g, struct pk_output *out)
{
	size_t n = pk_profile_stack_count(g->fns), i;
	int rc = pk_output_puts(out, " \"events\": [");
	int first = 1;

	for (i = 1; i <= n && !rc; i++) {
		if (!g->sums[i])
			continue;	/* values that cancelled out */
		rc = write_event(g, out, (uint32_t)i, first);
		first = 0;
	}
	return rc ? rc : pk_output_puts(out, first ? "]\n}\n" : "\n ]\n}\n");
}

static int gprof2dot_write(struct pk_context *ctx, const struct pk_profile *p,
			   const struct pk_options *opts, struct pk_output *out)
{
	struct graph g;
	int rc;

	memset(&g, 0, sizeof(g));
	g.ctx = ctx;
	g.p = p;
	g.column = pk_value_column(ctx, p, opts);
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	g.scale = pk_profile_meta(p, "value-scale") ?
		  atoll(pk_profile_meta(p, "value-scale")) : 1;
	g.fns = pk_profile_new(0);
	if (!g.fns)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	pk_profile_set_memory_limit(g.fns, pk_context_max_memory(ctx));
	rc = g.column >= 0 ? collect_chains(&g) : 0;
	if (!rc)
		rc = write_costs(&g, out);
	if (!rc)
		rc = write_functions(&g, out);
	if (!rc)
		rc = write_events(&g, out);
	if (rc && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, rc == PK_ENOMEM ? "out of memory" :
			     "gprof2dot: cannot write the JSON output");
	pk_profile_free(g.fns);
	free(g.chain);
	free(g.sums);
	free(g.text.s);
	free(g.repair.s);
	return rc ? pk_context_error(ctx)->code : 0;
}

const struct pk_writer pk_writer_gprof2dot = {
	.name = "gprof2dot",
	.description = "JSON call graph for gprof2dot -f json",
	.extension = ".gprof2dot.json",
	.write = gprof2dot_write,
};
