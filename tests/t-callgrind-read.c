/* SPDX-License-Identifier: MIT */
/*
 * The callgrind reader's call graph made into stacks, on small graphs
 * whose samples can be worked out by hand: several paths to a function,
 * recursion, a thread's start (calls out worth more than the calls in),
 * calls worth more than what the callee holds, and the bound on paths.
 *
 *   t-callgrind-read                     the tests (make check)
 *   t-callgrind-read --costs FILE [TYPE] per sample type (or TYPE only) and
 *                                        function (callgrind_annotate's
 *                                        "file:function"), its self and
 *                                        inclusive cost, counted from the
 *                                        samples read, for the tests that
 *                                        compare with callgrind_annotate
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

/* ---- per function costs, from the samples ---- */

struct cost {
	char *name;		/* "file:function" */
	long long self, inclusive;
	size_t seen;		/* the last sample that counted it, + 1 */
};

struct costs {
	struct cost *v;
	size_t n;
};

static struct cost *cost_of(struct costs *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	c->v = realloc(c->v, (c->n + 1) * sizeof(*c->v));
	if (!c->v)
		abort();
	memset(&c->v[c->n], 0, sizeof(*c->v));
	c->v[c->n].name = strdup(name);
	return &c->v[c->n++];
}

/* Frame "file:function" of location loc's line j (0: the innermost). */
static void frame_name(const struct pk_profile *p, uint32_t loc, size_t j,
		       char *buf, size_t size)
{
	const struct pk_location *l = pk_profile_location(p, loc);
	const struct pk_line *line = pk_profile_location_lines(p, l) + j;
	const struct pk_function *f = pk_profile_function(p, line->function);
	const char *file = pk_profile_string(p, f->filename);

	snprintf(buf, size, "%s:%s", *file ? file : "???",
		 pk_profile_string(p, f->name));
}

/* Self cost where a function is the leaf, inclusive once per sample
 * (inlined functions are frames: a location's every line). */
static void count_costs(const struct pk_profile *p, size_t column,
			struct costs *c)
{
	size_t i, d, j, depth;
	char name[1024];

	for (i = 0; i < pk_profile_sample_count(p); i++) {
		const struct pk_sample *s = pk_profile_sample(p, i);
		const uint32_t *stack = pk_profile_stack(p, s->stack, &depth);
		long long v = pk_profile_sample_values(p, i)[column];

		for (d = 0; d < depth; d++) {
			size_t lines = pk_profile_location(p, stack[d])->nlines;

			for (j = 0; j < lines; j++) {
				struct cost *k;

				frame_name(p, stack[d], j, name, sizeof(name));
				k = cost_of(c, name);
				if (!d && !j)
					k->self += v;
				if (k->seen != i + 1)
					k->inclusive += v;
				k->seen = i + 1;
			}
		}
	}
}

static void free_costs(struct costs *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct cost *)a)->name, ((const struct cost *)b)->name);
}

/* One column's "TYPE<TAB>file:function<TAB>self<TAB>inclusive" lines, by
 * name; none for functions without cost. */
static void print_column(const struct pk_profile *p, size_t column)
{
	const char *type = pk_profile_string(p, pk_profile_sample_type(p, column)->type);
	struct costs c = { 0 };
	size_t i;

	count_costs(p, column, &c);
	qsort(c.v, c.n, sizeof(*c.v), by_name);
	for (i = 0; i < c.n; i++)
		if (c.v[i].self || c.v[i].inclusive)
			printf("%s\t%s\t%lld\t%lld\n", type, c.v[i].name,
			       c.v[i].self, c.v[i].inclusive);
	free_costs(&c);
}

/* --costs: every sample type's, or type's only. */
static int print_costs(const char *path, const char *type)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	size_t i, printed = 0;

	if (pk_load(ctx, path, NULL, p)) {
		fprintf(stderr, "%s\n", pk_context_error(ctx)->message);
		return 1;
	}
	for (i = 0; i < pk_profile_sample_type_count(p); i++) {
		const struct pk_value_type *t = pk_profile_sample_type(p, i);

		if (!type || !strcmp(pk_profile_string(p, t->type), type)) {
			print_column(p, i);
			printed++;
		}
	}
	pk_profile_free(p);
	pk_context_free(ctx);
	if (!printed)
		fprintf(stderr, "%s: no sample type %s\n", path, type);
	return !printed;
}

/* ---- the tests ---- */

struct warnings {
	char text[4096];
};

static void keep_warning(void *data, const char *message)
{
	struct warnings *w = data;
	size_t n = strlen(w->text);

	snprintf(w->text + n, sizeof(w->text) - n, "%s\n", message);
}

/* Read text as callgrind, with max_paths unless NULL. */
static struct pk_profile *read_text(const char *text, const char *max_paths,
				    struct warnings *w)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_profile *p = pk_profile_new(0);
	struct pk_input *in = NULL;

	memset(w, 0, sizeof(*w));
	pk_context_set_warn(ctx, keep_warning, w);
	if ((max_paths && pk_options_set(ctx, opts, "callgrind:max-paths", max_paths)) ||
	    pk_input_open_memory(ctx, "graph", text, strlen(text), &in) ||
	    pk_read(ctx, in, pk_reader_find("callgrind"), p, opts)) {
		diag("%s", pk_context_error(ctx)->message);
		pk_profile_free(p);
		p = NULL;
	}
	pk_input_close(in);
	pk_options_free(opts);
	pk_context_free(ctx);
	return p;
}

/* The samples as "a.c:f;a.c:g:LINE VALUE" lines (root first, the leaf's
 * line), sorted, for one column. */
static void stacks_text(const struct pk_profile *p, size_t column, char *out,
			size_t size)
{
	char lines[64][256], name[256];
	size_t i, n = 0, d, depth, len = 0;

	for (i = 0; i < pk_profile_sample_count(p) && n < 64; i++) {
		const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack,
							 &depth);
		const struct pk_location *leaf = pk_profile_location(p, stack[0]);
		long long v = pk_profile_sample_values(p, i)[column];
		size_t at = 0;

		if (!v)
			continue;
		for (d = depth; d-- > 0;) {
			frame_name(p, stack[d], 0, name, sizeof(name));
			at += (size_t)snprintf(lines[n] + at, sizeof(lines[n]) - at,
					       "%s%s", d + 1 < depth ? ";" : "", name);
		}
		snprintf(lines[n] + at, sizeof(lines[n]) - at, ":%lld %lld",
			 (long long)pk_profile_location_lines(p, leaf)->line, v);
		n++;
	}
	qsort(lines, n, sizeof(lines[0]), (int (*)(const void *, const void *))strcmp);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, size - len, "%s\n", lines[i]);
}

/* Each function's "self/inclusive", in name order, for one column. */
static void costs_text(const struct pk_profile *p, size_t column, char *out,
		       size_t size)
{
	struct costs c = { 0 };
	size_t i, len = 0;

	count_costs(p, column, &c);
	qsort(c.v, c.n, sizeof(*c.v), by_name);
	out[0] = '\0';
	for (i = 0; i < c.n; i++)
		len += (size_t)snprintf(out + len, size - len, "%s %lld/%lld\n",
					c.v[i].name, c.v[i].self, c.v[i].inclusive);
	free_costs(&c);
}

/* main calls leaf through left and right: leaf's self cost goes under
 * each as its calls say, every event on its own. Right's path comes
 * first and takes 80/130 of each line, rounded down but for the last
 * (61 of 100, 19 of 30); left's takes what is left. */
static void test_two_callers(void)
{
	static const char text[] =
		"events: Ir Dr\n"
		"fl=a.c\n"
		"fn=main\n"
		"1 1\n"
		"cfn=left\n"
		"calls=1 10\n"
		"2 60 6\n"
		"cfn=right\n"
		"calls=1 20\n"
		"3 90 9\n"
		"fn=left\n"
		"10 10 1\n"
		"cfn=leaf\n"
		"calls=2 30\n"
		"11 50 5\n"
		"fn=right\n"
		"20 10 1\n"
		"cfn=leaf\n"
		"calls=3 30\n"
		"21 80 8\n"
		"fn=leaf\n"
		"30 100 3\n"
		"+1 30 10\n";
	struct warnings w;
	struct pk_profile *p = read_text(text, NULL, &w);
	char got[4096];

	if (!ok(p != NULL, "two callers: read"))
		return;
	stacks_text(p, 0, got, sizeof(got));
	is_str(got,
	       "a.c:main:1 1\n"
	       "a.c:main;a.c:left:10 10\n"
	       "a.c:main;a.c:left;a.c:leaf:30 39\n"
	       "a.c:main;a.c:left;a.c:leaf:31 11\n"
	       "a.c:main;a.c:right:20 10\n"
	       "a.c:main;a.c:right;a.c:leaf:30 61\n"
	       "a.c:main;a.c:right;a.c:leaf:31 19\n",
	       "two callers: leaf's lines under each caller, in proportion, Ir");
	costs_text(p, 1, got, sizeof(got));
	is_str(got, "a.c:leaf 13/13\na.c:left 1/6\na.c:main 0/15\na.c:right 1/9\n",
	       "two callers: Dr split by Dr's own costs");
	is_str(w.text, "", "two callers: no warning");
	pk_profile_free(p);
}

/* f calls itself: callgrind's cost of that call counts each level again;
 * f's inclusive cost is what main's call into it says. */
static void test_recursion(void)
{
	static const char text[] =
		"events: Ir\n"
		"fl=r.c\n"
		"fn=main\n"
		"1 1\n"
		"cfn=f\n"
		"calls=1 10\n"
		"2 100\n"
		"fn=f\n"
		"10 20\n"
		"cfn=f\n"
		"calls=3 10\n"
		"11 150\n"
		"cfn=g\n"
		"calls=4 20\n"
		"12 80\n"
		"fn=g\n"
		"20 80\n";
	struct warnings w;
	struct pk_profile *p = read_text(text, NULL, &w);
	char got[4096];

	if (!ok(p != NULL, "recursion: read"))
		return;
	stacks_text(p, 0, got, sizeof(got));
	is_str(got, "r.c:main:1 1\nr.c:main;r.c:f:10 20\nr.c:main;r.c:f;r.c:g:20 80\n",
	       "recursion: f once per stack");
	costs_text(p, 0, got, sizeof(got));
	is_str(got, "r.c:f 20/100\nr.c:g 80/80\nr.c:main 1/101\n",
	       "recursion: f's inclusive cost is the call from main");
	pk_profile_free(p);
}

/* Mutual recursion entered at a: b is reached through a. */
static void test_cycle(void)
{
	static const char text[] =
		"events: Ir\n"
		"fl=c.c\n"
		"fn=main\n"
		"cfn=a\n"
		"calls=1 10\n"
		"1 100\n"
		"fn=a\n"
		"10 30\n"
		"cfn=b\n"
		"calls=5 20\n"
		"11 170\n"
		"fn=b\n"
		"20 50\n"
		"cfn=a\n"
		"calls=4 10\n"
		"21 120\n"
		"cfn=leaf\n"
		"calls=5 30\n"
		"22 20\n"
		"fn=leaf\n"
		"30 20\n";
	struct warnings w;
	struct pk_profile *p = read_text(text, NULL, &w);
	char got[4096];

	if (!ok(p != NULL, "cycle: read"))
		return;
	stacks_text(p, 0, got, sizeof(got));
	is_str(got,
	       "c.c:main;c.c:a:10 30\n"
	       "c.c:main;c.c:a;c.c:b:20 50\n"
	       "c.c:main;c.c:a;c.c:b;c.c:leaf:30 20\n",
	       "cycle: each function once, on the way from where it was entered");
	pk_profile_free(p);
}

/* clone's call into a new thread costs the thread; the call into clone
 * only the parent's part: the thread stays under clone, at the root. */
static void test_thread_start(void)
{
	static const char text[] =
		"events: Ir\n"
		"fl=t.c\n"
		"fn=parent\n"
		"1 5\n"
		"cfn=clone\n"
		"calls=1 50\n"
		"2 10\n"
		"fn=clone\n"
		"50 4\n"
		"cfn=thread\n"
		"calls=1 60\n"
		"51 100\n"
		"fn=thread\n"
		"60 100\n";
	struct warnings w;
	struct pk_profile *p = read_text(text, NULL, &w);
	char got[4096];

	if (!ok(p != NULL, "thread start: read"))
		return;
	stacks_text(p, 0, got, sizeof(got));
	is_str(got,
	       "t.c:clone:50 4\n"
	       "t.c:clone;t.c:thread:60 90\n"
	       "t.c:parent:1 5\n"
	       "t.c:parent;t.c:clone;t.c:thread:60 10\n",
	       "thread start: the part the call into clone pays under the "
	       "parent, the rest at the root");
	pk_profile_free(p);
}

/* A call that costs more than its callee holds carries what it holds. */
static void test_callee_holds_less(void)
{
	static const char text[] =
		"events: Ir\n"
		"fl=x.c\n"
		"fn=main\n"
		"cfn=x\n"
		"calls=1 10\n"
		"1 100\n"
		"cfn=y\n"
		"calls=1 20\n"
		"2 300\n"
		"fn=x\n"
		"10 40\n"
		"fn=y\n"
		"20 300\n";
	struct warnings w;
	struct pk_profile *p = read_text(text, NULL, &w);
	char got[4096];

	if (!ok(p != NULL, "callee holds less: read"))
		return;
	costs_text(p, 0, got, sizeof(got));
	is_str(got, "x.c:main 0/340\nx.c:x 40/40\nx.c:y 300/300\n",
	       "callee holds less: the call carries what x holds");
	pk_profile_free(p);
}

/* Paths double at each level of a lattice: past max-paths they merge,
 * with a warning; self costs stay exact. */
static void test_max_paths(void)
{
	char text[16384], got[4096];
	size_t len = 0;
	struct warnings w;
	struct pk_profile *p;
	int level;

	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"events: Ir\nfl=l.c\nfn=f0a\n1 1\n");
	for (level = 0; level < 12; level++) {
		const char *side[2] = { "a", "b" };
		int k, j;

		for (k = 0; k < 2; k++) {
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"fn=f%d%s\n1 1\n", level, side[k]);
			for (j = 0; j < 2; j++)
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"cfn=f%d%s\ncalls=1 1\n2 %d\n",
							level + 1, side[j], 4095 >> (level + 1));
		}
	}
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"fn=f12a\n1 1\nfn=f12b\n1 1\n");
	p = read_text(text, "100", &w);
	if (!ok(p != NULL, "max paths: read"))
		return;
	ok(strstr(w.text, "callgrind:max-paths keeps (100)") != NULL,
	   "max paths: merging is said");
	costs_text(p, 0, got, sizeof(got));
	ok(strstr(got, "l.c:f12a 1/1\n") && strstr(got, "l.c:f12b 1/1\n") &&
	   strstr(got, "l.c:f6b 1/"), "max paths: self costs stay");
	ok(pk_profile_stack_count(p) < 400, "max paths: %zu stacks",
	   pk_profile_stack_count(p));
	pk_profile_free(p);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--costs"))
		return print_costs(argv[2], argc > 3 ? argv[3] : NULL);
	test_two_callers();
	test_recursion();
	test_cycle();
	test_thread_start();
	test_callee_holds_less();
	test_max_paths();
	return done_testing();
}
