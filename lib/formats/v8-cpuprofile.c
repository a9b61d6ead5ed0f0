/* SPDX-License-Identifier: MIT */
/*
 * Reader for V8 CPU profiles (.cpuprofile: node --cpu-prof, Chrome
 * DevTools' "Save profile", the Profiler.stop result of the DevTools
 * protocol):
 *
 *     {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)",
 *                 "scriptId": "0", "url": "", "lineNumber": -1,
 *                 "columnNumber": -1}, "hitCount": 0, "children": [2]},
 *                {"id": 2, "callFrame": {"functionName": "main", "url":
 *                 "file:///app.js", "lineNumber": 4, ...}, ...}],
 *      "startTime": 7237668407, "endTime": 7238006045,
 *      "samples": [2, 2, ...], "timeDeltas": [1203, 1011, ...]}
 *
 * The nodes are a call tree (children lists, or DevTools' "parent" ids);
 * each sample names the node it hit, and its time is startTime plus the
 * deltas up to it (microseconds). A sample's stack is its node and the
 * node's ancestors, each frame the function V8 names, "(anonymous)" for
 * none as DevTools shows it, with its url as the file and its
 * lineNumber (0-based) as the line (1-based). (program), (idle) and
 * (garbage collector) stay as V8 names them; the tree's "(root)" is left
 * out of stacks as DevTools and speedscope show them (kept only for a
 * sample that hit it). Columns, positionTicks and scriptIds are not
 * kept.
 *
 * Values: "samples" counts them; "wall" gives each the profile's
 * duration over its sample count, as DevTools' self and total times
 * (and the Firefox Profiler's percentages, which count samples) weigh
 * them; the time of each sample places it on a timeline. One thread,
 * "main", per file. Without samples (an old profile) the nodes'
 * hitCounts are the counts, without times.
 *
 * The document streams (lib/util/json-read.h): nodes come first in
 * every producer's files, samples are added as they come. The input is
 * read into a profile of its own, so that the wall column can be made
 * when the sample count is known, then appended to the caller's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/registry.h"
#include "core/internal.h"
#include "transforms/copy.h"
#include "util/json-read.h"

enum {
	DOCUMENT = 1, NODES, NODE, NODE_ID, CALL_FRAME, FUNCTION_NAME, URL, LINE_NUMBER,
	CHILDREN, CHILD, PARENT, HIT_COUNT,
	START_TIME, END_TIME, SAMPLES, SAMPLE, TIME_DELTAS, TIME_DELTA,
};

static const struct pki_json_path paths[] = {
	{ "$", DOCUMENT },
	{ "$.nodes", NODES },
	{ "$.nodes[]", NODE },
	{ "$.nodes[].id", NODE_ID },
	{ "$.nodes[].callFrame", CALL_FRAME },
	{ "$.nodes[].callFrame.functionName", FUNCTION_NAME },
	{ "$.nodes[].callFrame.url", URL },
	{ "$.nodes[].callFrame.lineNumber", LINE_NUMBER },
	{ "$.nodes[].children", CHILDREN },
	{ "$.nodes[].children[]", CHILD },
	{ "$.nodes[].parent", PARENT },
	{ "$.nodes[].hitCount", HIT_COUNT },
	{ "$.startTime", START_TIME },
	{ "$.endTime", END_TIME },
	{ "$.samples", SAMPLES },
	{ "$.samples[]", SAMPLE },
	{ "$.timeDeltas", TIME_DELTAS },
	{ "$.timeDeltas[]", TIME_DELTA },
	{ NULL, 0 },
};

/* Times are microseconds; the model's are nanoseconds. */
#define US_DECIMALS 3
/* Times past this (in ns, about 292 years) are refused. */
#define MAX_NS (INT64_MAX / 2)

struct v8_node {
	uint32_t id;
	uint32_t parent;	/* node index + 1, 0: none */
	uint32_t loc;		/* its frame's location */
	uint32_t stack;		/* of a sample at it, 0 until one */
	uint64_t hits;		/* hitCount */
	uint64_t offset;	/* where it is, for messages */
	unsigned is_root : 1;	/* named "(root)": left out above a sample */
};

/* A child or parent id, resolved once all nodes are read. */
struct link {
	uint32_t node;		/* the node index that names it */
	uint32_t id;		/* the node it names */
	uint32_t position;	/* in children[], or UINT32_MAX for parent */
	uint64_t offset;
};

/* A sample read before the nodes: resolved with them. */
struct early_sample {
	uint32_t id;
	uint64_t offset;
};

struct v8_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;		/* the caller's */
	struct pk_profile *own;		/* this input's, appended at the end */
	struct pki_json_reader *jr;	/* in the callback */

	struct v8_node *nodes;
	size_t nnodes, nodes_cap;
	uint32_t *by_id;		/* node indexes sorted by id */
	struct link *links;
	size_t nlinks, links_cap;
	int nodes_done;

	/* the node being read */
	int has_id;
	struct pk_function fn;
	int named;
	int64_t line;

	struct early_sample *early;
	size_t nearly, early_cap;
	/* stacks waiting for their time deltas (timelines only) */
	uint32_t *stacks;
	size_t nstacks, done, stacks_cap;
	int keep_order, has_samples, has_deltas, has_start, has_end;
	int64_t start, end;		/* ns */
	int64_t elapsed;		/* the deltas so far, ns */
	uint64_t nsamples, ndeltas;
	int64_t *deltas;
	size_t ndeltas_waiting, deltas_cap;

	uint32_t *locs;
	size_t locs_cap;
	uint32_t labels;
	int count_column;
};

static int oom(struct v8_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory", pk_input_name(r->in));
}

/* ---- nodes ---- */

static int end_node(struct v8_reader *r)
{
	struct v8_node *n = &r->nodes[r->nnodes];
	struct pk_line line = { 0 };

	if (!r->has_id)
		return pki_json_reader_fail(r->jr, "expected the node's \"id\"");
	if (!r->named)	/* V8's nameless functions, as DevTools shows them */
		r->fn.name = pk_profile_intern_cstr(r->own, "(anonymous)");
	r->fn.system_name = r->fn.name;
	r->fn.start_line = r->line;
	line.function = pk_profile_intern_function(r->own, &r->fn);
	line.line = r->line;
	n->loc = pk_profile_intern_location(r->own, 0, 0, &line, 1);
	n->is_root = r->fn.name == pk_profile_lookup(r->own, "(root)");
	r->nnodes++;
	return pk_profile_failed(r->own) ? oom(r) : 0;
}

static int begin_node(struct v8_reader *r)
{
	if (r->nnodes == UINT32_MAX - 1)
		return pki_json_reader_fail(r->jr, "more nodes than %u", UINT32_MAX - 1);
	if (pki_grow(&r->nodes, &r->nodes_cap, r->nnodes + 1, sizeof(*r->nodes)) < 0)
		return oom(r);
	memset(&r->nodes[r->nnodes], 0, sizeof(r->nodes[r->nnodes]));
	r->nodes[r->nnodes].offset = pki_json_reader_value_offset(r->jr);
	memset(&r->fn, 0, sizeof(r->fn));
	r->has_id = r->named = 0;
	r->line = 0;
	return 0;
}

static int add_link(struct v8_reader *r, const struct pki_json_value *v,
		    uint32_t position)
{
	int64_t id;

	if (pki_json_expect_int(r->jr, v, 0, UINT32_MAX, &id))
		return pki_json_reader_code(r->jr);
	if (pki_grow(&r->links, &r->links_cap, r->nlinks + 1, sizeof(*r->links)) < 0)
		return oom(r);
	r->links[r->nlinks++] = (struct link){
		.node = (uint32_t)r->nnodes, .id = (uint32_t)id, .position = position,
		.offset = pki_json_reader_value_offset(r->jr),
	};
	return 0;
}

static int node_field(struct v8_reader *r, int id, const struct pki_json_value *v)
{
	struct v8_node *n = &r->nodes[r->nnodes];
	int64_t x;

	switch (id) {
	case NODE_ID:
		if (pki_json_expect_int(r->jr, v, 0, UINT32_MAX, &x))
			return pki_json_reader_code(r->jr);
		n->id = (uint32_t)x;
		r->has_id = 1;
		return 0;
	case CALL_FRAME:
		return pki_json_expect_object(r->jr, v);
	case FUNCTION_NAME:
	case URL:
		if (pki_json_expect_string(r->jr, v))
			return pki_json_reader_code(r->jr);
		if (!v->len)
			return 0;
		if (id == FUNCTION_NAME)
			r->named = 1;
		*(id == URL ? &r->fn.filename : &r->fn.name) =
			pk_profile_intern(r->own, v->text, v->len);
		return pk_profile_failed(r->own) ? oom(r) : 0;
	case LINE_NUMBER:
		if (pki_json_expect_int(r->jr, v, -1, INT32_MAX, &x))
			return pki_json_reader_code(r->jr);
		r->line = x + 1;	/* -1, none, becomes 0 */
		return 0;
	case CHILDREN:
		return pki_json_expect_array(r->jr, v);
	case CHILD:
		return add_link(r, v, (uint32_t)pki_json_reader_index(r->jr));
	case PARENT:
		return add_link(r, v, UINT32_MAX);
	default:
		if (pki_json_expect_int(r->jr, v, 0, INT64_MAX, &x))
			return pki_json_reader_code(r->jr);
		n->hits = (uint64_t)x;
		return 0;
	}
}

/* ---- the tree ---- */

/* A message about what was read earlier, at its offset and path. */
static int bad_at(struct v8_reader *r, uint64_t offset, const char *path,
		  const char *what)
{
	return pk_error_set(r->ctx, PK_EINPUT, "%s: offset %llu (%s): %s",
			    pk_input_name(r->in), (unsigned long long)offset, path, what);
}

static int compare_ids(const void *a, const void *b, void *arg)
{
	const struct v8_node *nodes = arg;
	uint32_t x = nodes[*(const uint32_t *)a].id, y = nodes[*(const uint32_t *)b].id;

	return (x > y) - (x < y);
}

/* The index of node id, or -1. V8 numbers its nodes 1, 2, ...: looked
 * up at once; others by binary search. */
static int64_t node_index(const struct v8_reader *r, uint32_t id)
{
	size_t lo = 0, hi = r->nnodes;

	if (id && id <= r->nnodes && r->nodes[id - 1].id == id)
		return (int64_t)id - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t m = r->nodes[r->by_id[mid]].id;

		if (m == id)
			return r->by_id[mid];
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Each child and parent link made a parent, once all nodes are known. */
static int link_nodes(struct v8_reader *r)
{
	char path[96], what[160];
	size_t i;

	r->by_id = malloc((r->nnodes + 1) * sizeof(*r->by_id));
	if (!r->by_id)
		return oom(r);
	for (i = 0; i < r->nnodes; i++)
		r->by_id[i] = (uint32_t)i;
	qsort_r(r->by_id, r->nnodes, sizeof(*r->by_id), compare_ids, r->nodes);
	for (i = 1; i < r->nnodes; i++) {
		const struct v8_node *n = &r->nodes[r->by_id[i]];

		if (n->id != r->nodes[r->by_id[i - 1]].id)
			continue;
		snprintf(path, sizeof(path), "$.nodes[%u]", r->by_id[i]);
		snprintf(what, sizeof(what), "a second node with id %u", n->id);
		return bad_at(r, n->offset, path, what);
	}
	for (i = 0; i < r->nlinks; i++) {
		const struct link *l = &r->links[i];
		int64_t k = node_index(r, l->id);
		uint32_t child = l->position == UINT32_MAX ? l->node : (uint32_t)k;
		uint32_t parent = l->position == UINT32_MAX ? (uint32_t)k : l->node;

		if (l->position == UINT32_MAX)
			snprintf(path, sizeof(path), "$.nodes[%u].parent", l->node);
		else
			snprintf(path, sizeof(path), "$.nodes[%u].children[%u]", l->node,
				 l->position);
		if (k < 0) {
			snprintf(what, sizeof(what), "node %u is not in $.nodes", l->id);
			return bad_at(r, l->offset, path, what);
		}
		if (r->nodes[child].parent && r->nodes[child].parent != parent + 1) {
			snprintf(what, sizeof(what), "node %u has two parents, nodes %u "
				 "and %u", r->nodes[child].id,
				 r->nodes[r->nodes[child].parent - 1].id, r->nodes[parent].id);
			return bad_at(r, l->offset, path, what);
		}
		r->nodes[child].parent = parent + 1;
	}
	r->nodes_done = 1;
	return 0;
}

/* The stack of a sample at node index k: it and its ancestors, leaf
 * first, without a "(root)" above it. */
static int sample_stack(struct v8_reader *r, uint32_t k, uint32_t *stack)
{
	struct v8_node *n = &r->nodes[k];
	size_t depth = 0;
	uint32_t i = k;

	for (*stack = n->stack; !*stack;) {
		const struct v8_node *m = &r->nodes[i];

		if (depth > r->nnodes)
			return pki_json_reader_fail(r->jr, "the parents of node %u "
						    "form a cycle", n->id);
		if (pki_grow(&r->locs, &r->locs_cap, depth + 1, sizeof(*r->locs)) < 0)
			return oom(r);
		if (!m->is_root || m->parent || i == k)
			r->locs[depth++] = m->loc;
		if (!m->parent) {
			*stack = n->stack = pk_profile_intern_stack(r->own, r->locs, depth);
			if (!*stack)
				return oom(r);
		}
		i = m->parent - 1;
	}
	return 0;
}

/* ---- samples ---- */

static int add_sample(struct v8_reader *r, uint32_t stack, uint64_t time)
{
	int64_t one = 1;

	r->nsamples++;
	return pk_profile_add_sample(r->own, stack, r->labels, time, &one, 1) ?
	       oom(r) : 0;
}

/* Stacks with their times, as far as both are read (timelines). */
static int pump(struct v8_reader *r, int at_end)
{
	size_t n = r->nstacks < r->ndeltas_waiting ? r->nstacks : r->ndeltas_waiting;
	int rc = 0;

	if (!r->has_start && !at_end)
		return 0;
	if (at_end && n < r->nstacks)
		n = r->nstacks;	/* no deltas: no times */
	for (; r->done < n && !rc; r->done++) {
		int64_t time = 0;

		if (r->done < r->ndeltas_waiting) {
			r->elapsed += r->deltas[r->done];
			time = r->start + r->elapsed;
		}
		rc = add_sample(r, r->stacks[r->done], time > 0 ? (uint64_t)time : 0);
	}
	if (r->done == r->nstacks && r->done == r->ndeltas_waiting)
		r->done = r->nstacks = r->ndeltas_waiting = 0;
	return rc;
}

/* A sample at node id; early: the index of one read before the nodes. */
static int sample(struct v8_reader *r, uint32_t id, const size_t *early)
{
	int64_t k = node_index(r, id);
	uint32_t stack;
	int rc;

	if (k < 0) {
		char what[64], path[48];

		snprintf(what, sizeof(what), "node %u is not in $.nodes", id);
		if (!early)
			return pki_json_reader_fail(r->jr, "%s", what);
		snprintf(path, sizeof(path), "$.samples[%zu]", *early);
		return bad_at(r, r->early[*early].offset, path, what);
	}
	if ((rc = sample_stack(r, (uint32_t)k, &stack)))
		return rc;
	if (!r->keep_order)
		return add_sample(r, stack, 0);
	if (pki_grow(&r->stacks, &r->stacks_cap, r->nstacks + 1, sizeof(*r->stacks)) < 0)
		return oom(r);
	r->stacks[r->nstacks++] = stack;
	return pump(r, 0);
}

static int read_sample(struct v8_reader *r, const struct pki_json_value *v)
{
	int64_t id;

	if (pki_json_expect_int(r->jr, v, 0, UINT32_MAX, &id))
		return pki_json_reader_code(r->jr);
	if (r->nodes_done)
		return sample(r, (uint32_t)id, NULL);
	if (pki_grow(&r->early, &r->early_cap, r->nearly + 1, sizeof(*r->early)) < 0)
		return oom(r);
	r->early[r->nearly++] = (struct early_sample){
		(uint32_t)id, pki_json_reader_value_offset(r->jr),
	};
	return 0;
}

static int read_delta(struct v8_reader *r, const struct pki_json_value *v)
{
	int64_t delta;

	if (pki_json_expect_scaled(r->jr, v, US_DECIMALS, -MAX_NS, MAX_NS, &delta))
		return pki_json_reader_code(r->jr);
	r->ndeltas++;
	if (!r->keep_order) {
		if (__builtin_add_overflow(r->elapsed, delta, &r->elapsed) ||
		    r->elapsed > MAX_NS || r->elapsed < -MAX_NS)
			return pki_json_reader_fail(r->jr, "the deltas add up past %lld "
						    "microseconds", (long long)MAX_NS / 1000);
		return 0;
	}
	if (pki_grow(&r->deltas, &r->deltas_cap, r->ndeltas_waiting + 1,
		     sizeof(*r->deltas)) < 0)
		return oom(r);
	r->deltas[r->ndeltas_waiting++] = delta;
	return pump(r, 0);
}

static int read_time(struct v8_reader *r, int id, const struct pki_json_value *v)
{
	int64_t *t = id == START_TIME ? &r->start : &r->end;

	if (pki_json_expect_scaled(r->jr, v, US_DECIMALS, 0, MAX_NS, t))
		return pki_json_reader_code(r->jr);
	*(id == START_TIME ? &r->has_start : &r->has_end) = 1;
	return id == START_TIME ? pump(r, 0) : 0;
}

/* ---- the end ---- */

/* Samples from hitCounts, for a profile without samples. */
static int add_hits(struct v8_reader *r)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < r->nnodes && !rc; i++) {
		int64_t hits = (int64_t)r->nodes[i].hits;
		uint32_t stack;

		if (!hits)
			continue;
		rc = sample_stack(r, (uint32_t)i, &stack);
		if (!rc && pk_profile_add_sample(r->own, stack, r->labels, 0, &hits, 1))
			rc = oom(r);
		r->nsamples += (uint64_t)hits;
	}
	return rc;
}

/* The end of the document: what it lacks, and the samples not added. */
static int end_document(struct v8_reader *r)
{
	if (!r->nodes_done)
		return pki_json_reader_fail(r->jr, "expected \"nodes\": not a V8 "
					    "CPU profile");
	if (r->has_deltas && r->has_samples && r->ndeltas != r->nsamples + r->nstacks)
		return pki_json_reader_fail(r->jr, "samples and timeDeltas differ "
					    "in number (%llu and %llu)",
					    (unsigned long long)(r->nsamples + r->nstacks),
					    (unsigned long long)r->ndeltas);
	return r->has_samples ? pump(r, 1) : add_hits(r);
}

static int on_value(void *arg, struct pki_json_reader *jr, int id,
		    const struct pki_json_value *v)
{
	struct v8_reader *r = arg;
	size_t i;
	int rc = 0;

	r->jr = jr;
	switch (id) {
	case DOCUMENT:
		if ((rc = pki_json_expect_object(r->jr, v)) || v->type == PKI_JSON_BEGIN_OBJECT)
			return rc;
		return end_document(r);
	case NODES:
		if ((rc = pki_json_expect_array(r->jr, v)) || v->type == PKI_JSON_BEGIN_ARRAY)
			return rc;
		if (r->nodes_done)
			return pki_json_reader_fail(r->jr, "a second \"nodes\"");
		rc = link_nodes(r);
		for (i = 0; i < r->nearly && !rc; i++)
			rc = sample(r, r->early[i].id, &i);
		return rc;
	case NODE:
		if ((rc = pki_json_expect_object(r->jr, v)))
			return rc;
		return v->type == PKI_JSON_BEGIN_OBJECT ? begin_node(r) : end_node(r);
	case START_TIME: case END_TIME:
		return read_time(r, id, v);
	case SAMPLES:
		r->has_samples = 1;
		return pki_json_expect_array(r->jr, v);
	case SAMPLE:
		return read_sample(r, v);
	case TIME_DELTAS:
		r->has_deltas = 1;
		return pki_json_expect_array(r->jr, v);
	case TIME_DELTA:
		return read_delta(r, v);
	default:
		return node_field(r, id, v);
	}
}

/*
 * What is known once the document is read: the wall column (the
 * duration spread over the samples), period, time and facts.
 */
static int finish(struct v8_reader *r)
{
	int64_t duration = r->has_start && r->has_end && r->end >= r->start ?
			   r->end - r->start : r->elapsed;
	int wall, rc = 0;
	char fact[64];

	if (duration > 0 && r->nsamples) {
		wall = pk_profile_add_sample_type(r->own, "wall", "nanoseconds", NULL,
						  PK_VALUE_WEIGHT);
		if (wall < 0)
			return oom(r);
		pki_profile_sum_columns(r->own, (size_t)wall, (size_t)r->count_column,
					(size_t)wall);
		pk_profile_scale_column(r->own, (size_t)wall, duration, (int64_t)r->nsamples);
		pk_profile_set_period(r->p, "wall", "nanoseconds",
				      duration / (int64_t)r->nsamples);
		snprintf(fact, sizeof(fact), "%.3f ms (the mean)",
			 (double)duration / (double)r->nsamples / 1e6);
		pk_profile_set_meta(r->own, "sampling interval", fact);
	}
	if (duration > 0)
		pk_profile_set_time(r->p, pk_profile_time_nanos(r->p), duration);
	snprintf(fact, sizeof(fact), "%zu", r->nnodes);
	pk_profile_set_meta(r->own, "nodes", fact);
	snprintf(fact, sizeof(fact), "%llu%s", (unsigned long long)r->nsamples,
		 r->has_samples ? "" : " (hitCounts)");
	pk_profile_set_meta(r->own, "samples", fact);
	rc = pki_copy_append(r->p, r->own);
	return rc ? oom(r) : 0;
}

static int v8_read(struct pk_context *ctx, struct pk_input *in,
		   struct pk_profile *p, const struct pk_options *opts)
{
	struct v8_reader r = { .ctx = ctx, .in = in, .p = p };
	struct pk_label thread = { 0 };
	int rc;

	(void)opts;
	r.keep_order = (pk_profile_flags(p) & PK_PROFILE_KEEP_ORDER) != 0;
	r.own = pk_profile_new(pk_profile_flags(p));
	if (!r.own) {
		rc = oom(&r);
		goto out;
	}
	pk_profile_set_memory_limit(r.own, pk_context_max_memory(ctx));
	thread.key = pk_profile_intern_cstr(r.own, "comm");
	thread.str = pk_profile_intern_cstr(r.own, "main");
	r.labels = pk_profile_intern_labels(r.own, &thread, 1);
	r.count_column = pk_profile_add_sample_type(r.own, "samples", "count", NULL,
						    PK_VALUE_COUNT);
	rc = pk_profile_failed(r.own) || r.count_column < 0 ? oom(&r) :
	     pki_input_read_json(in, paths, on_value, &r);
	if (!rc)
		rc = finish(&r);
out:
	pk_profile_free(r.own);
	free(r.nodes);
	free(r.by_id);
	free(r.links);
	free(r.early);
	free(r.stacks);
	free(r.deltas);
	free(r.locs);
	return rc;
}

/*
 * A JSON object whose first member is "nodes", holding call frames (node
 * and DevTools write it first); or, keys in another order, one that has
 * the nodes' "callFrame"s and the profile's times, and is no trace.
 */
static int v8_probe(const unsigned char *buf, size_t len)
{
	static const char first[] = "\"nodes\"";
	size_t i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len || buf[i++] != '{' || !memmem(buf, len, "\"callFrame\"", 11))
		return 0;
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (len - i >= sizeof(first) - 1 && !memcmp(buf + i, first, sizeof(first) - 1))
		return 100;
	return memmem(buf, len, "\"nodes\"", 7) && !memmem(buf, len, "\"traceEvents\"", 13) &&
	       (memmem(buf, len, "\"startTime\"", 11) || memmem(buf, len, "\"timeDeltas\"", 12)) ?
	       60 : 0;
}

const struct pki_format pki_format_v8 = {
	.name = "v8",
	.read_description = "V8 CPU profiles (.cpuprofile: node --cpu-prof, "
			    "Chrome DevTools)",
	.probe = v8_probe,
	.read = v8_read,
};
