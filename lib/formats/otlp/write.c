/* SPDX-License-Identifier: MIT */
/*
 * The model as OpenTelemetry profiles: one ResourceProfiles per process
 * (the samples' pid label), one ScopeProfiles naming profkit, one Profile
 * per sample type, and one ProfilesDictionary for them all, whose tables
 * hold only what the samples reach, each with its zero value at index 0.
 *
 * A sample of the output is a stack with a label set (less the pid, which
 * names the resource): aggregated, one value per sample type, or, where
 * the model kept every sample with a time on the wall clock, one value
 * and one timestamp per event (a Profile lists only the events that
 * weigh something in its sample type). Each process lists its samples in
 * the order they first appear, in every Profile of it, so that a reader
 * takes them back in that order.
 *
 * The dictionary's tables follow the model's ids (mappings, functions,
 * locations and stacks in id order): table index k is the k-th one the
 * samples reach. Profiles are built and given to the sink one at a time;
 * the dictionary comes last, as its field number says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "core/names.h"
#include "util/strbuf.h"
#include "symbolize/mapping.h"

const struct otlp_label_key otlp_label_keys[3] = {
	{ "tid", "thread.id" },
	{ "comm", "thread.name" },
	{ "cpu", "cpu.logical_number" },
};

const char *const otlp_mapping_flags[4] = {
	"pprof.mapping.has_functions", "pprof.mapping.has_filenames",
	"pprof.mapping.has_line_numbers", "pprof.mapping.has_inline_frames",
};

/* An attribute of the dictionary, before its message is made. */
enum attr_kind { ATTR_STRING, ATTR_INT, ATTR_BOOL };

struct attr {
	int32_t key, unit;	/* string indexes */
	enum attr_kind kind;
	int64_t value;		/* a string index, a number or 0/1 */
};

/* A label set as the output has it: its process and its attributes. */
struct label_set {
	uint32_t resource;	/* 1-based; 0 until seen */
	uint32_t nattrs;
	size_t attrs_at;	/* into otlp_writer.set_attrs */
};

/* A run of an array grouped by process. */
struct run {
	size_t first, count;
};

/* A process: the resource of the samples with its pid. */
struct process {
	int has_pid;
	int64_t pid;
	pk_str comm;		/* the main thread's, or the first one seen */
	int main_comm;		/* comm is the main thread's */
	/* its output samples in otlp_writer.order, and with timestamps
	 * its model samples in .events */
	struct run runs[2];
};

enum { OUTS, EVENTS };

/* One Profile's samples, made again for each (the arrays are reused). */
struct profile_parts {
	otlp_sample *samples, **sample_ptrs;
	size_t cap;
	/* timestamps: the events of each output sample of the process */
	uint32_t *nevents, *at;
	int64_t *values;
	uint64_t *times;
	size_t events_cap;
};

struct otlp_writer {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;
	struct otlp_sink *sink;
	size_t ntypes, nsamples;
	struct pki_thread_keys thread_keys;
	pk_str key_pid, label_attr[PK_ARRAY_SIZE(otlp_label_keys)];
	int timestamps;		/* per-event values and timestamps */
	uint64_t first_time;	/* the model time of time_unix_nano */
	int64_t time, duration;

	/* the string table: model strings by id, then our own words */
	uint32_t *str_index;	/* model string id -> index, 0 unused */
	char **strings;
	size_t nstrings, strings_cap;
	int32_t *words;		/* the indexes of our own words */
	size_t nwords, words_cap;
	char **owned;		/* strings made here, freed at the end */
	size_t nowned, owned_cap;

	/* the attribute table, entry 0 the zero one */
	struct attr *attrs;
	size_t nattrs, attrs_cap;
	struct pk_idtab attr_tab;

	/* label sets, processes and the output's samples */
	struct label_set *sets;
	size_t nsets;
	int32_t *set_attrs;
	size_t nset_attrs, set_attrs_cap;
	struct process *procs;
	size_t nprocs, procs_cap;
	struct pk_idtab proc_tab;
	/* keep-order models: the output sample of each model sample, and
	 * each output sample's stack and label set */
	uint32_t *sample_out;
	uint32_t (*outs)[2];
	size_t nouts, outs_cap;
	struct pk_idtab out_tab;
	uint32_t *order;	/* output samples grouped by process */
	int64_t *sums;		/* keep-order, aggregated: outs x ntypes */
	uint32_t *events;	/* timestamps: model samples by process */
	struct profile_parts parts;
	int32_t profile_attrs[3];	/* the frame filters, the column's event */
	size_t nprofile_attrs;		/* the frame filters */

	/* model id -> table index (0: not reached) */
	struct pki_reached reached;
	uint32_t *stack_slot;	/* in the order the samples reach them */
	size_t nstacks, model_stacks;
	unsigned char *go_map;	/* mapping slot -> Go code (slot 0: none) */
};

static int oom(struct otlp_writer *w)
{
	return pk_error_set(w->ctx, PK_ENOMEM, "otlp: out of memory");
}

/* ---- the string table ---- */

/* s as protobuf's string fields must hold it, well-formed UTF-8 (its
 * parsers refuse the message otherwise): s itself, or a copy owned until
 * the end with U+FFFD for each stray byte. NULL when out of memory. */
static const char *utf8(struct otlp_writer *w, const char *s)
{
	struct pk_strbuf b = { 0 };

	if (pki_utf8_valid(s, strlen(s)))
		return s;
	if (pki_strbuf_add_utf8(&b, s, strlen(s)) < 0 ||
	    pki_grow(&w->owned, &w->owned_cap, w->nowned + 1, sizeof(*w->owned)) < 0) {
		free(b.s);
		return NULL;
	}
	return w->owned[w->nowned++] = b.s;
}

static int32_t add_string(struct otlp_writer *w, const char *s)
{
	if (!(s = utf8(w, s)) || w->nstrings >= INT32_MAX ||
	    pki_grow(&w->strings, &w->strings_cap, w->nstrings + 1,
		     sizeof(*w->strings)) < 0)
		return -1;
	/* protobuf-c wants char *; it only reads the strings */
	w->strings[w->nstrings] = (char *)s;
	return (int32_t)w->nstrings++;
}

/* The index of a model string, added on first use; 0 for none, -1 when
 * out of memory. */
static int32_t str(struct otlp_writer *w, pk_str id)
{
	int32_t i;

	if (!id || id >= pk_profile_string_count(w->p))
		return 0;
	if (!w->str_index[id]) {
		if ((i = add_string(w, pk_profile_string(w->p, id))) < 0)
			return -1;
		w->str_index[id] = (uint32_t)i;
	}
	return (int32_t)w->str_index[id];
}

/* The index of a word of ours: the model's string when it has one. */
static int32_t word(struct otlp_writer *w, const char *s)
{
	pk_str id = pk_profile_lookup(w->p, s);
	size_t i;
	int32_t index;

	if (id || !*s)
		return str(w, id);
	for (i = 0; i < w->nwords; i++)
		if (strcmp(w->strings[w->words[i]], s) == 0)
			return w->words[i];
	if (pki_grow(&w->words, &w->words_cap, w->nwords + 1, sizeof(*w->words)) < 0 ||
	    (index = add_string(w, s)) < 0)
		return -1;
	return w->words[w->nwords++] = index;
}

/* A word made here ("count/10"), owned until the end. */
static int32_t owned_word(struct otlp_writer *w, char *s)
{
	if (!s || pki_grow(&w->owned, &w->owned_cap, w->nowned + 1,
			   sizeof(*w->owned)) < 0) {
		free(s);
		return -1;
	}
	w->owned[w->nowned++] = s;
	return word(w, s);
}

/* ---- the attribute table ---- */

static uint64_t attr_hash(const struct attr *a)
{
	return pki_hash_u64(((uint64_t)(uint32_t)a->key << 32 | (uint32_t)a->unit) ^
			    pki_hash_u64((uint64_t)a->value * 4 + a->kind));
}

static int attr_match(const void *owner, uint32_t id, const void *key)
{
	const struct attr *a = &((const struct otlp_writer *)owner)->attrs[id];
	const struct attr *b = key;

	return a->key == b->key && a->unit == b->unit && a->kind == b->kind &&
	       a->value == b->value;
}

/* The index of an attribute, added on first use; -1 when out of memory. */
static int32_t attribute(struct otlp_writer *w, int32_t key,
			 enum attr_kind kind, int64_t value, int32_t unit)
{
	struct attr a = { key, unit, kind, value };
	uint64_t hash = attr_hash(&a);
	size_t slot;
	uint32_t id;

	if (key < 0 || unit < 0 || (kind == ATTR_STRING && value < 0))
		return -1;
	id = pki_idtab_find(&w->attr_tab, hash, attr_match, w, &a, &slot);
	if (id)
		return (int32_t)id;
	if (w->nattrs >= INT32_MAX ||
	    pki_grow(&w->attrs, &w->attrs_cap, w->nattrs + 1, sizeof(*w->attrs)) < 0 ||
	    pki_idtab_insert(&w->attr_tab, slot, hash, (uint32_t)w->nattrs) < 0)
		return -1;
	w->attrs[w->nattrs] = a;
	return (int32_t)w->nattrs++;
}

static int32_t string_attribute(struct otlp_writer *w, const char *key,
				int32_t value)
{
	return attribute(w, word(w, key), ATTR_STRING, value, 0);
}

/* ---- label sets: their process and their attributes ---- */

static uint64_t pid_hash(int has_pid, int64_t pid)
{
	return pki_hash_u64((uint64_t)pid * 2 + (uint64_t)has_pid);
}

static int proc_match(const void *owner, uint32_t id, const void *key)
{
	const struct process *a = &((const struct otlp_writer *)owner)->procs[id - 1];
	const struct process *b = key;

	return a->has_pid == b->has_pid && a->pid == b->pid;
}

/* The 1-based index of the sample's process, added on first sight. */
static uint32_t process_of(struct otlp_writer *w, const struct pki_thread *t)
{
	struct process key = { .has_pid = t->has_pid, .pid = t->has_pid ? t->pid : 0 };
	uint64_t hash = pid_hash(key.has_pid, key.pid);
	struct process *proc;
	size_t slot;
	uint32_t id = pki_idtab_find(&w->proc_tab, hash, proc_match, w, &key, &slot);

	if (!id) {
		if (pki_grow(&w->procs, &w->procs_cap, w->nprocs + 1,
			     sizeof(*w->procs)) < 0 ||
		    pki_idtab_insert(&w->proc_tab, slot, hash,
				     (uint32_t)w->nprocs + 1) < 0)
			return 0;
		w->procs[w->nprocs++] = key;
		id = (uint32_t)w->nprocs;
	}
	/* the process's name: its main thread's comm, else the first */
	proc = &w->procs[id - 1];
	if (t->comm && !proc->main_comm) {
		if (!proc->comm)
			proc->comm = t->comm;
		if (t->has_pid && t->has_tid && t->tid == t->pid) {
			proc->comm = t->comm;
			proc->main_comm = 1;
		}
	}
	return id;
}

/* The attribute of a label: the model's key or the convention's. */
static int32_t label_attribute(struct otlp_writer *w, const struct pk_label *l)
{
	int32_t key = -1;
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(otlp_label_keys); i++)
		if (l->key == w->label_attr[i])
			key = word(w, otlp_label_keys[i].attribute);
	if (key < 0)
		key = str(w, l->key);
	if (l->str)
		return attribute(w, key, ATTR_STRING, str(w, l->str), 0);
	return attribute(w, key, ATTR_INT, l->num, str(w, l->unit));
}

/* The process and attributes of label set id (0: none), once. */
static struct label_set *label_set(struct otlp_writer *w, uint32_t id)
{
	struct label_set *set = &w->sets[id];
	const struct pk_label *l;
	struct pki_thread t;
	size_t n = 0, i;

	if (set->resource)
		return set;
	l = id ? pk_profile_labels(w->p, id, &n) : NULL;
	pki_thread_of(w->p, &w->thread_keys, id, &t);
	if (pki_grow(&w->set_attrs, &w->set_attrs_cap, w->nset_attrs + n + 1,
		     sizeof(*w->set_attrs)) < 0)
		return NULL;
	set->attrs_at = w->nset_attrs;
	for (i = 0; i < n; i++) {
		int32_t a;

		/* a numeric pid names the process; a string one is a label */
		if (l[i].key == w->key_pid && !l[i].str)
			continue;
		if ((a = label_attribute(w, &l[i])) < 0)
			return NULL;
		w->set_attrs[w->nset_attrs++] = a;
	}
	set->nattrs = (uint32_t)(w->nset_attrs - set->attrs_at);
	set->resource = process_of(w, &t);
	return set->resource ? set : NULL;
}

/* ---- the output's samples ---- */

static uint32_t out_stack(const struct otlp_writer *w, size_t k)
{
	return w->outs ? w->outs[k][0] : pk_profile_sample(w->p, k)->stack;
}

static uint32_t out_labels(const struct otlp_writer *w, size_t k)
{
	return w->outs ? w->outs[k][1] : pk_profile_sample(w->p, k)->labels;
}

static int out_match(const void *owner, uint32_t id, const void *key)
{
	const uint32_t *a = ((const struct otlp_writer *)owner)->outs[id - 1];
	const uint32_t *b = key;

	return a[0] == b[0] && a[1] == b[1];
}

/*
 * A model that keeps every sample has a stack with a label set many
 * times: each model sample's output sample, numbered on first sight.
 */
static int group_samples(struct otlp_writer *w)
{
	size_t i;

	if (!(w->sample_out = calloc(w->nsamples + 1, sizeof(*w->sample_out))))
		return -1;
	for (i = 0; i < w->nsamples; i++) {
		const struct pk_sample *s = pk_profile_sample(w->p, i);
		uint32_t key[2] = { s->stack, s->labels };
		uint64_t hash = pki_hash_u64((uint64_t)s->stack << 32 | s->labels);
		size_t slot;
		uint32_t id = pki_idtab_find(&w->out_tab, hash, out_match, w, key, &slot);

		if (!id) {
			if (pki_grow(&w->outs, &w->outs_cap, w->nouts + 1,
				     sizeof(*w->outs)) < 0 ||
			    pki_idtab_insert(&w->out_tab, slot, hash,
					     (uint32_t)w->nouts + 1) < 0)
				return -1;
			memcpy(w->outs[w->nouts++], key, sizeof(key));
			id = (uint32_t)w->nouts;
		}
		w->sample_out[i] = id - 1;
	}
	return 0;
}

/*
 * Indexes 0 to n - 1 into out, grouped by process and in order within
 * each: i's process is proc_of[i], or proc_of[via[i]]; each process's
 * run in out is its runs[which].
 */
static void group(struct otlp_writer *w, const uint32_t *proc_of,
		  const uint32_t *via, size_t n, int which, uint32_t *out)
{
	size_t i, at = 0;
	struct run *run;

	for (i = 0; i < n; i++)
		w->procs[proc_of[via ? via[i] : i]].runs[which].count++;
	for (i = 0; i < w->nprocs; i++) {
		run = &w->procs[i].runs[which];
		run->first = at;
		at += run->count;
		run->count = 0;
	}
	for (i = 0; i < n; i++) {
		run = &w->procs[proc_of[via ? via[i] : i]].runs[which];
		out[run->first + run->count++] = (uint32_t)i;
	}
}

/*
 * Each output sample's process, the output samples grouped by process in
 * the order they first appear, and with timestamps the model samples too.
 */
static int order_by_process(struct otlp_writer *w)
{
	size_t n = w->outs ? w->nouts : w->nsamples, k;
	uint32_t *proc_of;
	struct label_set *set;
	int rc = -1;

	if (!(proc_of = calloc(n + 1, sizeof(*proc_of))) ||
	    !(w->order = calloc(n + 1, sizeof(*w->order))) ||
	    (w->timestamps && !(w->events = calloc(w->nsamples + 1, sizeof(*w->events)))))
		goto out;
	for (k = 0; k < n; k++) {
		uint32_t labels = out_labels(w, k);

		if (labels >= w->nsets || !(set = label_set(w, labels)))
			goto out;
		proc_of[k] = set->resource - 1;
	}
	group(w, proc_of, NULL, n, OUTS, w->order);
	if (w->timestamps)
		group(w, proc_of, w->sample_out, w->nsamples, EVENTS, w->events);
	rc = 0;
out:
	free(proc_of);
	return rc;
}

/* Keep-order, aggregated: each output sample's values summed. */
static int sum_values(struct otlp_writer *w)
{
	size_t i, c;

	if (!(w->sums = calloc(w->nouts * w->ntypes + 1, sizeof(*w->sums))))
		return -1;
	for (i = 0; i < w->nsamples; i++) {
		const int64_t *v = pk_profile_sample_values(w->p, i);
		int64_t *sum = &w->sums[(size_t)w->sample_out[i] * w->ntypes];

		for (c = 0; c < w->ntypes; c++)
			sum[c] = (int64_t)((uint64_t)sum[c] + (uint64_t)v[c]);
	}
	return 0;
}

/*
 * Timestamps are on the wall clock: the model's times are its input's
 * clock, which time_nanos places on the wall clock (perf.data: its clock
 * data or the file's time). Without that, or with a sample of no time,
 * the samples are aggregated.
 */
static void choose_shape(struct otlp_writer *w)
{
	uint64_t last;
	size_t i;

	w->time = pk_profile_time_nanos(w->p) > 0 ? pk_profile_time_nanos(w->p) : 0;
	w->duration = pki_profile_duration(w->p) > 0 ? pki_profile_duration(w->p) : 0;
	pk_profile_time_span(w->p, &w->first_time, &last);
	w->timestamps = pki_profile_keeps_order(w->p) && w->time && w->nsamples;
	for (i = 0; w->timestamps && i < w->nsamples; i++)
		if (!pk_profile_sample(w->p, i)->time)
			w->timestamps = 0;
	/* every timestamp within [time, time + duration] */
	if (w->timestamps && (int64_t)(last - w->first_time) > w->duration)
		w->duration = (int64_t)(last - w->first_time);
}

/* ---- what the samples reach ---- */

static int mark_samples(struct otlp_writer *w)
{
	size_t i, k, depth;

	for (i = 0; i < w->nsamples; i++) {
		uint32_t stack = pk_profile_sample(w->p, i)->stack;
		const uint32_t *ids;

		if (!stack || stack > w->model_stacks || w->stack_slot[stack])
			continue;
		ids = pk_profile_stack(w->p, stack, &depth);
		/* the empty stack is the table's zero entry */
		if (depth)
			w->stack_slot[stack] = (uint32_t)++w->nstacks;
		for (k = 0; k < depth; k++) {
			if (!pk_profile_location(w->p, ids[k]))
				return pk_error_set(w->ctx, PK_EINPUT,
						    "otlp: sample %zu refers to "
						    "location %u, which does not "
						    "exist", i, ids[k]);
			w->reached.loc[ids[k]] = 1;
		}
	}
	return 0;
}

static int alloc_marks(struct otlp_writer *w)
{
	const struct pk_profile *p = w->p;

	w->model_stacks = pk_profile_stack_count(p);
	w->nsets = pki_profile_label_set_count(p) + 1;
	w->str_index = calloc(pk_profile_string_count(p) + 1, sizeof(*w->str_index));
	w->reached.loc = calloc(pk_profile_location_count(p) + 1,
				sizeof(*w->reached.loc));
	w->stack_slot = calloc(w->model_stacks + 1, sizeof(*w->stack_slot));
	w->sets = calloc(w->nsets, sizeof(*w->sets));
	return w->str_index && w->reached.loc && w->stack_slot && w->sets ? 0 : -1;
}

/* ---- the resources ---- */

/*
 * The process's program: the first mapping its samples reach that is a
 * program (no library, kernel, JIT or anonymous memory), or NULL.
 */
static const char *program_of(const struct otlp_writer *w,
			      const struct process *proc)
{
	size_t k, i, depth;

	for (k = 0; k < proc->runs[OUTS].count; k++) {
		uint32_t stack = out_stack(w, w->order[proc->runs[OUTS].first + k]);
		const uint32_t *ids = pk_profile_stack(w->p, stack, &depth);

		for (i = 0; ids && i < depth; i++) {
			const struct pk_location *loc = pk_profile_location(w->p, ids[i]);
			const struct pk_mapping *m = pk_profile_mapping(w->p, loc->mapping);
			const char *file = m ? pk_profile_string(w->p, m->file) : "";

			if (*file && sym_is_program(file))
				return file;
		}
	}
	return NULL;
}

/* A resource's attributes; a key set twice keeps its last value (a
 * resource's keys are unique). */
struct resource_attrs {
	otlp_key_value *kv, **list;
	otlp_any_value *values;
	size_t n, cap;
	char *extra;		/* otlp:resource's text, cut into pairs */
	char **pairs;		/* key, value, key, value ... */
	size_t npairs;
	char name[64];		/* process.executable.name from a comm */
};

static void resource_attr(struct resource_attrs *ra, const char *key,
			  const char *s, int64_t num)
{
	otlp_any_value *v;
	size_t i;

	for (i = 0; i < ra->n && strcmp(ra->kv[i].key, key) != 0; i++)
		;
	if (i == ra->cap)
		return;		/* counted: never */
	v = &ra->values[i];
	opentelemetry__proto__common__v1__key_value__init(&ra->kv[i]);
	opentelemetry__proto__common__v1__any_value__init(v);
	ra->kv[i].key = (char *)key;
	ra->kv[i].value = v;
	ra->list[i] = &ra->kv[i];
	if (s) {
		v->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
		v->string_value = (char *)s;
	} else {
		v->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
		v->int_value = num;
	}
	if (i == ra->n)
		ra->n++;
}

static void resource_attrs_release(struct resource_attrs *ra)
{
	free(ra->kv);
	free(ra->list);
	free(ra->values);
	free(ra->extra);
	free(ra->pairs);
}

enum { SERVICE_NAME, RESOURCE, ORIGINAL_PAYLOAD };

/* otlp:resource's lines cut into their NAME=VALUE pairs, checked. */
static int cut_pairs(struct otlp_writer *w, struct resource_attrs *ra)
{
	const struct pki_option *o = &pki_otlp_write_options[RESOURCE];
	const char *text = pki_option_string(w->opts, o);
	char *line, *next, *eq;
	size_t lines = 1;

	if (!text)
		return 0;
	for (eq = strchr(text, '\n'); eq; eq = strchr(eq + 1, '\n'))
		lines++;
	if (!(ra->extra = strdup(text)) ||
	    !(ra->pairs = calloc(2 * lines + 1, sizeof(*ra->pairs))))
		return oom(w);
	for (line = ra->extra; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!(eq = strchr(line, '=')) || eq == line)
			return pk_error_set(w->ctx, PK_EUSAGE, "%s: expected "
					    "NAME=VALUE, not '%s'", o->key, line);
		*eq = '\0';
		ra->pairs[ra->npairs++] = line;
		ra->pairs[ra->npairs++] = eq + 1;
	}
	return 0;
}

static int resource_attrs_init(struct otlp_writer *w, struct resource_attrs *ra)
{
	int rc;

	memset(ra, 0, sizeof(*ra));
	if ((rc = cut_pairs(w, ra)))
		return rc;
	ra->cap = 5 + ra->npairs / 2;
	if (!(ra->kv = calloc(ra->cap + 1, sizeof(*ra->kv))) ||
	    !(ra->list = calloc(ra->cap + 1, sizeof(*ra->list))) ||
	    !(ra->values = calloc(ra->cap + 1, sizeof(*ra->values))))
		return oom(w);
	return 0;
}

/* A process's resource: pid, program, host, service, then the caller's
 * (whose word is last). */
static void fill_resource(struct otlp_writer *w, const struct process *proc,
			  struct resource_attrs *ra, otlp_resource *res)
{
	const char *program = proc ? program_of(w, proc) : NULL, *base = NULL;
	const char *host = pk_profile_meta(w->p, "hostname");
	const char *service = pki_option_string(w->opts,
						&pki_otlp_write_options[SERVICE_NAME]);
	size_t len = 0, i;

	ra->n = 0;
	if (proc && proc->has_pid)
		resource_attr(ra, OTLP_PROCESS_PID, NULL, proc->pid);
	if (program) {
		resource_attr(ra, OTLP_EXECUTABLE_PATH, program, 0);
		len = pki_module_name(program, &base);
	} else if (proc && proc->comm) {
		base = pki_thread_comm(w->p, proc->comm, &len);
	}
	if (len) {
		snprintf(ra->name, sizeof(ra->name), "%.*s", (int)len, base);
		resource_attr(ra, OTLP_EXECUTABLE_NAME, ra->name, 0);
	}
	if (host && *host)
		resource_attr(ra, OTLP_HOST_NAME, host, 0);
	if (service)
		resource_attr(ra, OTLP_SERVICE_NAME, service, 0);
	for (i = 0; i + 1 < ra->npairs; i += 2)
		resource_attr(ra, ra->pairs[i], ra->pairs[i + 1], 0);
	opentelemetry__proto__resource__v1__resource__init(res);
	res->n_attributes = ra->n;
	res->attributes = ra->list;
}

/* ---- the profiles ---- */

/* The events of a sample type: those that weigh something in it (an
 * event of no weight at all stands in the first). */
static int weighs(const struct otlp_writer *w, size_t sample, size_t column)
{
	const int64_t *v = pk_profile_sample_values(w->p, sample);
	size_t c;

	if (v[column])
		return 1;
	for (c = 0; column == 0 && c < w->ntypes; c++)
		if (v[c])
			return 0;
	return column == 0;
}

/* Room for a Profile's samples and, with timestamps, their events
 * (pairs of arrays grown together: each pair's second keeps the cap). */
static int grow_parts(struct otlp_writer *w, size_t samples, size_t events)
{
	struct profile_parts *pp = &w->parts;
	size_t cap = pp->cap, events_cap = pp->events_cap;

	return pki_grow(&pp->samples, &cap, samples, sizeof(*pp->samples)) ||
	       pki_grow(&pp->sample_ptrs, &pp->cap, samples, sizeof(*pp->sample_ptrs)) ||
	       pki_grow(&pp->values, &events_cap, events, sizeof(*pp->values)) ||
	       pki_grow(&pp->times, &pp->events_cap, events, sizeof(*pp->times)) ? -1 : 0;
}

/*
 * A process's events of one sample type, each output sample's together
 * in the order they came: nevents[k] of them from values[at[k]] and
 * times[at[k]] (at[] counts past them while they are filled).
 */
static int gather_events(struct otlp_writer *w, const struct process *proc,
			 size_t column)
{
	struct profile_parts *pp = &w->parts;
	const uint32_t *events = &w->events[proc->runs[EVENTS].first];
	const uint32_t *outs = &w->order[proc->runs[OUTS].first];
	size_t i, total = 0;

	for (i = 0; i < proc->runs[EVENTS].count; i++) {
		if (weighs(w, events[i], column)) {
			pp->nevents[w->sample_out[events[i]]]++;
			total++;
		}
	}
	if (grow_parts(w, proc->runs[OUTS].count, total))
		return -1;
	for (i = 0, total = 0; i < proc->runs[OUTS].count; i++) {
		pp->at[outs[i]] = (uint32_t)total;
		total += pp->nevents[outs[i]];
	}
	for (i = 0; i < proc->runs[EVENTS].count; i++) {
		size_t s = events[i];
		uint32_t *at = &pp->at[w->sample_out[s]];

		if (!weighs(w, s, column))
			continue;
		pp->values[*at] = pk_profile_sample_values(w->p, s)[column];
		pp->times[*at] = (uint64_t)w->time +
			(pk_profile_sample(w->p, s)->time - w->first_time);
		(*at)++;
	}
	return 0;
}

/* The output sample k of a process, in the Profile of column. */
static void fill_sample(struct otlp_writer *w, otlp_sample *out, size_t k,
			size_t column)
{
	struct profile_parts *pp = &w->parts;
	const struct label_set *set = &w->sets[out_labels(w, k)];
	uint32_t stack = out_stack(w, k);

	opentelemetry__proto__profiles__v1development__sample__init(out);
	out->stack_index = stack && stack <= w->model_stacks ?
		(int32_t)w->stack_slot[stack] : 0;
	out->n_attribute_indices = set->nattrs;
	out->attribute_indices = &w->set_attrs[set->attrs_at];
	out->n_values = 1;
	if (w->timestamps) {
		out->n_values = pp->nevents[k];
		out->values = &pp->values[pp->at[k] - pp->nevents[k]];
		out->n_timestamps_unix_nano = pp->nevents[k];
		out->timestamps_unix_nano = &pp->times[pp->at[k] - pp->nevents[k]];
	} else if (w->sums) {
		out->values = &w->sums[k * w->ntypes + column];
	} else {
		/* the model's own value: protobuf-c only reads it */
		out->values = (int64_t *)&pk_profile_sample_values(w->p, k)[column];
	}
}

static int fill_samples(struct otlp_writer *w, const struct process *proc,
			size_t column, otlp_profile *prof)
{
	struct profile_parts *pp = &w->parts;
	size_t k, n = 0;

	if (!proc)
		return 0;
	if (w->timestamps ? gather_events(w, proc, column) :
	    grow_parts(w, proc->runs[OUTS].count, 0))
		return -1;
	for (k = 0; k < proc->runs[OUTS].count; k++) {
		size_t out = w->order[proc->runs[OUTS].first + k];

		if (w->timestamps && !pp->nevents[out])
			continue;
		fill_sample(w, &pp->samples[n], out, column);
		pp->sample_ptrs[n] = &pp->samples[n];
		n++;
		if (w->timestamps)
			pp->nevents[out] = 0;	/* for the next Profile */
	}
	prof->n_samples = n;
	prof->samples = pp->sample_ptrs;
	return 0;
}

/* OTLP values are whole: a fractional column's unit gives its scale. */
static int32_t unit_of(struct otlp_writer *w, size_t column)
{
	const struct pk_value_type *t = pk_profile_sample_type(w->p, column);
	int64_t scale = pk_profile_sample_type_scale(w->p, column);

	if (scale == 1)
		return str(w, t->unit);
	return owned_word(w, pki_scaled_unit(pk_profile_string(w->p, t->unit), scale));
}

/* The period is its event's: the first column's (perf.data's first
 * event), shared by the columns of the same event. */
static int has_period(const struct otlp_writer *w, size_t column)
{
	struct pk_value_type period = pk_profile_period_type(w->p);

	return (period.type || period.unit) &&
	       pk_profile_sample_type(w->p, column)->event ==
	       pk_profile_sample_type(w->p, 0)->event;
}

/* What every Profile of a column has but its samples. */
static int fill_profile(struct otlp_writer *w, size_t column, otlp_profile *prof,
			otlp_value_type *type, otlp_value_type *period)
{
	const struct pk_value_type *t = pk_profile_sample_type(w->p, column);
	struct pk_value_type pt = pk_profile_period_type(w->p);

	opentelemetry__proto__profiles__v1development__profile__init(prof);
	opentelemetry__proto__profiles__v1development__value_type__init(type);
	opentelemetry__proto__profiles__v1development__value_type__init(period);
	type->type_strindex = str(w, t->type);
	type->unit_strindex = unit_of(w, column);
	prof->sample_type = type;
	if (has_period(w, column)) {
		period->type_strindex = str(w, pt.type);
		period->unit_strindex = str(w, pt.unit);
		prof->period_type = period;
		prof->period = pk_profile_period(w->p);
	}
	prof->time_unix_nano = (uint64_t)w->time;
	prof->duration_nano = (uint64_t)w->duration;
	prof->n_attribute_indices = w->nprofile_attrs;
	prof->attribute_indices = w->profile_attrs;
	if (t->event) {
		/* what tells columns of one type and unit apart (JFR's
		 * jdk.JavaMonitorEnter and jdk.ThreadPark durations) */
		int32_t a = string_attribute(w, OTLP_PROFKIT_EVENT, str(w, t->event));

		if (a < 0)
			return -1;
		w->profile_attrs[prof->n_attribute_indices++] = a;
	}
	return type->type_strindex < 0 || type->unit_strindex < 0 ||
	       period->type_strindex < 0 || period->unit_strindex < 0 ? -1 : 0;
}

/* pprof's frame filters, as the semantic conventions name them. */
static int profile_attributes(struct otlp_writer *w)
{
	static const char *const keys[][2] = {
		{ PK_META_DROP_FRAMES, OTLP_DROP_FRAMES },
		{ PK_META_KEEP_FRAMES, OTLP_KEEP_FRAMES },
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(keys); i++) {
		const char *re = pk_profile_meta(w->p, keys[i][0]);
		int32_t a;

		if (!re || !*re)
			continue;
		a = string_attribute(w, keys[i][1], word(w, re));
		if (a < 0)
			return -1;
		w->profile_attrs[w->nprofile_attrs++] = a;
	}
	return 0;
}

/*
 * otlp:original-payload: the pprof file the profile was read from, for
 * the first Profile's original payload (the protobuf, gzip undone).
 */
static int original_payload(struct otlp_writer *w, ProtobufCBinaryData *payload)
{
	const char *input = pk_profile_meta(w->p, PK_META_INPUT);
	const char *format = pk_profile_meta(w->p, PK_META_FORMAT);
	struct pk_input *in;
	int rc;

	if (!format || strcmp(format, "pprof") != 0 || !input || input[0] == '<') {
		pk_warn(w->ctx, "%s: the profile was not read from a pprof file: "
			"no original payload",
			pki_otlp_write_options[ORIGINAL_PAYLOAD].key);
		return 0;
	}
	rc = pk_input_open(w->ctx, input, &in);
	if (rc)
		return rc;
	rc = pk_input_slurp(in, (size_t)pk_context_max_memory(w->ctx) / 4,
			    &payload->data, &payload->len);
	pk_input_close(in);
	return rc;
}

/*
 * One Profile per sample type of a process (NULL: of none, when the
 * profile has no samples), given to the sink; or, with sizes, only
 * their packed sizes, which the binary sink wants before them (the
 * samples are made again to be given: holding the bytes instead would
 * cost as much memory as the output has).
 */
static int give_profiles(struct otlp_writer *w, const struct process *proc,
			 size_t *sizes, const ProtobufCBinaryData *payload)
{
	otlp_value_type type, period;
	otlp_profile prof;
	size_t c;
	int rc = 0;

	for (c = 0; c < w->ntypes && !rc; c++) {
		if (fill_profile(w, c, &prof, &type, &period) ||
		    fill_samples(w, proc, c, &prof))
			return oom(w);
		if (payload->len && proc == w->procs && c == 0) {
			prof.original_payload_format = (char *)"pprof";
			prof.original_payload = *payload;
		}
		if (sizes)
			sizes[c] = protobuf_c_message_get_packed_size(&prof.base);
		else
			rc = w->sink->ops->profile(w->sink, &prof);
	}
	return rc;
}

static int give_resource(struct otlp_writer *w, const struct process *proc,
			 const otlp_resource *res, const otlp_scope *scope,
			 size_t *sizes, const ProtobufCBinaryData *payload)
{
	int rc = 0;

	if (sizes)
		rc = give_profiles(w, proc, sizes, payload);
	if (!rc)
		rc = w->sink->ops->resource(w->sink, res, scope, sizes, w->ntypes);
	if (!rc)
		rc = give_profiles(w, proc, NULL, payload);
	return rc ? rc : w->sink->ops->resource_end(w->sink);
}

static int give_resources(struct otlp_writer *w)
{
	ProtobufCBinaryData payload = { 0, NULL };
	struct resource_attrs ra;
	otlp_resource res;
	otlp_scope scope;
	size_t *sizes = NULL, i;
	int rc;

	opentelemetry__proto__common__v1__instrumentation_scope__init(&scope);
	scope.name = (char *)OTLP_SCOPE_NAME;
	scope.version = (char *)PACKAGE_VERSION;
	rc = resource_attrs_init(w, &ra);
	if (!rc && w->sink->ops->sized && !(sizes = calloc(w->ntypes + 1, sizeof(*sizes))))
		rc = oom(w);
	if (!rc && pki_option_flag(w->opts, &pki_otlp_write_options[ORIGINAL_PAYLOAD]))
		rc = original_payload(w, &payload);
	/* no samples: one resource, to keep the sample types */
	for (i = 0; !rc && i < (w->nprocs ? w->nprocs : w->ntypes > 0); i++) {
		const struct process *proc = w->nprocs ? &w->procs[i] : NULL;

		fill_resource(w, proc, &ra, &res);
		rc = give_resource(w, proc, &res, &scope, sizes, &payload);
	}
	resource_attrs_release(&ra);
	free(sizes);
	free(payload.data);
	return rc;
}

/* ---- the dictionary ---- */

/* The messages of the dictionary's tables and the arrays they point
 * into, allocated once. */
struct dictionary {
	otlp_dictionary msg;
	otlp_mapping *maps, **map_ptrs;
	otlp_location *locs, **loc_ptrs;
	otlp_line *lines, **line_ptrs;
	otlp_function *fns, **fn_ptrs;
	otlp_stack *stacks, **stack_ptrs;
	otlp_attribute *attrs, **attr_ptrs;
	otlp_any_value *values;
	otlp_link link, *link_ptr;
	int32_t *indexes;	/* stacks' locations, mappings' and locations'
				 * attributes */
	size_t nindexes;
	uint8_t zero_ids[16];
};

static void dictionary_release(struct dictionary *d)
{
	free(d->maps);
	free(d->map_ptrs);
	free(d->locs);
	free(d->loc_ptrs);
	free(d->lines);
	free(d->line_ptrs);
	free(d->fns);
	free(d->fn_ptrs);
	free(d->stacks);
	free(d->stack_ptrs);
	free(d->attrs);
	free(d->attr_ptrs);
	free(d->values);
	free(d->indexes);
}

/* The indexes the tables hold: a location's frame type, a mapping's
 * build id and flags, a stack's locations. */
static void count_indexes(struct otlp_writer *w, struct dictionary *d)
{
	size_t id, depth;

	d->nindexes = w->reached.nlocs +
		w->reached.nmaps * (1 + PK_ARRAY_SIZE(otlp_mapping_flags));
	for (id = 1; id <= w->model_stacks; id++)
		if (w->stack_slot[id]) {
			pk_profile_stack(w->p, (uint32_t)id, &depth);
			d->nindexes += depth;
		}
}

/* Table arrays with their zero entry; attributes come at the end. */
static int alloc_tables(struct otlp_writer *w, struct dictionary *d)
{
	count_indexes(w, d);
	return !(d->maps = calloc(w->reached.nmaps + 1, sizeof(*d->maps))) ||
	       !(d->map_ptrs = calloc(w->reached.nmaps + 1, sizeof(*d->map_ptrs))) ||
	       !(d->locs = calloc(w->reached.nlocs + 1, sizeof(*d->locs))) ||
	       !(d->loc_ptrs = calloc(w->reached.nlocs + 1, sizeof(*d->loc_ptrs))) ||
	       !(d->lines = calloc(w->reached.nlines + 1, sizeof(*d->lines))) ||
	       !(d->line_ptrs = calloc(w->reached.nlines + 1, sizeof(*d->line_ptrs))) ||
	       !(d->fns = calloc(w->reached.nfns + 1, sizeof(*d->fns))) ||
	       !(d->fn_ptrs = calloc(w->reached.nfns + 1, sizeof(*d->fn_ptrs))) ||
	       !(d->stacks = calloc(w->nstacks + 1, sizeof(*d->stacks))) ||
	       !(d->stack_ptrs = calloc(w->nstacks + 1, sizeof(*d->stack_ptrs))) ||
	       !(d->indexes = calloc(d->nindexes + 1, sizeof(*d->indexes))) ? -1 : 0;
}

/* A build id of hex digits is GNU's (.note.gnu.build-id); others are
 * Go's ("go tool buildid": parts in base64 with '/' between). */
static const char *build_id_key(const char *id)
{
	return id[strspn(id, "0123456789abcdefABCDEF")] ? OTLP_BUILD_ID_GO :
		OTLP_BUILD_ID_GNU;
}

static int fill_mappings(struct otlp_writer *w, struct dictionary *d,
			 size_t *next)
{
	size_t n = pk_profile_mapping_count(w->p), id, i;

	for (id = 0; id <= w->reached.nmaps; id++) {
		opentelemetry__proto__profiles__v1development__mapping__init(&d->maps[id]);
		d->map_ptrs[id] = &d->maps[id];
	}
	for (id = 1; id <= n; id++) {
		const struct pk_mapping *m = pk_profile_mapping(w->p, (uint32_t)id);
		const unsigned flags[] = { m ? m->has_functions : 0, m ? m->has_filenames : 0,
			m ? m->has_line_numbers : 0, m ? m->has_inline_frames : 0 };
		otlp_mapping *out;
		int32_t *attrs = &d->indexes[*next];
		int32_t a = 0;

		if (!w->reached.map[id])
			continue;
		out = &d->maps[w->reached.map[id]];
		out->memory_start = m->start;
		out->memory_limit = m->limit;
		out->file_offset = m->offset;
		out->filename_strindex = str(w, m->file);
		out->attribute_indices = attrs;
		if (m->build_id)
			a = attrs[out->n_attribute_indices++] = string_attribute(w,
				build_id_key(pk_profile_string(w->p, m->build_id)),
				str(w, m->build_id));
		for (i = 0; i < PK_ARRAY_SIZE(flags) && a >= 0; i++)
			if (flags[i])
				a = attrs[out->n_attribute_indices++] = attribute(w,
					word(w, otlp_mapping_flags[i]), ATTR_BOOL, 1, 0);
		*next += out->n_attribute_indices;
		if (a < 0 || out->filename_strindex < 0)
			return -1;
	}
	return 0;
}

static int fill_functions(struct otlp_writer *w, struct dictionary *d)
{
	size_t n = pk_profile_function_count(w->p), id;

	for (id = 0; id <= w->reached.nfns; id++) {
		opentelemetry__proto__profiles__v1development__function__init(&d->fns[id]);
		d->fn_ptrs[id] = &d->fns[id];
	}
	for (id = 1; id <= n; id++) {
		const struct pk_function *f = pk_profile_function(w->p, (uint32_t)id);
		otlp_function *out;

		if (!w->reached.fn[id])
			continue;
		out = &d->fns[w->reached.fn[id]];
		out->name_strindex = str(w, f->name);
		out->system_name_strindex = str(w, f->system_name);
		out->filename_strindex = str(w, f->filename);
		out->start_line = f->start_line;
		if (out->name_strindex < 0 || out->system_name_strindex < 0 ||
		    out->filename_strindex < 0)
			return -1;
	}
	return 0;
}

/* Go code: a mapping whose functions include Go's runtime's roots. */
static void find_go_mappings(struct otlp_writer *w)
{
	static const char *const roots[] = { "runtime.goexit", "runtime.main",
					     "runtime.mstart" };
	size_t n = pk_profile_location_count(w->p), id, i, r;

	for (id = 1; id <= n; id++) {
		const struct pk_location *loc = pk_profile_location(w->p, (uint32_t)id);
		const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
		uint32_t slot = pk_profile_mapping(w->p, loc->mapping) ?
			w->reached.map[loc->mapping] : 0;

		for (i = 0; w->reached.loc[id] && i < loc->nlines; i++) {
			const struct pk_function *f = pk_profile_function(w->p,
									 lines[i].function);
			const char *name = f ? pk_profile_string(w->p, f->name) : "";

			for (r = 0; r < PK_ARRAY_SIZE(roots); r++)
				if (strcmp(name, roots[r]) == 0)
					w->go_map[slot] = 1;
		}
	}
}

/*
 * A JIT's frames (perf-PID.map) by the names its runtime gives them:
 * V8's "JS:*fn file:1" (and its older "LazyCompile:"...), the JVM's
 * "Lpkg/Class;::method" (perf-map-agent) and "Interpreter".
 */
static const char *jit_frame_type(const char *name)
{
	static const char *const v8[] = { "JS:", "LazyCompile:", "Function:",
		"Builtin:", "BytecodeHandler:", "Stub:", "RegExp:", "Script:",
		"Eval:", "Handler:" };
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(v8); i++)
		if (pki_starts_with(name, v8[i]))
			return "v8js";
	if ((name[0] == 'L' && strstr(name, ";::")) ||
	    strcmp(name, "Interpreter") == 0)
		return "jvm";
	return NULL;
}

/* profile.frame.type, from the semantic conventions' list, or NULL. */
static const char *frame_type(const struct otlp_writer *w,
			      const struct pk_location *loc)
{
	const struct pk_mapping *m = pk_profile_mapping(w->p, loc->mapping);
	const char *file = m ? pk_profile_string(w->p, m->file) : "";
	const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
	const struct pk_function *f = loc->nlines ?
		pk_profile_function(w->p, lines[0].function) : NULL;

	if (*file && sym_map_kind(file) == SYM_MAP_KERNEL)
		return "kernel";
	if (*file && sym_map_kind(file) == SYM_MAP_JIT)
		return f ? jit_frame_type(pk_profile_string(w->p, f->name)) : NULL;
	return w->go_map[m ? w->reached.map[loc->mapping] : 0] ? "go" : "native";
}

static int fill_location(struct otlp_writer *w, struct dictionary *d,
			 uint32_t id, size_t *next_line, size_t *next)
{
	const struct pk_location *loc = pk_profile_location(w->p, id);
	const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
	otlp_location *out = &d->locs[w->reached.loc[id]];
	const char *type = frame_type(w, loc);
	size_t i;

	out->mapping_index = pk_profile_mapping(w->p, loc->mapping) ?
		(int32_t)w->reached.map[loc->mapping] : 0;
	out->address = loc->address;
	out->lines = &d->line_ptrs[*next_line];
	for (i = 0; i < loc->nlines; i++) {
		otlp_line *line = &d->lines[*next_line];

		if (!pk_profile_function(w->p, lines[i].function))
			continue;
		opentelemetry__proto__profiles__v1development__line__init(line);
		line->function_index = (int32_t)w->reached.fn[lines[i].function];
		line->line = lines[i].line;
		d->line_ptrs[(*next_line)++] = line;
		out->n_lines++;
	}
	if (type) {
		out->attribute_indices = &d->indexes[(*next)++];
		out->n_attribute_indices = 1;
		out->attribute_indices[0] = string_attribute(w, OTLP_FRAME_TYPE,
							     word(w, type));
		return out->attribute_indices[0] < 0 ? -1 : 0;
	}
	return 0;
}

static int fill_locations(struct otlp_writer *w, struct dictionary *d,
			  size_t *next)
{
	size_t n = pk_profile_location_count(w->p), next_line = 0, id;

	for (id = 0; id <= w->reached.nlocs; id++) {
		opentelemetry__proto__profiles__v1development__location__init(&d->locs[id]);
		d->loc_ptrs[id] = &d->locs[id];
	}
	find_go_mappings(w);
	for (id = 1; id <= n; id++)
		if (w->reached.loc[id] && fill_location(w, d, (uint32_t)id, &next_line, next))
			return -1;
	return 0;
}

static void fill_stacks(struct otlp_writer *w, struct dictionary *d, size_t *next)
{
	size_t id, depth, i;

	for (id = 0; id <= w->nstacks; id++) {
		opentelemetry__proto__profiles__v1development__stack__init(&d->stacks[id]);
		d->stack_ptrs[id] = &d->stacks[id];
	}
	for (id = 1; id <= w->model_stacks; id++) {
		const uint32_t *ids;
		otlp_stack *out;

		if (!w->stack_slot[id])
			continue;
		ids = pk_profile_stack(w->p, (uint32_t)id, &depth);
		out = &d->stacks[w->stack_slot[id]];
		out->location_indices = &d->indexes[*next];
		out->n_location_indices = depth;
		for (i = 0; i < depth; i++)
			out->location_indices[i] = (int32_t)w->reached.loc[ids[i]];
		*next += depth;
	}
}

/* The attributes, last: every other table added its own. */
static int fill_attributes(struct otlp_writer *w, struct dictionary *d)
{
	size_t i;

	if (!(d->attrs = calloc(w->nattrs + 1, sizeof(*d->attrs))) ||
	    !(d->attr_ptrs = calloc(w->nattrs + 1, sizeof(*d->attr_ptrs))) ||
	    !(d->values = calloc(w->nattrs + 1, sizeof(*d->values))))
		return -1;
	for (i = 0; i < w->nattrs; i++) {
		const struct attr *a = &w->attrs[i];
		otlp_attribute *out = &d->attrs[i];
		otlp_any_value *v = &d->values[i];

		opentelemetry__proto__profiles__v1development__key_value_and_unit__init(out);
		d->attr_ptrs[i] = out;
		if (i == 0)
			continue;	/* the zero entry */
		opentelemetry__proto__common__v1__any_value__init(v);
		out->key_strindex = a->key;
		out->unit_strindex = a->unit;
		out->value = v;
		switch (a->kind) {
		case ATTR_STRING:
			v->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE_STRINDEX;
			v->string_value_strindex = (int32_t)a->value;
			break;
		case ATTR_INT:
			v->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
			v->int_value = a->value;
			break;
		case ATTR_BOOL:
			v->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE;
			v->bool_value = a->value != 0;
			break;
		}
	}
	return 0;
}

static int give_dictionary(struct otlp_writer *w)
{
	struct dictionary d;
	otlp_dictionary *msg = &d.msg;
	size_t next = 0;
	int rc;

	memset(&d, 0, sizeof(d));
	opentelemetry__proto__profiles__v1development__profiles_dictionary__init(msg);
	opentelemetry__proto__profiles__v1development__link__init(&d.link);
	if (alloc_tables(w, &d) || fill_mappings(w, &d, &next) ||
	    fill_functions(w, &d) || fill_locations(w, &d, &next)) {
		dictionary_release(&d);
		return oom(w);
	}
	fill_stacks(w, &d, &next);
	if (fill_attributes(w, &d)) {
		dictionary_release(&d);
		return oom(w);
	}
	/* link_table[0] as the specification prefers it: ids of zeros */
	d.link.trace_id.data = d.zero_ids;
	d.link.trace_id.len = 16;
	d.link.span_id.data = d.zero_ids;
	d.link.span_id.len = 8;
	d.link_ptr = &d.link;
	msg->n_mapping_table = w->reached.nmaps + 1;
	msg->mapping_table = d.map_ptrs;
	msg->n_location_table = w->reached.nlocs + 1;
	msg->location_table = d.loc_ptrs;
	msg->n_function_table = w->reached.nfns + 1;
	msg->function_table = d.fn_ptrs;
	msg->n_link_table = 1;
	msg->link_table = &d.link_ptr;
	msg->n_string_table = w->nstrings;
	msg->string_table = w->strings;
	msg->n_attribute_table = w->nattrs;
	msg->attribute_table = d.attr_ptrs;
	msg->n_stack_table = w->nstacks + 1;
	msg->stack_table = d.stack_ptrs;
	rc = w->sink->ops->dictionary(w->sink, msg);
	dictionary_release(&d);
	return rc;
}

/* ---- the writer ---- */

static void writer_release(struct otlp_writer *w)
{
	size_t i;

	for (i = 0; i < w->nowned; i++)
		free(w->owned[i]);
	free(w->owned);
	free(w->words);
	free(w->str_index);
	free(w->strings);
	free(w->attrs);
	pki_idtab_release(&w->attr_tab);
	free(w->sets);
	free(w->set_attrs);
	free(w->procs);
	pki_idtab_release(&w->proc_tab);
	free(w->sample_out);
	free(w->outs);
	pki_idtab_release(&w->out_tab);
	free(w->order);
	free(w->sums);
	free(w->events);
	free(w->parts.samples);
	free(w->parts.sample_ptrs);
	free(w->parts.nevents);
	free(w->parts.at);
	free(w->parts.values);
	free(w->parts.times);
	free(w->reached.loc);
	free(w->reached.fn);
	free(w->reached.map);
	free(w->stack_slot);
	free(w->go_map);
}

static void label_keys(struct otlp_writer *w)
{
	size_t i;

	pki_thread_keys(w->p, &w->thread_keys);
	w->key_pid = pk_profile_lookup(w->p, "pid");
	for (i = 0; i < PK_ARRAY_SIZE(otlp_label_keys); i++)
		w->label_attr[i] = pk_profile_lookup(w->p, otlp_label_keys[i].label);
}

/* Tables too large for OTLP's 32-bit indexes. */
static int too_large(struct otlp_writer *w)
{
	return pk_profile_string_count(w->p) >= INT32_MAX / 2 ||
	       w->reached.nlocs >= INT32_MAX || w->reached.nfns >= INT32_MAX ||
	       w->reached.nmaps >= INT32_MAX || w->nstacks >= INT32_MAX;
}

/* Who belongs where: marks, processes, output samples. */
static int prepare(struct otlp_writer *w)
{
	const struct pk_profile *p = w->p;
	size_t nouts;

	if (alloc_marks(w))
		return oom(w);
	if (mark_samples(w))
		return PK_EINPUT;
	if (pki_reached_number(p, &w->reached))
		return oom(w);
	if (too_large(w))
		return pk_error_set(w->ctx, PK_EINPUT, "otlp: the profile has "
				    "more than OTLP's 2^31 entries in a table");
	label_keys(w);
	choose_shape(w);
	if (add_string(w, "") < 0 ||
	    !(w->go_map = calloc(w->reached.nmaps + 1, sizeof(*w->go_map))) ||
	    pki_grow(&w->attrs, &w->attrs_cap, 1, sizeof(*w->attrs)) < 0 ||
	    profile_attributes(w))
		return oom(w);
	memset(&w->attrs[0], 0, sizeof(w->attrs[0]));
	w->nattrs = 1;
	if (pki_profile_keeps_order(p) && group_samples(w))
		return oom(w);
	nouts = w->outs ? w->nouts : w->nsamples;
	if (order_by_process(w) ||
	    (w->timestamps && (!(w->parts.nevents = calloc(nouts + 1,
					   sizeof(*w->parts.nevents))) ||
			       !(w->parts.at = calloc(nouts + 1, sizeof(*w->parts.at))))) ||
	    (w->outs && !w->timestamps && sum_values(w)))
		return oom(w);
	return 0;
}

int pki_otlp_write_with(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct otlp_sink *sink)
{
	struct otlp_writer w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.p = p;
	w.opts = opts ? opts : &pki_default_options;
	w.sink = sink;
	w.ntypes = pk_profile_sample_type_count(p);
	w.nsamples = pk_profile_sample_count(p);
	if (w.nsamples && !w.ntypes)
		rc = pk_error_set(ctx, PK_EINPUT, "otlp: the profile has samples "
				  "but no sample types");
	else
		rc = prepare(&w);
	if (!rc)
		rc = give_resources(&w);
	if (!rc)
		rc = give_dictionary(&w);
	if (!rc)
		rc = sink->ops->finish(sink);
	sink->ops->release(sink);
	writer_release(&w);
	return rc;
}

const struct pki_option pki_otlp_write_options[] = {
	[SERVICE_NAME] = { .key = "otlp:service-name", .type = PK_OPTION_STRING,
		.flag = "service-name", .value_name = "NAME",
		.help = "the service.name resource attribute" },
	[RESOURCE] = { .key = "otlp:resource", .type = PK_OPTION_STRING,
		.repeat = true, .flag = "resource", .value_name = "NAME=VALUE",
		.help = "a resource attribute of every process (repeatable)" },
	[ORIGINAL_PAYLOAD] = { .key = "otlp:original-payload",
		.type = PK_OPTION_FLAG, .def = "0", .flag = "original-payload",
		.help = "the pprof input as the original_payload" },
	{ .key = NULL },
};

int pki_otlp_write(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, struct pk_output *out)
{
	struct otlp_sink *sink = otlp_binary_sink(ctx, out);

	if (!sink)
		return pk_error_set(ctx, PK_ENOMEM, "otlp: out of memory");
	return pki_otlp_write_with(ctx, p, opts, sink);
}

int pki_otlp_json_write(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct pk_output *out)
{
	struct otlp_sink *sink = otlp_json_sink(ctx, out);

	if (!sink)
		return pk_error_set(ctx, PK_ENOMEM, "otlp-json: out of memory");
	return pki_otlp_write_with(ctx, p, opts, sink);
}
