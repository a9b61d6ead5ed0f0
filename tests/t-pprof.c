/* SPDX-License-Identifier: MIT */
/*
 * The pprof writer: build a small model by hand, write it, unpack the
 * bytes with protobuf-c and check what pprof would see (and what its
 * CheckValid demands); and the reader, on what other producers write.
 */
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "proto/profile.pb-c.h"
#include "tap.h"

typedef Perftools__Profiles__Profile pb_profile;

struct model {
	struct pk_profile *p;
	uint32_t work_loc, main_loc, unknown_loc;
	uint32_t helper_fn, work_fn;
};

static uint32_t function(struct pk_profile *p, const char *name,
			 const char *file, int64_t start_line)
{
	struct pk_function f = { 0 };

	f.name = f.system_name = pk_profile_intern_cstr(p, name);
	f.filename = pk_profile_intern_cstr(p, file);
	f.start_line = start_line;
	return pk_profile_intern_function(p, &f);
}

static uint32_t mapping(struct pk_profile *p, const char *file,
			uint64_t start)
{
	struct pk_mapping m = { 0 };

	m.start = start;
	m.limit = start + 0x100000;
	m.offset = 0x1000;
	m.file = pk_profile_intern_cstr(p, file);
	m.build_id = pk_profile_intern_cstr(p, "c0ffee");
	return pk_profile_intern_mapping(p, &m);
}

/* Nothing samples reach: none of it may be written. */
static void add_unused(struct model *m)
{
	struct pk_line line = { 0 };
	uint32_t map = mapping(m->p, "/lib/libunused.so", 0x7f0000000000);

	line.function = function(m->p, "never_called", "unused.c", 1);
	pk_profile_intern_location(m->p, map, 0x7f0000001234, &line, 1);
	pk_profile_intern_cstr(m->p, "never-used");
}

/*
 * helper() inlined into work() at one address, called from main();
 * and an unsymbolized frame without a mapping under main().
 */
static void build_model(struct model *m)
{
	struct pk_profile *p = pk_profile_new(0);
	uint32_t app = mapping(p, "/usr/bin/app", 0x400000);
	struct pk_line lines[2] = { { 0 } };
	struct pk_label l[3] = { { 0 } };
	uint32_t stack[2], a, b, labels;
	int64_t v[2] = { 1, 10000000 };

	m->p = p;
	pk_profile_add_sample_type(p, "samples", "count", "cpu", PK_VALUE_COUNT);
	pk_profile_add_sample_type(p, "cpu", "nanoseconds", "cpu", PK_VALUE_WEIGHT);
	pk_profile_set_period(p, "cpu", "nanoseconds", 10000000);
	add_unused(m);
	m->helper_fn = lines[0].function = function(p, "helper", "app.c", 10);
	lines[0].line = 12;
	m->work_fn = lines[1].function = function(p, "work", "app.c", 25);
	lines[1].line = 30;
	m->work_loc = pk_profile_intern_location(p, app, 0x401000, lines, 2);
	lines[0].function = function(p, "main", "app.c", 40);
	lines[0].line = 44;
	m->main_loc = pk_profile_intern_location(p, app, 0x402000, lines, 1);
	lines[0].function = function(p, "[unknown]", NULL, 0);
	lines[0].line = 0;
	m->unknown_loc = pk_profile_intern_location(p, 0, 0xdead, lines, 1);

	l[0].key = pk_profile_intern_cstr(p, "pid");
	l[0].num = 42;
	l[1].key = pk_profile_intern_cstr(p, "comm");
	l[1].str = pk_profile_intern_cstr(p, "app");
	l[2].key = pk_profile_intern_cstr(p, "bytes");
	l[2].num = 4096;
	l[2].unit = pk_profile_intern_cstr(p, "bytes");
	labels = pk_profile_intern_labels(p, l, 3);

	stack[0] = m->work_loc;
	stack[1] = m->main_loc;
	a = pk_profile_intern_stack(p, stack, 2);
	stack[0] = m->unknown_loc;
	b = pk_profile_intern_stack(p, stack, 2);
	pk_profile_add_sample(p, a, labels, 1000, v, 2);
	pk_profile_add_sample(p, a, labels, 3000, v, 2);
	pk_profile_add_sample(p, a, labels, 2000, v, 2);
	pk_profile_add_sample(p, b, 0, 1500, v, 2);
}

static void set_option(struct pk_options *opts, const char *key,
		       const char *value)
{
	struct pk_context *ctx = pk_context_new();

	if (pk_options_set(ctx, opts, key, value))
		diag("%s", pk_context_error(ctx)->message);
	pk_context_free(ctx);
}

/* Write p with the pprof writer; the unpacked message or NULL. */
static pb_profile *write_and_unpack(const struct pk_profile *p,
				    const struct pk_options *opts, int *rc)
{
	const struct pk_writer *w = pk_writer_find("pprof");
	struct pk_context *ctx = pk_context_new();
	struct pk_output *out;
	const unsigned char *data;
	pb_profile *msg = NULL;
	size_t size;

	pk_output_open_memory(ctx, &out);
	*rc = w ? pk_writer_write(ctx, w, p, opts, out) : -99;
	if (*rc)
		diag("write: %s", pk_context_error(ctx)->message);
	data = pk_output_memory(out, &size);
	if (!*rc && size && data[0] != 0x1f)
		msg = perftools__profiles__profile__unpack(NULL, size, data);
	pk_output_abort(out);
	pk_context_free(ctx);
	return msg;
}

static const char *S(const pb_profile *msg, int64_t i)
{
	return i >= 0 && (size_t)i < msg->n_string_table ?
		msg->string_table[i] : "<out of range>";
}

/* pprof's CheckValid: non-zero unique ids, every reference resolves. */
static int has_location(const pb_profile *msg, uint64_t id)
{
	size_t i;

	for (i = 0; i < msg->n_location; i++)
		if (msg->location[i]->id == id)
			return 1;
	return 0;
}

static int has_function(const pb_profile *msg, uint64_t id)
{
	size_t i;

	for (i = 0; i < msg->n_function; i++)
		if (msg->function[i]->id == id)
			return 1;
	return 0;
}

static int has_mapping(const pb_profile *msg, uint64_t id)
{
	size_t i;

	for (i = 0; i < msg->n_mapping; i++)
		if (msg->mapping[i]->id == id)
			return 1;
	return 0;
}

static int references_resolve(const pb_profile *msg)
{
	size_t i, j;

	for (i = 0; i < msg->n_sample; i++) {
		if (msg->sample[i]->n_value != msg->n_sample_type)
			return 0;
		for (j = 0; j < msg->sample[i]->n_location_id; j++)
			if (!has_location(msg, msg->sample[i]->location_id[j]))
				return 0;
	}
	for (i = 0; i < msg->n_location; i++) {
		const Perftools__Profiles__Location *l = msg->location[i];

		if (l->mapping_id && !has_mapping(msg, l->mapping_id))
			return 0;
		for (j = 0; j < l->n_line; j++)
			if (!has_function(msg, l->line[j]->function_id))
				return 0;
	}
	return 1;
}

static int ids_valid(const pb_profile *msg)
{
	size_t i, j;

	for (i = 0; i < msg->n_mapping; i++)
		for (j = 0; j <= i; j++)
			if (!msg->mapping[i]->id || (j < i &&
			    msg->mapping[i]->id == msg->mapping[j]->id))
				return 0;
	for (i = 0; i < msg->n_function; i++)
		for (j = 0; j <= i; j++)
			if (!msg->function[i]->id || (j < i &&
			    msg->function[i]->id == msg->function[j]->id))
				return 0;
	for (i = 0; i < msg->n_location; i++)
		for (j = 0; j <= i; j++)
			if (!msg->location[i]->id || (j < i &&
			    msg->location[i]->id == msg->location[j]->id))
				return 0;
	return 1;
}

static int strings_unique(const pb_profile *msg)
{
	size_t i, j;

	for (i = 0; i < msg->n_string_table; i++)
		for (j = 0; j < i; j++)
			if (strcmp(msg->string_table[i], msg->string_table[j]) == 0)
				return 0;
	return 1;
}

static int has_string(const pb_profile *msg, const char *s)
{
	size_t i;

	for (i = 0; i < msg->n_string_table; i++)
		if (strcmp(msg->string_table[i], s) == 0)
			return 1;
	return 0;
}

static const Perftools__Profiles__Location *location(const pb_profile *msg,
						     uint64_t id)
{
	size_t i;

	for (i = 0; i < msg->n_location; i++)
		if (msg->location[i]->id == id)
			return msg->location[i];
	return NULL;
}

static const Perftools__Profiles__Function *function_of(const pb_profile *msg,
							uint64_t id)
{
	size_t i;

	for (i = 0; i < msg->n_function; i++)
		if (msg->function[i]->id == id)
			return msg->function[i];
	return NULL;
}

static void test_header(const pb_profile *msg)
{
	is_str(S(msg, 0), "", "string_table[0] is \"\"");
	ok(strings_unique(msg), "every string once");
	ok(!has_string(msg, "never-used") && !has_string(msg, "never_called") &&
	   !has_string(msg, "/lib/libunused.so"),
	   "strings nothing reaches are not written");
	is_int(msg->n_sample_type, 2, "two sample types");
	ok(msg->n_sample_type == 2 &&
	   !strcmp(S(msg, msg->sample_type[0]->type), "samples") &&
	   !strcmp(S(msg, msg->sample_type[0]->unit), "count") &&
	   !strcmp(S(msg, msg->sample_type[1]->type), "cpu") &&
	   !strcmp(S(msg, msg->sample_type[1]->unit), "nanoseconds"),
	   "samples/count, cpu/nanoseconds in the model's order");
	ok(msg->period_type && !strcmp(S(msg, msg->period_type->type), "cpu") &&
	   !strcmp(S(msg, msg->period_type->unit), "nanoseconds"),
	   "period type cpu/nanoseconds");
	is_int(msg->period, 10000000, "period");
	/* sample times are no wall clock: 1970 would be worse than none */
	is_int(msg->time_nanos, 0, "no time from sample times");
	is_int(msg->duration_nanos, 2000, "duration spans the samples");
	is_int(msg->default_sample_type, 0, "no default sample type");
}

static void test_objects(const pb_profile *msg, const struct model *m)
{
	const Perftools__Profiles__Location *work = location(msg, m->work_loc);
	const Perftools__Profiles__Function *f;

	ok(ids_valid(msg), "ids are non-zero and unique");
	ok(references_resolve(msg), "every referenced id exists");
	is_int(msg->n_location, 3, "three locations (the unused one dropped)");
	is_int(msg->n_function, 4, "four functions (the unused one dropped)");
	is_int(msg->n_mapping, 1, "one mapping (the unused one dropped)");
	if (msg->n_mapping == 1) {
		const Perftools__Profiles__Mapping *map = msg->mapping[0];

		ok(map->memory_start == 0x400000 && map->memory_limit == 0x500000 &&
		   map->file_offset == 0x1000 &&
		   !strcmp(S(msg, map->filename), "/usr/bin/app") &&
		   !strcmp(S(msg, map->build_id), "c0ffee"),
		   "mapping start, limit, offset, file, build id");
		ok(map->has_functions && map->has_filenames &&
		   map->has_line_numbers && map->has_inline_frames,
		   "its has_* bits say what the locations show");
	}
	ok(work && work->address == 0x401000 && work->n_line == 2,
	   "the inlined location has two lines");
	if (!work || work->n_line != 2)
		return;
	is_int(work->mapping_id, msg->mapping[0]->id, "and its mapping");
	f = function_of(msg, work->line[0]->function_id);
	ok(f && !strcmp(S(msg, f->name), "helper") && work->line[0]->line == 12,
	   "innermost line first: helper:12");
	ok(f && !strcmp(S(msg, f->filename), "app.c") && f->start_line == 10 &&
	   !strcmp(S(msg, f->system_name), "helper"),
	   "function file, start line, system name");
	f = function_of(msg, work->line[1]->function_id);
	ok(f && !strcmp(S(msg, f->name), "work") && work->line[1]->line == 30,
	   "then its caller: work:30");
	is_int(location(msg, m->unknown_loc) ?
	       (long long)location(msg, m->unknown_loc)->mapping_id : -1, 0,
	       "a location without a mapping has mapping_id 0");
}

typedef Perftools__Profiles__Label pb_label;

static const pb_label *label(const Perftools__Profiles__Sample *s,
			     const pb_profile *msg, const char *key)
{
	size_t i;

	for (i = 0; i < s->n_label; i++)
		if (!strcmp(S(msg, s->label[i]->key), key))
			return s->label[i];
	return NULL;
}

static void test_samples(const pb_profile *msg, const struct model *m)
{
	const Perftools__Profiles__Sample *a, *b;
	const pb_label *l;

	is_int(msg->n_sample, 2, "equal samples are summed: two samples");
	if (msg->n_sample != 2)
		return;
	a = msg->sample[0];
	b = msg->sample[1];
	ok(a->n_value == 2 && a->value[0] == 3 && a->value[1] == 30000000,
	   "values 3 and 30ms");
	ok(a->n_location_id == 2 && a->location_id[0] == m->work_loc &&
	   a->location_id[1] == m->main_loc, "stack leaf first");
	ok(b->n_location_id == 2 && b->location_id[0] == m->unknown_loc,
	   "the other stack");
	is_int(a->n_label, 3, "three labels");
	l = label(a, msg, "pid");
	ok(l && l->num == 42 && !l->str, "numeric label pid=42");
	l = label(a, msg, "comm");
	ok(l && !strcmp(S(msg, l->str), "app") && !l->num, "string label comm=app");
	l = label(a, msg, "bytes");
	ok(l && l->num == 4096 && !strcmp(S(msg, l->num_unit), "bytes"),
	   "numeric label with a unit");
	is_int(b->n_label, 0, "a sample without labels has none");
}

static void test_options(const struct pk_profile *p)
{
	struct pk_options *opts = pk_options_new();
	pb_profile *msg;
	int rc;

	set_option(opts, "pprof:gzip", "0");
	set_option(opts, "pprof:labels", "none");
	msg = write_and_unpack(p, opts, &rc);
	ok(msg && msg->n_sample == 2 && msg->sample[0]->n_label == 0 &&
	   !has_string(msg, "comm") && !has_string(msg, "pid"),
	   "no_labels drops labels and their strings");
	if (msg)
		perftools__profiles__profile__free_unpacked(msg, NULL);
	pk_options_free(opts);
}

/* The default output is gzip whose content is the raw output. */
static void test_gzip(const struct pk_profile *p)
{
	const struct pk_writer *w = pk_writer_find("pprof");
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_output *gz, *raw;
	struct pk_input *in = NULL;
	const unsigned char *gz_data, *raw_data;
	unsigned char *back = NULL;
	size_t gz_size, raw_size, back_size = 0;

	pk_output_open_memory(ctx, &gz);
	pk_output_open_memory(ctx, &raw);
	pk_writer_write(ctx, w, p, opts, gz);
	pk_output_finish(gz);
	set_option(opts, "pprof:gzip", "0");
	pk_writer_write(ctx, w, p, opts, raw);
	gz_data = pk_output_memory(gz, &gz_size);
	raw_data = pk_output_memory(raw, &raw_size);
	ok(gz_size > 2 && gz_data[0] == 0x1f && gz_data[1] == 0x8b,
	   "gzip by default");
	ok(raw_size && raw_data[0] != 0x1f, "raw with no_gzip");
	pk_input_open_memory(ctx, "gz", gz_data, gz_size, &in);
	if (in)
		pk_input_slurp(in, 1 << 20, &back, &back_size);
	ok(back && back_size == raw_size && !memcmp(back, raw_data, raw_size),
	   "and the gzip holds the raw bytes");
	free(back);
	pk_input_close(in);
	pk_output_abort(gz);
	pk_output_abort(raw);
	pk_options_free(opts);
	pk_context_free(ctx);
}

static void test_edges(void)
{
	struct pk_profile *p = pk_profile_new(0);
	struct pk_options *opts = pk_options_new();
	pb_profile *msg;
	int rc;

	set_option(opts, "pprof:gzip", "0");
	msg = write_and_unpack(p, opts, &rc);
	/* pprof reads no profile without a sample type: samples/count */
	ok(msg && msg->n_string_table == 3 && msg->n_sample == 0 &&
	   msg->n_sample_type == 1 && !msg->period_type &&
	   !strcmp(msg->string_table[msg->sample_type[0]->type], "samples") &&
	   !strcmp(msg->string_table[msg->sample_type[0]->unit], "count"),
	   "an empty profile is a valid message of no samples");
	if (msg)
		perftools__profiles__profile__free_unpacked(msg, NULL);
	pk_options_free(opts);
	pk_profile_free(p);
}

/* ---- reading what other producers write ---- */

struct pb {
	unsigned char b[512];
	size_t n;
};

static void put_varint(struct pb *m, uint64_t v)
{
	do {
		m->b[m->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put_field(struct pb *m, unsigned field, uint64_t v)
{
	put_varint(m, field << 3);
	put_varint(m, v);
}

static void put_bytes(struct pb *m, unsigned field, const void *data, size_t n)
{
	put_varint(m, field << 3 | 2);
	put_varint(m, n);
	memcpy(m->b + m->n, data, n);
	m->n += n;
}

static void put_message(struct pb *m, unsigned field, const struct pb *sub)
{
	put_bytes(m, field, sub->b, sub->n);
}

static void put_strings(struct pb *m)
{
	static const char *const s[] = { "", "samples", "count", "main", "work", "/bin/app" };
	size_t i;

	for (i = 0; i < 6; i++)
		put_bytes(m, 6, s[i], strlen(s[i]));
}

/*
 * main -> work (leaf), and work -> main (another address) -> a location
 * without lines or mapping: values 5 and 2; with zero_fn the line of
 * that other address has function_id 0, which pprof rejects. Shape 0: repeated
 * numbers unpacked, the fields in reverse order, the string table first,
 * no period, time or mapping. Shape 1: packed, Go's order (time first,
 * string table last). Shape 2: async-profiler's JfrToPprof order: one
 * sample type, a comment, samples, a mapping no location names, then
 * locations, functions, strings, time and duration last.
 */
static void encode_producer(struct pb *out, int shape, int zero_fn)
{
	struct pb vt = { .n = 0 }, s1 = { .n = 0 }, s2 = { .n = 0 }, f1 = { .n = 0 },
		f2 = { .n = 0 }, loc[4], line = { .n = 0 }, pk = { .n = 0 };
	static const uint64_t ids[4] = { 7, 9, 3, 4 };
	uint64_t fn[3] = { 2, 1, 1 };
	int i;

	fn[2] = zero_fn ? 0 : 1;

	memset(out, 0, sizeof(*out));
	put_field(&vt, 1, 1);
	put_field(&vt, 2, 2);
	put_field(&f1, 1, 1);
	put_field(&f1, 2, 3);
	put_field(&f2, 1, 2);
	put_field(&f2, 2, 4);
	for (i = 0; i < 4; i++) {
		memset(&loc[i], 0, sizeof(loc[i]));
		put_field(&loc[i], 1, ids[i]);
		put_field(&loc[i], 3, 0x1000 * (uint64_t)(i + 1));
		if (i < 3) {
			line.n = 0;
			if (fn[i])	/* 0 is the field left out */
				put_field(&line, 1, fn[i]);
			put_field(&line, 2, 10 + (uint64_t)i);
			put_message(&loc[i], 4, &line);
		}
	}
	if (shape) {
		pk.n = 0, put_varint(&pk, 7), put_varint(&pk, 9);
		put_bytes(&s1, 1, pk.b, pk.n);
		pk.n = 0, put_varint(&pk, 5);
		put_bytes(&s1, 2, pk.b, pk.n);
		pk.n = 0, put_varint(&pk, 4), put_varint(&pk, 3), put_varint(&pk, 7);
		put_varint(&pk, 9);
		put_bytes(&s2, 1, pk.b, pk.n);
		pk.n = 0, put_varint(&pk, 2);
		put_bytes(&s2, 2, pk.b, pk.n);
	}
	if (shape) {
		struct pb map = { .n = 0 };

		put_field(&map, 1, 1), put_field(&map, 2, 0);
		put_field(&map, 3, INT64_MAX), put_field(&map, 5, 5);
		if (shape == 1)
			put_field(out, 9, 1700000000000000000ULL);
		put_message(out, 1, &vt);
		if (shape == 2)
			put_field(out, 13, 1);
		put_message(out, 2, &s1);
		put_message(out, 2, &s2);
		if (shape == 2)
			put_message(out, 3, &map);
		for (i = 0; i < 4; i++)
			put_message(out, 4, &loc[i]);
		put_message(out, 5, &f1);
		put_message(out, 5, &f2);
		if (shape == 1) {
			put_message(out, 11, &vt);
			put_field(out, 12, 1);
		}
		put_strings(out);
		if (shape == 2) {
			put_field(out, 9, 1700000000000000000ULL);
			put_field(out, 10, 1000000000);
		}
	} else {
		put_field(&s1, 1, 7), put_field(&s1, 1, 9), put_field(&s1, 2, 5);
		put_field(&s2, 2, 2), put_field(&s2, 1, 4), put_field(&s2, 1, 3);
		put_field(&s2, 1, 7), put_field(&s2, 1, 9);
		put_strings(out);
		put_message(out, 5, &f2);
		put_message(out, 5, &f1);
		for (i = 3; i >= 0; i--)
			put_message(out, 4, &loc[i]);
		put_message(out, 2, &s2);
		put_message(out, 2, &s1);
		put_message(out, 1, &vt);
	}
}

/* pprof's CheckValid: "location id: 3 has a line with nil function" */
static void test_zero_function(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_profile *p = pk_profile_new(0);
	struct pk_input *in = NULL;
	struct pb m;
	int rc;

	encode_producer(&m, 1, 1);
	rc = pk_input_open_memory(ctx, "zero", m.b, m.n, &in);
	if (!rc)
		rc = pk_read(ctx, in, NULL, p, opts);
	ok(rc == PK_EINPUT && strstr(pk_context_error(ctx)->message,
				     "location id: 3 has a line with nil function"),
	   "a line with function_id 0 is an error, as pprof says (%s)",
	   pk_context_error(ctx)->message);
	pk_input_close(in);
	pk_profile_free(p);
	pk_options_free(opts);
	pk_context_free(ctx);
}

/* A profile without sample types has no values array: still no null
 * pointer to offset (the fuzzers' 12-byte pprof input reached this). */
static void test_no_sample_types(void)
{
	struct pk_profile *p = pk_profile_new(0);
	uint32_t stack = pk_profile_intern_stack(p, NULL, 0);

	ok(pk_profile_add_sample(p, stack, 0, 0, NULL, 0) == 0 &&
	   pk_profile_sample_values(p, 0) != NULL,
	   "a sample without sample types: values point somewhere");
	pk_profile_free(p);
}

static void test_producers(void)
{
	static const char *const shapes[] = {
		"unpacked, reversed", "packed, Go's order", "async-profiler's order",
	};
	int shape;

	for (shape = 0; shape <= 2; shape++) {
		struct pk_context *ctx = pk_context_new();
		struct pk_options *opts = pk_options_new();
		struct pk_profile *p = pk_profile_new(0);
		const struct pk_reader *r = NULL;
		struct pk_input *in = NULL;
		int64_t total = 0, leaf_work = 0;
		int unnamed = 0;
		size_t i, depth;
		struct pb m;
		int rc;

		encode_producer(&m, shape, 0);
		rc = pk_input_open_memory(ctx, "producer", m.b, m.n, &in);
		if (!rc)
			rc = pk_reader_detect(ctx, in, &r);
		ok(!rc && r && !strcmp(pk_reader_name(r), "pprof"), "%s: detected as pprof",
		   shapes[shape]);
		if (!rc)
			rc = pk_read(ctx, in, r, p, opts);
		ok(!rc && pk_profile_sample_count(p) == 2, "read: two samples (%s)",
		   pk_context_error(ctx)->message);
		for (i = 0; !rc && i < pk_profile_sample_count(p); i++) {
			const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack,
								 &depth);
			const struct pk_location *leaf = pk_profile_location(p, stack[0]);
			const struct pk_line *lines = pk_profile_location_lines(p, leaf);
			const struct pk_function *f = leaf->nlines ?
				pk_profile_function(p, lines[0].function) : NULL;

			total += pk_profile_sample_values(p, i)[0];
			if (depth == 2 && f && !strcmp(pk_profile_string(p, f->name), "work"))
				leaf_work += pk_profile_sample_values(p, i)[0];
			if (depth == 4)
				unnamed = !pk_profile_location(p, stack[0])->nlines;
		}
		ok(total == 7 && leaf_work == 5, "values by stack: 5 at work, 7 in all");
		ok(unnamed, "a location without lines or mapping");
		pk_input_close(in);
		pk_profile_free(p);
		pk_options_free(opts);
		pk_context_free(ctx);
	}
}

int main(void)
{
	struct model m;
	struct pk_options *opts = pk_options_new();
	pb_profile *msg;
	int rc;

	build_model(&m);
	set_option(opts, "pprof:gzip", "0");
	msg = write_and_unpack(m.p, opts, &rc);
	if (!ok(msg != NULL, "the output unpacks as a perftools.profiles.Profile")) {
		pk_options_free(opts);
		pk_profile_free(m.p);
		return done_testing();
	}
	test_header(msg);
	test_objects(msg, &m);
	test_samples(msg, &m);
	perftools__profiles__profile__free_unpacked(msg, NULL);
	test_options(m.p);
	test_gzip(m.p);
	test_edges();
	test_producers();
	test_zero_function();
	test_no_sample_types();
	pk_options_free(opts);
	pk_profile_free(m.p);
	return done_testing();
}
