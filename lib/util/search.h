/* SPDX-License-Identifier: MIT */
/* Binary search over sorted arrays of records. */
#ifndef PROFKIT_UTIL_SEARCH_H
#define PROFKIT_UTIL_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A record's key: an unsigned integer of key_size bytes (4 or 8) at p. */
static inline uint64_t pki_key_at(const unsigned char *p, size_t key_size)
{
	uint32_t k32;
	uint64_t k64;

	if (key_size == sizeof(k32)) {
		memcpy(&k32, p, sizeof(k32));
		return k32;
	}
	memcpy(&k64, p, sizeof(k64));
	return k64;
}

/*
 * Of n elements of size bytes, sorted by the key of key_size bytes at
 * byte offset key of each, how many have a key below value, or with
 * at_or_below at or below it: the index of the first element above.
 */
static inline size_t pki_count_keys(const void *base, size_t n, size_t size,
				    size_t key, size_t key_size,
				    uint64_t value, int at_or_below)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = pki_key_at(p + mid * size + key, key_size);

		if (k < value || (at_or_below && k == value))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The offset and size of a record's key, for the searches here. */
#define PKI_KEY(type, member) \
	offsetof(type, member), sizeof(((type *)0)->member)

/*
 * "The first entry at or above a key" (a lower bound): how many have a
 * key below value; that entry, if any, is element (result).
 */
static inline size_t pki_count_below(const void *base, size_t n, size_t size,
				     size_t key, size_t key_size,
				     uint64_t value)
{
	return pki_count_keys(base, n, size, key, key_size, value, 0);
}

/*
 * "The last entry at or below an address": of n elements of size bytes,
 * sorted by the uint64_t at byte offset key of each, how many have a key
 * at or below addr; the last of them, if any, is element (result - 1).
 */
static inline size_t pki_count_at_or_below(const void *base, size_t n,
					  size_t size, size_t key,
					  uint64_t addr)
{
	return pki_count_keys(base, n, size, key, sizeof(uint64_t), addr, 1);
}

#endif
