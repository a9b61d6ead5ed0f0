/* SPDX-License-Identifier: MIT */
/*
 * A call graph in Graphviz's DOT language, drawn the way gprof2dot draws
 * one: a box per function labelled with its module, its name, the share
 * of all samples whose stack holds it (total) and, in parentheses, the
 * share where it is the leaf (self); an arrow per call labelled with the
 * share of samples that went through that call. Colour runs from dark
 * blue to red with the share and arrows thicken with it. Functions under
 * --node-thres percent of the total and calls under --edge-thres are left
 * out, as gprof2dot does (defaults 0.5 and 0.1).
 *
 * gprof2dot estimates totals from per-call ratios; we count them from
 * the stacks, each sample once per function and once per call even when
 * recursion repeats them, as its "--total=callstacks" does for perf.
 *
 *     profkit-convert --to=dot perf.data | dot -Tsvg > graph.svg
 *
 * A function is a (name, module) pair and its node id is its index in
 * the gprof2dot JSON output of the same profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/callgraph.h"
#include "registry.h"
#include "util/idtab.h"
#include "util/libm.h"
#include "core/internal.h"

/* ---- labels ---- */

/* Labels are cut at gprof2dot's length, under dot's 16K string limit. */
#define MAX_NAME_CHARS 4096

/*
 * A name as a DOT string's contents into b: UTF-8 (stray bytes become
 * U+FFFD), at most MAX_NAME_CHARS characters, escaped as gprof2dot does.
 */
static int add_escaped(struct pk_context *ctx, struct pk_strbuf *b,
		       const char *s, size_t len)
{
	size_t i = 0, chars = 0, n;
	int rc = 0;

	while (i < len && !rc) {
		const char *c = s + i;

		n = pki_utf8_char((const unsigned char *)c, len - i);
		if (++chars == MAX_NAME_CHARS) {
			pk_warn(ctx, "dot: cutting a function name of %d "
				"characters or more ('%.32s...')",
				MAX_NAME_CHARS, s);
			/* with an ellipsis, as gprof2dot does */
			return pki_strbuf_add(b, "\xe2\x80\xa6", 3);
		}
		if (!n || !*c)	/* not UTF-8, or a NUL dot would choke on */
			rc = pki_strbuf_add(b, "\xef\xbf\xbd", 3);
		else if (*c == '\\' || *c == '"')
			rc = pki_strbuf_add(b, "\\", 1) ||
			     pki_strbuf_add(b, c, 1);
		else if (*c == '\n')
			rc = pki_strbuf_add(b, "\\n", 2);
		else if (*c == '\t')
			rc = pki_strbuf_add(b, "\\t", 2);
		else
			rc = pki_strbuf_add(b, c, n);
		i += n ? n : 1;
	}
	return rc;
}

/* ---- per function and per call sums ---- */

struct node {
	int64_t self, total;
	uint32_t seen;		/* the last callchain counted in total */
	unsigned shown : 1;
};

struct call {
	uint32_t caller, callee;	/* function ids */
	uint32_t seen;		/* the last callchain counted in weight */
	int64_t weight;
};

struct dot {
	struct pk_callgraph g;
	double node_thres, edge_thres;	/* fractions of the total */
	struct node *nodes;	/* by function id */
	struct call *calls;
	size_t ncalls, calls_cap;
	struct pk_idtab call_tab;
	int64_t total;		/* of every callchain */
};

static int64_t add64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);	/* wraps, no UB */
}

static int call_match(const void *owner, uint32_t id, const void *key)
{
	const struct call *c = &((const struct dot *)owner)->calls[id - 1];
	const struct call *k = key;

	return c->caller == k->caller && c->callee == k->callee;
}

static struct call *find_call(struct dot *d, uint32_t caller, uint32_t callee)
{
	struct call key = { caller, callee, 0, 0 };
	uint64_t hash = pki_hash_u64(((uint64_t)caller << 32) | callee);
	size_t slot;
	uint32_t id;

	id = pki_idtab_find(&d->call_tab, hash, call_match, d, &key, &slot);
	if (id)
		return &d->calls[id - 1];
	if (d->ncalls >= UINT32_MAX - 1 ||
	    pki_grow(&d->calls, &d->calls_cap, d->ncalls + 1,
		    sizeof(*d->calls)) < 0 ||
	    pki_idtab_insert(&d->call_tab, slot, hash,
			    (uint32_t)d->ncalls + 1) < 0)
		return NULL;
	d->calls[d->ncalls] = key;
	return &d->calls[d->ncalls++];
}

/*
 * A callchain's value counts once in the total of each function on it
 * and once in each call on it, however often recursion repeats them.
 */
static int count_chain(struct dot *d, uint32_t id)
{
	size_t depth, i;
	const uint32_t *chain = pk_profile_stack(d->g.fns, id, &depth);
	int64_t value = d->g.sums[id];

	d->total = add64(d->total, value);
	d->nodes[chain[0]].self = add64(d->nodes[chain[0]].self, value);
	for (i = 0; i < depth; i++) {
		struct node *n = &d->nodes[chain[i]];
		struct call *c;

		if (n->seen != id) {
			n->seen = id;
			n->total = add64(n->total, value);
		}
		if (i + 1 == depth)
			break;
		c = find_call(d, chain[i + 1], chain[i]);
		if (!c)
			return PK_ENOMEM;
		if (c->seen != id) {
			c->seen = id;
			c->weight = add64(c->weight, value);
		}
	}
	return 0;
}

static int count_chains(struct dot *d)
{
	size_t nfns = pk_profile_function_count(d->g.fns);
	size_t n = pk_profile_stack_count(d->g.fns), i;

	d->nodes = calloc(nfns + 1, sizeof(*d->nodes));
	if (!d->nodes)
		return PK_ENOMEM;
	for (i = 1; i <= n; i++)
		if (d->g.sums[i] && count_chain(d, (uint32_t)i))
			return PK_ENOMEM;
	return 0;
}

/* ---- drawing ---- */

/* As gprof2dot's ratio(): a share within [0, 1], and 1 for 0/0. */
static double share(int64_t part, int64_t whole)
{
	double r;

	if (!whole)
		return 1.0;
	r = (double)part / (double)whole;
	return r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
}

/*
 * gprof2dot's default colour map ("color"): hue, saturation and lightness
 * move linearly from dark blue (2/3, 0.8, 0.25) at 0 to saturated red
 * (0, 1, 0.5) at 1, then turn into RGB as CSS3 does. Its gamma is 1.
 */
static double hue_to_rgb(double m1, double m2, double h)
{
	if (h < 0.0)
		h += 1.0;
	else if (h > 1.0)
		h -= 1.0;
	if (h * 6.0 < 1.0)
		return m1 + (m2 - m1) * h * 6.0;
	if (h * 2.0 < 1.0)
		return m2;
	if (h * 3.0 < 2.0)
		return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
	return m1;
}

static unsigned channel(double f)
{
	if (f <= 0.0)
		return 0;
	if (f >= 1.0)
		return 255;
	return (unsigned)(255.0 * f + 0.5);
}

static void weight_color(double weight, char rgb[8])
{
	/* weight is within [0, 1], so h is too and needs no "mod 1" */
	double h = 2.0 / 3.0 + weight * (0.0 - 2.0 / 3.0);
	double s = 0.80 + weight * (1.0 - 0.80);
	double l = 0.25 + weight * (0.5 - 0.25);
	double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
	double m1 = l * 2.0 - m2;

	snprintf(rgb, 8, "#%02x%02x%02x",
		 channel(hue_to_rgb(m1, m2, h + 1.0 / 3.0)),
		 channel(hue_to_rgb(m1, m2, h)),
		 channel(hue_to_rgb(m1, m2, h - 1.0 / 3.0)));
}

static int write_header(struct pk_output *out)
{
	return pk_output_puts(out,
		"digraph {\n"
		"\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n"
		"\tnode [fontcolor=white, fontname=Arial, height=0, shape=box, "
		"style=filled, width=0];\n"
		"\tedge [fontname=Arial];\n");
}

static int write_node(struct dot *d, struct pk_output *out, uint32_t id)
{
	const struct pk_function *f = pk_profile_function(d->g.fns, id);
	const struct node *n = &d->nodes[id];
	struct pk_strbuf *b = &d->g.text;
	double total = share(n->total, d->total);
	char rgb[8];

	b->len = 0;
	if (f->filename &&
	    (add_escaped(d->g.ctx, b, pk_profile_string(d->g.fns, f->filename),
			 pk_profile_string_len(d->g.fns, f->filename)) ||
	     pki_strbuf_add(b, "\\n", 2)))
		return PK_ENOMEM;
	if (add_escaped(d->g.ctx, b, pk_profile_string(d->g.fns, f->name),
			pk_profile_string_len(d->g.fns, f->name)) ||
	    pki_strbuf_add(b, "", 0))
		return PK_ENOMEM;
	/* the fill follows the total; the text stays white on it */
	weight_color(total, rgb);
	return pk_output_printf(out, "\t%u [color=\"%s\", "
				"fontcolor=\"#ffffff\", fontsize=\"10.00\", "
				"label=\"%s\\n%.2f%%\\n(%.2f%%)\"];\n",
				id - 1, rgb, b->s, total * 100.0,
				share(n->self, d->total) * 100.0);
}

static int write_call(struct dot *d, struct pk_output *out,
		      const struct call *c)
{
	double weight = share(c->weight, d->total);
	double penwidth = weight * 4.0 > 0.5 ? weight * 4.0 : 0.5;
	char rgb[8];

	weight_color(weight, rgb);
	return pk_output_printf(out, "\t%u -> %u [arrowsize=\"%.2f\", "
				"color=\"%s\", fontcolor=\"%s\", "
				"fontsize=\"10.00\", label=\"%.2f%%\", "
				"labeldistance=\"%.2f\", penwidth=\"%.2f\"];\n",
				c->caller - 1, c->callee - 1,
				0.5 * pki_sqrt(penwidth), rgb, rgb, weight * 100.0,
				penwidth, penwidth);
}

static int compare_calls(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

static int call_shown(const struct dot *d, const struct call *c)
{
	return d->nodes[c->caller].shown && d->nodes[c->callee].shown &&
	       share(c->weight, d->total) >= d->edge_thres;
}

/* Nodes in id order, each followed by its calls in callee order. */
static int write_graph(struct dot *d, struct pk_output *out)
{
	size_t nfns = pk_profile_function_count(d->g.fns), i, next = 0;
	int rc = write_header(out);

	for (i = 1; i <= nfns; i++)
		d->nodes[i].shown = share(d->nodes[i].total, d->total) >=
				    d->node_thres;
	if (d->ncalls)
		qsort(d->calls, d->ncalls, sizeof(*d->calls), compare_calls);
	for (i = 1; i <= nfns && !rc; i++) {
		if (d->nodes[i].shown)
			rc = write_node(d, out, (uint32_t)i);
		for (; next < d->ncalls && d->calls[next].caller == i; next++)
			if (!rc && call_shown(d, &d->calls[next]))
				rc = write_call(d, out, &d->calls[next]);
	}
	return rc ? rc : pk_output_puts(out, "}\n");
}

enum { NODE_THRES, EDGE_THRES };

static const struct pki_option dot_options[] = {
	[NODE_THRES] = { .key = "dot:node-thres", .type = PK_OPTION_PERCENT,
		.def = "0.5", .flag = "node-thres", .value_name = "PCT",
		.help = "hide functions under PCT% of the total (0.5)" },
	[EDGE_THRES] = { .key = "dot:edge-thres", .type = PK_OPTION_PERCENT,
		.def = "0.1", .flag = "edge-thres", .value_name = "PCT",
		.help = "hide calls under PCT% of the total (0.1)" },
	{ .key = NULL },
};

static int dot_write(struct pk_context *ctx, const struct pk_profile *p,
		     const struct pk_options *opts, struct pk_output *out)
{
	struct dot d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.node_thres = pki_option_number(opts, &dot_options[NODE_THRES]) / 100.0;
	d.edge_thres = pki_option_number(opts, &dot_options[EDGE_THRES]) / 100.0;
	rc = pki_callgraph_build(&d.g, ctx, p, opts);
	if (!rc)
		rc = count_chains(&d);
	if (!rc)
		rc = write_graph(&d, out);
	if (rc && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, rc == PK_ENOMEM ? "out of memory" :
			     "dot: cannot write the output");
	pki_callgraph_release(&d.g);
	pki_idtab_release(&d.call_tab);
	free(d.calls);
	free(d.nodes);
	return rc ? pk_context_error(ctx)->code : 0;
}

const struct pki_format pki_format_dot = {
	.name = "dot",
	.write_description = "call graph for Graphviz dot (as gprof2dot draws it)",
	.extension = ".dot",
	.write = dot_write,
	.profile_flags = PK_PROFILE_NAMES_ONLY,
	.options = dot_options,
};
