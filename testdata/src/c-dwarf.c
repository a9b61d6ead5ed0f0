/* --call-graph dwarf test program: -O2, no frame pointers, static
 * functions inlined into their callers, recursion, a function pointer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long h, unsigned long v)
{
	h ^= v + 0x9e3779b97f4a7c15ul + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdul;
}

__attribute__((noinline)) static unsigned long hash_block(const unsigned char *p, size_t n)
{
	unsigned long h = 1469598103934665603ul;

	for (size_t i = 0; i < n; i++)
		h = mix(h, p[i]);
	return h;
}

__attribute__((noinline)) static unsigned long walk(int depth, const unsigned char *p, size_t n)
{
	if (depth == 0)
		return hash_block(p, n);
	return walk(depth - 1, p, n) + (unsigned long)depth;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

__attribute__((noinline)) static void sort_work(unsigned long *v, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = mix(seed, i);
	qsort(v, n, sizeof(*v), cmp_ulong);
}

typedef unsigned long (*step_fn)(const unsigned char *, size_t);

__attribute__((noinline)) static unsigned long run(step_fn f, const unsigned char *p, size_t n)
{
	return f(p, n) ^ walk(6, p, n / 2);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	static unsigned char buf[1 << 16];
	static unsigned long v[1 << 14];

	memset(buf, 7, sizeof(buf));
	for (int k = 0; k < iters; k++) {
		sink += run(hash_block, buf, sizeof(buf));
		sort_work(v, sizeof(v) / sizeof(v[0]), (unsigned)k);
	}
	printf("%lu\n", sink);
	return 0;
}
