/* SPDX-License-Identifier: MIT */
/* Small tests on strings and digits that every layer makes. */
#ifndef PROFKIT_UTIL_STRINGS_H
#define PROFKIT_UTIL_STRINGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Lowercase hex digit value, or -1. */
static inline int pki_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Whether a and b's first n bytes are the same: memcmp's answer for the
 * short texts of the hot loops (a thread's name, a frame's line), without
 * a call that would cost the caller the registers it saves; eight bytes
 * at a time, the last eight overlapping the ones before.
 */
static inline int pki_same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i;

	if (n < 8) {
		for (i = 0; i < n; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* How many of a and b's first n bytes are the same before one differs:
 * eight at a time, as pki_same_bytes (folded lines share long roots). */
static inline size_t pki_shared_prefix(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Whether s begins with prefix ("/proc/", "[kernel.kallsyms]", "_Z"). */
static inline int pki_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The same for len bytes that need not end in a NUL (a line of input). */
static inline int pki_starts_with_n(const char *s, size_t len,
				    const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static inline int pki_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* 10^n for n from 0 to 18 (an int64's powers of ten). */
static inline int64_t pki_pow10(int n)
{
	int64_t v = 1;

	while (n-- > 0)
		v *= 10;
	return v;
}

#endif
