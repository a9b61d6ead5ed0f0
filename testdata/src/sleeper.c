#include <stdio.h>
#include <time.h>
#include <sched.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void nap(void) { struct timespec ts = {0, 2000000}; nanosleep(&ts, NULL); }
__attribute__((noinline)) void yielder(void) { for (int i = 0; i < 5; i++) sched_yield(); }
int main(void) {
    for (int i = 0; i < 40; i++) { burn(300000); nap(); yielder(); }
    printf("%lu\n", sink);
    return 0;
}
