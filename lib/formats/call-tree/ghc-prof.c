/* SPDX-License-Identifier: MIT */
/*
 * Reader for GHC's profiling reports (PROG.prof of `PROG +RTS -p` or
 * `-P`): after the summary and the flat table, the cost-centre tree, a
 * row per node indented one blank a level, its own ("individual") and
 * inherited shares of time and allocation, and with -P its own ticks
 * and bytes:
 *
 *     COST CENTRE MODULE SRC        no. entries  %time %alloc   %time %alloc  ticks     bytes
 *
 *     MAIN        MAIN   <built-in>  46       0    0.0    0.1   100.0  100.0      0      3784
 *      main       Main   Main.hs:3:1 93       1   60.0   40.0   100.0   99.9      6     96000
 *
 * Read as inferno's collapse-ghcprof reads it: frames "MODULE.NAME", each
 * row's own values a sample of its path. With -P the two sample types
 * are bytes and ticks (shown by default); with -p, whose report has no
 * ticks, they are the individual %alloc and %time, in percent.
 */
#include <stdlib.h>
#include <string.h>

#include "call-tree.h"

#define TITLE "Time and Allocation Profiling Report"
#define MAX_TOKENS 64

struct ghc_reader {
	struct pki_tree t;
	size_t module_column;	/* in characters, as GHC aligns them */
	int detailed;		/* -P: ticks and bytes */
	int alloc, time;	/* the columns of the profile */
	struct pk_strbuf frame;
};

struct token {
	const char *s;
	size_t len;
};

static int tokens(const char *line, size_t len, struct token *t, int max)
{
	size_t i = 0;
	int n = 0;

	while (n < max) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		t[n].s = line + i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		t[n].len = (size_t)(line + i - t[n].s);
		n++;
	}
	return n;
}

/* The bytes of the character at line[off] (1 for a byte that is no
 * UTF-8). */
static size_t char_len(const char *line, size_t len, size_t off)
{
	size_t n = pki_utf8_char((const unsigned char *)line + off, len - off);

	return n ? n : 1;
}

static int token_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* "COST CENTRE MODULE [SRC] no. entries %time %alloc %time %alloc
 * [ticks bytes]": 1 and the columns, or 0 for another line. */
static int tree_header(struct ghc_reader *r, const char *line, size_t len)
{
	static const char *const words[] = {
		"no.", "entries", "%time", "%alloc", "%time", "%alloc",
	};
	struct token t[MAX_TOKENS];
	int n = tokens(line, len, t, MAX_TOKENS), i = 3;
	size_t w, c;

	if (n < 9 || !token_is(&t[0], "COST") || !token_is(&t[1], "CENTRE") ||
	    !token_is(&t[2], "MODULE"))
		return 0;
	if (token_is(&t[3], "SRC"))
		i++;
	for (w = 0; w < PK_ARRAY_SIZE(words); w++, i++)
		if (i >= n || !token_is(&t[i], words[w]))
			return 0;
	r->detailed = i + 2 == n && token_is(&t[i], "ticks") &&
		      token_is(&t[i + 1], "bytes");
	if (i != n && !r->detailed)
		return 0;
	/* the module column's characters: GHC pads names by characters */
	for (c = 0, w = 0; line + w < t[2].s; c++)
		w += char_len(line, (size_t)(t[2].s - line), w);
	r->module_column = c;
	return 1;
}

/* The byte offset of character column in line, or len past its end. */
static size_t column_offset(const char *line, size_t len, size_t column)
{
	size_t off = 0;

	while (column-- && off < len)
		off += char_len(line, len, off);
	return off < len ? off : len;
}

static int value(struct ghc_reader *r, const struct token *t, int column,
		 int64_t *v)
{
	int64_t mantissa;
	int decimals;

	if (pki_tree_decimal(t->s, t->len, &mantissa, &decimals))
		return pki_tree_error(&r->t, "not a number: '%.*s'",
				      (int)(t->len > 40 ? 40 : t->len), t->s);
	return pki_tree_fixed(&r->t, column, mantissa, decimals, 1, v);
}

static int row(struct ghc_reader *r, const char *line, size_t len)
{
	struct pki_tree *t = &r->t;
	struct token tok[MAX_TOKENS], module;
	size_t depth = 0, at;
	int n, rc, last;
	int64_t values[2];
	uint32_t loc;

	while (depth < len && line[depth] == ' ')
		depth++;
	at = column_offset(line, len, r->module_column);
	n = tokens(line + depth, len - depth, tok, MAX_TOKENS);
	if (n < (r->detailed ? 10 : 8) || at <= depth ||
	    tokens(line + at, len - at, &module, 1) != 1)
		return pki_tree_error(t, "not a cost-centre row: '%.*s'",
				      (int)(len > 60 ? 60 : len), line);
	/* from the right, past the SRC column (which may hold blanks): the
	 * ticks and bytes, or the individual %time and %alloc */
	last = r->detailed ? n - 2 : n - 4;
	if ((rc = value(r, &tok[last], r->time, &values[r->time])) ||
	    (rc = value(r, &tok[last + 1], r->alloc, &values[r->alloc])))
		return rc;
	r->frame.len = 0;
	if (pki_strbuf_add(&r->frame, module.s, module.len) ||
	    pki_strbuf_adds(&r->frame, ".") ||
	    pki_strbuf_add(&r->frame, tok[0].s, tok[0].len))
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	loc = pki_tree_frame(t, r->frame.s, r->frame.len, NULL, 0);
	if (!loc)
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	return pki_tree_self(t, depth, loc, values);
}

static int add_columns(struct ghc_reader *r)
{
	struct pk_profile *p = r->t.p;

	/* the last is the one shown by default: time */
	r->alloc = r->detailed ?
		pk_profile_add_sample_type(p, "bytes", "bytes", NULL, PK_VALUE_WEIGHT) :
		pk_profile_add_sample_type(p, "alloc", "percent", NULL, PK_VALUE_WEIGHT);
	r->time = r->detailed ?
		pk_profile_add_sample_type(p, "ticks", "count", NULL, PK_VALUE_COUNT) :
		pk_profile_add_sample_type(p, "time", "percent", NULL, PK_VALUE_WEIGHT);
	r->t.ncolumns = 2;
	return r->alloc != 0 || r->time != 1 ?
	       pk_error_set(r->t.ctx, PK_EUSAGE, "a profile with sample types "
			    "already") : 0;
}

static int ghc_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	struct ghc_reader r;
	const char *line;
	size_t len;
	int rc = 0, state = 0;	/* 0: before the tree, 1: its header, 2: rows */

	(void)opts;
	memset(&r, 0, sizeof(r));
	pki_tree_init(&r.t, ctx, in, p);
	while (!rc && (line = pki_tree_line(&r.t, &len))) {
		if (state == 0 && tree_header(&r, line, len)) {
			state = 1;
			rc = add_columns(&r);
		} else if (state && len) {
			state = 2;
			rc = row(&r, line, len);
		} else if (state == 2) {
			break;	/* the blank line after the tree */
		}
	}
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && state != 2)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no cost-centre tree (a "
				  "header 'COST CENTRE MODULE ... no. entries "
				  "%%time %%alloc %%time %%alloc' and its rows)",
				  pk_input_name(in));
	pki_tree_free(&r.t);
	free(r.frame.s);
	return rc;
}

/* The report's title on its first line. */
static int ghc_probe(const unsigned char *buf, size_t len)
{
	const unsigned char *nl = memchr(buf, '\n', len);

	return nl && memmem(buf, (size_t)(nl - buf), TITLE, strlen(TITLE)) ? 90 : 0;
}

const struct pki_format pki_format_ghc_prof = {
	.name = "ghc-prof",
	.read_description = "GHC cost-centre profiles, PROG.prof of +RTS -p "
			    "or -P (as inferno reads them)",
	.probe = ghc_probe,
	.read = ghc_read,
};
