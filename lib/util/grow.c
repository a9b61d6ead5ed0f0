/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "grow.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define LARGE (HUGE_PAGE / 2)	/* bytes: an array worth a huge page */

/* Huge pages for the whole huge pages inside bytes at p, if any. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t to = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);

	if (bytes >= HUGE_PAGE && to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void *pki_alloc_large(size_t bytes)
{
	/* whole huge pages: the last one would otherwise be small pages */
	size_t whole = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	void *p;

	if (bytes < LARGE)
		return malloc(bytes ? bytes : 1);
	if (bytes > SIZE_MAX - HUGE_PAGE || posix_memalign(&p, HUGE_PAGE, whole))
		return NULL;
	advise_huge(p, whole);
	return p;
}

int pki_grow_slow(void *array, size_t *cap, size_t need, size_t elem)
{
	void **ptr = array;
	size_t n = *cap ? *cap : 16;
	void *grown;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return -1;
	/* realloc: a large block moves by mremap, never copied whole */
	grown = realloc(*ptr, n * elem);
	if (!grown)
		return -1;
	*ptr = grown;
	*cap = n;
	return 0;
}

int pki_grow_zeroed_slow(void *array, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;

	if (pki_grow_slow(array, cap, need, elem) < 0)
		return -1;
	memset((unsigned char *)*(void **)array + old * elem, 0,
	       (*cap - old) * elem);
	return 0;
}
