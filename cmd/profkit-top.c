/* SPDX-License-Identifier: MIT */
/* profkit-top: the hottest functions, as pprof -top lists them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const top_usage[] = {
	"profkit-top [-n N] [--cum] [--sample-type=T] [FILE]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-top",
	.summary = "List the functions with the most weight: flat (as the innermost frame) and\n"
		   "cum (anywhere in the stack), with the columns and order of pprof -top.",
	.usage = top_usage,
	.examples =
		"  perf script | profkit-top -n 5\n"
		"  profkit-top --cum --sample-type=alloc_space heap.pb.gz\n",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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
		for (k = 0; k < ARRAY_SIZE(units[i].aliases) && units[i].aliases[k]; k++)
			if (strcmp(low, units[i].aliases[k]) == 0)
				return &units[i];
	return NULL;
}

/* Fractional counts are fixed point: a value means value / value_scale. */
static int64_t value_scale = 1;

/* measurement.Scale: value in from_unit as a number of *unit_out. */
static double scale(int64_t value, const char *from_unit, const char *to_unit,
		    const char **unit_out)
{
	int minimum = !strcmp(to_unit, "minimum") || !strcmp(to_unit, "auto");
	size_t f, i;

	if (value < 0 && value != INT64_MIN)
		return -scale(-value, from_unit, to_unit, unit_out);
	for (f = 0; f < ARRAY_SIZE(families); f++) {
		const struct unit *units = families[f].units, *from, *to = NULL;
		double v, best = 0;

		if (!(from = sniff_unit(units, from_unit)))
			continue;
		v = (double)value / (double)value_scale * from->factor;
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
	return (double)value / (double)value_scale;
}

/* measurement.ScaledLabel: "%.2f" without ".00", and "0" for zero. */
static void format_value(char *buf, size_t size, int64_t v, const char *from_unit,
			 const char *to_unit)
{
	const char *unit;
	double x = scale(v, from_unit, to_unit, &unit);
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
static const char *output_unit(const struct pk_top_row *const *rows, size_t n,
			       int64_t total, const char *sample_unit)
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
	scale(min, sample_unit, "minimum", &min_unit);
	scale(max, sample_unit, "minimum", &max_unit);
	unit = min_unit;
	if (strcmp(min_unit, max_unit) && min * 100 < max)
		scale(100 * min, sample_unit, "minimum", &unit);
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

/* The row of a line, named as pk_profile_top names it; -1 when not shown. */
static long row_of(const struct pk_profile *p, struct pk_profile *names, size_t nnames,
		   const long *row_of_name, const struct pk_location *loc,
		   const struct pk_line *line)
{
	const struct pk_function *fn = line ? pk_profile_function(p, line->function) : NULL;
	char addr[32];
	pk_str s;

	if (fn && fn->name) {
		s = pk_profile_intern(names, pk_profile_string(p, fn->name),
				      pk_profile_string_len(p, fn->name));
	} else {
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)loc->address);
		s = pk_profile_intern_cstr(names, addr);
	}
	return s < nnames ? row_of_name[s] : -1;
}

/* inline_label[i]: 0, 1 "(inline)", 2 "(partial-inline)" for row i. */
static int inline_labels(const struct pk_profile *p, int column,
			 const struct pk_top_row *const *rows, size_t n,
			 int64_t edge_cutoff, int *label)
{
	struct pk_profile *names = pk_profile_new(0);
	size_t nnames, i, k, j, depth, nloc = pk_profile_location_count(p);
	long *row_of_name = NULL, *loc_rows = NULL;
	size_t *loc_first = NULL;
	struct edges e = { NULL, 0, 0 };
	int rc = -1, *has_inline = NULL, *has_other = NULL;

	if (!names)
		return -1;
	for (i = 0; i < n; i++)
		pk_profile_intern_cstr(names, rows[i]->name);
	/* names the rows do not have are interned later: room for them */
	nnames = pk_profile_string_count(names);
	row_of_name = malloc(nnames * sizeof(*row_of_name));
	loc_first = calloc(nloc + 2, sizeof(*loc_first));
	has_inline = calloc(n + 1, sizeof(*has_inline));
	has_other = calloc(n + 1, sizeof(*has_other));
	if (!row_of_name || !loc_first || !has_inline || !has_other)
		goto out;
	for (i = 0; i < nnames; i++)
		row_of_name[i] = -1;
	for (i = 0; i < n; i++)
		row_of_name[pk_profile_intern_cstr(names, rows[i]->name)] = (long)i;
	/* each location's rows, outermost line last, cached once */
	for (i = 1; i <= nloc; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);

		loc_first[i + 1] = loc_first[i] + (loc->nlines ? loc->nlines : 1);
	}
	if (!(loc_rows = malloc((loc_first[nloc + 1] + 1) * sizeof(*loc_rows))))
		goto out;
	for (i = 1; i <= nloc; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);
		const struct pk_line *lines = pk_profile_location_lines(p, loc);

		if (!loc->nlines)
			loc_rows[loc_first[i]] = row_of(p, names, nnames, row_of_name, loc, NULL);
		for (j = 0; j < loc->nlines; j++)
			loc_rows[loc_first[i] + j] = row_of(p, names, nnames, row_of_name,
							     loc, &lines[j]);
	}
	for (i = 0; i < pk_profile_sample_count(p); i++) {
		int64_t v = pk_profile_sample_values(p, i)[column];
		const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack,
							 &depth);
		long parent = -1;

		if (!v)
			continue;
		for (k = depth; k-- > 0;) {
			size_t first = loc_first[stack[k]];
			size_t nl = loc_first[stack[k] + 1] - first;

			for (j = nl; j-- > 0;) {
				long row = loc_rows[first + j];
				struct edge *ed;

				if (row < 0)
					continue;
				if (parent >= 0 && row != parent) {
					ed = edge_find(&e, ((uint64_t)parent << 32 |
							    (uint64_t)row) + 1);
					if (!ed)
						goto out;
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
	}
	for (i = 0; i < e.cap; i++) {
		const struct edge *ed = &e.slots[i];

		if (!ed->key || llabs(ed->weight) < edge_cutoff)
			continue;
		if (ed->inline_only)
			has_inline[(ed->key - 1) & 0xffffffffu] = 1;
		else
			has_other[(ed->key - 1) & 0xffffffffu] = 1;
	}
	for (i = 0; i < n; i++)
		label[i] = has_inline[i] ? (has_other[i] ? 2 : 1) : 0;
	rc = 0;
out:
	pk_profile_free(names);
	free(row_of_name);
	free(loc_first);
	free(loc_rows);
	free(has_inline);
	free(has_other);
	free(e.slots);
	return rc;
}

/*
 * pprof -top's table: nodes whose cum is under 0.5% of the flat total
 * dropped (-nodefraction), edges under 0.1% ignored (-edgefraction),
 * then the first N rows, one unit for all, percentages of the sum of
 * absolute values.
 */
static int print_table(const struct pk_profile *p, const struct pk_top *top, size_t limit)
{
	const char *sample_unit =
		pk_profile_string(p, pk_profile_sample_type(p, (size_t)top->column)->unit);

	value_scale = pk_profile_sample_type_scale(p, (size_t)top->column);
	const struct pk_top_row **rows = malloc((top->nrows + 1) * sizeof(*rows));
	int64_t flat_total = 0, total = 0, shown = 0, sum = 0, node_cutoff, edge_cutoff;
	int *label = calloc(top->nrows + 1, sizeof(*label));
	static const char *const labels[] = { "", " (inline)", " (partial-inline)" };
	const char *unit;
	char a[64], b[64], c[16], d[16], e[16];
	size_t i, n, kept = 0;

	if (!rows || !label) {
		free(rows);
		free(label);
		return -1;
	}
	for (i = 0; i < pk_profile_sample_count(p); i++)
		total += llabs(pk_profile_sample_values(p, i)[top->column]);
	for (i = 0; i < top->nrows; i++)
		flat_total += top->rows[i].flat;
	node_cutoff = llabs((int64_t)((double)flat_total * 0.005));
	edge_cutoff = llabs((int64_t)((double)flat_total * 0.001));
	for (i = 0; i < top->nrows; i++)
		if (!node_cutoff || llabs(top->rows[i].cum) >= node_cutoff)
			rows[kept++] = &top->rows[i];
	n = limit && limit < kept ? limit : kept;
	if (inline_labels(p, top->column, rows, n, edge_cutoff, label) < 0) {
		free(rows);
		free(label);
		return -1;
	}
	unit = output_unit(rows, n, total, sample_unit);
	for (i = 0; i < n; i++)
		shown += rows[i]->flat;
	format_value(a, sizeof(a), shown, sample_unit, unit);
	format_value(b, sizeof(b), total, sample_unit, unit);
	format_percent(c, sizeof(c), shown, total);
	printf("Showing nodes accounting for %s, %s of %s total\n", a, c + strspn(c, " "), b);
	if (total && kept < top->nrows) {
		format_value(a, sizeof(a), llabs((int64_t)((double)total * 0.005)),
			     sample_unit, unit);
		printf("Dropped %zu node%s (cum <= %s)\n", top->nrows - kept,
		       top->nrows - kept > 1 ? "s" : "", a);
	}
	if (total && n < kept)
		printf("Showing top %zu nodes out of %zu\n", n, kept);
	printf("%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (i = 0; i < n; i++) {
		sum += rows[i]->flat;
		format_value(a, sizeof(a), rows[i]->flat, sample_unit, unit);
		format_value(b, sizeof(b), rows[i]->cum, sample_unit, unit);
		format_percent(c, sizeof(c), rows[i]->flat, total);
		format_percent(d, sizeof(d), sum, total);
		format_percent(e, sizeof(e), rows[i]->cum, total);
		printf("%10s %s %s %10s %s  %s%s\n", a, c, d, b, e, rows[i]->name,
		       labels[label[i]]);
	}
	free(rows);
	free(label);
	return 0;
}

/* --sample-type and --event given: no default from the input. */
static int value_chosen;

static int opt_value(const struct option *o, const char *arg)
{
	value_chosen = 1;
	return cmd_opt_pk(o, arg);
}

int main(int argc, char **argv)
{
	const char *count = NULL;
	int quiet = 0, cum = 0;
	const struct option options[] = {
		OPT_STRING('n', "nodecount", &count, "N", "show N functions (default 20; 0: all)"),
		OPT_FLAG(0, "cum", &cum, "sort by cumulative weight"),
		OPT_CALLBACK(0, "sample-type", NULL, "T",
			     "the sample type to show (pprof's -sample_index)", opt_value),
		OPT_CALLBACK(0, "event", NULL, "NAME", "the event to show (default: the first)",
			     opt_value),
		OPT_PK(0, "from", "FMT", "input format (default: detect)"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	struct pk_profile *p = NULL;
	struct pk_context *ctx;
	struct pk_top top;
	long limit = 20;
	int rc;

	argc = parse_options(argc, argv, options, &info);
	if (argc > 1) {
		cmd_error("give one input FILE (merge several with profkit-merge first)");
		return 2;
	}
	if (count) {
		char *end;

		limit = strtol(count, &end, 10);
		if (*end || limit < 0) {
			cmd_error("-n: '%s' is not a count", count);
			return 2;
		}
	}
	if (!(ctx = cmd_context(quiet)))
		return 1;
	rc = cmd_read_profile(ctx, argc ? argv[0] : NULL, 0, &p);
	/* what pprof shows when no -sample_index is given */
	if (!rc && !value_chosen && pk_profile_meta(p, "default_sample_type") &&
	    cmd_set_option("sample-type", pk_profile_meta(p, "default_sample_type")))
		rc = PK_EUSAGE;
	if (!rc)
		rc = pk_profile_top(ctx, p, cmd_options(), cum, &top);
	if (!rc) {
		if (top.nrows && print_table(p, &top, (size_t)limit) < 0)
			rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
		pk_top_release(&top);
		if (fflush(stdout) || ferror(stdout))
			rc = pk_error_set(ctx, PK_EIO, "cannot write to standard output");
	}
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
