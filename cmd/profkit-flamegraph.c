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
static int icicle, diff, no_comm, quiet, strict;
static int64_t max_memory = -1;

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

static int set_max_memory(const struct option *o, const char *arg)
{
	(void)o;
	max_memory = parse_size(arg);
	if (max_memory <= 0) {
		cmd_error("--max-memory: '%s' is not a size (e.g. 512M, 4G)", arg);
		return -1;
	}
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
	OPT_GROUP("Robustness"),
	OPT_FLAG(0, "strict", &strict, "fail on damage that is normally a warning"),
	OPT_CALLBACK(0, "max-memory", NULL, "SIZE", "memory limit for the profile and graph (default 8G)", set_max_memory),
	OPT_FLAG('q', "quiet", &quiet, "no warnings"),
	OPT_END(),
};

static int check_options(void)
{
	if (value && strcmp(value, "samples") == 0) {
		opts.value = PK_VALUE_SAMPLES;
	} else if (value && strcmp(value, "period") == 0) {
		opts.value = PK_VALUE_PERIOD;
	} else if (value) {
		cmd_error("--value: expected 'samples' or 'period', not '%s'", value);
		return -1;
	}
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
	struct pk_context *ctx;
	struct pk_profile *p;
	int rc;

	pk_options_init(&opts);
	argc = parse_options(argc, argv, options, &info);
	if (check_options())
		return 2;
	if (!writer) {
		cmd_error("this build has no flame graph writer");
		return 2;
	}
	ctx = cmd_context(quiet);
	if (!ctx)
		return 1;
	pk_context_set_strict(ctx, strict);
	if (max_memory > 0)
		pk_context_set_max_memory(ctx, (uint64_t)max_memory);
	p = pk_profile_new(writer->flags);
	rc = p ? cmd_read_inputs(ctx, argc, argv, from, p, &opts) :
		pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && strict && pk_warning_count(ctx))
		rc = pk_error_set(ctx, PK_EINPUT, "stopping: warnings with --strict");
	if (!rc)
		rc = cmd_write_output(ctx, writer, p, &opts, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
