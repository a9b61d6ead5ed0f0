/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the JSON writer (lib/util/json.c): the commas of nested
 * arrays and objects, the spaced style and line breaks, values outside
 * any container, numbers at their limits and in a locale whose decimal
 * point is a comma, chunked flushing and the first error kept.
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

#include "tap.h"

/* What the writer flushed, and in which sizes. */
struct sink {
	struct pk_strbuf text;
	size_t flushes, sizes[8];
	int fail_at;		/* this flush fails (1: the first), 0: none */
};

static int collect(void *arg, const char *s, size_t n)
{
	struct sink *k = arg;

	if (k->flushes < 8)
		k->sizes[k->flushes] = n;
	if (++k->flushes == (size_t)k->fail_at)
		return -3;
	return pki_strbuf_add(&k->text, s, n) ? -4 : 0;
}

static void start(struct pki_json *j, struct sink *k)
{
	memset(k, 0, sizeof(*k));
	pki_strbuf_add(&k->text, "", 0);
	pki_json_init(j, collect, k, -4);
}

/* Finish j and compare what it wrote with want. */
static void is_json(struct pki_json *j, struct sink *k, const char *want,
		    const char *name)
{
	is_int(pki_json_finish(j), 0, "%s: no error", name);
	is_str(k->text.s, want, "%s", name);
	free(k->text.s);
}

static void test_structure(void)
{
	struct pki_json j;
	struct sink k;

	start(&j, &k);
	pki_json_begin_object(&j);
	pki_json_key(&j, "a");
	pki_json_begin_array(&j);
	pki_json_int(&j, 1);
	pki_json_begin_object(&j);
	pki_json_end_object(&j);
	pki_json_begin_array(&j);
	pki_json_end_array(&j);
	pki_json_literal(&j, "null");
	pki_json_end_array(&j);
	pki_json_key(&j, "b\"");
	pki_json_cstring(&j, "x");
	pki_json_end_object(&j);
	is_json(&j, &k, "{\"a\":[1,{},[],null],\"b\\\"\":\"x\"}",
		"commas between members, none after an opening");

	start(&j, &k);
	j.spaced = 1;
	pki_json_begin_object(&j);
	pki_json_key(&j, "v");
	pki_json_int(&j, 0);
	pki_json_space(&j, "\n ");
	pki_json_key(&j, "l");
	pki_json_begin_array(&j);
	pki_json_space(&j, "\n  ");
	pki_json_int(&j, 1);
	pki_json_int(&j, 2);
	pki_json_space(&j, "\n  ");
	pki_json_int(&j, 3);
	pki_json_raw(&j, "\n ", 2);
	pki_json_end_array(&j);
	pki_json_end_object(&j);
	is_json(&j, &k, "{\"v\": 0,\n \"l\": [\n  1, 2,\n  3\n ]}",
		"spaced as json.dumps, whitespace before chosen members");

	start(&j, &k);
	pki_json_raw(&j, "[", 1);
	pki_json_int(&j, 1);
	pki_json_raw(&j, ",", 1);
	pki_json_cstring(&j, "a");
	pki_json_raw(&j, ",", 1);
	pki_json_begin_object(&j);
	pki_json_key(&j, "k");
	pki_json_int(&j, 2);
	pki_json_end_object(&j);
	pki_json_raw(&j, "]", 1);
	is_json(&j, &k, "[1,\"a\",{\"k\":2}]",
		"outside any container: values as they come");
}

static void test_numbers(void)
{
	struct pki_json j;
	struct sink k;

	start(&j, &k);
	pki_json_begin_array(&j);
	pki_json_int(&j, INT64_MIN);
	pki_json_int(&j, INT64_MAX);
	pki_json_int(&j, 0);
	pki_json_uint(&j, UINT64_MAX);
	pki_json_double(&j, 0.1, 9);
	pki_json_double(&j, INFINITY, 9);
	pki_json_double(&j, 123456789012.0, 9);
	pki_json_double(&j, -2.5e-7, 9);
	pki_json_double(&j, NAN, 9);
	pki_json_end_array(&j);
	is_json(&j, &k, "[-9223372036854775808,9223372036854775807,0,"
		"18446744073709551615,0.1,null,1.23456789e+11,-2.5e-07,null]",
		"integers at their limits, doubles as %.9g, inf and NaN null");
}

/*
 * A locale whose decimal point is a comma, built for the test: profkit
 * is a library, and its caller may have set one.
 */
static int comma_locale(char *dir, size_t size)
{
	char cmd[512];

	snprintf(dir, size, "%s/t-json.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 0;
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' "
		 ">/dev/null 2>&1", dir);
	if (system(cmd) != 0)
		return 0;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

static void test_locale(void)
{
	struct pki_json j;
	struct sink k;
	char dir[256], cmd[300], printed[32];

	if (!comma_locale(dir, sizeof(dir))) {
		ok(1, "a locale with a decimal comma # SKIP no de_DE locale "
		   "(localedef and its sources)");
		ok(1, "the writer in it: no error # SKIP no de_DE locale");
		ok(1, "the writer in it # SKIP no de_DE locale");
	} else {
		snprintf(printed, sizeof(printed), "%.9g", 2.5);
		is_str(printed, "2,5", "the locale's printf writes 2,5");
		start(&j, &k);
		pki_json_double(&j, 2.5, 9);
		pki_json_raw(&j, " ", 1);
		pki_json_double(&j, -1.25e-10, 9);
		is_json(&j, &k, "2.5 -1.25e-10", "the writer, 2.5 all the same");
	}
	setlocale(LC_NUMERIC, "C");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

static void test_chunks(void)
{
	struct pki_json j;
	struct sink k;
	size_t i, n = 100000;
	char *want = malloc(n * 2 + 2), *w = want;

	start(&j, &k);
	pki_json_begin_array(&j);
	*w++ = '[';
	for (i = 0; i < n; i++) {
		pki_json_int(&j, (int64_t)(i % 10));
		if (i)
			*w++ = ',';
		*w++ = (char)('0' + i % 10);
	}
	pki_json_end_array(&j);
	memcpy(w, "]", 2);
	is_int(pki_json_finish(&j), 0, "a long array: no error");
	for (i = 0; i + 1 < k.flushes && k.sizes[i] - 65536 < 8; i++)
		;
	ok(k.flushes == 4 && i == 3 && k.sizes[3] < 65536,
	   "handed over in chunks of 64 KiB and the rest (%zu flushes)",
	   k.flushes);
	ok(strcmp(k.text.s, want) == 0, "which make the document");
	free(want);
	free(k.text.s);

	start(&j, &k);
	k.fail_at = 2;
	pki_json_begin_array(&j);
	for (i = 0; i < n; i++)
		pki_json_int(&j, 1);
	pki_json_end_array(&j);
	is_int(pki_json_finish(&j), -3, "the flush's error is kept");
	is_int(k.flushes, 2, "and nothing is flushed after it");
	free(k.text.s);

	start(&j, &k);
	for (i = 0; i <= PKI_JSON_MAX_DEPTH; i++)
		pki_json_begin_array(&j);
	is_int(pki_json_finish(&j), -4, "nesting deeper than %d fails",
	       PKI_JSON_MAX_DEPTH);
	free(k.text.s);
}

int main(void)
{
	test_structure();
	test_numbers();
	test_locale();
	test_chunks();
	return done_testing();
}
