/*
 * Two threads that block in functions of their own, for the off-CPU
 * writers' tests: each round the main thread computes, naps 10 ms and
 * hands work over to the "napper-wait" thread, which waits on a futex
 * for it and then computes a little. The blocking calls are system calls
 * made here, not through libc, so that the function that blocked is the
 * leaf of the user stack perf copies (x86-64 only).
 *
 *   naps [ROUNDS [NAP_US [WORK]]]   (default 12 rounds of 10000 us naps
 *                                    and 8000000 iterations of work)
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

/* A system call in line, so no libc frame sits at the leaf. */
#define SYSCALL4(ret, nr, a, b, c, d) do {				\
	register long r10_ __asm__("r10") = (long)(d);			\
	__asm__ volatile("syscall" : "=a"(ret)				\
			 : "a"((long)(nr)), "D"((long)(a)),		\
			   "S"((long)(b)), "d"((long)(c)), "r"(r10_)	\
			 : "rcx", "r11", "memory");			\
} while (0)

static volatile unsigned long sink;
static volatile int handed;	/* rounds handed over */
static volatile int finished;	/* the waiting thread is done */
/* main's work per round; the other thread does a quarter of it */
static unsigned long work = 8000000;

__attribute__((noinline)) static void compute(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void nap(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	long ret;

	SYSCALL4(ret, SYS_nanosleep, &ts, NULL, 0, 0);
	(void)ret;
}

/* Block until *word is no longer seen. */
__attribute__((noinline)) static void wait_for(volatile int *word, int seen)
{
	long ret;

	while (*word == seen)
		SYSCALL4(ret, SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL);
	(void)ret;
}

__attribute__((noinline)) static void wake(volatile int *word)
{
	long ret;

	SYSCALL4(ret, SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, 0);
	(void)ret;
}

__attribute__((noinline)) static void *waiter(void *arg)
{
	int rounds = *(int *)arg, done;

	for (done = 0; done < rounds; done++) {
		wait_for(&handed, done);
		compute(work / 4);
	}
	finished = 1;
	wake(&finished);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 12, i;
	long nap_us = argc > 2 ? atol(argv[2]) : 10000;
	pthread_t thread;

	if (argc > 3)
		work = strtoul(argv[3], NULL, 10);
	pthread_create(&thread, NULL, waiter, &rounds);
	pthread_setname_np(thread, "napper-wait");
	for (i = 0; i < rounds; i++) {
		compute(work);
		nap(nap_us);
		handed = i + 1;
		wake(&handed);
	}
	wait_for(&finished, 0);
	return 0;
}
