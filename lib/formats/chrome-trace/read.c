/* SPDX-License-Identifier: MIT */
/*
 * Reader for the Chrome Trace Event Format (JSON): Chrome DevTools'
 * Performance panel "Save profile", chrome://tracing and Perfetto's JSON
 * export, our own writer (write.c). The document is an array of events
 * or an object holding one as "traceEvents":
 *
 *     {"traceEvents": [
 *      {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
 *      {"ph":"P","name":"Profile","id":"0x1","pid":1,"tid":2,"ts":100,
 *       "args":{"data":{"startTime":100}}},
 *      {"ph":"P","name":"ProfileChunk","id":"0x1","pid":1,"tid":2,"ts":100,
 *       "args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{...}},
 *        {"id":2,"parent":1,...}],"samples":[2,2]},"timeDeltas":[5,250]}}},
 *      {"ph":"X","name":"RunTask","pid":1,"tid":2,"ts":120,"dur":40},
 *      {"ph":"B","name":"parse","pid":1,"tid":2,"ts":130},
 *      {"ph":"E","name":"parse","pid":1,"tid":2,"ts":150}]}
 *
 * Two kinds of events become samples, each kind its own event of the
 * model, as the viewers take them:
 *
 *   - "cpu-profile": V8's CPU samples ("Profile" and the "ProfileChunk"s
 *     of its id and pid, or one "CpuProfile"), read as the Firefox
 *     Profiler's Chrome importer reads them: the nodes a call tree (parent
 *     ids, or children lists), each sample a node's stack on the thread of
 *     its Profile event. Frames are named as V8 names them, "(anonymous)"
 *     for none, url and lineNumber (0-based) as file and line; "(root)"
 *     is left out above a sample. Values: the samples counted, and their
 *     time, each sample weighing its profile's mean interval; timeDeltas
 *     (microseconds from the Profile's startTime) place them in time.
 *   - "slices": complete events ("X", with "dur") and "B"/"E" pairs,
 *     nested by time on each thread as speedscope's importer nests them,
 *     each slice a frame named by its "name" (args are left out, so that
 *     calls of one function are one frame). Values: each stretch of time
 *     a stack spends on top counted, and its length.
 *
 * The default (the first event) is the CPU samples when there are any:
 * a DevTools recording's slices are its tasks, its samples what ran in
 * them. With one kind only, the columns are "samples" and the event's
 * name; with both, "EVENT_samples" and "EVENT" each, as perf's readers
 * name several events. Threads are their pid and tid with the names of
 * "thread_name" metadata events (comm) and "process_name" ones
 * ("process" label). Other events (instant, counter, async, flow,
 * markers) are left out. Times are microseconds, kept as nanoseconds.
 *
 * Our writer's files read back to what they were written from: its
 * thread names "comm tid" lose the tid it appends, its threads made up
 * for an input without threads (pid and tid 1, named after the input)
 * have no thread labels, and its "<unknown>" frames are frames without
 * a function again. Its slices repeat its samples, so its samples are
 * the default there too.
 *
 * The document streams (lib/util/json-read.h). An event's members come
 * in any order (Chrome writes "args" first), so a chunk's nodes and
 * samples are kept until its event ends, unless its name, pid and id
 * came first (our writer's order): then they go straight to their
 * profile. Memory holds the nodes, one count per sampled node (one entry
 * per sample when the profile keeps samples in order, for a timeline),
 * and 40 bytes per slice until the end, when slices are nested.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome-trace.h"
#include "formats/registry.h"
#include "util/json-probe.h"
#include "util/json-read.h"

enum {
	EXPORTER = 1, INPUT_NAME,
	EVENT, PH, NAME, PID, TID, TS, DUR, ID, ARG_NAME, START_TIME,
	NODE, NODE_ID, NODE_PARENT, CHILD, FUNCTION_NAME, URL, LINE_NUMBER,
	SAMPLE, DELTA,
};

#define CPU_PROFILE ".args.data.cpuProfile"
#define NODES CPU_PROFILE ".nodes[]"
#define EVENT_PATHS(E) \
	{ E, EVENT }, { E ".ph", PH }, { E ".name", NAME }, \
	{ E ".pid", PID }, { E ".tid", TID }, { E ".ts", TS }, \
	{ E ".dur", DUR }, { E ".id", ID }, { E ".args.name", ARG_NAME }, \
	{ E ".args.data.startTime", START_TIME }, \
	{ E CPU_PROFILE ".startTime", START_TIME }, \
	{ E NODES, NODE }, { E NODES ".id", NODE_ID }, \
	{ E NODES ".parent", NODE_PARENT }, { E NODES ".children[]", CHILD }, \
	{ E NODES ".callFrame.functionName", FUNCTION_NAME }, \
	{ E NODES ".callFrame.url", URL }, \
	{ E NODES ".callFrame.lineNumber", LINE_NUMBER }, \
	{ E CPU_PROFILE ".samples[]", SAMPLE }, \
	{ E ".args.data.timeDeltas[]", DELTA }, \
	{ E CPU_PROFILE ".timeDeltas[]", DELTA }

static const struct pki_json_path paths[] = {
	{ "$.otherData.exporter", EXPORTER },
	{ "$.otherData.input", INPUT_NAME },
	EVENT_PATHS("$[]"),
	EVENT_PATHS("$.traceEvents[]"),
	{ NULL, 0 },
};

/* Microseconds, kept as nanoseconds. */
#define US_DECIMALS 3
/* Times past this (in ns, about 146 years) are refused. */
#define MAX_NS (INT64_MAX / 2)
#define MAX_NODE_ID INT32_MAX

enum event_kind { OTHER, PROFILE, CHUNK, CPU_PROFILE_EVENT, THREAD_NAME, PROCESS_NAME };

struct node {
	uint32_t id, parent;	/* parent: an id, if has_parent */
	uint32_t loc;		/* its frame's location */
	unsigned has_parent : 1;
	unsigned is_root : 1;	/* "(root)": left out above a sample */
	uint64_t offset;
};

/* A children list's entry: parent's child is child. */
struct link {
	uint32_t parent, child;
	uint64_t offset;
};

/* Samples of one node: how many, and where the first was named. */
struct hits {
	uint32_t node;
	uint64_t count;
	uint64_t offset;
};

/* A chunk's content: its profile's when the event said which first,
 * else kept here until the event ends. */
struct content {
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct link *links;
	size_t nlinks, links_cap;
	uint32_t *samples;
	uint64_t *sample_offsets;
	size_t nsamples, samples_cap, offsets_cap;
	int64_t *deltas;
	size_t ndeltas, deltas_cap;
};

/* A V8 CPU profile: its Profile event's pid and id, and what its chunks
 * brought. */
struct profile {
	int64_t pid, tid;
	int declared;		/* by a Profile or CpuProfile event */
	uint64_t offset;	/* of that event, or of the first chunk */
	int64_t start;		/* ns */
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct link *links;
	size_t nlinks, links_cap;
	struct pk_profile *hit_keys;	/* node id -> hits index + 1 */
	struct hits *hits;
	size_t hits_cap;
	uint32_t last_node;	/* the last sample's, and its hits index + 1 */
	pk_str last_hit;
	uint64_t nsamples, ndeltas;
	int64_t delta_sum, first_delta;	/* ns */
	/* with the samples kept in order: each one's node and time */
	uint32_t *order_nodes;
	int64_t *order_times;
	size_t norder, order_cap, ntimes, times_cap;
	int64_t clock;		/* the last sample's time from start */
};

struct thread {
	int64_t pid, tid;
	pk_str name;		/* in r->names */
	uint32_t labels;
};

struct process {
	int64_t pid;
	pk_str name;
};

/* A "B", "E" or "X" event, 40 bytes, kept until the end. */
struct slice {
	uint32_t thread;
	pk_str name;		/* in r->names */
	int64_t ts, dur;	/* ns */
	uint64_t offset;
	char ph;
};

/* The event being read. */
struct event {
	uint64_t offset;
	char ph;
	enum event_kind kind;
	pk_str name, id, arg_name;	/* in r->names */
	int has_name, has_pid, has_tid, has_ts, has_dur, has_id, has_start;
	int64_t pid, tid, ts, dur, start;
	struct profile *direct;	/* its content goes here as it comes */
	struct content kept;
	/* the node being read */
	struct node node;
	int has_node_id;
	pk_str function, url;
	int64_t line;
	uint32_t *children;
	uint64_t *child_offsets;
	size_t nchildren, children_cap, child_offsets_cap;
};

struct chrome_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pki_json_reader *jr;
	int keep_order;

	struct pk_profile *names;	/* event names, ids, thread names */
	struct pk_profile *keys;	/* binary keys of threads, profiles */
	uint32_t *key_index;		/* key id -> thread or profile + 1 */
	size_t key_index_cap;
	pk_str exporter, input_name;

	struct event ev;
	struct profile **profiles;
	size_t nprofiles, profiles_cap;
	struct thread *threads;
	size_t nthreads, threads_cap;
	struct process *processes;
	size_t nprocesses, processes_cap;
	struct slice *slices;
	size_t nslices, slices_cap;
	uint32_t *slice_locs;		/* name id -> its location */
	size_t slice_locs_cap;

	/* the columns: count and time of each kind */
	int cpu_count, cpu_time, slice_count, slice_time;
	size_t ncolumns;
	uint32_t *stack;		/* a stack being made, leaf first */
	size_t stack_cap;
	uint64_t unmatched_ends, undeclared;
};

static int oom(struct chrome_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory",
			    pk_input_name(r->in));
}

/* ---- keys: threads, processes and profiles found by their ids ---- */

/*
 * The index + 1 of what key names (kind, then the ids), or 0 when it is
 * new: then *id is the key's id, for set_key_index.
 */
static uint32_t find_key(struct chrome_reader *r, const void *key, size_t len,
			 pk_str *id)
{
	*id = pk_profile_intern(r->keys, key, len);
	if (!*id || pki_grow_zeroed(&r->key_index, &r->key_index_cap,
				    (size_t)*id + 1, sizeof(*r->key_index)) < 0) {
		*id = 0;
		return 0;
	}
	return r->key_index[*id];
}

static uint32_t thread_of(struct chrome_reader *r, int64_t pid, int64_t tid)
{
	int64_t key[3] = { 'T', pid, tid };
	pk_str id;
	uint32_t t = find_key(r, key, sizeof(key), &id);

	if (t || !id)
		return t;
	if (pki_grow(&r->threads, &r->threads_cap, r->nthreads + 1,
		     sizeof(*r->threads)) < 0)
		return 0;
	r->threads[r->nthreads] = (struct thread){ .pid = pid, .tid = tid };
	return r->key_index[id] = (uint32_t)++r->nthreads;
}

static int set_process_name(struct chrome_reader *r, int64_t pid, pk_str name)
{
	int64_t key[2] = { 'P', pid };
	pk_str id;
	uint32_t i = find_key(r, key, sizeof(key), &id);

	if (!i && !id)
		return oom(r);
	if (!i) {
		if (pki_grow(&r->processes, &r->processes_cap, r->nprocesses + 1,
			     sizeof(*r->processes)) < 0)
			return oom(r);
		r->processes[r->nprocesses] = (struct process){ .pid = pid };
		i = r->key_index[id] = (uint32_t)++r->nprocesses;
	}
	r->processes[i - 1].name = name;
	return 0;
}

static pk_str process_name(struct chrome_reader *r, int64_t pid)
{
	int64_t key[2] = { 'P', pid };
	pk_str s = pk_profile_lookup_len(r->keys, (const char *)key, sizeof(key));

	return s && s < r->key_index_cap && r->key_index[s] ?
	       r->processes[r->key_index[s] - 1].name : 0;
}

/*
 * The profile of a pid and id (kind 'C': a Profile's and its chunks'); a
 * CpuProfile event is a profile of its own (kind 'U', keyed by its offset).
 */
static struct profile *profile_of(struct chrome_reader *r, int64_t kind,
				  int64_t pid, int64_t tid, int64_t id,
				  uint64_t offset)
{
	int64_t key[3] = { kind, pid, id };
	struct profile *pr;
	pk_str kid;
	uint32_t i = find_key(r, key, sizeof(key), &kid);

	if (i)
		return r->profiles[i - 1];
	if (!kid || pki_grow(&r->profiles, &r->profiles_cap, r->nprofiles + 1,
			     sizeof(*r->profiles)) < 0 ||
	    !(pr = calloc(1, sizeof(*pr))))
		return NULL;
	pr->pid = pid;
	pr->tid = tid;
	pr->offset = offset;
	pr->hit_keys = pk_profile_new(0);
	r->profiles[r->nprofiles] = pr;
	if (!pr->hit_keys)
		return NULL;
	r->key_index[kid] = (uint32_t)++r->nprofiles;
	return pr;
}

static void free_profile(struct profile *pr)
{
	if (!pr)
		return;
	free(pr->nodes);
	free(pr->links);
	pk_profile_free(pr->hit_keys);
	free(pr->hits);
	free(pr->order_nodes);
	free(pr->order_times);
	free(pr);
}

/* ---- a profile's content ---- */

static int add_node(struct chrome_reader *r, struct profile *pr,
		    const struct node *n)
{
	if (pki_grow(&pr->nodes, &pr->nodes_cap, pr->nnodes + 1,
		     sizeof(*pr->nodes)) < 0)
		return oom(r);
	pr->nodes[pr->nnodes++] = *n;
	return 0;
}

static int add_link(struct chrome_reader *r, struct profile *pr,
		    const struct link *l)
{
	if (pki_grow(&pr->links, &pr->links_cap, pr->nlinks + 1,
		     sizeof(*pr->links)) < 0)
		return oom(r);
	pr->links[pr->nlinks++] = *l;
	return 0;
}

/* A sample of node: counted, and kept in order when the profile is. */
static int add_sample(struct chrome_reader *r, struct profile *pr,
		      uint32_t node, uint64_t offset)
{
	pk_str id = pr->last_hit;

	/* samples come in runs of one node (an idle thread, a hot loop) */
	if (!id || pr->last_node != node) {
		size_t before = pk_profile_string_count(pr->hit_keys);

		id = pk_profile_intern(pr->hit_keys, (const char *)&node, sizeof(node));
		if (!id || pki_grow(&pr->hits, &pr->hits_cap, (size_t)id,
				    sizeof(*pr->hits)) < 0)
			return oom(r);
		if (pk_profile_string_count(pr->hit_keys) != before)
			pr->hits[id - 1] = (struct hits){ .node = node, .offset = offset };
		pr->last_node = node;
		pr->last_hit = id;
	}
	pr->hits[id - 1].count++;
	pr->nsamples++;
	if (!r->keep_order)
		return 0;
	if (pki_grow(&pr->order_nodes, &pr->order_cap, pr->norder + 1,
		     sizeof(*pr->order_nodes)) < 0)
		return oom(r);
	pr->order_nodes[pr->norder++] = node;
	return 0;
}

static int add_delta(struct chrome_reader *r, struct profile *pr, int64_t ns)
{
	if (!pr->ndeltas++)
		pr->first_delta = ns;
	else
		pr->delta_sum += ns;
	pr->clock += ns;
	if (pr->clock > MAX_NS || pr->clock < -MAX_NS)
		return pki_json_reader_fail(r->jr, "a time past %lld ns",
					    (long long)MAX_NS);
	if (!r->keep_order)
		return 0;
	if (pki_grow(&pr->order_times, &pr->times_cap, pr->ntimes + 1,
		     sizeof(*pr->order_times)) < 0)
		return oom(r);
	pr->order_times[pr->ntimes++] = pr->clock;
	return 0;
}

/* Move what the event kept into its profile. */
static int add_content(struct chrome_reader *r, struct profile *pr,
		       struct content *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->nnodes; i++)
		rc = add_node(r, pr, &c->nodes[i]);
	for (i = 0; !rc && i < c->nlinks; i++)
		rc = add_link(r, pr, &c->links[i]);
	for (i = 0; !rc && i < c->nsamples; i++)
		rc = add_sample(r, pr, c->samples[i], c->sample_offsets[i]);
	for (i = 0; !rc && i < c->ndeltas; i++)
		rc = add_delta(r, pr, c->deltas[i]);
	c->nnodes = c->nlinks = c->nsamples = c->ndeltas = 0;
	return rc;
}

static void free_content(struct content *c)
{
	free(c->nodes);
	free(c->links);
	free(c->samples);
	free(c->sample_offsets);
	free(c->deltas);
}

/* ---- the event being read ---- */

static enum event_kind kind_of(const char *name, size_t len)
{
	static const struct { const char *name; enum event_kind kind; } kinds[] = {
		{ "Profile", PROFILE }, { "ProfileChunk", CHUNK },
		{ "CpuProfile", CPU_PROFILE_EVENT },
		{ "thread_name", THREAD_NAME }, { "process_name", PROCESS_NAME },
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i].name) == len && memcmp(kinds[i].name, name, len) == 0)
			return kinds[i].kind;
	return OTHER;
}

/*
 * Where a chunk's content goes (*pr): straight to its profile once the
 * event named it (name, pid and id before args, as our writer orders
 * them), else NULL: kept until the event ends. 0, or an error's code.
 */
static int content_target(struct chrome_reader *r, struct profile **pr)
{
	struct event *e = &r->ev;

	if (!e->direct && e->has_pid && e->has_id &&
	    (e->kind == PROFILE || e->kind == CHUNK) &&
	    !(e->direct = profile_of(r, 'C', e->pid, e->tid, e->id, e->offset)))
		return oom(r);
	*pr = e->direct;
	return 0;
}

static int keep_sample(struct chrome_reader *r, uint32_t node, uint64_t offset)
{
	struct content *c = &r->ev.kept;
	struct profile *pr;
	int rc = content_target(r, &pr);

	if (rc || pr)
		return rc ? rc : add_sample(r, pr, node, offset);
	if (pki_grow(&c->samples, &c->samples_cap, c->nsamples + 1,
		     sizeof(*c->samples)) < 0 ||
	    pki_grow(&c->sample_offsets, &c->offsets_cap, c->nsamples + 1,
		     sizeof(*c->sample_offsets)) < 0)
		return oom(r);
	c->sample_offsets[c->nsamples] = offset;
	c->samples[c->nsamples++] = node;
	return 0;
}

static int keep_delta(struct chrome_reader *r, int64_t ns)
{
	struct content *c = &r->ev.kept;
	struct profile *pr;
	int rc = content_target(r, &pr);

	if (rc || pr)
		return rc ? rc : add_delta(r, pr, ns);
	if (pki_grow(&c->deltas, &c->deltas_cap, c->ndeltas + 1,
		     sizeof(*c->deltas)) < 0)
		return oom(r);
	c->deltas[c->ndeltas++] = ns;
	return 0;
}

/* The location of the node's callFrame, as DevTools names it. */
static uint32_t node_location(struct chrome_reader *r)
{
	struct event *e = &r->ev;
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	const char *name = pk_profile_string(r->p, e->function);

	/* our writer's name for a frame without a function */
	if (strcmp(name, "<unknown>") == 0)
		return pk_profile_intern_location(r->p, 0, 0, NULL, 0);
	f.name = f.system_name = *name ? e->function :
				 pk_profile_intern_cstr(r->p, "(anonymous)");
	f.filename = e->url;
	f.start_line = e->line >= 0 ? e->line + 1 : 0;
	line.function = pk_profile_intern_function(r->p, &f);
	line.line = f.start_line;
	return pk_profile_intern_location(r->p, 0, 0, &line, 1);
}

static int end_node(struct chrome_reader *r)
{
	struct event *e = &r->ev;
	struct content *c = &e->kept;
	struct profile *pr;
	size_t i;
	int rc = 0;

	if (!e->has_node_id)
		return pki_json_reader_fail(r->jr, "a node without an \"id\"");
	e->node.loc = node_location(r);
	e->node.is_root = e->function &&
			  e->function == pk_profile_lookup(r->p, "(root)");
	if (!e->node.loc)
		return oom(r);
	if ((rc = content_target(r, &pr)))
		return rc;
	for (i = 0; !rc && i < e->nchildren; i++) {
		struct link l = { e->node.id, e->children[i], e->child_offsets[i] };

		if (pr)
			rc = add_link(r, pr, &l);
		else if (pki_grow(&c->links, &c->links_cap, c->nlinks + 1,
				  sizeof(*c->links)) < 0)
			rc = oom(r);
		else
			c->links[c->nlinks++] = l;
	}
	if (rc || pr)
		return rc ? rc : add_node(r, pr, &e->node);
	if (pki_grow(&c->nodes, &c->nodes_cap, c->nnodes + 1, sizeof(*c->nodes)) < 0)
		return oom(r);
	c->nodes[c->nnodes++] = e->node;
	return 0;
}

static int add_slice(struct chrome_reader *r)
{
	struct event *e = &r->ev;
	uint32_t t;

	if (!e->has_ts)
		return pki_json_reader_fail(r->jr, "a \"%c\" event without \"ts\"",
					    e->ph);
	if (!(t = thread_of(r, e->pid, e->tid)) ||
	    pki_grow(&r->slices, &r->slices_cap, r->nslices + 1,
		     sizeof(*r->slices)) < 0)
		return oom(r);
	r->slices[r->nslices] = (struct slice){
		.thread = t - 1, .name = e->name, .ph = e->ph, .ts = e->ts,
		.dur = e->ph == 'X' && e->has_dur ? e->dur : 0,
		.offset = e->offset,
	};
	r->nslices++;
	return 0;
}

/* The event is complete: what it is decides where it goes. */
static int end_event(struct chrome_reader *r)
{
	struct event *e = &r->ev;
	struct profile *pr = NULL;
	uint32_t t;

	switch (e->kind) {
	case PROFILE:
	case CHUNK:
		pr = e->direct ? e->direct :
		     profile_of(r, 'C', e->pid, e->tid, e->id, e->offset);
		if (!pr)
			return oom(r);
		if (e->kind == CHUNK)
			break;
		/* fall through */
	case CPU_PROFILE_EVENT:
		if (!pr && !(pr = profile_of(r, 'U', e->pid, e->tid,
					      (int64_t)e->offset, e->offset)))
			return oom(r);
		if (!pr->declared) {
			pr->declared = 1;
			pr->tid = e->tid;
			pr->offset = e->offset;
		}
		if (e->has_start)
			pr->start = e->start;
		break;
	case THREAD_NAME:
		if (!(t = thread_of(r, e->pid, e->tid)))
			return oom(r);
		r->threads[t - 1].name = e->arg_name;
		break;
	case PROCESS_NAME:
		return set_process_name(r, e->pid, e->arg_name);
	case OTHER:
		break;
	}
	if (pr)
		return add_content(r, pr, &e->kept);
	if (e->ph == 'B' || e->ph == 'E' || e->ph == 'X')
		return add_slice(r);
	return 0;
}

static void begin_event(struct chrome_reader *r)
{
	struct event *e = &r->ev;
	struct content kept = e->kept;

	kept.nnodes = kept.nlinks = kept.nsamples = kept.ndeltas = 0;
	*e = (struct event){
		.offset = pki_json_reader_value_offset(r->jr), .kept = kept,
		.children = e->children, .child_offsets = e->child_offsets,
		.children_cap = e->children_cap,
		.child_offsets_cap = e->child_offsets_cap,
	};
}

static void begin_node(struct chrome_reader *r)
{
	struct event *e = &r->ev;

	e->node = (struct node){ .offset = pki_json_reader_value_offset(r->jr) };
	e->has_node_id = 0;
	e->function = e->url = 0;
	e->line = -1;
	e->nchildren = 0;
}

static int add_child(struct chrome_reader *r, uint32_t id)
{
	struct event *e = &r->ev;

	if (pki_grow(&e->children, &e->children_cap, e->nchildren + 1,
		     sizeof(*e->children)) < 0 ||
	    pki_grow(&e->child_offsets, &e->child_offsets_cap, e->nchildren + 1,
		     sizeof(*e->child_offsets)) < 0)
		return oom(r);
	e->child_offsets[e->nchildren] = pki_json_reader_value_offset(r->jr);
	e->children[e->nchildren++] = id;
	return 0;
}

/* A string into the names interner (event names, ids, thread names). */
static int name_value(struct chrome_reader *r, const struct pki_json_value *v,
		      pk_str *out)
{
	if (pki_json_expect_string(r->jr, v))
		return pki_json_reader_code(r->jr);
	*out = pk_profile_intern(r->names, v->text, v->len);
	return *out || !v->len ? 0 : oom(r);
}

static int time_value(struct chrome_reader *r, const struct pki_json_value *v,
		      int64_t *ns, int *has)
{
	*has = 1;
	return pki_json_expect_scaled(r->jr, v, US_DECIMALS, -MAX_NS, MAX_NS, ns) ?
	       pki_json_reader_code(r->jr) : 0;
}

/* pid and tid: numbers (a string is no id the trace can nest by). */
static int id_value(struct chrome_reader *r, const struct pki_json_value *v,
		    int64_t *out, int *has)
{
	*has = 1;
	return pki_json_expect_int(r->jr, v, INT64_MIN, INT64_MAX, out) ?
	       pki_json_reader_code(r->jr) : 0;
}

/* A profile's id: "0x1" as Chrome writes it, or a number. */
static int profile_id_value(struct chrome_reader *r, const struct pki_json_value *v)
{
	struct event *e = &r->ev;

	if (v->type != PKI_JSON_STRING && v->type != PKI_JSON_NUMBER)
		return pki_json_reader_fail(r->jr, "expected a profile id");
	e->has_id = 1;
	e->id = pk_profile_intern(r->names, v->text, v->len);
	return e->id || !v->len ? 0 : oom(r);
}

static int node_id_value(struct chrome_reader *r, const struct pki_json_value *v,
			 uint32_t *out)
{
	int64_t n;

	if (pki_json_expect_int(r->jr, v, 0, MAX_NODE_ID, &n))
		return pki_json_reader_code(r->jr);
	*out = (uint32_t)n;
	return 0;
}

static int event_value(struct chrome_reader *r, int id,
		       const struct pki_json_value *v)
{
	struct event *e = &r->ev;
	int64_t n;
	uint32_t node = 0;
	int rc;

	switch (id) {
	case PH:
		if (pki_json_expect_string(r->jr, v))
			return pki_json_reader_code(r->jr);
		e->ph = v->len == 1 ? v->text[0] : '?';
		return 0;
	case NAME:
		e->has_name = 1;
		e->kind = kind_of(v->text ? v->text : "", v->type == PKI_JSON_STRING ? v->len : 0);
		return name_value(r, v, &e->name);
	case PID:
		return id_value(r, v, &e->pid, &e->has_pid);
	case TID:
		return id_value(r, v, &e->tid, &e->has_tid);
	case TS:
		return time_value(r, v, &e->ts, &e->has_ts);
	case DUR:
		return time_value(r, v, &e->dur, &e->has_dur);
	case START_TIME:
		return time_value(r, v, &e->start, &e->has_start);
	case ID:
		return profile_id_value(r, v);
	case ARG_NAME:
		return v->type == PKI_JSON_STRING ? name_value(r, v, &e->arg_name) : 0;
	case NODE_ID:
		e->has_node_id = 1;
		return node_id_value(r, v, &e->node.id);
	case NODE_PARENT:
		if ((rc = node_id_value(r, v, &e->node.parent)))
			return rc;
		e->node.has_parent = 1;
		return 0;
	case CHILD:
		return (rc = node_id_value(r, v, &node)) ? rc : add_child(r, node);
	case FUNCTION_NAME:
	case URL:
		if (pki_json_expect_string(r->jr, v))
			return pki_json_reader_code(r->jr);
		n = pk_profile_intern(r->p, v->text, v->len);
		if (!n && v->len)
			return oom(r);
		*(id == URL ? &e->url : &e->function) = (pk_str)n;
		return 0;
	case LINE_NUMBER:
		return pki_json_expect_int(r->jr, v, -1, INT32_MAX, &e->line) ?
		       pki_json_reader_code(r->jr) : 0;
	case SAMPLE:
		return (rc = node_id_value(r, v, &node)) ? rc :
		       keep_sample(r, node, pki_json_reader_value_offset(r->jr));
	case DELTA:
		if (pki_json_expect_scaled(r->jr, v, US_DECIMALS, -MAX_NS, MAX_NS, &n))
			return pki_json_reader_code(r->jr);
		return keep_delta(r, n);
	}
	return 0;
}

static int on_value(void *arg, struct pki_json_reader *jr, int id,
		    const struct pki_json_value *v)
{
	struct chrome_reader *r = arg;

	r->jr = jr;
	switch (id) {
	case EXPORTER:
		return v->type == PKI_JSON_STRING ? name_value(r, v, &r->exporter) : 0;
	case INPUT_NAME:
		return v->type == PKI_JSON_STRING ? name_value(r, v, &r->input_name) : 0;
	case EVENT:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_BEGIN_OBJECT) {
			begin_event(r);
			return 0;
		}
		return end_event(r);
	case NODE:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_BEGIN_OBJECT) {
			begin_node(r);
			return 0;
		}
		return end_node(r);
	}
	return event_value(r, id, v);
}

/* ---- the end: threads and samples ---- */

/* Written by our writer: its names are made, and read back unmade. */
static int ours(const struct chrome_reader *r)
{
	return r->exporter && strncmp(pk_profile_string(r->names, r->exporter),
				      "profkit ", 8) == 0;
}

/*
 * The thread's name as a comm. Our writer names threads "comm tid", and
 * an input's only thread (pid and tid 1, no thread labels) after the
 * input: neither is a comm.
 */
static pk_str thread_comm(struct chrome_reader *r, const struct thread *t,
			  int *no_labels)
{
	const char *name = pk_profile_string(r->names, t->name);
	size_t len = pk_profile_string_len(r->names, t->name);
	char tid[24];
	int n;

	*no_labels = 0;
	if (!ours(r) || !len)
		return len ? pk_profile_intern(r->p, name, len) : 0;
	if (t->pid == 1 && t->tid == 1 && r->input_name &&
	    t->name == r->input_name) {
		*no_labels = 1;
		return 0;
	}
	n = snprintf(tid, sizeof(tid), " %lld", (long long)t->tid);
	if ((size_t)n < len && memcmp(name + len - (size_t)n, tid, (size_t)n) == 0)
		len -= (size_t)n;
	return pk_profile_intern(r->p, name, len);
}

static uint32_t thread_labels(struct chrome_reader *r, int64_t pid, int64_t tid)
{
	struct pk_label l[4] = { { 0 } };
	struct thread *t;
	uint32_t i = thread_of(r, pid, tid);
	pk_str process;
	size_t n = 0;
	int none;

	if (!i)
		return 0;
	t = &r->threads[i - 1];
	if (t->labels)
		return t->labels;
	l[n].key = pk_profile_intern_cstr(r->p, "pid");
	l[n++].num = pid;
	l[n].key = pk_profile_intern_cstr(r->p, "tid");
	l[n++].num = tid;
	if ((l[n].str = thread_comm(r, t, &none)))
		l[n++].key = pk_profile_intern_cstr(r->p, "comm");
	if ((process = process_name(r, pid)) && !ours(r)) {
		l[n].key = pk_profile_intern_cstr(r->p, "process");
		l[n++].str = pk_profile_intern(r->p, pk_profile_string(r->names, process),
					       pk_profile_string_len(r->names, process));
	}
	return t->labels = none ? 0 : pk_profile_intern_labels(r->p, l, n);
}

/* A sample's count and time in their columns. */
static int add_values(struct chrome_reader *r, uint32_t stack, uint32_t labels,
		      uint64_t time, int count_column, uint64_t count,
		      int time_column, int64_t ns)
{
	int64_t values[64] = { 0 };

	values[count_column] = (int64_t)count;
	values[time_column] = ns;
	return pk_profile_add_sample(r->p, stack, labels, time, values, r->ncolumns);
}

/* ---- the end: profiles into samples ---- */

static int by_id(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The index of node id in the sorted nodes, or -1. */
static ssize_t find_node(const struct profile *pr, uint32_t id)
{
	size_t lo = 0, hi = pr->nnodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->nodes[mid].id == id)
			return (ssize_t)mid;
		if (pr->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int bad_at(struct chrome_reader *r, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A problem found at the end, said where its value was. */
static int bad_at(struct chrome_reader *r, uint64_t offset, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: offset %llu: %s",
			    pk_input_name(r->in), (unsigned long long)offset, what);
}

/*
 * Sort the nodes, give each its parent's index (+ 1, 0 for a root; from
 * "parent" or a children list) in parent, and refuse cycles.
 */
static int link_nodes(struct chrome_reader *r, struct profile *pr,
		      uint32_t *parent)
{
	unsigned char *state;
	size_t i, j;

	if (pr->nnodes > 1)	/* none: no array at all */
		qsort(pr->nodes, pr->nnodes, sizeof(*pr->nodes), by_id);
	for (i = 1; i < pr->nnodes; i++)
		if (pr->nodes[i].id == pr->nodes[i - 1].id)
			return bad_at(r, pr->nodes[i].offset, "node id %u given "
				      "twice in one profile", pr->nodes[i].id);
	for (i = 0; i < pr->nnodes; i++) {
		ssize_t k = pr->nodes[i].has_parent ?
			    find_node(pr, pr->nodes[i].parent) : -1;

		if (pr->nodes[i].has_parent && k < 0)
			return bad_at(r, pr->nodes[i].offset, "parent %u of "
				      "node %u: no such node", pr->nodes[i].parent,
				      pr->nodes[i].id);
		parent[i] = (uint32_t)(k + 1);
	}
	for (i = 0; i < pr->nlinks; i++) {
		ssize_t p = find_node(pr, pr->links[i].parent);
		ssize_t c = find_node(pr, pr->links[i].child);

		if (c < 0)
			return bad_at(r, pr->links[i].offset, "child %u of node "
				      "%u: no such node", pr->links[i].child,
				      pr->links[i].parent);
		if (!pr->nodes[c].has_parent)
			parent[c] = (uint32_t)p + 1;
	}
	/* 0 unseen, 1 on the walk, 2 leads to a root */
	if (!(state = calloc(pr->nnodes + 1, 1)))
		return oom(r);
	for (i = 0; i < pr->nnodes; i++) {
		for (j = i; state[j] == 0; j = parent[j] - 1) {
			state[j] = 1;
			if (!parent[j])
				break;
		}
		if (state[j] == 1 && parent[j]) {
			free(state);
			return bad_at(r, pr->nodes[j].offset, "node %u is its own "
				      "ancestor (the parent ids form a cycle)",
				      pr->nodes[j].id);
		}
		for (j = i; state[j] == 1; j = parent[j] ? parent[j] - 1 : j)
			state[j] = 2;
	}
	free(state);
	return 0;
}

/* The stack of node i: its frame and its ancestors', "(root)" left out
 * above it. One frame past the model's limit, for it to count the cut. */
static uint32_t node_stack(struct chrome_reader *r, const struct profile *pr,
			   const uint32_t *parent, size_t i)
{
	size_t max = pki_profile_max_stack(r->p), depth = 0;
	size_t n = i + 1;

	for (; n && depth <= max; n = parent[n - 1]) {
		if (pr->nodes[n - 1].is_root && n != i + 1)
			continue;
		if (pki_grow(&r->stack, &r->stack_cap, depth + 1, sizeof(*r->stack)) < 0)
			return 0;
		r->stack[depth++] = pr->nodes[n - 1].loc;
	}
	return pk_profile_intern_stack(r->p, r->stack, depth);
}


/* A profile's samples, each weighing its mean interval. */
static int add_profile(struct chrome_reader *r, struct profile *pr)
{
	uint32_t *parent, *stacks, labels;
	double mean;
	size_t i;
	int rc;

	if (pr->nsamples != pr->ndeltas)
		return bad_at(r, pr->offset, "%llu samples but %llu timeDeltas "
			      "in this profile", (unsigned long long)pr->nsamples,
			      (unsigned long long)pr->ndeltas);
	parent = malloc((pr->nnodes + 1) * sizeof(*parent));
	stacks = calloc(pr->nnodes + 1, sizeof(*stacks));
	rc = parent && stacks ? link_nodes(r, pr, parent) : oom(r);
	mean = pr->nsamples > 1 ? (double)pr->delta_sum / (double)(pr->nsamples - 1) :
	       (double)pr->first_delta;
	if (mean < 0)
		mean = 0;
	labels = rc ? 0 : thread_labels(r, pr->pid, pr->tid);
	for (i = 0; !rc && i < pk_profile_string_count(pr->hit_keys) - 1; i++) {
		const struct hits *h = &pr->hits[i];
		ssize_t k = find_node(pr, h->node);

		if (k < 0) {
			rc = bad_at(r, h->offset, "sample of node %u: no such "
				    "node", h->node);
			break;
		}
		if (!stacks[k] && !(stacks[k] = node_stack(r, pr, parent, (size_t)k)))
			rc = oom(r);
		else if (!r->keep_order)
			rc = add_values(r, stacks[k], labels, 0, r->cpu_count, h->count,
					r->cpu_time, (int64_t)(mean * (double)h->count + 0.5));
	}
	for (i = 0; !rc && i < pr->norder; i++) {
		int64_t at = pr->start + pr->order_times[i];

		rc = add_values(r, stacks[find_node(pr, pr->order_nodes[i])], labels,
				at > 0 ? (uint64_t)at : 0, r->cpu_count, 1,
				r->cpu_time, (int64_t)(mean + 0.5));
	}
	free(parent);
	free(stacks);
	return rc;
}

/* ---- the end: slices nested into stacks ---- */

/*
 * Openings and closings are slice indexes, put in speedscope's order:
 * by time; at one time the "B"s and "E"s before those made from "X"s;
 * those in the order of their X (by start, the longer first), the others
 * as they came.
 */
static int mark_order(const void *a, const void *b, void *arg, int closing)
{
	const struct slice *slices = arg;
	const struct slice *x = &slices[*(const uint32_t *)a];
	const struct slice *y = &slices[*(const uint32_t *)b];
	int64_t tx = x->ts + (closing ? x->dur : 0), ty = y->ts + (closing ? y->dur : 0);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if ((x->ph == 'X') != (y->ph == 'X'))
		return x->ph == 'X' ? 1 : -1;
	if (x->ph == 'X' && x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ph == 'X' && x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int opening_order(const void *a, const void *b, void *arg)
{
	return mark_order(a, b, arg, 0);
}

static int closing_order(const void *a, const void *b, void *arg)
{
	return mark_order(a, b, arg, 1);
}

/* Marks sorted by order; a pass first, as most traces come in time order
 * and then the sort's n log n comparisons are the most of the work. */
static void sort_marks(uint32_t *marks, size_t n, const struct slice *slices,
		       int (*order)(const void *, const void *, void *))
{
	size_t i = 1;

	while (i < n && order(&marks[i - 1], &marks[i], (void *)slices) < 0)
		i++;
	if (i < n)
		qsort_r(marks, n, sizeof(*marks), order, (void *)slices);
}

static uint32_t slice_location(struct chrome_reader *r, pk_str name)
{
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };

	if (pki_grow_zeroed(&r->slice_locs, &r->slice_locs_cap, (size_t)name + 1,
			    sizeof(*r->slice_locs)) < 0)
		return 0;
	if (r->slice_locs[name])
		return r->slice_locs[name];
	f.name = f.system_name = pk_profile_intern(r->p, pk_profile_string(r->names, name),
						   pk_profile_string_len(r->names, name));
	line.function = pk_profile_intern_function(r->p, &f);
	return r->slice_locs[name] = pk_profile_intern_location(r->p, 0, 0, &line, 1);
}

/* The slices open on a thread, outermost first, each with its stack
 * (0 until asked for). */
struct nesting {
	struct open { const struct slice *s; uint32_t stack; } *open;
	size_t nopen, open_cap;
	int64_t since;		/* when the top's stretch began */
	uint32_t labels;
};

/* The stack of the open slices, leaf first. */
static uint32_t open_stack(struct chrome_reader *r, struct nesting *n)
{
	size_t max = pki_profile_max_stack(r->p), depth, i;
	struct open *top = &n->open[n->nopen - 1];

	if (top->stack)
		return top->stack;
	depth = n->nopen <= max ? n->nopen : max + 1;
	if (pki_grow(&r->stack, &r->stack_cap, depth, sizeof(*r->stack)) < 0)
		return 0;
	for (i = 0; i < depth; i++)
		if (!(r->stack[i] = slice_location(r, n->open[n->nopen - 1 - i].s->name)))
			return 0;
	return top->stack = pk_profile_intern_stack(r->p, r->stack, depth);
}

/* The stretch the top of the stack has had until now: a sample. */
static int spend(struct chrome_reader *r, struct nesting *n, int64_t now)
{
	uint32_t stack;

	if (!n->nopen)
		return 0;
	if (!(stack = open_stack(r, n)))
		return oom(r);
	return add_values(r, stack, n->labels, n->since > 0 ? (uint64_t)n->since : 0,
			  r->slice_count, 1, r->slice_time, now - n->since);
}

static int unmatched_end(struct chrome_reader *r, const struct slice *s,
			 const char *why)
{
	if (pk_context_strict(r->ctx))
		return bad_at(r, s->offset, "an \"E\" event of \"%s\" %s "
			      "(--strict)", pk_profile_string(r->names, s->name), why);
	r->unmatched_ends++;
	return 0;
}

/* speedscope's choice between the next opening and the next closing */
static int open_first(const struct slice *b, const struct slice *e)
{
	int64_t end = e->ts + (e->ph == 'X' ? e->dur : 0);

	if (b->ts != end)
		return b->ts < end;
	return b == e || (b->ph != 'X' && e->ph != 'X' && b->name == e->name);
}

static int close_slice(struct chrome_reader *r, struct nesting *n,
		       uint32_t *e, size_t ne, size_t at)
{
	const struct slice *top, *s = &r->slices[e[at]];
	int64_t ts = s->ts + (s->ph == 'X' ? s->dur : 0);
	size_t k;
	int rc;

	if (!n->nopen)
		return unmatched_end(r, s, "without a \"B\" before it");
	top = n->open[n->nopen - 1].s;
	/* of the closings at this time, the top's first */
	for (k = at + 1; s->name != top->name && k < ne; k++) {
		const struct slice *o = &r->slices[e[k]];

		if (o->ts + (o->ph == 'X' ? o->dur : 0) != ts)
			break;
		if (o->name == top->name) {
			uint32_t m = e[at];

			e[at] = e[k];
			e[k] = m;
			s = o;
			break;
		}
	}
	if (s->name != top->name)
		return unmatched_end(r, s, "that is not the innermost open slice's");
	if ((rc = spend(r, n, ts)))
		return rc;
	n->nopen--;
	n->since = ts;
	return 0;
}

/* One thread's slices (indexes into r->slices), opened and closed in
 * time order; b and e have room for them. */
static int nest_thread(struct chrome_reader *r, const uint32_t *idx, size_t count,
		       uint32_t *b, uint32_t *e, struct nesting *n)
{
	const struct thread *t = &r->threads[r->slices[idx[0]].thread];
	size_t nb = 0, ne = 0, i, j;
	int rc = 0;

	for (i = 0; i < count; i++) {
		char ph = r->slices[idx[i]].ph;

		if (ph != 'E')
			b[nb++] = idx[i];
		if (ph != 'B')
			e[ne++] = idx[i];
	}
	sort_marks(b, nb, r->slices, opening_order);
	sort_marks(e, ne, r->slices, closing_order);
	n->nopen = 0;
	n->labels = thread_labels(r, t->pid, t->tid);
	for (i = j = 0; !rc && (i < nb || j < ne);) {
		if (j == ne || (i < nb && open_first(&r->slices[b[i]], &r->slices[e[j]]))) {
			if (pki_grow(&n->open, &n->open_cap, n->nopen + 1,
				     sizeof(*n->open)) < 0)
				return oom(r);
			rc = spend(r, n, r->slices[b[i]].ts);
			n->open[n->nopen++] = (struct open){ &r->slices[b[i]], 0 };
			n->since = r->slices[b[i++]].ts;
		} else {
			rc = close_slice(r, n, e, ne, j++);
		}
	}
	/* still open at the end: closed there, with nothing more spent */
	n->nopen = 0;
	return rc;
}

/* Each thread's slices, found by a counting sort on their threads. */
static int add_slices(struct chrome_reader *r)
{
	size_t n = r->nslices, i, t;
	uint32_t *idx = malloc((n + 1) * sizeof(*idx));
	uint32_t *b = malloc((n + 1) * sizeof(*b));
	uint32_t *e = malloc((n + 1) * sizeof(*e));
	size_t *first = calloc(r->nthreads + 1, sizeof(*first));
	struct nesting nest = { 0 };
	int rc = idx && b && e && first ? 0 : oom(r);

	for (i = 0; !rc && i < n; i++)
		first[r->slices[i].thread + 1]++;
	for (t = 0; !rc && t < r->nthreads; t++)
		first[t + 1] += first[t];
	for (i = 0; !rc && i < n; i++)
		idx[first[r->slices[i].thread]++] = (uint32_t)i;
	/* first[t] is now where thread t + 1 begins */
	for (t = 0; !rc && t < r->nthreads; t++) {
		size_t begin = t ? first[t - 1] : 0;

		if (first[t] > begin)
			rc = nest_thread(r, idx + begin, first[t] - begin, b, e, &nest);
	}
	if (!rc && r->unmatched_ends)
		pk_warn(r->ctx, "%s: %llu \"E\" events closed no open slice of "
			"their name: left out, as speedscope does (--strict: an "
			"error)", pk_input_name(r->in),
			(unsigned long long)r->unmatched_ends);
	free(idx);
	free(b);
	free(e);
	free(first);
	free(nest.open);
	return rc;
}

/* ---- the end: threads and columns ---- */

/* A column of the caller's profile (another input's, summed), or a new one. */
static int column(struct chrome_reader *r, const char *type, const char *unit,
		  const char *event, enum pk_value_kind kind)
{
	int c = pki_profile_column(r->p, type, unit, event, kind);

	if (c >= 0 && (size_t)c >= r->ncolumns)
		r->ncolumns = (size_t)c + 1;
	return c;
}

/* An event's two columns: "samples" and EVENT alone, "EVENT_samples" and
 * EVENT beside another. */
static int event_columns(struct chrome_reader *r, const char *event, int alone,
			 int *count, int *time)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_samples", event);
	*count = column(r, alone ? "samples" : name, "count", event, PK_VALUE_COUNT);
	*time = column(r, event, "nanoseconds", event, PK_VALUE_WEIGHT);
	return *count < 0 || *time < 0 ? oom(r) : 0;
}

static int declared_samples(struct chrome_reader *r)
{
	size_t i;
	int any = 0;

	for (i = 0; i < r->nprofiles; i++) {
		struct profile *pr = r->profiles[i];

		if (pr->declared) {
			any |= pr->nsamples > 0;
			continue;
		}
		if (pk_context_strict(r->ctx))
			return bad_at(r, pr->offset, "ProfileChunk of a profile "
				      "(pid %lld) that no Profile event declares "
				      "(--strict)", (long long)pr->pid);
		r->undeclared += pr->nsamples;
	}
	if (r->undeclared)
		pk_warn(r->ctx, "%s: %llu samples of ProfileChunk events that no "
			"Profile event declares: left out, as the Firefox "
			"Profiler does", pk_input_name(r->in),
			(unsigned long long)r->undeclared);
	return any;
}

static int add_everything(struct chrome_reader *r)
{
	int v8 = declared_samples(r), rc = pk_context_error(r->ctx)->code;
	size_t i;

	if (rc)
		return rc;
	r->ncolumns = pk_profile_sample_type_count(r->p);
	if (v8 && (rc = event_columns(r, "cpu-profile", !r->nslices,
				      &r->cpu_count, &r->cpu_time)))
		return rc;
	if (r->nslices && (rc = event_columns(r, "slices", !v8, &r->slice_count,
					      &r->slice_time)))
		return rc;
	if (r->ncolumns > 64)
		return pk_error_set(r->ctx, PK_EUSAGE, "too many sample types");
	for (i = 0; !rc && i < r->nprofiles; i++)
		if (r->profiles[i]->declared)
			rc = add_profile(r, r->profiles[i]);
	if (!rc && r->nslices)
		rc = add_slices(r);
	if (!rc && pk_profile_failed(r->p))
		rc = oom(r);
	return rc;
}

static void chrome_release(struct chrome_reader *r)
{
	size_t i;

	for (i = 0; i < r->nprofiles; i++)
		free_profile(r->profiles[i]);
	free(r->profiles);
	free(r->threads);
	free(r->processes);
	free(r->slices);
	free(r->slice_locs);
	free(r->stack);
	free(r->key_index);
	free_content(&r->ev.kept);
	free(r->ev.children);
	free(r->ev.child_offsets);
	pk_profile_free(r->names);
	pk_profile_free(r->keys);
}

static int chrome_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	struct chrome_reader r = { .ctx = ctx, .in = in, .p = p };
	int rc;

	(void)opts;
	r.keep_order = (pk_profile_flags(p) & PK_PROFILE_KEEP_ORDER) != 0;
	r.names = pk_profile_new(0);
	r.keys = pk_profile_new(0);
	rc = r.names && r.keys ? pki_input_read_json(in, paths, on_value, &r) : oom(&r);
	if (!rc)
		rc = add_everything(&r);
	if (!rc && !pk_profile_sample_count(p) &&
	    !(pk_profile_flags(p) & PK_PROFILE_KEEP_EMPTY))
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no V8 CPU samples and no "
				  "\"X\", \"B\" or \"E\" slices in the trace",
				  pk_input_name(in));
	chrome_release(&r);
	return rc;
}

/* ---- detection ---- */

/*
 * An object with "traceEvents", or an array whose first element is an
 * object with "ph" (a trace event's phase).
 */
static int chrome_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len, *first;

	s = pki_json_probe_space(s, end);
	if (s == end)
		return 0;
	if (*s == '{')
		return pki_json_probe_key(s, end, "traceEvents") ? 90 : 0;
	if (*s != '[')
		return 0;
	first = pki_json_probe_space(s + 1, end);
	if (first == end || *first != '{')
		return 0;
	return pki_json_probe_key(first, end, "ph") ? 80 : 0;
}

const struct pki_format pki_format_chrome_trace = {
	.name = "chrome-trace",
	.read_description = "Chrome Trace Event Format JSON: V8 CPU samples, "
			    "X and B/E slices (DevTools, Perfetto, chrome://tracing)",
	.probe = chrome_probe,
	.read = chrome_read,
	.write_description = "Chrome Trace Event Format JSON, per-thread samples "
			     "and slices (ui.perfetto.dev, chrome://tracing)",
	.extension = ".trace.json",
	.profile_flags = PK_PROFILE_KEEP_ORDER,
	.write = pki_chrome_trace_write,
};
