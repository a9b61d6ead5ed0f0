/* SPDX-License-Identifier: MIT */
/*
 * A stable sort of 64-bit keys by their high bits, for records that fit
 * in one key: what they are sorted by above, and what rides along (a
 * position, an id) in the low bits. One least significant digit radix
 * sort for every such order: samples by time, symbols by address.
 */
#ifndef PROFKIT_UTIL_RADIX_H
#define PROFKIT_UTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* The most keys pki_radix_sort takes (its counts are 32 bits). */
#define PKI_RADIX_MAX UINT32_MAX

/* Bits needed to write v (0 for 0). */
static inline unsigned pki_bit_length(uint64_t v)
{
	unsigned bits = 0;

	for (; v; v >>= 1)
		bits++;
	return bits;
}

/*
 * Sort key[0, n) stably by key >> low, every key being below
 * 2^(low + bits) (low + bits <= 64), through tmp of n keys: the keys
 * with the same bits above low keep their order. Returns which of key
 * and tmp holds the sorted keys; NULL (key as it was) when out of
 * memory or n > PKI_RADIX_MAX.
 */
uint64_t *pki_radix_sort(uint64_t *key, uint64_t *tmp, size_t n,
			 unsigned low, unsigned bits);

#endif
