/* SPDX-License-Identifier: MIT */
/*
 * The bytes of a JFR value: compressed integers, strings in their six
 * encodings, and any value skipped by what the metadata says its type
 * is. Every read is bounded by the cursor's end; a value that runs past
 * it is a fault the caller reports with its offset.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jfr.h"

void jfr_fail(struct jfr_cursor *c, const char *why)
{
	if (!c->fault) {
		c->fault = why;
		c->fault_at = c->p;
	}
	c->p = c->end;
}

/* The same a byte at a time, near the end of what may be read. */
uint64_t jfr_varint_slow(struct jfr_cursor *c)
{
	const unsigned char *p = c->p;
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8 && p < c->end; i++) {
		v |= (uint64_t)(*p & 0x7f) << (7 * i);
		if (!(*p++ & 0x80)) {
			c->p = p;
			return v;
		}
	}
	if (p < c->end) {
		c->p = p + 1;
		return v | (uint64_t)*p << 56;
	}
	jfr_fail(c, "a compressed integer runs past the end of its event");
	return 0;
}

int jfr_error_at(const struct jfr_chunk *ch, const unsigned char *at,
		 const char *fmt, ...)
{
	char why[PK_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return pk_error_set(ch->ctx, PK_EINPUT, "%s: offset 0x%llx: %s", ch->name,
			    (unsigned long long)(ch->offset + (uint64_t)(at - ch->base)),
			    why);
}

/* The fault of a value whose string could not be kept. */
static const char out_of_memory[] = "out of memory";

int jfr_fault(const struct jfr_chunk *ch, const struct jfr_cursor *c)
{
	if (c->fault == out_of_memory)
		return pk_error_set(ch->ctx, PK_ENOMEM, "%s: out of memory", ch->name);
	return jfr_error_at(ch, c->fault_at, "%s", c->fault);
}

/* ---- strings ---- */

enum string_encoding {
	ENC_NULL, ENC_EMPTY, ENC_POOL, ENC_UTF8, ENC_CHARS, ENC_LATIN1,
};

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

static int add_code_point(struct pk_strbuf *out, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp == 0 || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		return pki_strbuf_adds(out, replacement);
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return pki_strbuf_add(out, b, n);
}

/* UTF-8 as it is where it is valid (NUL is not: names are C strings). */
static int add_utf8(struct pk_strbuf *out, const unsigned char *s, size_t n,
		    int dots)
{
	size_t start = out->len, i = 0;

	while (i < n) {
		size_t run = 0, len;

		while (i + run < n && s[i + run] >= 0x01 && s[i + run] < 0x80)
			run++;
		if (run && pki_strbuf_add(out, (const char *)s + i, run))
			return -1;
		i += run;
		if (i == n)
			break;
		len = s[i] ? pki_utf8_char(s + i, n - i) : 0;
		if (len ? pki_strbuf_add(out, (const char *)s + i, len) :
		    pki_strbuf_adds(out, replacement))
			return -1;
		i += len ? len : 1;
	}
	if (dots)
		for (i = start; i < out->len; i++)
			if (out->s[i] == '/')
				out->s[i] = '.';
	return 0;
}

static int add_latin1(struct pk_strbuf *out, const unsigned char *s, size_t n,
		      int dots)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (add_code_point(out, dots && s[i] == '/' ? '.' : s[i]))
			return -1;
	return 0;
}

/* UTF-16 units, each a compressed integer; pairs of surrogates joined. */
static int add_chars(struct jfr_cursor *c, uint64_t n, struct pk_strbuf *out,
		     int dots)
{
	uint32_t high = 0;
	uint64_t i;

	for (i = 0; i < n && !c->fault; i++) {
		uint32_t u = (uint32_t)(jfr_varint(c) & 0xffff);

		if (high && u >= 0xdc00 && u < 0xe000) {
			u = 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00);
			high = 0;
		} else if (high) {
			if (add_code_point(out, 0xfffd))
				return -1;
			high = 0;
		}
		if (u >= 0xd800 && u < 0xdc00) {
			high = u;
			continue;
		}
		if (add_code_point(out, dots && u == '/' ? '.' : u))
			return -1;
	}
	return high ? add_code_point(out, 0xfffd) : 0;
}

/* The string of a string constant: its own bytes, never another
 * constant's (which could name itself). */
static void pool_string(const struct jfr_chunk *ch, uint64_t key,
			struct jfr_cursor *c, struct pk_strbuf *out, int dots,
			enum jfr_string_state *state, uint64_t *missing)
{
	struct jfr_cursor v;
	ptrdiff_t slot;

	if (!jfr_pool_value(ch, JFR_POOL_STRING, key, &v, &slot)) {
		*missing += key != 0;
		*state = JFR_STRING_NULL;
		return;
	}
	if (v.p < v.end && *v.p == ENC_POOL) {
		jfr_fail(&v, "a string constant refers to another string constant");
	} else {
		jfr_string(ch, &v, out, dots, state, missing);
		if (!v.fault)
			return;
	}
	c->fault = v.fault;
	c->fault_at = v.fault_at;
	c->p = c->end;
}

void jfr_string(const struct jfr_chunk *ch, struct jfr_cursor *c,
		struct pk_strbuf *out, int dots, enum jfr_string_state *state,
		uint64_t *missing)
{
	const unsigned char *at = c->p;
	unsigned encoding = jfr_byte(c);
	uint64_t n;
	int rc = 0;

	*state = JFR_STRING_SET;
	switch (encoding) {
	case ENC_NULL:
		*state = JFR_STRING_NULL;
		return;
	case ENC_EMPTY:
		return;
	case ENC_POOL:
		n = jfr_varint(c);
		if (!c->fault)
			pool_string(ch, n, c, out, dots, state, missing);
		return;
	case ENC_UTF8:
	case ENC_LATIN1:
		n = jfr_varint(c);
		if (n > (uint64_t)(c->end - c->p)) {
			jfr_fail(c, "a string runs past the end of its event");
			return;
		}
		rc = encoding == ENC_UTF8 ? add_utf8(out, c->p, (size_t)n, dots) :
			add_latin1(out, c->p, (size_t)n, dots);
		c->p += n;
		break;
	case ENC_CHARS:
		n = jfr_varint(c);
		if (n > (uint64_t)(c->end - c->p)) {
			jfr_fail(c, "a string runs past the end of its event");
			return;
		}
		rc = add_chars(c, n, out, dots);
		break;
	default:
		if (!c->fault) {
			c->p = at;
			jfr_fail(c, "a string has an encoding that is none of "
				 "JFR's (0 to 5)");
		}
		return;
	}
	if (rc && !c->fault)
		jfr_fail(c, out_of_memory);
}

static void skip_string(struct jfr_cursor *c)
{
	const unsigned char *at = c->p;
	unsigned encoding = jfr_byte(c);
	uint64_t n, i;

	switch (encoding) {
	case ENC_NULL:
	case ENC_EMPTY:
		return;
	case ENC_POOL:
		jfr_varint(c);
		return;
	case ENC_UTF8:
	case ENC_LATIN1:
		jfr_skip(c, jfr_varint(c));
		return;
	case ENC_CHARS:
		n = jfr_varint(c);
		if (n > (uint64_t)(c->end - c->p))
			jfr_fail(c, "a string runs past the end of its event");
		for (i = 0; i < n && !c->fault; i++)
			jfr_varint(c);
		return;
	default:
		if (!c->fault) {
			c->p = at;
			jfr_fail(c, "a string has an encoding that is none of "
				 "JFR's (0 to 5)");
		}
	}
}

/* ---- any value, by its type ---- */

static void skip_one(const struct jfr_metadata *md, const struct jfr_field *f,
		     struct jfr_cursor *c, int depth)
{
	if (f->pooled)
		jfr_varint(c);
	else
		jfr_skip_value(md, f->type, c, depth);
}

void jfr_skip_field(const struct jfr_metadata *md, const struct jfr_field *f,
		    struct jfr_cursor *c, int depth)
{
	uint64_t n;

	if (!f->array) {
		skip_one(md, f, c, depth);
		return;
	}
	n = jfr_varint(c);
	/* every element takes a byte at least (jfr_metadata_read drops
	 * the types that take none) */
	if (n > (uint64_t)(c->end - c->p)) {
		jfr_fail(c, "an array's length runs past the end of its event");
		return;
	}
	if (!f->pooled && md->types[f->type].kind == JFR_BYTE) {
		c->p += n;
		return;
	}
	while (n-- && !c->fault)
		skip_one(md, f, c, depth);
}

void jfr_skip_value(const struct jfr_metadata *md, uint32_t type,
		    struct jfr_cursor *c, int depth)
{
	const struct jfr_type *t = &md->types[type];
	uint32_t i;

	if (t->kind == JFR_STRING) {
		skip_string(c);
		return;
	}
	if (t->kind != JFR_STRUCT) {
		jfr_skip_simple(c, t->code);
		return;
	}
	if (depth >= JFR_MAX_NESTING) {
		jfr_fail(c, "types nest deeper than 32 levels (a type that "
			 "contains itself?)");
		return;
	}
	for (i = 0; i < t->nwalk && !c->fault; i++)
		jfr_skip_coded(md, &md->fields[md->walk[t->first_walk + i]], c,
			       depth + 1);
}

void jfr_field_starts(const struct jfr_metadata *md, const struct jfr_type *t,
		      struct jfr_cursor *c, const unsigned char **at, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		at[i] = c->p;
		if ((uint32_t)i < t->nfields)
			jfr_skip_coded(md, jfr_field_at(md, t, i), c, 1);
	}
}

void jfr_field_numbers(const struct jfr_metadata *md, const struct jfr_type *t,
		       struct jfr_cursor *c, uint64_t *numbers, int n)
{
	int i;

	if (t->varints >= n) {
		for (i = 0; i < n; i++)
			numbers[i] = jfr_varint(c);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct jfr_field *f;

		numbers[i] = 0;
		if ((uint32_t)i >= t->nfields)
			continue;
		f = jfr_field_at(md, t, i);
		if (f->code == JFR_CODE_VARINT)
			numbers[i] = jfr_varint(c);
		else if (f->code == JFR_CODE_BYTE)
			numbers[i] = jfr_byte(c);
		else
			jfr_skip_coded(md, f, c, 1);
	}
}

void jfr_skip_fields_from(const struct jfr_metadata *md, const struct jfr_type *t,
			  struct jfr_cursor *c, int n)
{
	uint32_t i;

	/* the walk holds the fields that take bytes, in order */
	for (i = 0; i < t->nwalk && md->walk[t->first_walk + i] < t->first_field + (uint32_t)n; i++)
		;
	for (; i < t->nwalk && !c->fault; i++)
		jfr_skip_coded(md, &md->fields[md->walk[t->first_walk + i]], c, 1);
}

uint64_t jfr_number_at(const struct jfr_metadata *md, const struct jfr_field *f,
		       const unsigned char *at, const unsigned char *end)
{
	struct jfr_cursor c;

	jfr_cursor_init(&c, at, end);
	if (f->pooled)
		return jfr_varint(&c);
	switch (md->types[f->type].kind) {
	case JFR_VARINT:
		return jfr_varint(&c);
	case JFR_BYTE:
		return jfr_byte(&c);
	}
	return 0;
}
