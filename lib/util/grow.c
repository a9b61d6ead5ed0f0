/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>

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
