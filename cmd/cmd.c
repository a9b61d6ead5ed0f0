/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <profkit/symbolize.h>

#include "cmd.h"
#include "parse-options.h"

int cmd_no_symbolize, cmd_inline, cmd_no_unwind;
int cmd_demangle = -1;

static const char *command_name = "profkit";

void cmd_set_name(const char *name)
{
	command_name = name;
}

const char *cmd_name(void)
{
	return command_name;
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", command_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cmd_report(struct pk_context *ctx, int rc)
{
	const struct pk_error *err = pk_context_error(ctx);

	if (rc == PK_OK)
		return 0;
	if (err->code != PK_OK && err->message[0])
		cmd_error("%s", err->message);
	else
		cmd_error("%s", pk_strerror(rc));
	return pk_exit_code(err->code != PK_OK ? err->code : rc);
}

static void print_warning(void *data, const char *message)
{
	(void)data;
	fprintf(stderr, "%s: warning: %s\n", command_name, message);
}

static double seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * "reading perf.data: 412 / 1024 MB, 310 MB/s, 2 s left" on the last
 * line of the terminal, from the second second on, a few times a second;
 * erased when the work ends.
 */
static void print_progress(void *data, const char *what, uint64_t done,
			   uint64_t total)
{
	static double start, last;
	static int shown;
	double now = seconds_now(), rate;

	(void)data;
	if (!what || (total && done >= total)) {
		if (shown)
			fputs("\r\033[K", stderr);
		shown = 0;
		start = 0;
		return;
	}
	if (!start)
		start = last = now;
	if (now - start < 1 || now - last < 0.25)
		return;
	last = now;
	rate = (double)done / (now - start) / 1e6;
	fprintf(stderr, "\r\033[K%s: %s: %.0f", cmd_name(), what, (double)done / 1e6);
	if (total)
		fprintf(stderr, " / %.0f MB, %.0f MB/s, %.0f s left",
			(double)total / 1e6, rate,
			rate > 0 ? (double)(total - done) / 1e6 / rate : 0.0);
	else
		fprintf(stderr, " MB, %.0f MB/s", rate);
	shown = 1;
}

struct pk_context *cmd_context(int quiet)
{
	struct pk_context *ctx = pk_context_new();

	if (!ctx) {
		cmd_error("out of memory");
		return NULL;
	}
	if (!quiet)
		pk_context_set_warn(ctx, print_warning, NULL);
	/* progress only for a person watching: a terminal, not -q */
	if (!quiet && isatty(STDERR_FILENO))
		pk_context_set_progress(ctx, print_progress, NULL);
	return ctx;
}

/* Was the recording made on the kernel running now? */
static int same_kernel(const struct pk_profile *p)
{
	const char *recorded = pk_profile_meta(p, "os-release");
	struct utsname u;

	return recorded && uname(&u) == 0 && strcmp(recorded, u.release) == 0;
}

/* Fill in the functions of locations that only have addresses. */
static int symbolize(struct pk_context *ctx, struct pk_profile *p,
		     const struct pk_options *opts,
		     const struct pk_reader *reader, int unwound)
{
	struct pk_symbolize_options so;
	struct pk_symbolizer *s;
	int rc;

	pk_symbolize_options_init(&so);
	so.binary = opts->binary;
	so.symbol_path = opts->symbol_path;
	so.symfs = opts->symfs;
	so.kallsyms = opts->kallsyms;
	so.local_kernel = same_kernel(p);
	if (cmd_demangle >= 0)
		so.demangle = (enum pk_demangle)cmd_demangle;
	else if (reader->flags & PK_READER_PPROF_NAMES)
		so.demangle = PK_DEMANGLE_SIMPLE;
	/* perf script shows inlined functions in the stacks it unwinds
	 * (--call-graph dwarf), not in frame-pointer callchains */
	so.no_inline = !cmd_inline && (reader->flags & PK_READER_NO_INLINE) &&
		       !unwound;
	so.names_only = opts->names_only;
	s = pk_symbolizer_new(ctx, &so);
	if (!s)
		return pk_context_error(ctx)->code;
	rc = pk_symbolize(s, p);
	pk_symbolizer_free(s);
	return rc;
}

/* The perf.data reader's "dwarf-unwinding" fact, "" when absent. */
static const char *unwinding_fact(const struct pk_profile *p)
{
	const char *v = pk_profile_meta(p, PK_META_DWARF_UNWINDING);

	return v ? v : "";
}

static int read_one(struct pk_context *ctx, const char *path,
		    const char *from, struct pk_profile *p,
		    const struct pk_options *opts, const struct pk_reader **used)
{
	const struct pk_reader *reader = NULL;
	struct pk_input *in = NULL;
	struct pk_options o = *opts;
	char *earlier = NULL;
	int rc, unwound;

	o.no_unwind |= cmd_no_unwind;
	opts = &o;
	if (from && strcmp(from, "auto") != 0) {
		reader = pk_reader_find(from);
		if (!reader)
			return pk_error_set(ctx, PK_EUSAGE,
					    "unknown input format '%s' (see "
					    "--list-formats)", from);
	}
	rc = pk_input_open(ctx, path, &in);
	if (!rc && !reader)
		rc = pk_reader_detect(ctx, in, &reader);
	/* whether this input's stacks were unwound, not an earlier one's */
	earlier = strdup(unwinding_fact(p));
	if (!rc && !earlier)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && *earlier)
		pk_profile_set_meta(p, PK_META_DWARF_UNWINDING, "");
	if (!rc)
		rc = pk_read(ctx, in, reader, p, opts);
	unwound = *unwinding_fact(p) != '\0';
	if (!unwound && earlier && *earlier)
		pk_profile_set_meta(p, PK_META_DWARF_UNWINDING, earlier);
	if (!rc && !cmd_no_symbolize && !opts->no_symbolize)
		rc = symbolize(ctx, p, opts, reader, unwound);
	free(earlier);
	if (!rc && used)
		*used = reader;
	pk_input_close(in);
	return rc;
}

int cmd_read_profile(struct pk_context *ctx, const char *path, const char *from,
		     unsigned flags, const struct pk_options *opts,
		     struct pk_profile **out, const struct pk_reader **used)
{
	struct pk_profile *p = pk_profile_new(flags);
	int rc = p ? read_one(ctx, path, from, p, opts, used) :
		pk_error_set(ctx, PK_ENOMEM, "out of memory");

	if (rc) {
		pk_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int cmd_read_inputs(struct pk_context *ctx, int argc, char **argv,
		    const char *from, struct pk_profile *p,
		    const struct pk_options *opts)
{
	int i, rc;

	if (argc == 0)
		return read_one(ctx, NULL, from, p, opts, NULL);
	for (i = 0; i < argc; i++) {
		rc = read_one(ctx, argv[i], from, p, opts, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

int cmd_write_output(struct pk_context *ctx, const struct pk_writer *w,
		     const struct pk_profile *p,
		     const struct pk_options *opts, const char *path)
{
	struct pk_output *out;
	int rc;

	rc = pk_output_open(ctx, path, &out);
	if (rc)
		return rc;
	rc = w->write(ctx, p, opts, out);
	if (rc) {
		pk_output_abort(out);
		return rc;
	}
	return pk_output_commit(out);
}

const struct pk_writer *cmd_writer(const char *to)
{
	const struct pk_writer *w = pk_writer_find(to);

	if (!w)
		cmd_error("unknown output format '%s' (see profkit-convert "
			  "--list-formats)", to);
	return w;
}

int cmd_opt_max_memory(const struct option *o, const char *arg)
{
	int64_t size = parse_size(arg);

	if (size <= 0) {
		cmd_error("--max-memory: '%s' is not a size (e.g. 512M, 4G)",
			  arg);
		return -1;
	}
	*(int64_t *)o->value = size;
	return 0;
}

int cmd_opt_demangle(const struct option *o, const char *arg)
{
	static const struct {
		const char *name;
		enum pk_demangle style;
	} styles[] = {
		{ "perf", PK_DEMANGLE_SHORT }, { "pprof", PK_DEMANGLE_SIMPLE },
		{ "full", PK_DEMANGLE_FULL }, { "none", PK_DEMANGLE_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(styles) / sizeof(styles[0]); i++) {
		if (strcmp(arg, styles[i].name) == 0) {
			*(int *)o->value = (int)styles[i].style;
			return 0;
		}
	}
	cmd_error("--demangle: expected 'perf', 'pprof', 'full' or 'none', "
		  "not '%s'", arg);
	return -1;
}

int cmd_parse_value(const char *value, struct pk_options *opts)
{
	if (!value)
		return 0;
	if (strcmp(value, "samples") == 0)
		opts->value = PK_VALUE_SAMPLES;
	else if (strcmp(value, "period") == 0)
		opts->value = PK_VALUE_PERIOD;
	else {
		cmd_error("--value: expected 'samples' or 'period', not '%s'",
			  value);
		return -1;
	}
	return 0;
}

int cmd_convert(const struct pk_writer *writer, int argc, char **argv,
		const char *from, const struct pk_options *opts,
		const char *out_path, const struct cmd_robustness *r)
{
	struct pk_context *ctx = cmd_context(r->quiet);
	struct pk_options read_opts = *opts;
	struct pk_profile *p;
	int rc;

	if (!ctx)
		return 1;
	pk_context_set_strict(ctx, r->strict);
	if (r->max_memory > 0)
		pk_context_set_max_memory(ctx, (uint64_t)r->max_memory);
	read_opts.names_only = writer->names_only;
	p = pk_profile_new(writer->flags);
	rc = p ? cmd_read_inputs(ctx, argc, argv, from, p, &read_opts) :
		pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && r->strict && pk_warning_count(ctx))
		rc = pk_error_set(ctx, PK_EINPUT,
				  "stopping: warnings with --strict");
	if (!rc)
		rc = cmd_write_output(ctx, writer, p, opts, out_path);
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
