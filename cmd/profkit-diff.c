/* SPDX-License-Identifier: MIT */
/*
 * profkit-diff: what changed between two profiles. By default the
 * two-column folded form difffolded.pl prints ("stack base new"), which
 * flamegraph.pl and profkit-flamegraph draw as a differential flame
 * graph; with --to, the profile NEW - BASE.
 */
#include <stdio.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const diff_usage[] = {
	"profkit-diff [--normalize] [--to=FMT] [-o FILE] BASE NEW",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-diff",
	.summary = "Compare two profiles. Prints 'stack base new' lines as difffolded.pl does,\n"
		   "or with --to the difference NEW - BASE as pprof -diff_base=BASE NEW\n"
		   "computes it (BASE's samples negated and labelled pprof::base).",
	.usage = diff_usage,
	.examples =
		"  profkit-diff before.perf-script after.perf-script | flamegraph.pl > diff.svg\n"
		"  profkit-diff --to=pprof base.pb.gz new.pb.gz -o delta.pb.gz\n",
};

static int diff_folded(struct pk_context *ctx, struct pk_profile *base,
		       struct pk_profile *changed, unsigned flags, const char *output)
{
	struct pk_output *out;
	int rc = pk_output_open(ctx, output, &out);

	if (rc)
		return rc;
	rc = pk_diff_write_folded(ctx, base, changed, cmd_options(), flags, out);
	if (rc)
		pk_output_abort(out);
	else
		rc = pk_output_commit(out);
	return rc;
}

int main(int argc, char **argv)
{
	const char *to = NULL, *output = NULL;
	int quiet = 0, normalize = 0;
	const struct option options[] = {
		OPT_PK(0, "from", "FMT", "input format (default: detect each)"),
		OPT_STRING(0, "to", &to, "FMT", "write NEW - BASE in this format"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_FLAG(0, "normalize", &normalize, "scale BASE to NEW's total (difffolded -n)"),
		OPT_PK(0, "event", "NAME", "compare this event (default: the first)"),
		OPT_PK(0, "value", "KIND", "compare 'samples' or 'period'"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("see profkit-convert --help"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	const struct pk_writer *writer = NULL;
	struct pk_profile *base = NULL, *new = NULL;
	struct pk_context *ctx;
	unsigned flags;
	int rc;

	argc = parse_options(argc, argv, options, &info);
	flags = normalize ? PK_DIFF_NORMALIZE : 0;
	if (argc != 2) {
		cmd_error("give two profiles: BASE and NEW");
		return 2;
	}
	if ((to && !(writer = cmd_writer(to))) || !(ctx = cmd_context(quiet)))
		return 2;
	rc = cmd_read_profile(ctx, argv[0], 0, &base);
	if (!rc)
		rc = cmd_read_profile(ctx, argv[1], 0, &new);
	if (!rc && writer)
		rc = pk_profile_diff(ctx, base, new, cmd_options(), flags);
	if (!rc)
		rc = writer ? cmd_write_output(ctx, writer, new, output) :
			diff_folded(ctx, base, new, flags, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(base);
	pk_profile_free(new);
	pk_context_free(ctx);
	return rc;
}
