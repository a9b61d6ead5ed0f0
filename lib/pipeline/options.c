/* SPDX-License-Identifier: MIT */
/*
 * Options by key, across everyone who declares them: the pipeline (core),
 * each format (its descriptor) and the transforms that are no format's.
 * Core keeps and checks the values; this layer, which sees every table,
 * finds the declaration a key names and lists them for callers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "formats/registry.h"
#include "transforms/filter.h"
#include "util/strbuf.h"

/* The transforms' tables that belong to no format (folding's are the
 * folded format's). */
static const struct pki_option *const transform_tables[] = {
	pki_filter_options,
};

/* The n-th table, in the order pk_option_next lists them; NULL past the
 * last. */
static const struct pki_option *nth_table(size_t n)
{
	const struct pki_format *f = NULL;

	if (n-- == 0)
		return pki_pipeline_options;
	while ((f = pki_format_next(f)))
		if (f->options && n-- == 0)
			return f->options;
	return n < PK_ARRAY_SIZE(transform_tables) ? transform_tables[n] : NULL;
}

/* The declaration after prev (NULL: the first) over all tables. */
static const struct pki_option *next_decl(const struct pki_option *prev)
{
	const struct pki_option *t, *d;
	int found = !prev;
	size_t n;

	for (n = 0; (t = nth_table(n)); n++)
		for (d = t; d->key; d++) {
			if (found)
				return d;
			found = d == prev;
		}
	return NULL;
}

/* The length of key's scope: "pprof" of "pprof:gzip", 0 for a bare key. */
static size_t scope_len(const char *key)
{
	const char *colon = strchr(key, ':');

	return colon ? (size_t)(colon - key) : 0;
}

static int in_scope(const struct pki_option *d, const char *scope)
{
	size_t n = scope_len(d->key);

	return !scope || (strlen(scope) == n && strncmp(d->key, scope, n) == 0);
}

static const struct pki_option *find_decl(const char *key)
{
	const struct pki_option *d = NULL;

	while ((d = next_decl(d)) && strcmp(d->key, key) != 0)
		;
	return d;
}

static const struct pki_option *decl_of(const struct pk_option_info *o)
{
	return (const struct pki_option *)(const void *)o;
}

static const struct pk_option_info *info_of(const struct pki_option *d)
{
	return (const struct pk_option_info *)(const void *)d;
}

/*
 * Say what the caller may have meant: the options of the key's scope,
 * or for a bare key the scoped keys of that name ("gzip" is
 * "pprof:gzip").
 */
static int unknown_key(struct pk_context *ctx, const char *key)
{
	struct pk_strbuf b = { 0 };
	const struct pki_option *d = NULL;
	size_t n = scope_len(key);
	int rc;

	while ((d = next_decl(d))) {
		size_t dn = scope_len(d->key);

		if ((n ? dn == n && strncmp(d->key, key, n) == 0 :
		     dn && strcmp(d->key + dn + 1, key) == 0) &&
		    (pki_strbuf_adds(&b, b.len ? ", " : "") ||
		     pki_strbuf_adds(&b, n ? d->key + dn + 1 : d->key)))
			b.len = 0;	/* out of memory: say less */
	}
	if (!b.len)
		rc = n ? pk_error_set(ctx, PK_EUSAGE, "unknown option '%s': "
				      "'%.*s' has no options", key, (int)n, key) :
			pk_error_set(ctx, PK_EUSAGE, "unknown option '%s'", key);
	else if (n)
		rc = pk_error_set(ctx, PK_EUSAGE, "unknown option '%s' (%.*s "
				  "takes %s)", key, (int)n, key, b.s);
	else
		rc = pk_error_set(ctx, PK_EUSAGE, "unknown option '%s' (did you "
				  "mean %s?)", key, b.s);
	free(b.s);
	return rc;
}

int pk_options_set(struct pk_context *ctx, struct pk_options *opts,
		   const char *key, const char *value)
{
	const struct pki_option *d = find_decl(key);

	return d ? pki_options_store(ctx, opts, d, value) : unknown_key(ctx, key);
}

const char *pk_options_get(const struct pk_options *opts, const char *key)
{
	const struct pki_option *d = find_decl(key);

	return d ? pki_option_text(opts, d) : NULL;
}

const struct pk_option_info *pk_option_next(const char *scope,
					    const struct pk_option_info *prev)
{
	const struct pki_option *d = prev ? decl_of(prev) : NULL;

	while ((d = next_decl(d)) && !in_scope(d, scope))
		;
	return d ? info_of(d) : NULL;
}

const struct pk_option_info *pk_option_find(const char *key)
{
	const struct pki_option *d = find_decl(key);

	return d ? info_of(d) : NULL;
}

const char *pk_option_key(const struct pk_option_info *o)
{
	return decl_of(o)->key;
}

enum pk_option_type pk_option_type_of(const struct pk_option_info *o)
{
	return decl_of(o)->type;
}

const char *pk_option_default(const struct pk_option_info *o)
{
	return decl_of(o)->def;
}

const char *pk_option_help(const struct pk_option_info *o)
{
	return decl_of(o)->help;
}

const char *pk_option_choice(const struct pk_option_info *o, size_t i)
{
	const char *const *c = decl_of(o)->choices;
	size_t k;

	for (k = 0; c && c[k]; k++)
		if (k == i)
			return c[k];
	return NULL;
}

const char *pk_option_flag(const struct pk_option_info *o)
{
	return decl_of(o)->flag;
}

const char *pk_option_value_name(const struct pk_option_info *o)
{
	return decl_of(o)->value_name;
}
