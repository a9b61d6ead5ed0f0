#include <stdio.h>
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) unsigned long hot_loop(unsigned long n) {
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++) s += (i * 2654435761u) ^ (s >> 3);
    return s;
}
__attribute__((noinline)) unsigned long warm_loop(unsigned long n) {
    unsigned long s = 1;
    for (unsigned long i = 0; i < n; i++) s = s * 31 + i;
    return s;
}
__attribute__((noinline)) unsigned long cold_loop(unsigned long n) {
    unsigned long s = 7;
    for (unsigned long i = 0; i < n; i++) s ^= i << (i & 7);
    return s;
}
__attribute__((noinline)) void compute(int iters) {
    for (int k = 0; k < iters; k++) {
        sink += hot_loop(600000 + k);
        sink += warm_loop(200000 + k);
        sink += cold_loop(50000 + k);
    }
}
__attribute__((noinline)) void driver(int iters) { compute(iters); }
int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 800;
    driver(iters);
    printf("%lu\n", sink);
    return 0;
}
