/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of pki_sort_by_time and pki_time_order: each order the sort
 * makes (8-byte keys, in two rounds when the times' span is too wide for
 * one; copies of time and index when the indexes do not ascend) against
 * a plain insertion sort by time, then index. And of pki_radix_sort, the
 * keys' sort under them, at its edges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/radix.h"

#include "tap.h"

/* A profile keeping n samples, sample i at times[i]. */
static struct pk_profile *timed_profile(const uint64_t *times, size_t n)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	int64_t v = 1;
	size_t i;

	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	for (i = 0; i < n; i++)
		pk_profile_add_sample(p, 0, 0, times[i], &v, 1);
	return p;
}

/* idx in time order, equal times by index, the plain way. */
static void reference_sort(const uint64_t *times, uint32_t *idx, size_t n)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		uint32_t x = idx[i];

		for (k = i; k > 0 && (times[idx[k - 1]] > times[x] ||
				      (times[idx[k - 1]] == times[x] &&
				       idx[k - 1] > x)); k--)
			idx[k] = idx[k - 1];
		idx[k] = x;
	}
}

/* Sort idx (n indexes into times) both ways; 1 when they agree. */
static int sorts_alike(const uint64_t *times, size_t ntimes,
		       const uint32_t *idx, size_t n)
{
	struct pk_profile *p = timed_profile(times, ntimes);
	uint32_t *ours = malloc(n * sizeof(*ours));
	uint32_t *theirs = malloc(n * sizeof(*theirs));
	int same;

	memcpy(ours, idx, n * sizeof(*idx));
	memcpy(theirs, idx, n * sizeof(*idx));
	reference_sort(times, theirs, n);
	same = pki_sort_by_time(p, ours, n) == 0 &&
	       memcmp(ours, theirs, n * sizeof(*ours)) == 0;
	free(ours);
	free(theirs);
	pk_profile_free(p);
	return same;
}

static uint32_t *ascending(size_t n)
{
	uint32_t *idx = malloc(n * sizeof(*idx));
	size_t i;

	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	return idx;
}

/* A recording repeated: each copy ascends, all copies the same times. */
static void test_repeated_runs(void)
{
	enum { RUN = 1000, COPIES = 7, N = RUN * COPIES };
	uint64_t *times = malloc(N * sizeof(*times));
	uint32_t *idx = ascending(N);
	size_t i;

	for (i = 0; i < N; i++)
		times[i] = 2421514369000ull + (i % RUN) * 500000 + (i % RUN) % 3;
	ok(sorts_alike(times, N, idx, N),
	   "copies of one run: equal times stay in input order");
	free(times);
	free(idx);
}

/* The next of a pseudo-random walk (Marsaglia's xorshift). */
static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Times from a pseudo-random walk, several equal, over 40 bits. */
static void test_scattered(void)
{
	enum { N = 50000 };
	uint64_t *times = malloc(N * sizeof(*times)), x = 88172645463325252ull;
	uint32_t *idx = ascending(N);
	size_t i;

	for (i = 0; i < N; i++) {
		times[i] = 1000000 + (xorshift(&x) & 0xffffffffffull) /
			   (i % 5 ? 1 : 4096);
	}
	ok(sorts_alike(times, N, idx, N), "scattered times, some equal");
	/* every other sample, as one group of several */
	for (i = 0; i < N / 2; i++)
		idx[i] = (uint32_t)(2 * i + 1);
	ok(sorts_alike(times, N, idx, N / 2), "a group of every other sample");
	free(times);
	free(idx);
}

/* A span past what one key holds beside the place: sorted in two
 * rounds; indexes not ascending: by copies of time and index. */
static void test_wide_span(void)
{
	uint64_t times[] = { UINT64_MAX - 1, 5, UINT64_MAX - 1, 1, 0, 5, 3 };
	uint32_t idx[] = { 0, 1, 2, 3, 4, 5, 6 };
	uint32_t down[] = { 6, 5, 4, 3, 2, 1, 0 };

	ok(sorts_alike(times, 7, idx, 7), "times over 64 bits of span");
	ok(sorts_alike(times, 7, down, 7),
	   "indexes that do not ascend: equal times by index still");
}

/* Many samples over the whole 64 bits: the keys sorted in two rounds. */
static void test_two_rounds(void)
{
	enum { N = 3000 };
	uint64_t *times = malloc(N * sizeof(*times)), x = 2463534242ull;
	uint32_t *idx = ascending(N);
	size_t i;

	for (i = 0; i < N; i++) {
		times[i] = i % 7 == 0 ? 0 : i % 7 == 1 ? UINT64_MAX : xorshift(&x);
	}
	ok(sorts_alike(times, N, idx, N), "a span of 64 bits, sorted in two rounds");
	times[0] = UINT64_MAX;
	times[N - 1] = 0;
	ok(sorts_alike(times, N, idx, N), "the least and greatest times at the ends");
	free(times);
	free(idx);
}

static void test_one_sample(void)
{
	uint64_t times[] = { 7 };
	uint32_t idx[] = { 0 }, place[1];
	struct pk_profile *p = timed_profile(times, 1);

	is_int(pki_time_order(p, idx, 1, place), 0, "one sample: in order");
	ok(sorts_alike(times, 1, idx, 1), "one sample sorted");
	pk_profile_free(p);
}

/* The keys sorted by key >> low, equal ones in their order: the plain way. */
static void reference_keys(uint64_t *key, size_t n, unsigned low)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		uint64_t x = key[i];

		for (k = i; k > 0 && key[k - 1] >> low > x >> low; k--)
			key[k] = key[k - 1];
		key[k] = x;
	}
}

/* pki_radix_sort of n keys against reference_keys; 1 when alike. */
static int radix_alike(const uint64_t *keys, size_t n, unsigned low,
		       unsigned bits)
{
	uint64_t *ours = malloc(2 * n * sizeof(*ours) + 1), *sorted;
	uint64_t *theirs = malloc(n * sizeof(*theirs) + 1);
	int same;

	if (n) {
		memcpy(ours, keys, n * sizeof(*keys));
		memcpy(theirs, keys, n * sizeof(*keys));
	}
	reference_keys(theirs, n, low);
	sorted = pki_radix_sort(ours, ours + n, n, low, bits);
	same = sorted && (!n || memcmp(sorted, theirs, n * sizeof(*theirs)) == 0);
	free(ours);
	free(theirs);
	return same;
}

static void test_radix_edges(void)
{
	enum { N = 2000 };
	uint64_t one[] = { 42 }, keys[N], x = 88172645463325252ull;
	size_t i;

	ok(radix_alike(one, 0, 0, 64), "no keys");
	ok(radix_alike(one, 1, 0, 64), "one key");
	for (i = 0; i < N; i++)
		keys[i] = (uint64_t)5 << 11 | i;
	ok(radix_alike(keys, N, 11, 3), "all keys equal above the positions");
	for (i = 0; i < N; i++) {
		keys[i] = i % 5 ? xorshift(&x) : i % 2 ? UINT64_MAX : 0;
	}
	ok(radix_alike(keys, N, 0, 64), "keys of all 64 bits");
	for (i = 0; i < N; i++)
		keys[i] = (keys[i] >> 11) << 11 | i;
	ok(radix_alike(keys, N, 11, 53), "53 bits above 11 of positions");
	for (i = 0; i < N; i++)
		keys[i] = (keys[i] >> 63) << 63 | i;
	ok(radix_alike(keys, N, 63, 1), "one bit, the highest");
}

static void test_places(void)
{
	uint64_t times[] = { 30, 10, 20, 10 };
	uint32_t idx[] = { 0, 1, 2, 3 }, place[4];
	uint64_t sorted[] = { 1, 2, 3 };
	struct pk_profile *p = timed_profile(times, 4);
	struct pk_profile *q = timed_profile(sorted, 3);

	is_int(pki_time_order(p, idx, 4, place), 1, "out of order: places told");
	ok(place[0] == 1 && place[1] == 3 && place[2] == 2 && place[3] == 0,
	   "the places of the times in order");
	is_int(pki_time_order(q, idx, 3, place), 0, "in order already: 0");
	pk_profile_free(p);
	pk_profile_free(q);
}

int main(void)
{
	test_repeated_runs();
	test_scattered();
	test_wide_span();
	test_two_rounds();
	test_one_sample();
	test_radix_edges();
	test_places();
	return done_testing();
}
