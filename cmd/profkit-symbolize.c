/* SPDX-License-Identifier: MIT */
/*
 * profkit-symbolize: add function names, files and lines to a profile of
 * raw addresses, on a machine that has the binaries (profiles taken in
 * containers or on servers, read on a laptop).
 */
#include <stdio.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const symbolize_usage[] = {
	"profkit-symbolize [--binary=FILE] [--symfs=DIR] [--to=FMT] [-o FILE] [FILE]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-symbolize",
	.summary = "Symbolize a profile of raw addresses with the binaries of this machine\n"
		   "(by build id, by path under --symfs, by name in --symbol-path).",
	.usage = symbolize_usage,
	.examples =
		"  profkit-symbolize --binary=./server server.cpu.prof -o server.pb.gz\n"
		"  profkit-symbolize --symfs=/srv/container-root raw.pb.gz -o cpu.pb.gz\n",
};

int main(int argc, char **argv)
{
	const char *to = "pprof", *output = NULL;
	int quiet = 0;
	const struct option options[] = {
		OPT_KEY("from"),
		OPT_STRING(0, "to", &to, "FMT", "output format (default: pprof)"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_SYMBOLS,
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("see profkit-convert --help"),
		OPT_END(),
	};
	const struct pk_writer *writer;
	struct pk_profile *p = NULL;
	struct pk_context *ctx;
	int rc;

	argc = parse_options(argc, argv, options, &info);
	if (argc > 1) {
		cmd_error("give one input FILE");
		return 2;
	}
	if (!(writer = cmd_writer(to)) || !(ctx = cmd_context(quiet)))
		return 2;
	rc = cmd_read_profile(ctx, argc ? argv[0] : NULL,
			      pk_writer_profile_flags(writer), &p);
	if (!rc)
		rc = cmd_write_output(ctx, writer, p, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
