/* SPDX-License-Identifier: MIT */
/*
 * Reader for the callgrind format (valgrind's "Callgrind Format
 * Specification"): valgrind --tool=callgrind, cachegrind's older files
 * and our own writer.
 *
 *     # callgrind format
 *     version: 1
 *     creator: callgrind-3.19.0
 *     pid: 15161
 *     cmd:  ./graph 20
 *     part: 1
 *     positions: line              or "instr line", "instr"
 *     events: Ir                   one sample type each
 *     summary: 231608
 *
 *     ob=(2) /tmp/graph            the object
 *     fl=(53) /tmp/graph.c         the source file
 *     fn=(644) fact                the function: self costs follow
 *     12 150                       at line 12
 *     +1 60                        at line 13 ("+N", "-N", "*": relative)
 *     cfn=(645) fact'2             calls to this function
 *     calls=30 -1                  30 of them, to its line 12,
 *     * 12870                      from line 13, costing this inclusive
 *     fi=(54) /usr/include/x.h     code of this file inlined: self costs
 *     ...
 *     totals: 231608
 *
 * "(N) name" gives a name its number and "(N)" names it again, with one
 * numbering for fl, fi, fe, cfi, cfl and jfi, one for ob and cob, one
 * for fn, cfn and jfn. Header lines after a body start a new part (a
 * thread, a dump); each part's call graph becomes samples when it ends
 * (stacks.c). Jumps (jump=, jcnd=) are left out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "formats/registry.h"

/* Bounds on what a header may ask for. */
#define MAX_EVENTS 32		/* valgrind writes 21 at most */
#define MAX_POSITIONS 3
#define MAX_TERMS 16		/* of a derived event's formula */
/* The pages of a mapped file read are let go every so many bytes. */
#define UNMAP_STEP (16u << 20)

enum { MAX_PATHS };

static const struct pki_option callgrind_options[] = {
	[MAX_PATHS] = { .key = "callgrind:max-paths", .type = PK_OPTION_UINT,
		.def = "1000000", .value_name = "N", .min = 1,
		.help = "call paths kept from a call graph (more: merged)" },
	{ .key = NULL },
};

/* One numbering of compressed names: (N) -> string. */
struct names {
	uint64_t *numbers;
	pk_str *strings;
	size_t n, cap, strings_cap;
	struct pk_idtab tab;
};

/* What an "event:" line says of an event. */
struct event_def {
	char *name, *formula, *long_name;
};

/* A derived event: a sum of events times factors. */
struct derived {
	size_t nterms;
	size_t event[MAX_TERMS];
	int64_t factor[MAX_TERMS];
};

struct callgrind_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct cg_graph g;
	struct cg_emit emit;

	struct names objects, files, functions;
	struct event_def *defs;
	size_t ndefs;
	unsigned parts;
	int in_body;		/* the part's body has begun */
	int header_changed;	/* events, positions or thread since the last */
	int set_up;		/* the header's sample types are made */
	int pending;		/* the graph holds costs not yet samples */
	uint64_t lineno;	/* of the line being read */
	uint64_t warnings;
	size_t merged;

	/* the part's header */
	size_t nevents;		/* in its events: line */
	char *events[MAX_EVENTS];
	size_t nderived;
	struct derived derived[MAX_EVENTS];
	size_t npositions;
	int line_at, instr_at;	/* which subposition, or -1 */
	int has_pid, has_thread;
	int64_t pid, thread;
	char *totals, *summary;	/* their lines' numbers */
	uint64_t file_totals[MAX_EVENTS], file_summary[MAX_EVENTS];	/* all parts' */
	int has_totals, has_summary;
	uint64_t totals_line, summary_line;

	/* the part's body */
	int columns[MAX_EVENTS];
	int64_t factor[MAX_EVENTS];	/* to the column's scale */
	uint64_t max_cost[MAX_EVENTS];	/* INT64_MAX / factor: no division a line */
	int64_t costs[MAX_EVENTS];	/* one line's */
	int64_t part_self[MAX_EVENTS];	/* the part's, for totals: */
	int64_t self_total[MAX_EVENTS], call_total[MAX_EVENTS];	/* the graph's */
	uint64_t last[MAX_POSITIONS];
	uint32_t object;	/* mapping of the current ob= */
	pk_str file;		/* the current fl=, fi= or fe= */
	pk_str function;	/* the current fn= */
	uint32_t base;		/* the node fn= named */
	uint32_t node;		/* the node costs go to: base or inlined code */
	uint32_t last_self;	/* the self cost last added to, + 1 */

	/* a call being read */
	uint32_t call_object;
	pk_str call_file;
	int has_call_object, has_call_file;
	uint32_t callee;	/* node of the last cfn= */
	int in_call;		/* calls= read, its cost line next */
	uint64_t call_line;
};

static int read_error(struct callgrind_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int read_error(struct callgrind_reader *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: %s",
			    pk_input_name(r->in),
			    (unsigned long long)r->lineno, what);
}

static int oom(struct callgrind_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "callgrind: out of memory");
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/*
 * A number at *s: decimal, or hex after "0x". 0 with *s past it; -1 for
 * no digits, -2 for more than 64 bits.
 */
static int parse_u64(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t n = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    pki_hexval((unsigned char)p[2]) >= 0) {
		for (p += 2; p < end && (d = pki_hexval((unsigned char)*p)) >= 0; p++) {
			if (n >> 60)
				return -2;
			n = n << 4 | (uint64_t)d;
		}
	} else {
		const char *start = p;

		for (; p < end && (unsigned char)(*p - '0') < 10; p++)
			n = n * 10 + (uint64_t)(*p - '0');
		if (p == start)
			return -1;
		/* 19 digits always fit; more may have wrapped */
		if (p - start > 19) {
			for (n = 0; start < p; start++) {
				if (n > (UINT64_MAX - (uint64_t)(*start - '0')) / 10)
					return -2;
				n = n * 10 + (uint64_t)(*start - '0');
			}
		}
	}
	*s = p;
	*v = n;
	return 0;
}

/* A number that must end where a blank or the line does. */
static int number_field(struct callgrind_reader *r, const char **s,
			const char *end, uint64_t *v, const char *what)
{
	int rc = parse_u64(s, end, v);

	if (rc == -2)
		return read_error(r, "%s does not fit in 64 bits", what);
	if (rc || (*s < end && !is_blank(**s)))
		return read_error(r, "%s is not a number", what);
	return 0;
}

/* ---- compressed names ---- */

static int name_match(const void *owner, uint32_t id, const void *key)
{
	return ((const struct names *)owner)->numbers[id - 1] == *(const uint64_t *)key;
}

static uint32_t find_name(const struct names *t, uint64_t number, size_t *slot)
{
	return pki_idtab_find(&t->tab, pki_hash_u64(number), name_match, t,
			      &number, slot);
}

static int bind_name(struct names *t, uint64_t number, pk_str s)
{
	size_t slot;
	uint32_t id = find_name(t, number, &slot);

	if (id) {
		t->strings[id - 1] = s;
		return 0;
	}
	if (t->n >= UINT32_MAX - 1 ||
	    pki_grow(&t->numbers, &t->cap, t->n + 1, sizeof(*t->numbers)) < 0 ||
	    pki_grow(&t->strings, &t->strings_cap, t->n + 1, sizeof(*t->strings)) < 0 ||
	    pki_idtab_insert(&t->tab, slot, pki_hash_u64(number), (uint32_t)t->n + 1) < 0)
		return -1;
	t->numbers[t->n] = number;
	t->strings[t->n++] = s;
	return 0;
}

static void names_release(struct names *t)
{
	free(t->numbers);
	free(t->strings);
	pki_idtab_release(&t->tab);
}

/*
 * The name of a position line's value: "(N) name" (and N is name from
 * now on), "(N)" (named before) or "name". kind says which, in messages.
 */
static int name_value(struct callgrind_reader *r, struct names *t,
		      const char *kind, const char *s, const char *end,
		      pk_str *out)
{
	uint64_t number;
	const char *p;
	size_t slot;
	uint32_t id;

	s = skip_blanks(s, end);
	if (end - s < 2 || s[0] != '(' || s[1] < '0' || s[1] > '9') {
		*out = pk_profile_intern(r->p, s, (size_t)(end - s));
		return *out || s == end ? 0 : oom(r);
	}
	p = s + 1;
	if (parse_u64(&p, end, &number) == -2)
		return read_error(r, "%s=(%.*s...: the number does not fit in 64 bits",
				  kind, 20, s + 1);
	if (p == end || *p != ')')
		return read_error(r, "%s=%.*s: no ')' after the number", kind,
				  (int)(p - s), s);
	p = skip_blanks(p + 1, end);
	if (p < end) {
		*out = pk_profile_intern(r->p, p, (size_t)(end - p));
		return *out && !bind_name(t, number, *out) ? 0 : oom(r);
	}
	id = find_name(t, number, &slot);
	if (!id)
		return read_error(r, "%s=(%llu) names nothing: no earlier line "
				  "gave (%llu) a name", kind,
				  (unsigned long long)number,
				  (unsigned long long)number);
	*out = t->strings[id - 1];
	return 0;
}

/* callgrind's name for no name: no file, no object. */
static pk_str known(struct callgrind_reader *r, pk_str s)
{
	return strcmp(pk_profile_string(r->p, s), "???") ? s : 0;
}

static uint32_t object_mapping(struct callgrind_reader *r, pk_str name)
{
	struct pk_mapping m = { 0 };

	m.file = known(r, name);
	if (!m.file)
		return 0;
	m.has_functions = m.has_filenames = 1;
	m.has_line_numbers = r->line_at >= 0;
	return pk_profile_intern_mapping(r->p, &m);
}

/* ---- functions ---- */

static int node_match(const void *owner, uint32_t id, const void *key)
{
	const struct cg_node *a = &((const struct cg_graph *)owner)->nodes[id];
	const struct cg_node *b = key;

	return a->file == b->file && a->name == b->name;
}

/* The node of (file, name); 0 when out of memory. */
static uint32_t intern_node(struct callgrind_reader *r, pk_str file, pk_str name,
			    uint32_t object)
{
	struct cg_graph *g = &r->g;
	struct cg_node key = { 0 };
	uint64_t hash;
	size_t slot;
	uint32_t id;

	key.file = known(r, file);
	key.name = name;
	hash = pki_hash_u64((uint64_t)key.file << 32 | key.name);
	id = pki_idtab_find(&g->node_tab, hash, node_match, g, &key, &slot);
	if (id)
		return id;
	if (!g->nnodes)
		g->nnodes = 1;	/* ids from 1 */
	if (g->nnodes >= UINT32_MAX - 2 ||
	    pki_grow(&g->nodes, &g->nodes_cap, g->nnodes + 1, sizeof(*g->nodes)) < 0 ||
	    pki_idtab_insert(&g->node_tab, slot, hash, (uint32_t)g->nnodes) < 0)
		return 0;
	key.mapping = object;
	g->nodes[g->nnodes] = key;
	return (uint32_t)g->nnodes++;
}

/* ---- costs ---- */

static int self_match(const void *owner, uint32_t id, const void *key)
{
	const struct cg_self *a = &((const struct cg_graph *)owner)->selfs[id - 1];
	const struct cg_self *b = key;

	return a->node == b->node && a->pos == b->pos;
}

static int arc_match(const void *owner, uint32_t id, const void *key)
{
	const struct cg_arc *a = &((const struct cg_graph *)owner)->arcs[id - 1];
	const struct cg_arc *b = key;

	return a->caller == b->caller && a->callee == b->callee && a->pos == b->pos;
}

static void add_costs(int64_t *to, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[i] += v[i];
}

/* Add costs to the row of an entry, or a new one. */
static int add_to(struct callgrind_reader *r, int64_t *row, const int64_t *costs,
		  int64_t *totals, const char *what)
{
	size_t e;

	for (e = 0; e < r->g.ncosts; e++) {
		if (costs[e] > INT64_MAX - totals[e])
			return read_error(r, "the %s costs of event %s add up to more "
					  "than 64 bits hold", what,
					  e < r->nevents ? r->events[e] : "(derived)");
		totals[e] += costs[e];
		row[e] += costs[e];
	}
	r->pending = 1;
	return 0;
}

static int add_self(struct callgrind_reader *r, uint32_t node, uint64_t pos)
{
	struct cg_graph *g = &r->g;
	struct cg_self key = { node, 0, pos };
	size_t E = g->ncosts, slot;
	uint64_t hash;
	uint32_t id = r->last_self;

	if (!id || g->selfs[id - 1].node != node || g->selfs[id - 1].pos != pos) {
		hash = pki_hash_u64(pos * 0x9e3779b97f4a7c15ULL ^ node);
		id = pki_idtab_find(&g->self_tab, hash, self_match, g, &key, &slot);
		if (!id) {
			if (g->nselfs >= UINT32_MAX - 2 ||
			    pki_grow(&g->selfs, &g->selfs_cap, g->nselfs + 1,
				     sizeof(*g->selfs)) < 0 ||
			    pki_grow(&g->self_costs, &g->self_costs_cap,
				     (g->nselfs + 1) * E, sizeof(*g->self_costs)) < 0 ||
			    pki_idtab_insert(&g->self_tab, slot, hash,
					     (uint32_t)g->nselfs + 1) < 0)
				return oom(r);
			g->selfs[g->nselfs] = key;
			memset(g->self_costs + g->nselfs * E, 0, E * sizeof(*g->self_costs));
			id = (uint32_t)++g->nselfs;
		}
		r->last_self = id;
	}
	if (add_to(r, g->self_costs + (id - 1) * E, r->costs, r->self_total, "self"))
		return PK_EINPUT;
	/* no more than the graph's, which fit */
	add_costs(r->part_self, r->costs, r->nevents);
	return 0;
}

static int add_arc(struct callgrind_reader *r, uint32_t caller, uint64_t pos,
		   uint32_t callee)
{
	struct cg_graph *g = &r->g;
	struct cg_arc key = { caller, callee, 0, pos };
	size_t E = g->ncosts, slot;
	uint64_t hash = pki_hash_u64((pos * 0x9e3779b97f4a7c15ULL ^ caller) +
				     ((uint64_t)callee << 32));
	uint32_t id = pki_idtab_find(&g->arc_tab, hash, arc_match, g, &key, &slot);

	if (!id) {
		if (g->narcs >= UINT32_MAX - 2 ||
		    pki_grow(&g->arcs, &g->arcs_cap, g->narcs + 1, sizeof(*g->arcs)) < 0 ||
		    pki_grow(&g->arc_costs, &g->arc_costs_cap, (g->narcs + 1) * E,
			     sizeof(*g->arc_costs)) < 0 ||
		    pki_idtab_insert(&g->arc_tab, slot, hash, (uint32_t)g->narcs + 1) < 0)
			return oom(r);
		g->arcs[g->narcs] = key;
		memset(g->arc_costs + g->narcs * E, 0, E * sizeof(*g->arc_costs));
		id = (uint32_t)++g->narcs;
	}
	return add_to(r, g->arc_costs + (id - 1) * E, r->costs, r->call_total, "call");
}

/* ---- cost lines ---- */

/* One subposition at *s: absolute, "+N", "-N" or "*", from last. */
static int subposition(struct callgrind_reader *r, const char **s,
		       const char *end, uint64_t last, uint64_t *pos)
{
	uint64_t n;
	char sign = **s;

	if (sign == '*') {
		(*s)++;
		if (*s < end && !is_blank(**s))
			return read_error(r, "'*' followed by '%c' in a position", **s);
		*pos = last;
		return 0;
	}
	if (sign == '+' || sign == '-')
		(*s)++;
	if (number_field(r, s, end, &n, "a position"))
		return PK_EINPUT;
	if (sign == '+') {
		if (n > UINT64_MAX - last)
			return read_error(r, "position +%llu passes 64 bits",
					  (unsigned long long)n);
		n += last;
	} else if (sign == '-') {
		if (n > last)
			return read_error(r, "position -%llu from %llu is below 0",
					  (unsigned long long)n,
					  (unsigned long long)last);
		n = last - n;
	}
	*pos = n;
	return 0;
}

/* A line's subpositions, into pos; missing ones stay as they were. */
static int subpositions(struct callgrind_reader *r, const char **s,
			const char *end, uint64_t *pos)
{
	size_t k;

	memcpy(pos, r->last, sizeof(r->last));
	for (k = 0; k < r->npositions; k++) {
		*s = skip_blanks(*s, end);
		if (*s == end)
			break;
		if (subposition(r, s, end, r->last[k], &pos[k]))
			return PK_EINPUT;
	}
	return 0;
}

/* Where costs of positions pos go: their line, else their address. */
static uint64_t position(const struct callgrind_reader *r, const uint64_t *pos)
{
	if (r->line_at >= 0)
		return pos[r->line_at];
	return r->instr_at >= 0 ? pos[r->instr_at] : 0;
}

/* The line's costs past the n it gave: 0, and the derived events'. */
static int derive_costs(struct callgrind_reader *r, size_t n)
{
	size_t e, t;

	for (e = n; e < r->nevents; e++)
		r->costs[e] = 0;
	for (e = 0; e < r->nderived; e++) {
		const struct derived *d = &r->derived[e];
		__int128 sum = 0;

		for (t = 0; t < d->nterms; t++)
			sum += (__int128)d->factor[t] * r->costs[d->event[t]];
		if (sum > INT64_MAX)
			return read_error(r, "a derived event's cost does not fit "
					  "in 63 bits");
		r->costs[r->nevents + e] = (int64_t)sum;
	}
	return 0;
}

/* The costs after the subpositions, at their columns' scales. */
static int line_costs(struct callgrind_reader *r, const char *s, const char *end)
{
	size_t n = 0;
	uint64_t v;

	for (s = skip_blanks(s, end); s < end; s = skip_blanks(s, end)) {
		if (n == r->nevents)
			return read_error(r, "more costs than events (%zu)",
					  r->nevents);
		if (number_field(r, &s, end, &v, "a cost"))
			return PK_EINPUT;
		if (v > r->max_cost[n])
			return read_error(r, "cost %llu does not fit in 63 bits",
					  (unsigned long long)v);
		r->costs[n] = (int64_t)v * r->factor[n];
		n++;
	}
	return derive_costs(r, n);
}

/* A cost line's costs (r->costs), at its positions pos. */
static int add_line_costs(struct callgrind_reader *r, const uint64_t *pos)
{
	int rc;

	memcpy(r->last, pos, sizeof(r->last));
	if (r->in_call) {
		r->in_call = 0;
		rc = add_arc(r, r->node, position(r, pos), r->callee);
	} else {
		size_t e;

		for (e = 0; e < r->g.ncosts && !r->costs[e]; e++)
			;
		if (e == r->g.ncosts)
			return 0;	/* a jump's source, or nothing */
		rc = add_self(r, r->node, position(r, pos));
	}
	/* inlined code: the function it is in calls it, at no known line */
	if (!rc && r->node != r->base)
		rc = add_arc(r, r->base, 0, r->node);
	return rc;
}

static int cost_line(struct callgrind_reader *r, const char *s, size_t len)
{
	const char *end = s + len;
	uint64_t pos[MAX_POSITIONS];
	int rc;

	if (!r->base)
		return read_error(r, "a cost line before any fn= line");
	if ((rc = subpositions(r, &s, end, pos)) || (rc = line_costs(r, s, end)))
		return rc;
	return add_line_costs(r, pos);
}

/*
 * The fast path of the lines most of a file is made of, cost lines as
 * valgrind writes them: numbers that cannot overflow (19 decimal digits,
 * or "0x" and 15 hex ones), one space apart, up to the newline. It reads
 * the line and finds its end in one pass; anything else (a tab, a '\r',
 * a long number, a position out of range, no newline) it leaves to
 * handle_line, which reads the line again and says what is wrong.
 */

/* A number and the space or newline after it, or NULL. */
static const char *quick_number(const char *s, const char *end, uint64_t *v)
{
	const char *digits;
	uint64_t n = 0;
	int d;

	if (end - s > 2 && s[0] == '0' && s[1] == 'x') {
		for (digits = s += 2; s < end && s - digits < 15 &&
		     (d = pki_hexval((unsigned char)*s)) >= 0; s++)
			n = n << 4 | (uint64_t)d;
	} else {
		for (digits = s; s < end && s - digits < 19 &&
		     (unsigned char)(*s - '0') < 10; s++)
			n = n * 10 + (uint64_t)(*s - '0');
	}
	if (s == digits || s == end || (*s != ' ' && *s != '\n'))
		return NULL;
	*v = n;
	return s;
}

/* A subposition, from last, and the space or newline after it, or NULL. */
static const char *quick_position(const char *s, const char *end,
				  uint64_t last, uint64_t *pos)
{
	char sign = *s;
	uint64_t n;

	if (sign == '*') {
		*pos = last;
		s++;
		return s < end && (*s == ' ' || *s == '\n') ? s : NULL;
	}
	if (sign == '+' || sign == '-')
		s++;
	if (!(s = quick_number(s, end, &n)))
		return NULL;
	if (sign == '+')
		*pos = n <= UINT64_MAX - last ? last + n : (s = NULL, 0);
	else if (sign == '-')
		*pos = n <= last ? last - n : (s = NULL, 0);
	else
		*pos = n;
	return s;
}

/*
 * A cost line at s as cost_line reads it; its newline, with *rc what
 * adding its costs gave; or NULL, nothing done, for handle_line to read.
 */
static const char *quick_cost_line(struct callgrind_reader *r, const char *s,
				   const char *end, int *rc)
{
	uint64_t pos[MAX_POSITIONS], v;
	size_t k, n;

	if (!r->in_body || !r->base)
		return NULL;
	memcpy(pos, r->last, sizeof(r->last));
	for (k = 0; k < r->npositions && *s != '\n'; k++) {
		if (!(s = quick_position(s, end, r->last[k], &pos[k])))
			return NULL;
		s += *s == ' ';
		if (s == end)
			return NULL;
	}
	for (n = 0; *s != '\n'; n++) {
		if (n == r->nevents || !(s = quick_number(s, end, &v)) ||
		    v > r->max_cost[n])
			return NULL;
		r->costs[n] = (int64_t)v * r->factor[n];
		s += *s == ' ';
		if (s == end)
			return NULL;
	}
	*rc = derive_costs(r, n);
	if (!*rc)
		*rc = add_line_costs(r, pos);
	return s;
}

/* ---- position lines: ob=, fl=, fn=, calls=, ... ---- */

/* The calls= line's count and target; the target's line is where the
 * callee starts, if nothing said so before. */
static int calls_line(struct callgrind_reader *r, const char *s, const char *end)
{
	struct cg_node *callee;
	uint64_t count, pos[MAX_POSITIONS];

	if (!r->callee)
		return read_error(r, "calls= before any cfn= line");
	s = skip_blanks(s, end);
	if (number_field(r, &s, end, &count, "the call count") ||
	    subpositions(r, &s, end, pos))
		return PK_EINPUT;
	callee = &r->g.nodes[r->callee];
	if (r->line_at >= 0 && !callee->start_line && pos[r->line_at] <= INT64_MAX)
		callee->start_line = (int64_t)pos[r->line_at];
	r->in_call = 1;
	r->call_line = r->lineno;
	return 0;
}

static int function_line(struct callgrind_reader *r, const char *s, const char *end)
{
	struct cg_node *n;
	int rc = name_value(r, &r->functions, "fn", s, end, &r->function);

	if (rc)
		return rc;
	r->base = r->node = intern_node(r, r->file, r->function, r->object);
	if (!r->base)
		return oom(r);
	n = &r->g.nodes[r->base];
	if (!n->defined) {
		n->defined = 1;
		n->mapping = r->object;
	}
	return 0;
}

/* fi= and fe=: code of that file from here on, in the same function. */
static int inline_file_line(struct callgrind_reader *r, const char *s,
			    const char *end)
{
	int rc = name_value(r, &r->files, "fi", s, end, &r->file);

	if (rc || !r->base)
		return rc;
	r->node = intern_node(r, r->file, r->function, r->object);
	if (r->node && !r->g.nodes[r->node].defined) {
		r->g.nodes[r->node].defined = 1;
		r->g.nodes[r->node].mapping = r->object;
	}
	return r->node ? 0 : oom(r);
}

/* cfn=: the callee, in the file of cfi= (else the current one) and the
 * object of cob= (else the current one), each given for this call only. */
static int callee_line(struct callgrind_reader *r, const char *s, const char *end)
{
	pk_str name;
	int rc = name_value(r, &r->functions, "cfn", s, end, &name);

	if (rc)
		return rc;
	r->callee = intern_node(r, r->has_call_file ? r->call_file : r->file, name,
				r->has_call_object ? r->call_object : r->object);
	r->has_call_file = r->has_call_object = 0;
	return r->callee ? 0 : oom(r);
}

static int object_line(struct callgrind_reader *r, const char *s, const char *end,
		       int of_call)
{
	pk_str name;
	uint32_t *to = of_call ? &r->call_object : &r->object;
	int rc = name_value(r, &r->objects, of_call ? "cob" : "ob", s, end, &name);

	if (rc)
		return rc;
	*to = object_mapping(r, name);
	if (known(r, name) && !*to)
		return oom(r);
	r->has_call_object |= of_call;
	return 0;
}

/* A body line "key=value"; 1 when the key is none of the format's. */
static int position_line(struct callgrind_reader *r, const char *key, size_t klen,
			 const char *s, const char *end)
{
	pk_str ignored;

#define IS(word) (klen == sizeof(word) - 1 && memcmp(key, word, klen) == 0)
	if (IS("fn"))
		return function_line(r, s, end);
	if (IS("fl"))
		return name_value(r, &r->files, "fl", s, end, &r->file);
	if (IS("fi") || IS("fe"))
		return inline_file_line(r, s, end);
	if (IS("cfn"))
		return callee_line(r, s, end);
	if (IS("calls"))
		return calls_line(r, s, end);
	if (IS("cfi") || IS("cfl")) {
		r->has_call_file = 1;
		return name_value(r, &r->files, "cfi", s, end, &r->call_file);
	}
	if (IS("ob") || IS("cob"))
		return object_line(r, s, end, IS("cob"));
	if (IS("jump") || IS("jcnd"))
		return 0;
	if (IS("jfi"))
		return name_value(r, &r->files, "jfi", s, end, &ignored);
	if (IS("jfn"))
		return name_value(r, &r->functions, "jfn", s, end, &ignored);
#undef IS
	return 1;
}

/* ---- header lines ---- */

static const struct event_def *find_def(const struct callgrind_reader *r,
					const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < r->ndefs; i++)
		if (strlen(r->defs[i].name) == len && !memcmp(r->defs[i].name, name, len))
			return &r->defs[i];
	return NULL;
}

static char *copy_trimmed(const char *s, const char *end)
{
	char *c;

	s = skip_blanks(s, end);
	while (end > s && is_blank(end[-1]))
		end--;
	c = malloc((size_t)(end - s) + 1);
	if (c) {
		memcpy(c, s, (size_t)(end - s));
		c[end - s] = '\0';
	}
	return c;
}

/* "event: NAME [= FORMULA] [: LONG NAME]" */
static int event_line(struct callgrind_reader *r, const char *s, const char *end)
{
	const char *name, *eq, *colon;
	struct event_def *d;
	size_t len;

	name = s = skip_blanks(s, end);
	while (s < end && !is_blank(*s) && *s != '=' && *s != ':')
		s++;
	len = (size_t)(s - name);
	if (!len)
		return read_error(r, "event: line without an event name");
	colon = memchr(s, ':', (size_t)(end - s));
	eq = memchr(s, '=', (size_t)((colon ? colon : end) - s));
	d = (struct event_def *)find_def(r, name, len);
	if (!d) {
		if (r->ndefs == MAX_EVENTS)
			return read_error(r, "more than %d event: lines", MAX_EVENTS);
		if (!(r->defs = realloc(r->defs, (r->ndefs + 1) * sizeof(*r->defs))))
			return oom(r);
		d = &r->defs[r->ndefs++];
		memset(d, 0, sizeof(*d));
		if (!(d->name = copy_trimmed(name, name + len)))
			return oom(r);
	}
	free(d->formula);
	free(d->long_name);
	d->formula = eq ? copy_trimmed(eq + 1, colon ? colon : end) : NULL;
	d->long_name = colon ? copy_trimmed(colon + 1, end) : NULL;
	return (eq && !d->formula) || (colon && !d->long_name) ? oom(r) : 0;
}

static void free_events(struct callgrind_reader *r)
{
	size_t e;

	for (e = 0; e < r->nevents; e++)
		free(r->events[e]);
	r->nevents = 0;
}

static int events_line(struct callgrind_reader *r, const char *s, const char *end)
{
	const char *word;
	size_t e;

	free_events(r);
	for (s = skip_blanks(s, end); s < end; s = skip_blanks(s, end)) {
		for (word = s; s < end && !is_blank(*s); s++)
			;
		if (r->nevents == MAX_EVENTS)
			return read_error(r, "more than %d events", MAX_EVENTS);
		for (e = 0; e < r->nevents; e++)
			if (strlen(r->events[e]) == (size_t)(s - word) &&
			    !memcmp(r->events[e], word, (size_t)(s - word)))
				return read_error(r, "event %.*s twice in the events: line",
						  (int)(s - word), word);
		if (!(r->events[r->nevents++] = copy_trimmed(word, s)))
			return oom(r);
	}
	if (!r->nevents)
		return read_error(r, "an events: line without events");
	return 0;
}

static int positions_line(struct callgrind_reader *r, const char *s, const char *end)
{
	const char *word;
	size_t n;

	r->npositions = 0;
	r->line_at = r->instr_at = -1;
	for (s = skip_blanks(s, end); s < end; s = skip_blanks(s, end)) {
		for (word = s; s < end && !is_blank(*s); s++)
			;
		n = (size_t)(s - word);
		if (r->npositions == MAX_POSITIONS)
			return read_error(r, "more than %d positions", MAX_POSITIONS);
		if ((n == 4 && !memcmp(word, "line", 4)))
			r->line_at = (int)r->npositions;
		else if ((n == 5 && !memcmp(word, "instr", 5)) ||
			 (n == 4 && !memcmp(word, "addr", 4)))
			r->instr_at = (int)r->npositions;
		else if (!(n == 2 && !memcmp(word, "bb", 2)))
			return read_error(r, "unknown position '%.*s' (known: instr, "
					  "bb, line)", (int)n, word);
		r->npositions++;
	}
	if (!r->npositions)
		return read_error(r, "a positions: line without positions");
	return 0;
}

/* What events: and positions: say, to see whether a part changes it. */
static void sample_header(const struct callgrind_reader *r, char *buf, size_t size)
{
	size_t e, n = (size_t)snprintf(buf, size, "%zu %d %d", r->npositions,
				       r->line_at, r->instr_at);

	for (e = 0; e < r->nevents && n < size; e++)
		n += (size_t)snprintf(buf + n, size - n, " %s", r->events[e]);
}

/* "pid:", "thread:": a number (anything else is left out). */
static void id_line(struct callgrind_reader *r, const char *s, const char *end,
		    int *has, int64_t *id)
{
	uint64_t v;

	s = skip_blanks(s, end);
	if (!parse_u64(&s, end, &v) && skip_blanks(s, end) == end && v <= INT64_MAX &&
	    (!*has || *id != (int64_t)v)) {
		*has = 1;
		*id = (int64_t)v;
		r->header_changed = 1;
	}
}

static int fact(struct callgrind_reader *r, const char *key, const char *s,
		const char *end)
{
	char *value = copy_trimmed(s, end);

	if (!value)
		return oom(r);
	if (*value)
		pk_profile_set_meta(r->p, key, value);
	free(value);
	return 0;
}

/* "desc: TYPE: VALUE", kept as the fact "desc: TYPE". */
static int desc_line(struct callgrind_reader *r, const char *s, const char *end)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	char key[128];

	if (!colon)
		return 0;
	s = skip_blanks(s, colon);
	snprintf(key, sizeof(key), "desc: %.*s", (int)(colon - s), s);
	return fact(r, key, colon + 1, end);
}

static int keep_line(struct callgrind_reader *r, char **to, uint64_t *lineno,
		     const char *s, const char *end)
{
	free(*to);
	*to = copy_trimmed(s, end);
	*lineno = r->lineno;
	return *to ? 0 : oom(r);
}

/* events: and positions:, and whether they change what they said. */
static int sample_header_line(struct callgrind_reader *r, int events,
			      const char *s, const char *end)
{
	char before[MAX_EVENTS * 16], now[sizeof(before)];
	int rc;

	sample_header(r, before, sizeof(before));
	rc = events ? events_line(r, s, end) : positions_line(r, s, end);
	sample_header(r, now, sizeof(now));
	r->header_changed |= strcmp(before, now) != 0;
	return rc;
}

static int is_header_key(const char *key, size_t klen)
{
	static const char *const keys[] = {
		"version", "creator", "pid", "thread", "part", "cmd", "desc",
		"positions", "event", "events", "summary", "totals",
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(keys); i++)
		if (strlen(keys[i]) == klen && !memcmp(keys[i], key, klen))
			return 1;
	return 0;
}

static int header_line(struct callgrind_reader *r, const char *key, size_t klen,
		       const char *s, const char *end)
{
	uint64_t version;

#define IS(word) (klen == sizeof(word) - 1 && memcmp(key, word, klen) == 0)
	if (IS("events") || IS("positions"))
		return sample_header_line(r, IS("events"), s, end);
	if (IS("event")) {
		r->header_changed = 1;
		return event_line(r, s, end);
	}
	if (IS("summary"))
		return keep_line(r, &r->summary, &r->summary_line, s, end);
	if (IS("totals"))
		return keep_line(r, &r->totals, &r->totals_line, s, end);
	if (IS("pid"))
		id_line(r, s, end, &r->has_pid, &r->pid);
	else if (IS("thread"))
		id_line(r, s, end, &r->has_thread, &r->thread);
	else if (IS("cmd") && !pk_profile_meta(r->p, "cmdline"))
		return fact(r, "cmdline", s, end);
	else if (IS("creator"))
		return fact(r, "creator", s, end);
	else if (IS("desc"))
		return desc_line(r, s, end);
	else if (IS("version")) {
		s = skip_blanks(s, end);
		if (!parse_u64(&s, end, &version) && version > 1)
			return read_error(r, "format version %llu: this reader knows "
					  "version 1", (unsigned long long)version);
	}
#undef IS
	return 0;
}

/* ---- a part's sample types ---- */

/* The second word of the pair whose first is key, or fallback. */
static const char *look_up(const char *const (*pairs)[2], size_t n,
			   const char *key, const char *fallback)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(pairs[i][0], key))
			return pairs[i][1];
	return fallback;
}

/* valgrind's events, in the units they count. */
static const char *unit_of_event(const char *name)
{
	static const char *const units[][2] = {
		{ "Ir", "instructions" }, { "Dr", "accesses" }, { "Dw", "accesses" },
		{ "I1mr", "misses" }, { "D1mr", "misses" }, { "D1mw", "misses" },
		{ "ILmr", "misses" }, { "DLmr", "misses" }, { "DLmw", "misses" },
		{ "I2mr", "misses" }, { "D2mr", "misses" }, { "D2mw", "misses" },
		{ "Bc", "branches" }, { "Bi", "branches" },
		{ "Bcm", "mispredictions" }, { "Bim", "mispredictions" },
		{ "Ge", "events" }, { "sysCount", "calls" },
	};

	return look_up(units, PK_ARRAY_SIZE(units), name, "count");
}

/* valgrind's short units ("elapsed ns") in words */
static const char *long_unit(const char *unit)
{
	static const char *const units[][2] = {
		{ "ns", "nanoseconds" }, { "us", "microseconds" },
		{ "ms", "milliseconds" }, { "s", "seconds" },
	};

	return look_up(units, PK_ARRAY_SIZE(units), unit, unit);
}

static int is_weight_unit(const char *unit)
{
	return !strcmp(unit, "nanoseconds") || !strcmp(unit, "microseconds") ||
	       !strcmp(unit, "milliseconds") || !strcmp(unit, "seconds") ||
	       !strcmp(unit, "bytes");
}

/*
 * An event's type, unit and scale from its long name when that reads
 * "TYPE (WORDS UNIT[, in 1/SCALE])", as valgrind's "sysTime (elapsed ns)"
 * and our writer's "cpu-clock (nanoseconds)"; type and unit are left as
 * they were otherwise.
 */
static void parse_long_name(char *name, const char **type, const char **unit,
			    int64_t *scale)
{
	char *open = strchr(name, '('), *close = strrchr(name, ')'), *in, *word;
	uint64_t v;
	const char *p;

	if (!open || !close || close < open || close[1] || open == name ||
	    !is_blank(open[-1]))
		return;
	*close = open[-1] = '\0';
	if (strpbrk(name, " \t") || !*name)
		return;
	*type = name;
	in = strstr(open + 1, ", in 1/");
	if (in) {
		*in = '\0';
		p = in + 7;
		if (!parse_u64(&p, p + strlen(p), &v) && !*p && v > 1 &&
		    v <= 1000000000000000000ULL) {
			for (*scale = 1; (uint64_t)*scale < v; *scale *= 10)
				;
			if ((uint64_t)*scale != v)
				*scale = 1;
		}
	}
	word = strrchr(open + 1, ' ');
	*unit = long_unit(word ? word + 1 : open + 1);
}

/* What an event is in the profile: its sample type. */
struct event_type {
	char *long_name;	/* a copy, that type and unit point into */
	const char *type, *unit, *event;
	int64_t scale;
	enum pk_value_kind kind;
};

static int describe_event(struct callgrind_reader *r, const char *name,
			  struct event_type *t)
{
	const struct event_def *d = find_def(r, name, strlen(name));

	memset(t, 0, sizeof(*t));
	t->type = t->event = name;
	t->unit = unit_of_event(name);
	t->scale = 1;
	if (d && d->long_name) {
		if (!(t->long_name = strdup(d->long_name)))
			return oom(r);
		parse_long_name(t->long_name, &t->type, &t->unit, &t->scale);
		t->event = t->type;
	}
	t->kind = is_weight_unit(t->unit) ? PK_VALUE_WEIGHT : PK_VALUE_COUNT;
	return 0;
}

/*
 * Our writer's columns of one event, "cpu-clock" and "samples", or
 * "page-faults" and "page-faults_samples" with several events: the count
 * of samples and the period, back in one event.
 */
static void pair_counts(struct event_type *t, size_t n)
{
	size_t i, j, len;

	for (i = 0; i < n; i++) {
		if (t[i].kind != PK_VALUE_COUNT || strcmp(t[i].unit, "count"))
			continue;
		for (j = 0; j < n; j++) {
			len = strlen(t[j].type);
			if (j == i || !(n == 2 ? !strcmp(t[i].type, "samples") :
					!strncmp(t[i].type, t[j].type, len) &&
					!strcmp(t[i].type + len, "_samples")))
				continue;
			t[i].event = t[j].type;
			t[j].kind = PK_VALUE_WEIGHT;
		}
	}
}

static int event_column(struct callgrind_reader *r, const struct event_type *t,
			size_t e)
{
	pk_str event = pk_profile_lookup(r->p, t->event);
	int c = event ? pk_profile_find_column(r->p, event, t->kind) : -1;

	if (c < 0)
		c = pk_profile_add_sample_type(r->p, t->type, t->unit, t->event, t->kind);
	if (c < 0)
		return oom(r);
	if (t->scale > pk_profile_sample_type_scale(r->p, (size_t)c) &&
	    pk_profile_set_sample_type_scale(r->p, (size_t)c, t->scale))
		return read_error(r, "event %s: the costs so far no longer fit in "
				  "64 bits at 1/%lld", t->type, (long long)t->scale);
	r->columns[e] = c;
	r->factor[e] = pk_profile_sample_type_scale(r->p, (size_t)c) / t->scale;
	r->max_cost[e] = (uint64_t)INT64_MAX / (uint64_t)r->factor[e];
	return 0;
}

/* The part's events as sample types, columns of the profile. */
static int event_columns(struct callgrind_reader *r)
{
	struct event_type types[MAX_EVENTS];
	size_t e, n = 0;
	int rc = 0;

	for (e = 0; e < r->nevents && !rc; e++, n++)
		rc = describe_event(r, r->events[e], &types[e]);
	if (!rc)
		pair_counts(types, n);
	for (e = 0; e < n && !rc; e++)
		rc = event_column(r, &types[e], e);
	for (e = 0; e < n; e++)
		free(types[e].long_name);
	return rc;
}

static size_t event_index(const struct callgrind_reader *r, const char *name,
			  size_t len)
{
	size_t e;

	for (e = 0; e < r->nevents; e++)
		if (strlen(r->events[e]) == len && !memcmp(r->events[e], name, len))
			return e;
	return SIZE_MAX;
}

/* "[FACTOR [*]] EVENT + ...": 0, or -1 for what is not one. */
static int parse_formula(const struct callgrind_reader *r, const char *s,
			 struct derived *d)
{
	const char *end = s + strlen(s), *name;
	uint64_t factor;

	d->nterms = 0;
	for (;;) {
		s = skip_blanks(s, end);
		factor = 1;
		if (s < end && *s >= '0' && *s <= '9') {
			if (parse_u64(&s, end, &factor) || factor > INT32_MAX)
				return -1;
			s = skip_blanks(s, end);
			if (s < end && *s == '*')
				s = skip_blanks(s + 1, end);
		}
		for (name = s; s < end && !is_blank(*s) && *s != '+'; s++)
			;
		if (d->nterms == MAX_TERMS ||
		    (d->event[d->nterms] = event_index(r, name, (size_t)(s - name))) == SIZE_MAX)
			return -1;
		d->factor[d->nterms++] = (int64_t)factor;
		s = skip_blanks(s, end);
		if (s == end)
			return 0;
		if (*s++ != '+')
			return -1;
	}
}

/* Events the file defines from others ("event: CEst = Ir + 10 Bm"). */
static int derived_events(struct callgrind_reader *r)
{
	size_t i;
	int rc;

	r->nderived = 0;
	for (i = 0; i < r->ndefs; i++) {
		const struct event_def *d = &r->defs[i];

		if (!d->formula || event_index(r, d->name, strlen(d->name)) != SIZE_MAX ||
		    r->nevents + r->nderived == MAX_EVENTS)
			continue;
		if (parse_formula(r, d->formula, &r->derived[r->nderived])) {
			PK_WARN_AT_MOST(r->ctx, &r->warnings, 5, "%s: event %s = %s: "
					"not a sum of this part's events; left out",
					pk_input_name(r->in), d->name, d->formula);
			continue;
		}
		struct event_type t;

		rc = describe_event(r, d->name, &t);
		if (!rc)
			rc = event_column(r, &t, r->nevents + r->nderived);
		free(t.long_name);
		if (rc)
			return rc;
		r->nderived++;
	}
	return 0;
}

static int part_labels(struct callgrind_reader *r)
{
	struct pk_label labels[2];
	size_t n = 0;

	memset(labels, 0, sizeof(labels));
	if (r->has_pid) {
		labels[n].key = pk_profile_intern_cstr(r->p, "pid");
		labels[n++].num = r->pid;
	}
	if (r->has_thread) {
		labels[n].key = pk_profile_intern_cstr(r->p, "tid");
		labels[n++].num = r->thread;
	}
	r->emit.labels = n ? pk_profile_intern_labels(r->p, labels, n) : 0;
	return n && !r->emit.labels ? oom(r) : 0;
}

/* The graph so far becomes samples. */
static int flush_graph(struct callgrind_reader *r)
{
	int rc = pki_callgrind_stacks(r->ctx, r->p, &r->g, &r->emit);

	r->merged += r->emit.merged;
	r->emit.merged = 0;
	r->pending = 0;
	r->last_self = 0;
	memset(r->self_total, 0, sizeof(r->self_total));
	memset(r->call_total, 0, sizeof(r->call_total));
	return rc;
}

/*
 * The first body line of a part. Parts of one thread with one header
 * (dumps made as a program runs) add up in one graph, made into samples
 * once; another thread's, or other events, start the next graph.
 */
static int start_body(struct callgrind_reader *r)
{
	int rc;

	if (!r->nevents)
		return read_error(r, "costs or names before an events: line "
				  "(not a callgrind profile?)");
	if (r->pending && r->header_changed && (rc = flush_graph(r)))
		return rc;
	if (!r->set_up || r->header_changed) {
		if ((rc = event_columns(r)) || (rc = derived_events(r)) || (rc = part_labels(r)))
			return rc;
		r->g.ncosts = r->nevents + r->nderived;
		r->emit.columns = r->columns;
		r->emit.positions_are_lines = r->line_at >= 0;
		r->set_up = 1;
		r->header_changed = 0;
	}
	memset(r->last, 0, sizeof(r->last));
	memset(r->part_self, 0, sizeof(r->part_self));
	r->object = r->base = r->node = r->callee = r->last_self = 0;
	r->file = r->function = 0;
	r->has_call_file = r->has_call_object = 0;
	r->in_body = 1;
	r->parts++;
	return 0;
}

/* A totals: or summary: line's numbers, added to sum (missing ones 0). */
static void read_sums(const struct callgrind_reader *r, const char *text,
		      uint64_t *v, uint64_t *sum)
{
	const char *s = text, *end = text + strlen(text);
	size_t e;

	for (e = 0; e < r->nevents; e++) {
		s = skip_blanks(s, end);
		if (parse_u64(&s, end, &v[e]))
			v[e] = 0;
		sum[e] += v[e] < UINT64_MAX - sum[e] ? v[e] : 0;
	}
}

/* totals: must be what the costs add up to, summary: at least that. */
static void check_sums(struct callgrind_reader *r, const char *text,
		       uint64_t lineno, int exact, uint64_t *sum)
{
	uint64_t v[MAX_EVENTS];
	size_t e;

	read_sums(r, text, v, sum);
	for (e = 0; e < r->nevents; e++) {
		int64_t costs = r->part_self[e] / r->factor[e];

		if (exact ? v[e] != (uint64_t)costs : v[e] < (uint64_t)costs) {
			PK_WARN_AT_MOST(r->ctx, &r->warnings, 5, "%s: line %llu: %s "
					"%llu %s, but the self costs add up to %lld",
					pk_input_name(r->in), (unsigned long long)lineno,
					exact ? "totals: says" : "summary: says only",
					(unsigned long long)v[e], r->events[e], (long long)costs);
			return;
		}
	}
}

static int end_part(struct callgrind_reader *r)
{
	if (r->in_call)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: calls= "
				    "without the cost line that must follow it",
				    pk_input_name(r->in),
				    (unsigned long long)r->call_line);
	if (r->totals)
		check_sums(r, r->totals, r->totals_line, 1, r->file_totals);
	if (r->summary)
		check_sums(r, r->summary, r->summary_line, 0, r->file_summary);
	r->has_totals |= r->totals != NULL;
	r->has_summary |= r->summary != NULL;
	free(r->totals);
	free(r->summary);
	r->totals = r->summary = NULL;
	r->in_body = 0;
	return 0;
}

/* ---- lines ---- */

static size_t key_length(const char *s, size_t len)
{
	size_t k = 0;

	while (k < len && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z')))
		k++;
	return k;
}

static int handle_line(struct callgrind_reader *r, const char *line, size_t len)
{
	const char *end = line + len;
	char c = len ? line[0] : '#';
	size_t klen;
	int rc;

	if (c == '#' || skip_blanks(line, end) == end)
		return 0;
	if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
		if (!r->in_body && (rc = start_body(r)))
			return rc;
		return cost_line(r, line, len);
	}
	if (r->in_call)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: calls= "
				    "without the cost line that must follow it",
				    pk_input_name(r->in), (unsigned long long)r->call_line);
	if (memchr(line, '\0', len))
		return read_error(r, "binary data in a text profile");
	klen = key_length(line, len);
	if (klen && klen < len && line[klen] == '=') {
		if (!r->in_body && (rc = start_body(r)))
			return rc;
		rc = position_line(r, line, klen, line + klen + 1, end);
		if (rc != 1)
			return rc;
	} else if (klen && klen < len && line[klen] == ':' && is_header_key(line, klen)) {
		/* header lines after a body begin the next part */
		if (r->in_body && !pki_starts_with_n(line, len, "totals:") &&
		    !pki_starts_with_n(line, len, "summary:") && (rc = end_part(r)))
			return rc;
		return header_line(r, line, klen, line + klen + 1, end);
	}
	PK_WARN_AT_MOST(r->ctx, &r->warnings, 5, "%s: line %llu: not a line of "
			"the callgrind format, left out: '%.*s'", pk_input_name(r->in),
			(unsigned long long)r->lineno, (int)(len > 60 ? 60 : len), line);
	return 0;
}

static void reader_release(struct callgrind_reader *r)
{
	size_t i;

	free(r->g.nodes);
	pki_idtab_release(&r->g.node_tab);
	free(r->g.selfs);
	free(r->g.self_costs);
	pki_idtab_release(&r->g.self_tab);
	free(r->g.arcs);
	free(r->g.arc_costs);
	pki_idtab_release(&r->g.arc_tab);
	names_release(&r->objects);
	names_release(&r->files);
	names_release(&r->functions);
	for (i = 0; i < r->ndefs; i++) {
		free(r->defs[i].name);
		free(r->defs[i].formula);
		free(r->defs[i].long_name);
	}
	free(r->defs);
	free_events(r);
	free(r->totals);
	free(r->summary);
}

/* "Ir 231608, Dr 58070" */
static void sums_fact(struct callgrind_reader *r, const char *key,
		      const uint64_t *sum)
{
	char text[MAX_EVENTS * 40];
	size_t e, n = 0;

	for (e = 0; e < r->nevents && n < sizeof(text); e++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s %llu",
				      e ? ", " : "", r->events[e],
				      (unsigned long long)sum[e]);
	if (n < sizeof(text))
		pk_profile_set_meta(r->p, key, text);
}

/* What the file was, for profkit-info. */
static int note_facts(struct callgrind_reader *r)
{
	char parts[32], events[1024];
	size_t e, n = 0;

	snprintf(parts, sizeof(parts), "%u", r->parts);
	pk_profile_set_meta(r->p, "parts", parts);
	for (e = 0; e < r->nevents && n + 1 < sizeof(events); e++)
		n += (size_t)snprintf(events + n, sizeof(events) - n, "%s%s",
				      e ? " " : "", r->events[e]);
	pk_profile_set_meta(r->p, "events", events);
	pk_profile_set_meta(r->p, "positions", r->line_at >= 0 ?
			    (r->instr_at >= 0 ? "instr line" : "line") :
			    r->instr_at >= 0 ? "instr" : "none");
	if (r->has_totals)
		sums_fact(r, "totals", r->file_totals);
	if (r->has_summary)
		sums_fact(r, "summary", r->file_summary);
	if (r->has_pid) {
		snprintf(parts, sizeof(parts), "%lld", (long long)r->pid);
		pk_profile_set_meta(r->p, "pid", parts);
	}
	return pk_profile_failed(r->p) ? oom(r) : 0;
}

static int end_input(struct callgrind_reader *r)
{
	int rc;

	if (!r->nevents)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: the file ends "
				    "without an events: line (not a callgrind "
				    "profile?)", pk_input_name(r->in),
				    (unsigned long long)r->lineno);
	/* a part without a body still has its sample types */
	if (!r->parts && (rc = start_body(r)))
		return rc;
	if ((r->in_body && (rc = end_part(r))) || (r->pending && (rc = flush_graph(r))))
		return rc;
	if (r->merged)
		pk_warn(r->ctx, "%s: %zu %s reached by more call paths than "
			"callgrind:max-paths keeps (%zu): %s merged, so their "
			"callers' inclusive costs are approximate",
			pk_input_name(r->in), r->merged,
			r->merged == 1 ? "function is" : "functions are",
			r->emit.max_paths, r->merged == 1 ? "its paths were" :
			"their paths were");
	return note_facts(r);
}

static void truncated(struct callgrind_reader *r)
{
	PK_WARN_AT_MOST(r->ctx, &r->warnings, 5, "%s: line %llu: the file ends "
			"mid-line (truncated file?); ignoring that line",
			pk_input_name(r->in), (unsigned long long)r->lineno);
}

/* The end of the line at s (or end): eight bytes at a time, as most
 * lines are shorter than a call to memchr is worth. */
static const char *line_end(const char *s, const char *end)
{
	const uint64_t ones = 0x0101010101010101ULL, newlines = ones * '\n';
	uint64_t w;

	for (; end - s >= 8; s += 8) {
		memcpy(&w, s, sizeof(w));
		w ^= newlines;
		if ((w - ones) & ~w & (ones << 7))
			break;	/* a zero byte: a newline in these eight */
	}
	for (; s < end; s++)
		if (*s == '\n')
			return s;
	return end;
}

/* A file mapped whole: its lines, the pages read let go as it goes. */
static int read_mapped(struct callgrind_reader *r, const char *s, size_t size)
{
	const char *end = s + size, *read_to = s;
	int rc = 0;

	while (s < end && !rc) {
		const char *nl;
		size_t len;

		if ((size_t)(s - read_to) >= UNMAP_STEP) {
			pki_input_unmap_part(r->in, read_to, (size_t)(s - read_to));
			read_to = s;
		}
		r->lineno++;
		if ((nl = quick_cost_line(r, s, end, &rc))) {
			s = nl + 1;
			continue;
		}
		nl = line_end(s, end);
		if (nl == end) {
			truncated(r);
			break;
		}
		len = (size_t)(nl - s);
		if (len && s[len - 1] == '\r')
			len--;
		rc = handle_line(r, s, len);
		s = nl + 1;
	}
	pki_input_unmap_part(r->in, read_to, (size_t)(s - read_to));
	return rc;
}

static int read_stream(struct callgrind_reader *r)
{
	uint64_t offset = pk_input_offset(r->in);
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pk_input_line(r->in, &len))) {
		r->lineno = pk_input_lineno(r->in);
		if (pk_input_offset(r->in) - offset == len) {
			truncated(r);
			break;
		}
		offset = pk_input_offset(r->in);
		rc = handle_line(r, line, len);
	}
	return rc;
}

static int callgrind_read(struct pk_context *ctx, struct pk_input *in,
			  struct pk_profile *p, const struct pk_options *opts)
{
	struct callgrind_reader r;
	const char *data;
	size_t size;
	int rc;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	r.npositions = 1;	/* "positions: line", unless said otherwise */
	r.line_at = 0;
	r.instr_at = -1;
	r.emit.max_paths = pki_option_uint(opts, &callgrind_options[MAX_PATHS]);
	data = (const char *)pki_input_map(in, &size);
	rc = data ? read_mapped(&r, data, size) : read_stream(&r);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc)
		rc = end_input(&r);
	reader_release(&r);
	return rc;
}

/* ---- detection ---- */

/* "# callgrind format" first, else header lines up to events: (valgrind's
 * older files and cachegrind's have no such first line). */
static int callgrind_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int headers = 0, version_first = 0;

	if (pki_starts_with_n(s, len, "# callgrind format") &&
	    (len == 18 || s[18] == '\n' || s[18] == '\r'))
		return 100;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s), k;

		if (!nl && s != (const char *)buf)
			break;	/* the window cuts this line */
		if (memchr(s, '\0', n))
			return 0;
		k = key_length(s, n);
		if (n && s[0] != '#' && skip_blanks(s, s + n) != s + n) {
			if (!k || k == n || s[k] != ':' || !is_header_key(s, k))
				return 0;
			if (!headers++ && k == 7 && !memcmp(s, "version", 7))
				version_first = 1;
			if (k == 6 && !memcmp(s, "events", 6))
				return 75;
			if (version_first && k == 9 && !memcmp(s, "positions", 9))
				return 75;
		}
		s = nl ? nl + 1 : end;
	}
	return version_first ? 50 : 0;
}

const struct pki_format pki_format_callgrind = {
	.name = "callgrind",
	.read_description = "callgrind and cachegrind profiles (valgrind "
			    "--tool=callgrind; kcachegrind's format)",
	.probe = callgrind_probe,
	.read = callgrind_read,
	.write_description = "callgrind profile for kcachegrind, qcachegrind and "
			     "callgrind_annotate",
	.extension = ".callgrind",
	.write = pki_callgrind_write,
	.options = callgrind_options,
};
