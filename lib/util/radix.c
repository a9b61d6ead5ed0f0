/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "radix.h"

/* Bits sorted by at most in one pass: 2048 counts a pass stay in L1. */
#define DIGIT_BITS 11

/* The keys moved by the digit at shift, counts[digit] being where the
 * first key of that digit goes. */
static void scatter(const uint64_t *from, uint64_t *to, size_t n,
		    unsigned shift, uint64_t mask, uint32_t *counts)
{
	size_t i;

	for (i = 0; i < n; i++)
		to[counts[(from[i] >> shift) & mask]++] = from[i];
}

uint64_t *pki_radix_sort(uint64_t *key, uint64_t *tmp, size_t n,
			 unsigned low, unsigned bits)
{
	/* digits of equal width, as few as DIGIT_BITS allows */
	unsigned passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS, d;
	unsigned width = passes ? (bits + passes - 1) / passes : 0;
	size_t nbuckets = (size_t)1 << width, b, i;
	uint64_t mask = nbuckets - 1;
	uint32_t *counts;

	if (n > PKI_RADIX_MAX)
		return NULL;
	if (n < 2 || !passes)
		return key;
	counts = calloc(passes * nbuckets, sizeof(*counts));
	if (!counts)
		return NULL;
	/* every pass's counts in one read of the keys */
	for (i = 0; i < n; i++) {
		uint64_t k = key[i] >> low;
		uint32_t *c = counts;

		for (d = 0; d < passes; d++, c += nbuckets, k >>= width)
			c[k & mask]++;
	}
	for (d = 0; d < passes; d++) {
		uint32_t *c = counts + d * nbuckets, sum = 0;
		unsigned shift = low + d * width;
		uint64_t *swap;

		if (c[(key[0] >> shift) & mask] == n)
			continue;	/* one digit for all: nothing moves */
		for (b = 0; b < nbuckets; b++) {
			uint32_t here = c[b];

			c[b] = sum;
			sum += here;
		}
		scatter(key, tmp, n, shift, mask, c);
		swap = key;
		key = tmp;
		tmp = swap;
	}
	free(counts);
	return key;
}
