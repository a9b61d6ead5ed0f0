/* SPDX-License-Identifier: MIT */
/*
 * A callgrind file's call graph made into samples (a thread's: the parts
 * of one thread add up in one graph first). callgrind records a
 * call graph, not stacks: each function's self cost by position, and for
 * each call site the inclusive cost of the calls made there. The samples
 * made here put each function's self cost under the callers the graph
 * leads to it from, so that per function the self cost is exactly the
 * file's, and the inclusive cost (of the samples with the function on
 * their stack) is what the calls into it cost, as callgrind_annotate
 * --inclusive=yes counts it, wherever the graph allows that:
 *
 * 1. Functions on a call cycle (recursion: a strongly connected component
 *    of the graph) are one unit. callgrind counts a recursive call's cost
 *    again at every level it nests in, so calls within a unit carry no
 *    cost here; they only give the way from the function where a path
 *    entered the unit to each of the others (the shortest, breadth first),
 *    every function once per stack. Other functions are units of one.
 * 2. Bottom up, callees first, a unit holds its self cost and what its
 *    calls out of it carry. A call carries its inclusive cost; where the
 *    calls into a unit say more than it holds (hand-made files), they
 *    carry what it holds, shared in proportion. What a unit holds beyond
 *    what the calls into it carry (a function nothing calls; clone, whose
 *    call into a new thread costs the whole thread) has a path of its own,
 *    with the unit at the root.
 * 3. Top down, callers first, each path into a unit (a context) takes a
 *    share of everything the unit holds in proportion to its own cost:
 *    self costs by position become samples, calls out paths into the
 *    callees. The shares are integers that add up exactly, per path and
 *    per thing held, so no cost is lost or made up.
 *
 * The paths grow with the product of the ways into each function; past
 * max_paths a unit's paths are merged into its heaviest before it passes
 * them on, and the callers on the others lose that cost.
 */
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

/* A path into a unit: the function it entered at and the frames above. */
struct context {
	uint32_t parent;	/* context index + 1; 0 for a root */
	uint32_t entry;		/* node */
	uint32_t frames, nframes;	/* in frame_pool, leaf side first */
};

/* What a unit holds: a self cost, or a call out of the unit. */
struct item {
	uint32_t id;		/* into selfs, or arcs */
	uint32_t node;		/* the unit's function it is at */
	int is_call;
};

struct stacker {
	struct pk_context *ctx;
	struct pk_profile *p;
	struct cg_graph *g;
	struct cg_emit *how;
	size_t ncosts, nnodes;

	/* the graph by node (CSR lists of ids: node n's are
	 * list[start[n]] to list[start[n + 1]]) */
	uint32_t *out_start, *out;	/* arcs by caller */
	uint32_t *in_start, *in;	/* arcs by callee */
	uint32_t *self_start, *self;	/* self costs by node */

	/* units, callees first: unit u's nodes are members[unit_start[u]]
	 * to members[unit_start[u + 1]], by id */
	uint32_t *unit_of;	/* node -> unit + 1; 0: not in the part */
	uint32_t *unit_start, *members;
	size_t nunits;

	int64_t *holds;		/* per unit: its self costs and calls out */
	int64_t *roots;		/* per unit: held beyond the calls into it */
	int64_t *carried;	/* per arc between units: what it carries */

	struct context *contexts;
	int64_t *flows;		/* per context: its cost */
	uint32_t *next;		/* per context: the unit's next one + 1 */
	uint32_t *head, *tail;	/* per unit: its first and last + 1 */
	size_t ncontexts, contexts_cap, flows_cap, next_cap;
	uint32_t *frame_pool;
	size_t nframe_pool, frame_pool_cap;

	/* one unit's work */
	struct item *items;
	int64_t *left, *share;	/* per item: not yet given; one path's */
	int64_t **left_rows, **share_rows;	/* each item's, for proportion */
	size_t nitems, items_cap, left_cap, share_cap, left_rows_cap, share_rows_cap;
	uint64_t *order;	/* the unit's contexts: entry << 32 | index */
	size_t order_cap;
	uint32_t *via;		/* node -> arc + 1 the route reaches it by */
	uint32_t *seen, stamp;	/* node -> the search that reached it */
	uint32_t *queue;
	uint64_t search_steps;

	uint32_t *stack, *route;	/* a sample's frames; a new path's */
	size_t stack_cap, route_cap;
	size_t unit_size;		/* of the unit being shared */
	int64_t *values;
	size_t nvalues;
};

/* Breadth-first searches within cycles, in steps, before every path
 * into a unit takes the way from one function (hostile graphs). */
#define SEARCH_BUDGET (1ULL << 26)

static int oom(struct stacker *s)
{
	return pk_error_set(s->ctx, PK_ENOMEM, "callgrind: out of memory");
}

static void *alloc_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* ---- the graph by node ---- */

/*
 * CSR lists: the ids 0..n-1 of records (size bytes each, a uint32_t key
 * at byte offset key, below nkeys) grouped by key, each group in id
 * order. 0 or -1.
 */
static int group_by(const void *records, size_t n, size_t size, size_t key,
		    size_t nkeys, uint32_t **start, uint32_t **list)
{
	const unsigned char *r = records;
	uint32_t k;
	size_t i;

	*start = alloc_array(nkeys + 2, sizeof(**start));
	*list = alloc_array(n, sizeof(**list));
	if (!*start || !*list)
		return -1;
	for (i = 0; i < n; i++) {
		memcpy(&k, r + i * size + key, sizeof(k));
		(*start)[k + 2]++;
	}
	for (i = 1; i < nkeys + 2; i++)
		(*start)[i] += (*start)[i - 1];
	for (i = 0; i < n; i++) {
		memcpy(&k, r + i * size + key, sizeof(k));
		(*list)[(*start)[k + 1]++] = (uint32_t)i;
	}
	return 0;
}

static int index_graph(struct stacker *s)
{
	const struct cg_graph *g = s->g;

	if (group_by(g->arcs, g->narcs, sizeof(*g->arcs),
		     offsetof(struct cg_arc, caller), s->nnodes,
		     &s->out_start, &s->out) ||
	    group_by(g->arcs, g->narcs, sizeof(*g->arcs),
		     offsetof(struct cg_arc, callee), s->nnodes,
		     &s->in_start, &s->in) ||
	    group_by(g->selfs, g->nselfs, sizeof(*g->selfs),
		     offsetof(struct cg_self, node), s->nnodes,
		     &s->self_start, &s->self))
		return oom(s);
	return 0;
}

static int in_part(const struct stacker *s, uint32_t n)
{
	return s->out_start[n] < s->out_start[n + 1] ||
	       s->in_start[n] < s->in_start[n + 1] ||
	       s->self_start[n] < s->self_start[n + 1];
}

/* ---- units: Tarjan's strongly connected components, without recursion ---- */

struct tarjan {
	uint32_t *index, *low, *stack, *calls, *next_arc;
	unsigned char *on_stack;
	uint32_t counter;
	size_t sp, cp;
};

static void tarjan_visit(struct tarjan *t, const struct stacker *s, uint32_t v)
{
	t->index[v] = t->low[v] = ++t->counter;
	t->stack[t->sp++] = v;
	t->on_stack[v] = 1;
	t->calls[t->cp++] = v;
	t->next_arc[v] = s->out_start[v];
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The unit whose root is v ends: its nodes leave the stack. */
static void tarjan_unit(struct tarjan *t, struct stacker *s, uint32_t v)
{
	size_t first = s->unit_start[s->nunits], n = first;
	uint32_t w;

	do {
		w = t->stack[--t->sp];
		t->on_stack[w] = 0;
		s->unit_of[w] = (uint32_t)s->nunits + 1;
		s->members[n++] = w;
	} while (w != v);
	qsort(s->members + first, n - first, sizeof(*s->members), compare_u32);
	s->unit_start[++s->nunits] = (uint32_t)n;
}

static void tarjan_from(struct tarjan *t, struct stacker *s, uint32_t root)
{
	tarjan_visit(t, s, root);
	while (t->cp) {
		uint32_t v = t->calls[t->cp - 1];

		if (t->next_arc[v] < s->out_start[v + 1]) {
			uint32_t w = s->g->arcs[s->out[t->next_arc[v]++]].callee;

			if (!t->index[w])
				tarjan_visit(t, s, w);
			else if (t->on_stack[w] && t->index[w] < t->low[v])
				t->low[v] = t->index[w];
			continue;
		}
		t->cp--;
		if (t->cp && t->low[v] < t->low[t->calls[t->cp - 1]])
			t->low[t->calls[t->cp - 1]] = t->low[v];
		if (t->low[v] == t->index[v])
			tarjan_unit(t, s, v);
	}
}

static int find_units(struct stacker *s)
{
	size_t n = s->nnodes;
	struct tarjan t = { 0 };
	uint32_t v;
	int rc = 0;

	t.index = alloc_array(n, sizeof(*t.index));
	t.low = alloc_array(n, sizeof(*t.low));
	t.stack = alloc_array(n, sizeof(*t.stack));
	t.calls = alloc_array(n, sizeof(*t.calls));
	t.next_arc = alloc_array(n, sizeof(*t.next_arc));
	t.on_stack = alloc_array(n, 1);
	s->unit_of = alloc_array(n, sizeof(*s->unit_of));
	s->unit_start = alloc_array(n + 1, sizeof(*s->unit_start));
	s->members = alloc_array(n, sizeof(*s->members));
	if (!t.index || !t.low || !t.stack || !t.calls || !t.next_arc ||
	    !t.on_stack || !s->unit_of || !s->unit_start || !s->members)
		rc = oom(s);
	for (v = 1; !rc && v < n; v++)
		if (!t.index[v] && in_part(s, v))
			tarjan_from(&t, s, v);
	free(t.index);
	free(t.low);
	free(t.stack);
	free(t.calls);
	free(t.next_arc);
	free(t.on_stack);
	return rc;
}

static uint32_t unit_of(const struct stacker *s, uint32_t node)
{
	return s->unit_of[node] - 1;
}

static int between_units(const struct stacker *s, const struct cg_arc *a)
{
	return s->unit_of[a->caller] != s->unit_of[a->callee];
}

/* ---- bottom up: what each unit holds, what each call carries ---- */

static void add_costs(int64_t *to, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] += v[i];
}

/*
 * Split total over n parts in proportion to weights (which add up to
 * weights_total, more than total), in integers that add up to total:
 * each part the difference of the rounded-down running shares.
 */
static void proportion(int64_t total, const int64_t *const *weights,
		       size_t n, size_t column, int64_t weights_total,
		       int64_t *const *out)
{
	int64_t before = 0, now, running = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t product;

		running += weights[i][column];
		/* in 64 bits when the product fits: most do, and faster */
		if (!__builtin_mul_overflow((uint64_t)total, (uint64_t)running, &product))
			now = (int64_t)(product / (uint64_t)weights_total);
		else
			now = (int64_t)((__int128)total * running / weights_total);
		out[i][column] = now - before;
		before = now;
	}
}

/* The calls into unit u (from other units) carry what it holds. */
static int carry_into(struct stacker *s, uint32_t u)
{
	const int64_t **costs = NULL;
	int64_t **carried = NULL, *held = s->holds + u * s->ncosts;
	int64_t *called = s->roots + u * s->ncosts;	/* their total, first */
	size_t n = 0, costs_cap = 0, carried_cap = 0, k, e, i;
	uint32_t j;

	memset(called, 0, s->ncosts * sizeof(*called));
	for (k = s->unit_start[u]; k < s->unit_start[u + 1]; k++) {
		uint32_t node = s->members[k];

		for (j = s->in_start[node]; j < s->in_start[node + 1]; j++) {
			uint32_t a = s->in[j];

			if (!between_units(s, &s->g->arcs[a]))
				continue;
			if (pki_grow(&costs, &costs_cap, n + 1, sizeof(*costs)) < 0 ||
			    pki_grow(&carried, &carried_cap, n + 1, sizeof(*carried)) < 0) {
				free(costs);
				free(carried);
				return oom(s);
			}
			costs[n] = s->g->arc_costs + (size_t)a * s->ncosts;
			carried[n++] = s->carried + (size_t)a * s->ncosts;
			add_costs(called, costs[n - 1], s->ncosts);
		}
	}
	for (e = 0; e < s->ncosts; e++) {
		if (held[e] >= called[e]) {
			for (i = 0; i < n; i++)
				carried[i][e] = costs[i][e];
			called[e] = held[e] - called[e];	/* the root's */
		} else {
			proportion(held[e], costs, n, e, called[e], carried);
			called[e] = 0;
		}
	}
	free(costs);
	free(carried);
	return 0;
}

static int bottom_up(struct stacker *s)
{
	size_t E = s->ncosts, k;
	uint32_t u, j;

	s->holds = alloc_array(s->nunits * E, sizeof(*s->holds));
	s->roots = alloc_array(s->nunits * E, sizeof(*s->roots));
	s->carried = alloc_array(s->g->narcs * E, sizeof(*s->carried));
	if (!s->holds || !s->roots || !s->carried)
		return oom(s);
	for (u = 0; u < s->nunits; u++) {
		int64_t *held = s->holds + (size_t)u * E;

		for (k = s->unit_start[u]; k < s->unit_start[u + 1]; k++) {
			uint32_t node = s->members[k];

			for (j = s->self_start[node]; j < s->self_start[node + 1]; j++)
				add_costs(held, s->g->self_costs + (size_t)s->self[j] * E, E);
			for (j = s->out_start[node]; j < s->out_start[node + 1]; j++)
				if (between_units(s, &s->g->arcs[s->out[j]]))
					add_costs(held, s->carried + (size_t)s->out[j] * E, E);
		}
		if (carry_into(s, u))
			return PK_ENOMEM;
	}
	return 0;
}

/* ---- locations ---- */

static uint32_t node_function(struct stacker *s, uint32_t node)
{
	struct cg_node *n = &s->g->nodes[node];
	struct pk_function f = { 0 };

	if (!n->function) {
		f.name = f.system_name = n->name;
		f.filename = n->file;
		f.start_line = n->start_line;
		n->function = pk_profile_intern_function(s->p, &f);
	}
	return n->function;
}

static uint32_t make_location(struct stacker *s, uint32_t node, uint64_t pos)
{
	int lines = s->how->positions_are_lines;
	struct pk_line line = { node_function(s, node), 0 };

	if (!line.function)
		return 0;
	line.line = lines && pos <= INT64_MAX ? (int64_t)pos : 0;
	return pk_profile_intern_location(s->p, s->g->nodes[node].mapping,
					  lines ? 0 : pos, &line, 1);
}

static uint32_t self_location(struct stacker *s, uint32_t id)
{
	struct cg_self *c = &s->g->selfs[id];

	if (!c->location)
		c->location = make_location(s, c->node, c->pos);
	return c->location;
}

static uint32_t arc_location(struct stacker *s, uint32_t id)
{
	struct cg_arc *a = &s->g->arcs[id];

	if (!a->location)
		a->location = make_location(s, a->caller, a->pos);
	return a->location;
}

/* ---- routes within a unit ---- */

/* Reach the unit's nodes from entry, breadth first, by calls within it. */
static void search_from(struct stacker *s, uint32_t entry)
{
	uint32_t unit = s->unit_of[entry], j;
	size_t qhead = 0, qtail = 0;

	if (!++s->stamp) {	/* wrapped: forget every stamp */
		memset(s->seen, 0, s->nnodes * sizeof(*s->seen));
		s->stamp = 1;
	}
	s->seen[entry] = s->stamp;
	s->via[entry] = 0;
	s->queue[qtail++] = entry;
	while (qhead < qtail) {
		uint32_t node = s->queue[qhead++];

		for (j = s->out_start[node]; j < s->out_start[node + 1]; j++) {
			const struct cg_arc *a = &s->g->arcs[s->out[j]];

			s->search_steps++;
			if (s->unit_of[a->callee] != unit || s->seen[a->callee] == s->stamp)
				continue;
			s->seen[a->callee] = s->stamp;
			s->via[a->callee] = s->out[j] + 1;
			s->queue[qtail++] = a->callee;
		}
	}
}

/* Frames into (*to)[*depth..]: the item's location, then the frames
 * from its node up to where the search began; at most limit in all. */
static int item_frames(struct stacker *s, const struct item *it, uint32_t **to,
		       size_t *cap, size_t *depth, size_t limit)
{
	uint32_t node = it->node;

	if (pki_grow(to, cap, *depth + 1, sizeof(**to)) < 0)
		return -1;
	(*to)[(*depth)++] = it->is_call ? arc_location(s, it->id) :
					  self_location(s, it->id);
	if (!(*to)[*depth - 1])
		return -1;
	while (s->via[node] && *depth < limit) {
		uint32_t arc = s->via[node] - 1;

		if (pki_grow(to, cap, *depth + 1, sizeof(**to)) < 0)
			return -1;
		(*to)[(*depth)++] = arc_location(s, arc);
		node = s->g->arcs[arc].caller;
	}
	return 0;
}

/* ---- top down: paths ---- */

static int add_context(struct stacker *s, uint32_t unit, uint32_t parent,
		       uint32_t entry, const uint32_t *frames, size_t nframes,
		       const int64_t *flow)
{
	size_t E = s->ncosts, c = s->ncontexts;
	struct context *x;

	if (c >= UINT32_MAX - 1 || s->nframe_pool + nframes >= UINT32_MAX ||
	    pki_grow(&s->contexts, &s->contexts_cap, c + 1, sizeof(*s->contexts)) < 0 ||
	    pki_grow(&s->flows, &s->flows_cap, (c + 1) * E, sizeof(*s->flows)) < 0 ||
	    pki_grow(&s->next, &s->next_cap, c + 1, sizeof(*s->next)) < 0 ||
	    pki_grow(&s->frame_pool, &s->frame_pool_cap, s->nframe_pool + nframes,
		     sizeof(*s->frame_pool)) < 0)
		return oom(s);
	x = &s->contexts[c];
	x->parent = parent;
	x->entry = entry;
	x->frames = (uint32_t)s->nframe_pool;
	x->nframes = (uint32_t)nframes;
	if (nframes)	/* a root's: none, and maybe no pool yet */
		memcpy(s->frame_pool + s->nframe_pool, frames, nframes * sizeof(*frames));
	s->nframe_pool += nframes;
	memcpy(s->flows + c * E, flow, E * sizeof(*flow));
	s->next[c] = 0;
	if (s->tail[unit])
		s->next[s->tail[unit] - 1] = (uint32_t)c + 1;
	else
		s->head[unit] = (uint32_t)c + 1;
	s->tail[unit] = (uint32_t)c + 1;
	s->ncontexts++;
	return 0;
}

static size_t path_of(uint64_t key)
{
	return (size_t)(key & UINT32_MAX);
}

static int any_cost(const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			return 1;
	return 0;
}

/* Where a path with nothing above it enters unit u: at the function
 * the calls into it reach most, else its first. */
static uint32_t root_entry(const struct stacker *s, uint32_t u)
{
	uint32_t best = s->members[s->unit_start[u]], j;
	int64_t most = -1;
	size_t k;

	if (s->unit_start[u + 1] - s->unit_start[u] == 1)
		return best;
	for (k = s->unit_start[u]; k < s->unit_start[u + 1]; k++) {
		uint32_t node = s->members[k];
		int64_t called = 0;

		for (j = s->in_start[node]; j < s->in_start[node + 1]; j++)
			if (between_units(s, &s->g->arcs[s->in[j]]))
				called += s->g->arc_costs[(size_t)s->in[j] * s->ncosts];
		if (called > most) {
			most = called;
			best = node;
		}
	}
	return best;
}

static int add_item(struct stacker *s, uint32_t id, uint32_t node, int is_call,
		    const int64_t *amount)
{
	size_t E = s->ncosts;

	if (!any_cost(amount, E))
		return 0;
	if (pki_grow(&s->items, &s->items_cap, s->nitems + 1, sizeof(*s->items)) < 0 ||
	    pki_grow(&s->left, &s->left_cap, (s->nitems + 1) * E, sizeof(*s->left)) < 0 ||
	    pki_grow(&s->share, &s->share_cap, (s->nitems + 1) * E, sizeof(*s->share)) < 0)
		return oom(s);
	s->items[s->nitems] = (struct item){ id, node, is_call };
	memcpy(s->left + s->nitems * E, amount, E * sizeof(*amount));
	s->nitems++;
	return 0;
}

/* What unit u holds, to share among its paths; how many are calls. */
static int list_items(struct stacker *s, uint32_t u, size_t *ncalls)
{
	size_t E = s->ncosts, k;
	uint32_t j;

	s->nitems = 0;
	*ncalls = 0;
	for (k = s->unit_start[u]; k < s->unit_start[u + 1]; k++) {
		uint32_t node = s->members[k];

		for (j = s->self_start[node]; j < s->self_start[node + 1]; j++)
			if (add_item(s, s->self[j], node, 0,
				     s->g->self_costs + (size_t)s->self[j] * E))
				return PK_ENOMEM;
		for (j = s->out_start[node]; j < s->out_start[node + 1]; j++) {
			uint32_t a = s->out[j];
			size_t before = s->nitems;

			if (between_units(s, &s->g->arcs[a]) &&
			    add_item(s, a, node, 1, s->carried + (size_t)a * E))
				return PK_ENOMEM;
			*ncalls += s->nitems > before;
		}
	}
	if (pki_grow(&s->left_rows, &s->left_rows_cap, s->nitems,
		     sizeof(*s->left_rows)) < 0 ||
	    pki_grow(&s->share_rows, &s->share_rows_cap, s->nitems,
		     sizeof(*s->share_rows)) < 0)
		return oom(s);
	for (k = 0; k < s->nitems; k++) {
		s->left_rows[k] = s->left + k * E;
		s->share_rows[k] = s->share + k * E;
	}
	return 0;
}

/* Unit u's paths, by entry (one search per function paths enter at);
 * past the bound, merged into the heaviest. */
static int unit_paths(struct stacker *s, uint32_t u, size_t ncalls, size_t *n)
{
	size_t E = s->ncosts, k = 0, i, heaviest = 0;
	uint32_t c;

	for (c = s->head[u]; c; c = s->next[c - 1]) {
		if (pki_grow(&s->order, &s->order_cap, k + 1, sizeof(*s->order)) < 0)
			return oom(s);
		s->order[k++] = (uint64_t)s->contexts[c - 1].entry << 32 | (c - 1);
	}
	if (k > 1 && s->ncontexts + k * ncalls > s->how->max_paths) {
		for (i = 1; i < k; i++)
			if (s->flows[path_of(s->order[i]) * E] >
			    s->flows[path_of(s->order[heaviest]) * E])
				heaviest = i;
		for (i = 0; i < k; i++)
			if (i != heaviest)
				add_costs(s->flows + path_of(s->order[heaviest]) * E,
					  s->flows + path_of(s->order[i]) * E, E);
		s->order[0] = s->order[heaviest];
		k = 1;
		s->how->merged++;
	}
	qsort(s->order, k, sizeof(*s->order), compare_u64);
	*n = k;
	return 0;
}

/* One path's share (flow) of what its unit has left, item by item. */
static void share_out(struct stacker *s, const int64_t *flow)
{
	size_t E = s->ncosts, n = s->nitems, i, e;

	for (e = 0; e < E; e++) {
		int64_t left = 0;

		for (i = 0; i < n; i++)
			left += s->left_rows[i][e];
		if (flow[e] < left) {
			proportion(flow[e], (const int64_t *const *)s->left_rows, n,
				   e, left, s->share_rows);
		} else {
			for (i = 0; i < n; i++)
				s->share_rows[i][e] = s->left_rows[i][e];
		}
		for (i = 0; i < n; i++)
			s->left_rows[i][e] -= s->share_rows[i][e];
	}
}

/* The frames of path c + 1 and those above it, up to limit in all. */
static int add_path(struct stacker *s, uint32_t c, size_t *depth, size_t limit)
{
	while (c && *depth < limit) {
		const struct context *x = &s->contexts[c - 1];
		size_t n = x->nframes < limit - *depth ? x->nframes : limit - *depth;

		if (pki_grow(&s->stack, &s->stack_cap, *depth + n, sizeof(*s->stack)) < 0)
			return -1;
		if (n)
			memcpy(s->stack + *depth, s->frame_pool + x->frames,
			       n * sizeof(*s->stack));
		*depth += n;
		c = x->parent;
	}
	return 0;
}

static int add_sample(struct stacker *s, size_t depth, const int64_t *share)
{
	size_t e;
	uint32_t stack;

	memset(s->values, 0, s->nvalues * sizeof(*s->values));
	for (e = 0; e < s->ncosts; e++)
		s->values[s->how->columns[e]] = share[e];
	stack = pk_profile_intern_stack(s->p, s->stack, depth);
	if (!stack)
		return oom(s);
	return pk_profile_add_sample(s->p, stack, s->how->labels, 0, s->values,
				     s->nvalues) ? oom(s) : 0;
}

/* Path c's share: samples of its self costs, paths into its callees. */
static int give_share(struct stacker *s, uint32_t c, size_t limit)
{
	size_t E = s->ncosts, i, depth, path = 0;
	int alone = s->unit_size == 1;

	for (i = 0; i < s->nitems; i++) {
		const struct item *it = &s->items[i];
		const int64_t *share = s->share_rows[i];

		if (!any_cost(share, E))
			continue;
		if (it->is_call) {
			uint32_t callee = s->g->arcs[it->id].callee;

			depth = 0;
			if (item_frames(s, it, &s->route, &s->route_cap, &depth, limit))
				return oom(s);
			if (add_context(s, unit_of(s, callee), c + 1, callee,
					s->route, depth, share))
				return PK_ENOMEM;
			continue;
		}
		/* a unit of one function: its path's frames once, under
		 * each self cost's location */
		if (alone && path) {
			s->stack[0] = self_location(s, it->id);
			depth = path;
		} else {
			depth = 0;
			if (item_frames(s, it, &s->stack, &s->stack_cap, &depth, limit) ||
			    add_path(s, c + 1, &depth, limit))
				return oom(s);
			path = depth;
		}
		if (!s->stack[0] || add_sample(s, depth, share))
			return oom(s);
	}
	return 0;
}

static int top_down(struct stacker *s)
{
	size_t E = s->ncosts, limit = pki_profile_max_stack(s->p), ncalls, n = 0, i;
	uint32_t u, searched = 0;
	int rc;

	/* one frame past the bound, so that the profile counts the cut */
	limit = limit == SIZE_MAX ? SIZE_MAX : limit + 1;
	for (u = (uint32_t)s->nunits; u-- > 0;) {
		const int64_t *root = s->roots + (size_t)u * E;

		if (any_cost(root, E) &&
		    (rc = add_context(s, u, 0, root_entry(s, u), NULL, 0, root)))
			return rc;
		if ((rc = list_items(s, u, &ncalls)))
			return rc;
		if (!s->nitems)
			continue;
		if ((rc = unit_paths(s, u, ncalls, &n)))
			return rc;
		s->unit_size = s->unit_start[u + 1] - s->unit_start[u];
		for (i = 0; i < n; i++) {
			uint32_t c = (uint32_t)path_of(s->order[i]);
			uint32_t entry = s->contexts[c].entry;

			if (s->unit_size > 1 && entry != searched &&
			    (s->search_steps < SEARCH_BUDGET || !searched ||
			     s->unit_of[searched] != s->unit_of[entry])) {
				search_from(s, entry);
				searched = entry;
			}
			share_out(s, s->flows + (size_t)c * E);
			if ((rc = give_share(s, c, limit)))
				return rc;
		}
	}
	return 0;
}

static void stacker_release(struct stacker *s)
{
	free(s->out_start);
	free(s->out);
	free(s->in_start);
	free(s->in);
	free(s->self_start);
	free(s->self);
	free(s->unit_of);
	free(s->unit_start);
	free(s->members);
	free(s->holds);
	free(s->roots);
	free(s->carried);
	free(s->contexts);
	free(s->flows);
	free(s->next);
	free(s->head);
	free(s->tail);
	free(s->frame_pool);
	free(s->items);
	free(s->left);
	free(s->share);
	free(s->left_rows);
	free(s->share_rows);
	free(s->order);
	free(s->via);
	free(s->seen);
	free(s->queue);
	free(s->stack);
	free(s->route);
	free(s->values);
}

/* The part is done: its costs go, its functions stay. */
static void forget_part(struct cg_graph *g)
{
	g->nselfs = g->narcs = 0;
	pki_idtab_release(&g->self_tab);
	pki_idtab_release(&g->arc_tab);
	memset(&g->self_tab, 0, sizeof(g->self_tab));
	memset(&g->arc_tab, 0, sizeof(g->arc_tab));
}

int pki_callgrind_stacks(struct pk_context *ctx, struct pk_profile *p,
			 struct cg_graph *g, struct cg_emit *how)
{
	struct stacker s;
	size_t e;
	int rc;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.p = p;
	s.g = g;
	s.how = how;
	s.ncosts = g->ncosts;
	s.nnodes = g->nnodes;
	for (e = 0; e < s.ncosts; e++)
		if ((size_t)how->columns[e] + 1 > s.nvalues)
			s.nvalues = (size_t)how->columns[e] + 1;
	s.values = alloc_array(s.nvalues, sizeof(*s.values));
	s.via = alloc_array(s.nnodes, sizeof(*s.via));
	s.seen = alloc_array(s.nnodes, sizeof(*s.seen));
	s.queue = alloc_array(s.nnodes, sizeof(*s.queue));
	rc = s.values && s.via && s.seen && s.queue ? index_graph(&s) : oom(&s);
	if (!rc)
		rc = find_units(&s);
	if (!rc)
		rc = bottom_up(&s);
	if (!rc) {
		s.head = alloc_array(s.nunits, sizeof(*s.head));
		s.tail = alloc_array(s.nunits, sizeof(*s.tail));
		rc = s.head && s.tail ? top_down(&s) : oom(&s);
	}
	stacker_release(&s);
	forget_part(g);
	return rc;
}
