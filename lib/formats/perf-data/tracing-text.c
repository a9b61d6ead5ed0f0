/* SPDX-License-Identifier: MIT */
/*
 * The trace text of a tracepoint sample (what perf script prints after
 * the event) printed without libtraceevent where that is safe. Through
 * libtraceevent a sched_switch costs some 23,000 instructions (its
 * prev_state flags are evaluated from their text each time), and the
 * switches of an off-CPU recording rarely repeat whole: a thread blocks
 * the same way, but another thread runs next each time.
 *
 * A print format is cut in three: what comes before one run of
 * conversions, the run, and what comes after it. Before and after, only
 * text and fields printed plainly: "%s" of a char array, "%d", "%i" or
 * "%u" of a 4-byte number, which profkit prints as libtraceevent does.
 * The run holds the rest ("prev_state=%s%s": flags, expressions); its
 * text depends only on the fields its arguments read, so it is kept by
 * their bytes. A run not met before is cut out of libtraceevent's text
 * of the sample, which must begin and end as profkit prints the rest;
 * when it does not, the event is left to libtraceevent from then on. A
 * print format of any other shape (%p and its extensions, '*', escapes,
 * a run reading dynamic fields or calling functions) is left to it too.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "perf-data.h"
#include "tracing-text.h"
#include "util/strbuf.h"

enum piece_kind { PIECE_TEXT, PIECE_STRING, PIECE_INT, PIECE_UINT };

/* Text of the print format, or a field printed plainly. */
struct piece {
	enum piece_kind kind;
	size_t at, len;		/* PIECE_TEXT: where in the format */
	size_t offset, size;	/* the others: the field's */
};

/* A field the run's arguments read. */
struct dep {
	size_t offset, size;
};

/* Runs kept past this many bytes are not kept: printed by libtraceevent. */
#define RUN_BYTES_KEPT ((size_t)16 << 20)

struct pd_text_template {
	const char *format;	/* the event's, which it owns */
	int big;
	int broken;		/* libtraceevent printed otherwise */
	struct piece *pieces;	/* before the run [0, nbefore), then after */
	size_t npieces, pieces_cap, nbefore;
	struct dep *deps;
	size_t ndeps, deps_cap;
	/* the runs met: their keys' ids -> their texts' ids + 1 (0: not
	 * met), both in runs */
	struct pk_profile *runs;
	uint32_t *run_text;
	size_t run_text_cap;
	struct pk_strbuf key, text;
};

void pd_text_template_free(struct pd_text_template *t)
{
	if (!t)
		return;
	free(t->pieces);
	free(t->deps);
	pk_profile_free(t->runs);
	free(t->run_text);
	free(t->key.s);
	free(t->text.s);
	free(t);
}

static struct tep_format_field *arg_field(struct tep_event *ev,
					  struct tep_print_arg *a)
{
	struct tep_format_field *f;

	if (a->type != TEP_PRINT_FIELD)
		return NULL;
	f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
	if (!f || f->offset < 0 || f->size <= 0 ||
	    (f->flags & TEP_FIELD_IS_DYNAMIC))
		return NULL;
	return f;
}

static int add_piece(struct pd_text_template *t, enum piece_kind kind,
		     size_t at, size_t len, const struct tep_format_field *f)
{
	struct piece *p;

	if (kind == PIECE_TEXT && !len)
		return 0;
	if (pki_grow(&t->pieces, &t->pieces_cap, t->npieces + 1,
		     sizeof(*t->pieces)) < 0)
		return -1;
	p = &t->pieces[t->npieces++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->at = at;
	p->len = len;
	if (f) {
		p->offset = (size_t)f->offset;
		p->size = (size_t)f->size;
	}
	return 0;
}

/* How a conversion of spec (len bytes) prints arg a: plainly (*kind),
 * 1; else 0. */
static int plain_field(struct tep_event *ev, const char *spec, size_t len,
		       struct tep_print_arg *a, enum piece_kind *kind,
		       struct tep_format_field **field)
{
	struct tep_format_field *f = arg_field(ev, a);
	int array;

	if (!f || len != 2)
		return 0;
	array = (f->flags & TEP_FIELD_IS_ARRAY) != 0;
	*field = f;
	if (spec[1] == 's' && array)
		*kind = PIECE_STRING;
	else if ((spec[1] == 'd' || spec[1] == 'i') && !array && f->size == 4)
		*kind = PIECE_INT;
	else if (spec[1] == 'u' && !array && f->size == 4)
		*kind = PIECE_UINT;
	else
		return 0;
	return 1;
}

/* The length of the conversion at f ('%' flags width precision length
 * conversion), or 0 when it is not one of printf's plain ones. */
static size_t conversion_len(const char *f)
{
	size_t i = 1;

	i += strspn(f + i, "-+ #0");
	i += strspn(f + i, "0123456789");
	if (f[i] == '.') {
		i++;
		i += strspn(f + i, "0123456789");
	}
	i += strspn(f + i, "hlLqjzt");
	return f[i] && strchr("diouxXcs", f[i]) ? i + 1 : 0;
}

static int add_dep(struct pd_text_template *t, const struct tep_format_field *f)
{
	size_t i;

	for (i = 0; i < t->ndeps; i++)
		if (t->deps[i].offset == (size_t)f->offset)
			return 0;
	if (pki_grow(&t->deps, &t->deps_cap, t->ndeps + 1, sizeof(*t->deps)) < 0)
		return -1;
	t->deps[t->ndeps].offset = (size_t)f->offset;
	t->deps[t->ndeps++].size = (size_t)f->size;
	return 0;
}

/* The fields argument a reads, into t->deps; -1 when it reads what is
 * not a fixed field or calls what may read more. */
static int add_deps(struct pd_text_template *t, struct tep_event *ev,
		    struct tep_print_arg *a)
{
	struct tep_format_field *f;

	if (!a)
		return 0;
	switch (a->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_ATOM:
		return 0;
	case TEP_PRINT_FIELD:
		return (f = arg_field(ev, a)) ? add_dep(t, f) : -1;
	case TEP_PRINT_FLAGS:
		return add_deps(t, ev, a->flags.field);
	case TEP_PRINT_SYMBOL:
		return add_deps(t, ev, a->symbol.field);
	case TEP_PRINT_TYPE:
		return add_deps(t, ev, a->typecast.item);
	case TEP_PRINT_OP:
		return add_deps(t, ev, a->op.left) < 0 ? -1 :
		       add_deps(t, ev, a->op.right);
	default:
		return -1;
	}
}

/* One conversion and its argument, in order. */
struct conversion {
	size_t at, len;
	struct tep_print_arg *arg;
	enum piece_kind kind;	/* PIECE_TEXT: not plain, in the run */
	struct tep_format_field *field;
};

/* The conversions of the format, each with its argument: their count,
 * or -1 when the format or its arguments are of another shape. */
static ssize_t conversions(struct tep_event *ev, struct conversion **out)
{
	const char *fmt = ev->print_fmt.format;
	struct tep_print_arg *a = ev->print_fmt.args;
	struct conversion *c = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; fmt[i]; i++) {
		size_t len;

		if (fmt[i] == '\\')
			goto other;
		if (fmt[i] != '%')
			continue;
		if (!(len = conversion_len(fmt + i)) || !a ||
		    pki_grow(&c, &cap, n + 1, sizeof(*c)) < 0)
			goto other;
		c[n] = (struct conversion){ i, len, a, PIECE_TEXT, NULL };
		if (!plain_field(ev, fmt + i, len, a, &c[n].kind, &c[n].field))
			c[n].kind = PIECE_TEXT;
		n++;
		a = a->next;
		i += len - 1;
	}
	if (a)
		goto other;
	*out = c;
	return (ssize_t)n;
other:
	free(c);
	return -1;
}

/* The pieces and the run of ev's format from its conversions c. */
static int cut(struct pd_text_template *t, struct tep_event *ev,
	       const struct conversion *c, size_t n)
{
	size_t first = n, last = 0, i, at = 0;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (c[i].kind == PIECE_TEXT) {
			if (first == n)
				first = i;
			last = i;
		}
	for (i = 0; i < n && !rc; i++) {
		if (i == first)
			t->nbefore = t->npieces;
		if (i >= first && i <= last) {
			rc = add_deps(t, ev, c[i].arg);
			if (i == last)
				at = c[i].at + c[i].len;
			continue;
		}
		rc = add_piece(t, PIECE_TEXT, at, c[i].at - at, NULL);
		if (!rc)
			rc = add_piece(t, c[i].kind, 0, 0, c[i].field);
		at = c[i].at + c[i].len;
	}
	if (first == n)
		t->nbefore = t->npieces;
	return rc ? rc : add_piece(t, PIECE_TEXT, at, strlen(t->format) - at, NULL);
}

struct pd_text_template *pd_text_template_new(struct tep_event *ev, int big)
{
	struct pd_text_template *t;
	struct conversion *c = NULL;
	ssize_t n;

	if (!ev->print_fmt.format || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW)) ||
	    (n = conversions(ev, &c)) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t) {
		t->format = ev->print_fmt.format;
		t->big = big;
		/* the buffers never NULL, though a run may begin the text */
		if (cut(t, ev, c, (size_t)n) < 0 ||
		    pki_strbuf_add(&t->text, "", 0) < 0 ||
		    pki_strbuf_add(&t->key, "", 0) < 0 ||
		    !(t->runs = pk_profile_new(0))) {
			pd_text_template_free(t);
			t = NULL;
		}
	}
	free(c);
	return t;
}

/* Print pieces [from, to) of raw into t->text. */
static int print_pieces(struct pd_text_template *t, const unsigned char *raw,
			size_t from, size_t to)
{
	char num[24], *end = num + sizeof(num), *d;
	size_t i;
	int rc = 0;

	for (i = from; i < to && !rc; i++) {
		const struct piece *p = &t->pieces[i];
		const unsigned char *f = raw + p->offset;
		int32_t v;

		switch (p->kind) {
		case PIECE_TEXT:
			rc = pki_strbuf_add(&t->text, t->format + p->at, p->len);
			break;
		case PIECE_STRING:
			rc = pki_strbuf_add(&t->text, (const char *)f,
					    strnlen((const char *)f, p->size));
			break;
		case PIECE_INT:
			v = (int32_t)pd_u32(f, t->big);
			d = pki_decimal(end, v < 0 ? -(uint64_t)(int64_t)v :
					(uint64_t)v);
			if (v < 0)
				*--d = '-';
			rc = pki_strbuf_add(&t->text, d, (size_t)(end - d));
			break;
		case PIECE_UINT:
			d = pki_decimal(end, pd_u32(f, t->big));
			rc = pki_strbuf_add(&t->text, d, (size_t)(end - d));
			break;
		}
	}
	return rc;
}

/* The bytes of the fields the run reads, into t->key. */
static int run_key(struct pd_text_template *t, const unsigned char *raw)
{
	size_t i;

	t->key.len = 0;
	/* a byte first: the empty string is no key */
	if (pki_strbuf_add(&t->key, "k", 1) < 0)
		return -1;
	for (i = 0; i < t->ndeps; i++)
		if (pki_strbuf_add(&t->key, (const char *)raw + t->deps[i].offset,
				   t->deps[i].size) < 0)
			return -1;
	return 0;
}

int pd_text_print(struct pd_text_template *t, const unsigned char *raw,
		  const char **text, size_t *len)
{
	pk_str key, run;

	if (t->broken || run_key(t, raw) < 0 ||
	    !(key = pk_profile_lookup_len(t->runs, t->key.s, t->key.len)) ||
	    key >= t->run_text_cap || !(run = t->run_text[key]))
		return 0;
	t->text.len = 0;
	if (print_pieces(t, raw, 0, t->nbefore) < 0 ||
	    pki_strbuf_add(&t->text, pk_profile_string(t->runs, run - 1),
			   pk_profile_string_len(t->runs, run - 1)) < 0 ||
	    print_pieces(t, raw, t->nbefore, t->npieces) < 0)
		return 0;
	*text = t->text.s;
	*len = t->text.len;
	return 1;
}

void pd_text_learn(struct pd_text_template *t, const unsigned char *raw,
		   const char *text, size_t len)
{
	size_t before;
	pk_str key, run;

	t->text.len = 0;
	if (t->broken || print_pieces(t, raw, 0, t->nbefore) < 0)
		return;
	before = t->text.len;
	if (print_pieces(t, raw, t->nbefore, t->npieces) < 0)
		return;
	/* libtraceevent printed the rest otherwise: it prints it all */
	if (len < t->text.len || memcmp(text, t->text.s, before) != 0 ||
	    memcmp(text + len - (t->text.len - before), t->text.s + before,
		   t->text.len - before) != 0) {
		t->broken = 1;
		return;
	}
	if (pk_profile_memory(t->runs) >= RUN_BYTES_KEPT ||
	    run_key(t, raw) < 0 ||
	    !(key = pk_profile_intern(t->runs, t->key.s, t->key.len)) ||
	    pki_grow_zeroed(&t->run_text, &t->run_text_cap, (size_t)key + 1,
			    sizeof(*t->run_text)) < 0)
		return;
	len -= t->text.len;	/* what the run printed */
	run = pk_profile_intern(t->runs, text + before, len);
	if (run || !len)
		t->run_text[key] = run + 1;
}
