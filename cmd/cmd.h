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

/*
 * The command's library options (struct pk_options), created on first
 * use. Options the library knows by name are set straight from the
 * command line with OPT_PK, so a command and pk_options_set(3) take the
 * same words.
 */
struct pk_options *cmd_options(void);
/* Set the library option named as the long option (an OPT_CALLBACK);
 * a flag without a value is "1". */
int cmd_opt_pk(const struct option *o, const char *arg);
/* Set a library option from the command's own code; prints the error. */
int cmd_set_option(const char *key, const char *value);
#define OPT_PK(s, l, a, h) OPT_CALLBACK((s), (l), NULL, (a), (h), cmd_opt_pk)

/* The options every command that reads raw addresses takes, and the
 * bound on stack depth that every reader obeys. */
#define OPT_SYMBOLS \
	OPT_GROUP("Symbols"), \
	OPT_PK(0, "binary", "FILE", "the main program's binary"), \
	OPT_PK(0, "symbol-path", "DIRS", "look for binaries here (DIR:DIR)"), \
	OPT_PK(0, "symfs", "DIR", "root of the recording machine's files"), \
	OPT_PK(0, "kallsyms", "FILE", "the recording kernel's kallsyms"), \
	OPT_PK(0, "demangle", "STYLE", "names as 'perf' or 'pprof' shows them, 'full' or 'none'"), \
	OPT_PK(0, "inline", NULL, "inlined functions as frames (perf.data: unwound stacks have them)"), \
	OPT_PK(0, "no-unwind", NULL, "--call-graph dwarf: the sampled user frame only"), \
	OPT_PK(0, "no-symbolize", NULL, "keep raw addresses"), \
	OPT_GROUP("Input limits"), \
	OPT_PK(0, "max-stack", "N", "keep the N leaf-side frames of deeper stacks (4096)"), \
	OPT_PK(0, "threads", "N", "read a large perf script text file on N threads (one per core)")

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

/* pk_load every path (stdin when none) into p: several are summed. */
int cmd_read_inputs(struct pk_context *ctx, int argc, char **argv,
		    struct pk_profile *p);
/* pk_load one input (stdin for NULL) into a new profile. */
int cmd_read_profile(struct pk_context *ctx, const char *path,
		     unsigned flags, struct pk_profile **out);
/* The writer of --to, or NULL after an error that names the format
 * most like it. */
const struct pk_writer *cmd_writer(const char *to);
/* The one of n names a mistyped name most likely means, or NULL. */
const char *cmd_closest_name(const char *typed, const char *const *names,
			     size_t n);
/* pk_write p with writer to path (stdout when NULL). */
int cmd_write_output(struct pk_context *ctx, const struct pk_writer *w,
		     const struct pk_profile *p, const char *path);
/*
 * Read argv (stdin when none; several are summed) and write the profile
 * with writer to out_path (stdout when NULL). Returns the exit code.
 */
int cmd_convert(const struct pk_writer *writer, int argc, char **argv,
		const char *out_path, const struct cmd_robustness *r);

#endif
