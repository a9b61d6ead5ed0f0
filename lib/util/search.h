/* SPDX-License-Identifier: MIT */
/* Binary search over sorted arrays of records. */
#ifndef PROFKIT_UTIL_SEARCH_H
#define PROFKIT_UTIL_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * "The last entry at or below an address": of n elements of size bytes,
 * sorted by the uint64_t at byte offset key of each, how many have a key
 * at or below addr; the last of them, if any, is element (result - 1).
 */
static inline size_t pki_count_at_or_below(const void *base, size_t n,
					  size_t size, size_t key,
					  uint64_t addr)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, p + mid * size + key, sizeof(k));
		if (k <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
