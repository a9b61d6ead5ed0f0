/* SPDX-License-Identifier: MIT */
/* profkit-convert: read a profile in one format, write it in another. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const convert_usage[] = {
	"profkit-convert [--from=FMT] --to=FMT [-o FILE] [FILE...]",
	"profkit-convert --to=FMT -O DIR [-j N] [--keep-going] FILE...",
	"profkit-convert --list-formats",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-convert",
	.summary = "Convert CPU and memory profiles between formats. Reads "
		   "standard input when no FILE\nis given and writes standard "
		   "output unless -o is given; several FILEs are summed.",
	.usage = convert_usage,
	.examples =
		"  perf script | profkit-convert --to=folded | flamegraph.pl > cpu.svg\n"
		"  perf script | profkit-convert --to=speedscope -o cpu.speedscope.json\n"
		"  profkit-convert --to=pprof -o cpu.pb.gz out.txt && pprof -top cpu.pb.gz\n"
		"  profkit-convert --to=dot out.txt | dot -Tsvg > graph.svg\n"
		"  profkit-convert --to=pprof -O out/ -j 2 --keep-going profiles/*\n"
		"  profkit-convert --to=flamegraph -X flamegraph:width=1600 -o cpu.svg perf.data\n",
	.key_scopes = "*",
};

static const char *to, *output, *out_dir, *jobs_arg;
static int list_formats, keep_going, jobs = 1;
static struct cmd_robustness robust;

static int set_all(const struct option *o, const char *arg)
{
	(void)o;
	return cmd_set_option("folded:kernel", arg, "--all") ||
	       cmd_set_option("folded:jit", arg, "--all");
}

static const struct option options[] = {
	OPT_GROUP("Formats"),
	OPT_KEY("from"),
	OPT_STRING(0, "to", &to, "FMT", "output format (required)"),
	OPT_FLAG(0, "list-formats", &list_formats, "list the formats and exit"),
	OPT_STRING('o', "output", &output, "FILE", "write FILE (atomically) instead of stdout"),
	OPT_GROUP("Batches"),
	OPT_STRING('O', "output-dir", &out_dir, "DIR", "one output per input FILE, in DIR"),
	OPT_STRING('j', "jobs", &jobs_arg, "N", "with -O: convert N files at once"),
	OPT_FLAG(0, "keep-going", &keep_going, "with -O: go on past a bad file"),
	OPT_GROUP("Samples"),
	OPT_KEY("event"),
	OPT_KEY("value"),
	OPT_KEY("sample-type"),
	OPT_GROUP("JFR input"),
	OPT_KEY("jfr:signatures"),
	OPT_GROUP("Folded output (as stackcollapse-perf.pl)"),
	OPT_KEY("folded:pid"),
	OPT_KEY("folded:tid"),
	OPT_KEY("folded:kernel"),
	OPT_KEY("folded:jit"),
	OPT_CALLBACK(0, "all", NULL, NULL, "--kernel and --jit", set_all),
	OPT_KEY("folded:addrs"),
	OPT_KEY("folded:no-comm"),
	OPT_GROUP("pprof output"),
	OPT_KEY("pprof:gzip"),
	OPT_KEY("pprof:labels"),
	OPT_GROUP("OpenTelemetry profiles output (otlp, otlp-json)"),
	OPT_KEY("otlp:service-name"),
	OPT_KEY("otlp:resource"),
	OPT_KEY("otlp:original-payload"),
	OPT_GROUP("speedscope output"),
	OPT_KEY("speedscope:evented"),
	OPT_GROUP("perf script output"),
	OPT_KEY("perf-script:addresses-only"),
	OPT_GROUP("Call graphs (dot, as gprof2dot)"),
	OPT_KEY("dot:node-thres"),
	OPT_KEY("dot:edge-thres"),
	OPT_GROUP("Any format's option"),
	OPT_BY_KEY("below"),
	OPT_SYMBOLS,
	OPT_ROBUSTNESS(robust, "memory limit for the profile (default 8G)"),
	OPT_END(),
};

static void print_formats(void)
{
	const struct pk_reader *r = NULL;
	const struct pk_writer *w = NULL;

	printf("Input formats (--from):\n");
	while ((r = pk_reader_next(r)))
		printf("  %-16s %s\n", pk_reader_name(r), pk_reader_description(r));
	printf("\nOutput formats (--to):\n");
	while ((w = pk_writer_next(w)))
		printf("  %-16s %s\n", pk_writer_name(w), pk_writer_description(w));
}

static int parse_jobs_option(void)
{
	char *end;

	if (!jobs_arg)
		return 0;
	jobs = (int)strtol(jobs_arg, &end, 10);
	if (*end || jobs < 1 || jobs > 1024) {
		cmd_error("-j: '%s' is not a number of jobs", jobs_arg);
		return -1;
	}
	return 0;
}

/* DIR/INPUT-BASENAME.EXT for -O */
static char *batch_output(const char *dir, const char *input,
			  const struct pk_writer *writer)
{
	const char *base = strrchr(input, '/'), *ext = pk_writer_extension(writer);
	size_t size = strlen(dir) + strlen(input) + strlen(ext) + 2;
	char *path = malloc(size);

	if (path)
		snprintf(path, size, "%s/%s%s", dir, base ? base + 1 : input, ext);
	return path;
}

/* The index of an input before i whose output is the same file, or -1. */
static int same_output_as(int argc, char **argv, int i)
{
	const char *a = strrchr(argv[i], '/');
	int j;

	a = a ? a + 1 : argv[i];
	for (j = 0; j < i && j < argc; j++) {
		const char *b = strrchr(argv[j], '/');

		if (strcmp(a, b ? b + 1 : argv[j]) == 0)
			return j;
	}
	return -1;
}

/* Wait for one child; count it when it failed. */
static void reap(int *running, int *failed)
{
	int status;

	if (wait(&status) < 0)
		return;
	(*running)--;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		(*failed)++;
}

/*
 * -O DIR: one output per input, up to jobs at once (one process each,
 * so a crash or a memory limit costs one file). Stops starting new ones
 * after a failure unless --keep-going. Exits 1 when any input failed
 * (the message says how many): a count would read as "usage" at 2.
 */
static int convert_batch(const struct pk_writer *writer, int argc, char **argv)
{
	int i, running = 0, failed = 0;

	if (!argc) {
		cmd_error("-O needs input FILEs");
		return 2;
	}
	/* names come from base names: refuse before writing anything */
	for (i = 1; i < argc; i++) {
		int j = same_output_as(argc, argv, i);

		if (j >= 0) {
			cmd_error("'%s' and '%s' would both write %s/%s%s: "
				  "convert them in separate runs",
				  argv[j], argv[i], out_dir,
				  strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i],
				  pk_writer_extension(writer));
			return 2;
		}
	}
	if (mkdir(out_dir, 0777) < 0 && errno != EEXIST) {
		cmd_error("cannot create '%s': %s", out_dir, strerror(errno));
		return 3;
	}
	for (i = 0; i < argc && (keep_going || !failed); i++) {
		char *out = batch_output(out_dir, argv[i], writer);
		pid_t pid;

		while (running >= jobs)
			reap(&running, &failed);
		if (!out || (!keep_going && failed)) {
			free(out);
			break;
		}
		fflush(NULL);
		pid = fork();
		if (pid == 0)
			_exit(cmd_convert(writer, 1, &argv[i], out, &robust));
		free(out);
		if (pid < 0) {
			cmd_error("cannot start a job: %s", strerror(errno));
			failed++;
			continue;
		}
		running++;
	}
	while (running > 0)
		reap(&running, &failed);
	if (failed)
		cmd_error("%d of %d inputs failed", failed, argc);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct pk_writer *writer;

	argc = parse_options(argc, argv, options, &info);
	if (list_formats) {
		print_formats();
		return 0;
	}
	if (!to) {
		cmd_error("no output format: give --to=FMT (see --list-formats)");
		return 2;
	}
	writer = cmd_writer(to);
	if (!writer)
		return 2;
	if (parse_jobs_option())
		return 2;
	if (out_dir && output) {
		cmd_error("-o and -O exclude each other: -O writes one file per input");
		return 2;
	}
	if (out_dir)
		return convert_batch(writer, argc, argv);
	return cmd_convert(writer, argc, argv, output, &robust);
}
