/* SPDX-License-Identifier: MIT */
/* What every command shares: its name in messages, error reporting,
 * the warning sink, and the options common to readers and writers. */
#ifndef PROFKIT_CMD_H
#define PROFKIT_CMD_H

#include <stdint.h>

#include <profkit/profkit.h>

struct option;

void cmd_set_name(const char *name);
const char *cmd_name(void);

/* "profkit-x: message" on stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the context's error and return its exit code. */
int cmd_report(struct pk_context *ctx, int rc);
/* A context that prints warnings unless quiet. */
struct pk_context *cmd_context(int quiet);

/* The options every command that reads raw addresses takes. */
#define OPT_SYMBOLS(o) \
	OPT_GROUP("Symbols"), \
	OPT_STRING(0, "binary", &(o).binary, "FILE", "the main program's binary"), \
	OPT_STRING(0, "symbol-path", &(o).symbol_path, "DIRS", "look for binaries here (DIR:DIR)"), \
	OPT_STRING(0, "symfs", &(o).symfs, "DIR", "root of the recording machine's files"), \
	OPT_STRING(0, "kallsyms", &(o).kallsyms, "FILE", "the recording kernel's kallsyms"), \
	OPT_CALLBACK(0, "demangle", &cmd_demangle, "STYLE", "names as 'perf' or 'pprof' shows them, 'full' or 'none'", cmd_opt_demangle), \
	OPT_FLAG(0, "inline", &cmd_inline, "inlined functions as frames (perf.data: unwound stacks have them)"), \
	OPT_FLAG(0, "no-unwind", &cmd_no_unwind, "--call-graph dwarf: the sampled user frame only"), \
	OPT_FLAG(0, "no-symbolize", &cmd_no_symbolize, "keep raw addresses")

extern int cmd_no_symbolize, cmd_inline, cmd_no_unwind;
/* enum pk_demangle from --demangle; -1: the style of the input's tool. */
extern int cmd_demangle;
int cmd_opt_demangle(const struct option *o, const char *arg);

/* How a command treats damage and memory: -q, --strict, --max-memory. */
struct cmd_robustness {
	int quiet, strict;
	int64_t max_memory;	/* bytes; 0: the library's default */
};

#define OPT_ROBUSTNESS(r, memory_help) \
	OPT_GROUP("Robustness"), \
	OPT_FLAG(0, "strict", &(r).strict, "fail on damage that is normally a warning"), \
	OPT_CALLBACK(0, "max-memory", &(r).max_memory, "SIZE", memory_help, cmd_opt_max_memory), \
	OPT_FLAG('q', "quiet", &(r).quiet, "no warnings")

/* --max-memory=SIZE into the int64_t at o->value (an OPT_CALLBACK). */
int cmd_opt_max_memory(const struct option *o, const char *arg);
/* --value=KIND ('samples', 'period'; NULL: keep the default) into opts. */
int cmd_parse_value(const char *value, struct pk_options *opts);

/* Read every path (stdin when none) into p; from may be NULL (auto). */
int cmd_read_inputs(struct pk_context *ctx, int argc, char **argv,
		    const char *from, struct pk_profile *p,
		    const struct pk_options *opts);
/* Read one input (stdin for NULL) into a new profile; used: the reader. */
int cmd_read_profile(struct pk_context *ctx, const char *path, const char *from,
		     unsigned flags, const struct pk_options *opts,
		     struct pk_profile **out, const struct pk_reader **used);
/* Find the writer named by --to, or report it (exit 2). */
const struct pk_writer *cmd_writer(const char *to);
/* Write p with writer to path (stdout when NULL), atomically. */
int cmd_write_output(struct pk_context *ctx, const struct pk_writer *w,
		     const struct pk_profile *p,
		     const struct pk_options *opts, const char *path);
/*
 * Read argv (stdin when none; several are summed) and write the profile
 * with writer to out_path (stdout when NULL). Returns the exit code.
 */
int cmd_convert(const struct pk_writer *writer, int argc, char **argv,
		const char *from, const struct pk_options *opts,
		const char *out_path, const struct cmd_robustness *r);

#endif
