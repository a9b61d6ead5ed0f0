/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the streaming JSON reader (lib/util/json-read.c): which
 * values reach the caller for which paths, the same whatever the sizes
 * the input is fed in; numbers as whole numbers, doubles and scaled
 * integers; and the messages, with offset and path, of a document
 * refused: bad JSON, truncation, nesting and string bounds, a caller's
 * own refusal.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json-read.h"
#include "util/strbuf.h"

#include "tap.h"

#define EINPUT (-1)
#define ENOMEM (-4)

/* What the callback saw: "id:what" per value, space-separated. */
struct trace {
	struct pk_strbuf text;
	int fail_id;		/* refuse the value of this path id */
};

static const char *const kinds[] = {
	[PKI_JSON_NULL] = "null", [PKI_JSON_BOOL] = "bool",
	[PKI_JSON_NUMBER] = "num", [PKI_JSON_STRING] = "str",
	[PKI_JSON_BEGIN_OBJECT] = "{", [PKI_JSON_END_OBJECT] = "}",
	[PKI_JSON_BEGIN_ARRAY] = "[", [PKI_JSON_END_ARRAY] = "]",
};

static int record(void *arg, struct pki_json_reader *jr, int id,
		  const struct pki_json_value *v)
{
	struct trace *t = arg;
	char buf[128];
	size_t klen;
	const char *key = pki_json_reader_key(jr, &klen);

	if (id == t->fail_id)
		return pki_json_reader_fail(jr, "expected no value here");
	snprintf(buf, sizeof(buf), "%s%d:%s", t->text.len ? " " : "", id, kinds[v->type]);
	pki_strbuf_adds(&t->text, buf);
	if (v->type == PKI_JSON_STRING)
		snprintf(buf, sizeof(buf), "=%.*s", (int)v->len, v->text);
	else if (v->type == PKI_JSON_NUMBER && v->is_int)
		snprintf(buf, sizeof(buf), "=%lld", (long long)v->i);
	else if (v->type == PKI_JSON_NUMBER)
		snprintf(buf, sizeof(buf), "=%.17g", v->d);
	else if (v->type == PKI_JSON_BOOL)
		snprintf(buf, sizeof(buf), "=%d", v->truth);
	else
		buf[0] = '\0';
	pki_strbuf_adds(&t->text, buf);
	if (klen)
		snprintf(buf, sizeof(buf), "@%.*s", (int)klen, key);
	else
		snprintf(buf, sizeof(buf), "#%llu",
			 (unsigned long long)pki_json_reader_index(jr));
	pki_strbuf_adds(&t->text, buf);
	return 0;
}

static const struct pki_json_path paths[] = {
	{ "$.nodes[]", 1 },
	{ "$.nodes[].id", 2 },
	{ "$.nodes[].callFrame.url", 3 },
	{ "$.samples[]", 4 },
	{ "$.meta.*", 5 },
	{ "$.meta.name", 6 },
	{ "$.rows[][]", 7 },
	{ NULL, 0 },
};

/* Everything through yajl, no fast path for arrays of numbers. */
static int yajl_only;

/* Feed doc in pieces of step bytes (0: at once); the reader's code. */
static int run(const char *doc, size_t len, size_t step, struct trace *t,
	       unsigned max_depth, size_t max_string, char *error, size_t size)
{
	const struct pki_json_read_spec spec = {
		.paths = paths, .value = record, .arg = t,
		.einput = EINPUT, .enomem = ENOMEM,
		.max_depth = max_depth, .max_string = max_string,
		.no_fast_path = yajl_only,
	};
	struct pki_json_reader *jr = pki_json_reader_new(&spec);
	size_t at = 0;
	int rc = 0;

	t->text.len = 0;
	pki_strbuf_add(&t->text, "", 0);
	if (!jr)
		return ENOMEM;
	while (!rc && at < len) {
		size_t n = step && len - at > step ? step : len - at;

		rc = pki_json_reader_feed(jr, doc + at, n);
		at += n;
	}
	if (!rc)
		rc = pki_json_reader_finish(jr);
	snprintf(error, size, "%s", pki_json_reader_error(jr));
	pki_json_reader_free(jr);
	return rc;
}

static const char sample_doc[] =
	"\xef\xbb\xbf{\"nodes\": [{\"id\": 1, \"callFrame\": {\"url\": \"a.js\", "
	"\"line\": 3}, \"skip\": [1, {\"id\": 9}]}, {\"id\": 2, \"callFrame\": "
	"{\"url\": \"b\\\"c\\u00e9\"}}], \"samples\": [1, 2, 2], \"other\": "
	"{\"samples\": [7]}, \"meta\": {\"name\": \"x\", \"a\": true, \"b\": null}, "
	"\"rows\": [[1, \"p\"], [2]]}";

static const char want[] =
	"1:{#0 2:num=1@id 3:str=a.js@url 1:}#0 1:{#1 2:num=2@id 3:str=b\"c\xc3\xa9@url "
	"1:}#1 4:num=1#0 4:num=2#1 4:num=2#2 6:str=x@name 5:bool=1@a 5:null@b "
	"7:num=1#0 7:str=p#1 7:num=2#0";

static void test_dispatch(void)
{
	static const size_t steps[] = { 0, 1, 2, 3, 7, 64 };
	struct trace t = { 0 };
	char error[256];
	size_t i;

	for (i = 0; i < (sizeof(steps) / sizeof(steps[0])); i++) {
		int rc = run(sample_doc, sizeof(sample_doc) - 1, steps[i], &t, 0, 0, error,
			     sizeof(error));

		is_int(rc, 0, "a document fed %zu bytes at a time: read", steps[i]);
		is_str(t.text.s, want, "... its values on the paths, in order, "
		       "with keys and indexes");
	}
	free(t.text.s);
}

/* One number's value as the reader gives it. */
static const char *number(const char *text, char *buf, size_t size)
{
	struct trace t = { 0 };
	char one[128], error[256];

	snprintf(one, sizeof(one), "{\"samples\": [%s]}", text);
	if (run(one, strlen(one), 0, &t, 0, 0, error, sizeof(error)))
		snprintf(buf, size, "error %s", error);
	else
		snprintf(buf, size, "%s", t.text.s);
	free(t.text.s);
	return buf;
}

static void test_numbers(void)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "0", "4:num=0#0" },
		{ "-0", "4:num=0#0" },
		{ "1e3", "4:num=1000#0" },
		{ "1000.0", "4:num=1000#0" },
		{ "2.50E1", "4:num=25#0" },
		{ "9223372036854775807", "4:num=9223372036854775807#0" },
		{ "-9223372036854775808", "4:num=-9223372036854775808#0" },
		{ "9223372036854775808", "4:num=9.2233720368547758e+18#0" },
		{ "1.5", "4:num=1.5#0" },
		{ "0.1", "4:num=0.10000000000000001#0" },
		{ "-2.5e-7", "4:num=-2.4999999999999999e-07#0" },
		{ "123456789012345678901234567890", "4:num=1.2345678901234568e+29#0" },
		{ "1e400", "4:num=inf#0" },
		{ "4.9e-324", "4:num=4.9406564584124654e-324#0" },
	};
	char buf[320];
	size_t i;

	for (i = 0; i < (sizeof(cases) / sizeof(cases[0])); i++)
		is_str(number(cases[i].text, buf, sizeof(buf)), cases[i].want,
		       "the number %s", cases[i].text);
}

/* pki_json_expect_scaled and pki_json_decimals on one number. */
struct scaled {
	int decimals, rc, places;
	int64_t out;
	char error[256];
};

static int scale_one(void *arg, struct pki_json_reader *jr, int id,
		     const struct pki_json_value *v)
{
	struct scaled *s = arg;

	(void)id;
	s->places = pki_json_decimals(v);
	s->rc = pki_json_expect_scaled(jr, v, s->decimals, -1000000, 1000000, &s->out);
	return 0;
}

static void test_scaled(void)
{
	static const struct {
		const char *text;
		int decimals, rc, places;
		int64_t out;
	} cases[] = {
		{ "12.5", 3, 0, 1, 12500 },
		{ "1e-3", 3, 0, 3, 1 },
		{ "0.0005", 3, 0, 4, 1 },
		{ "-0.0005", 3, 0, 4, -1 },
		{ "0.00049", 3, 0, 5, 0 },
		{ "7", 0, 0, 0, 7 },
		{ "2.50", 1, 0, 1, 25 },
		{ "1000.0005", 3, EINPUT, 4, 0 },
		{ "1e30", 0, EINPUT, 0, 0 },
	};
	static const struct pki_json_path one[] = { { "$[]", 1 }, { NULL, 0 } };
	size_t i;

	for (i = 0; i < (sizeof(cases) / sizeof(cases[0])); i++) {
		struct scaled s = { .decimals = cases[i].decimals };
		const struct pki_json_read_spec spec = {
			.paths = one, .value = scale_one, .arg = &s,
			.einput = EINPUT, .enomem = ENOMEM,
		};
		struct pki_json_reader *jr = pki_json_reader_new(&spec);
		char text[64];

		snprintf(text, sizeof(text), "[%s]", cases[i].text);
		pki_json_reader_feed(jr, text, strlen(text));
		pki_json_reader_finish(jr);
		if (!ok(s.rc == cases[i].rc && (s.rc || s.out == cases[i].out) &&
			s.places == cases[i].places,
			"%s with %d decimals: %lld, %d places", cases[i].text,
			cases[i].decimals, (long long)cases[i].out, cases[i].places))
			diag("  got rc %d, %lld, %d places: %s", s.rc,
			     (long long)s.out, s.places, pki_json_reader_error(jr));
		pki_json_reader_free(jr);
	}
}

static void test_errors(void)
{
	static const struct {
		const char *doc;
		unsigned max_depth;
		size_t max_string, step;
		int fail_id;
		const char *error;
	} cases[] = {
		{ "{\"nodes\": [{\"id\": 1}, {\"id\": ", 0, 0, 0, 0,
		  "offset 29 ($.nodes[1].id): the input ends inside the document (truncated?)" },
		{ "{\"nodes\": [1 2]}", 0, 0, 0, 0,
		  "offset 14 ($.nodes[0]): not JSON: parse error: after array element, I expect ',' or ']'" },
		{ "{\"a\": [[[[[1]]]]]}", 4, 0, 0, 0,
		  "offset 9 ($.a[0][0][0]): objects and arrays nested deeper than 4" },
		{ "[[[[[[[[[[[[[[[[[[[[[[[", 20, 0, 0, 0,
		  "offset 20 ($[0][0][0][0][0][0][0][0]...(4 more)...[0][0][0][0][0][0][0][0]): "
		  "objects and arrays nested deeper than 20" },
		{ "{\"meta\": {\"name\": \"0123456789abcdefg\"}}", 0, 16, 0, 0,
		  "offset 18 ($.meta.name): a string of 17 bytes, over the limit of 16" },
		{ "{\"meta\": {\"name\": \"0123456789abcdefghijklmnopqrstuvwxyz\"}}",
		  0, 16, 8, 0,
		  "offset 16 ($.meta.name): no value ends within 16 bytes: a string, "
		  "number or white space over the limit" },
		{ "{\"nodes\": [{}, {}, {\"id\": 3}]}", 0, 0, 0, 2,
		  "offset 26 ($.nodes[2].id): expected no value here" },
		{ "{\"nodes\": [{}], \"odd key\": {\"x\": [0, 1, 2, {\"samples\": 5}]}}",
		  0, 0, 0, 1, "offset 11 ($.nodes[0]): expected no value here" },
		{ "{\"a b\": [0, {\"\\\"\": tru}]}", 0, 0, 0, 0,
		  "offset 22 ($[\"a b\"][1][\"\\\"\"]): not JSON: lexical error: invalid string in json text." },
		{ "", 0, 0, 0, 0, "offset 0 ($): no JSON document (an empty input?)" },
		{ " \n\t", 0, 0, 0, 0, "offset 3 ($): no JSON document (an empty input?)" },
		{ "\xef\xbb{}", 0, 0, 1, 0, "offset 0 ($): not JSON: a broken byte order mark" },
		{ "{} {}", 0, 0, 0, 0,
		  "offset 4 ($): not JSON: parse error: trailing garbage" },
	};
	struct trace t = { 0 };
	char error[256];
	size_t i;

	for (i = 0; i < (sizeof(cases) / sizeof(cases[0])); i++) {
		int rc;

		t.fail_id = cases[i].fail_id;
		rc = run(cases[i].doc, strlen(cases[i].doc), cases[i].step, &t,
			 cases[i].max_depth, cases[i].max_string, error, sizeof(error));
		if (!ok(rc == EINPUT, "refused: %s", cases[i].error))
			diag("  returned %d", rc);
		is_str(error, cases[i].error, "... with that message");
	}
	free(t.text.s);
}

/* The run of doc, fast path or not, as text to compare. */
static void outcome(const char *doc, size_t len, size_t step, int fail_id,
		    unsigned max_depth, struct pk_strbuf *out)
{
	struct trace t = { .fail_id = fail_id };
	char error[256], rc[16];

	snprintf(rc, sizeof(rc), "rc %d: ", run(doc, len, step, &t, max_depth, 0,
						 error, sizeof(error)));
	out->len = 0;
	pki_strbuf_adds(out, rc);
	pki_strbuf_adds(out, t.text.s);
	pki_strbuf_adds(out, " | ");
	pki_strbuf_adds(out, error);
	free(t.text.s);
}

/* Whether the fast path and yajl alone give one outcome for doc. */
static int same_both_ways(const char *doc, size_t len, size_t step, int fail_id,
			  unsigned max_depth)
{
	struct pk_strbuf fast = { 0 }, slow = { 0 };
	int same;

	yajl_only = 0;
	outcome(doc, len, step, fail_id, max_depth, &fast);
	yajl_only = 1;
	outcome(doc, len, step, fail_id, max_depth, &slow);
	yajl_only = 0;
	same = strcmp(fast.s, slow.s) == 0;
	if (!same)
		diag("  %.*s (fed %zu at a time)\n#  fast path: %s\n#  yajl only: %s",
		     (int)len, doc, step, fast.s, slow.s);
	free(fast.s);
	free(slow.s);
	return same;
}

/* The fast path gives what yajl alone gives: values, offsets, errors. */
static void test_fast_path(void)
{
	static const char *const docs[] = {
		"{\"samples\": [1, 2, 3], \"rows\": [[1, 2], [3, [4, 5]], []], \"x\": 0}",
		"{\"rows\": [[null, true, false, -0.5e-3, 1E+2], [\"s\", 7], [{\"a\": 1}, 8]]}",
		"[[1, 2], 3, [4]]",
		"{\"samples\": [1 2]}", "{\"samples\": [1,]}", "{\"samples\": [,1]}",
		"{\"samples\": [1]]}", "{\"samples\": [01]}", "{\"samples\": [1.]}",
		"{\"samples\": [-]}", "{\"samples\": [1e]}", "{\"samples\": [nul]}",
		"{\"samples\": [truex]}", "{\"samples\": [1, 2", "{\"samples\": [1, 2,",
		"{\"samples\": [123456789012345678901234567890123456789012345678901234567890"
		"1234567890, 1]}",
		"{\"samples\": [1,\n\t2 ,3\r\n]}", "[1] 2", "[[[[[[1]]]]]]",
		"{\"nodes\": [1, {\"id\": 2}, 3], \"samples\": [4]}",
		"{\"nodes\": [{\"id\": 1, \"callFrame\": {\"url\": \"a\\\"b\"}}, "
		"{\"id\": 2,}], \"meta\": {\"name\": \"x\", \"t\": true}}",
		"{\"meta\": {\"name\" \"x\"}}", "{\"meta\": {\"name\":: 1}}",
		"{\"meta\": {,}}", "{\"meta\": {\"a\": 1 \"b\": 2}}", "{\"a\": [}]}",
		"{\"meta\": {1: 2}}", "{\"rows\": [[\"a\tb\"]]}", "{} {}", "{}x",
	};
	size_t i, step;
	uint64_t seed = 1;
	char doc[256];
	int bad = 0;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		for (step = 0; step < 4; step++)
			bad += !same_both_ways(docs[i], strlen(docs[i]), step, 0, 5);
	ok(!bad, "hand-made documents: the same with the fast path as without");
	bad = 0;
	for (i = 0; i < 20000 && bad < 5; i++) {
		static const char *const tokens[] = {
			"[", "]", ",", "1", "-2.5e3", "0", "01", "1.", "null", "true",
			"x", "{", "}", "\"a\"", ":", " ", "{\"samples\":", "[[",
			"12345678901234567890123", "-", "e5", "\"b\\\"c\"", "\"\t\"",
			"{\"nodes\":[{\"id\":", "\"id\":", "{\"meta\":{", "\"name\"",
		};
		size_t len = 0, n;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		for (n = (seed >> 33) % 24 + 1; n-- > 0;) {
			const char *tok;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			tok = tokens[(seed >> 33) % (sizeof(tokens) / sizeof(tokens[0]))];
			memcpy(doc + len, tok, strlen(tok));
			len += strlen(tok);
		}
		bad += !same_both_ways(doc, len, (seed >> 40) % 9, (int)((seed >> 50) % 8), 6);
	}
	ok(!bad, "20000 random token strings: the same with the fast path as without");
}

int main(void)
{
	test_dispatch();
	test_numbers();
	test_scaled();
	test_errors();
	test_fast_path();
	return done_testing();
}
