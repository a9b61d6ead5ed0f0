/* SPDX-License-Identifier: MIT */
/* profkit-filter: keep exactly the samples that pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const filter_usage[] = {
	"profkit-filter [OPTION...] [--to=FMT] [-o FILE] [FILE]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-filter",
	.summary = "Keep the samples that pass every test. Function patterns are POSIX\n"
		   "extended regular expressions, matched against inline frames too.",
	.usage = filter_usage,
	.examples =
		"  profkit-filter --focus='^parse' cpu.pb.gz --to=pprof -o parse.pb.gz\n"
		"  perf script | profkit-filter --comm=nginx --ignore=epoll_wait | flamegraph.pl > n.svg\n"
		"  profkit-filter --field=prev_state=D sched.perf.data > blocked.folded\n",
	.key_scopes = "filter",
};

int main(int argc, char **argv)
{
	const char *to = "folded", *output = NULL;
	int quiet = 0;
	const struct option options[] = {
		OPT_GROUP("Tests"),
		OPT_KEY("filter:focus"),
		OPT_KEY("filter:ignore"),
		OPT_KEY("filter:prune-from"),
		OPT_KEY("filter:pid"),
		OPT_KEY("filter:tid"),
		OPT_KEY("filter:comm"),
		OPT_PK(0, "event", "NAME", "keep this event"),
		OPT_KEY("filter:field"),
		OPT_KEY("filter:from-time"),
		OPT_KEY("filter:to-time"),
		OPT_KEY("filter:min-percent"),
		OPT_PK(0, "value", "KIND", "weigh --min-percent by 'samples' or 'period'"),
		OPT_GROUP("Input and output"),
		OPT_KEY("from"),
		OPT_STRING(0, "to", &to, "FMT", "output format (default: folded)"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("below; --to's: profkit-convert --help"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	const struct pk_writer *writer;
	struct pk_profile *in = NULL, *out = NULL;
	struct pk_context *ctx;
	unsigned flags;
	int rc;

	argc = parse_options(argc, argv, options, &info);
	if (argc > 1) {
		cmd_error("give one input FILE (merge several with profkit-merge first)");
		return 2;
	}
	if (!(writer = cmd_writer(to)) || !(ctx = cmd_context(quiet)))
		return 2;
	/* time tests need every sample with its own time */
	flags = pk_writer_profile_flags(writer);
	if (pk_options_get(cmd_options(), "filter:from-time") ||
	    pk_options_get(cmd_options(), "filter:to-time"))
		flags |= PK_PROFILE_KEEP_ORDER;
	rc = cmd_read_profile(ctx, argc ? argv[0] : NULL, flags, &in);
	if (!rc)
		rc = pk_profile_filter(ctx, in, cmd_options(), &out);
	if (!rc)
		rc = cmd_write_output(ctx, writer, out, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(in);
	pk_profile_free(out);
	pk_context_free(ctx);
	return rc;
}
