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

/* Drop trailing zeros as pprof does: "1.50s" -> "1.5s", "2.00ms" -> "2ms". */
static void trim_number(char *buf)
{
	char *dot = strchr(buf, '.'), *end;

	if (!dot)
		return;
	end = buf + strlen(buf);
	while (end > dot + 1 && end[-1] == '0')
		*--end = '\0';
	if (end == dot + 1)
		*dot = '\0';
}

/* v / scale units: fractional counts are fixed point (2.5 is 25 at scale 10). */
static void format_value(char *buf, size_t size, int64_t v, int64_t scale,
			 const char *unit)
{
	static const struct { const char *unit; double div; const char *suffix; } scales[] = {
		{ "nanoseconds", 1e9, "s" }, { "nanoseconds", 1e6, "ms" },
		{ "nanoseconds", 1e3, "us" }, { "bytes", 1099511627776.0, "TB" },
		{ "bytes", 1073741824.0, "GB" }, { "bytes", 1048576.0, "MB" },
		{ "bytes", 1024.0, "kB" },
	};
	double a = (v < 0 ? -(double)v : (double)v) / (double)scale;
	size_t i;

	for (i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		if (strcmp(unit, scales[i].unit) == 0 && a >= scales[i].div) {
			snprintf(buf, size, "%.2f", (double)v / (double)scale / scales[i].div);
			trim_number(buf);
			strncat(buf, scales[i].suffix, size - strlen(buf) - 1);
			return;
		}
	}
	pk_value_format(buf, size, v, scale);
	strncat(buf, strcmp(unit, "nanoseconds") == 0 ? "ns" : strcmp(unit, "bytes") == 0 ? "B" : "",
		size - strlen(buf) - 1);
}

static double percent(int64_t part, int64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static void print_table(const struct pk_profile *p, const struct pk_top *top, size_t limit)
{
	const char *unit = pk_profile_string(p, pk_profile_sample_type(p, (size_t)top->column)->unit);
	int64_t scale = pk_profile_sample_type_scale(p, (size_t)top->column);
	int64_t shown = 0, sum = 0;
	char a[32], b[32];
	size_t i, n = limit && limit < top->nrows ? limit : top->nrows;

	for (i = 0; i < n; i++)
		shown += top->rows[i].flat;
	format_value(a, sizeof(a), shown, scale, unit);
	format_value(b, sizeof(b), top->total, scale, unit);
	printf("Showing nodes accounting for %s, %.2f%% of %s total\n", a,
	       percent(shown, top->total), b);
	if (n < top->nrows)
		printf("Showing top %zu nodes out of %zu\n", n, top->nrows);
	printf("%10s %6s %6s %10s %6s\n", "flat", "flat%", "sum%", "cum", "cum%");
	for (i = 0; i < n; i++) {
		const struct pk_top_row *r = &top->rows[i];

		sum += r->flat;
		format_value(a, sizeof(a), r->flat, scale, unit);
		format_value(b, sizeof(b), r->cum, scale, unit);
		printf("%10s %5.2f%% %5.2f%% %10s %5.2f%%  %s\n", a, percent(r->flat, top->total),
		       percent(sum, top->total), b, percent(r->cum, top->total), r->name);
	}
}

int main(int argc, char **argv)
{
	const char *count = NULL;
	int quiet = 0, cum = 0;
	const struct option options[] = {
		OPT_STRING('n', "nodecount", &count, "N", "show N functions (default 20; 0: all)"),
		OPT_FLAG(0, "cum", &cum, "sort by cumulative weight"),
		OPT_PK(0, "sample-type", "T", "the sample type to show (pprof's -sample_index)"),
		OPT_PK(0, "event", "NAME", "the event to show (default: the first)"),
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
	if (!rc)
		rc = pk_profile_top(ctx, p, cmd_options(), cum, &top);
	if (!rc) {
		if (top.nrows)
			print_table(p, &top, (size_t)limit);
		pk_top_release(&top);
		if (fflush(stdout) || ferror(stdout))
			rc = pk_error_set(ctx, PK_EIO, "cannot write to standard output");
	}
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
