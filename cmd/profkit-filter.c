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
};

static struct pk_filter filter;
static const char *pid, *tid, *from_time, *to_time, *min_percent;

static int parse_number(const char *s, const char *option, int64_t *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (!*s || *end || v < 0) {
		cmd_error("%s: '%s' is not a number", option, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Seconds as perf script prints them ("2542.560001") to nanoseconds. */
static int parse_time(const char *s, const char *option, uint64_t *out)
{
	char *end;
	double secs = strtod(s, &end);

	if (!*s || *end || secs < 0) {
		cmd_error("%s: '%s' is not a time in seconds", option, s);
		return -1;
	}
	*out = (uint64_t)(secs * 1e9 + 0.5);
	return 0;
}

static int parse_filter_numbers(void)
{
	char *end;

	if (pid && parse_number(pid, "--pid", &filter.pid))
		return -1;
	if (tid && parse_number(tid, "--tid", &filter.tid))
		return -1;
	if (from_time && parse_time(from_time, "--from-time", &filter.from_time))
		return -1;
	if (to_time && parse_time(to_time, "--to-time", &filter.to_time))
		return -1;
	if (min_percent) {
		filter.min_percent = strtod(min_percent, &end);
		if (*end || filter.min_percent < 0 || filter.min_percent > 100) {
			cmd_error("--min-percent: '%s' is not a percentage", min_percent);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *to = "folded", *output = NULL;
	int quiet = 0;
	const struct option options[] = {
		OPT_GROUP("Tests"),
		OPT_STRING(0, "focus", &filter.focus, "RE", "keep samples through a matching function"),
		OPT_STRING(0, "ignore", &filter.ignore, "RE", "drop samples through a matching function"),
		OPT_STRING(0, "prune-from", &filter.prune_from, "RE", "drop the callees of a matching function"),
		OPT_STRING(0, "pid", &pid, "PID", "keep this process"),
		OPT_STRING(0, "tid", &tid, "TID", "keep this thread"),
		OPT_STRING(0, "comm", &filter.comm, "RE", "keep threads whose name matches"),
		OPT_PK(0, "event", "NAME", "keep this event"),
		OPT_PK(0, "field", "NAME=VALUE", "keep tracepoint samples with this field"),
		OPT_STRING(0, "from-time", &from_time, "SECS", "keep samples from this time (as perf prints)"),
		OPT_STRING(0, "to-time", &to_time, "SECS", "keep samples up to this time"),
		OPT_STRING(0, "min-percent", &min_percent, "PCT", "drop stacks under PCT% of the total"),
		OPT_PK(0, "value", "KIND", "weigh --min-percent by 'samples' or 'period'"),
		OPT_GROUP("Input and output"),
		OPT_PK(0, "from", "FMT", "input format (default: detect)"),
		OPT_STRING(0, "to", &to, "FMT", "output format (default: folded)"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	const struct pk_writer *writer;
	struct pk_profile *in = NULL, *out = NULL;
	struct pk_context *ctx;
	unsigned flags;
	int rc;

	pk_filter_init(&filter);
	argc = parse_options(argc, argv, options, &info);
	if (argc > 1) {
		cmd_error("give one input FILE (merge several with profkit-merge first)");
		return 2;
	}
	if (parse_filter_numbers() || !(writer = cmd_writer(to)) || !(ctx = cmd_context(quiet)))
		return 2;
	/* time tests need every sample with its own time */
	flags = writer->flags | (from_time || to_time ? PK_PROFILE_KEEP_ORDER : 0);
	rc = cmd_read_profile(ctx, argc ? argv[0] : NULL, flags, &in);
	if (!rc)
		rc = pk_profile_filter(ctx, in, &filter, cmd_options(), &out);
	if (!rc)
		rc = cmd_write_output(ctx, writer, out, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(in);
	pk_profile_free(out);
	pk_context_free(ctx);
	return rc;
}
