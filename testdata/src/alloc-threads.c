/* Threads that burn CPU and keep memory: for gperftools CPU and heap profiles. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
static void *kept[3][4096];
__attribute__((noinline)) unsigned long mix(unsigned long n, unsigned long s) {
    for (unsigned long i = 0; i < n; i++) s = s * 6364136223846793005UL + (i ^ (s >> 17));
    return s;
}
__attribute__((noinline)) void *make_node(size_t size) {
    void *p = malloc(size);
    memset(p, 1, size);
    return p;
}
__attribute__((noinline)) void *make_table(size_t size) { return calloc(1, size); }
__attribute__((noinline)) void parse_body(int id, int rounds) {
    for (int r = 0; r < rounds; r++) {
        sink += mix(400000, (unsigned long)r);
        kept[id][r % 4096] = make_node(64 + (size_t)(r % 8) * 32);
    }
}
__attribute__((noinline)) void index_body(int id, int rounds) {
    for (int r = 0; r < rounds; r++) {
        sink += mix(150000, (unsigned long)r * 3);
        if (r % 64 == 0) kept[id][r / 64] = make_table(16384);
    }
}
static void *thread_main(void *arg) {
    int id = (int)(long)arg;
    if (id == 2) index_body(id, 3000);
    else parse_body(id, 1500 + 500 * id);
    return NULL;
}
int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, thread_main, (void *)i);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
