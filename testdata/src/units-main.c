/*
 * A program of three compilation units (units-main.c, units-mid.c,
 * units-last.c), each with a function inlined into another, for the
 * tests of debug files whose .debug_info is copied only as far as the
 * sampled units (tests/run-debug-units.sh):
 *   cc -O2 -g -o testdata/bin/units testdata/src/units-main.c \
 *      testdata/src/units-mid.c testdata/src/units-last.c
 *   units N
 */
#include <stdlib.h>

unsigned long mid_work(unsigned long n);
unsigned long last_work(unsigned long n);

static inline unsigned long main_step(unsigned long s, unsigned long i)
{
	return s * 31 + (i ^ (s >> 3));
}

__attribute__((noinline)) unsigned long main_work(unsigned long n)
{
	unsigned long s = n;

	for (unsigned long i = 0; i < n; i++)
		s = main_step(s, i);
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;

	return (int)((main_work(n) + mid_work(n) + last_work(n)) & 1);
}
