/* SPDX-License-Identifier: MIT */
/*
 * The Chrome Trace Event Format (JSON), for ui.perfetto.dev and
 * chrome://tracing, which the Firefox Profiler imports too. Each thread
 * gets, in "traceEvents":
 *
 *   - "M" metadata events naming its process and thread;
 *   - its samples as a V8 CPU profile: a "Profile" event and one
 *     "ProfileChunk" whose call tree nodes (id, parent, callFrame) and
 *     samples (leaf node ids, microsecond timeDeltas) Perfetto shows as
 *     CPU samples and the Firefox Profiler as its call tree; neither reads
 *     the format's "stackFrames"/"samples" form;
 *   - one complete event ("ph":"X") per frame for each run of samples that
 *     share it: the flame chart Perfetto and chrome://tracing draw, and the
 *     Firefox Profiler lists as markers.
 *
 *     {"traceEvents":[
 *      {"ph":"M","name":"thread_name","pid":42,"tid":43,"args":{"name":"app 43"}},
 *      {"ph":"P","name":"Profile","id":"0x1","pid":42,"tid":43,"ts":1000,...},
 *      {"ph":"P","name":"ProfileChunk","id":"0x1",...,"args":{"data":{
 *        "cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"main",
 *        ...}}],"samples":[2,2]},"timeDeltas":[1000,250]}}},
 *      {"ph":"X","name":"main","pid":42,"tid":43,"ts":1000,"dur":500}, ...]}
 *
 * Node ids are unique in the whole file, not per thread: the Firefox
 * Profiler keeps one frame table for all threads, indexed by node id.
 * Times are microseconds. Profiles without timestamps get a synthetic
 * timeline: each sample is repeated count times, spaced by the profile's
 * period when that is a time, else by 1 ms, from one spacing in.
 * An off-CPU interval (lib/core/internal.h) lasts as long as it did: its
 * complete events end with it, and the V8 profile samples it at the
 * same spacing, so that viewers which count samples weigh it by time.
 *
 * The JSON is written as the samples are walked; only the call tree and
 * one node id per sample are held in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome-trace.h"
#include "core/names.h"
#include "util/json.h"
#include "util/strbuf.h"

#define UNTIMED_SPACING 1000000	/* ns between samples of an untimed input */
#define MAX_REPEATS 1000000	/* synthetic samples in all, at the most */

/* A thread: its samples are order[first, first + count). */
struct thread {
	int64_t pid, tid;
	pk_str name, comm;	/* in names */
	size_t first, count;
	uint32_t end_node;	/* its nodes end here, the next thread's begin */
};

/* A sample as placed on the timeline: node, start, length, repeats. */
struct entry {
	uint32_t thread;
	uint32_t node;
	uint64_t seq;		/* input order, to keep sorting stable */
	uint64_t time, dur;	/* ns */
	int64_t reps;
	int interval;		/* an off-CPU interval: dur is exact */
};

struct chrome {
	struct pk_context *ctx;
	const struct pk_profile *p;
	struct pki_json json;

	int column, member;	/* the value shown; what marks a sample */
	int counted;		/* member counts samples: repeat untimed ones */
	int timed;		/* the input has timestamps */
	int ns_weights;		/* the column is a time in ns: a sample's length */
	int interval_column;	/* off-CPU lengths, or -1 */
	uint64_t spacing;	/* ns per repeat of an untimed sample */
	uint64_t wait_spacing;	/* ns per sample of an off-CPU wait */
	struct pki_thread_keys keys;
	const char *title;

	struct thread *threads;
	size_t nthreads, threads_cap;
	uint32_t *label_thread;	/* label set id -> thread index + 1 */
	size_t label_thread_cap;
	struct entry *order;
	size_t norder;

	struct pk_profile *names;	/* thread and frame names */
	struct pk_strbuf made;		/* a thread's or frame's name, made */
	struct pk_profile *frames;	/* frames as functions of this interner */
	struct pk_profile *nodes;	/* (parent, frame) keys -> node ids */
	struct node { uint32_t parent, frame; } *node;
	size_t node_cap;
	uint32_t *path, *open;	/* node chains, root first */
	size_t path_cap, open_cap, nopen;
	uint64_t *open_since;
	size_t open_since_cap;
};

static int oom(struct chrome *c)
{
	return pk_error_set(c->ctx, PK_ENOMEM, "chrome-trace: out of memory");
}

/* ---- output ---- */

static void put_name(struct chrome *c, const struct pk_profile *in, pk_str s)
{
	pki_json_string(&c->json, pk_profile_string(in, s),
			pk_profile_string_len(in, s));
}

/* Nanoseconds as microseconds, exactly: "1234.5". */
static void put_us(struct chrome *c, uint64_t ns)
{
	pki_json_fixed(&c->json, (int64_t)ns, 1000);
}

/* An event of one thread, opened: {"ph":"X","pid":1,"tid":2 */
static void event_head(struct chrome *c, const char *ph, const struct thread *t)
{
	struct pki_json *j = &c->json;

	pki_json_space(j, "\n");
	pki_json_begin_object(j);
	pki_json_key(j, "ph");
	pki_json_cstring(j, ph);
	pki_json_key(j, "pid");
	pki_json_int(j, t->pid);
	pki_json_key(j, "tid");
	pki_json_int(j, t->tid);
}

/* ---- threads ---- */

/*
 * The thread of a label set: by pid and tid, named "comm tid" as the
 * speedscope writer names its profiles; inputs without threads have one,
 * named after the input.
 */
static uint32_t thread_of(struct chrome *c, uint32_t labels)
{
	const struct pki_thread_name how = {
		.style = PKI_THREAD_COMM_TID, .trim = 1, .fallback = c->title,
	};
	struct pki_thread t;
	struct thread *th;
	int64_t pid, tid;
	size_t i, len;
	const char *comm;

	pki_thread_of(c->p, &c->keys, labels, &t);
	comm = pki_thread_comm(c->p, t.comm, &len);
	/* the trace has numbers: the pid for a missing tid, and 1 for both;
	 * threads without ids (speedscope's profiles) are known by name,
	 * numbered 1, 2, ... */
	pid = t.has_pid ? t.pid : -1;
	tid = t.has_tid ? t.tid : -1;
	if (tid < 0 && pid < 0 && len) {
		pk_str name = pk_profile_lookup_len(c->names, comm, len);

		for (i = 0; i < c->nthreads; i++)
			if (name && c->threads[i].comm == name)
				return (uint32_t)i + 1;
		tid = (int64_t)c->nthreads + 1;
	}
	if (tid < 0)
		tid = pid >= 0 ? pid : 1;
	if (pid < 0)
		pid = tid;
	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].pid == pid && c->threads[i].tid == tid)
			return (uint32_t)i + 1;
	if (pki_grow(&c->threads, &c->threads_cap, c->nthreads + 1,
		     sizeof(*c->threads)) < 0)
		return 0;
	/* and its name that tid, when the input has threads */
	t.tid = tid;
	t.has_tid = c->keys.tid || c->keys.pid;
	th = &c->threads[c->nthreads];
	*th = (struct thread){ .pid = pid, .tid = tid };
	c->made.len = 0;
	if (!pki_thread_name(&c->made, c->p, &t, &how))
		th->name = pk_profile_intern(c->names, c->made.s, c->made.len);
	th->comm = len ? pk_profile_intern(c->names, comm, len) :
		   pk_profile_intern_cstr(c->names, c->title);
	if (!th->name || !th->comm)
		return 0;
	return (uint32_t)++c->nthreads;
}

static uint32_t cached_thread(struct chrome *c, uint32_t labels)
{
	if (pki_grow_zeroed(&c->label_thread, &c->label_thread_cap,
			    (size_t)labels + 1, sizeof(*c->label_thread)) < 0)
		return 0;
	if (!c->label_thread[labels])
		c->label_thread[labels] = thread_of(c, labels);
	return c->label_thread[labels];
}

/* ---- frames and call tree nodes ---- */

/* As profkit-top names a frame: the function, else "[module]", else "<unknown>". */
static uint32_t frame_id(struct chrome *c, const struct pk_location *loc,
			 const struct pk_line *line)
{
	const struct pk_function *fn = line ? pk_profile_function(c->p, line->function) : NULL;
	const struct pk_mapping *m = loc ? pk_profile_mapping(c->p, loc->mapping) : NULL;
	const char *file = m && m->file ? pk_profile_string(c->p, m->file) : "";
	const struct pki_unknown_name unknown = { .style = PKI_UNKNOWN_PPROF };
	struct pk_function f = { 0 };

	if (fn && pk_profile_string_len(c->p, fn->name)) {
		f.name = pk_profile_intern(c->frames, pk_profile_string(c->p, fn->name),
					   pk_profile_string_len(c->p, fn->name));
		if (fn->filename)
			f.filename = pk_profile_intern_cstr(c->frames,
					pk_profile_string(c->p, fn->filename));
		f.start_line = fn->start_line;
	} else {
		c->made.len = 0;
		if (pki_unknown_name(&c->made, file, 0, &unknown))
			return 0;
		f.name = pk_profile_intern(c->frames, c->made.s, c->made.len);
	}
	return f.name ? pk_profile_intern_function(c->frames, &f) : 0;
}

/* The node for frame under parent (0: a root) in thread t, made on first use. */
static uint32_t node_id(struct chrome *c, uint32_t t, uint32_t parent,
			uint32_t frame)
{
	uint32_t key[3] = { t, parent, frame };
	size_t before = pk_profile_string_count(c->nodes);
	pk_str id = pk_profile_intern(c->nodes, (const char *)key, sizeof(key));

	if (!id || pk_profile_string_count(c->nodes) == before)
		return id;
	if (pki_grow(&c->node, &c->node_cap, (size_t)id + 1, sizeof(*c->node)) < 0)
		return 0;
	c->node[id].parent = parent;
	c->node[id].frame = frame;
	return id;
}

/* A sample's leaf node: its frames, inlined callers first, root first. */
static uint32_t sample_node(struct chrome *c, uint32_t t, uint32_t stack)
{
	size_t depth, d, j;
	const uint32_t *locs = pk_profile_stack(c->p, stack, &depth);
	uint32_t node = 0;

	for (d = depth; d-- > 0;) {
		const struct pk_location *loc = pk_profile_location(c->p, locs[d]);
		const struct pk_line *lines = loc ? pk_profile_location_lines(c->p, loc) : NULL;
		size_t n = loc && loc->nlines ? loc->nlines : 1;

		for (j = n; j-- > 0;) {
			uint32_t f = frame_id(c, loc, lines && loc->nlines ? &lines[j] : NULL);

			if (!f || !(node = node_id(c, t, node, f)))
				return 0;
		}
	}
	if (!depth)
		node = node_id(c, t, 0, frame_id(c, NULL, NULL));
	return node;
}

/* ---- the timeline ---- */

static int by_thread_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Counts that are really weights (a folded file of nanoseconds) would
 * repeat a sample millions of times: scale them all down to MAX_REPEATS
 * in total, which keeps their shares, and drop what rounds to nothing.
 */
static void limit_repeats(struct chrome *c)
{
	uint64_t total = 0, k;
	size_t i, n = 0;

	for (i = 0; i < c->norder; i++)
		total += (uint64_t)c->order[i].reps;
	if (c->timed || total <= MAX_REPEATS)
		return;
	k = (total + MAX_REPEATS - 1) / MAX_REPEATS;
	for (i = 0; i < c->norder; i++) {
		c->order[i].reps = (int64_t)(((uint64_t)c->order[i].reps + k / 2) / k);
		if (c->order[i].reps)
			c->order[n++] = c->order[i];
	}
	pk_warn(c->ctx, "chrome-trace: %llu samples in all: each count divided by "
		"%llu, %zu samples of %zu too small to keep", (unsigned long long)total,
		(unsigned long long)k, c->norder - n, c->norder);
	c->norder = n;
}

/*
 * Off-CPU waits are sampled once per spacing, but at most MAX_REPEATS
 * times in all: threads idle through a long recording would make the
 * file grow with its length. Past that, a wider spacing, with a warning.
 */
static void limit_wait_samples(struct chrome *c)
{
	uint64_t total = 0, k;
	size_t i;

	c->wait_spacing = c->spacing;
	for (i = 0; i < c->norder; i++)
		if (c->order[i].interval)
			total += c->order[i].dur / c->spacing;
	if (total <= MAX_REPEATS)
		return;
	k = (total + MAX_REPEATS - 1) / MAX_REPEATS;
	c->wait_spacing = k * c->spacing;
	pk_warn(c->ctx, "chrome-trace: off-CPU waits sampled every %llu ns, not "
		"every %llu (%llu samples otherwise): in the V8 profile they weigh "
		"%llu times less than running samples", (unsigned long long)c->wait_spacing,
		(unsigned long long)c->spacing, (unsigned long long)total,
		(unsigned long long)k);
}

/* An off-CPU interval lasts its length (its samples: place()). */
static void mark_interval(const struct chrome *c, struct entry *e, size_t index)
{
	uint64_t length = pki_interval_length(c->p, c->interval_column, index);

	if (length) {
		e->interval = 1;
		e->dur = length;
	}
}

/* The samples of the column, one entry each, sorted by thread and time. */
static int collect(struct chrome *c)
{
	size_t n = pk_profile_sample_count(c->p), i;
	int64_t scale = pk_profile_sample_type_scale(c->p, (size_t)c->column);

	c->order = malloc((n ? n : 1) * sizeof(*c->order));
	if (!c->order)
		return oom(c);
	for (i = 0; i < n; i++) {
		const int64_t *v = pk_profile_sample_values(c->p, i);
		const struct pk_sample *s = pk_profile_sample(c->p, i);
		struct entry *e = &c->order[c->norder];
		uint32_t t;

		if (!v[c->member])
			continue;
		if (!(t = cached_thread(c, s->labels)))
			return oom(c);
		*e = (struct entry){ .thread = t - 1, .seq = i, .time = s->time };
		e->reps = c->timed || !c->counted || v[c->member] < 1 ?
			  1 : v[c->member];
		if (c->ns_weights && v[c->column] > 0)
			e->dur = (uint64_t)(v[c->column] / (scale > 0 ? scale : 1));
		mark_interval(c, e, i);
		c->norder++;
	}
	if (c->norder > 1)	/* none: no array at all */
		qsort(c->order, c->norder, sizeof(*c->order), by_thread_time);
	limit_repeats(c);
	limit_wait_samples(c);
	return 0;
}

/* Mean time between a thread's samples: the length of one without a weight. */
static uint64_t mean_gap(const struct entry *e, size_t n)
{
	return n > 1 ? (e[n - 1].time - e[0].time) / (n - 1) : UNTIMED_SPACING;
}

/*
 * Untimed samples run back to back from one spacing in (a viewer may
 * drop a sample at 0), count times the spacing each.
 * A timed one runs until the next one, unless that comes more than half
 * a length late: then the thread slept between them. An off-CPU interval
 * runs for its length, and is sampled once per spacing it lasts, the
 * fractions carried over to the thread's next one (a short one may get
 * none), so that samples count time.
 */
static void place(struct chrome *c, struct entry *e, size_t n)
{
	uint64_t at = c->spacing, gap = c->timed ? mean_gap(e, n) : 0;
	uint64_t carry = c->wait_spacing / 2;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!c->timed) {
			e[i].time = at;
			e[i].dur = (uint64_t)e[i].reps * c->spacing;
			at += e[i].dur;
			continue;
		}
		if (e[i].interval) {
			carry += e[i].dur;
			e[i].reps = (int64_t)(carry / c->wait_spacing);
			carry -= (uint64_t)e[i].reps * c->wait_spacing;
			continue;
		}
		if (!e[i].dur)
			e[i].dur = gap ? gap : 1;
		if (i + 1 < n && e[i + 1].time - e[i].time <= e[i].dur + e[i].dur / 2)
			e[i].dur = e[i + 1].time - e[i].time;
	}
}

/* Split the sorted entries into threads, each placed, each sample a node. */
static int build_threads(struct chrome *c)
{
	size_t i = 0, j;

	while (i < c->norder) {
		struct thread *t = &c->threads[c->order[i].thread];

		for (j = i; j < c->norder && c->order[j].thread == c->order[i].thread; j++) {
			uint32_t stack = pk_profile_sample(c->p, c->order[j].seq)->stack;

			c->order[j].node = sample_node(c, c->order[i].thread, stack);
			if (!c->order[j].node)
				return oom(c);
		}
		t->first = i;
		t->count = j - i;
		t->end_node = (uint32_t)pk_profile_string_count(c->nodes);
		place(c, c->order + i, j - i);
		i = j;
	}
	return 0;
}

/* ---- writing a thread ---- */

static uint64_t us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

/* A metadata event: the thread's or process's name. */
static void write_name(struct chrome *c, const struct thread *t,
		       const char *what, pk_str name)
{
	struct pki_json *j = &c->json;

	event_head(c, "M", t);
	pki_json_key(j, "name");
	pki_json_cstring(j, what);
	pki_json_key(j, "cat");
	pki_json_cstring(j, "__metadata");
	pki_json_key(j, "args");
	pki_json_begin_object(j);
	pki_json_key(j, "name");
	put_name(c, c->names, name);
	pki_json_end_object(j);
	pki_json_end_object(j);
}

static void write_names(struct chrome *c, size_t ti)
{
	const struct thread *t = &c->threads[ti];
	size_t i;

	for (i = 0; i < ti && c->threads[i].pid != t->pid; i++)
		;
	if (i == ti)
		write_name(c, t, "process_name", t->comm);
	write_name(c, t, "thread_name", t->name);
}

static void write_node(struct chrome *c, uint32_t id)
{
	const struct pk_function *f = pk_profile_function(c->frames, c->node[id].frame);
	struct pki_json *j = &c->json;

	pki_json_space(j, "\n");
	pki_json_begin_object(j);
	pki_json_key(j, "id");
	pki_json_uint(j, id);
	if (c->node[id].parent) {
		pki_json_key(j, "parent");
		pki_json_uint(j, c->node[id].parent);
	}
	pki_json_key(j, "callFrame");
	pki_json_begin_object(j);
	pki_json_key(j, "functionName");
	put_name(c, c->frames, f->name);
	pki_json_key(j, "scriptId");
	pki_json_int(j, 0);
	if (f->filename) {
		pki_json_key(j, "url");
		put_name(c, c->frames, f->filename);
	}
	if (f->start_line > 0) {
		pki_json_key(j, "lineNumber");	/* 0-based */
		pki_json_int(j, f->start_line - 1);
	}
	pki_json_end_object(j);
	pki_json_end_object(j);
}

/* A V8 CPU profile's event, opened: profile id, start in us; then args. */
static void profile_event(struct chrome *c, const struct thread *t,
			  const char *name, size_t id, uint64_t start)
{
	struct pki_json *j = &c->json;
	char hex[32];

	snprintf(hex, sizeof(hex), "0x%zx", id);
	event_head(c, "P", t);
	pki_json_key(j, "name");
	pki_json_cstring(j, name);
	pki_json_key(j, "id");
	pki_json_cstring(j, hex);
	pki_json_key(j, "cat");
	pki_json_cstring(j, "disabled-by-default-v8.cpu_profiler");
	pki_json_key(j, "ts");
	pki_json_uint(j, start);
	pki_json_key(j, "args");
	pki_json_begin_object(j);
	pki_json_key(j, "data");
	pki_json_begin_object(j);
}

/* Close what profile_event opened: data, args, the event. */
static void profile_event_end(struct chrome *c)
{
	pki_json_end_object(&c->json);
	pki_json_end_object(&c->json);
	pki_json_end_object(&c->json);
}

/* The thread's samples as a V8 CPU profile with its own id. */
static void write_profile(struct chrome *c, size_t ti, uint32_t first_node,
			  uint32_t end_node)
{
	const struct thread *t = &c->threads[ti];
	const struct entry *e = c->order + t->first;
	uint64_t start = us(e[0].time), last = start;
	struct pki_json *j = &c->json;
	size_t i;
	int64_t r;
	uint32_t n;

	profile_event(c, t, "Profile", ti + 1, start);
	pki_json_key(j, "startTime");
	pki_json_uint(j, start);
	profile_event_end(c);
	profile_event(c, t, "ProfileChunk", ti + 1, start);
	pki_json_key(j, "cpuProfile");
	pki_json_begin_object(j);
	pki_json_key(j, "nodes");
	pki_json_begin_array(j);
	for (n = first_node; n < end_node; n++)
		write_node(c, n);
	pki_json_end_array(j);
	pki_json_space(j, "\n");
	pki_json_key(j, "samples");
	pki_json_begin_array(j);
	for (i = 0; i < t->count; i++)
		for (r = 0; r < e[i].reps; r++)
			pki_json_uint(j, e[i].node);
	pki_json_end_array(j);
	pki_json_end_object(j);
	pki_json_space(j, "\n");
	pki_json_key(j, "timeDeltas");
	pki_json_begin_array(j);
	for (i = 0; i < t->count; i++)
		for (r = 0; r < e[i].reps; r++) {
			uint64_t at = us(e[i].time + (uint64_t)r *
					  (e[i].interval ? c->wait_spacing : c->spacing));

			if (at < last)	/* an interval's samples overran */
				at = last;
			pki_json_uint(j, at - last);
			last = at;
		}
	pki_json_end_array(j);
	profile_event_end(c);
}

/* Complete events for the open frames below depth keep, innermost first. */
static void close_frames(struct chrome *c, const struct thread *t, size_t keep,
			 uint64_t at)
{
	struct pki_json *j = &c->json;

	while (c->nopen > keep) {
		const struct pk_function *f;

		c->nopen--;
		f = pk_profile_function(c->frames, c->node[c->open[c->nopen]].frame);
		event_head(c, "X", t);
		pki_json_key(j, "name");
		put_name(c, c->frames, f->name);
		pki_json_key(j, "ts");
		put_us(c, c->open_since[c->nopen]);
		pki_json_key(j, "dur");
		put_us(c, at - c->open_since[c->nopen]);
		pki_json_end_object(j);
	}
}

/* Root first, the nodes from the root to node, into path. */
static size_t node_path(struct chrome *c, uint32_t node)
{
	size_t depth = 0, i;
	uint32_t n;

	for (n = node; n; n = c->node[n].parent)
		depth++;
	if (pki_grow(&c->path, &c->path_cap, depth, sizeof(*c->path)) < 0)
		return (size_t)-1;
	for (n = node, i = depth; n; n = c->node[n].parent)
		c->path[--i] = n;
	return depth;
}

/* One complete event per frame for each run of samples that share it. */
static int write_runs(struct chrome *c, const struct thread *t)
{
	const struct entry *e = c->order + t->first;
	uint64_t end = 0;
	size_t i, same, depth;

	c->nopen = 0;
	for (i = 0; i < t->count && !c->json.rc; i++) {
		if (c->nopen && e[i].time > end)
			close_frames(c, t, 0, end);
		depth = node_path(c, e[i].node);
		if (depth == (size_t)-1 ||
		    pki_grow(&c->open, &c->open_cap, depth, sizeof(*c->open)) < 0 ||
		    pki_grow(&c->open_since, &c->open_since_cap, depth,
			     sizeof(*c->open_since)) < 0)
			return oom(c);
		for (same = 0; same < c->nopen && same < depth &&
		     c->open[same] == c->path[same]; same++)
			;
		close_frames(c, t, same, e[i].time);
		for (; c->nopen < depth; c->nopen++) {
			c->open[c->nopen] = c->path[c->nopen];
			c->open_since[c->nopen] = e[i].time;
		}
		end = e[i].time + e[i].dur;
	}
	close_frames(c, t, 0, end);
	return 0;
}

/* ---- the file ---- */

static int write_file(struct chrome *c)
{
	size_t ti;
	uint32_t first_node = 1, end_node;
	int rc = 0;

	struct pki_json *j = &c->json;

	pki_json_begin_object(j);
	pki_json_key(j, "displayTimeUnit");
	pki_json_cstring(j, "ms");
	pki_json_space(j, "\n");
	pki_json_key(j, "otherData");
	pki_json_begin_object(j);
	pki_json_key(j, "exporter");
	pki_json_cstring(j, "profkit " PACKAGE_VERSION);
	pki_json_key(j, "input");
	pki_json_cstring(j, c->title);
	pki_json_end_object(j);
	pki_json_space(j, "\n");
	pki_json_key(j, "traceEvents");
	pki_json_begin_array(j);
	for (ti = 0; ti < c->nthreads && !rc && !j->rc; ti++) {
		const struct thread *t = &c->threads[ti];

		if (!t->count)
			continue;
		end_node = t->end_node;
		write_names(c, ti);
		write_profile(c, ti, first_node, end_node);
		rc = write_runs(c, t);
		first_node = end_node;
	}
	pki_json_end_array(j);
	pki_json_end_object(j);
	pki_json_raw(j, "\n", 1);
	if (pki_json_finish(j) && !rc)
		rc = j->rc == PK_ENOMEM ? oom(c) : j->rc;
	return rc;
}

/*
 * The column folded shows (pk_value_column); a sample is the column's
 * event's when its count is non-zero.
 */
static int choose_column(struct chrome *c, const struct pk_options *opts)
{
	const struct pk_value_type *t;
	struct pk_value_type period = pk_profile_period_type(c->p);
	uint64_t first, last;
	int count;

	c->column = pk_value_column(c->ctx, c->p, opts);
	if (c->column < 0)
		return pk_context_error(c->ctx)->code;
	t = pk_profile_sample_type(c->p, (size_t)c->column);
	count = pk_profile_find_column(c->p, t->event, PK_VALUE_COUNT);
	c->member = count >= 0 ? count : c->column;
	c->counted = pk_profile_sample_type(c->p, (size_t)c->member)->kind ==
		     PK_VALUE_COUNT;
	c->ns_weights = strcmp(pk_profile_string(c->p, t->unit), "nanoseconds") == 0;
	c->interval_column = pki_interval_column(c->p);
	pk_profile_time_span(c->p, &first, &last);
	c->timed = first != 0;
	c->spacing = UNTIMED_SPACING;
	if (strcmp(pk_profile_string(c->p, period.unit), "nanoseconds") == 0 &&
	    pk_profile_period(c->p) > 0)
		c->spacing = (uint64_t)pk_profile_period(c->p);
	return 0;
}

static void chrome_release(struct chrome *c)
{
	free(c->made.s);
	free(c->threads);
	free(c->label_thread);
	free(c->order);
	pk_profile_free(c->names);
	pk_profile_free(c->frames);
	pk_profile_free(c->nodes);
	free(c->node);
	free(c->path);
	free(c->open);
	free(c->open_since);
}

int pki_chrome_trace_write(struct pk_context *ctx, const struct pk_profile *p,
			   const struct pk_options *opts, struct pk_output *out)
{
	struct chrome c = { .ctx = ctx, .p = p };
	int rc;

	c.title = pki_profile_title(p);
	pki_thread_keys(p, &c.keys);
	c.names = pk_profile_new(0);
	c.frames = pk_profile_new(0);
	c.nodes = pk_profile_new(0);
	rc = c.names && c.frames && c.nodes ? choose_column(&c, opts) : oom(&c);
	if (!rc && c.column >= 0)
		rc = collect(&c);
	if (!rc)
		rc = build_threads(&c);
	if (!rc)
		rc = pki_output_gzip_if_named(out);
	pki_output_json(&c.json, out);
	if (!rc)
		rc = write_file(&c);
	chrome_release(&c);
	return rc;
}
