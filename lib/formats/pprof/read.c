/* SPDX-License-Identifier: MIT */
/*
 * Reader for pprof's profile.proto, gzipped or not: what pprof and Go's
 * runtime/pprof write, and our own pprof output. Every id and string
 * index is checked before use; an inconsistent profile is an error that
 * names the message and the id, as pprof's CheckValid would reject it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "formats/registry.h"
#include "symbolize/demangle.h"
#include "proto/profile.pb-c.h"

/* pprof ids are arbitrary numbers: a sorted table maps them to ours. */
struct id_map {
	uint64_t id;
	uint32_t ours;
};

struct pprof_reader {
	struct pk_context *ctx;
	struct pk_profile *p;
	const char *name;
	const Perftools__Profiles__Profile *pb;
	pk_str *strings;	/* string table index -> model string */
	struct id_map *mappings, *functions, *locations;
	uint32_t *stack;
	size_t stack_cap;
	int64_t *values;
	struct pk_label *labels;
	size_t labels_cap;
	enum pk_demangle demangle;
};

/* pprof's reason for rejecting the profile, after the input's name. */
static int bad(struct pprof_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct pprof_reader *r, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: invalid pprof profile: %s",
			    r->name, reason);
}

static int string_of(struct pprof_reader *r, int64_t index, pk_str *out)
{
	if (index < 0 || (uint64_t)index >= r->pb->n_string_table)
		return bad(r, "string index out of range: %lld", (long long)index);
	*out = r->strings[index];
	return 0;
}

static int compare_ids(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The model id of a pprof id, 0 when unknown. */
static uint32_t lookup(const struct id_map *map, size_t n, uint64_t id)
{
	struct id_map key = { id, 0 };
	const struct id_map *hit = id ? bsearch(&key, map, n, sizeof(*map), compare_ids) : NULL;

	return hit ? hit->ours : 0;
}

/* ---- validity, as pprof's CheckValid judges it, in its order ---- */

/*
 * One table's ids sorted with their places in the file: lookups, and
 * for each element whether an earlier one has its id (pprof reports
 * the first element in file order that repeats an id).
 */
struct id_index {
	struct id_map *sorted;	/* .ours is the index in the file */
	uint64_t *ids;		/* in file order */
	unsigned char *repeats;
	size_t n;
};

static int compare_id_places(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return x->id != y->id ? compare_ids(a, b) : (x->ours > y->ours) - (x->ours < y->ours);
}

/* Index n ids, element i's at (char *)table[i] + offset of its message. */
static int index_ids(struct id_index *t, void *const *table, size_t n,
		     size_t offset)
{
	size_t i;

	t->n = n;
	t->sorted = calloc(n + 1, sizeof(*t->sorted));
	t->ids = calloc(n + 1, sizeof(*t->ids));
	t->repeats = calloc(n + 1, 1);
	if (!t->sorted || !t->ids || !t->repeats)
		return PK_ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(&t->ids[i], (const char *)table[i] + offset, sizeof(uint64_t));
		t->sorted[i].id = t->ids[i];
		t->sorted[i].ours = (uint32_t)i;
	}
	qsort(t->sorted, n, sizeof(*t->sorted), compare_id_places);
	for (i = 1; i < n; i++)
		if (t->sorted[i].id == t->sorted[i - 1].id)
			t->repeats[t->sorted[i].ours] = 1;
	return 0;
}

/* Whether the id is in the table; 0 too, as pprof finds an id 0. */
static int has_id(const struct id_index *t, uint64_t id)
{
	struct id_map key = { id, 0 };

	return bsearch(&key, t->sorted, t->n, sizeof(key), compare_ids) != NULL;
}

static void release_ids(struct id_index *t)
{
	free(t->sorted);
	free(t->ids);
	free(t->repeats);
}

/* Mappings' or functions' ids: none 0, none twice. */
static int check_ids(struct pprof_reader *r, const struct id_index *t,
		     const char *what, const char *id_word)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (!t->ids[i])
			return bad(r, "found %s with reserved %s=0", what, id_word);
		if (t->repeats[i])
			return bad(r, "multiple %ss with same id: %llu", what,
				   (unsigned long long)t->ids[i]);
	}
	return 0;
}

static int check_samples(struct pprof_reader *r, const struct id_index *locations)
{
	const Perftools__Profiles__Profile *pb = r->pb;
	size_t i, k;

	if (!pb->n_sample_type && pb->n_sample)
		return bad(r, "missing sample type information");
	for (i = 0; i < pb->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pb->sample[i];

		if (s->n_value != pb->n_sample_type)
			return bad(r, "mismatch: sample has %zu values vs. %zu types",
				   s->n_value, pb->n_sample_type);
		for (k = 0; k < s->n_location_id; k++)
			if (!has_id(locations, s->location_id[k]))
				return bad(r, "sample has nil location (sample %zu: "
					   "location id %llu is not in the profile)",
					   i + 1, (unsigned long long)s->location_id[k]);
	}
	return 0;
}

/* Locations in file order: their ids, then their lines' functions. */
static int check_locations(struct pprof_reader *r, const struct id_index *locations,
			   const struct id_index *functions)
{
	size_t i, k;

	for (i = 0; i < r->pb->n_location; i++) {
		const Perftools__Profiles__Location *l = r->pb->location[i];

		if (!l->id)
			return bad(r, "found location with reserved id=0");
		if (locations->repeats[i])
			return bad(r, "multiple locations with same id: %llu",
				   (unsigned long long)l->id);
		for (k = 0; k < l->n_line; k++)
			if (!l->line[k]->function_id ||
			    !has_id(functions, l->line[k]->function_id))
				return bad(r, "location id: %llu has a line with nil "
					   "function (function id %llu)",
					   (unsigned long long)l->id,
					   (unsigned long long)l->line[k]->function_id);
	}
	return 0;
}

/*
 * What pprof -raw rejects is an error with pprof's reason, checked before
 * anything is read, so that what is read can trust every id. A
 * location's unknown mapping is no error: pprof reads it as none.
 */
static int check_valid(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pb = r->pb;
	struct id_index maps = { 0 }, fns = { 0 }, locs = { 0 };
	int rc;

	rc = index_ids(&maps, (void *const *)pb->mapping, pb->n_mapping,
		       offsetof(Perftools__Profiles__Mapping, id));
	if (!rc)
		rc = index_ids(&fns, (void *const *)pb->function, pb->n_function,
			       offsetof(Perftools__Profiles__Function, id));
	if (!rc)
		rc = index_ids(&locs, (void *const *)pb->location, pb->n_location,
			       offsetof(Perftools__Profiles__Location, id));
	if (!rc)
		rc = check_samples(r, &locs);
	if (!rc)
		rc = check_ids(r, &maps, "mapping", "ID");
	if (!rc)
		rc = check_ids(r, &fns, "function", "ID");
	if (!rc)
		rc = check_locations(r, &locs, &fns);
	release_ids(&maps);
	release_ids(&fns);
	release_ids(&locs);
	return rc;
}

/* The id tables of what is read: sorted, so lookup finds each. */
static void sort_ids(struct id_map *map, size_t n)
{
	qsort(map, n, sizeof(*map), compare_ids);
}

static int read_strings(struct pprof_reader *r)
{
	size_t i, n = r->pb->n_string_table;

	if (n && r->pb->string_table[0][0])
		return bad(r, "string_table[0] must be ''");
	r->strings = calloc(n + 1, sizeof(*r->strings));
	if (!r->strings)
		return PK_ENOMEM;
	for (i = 1; i < n; i++)
		r->strings[i] = pk_profile_intern_cstr(r->p, r->pb->string_table[i]);
	return pk_profile_failed(r->p) ? PK_ENOMEM : 0;
}

static int read_mappings(struct pprof_reader *r)
{
	size_t i, n = r->pb->n_mapping;
	int rc = 0;

	r->mappings = calloc(n + 1, sizeof(*r->mappings));
	if (!r->mappings)
		return PK_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const Perftools__Profiles__Mapping *pm = r->pb->mapping[i];
		struct pk_mapping m = { 0 };

		m.start = pm->memory_start;
		m.limit = pm->memory_limit;
		m.offset = pm->file_offset;
		m.has_functions = pm->has_functions != 0;
		m.has_filenames = pm->has_filenames != 0;
		m.has_line_numbers = pm->has_line_numbers != 0;
		m.has_inline_frames = pm->has_inline_frames != 0;
		rc = string_of(r, pm->filename, &m.file);
		if (!rc)
			rc = string_of(r, pm->build_id, &m.build_id);
		r->mappings[i].id = pm->id;
		r->mappings[i].ours = rc ? 0 : pk_profile_intern_mapping(r->p, &m);
	}
	sort_ids(r->mappings, n);
	return rc;
}

/*
 * pprof demangles the names a profile left mangled (a function whose
 * name is its system name), in its simple style unless told another:
 * so does profkit, Rust's v0 names too.
 */
static pk_str shown_name(struct pprof_reader *r, pk_str name)
{
	const char *s = pk_profile_string(r->p, name);
	char *d;
	pk_str shown;

	if (s[0] != '_' || (s[1] != 'Z' && s[1] != 'R') ||
	    !(d = sym_demangle(r->demangle, s)))
		return name;
	shown = pk_profile_intern_cstr(r->p, d);
	free(d);
	return shown ? shown : name;
}

static int read_functions(struct pprof_reader *r)
{
	size_t i, n = r->pb->n_function;
	int rc = 0;

	r->functions = calloc(n + 1, sizeof(*r->functions));
	if (!r->functions)
		return PK_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const Perftools__Profiles__Function *pf = r->pb->function[i];
		struct pk_function f = { 0 };

		rc = string_of(r, pf->name, &f.name);
		if (!rc)
			rc = string_of(r, pf->system_name, &f.system_name);
		if (!rc && f.name == f.system_name)
			f.name = shown_name(r, f.name);
		if (!rc)
			rc = string_of(r, pf->filename, &f.filename);
		f.start_line = pf->start_line;
		r->functions[i].id = pf->id;
		r->functions[i].ours = rc ? 0 : pk_profile_intern_function(r->p, &f);
	}
	sort_ids(r->functions, n);
	return rc;
}

static int read_location(struct pprof_reader *r, const Perftools__Profiles__Location *pl,
			 uint32_t *out)
{
	struct pk_line small[32], *lines = small;
	/* an unknown mapping is none, as pprof reads it */
	uint32_t mapping = lookup(r->mappings, r->pb->n_mapping, pl->mapping_id);
	size_t i;

	if (pl->n_line > PK_ARRAY_SIZE(small) && !(lines = malloc(pl->n_line * sizeof(*lines))))
		return PK_ENOMEM;
	for (i = 0; i < pl->n_line; i++) {
		/* check_valid saw every function id resolve */
		lines[i].function = lookup(r->functions, r->pb->n_function,
					   pl->line[i]->function_id);
		lines[i].line = pl->line[i]->line;
	}
	*out = pk_profile_intern_location(r->p, mapping, pl->address, lines, pl->n_line);
	if (lines != small)
		free(lines);
	return *out ? 0 : PK_ENOMEM;
}

static int read_locations(struct pprof_reader *r)
{
	size_t i, n = r->pb->n_location;
	int rc = 0;

	r->locations = calloc(n + 1, sizeof(*r->locations));
	if (!r->locations)
		return PK_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		r->locations[i].id = r->pb->location[i]->id;
		rc = read_location(r, r->pb->location[i], &r->locations[i].ours);
	}
	sort_ids(r->locations, n);
	return rc;
}

static int read_labels(struct pprof_reader *r, const Perftools__Profiles__Sample *ps,
		       uint32_t *set)
{
	size_t i;
	int rc = 0;

	if (pki_grow(&r->labels, &r->labels_cap, ps->n_label + 1, sizeof(*r->labels)) < 0)
		return PK_ENOMEM;
	for (i = 0; i < ps->n_label && !rc; i++) {
		const Perftools__Profiles__Label *pl = ps->label[i];

		memset(&r->labels[i], 0, sizeof(r->labels[i]));
		r->labels[i].num = pl->num;
		rc = string_of(r, pl->key, &r->labels[i].key);
		if (!rc)
			rc = string_of(r, pl->str, &r->labels[i].str);
		if (!rc)
			rc = string_of(r, pl->num_unit, &r->labels[i].unit);
	}
	*set = rc ? 0 : pk_profile_intern_labels(r->p, r->labels, ps->n_label);
	return rc;
}

static int read_samples(struct pprof_reader *r)
{
	size_t ntypes = r->pb->n_sample_type, max = pki_profile_max_stack(r->p), i, k;
	int rc = 0;

	r->values = calloc(ntypes + 1, sizeof(*r->values));
	if (!r->values)
		return PK_ENOMEM;
	for (i = 0; i < r->pb->n_sample && !rc; i++) {
		const Perftools__Profiles__Sample *ps = r->pb->sample[i];
		uint32_t labels, stack;

		/* leaf first: the profile keeps the first max_stack ids
		 * only, and reads no further */
		size_t depth = ps->n_location_id < max ? ps->n_location_id : max;

		if (pki_grow(&r->stack, &r->stack_cap, depth + 1, sizeof(*r->stack)) < 0)
			return PK_ENOMEM;
		for (k = 0; k < depth; k++)
			r->stack[k] = lookup(r->locations, r->pb->n_location,
					     ps->location_id[k]);
		if (ntypes)
			memcpy(r->values, ps->value, ntypes * sizeof(*r->values));
		rc = read_labels(r, ps, &labels);
		stack = pk_profile_intern_stack(r->p, r->stack, ps->n_location_id);
		if (!rc)
			rc = pk_profile_add_sample(r->p, stack, labels, 0, r->values, ntypes);
	}
	return rc;
}

/* drop_frames or keep_frames, kept as a fact for the pprof writer. */
static int read_frame_filter(struct pprof_reader *r, int64_t index,
			     const char *key)
{
	pk_str re = 0;
	int rc = string_of(r, index, &re);

	if (!rc && re)
		pk_profile_set_meta(r->p, key, pk_profile_string(r->p, re));
	return rc;
}

static int read_header(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pb = r->pb;
	pk_str type = 0, unit = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < pb->n_sample_type && !rc; i++) {
		int64_t scale;
		size_t len;
		int column;

		rc = string_of(r, pb->sample_type[i]->type, &type);
		if (!rc)
			rc = string_of(r, pb->sample_type[i]->unit, &unit);
		if (rc)
			break;
		len = pki_unit_scale(pk_profile_string(r->p, unit), &scale);
		unit = pk_profile_intern(r->p, pk_profile_string(r->p, unit), len);
		column = pk_profile_add_sample_type(r->p, pk_profile_string(r->p, type),
						    pk_profile_string(r->p, unit), NULL,
						    strcmp(pk_profile_string(r->p, unit), "count") ?
						    PK_VALUE_WEIGHT : PK_VALUE_COUNT);
		if (column < 0 ||
		    pk_profile_set_sample_type_scale(r->p, (size_t)column, scale))
			rc = PK_ENOMEM;
	}
	if (!rc && pb->period_type) {
		rc = string_of(r, pb->period_type->type, &type);
		if (!rc)
			rc = string_of(r, pb->period_type->unit, &unit);
		if (!rc)
			pk_profile_set_period(r->p, pk_profile_string(r->p, type),
					      pk_profile_string(r->p, unit), pb->period);
	}
	pk_profile_set_time(r->p, pb->time_nanos, pb->duration_nanos);
	if (!rc && pb->default_sample_type) {
		/* what pprof shows first (Go's allocs profile: alloc_space) */
		rc = string_of(r, pb->default_sample_type, &type);
		if (!rc)
			pk_profile_set_meta(r->p, PKI_META_DEFAULT_SAMPLE_TYPE,
					    pk_profile_string(r->p, type));
	}
	if (!rc)
		rc = read_frame_filter(r, pb->drop_frames, PK_META_DROP_FRAMES);
	if (!rc)
		rc = read_frame_filter(r, pb->keep_frames, PK_META_KEEP_FRAMES);
	return rc;
}

/* ---- deep samples: cut before protobuf-c expands them ---- */

static int read_varint(const unsigned char **p, const unsigned char *end, uint64_t *v);

/* One field of a message: its bytes, and its payload when length-delimited. */
struct pb_field {
	uint64_t tag, len;
	const unsigned char *start, *payload, *end;
};

static int next_field(const unsigned char **p, const unsigned char *end,
		      struct pb_field *f)
{
	uint64_t v;

	f->start = *p;
	f->payload = NULL;
	if (read_varint(p, end, &f->tag) < 0)
		return -1;
	switch (f->tag & 7) {
	case 0:
		if (read_varint(p, end, &v) < 0)
			return -1;
		break;
	case 1: case 5:
		if ((size_t)(end - *p) < ((f->tag & 7) == 1 ? 8u : 4u))
			return -1;
		*p += (f->tag & 7) == 1 ? 8 : 4;
		break;
	case 2:
		if (read_varint(p, end, &f->len) < 0 || f->len > (uint64_t)(end - *p))
			return -1;
		f->payload = *p;
		*p += f->len;
		break;
	default:
		return -1;
	}
	f->end = *p;
	return 0;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

static unsigned char *put_varint(unsigned char *out, uint64_t v)
{
	for (; v > 0x7f; v >>= 7)
		*out++ = (unsigned char)(v | 0x80);
	*out++ = (unsigned char)v;
	return out;
}

/* How many payload bytes of packed location ids (field 1) a sample keeps. */
static uint64_t kept_ids(const struct pb_field *f, size_t max)
{
	const unsigned char *p = f->payload, *end = f->payload + f->len;
	uint64_t v;
	size_t n;

	if (f->tag != (1 << 3 | 2))
		return f->len;
	for (n = 0; n < max && p < end; n++)
		if (read_varint(&p, end, &v) < 0)
			return f->len;
	return (uint64_t)(p - f->payload);
}

/*
 * Copy a sample (field 2's payload) to out with at most max packed
 * location ids, leaf first; the end of what was written, or NULL when
 * the sample does not parse (protobuf-c then says so).
 */
static unsigned char *cut_sample(const struct pb_field *sample, size_t max,
				 unsigned char *out)
{
	const unsigned char *end = sample->payload + sample->len, *p;
	struct pb_field f;
	uint64_t len = 0, keep;

	for (p = sample->payload; p < end;) {
		if (next_field(&p, end, &f) < 0)
			return NULL;
		keep = f.payload ? kept_ids(&f, max) : f.len;
		len += keep == f.len ? (uint64_t)(f.end - f.start) :
			varint_size(f.tag) + varint_size(keep) + keep;
	}
	out = put_varint(put_varint(out, 2 << 3 | 2), len);
	for (p = sample->payload; p < end;) {
		next_field(&p, end, &f);	/* parsed above */
		keep = f.payload ? kept_ids(&f, max) : f.len;
		if (keep == f.len) {
			memcpy(out, f.start, (size_t)(f.end - f.start));
			out += f.end - f.start;
		} else {
			out = put_varint(put_varint(out, f.tag), keep);
			memcpy(out, f.payload, (size_t)keep);
			out += keep;
		}
	}
	return out;
}

/*
 * protobuf-c expands each packed location id, a byte for small ids, to
 * eight: a 78 KB gzip file of one sample of 80 million ids would unpack
 * to 640 MB. So the ids past the first max go from the bytes before they
 * are unpacked (and unchecked: pprof would check them). *data is
 * replaced by the copy unless the message does not parse.
 */
static int cut_deep_samples(unsigned char **data, size_t *size, size_t max)
{
	const unsigned char *p = *data, *end = *data + *size;
	unsigned char *copy, *out;
	struct pb_field f;

	if (!(copy = malloc(*size ? *size : 1)))
		return PK_ENOMEM;
	for (out = copy; out && p < end;) {
		if (next_field(&p, end, &f) < 0) {
			out = NULL;
		} else if (f.tag == (2 << 3 | 2)) {
			out = cut_sample(&f, max, out);
		} else {
			memcpy(out, f.start, (size_t)(f.end - f.start));
			out += f.end - f.start;
		}
	}
	if (!out) {
		free(copy);	/* it does not parse: protobuf-c says so */
		return 0;
	}
	free(*data);
	*data = copy;
	*size = (size_t)(out - copy);
	return 0;
}

static int pprof_read(struct pk_context *ctx, struct pk_input *in,
		      struct pk_profile *p, const struct pk_options *opts)
{
	struct pprof_reader r;
	unsigned char *data;
	size_t size;
	int rc;

	rc = pk_input_slurp(in, (size_t)pk_context_max_memory(ctx) / 4, &data, &size);
	if (rc)
		return rc;
	/* one id more than is kept: the profile counts the stacks it cuts */
	if (pki_profile_max_stack(p) < SIZE_MAX &&
	    cut_deep_samples(&data, &size, pki_profile_max_stack(p) + 1)) {
		free(data);
		return pk_error_set(ctx, PK_ENOMEM, "%s: out of memory", pk_input_name(in));
	}
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.p = p;
	r.name = pk_input_name(in);
	r.demangle = pki_demangle_style(opts, PK_DEMANGLE_SIMPLE);
	r.pb = size ? perftools__profiles__profile__unpack(NULL, size, data) : NULL;
	free(data);
	if (!size)	/* which protobuf-c would read as a profile of nothing */
		return bad(&r, "empty input file");
	if (!r.pb)
		return pk_error_set(ctx, PK_EINPUT, "%s: not a pprof profile (the protobuf "
				    "does not decode as profile.proto)", r.name);
	rc = check_valid(&r);
	if (!rc)
		rc = read_strings(&r);
	if (!rc)
		rc = read_header(&r);
	if (!rc)
		rc = read_mappings(&r);
	if (!rc)
		rc = read_functions(&r);
	if (!rc)
		rc = read_locations(&r);
	if (!rc)
		rc = read_samples(&r);
	if (rc == PK_ENOMEM)
		pk_error_set(ctx, rc, "%s: out of memory", r.name);
	perftools__profiles__profile__free_unpacked((Perftools__Profiles__Profile *)r.pb, NULL);
	free(r.strings);
	free(r.mappings);
	free(r.functions);
	free(r.locations);
	free(r.stack);
	free(r.values);
	free(r.labels);
	return rc ? pk_context_error(ctx)->code : 0;
}

/* ---- probe: does the start parse as profile.proto's messages? ---- */

/*
 * Producers write the fields in any order (Go's runtime/pprof starts with
 * time_nanos or period_type, pprof -proto with sample_type, Go puts the
 * string table last), so the probe walks every top-level field in the
 * window and checks each against profile.proto: the field number is
 * known, its wire type is the one that number has (varint, or
 * length-delimited for messages, strings and packed repeated numbers),
 * and each message that fits in the window holds only its own fields.
 * Random bytes fail within a few fields; text fails at its first
 * message. The walk stops at the first field the window cuts.
 */

#define W_VARINT (1u << 0)
#define W_LEN (1u << 2)
#define W_PACKED (W_VARINT | W_LEN)	/* repeated number: packed or not */

enum schema { S_NONE, S_VALUE_TYPE, S_SAMPLE, S_LABEL, S_MAPPING, S_LOCATION,
	      S_LINE, S_FUNCTION, S_BYTES };

struct field_rule {
	unsigned char wire;		/* W_* bits allowed */
	unsigned char schema;		/* what a length-delimited field holds */
};

/* Indexed by field number; a zero rule is an unknown field. */
static const struct field_rule profile_fields[16] = {
	[1] = { W_LEN, S_VALUE_TYPE },	[2] = { W_LEN, S_SAMPLE },
	[3] = { W_LEN, S_MAPPING },	[4] = { W_LEN, S_LOCATION },
	[5] = { W_LEN, S_FUNCTION },	[6] = { W_LEN, S_BYTES },
	[7] = { W_VARINT, 0 },		[8] = { W_VARINT, 0 },
	[9] = { W_VARINT, 0 },		[10] = { W_VARINT, 0 },
	[11] = { W_LEN, S_VALUE_TYPE },	[12] = { W_VARINT, 0 },
	[13] = { W_PACKED, 0 },		[14] = { W_VARINT, 0 },
	[15] = { W_LEN, S_BYTES },
};
static const struct field_rule value_type_fields[3] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 },
};
static const struct field_rule sample_fields[4] = {
	[1] = { W_PACKED, 0 }, [2] = { W_PACKED, 0 }, [3] = { W_LEN, S_LABEL },
};
static const struct field_rule label_fields[5] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 }, [3] = { W_VARINT, 0 },
	[4] = { W_VARINT, 0 },
};
static const struct field_rule mapping_fields[11] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 }, [3] = { W_VARINT, 0 },
	[4] = { W_VARINT, 0 }, [5] = { W_VARINT, 0 }, [6] = { W_VARINT, 0 },
	[7] = { W_VARINT, 0 }, [8] = { W_VARINT, 0 }, [9] = { W_VARINT, 0 },
	[10] = { W_VARINT, 0 },
};
static const struct field_rule location_fields[6] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 }, [3] = { W_VARINT, 0 },
	[4] = { W_LEN, S_LINE }, [5] = { W_VARINT, 0 },
};
static const struct field_rule line_fields[4] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 }, [3] = { W_VARINT, 0 },
};
static const struct field_rule function_fields[6] = {
	[1] = { W_VARINT, 0 }, [2] = { W_VARINT, 0 }, [3] = { W_VARINT, 0 },
	[4] = { W_VARINT, 0 }, [5] = { W_VARINT, 0 },
};

static const struct { const struct field_rule *rules; size_t n; } schemas[] = {
	[S_VALUE_TYPE] = { value_type_fields, PK_ARRAY_SIZE(value_type_fields) },
	[S_SAMPLE] = { sample_fields, PK_ARRAY_SIZE(sample_fields) },
	[S_LABEL] = { label_fields, PK_ARRAY_SIZE(label_fields) },
	[S_MAPPING] = { mapping_fields, PK_ARRAY_SIZE(mapping_fields) },
	[S_LOCATION] = { location_fields, PK_ARRAY_SIZE(location_fields) },
	[S_LINE] = { line_fields, PK_ARRAY_SIZE(line_fields) },
	[S_FUNCTION] = { function_fields, PK_ARRAY_SIZE(function_fields) },
};

/* 0 and the value, or -1 when the bytes end first or it is over 10 bytes. */
static int read_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 70) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 0);
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* Whole varints and nothing else: a packed repeated number. */
static int is_packed(const unsigned char *p, const unsigned char *end)
{
	uint64_t v;

	while (p < end)
		if (read_varint(&p, end, &v) < 0)
			return 0;
	return 1;
}

/* A whole message of the schema: its fields, each of its wire type. */
static int is_message(const unsigned char *p, const unsigned char *end,
		      enum schema schema, int depth)
{
	const struct field_rule *rules = schemas[schema].rules;

	if (depth > 3)
		return 0;
	while (p < end) {
		uint64_t tag, v;
		struct field_rule rule;

		if (read_varint(&p, end, &tag) < 0 || (tag >> 3) >= schemas[schema].n)
			return 0;
		rule = rules[tag >> 3];
		if (!(rule.wire & (1u << (tag & 7))))
			return 0;
		if (read_varint(&p, end, &v) < 0)
			return 0;
		if ((tag & 7) == 0)
			continue;
		if (v > (uint64_t)(end - p))
			return 0;
		if (rule.schema ? !is_message(p, p + v, rule.schema, depth + 1) :
		    !is_packed(p, p + v))
			return 0;
		p += v;
	}
	return 1;
}

static int pprof_probe(const unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *end = buf + len;
	int fields = 0, messages = 0, strings = 0;
	int cut = 0;	/* the field number of a field the window cuts */

	while (p < end) {
		uint64_t tag, v;
		struct field_rule rule;

		if (read_varint(&p, end, &tag) < 0)
			break;	/* cut by the window */
		rule = (tag >> 3) < PK_ARRAY_SIZE(profile_fields) ?
			profile_fields[tag >> 3] : (struct field_rule){ 0, 0 };
		if (!(rule.wire & (1u << (tag & 7))))
			return 0;
		if (read_varint(&p, end, &v) < 0)
			break;
		if ((tag & 7) == 0) {
			fields++;
			continue;
		}
		if (v > (uint64_t)(end - p)) {
			cut = (int)(tag >> 3);	/* runs past the window */
			break;
		}
		if (rule.schema == S_BYTES) {
			/* string_table[0] must be "" */
			if ((tag >> 3) == 6 && strings++ == 0 && v != 0)
				return 0;
		} else if (rule.schema) {
			if (!is_message(p, p + v, rule.schema, 0))
				return 0;
			messages++;
		} else if (!is_packed(p, p + v)) {
			return 0;
		}
		p += v;
		fields++;
	}
	/*
	 * Above every text format's score, under the magic numbers'. A
	 * sample deeper than the window after the sample types is a known
	 * field the window cuts: it counts as the third.
	 */
	if (messages && (fields >= 3 || cut == 2))
		return 90;
	return 0;
}

const struct pki_format pki_format_pprof = {
	.name = "pprof",
	.read_description = "pprof's profile.proto, gzipped or not (pprof, Go "
			    "runtime/pprof)",
	.probe = pprof_probe,
	.read_flags = PKI_READ_PPROF_NAMES,
	.read = pprof_read,
	.write_description = "pprof's profile.proto, gzipped (pprof, go tool pprof)",
	.extension = ".pb.gz",
	.write = pki_pprof_write,
	.options = pki_pprof_write_options,
};
