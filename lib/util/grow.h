/* SPDX-License-Identifier: MIT */
/* Arrays that grow by doubling. */
#ifndef PROFKIT_UTIL_GROW_H
#define PROFKIT_UTIL_GROW_H

#include <stddef.h>

/*
 * Grow *array (of elem bytes each) so that it holds at least need
 * elements; doubles capacity. Returns 0 or -1 (array unchanged).
 * Inline where it has room already: that is every call but a few,
 * several per sample.
 */
int pki_grow_slow(void *array, size_t *cap, size_t need, size_t elem);

static inline int pki_grow(void *array, size_t *cap, size_t need,
			   size_t elem)
{
	return need <= *cap ? 0 : pki_grow_slow(array, cap, need, elem);
}

/*
 * pki_grow, with the elements it adds zeroed (from the old capacity to
 * the new): arrays indexed by an id, where 0 stands for "not yet".
 */
int pki_grow_zeroed_slow(void *array, size_t *cap, size_t need, size_t elem);

static inline int pki_grow_zeroed(void *array, size_t *cap, size_t need,
				  size_t elem)
{
	return need <= *cap ? 0 : pki_grow_zeroed_slow(array, cap, need, elem);
}

#endif
