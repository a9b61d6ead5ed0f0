/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the speedscope writer on models built by hand: what perf
 * script input cannot show (source files and lines, inlined frames,
 * profiles without threads or events, negative and fractional values,
 * bytes that are not UTF-8) and the evented timeline, event by event.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <profkit/profkit.h>

#include "tap.h"

struct model {
	struct pk_profile *p;
	pk_str comm, pid, tid;
};

static void model_init(struct model *m)
{
	m->p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	m->comm = pk_profile_intern_cstr(m->p, "comm");
	m->pid = pk_profile_intern_cstr(m->p, "pid");
	m->tid = pk_profile_intern_cstr(m->p, "tid");
}

static uint32_t function(struct pk_profile *p, const char *name, const char *file)
{
	struct pk_function f = { 0 };

	f.name = f.system_name = pk_profile_intern_cstr(p, name);
	f.filename = file ? pk_profile_intern_cstr(p, file) : 0;
	return pk_profile_intern_function(p, &f);
}

/* A location with one function, or with an inlined one inside it. */
static uint32_t location(struct pk_profile *p, uint64_t addr, const char *fn,
			 int64_t line, const char *inlined, int64_t inlined_line)
{
	struct pk_line lines[2];
	size_t n = 0;

	if (inlined) {
		lines[n].function = function(p, inlined, "inl.h");
		lines[n++].line = inlined_line;
	}
	lines[n].function = function(p, fn, line ? "main.c" : NULL);
	lines[n++].line = line;
	return pk_profile_intern_location(p, 0, addr, lines, n);
}

static uint32_t thread(struct model *m, const char *comm, int64_t pid,
		       int64_t tid)
{
	struct pk_label l[3];

	memset(l, 0, sizeof(l));
	l[0].key = m->comm;
	l[0].str = pk_profile_intern_cstr(m->p, comm);
	l[1].key = m->pid;
	l[1].num = pid;
	l[2].key = m->tid;
	l[2].num = tid;
	return pk_profile_intern_labels(m->p, l, 3);
}

static void add(struct model *m, const uint32_t *locs, size_t depth,
		uint32_t labels, uint64_t time, int64_t v0, int64_t v1)
{
	int64_t v[2] = { v0, v1 };
	size_t n = pk_profile_sample_type_count(m->p);

	pk_profile_add_sample(m->p, pk_profile_intern_stack(m->p, locs, depth),
			      labels, time, v, n < 2 ? n : 2);
}

static void count_warning(void *data, const char *message)
{
	(void)message;
	++*(int *)data;
}

/* Write with the speedscope writer and parse the result back. */
static json_t *convert(struct pk_profile *p, int evented, int *warnings)
{
	const struct pk_writer *w = pk_writer_find("speedscope");
	struct pk_context *ctx = pk_context_new();
	struct pk_output *out;
	struct pk_options *opts = pk_options_new();
	json_error_t err;
	json_t *root = NULL;
	const unsigned char *data;
	size_t size;

	pk_options_set(ctx, opts, "speedscope:evented", evented ? "1" : "0");
	pk_context_set_warn(ctx, count_warning, warnings);
	if (w && pk_output_open_memory(ctx, &out) == 0) {
		if (pk_writer_write(ctx, w, p, opts, out) == 0) {
			data = pk_output_memory(out, &size);
			root = json_loadb((const char *)data, size, 0, &err);
			if (!root)
				diag("not JSON: line %d: %s", err.line, err.text);
		} else {
			diag("write failed: %s", pk_context_error(ctx)->message);
		}
		pk_output_abort(out);
	}
	pk_options_free(opts);
	pk_context_free(ctx);
	return root;
}

/* A string member, never NULL, so a failed conversion fails tests only. */
static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "(none)";
}

static json_t *profile(json_t *root, size_t i)
{
	return json_array_get(json_object_get(root, "profiles"), i);
}

static const char *frame_name(json_t *root, json_int_t i)
{
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");

	return str(json_array_get(frames, (size_t)i), "name");
}

/* A sample's frames by name, "a;b;c", root first. */
static const char *stack_names(json_t *root, json_t *prof, size_t i)
{
	static char buf[256];
	json_t *stack = json_array_get(json_object_get(prof, "samples"), i);
	size_t k;

	buf[0] = '\0';
	for (k = 0; k < json_array_size(stack); k++) {
		const char *name = frame_name(root, json_integer_value(json_array_get(stack, k)));

		if (k)
			strcat(buf, ";");
		strncat(buf, name, sizeof(buf) - strlen(buf) - 2);
	}
	return buf;
}

static json_int_t int_at(json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

static void test_no_threads_inlined_frames(void)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	struct model m = { p, 0, 0, 0 };
	uint32_t locs[2];
	json_t *root, *prof, *f, *want;
	int warnings = 0;

	/* a pprof-like profile: no events, no labels */
	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu", "nanoseconds", NULL, PK_VALUE_WEIGHT);
	pk_profile_set_meta(p, "input", "/data/run/app.pb.gz");
	locs[0] = location(p, 0x10, "work", 41, "square", 7);
	locs[1] = location(p, 0x20, "main", 12, NULL, 0);
	add(&m, locs, 2, 0, 0, 1, 10000000);
	add(&m, locs + 1, 1, 0, 0, 2, 20000000);
	add(&m, locs, 2, 0, 0, 1, -5);
	root = convert(p, 0, &warnings);
	ok(root != NULL, "writes JSON");
	is_str(str(root, "$schema"),
	       "https://www.speedscope.app/file-format-schema.json", "$schema");
	is_str(str(root, "name"), "app.pb.gz",
	       "named after the input, without directories");
	is_int(json_array_size(json_object_get(root, "profiles")), 1,
	       "no threads: one profile");
	prof = profile(root, 0);
	is_str(str(prof, "name"), "app.pb.gz",
	       "which has the file's name");
	is_str(str(prof, "unit"), "nanoseconds",
	       "weights from the last column, in its unit");
	is_str(stack_names(root, prof, 0), "main;work;square",
	       "root first, an inlined function after its caller");
	is_str(stack_names(root, prof, 1), "main", "the second sample");
	f = json_array_get(json_object_get(json_object_get(root, "shared"), "frames"), 2);
	want = json_pack("{s:s, s:s, s:i}", "name", "square", "file", "inl.h",
			 "line", 7);
	ok(f && json_equal(f, want), "a frame has its file and line");
	json_decref(want);
	is_int(json_integer_value(json_array_get(json_object_get(prof, "weights"), 1)),
	       20000000, "a weight is the sample's value");
	is_int(json_integer_value(json_array_get(json_object_get(prof, "weights"), 2)),
	       0, "a negative value is written as 0");
	is_int(warnings, 1, "with a warning");
	is_int(int_at(prof, "endValue"), 30000000, "endValue is the total weight");
	json_decref(root);
	pk_profile_free(p);
}

static void test_threads_in_time_order(void)
{
	struct model m;
	uint32_t a, b, locs[3];
	json_t *root, *prof;
	int warnings = 0;

	model_init(&m);
	pk_profile_add_sample_type(m.p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(m.p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	a = thread(&m, "app", 10, 10);
	b = thread(&m, "bad\xff name", 10, 11);
	locs[0] = location(m.p, 0x1, "one", 0, NULL, 0);
	locs[1] = location(m.p, 0x2, "two", 0, NULL, 0);
	locs[2] = location(m.p, 0x3, "three", 0, NULL, 0);
	add(&m, locs + 2, 1, a, 3000, 1, 100);
	add(&m, locs + 1, 1, b, 2500, 1, 100);
	add(&m, locs + 0, 1, a, 1000, 1, 100);
	add(&m, locs + 1, 1, b, 2000, 1, 300);
	add(&m, locs + 1, 1, a, 2000, 1, 100);
	root = convert(m.p, 0, &warnings);
	ok(root != NULL, "threads: writes JSON (bytes that are not UTF-8 too)");
	is_int(json_array_size(json_object_get(root, "profiles")), 2,
	       "one profile per thread");
	prof = profile(root, 0);
	is_str(str(prof, "name"), "app 10",
	       "named 'comm tid', as perf script text names it");
	is_str(stack_names(root, prof, 0), "one", "samples sorted by time (1)");
	is_str(stack_names(root, prof, 1), "two", "samples sorted by time (2)");
	is_str(stack_names(root, prof, 2), "three", "samples sorted by time (3)");
	is_str(str(profile(root, 1), "name"),
	       "bad\xef\xbf\xbd name 11", "a bad byte becomes U+FFFD");
	is_int(int_at(root, "activeProfileIndex"), 1,
	       "the heaviest thread is shown first");
	json_decref(root);

	/* evented: frames open and close as the stack changes */
	root = convert(m.p, 1, &warnings);
	prof = profile(root, 0);
	is_str(str(prof, "type"), "evented",
	       "evented profiles on request");
	is_int(int_at(prof, "startValue"), 1000, "starting at the first sample");
	{
		static const char *const want[] = {
			"O one 1000", "C one 1100", "O two 2000", "C two 2100",
			"O three 3000", "C three 3100",
		};
		json_t *ev = json_object_get(prof, "events");
		size_t i;
		int same = json_array_size(ev) == sizeof(want) / sizeof(want[0]);

		for (i = 0; same && i < sizeof(want) / sizeof(want[0]); i++) {
			json_t *e = json_array_get(ev, i);
			char got[64];

			snprintf(got, sizeof(got), "%s %s %lld",
				 str(e, "type"),
				 frame_name(root, int_at(e, "frame")),
				 (long long)int_at(e, "at"));
			if (strcmp(got, want[i]) != 0) {
				diag("event %zu: got '%s', want '%s'", i, got, want[i]);
				same = 0;
			}
		}
		ok(same, "a stack runs for its period, then closes");
	}
	is_int(int_at(prof, "endValue"), 3100, "endValue is the last close");
	json_decref(root);
	pk_profile_free(m.p);
}

/* Times out of order in their high and low bits, each time several
 * times: sorted by time, equal times in input order (weights number
 * the samples in input order). */
static void test_many_in_time_order(void)
{
	enum { N = 3000, TIMES = 500, STEP = 7919 };
	struct model m;
	uint32_t a, loc;
	json_t *root, *weights;
	int warnings = 0, k, t, at = 0, in_order = 1;

	model_init(&m);
	pk_profile_add_sample_type(m.p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(m.p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	a = thread(&m, "app", 10, 10);
	loc = location(m.p, 0x1, "one", 0, NULL, 0);
	for (k = 0; k < N; k++)
		add(&m, &loc, 1, a, (uint64_t)(k * STEP % TIMES) * 0x10000000001ULL + 1,
		    1, k + 1);
	root = convert(m.p, 0, &warnings);
	weights = json_object_get(profile(root, 0), "weights");
	is_int(json_array_size(weights), N, "many: a weight a sample");
	for (t = 0; t < TIMES; t++)
		for (k = 0; k < N; k++)
			if (k * STEP % TIMES == t)
				in_order &= json_integer_value(json_array_get(weights,
						(size_t)at++)) == k + 1;
	ok(in_order, "many: sorted by time, equal times in input order");
	json_decref(root);
	pk_profile_free(m.p);
}

/* Samples of one stack one after the other are written as runs, the
 * run's text made once: runs longer than the writer's buffer holds, and
 * a stack whose text alone is longer. */
static void test_runs(void)
{
	enum { DEEP = 1500, LONG_RUN = 5000 };
	static uint32_t deep[DEEP];
	struct model m;
	uint32_t t, leaf;
	size_t want[] = { 3, LONG_RUN, 1, 2 }, i, k, at = 0, wrong = 0;
	json_t *root, *samples, *weights;
	int warnings = 0;

	model_init(&m);
	pk_profile_add_sample_type(m.p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(m.p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	t = thread(&m, "app", 1, 1);
	for (k = 0; k < DEEP; k++)
		deep[k] = location(m.p, 0x1000 + k, k ? "caller" : "leaf", 0, NULL, 0);
	leaf = location(m.p, 0x1, "hot", 0, NULL, 0);
	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		for (k = 0; k < want[i]; k++)
			add(&m, i % 2 ? &leaf : deep, i % 2 ? 1 : DEEP, t,
			    1000 * (uint64_t)++at, 1, 1000);
	root = convert(m.p, 0, &warnings);
	samples = json_object_get(profile(root, 0), "samples");
	weights = json_object_get(profile(root, 0), "weights");
	ok(json_array_size(samples) == at && json_array_size(weights) == at,
	   "runs: a sample and a weight for each");
	at = 0;
	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		for (k = 0; k < want[i]; k++, at++) {
			json_t *stack = json_array_get(samples, at);

			wrong += json_array_size(stack) != (i % 2 ? 1 : DEEP) ||
				 json_integer_value(json_array_get(weights, at)) != 1000;
		}
	is_int(wrong, 0, "runs: each sample its stack and weight, in order");
	json_decref(root);
	pk_profile_free(m.p);
}

/* Where a sample of many is in time order: its thread's, then its
 * time, then its index. */
static const uint64_t *many_times;
static const uint32_t *many_threads;

static int by_thread_time_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (many_threads[a] != many_threads[b])
		return many_threads[a] < many_threads[b] ? -1 : 1;
	if (many_times[a] != many_times[b])
		return many_times[a] < many_times[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Enough samples of one weight for the keys to be sorted on two
 * threads, halves apart and merged: each time several times, the
 * first half of one thread in a span of times too short for the
 * highest digit of the sort (a pass the second half, of two threads,
 * makes). Each sample's one frame names it. */
static void test_many_threads_sorted(void)
{
	enum { N = 100000, FUNCS = 997, STEP = 7919 };
	static uint64_t times[N];
	static uint32_t threads[N], locs[FUNCS];
	static size_t order[N];
	uint32_t labels[2];
	struct model m;
	json_t *root, *prof[2];
	size_t k, at[2] = { 0, 0 }, wrong = 0;
	int warnings = 0;
	char name[16];

	model_init(&m);
	pk_profile_add_sample_type(m.p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(m.p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	labels[0] = thread(&m, "app", 10, 10);
	labels[1] = thread(&m, "app", 10, 11);
	for (k = 0; k < FUNCS; k++) {
		snprintf(name, sizeof(name), "f%zu", k);
		locs[k] = location(m.p, 0x1000 + k, name, 0, NULL, 0);
	}
	for (k = 0; k < N; k++) {
		uint32_t t = labels[k >= N / 2 && k % 3 == 0];

		times[k] = 1000 * (1 + (k < N / 2 ? k * STEP % 1000 :
					k * STEP % 3000000));
		add(&m, &locs[k % FUNCS], 1, t, times[k], 1, 1000);
		threads[k] = t;
	}
	root = convert(m.p, 0, &warnings);
	prof[0] = profile(root, 0);
	prof[1] = profile(root, 1);
	for (k = 0; k < N; k++)
		order[k] = k;
	many_times = times;
	many_threads = threads;
	qsort(order, N, sizeof(*order), by_thread_time_index);
	for (k = 0; k < N; k++) {
		/* profiles in order of their first samples' */
		size_t i = order[k], p = threads[i] != threads[0];
		char want[16];

		snprintf(want, sizeof(want), "f%zu", i % FUNCS);
		wrong += strcmp(stack_names(root, prof[p], at[p]++), want) != 0;
	}
	ok(json_array_size(json_object_get(root, "profiles")) == 2 &&
	   at[0] == json_array_size(json_object_get(prof[0], "samples")) &&
	   at[1] == json_array_size(json_object_get(prof[1], "samples")),
	   "many of two threads: a profile each, a sample each");
	is_int(wrong, 0, "many of two threads: sorted by time, equal times in input order");
	json_decref(root);
	pk_profile_free(m.p);
}

static void test_back_to_back(void)
{
	struct model m;
	uint32_t t, locs[3], stack_ab[2], stack_ac[2];
	json_t *root, *ev;
	int warnings = 0;

	model_init(&m);
	pk_profile_add_sample_type(m.p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	pk_profile_add_sample_type(m.p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT);
	t = thread(&m, "app", 1, 1);
	locs[0] = location(m.p, 0x1, "main", 0, NULL, 0);
	locs[1] = location(m.p, 0x2, "b", 0, NULL, 0);
	locs[2] = location(m.p, 0x3, "c", 0, NULL, 0);
	stack_ab[0] = locs[1];
	stack_ab[1] = locs[0];
	stack_ac[0] = locs[2];
	stack_ac[1] = locs[0];
	add(&m, stack_ab, 2, t, 1000, 1, 1000);
	add(&m, stack_ac, 2, t, 2010, 1, 1000);	/* 10 ns late: still back to back */
	root = convert(m.p, 1, &warnings);
	ev = json_object_get(profile(root, 0), "events");
	is_int(json_array_size(ev), 6, "evented: main stays open across samples");
	is_int(int_at(json_array_get(ev, 2), "at"), 2010,
	       "b closes when c's sample comes");
	json_decref(root);
	pk_profile_free(m.p);
}

static void test_empty_and_fractions(void)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	struct model m = { p, 0, 0, 0 };
	uint32_t loc;
	json_t *root;
	int warnings = 0;

	root = convert(p, 0, &warnings);
	is_int(json_array_size(json_object_get(root, "profiles")), 1,
	       "an empty profile still has a profile to show");
	is_str(str(root, "name"), "profkit",
	       "named profkit without an input name");
	json_decref(root);

	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_set_sample_type_scale(p, 0, 100);
	loc = location(p, 0x1, "f", 0, NULL, 0);
	add(&m, &loc, 1, 0, 0, 250, 0);
	root = convert(p, 0, &warnings);
	ok(json_real_value(json_array_get(json_object_get(profile(root, 0), "weights"), 0)) == 2.5,
	   "fixed-point values are written as decimals");
	json_decref(root);
	pk_profile_free(p);
}

int main(void)
{
	test_no_threads_inlined_frames();
	test_threads_in_time_order();
	test_many_in_time_order();
	test_runs();
	test_many_threads_sorted();
	test_back_to_back();
	test_empty_and_fractions();
	return done_testing();
}
