/* SPDX-License-Identifier: MIT */
/*
 * Reader for OpenTelemetry profiles, in protobuf (a ProfilesData
 * message, the body OTLP/HTTP takes) or in OTLP's JSON: every Profile of
 * every resource, into one model. Each Profile's sample type is a column
 * (profiles of the same sample type share it); a sample's attributes and
 * its resource's process.pid are its labels, under the model's names
 * where the semantic conventions have others (thread.id is tid, ...);
 * aggregated values are summed per stack and labels, and timestamped
 * ones are added in time order, one model sample per moment.
 *
 * Every index is checked against its table before use; an error names
 * the message that holds the bad one. Binary input is walked by the
 * schema before protobuf-c unpacks it, and what protobuf-c allocates
 * counts against the memory limit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "formats/registry.h"

/* An aggregated sample of the resource being read, summed across its
 * Profiles. */
struct pending {
	uint32_t stack, labels;
};

/* A timestamped value, added in time order at the end. */
struct event {
	uint64_t time;
	uint32_t seq, stack, labels, column;
	int64_t value;
};

/* protobuf-c's allocations, counted against the memory limit. */
struct counted_allocator {
	ProtobufCAllocator base;
	uint64_t used, limit;
};

struct otlp_reader {
	struct pk_context *ctx;
	struct pk_profile *p;
	const char *name;
	const otlp_dictionary *dict;
	char where[96];		/* the message being read, for errors */
	size_t sample;		/* and its sample (1-based), or 0 */
	char entry[48];		/* and the dictionary's entry it reached */

	/* table index -> model id, 0 until converted */
	pk_str *strings;
	uint32_t *mappings, *functions, *locations, *stacks;

	size_t ncolumns;	/* the model's, once the Profiles' are in */
	uint32_t *profile_column;	/* per Profile, in reading order */
	size_t nprofiles;
	int has_period;
	uint64_t start, end;	/* the profiles' span on the wall clock
				 * (start UINT64_MAX until one is read) */

	/* the resource being read */
	struct pk_label pid;
	int has_pid;
	struct pending *pending;
	int64_t *pending_values;	/* npending x ncolumns */
	size_t npending, pending_cap, values_cap;
	struct pk_idtab pending_tab;
	struct event *events;
	size_t nevents, events_cap;

	/* scratch */
	uint32_t *stack;
	size_t stack_cap;
	struct pk_label *labels;
	size_t labels_cap;
	int64_t *values;
};

static int bad(struct otlp_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What is wrong, after where: "resource 1, scope 1, profile 2, sample 3,
 * location_table[4]: ...", the dictionary's entry named where the sample
 * reached one that is bad. */
static int bad(struct otlp_reader *r, const char *fmt, ...)
{
	char reason[256], sample[32] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (r->sample)
		snprintf(sample, sizeof(sample), ", sample %zu", r->sample);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: OTLP profiles: %s%s%s%s%s%s",
			    r->name, r->where, sample,
			    *r->where && *r->entry ? ", " : "", r->entry,
			    *r->where || *r->entry ? ": " : "", reason);
}

static int oom(struct otlp_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory", r->name);
}

/* An index into a table of n entries, or an error naming both. */
static int check_index(struct otlp_reader *r, int64_t index, size_t n,
		       const char *field, const char *table)
{
	if (index >= 0 && (uint64_t)index < n)
		return 0;
	return bad(r, "%s %lld is out of range (the %s table has %zu entr%s)",
		   field, (long long)index, table, n, n == 1 ? "y" : "ies");
}

/* The dictionary's entry being read, for errors: old keeps the one it
 * replaces, for leave_entry. */
static void enter_entry(struct otlp_reader *r, const char *table, int32_t index,
			char old[sizeof(r->entry)])
{
	memcpy(old, r->entry, sizeof(r->entry));
	snprintf(r->entry, sizeof(r->entry), "%s_table[%d]", table, index);
}

static int leave_entry(struct otlp_reader *r, const char old[sizeof(r->entry)],
		       int rc)
{
	if (!rc)
		memcpy(r->entry, old, sizeof(r->entry));
	return rc;
}

static int string_of(struct otlp_reader *r, int64_t index, pk_str *out)
{
	int rc = check_index(r, index, r->dict->n_string_table, "string index",
			     "string");

	if (!rc)
		*out = r->strings[index];
	return rc;
}

static int read_strings(struct otlp_reader *r)
{
	size_t n = r->dict->n_string_table, i;

	if (n && r->dict->string_table[0][0])
		return bad(r, "string_table[0] is not \"\"");
	if (!(r->strings = calloc(n + 1, sizeof(*r->strings))))
		return oom(r);
	for (i = 1; i < n; i++)
		r->strings[i] = pk_profile_intern_cstr(r->p, r->dict->string_table[i]);
	return pk_profile_failed(r->p) ? oom(r) : 0;
}

/* ---- attributes ---- */

/* The attribute at index of the attribute table, or NULL when the index
 * is bad (an error then). */
static const otlp_attribute *attribute_at(struct otlp_reader *r, int32_t index)
{
	if (check_index(r, index, r->dict->n_attribute_table, "attribute index",
			"attribute"))
		return NULL;
	return r->dict->attribute_table[index];
}

/* The key of an attribute as a label's: the model's name for it. */
static int label_key(struct otlp_reader *r, const otlp_attribute *a, pk_str *key)
{
	int rc = string_of(r, a->key_strindex, key);
	const char *s = rc ? "" : pk_profile_string(r->p, *key);
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(otlp_label_keys); i++)
		if (strcmp(s, otlp_label_keys[i].attribute) == 0)
			*key = pk_profile_intern_cstr(r->p, otlp_label_keys[i].label);
	return rc;
}

/* A value as a label's: text or a number. 1 for a value a label cannot
 * hold (bytes, arrays, lists, none), which is left out. */
static int label_value(struct otlp_reader *r, const otlp_any_value *v,
		       int32_t unit, struct pk_label *l)
{
	char num[32];

	switch (v ? v->value_case : 0) {
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE:
		l->str = pk_profile_intern_cstr(r->p, v->string_value);
		return 0;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE_STRINDEX:
		return string_of(r, v->string_value_strindex, &l->str);
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE:
		l->num = v->int_value;
		return string_of(r, unit, &l->unit);
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE:
		l->str = pk_profile_intern_cstr(r->p, v->bool_value ? "true" : "false");
		return 0;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE:
		snprintf(num, sizeof(num), "%.17g", v->double_value);
		l->str = pk_profile_intern_cstr(r->p, num);
		return 0;
	default:
		return 1;
	}
}

/* The attribute at index as a label into *l; 1 when it makes none. */
static int attribute_label(struct otlp_reader *r, int32_t index,
			   struct pk_label *l)
{
	const otlp_attribute *a = attribute_at(r, index);
	int rc;

	memset(l, 0, sizeof(*l));
	if (!a)
		return PK_EINPUT;
	if (index == 0)
		return 1;	/* the zero entry */
	rc = label_key(r, a, &l->key);
	return rc ? rc : label_value(r, a->value, a->unit_strindex, l);
}

/*
 * The value of the attribute key among those at indexes (each checked):
 * 1 with its text at *text (a string) or its truth at *truth (a bool),
 * 0 when there is none, or an error.
 */
static int find_attribute(struct otlp_reader *r, const int32_t *indexes,
			  size_t n, const char *key, pk_str *text, int *truth)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		const otlp_attribute *a = attribute_at(r, indexes[i]);
		struct pk_label l;
		pk_str k;

		if (!a)
			return PK_EINPUT;
		if (indexes[i] == 0 || !a->value)
			continue;
		if (string_of(r, a->key_strindex, &k))
			return PK_EINPUT;
		if (strcmp(pk_profile_string(r->p, k), key) != 0)
			continue;
		if (a->value->value_case ==
		    OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE) {
			*truth = a->value->bool_value != 0;
			return 1;
		}
		memset(&l, 0, sizeof(l));
		rc = label_value(r, a->value, 0, &l);
		if (rc == 0 && l.str) {
			*text = l.str;
			return 1;
		}
		rc = rc < 0 ? rc : 0;	/* a number: not what is looked for */
	}
	return rc;
}

/* ---- the dictionary's tables, converted on first use ---- */

/* A mapping's build id (GNU's or Go's) and pprof's has_* bits. */
static int mapping_attributes(struct otlp_reader *r, const otlp_mapping *m,
			      struct pk_mapping *pm)
{
	int on[PK_ARRAY_SIZE(otlp_mapping_flags)] = { 0 }, truth;
	pk_str text;
	size_t i;
	int rc;

	rc = find_attribute(r, m->attribute_indices, m->n_attribute_indices,
			    OTLP_BUILD_ID_GNU, &pm->build_id, &truth);
	if (rc == 0)
		rc = find_attribute(r, m->attribute_indices, m->n_attribute_indices,
				    OTLP_BUILD_ID_GO, &pm->build_id, &truth);
	for (i = 0; rc >= 0 && i < PK_ARRAY_SIZE(on); i++)
		rc = find_attribute(r, m->attribute_indices, m->n_attribute_indices,
				    otlp_mapping_flags[i], &text, &on[i]);
	pm->has_functions = on[0] != 0;
	pm->has_filenames = on[1] != 0;
	pm->has_line_numbers = on[2] != 0;
	pm->has_inline_frames = on[3] != 0;
	return rc < 0 ? rc : 0;
}

/* Mapping index (0: none) as the model's mapping id at *out. */
static int read_mapping(struct otlp_reader *r, int32_t index, uint32_t *out)
{
	const otlp_mapping *m;
	struct pk_mapping pm = { 0 };
	char old[sizeof(r->entry)];
	int rc;

	*out = 0;
	if (index == 0)
		return 0;
	if ((rc = check_index(r, index, r->dict->n_mapping_table, "mapping_index",
			       "mapping")))
		return rc;
	if ((*out = r->mappings[index]))
		return 0;
	m = r->dict->mapping_table[index];
	pm.start = m->memory_start;
	pm.limit = m->memory_limit;
	pm.offset = m->file_offset;
	enter_entry(r, "mapping", index, old);
	if ((rc = string_of(r, m->filename_strindex, &pm.file)) ||
	    (rc = mapping_attributes(r, m, &pm)))
		return rc;
	r->mappings[index] = *out = pk_profile_intern_mapping(r->p, &pm);
	return leave_entry(r, old, *out ? 0 : oom(r));
}

/*
 * The mappings the locations use, read in the table's order: the writer
 * keeps the model's, and pprof's first mapping is the main binary (pprof
 * -top's "File:"), where reading them on first use would follow the
 * samples' order. An index out of range is left to the sample that
 * reaches it, which says where.
 */
static int read_mappings_in_order(struct otlp_reader *r)
{
	const otlp_dictionary *d = r->dict;
	unsigned char *used = calloc(d->n_mapping_table + 1, 1);
	uint32_t id;
	size_t i;
	int rc = 0;

	if (!used)
		return oom(r);
	for (i = 1; i < d->n_location_table; i++) {
		int32_t m = d->location_table[i]->mapping_index;

		if (m > 0 && (size_t)m < d->n_mapping_table)
			used[m] = 1;
	}
	for (i = 1; i < d->n_mapping_table && !rc; i++)
		if (used[i])
			rc = read_mapping(r, (int32_t)i, &id);
	free(used);
	return rc;
}

/* Function index (0: none) as the model's function id at *out. */
static int read_function(struct otlp_reader *r, int32_t index, uint32_t *out)
{
	const otlp_function *f;
	struct pk_function pf = { 0 };
	char old[sizeof(r->entry)];
	int rc;

	*out = 0;
	if (index == 0)
		return 0;
	if ((rc = check_index(r, index, r->dict->n_function_table, "function_index",
			       "function")))
		return rc;
	if ((*out = r->functions[index]))
		return 0;
	f = r->dict->function_table[index];
	enter_entry(r, "function", index, old);
	if ((rc = string_of(r, f->name_strindex, &pf.name)) ||
	    (rc = string_of(r, f->system_name_strindex, &pf.system_name)) ||
	    (rc = string_of(r, f->filename_strindex, &pf.filename)))
		return rc;
	pf.start_line = f->start_line;
	r->functions[index] = *out = pk_profile_intern_function(r->p, &pf);
	return leave_entry(r, old, *out ? 0 : oom(r));
}

/* Location index (0: the zero location, nowhere) as a model id. */
static int read_location(struct otlp_reader *r, int32_t index, uint32_t *out)
{
	struct pk_line small[32], *lines = small;
	const otlp_location *l;
	char old[sizeof(r->entry)];
	uint32_t mapping = 0;
	size_t i;
	int rc;

	if ((rc = check_index(r, index, r->dict->n_location_table, "location index",
			       "location")))
		return rc;
	if ((*out = r->locations[index]))
		return 0;
	l = r->dict->location_table[index];
	if (l->n_lines > PK_ARRAY_SIZE(small) &&
	    !(lines = malloc(l->n_lines * sizeof(*lines))))
		return oom(r);
	enter_entry(r, "location", index, old);
	rc = read_mapping(r, l->mapping_index, &mapping);
	for (i = 0; !rc && i < l->n_lines; i++) {
		rc = read_function(r, l->lines[i]->function_index, &lines[i].function);
		lines[i].line = l->lines[i]->line;
	}
	if (!rc) {
		r->locations[index] = *out = pk_profile_intern_location(r->p, mapping,
				l->address, lines, l->n_lines);
		rc = *out ? 0 : oom(r);
	}
	if (lines != small)
		free(lines);
	return leave_entry(r, old, rc);
}

/* Stack index (0: the empty stack) as a model id; the leaf-side
 * max_stack locations only are read. */
static int read_stack(struct otlp_reader *r, int32_t index, uint32_t *out)
{
	size_t max = pki_profile_max_stack(r->p), depth, i;
	const otlp_stack *s;
	char old[sizeof(r->entry)];
	int rc;

	if ((rc = check_index(r, index, r->dict->n_stack_table, "stack_index", "stack")))
		return rc;
	if ((*out = r->stacks[index]))
		return 0;
	s = r->dict->stack_table[index];
	depth = s->n_location_indices < max ? s->n_location_indices : max;
	if (pki_grow(&r->stack, &r->stack_cap, depth + 1, sizeof(*r->stack)) < 0)
		return oom(r);
	enter_entry(r, "stack", index, old);
	for (i = 0; i < depth; i++)
		if ((rc = read_location(r, s->location_indices[i], &r->stack[i])))
			return rc;
	r->stacks[index] = *out = pk_profile_intern_stack(r->p, r->stack,
							  s->n_location_indices);
	return leave_entry(r, old, *out ? 0 : oom(r));
}

static int alloc_tables(struct otlp_reader *r)
{
	const otlp_dictionary *d = r->dict;

	r->mappings = calloc(d->n_mapping_table + 1, sizeof(*r->mappings));
	r->functions = calloc(d->n_function_table + 1, sizeof(*r->functions));
	r->locations = calloc(d->n_location_table + 1, sizeof(*r->locations));
	r->stacks = calloc(d->n_stack_table + 1, sizeof(*r->stacks));
	return r->mappings && r->functions && r->locations && r->stacks ? 0 : oom(r);
}

/* ---- sample types ---- */

/*
 * The model's column of a Profile's sample type and event (profkit's
 * attribute), added on first sight (documents before may have made it).
 * A unit "count/10" is profkit's mark of a fractional column: values
 * are tenths of a count.
 */
static int profile_column(struct otlp_reader *r, const otlp_profile *prof,
			  uint32_t *column)
{
	const otlp_value_type *vt = prof->sample_type;
	pk_str type, unit, event = 0;
	int64_t scale;
	size_t len, i;
	int rc, added, truth;

	if ((rc = string_of(r, vt ? vt->type_strindex : 0, &type)) ||
	    (rc = string_of(r, vt ? vt->unit_strindex : 0, &unit)) ||
	    (rc = find_attribute(r, prof->attribute_indices, prof->n_attribute_indices,
				 OTLP_PROFKIT_EVENT, &event, &truth)) < 0)
		return rc;
	len = pki_unit_scale(pk_profile_string(r->p, unit), &scale);
	unit = pk_profile_intern(r->p, pk_profile_string(r->p, unit), len);
	for (i = 0; i < pk_profile_sample_type_count(r->p); i++) {
		const struct pk_value_type *t = pk_profile_sample_type(r->p, i);

		if (t->type == type && t->unit == unit && t->event == event &&
		    pk_profile_sample_type_scale(r->p, i) == scale) {
			*column = (uint32_t)i;
			return 0;
		}
	}
	added = pk_profile_add_sample_type(r->p, pk_profile_string(r->p, type),
			pk_profile_string(r->p, unit),
			event ? pk_profile_string(r->p, event) : NULL,
			strcmp(pk_profile_string(r->p, unit), "count") ?
			PK_VALUE_WEIGHT : PK_VALUE_COUNT);
	if (added < 0 || pk_profile_set_sample_type_scale(r->p, (size_t)added, scale))
		return oom(r);
	*column = (uint32_t)added;
	return 0;
}

/* Where a Profile is, for errors. */
static void locate(struct otlp_reader *r, size_t res, size_t scope, size_t prof)
{
	snprintf(r->where, sizeof(r->where), "resource %zu, scope %zu, profile %zu",
		 res + 1, scope + 1, prof + 1);
}

/* pprof's frame filters, as facts for the pprof writer. */
static int frame_filters(struct otlp_reader *r, const otlp_profile *prof)
{
	static const char *const keys[][2] = {
		{ OTLP_DROP_FRAMES, PK_META_DROP_FRAMES },
		{ OTLP_KEEP_FRAMES, PK_META_KEEP_FRAMES },
	};
	pk_str re;
	size_t i;
	int truth, rc = 0;

	for (i = 0; i < PK_ARRAY_SIZE(keys) && rc >= 0; i++) {
		rc = find_attribute(r, prof->attribute_indices,
				    prof->n_attribute_indices, keys[i][0], &re, &truth);
		if (rc > 0 && !pk_profile_meta(r->p, keys[i][1]))
			pk_profile_set_meta(r->p, keys[i][1], pk_profile_string(r->p, re));
	}
	return rc < 0 ? rc : 0;
}

/* A Profile's column, and what the model keeps of its header: the first
 * period, the span of all times. */
static int read_header(struct otlp_reader *r, const otlp_profile *prof,
		       uint32_t *column)
{
	const otlp_value_type *pt = prof->period_type;
	pk_str type, unit;
	int rc = profile_column(r, prof, column);

	if (!rc && pt && !r->has_period &&
	    !(rc = string_of(r, pt->type_strindex, &type)) &&
	    !(rc = string_of(r, pt->unit_strindex, &unit))) {
		pk_profile_set_period(r->p, pk_profile_string(r->p, type),
				      pk_profile_string(r->p, unit), prof->period);
		r->has_period = 1;
	}
	if (prof->time_unix_nano < r->start)
		r->start = prof->time_unix_nano;
	if (prof->time_unix_nano + prof->duration_nano > r->end)
		r->end = prof->time_unix_nano + prof->duration_nano;
	return rc ? rc : frame_filters(r, prof);
}

/* The profile's header from its Profiles: sample types, the first
 * period, the span of their times. */
static int read_headers(struct otlp_reader *r, const otlp_data *msg)
{
	size_t i, j, k, n = 0;
	int rc = 0;

	for (i = 0; i < msg->n_resource_profiles; i++)
		for (j = 0; j < msg->resource_profiles[i]->n_scope_profiles; j++)
			n += msg->resource_profiles[i]->scope_profiles[j]->n_profiles;
	if (!(r->profile_column = calloc(n + 1, sizeof(*r->profile_column))))
		return oom(r);
	for (i = 0; i < msg->n_resource_profiles; i++) {
		const otlp_resource_profiles *rp = msg->resource_profiles[i];

		for (j = 0; j < rp->n_scope_profiles; j++) {
			const otlp_scope_profiles *sp = rp->scope_profiles[j];

			for (k = 0; k < sp->n_profiles && !rc; k++) {
				locate(r, i, j, k);
				rc = read_header(r, sp->profiles[k],
						 &r->profile_column[r->nprofiles++]);
			}
		}
	}
	*r->where = '\0';
	r->ncolumns = pk_profile_sample_type_count(r->p);
	if (!rc && r->nprofiles && r->end >= r->start)
		pk_profile_set_time(r->p, (int64_t)r->start, (int64_t)(r->end - r->start));
	return rc;
}

/* ---- resources and samples ---- */

/* A KeyValue's key: its text, or in profiles a string index. */
static int key_of(struct otlp_reader *r, const otlp_key_value *kv, const char **key)
{
	pk_str k;
	int rc;

	if (kv->key && *kv->key) {
		*key = kv->key;
		return 0;
	}
	rc = string_of(r, kv->key_strindex, &k);
	*key = rc ? "" : pk_profile_string(r->p, k);
	return rc;
}

/* A resource's process.pid is its samples' pid label; its host.name the
 * profile's hostname, as perf.data has it. */
static int read_resource(struct otlp_reader *r, const otlp_resource *res)
{
	size_t i;
	int rc = 0;

	r->has_pid = 0;
	for (i = 0; res && i < res->n_attributes && !rc; i++) {
		const otlp_key_value *kv = res->attributes[i];
		const otlp_any_value *v = kv->value;
		const char *key;

		if ((rc = key_of(r, kv, &key)) || !v)
			continue;
		if (strcmp(key, OTLP_PROCESS_PID) == 0 &&
		    v->value_case == OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE) {
			memset(&r->pid, 0, sizeof(r->pid));
			r->pid.key = pk_profile_intern_cstr(r->p, "pid");
			r->pid.num = v->int_value;
			r->has_pid = 1;
		} else if (strcmp(key, OTLP_HOST_NAME) == 0 && !pk_profile_meta(r->p, "hostname") &&
			   v->value_case == OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE) {
			pk_profile_set_meta(r->p, "hostname", v->string_value);
		}
	}
	return rc;
}

/* A sample's labels: its process's pid, then its attributes. */
static int sample_labels(struct otlp_reader *r, const otlp_sample *s,
			 uint32_t *set)
{
	size_t n = 0, i;
	int rc = 0;

	if (pki_grow(&r->labels, &r->labels_cap, s->n_attribute_indices + 2,
		     sizeof(*r->labels)) < 0)
		return oom(r);
	if (r->has_pid)
		r->labels[n++] = r->pid;
	for (i = 0; i < s->n_attribute_indices; i++) {
		rc = attribute_label(r, s->attribute_indices[i], &r->labels[n]);
		if (rc < 0)
			return rc;
		n += rc == 0;
	}
	*set = n ? pk_profile_intern_labels(r->p, r->labels, n) : 0;
	return n && !*set ? oom(r) : 0;
}

static int pending_match(const void *owner, uint32_t id, const void *key)
{
	const struct pending *a = &((const struct otlp_reader *)owner)->pending[id - 1];
	const struct pending *b = key;

	return a->stack == b->stack && a->labels == b->labels;
}

/* Add an aggregated value to the resource's sample of stack and labels. */
static int add_pending(struct otlp_reader *r, uint32_t stack, uint32_t labels,
		       uint32_t column, int64_t value)
{
	struct pending key = { stack, labels };
	uint64_t hash = pki_hash_u64((uint64_t)stack << 32 | labels);
	size_t slot;
	uint32_t id = pki_idtab_find(&r->pending_tab, hash, pending_match, r, &key, &slot);
	int64_t *sum;

	if (!id) {
		if (pki_grow(&r->pending, &r->pending_cap, r->npending + 1,
			     sizeof(*r->pending)) < 0 ||
		    pki_grow_zeroed(&r->pending_values, &r->values_cap,
				    (r->npending + 1) * r->ncolumns,
				    sizeof(*r->pending_values)) < 0 ||
		    pki_idtab_insert(&r->pending_tab, slot, hash,
				     (uint32_t)r->npending + 1) < 0)
			return oom(r);
		r->pending[r->npending++] = key;
		id = (uint32_t)r->npending;
	}
	sum = &r->pending_values[(id - 1) * r->ncolumns + column];
	*sum = (int64_t)((uint64_t)*sum + (uint64_t)value);
	return 0;
}

/* The resource's aggregated samples, in the order they came. */
static int flush_pending(struct otlp_reader *r)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < r->npending && !rc; i++)
		rc = pk_profile_add_sample(r->p, r->pending[i].stack, r->pending[i].labels,
					   0, &r->pending_values[i * r->ncolumns],
					   r->ncolumns);
	if (r->npending)
		memset(r->pending_values, 0,
		       r->npending * r->ncolumns * sizeof(*r->pending_values));
	r->npending = 0;
	pki_idtab_release(&r->pending_tab);
	memset(&r->pending_tab, 0, sizeof(r->pending_tab));
	return rc ? oom(r) : 0;
}

static int add_event(struct otlp_reader *r, uint64_t time, uint32_t stack,
		     uint32_t labels, uint32_t column, int64_t value)
{
	struct event *e;

	if (r->nevents >= UINT32_MAX ||
	    pki_grow(&r->events, &r->events_cap, r->nevents + 1, sizeof(*r->events)) < 0)
		return oom(r);
	e = &r->events[r->nevents];
	e->time = time;
	e->seq = (uint32_t)r->nevents++;
	e->stack = stack;
	e->labels = labels;
	e->column = column;
	e->value = value;
	return 0;
}

/*
 * A sample's values: aggregated (values alone, summed), one per
 * timestamp (both, as many of each), or timestamps alone (each counts
 * 1), as the specification has the three shapes.
 */
static int read_sample(struct otlp_reader *r, const otlp_sample *s, uint32_t column)
{
	uint32_t stack, labels;
	size_t i;
	int rc;

	if (s->n_values && s->n_timestamps_unix_nano &&
	    s->n_values != s->n_timestamps_unix_nano)
		return bad(r, "%zu values for %zu timestamps", s->n_values,
			   s->n_timestamps_unix_nano);
	if ((rc = read_stack(r, s->stack_index, &stack)) ||
	    (rc = sample_labels(r, s, &labels)))
		return rc;
	for (i = 0; i < s->n_timestamps_unix_nano && !rc; i++)
		rc = add_event(r, s->timestamps_unix_nano[i], stack, labels, column,
			       s->n_values ? s->values[i] : 1);
	for (i = 0; !s->n_timestamps_unix_nano && i < s->n_values && !rc; i++)
		rc = add_pending(r, stack, labels, column, s->values[i]);
	return rc;
}

static int compare_events(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->labels != y->labels)
		return x->labels < y->labels ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The timestamped values in time order, those of one moment, stack and
 * labels as one sample (what the model had before they were spread over
 * a Profile per sample type); samples of one moment by stack and labels.
 */
static int flush_events(struct otlp_reader *r)
{
	size_t i, next;
	int rc = 0;

	if (r->nevents)
		qsort(r->events, r->nevents, sizeof(*r->events), compare_events);
	for (i = 0; i < r->nevents && !rc; i = next) {
		const struct event *e = &r->events[i];

		memset(r->values, 0, r->ncolumns * sizeof(*r->values));
		for (next = i; next < r->nevents && r->events[next].time == e->time &&
		     r->events[next].stack == e->stack &&
		     r->events[next].labels == e->labels; next++)
			r->values[r->events[next].column] += r->events[next].value;
		rc = pk_profile_add_sample(r->p, e->stack, e->labels, e->time,
					   r->values, r->ncolumns);
	}
	return rc ? oom(r) : 0;
}

static int read_profiles(struct otlp_reader *r, const otlp_resource_profiles *rp,
			 size_t res, size_t *nth)
{
	size_t j, k, i;
	int rc = 0;

	for (j = 0; j < rp->n_scope_profiles && !rc; j++) {
		const otlp_scope_profiles *sp = rp->scope_profiles[j];

		for (k = 0; k < sp->n_profiles && !rc; k++) {
			const otlp_profile *prof = sp->profiles[k];
			uint32_t column = r->profile_column[(*nth)++];

			locate(r, res, j, k);
			for (i = 0; i < prof->n_samples && !rc; i++) {
				r->sample = i + 1;
				rc = read_sample(r, prof->samples[i], column);
			}
			r->sample = 0;
		}
	}
	return rc;
}

static int read_samples(struct otlp_reader *r, const otlp_data *msg)
{
	size_t i, nth = 0;
	int rc = 0;

	if (!(r->values = calloc(r->ncolumns + 1, sizeof(*r->values))))
		return oom(r);
	for (i = 0; i < msg->n_resource_profiles && !rc; i++) {
		const otlp_resource_profiles *rp = msg->resource_profiles[i];

		snprintf(r->where, sizeof(r->where), "resource %zu", i + 1);
		rc = read_resource(r, rp->resource);
		if (!rc)
			rc = read_profiles(r, rp, i, &nth);
		if (!rc)
			rc = flush_pending(r);
	}
	*r->where = '\0';
	return rc ? rc : flush_events(r);
}

/* ---- one ProfilesData message, however it was encoded ---- */

static void reader_release(struct otlp_reader *r)
{
	free(r->strings);
	free(r->mappings);
	free(r->functions);
	free(r->locations);
	free(r->stacks);
	free(r->profile_column);
	free(r->pending);
	free(r->pending_values);
	pki_idtab_release(&r->pending_tab);
	free(r->events);
	free(r->stack);
	free(r->labels);
	free(r->values);
}

/* A message without a dictionary has empty tables. */
static const otlp_dictionary empty_dictionary =
	OPENTELEMETRY__PROTO__PROFILES__V1DEVELOPMENT__PROFILES_DICTIONARY__INIT;

static int read_message(struct pk_context *ctx, struct pk_profile *p,
			const char *name, const otlp_data *msg)
{
	struct otlp_reader r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.p = p;
	r.name = name;
	r.dict = msg->dictionary ? msg->dictionary : &empty_dictionary;
	r.start = UINT64_MAX;
	rc = read_strings(&r);
	if (!rc)
		rc = alloc_tables(&r);
	if (!rc)
		rc = read_mappings_in_order(&r);
	if (!rc)
		rc = read_headers(&r, msg);
	if (!rc)
		rc = read_samples(&r, msg);
	reader_release(&r);
	return rc;
}

/* ---- protobuf ---- */

static void *counted_alloc(void *data, size_t size)
{
	struct counted_allocator *a = data;

	if (size > a->limit - a->used)
		return NULL;
	a->used += size;
	return malloc(size);
}

static void counted_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static void counted_init(struct counted_allocator *a, struct pk_context *ctx)
{
	a->base.alloc = counted_alloc;
	a->base.free = counted_free;
	a->base.allocator_data = a;
	a->used = 0;
	a->limit = pk_context_max_memory(ctx);
}

/* Binary input that passed otlp_wire_check. */
static int read_binary(struct pk_context *ctx, struct pk_profile *p,
		       const char *name, const uint8_t *data, size_t size)
{
	struct counted_allocator a;
	otlp_data *msg;
	int rc;

	counted_init(&a, ctx);
	msg = (otlp_data *)protobuf_c_message_unpack(&otlp_data_descriptor, &a.base,
						     size, data);
	if (!msg)
		return a.used + size > a.limit ?
			pk_error_set(ctx, PK_ENOMEM, "%s: its messages take more than "
				     "the memory limit", name) :
			pk_error_set(ctx, PK_EINPUT, "%s: not OTLP profiles (the "
				     "protobuf does not decode as ProfilesData)", name);
	rc = read_message(ctx, p, name, msg);
	protobuf_c_message_free_unpacked(&msg->base, &a.base);
	return rc;
}

/* ---- JSON ---- */

struct json_read {
	struct pk_context *ctx;
	struct pk_profile *p;
	const char *name;
};

static int json_message(void *arg, const ProtobufCMessage *m)
{
	struct json_read *jr = arg;

	return read_message(jr->ctx, jr->p, jr->name, (const otlp_data *)m);
}

static int read_json(struct pk_context *ctx, struct pk_profile *p,
		     const char *name, const uint8_t *data, size_t size)
{
	struct json_read jr = { ctx, p, name };
	struct counted_allocator a;

	counted_init(&a, ctx);
	return otlp_json_parse(ctx, name, (const char *)data, size, &a.base,
			       json_message, &jr, &otlp_data_descriptor);
}

/* The first byte that is no JSON whitespace, or NULL. */
static const uint8_t *skip_space(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p < end ? p : NULL;
}

/*
 * Protobuf when the whole input walks as ProfilesData; else JSON when it
 * starts as an object does (text fails the walk at its first byte).
 */
static int otlp_read(struct pk_context *ctx, struct pk_input *in,
		     struct pk_profile *p, const struct pk_options *opts)
{
	const char *name = pk_input_name(in);
	const uint8_t *first;
	unsigned char *data;
	char why[256];
	size_t size;
	int rc, wire;

	(void)opts;
	rc = pk_input_slurp(in, (size_t)pk_context_max_memory(ctx) / 4, &data, &size);
	if (rc)
		return rc;
	pki_profile_set_wall_clock(p);	/* timestamps are dates */
	wire = otlp_wire_check(data, size, &otlp_data_descriptor, why, sizeof(why));
	first = skip_space(data, data + size);
	if (!size)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: empty input file", name);
	else if (!wire)
		rc = read_binary(ctx, p, name, data, size);
	else if (first && *first == '{')
		rc = read_json(ctx, p, name, data, size);
	else
		rc = pk_error_set(ctx, PK_EINPUT, "%s: %s", name, why);
	free(data);
	return rc;
}

/* ---- probes ---- */

/* JSON whose first key is ProfilesData's. */
static int json_probe(const unsigned char *buf, size_t len)
{
	static const char *const keys[] = { "\"resourceProfiles\"", "\"dictionary\"",
					    "\"resource_profiles\"" };
	const uint8_t *p = skip_space(buf, buf + len);
	size_t i;

	if (!p || *p != '{' || !(p = skip_space(p + 1, buf + len)))
		return 0;
	for (i = 0; i < PK_ARRAY_SIZE(keys); i++)
		if ((size_t)(buf + len - p) >= strlen(keys[i]) &&
		    memcmp(p, keys[i], strlen(keys[i])) == 0)
			return 95;
	return 0;
}

/*
 * Protobuf whose first field is ProfilesData's and whose bytes, as far
 * as the window shows them, are fields of its schema, nested messages
 * too: above pprof's 90, which an OTLP message does not parse as.
 */
static int otlp_probe(const unsigned char *buf, size_t len)
{
	int fields = otlp_wire_probe(buf, len, &otlp_data_descriptor);

	if (fields >= 4)
		return 95;
	return json_probe(buf, len);
}

const struct pki_format pki_format_otlp = {
	.name = "otlp",
	.read_description = "OpenTelemetry profiles (OTLP), protobuf or JSON",
	.probe = otlp_probe,
	.read = otlp_read,
	.write_description = "OpenTelemetry profiles (OTLP ProfilesData), protobuf",
	.extension = ".otlp.pb",
	.profile_flags = PK_PROFILE_KEEP_WALL_ORDER,
	.write = pki_otlp_write,
	.options = pki_otlp_write_options,
};

const struct pki_format pki_format_otlp_json = {
	.name = "otlp-json",
	.write_description = "OpenTelemetry profiles (OTLP ProfilesData), OTLP JSON",
	.extension = ".otlp.json",
	.profile_flags = PK_PROFILE_KEEP_WALL_ORDER,
	.write = pki_otlp_json_write,
};
