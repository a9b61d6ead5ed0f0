/*
 * Known blocking, for the off-CPU and wall-clock tests: one thread sleeps
 * 25 x 20 ms in sleep_often(), one waits 10 x 30 ms on a condition
 * variable nobody signals in wait_on_cond(), one spins in spin() until
 * both are done. The sleep and the wait are system calls made right in
 * those functions (x86_64), nanosleep and a futex wait as glibc's
 * condition variables make it: a --call-graph dwarf stack then unwinds
 * from them with this program's CFI alone, without libc's, which the
 * tests do not have. Each thread prints, measured with CLOCK_MONOTONIC, how
 * long it blocked and how long it lived, so the test compares with what
 * really happened, not with the nominal times. Each thread ends with a
 * 1 ms nap in rest(): the block a thread ends just before it dies is the
 * one perf sched timehist charges to tid -1 (the kernel's sample of a
 * dying task has no tid), so that one is kept short.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>

static atomic_int stop;
static volatile unsigned long sink;
static int never;	/* the condition's futex word: nobody signals it */

static inline __attribute__((always_inline)) long
raw_syscall(long nr, long a1, long a2, long a3, long a4)
{
	register long r10 __asm__("r10") = a4;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static double sleep_often(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	double blocked = 0;

	for (int i = 0; i < 25; i++) {
		double t0 = now_ms();

		raw_syscall(SYS_nanosleep, (long)&ts, 0, 0, 0);
		blocked += now_ms() - t0;
	}
	return blocked;
}

__attribute__((noinline)) static double wait_on_cond(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	double blocked = 0;

	for (int i = 0; i < 10; i++) {
		double t0 = now_ms();

		raw_syscall(SYS_futex, (long)&never, FUTEX_WAIT_PRIVATE, 0,
			    (long)&ts);
		blocked += now_ms() - t0;
	}
	return blocked;
}

__attribute__((noinline)) static double spin(void)
{
	while (!atomic_load(&stop))
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * i;
	return 0;
}

__attribute__((noinline)) static void rest(void)
{
	struct timespec ts = { 0, 1000 * 1000 };

	nanosleep(&ts, NULL);
}

struct job {
	const char *name;
	double (*work)(void);
	pthread_t thread;
	double blocked, lived;
};

static void *run(void *arg)
{
	struct job *j = arg;
	double t0 = now_ms();

	pthread_setname_np(pthread_self(), j->name);
	j->blocked = j->work();
	rest();
	j->lived = now_ms() - t0;
	return NULL;
}

int main(void)
{
	struct job jobs[] = {
		{ "sleeper", sleep_often }, { "waiter", wait_on_cond },
		{ "spinner", spin },
	};

	for (int i = 0; i < 3; i++)
		pthread_create(&jobs[i].thread, NULL, run, &jobs[i]);
	pthread_join(jobs[0].thread, NULL);
	pthread_join(jobs[1].thread, NULL);
	atomic_store(&stop, 1);
	pthread_join(jobs[2].thread, NULL);
	for (int i = 0; i < 3; i++)
		printf("%s blocked %.3f ms lived %.3f ms\n", jobs[i].name,
		       jobs[i].blocked, jobs[i].lived);
	return 0;
}
