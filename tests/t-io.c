/* SPDX-License-Identifier: MIT */
/* Inputs and outputs: gzip both ways, lines, peeking, atomic files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <profkit/profkit.h>

#include "tap.h"

static struct pk_context *ctx;

static size_t gzip_buffer(const char *text, unsigned char *out, size_t cap)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	deflateEnd(&z);
	return cap - z.avail_out;
}

static void test_lines(void)
{
	const char *text = "one\r\ntwo\n\nlast";
	struct pk_input *in;
	const char *line;
	size_t len, got;
	const unsigned char *peek;

	pk_input_open_memory(ctx, "mem", text, strlen(text), &in);
	peek = pk_input_peek(in, 3, &got);
	ok(got == 3 && memcmp(peek, "one", 3) == 0, "peek shows the first bytes");
	line = pk_input_line(in, &len);
	ok(line && len == 3 && strcmp(line, "one") == 0, "peeking consumed nothing; CR stripped");
	line = pk_input_line(in, &len);
	is_str(line, "two", "second line");
	line = pk_input_line(in, &len);
	is_int(len, 0, "an empty line");
	line = pk_input_line(in, &len);
	is_str(line, "last", "a last line without a newline");
	is_int(pk_input_lineno(in), 4, "line numbers count from 1");
	ok(pk_input_line(in, &len) == NULL, "then the end");
	pk_input_close(in);
}

static void test_gzip_input(void)
{
	unsigned char gz[256];
	size_t n = gzip_buffer("hello\nworld\n", gz, sizeof(gz));
	struct pk_input *in;
	const char *line;
	size_t len;

	pk_input_open_memory(ctx, "mem.gz", gz, n, &in);
	ok(pk_input_is_compressed(in) && pk_input_is_gzip(in), "gzip is detected");
	line = pk_input_line(in, &len);
	is_str(line, "hello", "and undone transparently");
	pk_input_close(in);

	pk_context_clear_error(ctx);
	pk_input_open_memory(ctx, "cut.gz", gz, n - 12, &in);
	while (pk_input_line(in, &len))
		;
	ok(pk_context_error(ctx)->code == PK_EINPUT &&
	   strstr(pk_context_error(ctx)->message, "truncated"),
	   "a cut gzip stream is an error: %s", pk_context_error(ctx)->message);
	pk_input_close(in);
	pk_context_clear_error(ctx);
}

static void test_gzip_output(void)
{
	struct pk_output *out;
	struct pk_input *in;
	const unsigned char *data;
	const char *line;
	size_t size, len;

	pk_output_open_memory(ctx, &out);
	pk_output_start_gzip(out);
	pk_output_printf(out, "%s %d\n", "compressed", 42);
	is_int(pk_output_finish(out), 0, "a gzip stream finishes");
	data = pk_output_memory(out, &size);
	ok(size > 2 && data[0] == 0x1f && data[1] == 0x8b, "with the gzip magic");
	pk_input_open_memory(ctx, "round", data, size, &in);
	line = pk_input_line(in, &len);
	is_str(line ? line : "", "compressed 42", "and reads back");
	pk_input_close(in);
	pk_output_abort(out);
}

static void test_atomic_file(void)
{
	char dir[] = "/tmp/profkit-t-io-dir.XXXXXX";
	char path[128], leftovers[256];
	struct pk_output *out;
	struct stat st;
	int rc;

	mkdtemp(dir);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	pk_output_open(ctx, path, &out);
	pk_output_puts(out, "partial");
	ok(stat(path, &st) != 0, "nothing at the final name while writing");
	pk_output_abort(out);
	ok(stat(path, &st) != 0, "nothing after an abort");
	snprintf(leftovers, sizeof(leftovers), "test -z \"$(ls -A %s)\"", dir);
	rc = system(leftovers);
	is_int(rc, 0, "and no temporary file left behind");
	pk_output_open(ctx, path, &out);
	pk_output_puts(out, "whole\n");
	is_int(pk_output_commit(out), 0, "commit");
	ok(stat(path, &st) == 0 && st.st_size == 6, "the file appears whole");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	ctx = pk_context_new();
	test_lines();
	test_gzip_input();
	test_gzip_output();
	test_atomic_file();
	pk_context_free(ctx);
	return done_testing();
}
