/* SPDX-License-Identifier: MIT */
/* profkit-merge: the sum of several profiles of the same kind. */
#include <stdio.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const merge_usage[] = {
	"profkit-merge [--to=FMT] [-o FILE] FILE...",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-merge",
	.summary = "Sum profiles whose sample types agree, in any input formats, as pprof\n"
		   "merges them: durations add up, one binary is one mapping. The sum is\n"
		   "associative, so merges can run as a tree of reduce steps.",
	.usage = merge_usage,
	.examples =
		"  profkit-merge server.cpu.prof.* --to=pprof -o all.pb.gz\n"
		"  profkit-merge a.folded b.folded > both.folded\n",
};

int main(int argc, char **argv)
{
	const char *to = "folded", *output = NULL;
	int quiet = 0;
	const struct option options[] = {
		OPT_PK(0, "from", "FMT", "input format (default: detect each)"),
		OPT_STRING(0, "to", &to, "FMT", "output format (default: folded)"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_PK(0, "event", "NAME", "event for single-value outputs"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("see profkit-convert --help"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	const struct pk_writer *writer;
	struct pk_profile *sum = NULL;
	struct pk_context *ctx;
	int i, rc = 0;

	argc = parse_options(argc, argv, options, &info);
	if (argc < 1) {
		cmd_error("no input files (give at least one FILE)");
		return 2;
	}
	if (!(writer = cmd_writer(to)) || !(ctx = cmd_context(quiet)))
		return 2;
	/* one input at a time: memory holds the sum and one input */
	for (i = 0; i < argc && !rc; i++) {
		struct pk_profile *p;

		rc = cmd_read_profile(ctx, argv[i], pk_writer_profile_flags(writer), &p);
		if (rc)
			break;
		if (!sum) {
			sum = p;
			continue;
		}
		rc = pk_profile_accumulate(ctx, &sum, &p, argv[i], cmd_options());
		pk_profile_free(p);
	}
	if (!rc)
		rc = cmd_write_output(ctx, writer, sum, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(sum);
	pk_context_free(ctx);
	return rc;
}
