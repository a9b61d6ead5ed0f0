/* SPDX-License-Identifier: MIT */
/* profkit-flamegraph: draw a profile as an interactive SVG flame graph. */
#include <stdio.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const flamegraph_usage[] = {
	"profkit-flamegraph [OPTION...] [-o FILE.svg] [FILE...]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-flamegraph",
	.summary = "Draw a profile as an interactive SVG flame graph, as "
		   "flamegraph.pl does: click to zoom,\nCtrl-F to search. "
		   "Reads standard input when no FILE is given (any input "
		   "format);\nseveral FILEs are summed. Two-column folded "
		   "input (difffolded.pl) gives a\ndifferential graph: widths "
		   "from the second column, red for growth, blue for less.",
	.usage = flamegraph_usage,
	.examples =
		"  perf script | profkit-flamegraph > cpu.svg\n"
		"  profkit-flamegraph --icicle --colors=mem -o heap.svg heap.pb.gz\n"
		"  profkit-flamegraph --event=page-faults --title='Page faults' out.txt > pf.svg\n"
		"  difffolded.pl before.folded after.folded | profkit-flamegraph > diff.svg\n",
	.key_scopes = "flamegraph folded",
};

static const char *output;
static struct cmd_robustness robust;

static const struct option options[] = {
	OPT_GROUP("Input and output"),
	OPT_KEY("from"),
	OPT_STRING('o', "output", &output, "FILE", "write FILE (atomically) instead of stdout"),
	OPT_GROUP("Samples"),
	OPT_PK(0, "event", "NAME", "draw this event (default: the first)"),
	OPT_KEY("value"),
	OPT_PK(0, "sample-type", "T", "draw this sample type (pprof's -sample_index)"),
	OPT_KEY("folded:no-comm"),
	OPT_KEY("flamegraph:diff"),
	OPT_GROUP("Drawing"),
	OPT_KEY("flamegraph:title"),
	OPT_KEY("flamegraph:icicle"),
	OPT_KEY("flamegraph:colors"),
	OPT_KEY("flamegraph:width"),
	OPT_KEY("flamegraph:max-depth"),
	OPT_BY_KEY("below"),
	OPT_SYMBOLS,
	OPT_ROBUSTNESS(robust, "memory limit for the profile and graph (default 8G)"),
	OPT_END(),
};

int main(int argc, char **argv)
{
	const struct pk_writer *writer = pk_writer_find("flamegraph");

	argc = parse_options(argc, argv, options, &info);
	if (!writer) {
		cmd_error("this build has no flame graph writer");
		return 2;
	}
	return cmd_convert(writer, argc, argv, output, &robust);
}
