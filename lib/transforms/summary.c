/* SPDX-License-Identifier: MIT */
/*
 * What profkit-info prints: a profile described, as one JSON object or
 * as text made from that object, so that the two never disagree.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* A column's total in its unit (3.5 for fractional counts), a JSON number. */
static json_t *total_of(const struct pk_profile *p, size_t column)
{
	char buf[PK_VALUE_FORMAT_SIZE];

	pk_value_format(buf, sizeof(buf), pk_profile_total(p, column),
			pk_profile_sample_type_scale(p, column));
	return json_loads(buf, JSON_DECODE_ANY, NULL);
}

/* A JSON number as text: integers exactly, fractions as they were read. */
static const char *number(json_t *v, char *buf, size_t size)
{
	if (json_is_real(v))
		snprintf(buf, size, "%.15g", json_real_value(v));
	else
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	return buf;
}

static json_t *describe_types(const struct pk_profile *p)
{
	json_t *types = json_array();
	size_t i, n = pk_profile_sample_type_count(p);

	for (i = 0; i < n; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(p, i);

		json_array_append_new(types, json_pack("{s:s, s:s, s:s?, s:o}",
			"type", pk_profile_string(p, t->type),
			"unit", pk_profile_string(p, t->unit),
			"event", t->event ? pk_profile_string(p, t->event) : NULL,
			"total", total_of(p, i)));
	}
	return types;
}

/* Distinct values of a numeric label, counted by samples (the count column). */
static json_int_t distinct_labels(const struct pk_profile *p, const char *key)
{
	pk_str k = pk_profile_lookup(p, key);
	size_t n = pk_profile_sample_count(p), i;
	json_t *seen = json_object();
	json_int_t count;
	char buf[32];

	if (!k) {
		json_decref(seen);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct pk_label *l = pk_profile_label_find(p, pk_profile_sample(p, i)->labels, k);

		if (!l)
			continue;
		snprintf(buf, sizeof(buf), "%lld", (long long)l->num);
		json_object_set_new(seen, buf, json_true());
	}
	count = (json_int_t)json_object_size(seen);
	json_decref(seen);
	return count;
}

/* Each event with its number of samples (its count column's total). */
static json_t *describe_events(const struct pk_profile *p)
{
	json_t *events = json_object();
	size_t i;

	for (i = 0; i < pk_profile_event_count(p); i++) {
		pk_str e = pk_profile_event(p, i);
		int c = pk_profile_find_column(p, e, PK_VALUE_COUNT);

		json_object_set_new(events, pk_profile_string(p, e),
				    c >= 0 ? total_of(p, (size_t)c) : json_integer(0));
	}
	return events;
}

static json_t *describe_mappings(const struct pk_profile *p)
{
	json_t *maps = json_array();
	size_t i, n = pk_profile_mapping_count(p);

	for (i = 1; i <= n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i);

		json_array_append_new(maps, json_pack("{s:s, s:s?, s:b}",
			"file", pk_profile_string(p, m->file),
			"build_id", m->build_id ? pk_profile_string(p, m->build_id) : NULL,
			"symbolized", m->has_functions));
	}
	return maps;
}

static json_t *describe(const char *name, const struct pk_profile *p)
{
	json_t *facts = json_object();
	uint64_t first, last;
	size_t i;

	for (i = 0; i < pk_profile_meta_count(p); i++) {
		const char *k, *v;

		pk_profile_meta_at(p, i, &k, &v);
		if (strcmp(k, PK_META_INPUT) && strcmp(k, PK_META_FORMAT))
			json_object_set_new(facts, k, json_string(v));
	}
	pk_profile_time_span(p, &first, &last);
	/* no format: an empty input, which no reader read */
	return json_pack("{s:s, s:s?, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o}",
		"file", name, "format", pk_profile_meta(p, PK_META_FORMAT),
		"sample_types", describe_types(p), "events", describe_events(p),
		"distinct_samples", (json_int_t)pk_profile_sample_count(p),
		"distinct_stacks", (json_int_t)pk_profile_stack_count(p),
		"processes", distinct_labels(p, "pid"),
		"threads", distinct_labels(p, "tid"),
		"functions", (json_int_t)pk_profile_function_count(p),
		"duration_seconds", last > first ? (double)(last - first) / 1e9 : 0.0,
		"mappings", describe_mappings(p), "facts", facts);
}

static const char *text(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long long integer(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* The text form of d; errors stay in the context */
static void write_text(struct pk_output *out, json_t *d)
{
	json_t *types = json_object_get(d, "sample_types");
	json_t *maps = json_object_get(d, "mappings"), *v, *build_id;
	double seconds = json_real_value(json_object_get(d, "duration_seconds"));
	const char *key;
	size_t i;
	char num[32];

	if (text(d, "format"))
		pk_output_printf(out, "%s: %s profile\n", text(d, "file"), text(d, "format"));
	else
		pk_output_printf(out, "%s: empty input\n", text(d, "file"));
	if (json_array_size(types))
		pk_output_puts(out, "  sample types:\n");
	json_array_foreach(types, i, v)
		pk_output_printf(out, "    %-28s total %s %s\n", text(v, "type"),
				 number(json_object_get(v, "total"), num, sizeof(num)),
				 text(v, "unit"));
	pk_output_printf(out, "  distinct stacks: %lld, functions: %lld\n",
			 integer(d, "distinct_stacks"), integer(d, "functions"));
	json_object_foreach(json_object_get(d, "events"), key, v)
		pk_output_printf(out, "  event %s: %s samples\n", key,
				 number(v, num, sizeof(num)));
	if (integer(d, "processes"))
		pk_output_printf(out, "  processes: %lld\n", integer(d, "processes"));
	if (integer(d, "threads"))
		pk_output_printf(out, "  threads: %lld\n", integer(d, "threads"));
	if (seconds > 0)
		pk_output_printf(out, "  duration: %.3f s\n", seconds);
	if (json_array_size(maps) > 0)
		pk_output_printf(out, "  mappings: %zu\n", json_array_size(maps));
	json_array_foreach(maps, i, v) {
		build_id = json_object_get(v, "build_id");
		pk_output_printf(out, "    %s%s%s%s\n", text(v, "file"),
				 json_is_string(build_id) ? " build-id " : "",
				 json_is_string(build_id) ? json_string_value(build_id) : "",
				 json_is_true(json_object_get(v, "symbolized")) ?
				 " (symbolized)" : "");
	}
	json_object_foreach(json_object_get(d, "facts"), key, v)
		pk_output_printf(out, "  %s: %s\n", key, json_string_value(v));
	if (!json_array_size(types))
		pk_output_puts(out, "  no samples: the input holds no sample records "
			       "(was the recording empty, or made without sampling?)\n");
}

int pk_profile_summary(struct pk_context *ctx, const struct pk_profile *p,
		       const char *name, unsigned flags,
		       struct pk_output *out)
{
	json_t *d = describe(name ? name : "-", p);
	char *text;
	int rc;

	if (!d)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (flags & PK_SUMMARY_JSON) {
		text = json_dumps(d, JSON_INDENT(2));
		rc = text ? pk_output_puts(out, text) :
			pk_error_set(ctx, PK_ENOMEM, "out of memory");
		free(text);
	} else {
		write_text(out, d);
		rc = pk_context_error(ctx)->code;
	}
	json_decref(d);
	return rc;
}
