/* SPDX-License-Identifier: MIT */
/*
 * Looking at a JSON document's first bytes, for the probes of the JSON
 * formats: no parse (the bytes end anywhere), just its shape.
 */
#ifndef PROFKIT_UTIL_JSON_PROBE_H
#define PROFKIT_UTIL_JSON_PROBE_H

#include <string.h>

/* s past JSON white space (and a UTF-8 byte order mark at the start). */
static inline const char *pki_json_probe_space(const char *s, const char *end)
{
	if (end - s >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s;
}

/* Where "key" followed by a colon is in [s, end), or NULL. */
static inline const char *pki_json_probe_key(const char *s, const char *end,
					     const char *key)
{
	size_t n = strlen(key);

	for (; (s = memchr(s, '"', (size_t)(end - s))) != NULL; s++) {
		const char *after;

		if ((size_t)(end - s) <= n + 2 || memcmp(s + 1, key, n) != 0 ||
		    s[n + 1] != '"')
			continue;
		after = pki_json_probe_space(s + n + 2, end);
		if (after < end && *after == ':')
			return s;
	}
	return NULL;
}

#endif
