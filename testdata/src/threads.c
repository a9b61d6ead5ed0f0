#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) unsigned long spin(unsigned long n, unsigned long seed) {
    unsigned long s = seed;
    for (unsigned long i = 0; i < n; i++) s = s * 6364136223846793005UL + i;
    return s;
}
__attribute__((noinline)) void worker_body(unsigned long n) { sink += spin(n, n); }
__attribute__((noinline)) void io_body(unsigned long n) { for (int i = 0; i < 4; i++) sink += spin(n / 4, i); }
__attribute__((noinline)) void x_body(unsigned long n) { sink += spin(n / 2, 99); }
struct arg { const char *name; int kind; unsigned long n; };
static void *thr(void *p) {
    struct arg *a = p;
    pthread_setname_np(pthread_self(), a->name);
    if (a->kind == 0) worker_body(a->n);
    else if (a->kind == 1) io_body(a->n);
    else x_body(a->n);
    return NULL;
}
int main(void) {
    struct arg args[] = {
        {"work er 0", 0, 60000000}, {"io w 1", 1, 40000000}, {"x", 2, 40000000},
        {"worker42", 0, 30000000}, {"trail sp ", 2, 20000000},
    };
    int n = sizeof args / sizeof args[0];
    pthread_t t[8];
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, thr, &args[i]);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
