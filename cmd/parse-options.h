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
	OPTION_KEY,		/* a library option declared with a flag: its
				 * name, value and help are the declaration's */
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
	const char *key;	/* the library option it sets, or NULL */
};

#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL, NULL, NULL }
#define OPT_GROUP(h) { OPTION_GROUP, 0, NULL, NULL, NULL, (h), NULL, NULL }
#define OPT_FLAG(s, l, v, h) { OPTION_FLAG, (s), (l), (v), NULL, (h), NULL, NULL }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), NULL, NULL }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ OPTION_CALLBACK, (s), (l), (v), (a), (h), (f), NULL }
/* The long option a library option's declaration names for it
 * (pk_option_flag): "folded:pid" is --pid; it sets that key. */
#define OPT_KEY(k) { OPTION_KEY, 0, NULL, NULL, NULL, NULL, NULL, (k) }

struct command_info {
	const char *name;	/* "profkit-convert" */
	const char *summary;	/* one line */
	const char *const *usage;	/* NULL-terminated usage lines */
	const char *examples;	/* shown after the options */
	/* The scopes of the library options --help lists by key after the
	 * options, separated by spaces ("flamegraph folded"; "*": every
	 * format's); NULL: none. */
	const char *key_scopes;
};

/*
 * Parse argv in place; the remaining operands are moved to argv[0..n).
 * Handles --help (exit 0) and --version (exit 0), and for the build
 * --help-troff (the man page's options), --list-options and --list-keys
 * (the bash completion's words); a bad option prints the usage and
 * exits 2. Returns the operand count.
 */
int parse_options(int argc, char **argv, const struct option *opts,
		  const struct command_info *info);
/* Parse "64M", "2G", "1048576" into bytes; -1 when malformed. */
int64_t parse_size(const char *s);

#endif
