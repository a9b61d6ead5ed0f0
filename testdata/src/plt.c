#include <stdlib.h>
#include <string.h>

static char src[256], dst[256];
void *volatile keep;

/* Each call goes through the PLT: free@plt, memcpy@plt, malloc@plt. */
__attribute__((noinline)) static void churn(int n, size_t len)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(len);

		keep = p;
		memcpy(dst, src, len);
		free(p);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;

	for (int r = 0; r < rounds; r++)
		churn(100000, (size_t)argc * 100);
	return dst[0];
}
