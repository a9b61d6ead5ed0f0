/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "strbuf.h"

int pki_strbuf_adds(struct pk_strbuf *b, const char *s)
{
	return pki_strbuf_add(b, s, strlen(s));
}

size_t pki_utf8_char(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* past U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Length of the well-formed run at s, at most len. */
static size_t utf8_run(const unsigned char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if (s[i] < 0x80)
			i++;
		else if ((n = pki_utf8_char(s + i, len - i)) != 0)
			i += n;
		else
			break;
	}
	return i;
}

int pki_utf8_valid(const char *s, size_t len)
{
	return utf8_run((const unsigned char *)s, len) == len;
}

int pki_strbuf_add_utf8(struct pk_strbuf *b, const char *s, size_t len)
{
	size_t i = 0, run;

	while (i < len) {
		run = utf8_run((const unsigned char *)s + i, len - i);
		if (pki_strbuf_add(b, s + i, run) < 0)
			return -1;
		i += run;
		if (i < len) {
			if (pki_strbuf_add(b, "\xef\xbf\xbd", 3) < 0)
				return -1;
			i++;
		}
	}
	return 0;
}
