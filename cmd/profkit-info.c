/* SPDX-License-Identifier: MIT */
/* profkit-info: what is in a profile. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const info_usage[] = {
	"profkit-info [--json] [FILE...]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-info",
	.summary = "Describe profiles: format, sample types and totals, events, time span,\n"
		   "threads, mappings and what the recording says about itself.",
	.usage = info_usage,
	.examples = "  profkit-info perf.data\n  profkit-info --json cpu.pb.gz | jq .events\n",
};

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

static json_t *describe(const char *path, const struct pk_profile *p)
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
	return json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o}",
		"file", path ? path : "-", "format", pk_profile_meta(p, PK_META_FORMAT),
		"sample_types", describe_types(p), "events", describe_events(p),
		"distinct_samples", (json_int_t)pk_profile_sample_count(p),
		"distinct_stacks", (json_int_t)pk_profile_stack_count(p),
		"processes", distinct_labels(p, "pid"),
		"threads", distinct_labels(p, "tid"),
		"functions", (json_int_t)pk_profile_function_count(p),
		"duration_seconds", last > first ? (double)(last - first) / 1e9 : 0.0,
		"mappings", describe_mappings(p), "facts", facts);
}

static void print_text(json_t *d)
{
	json_t *v;
	const char *key;
	size_t i;
	char num[32];

	printf("%s: %s profile\n", json_string_value(json_object_get(d, "file")),
	       json_string_value(json_object_get(d, "format")));
	if (json_array_size(json_object_get(d, "sample_types")))
		printf("  sample types:\n");
	json_array_foreach(json_object_get(d, "sample_types"), i, v)
		printf("    %-28s total %s %s\n",
		       json_string_value(json_object_get(v, "type")),
		       number(json_object_get(v, "total"), num, sizeof(num)),
		       json_string_value(json_object_get(v, "unit")));
	printf("  distinct stacks: %lld, functions: %lld\n",
	       (long long)json_integer_value(json_object_get(d, "distinct_stacks")),
	       (long long)json_integer_value(json_object_get(d, "functions")));
	json_object_foreach(json_object_get(d, "events"), key, v)
		printf("  event %s: %s samples\n", key, number(v, num, sizeof(num)));
	if (json_integer_value(json_object_get(d, "processes")))
		printf("  processes: %lld\n",
		       (long long)json_integer_value(json_object_get(d, "processes")));
	if (json_integer_value(json_object_get(d, "threads")))
		printf("  threads: %lld\n",
		       (long long)json_integer_value(json_object_get(d, "threads")));
	if (json_real_value(json_object_get(d, "duration_seconds")) > 0)
		printf("  duration: %.3f s\n", json_real_value(json_object_get(d, "duration_seconds")));
	if (json_array_size(json_object_get(d, "mappings")) > 0)
		printf("  mappings: %zu\n", json_array_size(json_object_get(d, "mappings")));
	json_array_foreach(json_object_get(d, "mappings"), i, v)
		printf("    %s%s%s%s\n", json_string_value(json_object_get(v, "file")),
		       json_is_string(json_object_get(v, "build_id")) ? " build-id " : "",
		       json_is_string(json_object_get(v, "build_id")) ?
			       json_string_value(json_object_get(v, "build_id")) : "",
		       json_is_true(json_object_get(v, "symbolized")) ? " (symbolized)" : "");
	json_object_foreach(json_object_get(d, "facts"), key, v)
		printf("  %s: %s\n", key, json_string_value(v));
	if (!json_array_size(json_object_get(d, "sample_types")))
		printf("  no samples: the input holds no sample records "
		       "(was the recording empty, or made without sampling?)\n");
}

/* Read and describe one input; a failure is said at once, the next
 * input is described all the same. */
static int describe_input(struct pk_context *ctx, const char *path,
			  int as_json, json_t *all)
{
	struct pk_profile *p;
	json_t *d;
	int rc = cmd_read_profile(ctx, path, PK_PROFILE_KEEP_ORDER |
				  PK_PROFILE_KEEP_EMPTY, &p);

	if (rc) {
		rc = cmd_report(ctx, rc);
		pk_context_clear_error(ctx);
		return rc;
	}
	d = describe(path, p);
	pk_profile_free(p);
	if (as_json) {
		json_array_append_new(all, d);
	} else {
		print_text(d);
		json_decref(d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int quiet = 0, as_json = 0, i, rc = 0;
	const struct option options[] = {
		OPT_FLAG(0, "json", &as_json, "print JSON (one object per file, in an array)"),
		OPT_PK(0, "from", "FMT", "input format (default: detect)"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	struct pk_context *ctx;
	json_t *all = json_array();

	argc = parse_options(argc, argv, options, &info);
	if (!(ctx = cmd_context(quiet)))
		return 1;
	for (i = 0; i < (argc ? argc : 1); i++) {
		int status = describe_input(ctx, argc ? argv[i] : NULL,
					    as_json, all);

		if (status > rc)
			rc = status;
	}
	if (as_json) {
		json_dumpf(all, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(all);
	if (fflush(stdout) || ferror(stdout))
		rc = cmd_report(ctx, pk_error_set(ctx, PK_EIO,
				"cannot write to standard output"));
	pk_context_free(ctx);
	return rc;
}
