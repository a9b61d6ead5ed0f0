/* SPDX-License-Identifier: MIT */
/* Unit tests of the perf script reader on small inputs written here. */
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

static struct pk_context *ctx;

static struct pk_profile *read_text(const char *text, int *rc)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	struct pk_options *opts = pk_options_new();
	struct pk_input *in;

	pk_context_clear_error(ctx);
	*rc = pk_input_open_memory(ctx, "test", text, strlen(text), &in);
	if (!*rc) {
		*rc = pk_read(ctx, in, pk_reader_find("perf-script"), p, opts);
		pk_input_close(in);
	}
	pk_options_free(opts);
	return p;
}

static const char *label_str(struct pk_profile *p, size_t i, const char *key)
{
	const struct pk_label *l = pk_profile_label_find(p, pk_profile_sample(p, i)->labels,
							 pk_profile_lookup(p, key));

	return l ? pk_profile_string(p, l->str) : "(none)";
}

static long long label_num(struct pk_profile *p, size_t i, const char *key)
{
	const struct pk_label *l = pk_profile_label_find(p, pk_profile_sample(p, i)->labels,
							 pk_profile_lookup(p, key));

	return l ? l->num : -1;
}

/* Name of line j of frame k (leaf first) of sample i. */
static const char *frame_fn(struct pk_profile *p, size_t i, size_t k, size_t j)
{
	size_t depth;
	const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
	const struct pk_location *loc;

	if (k >= depth)
		return "(no frame)";
	loc = pk_profile_location(p, stack[k]);
	if (j >= loc->nlines)
		return "(no line)";
	return pk_profile_string(p, pk_profile_function(p,
		pk_profile_location_lines(p, loc)[j].function)->name);
}

static void test_header_fields(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"work er 0  5958 [003]  2542.560001:     250000 cpu-clock:pppH: \n"
		"\t    55d0c2a1b139 hot+0x19 (/tmp/prog)\n"
		"\t    55d0c2a1b200 main+0x20 (/tmp/prog)\n"
		"\n"
		"x  12/13 2542.560251:     250000 cpu-clock:pppH: \n"
		"\t    55d0c2a1b139 hot+0x19 (/tmp/prog)\n", &rc);

	is_int(rc, 0, "two records read");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	is_str(label_str(p, 0, "comm"), "work er 0", "comm keeps spaces and trailing digits");
	is_int(label_num(p, 0, "tid"), 5958, "the number after the comm is the tid");
	is_int(label_num(p, 0, "pid"), -1, "no pid label when perf printed only the tid");
	is_int(label_num(p, 0, "cpu"), 3, "cpu from [003]");
	is_int(pk_profile_sample(p, 0)->time, 2542560001000ULL, "time in nanoseconds");
	is_str(label_str(p, 1, "comm"), "x", "a one-character comm");
	ok(label_num(p, 1, "pid") == 12 && label_num(p, 1, "tid") == 13, "pid/tid pair");
	is_int(pk_profile_sample_values(p, 1)[1], 250000, "period in the weight column");
	is_str(pk_profile_string(p, pk_profile_event(p, 0)), "cpu-clock",
	       "event name without the :pppH modifiers");
	is_str(pk_profile_string(p, pk_profile_sample_type(p, 1)->unit), "nanoseconds",
	       "cpu-clock periods are nanoseconds");
	is_str(frame_fn(p, 0, 0, 0), "hot", "leaf frame first, offset stripped");
	is_str(frame_fn(p, 1, 0, 0), "hot", "the last record needs no blank line");
	pk_profile_free(p);
}

static void test_inlined_frames(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"prog  7 12.5: 1 cpu-clock: \n"
		"\t1613 std::map<int, long>::find+0xf3 (inlined)\n"
		"\t1613 map_work+0xf3 (/tmp/prog)\n"
		"\t1700 main+0x10 (/tmp/prog)\n\n", &rc);
	size_t depth;

	is_int(rc, 0, "a record with an inlined frame");
	pk_profile_stack(p, pk_profile_sample(p, 0)->stack, &depth);
	is_int(depth, 2, "the inlined frame joins its caller's location");
	is_str(frame_fn(p, 0, 0, 0), "std::map<int, long>::find", "innermost line first");
	is_str(frame_fn(p, 0, 0, 1), "map_work", "then the function it was inlined into");
	pk_profile_free(p);
}

static void test_odd_layouts(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"# hostname : build-box\r\n"
		"java 19983 cycles: \r\n"
		"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\r\n"
		"7f1e2215d058  (/lib/libc.so.6)\r\n"
		"7f7241fbe6d8 std::function<void (int)>::operator()(int) const (/my dir/libx.so)\r\n"
		"\r\n"
		"perf  4355 [000]  2474.616170: sched:sched_switch: prev_comm=perf prev_pid=4355 ==> next_comm=x\n"
		"\tffffffff82265488 __schedule+0x628 ([kernel.kallsyms])\n\n", &rc);
	const struct pk_location *loc;
	size_t depth;
	const uint32_t *stack;

	is_int(rc, 0, "CRLF, unindented frames, tracepoint fields");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	stack = pk_profile_stack(p, pk_profile_sample(p, 0)->stack, &depth);
	is_int(depth, 3, "three frames, the one without a symbol included");
	is_str(frame_fn(p, 0, 2, 0), "std::function<void (int)>::operator()(int) const",
	       "a symbol with spaces and parens is whole");
	loc = pk_profile_location(p, stack[2]);
	is_str(pk_profile_string(p, pk_profile_mapping(p, loc->mapping)->file), "/my dir/libx.so",
	       "a dso path with a space");
	is_int(loc->address, 0x7f7241fbe6d8ULL, "the frame address");
	is_str(pk_profile_meta(p, "hostname"), "build-box", "perf script --header facts kept");
	is_int(pk_profile_event_count(p), 2, "two events");
	is_str(pk_profile_string(p, pk_profile_event(p, 1)), "sched:sched_switch",
	       "a tracepoint keeps its full name");
	is_str(pk_profile_string(p, pk_profile_sample_type(p, 0)->type), "cycles_samples",
	       "with several events the count columns are named per event");
	pk_profile_free(p);
}

static void test_no_callchain(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"            prog  1234 [000] 100.000001:     250000 cpu-clock:  55d0 main+0x10 (/tmp/prog)\n"
		"              dd  1235 [001] 100.000002:     250000 cpu-clock:  55d4 work+0x4 (/tmp/prog)\n",
		&rc);

	is_int(rc, 0, "records without callchains");
	is_int(pk_profile_sample_count(p), 2, "one sample per line");
	is_str(label_str(p, 1, "comm"), "dd", "a padded comm that looks like hex");
	is_str(frame_fn(p, 1, 0, 0), "work", "the frame on the header line");
	pk_profile_free(p);
}

static void test_garbage(void)
{
	int rc;
	struct pk_profile *p = read_text("this is not\nperf script output\n", &rc);

	is_int(rc, PK_EINPUT, "garbage is an error");
	ok(strstr(pk_context_error(ctx)->message, "test: no perf script samples") != NULL,
	   "naming the input: %s", pk_context_error(ctx)->message);
	pk_profile_free(p);
}

int main(void)
{
	ctx = pk_context_new();
	test_header_fields();
	test_inlined_frames();
	test_odd_layouts();
	test_no_callchain();
	test_garbage();
	pk_context_free(ctx);
	return done_testing();
}
