/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* The buffer is handed to flush once it holds this much. */
#define CHUNK 65536

static void put(struct pki_json *j, const char *s, size_t n)
{
	if (!j->rc && pki_strbuf_add(&j->buf, s, n))
		j->rc = j->nomem;
}

static void put_char(struct pki_json *j, char c)
{
	put(j, &c, 1);
}

static void hand_over(struct pki_json *j)
{
	if (!j->rc && j->buf.len)
		j->rc = j->flush(j->arg, j->buf.s, j->buf.len);
	j->buf.len = 0;
}

/* After each piece: a full chunk goes out. */
static void settle(struct pki_json *j)
{
	if (j->buf.len >= CHUNK)
		hand_over(j);
}

/* What comes before a member: its comma, then the whitespace asked for. */
static void separate(struct pki_json *j)
{
	int comma = 0;

	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth) {
		uint64_t bit = (uint64_t)1 << (j->depth - 1);

		comma = (j->members & bit) != 0;
		j->members |= bit;
		if (comma)
			put_char(j, ',');
	}
	if (j->space)
		put(j, j->space, strlen(j->space));
	else if (comma && j->spaced)
		put_char(j, ' ');
	j->space = NULL;
}

static void value(struct pki_json *j, const char *s, size_t n)
{
	separate(j);
	put(j, s, n);
	settle(j);
}

void pki_json_init(struct pki_json *j, pki_json_flush_fn *flush, void *arg,
		   int nomem)
{
	memset(j, 0, sizeof(*j));
	j->flush = flush;
	j->arg = arg;
	j->nomem = nomem;
}

int pki_json_finish(struct pki_json *j)
{
	hand_over(j);
	free(j->buf.s);
	memset(&j->buf, 0, sizeof(j->buf));
	return j->rc;
}

static void begin(struct pki_json *j, char open)
{
	separate(j);
	if (j->depth == PKI_JSON_MAX_DEPTH) {
		if (!j->rc)
			j->rc = j->nomem;	/* no bit left to count members */
		return;
	}
	put_char(j, open);
	j->members &= ~((uint64_t)1 << j->depth);
	j->depth++;
}

static void end(struct pki_json *j, char close)
{
	if (j->depth)
		j->depth--;
	j->after_key = 0;
	j->space = NULL;
	put_char(j, close);
	settle(j);
}

void pki_json_begin_object(struct pki_json *j)
{
	begin(j, '{');
}

void pki_json_end_object(struct pki_json *j)
{
	end(j, '}');
}

void pki_json_begin_array(struct pki_json *j)
{
	begin(j, '[');
}

void pki_json_end_array(struct pki_json *j)
{
	end(j, ']');
}

static void add_string(struct pki_json *j, const char *s, size_t len)
{
	if (!j->rc && pki_strbuf_add_json(&j->buf, s, len))
		j->rc = j->nomem;
}

void pki_json_key(struct pki_json *j, const char *key)
{
	separate(j);
	add_string(j, key, strlen(key));
	if (j->spaced)
		put(j, ": ", 2);
	else
		put_char(j, ':');
	j->after_key = 1;
}

void pki_json_string(struct pki_json *j, const char *s, size_t len)
{
	separate(j);
	add_string(j, s, len);
	settle(j);
}

void pki_json_cstring(struct pki_json *j, const char *s)
{
	pki_json_string(j, s, strlen(s));
}

void pki_json_int(struct pki_json *j, int64_t v)
{
	char num[24], *end = num + sizeof(num);
	/* the magnitude, INT64_MIN included */
	char *s = pki_decimal(end, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--s = '-';
	value(j, s, (size_t)(end - s));
}

void pki_json_uint(struct pki_json *j, uint64_t v)
{
	char num[24], *end = num + sizeof(num);
	char *s = pki_decimal(end, v);

	value(j, s, (size_t)(end - s));
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * printf's decimal point is the locale's: "," in de_DE, several bytes in
 * some. Whatever stands between the digits of the integer part and
 * those of the fraction becomes '.'. Returns the new length.
 */
static size_t c_decimal_point(char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n && (is_digit(s[i]) || s[i] == '-'))
		i++;
	if (i == n || s[i] == '.' || s[i] == 'e')
		return n;
	for (k = i; k < n && !is_digit(s[k]); k++)
		;
	s[i] = '.';
	memmove(s + i + 1, s + k, n - k);
	return n - (k - i - 1);
}

void pki_json_double(struct pki_json *j, double v, int digits)
{
	char num[64];
	int n;

	if (!isfinite(v)) {
		pki_json_literal(j, "null");
		return;
	}
	n = snprintf(num, sizeof(num), "%.*g", digits, v);
	if (n < 0 || (size_t)n >= sizeof(num)) {
		pki_json_literal(j, "null");	/* not with digits <= 17 */
		return;
	}
	value(j, num, c_decimal_point(num, (size_t)n));
}

void pki_json_literal(struct pki_json *j, const char *text)
{
	value(j, text, strlen(text));
}

void pki_json_verbatim(struct pki_json *j, const char *s, size_t n)
{
	value(j, s, n);
}

void pki_json_flush(struct pki_json *j)
{
	hand_over(j);
}

void pki_json_raw(struct pki_json *j, const char *s, size_t n)
{
	put(j, s, n);
	settle(j);
}

void pki_json_space(struct pki_json *j, const char *s)
{
	j->space = s;
}

/* The escape of byte c, which JSON cannot hold as it is, into out. */
static size_t escape(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";
	/* \b \t \n, no short form for \v, \f \r */
	static const char short_form[] = "btn\0fr";

	if (c >= 0x80) {	/* not part of well-formed UTF-8 */
		memcpy(out, "\xef\xbf\xbd", 3);
		return 3;
	}
	out[0] = '\\';
	if (c == '"' || c == '\\') {
		out[1] = (char)c;
		return 2;
	}
	if (c >= '\b' && c <= '\r' && short_form[c - '\b']) {
		out[1] = short_form[c - '\b'];
		return 2;
	}
	memcpy(out + 1, "u00", 3);
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	return 6;
}

int pki_strbuf_add_json(struct pk_strbuf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, n;
	char esc[8];

	/* room for all of it unescaped, in one step */
	if (pki_grow(&b->s, &b->cap, b->len + len + 3, 1) < 0 ||
	    pki_strbuf_add(b, "\"", 1))
		return -1;
	while (i < len) {
		unsigned char c = u[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (n = pki_utf8_char(u + i, len - i)) != 0) {
			i += n;
			continue;
		}
		n = escape(c, esc);
		if (pki_strbuf_add(b, s + run, i - run) ||
		    pki_strbuf_add(b, esc, n))
			return -1;
		run = ++i;
	}
	return pki_strbuf_add(b, s + run, i - run) ||
	       pki_strbuf_add(b, "\"", 1) ? -1 : 0;
}
