/* SPDX-License-Identifier: MIT */
/*
 * pprof's profile.proto (perftools.profiles.Profile), gzipped, as
 * `pprof`, `go tool pprof` and the viewers built on them read it.
 *
 * The model already follows profile.proto, so this is a mapping of ids:
 * mappings, functions and locations keep their model ids (never 0), and
 * only the objects the samples reach are written, with a string table of
 * only the strings those objects use. The generated protobuf-c structs
 * point into arrays allocated once from the model's counts; sample values
 * point straight into the model. The message is packed in parts, each
 * compressed while the next is packed (give_parts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "core/names.h"
#include "proto/profile.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

struct pprof_writer {
	struct pk_context *ctx;
	const struct pk_profile *p;
	int with_labels;
	int default_column;	/* the sample type pprof shows first, or -1 */
	pk_str unknown;		/* perf's "[unknown]" is no function name */

	/* model string id -> index in string_table, 0 until used */
	uint32_t *str_index;
	char **strings;
	size_t nstrings;
	char **units;		/* per sample type: "count/10" when scaled */

	/* model id -> 1-based index in the output arrays, 0 when unused */
	struct pki_reached reached;
	/* stack or label set id -> 1 + offset of its ids or labels */
	size_t *stack_at, *labels_at;
	size_t nstacks, nlabel_sets;
	size_t ndepth, nlabels;

	/* the message and the arrays it points into, allocated once */
	pb_profile msg;
	pb_value_type *types, **type_ptrs;
	pb_sample *samples, **sample_ptrs;
	uint64_t *loc_ids;
	pb_label *labels, **label_ptrs;
	pb_mapping *maps, **map_ptrs;
	pb_location *locs, **loc_ptrs;
	pb_line *lines, **line_ptrs;
	pb_function *fns, **fn_ptrs;
};

/* calloc(n, size) into *array, at least one element so 0 is no error. */
static int alloc_array(void *array, size_t n, size_t size)
{
	void *mem = calloc(n ? n : 1, size);

	memcpy(array, &mem, sizeof(mem));
	return mem ? 0 : -1;
}

static void pprof_writer_release(struct pprof_writer *w)
{
	size_t i;

	for (i = 0; w->units && i < pk_profile_sample_type_count(w->p); i++)
		free(w->units[i]);
	free(w->units);
	free(w->str_index);
	free(w->strings);
	pki_reached_release(&w->reached);
	free(w->stack_at);
	free(w->labels_at);
	free(w->types);
	free(w->type_ptrs);
	free(w->samples);
	free(w->sample_ptrs);
	free(w->loc_ids);
	free(w->labels);
	free(w->label_ptrs);
	free(w->maps);
	free(w->map_ptrs);
	free(w->locs);
	free(w->loc_ptrs);
	free(w->lines);
	free(w->line_ptrs);
	free(w->fns);
	free(w->fn_ptrs);
}

/* The string_table index of a model string, added on first use. */
static int64_t str(struct pprof_writer *w, pk_str id)
{
	if (!id || id >= pk_profile_string_count(w->p))
		return 0;
	if (!w->str_index[id]) {
		w->str_index[id] = (uint32_t)w->nstrings;
		/* protobuf-c wants char *; it only reads the strings */
		w->strings[w->nstrings++] = (char *)pk_profile_string(w->p, id);
	}
	return w->str_index[id];
}

/* ---- what the samples reach ---- */

static int mark_stack(struct pprof_writer *w, size_t sample, uint32_t stack)
{
	const uint32_t *ids;
	size_t depth, i;

	if (!stack || stack > w->nstacks || w->stack_at[stack])
		return 0;
	ids = pk_profile_stack(w->p, stack, &depth);
	w->stack_at[stack] = w->ndepth + 1;
	w->ndepth += depth;
	for (i = 0; i < depth; i++) {
		/* pprof rejects a sample whose location is unknown */
		if (!pk_profile_location(w->p, ids[i]))
			return pk_error_set(w->ctx, PK_EINPUT,
					    "pprof: sample %zu refers to "
					    "location %u, which does not exist",
					    sample, ids[i]);
		w->reached.loc[ids[i]] = 1;
	}
	return 0;
}

static void mark_labels(struct pprof_writer *w, uint32_t set)
{
	size_t n;

	if (!w->with_labels || !set || w->labels_at[set])
		return;
	pk_profile_labels(w->p, set, &n);
	w->labels_at[set] = w->nlabels + 1;
	w->nlabels += n;
}

static int mark_samples(struct pprof_writer *w)
{
	size_t n = pk_profile_sample_count(w->p), i;

	for (i = 0; i < n; i++) {
		const struct pk_sample *s = pk_profile_sample(w->p, i);

		if (mark_stack(w, i, s->stack))
			return PK_EINPUT;
		mark_labels(w, s->labels);
	}
	return 0;
}

/* Lines whose function exists; pprof rejects the others. */
static int line_ok(const struct pprof_writer *w, const struct pk_line *l)
{
	return pk_profile_function(w->p, l->function) != NULL;
}

/* The largest label set id in use: the model does not count them. */
static size_t max_label_set(const struct pk_profile *p)
{
	size_t n = pk_profile_sample_count(p), max = 0, i;

	for (i = 0; i < n; i++)
		if (pk_profile_sample(p, i)->labels > max)
			max = pk_profile_sample(p, i)->labels;
	return max;
}

static int alloc_marks(struct pprof_writer *w)
{
	const struct pk_profile *p = w->p;

	w->nstacks = pk_profile_stack_count(p);
	w->nlabel_sets = w->with_labels ? max_label_set(p) : 0;
	return alloc_array(&w->str_index, pk_profile_string_count(p),
			   sizeof(*w->str_index)) ||
	       /* and a unit per scaled sample type */
	       alloc_array(&w->strings, pk_profile_string_count(p) +
			   pk_profile_sample_type_count(p), sizeof(*w->strings)) ||
	       alloc_array(&w->units, pk_profile_sample_type_count(p),
			   sizeof(*w->units)) ||
	       alloc_array(&w->reached.loc, pk_profile_location_count(p) + 1,
			   sizeof(*w->reached.loc)) ||
	       alloc_array(&w->stack_at, w->nstacks + 1, sizeof(*w->stack_at)) ||
	       alloc_array(&w->labels_at, w->nlabel_sets + 1,
			   sizeof(*w->labels_at));
}

static int alloc_messages(struct pprof_writer *w)
{
	size_t ntypes = pk_profile_sample_type_count(w->p);
	size_t nsamples = pk_profile_sample_count(w->p);

	return alloc_array(&w->types, ntypes + 1, sizeof(*w->types)) ||
	       alloc_array(&w->type_ptrs, ntypes, sizeof(*w->type_ptrs)) ||
	       alloc_array(&w->samples, nsamples, sizeof(*w->samples)) ||
	       alloc_array(&w->sample_ptrs, nsamples, sizeof(*w->sample_ptrs)) ||
	       alloc_array(&w->loc_ids, w->ndepth, sizeof(*w->loc_ids)) ||
	       alloc_array(&w->labels, w->nlabels, sizeof(*w->labels)) ||
	       alloc_array(&w->label_ptrs, w->nlabels, sizeof(*w->label_ptrs)) ||
	       alloc_array(&w->maps, w->reached.nmaps, sizeof(*w->maps)) ||
	       alloc_array(&w->map_ptrs, w->reached.nmaps, sizeof(*w->map_ptrs)) ||
	       alloc_array(&w->locs, w->reached.nlocs, sizeof(*w->locs)) ||
	       alloc_array(&w->loc_ptrs, w->reached.nlocs, sizeof(*w->loc_ptrs)) ||
	       alloc_array(&w->lines, w->reached.nlines, sizeof(*w->lines)) ||
	       alloc_array(&w->line_ptrs, w->reached.nlines, sizeof(*w->line_ptrs)) ||
	       alloc_array(&w->fns, w->reached.nfns, sizeof(*w->fns)) ||
	       alloc_array(&w->fn_ptrs, w->reached.nfns, sizeof(*w->fn_ptrs));
}

/* ---- filling the message ---- */

static void fill_value_type(struct pprof_writer *w, pb_value_type *vt,
			    const struct pk_value_type *t)
{
	perftools__profiles__value_type__init(vt);
	vt->type = str(w, t->type);
	vt->unit = str(w, t->unit);
}

/* The string index of the profile's fact key, or 0 without one. */
static int64_t meta_str(struct pprof_writer *w, const char *key)
{
	const char *value = pk_profile_meta(w->p, key);

	return value ? str(w, pk_profile_lookup(w->p, value)) : 0;
}

/*
 * pprof values are whole: a fractional column is written at its scale
 * with the unit saying so, "count/10" (the value 115 is 11.5 counts);
 * the pprof reader takes the scale back from there.
 */
static int scaled_unit(struct pprof_writer *w, size_t i)
{
	const struct pk_value_type *t = pk_profile_sample_type(w->p, i);
	int64_t scale = pk_profile_sample_type_scale(w->p, i);

	if (scale == 1)
		return 0;
	w->units[i] = pki_scaled_unit(pk_profile_string(w->p, t->unit), scale);
	if (!w->units[i])
		return -1;
	w->types[i].unit = (int64_t)w->nstrings;
	w->strings[w->nstrings++] = w->units[i];
	return 0;
}

static int fill_header(struct pprof_writer *w)
{
	const struct pk_profile *p = w->p;
	size_t ntypes = pk_profile_sample_type_count(p), i;
	struct pk_value_type period = pk_profile_period_type(p);

	for (i = 0; i < ntypes; i++) {
		fill_value_type(w, &w->types[i], pk_profile_sample_type(p, i));
		w->type_ptrs[i] = &w->types[i];
		if (scaled_unit(w, i))
			return PK_ENOMEM;
	}
	w->msg.n_sample_type = ntypes;
	w->msg.sample_type = w->type_ptrs;
	if (period.type || period.unit) {
		fill_value_type(w, &w->types[ntypes], &period);
		w->msg.period_type = &w->types[ntypes];
	}
	w->msg.period = pk_profile_period(p);
	if (w->default_column >= 0)
		w->msg.default_sample_type = str(w, pk_profile_sample_type(p,
					(size_t)w->default_column)->type);
	w->msg.drop_frames = meta_str(w, PK_META_DROP_FRAMES);
	w->msg.keep_frames = meta_str(w, PK_META_KEEP_FRAMES);
	w->msg.time_nanos = pk_profile_time_nanos(p);
	w->msg.duration_nanos = pki_profile_duration(p);
	return 0;
}

/*
 * pprof takes the first mapping for the main program (its "File:" and
 * the binary it symbolizes first). Mappings come in the order perf first
 * saw them, often the dynamic loader's first, so move the first one that
 * is neither a library nor a "[pseudo]" mapping to the front.
 */
static void put_main_first(struct pprof_writer *w)
{
	size_t i;

	for (i = 0; i < w->reached.nmaps; i++) {
		pb_mapping *m = w->map_ptrs[i];
		const char *file = w->strings[m->filename];

		if (!*file || *file == '[' || pki_is_shared_library(file))
			continue;
		memmove(&w->map_ptrs[1], &w->map_ptrs[0],
			i * sizeof(*w->map_ptrs));
		w->map_ptrs[0] = m;
		return;
	}
}

static void fill_mappings(struct pprof_writer *w)
{
	size_t n = pk_profile_mapping_count(w->p), id;

	for (id = 1; id <= n; id++) {
		const struct pk_mapping *m;
		pb_mapping *out;

		if (!w->reached.map[id])
			continue;
		m = pk_profile_mapping(w->p, (uint32_t)id);
		out = &w->maps[w->reached.map[id] - 1];
		perftools__profiles__mapping__init(out);
		out->id = id;
		out->memory_start = m->start;
		out->memory_limit = m->limit;
		out->file_offset = m->offset;
		out->filename = str(w, m->file);
		out->build_id = str(w, m->build_id);
		/* fill_locations adds what the locations show */
		out->has_functions = m->has_functions;
		out->has_filenames = m->has_filenames;
		out->has_line_numbers = m->has_line_numbers;
		out->has_inline_frames = m->has_inline_frames;
		w->map_ptrs[w->reached.map[id] - 1] = out;
	}
	put_main_first(w);
	w->msg.n_mapping = w->reached.nmaps;
	w->msg.mapping = w->map_ptrs;
}

static void fill_functions(struct pprof_writer *w)
{
	size_t n = pk_profile_function_count(w->p), id;

	for (id = 1; id <= n; id++) {
		const struct pk_function *f;
		pb_function *out;

		if (!w->reached.fn[id])
			continue;
		f = pk_profile_function(w->p, (uint32_t)id);
		out = &w->fns[w->reached.fn[id] - 1];
		perftools__profiles__function__init(out);
		out->id = id;
		out->name = str(w, f->name);
		out->system_name = str(w, f->system_name);
		out->filename = str(w, f->filename);
		out->start_line = f->start_line;
		w->fn_ptrs[w->reached.fn[id] - 1] = out;
	}
	w->msg.n_function = w->reached.nfns;
	w->msg.function = w->fn_ptrs;
}

/* A mapping says how far its locations are symbolized: tell the truth. */
static void note_symbols(struct pprof_writer *w, pb_mapping *m,
			 const struct pk_line *l, size_t nlines)
{
	const struct pk_function *f = pk_profile_function(w->p, l->function);

	if (f->name && f->name != w->unknown)
		m->has_functions = 1;
	if (f->filename)
		m->has_filenames = 1;
	if (l->line > 0)
		m->has_line_numbers = 1;
	if (nlines > 1)
		m->has_inline_frames = 1;
}

static void fill_location(struct pprof_writer *w, pb_location *out,
			  uint32_t id, size_t *next_line)
{
	const struct pk_location *loc = pk_profile_location(w->p, id);
	const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
	uint32_t map = pk_profile_mapping(w->p, loc->mapping) ?
		w->reached.map[loc->mapping] : 0;
	size_t i;

	perftools__profiles__location__init(out);
	out->id = id;
	out->mapping_id = map ? loc->mapping : 0;
	out->address = loc->address;
	out->line = &w->line_ptrs[*next_line];
	for (i = 0; i < loc->nlines; i++) {
		pb_line *line = &w->lines[*next_line];

		if (!line_ok(w, &lines[i]))
			continue;
		perftools__profiles__line__init(line);
		line->function_id = lines[i].function;
		line->line = lines[i].line;
		w->line_ptrs[(*next_line)++] = line;
		out->n_line++;
		if (map)
			note_symbols(w, &w->maps[map - 1], &lines[i],
				     loc->nlines);
	}
}

static void fill_locations(struct pprof_writer *w)
{
	size_t n = pk_profile_location_count(w->p), next_line = 0, id;

	for (id = 1; id <= n; id++) {
		pb_location *out;

		if (!w->reached.loc[id])
			continue;
		out = &w->locs[w->reached.loc[id] - 1];
		fill_location(w, out, (uint32_t)id, &next_line);
		w->loc_ptrs[w->reached.loc[id] - 1] = out;
	}
	w->msg.n_location = w->reached.nlocs;
	w->msg.location = w->loc_ptrs;
}

/* Each distinct stack's ids once; samples with that stack share them. */
static void fill_stacks(struct pprof_writer *w)
{
	size_t id, depth, i;

	for (id = 1; id <= w->nstacks; id++) {
		const uint32_t *ids;
		uint64_t *out;

		if (!w->stack_at[id])
			continue;
		ids = pk_profile_stack(w->p, (uint32_t)id, &depth);
		out = &w->loc_ids[w->stack_at[id] - 1];
		for (i = 0; i < depth; i++)
			out[i] = ids[i];
	}
}

/* Likewise each label set once. */
static void fill_label_sets(struct pprof_writer *w)
{
	size_t id, n, i;

	for (id = 1; id <= w->nlabel_sets; id++) {
		const struct pk_label *l;
		size_t at;

		if (!w->labels_at[id])
			continue;
		at = w->labels_at[id] - 1;
		l = pk_profile_labels(w->p, (uint32_t)id, &n);
		for (i = 0; i < n; i++) {
			pb_label *out = &w->labels[at + i];

			perftools__profiles__label__init(out);
			out->key = str(w, l[i].key);
			if (l[i].str) {
				out->str = str(w, l[i].str);
			} else {
				out->num = l[i].num;
				out->num_unit = str(w, l[i].unit);
			}
			w->label_ptrs[at + i] = out;
		}
	}
}

static void fill_samples(struct pprof_writer *w)
{
	size_t n = pk_profile_sample_count(w->p);
	size_t ntypes = pk_profile_sample_type_count(w->p), i;

	fill_stacks(w);
	fill_label_sets(w);
	for (i = 0; i < n; i++) {
		const struct pk_sample *s = pk_profile_sample(w->p, i);
		pb_sample *out = &w->samples[i];
		size_t depth;

		perftools__profiles__sample__init(out);
		if (s->stack && s->stack <= w->nstacks) {
			pk_profile_stack(w->p, s->stack, &depth);
			out->n_location_id = depth;
			out->location_id = &w->loc_ids[w->stack_at[s->stack] - 1];
		}
		/* the model's own values: protobuf-c only reads them */
		out->n_value = ntypes;
		out->value = (int64_t *)pk_profile_sample_values(w->p, i);
		if (w->with_labels && s->labels && s->labels <= w->nlabel_sets) {
			pk_profile_labels(w->p, s->labels, &out->n_label);
			out->label = &w->label_ptrs[w->labels_at[s->labels] - 1];
		}
		w->sample_ptrs[i] = out;
	}
	w->msg.n_sample = n;
	w->msg.sample = w->sample_ptrs;
}

/* ---- the writer ---- */

static int build_message(struct pprof_writer *w)
{
	const struct pk_profile *p = w->p;

	if (pk_profile_sample_count(p) && !pk_profile_sample_type_count(p))
		return pk_error_set(w->ctx, PK_EINPUT,
				    "pprof: the profile has samples but no "
				    "sample types");
	if (alloc_marks(w))
		return pk_error_set(w->ctx, PK_ENOMEM, "pprof: out of memory");
	if (mark_samples(w))
		return PK_EINPUT;
	if (pki_reached_number(p, &w->reached) || alloc_messages(w))
		return pk_error_set(w->ctx, PK_ENOMEM, "pprof: out of memory");
	perftools__profiles__profile__init(&w->msg);
	w->strings[w->nstrings++] = (char *)"";
	w->unknown = pk_profile_lookup(p, PKI_UNKNOWN);
	if (fill_header(w))
		return pk_error_set(w->ctx, PK_ENOMEM, "pprof: out of memory");
	fill_mappings(w);
	fill_functions(w);
	fill_locations(w);
	fill_samples(w);
	w->msg.n_string_table = w->nstrings;
	w->msg.string_table = w->strings;
	return 0;
}

/*
 * A message's bytes are its fields' one after the other in field number
 * order, and a repeated field's (not packed) are its elements'. So the
 * profile goes out in parts: sample types (field 1), then samples,
 * mappings, locations, functions and strings (2-6) a slice at a time,
 * then the fields after them; a gzip output compresses each part on its
 * thread while the next is packed. Same bytes as one pack of the whole.
 */
#define PART_ITEMS 8192		/* elements of a repeated field per part */
#define SLICED_FIELDS 5		/* sample .. string_table */

static size_t field_count(const pb_profile *msg, int field)
{
	switch (field) {
	case 0: return msg->n_sample;
	case 1: return msg->n_mapping;
	case 2: return msg->n_location;
	case 3: return msg->n_function;
	default: return msg->n_string_table;
	}
}

/* part: [first, first + n) of one of the sliced fields of msg, alone. */
static void slice_of(const pb_profile *msg, int field, size_t first,
		     size_t n, pb_profile *part)
{
	perftools__profiles__profile__init(part);
	switch (field) {
	case 0:
		part->n_sample = n;
		part->sample = msg->sample + first;
		break;
	case 1:
		part->n_mapping = n;
		part->mapping = msg->mapping + first;
		break;
	case 2:
		part->n_location = n;
		part->location = msg->location + first;
		break;
	case 3:
		part->n_function = n;
		part->function = msg->function + first;
		break;
	default:
		part->n_string_table = n;
		part->string_table = msg->string_table + first;
		break;
	}
}

static int give_part(struct pprof_writer *w, const pb_profile *part,
		     struct pk_output *out)
{
	size_t size = perftools__profiles__profile__get_packed_size(part);
	uint8_t *buf;

	if (!size)
		return 0;
	buf = malloc(size);
	if (!buf)
		return pk_error_set(w->ctx, PK_ENOMEM,
				    "pprof: out of memory for %zu bytes", size);
	perftools__profiles__profile__pack(part, buf);
	return pki_output_give(out, buf, size);
}

static int give_parts(struct pprof_writer *w, struct pk_output *out)
{
	pb_profile part, rest = w->msg;
	size_t first, n;
	int field, rc;

	perftools__profiles__profile__init(&part);
	part.n_sample_type = w->msg.n_sample_type;
	part.sample_type = w->msg.sample_type;
	rc = give_part(w, &part, out);
	for (field = 0; !rc && field < SLICED_FIELDS; field++) {
		for (first = 0; !rc && first < field_count(&w->msg, field);
		     first += n) {
			n = field_count(&w->msg, field) - first;
			if (n > PART_ITEMS)
				n = PART_ITEMS;
			slice_of(&w->msg, field, first, n, &part);
			rc = give_part(w, &part, out);
		}
	}
	rest.n_sample_type = rest.n_sample = rest.n_mapping = 0;
	rest.n_location = rest.n_function = rest.n_string_table = 0;
	return rc ? rc : give_part(w, &rest, out);
}

static int pack_and_write(struct pprof_writer *w, int gzip,
			  struct pk_output *out)
{
	int rc = gzip ? pk_output_start_gzip(out) : 0;
	int given;

	if (!rc)
		rc = give_parts(w, out);
	given = pki_output_wait_given(out);
	return rc ? rc : given;
}

enum { GZIP, LABELS };

static const char *const label_choices[] = { "all", "none", NULL };

const struct pki_option pki_pprof_write_options[] = {
	[GZIP] = { .key = "pprof:gzip", .type = PK_OPTION_FLAG, .def = "1",
		.flag = "gzip",
		.help = "gzip the profile (default; --no-gzip: raw protobuf)" },
	[LABELS] = { .key = "pprof:labels", .type = PK_OPTION_CHOICE,
		.def = "all", .choices = label_choices, .flag = "labels",
		.value_name = "WHICH",
		.help = "sample labels (pid, tid, comm, cpu): 'all' or 'none'" },
	{ .key = NULL },
};

int pki_pprof_write(struct pk_context *ctx, const struct pk_profile *p,
		    const struct pk_options *opts, struct pk_output *out)
{
	const struct pki_option *o = pki_pprof_write_options;
	struct pprof_writer w;
	int rc;

	if (pki_profile_is_nothing(p))
		return pki_write_nothing(ctx, opts, out, pki_pprof_write);
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.p = p;
	w.with_labels = pki_option_choice(opts, &o[LABELS]) == 0;
	/* --event=off-cpu: pprof -top shows off-CPU time without being told
	 * -sample_index; every sample type is still written */
	w.default_column = -1;
	if (opts->event || opts->sample_type || opts->value != PK_VALUE_AUTO) {
		w.default_column = pk_value_column(ctx, p, opts);
		if (pk_context_error(ctx)->code)
			return pk_context_error(ctx)->code;
	}
	rc = build_message(&w);
	if (!rc)
		rc = pack_and_write(&w, pki_option_flag(opts, &o[GZIP]), out);
	pprof_writer_release(&w);
	return rc;
}
