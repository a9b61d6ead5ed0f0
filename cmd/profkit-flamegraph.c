/* SPDX-License-Identifier: MIT */
/* profkit-flamegraph: draw a profile as an interactive SVG flame graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

static struct pk_options opts;
static const char *from, *output, *value, *colors;
static int icicle, diff, no_comm;
static struct cmd_robustness robust;

static int set_width(const struct option *o, const char *arg)
{
	char *end;
	unsigned long w;

	(void)o;
	w = strtoul(arg, &end, 10);
	if (end == arg || *end || w < 200 || w > 1000000) {
		cmd_error("--width: '%s' is not a width from 200 to 1000000 "
			  "pixels", arg);
		return -1;
	}
	opts.width = (unsigned)w;
	return 0;
}

static const struct option options[] = {
	OPT_GROUP("Input and output"),
	OPT_STRING(0, "from", &from, "FMT", "input format (default: detect)"),
	OPT_STRING('o', "output", &output, "FILE", "write FILE (atomically) instead of stdout"),
	OPT_GROUP("Samples"),
	OPT_STRING(0, "event", &opts.event, "NAME", "draw this event (default: the first)"),
	OPT_STRING(0, "value", &value, "KIND", "weigh stacks by 'samples' or 'period'"),
	OPT_STRING(0, "sample-type", &opts.sample_type, "T", "draw this sample type (pprof's -sample_index)"),
	OPT_FLAG(0, "no-comm", &no_comm, "no process name root frame"),
	OPT_FLAG(0, "diff", &diff, "require a differential (two-column) input"),
	OPT_GROUP("Drawing"),
	OPT_STRING(0, "title", &opts.title, "TEXT", "title (default \"Flame Graph\")"),
	OPT_FLAG(0, "icicle", &icicle, "root at the top (\"Icicle Graph\")"),
	OPT_STRING(0, "colors", &colors, "NAME", "palette: hot (default), mem or io"),
	OPT_CALLBACK(0, "width", NULL, "PX", "image width in pixels (default 1200)", set_width),
	OPT_SYMBOLS(opts),
	OPT_ROBUSTNESS(robust, "memory limit for the profile and graph (default 8G)"),
	OPT_END(),
};

static int check_options(void)
{
	if (cmd_parse_value(value, &opts))
		return -1;
	if (colors && strcmp(colors, "hot") && strcmp(colors, "mem") &&
	    strcmp(colors, "io")) {
		cmd_error("--colors: expected 'hot', 'mem' or 'io', not '%s'", colors);
		return -1;
	}
	opts.colors = colors;
	opts.icicle = icicle != 0;
	opts.diff = diff != 0;
	opts.no_comm = no_comm != 0;
	return 0;
}

int main(int argc, char **argv)
{
	const struct pk_writer *writer = pk_writer_find("flamegraph");

	pk_options_init(&opts);
	argc = parse_options(argc, argv, options, &info);
	if (check_options())
		return 2;
	if (!writer) {
		cmd_error("this build has no flame graph writer");
		return 2;
	}
	return cmd_convert(writer, argc, argv, from, &opts, output, &robust);
}
