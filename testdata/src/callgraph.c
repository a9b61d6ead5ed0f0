/*
 * A call graph for the callgrind reader's tests: leaf has three callers
 * (left twice, right, fact), fact calls itself, even and odd call each
 * other, and mix (callgraph.h) is inlined. With an argument T > 0 a
 * second thread runs the same work.
 *   callgraph N [T]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

volatile unsigned long sink;

__attribute__((noinline)) unsigned long leaf(unsigned long n)
{
	unsigned long s = n;

	for (unsigned long i = 0; i < n; i++)
		s = mix(s, i);
	return s;
}

__attribute__((noinline)) unsigned long left(unsigned long n)
{
	return leaf(n) + leaf(n / 2);
}

__attribute__((noinline)) unsigned long right(unsigned long n)
{
	return leaf(3 * n);
}

__attribute__((noinline)) unsigned long fact(unsigned long n)
{
	return n < 2 ? leaf(n * 10) : n * fact(n - 1) + leaf(n);
}

__attribute__((noinline)) unsigned long odd(unsigned long n);

__attribute__((noinline)) unsigned long even(unsigned long n)
{
	return n ? odd(n - 1) + leaf(5) : 1;
}

__attribute__((noinline)) unsigned long odd(unsigned long n)
{
	return n ? even(n - 1) : 0;
}

__attribute__((noinline)) void *work(void *arg)
{
	unsigned long n = (unsigned long)arg;

	for (unsigned long k = 0; k < n; k++) {
		sink += left(100 + k) + right(50 + k);
		sink += fact(8) + even(9);
		sink = mix(sink, k);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20;
	unsigned long t = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	pthread_t thread;

	if (t && pthread_create(&thread, NULL, work, (void *)t))
		return 1;
	work((void *)n);
	if (t)
		pthread_join(thread, NULL);
	printf("%lu\n", sink);
	return 0;
}
