/* SPDX-License-Identifier: MIT */
/*
 * The Firefox Profiler's processed profile format, version 60: the
 * first version whose tables (strings, stacks, frames, functions,
 * resources) are shared by all threads, so each is written once,
 * straight from the model. The profiler upgrades it when it loads it
 * (src/profile-logic/processed-profile-versioning), as its developer
 * docs (custom-importer.md) tell external producers to rely on.
 *
 *     {"meta": {"preprocessedProfileVersion": 60, "categories": [...]},
 *      "libs": [{"name": "libc.so.6", "codeId": "<build id>", ...}],
 *      "shared": {"stringArray": [...], "stackTable": {...},
 *                 "frameTable": {...}, "funcTable": {...}, ...},
 *      "threads": [{"name": "app", "pid": "43", "tid": 44,
 *                   "samples": {"stack": [...], "time": [...]},
 *                   "markers": {...}}]}
 *
 * The string array is the model's string table followed by the few
 * strings made here, so string ids need no translation. Samples are
 * streamed thread by thread; besides the model, memory goes to one
 * index per sample and one node per distinct stack prefix. The profiler
 * draws a sample until the next one, so an off-CPU interval (lib/
 * core/internal.h) that no sample follows right away is ended by an empty
 * sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/registry.h"
#include "core/internal.h"
#include "core/names.h"
#include "transforms/value.h"
#include "util/json.h"

#define FIREFOX_VERSION 60

/* meta.categories, in this order */
enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_JIT };

struct ff_thread {
	int64_t pid, tid;	/* -1: unknown */
	pk_str comm;
	size_t first, count;	/* slice of order[] */
	size_t nends;		/* nonzero interval_end[] of the slice */
};

/* A stack node: a frame under a prefix node (prefix 0: a root). */
struct ff_node {
	uint32_t frame, prefix;	/* prefix: node index + 1, or 0 */
};

struct firefox {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;
	struct pki_thread_keys keys;
	struct pki_json json;
	int rc;			/* json's first error, for the loops to test */

	int column, member;	/* the sampled event's value and marker */
	int64_t scale;
	int weighted;		/* samples differ in weight */
	int interval_column;	/* off-CPU lengths, or -1 */
	const char *weight_type;
	double weight_div;	/* value / scale / weight_div = weight */
	int *tracepoint;	/* per event: its count column, or -1 */
	size_t nevents;

	struct ff_thread *threads;
	size_t nthreads, threads_cap;
	uint32_t *label_thread;	/* label set id -> thread + 1 */
	size_t label_thread_cap;
	uint32_t *order;	/* sample indexes by thread */
	size_t norder;
	uint64_t *interval_end;	/* by place in order (see build_interval_ends) */

	/* strings made here: their ids follow the model's */
	struct pk_profile *extra;
	size_t nstrings;

	/* libraries: one per mapped file; resource i is library i */
	uint32_t *mapping_lib;	/* mapping id -> library + 1 */
	uint32_t *lib_mapping;	/* library -> its first mapping id */
	int64_t *lib_name;	/* library -> the string of its base name */
	size_t nlibs;

	/* functions: the model's (id - 1), then the made ones */
	uint32_t *func_lib;	/* model function id -> library + 1 */
	uint32_t *made_name, *made_lib;	/* made function -> name, lib + 1 */
	size_t nmade, made_cap;
	uint32_t *frame_base;	/* location id -> its first frame + 1 */
	uint32_t *source_of;	/* file name string id -> source + 1 */
	pk_str *source_file;	/* source -> its file name */
	size_t nsources;
	size_t nframes;

	struct ff_node *nodes;
	size_t nnodes, nodes_cap;
	uint32_t *slots;	/* hash of (frame, prefix) -> node + 1 */
	size_t nslots;
	uint32_t *stack_node;	/* model stack id -> node + 1 */
};

static int oom(struct firefox *w)
{
	return pk_error_set(w->ctx, PK_ENOMEM, "firefox: out of memory");
}

/* ---- output ---- */

/*
 * The tables lay out their own commas and line breaks, every 16 or 32
 * values: the JSON writer works outside any array or object here, for
 * its buffer, strings and numbers (util/json.h).
 */
static void put_n(struct firefox *w, const char *s, size_t n)
{
	pki_json_raw(&w->json, s, n);
	w->rc = w->json.rc;
}

static void put(struct firefox *w, const char *s)
{
	put_n(w, s, strlen(s));
}

static void put_int(struct firefox *w, int64_t v)
{
	pki_json_int(&w->json, v);
	w->rc = w->json.rc;
}

/* Nanoseconds as milliseconds, exactly. */
static void put_ms(struct firefox *w, uint64_t ns)
{
	char num[48];
	int n = snprintf(num, sizeof(num), "%llu.%06llu",
			 (unsigned long long)(ns / 1000000),
			 (unsigned long long)(ns % 1000000));

	put_n(w, num, (size_t)n);
}

/* A weight or an interval: nine digits are more than the profiler shows. */
static void put_double(struct firefox *w, double v)
{
	pki_json_double(&w->json, v, 9);
	w->rc = w->json.rc;
}

static void put_string(struct firefox *w, const char *s, size_t len)
{
	pki_json_string(&w->json, s, len);
	w->rc = w->json.rc;
}

static void put_cstring(struct firefox *w, const char *s)
{
	put_string(w, s, strlen(s));
}

/*
 * ",\n"key":{"length":n" and the columns whose n values are all the
 * same: consts holds (name, JSON value) pairs, then NULL.
 */
static void table_start(struct firefox *w, const char *key, size_t n,
			const char *const *consts)
{
	size_t i;

	put(w, ",\n\"");
	put(w, key);
	put(w, "\":{\"length\":");
	put_int(w, (int64_t)n);
	for (; *consts; consts += 2) {
		put(w, ",\"");
		put(w, consts[0]);
		put(w, "\":[");
		for (i = 0; i < n && !w->rc; i++) {
			put(w, i ? "," : "");
			put(w, consts[1]);
		}
		put(w, "]");
	}
}

/* ---- which values: the sampled event, and tracepoints as markers ---- */

/* "sched:sched_switch", not "cpu-clock:ppp" (a modifier only). */
static int is_tracepoint(const char *event)
{
	const char *colon = strchr(event, ':');

	return colon && colon[1] &&
	       strspn(colon + 1, "ukhIGHpPSDWe") != strlen(colon + 1);
}

/* The first event that is no tracepoint, unless --event names one. */
static const char *sampled_event(struct firefox *w)
{
	size_t i;

	if (w->opts->event)
		return w->opts->event;
	for (i = 0; i < w->nevents; i++) {
		const char *e = pk_profile_string(w->p, pk_profile_event(w->p, i));

		if (!is_tracepoint(e))
			return e;
	}
	return NULL;
}

static int member_column(const struct pk_profile *p, pk_str event, int column)
{
	int count = pk_profile_find_column(p, event, PK_VALUE_COUNT);

	return count >= 0 ? count : column;
}

/*
 * Weights only where samples differ: a frequency-mode recording's
 * periods, a heap profile's bytes. Time becomes "tracing-ms".
 */
static void choose_weights(struct firefox *w)
{
	const struct pk_value_type *t = pk_profile_sample_type(w->p, (size_t)w->column);
	const char *unit = pk_profile_string(w->p, t->unit);
	size_t n = pk_profile_sample_count(w->p), i;
	int64_t first = 0;
	int seen = 0;

	for (i = 0; i < n && !w->weighted; i++) {
		const int64_t *v = pk_profile_sample_values(w->p, i);

		if (!v[w->member])
			continue;
		if ((seen++ && v[w->column] != first) ||
		    pki_interval_length(w->p, w->interval_column, i))
			w->weighted = 1;
		first = v[w->column];
	}
	w->weight_type = "samples";
	w->weight_div = (double)w->scale;
	if (!w->weighted)
		return;
	if (strcmp(unit, "nanoseconds") == 0) {
		w->weight_type = "tracing-ms";
		w->weight_div *= 1e6;
	} else if (strcmp(unit, "bytes") == 0) {
		w->weight_type = "bytes";
	}
}

/* Events that are not tracepoints (those are markers) and not the one
 * shown are left out, as the other single-event writers say. */
static void warn_unshown(struct firefox *w)
{
	size_t sampled = 0, i;

	for (i = 0; i < w->nevents; i++)
		sampled += !is_tracepoint(pk_profile_string(w->p,
						pk_profile_event(w->p, i)));
	if (sampled > 1)
		pki_warn_one_event(w->ctx, w->p, pk_profile_sample_type(w->p,
				   (size_t)w->column)->event, sampled);
}

static int choose_values(struct firefox *w)
{
	struct pk_options o = *w->opts;
	size_t i;
	int rc;

	w->nevents = pk_profile_event_count(w->p);
	o.event = sampled_event(w);
	w->column = pk_value_column(w->ctx, w->p, &o);
	rc = pk_context_error(w->ctx)->code;
	if (rc)
		return rc;
	if (w->column < 0)
		return pk_error_set(w->ctx, PK_EINPUT, "firefox: no sample type to show");
	w->member = member_column(w->p, pk_profile_sample_type(w->p,
				  (size_t)w->column)->event, w->column);
	if (!w->opts->event && o.event)
		warn_unshown(w);
	w->scale = pk_profile_sample_type_scale(w->p, (size_t)w->column);
	w->tracepoint = malloc((w->nevents + 1) * sizeof(*w->tracepoint));
	if (!w->tracepoint)
		return oom(w);
	for (i = 0; i < w->nevents; i++) {
		pk_str ev = pk_profile_event(w->p, i);
		int col = member_column(w->p, ev, -1);

		w->tracepoint[i] = is_tracepoint(pk_profile_string(w->p, ev)) &&
				   col != w->member ? col : -1;
	}
	choose_weights(w);
	return 0;
}

/* The tracepoint a sample is, or -1; checked only for non-samples. */
static int sample_tracepoint(const struct firefox *w, const int64_t *v)
{
	size_t i;

	for (i = 0; i < w->nevents; i++)
		if (w->tracepoint[i] >= 0 && v[w->tracepoint[i]])
			return (int)i;
	return -1;
}

static int is_shown(const struct firefox *w, size_t index)
{
	const int64_t *v = pk_profile_sample_values(w->p, index);

	return v[w->member] || sample_tracepoint(w, v) >= 0;
}

/* ---- threads ---- */

static uint32_t find_thread(struct firefox *w, uint32_t labels)
{
	struct pki_thread t;
	int64_t pid, tid;
	size_t i;

	pki_thread_of(w->p, &w->keys, labels, &t);
	pid = t.has_pid ? t.pid : -1;
	tid = t.has_tid ? t.tid : -1;
	if (tid < 0)
		tid = pid;
	/* a thread without ids (a speedscope profile) is known by its name */
	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i].tid == tid && w->threads[i].pid == pid &&
		    (tid >= 0 || w->threads[i].comm == t.comm))
			break;
	if (i == w->nthreads) {
		if (pki_grow(&w->threads, &w->threads_cap, i + 1,
			     sizeof(*w->threads)) < 0)
			return 0;
		memset(&w->threads[i], 0, sizeof(w->threads[i]));
		w->threads[i].pid = pid;
		w->threads[i].tid = tid;
		w->nthreads++;
	}
	/* a thread's last name: perf's comm changes at exec */
	if (t.comm)
		w->threads[i].comm = t.comm;
	return (uint32_t)i + 1;
}

static uint32_t thread_of(struct firefox *w, uint32_t labels)
{
	if (pki_grow_zeroed(&w->label_thread, &w->label_thread_cap,
			    (size_t)labels + 1, sizeof(*w->label_thread)) < 0)
		return 0;
	if (!w->label_thread[labels])
		w->label_thread[labels] = find_thread(w, labels);
	return w->label_thread[labels];
}

/*
 * The profiler takes each thread's samples in time order (its perf
 * importer sorts them); inputs nearly always are, but several files
 * summed are not. Equal times keep their input order.
 */
static int sort_thread(struct firefox *w, const struct ff_thread *th)
{
	return pki_sort_by_time(w->p, w->order + th->first, th->count) ? oom(w) : 0;
}

/*
 * Where the off-CPU interval of each sample ends (by its place in order)
 * when the thread's next sample of the event comes later, or none does;
 * else 0. One pass back over each thread, the next sample's time at hand.
 * NULL without off-CPU lengths.
 */
static int build_interval_ends(struct firefox *w)
{
	size_t t, i;

	if (w->interval_column < 0)
		return 0;
	w->interval_end = malloc((w->norder ? w->norder : 1) *
				 sizeof(*w->interval_end));
	if (!w->interval_end)
		return oom(w);
	for (t = 0; t < w->nthreads; t++) {
		struct ff_thread *th = &w->threads[t];
		uint64_t next = 0;	/* the time of the next sample of the event */
		int has_next = 0;

		for (i = th->count; i-- > 0;) {
			uint32_t index = w->order[th->first + i];
			uint64_t time = pk_profile_sample(w->p, index)->time;
			uint64_t length = pki_interval_length(w->p, w->interval_column,
							      index);
			uint64_t *end = &w->interval_end[th->first + i];

			*end = length && (!has_next || next > time + length) ?
				time + length : 0;
			th->nends += *end != 0;
			if (pk_profile_sample_values(w->p, index)[w->member]) {
				next = time;
				has_next = 1;
			}
		}
	}
	return 0;
}

/* Samples laid out thread by thread (a counting sort), in time order. */
static int build_threads(struct firefox *w)
{
	size_t n = pk_profile_sample_count(w->p), i, t, at = 0;
	uint32_t *sample_thread = calloc(n ? n : 1, sizeof(*sample_thread));

	if (!sample_thread)
		return oom(w);
	for (i = 0; i < n; i++) {
		if (!is_shown(w, i))
			continue;
		sample_thread[i] = thread_of(w, pk_profile_sample(w->p, i)->labels);
		if (!sample_thread[i])
			break;
		w->threads[sample_thread[i] - 1].count++;
		w->norder++;
	}
	w->order = malloc((w->norder ? w->norder : 1) * sizeof(*w->order));
	if (i < n || !w->order) {
		free(sample_thread);
		return oom(w);
	}
	for (t = 0; t < w->nthreads; t++) {
		w->threads[t].first = at;
		at += w->threads[t].count;
		w->threads[t].count = 0;
	}
	for (i = 0; i < n; i++) {
		struct ff_thread *th;

		if (!sample_thread[i])
			continue;
		th = &w->threads[sample_thread[i] - 1];
		w->order[th->first + th->count++] = (uint32_t)i;
	}
	free(sample_thread);
	for (t = 0; t < w->nthreads; t++) {
		int rc = sort_thread(w, &w->threads[t]);

		if (rc)
			return rc;
	}
	return 0;
}

/* ---- libraries and functions ---- */

static const char *mapping_file(const struct firefox *w, uint32_t mapping)
{
	const struct pk_mapping *m = mapping ? pk_profile_mapping(w->p, mapping) : NULL;

	return m ? pk_profile_string(w->p, m->file) : "";
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Mappings of one file are one library; no file, no library. */
static int build_libs(struct firefox *w)
{
	size_t n = pk_profile_mapping_count(w->p), i, j;

	w->mapping_lib = calloc(n + 1, sizeof(*w->mapping_lib));
	w->lib_mapping = calloc(n + 1, sizeof(*w->lib_mapping));
	if (!w->mapping_lib || !w->lib_mapping)
		return oom(w);
	for (i = 1; i <= n; i++) {
		pk_str file = pk_profile_mapping(w->p, (uint32_t)i)->file;

		if (!*pk_profile_string(w->p, file) ||
		    strcmp(pk_profile_string(w->p, file), PKI_UNKNOWN) == 0)
			continue;
		for (j = 0; j < w->nlibs; j++)
			if (pk_profile_mapping(w->p, w->lib_mapping[j])->file == file)
				break;
		if (j == w->nlibs)
			w->lib_mapping[w->nlibs++] = (uint32_t)i;
		w->mapping_lib[i] = (uint32_t)j + 1;
	}
	w->lib_name = malloc((w->nlibs + 1) * sizeof(*w->lib_name));
	for (j = 0; w->lib_name && j < w->nlibs; j++) {
		pk_str file = pk_profile_mapping(w->p, w->lib_mapping[j])->file;
		pk_str s = pk_profile_intern_cstr(w->extra,
				base_name(pk_profile_string(w->p, file)));

		if (!s)
			break;
		w->lib_name[j] = (int64_t)(w->nstrings + s);
	}
	return w->lib_name && j == w->nlibs ? 0 : oom(w);
}

/* The function of a location without lines: "[unknown]" in its library. */
static int made_function(struct firefox *w, uint32_t lib, uint32_t *func)
{
	pk_str name = pk_profile_intern_cstr(w->extra, PKI_UNKNOWN);
	size_t i;

	for (i = 0; i < w->nmade; i++)
		if (w->made_lib[i] == lib)
			break;
	if (i == w->nmade) {
		size_t cap = w->made_cap;

		if (!name || pki_grow(&w->made_name, &cap, i + 1,
				      sizeof(*w->made_name)) < 0 ||
		    pki_grow(&w->made_lib, &w->made_cap, i + 1,
			     sizeof(*w->made_lib)) < 0)
			return -1;
		w->made_name[i] = (uint32_t)(w->nstrings + name);
		w->made_lib[i] = lib;
		w->nmade++;
	}
	*func = (uint32_t)(pk_profile_function_count(w->p) + i);
	return 0;
}

/* Frame ids: a location's frames, outermost inline frame first. */
static int build_frames(struct firefox *w)
{
	size_t nlocs = pk_profile_location_count(w->p), i, j;
	uint32_t func;

	w->frame_base = calloc(nlocs + 1, sizeof(*w->frame_base));
	w->func_lib = calloc(pk_profile_function_count(w->p) + 1,
			     sizeof(*w->func_lib));
	if (!w->frame_base || !w->func_lib)
		return oom(w);
	for (i = 1; i <= nlocs; i++) {
		const struct pk_location *loc = pk_profile_location(w->p, (uint32_t)i);
		const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
		uint32_t lib = w->mapping_lib[loc->mapping];

		w->frame_base[i] = (uint32_t)w->nframes + 1;
		w->nframes += loc->nlines ? loc->nlines : 1;
		for (j = 0; j < loc->nlines; j++)
			if (lines[j].function && !w->func_lib[lines[j].function])
				w->func_lib[lines[j].function] = lib;
		for (j = 0; j < loc->nlines; j++)
			if (!lines[j].function && made_function(w, lib, &func))
				return oom(w);
		if (!loc->nlines && made_function(w, lib, &func))
			return oom(w);
	}
	return 0;
}

/* The source files: one per file name a function has. */
static int build_sources(struct firefox *w)
{
	size_t n = pk_profile_function_count(w->p), i;

	w->source_of = calloc(w->nstrings + 1, sizeof(*w->source_of));
	w->source_file = malloc((n + 1) * sizeof(*w->source_file));
	if (!w->source_of || !w->source_file)
		return oom(w);
	for (i = 1; i <= n; i++) {
		pk_str file = pk_profile_function(w->p, (uint32_t)i)->filename;

		if (file && file < w->nstrings && !w->source_of[file]) {
			w->source_file[w->nsources++] = file;
			w->source_of[file] = (uint32_t)w->nsources;
		}
	}
	return 0;
}

static int category_of(const struct firefox *w, const struct pk_location *loc)
{
	const char *file = mapping_file(w, loc->mapping);
	size_t n = strlen(file);

	if (pki_starts_with(file, "[kernel") || pki_ends_with(file, ".ko") ||
	    pki_ends_with(file, "/vmlinux") || strcmp(file, "vmlinux") == 0 ||
	    (!loc->mapping && loc->address >= 0xffff800000000000ULL))
		return CAT_KERNEL;
	if ((pki_starts_with(file, "/tmp/perf-") && n > 4 &&
	     strcmp(file + n - 4, ".map") == 0) ||
	    strcmp(file, "[JIT]") == 0 || pki_starts_with(file, "//anon") ||
	    strstr(file, "/jitted-"))
		return CAT_JIT;
	return CAT_USER;
}

/* ---- the stack tree ---- */

static uint32_t node_slot(const struct firefox *w, uint32_t frame,
			  uint32_t prefix)
{
	return (uint32_t)(pki_hash_u64(((uint64_t)frame << 32) | prefix) &
			  (w->nslots - 1));
}

static int grow_slots(struct firefox *w)
{
	size_t i;

	free(w->slots);
	w->nslots = w->nslots ? w->nslots * 2 : 1024;
	w->slots = calloc(w->nslots, sizeof(*w->slots));
	if (!w->slots)
		return -1;
	for (i = 0; i < w->nnodes; i++) {
		uint32_t s = node_slot(w, w->nodes[i].frame, w->nodes[i].prefix);

		while (w->slots[s])
			s = (s + 1) & (uint32_t)(w->nslots - 1);
		w->slots[s] = (uint32_t)i + 1;
	}
	return 0;
}

/* The node of frame under prefix (node + 1, or 0 for a root), made once. */
static uint32_t child_node(struct firefox *w, uint32_t frame, uint32_t prefix)
{
	uint32_t s;

	if ((w->nnodes + 1) * 2 > w->nslots && grow_slots(w))
		return 0;
	for (s = node_slot(w, frame, prefix); w->slots[s];
	     s = (s + 1) & (uint32_t)(w->nslots - 1)) {
		const struct ff_node *n = &w->nodes[w->slots[s] - 1];

		if (n->frame == frame && n->prefix == prefix)
			return w->slots[s];
	}
	if (pki_grow(&w->nodes, &w->nodes_cap, w->nnodes + 1,
		     sizeof(*w->nodes)) < 0)
		return 0;
	w->nodes[w->nnodes].frame = frame;
	w->nodes[w->nnodes].prefix = prefix;
	w->slots[s] = (uint32_t)++w->nnodes;
	return w->slots[s];
}

/* A model stack's node (+ 1), root first, each inline frame a node. */
static uint32_t stack_node(struct firefox *w, uint32_t stack)
{
	size_t depth, d, nlocs = pk_profile_location_count(w->p);
	const uint32_t *locs;
	uint32_t node = 0, j, n;

	if (w->stack_node[stack])
		return w->stack_node[stack];
	locs = pk_profile_stack(w->p, stack, &depth);
	for (d = depth; d-- > 0;) {
		if (!locs[d] || locs[d] > nlocs)
			continue;
		n = pk_profile_location(w->p, locs[d])->nlines;
		for (j = 0; j < (n ? n : 1); j++) {
			node = child_node(w, w->frame_base[locs[d]] - 1 + j, node);
			if (!node)
				return UINT32_MAX;
		}
	}
	w->stack_node[stack] = node;
	return node;
}

static int build_stacks(struct firefox *w)
{
	size_t i;

	w->stack_node = calloc(pk_profile_stack_count(w->p) + 1,
			       sizeof(*w->stack_node));
	if (!w->stack_node)
		return oom(w);
	for (i = 0; i < w->norder; i++)
		if (stack_node(w, pk_profile_sample(w->p, w->order[i])->stack) ==
		    UINT32_MAX)
			return oom(w);
	return 0;
}

/* ---- meta and libraries ---- */

static void write_categories(struct firefox *w)
{
	static const char *const cats[][2] = {
		{ "Other", "grey" }, { "User", "yellow" },
		{ "Kernel", "orange" }, { "JIT", "green" },
	};
	size_t i;

	put(w, "\"categories\":[");
	for (i = 0; i < PK_ARRAY_SIZE(cats); i++) {
		put(w, i ? ",{\"name\":\"" : "{\"name\":\"");
		put(w, cats[i][0]);
		put(w, "\",\"color\":\"");
		put(w, cats[i][1]);
		put(w, "\",\"subcategories\":[\"Other\"]}");
	}
	put(w, "]");
}

/* The input's name without its directories, when the reader kept it. */
static const char *product_name(const struct pk_profile *p)
{
	const char *name = pk_profile_meta(p, PK_META_INPUT);

	return name && *name && name[0] != '<' ? base_name(name) : "profkit";
}

/* The sampling interval in ms: the period when it is a time. */
static double interval_ms(const struct firefox *w)
{
	struct pk_value_type t = pk_profile_period_type(w->p);
	int64_t period = pk_profile_period(w->p);

	if (period > 0 && strcmp(pk_profile_string(w->p, t.unit), "nanoseconds") == 0)
		return (double)period / 1e6;
	return 1;
}

static void write_meta(struct firefox *w)
{
	int64_t start = pk_profile_time_nanos(w->p);

	put(w, "{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":");
	put_int(w, FIREFOX_VERSION);
	put(w, ",\"product\":");
	put_cstring(w, product_name(w->p));
	put(w, ",\"interval\":");
	put_double(w, interval_ms(w));
	put(w, ",\"startTime\":");
	put_ms(w, start > 0 ? (uint64_t)start : 0);
	put(w, ",\"processType\":0,\"symbolicated\":true,"
	    "\"markerSchema\":[{\"name\":\"Tracepoint\",\"display\":"
	    "[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
	    "\"fields\":[]}],"
	    "\"importedFrom\":\"profkit " PACKAGE_VERSION "\",\n");
	write_categories(w);
	put(w, "},\n");
}

/*
 * Breakpad's id of an ELF file: its build id's first 16 bytes as a
 * GUID (the first three fields byte-swapped), uppercase, and age 0.
 */
static void put_breakpad_id(struct firefox *w, const char *build_id)
{
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
				       8, 9, 10, 11, 12, 13, 14, 15 };
	char id[34];
	size_t len = strlen(build_id), i;

	for (i = 0; i < 16; i++) {
		size_t at = (size_t)order[i] * 2;

		id[i * 2] = at < len ? build_id[at] : '0';
		id[i * 2 + 1] = at + 1 < len ? build_id[at + 1] : '0';
	}
	for (i = 0; i < 32; i++)
		if (id[i] >= 'a' && id[i] <= 'f')
			id[i] = (char)(id[i] - 'a' + 'A');
	id[32] = '0';
	id[33] = '\0';
	put(w, "\"");
	put(w, id);
	put(w, "\"");
}

static void write_lib(struct firefox *w, const struct pk_mapping *m)
{
	const char *path = pk_profile_string(w->p, m->file);
	const char *build_id = pk_profile_string(w->p, m->build_id);

	put(w, "{\"arch\":\"\",\"name\":");
	put_cstring(w, base_name(path));
	put(w, ",\"path\":");
	put_cstring(w, path);
	put(w, ",\"debugName\":");
	put_cstring(w, base_name(path));
	put(w, ",\"debugPath\":");
	put_cstring(w, path);
	put(w, ",\"breakpadId\":");
	if (*build_id)
		put_breakpad_id(w, build_id);
	else
		put(w, "\"\"");
	put(w, ",\"codeId\":");
	if (*build_id)
		put_cstring(w, build_id);
	else
		put(w, "null");
	put(w, "}");
}

static void write_libs(struct firefox *w)
{
	size_t i;

	put(w, "\"libs\":[");
	for (i = 0; i < w->nlibs; i++) {
		put(w, i ? ",\n" : "\n");
		write_lib(w, pk_profile_mapping(w->p, w->lib_mapping[i]));
	}
	put(w, "],\n");
}

/* ---- the shared tables ---- */

static void write_strings(struct firefox *w)
{
	size_t n = pk_profile_string_count(w->extra), i;

	put(w, "\"stringArray\":[");
	for (i = 0; i < w->nstrings && !w->rc; i++) {
		put(w, i ? (i % 16 ? "," : ",\n") : "");
		put_string(w, pk_profile_string(w->p, (pk_str)i),
			   pk_profile_string_len(w->p, (pk_str)i));
	}
	for (i = 0; i < n && !w->rc; i++) {
		put(w, w->nstrings + i ? ",\n" : "");
		put_string(w, pk_profile_string(w->extra, (pk_str)i),
			   pk_profile_string_len(w->extra, (pk_str)i));
	}
	put(w, "]");
}

static void write_resources(struct firefox *w)
{
	size_t i;

	table_start(w, "resourceTable", w->nlibs, (const char *const[]){
		"type", "1", "host", "null", NULL });
	put(w, ",\"lib\":[");
	for (i = 0; i < w->nlibs; i++) {
		put(w, i ? "," : "");
		put_int(w, (int64_t)i);
	}
	put(w, "],\"name\":[");
	for (i = 0; i < w->nlibs; i++) {
		put(w, i ? "," : "");
		put_int(w, w->lib_name[i]);
	}
	put(w, "]}");
}

static void put_lib(struct firefox *w, uint32_t lib_plus_one)
{
	put_int(w, (int64_t)lib_plus_one - 1);
}

static void put_source(struct firefox *w, size_t func)
{
	pk_str file = func < pk_profile_function_count(w->p) ?
		pk_profile_function(w->p, (uint32_t)func + 1)->filename : 0;

	if (file && file < w->nstrings)
		put_int(w, (int64_t)w->source_of[file] - 1);
	else
		put(w, "null");
}

static void write_functions(struct firefox *w)
{
	size_t nf = pk_profile_function_count(w->p), n = nf + w->nmade, i;

	table_start(w, "funcTable", n, (const char *const[]){
		"isJS", "false", "relevantForJS", "false",
		"columnNumber", "null", NULL });
	put(w, ",\"name\":[");
	for (i = 0; i < n && !w->rc; i++) {
		put(w, i ? (i % 16 ? "," : ",\n") : "");
		put_int(w, i < nf ? pk_profile_function(w->p, (uint32_t)i + 1)->name :
			w->made_name[i - nf]);
	}
	put(w, "],\"resource\":[");
	for (i = 0; i < n && !w->rc; i++) {
		put(w, i ? "," : "");
		put_lib(w, i < nf ? w->func_lib[i + 1] : w->made_lib[i - nf]);
	}
	put(w, "],\"source\":[");
	for (i = 0; i < n && !w->rc; i++) {
		put(w, i ? "," : "");
		put_source(w, i);
	}
	put(w, "],\"lineNumber\":[");
	for (i = 0; i < nf && !w->rc; i++) {
		int64_t line = pk_profile_function(w->p, (uint32_t)i + 1)->start_line;

		put(w, i ? "," : "");
		if (line > 0)
			put_int(w, line);
		else
			put(w, "null");
	}
	for (i = nf; i < n; i++)
		put(w, i ? ",null" : "null");
	put(w, "]}");
}

/* One frame: frame k of location loc (0: the outermost inline frame). */
static void write_frame_row(struct firefox *w, const struct pk_location *loc,
			    uint32_t k, int64_t *col)
{
	const struct pk_line *lines = pk_profile_location_lines(w->p, loc);
	const struct pk_mapping *m = loc->mapping ?
		pk_profile_mapping(w->p, loc->mapping) : NULL;
	uint32_t lib = w->mapping_lib[loc->mapping], func;
	const struct pk_line *line = loc->nlines ? &lines[loc->nlines - 1 - k] : NULL;

	col[0] = lib && loc->address >= m->start ?
		 (int64_t)(loc->address - m->start + m->offset) : -1;
	col[1] = k;
	col[2] = category_of(w, loc);
	if (line && line->function)
		col[3] = (int64_t)line->function - 1;
	else if (!made_function(w, lib, &func))
		col[3] = func;
	col[4] = line && line->line > 0 ? line->line : -1;
}

/* The frame table's columns, one pass over the locations per column. */
static void write_frames(struct firefox *w)
{
	static const char *const names[] = {
		"address", "inlineDepth", "category", "func", "line",
	};
	size_t nlocs = pk_profile_location_count(w->p), c, i;
	int64_t col[PK_ARRAY_SIZE(names)];
	uint32_t k, n;

	table_start(w, "frameTable", w->nframes, (const char *const[]){
		"subcategory", "0", "nativeSymbol", "null",
		"innerWindowID", "null", "column", "null", NULL });
	for (c = 0; c < PK_ARRAY_SIZE(names) && !w->rc; c++) {
		size_t out = 0;

		put(w, ",\n\"");
		put(w, names[c]);
		put(w, "\":[");
		for (i = 1; i <= nlocs && !w->rc; i++) {
			const struct pk_location *loc =
				pk_profile_location(w->p, (uint32_t)i);

			n = loc->nlines ? loc->nlines : 1;
			for (k = 0; k < n; k++) {
				write_frame_row(w, loc, k, col);
				put(w, out++ ? (out % 32 ? "," : ",\n") : "");
				if (c == 4 && col[c] < 0)
					put(w, "null");
				else
					put_int(w, col[c]);
			}
		}
		put(w, "]");
	}
	put(w, "}");
}

static void write_stack_table(struct firefox *w)
{
	size_t i;

	table_start(w, "stackTable", w->nnodes, (const char *const[]){ NULL });
	put(w, ",\"frame\":[");
	for (i = 0; i < w->nnodes && !w->rc; i++) {
		put(w, i ? (i % 32 ? "," : ",\n") : "");
		put_int(w, w->nodes[i].frame);
	}
	put(w, "],\n\"prefix\":[");
	for (i = 0; i < w->nnodes && !w->rc; i++) {
		put(w, i ? (i % 32 ? "," : ",\n") : "");
		if (w->nodes[i].prefix)
			put_int(w, (int64_t)w->nodes[i].prefix - 1);
		else
			put(w, "null");
	}
	put(w, "]}");
}

static void write_sources(struct firefox *w)
{
	size_t i;

	table_start(w, "sources", w->nsources, (const char *const[]){
		"id", "null", NULL });
	put(w, ",\"filename\":[");
	for (i = 0; i < w->nsources && !w->rc; i++) {
		put(w, i ? "," : "");
		put_int(w, w->source_file[i]);
	}
	put(w, "]}");
}

static void write_shared(struct firefox *w)
{
	put(w, "\"shared\":{");
	write_strings(w);
	write_stack_table(w);
	write_frames(w);
	write_functions(w);
	write_resources(w);
	put(w, ",\n\"nativeSymbols\":{\"length\":0,\"libIndex\":[],"
	    "\"address\":[],\"name\":[],\"functionSize\":[]}");
	write_sources(w);
	put(w, "},\n");
}

/* ---- threads ---- */

/* A sample's time from the first, or its place at the interval. */
static uint64_t time_ns(const struct firefox *w, size_t index, size_t nth,
			uint64_t first)
{
	uint64_t t = pk_profile_sample(w->p, index)->time;

	if (first && t >= first)
		return t - first;
	return (uint64_t)((double)nth * interval_ms(w) * 1e6);
}

enum ff_column { COL_WEIGHT, COL_STACK, COL_TIME, COL_NAME, COL_CAUSE };

static void write_cell(struct firefox *w, enum ff_column col, size_t index,
		       int tp, uint64_t ns)
{
	switch (col) {
	case COL_WEIGHT:
		put_double(w, (double)pk_profile_sample_values(w->p, index)[w->column] /
			   w->weight_div);
		break;
	case COL_STACK:
		put_int(w, (int64_t)stack_node(w,
			pk_profile_sample(w->p, index)->stack) - 1);
		break;
	case COL_TIME:
		put_ms(w, ns);
		break;
	case COL_NAME:
		put_int(w, pk_profile_event(w->p, (size_t)tp));
		break;
	case COL_CAUSE:	/* the tracepoint's stack, in the marker's tooltip */
		put(w, "{\"type\":\"Tracepoint\",\"cause\":{\"time\":");
		put_ms(w, ns);
		put(w, ",\"stack\":");
		write_cell(w, COL_STACK, index, tp, ns);
		put(w, "}}");
		break;
	}
}

/* The empty sample that ends an interval: no stack, no weight. */
static void write_end_cell(struct firefox *w, enum ff_column col,
			   uint64_t end, uint64_t first)
{
	if (col == COL_TIME)
		put_ms(w, end - first);
	else
		put(w, col == COL_STACK ? "null" : "0");
}

/* A column of a thread's samples, or with markers set its tracepoints'. */
static void write_column(struct firefox *w, const struct ff_thread *th,
			 int markers, const char *key, enum ff_column col,
			 uint64_t first)
{
	size_t i, out = 0;
	uint64_t end;

	put(w, ",\n\"");
	put(w, key);
	put(w, "\":[");
	for (i = 0; i < th->count && !w->rc; i++) {
		uint32_t index = w->order[th->first + i];
		const int64_t *v = pk_profile_sample_values(w->p, index);
		int tp = v[w->member] ? -1 : sample_tracepoint(w, v);

		if ((tp >= 0) != markers)
			continue;
		put(w, out++ ? (out % 32 ? "," : ",\n") : "");
		write_cell(w, col, index, tp, time_ns(w, index, i, first));
		if (!markers && w->interval_end &&
		    (end = w->interval_end[th->first + i]) != 0) {
			put(w, out++ % 32 ? "," : ",\n");
			write_end_cell(w, col, end, first);
		}
	}
	put(w, "]");
}

static size_t marker_count(const struct firefox *w, const struct ff_thread *th)
{
	size_t i, n = 0;

	for (i = 0; i < th->count; i++)
		n += !pk_profile_sample_values(w->p, w->order[th->first + i])[w->member];
	return n;
}

static void write_samples(struct firefox *w, const struct ff_thread *th,
			  uint64_t first)
{
	size_t markers = marker_count(w, th);

	table_start(w, "samples", th->count - markers + th->nends,
		    (const char *const[]){ NULL });
	put(w, ",\"weightType\":\"");
	put(w, w->weight_type);
	put(w, "\"");
	if (w->weighted)
		write_column(w, th, 0, "weight", COL_WEIGHT, first);
	else
		put(w, ",\"weight\":null");
	write_column(w, th, 0, "stack", COL_STACK, first);
	write_column(w, th, 0, "time", COL_TIME, first);
	put(w, "}");
	table_start(w, "markers", markers, (const char *const[]){
		"endTime", "null", "phase", "0", "category", "0", NULL });
	write_column(w, th, 1, "data", COL_CAUSE, first);
	write_column(w, th, 1, "name", COL_NAME, first);
	write_column(w, th, 1, "startTime", COL_TIME, first);
	put(w, "}");
}

/* A comm as its thread's name. */
static void put_comm(struct firefox *w, pk_str comm)
{
	size_t len;
	const char *s = pki_thread_comm(w->p, comm, &len);

	if (len)
		put_string(w, s, len);
	else
		put_cstring(w, product_name(w->p));
}

/* The process's name: the comm of its main thread (tid == pid). */
static pk_str process_comm(const struct firefox *w, const struct ff_thread *th)
{
	size_t i;

	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i].pid == th->pid && w->threads[i].tid == th->pid &&
		    w->threads[i].comm)
			return w->threads[i].comm;
	return th->comm;
}

static void write_thread(struct firefox *w, const struct ff_thread *th,
			 uint64_t first)
{
	put(w, "{\"processType\":\"default\",\"processStartupTime\":0,"
	    "\"processShutdownTime\":null,\"registerTime\":0,"
	    "\"unregisterTime\":null,\"pausedRanges\":[],\"name\":");
	put_comm(w, th->comm);
	put(w, ",\"processName\":");
	put_comm(w, process_comm(w, th));
	put(w, ",\"isMainThread\":");
	put(w, th->pid < 0 || th->pid == th->tid ? "true" : "false");
	put(w, ",\"pid\":\"");
	put_int(w, th->pid > 0 ? th->pid : 0);
	put(w, "\",\"tid\":");
	put_int(w, th->tid > 0 ? th->tid : 0);
	write_samples(w, th, first);
	put(w, "}");
}

static int write_file(struct firefox *w)
{
	struct ff_thread none = { .pid = -1, .tid = -1 };
	uint64_t first, last;
	size_t t;

	pk_profile_time_span(w->p, &first, &last);
	write_meta(w);
	write_libs(w);
	write_shared(w);
	put(w, "\"threads\":[");
	for (t = 0; t < w->nthreads && !w->rc; t++) {
		put(w, t ? ",\n" : "\n");
		write_thread(w, &w->threads[t], first);
	}
	if (!w->nthreads)	/* the profiler wants a thread to show */
		write_thread(w, &none, first);
	put(w, "],\n\"pages\":[],\"counters\":[]}\n");
	return pki_json_finish(&w->json) == PK_ENOMEM ? oom(w) : w->json.rc;
}

static void firefox_release(struct firefox *w)
{
	pk_profile_free(w->extra);
	free(w->tracepoint);
	free(w->threads);
	free(w->label_thread);
	free(w->order);
	free(w->interval_end);
	free(w->mapping_lib);
	free(w->lib_mapping);
	free(w->lib_name);
	free(w->func_lib);
	free(w->made_name);
	free(w->made_lib);
	free(w->frame_base);
	free(w->source_of);
	free(w->source_file);
	free(w->nodes);
	free(w->slots);
	free(w->stack_node);
}

static int firefox_write(struct pk_context *ctx, const struct pk_profile *p,
			 const struct pk_options *opts, struct pk_output *out)
{
	struct firefox w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.p = p;
	w.opts = opts;
	pki_output_json(&w.json, out);
	pki_thread_keys(p, &w.keys);
	w.interval_column = pki_interval_column(p);
	w.nstrings = pk_profile_string_count(p);
	w.extra = pk_profile_new(0);
	rc = w.extra ? choose_values(&w) : oom(&w);
	if (!rc)
		rc = build_threads(&w);
	if (!rc)
		rc = build_interval_ends(&w);
	if (!rc)
		rc = build_libs(&w);
	if (!rc)
		rc = build_frames(&w);
	if (!rc)
		rc = build_sources(&w);
	if (!rc)
		rc = build_stacks(&w);
	/* as the profiler saves it: gzipped when the name says so */
	if (!rc)
		rc = pki_output_gzip_if_named(out);
	if (!rc)
		rc = write_file(&w);
	firefox_release(&w);
	return rc;
}

const struct pki_format pki_format_firefox = {
	.name = "firefox",
	.write_description = "the Firefox Profiler's processed profile JSON "
			     "(https://profiler.firefox.com), gzipped if named .gz",
	.extension = ".firefox.json",
	.profile_flags = PK_PROFILE_KEEP_ORDER,
	.write = firefox_write,
};
