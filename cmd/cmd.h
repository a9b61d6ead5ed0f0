/* SPDX-License-Identifier: MIT */
/* What every command shares: its name in messages, error reporting,
 * the warning sink, and the options common to readers and writers. */
#ifndef PROFKIT_CMD_H
#define PROFKIT_CMD_H

#include <profkit/profkit.h>

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
	OPT_FLAG(0, "no-symbolize", &cmd_no_symbolize, "keep raw addresses")

extern int cmd_no_symbolize;

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

#endif
