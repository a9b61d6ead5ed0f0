/* SPDX-License-Identifier: MIT */
/*
 * Options by key. Whoever reads an option declares it (struct
 * pki_option): the pipeline's own settings here, a format's in its own
 * file (lib/formats/), a transform's in its own (lib/transforms/). Keys
 * are scoped by their owner's name ("FORMAT:OPTION"); the pipeline's own
 * are bare ("event", "binary"). Core names no format's option.
 *
 * Core keeps the values, checked against their declarations, and gives
 * them back typed; it finds no declaration by key (lib/pipeline/ does,
 * as it sees every table). The pipeline's settings are also kept in the
 * fields of struct pk_options, which every layer reads directly.
 */
#ifndef PROFKIT_OPTIONS_H
#define PROFKIT_OPTIONS_H

#include <stdbool.h>

#include <profkit/format.h>

struct pki_option {
	const char *key;	/* NULL ends a table */
	enum pk_option_type type;
	const char *def;	/* the default, as text; NULL: none */
	const char *help;	/* one line, as --help shows it */
	const char *const *choices;	/* PK_OPTION_CHOICE: NULL-terminated */
	/* The long option the commands take for it ("binary" is --binary),
	 * and its value's name in --help ("FILE"; NULL for a flag). */
	const char *flag;
	const char *value_name;
	/* PK_OPTION_UINT: the bounds (0 and 0: from 0 up) */
	unsigned min, max;
	/* PK_OPTION_STRING: each value set is added to the earlier ones,
	 * one a line (a value holds no newline), where others replace
	 * them: --resource=a=1 --resource=b=2 is "a=1\nb=2"; setting ""
	 * or NULL forgets them all. */
	bool repeat;
};

/* The column a single-value view weighs (the choices of "value"). */
enum pk_value_choice {
	PK_VALUE_AUTO = -1,	/* period when the input has one */
	PK_VALUE_SAMPLES,
	PK_VALUE_PERIOD,
};

/* One value set by key: its declaration and the text, checked. */
struct pki_option_setting {
	const struct pki_option *decl;
	char *text;
};

struct pk_options {
	/* The pipeline's settings, the values of pki_pipeline_options[]
	 * (the strings point into the settings below) */
	const char *from;	/* a reader's name; NULL: detect */
	int value;		/* enum pk_value_choice */
	const char *event;	/* keep this event only; NULL: the first */
	const char *sample_type;	/* show this sample type (by name) */
	unsigned threads;	/* threads reading one large text or
				 * perf.data input and sorting a large
				 * profile's samples; 0: one per core */
	unsigned max_stack;	/* frames kept per stack, leaf side;
				 * 0: PK_DEFAULT_MAX_STACK */
	bool no_symbolize;
	bool inline_frames;	/* inlined functions as frames always */
	int demangle;		/* index of "demangle"'s choices; -1: the
				 * input's tool's */
	const char *binary;	/* the main program */
	const char *symbol_path;	/* DIR[:DIR...] searched for binaries */
	const char *symfs;	/* root of another machine's files */
	const char *kallsyms;	/* kernel symbols */
	bool no_unwind;		/* perf.data: leave --call-graph dwarf
				 * user stacks at the sampled frame */

	/* every value set, the pipeline's too */
	struct pki_option_setting *settings;
	size_t nsettings;
};

/* The pipeline's own options (core may name these: they are no
 * format's); a table ending with a NULL key. */
extern const struct pki_option pki_pipeline_options[];

/* The defaults, for calls given no options; they own no strings. */
extern const struct pk_options pki_default_options;

/*
 * Check value against decl and keep it in opts, in place of an earlier
 * one. A flag's NULL is "1"; a string's NULL or "" unsets it. 0, or
 * PK_EUSAGE naming the key and what it takes.
 */
int pki_options_store(struct pk_context *ctx, struct pk_options *opts,
		      const struct pki_option *decl, const char *value);

/*
 * Values of decl: the one set in opts, else the default (opts may be
 * NULL). Each getter is for its type: flag (0 or 1), uint, number
 * (PK_OPTION_PERCENT, PK_OPTION_SECONDS), string (NULL: none) and
 * choice (the index into decl->choices; -1: none). pki_option_text is
 * the value as given or the default, NULL when there is neither.
 */
int pki_option_flag(const struct pk_options *opts, const struct pki_option *decl);
unsigned pki_option_uint(const struct pk_options *opts, const struct pki_option *decl);
double pki_option_number(const struct pk_options *opts, const struct pki_option *decl);
const char *pki_option_string(const struct pk_options *opts, const struct pki_option *decl);
int pki_option_choice(const struct pk_options *opts, const struct pki_option *decl);
const char *pki_option_text(const struct pk_options *opts, const struct pki_option *decl);

#endif
