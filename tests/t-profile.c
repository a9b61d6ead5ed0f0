/* SPDX-License-Identifier: MIT */
/* Unit tests of the profile model: interning, summing, columns, limits. */
#include <stdlib.h>

#include <profkit/profkit.h>

#include "tap.h"

static void test_strings(void)
{
	struct pk_profile *p = pk_profile_new(0);
	pk_str a = pk_profile_intern_cstr(p, "main");
	pk_str b = pk_profile_intern(p, "main+0x10", 4);
	pk_str e = pk_profile_intern_cstr(p, "");
	const char *before = pk_profile_string(p, a);
	char name[32];
	int i;

	ok(a != 0, "a string gets a non-zero id");
	is_int(b, a, "equal bytes intern to the same id");
	is_int(e, 0, "the empty string is id 0");
	is_str(pk_profile_string(p, 0), "", "string 0 is \"\"");
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		pk_profile_intern_cstr(p, name);
	}
	ok(pk_profile_string(p, a) == before, "strings never move as the table grows");
	is_int(pk_profile_lookup(p, "fn99999") != 0, 1, "lookup finds an interned string");
	is_int(pk_profile_lookup(p, "nope"), 0, "lookup of an unknown string is 0");
	pk_profile_free(p);
}

static uint32_t frame(struct pk_profile *p, const char *fn, uint64_t addr)
{
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };

	f.name = f.system_name = pk_profile_intern_cstr(p, fn);
	line.function = pk_profile_intern_function(p, &f);
	return pk_profile_intern_location(p, 0, addr, &line, 1);
}

static void test_samples_are_summed(void)
{
	struct pk_profile *p = pk_profile_new(0);
	int64_t v[2] = { 1, 250 };
	uint32_t locs[2], stack, other;
	const int64_t *got;

	is_int(pk_profile_add_sample_type(p, "samples", "count", "cpu-clock", PK_VALUE_COUNT), 0,
	       "first sample type is column 0");
	is_int(pk_profile_add_sample_type(p, "cpu-clock", "nanoseconds", "cpu-clock", PK_VALUE_WEIGHT), 1,
	       "second sample type is column 1");
	locs[0] = frame(p, "leaf", 0x10);
	locs[1] = frame(p, "main", 0x20);
	is_int(frame(p, "leaf", 0x10), locs[0], "equal locations intern to one id");
	ok(frame(p, "leaf", 0x11) != locs[0], "another address is another location");
	stack = pk_profile_intern_stack(p, locs, 2);
	is_int(pk_profile_intern_stack(p, locs, 2), stack, "equal stacks intern to one id");
	other = pk_profile_intern_stack(p, locs, 1);
	ok(other != stack, "a prefix is another stack");
	for (int i = 0; i < 1000; i++)
		pk_profile_add_sample(p, stack, 0, 0, v, 2);
	pk_profile_add_sample(p, other, 0, 0, v, 1);
	is_int(pk_profile_sample_count(p), 2, "1001 samples of 2 stacks make 2 samples");
	got = pk_profile_sample_values(p, 0);
	is_int(got[0], 1000, "counts are summed");
	is_int(got[1], 250000, "periods are summed");
	is_int(pk_profile_sample_values(p, 1)[1], 0, "missing trailing values are 0");
	is_int(pk_profile_total(p, 0), 1001, "total of column 0");
	is_int(pk_profile_event_count(p), 1, "one event");
	is_str(pk_profile_string(p, pk_profile_event(p, 0)), "cpu-clock", "its name");
	is_int(pk_profile_find_column(p, pk_profile_event(p, 0), PK_VALUE_WEIGHT), 1,
	       "the weight column of the event");
	pk_profile_add_sample_type(p, "page-faults", "count", "page-faults", PK_VALUE_COUNT);
	got = pk_profile_sample_values(p, 0);
	ok(got[0] == 1000 && got[1] == 250000 && got[2] == 0,
	   "a sample type added later widens existing samples with 0");
	pk_profile_free(p);
}

static void test_keep_order(void)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	int64_t v = 1;
	uint32_t loc = frame(p, "f", 1), stack = pk_profile_intern_stack(p, &loc, 1);
	uint64_t first, last;

	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample(p, stack, 0, 300, &v, 1);
	pk_profile_add_sample(p, stack, 0, 100, &v, 1);
	is_int(pk_profile_sample_count(p), 2, "with KEEP_ORDER equal samples stay apart");
	is_int(pk_profile_sample(p, 1)->time, 100, "and keep their times in order");
	pk_profile_time_span(p, &first, &last);
	ok(first == 100 && last == 300, "the time span covers every sample");
	pk_profile_free(p);
}

/* Samples kept in order with the same values (a sampling period) share
 * one row of them: every call sees each sample's own. */
static void test_rows_alike(void)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	uint32_t loc = frame(p, "f", 1), stack = pk_profile_intern_stack(p, &loc, 1);
	int64_t period[2] = { 1, 500 }, other[2] = { 1, 700 }, wide[3] = { 1, 9, 4 };
	int i;

	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu", "nanoseconds", NULL, PK_VALUE_WEIGHT);
	for (i = 0; i < 3; i++)
		pk_profile_add_sample(p, stack, 0, 100 + (uint64_t)i, period, 2);
	is_int(pk_profile_total(p, 1), 1500, "three samples of one row sum to three rows");
	pk_profile_scale_column(p, 1, 2, 5);
	is_int(pk_profile_total(p, 1), 600, "a column scaled once, not once a sample");
	is_int(pk_profile_set_sample_type_scale(p, 1, 10), 0, "a finer scale");
	is_int(pk_profile_sample_values(p, 2)[1], 2000, "changes each sample's value once");
	pk_profile_add_sample(p, stack, 0, 200, other, 2);
	ok(pk_profile_sample_values(p, 0)[1] == 2000 && pk_profile_sample_values(p, 2)[1] == 2000 &&
	   pk_profile_sample_values(p, 3)[1] == 700,
	   "a sample of other values: the earlier keep theirs");
	is_int(pk_profile_total(p, 1), 6700, "and the sum counts each");
	pk_profile_add_sample_type(p, "bytes", "bytes", NULL, PK_VALUE_COUNT);
	ok(pk_profile_sample_values(p, 1)[1] == 2000 && pk_profile_sample_values(p, 1)[2] == 0,
	   "a column added after: 0 for every sample");
	pk_profile_free(p);

	p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	stack = pk_profile_intern_stack(p, &loc, 1);
	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu", "nanoseconds", NULL, PK_VALUE_WEIGHT);
	pk_profile_add_sample(p, stack, 0, 100, period, 2);
	pk_profile_add_sample(p, stack, 0, 101, period, 1);
	pk_profile_add_sample(p, stack, 0, 102, period, 2);
	pk_profile_add_sample_type(p, "bytes", "bytes", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample(p, stack, 0, 103, wide, 3);
	ok(pk_profile_sample_values(p, 0)[1] == 500 && pk_profile_sample_values(p, 0)[2] == 0 &&
	   pk_profile_sample_values(p, 1)[0] == 1 && pk_profile_sample_values(p, 1)[1] == 0 &&
	   pk_profile_sample_values(p, 2)[1] == 500 && pk_profile_sample_values(p, 3)[2] == 4,
	   "values cut short are 0, a column added widens the one row");
	pk_profile_free(p);
}

static void test_labels(void)
{
	struct pk_profile *p = pk_profile_new(0);
	struct pk_label l[2] = { { 0 } };
	uint32_t a, b;

	l[0].key = pk_profile_intern_cstr(p, "pid");
	l[0].num = 42;
	l[1].key = pk_profile_intern_cstr(p, "comm");
	l[1].str = pk_profile_intern_cstr(p, "work er 0");
	a = pk_profile_intern_labels(p, l, 2);
	b = pk_profile_intern_labels(p, l, 2);
	is_int(a, b, "equal label sets intern to one id");
	is_int(pk_profile_label_find(p, a, l[0].key)->num, 42, "find a numeric label");
	is_str(pk_profile_string(p, pk_profile_label_find(p, a, l[1].key)->str), "work er 0",
	       "find a string label");
	ok(pk_profile_label_find(p, a, pk_profile_intern_cstr(p, "tid")) == NULL,
	   "a missing label is NULL");
	pk_profile_free(p);
}

/* Samples of one stack by threads in turn, with and without labels:
 * each pair its own sample, wherever it was last met. */
static void test_threads_of_a_stack(void)
{
	struct pk_profile *p = pk_profile_new(0);
	struct pk_label l = { 0 };
	uint32_t locs[1], stack, thread[3], far = 1000;
	int64_t one = 1;
	int i;

	pk_profile_add_sample_type(p, "samples", "count", "cpu-clock", PK_VALUE_COUNT);
	locs[0] = frame(p, "leaf", 0x10);
	stack = pk_profile_intern_stack(p, locs, 1);
	l.key = pk_profile_intern_cstr(p, "tid");
	for (i = 0; i < 3; i++) {
		l.num = i + 1;
		thread[i] = pk_profile_intern_labels(p, &l, 1);
	}
	for (i = 0; i < 12; i++)
		pk_profile_add_sample(p, stack, thread[i % 3 == 2 ? 0 : i % 3], 0, &one, 1);
	pk_profile_add_sample(p, stack, 0, 0, &one, 1);
	pk_profile_add_sample(p, stack, thread[2], 0, &one, 1);
	pk_profile_add_sample(p, stack, thread[1], 0, &one, 1);
	pk_profile_add_sample(p, far, thread[1], 0, &one, 1);
	pk_profile_add_sample(p, far, thread[1], 0, &one, 1);
	pk_profile_add_sample(p, far, 0, 0, &one, 1);
	is_int(pk_profile_sample_count(p), 6, "a stack's and a far stack's threads: 6 samples");
	is_int(pk_profile_sample_values(p, 0)[0], 8, "the first thread's, met in turn, summed");
	is_int(pk_profile_sample_values(p, 1)[0], 5, "the second's, met again after another");
	is_int(pk_profile_sample_values(p, 2)[0], 1, "the stack's without labels");
	is_int(pk_profile_sample_values(p, 3)[0], 1, "a thread met once");
	is_int(pk_profile_sample_values(p, 4)[0], 2, "a stack the profile has not, by thread");
	is_int(pk_profile_sample(p, 5)->labels, 0, "and without labels apart");
	pk_profile_free(p);
}

static void test_memory_limit(void)
{
	struct pk_profile *p = pk_profile_new(0);
	char name[32];
	int i;

	pk_profile_set_memory_limit(p, 1 << 20);
	for (i = 0; i < 200000 && !pk_profile_failed(p); i++) {
		snprintf(name, sizeof(name), "function_%d", i);
		pk_profile_intern_cstr(p, name);
	}
	ok(pk_profile_failed(p) == PK_ENOMEM, "passing the memory limit fails the profile");
	ok(pk_profile_memory(p) < (2 << 20), "and stops growing near the limit");
	pk_profile_free(p);
}

static void test_scales(void)
{
	struct pk_profile *p = pk_profile_new(0);
	struct pk_profile *q = pk_profile_new(0);
	uint32_t loc, stack;
	int64_t v[2] = { 15, 3 }, big = INT64_MAX / 5;
	char buf[PK_VALUE_FORMAT_SIZE];

	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu", "nanoseconds", NULL, PK_VALUE_WEIGHT);
	is_int(pk_profile_sample_type_scale(p, 0), 1, "a new column has scale 1");
	is_int(pk_profile_sample_type_scale(p, 7), 1, "so does one that does not exist");
	is_int(pk_profile_set_sample_type_scale(p, 0, 10), 0, "scale 10 set on an empty column");
	loc = frame(p, "f", 1);
	stack = pk_profile_intern_stack(p, &loc, 1);
	pk_profile_add_sample(p, stack, 0, 0, v, 2);
	is_int(pk_profile_set_sample_type_scale(p, 0, 1000), 0, "then 1000");
	is_int(pk_profile_sample_values(p, 0)[0], 1500, "the value keeps its meaning: 1.5");
	is_int(pk_profile_sample_values(p, 0)[1], 3, "the other column is untouched");
	is_int(pk_profile_set_sample_type_scale(p, 0, 10), PK_EUSAGE, "a coarser scale is refused");
	is_int(pk_profile_set_sample_type_scale(p, 0, 2000), PK_EUSAGE, "and one not a power of ten");
	is_int(pk_profile_set_sample_type_scale(p, 2, 10), PK_EUSAGE, "and a column that does not exist");

	v[0] = big;
	v[1] = 0;
	pk_profile_add_sample(p, pk_profile_intern_stack(p, NULL, 0), 0, 0, v, 2);
	is_int(pk_profile_set_sample_type_scale(p, 0, 10000), PK_EINPUT,
	       "a value that would overflow refuses the scale");
	ok(pk_profile_sample_type_scale(p, 0) == 1000 && pk_profile_sample_values(p, 0)[0] == 1500,
	   "and changes nothing");

	pk_profile_add_sample_type(q, "samples", "count", NULL, PK_VALUE_COUNT);
	pk_profile_set_sample_type_scale(q, 0, 100);
	is_int(pk_profile_align_scales(p, 1, q, 0), 0, "align scale 1 with scale 100");
	ok(pk_profile_sample_type_scale(p, 1) == 100 && pk_profile_sample_type_scale(q, 0) == 100,
	   "both are at 100");
	is_int(pk_profile_sample_values(p, 0)[1], 300, "3 ns became 300 hundredths");

	pk_value_format(buf, sizeof(buf), 115, 10);
	is_str(buf, "11.5", "115 at scale 10");
	pk_value_format(buf, sizeof(buf), 1500, 1000);
	is_str(buf, "1.5", "no trailing zeros");
	pk_value_format(buf, sizeof(buf), 2000, 1000);
	is_str(buf, "2", "a whole value has no point");
	pk_value_format(buf, sizeof(buf), -5, 10);
	is_str(buf, "-0.5", "a negative fraction keeps its sign");
	pk_value_format(buf, sizeof(buf), 7, 100);
	is_str(buf, "0.07", "leading zeros of the decimals");
	is_int(pk_value_format(buf, sizeof(buf), INT64_MIN, 1000000000000000000LL), 21,
	       "the longest value fits PK_VALUE_FORMAT_SIZE");
	is_str(buf, "-9.223372036854775808", "INT64_MIN at scale 10^18");
	is_int(pk_value_format(buf, sizeof(buf), 1, 3), PK_EUSAGE, "scale 3 is refused");
	is_int(pk_value_format(buf, 4, -12345, 100), 7, "a short buffer: the whole length");
	is_str(buf, "-12", "a short buffer: what fits, ended");
	pk_profile_free(p);
	pk_profile_free(q);
}

static void test_mapping_limit(void)
{
	struct pk_profile *p = pk_profile_new(0);
	struct pk_mapping loaded = { .start = 0x100000000 }, none = { 0 };
	uint32_t id = pk_profile_intern_mapping(p, &loaded);

	ok(pk_profile_mapping(p, id)->limit == UINT64_MAX,
	   "a start without a limit runs to the end of the address space");
	loaded.limit = UINT64_MAX;
	is_int(pk_profile_intern_mapping(p, &loaded), id, "and is that mapping");
	id = pk_profile_intern_mapping(p, &none);
	ok(pk_profile_mapping(p, id)->limit == 0, "no addresses stay none");
	pk_profile_free(p);
}

int main(void)
{
	test_strings();
	test_samples_are_summed();
	test_keep_order();
	test_rows_alike();
	test_labels();
	test_threads_of_a_stack();
	test_memory_limit();
	test_scales();
	test_mapping_limit();
	return done_testing();
}
