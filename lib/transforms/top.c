/* SPDX-License-Identifier: MIT */
/*
 * pprof -top: flat and cumulative weight per function, as pprof computes
 * them (flat where the function is the innermost frame, cum once per
 * sample wherever it appears, inline frames included), and its text,
 * header and units as internal/report and internal/measurement print them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "core/names.h"

struct top_row {
	const char *name;
	int64_t flat, cum;
};

struct pk_top {
	struct top_row *rows;	/* sorted as pprof sorts them */
	size_t nrows;
	int64_t total;
	int column;		/* the value shown, or -1 */
	struct pk_profile *names;	/* holds the rows' names */
};

struct top_state {
	const struct pk_profile *p;
	struct pk_profile *names;	/* function names interned: the row ids */
	struct top_row *rows;
	size_t rows_cap;
	uint64_t *seen;			/* per row: the last sample counted */
	size_t seen_cap;
	struct pk_strbuf made;		/* a frame's name, made */
};

/*
 * A frame's name as pprof -top names it: the function, or for a frame
 * without one the base name of its mapping's file in brackets
 * ("[libc.so.6]"), or "<unknown>". Interned in names: one name, one row;
 * made names are made in made.
 */
static pk_str frame_name(const struct pk_profile *p, struct pk_profile *names,
			 struct pk_strbuf *made, const struct pk_location *loc,
			 const struct pk_line *line)
{
	const struct pki_unknown_name unknown = { .style = PKI_UNKNOWN_PPROF };
	const struct pk_function *fn = line ? pk_profile_function(p, line->function) : NULL;
	const struct pk_mapping *m = pk_profile_mapping(p, loc->mapping);
	const char *file = m && m->file ? pk_profile_string(p, m->file) : "";

	if (fn && fn->name && pk_profile_string_len(p, fn->name))
		return pk_profile_intern(names, pk_profile_string(p, fn->name),
					 pk_profile_string_len(p, fn->name));
	made->len = 0;
	if (pki_unknown_name(made, file, loc->address, &unknown))
		return 0;
	return pk_profile_intern(names, made->s, made->len);
}

static int add_weight(struct top_state *s, pk_str row, int64_t v, int leaf,
		      uint64_t sample)
{
	size_t n = pk_profile_string_count(s->names);

	if (pki_grow_zeroed(&s->rows, &s->rows_cap, n, sizeof(*s->rows)) < 0 ||
	    pki_grow_zeroed(&s->seen, &s->seen_cap, n, sizeof(*s->seen)) < 0)
		return PK_ENOMEM;
	if (leaf)
		s->rows[row].flat += v;
	if (s->seen[row] != sample + 1) {	/* cum once per sample */
		s->seen[row] = sample + 1;
		s->rows[row].cum += v;
	}
	return 0;
}

static int count_sample(struct top_state *s, size_t i, int column)
{
	const struct pk_sample *smp = pk_profile_sample(s->p, i);
	int64_t v = pk_profile_sample_values(s->p, i)[column];
	const uint32_t *stack;
	size_t depth, k, j;
	int rc = 0;

	if (!v)
		return 0;
	stack = pk_profile_stack(s->p, smp->stack, &depth);
	for (k = 0; k < depth && !rc; k++) {
		const struct pk_location *loc = pk_profile_location(s->p, stack[k]);
		const struct pk_line *lines = pk_profile_location_lines(s->p, loc);

		if (!loc->nlines) {
			rc = add_weight(s, frame_name(s->p, s->names, &s->made, loc, NULL),
					v, k == 0, i);
			continue;
		}
		for (j = 0; j < loc->nlines && !rc; j++)
			rc = add_weight(s, frame_name(s->p, s->names, &s->made, loc,
						      &lines[j]), v, k == 0 && j == 0, i);
	}
	return rc;
}

static int by_flat(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	int64_t fx = llabs(x->flat), fy = llabs(y->flat);
	int c;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return llabs(x->cum) > llabs(y->cum) ? -1 : llabs(x->cum) < llabs(y->cum);
}

static int by_cum(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	int64_t cx = llabs(x->cum), cy = llabs(y->cum);
	int c;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return llabs(x->flat) > llabs(y->flat) ? -1 : llabs(x->flat) < llabs(y->flat);
}

/* The rows of p's column, sorted, into top. */
static int build(struct pk_context *ctx, const struct pk_profile *p,
		 int column, int by_cumulative, struct pk_top *top)
{
	struct top_state s;
	size_t n = pk_profile_sample_count(p), i, m = 0;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.names = pk_profile_new(0);
	if (!s.names)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	for (i = 0; i < n && !rc; i++) {
		rc = count_sample(&s, i, column);
		top->total += pk_profile_sample_values(p, i)[column];
	}
	for (i = 1; !rc && i < pk_profile_string_count(s.names); i++) {
		s.rows[m] = s.rows[i];
		s.rows[m++].name = pk_profile_string(s.names, (pk_str)i);
	}
	free(s.seen);
	free(s.made.s);
	if (rc) {
		free(s.rows);
		pk_profile_free(s.names);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	if (m > 1)
		qsort(s.rows, m, sizeof(*s.rows), by_cumulative ? by_cum : by_flat);
	top->rows = s.rows;
	top->nrows = m;
	top->names = s.names;
	top->column = column;
	return 0;
}

/* The column shown: what opts choose, else the profile's default sample
 * type, as pprof shows it when no -sample_index is given. */
static int top_column(struct pk_context *ctx, const struct pk_profile *p,
		      const struct pk_options *opts)
{
	struct pk_options o = *opts;

	if (!o.sample_type && !o.event)
		o.sample_type = pk_profile_meta(p, PKI_META_DEFAULT_SAMPLE_TYPE);
	return pk_value_column(ctx, p, &o);
}

int pk_profile_top(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, int by_cumulative,
		   struct pk_top **out)
{
	struct pk_top *top = calloc(1, sizeof(*top));
	int column, rc;

	if (!top)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	column = top_column(ctx, p, opts ? opts : &pki_default_options);
	top->column = -1;
	rc = pk_context_error(ctx)->code;
	if (!rc && column >= 0)
		rc = build(ctx, p, column, by_cumulative, top);
	if (rc) {
		free(top);
		return rc;
	}
	*out = top;
	return 0;
}

void pk_top_free(struct pk_top *top)
{
	if (!top)
		return;
	free(top->rows);
	pk_profile_free(top->names);
	free(top);
}

size_t pk_top_count(const struct pk_top *top)
{
	return top->nrows;
}

const char *pk_top_name(const struct pk_top *top, size_t i)
{
	return top->rows[i].name;
}

int64_t pk_top_flat(const struct pk_top *top, size_t i)
{
	return top->rows[i].flat;
}

int64_t pk_top_cum(const struct pk_top *top, size_t i)
{
	return top->rows[i].cum;
}

int64_t pk_top_total(const struct pk_top *top)
{
	return top->total;
}

int pk_top_column(const struct pk_top *top)
{
	return top->column;
}
/* ---- units, as pprof's internal/measurement scales them ---- */

/*
 * Units as pprof's internal/measurement scales them: a unit name is
 * matched by alias (lower case, a plural "s" dropped), and "minimum"
 * picks the largest unit of which the value is at least one.
 */
struct unit {
	const char *name;
	const char *aliases[4];
	double factor;
};

static const struct unit memory_units[] = {
	{ "B", { "b", "byte" }, 1 },
	{ "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
	{ "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
	{ "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
	{ "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
	{ "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 },
	{ NULL, { NULL }, 0 },
};

static const struct unit time_units[] = {
	{ "ns", { "ns", "nanosecond" }, 1 },
	{ "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
	{ "ms", { "ms", "millisecond" }, 1e6 },
	{ "s", { "s", "sec", "second" }, 1e9 },
	{ "hrs", { "hour", "hr" }, 3600e9 },
	{ NULL, { NULL }, 0 },
};

static const struct unit gcu_units[] = {
	{ "n*GCU", { "nanogcu" }, 1e-9 }, { "u*GCU", { "microgcu" }, 1e-6 },
	{ "m*GCU", { "milligcu" }, 1e-3 }, { "GCU", { "gcu" }, 1 },
	{ "k*GCU", { "kilogcu" }, 1e3 }, { "M*GCU", { "megagcu" }, 1e6 },
	{ "G*GCU", { "gigagcu" }, 1e9 }, { "T*GCU", { "teragcu" }, 1e12 },
	{ "P*GCU", { "petagcu" }, 1e15 }, { NULL, { NULL }, 0 },
};

/* Each family with its default unit (memory: B, time: s, gcu: GCU). */
static const struct { const struct unit *units; size_t def; } families[] = {
	{ memory_units, 0 }, { time_units, 3 }, { gcu_units, 3 },
};

static const struct unit *sniff_unit(const struct unit *units, const char *name)
{
	char low[64];
	size_t n = strlen(name), i, k;

	if (n >= sizeof(low))
		return NULL;
	for (i = 0; i <= n; i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
	if (n > 2 && low[n - 1] == 's')
		low[n - 1] = '\0';
	for (i = 0; units[i].name; i++)
		for (k = 0; k < PK_ARRAY_SIZE(units[i].aliases) && units[i].aliases[k]; k++)
			if (strcmp(low, units[i].aliases[k]) == 0)
				return &units[i];
	return NULL;
}

/*
 * measurement.Scale: value, fixed point (value / fixed units of
 * from_unit, fixed 1 but for fractional counts), as a number of
 * *unit_out; to_unit "minimum" or "auto" picks the unit.
 */
static double scale(int64_t value, int64_t fixed, const char *from_unit,
		    const char *to_unit, const char **unit_out)
{
	int minimum = !strcmp(to_unit, "minimum") || !strcmp(to_unit, "auto");
	size_t f, i;

	if (value < 0 && value != INT64_MIN)
		return -scale(-value, fixed, from_unit, to_unit, unit_out);
	for (f = 0; f < PK_ARRAY_SIZE(families); f++) {
		const struct unit *units = families[f].units, *from, *to = NULL;
		double v, best = 0;

		if (!(from = sniff_unit(units, from_unit)))
			continue;
		v = (double)value / (double)fixed * from->factor;
		if (minimum) {
			for (i = 0; units[i].name; i++)
				if (units[i].factor >= best && v / units[i].factor >= 1.0) {
					best = units[i].factor;
					to = &units[i];
				}
		} else {
			to = sniff_unit(units, to_unit);
		}
		if (!to)
			to = &units[families[f].def];
		*unit_out = to->name;
		return v / to->factor;
	}
	*unit_out = !strcmp(to_unit, "count") || !strcmp(to_unit, "sample") ||
		    !strcmp(to_unit, "unit") || minimum ? "" : to_unit;
	return (double)value / (double)fixed;
}

/* measurement.ScaledLabel: "%.2f" without ".00", and "0" for zero. */
static void format_value(char *buf, size_t size, int64_t v, int64_t fixed,
			 const char *from_unit, const char *to_unit)
{
	const char *unit;
	double x = scale(v, fixed, from_unit, to_unit, &unit);
	size_t n;

	snprintf(buf, size, "%.2f", x);
	n = strlen(buf);
	if (n > 3 && strcmp(buf + n - 3, ".00") == 0)
		buf[n -= 3] = '\0';
	if (strcmp(buf, "0") == 0 || strcmp(buf, "-0") == 0)
		return;
	snprintf(buf + n, size - n, "%s", unit);
}

/* measurement.Percentage. */
static void format_percent(char *buf, size_t size, int64_t part, int64_t total)
{
	double r = total ? (double)part / (double)total * 100 : 0.0;

	if (r < 0)
		r = -r;

	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, size, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, size, "%5.2f%%", r);
	else
		snprintf(buf, size, "%5.2g%%", r);
}

/*
 * The unit of the whole table, as pprof's selectOutputUnit picks it: the
 * one of the smallest value shown, or of a hundred times it when the
 * total needs another unit and is over a hundred times larger.
 */
static const char *output_unit(const struct top_row *const *rows, size_t n,
			       int64_t total, int64_t fixed, const char *sample_unit)
{
	int64_t min = 0, max = total;
	const char *min_unit, *max_unit, *unit;
	size_t i;

	if (!n)
		return sample_unit;
	for (i = 0; i < n; i++) {
		int64_t v = llabs(rows[i]->flat);

		if (!v)
			v = llabs(rows[i]->cum);
		if (v > 0 && (!min || v < min))
			min = v;
	}
	if (!min)
		min = max;
	scale(min, fixed, sample_unit, "minimum", &min_unit);
	scale(max, fixed, sample_unit, "minimum", &max_unit);
	unit = min_unit;
	if (strcmp(min_unit, max_unit) && min * 100 < max)
		scale(100 * min, fixed, sample_unit, "minimum", &unit);
	return *unit ? unit : sample_unit;
}

/* ---- which rows pprof labels "(inline)" ---- */

/*
 * pprof marks a function "(inline)" when every call edge into it comes
 * from the location it was inlined into, "(partial-inline)" when some
 * do. An edge into a line is inline unless the line is its location's
 * outermost; edges skip rows not shown, are counted once per sample
 * (the first seen from the root) and are dropped under the edge cutoff.
 */
struct edge {
	uint64_t key;		/* caller row << 32 | callee row, + 1; 0: empty */
	int64_t weight;
	size_t stamp;		/* 1 + the last sample that counted it */
	int inline_only;
};

struct edges {
	struct edge *slots;
	size_t cap, n;
};

static struct edge *edge_find(struct edges *e, uint64_t key)
{
	size_t i;

	if (e->n * 2 >= e->cap) {
		struct edges bigger = { NULL, e->cap ? e->cap * 2 : 256, 0 };

		if (!(bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots))))
			return NULL;
		for (i = 0; i < e->cap; i++)
			if (e->slots[i].key)
				*edge_find(&bigger, e->slots[i].key) = e->slots[i];
		bigger.n = e->n;
		free(e->slots);
		*e = bigger;
	}
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 7) & (e->cap - 1);
	     e->slots[i].key && e->slots[i].key != key; i = (i + 1) & (e->cap - 1))
		;
	if (!e->slots[i].key) {
		e->slots[i].key = key;
		e->slots[i].inline_only = 1;
		e->n++;
	}
	return &e->slots[i];
}

/* Each location's rows (-1: not shown), outermost line last. */
struct location_rows {
	long *rows;
	size_t *first;		/* location id: its first in rows; id + 1: the end */
};

/* The row of a line, named as pk_profile_top names it; -1 when not shown. */
static long row_of(const struct pk_profile *p, struct pk_profile *names, size_t nnames,
		   const long *row_of_name, struct pk_strbuf *made,
		   const struct pk_location *loc, const struct pk_line *line)
{
	pk_str s = frame_name(p, names, made, loc, line);

	return s < nnames ? row_of_name[s] : -1;
}

static int fill_location_rows(const struct pk_profile *p, struct pk_profile *names,
			      const long *row_of_name, struct location_rows *lr)
{
	size_t nnames = pk_profile_string_count(names), i, j;
	size_t nloc = pk_profile_location_count(p);
	struct pk_strbuf made = { 0 };

	if (!(lr->first = calloc(nloc + 2, sizeof(*lr->first))))
		return -1;
	for (i = 1; i <= nloc; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);

		lr->first[i + 1] = lr->first[i] + (loc->nlines ? loc->nlines : 1);
	}
	if (!(lr->rows = malloc((lr->first[nloc + 1] + 1) * sizeof(*lr->rows))))
		return -1;
	for (i = 1; i <= nloc; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);
		const struct pk_line *lines = pk_profile_location_lines(p, loc);

		if (!loc->nlines)
			lr->rows[lr->first[i]] = row_of(p, names, nnames, row_of_name,
							&made, loc, NULL);
		for (j = 0; j < loc->nlines; j++)
			lr->rows[lr->first[i] + j] = row_of(p, names, nnames, row_of_name,
							     &made, loc, &lines[j]);
	}
	free(made.s);
	return 0;
}

/* The rows of every location line, by the names of the n rows shown. */
static int location_rows(const struct pk_profile *p, const struct top_row *const *rows,
			 size_t n, struct location_rows *lr)
{
	struct pk_profile *names = pk_profile_new(0);
	long *row_of_name = NULL;
	size_t nnames, i;
	int rc = -1;

	if (!names)
		return -1;
	for (i = 0; i < n; i++)
		pk_profile_intern_cstr(names, rows[i]->name);
	/* names the rows do not have are interned later, past nnames */
	nnames = pk_profile_string_count(names);
	if ((row_of_name = malloc(nnames * sizeof(*row_of_name)))) {
		for (i = 0; i < nnames; i++)
			row_of_name[i] = -1;
		for (i = 0; i < n; i++)
			row_of_name[pk_profile_intern_cstr(names, rows[i]->name)] = (long)i;
		rc = fill_location_rows(p, names, row_of_name, lr);
	}
	pk_profile_free(names);
	free(row_of_name);
	return rc;
}

/* The edges of sample i, weighing v, from the root down. */
static int add_edges(const struct pk_profile *p, const struct location_rows *lr,
		     size_t i, int64_t v, struct edges *e)
{
	size_t k, j, depth;
	const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
	long parent = -1;

	for (k = depth; k-- > 0;) {
		size_t first = lr->first[stack[k]], nl = lr->first[stack[k] + 1] - first;

		for (j = nl; j-- > 0;) {
			long row = lr->rows[first + j];
			struct edge *ed;

			if (row < 0)
				continue;
			if (parent >= 0 && row != parent) {
				ed = edge_find(e, ((uint64_t)parent << 32 | (uint64_t)row) + 1);
				if (!ed)
					return -1;
				if (ed->stamp != i + 1) {
					ed->stamp = i + 1;
					ed->weight += v;
					if (j == nl - 1)
						ed->inline_only = 0;
				}
			}
			parent = row;
		}
	}
	return 0;
}

/* label[i] (zeroed): 0, 1 "(inline)", 2 "(partial-inline)" for row i. */
static int inline_labels(const struct pk_profile *p, int column,
			 const struct top_row *const *rows, size_t n,
			 int64_t edge_cutoff, int *label)
{
	struct location_rows lr = { NULL, NULL };
	struct edges e = { NULL, 0, 0 };
	size_t i;
	int rc = location_rows(p, rows, n, &lr);

	for (i = 0; i < pk_profile_sample_count(p) && !rc; i++) {
		int64_t v = pk_profile_sample_values(p, i)[column];

		if (v)
			rc = add_edges(p, &lr, i, v, &e);
	}
	/* bit 1: an inline edge comes in, bit 2: another one */
	for (i = 0; i < e.cap && !rc; i++)
		if (e.slots[i].key && llabs(e.slots[i].weight) >= edge_cutoff)
			label[(e.slots[i].key - 1) & 0xffffffffu] |=
				e.slots[i].inline_only ? 1 : 2;
	for (i = 0; i < n && !rc; i++)
		label[i] = label[i] & 1 ? (label[i] & 2 ? 2 : 1) : 0;
	free(lr.rows);
	free(lr.first);
	free(e.slots);
	return rc;
}

/* ---- the text of pprof -top ---- */

/* What pprof -top shows of a pk_top. */
struct top_view {
	const struct pk_profile *p;
	const struct pk_top *top;
	const struct top_row **rows;	/* kept by -nodefraction, in order */
	size_t kept, shown;		/* rows kept, the first of them shown */
	int *label;			/* per row shown: see inline_labels */
	int64_t total;			/* of absolute values, as pprof sums */
	int64_t fixed;			/* fractional counts: their scale */
	const char *sample_unit, *unit;	/* the column's, the table's */
};

/*
 * pprof -top's choices: nodes whose cum is under 0.5% of the flat total
 * dropped (-nodefraction), edges under 0.1% ignored (-edgefraction),
 * then the first limit rows, one unit for all.
 */
static int view_init(struct top_view *v, const struct pk_profile *p,
		     const struct pk_top *top, size_t limit)
{
	int64_t flat_total = 0, node_cutoff;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->top = top;
	v->sample_unit = pk_profile_string(p, pk_profile_sample_type(p, (size_t)top->column)->unit);
	v->fixed = pk_profile_sample_type_scale(p, (size_t)top->column);
	v->rows = malloc((top->nrows + 1) * sizeof(*v->rows));
	v->label = calloc(top->nrows + 1, sizeof(*v->label));
	if (!v->rows || !v->label)
		return -1;
	for (i = 0; i < pk_profile_sample_count(p); i++)
		v->total += llabs(pk_profile_sample_values(p, i)[top->column]);
	for (i = 0; i < top->nrows; i++)
		flat_total += top->rows[i].flat;
	node_cutoff = llabs((int64_t)((double)flat_total * 0.005));
	for (i = 0; i < top->nrows; i++)
		if (!node_cutoff || llabs(top->rows[i].cum) >= node_cutoff)
			v->rows[v->kept++] = &top->rows[i];
	v->shown = limit && limit < v->kept ? limit : v->kept;
	if (inline_labels(p, top->column, v->rows, v->shown,
			  llabs((int64_t)((double)flat_total * 0.001)), v->label) < 0)
		return -1;
	v->unit = output_unit(v->rows, v->shown, v->total, v->fixed, v->sample_unit);
	return 0;
}

/* A value in the table's unit. */
static const char *view_value(const struct top_view *v, int64_t x, char *buf, size_t size)
{
	format_value(buf, size, x, v->fixed, v->sample_unit, v->unit);
	return buf;
}

/* Time: as Go formats "Jan 2, 2006 at 3:04pm (MST)", in the local zone. */
static int write_time(struct pk_output *out, int64_t nanos)
{
	static const char months[][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)(nanos / 1000000000 - (nanos % 1000000000 < 0));
	char zone[64];
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(zone, sizeof(zone), "%Z", &tm))
		return 0;
	return pk_output_printf(out, "Time: %s %d, %d at %d:%02d%s (%s)\n",
				months[tm.tm_mon], tm.tm_mday, tm.tm_year + 1900,
				(tm.tm_hour + 11) % 12 + 1, tm.tm_min,
				tm.tm_hour < 12 ? "am" : "pm", zone);
}

/*
 * "Duration: 2s, Total samples = 1760ms (87.91%)": the share only for
 * time values, and after "= X " even without it, as pprof prints.
 */
static int write_duration(struct pk_output *out, const struct top_view *v, int64_t duration)
{
	const char *unit;
	double nanos = scale(v->total, v->fixed, v->sample_unit, "nanoseconds", &unit);
	char d[64], t[64], r[32] = "";

	format_value(d, sizeof(d), duration, 1, "nanoseconds", "auto");
	if (!strcmp(unit, "ns") && nanos != 0) {
		r[0] = '(';
		format_percent(r + 1, sizeof(r) - 2, (int64_t)nanos, duration);
		strcat(r, ")");
	}
	return pk_output_printf(out, "Duration: %s, Total samples = %s %s\n", d,
				view_value(v, v->total, t, sizeof(t)), r);
}

/*
 * pprof's "File:" is its first mapping's. Our pprof writer and pprof's
 * legacy parsers put first the first mapping the samples use that is
 * neither a library nor a "[pseudo]" one (else the first used), so take
 * that one.
 */
static void pick_main(const struct pk_profile *p, const struct pk_mapping *m,
		      const struct pk_mapping **main_map, const struct pk_mapping **first)
{
	const char *file = m && m->file ? pk_profile_string(p, m->file) : "";

	if (m && (!*first || m < *first))		/* ids in array order */
		*first = m;
	if (m && (!*main_map || m < *main_map) && *file && *file != '[' &&
	    !pki_is_shared_library(file))
		*main_map = m;
}

static const struct pk_mapping *main_mapping(const struct pk_profile *p)
{
	const struct pk_mapping *main_map = NULL, *first = NULL;
	size_t i, k, depth;

	for (i = 0; i < pk_profile_sample_count(p); i++) {
		const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);

		for (k = 0; k < depth; k++)
			pick_main(p, pk_profile_mapping(p, pk_profile_location(p, stack[k])->mapping),
				  &main_map, &first);
	}
	return main_map ? main_map : first;
}

/* pprof's ProfileLabels: what the file is, as far as we keep it. */
static int write_profile_labels(struct pk_output *out, const struct top_view *v)
{
	const struct pk_mapping *main_map = main_mapping(v->p);
	const char *type = pk_profile_string(v->p,
		pk_profile_sample_type(v->p, (size_t)v->top->column)->type);
	int64_t time, duration;
	const char *base;
	size_t len;
	int rc = 0;

	if (main_map && main_map->file && *pk_profile_string(v->p, main_map->file)) {
		len = pki_path_base(pk_profile_string(v->p, main_map->file), &base);
		rc = pk_output_printf(out, "File: %.*s\n", (int)len, base);
	}
	if (!rc && main_map && main_map->build_id && *pk_profile_string(v->p, main_map->build_id))
		rc = pk_output_printf(out, "Build ID: %s\n",
				      pk_profile_string(v->p, main_map->build_id));
	if (!rc && *type)
		rc = pk_output_printf(out, "Type: %s\n", type);
	time = pk_profile_time_nanos(v->p);
	duration = pki_profile_duration(v->p);
	if (!rc && time)
		rc = write_time(out, time);
	if (!rc && duration)
		rc = write_duration(out, v, duration);
	return rc;
}

/* pprof's reportLabels after the profile's: what is shown, what dropped. */
static int write_report_labels(struct pk_output *out, const struct top_view *v)
{
	int64_t shown = 0;
	char a[64], b[64], c[16];
	size_t i, dropped = v->top->nrows - v->kept;
	int rc;

	for (i = 0; i < v->shown; i++)
		shown += v->rows[i]->flat;
	format_percent(c, sizeof(c), shown, v->total);
	rc = pk_output_printf(out, "Showing nodes accounting for %s, %s of %s total\n",
			      view_value(v, shown, a, sizeof(a)), c + strspn(c, " "),
			      view_value(v, v->total, b, sizeof(b)));
	if (!rc && v->total && dropped)
		rc = pk_output_printf(out, "Dropped %zu node%s (cum <= %s)\n", dropped,
				      dropped > 1 ? "s" : "",
				      view_value(v, llabs((int64_t)((double)v->total * 0.005)),
						 a, sizeof(a)));
	if (!rc && v->total && v->shown < v->kept)
		rc = pk_output_printf(out, "Showing top %zu nodes out of %zu\n", v->shown,
				      v->kept);
	return rc;
}

/* The column titles and rows, percentages of the total. */
static int write_rows(struct pk_output *out, const struct top_view *v)
{
	static const char *const labels[] = { "", " (inline)", " (partial-inline)" };
	char a[64], b[64], c[16], d[16], e[16];
	int64_t sum = 0;
	size_t i;
	int rc;

	rc = pk_output_printf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum",
			      "cum", "cum");
	for (i = 0; i < v->shown && !rc; i++) {
		const struct top_row *row = v->rows[i];

		sum += row->flat;
		format_percent(c, sizeof(c), row->flat, v->total);
		format_percent(d, sizeof(d), sum, v->total);
		format_percent(e, sizeof(e), row->cum, v->total);
		rc = pk_output_printf(out, "%10s %s %s %10s %s  %s%s\n",
				      view_value(v, row->flat, a, sizeof(a)), c, d,
				      view_value(v, row->cum, b, sizeof(b)), e, row->name,
				      labels[v->label[i]]);
	}
	return rc;
}

int pk_top_write(struct pk_context *ctx, const struct pk_profile *p,
		 const struct pk_top *top, size_t limit, struct pk_output *out)
{
	struct top_view v;
	int rc;

	if (top->column < 0)
		return 0;
	if (view_init(&v, p, top, limit) < 0) {
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	} else {
		rc = write_profile_labels(out, &v);
		if (!rc)
			rc = write_report_labels(out, &v);
		if (!rc)
			rc = write_rows(out, &v);
	}
	free(v.rows);
	free(v.label);
	return rc;
}
