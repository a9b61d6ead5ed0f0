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
 * use. Every flag that is a library option sets it by key: OPT_KEY rows
 * take their flag and help from the option's declaration (--width is
 * "flamegraph:width"), OPT_PK rows are the pipeline's bare keys with a
 * command's own help (--event is "event"); -X sets any key.
 */
struct pk_options *cmd_options(void);
/* Set the row's key (an OPT_CALLBACK); a flag without a value is "1". */
int cmd_opt_key(const struct option *o, const char *arg);
/* Set a library option from the command's own code; prints the error,
 * with the key spelled as the user gave it (e.g. "--width"). */
int cmd_set_option(const char *key, const char *value, const char *spelled);
#define OPT_PK(s, l, a, h) \
	{ OPTION_CALLBACK, (s), (l), NULL, (a), (h), cmd_opt_key, (l) }
/* -X KEY=VALUE, --option=KEY=VALUE: any library option (as bsdtar's
 * --options) */
int cmd_opt_by_key(const struct option *o, const char *arg);
#define OPT_BY_KEY(where) \
	OPT_CALLBACK('X', "option", NULL, "KEY=VALUE", \
		     "set an option by key (" where "); repeatable", cmd_opt_by_key)

/* The options every command that reads raw addresses takes, and the
 * bound on stack depth that every reader obeys. */
#define OPT_SYMBOLS \
	OPT_GROUP("Symbols"), \
	OPT_KEY("binary"), \
	OPT_KEY("symbol-path"), \
	OPT_KEY("symfs"), \
	OPT_KEY("kallsyms"), \
	OPT_KEY("demangle"), \
	OPT_KEY("inline"), \
	OPT_KEY("no-unwind"), \
	OPT_KEY("no-symbolize"), \
	OPT_GROUP("Input limits"), \
	OPT_KEY("max-stack"), \
	OPT_KEY("threads")

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
