/* SPDX-License-Identifier: MIT */
/*
 * The timeline writers on off-CPU and wall time, on a model built by hand
 * as the perf.data reader derives it: a blocked interval is an "off-cpu"
 * sample at the time the thread was switched out, weighing how long it
 * stayed out, and "wall" holds the running samples' periods and the
 * intervals alike. Each writer must draw an interval from its start for
 * exactly its length, not as one sample period, and keep drawing running
 * samples as before.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <profkit/profkit.h>

#include "tap.h"

#define MS 1000000LL
#define BASE (1000 * MS)	/* the recording's clock at its start */

enum { CPU_N, CPU_NS, OFF_N, OFF_NS, WALL_N, WALL_NS, NCOLUMNS };

struct model {
	struct pk_profile *p;
	uint32_t compute, nap, wait_for, main_fn, waiter;
};

static uint32_t location(struct pk_profile *p, uint64_t addr, const char *name)
{
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };

	f.name = f.system_name = pk_profile_intern_cstr(p, name);
	line.function = pk_profile_intern_function(p, &f);
	return pk_profile_intern_location(p, 0, addr, &line, 1);
}

static uint32_t thread(struct pk_profile *p, const char *comm, int64_t tid,
		       const char *state)
{
	struct pk_label l[4];
	size_t n = 3;

	memset(l, 0, sizeof(l));
	l[0].key = pk_profile_intern_cstr(p, "comm");
	l[0].str = pk_profile_intern_cstr(p, comm);
	l[1].key = pk_profile_intern_cstr(p, "pid");
	l[1].num = 10;
	l[2].key = pk_profile_intern_cstr(p, "tid");
	l[2].num = tid;
	if (state) {
		l[3].key = pk_profile_intern_cstr(p, "prev_state");
		l[3].str = pk_profile_intern_cstr(p, state);
		n = 4;
	}
	return pk_profile_intern_labels(p, l, n);
}

/* A running sample (cpu-clock, 1 ms) or a blocked interval of length ns. */
static void add(struct model *m, uint32_t leaf, uint32_t root, int64_t tid,
		int64_t at, int64_t blocked)
{
	int64_t v[NCOLUMNS] = { 0 };
	uint32_t locs[2] = { leaf, root };
	const char *comm = tid == 10 ? "app" : "waiter";

	if (blocked) {
		v[OFF_N] = v[WALL_N] = 1;
		v[OFF_NS] = v[WALL_NS] = blocked;
	} else {
		v[CPU_N] = v[WALL_N] = 1;
		v[CPU_NS] = v[WALL_NS] = MS;
	}
	pk_profile_add_sample(m->p, pk_profile_intern_stack(m->p, locs, 2),
			      thread(m->p, comm, tid, blocked ? "S" : NULL),
			      (uint64_t)(BASE + at), v, NCOLUMNS);
}

/*
 * Thread "app" computes at 1, 2 and 3 ms, naps 10 ms from 3.4 ms, computes
 * at 14 and 15 ms, naps 2 ms from 15.3 ms and computes at 17.5 ms (within
 * a sample period of the nap's end: not to be stretched to it); thread
 * "waiter" waits 20 ms from 0.5 ms, the first time of the recording.
 */
static struct pk_profile *build(void)
{
	struct model m;
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	static const char *const events[] = { "cpu-clock", "off-cpu", "wall" };
	size_t i;

	m.p = p;
	for (i = 0; i < 3; i++) {
		pk_profile_add_sample_type(p, "samples", "count", events[i],
					   PK_VALUE_COUNT);
		pk_profile_add_sample_type(p, events[i], "nanoseconds", events[i],
					   PK_VALUE_WEIGHT);
	}
	pk_profile_set_period(p, "cpu-clock", "nanoseconds", MS);
	m.compute = location(p, 0x10, "compute");
	m.nap = location(p, 0x20, "nap");
	m.wait_for = location(p, 0x30, "wait_for");
	m.main_fn = location(p, 0x40, "main");
	m.waiter = location(p, 0x50, "waiter");
	add(&m, m.wait_for, m.waiter, 11, MS / 2, 20 * MS);
	add(&m, m.compute, m.main_fn, 10, 1 * MS, 0);
	add(&m, m.compute, m.main_fn, 10, 2 * MS, 0);
	add(&m, m.compute, m.main_fn, 10, 3 * MS, 0);
	add(&m, m.nap, m.main_fn, 10, 3 * MS + 400000, 10 * MS);
	add(&m, m.compute, m.main_fn, 10, 14 * MS, 0);
	add(&m, m.compute, m.main_fn, 10, 15 * MS, 0);
	add(&m, m.nap, m.main_fn, 10, 15 * MS + 300000, 2 * MS);
	add(&m, m.compute, m.main_fn, 10, 17 * MS + 500000, 0);
	return p;
}

static int warnings;

static void count_warning(void *data, const char *message)
{
	(void)data;
	(void)message;
	warnings++;
}

/* Write with a writer and options ("name", "value", ..., NULL); parse back. */
static json_t *convert(const struct pk_profile *p, const char *writer, ...)
{
	const struct pk_writer *w = pk_writer_find(writer);
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_output *out;
	json_t *root = NULL;
	const char *name;
	size_t size;
	va_list ap;

	pk_context_set_warn(ctx, count_warning, NULL);
	va_start(ap, writer);
	while ((name = va_arg(ap, const char *)) != NULL)
		pk_options_set(ctx, opts, name, va_arg(ap, const char *));
	va_end(ap);
	if (w && pk_output_open_memory(ctx, &out) == 0) {
		if (pk_writer_write(ctx, w, p, opts, out) == 0) {
			const unsigned char *data = pk_output_memory(out, &size);

			root = json_loadb((const char *)data, size, 0, NULL);
		} else {
			diag("%s: %s", writer, pk_context_error(ctx)->message);
		}
		pk_output_abort(out);
	}
	pk_options_free(opts);
	pk_context_free(ctx);
	return root;
}

/* ---- speedscope ---- */

static json_t *profile_named(json_t *root, const char *name)
{
	json_t *profiles = json_object_get(root, "profiles"), *prof;
	size_t i;

	json_array_foreach(profiles, i, prof)
		if (strcmp(json_string_value(json_object_get(prof, "name")), name) == 0)
			return prof;
	return NULL;
}

static const char *frame(json_t *root, json_t *index)
{
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");

	return json_string_value(json_object_get(json_array_get(frames,
		(size_t)json_integer_value(index)), "name"));
}

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* An evented profile's events as "O main 1001000000,C main ...". */
static const char *events_of(json_t *root, const char *name)
{
	static char buf[2048];
	json_t *events = json_object_get(profile_named(root, name), "events"), *e;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(events, i, e)
		append(buf, sizeof(buf), "%s%s %s %lld", i ? "," : "",
		       json_string_value(json_object_get(e, "type")),
		       frame(root, json_object_get(e, "frame")),
		       (long long)json_integer_value(json_object_get(e, "at")));
	return buf;
}

/* A sampled profile as "main;nap 10000000,- 2900000,..." ("-": empty). */
static const char *samples_of(json_t *root, const char *name)
{
	static char buf[2048];
	json_t *prof = profile_named(root, name), *stack, *f;
	json_t *weights = json_object_get(prof, "weights");
	size_t i, k;

	buf[0] = '\0';
	json_array_foreach(json_object_get(prof, "samples"), i, stack) {
		append(buf, sizeof(buf), "%s", i ? "," : "");
		json_array_foreach(stack, k, f)
			append(buf, sizeof(buf), "%s%s", k ? ";" : "", frame(root, f));
		append(buf, sizeof(buf), "%s %lld", json_array_size(stack) ? "" : "-",
		       (long long)json_integer_value(json_array_get(weights, i)));
	}
	append(buf, sizeof(buf), " end %lld",
	       (long long)json_integer_value(json_object_get(prof, "endValue")));
	return buf;
}

static void test_speedscope(const struct pk_profile *p)
{
	json_t *off = convert(p, "speedscope", "event", "off-cpu",
			      "speedscope:evented", "1", NULL);
	json_t *wall = convert(p, "speedscope", "event", "wall",
			       "speedscope:evented", "1", NULL);
	json_t *sampled = convert(p, "speedscope", "event", "off-cpu", NULL);
	json_t *cpu = convert(p, "speedscope", "event", "cpu-clock", NULL);

	is_str(events_of(off, "app 10"),
	       "O main 1003400000,O nap 1003400000,C nap 1013400000,C main 1013400000,"
	       "O main 1015300000,O nap 1015300000,C nap 1017300000,C main 1017300000",
	       "speedscope evented, off-cpu: each nap from its start for its length");
	is_str(events_of(wall, "app 10"),
	       "O main 1001000000,O compute 1001000000,C compute 1003400000,"
	       "O nap 1003400000,C nap 1013400000,C main 1013400000,"
	       "O main 1014000000,O compute 1014000000,C compute 1015300000,"
	       "O nap 1015300000,C nap 1017300000,C main 1017300000,"
	       "O main 1017500000,O compute 1017500000,C compute 1018500000,"
	       "C main 1018500000",
	       "speedscope evented, wall: running samples up to the nap, "
	       "the nap not stretched to the next sample");
	is_str(samples_of(sampled, "app 10"),
	       "- 2900000,main;nap 10000000,- 1900000,main;nap 2000000 end 16800000",
	       "speedscope sampled, off-cpu: empty samples place each nap where "
	       "it began, from the recording's start");
	is_str(samples_of(sampled, "waiter 11"), "waiter;wait_for 20000000 end 20000000",
	       "speedscope sampled: no gap before an interval at the start");
	is_str(samples_of(cpu, "app 10"),
	       "main;compute 1000000,main;compute 1000000,main;compute 1000000,"
	       "main;compute 1000000,main;compute 1000000,main;compute 1000000 "
	       "end 6000000",
	       "speedscope sampled, cpu-clock: as before, no gaps");
	json_decref(off);
	json_decref(wall);
	json_decref(sampled);
	json_decref(cpu);
}

/* ---- firefox ---- */

static json_t *ff_thread(json_t *root, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(root, "threads"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return t;
	return NULL;
}

/* "time:weight:stack" per sample, ms; stack "-" for null. */
static const char *ff_samples(json_t *root, const char *name)
{
	static char buf[1024];
	json_t *s = json_object_get(ff_thread(root, name), "samples");
	json_t *time = json_object_get(s, "time"), *t;
	size_t i;

	buf[0] = '\0';
	append(buf, sizeof(buf), "%s", json_string_value(json_object_get(s, "weightType")));
	json_array_foreach(time, i, t) {
		json_t *stack = json_array_get(json_object_get(s, "stack"), i);

		append(buf, sizeof(buf), " %g:%g:%s", json_number_value(t),
		       json_number_value(json_array_get(json_object_get(s, "weight"), i)),
		       json_is_null(stack) ? "-" : "s");
	}
	return buf;
}

static void test_firefox(const struct pk_profile *p)
{
	json_t *off = convert(p, "firefox", "event", "off-cpu", NULL);
	json_t *wall = convert(p, "firefox", "event", "wall", NULL);

	is_str(ff_samples(off, "app"),
	       "tracing-ms 2.9:10:s 12.9:0:- 14.8:2:s 16.8:0:-",
	       "firefox, off-cpu: an empty sample where each nap ends");
	is_str(ff_samples(wall, "app"),
	       "tracing-ms 0.5:1:s 1.5:1:s 2.5:1:s 2.9:10:s 12.9:0:- 13.5:1:s "
	       "14.5:1:s 14.8:2:s 16.8:0:- 17:1:s",
	       "firefox, wall: the same among the running samples");
	is_str(ff_samples(off, "waiter"), "tracing-ms 0:20:s 20:0:-",
	       "firefox: and after the last sample");
	json_decref(off);
	json_decref(wall);
}

/* ---- chrome-trace ---- */

/* The complete events of thread tid as "name ts+dur" (microseconds). */
static const char *complete_events(json_t *root, int tid)
{
	static char buf[2048];
	json_t *e;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0 ||
		    json_integer_value(json_object_get(e, "tid")) != tid)
			continue;
		append(buf, sizeof(buf), "%s%s %lld+%lld", buf[0] ? "," : "",
		       json_string_value(json_object_get(e, "name")),
		       (long long)json_integer_value(json_object_get(e, "ts")),
		       (long long)json_integer_value(json_object_get(e, "dur")));
	}
	return buf;
}

/* How many V8 profile samples thread tid has. */
static size_t v8_samples(json_t *root, int tid)
{
	json_t *e, *profile;
	size_t i;

	json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
		if (json_integer_value(json_object_get(e, "tid")) != tid ||
		    strcmp(json_string_value(json_object_get(e, "name")),
			   "ProfileChunk") != 0)
			continue;
		profile = json_object_get(json_object_get(json_object_get(e, "args"),
							  "data"), "cpuProfile");
		return json_array_size(json_object_get(profile, "samples"));
	}
	return 0;
}

static void test_chrome_trace(const struct pk_profile *p)
{
	json_t *off = convert(p, "chrome-trace", "event", "off-cpu", NULL);
	json_t *wall = convert(p, "chrome-trace", "event", "wall", NULL);

	is_str(complete_events(off, 10),
	       "nap 1003400+10000,main 1003400+10000,nap 1015300+2000,main 1015300+2000",
	       "chrome-trace, off-cpu: each nap from its start for its length");
	is_str(complete_events(wall, 10),
	       "compute 1001000+2400,nap 1003400+10000,main 1001000+12400,"
	       "compute 1014000+1300,nap 1015300+2000,main 1014000+3300,"
	       "compute 1017500+1000,main 1017500+1000",
	       "chrome-trace, wall: running samples up to each nap, the naps exact");
	is_int(v8_samples(off, 10), 12,
	       "chrome-trace: the V8 profile samples a nap every period (1 ms)");
	is_int(v8_samples(wall, 10), 18, "and the running samples once each");
	json_decref(off);
	json_decref(wall);
}

/* A thread idle for an hour: its V8 samples are capped, with a warning. */
static void test_chrome_trace_cap(void)
{
	struct pk_profile *p = build();
	struct model m = { p, 0, 0, 0, 0, 0 };
	json_t *off;

	m.nap = location(p, 0x20, "nap");
	m.main_fn = location(p, 0x40, "main");
	add(&m, m.nap, m.main_fn, 12, 20 * MS, 3600000 * MS);
	warnings = 0;
	off = convert(p, "chrome-trace", "event", "off-cpu", NULL);
	is_int(v8_samples(off, 12), 900000,
	       "chrome-trace: an hour's wait is sampled every 4 ms, under a "
	       "million samples in all, not every 1 ms");
	is_int(warnings, 1, "with a warning");
	is_str(complete_events(off, 12), "nap 1020000+3600000000,main 1020000+3600000000",
	       "its complete events keep its length");
	json_decref(off);
	pk_profile_free(p);
}

int main(void)
{
	struct pk_profile *p = build();

	test_speedscope(p);
	test_firefox(p);
	test_chrome_trace(p);
	test_chrome_trace_cap();
	pk_profile_free(p);
	return done_testing();
}
