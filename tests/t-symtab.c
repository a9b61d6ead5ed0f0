/* SPDX-License-Identifier: MIT */
/*
 * The order symtab_sort (lib/symbolize/symtab.c) leaves a table in: by
 * start, then rank, equal entries as they came, compared with qsort's
 * order of the same entries by start, rank and place; for starts spread
 * over a few bits and over all 64, over just the bits the index leaves
 * in a radix sort's key and one more (its merge sort then), aliases a
 * few at one start, and a run of one start longer than an insertion
 * sort is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symtab.h"

#include "tap.h"

/* Entries are named after their place in the input. */
static char places[3000];

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005u + 1442695040888963407u;
	return *state >> 11 ^ *state << 29;
}

/* The reference order: start, rank, then place in the input. */
static int reference_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * n entries, starts base + (random & start_mask), ranks random &
 * rank_mask (n at most 3000); each entry's name is its place in the
 * input, so that equal entries show the order they were left in.
 */
static int sorts_as_reference(const char *what, size_t n, uint64_t base,
			      uint64_t start_mask, uint64_t rank_mask)
{
	struct symtab t = { 0 };
	struct sym *want = calloc(n ? n : 1, sizeof(*want));
	uint64_t state = n ^ start_mask;
	size_t i;
	int same;

	for (i = 0; i < n; i++) {
		uint64_t start = base + (next_random(&state) & start_mask);

		if (symtab_push(&t, start, start + 1, places + i,
				next_random(&state) & rank_mask))
			return ok(0, "%s: out of memory", what);
	}
	if (n)	/* t.v is NULL then, which memcpy and memcmp may not be */
		memcpy(want, t.v, n * sizeof(*want));
	qsort(want, n, sizeof(*want), reference_cmp);
	symtab_sort(&t);
	same = t.n == n && (!n || memcmp(t.v, want, n * sizeof(*want)) == 0);
	free(t.v);
	free(want);
	return ok(same, "%s", what);
}

int main(void)
{
	sorts_as_reference("no entries", 0, 0, 0, 0);
	sorts_as_reference("one entry", 1, 0x1000, 0xff, 0xff);
	sorts_as_reference("a library's functions", 3000, 0x28000,
			   0x1fffff, 0xffffffffff);
	sorts_as_reference("aliases, few ranks", 3000, 0x400000, 0x3ff, 3);
	sorts_as_reference("starts over 64 bits", 2000, 0, UINT64_MAX,
			   UINT64_MAX);
	/* 2048 entries: 11 bits of index, 53 left for the starts */
	sorts_as_reference("starts over 53 bits, indexes over 11", 2048, 7,
			   ((uint64_t)1 << 53) - 1, 0xf);
	sorts_as_reference("starts over 54 bits, indexes over 11", 2048, 7,
			   ((uint64_t)1 << 54) - 1, 0xf);
	sorts_as_reference("one start, 500 entries", 500, 0xffffffff81000000u,
			   0, 0xff);
	sorts_as_reference("two starts, equal ranks", 700, 0x10, 0x100, 0);
	return done_testing();
}
