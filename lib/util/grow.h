/* SPDX-License-Identifier: MIT */
/* Arrays that grow by doubling. */
#ifndef PROFKIT_UTIL_GROW_H
#define PROFKIT_UTIL_GROW_H

#include <stddef.h>

/*
 * bytes for a large array: one of half a huge page (1 MiB) or more is
 * on huge pages, rounded up to whole ones, where the system gives them
 * on request (transparent huge pages, "madvise"). The first touch of
 * each 4 KiB page of a fresh array is a fault that costs more than
 * filling the page, and a large array read at random misses the TLB on
 * nearly every read. Freed with free().
 */
void *pki_alloc_large(size_t bytes);

/*
 * Grow *array (of elem bytes each) so that it holds at least need
 * elements; doubles capacity. Returns 0 or -1 (array unchanged).
 * realloc'd on small pages, not moved into pki_alloc_large's: a move
 * holds both copies at once and copies the whole (a million stacks'
 * flame graph peaked at 607 MB, not 396), and huge pages fault in 2 MiB
 * at a time, stalling on compaction where memory is fragmented. Inline
 * where it has room already: that is every call but a few, several per
 * sample.
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
