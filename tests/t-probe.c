/* SPDX-License-Identifier: MIT */
/*
 * Probes, in FFmpeg's manner: random bytes must not look like any format,
 * and each format's own sample must pick its reader.
 */
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned char next_byte(int text)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	if (!text)
		return (unsigned char)rng;
	/* printable text with newlines and spaces: the hard case */
	return "abcdef0123456789 :;[]()/\n\t_-.xyz"[rng % 33];
}

static void test_random_buffers(void)
{
	unsigned char buf[4096];
	int worst = 0, text, round;
	const char *worst_name = "";
	size_t i;

	for (text = 0; text <= 1; text++) {
		for (round = 0; round < 2000; round++) {
			size_t len = 1 + (rng % sizeof(buf));

			for (i = 0; i < len; i++)
				buf[i] = next_byte(text);
			for (i = 0; pk_readers[i]; i++) {
				int s = pk_readers[i]->probe(buf, len);

				if (s > worst) {
					worst = s;
					worst_name = pk_readers[i]->name;
				}
			}
		}
	}
	ok(worst < PK_PROBE_MIN, "random bytes and text score under %d (worst %d, %s)",
	   PK_PROBE_MIN, worst, worst_name);
}

static void test_detects(const char *text, const char *want)
{
	struct pk_context *ctx = pk_context_new();
	const struct pk_reader *r = NULL;
	struct pk_input *in;
	int rc;

	rc = pk_input_open_memory(ctx, "sample", text, strlen(text), &in);
	if (!rc)
		rc = pk_reader_detect(ctx, in, &r);
	ok(rc == 0 && r && strcmp(r->name, want) == 0, "detects %s", want);
	pk_input_close(in);
	pk_context_free(ctx);
}

int main(void)
{
	test_random_buffers();
	test_detects("prog  1234 [000] 1.000001:  1 cpu-clock: \n\t 55d0 main+0x10 (/x)\n\n"
		     "prog  1234 [000] 1.000002:  1 cpu-clock: \n\t 55d0 main+0x10 (/x)\n\n",
		     "perf-script");
	return done_testing();
}
