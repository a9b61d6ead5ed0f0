/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the callgrind writer on a model built by hand, with what
 * perf script input cannot show: source files and lines, an inlined
 * function, two objects, recursion and a sample without a stack.
 */
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

static uint32_t function(struct pk_profile *p, const char *name,
			 const char *file, int64_t start_line)
{
	struct pk_function f = { 0 };

	f.name = f.system_name = pk_profile_intern_cstr(p, name);
	f.filename = file ? pk_profile_intern_cstr(p, file) : 0;
	f.start_line = start_line;
	return pk_profile_intern_function(p, &f);
}

static uint32_t mapping(struct pk_profile *p, const char *file, uint64_t start)
{
	struct pk_mapping m = { 0 };

	m.start = start;
	m.limit = start + 0x10000;
	m.file = pk_profile_intern_cstr(p, file);
	return pk_profile_intern_mapping(p, &m);
}

static uint32_t location(struct pk_profile *p, uint32_t map, uint64_t addr,
			 uint32_t fn, int64_t line)
{
	struct pk_line l = { fn, line };

	return pk_profile_intern_location(p, map, addr, &l, 1);
}

static void add(struct pk_profile *p, const uint32_t *locs, size_t depth,
		int64_t ns)
{
	int64_t v[2] = { 1, ns };

	pk_profile_add_sample(p, pk_profile_intern_stack(p, locs, depth), 0, 0,
			      v, 2);
}

static const char expected[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: profkit " PACKAGE_VERSION "\n"
	"positions: line\n"
	"event: cpu_clock : cpu-clock (nanoseconds)\n"
	"event: samples : samples (count)\n"
	"events: cpu_clock samples\n"
	"summary: 450 4\n"
	"\n"
	"ob=(1) /bin/app\n"
	"fl=(1) main.c\n"
	"fn=(1) main\n"
	"cob=(1)\n"
	"cfi=(1)\n"
	"cfn=(2) work\n"
	"calls=2 20\n"
	"11 200 2\n"
	"cob=(1)\n"
	"cfi=(1)\n"
	"cfn=(3) rec\n"
	"calls=1 30\n"
	"11 200 1\n"
	"\n"
	"ob=(1)\n"
	"fl=(1)\n"
	"fn=(2)\n"
	"cob=(1)\n"
	"cfi=(2) inl.h\n"
	"cfn=(4) leaf\n"
	"calls=2 0\n"
	"22 200 2\n"
	"\n"
	"ob=(1)\n"
	"fl=(2)\n"
	"fn=(4)\n"
	"5 200 2\n"
	"\n"
	"ob=(1)\n"
	"fl=(1)\n"
	"fn=(3)\n"
	"cob=(1)\n"
	"cfi=(1)\n"
	"cfn=(3)\n"
	"calls=1 30\n"
	"31 200 1\n"
	"cob=(2) /lib/libc.so.6\n"
	"cfi=(3) ???\n"
	"cfn=(5) memcpy\n"
	"calls=1 0\n"
	"31 200 1\n"
	"cob=(1)\n"
	"cfi=(1)\n"
	"cfn=(3)\n"
	"calls=1 30\n"
	"32 200 1\n"
	"\n"
	"ob=(2)\n"
	"fl=(3)\n"
	"fn=(5)\n"
	"0 200 1\n"
	"\n"
	"ob=(3) ???\n"
	"fl=(3)\n"
	"fn=(6) [unknown]\n"
	"0 50 1\n"
	"\n"
	"totals: 450 4\n";

/* Lines of a and b side by side where they first differ. */
static void diag_first_difference(const char *a, const char *b)
{
	size_t line = 1, i;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '\n')
			line++;
	diag("first difference on line %zu:", line);
	diag("  got:  %.40s", a + i);
	diag("  want: %.40s", b + i);
}

static void test_output(void)
{
	const struct pk_writer *w = pk_writer_find("callgrind");
	struct pk_profile *p = pk_profile_new(0);
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_output *out;
	uint32_t app, libc, f_main, f_work, f_rec, loc[5];
	struct pk_line inlined[2];
	const unsigned char *data;
	size_t size;
	char *text;

	ok(w && strcmp(pk_writer_extension(w), ".callgrind") == 0, "callgrind is registered");
	if (!w) {
		pk_profile_free(p);
		pk_context_free(ctx);
		return;
	}
	pk_profile_add_sample_type(p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	app = mapping(p, "/bin/app", 0x400000);
	libc = mapping(p, "/lib/libc.so.6", 0x7f0000);
	f_main = function(p, "main", "main.c", 10);
	f_work = function(p, "work", "main.c", 20);
	f_rec = function(p, "rec", "main.c", 30);

	/* main:11 -> work:22 with leaf (inl.h:5) inlined, twice */
	inlined[0] = (struct pk_line){ function(p, "leaf", "inl.h", 0), 5 };
	inlined[1] = (struct pk_line){ f_work, 22 };
	loc[0] = pk_profile_intern_location(p, app, 0x401000, inlined, 2);
	loc[1] = location(p, app, 0x400100, f_main, 11);
	add(p, loc, 2, 100);
	add(p, loc, 2, 100);
	/* main:11 -> rec:31 -> rec:32 -> rec:31 -> memcpy, leaf first */
	loc[0] = location(p, libc, 0x7f0100, function(p, "memcpy", NULL, 0), 0);
	loc[1] = location(p, app, 0x402010, f_rec, 31);
	loc[2] = location(p, app, 0x402020, f_rec, 32);
	loc[3] = location(p, app, 0x402010, f_rec, 31);
	loc[4] = location(p, app, 0x400100, f_main, 11);
	add(p, loc, 5, 200);
	/* a sample without a stack */
	add(p, NULL, 0, 50);

	if (!is_int(pk_output_open_memory(ctx, &out), 0, "memory output"))
		return;
	is_int(pk_writer_write(ctx, w, p, opts, out), 0, "writes");
	data = pk_output_memory(out, &size);
	text = strndup((const char *)data, size);
	if (!ok(text && strcmp(text, expected) == 0,
		"self costs by line, each call once per sample, names compressed"))
		diag_first_difference(text ? text : "", expected);
	free(text);
	pk_output_abort(out);
	pk_options_free(opts);
	pk_profile_free(p);
	pk_context_free(ctx);
}

int main(void)
{
	test_output();
	return done_testing();
}
