/* SPDX-License-Identifier: MIT */
/*
 * Strings composed piece by piece inside libprofkit (labels, folded
 * lines, SVG text); nothing here is installed. A zeroed struct
 * pk_strbuf is an empty buffer; set len to 0 to reuse it, free(s) when
 * done. After a successful add, s is NUL-terminated.
 */
#ifndef PROFKIT_STRBUF_H
#define PROFKIT_STRBUF_H

#include <stddef.h>
#include <string.h>

#include "grow.h"

struct pk_strbuf {
	char *s;
	size_t len, cap;
};

/*
 * Append n bytes of s. Returns 0, or -1 when out of memory. Inline: the
 * writers make millions of calls, most of a byte or a few.
 */
static inline int pki_strbuf_add(struct pk_strbuf *b, const char *s, size_t n)
{
	if (pki_grow(&b->s, &b->cap, b->len + n + 1, 1) < 0)
		return -1;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/*
 * The decimal digits of u, written backwards so that the last ends just
 * before end (room for 20 is enough); returns where the first is. As
 * printf's "%llu", without its format parsing.
 */
static inline char *pki_decimal(char *end, unsigned long long u)
{
	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return end;
}

/* Append the C string s. Returns 0, or -1 when out of memory. */
int pki_strbuf_adds(struct pk_strbuf *b, const char *s);

/*
 * Length of the valid UTF-8 character at s (n bytes remain), or 0:
 * no overlong forms, surrogates or code points past U+10FFFF.
 */
size_t pki_utf8_char(const unsigned char *s, size_t n);

/*
 * Append the len bytes at s as well-formed UTF-8: every byte that is not
 * part of a valid character becomes U+FFFD, as the JSON writer has it.
 * Returns 0, or -1 when out of memory. pki_utf8_valid: whether s is
 * well-formed already.
 */
int pki_strbuf_add_utf8(struct pk_strbuf *b, const char *s, size_t len);
int pki_utf8_valid(const char *s, size_t len);

#endif
