/* SPDX-License-Identifier: MIT */
/*
 * Options by key, as the commands' long options name them: one table
 * says which field each key sets and what it takes, so the library, the
 * commands and programs using libprofkit agree on every name.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum option_kind {
	KIND_STRING,		/* a copied string; "" is unset */
	KIND_FLAG,		/* a bit: "1" or "0" */
	KIND_NOT_FLAG,		/* a bit holding the negation ("gzip") */
	KIND_CHOICE,		/* one of a list of words, into an int */
	KIND_PERCENT,		/* 0 to 100, into a double */
	KIND_PIXELS,		/* a positive width, into an unsigned */
	KIND_COUNT,		/* a positive whole number, into an unsigned */
};

/* Bit fields have no address: a flag names a setter instead. */
typedef void (*flag_setter)(struct pk_options *o, unsigned on);

#define FLAG_SETTER(field) \
	static void set_##field(struct pk_options *o, unsigned on) { o->field = on; }
FLAG_SETTER(include_pid)
FLAG_SETTER(include_tid)
FLAG_SETTER(annotate_kernel)
FLAG_SETTER(annotate_jit)
FLAG_SETTER(show_addrs)
FLAG_SETTER(no_comm)
FLAG_SETTER(no_gzip)
FLAG_SETTER(no_labels)
FLAG_SETTER(speedscope_evented)
FLAG_SETTER(addresses_only)
FLAG_SETTER(icicle)
FLAG_SETTER(diff)
FLAG_SETTER(no_symbolize)
FLAG_SETTER(inline_frames)
FLAG_SETTER(no_unwind)
FLAG_SETTER(jfr_signatures)

struct choice {
	const char *word;
	int value;
};

static const struct choice value_choices[] = {
	{ "samples", PK_VALUE_SAMPLES },
	{ "period", PK_VALUE_PERIOD }, { NULL, 0 },
};
/* enum pk_demangle of <profkit/symbolize.h>; -1: the input's own tool */
static const struct choice demangle_choices[] = {
	{ "perf", 0 }, { "pprof", 3 }, { "full", 1 }, { "none", 2 },
	{ NULL, 0 },
};
static const struct choice label_choices[] = {
	{ "all", 0 }, { "none", 1 }, { NULL, 0 },
};
static const struct choice palette_choices[] = {
	{ "hot", 0 }, { "mem", 1 }, { "io", 2 }, { NULL, 0 },
};

struct option_key {
	const char *key;
	enum option_kind kind;
	size_t offset;			/* of the field, for non-flags */
	flag_setter set;		/* for flags */
	const struct choice *choices;	/* for KIND_CHOICE */
};

#define STRING(k, f) { k, KIND_STRING, offsetof(struct pk_options, f), NULL, NULL }
#define FLAG(k, f) { k, KIND_FLAG, 0, set_##f, NULL }
#define CHOICE(k, f, c) { k, KIND_CHOICE, offsetof(struct pk_options, f), NULL, c }

static const struct option_key keys[] = {
	STRING("from", from),
	CHOICE("value", value, value_choices),
	STRING("event", event),
	STRING("sample-type", sample_type),
	{ "max-stack", KIND_COUNT, offsetof(struct pk_options, max_stack), NULL, NULL },
	{ "threads", KIND_COUNT, offsetof(struct pk_options, threads), NULL, NULL },
	FLAG("pid", include_pid),
	FLAG("tid", include_tid),
	FLAG("kernel", annotate_kernel),
	FLAG("jit", annotate_jit),
	FLAG("addrs", show_addrs),
	FLAG("no-comm", no_comm),
	{ "gzip", KIND_NOT_FLAG, 0, set_no_gzip, NULL },
	{ "labels", KIND_CHOICE, 0, set_no_labels, label_choices },
	FLAG("speedscope-evented", speedscope_evented),
	FLAG("addresses-only", addresses_only),
	STRING("title", title),
	{ "colors", KIND_STRING, offsetof(struct pk_options, colors), NULL,
	  palette_choices },
	{ "width", KIND_PIXELS, offsetof(struct pk_options, width), NULL, NULL },
	FLAG("icicle", icicle),
	FLAG("diff", diff),
	{ "node-thres", KIND_PERCENT, offsetof(struct pk_options, node_thres), NULL, NULL },
	{ "edge-thres", KIND_PERCENT, offsetof(struct pk_options, edge_thres), NULL, NULL },
	STRING("field", field),
	STRING("binary", binary),
	STRING("symbol-path", symbol_path),
	STRING("symfs", symfs),
	STRING("kallsyms", kallsyms),
	CHOICE("demangle", demangle, demangle_choices),
	FLAG("inline", inline_frames),
	FLAG("no-symbolize", no_symbolize),
	FLAG("no-unwind", no_unwind),
	FLAG("jfr-signatures", jfr_signatures),
};

/* The owned strings are the STRING keys' fields. */
static const char **string_field(struct pk_options *o, const struct option_key *k)
{
	return (const char **)(void *)((char *)o + k->offset);
}

const struct pk_options pki_default_options = {
	.value = PK_VALUE_AUTO,
	.demangle = -1,
	.node_thres = 0.5,
	.edge_thres = 0.1,
};

struct pk_options *pk_options_new(void)
{
	struct pk_options *o = malloc(sizeof(*o));

	if (o)
		*o = pki_default_options;
	return o;
}

void pk_options_free(struct pk_options *opts)
{
	size_t i;

	if (!opts)
		return;
	for (i = 0; i < PK_ARRAY_SIZE(keys); i++)
		if (keys[i].kind == KIND_STRING)
			free((char *)*string_field(opts, &keys[i]));
	free(opts);
}

static int parse_flag(const char *value, unsigned *on)
{
	if (!value || !strcmp(value, "1") || !strcmp(value, "yes") ||
	    !strcmp(value, "true")) {
		*on = 1;
		return 0;
	}
	if (!strcmp(value, "0") || !strcmp(value, "no") || !strcmp(value, "false")) {
		*on = 0;
		return 0;
	}
	return -1;
}

/* The index of value among choices, or -1; words listed into expected. */
static int find_choice(const struct choice *c, const char *value,
		       char *expected, size_t size)
{
	size_t used = 0;
	int i;

	for (i = 0; c[i].word; i++)
		if (value && strcmp(value, c[i].word) == 0)
			return i;
	for (i = 0; c[i].word && used < size; i++)
		used += (size_t)snprintf(expected + used, size - used, "%s'%s'",
					 i == 0 ? "" : c[i + 1].word ? ", " : " or ",
					 c[i].word);
	return -1;
}

static int set_string(struct pk_context *ctx, struct pk_options *o,
		      const struct option_key *k, const char *value)
{
	const char **field = string_field(o, k);
	char expected[128];
	char *copy = NULL;

	if (!value)
		value = "";
	if (k->choices && *value && find_choice(k->choices, value, expected,
						 sizeof(expected)) < 0)
		return pk_error_set(ctx, PK_EUSAGE, "%s: expected %s, not '%s'",
				    k->key, expected, value);
	if (*value && !(copy = strdup(value)))
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	free((char *)*field);
	*field = copy;
	return 0;
}

static int set_number(struct pk_context *ctx, struct pk_options *o,
		      const struct option_key *k, const char *value)
{
	char *end = NULL;
	double d;

	errno = 0;
	d = value ? strtod(value, &end) : 0;
	if (!value || end == value || *end || errno)
		d = -1;
	if (k->kind == KIND_PERCENT) {
		if (!(d >= 0.0 && d <= 100.0))
			return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a "
					    "percentage from 0 to 100", k->key,
					    value ? value : "");
		*(double *)(void *)((char *)o + k->offset) = d;
		return 0;
	}
	if (k->kind == KIND_COUNT &&
	    (!(d >= 1 && d <= UINT32_MAX) || d != (double)(unsigned)d))
		return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a whole "
				    "number from 1", k->key, value ? value : "");
	if (k->kind == KIND_PIXELS &&
	    (!(d >= 200 && d <= 1000000) || d != (double)(unsigned)d))
		return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a width "
				    "from 200 to 1000000 pixels", k->key,
				    value ? value : "");
	*(unsigned *)(void *)((char *)o + k->offset) = (unsigned)d;
	return 0;
}

static int set_choice(struct pk_context *ctx, struct pk_options *o,
		      const struct option_key *k, const char *value)
{
	char expected[128];
	int i = find_choice(k->choices, value, expected, sizeof(expected));

	if (i < 0)
		return pk_error_set(ctx, PK_EUSAGE, "%s: expected %s, not '%s'",
				    k->key, expected, value ? value : "");
	if (k->set)
		k->set(o, k->choices[i].value != 0);
	else
		*(int *)(void *)((char *)o + k->offset) = k->choices[i].value;
	return 0;
}

int pk_options_set(struct pk_context *ctx, struct pk_options *opts,
		   const char *key, const char *value)
{
	size_t i;
	unsigned on;

	for (i = 0; i < PK_ARRAY_SIZE(keys); i++) {
		const struct option_key *k = &keys[i];

		if (strcmp(key, k->key) != 0)
			continue;
		switch (k->kind) {
		case KIND_STRING:
			return set_string(ctx, opts, k, value);
		case KIND_CHOICE:
			return set_choice(ctx, opts, k, value);
		case KIND_PERCENT:
		case KIND_PIXELS:
		case KIND_COUNT:
			return set_number(ctx, opts, k, value);
		case KIND_FLAG:
		case KIND_NOT_FLAG:
			if (parse_flag(value, &on))
				return pk_error_set(ctx, PK_EUSAGE, "%s: expected "
						    "'1' or '0', not '%s'", key, value);
			k->set(opts, k->kind == KIND_FLAG ? on : !on);
			return 0;
		}
	}
	return pk_error_set(ctx, PK_EUSAGE, "unknown option '%s'", key);
}
