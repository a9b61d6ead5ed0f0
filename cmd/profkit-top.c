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
		   "cum (anywhere in the stack), as pprof -top prints them, header included.",
	.usage = top_usage,
	.examples =
		"  perf script | profkit-top -n 5\n"
		"  profkit-top --cum --sample-type=alloc_space heap.pb.gz\n",
};

int main(int argc, char **argv)
{
	const char *count = NULL;
	int quiet = 0, cum = 0;
	const struct option options[] = {
		OPT_STRING('n', "nodecount", &count, "N", "show N functions (default 20; 0: all)"),
		OPT_FLAG(0, "cum", &cum, "sort by cumulative weight"),
		OPT_PK(0, "sample-type", "T", "the sample type to show (pprof's -sample_index)"),
		OPT_PK(0, "event", "NAME", "the event to show (default: the first)"),
		OPT_KEY("from"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("see profkit-convert --help"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	struct pk_profile *p = NULL;
	struct pk_context *ctx;
	struct pk_output *out = NULL;
	struct pk_top *top;
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
		rc = pk_output_open(ctx, NULL, &out);
		if (!rc)
			rc = pk_top_write(ctx, p, top, (size_t)limit, out);
		if (!rc)
			rc = pk_output_commit(out);
		else
			pk_output_abort(out);
		pk_top_free(top);
	}
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
