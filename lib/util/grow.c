/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

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
