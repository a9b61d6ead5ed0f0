/* SPDX-License-Identifier: MIT */
/*
 * The option parser every command shares: a table of options gives the
 * parsing and the --help text, so the two never disagree.
 */
#ifndef PROFKIT_PARSE_OPTIONS_H
#define PROFKIT_PARSE_OPTIONS_H

#include <stdint.h>

enum option_type {
	OPTION_END,
	OPTION_GROUP,		/* a heading in --help */
	OPTION_FLAG,		/* int, set to 1 (or 0 with --no-) */
	OPTION_STRING,		/* const char *, takes a value */
	OPTION_CALLBACK,	/* calls cb with the value (NULL; "0" for --no-) */
};

struct option;
typedef int (*option_cb)(const struct option *opt, const char *arg);

struct option {
	enum option_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* value placeholder; NULL: takes none */
	const char *help;
	option_cb cb;
};

#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL, NULL }
#define OPT_GROUP(h) { OPTION_GROUP, 0, NULL, NULL, NULL, (h), NULL }
#define OPT_FLAG(s, l, v, h) { OPTION_FLAG, (s), (l), (v), NULL, (h), NULL }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), NULL }
#define OPT_CALLBACK(s, l, v, a, h, f) { OPTION_CALLBACK, (s), (l), (v), (a), (h), (f) }

struct command_info {
	const char *name;	/* "profkit-convert" */
	const char *summary;	/* one line */
	const char *const *usage;	/* NULL-terminated usage lines */
	const char *examples;	/* shown after the options */
};

/*
 * Parse argv in place; the remaining operands are moved to argv[0..n).
 * Handles --help (exit 0) and --version (exit 0); a bad option prints
 * the usage and exits 2. Returns the operand count.
 */
int parse_options(int argc, char **argv, const struct option *opts,
		  const struct command_info *info);
void usage_with_options(const struct option *opts,
			const struct command_info *info, int to_stderr);
/* Parse "64M", "2G", "1048576" into bytes; -1 when malformed. */
int64_t parse_size(const char *s);

#endif
