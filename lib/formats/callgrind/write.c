/* SPDX-License-Identifier: MIT */
/*
 * The callgrind profile format, for kcachegrind, qcachegrind and
 * callgrind_annotate (valgrind's "Callgrind Format Specification"):
 *
 *     # callgrind format
 *     version: 1
 *     creator: profkit 0.1.0
 *     desc: Time: 2026-11-25 03:26:15.719121451 UTC
 *     desc: Duration: 0.079350327 s
 *     positions: line
 *     events: cpu_clock samples
 *     summary: 3000 3
 *
 *     ob=(1) /usr/bin/app
 *     fl=(1) ???
 *     fn=(1) main
 *     0 1000 1              self cost at line 0
 *     cob=(1)
 *     cfi=(1)
 *     cfn=(2) work
 *     calls=2 0             two samples passed through main -> work
 *     0 2000 2              and cost this much there, inclusive
 *
 * Functions are (object, source file, name). A sample's leaf frame gets
 * its self cost; every caller -> callee pair on its stack gets its cost
 * once, however often recursion repeats the pair, so no call costs more
 * than the samples under it. Names are compressed: "(n) name" the first
 * time, "(n)" after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callgrind.h"
#include "util/idtab.h"
#include "core/internal.h"
#include "core/names.h"

/* A frame: a function (node) at a line. */
struct frame {
	uint32_t node;
	int64_t line;
};

struct edge {
	uint32_t caller, callee;
	int64_t line;		/* of the call, in the caller */
	int64_t calls;
	uint32_t stamp;		/* last sample counted, plus one */
};

struct callgrind {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;

	int *columns;		/* output columns, the chosen one first */
	size_t ncolumns;
	int *count_columns;	/* of those, the sample counts */
	size_t ncount_columns;

	/* functions as nodes: an interner whose pk_functions are
	 * (name, object as system_name, file) */
	struct pk_profile *names;
	int64_t *node_line;	/* node -> first line, the calls= target */
	size_t node_line_cap;
	uint32_t unknown_node;

	uint32_t *loc_frames;	/* location -> offset+1 in frame_lists */
	struct frame *frame_lists;	/* [n in .node, frames outermost first] */
	size_t nframe_lists, frame_lists_cap;
	struct frame *stack;	/* a sample's frames, root first */
	size_t stack_len, stack_cap;

	struct frame *selfs;	/* self cost per (node, line) */
	int64_t *self_costs;
	size_t nselfs, selfs_cap, self_costs_cap;
	struct pk_idtab self_tab;

	struct edge *edges;
	int64_t *edge_costs;
	size_t nedges, edges_cap, edge_costs_cap;
	struct pk_idtab edge_tab;

	char (*event_names)[128];	/* per output column */
	struct pk_idtab event_tab;

	int64_t *totals;
	int64_t *values;	/* one sample's output columns */
	struct pk_strbuf name;	/* a function name made here */
};

static int oom(struct callgrind *c)
{
	return pk_error_set(c->ctx, PK_ENOMEM, "callgrind: out of memory");
}

/* ---- which columns ---- */

/*
 * Callgrind files carry several events and viewers switch between them,
 * so every column goes out, the chosen one first (callgrind_annotate
 * sorts by the first); --event keeps that event's columns only.
 */
static int choose_columns(struct callgrind *c)
{
	size_t ntypes = pk_profile_sample_type_count(c->p), i;
	struct pk_options o = *c->opts;
	pk_str event;
	int chosen;

	c->columns = calloc(ntypes + 1, sizeof(*c->columns));
	c->count_columns = calloc(ntypes + 1, sizeof(*c->count_columns));
	if (!c->columns || !c->count_columns)
		return oom(c);
	if (!ntypes)
		return 0;
	/* every event goes out: no "shows the first event only" warning */
	if (!o.event && pk_profile_event_count(c->p) > 1)
		o.event = pk_profile_string(c->p, pk_profile_event(c->p, 0));
	chosen = pk_value_column(c->ctx, c->p, &o);
	if (pk_context_error(c->ctx)->code)
		return pk_context_error(c->ctx)->code;
	if (chosen < 0)
		return pk_error_set(c->ctx, PK_EINPUT, "callgrind: no sample types");
	event = pk_profile_sample_type(c->p, (size_t)chosen)->event;
	c->columns[c->ncolumns++] = chosen;
	for (i = 0; i < ntypes; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(c->p, i);

		if ((int)i != chosen && (!c->opts->event || t->event == event))
			c->columns[c->ncolumns++] = (int)i;
	}
	for (i = 0; i < c->ncolumns; i++)
		if (pk_profile_sample_type(c->p, (size_t)c->columns[i])->kind ==
		    PK_VALUE_COUNT)
			c->count_columns[c->ncount_columns++] = (int)i;
	return 0;
}

/* ---- functions and frames ---- */

/* Unknown functions are named after their object, as folded does. */
static pk_str function_name(struct callgrind *c, const struct pk_function *fn,
			    const char *mod)
{
	/* but "[kernel.kallsyms]" stays as it is */
	const struct pki_unknown_name unknown = {
		.style = PKI_UNKNOWN_STACKCOLLAPSE, .keep_brackets = 1,
	};
	const char *name = fn ? pk_profile_string(c->p, fn->name) : "";

	if (!pki_is_unknown_function(name))
		return pk_profile_intern_cstr(c->names, name);
	c->name.len = 0;
	if (pki_unknown_name(&c->name, mod, 0, &unknown))
		return 0;
	return pk_profile_intern(c->names, c->name.s, c->name.len);
}

static uint32_t intern_node(struct callgrind *c, const struct pk_function *fn,
			    const char *mod)
{
	struct pk_function key = { 0 };
	const char *file = fn ? pk_profile_string(c->p, fn->filename) : "";
	uint32_t id;

	key.name = function_name(c, fn, mod);
	key.system_name = pk_profile_intern_cstr(c->names, *mod ? mod : "???");
	key.filename = pk_profile_intern_cstr(c->names, *file ? file : "???");
	if (!key.name || !key.system_name || !key.filename)
		return 0;
	id = pk_profile_intern_function(c->names, &key);
	if (!id || pki_grow_zeroed(&c->node_line, &c->node_line_cap,
				   (size_t)id + 1, sizeof(*c->node_line)) < 0)
		return 0;
	if (fn && fn->start_line > 0 && !c->node_line[id])
		c->node_line[id] = fn->start_line;
	return id;
}

static int list_add(struct callgrind *c, uint32_t node, int64_t line)
{
	if (pki_grow(&c->frame_lists, &c->frame_lists_cap, c->nframe_lists + 1,
		    sizeof(*c->frame_lists)) < 0)
		return -1;
	c->frame_lists[c->nframe_lists].node = node;
	c->frame_lists[c->nframe_lists++].line = line;
	return 0;
}

/* A location's frames, inlined callers first, resolved once. */
static int resolve_location(struct callgrind *c, uint32_t loc_id)
{
	const struct pk_location *loc = pk_profile_location(c->p, loc_id);
	const struct pk_mapping *m = pk_profile_mapping(c->p, loc->mapping);
	const char *mod = m ? pk_profile_string(c->p, m->file) : "";
	const struct pk_line *lines = pk_profile_location_lines(c->p, loc);
	size_t start = c->nframe_lists, j;

	if (list_add(c, loc->nlines ? loc->nlines : 1, 0))
		return -1;
	for (j = loc->nlines; j-- > 0;) {
		const struct pk_function *fn = pk_profile_function(c->p, lines[j].function);
		uint32_t node = intern_node(c, fn, mod);

		if (!node || list_add(c, node, lines[j].line > 0 ? lines[j].line : 0))
			return -1;
	}
	if (!loc->nlines) {
		uint32_t node = intern_node(c, NULL, mod);

		if (!node || list_add(c, node, 0))
			return -1;
	}
	c->loc_frames[loc_id] = (uint32_t)start + 1;
	return 0;
}

static int stack_add(struct callgrind *c, const struct frame *f, size_t n)
{
	if (pki_grow(&c->stack, &c->stack_cap, c->stack_len + n,
		    sizeof(*c->stack)) < 0)
		return -1;
	memcpy(c->stack + c->stack_len, f, n * sizeof(*f));
	c->stack_len += n;
	return 0;
}

/* A sample's frames, root first; an empty stack is one unknown frame. */
static int sample_frames(struct callgrind *c, uint32_t stack)
{
	size_t nlocs = pk_profile_location_count(c->p), depth, d;
	const uint32_t *locs = pk_profile_stack(c->p, stack, &depth);

	c->stack_len = 0;
	for (d = depth; d-- > 0;) {
		const struct frame *list;

		if (!locs[d] || locs[d] > nlocs)
			continue;
		if (!c->loc_frames[locs[d]] && resolve_location(c, locs[d]))
			return -1;
		list = c->frame_lists + c->loc_frames[locs[d]] - 1;
		if (stack_add(c, list + 1, list->node))
			return -1;
	}
	if (!c->stack_len) {
		struct frame unknown = { 0, 0 };

		if (!c->unknown_node)
			c->unknown_node = intern_node(c, NULL, "");
		unknown.node = c->unknown_node;
		if (!unknown.node || stack_add(c, &unknown, 1))
			return -1;
	}
	return 0;
}

/* ---- costs ---- */

static void add_costs(int64_t *to, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] = (int64_t)((uint64_t)to[i] + (uint64_t)v[i]);
}

static int self_match(const void *owner, uint32_t id, const void *key)
{
	const struct frame *a = &((const struct callgrind *)owner)->selfs[id - 1];
	const struct frame *b = key;

	return a->node == b->node && a->line == b->line;
}

static int add_self(struct callgrind *c, const struct frame *f)
{
	uint64_t hash = pki_hash_u64(((uint64_t)f->node << 32) ^ (uint64_t)f->line);
	size_t slot, n = c->ncolumns;
	uint32_t id = pki_idtab_find(&c->self_tab, hash, self_match, c, f, &slot);

	if (!id) {
		if (c->nselfs >= UINT32_MAX - 1 ||
		    pki_grow(&c->selfs, &c->selfs_cap, c->nselfs + 1,
			    sizeof(*c->selfs)) < 0 ||
		    pki_grow(&c->self_costs, &c->self_costs_cap, (c->nselfs + 1) * n,
			    sizeof(*c->self_costs)) < 0)
			return -1;
		id = (uint32_t)++c->nselfs;
		if (pki_idtab_insert(&c->self_tab, slot, hash, id) < 0)
			return -1;
		c->selfs[id - 1] = *f;
		memset(c->self_costs + (id - 1) * n, 0, n * sizeof(*c->self_costs));
	}
	add_costs(c->self_costs + (id - 1) * n, c->values, n);
	return 0;
}

static int edge_match(const void *owner, uint32_t id, const void *key)
{
	const struct edge *a = &((const struct callgrind *)owner)->edges[id - 1];
	const struct edge *b = key;

	return a->caller == b->caller && a->callee == b->callee &&
	       a->line == b->line;
}

static int add_edge(struct callgrind *c, const struct frame *from,
		    uint32_t callee, uint32_t sample, int64_t calls)
{
	struct edge key = { from->node, callee, from->line, 0, 0 };
	uint64_t hash = pki_hash_u64((((uint64_t)from->node << 32) | callee) ^
				    pki_hash_u64((uint64_t)from->line));
	size_t slot, n = c->ncolumns;
	uint32_t id = pki_idtab_find(&c->edge_tab, hash, edge_match, c, &key, &slot);
	struct edge *e;

	if (!id) {
		if (c->nedges >= UINT32_MAX - 1 ||
		    pki_grow(&c->edges, &c->edges_cap, c->nedges + 1,
			    sizeof(*c->edges)) < 0 ||
		    pki_grow(&c->edge_costs, &c->edge_costs_cap, (c->nedges + 1) * n,
			    sizeof(*c->edge_costs)) < 0)
			return -1;
		id = (uint32_t)++c->nedges;
		if (pki_idtab_insert(&c->edge_tab, slot, hash, id) < 0)
			return -1;
		c->edges[id - 1] = key;
		memset(c->edge_costs + (id - 1) * n, 0, n * sizeof(*c->edge_costs));
	}
	e = &c->edges[id - 1];
	if (e->stamp == sample)
		return 0;	/* recursion: this pair is counted already */
	e->stamp = sample;
	e->calls += calls;
	add_costs(c->edge_costs + (id - 1) * n, c->values, n);
	return 0;
}

/* Output column k's values are fixed point: value / scale. */
static int64_t column_scale(const struct callgrind *c, size_t k)
{
	return pk_profile_sample_type_scale(c->p, (size_t)c->columns[k]);
}

/* How many samples one model sample stands for. */
static int64_t sample_calls(const struct callgrind *c)
{
	size_t i;

	for (i = 0; i < c->ncount_columns; i++) {
		int64_t scale = column_scale(c, (size_t)c->count_columns[i]);

		if (c->values[c->count_columns[i]] >= scale)
			return c->values[c->count_columns[i]] / scale;
	}
	return 1;
}

static int aggregate(struct callgrind *c)
{
	size_t n = pk_profile_sample_count(c->p), i, k;

	c->loc_frames = calloc(pk_profile_location_count(c->p) + 1,
			       sizeof(*c->loc_frames));
	c->totals = calloc(c->ncolumns + 1, sizeof(*c->totals));
	c->values = calloc(c->ncolumns + 1, sizeof(*c->values));
	if (!c->loc_frames || !c->totals || !c->values)
		return oom(c);
	for (i = 0; i < n && i < UINT32_MAX - 1; i++) {
		const int64_t *v = pk_profile_sample_values(c->p, i);
		int any = 0;

		for (k = 0; k < c->ncolumns; k++) {
			c->values[k] = v[c->columns[k]];
			any |= c->values[k] != 0;
		}
		if (!any)
			continue;
		if (sample_frames(c, pk_profile_sample(c->p, i)->stack) ||
		    add_self(c, &c->stack[c->stack_len - 1]))
			return oom(c);
		for (k = 0; k + 1 < c->stack_len; k++)
			if (add_edge(c, &c->stack[k], c->stack[k + 1].node,
				     (uint32_t)i + 1, sample_calls(c)))
				return oom(c);
		add_costs(c->totals, c->values, c->ncolumns);
	}
	return 0;
}

/* ---- output ---- */

/* Event names are identifiers: "cpu-clock" becomes "cpu_clock". */
static size_t tidy_event_name(const char *s, char *out, size_t size)
{
	size_t n = 0;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		out[n++] = 'e';
	for (; *s && n + 1 < size; s++)
		out[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') ? *s : '_';
	out[n] = '\0';
	return n;
}

static int event_name_match(const void *owner, uint32_t id, const void *key)
{
	return strcmp(((const struct callgrind *)owner)->event_names[id - 1],
		      key) == 0;
}

/*
 * Two types may tidy to one name: the later one is numbered by its
 * column. The names given so far are looked up in a hash table, not
 * compared one by one (nor made again each time): a profile may have
 * thousands of sample types.
 */
static int name_events(struct callgrind *c)
{
	size_t k, slot;

	c->event_names = calloc(c->ncolumns + 1, sizeof(*c->event_names));
	if (!c->event_names)
		return oom(c);
	for (k = 0; k < c->ncolumns; k++) {
		const struct pk_value_type *t =
			pk_profile_sample_type(c->p, (size_t)c->columns[k]);
		char *name = c->event_names[k];
		size_t size = sizeof(c->event_names[k]);
		size_t n = tidy_event_name(pk_profile_string(c->p, t->type),
					   name, size);
		uint64_t hash = pki_hash_bytes(name, n, 0);

		if (pki_idtab_find(&c->event_tab, hash, event_name_match, c,
				   name, &slot)) {
			snprintf(name + n, size - n, "%zu", k);
			hash = pki_hash_bytes(name, strlen(name), 0);
			if (pki_idtab_find(&c->event_tab, hash, event_name_match,
					   c, name, &slot))
				continue;
		}
		if (pki_idtab_insert(&c->event_tab, slot, hash, (uint32_t)k + 1) < 0)
			return oom(c);
	}
	return 0;
}

/* When the profile was taken and for how long, as "desc:" lines (free
 * text that callgrind_annotate and kcachegrind show); the length is the
 * samples' span when the input gives none. */
static int write_times(struct callgrind *c, struct pk_output *out)
{
	int64_t start = pk_profile_time_nanos(c->p);
	int64_t length = pk_profile_duration_nanos(c->p);
	uint64_t first, last;
	time_t secs = (time_t)(start / 1000000000);
	struct tm tm;
	char when[32];
	int rc = 0;

	pk_profile_time_span(c->p, &first, &last);
	if (!length)
		length = (int64_t)(last - first);
	if (start > 0 && gmtime_r(&secs, &tm) &&
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		rc = pk_output_printf(out, "desc: Time: %s.%09lld UTC\n", when,
				      (long long)(start % 1000000000));
	if (!rc && length > 0)
		rc = pk_output_printf(out, "desc: Duration: %lld.%09lld s\n",
				      (long long)(length / 1000000000),
				      (long long)(length % 1000000000));
	return rc;
}

static int write_header(struct callgrind *c, struct pk_output *out)
{
	const char *cmd = pk_profile_meta(c->p, "cmdline");
	size_t k;
	int rc;

	rc = pk_output_puts(out, "# callgrind format\nversion: 1\n"
			    "creator: profkit " PACKAGE_VERSION "\n");
	if (!rc && cmd && !strpbrk(cmd, "\r\n"))
		rc = pk_output_printf(out, "cmd: %s\n", cmd);
	if (!rc)
		rc = write_times(c, out);
	if (!rc)
		rc = pk_output_puts(out, "positions: line\n");
	for (k = 0; k < c->ncolumns && !rc; k++) {
		const struct pk_value_type *t =
		pk_profile_sample_type(c->p, (size_t)c->columns[k]);

		rc = pk_output_printf(out, "event: %s : %s (%s", c->event_names[k],
				      pk_profile_string(c->p, t->type),
				      pk_profile_string(c->p, t->unit));
		/* callgrind costs are integers: fractions stay fixed point */
		if (!rc && column_scale(c, k) > 1)
			rc = pk_output_printf(out, ", in 1/%lld",
					      (long long)column_scale(c, k));
		if (!rc)
			rc = pk_output_puts(out, ")\n");
	}
	if (!rc)
		rc = pk_output_puts(out, "events:");
	for (k = 0; k < c->ncolumns && !rc; k++)
		rc = pk_output_printf(out, " %s", c->event_names[k]);
	if (!rc && !c->ncolumns)
		rc = pk_output_puts(out, " samples");
	if (!rc)
		rc = pk_output_puts(out, "\nsummary:");
	for (k = 0; k < c->ncolumns && !rc; k++)
		rc = pk_output_printf(out, " %lld", (long long)c->totals[k]);
	return rc ? rc : pk_output_puts(out, c->ncolumns ? "\n" : " 0\n");
}

/* Compressed names: "(n) name" the first time, then "(n)". */
struct names_out {
	uint32_t *num;		/* string id -> number, 0 not yet */
	uint32_t next;
};

static int write_name(struct callgrind *c, struct pk_output *out,
		      const char *spec, struct names_out *no, pk_str s)
{
	const char *name = pk_profile_string(c->names, s);
	size_t len = pk_profile_string_len(c->names, s), i;
	int rc;

	if (no->num[s])
		return pk_output_printf(out, "%s=(%u)\n", spec, no->num[s]);
	no->num[s] = ++no->next;
	rc = pk_output_printf(out, "%s=(%u) ", spec, no->num[s]);
	/* a line break inside a name would end the line */
	for (i = 0; i < len && !rc; i++)
		rc = pk_output_putc(out, name[i] == '\n' || name[i] == '\r' ?
				    ' ' : name[i]);
	return rc ? rc : pk_output_putc(out, '\n');
}

static int write_costs(struct callgrind *c, struct pk_output *out,
		       int64_t line, const int64_t *costs)
{
	size_t n = c->ncolumns, k;
	int rc;

	while (n > 1 && !costs[n - 1])
		n--;		/* trailing zeros may go */
	rc = pk_output_printf(out, "%lld", (long long)line);
	for (k = 0; k < n && !rc; k++)
		rc = pk_output_printf(out, " %lld", (long long)costs[k]);
	return rc ? rc : pk_output_putc(out, '\n');
}

struct entry {
	uint32_t node;
	int64_t line;
	uint32_t id;
};

static int compare_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

struct writing {
	struct pk_output *out;
	struct names_out ob, fl, fn;
};

static int write_function(struct callgrind *c, struct writing *wr, uint32_t node)
{
	const struct pk_function *f = pk_profile_function(c->names, node);
	int rc = pk_output_putc(wr->out, '\n');

	if (!rc)
		rc = write_name(c, wr->out, "ob", &wr->ob, f->system_name);
	if (!rc)
		rc = write_name(c, wr->out, "fl", &wr->fl, f->filename);
	return rc ? rc : write_name(c, wr->out, "fn", &wr->fn, f->name);
}

static int write_call(struct callgrind *c, struct writing *wr, uint32_t id)
{
	const struct edge *e = &c->edges[id - 1];
	const struct pk_function *f = pk_profile_function(c->names, e->callee);
	int rc = write_name(c, wr->out, "cob", &wr->ob, f->system_name);

	if (!rc)
		rc = write_name(c, wr->out, "cfi", &wr->fl, f->filename);
	if (!rc)
		rc = write_name(c, wr->out, "cfn", &wr->fn, f->name);
	if (!rc)
		rc = pk_output_printf(wr->out, "calls=%lld %lld\n",
				      (long long)e->calls,
				      (long long)c->node_line[e->callee]);
	return rc ? rc : write_costs(c, wr->out, e->line,
				    c->edge_costs + (id - 1) * c->ncolumns);
}

/* Function by function in order of appearance: self costs, then calls. */
static int write_body(struct callgrind *c, struct pk_output *out)
{
	size_t nstr = pk_profile_string_count(c->names), i, j = 0;
	struct entry *selfs = malloc((c->nselfs + 1) * sizeof(*selfs));
	struct entry *calls = malloc((c->nedges + 1) * sizeof(*calls));
	struct writing wr = { out, { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
	int rc = 0;

	wr.ob.num = calloc(nstr + 1, sizeof(uint32_t));
	wr.fl.num = calloc(nstr + 1, sizeof(uint32_t));
	wr.fn.num = calloc(nstr + 1, sizeof(uint32_t));
	if (!selfs || !calls || !wr.ob.num || !wr.fl.num || !wr.fn.num)
		rc = oom(c);
	for (i = 0; !rc && i < c->nselfs; i++)
		selfs[i] = (struct entry){ c->selfs[i].node, c->selfs[i].line,
					   (uint32_t)i + 1 };
	for (i = 0; !rc && i < c->nedges; i++)
		calls[i] = (struct entry){ c->edges[i].caller, c->edges[i].line,
					   (uint32_t)i + 1 };
	if (!rc) {
		qsort(selfs, c->nselfs, sizeof(*selfs), compare_entries);
		qsort(calls, c->nedges, sizeof(*calls), compare_entries);
	}
	for (i = 0; !rc && (i < c->nselfs || j < c->nedges);) {
		uint32_t node = i < c->nselfs ? selfs[i].node : UINT32_MAX;

		if (j < c->nedges && calls[j].node < node)
			node = calls[j].node;
		rc = write_function(c, &wr, node);
		for (; !rc && i < c->nselfs && selfs[i].node == node; i++)
			rc = write_costs(c, out, selfs[i].line,
					 c->self_costs + (selfs[i].id - 1) * c->ncolumns);
		for (; !rc && j < c->nedges && calls[j].node == node; j++)
			rc = write_call(c, &wr, calls[j].id);
	}
	free(selfs);
	free(calls);
	free(wr.ob.num);
	free(wr.fl.num);
	free(wr.fn.num);
	return rc;
}

static int write_totals(struct callgrind *c, struct pk_output *out)
{
	size_t k;
	int rc = pk_output_puts(out, "\ntotals:");

	for (k = 0; k < c->ncolumns && !rc; k++)
		rc = pk_output_printf(out, " %lld", (long long)c->totals[k]);
	return rc ? rc : pk_output_puts(out, c->ncolumns ? "\n" : " 0\n");
}

static void callgrind_release(struct callgrind *c)
{
	pk_profile_free(c->names);
	free(c->columns);
	free(c->count_columns);
	free(c->event_names);
	pki_idtab_release(&c->event_tab);
	free(c->node_line);
	free(c->loc_frames);
	free(c->frame_lists);
	free(c->stack);
	free(c->selfs);
	free(c->self_costs);
	pki_idtab_release(&c->self_tab);
	free(c->edges);
	free(c->edge_costs);
	pki_idtab_release(&c->edge_tab);
	free(c->totals);
	free(c->values);
	free(c->name.s);
}

int pki_callgrind_write(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct pk_output *out)
{
	struct callgrind c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	c.p = p;
	c.opts = opts;
	c.names = pk_profile_new(0);
	rc = c.names ? choose_columns(&c) : oom(&c);
	if (!rc)
		rc = name_events(&c);
	if (!rc)
		rc = aggregate(&c);
	if (!rc)
		rc = write_header(&c, out);
	if (!rc)
		rc = write_body(&c, out);
	if (!rc)
		rc = write_totals(&c, out);
	callgrind_release(&c);
	return rc;
}
