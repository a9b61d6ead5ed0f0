#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
volatile unsigned long sink;
__attribute__((noinline)) void touch_pages(size_t mb) {
    size_t n = mb << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < n; i += 4096) p[i] = (char)i;
    sink += p[n / 2];
    munmap(p, n);
}
__attribute__((noinline)) void crunch(unsigned long n) {
    unsigned long s = 3;
    for (unsigned long i = 0; i < n; i++) s = s * 33 ^ i;
    sink += s;
}
int main(void) {
    for (int i = 0; i < 10; i++) { touch_pages(8); crunch(5000000 + i); }
    printf("%lu\n", sink);
    return 0;
}
