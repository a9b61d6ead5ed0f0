/* SPDX-License-Identifier: MIT */
/*
 * Options by key: the values, checked against their declarations, and
 * the pipeline's own declarations. Which declaration a key names is
 * lib/pipeline/options.c's business: it sees the formats' tables.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum pipeline_option {
	OPT_FROM, OPT_VALUE, OPT_EVENT, OPT_SAMPLE_TYPE, OPT_MAX_STACK,
	OPT_THREADS, OPT_BINARY, OPT_SYMBOL_PATH, OPT_SYMFS, OPT_KALLSYMS,
	OPT_DEMANGLE, OPT_INLINE, OPT_NO_SYMBOLIZE, OPT_NO_UNWIND,
};

static const char *const value_choices[] = { "samples", "period", NULL };
/* lib/pipeline/load.c turns the index into the symbolizer's style */
static const char *const demangle_choices[] = {
	"perf", "pprof", "full", "none", NULL,
};

#define STRING(k, n, h) .key = k, .type = PK_OPTION_STRING, .flag = k, \
	.value_name = n, .help = h
#define FLAG(k, h) .key = k, .type = PK_OPTION_FLAG, .flag = k, .help = h

const struct pki_option pki_pipeline_options[] = {
	[OPT_FROM] = { STRING("from", "FMT", "input format (default: detect)") },
	[OPT_VALUE] = { .key = "value", .type = PK_OPTION_CHOICE,
		.choices = value_choices, .flag = "value", .value_name = "KIND",
		.help = "weigh stacks by 'samples' or 'period'" },
	[OPT_EVENT] = { STRING("event", "NAME", "keep this event only (default: "
			       "the first; also off-cpu, wall)") },
	[OPT_SAMPLE_TYPE] = { STRING("sample-type", "T", "show this sample "
				     "type (as pprof's -sample_index)") },
	[OPT_MAX_STACK] = { .key = "max-stack", .type = PK_OPTION_UINT, .min = 1,
		.flag = "max-stack", .value_name = "N",
		.help = "keep the N leaf-side frames of deeper stacks (4096)" },
	[OPT_THREADS] = { .key = "threads", .type = PK_OPTION_UINT, .min = 1,
		.flag = "threads", .value_name = "N",
		.help = "read large inputs and sort many samples on N threads (one per core)" },
	[OPT_BINARY] = { STRING("binary", "FILE", "the main program's binary") },
	[OPT_SYMBOL_PATH] = { STRING("symbol-path", "DIRS",
				     "look for binaries here (DIR:DIR)") },
	[OPT_SYMFS] = { STRING("symfs", "DIR", "root of the recording machine's files") },
	[OPT_KALLSYMS] = { STRING("kallsyms", "FILE", "the recording kernel's kallsyms") },
	[OPT_DEMANGLE] = { .key = "demangle", .type = PK_OPTION_CHOICE,
		.choices = demangle_choices, .flag = "demangle", .value_name = "STYLE",
		.help = "names as 'perf' or 'pprof' shows them, 'full' or 'none'" },
	[OPT_INLINE] = { FLAG("inline", "inlined functions as frames "
			      "(perf.data: unwound stacks have them)") },
	[OPT_NO_SYMBOLIZE] = { FLAG("no-symbolize", "keep raw addresses") },
	[OPT_NO_UNWIND] = { FLAG("no-unwind", "--call-graph dwarf: the sampled "
				 "user frame only") },
	{ .key = NULL },
};

const struct pk_options pki_default_options = {
	.value = PK_VALUE_AUTO,
	.demangle = -1,
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
	for (i = 0; i < opts->nsettings; i++)
		free(opts->settings[i].text);
	free(opts->settings);
	free(opts);
}

/* The index of decl's setting in o, or o's count when it has none. */
static size_t find_setting(const struct pk_options *o,
			   const struct pki_option *decl)
{
	size_t i;

	for (i = 0; i < o->nsettings; i++)
		if (o->settings[i].decl == decl)
			break;
	return i;
}

const char *pki_option_text(const struct pk_options *opts,
			    const struct pki_option *decl)
{
	size_t i = opts ? find_setting(opts, decl) : 0;

	return opts && i < opts->nsettings ? opts->settings[i].text : decl->def;
}

/* ---- reading a value; the texts kept are valid, so getters only read ---- */

static int parse_flag(const char *text, int *on)
{
	static const char *const yes[] = { "1", "yes", "true" };
	static const char *const no[] = { "0", "no", "false" };
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(yes); i++) {
		if (strcmp(text, yes[i]) == 0)
			return *on = 1, 0;
		if (strcmp(text, no[i]) == 0)
			return *on = 0, 0;
	}
	return -1;
}

static int parse_choice(const struct pki_option *d, const char *text)
{
	int i;

	for (i = 0; d->choices[i]; i++)
		if (strcmp(text, d->choices[i]) == 0)
			return i;
	return -1;
}

static int parse_number(const char *text, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(text, &end);
	return end == text || *end || errno ? -1 : 0;
}

static unsigned uint_max(const struct pki_option *d)
{
	return d->max ? d->max : UINT32_MAX;
}

static int parse_uint(const struct pki_option *d, const char *text,
		      unsigned *u)
{
	double v;

	if (parse_number(text, &v) || !(v >= d->min && v <= uint_max(d)) ||
	    v != (double)(unsigned)v)
		return -1;
	*u = (unsigned)v;
	return 0;
}

static int parse_percent(const char *text, double *d)
{
	return parse_number(text, d) || !(*d >= 0.0 && *d <= 100.0) ? -1 : 0;
}

static int parse_seconds(const char *text, double *d)
{
	return parse_number(text, d) || !(*d >= 0.0) ? -1 : 0;
}

int pki_option_flag(const struct pk_options *opts, const struct pki_option *decl)
{
	const char *text = pki_option_text(opts, decl);
	int on = 0;

	return text && !parse_flag(text, &on) ? on : 0;
}

unsigned pki_option_uint(const struct pk_options *opts,
			 const struct pki_option *decl)
{
	const char *text = pki_option_text(opts, decl);
	unsigned u = 0;

	return text && !parse_uint(decl, text, &u) ? u : 0;
}

double pki_option_number(const struct pk_options *opts,
			 const struct pki_option *decl)
{
	const char *text = pki_option_text(opts, decl);
	double d = 0;

	return text && !parse_number(text, &d) ? d : 0;
}

const char *pki_option_string(const struct pk_options *opts,
			      const struct pki_option *decl)
{
	return pki_option_text(opts, decl);
}

int pki_option_choice(const struct pk_options *opts,
		      const struct pki_option *decl)
{
	const char *text = pki_option_text(opts, decl);

	return text ? parse_choice(decl, text) : -1;
}

/* ---- setting a value ---- */

/* "'a', 'b' or 'c'" */
static void list_choices(const struct pki_option *d, char *buf, size_t size)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; d->choices[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s'%s'",
					 i == 0 ? "" : d->choices[i + 1] ? ", " : " or ",
					 d->choices[i]);
}

static int check_value(struct pk_context *ctx, const struct pki_option *d,
		       const char *v)
{
	char expected[128];
	double number;
	unsigned u;
	int on;

	switch (d->type) {
	case PK_OPTION_STRING:
		return 0;
	case PK_OPTION_FLAG:
		if (!parse_flag(v, &on))
			return 0;
		return pk_error_set(ctx, PK_EUSAGE, "%s: expected '1' or '0', "
				    "not '%s'", d->key, v);
	case PK_OPTION_CHOICE:
		if (parse_choice(d, v) >= 0)
			return 0;
		list_choices(d, expected, sizeof(expected));
		return pk_error_set(ctx, PK_EUSAGE, "%s: expected %s, not '%s'",
				    d->key, expected, v);
	case PK_OPTION_UINT:
		if (!parse_uint(d, v, &u))
			return 0;
		if (d->max)
			return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a whole "
					    "number from %u to %u", d->key, v,
					    d->min, d->max);
		return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a whole "
				    "number from %u", d->key, v, d->min);
	case PK_OPTION_PERCENT:
		if (!parse_percent(v, &number))
			return 0;
		return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a percentage "
				    "from 0 to 100", d->key, v);
	case PK_OPTION_SECONDS:
		if (!parse_seconds(v, &number))
			return 0;
		return pk_error_set(ctx, PK_EUSAGE, "%s: '%s' is not a time in "
				    "seconds", d->key, v);
	}
	return pk_error_set(ctx, PK_EUSAGE, "%s: cannot be set", d->key);
}

static void unset(struct pk_options *o, const struct pki_option *decl)
{
	size_t i = find_setting(o, decl);

	if (i == o->nsettings)
		return;
	free(o->settings[i].text);
	o->settings[i] = o->settings[--o->nsettings];
}

static int is_pipeline_option(const struct pki_option *decl)
{
	const struct pki_option *d;

	for (d = pki_pipeline_options; d->key; d++)
		if (d == decl)
			return 1;
	return 0;
}

/* value, after the values set before it when decl repeats: malloc'd */
static char *new_text(const struct pk_options *o, const struct pki_option *decl,
		      const char *value)
{
	size_t i = find_setting(o, decl);
	const char *old = i < o->nsettings ? o->settings[i].text : NULL;
	char *text;

	if (!decl->repeat || !old)
		return strdup(value);
	text = malloc(strlen(old) + strlen(value) + 2);
	if (text)
		sprintf(text, "%s\n%s", old, value);
	return text;
}

static int keep(struct pk_context *ctx, struct pk_options *o,
		const struct pki_option *decl, const char *value)
{
	char *copy = new_text(o, decl, value);
	struct pki_option_setting *grown;

	if (!copy)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	unset(o, decl);
	grown = realloc(o->settings, (o->nsettings + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	o->settings = grown;
	o->settings[o->nsettings].decl = decl;
	o->settings[o->nsettings++].text = copy;
	return 0;
}

/* The fields every layer reads, from the pipeline's settings. */
static void set_pipeline_fields(struct pk_options *o)
{
	const struct pki_option *p = pki_pipeline_options;

	o->from = pki_option_string(o, &p[OPT_FROM]);
	o->value = pki_option_choice(o, &p[OPT_VALUE]);
	o->event = pki_option_string(o, &p[OPT_EVENT]);
	o->sample_type = pki_option_string(o, &p[OPT_SAMPLE_TYPE]);
	o->max_stack = pki_option_uint(o, &p[OPT_MAX_STACK]);
	o->threads = pki_option_uint(o, &p[OPT_THREADS]);
	o->binary = pki_option_string(o, &p[OPT_BINARY]);
	o->symbol_path = pki_option_string(o, &p[OPT_SYMBOL_PATH]);
	o->symfs = pki_option_string(o, &p[OPT_SYMFS]);
	o->kallsyms = pki_option_string(o, &p[OPT_KALLSYMS]);
	o->demangle = pki_option_choice(o, &p[OPT_DEMANGLE]);
	o->inline_frames = pki_option_flag(o, &p[OPT_INLINE]);
	o->no_symbolize = pki_option_flag(o, &p[OPT_NO_SYMBOLIZE]);
	o->no_unwind = pki_option_flag(o, &p[OPT_NO_UNWIND]);
}

int pki_options_store(struct pk_context *ctx, struct pk_options *opts,
		      const struct pki_option *decl, const char *value)
{
	int rc;

	if (decl->type == PK_OPTION_FLAG && !value)
		value = "1";
	if (decl->type == PK_OPTION_STRING && (!value || !*value)) {
		unset(opts, decl);
		rc = 0;
	} else {
		rc = check_value(ctx, decl, value ? value : "");
		if (!rc)
			rc = keep(ctx, opts, decl, value);
	}
	if (is_pipeline_option(decl))
		set_pipeline_fields(opts);
	return rc;
}
