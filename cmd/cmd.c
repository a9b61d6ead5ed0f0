/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "parse-options.h"

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

struct pk_options *cmd_options(void)
{
	static struct pk_options *opts;

	if (!opts && !(opts = pk_options_new())) {
		cmd_error("out of memory");
		exit(1);
	}
	return opts;
}

int cmd_set_option(const char *key, const char *value, const char *spelled)
{
	struct pk_context *ctx = pk_context_new();
	const char *msg;
	size_t n = strlen(key);
	int rc;

	if (!ctx) {
		cmd_error("out of memory");
		return -1;
	}
	rc = pk_options_set(ctx, cmd_options(), key, value);
	msg = pk_context_error(ctx)->message;
	/* the library's "KEY: expected ..." as "--flag: expected ..." */
	if (rc && strncmp(msg, key, n) == 0 && msg[n] == ':')
		cmd_error("%s%s", spelled, msg + n);
	else if (rc)
		cmd_error("%s", msg);
	pk_context_free(ctx);
	return rc ? -1 : 0;
}

int cmd_opt_key(const struct option *o, const char *arg)
{
	char spelled[64];

	snprintf(spelled, sizeof(spelled), "--%s", o->long_name);
	return cmd_set_option(o->key, arg, spelled);
}

int cmd_opt_by_key(const struct option *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *key = eq ? strndup(arg, (size_t)(eq - arg)) : strdup(arg);
	int rc;

	(void)o;
	if (!key) {
		cmd_error("out of memory");
		return -1;
	}
	rc = cmd_set_option(key, eq ? eq + 1 : NULL, key);
	free(key);
	return rc;
}

int cmd_read_profile(struct pk_context *ctx, const char *path,
		     unsigned flags, struct pk_profile **out)
{
	struct pk_profile *p = pk_profile_new(flags);
	int rc = p ? pk_load(ctx, path, cmd_options(), p) :
		pk_error_set(ctx, PK_ENOMEM, "out of memory");

	if (rc) {
		pk_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int cmd_read_inputs(struct pk_context *ctx, int argc, char **argv,
		    struct pk_profile *p)
{
	int i, rc;

	if (argc == 0)
		return pk_load(ctx, NULL, cmd_options(), p);
	for (i = 0; i < argc; i++) {
		rc = pk_load(ctx, argv[i], cmd_options(), p);
		if (rc)
			return rc;
	}
	return 0;
}

int cmd_write_output(struct pk_context *ctx, const struct pk_writer *w,
		     const struct pk_profile *p, const char *path)
{
	return pk_write(ctx, p, w, cmd_options(), path);
}

const struct pk_writer *cmd_writer(const char *to)
{
	const struct pk_writer *w = pk_writer_find(to);
	const char *names[32], *meant;
	size_t n = 0;

	if (w)
		return w;
	for (w = pk_writer_next(NULL); w && n < sizeof(names) / sizeof(names[0]);
	     w = pk_writer_next(w))
		names[n++] = pk_writer_name(w);
	meant = cmd_closest_name(to, names, n);
	cmd_error("unknown output format '%s'%s%s%s (see %s--list-formats)", to,
		  meant ? ": did you mean '" : "", meant ? meant : "",
		  meant ? "'?" : "", strcmp(command_name, "profkit-convert") ?
		  "profkit-convert " : "");
	return NULL;
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

int cmd_convert(const struct pk_writer *writer, int argc, char **argv,
		const char *out_path, const struct cmd_robustness *r)
{
	struct pk_context *ctx = cmd_context(r->quiet);
	struct pk_profile *p;
	int rc;

	if (!ctx)
		return 1;
	pk_context_set_strict(ctx, r->strict);
	if (r->max_memory > 0)
		pk_context_set_max_memory(ctx, (uint64_t)r->max_memory);
	p = pk_profile_new(pk_writer_profile_flags(writer));
	rc = p ? cmd_read_inputs(ctx, argc, argv, p) :
		pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && r->strict && pk_warning_count(ctx))
		rc = pk_error_set(ctx, PK_EINPUT,
				  "stopping: warnings with --strict");
	if (!rc)
		rc = cmd_write_output(ctx, writer, p, out_path);
	rc = cmd_report(ctx, rc);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}
