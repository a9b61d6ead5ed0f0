/* SPDX-License-Identifier: MIT */
/*
 * Reader for the Firefox Profiler's files, in both of their forms:
 *
 *   - the processed profile format (what the profiler saves and uploads,
 *     what samply writes, our writer's output), versions 24 to 75 as its
 *     upgraders (src/profile-logic/processed-profile-versioning) describe
 *     them: per thread, or from version 60 in "shared", a stackTable
 *     (frame, prefix or from 66 prefixOffset), frameTable (func, address,
 *     inlineDepth or from 71 flags, line, from 70 lib), funcTable (name,
 *     resource, fileName or from 58 source, lineNumber), resourceTable
 *     (lib), sources (filename) and the strings (a thread's stringArray,
 *     from 56 shared.stringArray); libs (a thread's before 41); per
 *     thread samples (stack, time or timeDeltas, weight, weightType):
 *
 *         {"meta": {"preprocessedProfileVersion": 60, "interval": 1, ...},
 *          "libs": [{"name": "libc.so.6", "path": ..., "codeId": ...}],
 *          "shared": {"stringArray": [...], "stackTable": {...}, ...},
 *          "threads": [{"name": "app", "pid": "42", "tid": 43,
 *                       "samples": {"stack": [...], "time": [...],
 *                                   "weight": null, "weightType": "samples"}}]}
 *
 *   - the Gecko format, Firefox's own (about:profiling's "Save as file"
 *     of the raw profile, profile.json of MOZ_PROFILER_SHUTDOWN): per
 *     process meta.version and startTime, libs with their address
 *     ranges, threads whose tables are {"schema": {"prefix": 0, ...},
 *     "data": [[...], ...]} and whose frames are strings of their
 *     stringTable ("name (in lib)", "0x7f...", "name (url:line:col)",
 *     labels), and nested "processes" (one level, as Firefox writes them).
 *
 * A frame is a function (its name, file, line) in a library, or an
 * address in one (an unsymbolicated frame: the symbolizer may name it);
 * inlined frames (inlineDepth, flags) join the frame they are inlined
 * into as one location. Each thread is a thread of the model: pid, tid,
 * name (comm), processName ("process" label). Values: "samples" counts
 * samples (times their weight when it is a count), and "wall" their time,
 * the interval each or their tracing-ms weights; bytes weights are a
 * "bytes" column. Markers, counters, allocations tables, JS tracer
 * events and screenshots are left out (doc/formats.md says why).
 *
 * The document streams (lib/util/json-read.h): the tables are kept as
 * columns until the end, when each sampled stack is resolved once;
 * samples are counted per stack as they come, unless a weight column
 * pairs with them (then a thread's sample columns are held until its
 * samples end) or the profile keeps every sample for a timeline. A stack's
 * prefix must come before it, as the profiler requires, so that no
 * chain of prefixes loops.
 *
 * Our writer's files read back to what they were written from: its
 * "[unknown]" functions are frames without a function, its made-up
 * thread (pid "0", tid 0, named after the input) has no thread labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firefox.h"
#include "core/names.h"
#include "formats/registry.h"
#include "util/json-probe.h"
#include "util/json-read.h"

/* What the callbacks are told: a path's meaning. */
enum {
	PP_VERSION = 1, GECKO_VERSION, INTERVAL, START_TIME, PRODUCT, IMPORTED_FROM,
	LIB, LIB_NAME, LIB_PATH, LIB_DEBUG_NAME, LIB_CODE_ID, LIB_BREAKPAD_ID,
	LIB_START, LIB_END, LIB_OFFSET,
	STRING, PROCESS, THREAD, THREAD_NAME, THREAD_PROCESS_NAME, THREAD_PID,
	THREAD_TID,
	SAMPLES, SAMPLE_STACK, SAMPLE_TIME, SAMPLE_DELTA, SAMPLE_WEIGHT,
	WEIGHT_TYPE,
	/* Gecko's tables: GECKO + 3 * table + SCHEMA, ROW or CELL */
	GECKO = 50,
	/* the columns kept, COLUMN + enum column */
	COLUMN = 100,
};
enum { SCHEMA, ROW, CELL };

/* The table columns kept until the end. */
enum column {
	STACK_FRAME, STACK_PREFIX, STACK_PREFIX_OFFSET,
	FRAME_FUNC, FRAME_ADDRESS, FRAME_INLINE_DEPTH, FRAME_FLAGS, FRAME_LINE,
	FRAME_LIB, FRAME_LOCATION,
	FUNC_NAME, FUNC_RESOURCE, FUNC_FILE_NAME, FUNC_SOURCE, FUNC_LINE,
	RESOURCE_LIB, SOURCE_FILE,
	NCOLUMNS,
};

/* Gecko's tables: the schema's names of their columns. */
enum gecko_table { G_SAMPLES, G_STACKS, G_FRAMES, NGECKO };
enum { G_MAX_CELLS = 16 };

#define TABLES(S) \
	{ S ".stackTable.frame[]", COLUMN + STACK_FRAME }, \
	{ S ".stackTable.prefix[]", COLUMN + STACK_PREFIX }, \
	{ S ".stackTable.prefixOffset[]", COLUMN + STACK_PREFIX_OFFSET }, \
	{ S ".frameTable.func[]", COLUMN + FRAME_FUNC }, \
	{ S ".frameTable.address[]", COLUMN + FRAME_ADDRESS }, \
	{ S ".frameTable.inlineDepth[]", COLUMN + FRAME_INLINE_DEPTH }, \
	{ S ".frameTable.flags[]", COLUMN + FRAME_FLAGS }, \
	{ S ".frameTable.line[]", COLUMN + FRAME_LINE }, \
	{ S ".frameTable.lib[]", COLUMN + FRAME_LIB }, \
	{ S ".funcTable.name[]", COLUMN + FUNC_NAME }, \
	{ S ".funcTable.resource[]", COLUMN + FUNC_RESOURCE }, \
	{ S ".funcTable.fileName[]", COLUMN + FUNC_FILE_NAME }, \
	{ S ".funcTable.source[]", COLUMN + FUNC_SOURCE }, \
	{ S ".funcTable.lineNumber[]", COLUMN + FUNC_LINE }, \
	{ S ".resourceTable.lib[]", COLUMN + RESOURCE_LIB }, \
	{ S ".sources.filename[]", COLUMN + SOURCE_FILE }

#define LIBS(S) \
	{ S ".libs[]", LIB }, { S ".libs[].name", LIB_NAME }, \
	{ S ".libs[].path", LIB_PATH }, { S ".libs[].debugName", LIB_DEBUG_NAME }, \
	{ S ".libs[].codeId", LIB_CODE_ID }, \
	{ S ".libs[].breakpadId", LIB_BREAKPAD_ID }, \
	{ S ".libs[].start", LIB_START }, { S ".libs[].end", LIB_END }, \
	{ S ".libs[].offset", LIB_OFFSET }

#define GECKO_TABLE(T, table) \
	{ T ".schema.*", GECKO + 3 * (table) + SCHEMA }, \
	{ T ".data[]", GECKO + 3 * (table) + ROW }, \
	{ T ".data[][]", GECKO + 3 * (table) + CELL }

#define THREADS(P) \
	{ P ".threads[]", THREAD }, { P ".threads[].name", THREAD_NAME }, \
	{ P ".threads[].processName", THREAD_PROCESS_NAME }, \
	{ P ".threads[].pid", THREAD_PID }, { P ".threads[].tid", THREAD_TID }, \
	{ P ".threads[].stringArray[]", STRING }, \
	{ P ".threads[].stringTable[]", STRING }, \
	LIBS(P ".threads[]"), TABLES(P ".threads[]"), \
	{ P ".threads[].samples", SAMPLES }, \
	{ P ".threads[].samples.stack[]", SAMPLE_STACK }, \
	{ P ".threads[].samples.time[]", SAMPLE_TIME }, \
	{ P ".threads[].samples.timeDeltas[]", SAMPLE_DELTA }, \
	{ P ".threads[].samples.weight", SAMPLE_WEIGHT }, \
	{ P ".threads[].samples.weight[]", SAMPLE_WEIGHT }, \
	{ P ".threads[].samples.weightType", WEIGHT_TYPE }, \
	GECKO_TABLE(P ".threads[].samples", G_SAMPLES), \
	GECKO_TABLE(P ".threads[].stackTable", G_STACKS), \
	GECKO_TABLE(P ".threads[].frameTable", G_FRAMES)

static const struct pki_json_path paths[] = {
	{ "$.meta.preprocessedProfileVersion", PP_VERSION },
	{ "$.meta.version", GECKO_VERSION },
	{ "$.meta.interval", INTERVAL },
	{ "$.meta.startTime", START_TIME },
	{ "$.meta.product", PRODUCT },
	{ "$.meta.importedFrom", IMPORTED_FROM },
	LIBS("$"),
	{ "$.shared.stringArray[]", STRING },
	TABLES("$.shared"),
	THREADS("$"),
	{ "$.processes[]", PROCESS },
	{ "$.processes[].meta.startTime", START_TIME },
	LIBS("$.processes[]"),
	THREADS("$.processes[]"),
	{ NULL, 0 },
};

/* Milliseconds, kept as nanoseconds. */
#define MS_DECIMALS 6
#define MAX_NS (INT64_MAX / 2)
/* A null cell, or one not given. */
#define NONE INT64_MIN
#define MAX_INDEX INT32_MAX

struct column_values {
	int64_t *v;
	size_t n, cap;
};

struct lib {
	pk_str name, path, debug_name, code_id;	/* in r->names */
	uint64_t start, end, offset;
	uint32_t mapping;	/* made at the end */
};

/*
 * Where tables live: the profile's root (meta, libs, shared tables), a
 * Gecko process, or a thread (its own tables, strings, old libs).
 */
struct scope {
	struct column_values col[NCOLUMNS];
	uint64_t col_offset[NCOLUMNS];	/* where each began, for messages */
	pk_str *strings;	/* string index -> r->names id */
	size_t nstrings, strings_cap;
	struct lib *libs;
	size_t nlibs, libs_cap;
	int64_t start;		/* meta.startTime, ns */
	/* Gecko: a table's column index -> role + 1 */
	unsigned char gecko_role[NGECKO][G_MAX_CELLS];
	int gecko_schema[NGECKO];	/* its schema came */
	/* made at the end: a stack row's model stack, a frame's line */
	uint32_t *stack_ids;
	uint32_t *frame_functions;	/* function id, or UINT32_MAX: none */
};

/* Samples of one stack on one thread. */
struct stack_total {
	int64_t stack;
	uint64_t count;
	int64_t wall, bytes;	/* ns, bytes */
	uint64_t offset;
};

/* A sample kept for a timeline. */
struct timed {
	int64_t stack, time;
	uint64_t count;
	int64_t wall, bytes;
};

struct thread {
	struct scope own;
	size_t process;		/* its scope: 0, the root, or a Gecko process */
	pk_str name, process_name;	/* in r->names */
	int has_pid, has_tid;
	int64_t pid, tid;
	struct pk_profile *stack_keys;	/* stack index -> totals + 1 */
	struct stack_total *totals;
	size_t totals_cap;
	int64_t last_stack;	/* the last sample's, and its totals + 1 */
	pk_str last_total;
	struct timed *timed;
	size_t ntimed, timed_cap;
};

/* Gecko samples' roles, and the table's other columns. */
enum { R_STACK = 1, R_TIME, R_WEIGHT, R_PREFIX, R_FRAME, R_LOCATION, R_LINE };

/* The samples table of the thread being read. */
struct samples {
	int weight_null;	/* "weight": null came: stacks need no pairing */
	int weight_type;	/* 0 samples, 1 tracing-ms, 2 bytes */
	struct column_values stack, time, weight;
	uint64_t stack_offset;
	int timed_by_deltas;
	int64_t cells[G_MAX_CELLS];	/* a Gecko row */
	size_t ncells;
};

struct firefox_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pki_json_reader *jr;
	int keep_order;

	struct pk_profile *names;	/* every string of the file's tables */
	int64_t pp_version, gecko_version;
	int has_pp_version, has_gecko_version;
	double interval_ms;
	pk_str product, imported_from;

	struct scope **processes;	/* 0: the root */
	size_t nprocesses, processes_cap;
	size_t process;			/* the one being read */
	struct thread **threads;
	size_t nthreads, threads_cap;
	struct thread *thread;		/* the one being read, or NULL */
	struct samples samples;
	struct lib lib;			/* the one being read */

	int wall_column, count_column, bytes_column;
	size_t ncolumns;
	uint32_t *stack;
	size_t stack_cap;
	struct pk_line *lines;
	size_t lines_cap;
};

static int oom(struct firefox_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory",
			    pk_input_name(r->in));
}

static int push(struct firefox_reader *r, struct column_values *c, int64_t v)
{
	if (pki_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
		return oom(r);
	c->v[c->n++] = v;
	return 0;
}

static int64_t cell(const struct column_values *c, size_t i)
{
	return i < c->n ? c->v[i] : NONE;
}

static void free_scope(struct scope *s)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++)
		free(s->col[i].v);
	free(s->strings);
	free(s->libs);
	free(s->stack_ids);
	free(s->frame_functions);
}

/* The tables being read: the thread's, else the process's. */
static struct scope *scope(struct firefox_reader *r)
{
	return r->thread ? &r->thread->own : r->processes[r->process];
}

/* ---- values ---- */

static int index_value(struct firefox_reader *r, const struct pki_json_value *v,
		       int64_t *out)
{
	if (v->type == PKI_JSON_NULL) {
		*out = NONE;
		return 0;
	}
	return pki_json_expect_int(r->jr, v, -1, MAX_INDEX, out) ?
	       pki_json_reader_code(r->jr) : 0;
}

/* A table cell: an index, a line, an address, a flag; a bool as 0 or 1. */
static int cell_value(struct firefox_reader *r, const struct pki_json_value *v,
		      int64_t *out)
{
	if (v->type == PKI_JSON_BOOL) {
		*out = v->truth;
		return 0;
	}
	if (v->type == PKI_JSON_NULL) {
		*out = NONE;
		return 0;
	}
	/* our writer's addresses relative to a kernel mapping can be negative */
	return pki_json_expect_int(r->jr, v, INT64_MIN + 1, INT64_MAX, out) ?
	       pki_json_reader_code(r->jr) : 0;
}

static int ms_value(struct firefox_reader *r, const struct pki_json_value *v,
		    int64_t *ns)
{
	return pki_json_expect_scaled(r->jr, v, MS_DECIMALS, -MAX_NS, MAX_NS, ns) ?
	       pki_json_reader_code(r->jr) : 0;
}

static int string_value(struct firefox_reader *r, const struct pki_json_value *v,
			pk_str *out)
{
	if (v->type == PKI_JSON_NULL) {
		*out = 0;
		return 0;
	}
	if (pki_json_expect_string(r->jr, v))
		return pki_json_reader_code(r->jr);
	*out = pk_profile_intern(r->names, v->text, v->len);
	return *out || !v->len ? 0 : oom(r);
}

/* pid and tid: numbers, or numbers as strings ("42" in processed files). */
static int thread_id_value(struct firefox_reader *r, const struct pki_json_value *v,
			   int64_t *out, int *has)
{
	char buf[32], *end;
	long long n;

	*has = 0;
	if (v->type == PKI_JSON_NUMBER)
		return pki_json_expect_int(r->jr, v, INT64_MIN, INT64_MAX, out) ?
		       pki_json_reader_code(r->jr) : (*has = 1, 0);
	if (v->type != PKI_JSON_STRING || !v->len || v->len >= sizeof(buf))
		return 0;
	memcpy(buf, v->text, v->len);
	buf[v->len] = '\0';
	n = strtoll(buf, &end, 10);
	if (*end)
		return 0;	/* "pid:tid" and the like: no number */
	*out = n;
	*has = 1;
	return 0;
}

/* ---- libraries ---- */

static int lib_value(struct firefox_reader *r, int id, const struct pki_json_value *v)
{
	struct lib *l = &r->lib;
	int64_t n;

	switch (id) {
	case LIB_NAME:
		return string_value(r, v, &l->name);
	case LIB_PATH:
		return string_value(r, v, &l->path);
	case LIB_DEBUG_NAME:
		return string_value(r, v, &l->debug_name);
	case LIB_CODE_ID:
		return string_value(r, v, &l->code_id);
	case LIB_BREAKPAD_ID:
		return 0;
	}
	/* start, end, offset: numbers, or "0x..." strings in old files */
	if (v->type == PKI_JSON_STRING) {
		char buf[24], *end;

		if (v->len >= sizeof(buf))
			return pki_json_reader_fail(r->jr, "expected an address");
		memcpy(buf, v->text, v->len);
		buf[v->len] = '\0';
		n = (int64_t)strtoull(buf, &end, 0);
		if (*end)
			return pki_json_reader_fail(r->jr, "expected an address");
	} else if (pki_json_expect_int(r->jr, v, 0, INT64_MAX, &n)) {
		return pki_json_reader_code(r->jr);
	}
	*(id == LIB_START ? &l->start : id == LIB_END ? &l->end : &l->offset) =
		(uint64_t)n;
	return 0;
}

static int end_lib(struct firefox_reader *r)
{
	struct scope *s = scope(r);

	if (pki_grow(&s->libs, &s->libs_cap, s->nlibs + 1, sizeof(*s->libs)) < 0)
		return oom(r);
	s->libs[s->nlibs++] = r->lib;
	return 0;
}

/* ---- threads and their samples ---- */

static int begin_thread(struct firefox_reader *r)
{
	struct thread *t;

	if (pki_grow(&r->threads, &r->threads_cap, r->nthreads + 1,
		     sizeof(*r->threads)) < 0 || !(t = calloc(1, sizeof(*t))))
		return oom(r);
	r->threads[r->nthreads++] = t;
	t->process = r->process;
	t->stack_keys = pk_profile_new(0);
	r->thread = t;
	return t->stack_keys ? 0 : oom(r);
}

/* Samples of a stack on the thread: counted, or kept in order. */
static int add_samples(struct firefox_reader *r, int64_t stack, int64_t time,
		       uint64_t count, int64_t wall, int64_t bytes, uint64_t offset)
{
	struct thread *t = r->thread;
	struct stack_total *s;
	size_t before;
	pk_str id;

	if (stack == NONE)
		return 0;	/* null: no sample (the thread idled) */
	if (r->keep_order) {
		if (pki_grow(&t->timed, &t->timed_cap, t->ntimed + 1,
			     sizeof(*t->timed)) < 0)
			return oom(r);
		t->timed[t->ntimed++] = (struct timed){ stack, time, count, wall, bytes };
	}
	/* samples come in runs of one stack (an idle thread, a hot loop) */
	if (!(id = t->last_total) || t->last_stack != stack) {
		before = pk_profile_string_count(t->stack_keys);
		id = pk_profile_intern(t->stack_keys, (const char *)&stack, sizeof(stack));
		if (!id || pki_grow(&t->totals, &t->totals_cap, id, sizeof(*t->totals)) < 0)
			return oom(r);
		if (pk_profile_string_count(t->stack_keys) != before)
			t->totals[id - 1] = (struct stack_total){ .stack = stack, .offset = offset };
		t->last_stack = stack;
		t->last_total = id;
	}
	s = &t->totals[id - 1];
	s->count += count;
	s->wall += wall;
	s->bytes += bytes;
	return 0;
}

/* One sample's values from its weight (weight type times 10^6). */
static int add_weighted(struct firefox_reader *r, int64_t stack, int64_t time,
			int64_t weight, uint64_t offset)
{
	int64_t interval = (int64_t)(r->interval_ms * 1e6 + 0.5);
	uint64_t count = 1;

	switch (weight == NONE ? 0 : r->samples.weight_type) {
	case 0:
		if (weight != NONE)
			count = weight > 0 ? (uint64_t)((weight + 500000) / 1000000) : 0;
		return add_samples(r, stack, time, count, (int64_t)count * interval, 0,
				   offset);
	case 1:
		return add_samples(r, stack, time, 1, weight, 0, offset);
	default:
		return add_samples(r, stack, time, 1, 0, (weight + 500000) / 1000000,
				   offset);
	}
}

/* At the end of a processed samples table: its columns paired. */
static int end_samples(struct firefox_reader *r)
{
	struct samples *s = &r->samples;
	struct scope *process = r->processes[r->thread->process];
	int64_t clock = 0, time = 0;
	size_t i;
	int rc = 0;

	if (s->weight.n && s->weight.n != s->stack.n)
		return pki_json_reader_fail(r->jr, "%zu stacks but %zu weights",
					    s->stack.n, s->weight.n);
	for (i = 0; !rc && i < s->stack.n; i++) {
		if (s->timed_by_deltas)
			time = clock += cell(&s->time, i) == NONE ? 0 : cell(&s->time, i);
		else
			time = cell(&s->time, i) == NONE ? 0 : cell(&s->time, i);
		rc = add_weighted(r, s->stack.v[i], process->start + time,
				  cell(&s->weight, i), s->stack_offset);
	}
	free(s->stack.v);
	free(s->time.v);
	free(s->weight.v);
	*s = (struct samples){ 0 };
	return rc;
}

/*
 * A processed sample's column. Stacks pair with weights and, for a
 * timeline, times: they are held until the table ends, unless a null
 * weight came first and no timeline is made (then counted at once).
 */
static int sample_value(struct firefox_reader *r, int id, const struct pki_json_value *v)
{
	struct samples *s = &r->samples;
	int64_t n;
	int rc;

	switch (id) {
	case SAMPLE_STACK:
		if ((rc = index_value(r, v, &n)))
			return rc;
		if (!s->stack.n)
			s->stack_offset = pki_json_reader_value_offset(r->jr);
		if (s->weight_null && !r->keep_order)
			return add_weighted(r, n, 0, NONE, s->stack_offset);
		return push(r, &s->stack, n);
	case SAMPLE_TIME:
	case SAMPLE_DELTA:
		if (!r->keep_order)
			return 0;
		s->timed_by_deltas = id == SAMPLE_DELTA;
		return (rc = ms_value(r, v, &n)) ? rc : push(r, &s->time, n);
	case SAMPLE_WEIGHT:
		if (v->type == PKI_JSON_NULL) {
			s->weight_null = 1;
			return 0;
		}
		if (v->type == PKI_JSON_BEGIN_ARRAY || v->type == PKI_JSON_END_ARRAY)
			return 0;
		if (pki_json_expect_scaled(r->jr, v, MS_DECIMALS, 0, MAX_NS, &n))
			return pki_json_reader_code(r->jr);
		return push(r, &s->weight, n);
	case WEIGHT_TYPE:
		if (pki_json_expect_string(r->jr, v))
			return pki_json_reader_code(r->jr);
		s->weight_type = v->len == 10 && !memcmp(v->text, "tracing-ms", 10) ? 1 :
				 v->len == 5 && !memcmp(v->text, "bytes", 5) ? 2 : 0;
		return 0;
	}
	return 0;
}

/* ---- Gecko's tables ---- */

static int role_of(enum gecko_table t, const char *key, size_t len)
{
	static const struct { enum gecko_table t; const char *name; int role; } roles[] = {
		{ G_SAMPLES, "stack", R_STACK }, { G_SAMPLES, "time", R_TIME },
		{ G_SAMPLES, "weight", R_WEIGHT },
		{ G_STACKS, "prefix", R_PREFIX }, { G_STACKS, "frame", R_FRAME },
		{ G_FRAMES, "location", R_LOCATION }, { G_FRAMES, "line", R_LINE },
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(roles); i++)
		if (roles[i].t == t && strlen(roles[i].name) == len &&
		    memcmp(roles[i].name, key, len) == 0)
			return roles[i].role;
	return 0;
}

static int schema_value(struct firefox_reader *r, enum gecko_table t,
			const struct pki_json_value *v)
{
	struct scope *s = scope(r);
	size_t len;
	const char *key = pki_json_reader_key(r->jr, &len);
	int role = role_of(t, key, len);
	int64_t n;

	if (pki_json_expect_int(r->jr, v, 0, MAX_INDEX, &n))
		return pki_json_reader_code(r->jr);
	s->gecko_schema[t] = 1;
	if (role && n < G_MAX_CELLS)
		s->gecko_role[t][n] = (unsigned char)role;
	return 0;
}

static int gecko_cell(struct firefox_reader *r, enum gecko_table t,
		      const struct pki_json_value *v)
{
	struct scope *s = scope(r);
	struct samples *sm = &r->samples;
	uint64_t i = pki_json_reader_index(r->jr);
	int role = i < G_MAX_CELLS ? s->gecko_role[t][i] : 0;
	int64_t n;
	int rc;

	if (!s->gecko_schema[t])
		return pki_json_reader_fail(r->jr, "a table's data before its schema");
	if (!role)
		return 0;
	if (role == R_TIME || role == R_WEIGHT)
		rc = v->type == PKI_JSON_NULL ? (n = NONE, 0) :
		     pki_json_expect_scaled(r->jr, v, MS_DECIMALS, -MAX_NS, MAX_NS, &n) ?
		     pki_json_reader_code(r->jr) : 0;
	else if (role == R_LOCATION || role == R_PREFIX || role == R_FRAME ||
		 role == R_STACK)
		rc = index_value(r, v, &n);
	else
		rc = cell_value(r, v, &n);
	if (!rc)
		sm->cells[role] = n;
	return rc;
}

static int gecko_row(struct firefox_reader *r, enum gecko_table t, int begin)
{
	struct scope *s = scope(r);
	struct samples *sm = &r->samples;
	int64_t *c = sm->cells;
	int rc;

	if (begin) {
		size_t i;

		for (i = 0; i < G_MAX_CELLS; i++)
			c[i] = NONE;
		return 0;
	}
	if (t != G_SAMPLES && !s->col[t == G_STACKS ? STACK_FRAME : FRAME_LOCATION].n)
		s->col_offset[t == G_STACKS ? STACK_FRAME : FRAME_LOCATION] =
			pki_json_reader_value_offset(r->jr);
	switch (t) {
	case G_SAMPLES:
		return add_weighted(r, c[R_STACK], r->processes[r->thread->process]->start +
				    (c[R_TIME] == NONE ? 0 : c[R_TIME]), c[R_WEIGHT],
				    pki_json_reader_value_offset(r->jr));
	case G_STACKS:
		if ((rc = push(r, &s->col[STACK_PREFIX], c[R_PREFIX])))
			return rc;
		return push(r, &s->col[STACK_FRAME], c[R_FRAME]);
	default:
		if ((rc = push(r, &s->col[FRAME_LOCATION], c[R_LOCATION])))
			return rc;
		return push(r, &s->col[FRAME_LINE], c[R_LINE]);
	}
}

/* ---- the callback ---- */

/* A schema's member, a row or a cell of one of Gecko's tables. */
static int gecko_value(struct firefox_reader *r, int id, const struct pki_json_value *v)
{
	enum gecko_table t = (enum gecko_table)((id - GECKO) / 3);

	switch ((id - GECKO) % 3) {
	case SCHEMA:
		return schema_value(r, t, v);
	case ROW:
		if (pki_json_expect_array(r->jr, v))
			return pki_json_reader_code(r->jr);
		return gecko_row(r, t, v->type == PKI_JSON_BEGIN_ARRAY);
	default:
		return gecko_cell(r, t, v);
	}
}

static int meta_value(struct firefox_reader *r, int id, const struct pki_json_value *v)
{
	int64_t n;
	double d;

	switch (id) {
	case PP_VERSION:
	case GECKO_VERSION:
		if (pki_json_expect_int(r->jr, v, 0, INT32_MAX, &n))
			return pki_json_reader_code(r->jr);
		if (id == PP_VERSION) {
			r->pp_version = n;
			r->has_pp_version = 1;
		} else {
			r->gecko_version = n;
			r->has_gecko_version = 1;
		}
		return 0;
	case INTERVAL:
		if (pki_json_expect_number(r->jr, v, &d))
			return pki_json_reader_code(r->jr);
		if (d <= 0 || d > 1e9)
			return pki_json_reader_fail(r->jr, "expected an interval in ms");
		r->interval_ms = d;
		return 0;
	case START_TIME:
		return ms_value(r, v, &scope(r)->start);
	case PRODUCT:
		return v->type == PKI_JSON_STRING ? string_value(r, v, &r->product) : 0;
	case IMPORTED_FROM:
		return v->type == PKI_JSON_STRING ? string_value(r, v, &r->imported_from) : 0;
	}
	return 0;
}

static int begin_process(struct firefox_reader *r)
{
	struct scope *s;

	if (pki_grow(&r->processes, &r->processes_cap, r->nprocesses + 1,
		     sizeof(*r->processes)) < 0 || !(s = calloc(1, sizeof(*s))))
		return oom(r);
	r->processes[r->nprocesses] = s;
	r->process = r->nprocesses++;
	return 0;
}

static int on_value(void *arg, struct pki_json_reader *jr, int id,
		    const struct pki_json_value *v)
{
	struct firefox_reader *r = arg;
	struct scope *s;
	int64_t n;
	pk_str str;
	int rc;

	r->jr = jr;
	if (id >= COLUMN) {
		s = scope(r);
		if (!s->col[id - COLUMN].n)
			s->col_offset[id - COLUMN] = pki_json_reader_value_offset(jr);
		return (rc = cell_value(r, v, &n)) ? rc : push(r, &s->col[id - COLUMN], n);
	}
	if (id >= GECKO)
		return gecko_value(r, id, v);
	switch (id) {
	case LIB:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_END_OBJECT)
			return end_lib(r);
		r->lib = (struct lib){ 0 };
		return 0;
	case LIB_NAME: case LIB_PATH: case LIB_DEBUG_NAME: case LIB_CODE_ID:
	case LIB_BREAKPAD_ID: case LIB_START: case LIB_END: case LIB_OFFSET:
		return lib_value(r, id, v);
	case STRING:
		s = scope(r);
		if ((rc = string_value(r, v, &str)))
			return rc;
		if (pki_grow(&s->strings, &s->strings_cap, s->nstrings + 1,
			     sizeof(*s->strings)) < 0)
			return oom(r);
		s->strings[s->nstrings++] = str;
		return 0;
	case PROCESS:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_BEGIN_OBJECT)
			return begin_process(r);
		r->process = 0;
		return 0;
	case THREAD:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_BEGIN_OBJECT)
			return begin_thread(r);
		r->thread = NULL;
		return 0;
	case THREAD_NAME:
		return v->type == PKI_JSON_STRING ? string_value(r, v, &r->thread->name) : 0;
	case THREAD_PROCESS_NAME:
		return v->type == PKI_JSON_STRING ?
		       string_value(r, v, &r->thread->process_name) : 0;
	case THREAD_PID:
		return thread_id_value(r, v, &r->thread->pid, &r->thread->has_pid);
	case THREAD_TID:
		return thread_id_value(r, v, &r->thread->tid, &r->thread->has_tid);
	case SAMPLES:
		if (pki_json_expect_object(jr, v))
			return pki_json_reader_code(jr);
		if (v->type == PKI_JSON_BEGIN_OBJECT) {
			r->samples = (struct samples){ 0 };
			return 0;
		}
		return end_samples(r);
	case SAMPLE_STACK: case SAMPLE_TIME: case SAMPLE_DELTA:
	case SAMPLE_WEIGHT: case WEIGHT_TYPE:
		return sample_value(r, id, v);
	}
	return meta_value(r, id, v);
}

/* ---- the end: frames, stacks and samples ---- */

/* Where a thread's tables are: its own, or the shared ones (the root's). */
struct tables {
	struct firefox_reader *r;
	struct thread *t;
	size_t thread_index;
	struct scope *tab;	/* stacks, frames, functions, resources */
	struct scope *str;	/* strings */
	struct scope *libs;	/* libraries */
	int gecko;
};

static const char *const column_names[NCOLUMNS] = {
	[STACK_FRAME] = "stackTable.frame", [STACK_PREFIX] = "stackTable.prefix",
	[STACK_PREFIX_OFFSET] = "stackTable.prefixOffset",
	[FRAME_FUNC] = "frameTable.func", [FRAME_ADDRESS] = "frameTable.address",
	[FRAME_INLINE_DEPTH] = "frameTable.inlineDepth",
	[FRAME_FLAGS] = "frameTable.flags", [FRAME_LINE] = "frameTable.line",
	[FRAME_LIB] = "frameTable.lib", [FRAME_LOCATION] = "frameTable.data",
	[FUNC_NAME] = "funcTable.name", [FUNC_RESOURCE] = "funcTable.resource",
	[FUNC_FILE_NAME] = "funcTable.fileName", [FUNC_SOURCE] = "funcTable.source",
	[FUNC_LINE] = "funcTable.lineNumber", [RESOURCE_LIB] = "resourceTable.lib",
	[SOURCE_FILE] = "sources.filename",
};

/*
 * A bad index found in a table at the end: said where the column began,
 * and which element of it ("$.shared.stackTable.prefix[12]").
 */
static int table_error(struct tables *tb, enum column c, size_t i,
		       const char *what, int64_t value, size_t length)
{
	struct firefox_reader *r = tb->r;
	char where[64];

	if (tb->tab == r->processes[0] && !tb->gecko)
		snprintf(where, sizeof(where), "$.shared");
	else
		snprintf(where, sizeof(where), "%s.threads[%zu]",
			 tb->t->process ? "$.processes[]" : "$", tb->thread_index);
	if (tb->gecko && c == STACK_FRAME)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: offset %llu (%s.stackTable."
				    "data[%zu]): %s %lld, of %zu", pk_input_name(r->in),
				    (unsigned long long)tb->tab->col_offset[c], where, i,
				    what, (long long)value, length);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: offset %llu (%s.%s[%zu]): %s "
			    "%lld, of %zu", pk_input_name(r->in),
			    (unsigned long long)tb->tab->col_offset[c], where,
			    column_names[c], i, what, (long long)value, length);
}

/* Column c's value i, an index into a table of length entries (or
 * NONE where none may be, when optional). */
static int table_index(struct tables *tb, enum column c, size_t i, size_t length,
		       int optional, int64_t *out)
{
	*out = cell(&tb->tab->col[c], i);
	if ((*out == NONE || *out == -1) && optional) {
		*out = NONE;
		return 0;
	}
	if (*out < 0 || (uint64_t)*out >= length)
		return table_error(tb, c, i, "an index out of range:", *out, length);
	return 0;
}

static const char *string_at(struct tables *tb, int64_t i, size_t *len)
{
	pk_str s = i >= 0 && (size_t)i < tb->str->nstrings ? tb->str->strings[i] : 0;

	*len = pk_profile_string_len(tb->r->names, s);
	return pk_profile_string(tb->r->names, s);
}

static pk_str model_string(struct tables *tb, const char *s, size_t len)
{
	return len ? pk_profile_intern(tb->r->p, s, len) : 0;
}

/* A library's mapping, made once: its file, address range and code id. */
static uint32_t lib_mapping(struct tables *tb, int64_t lib)
{
	struct firefox_reader *r = tb->r;
	struct lib *l;
	struct pk_mapping m = { 0 };
	const char *id;
	size_t len;

	if (lib < 0 || (size_t)lib >= tb->libs->nlibs)
		return 0;
	l = &tb->libs->libs[lib];
	if (l->mapping)
		return l->mapping;
	m.start = l->start;
	m.limit = l->end;
	m.offset = l->offset;
	m.file = pk_profile_intern_cstr(r->p, pk_profile_string(r->names,
					l->path ? l->path : l->name));
	id = pk_profile_string(r->names, l->code_id);
	len = strlen(id);
	if (len && strspn(id, "0123456789abcdefABCDEF") == len)
		m.build_id = pk_profile_intern(r->p, id, len);
	return l->mapping = pk_profile_intern_mapping(r->p, &m);
}

/* What a frame is: a function's line in a library, or an address. */
struct frame_info {
	uint32_t function;	/* 0: none */
	int64_t line;
	int64_t lib;		/* NONE: none */
	uint64_t address;
	int inlined;		/* into the frame before it, its prefix */
};

/* "0x1f4a" and the like: an unsymbolicated frame's name. */
static int is_address(const char *s, size_t len)
{
	return len > 2 && s[0] == '0' && s[1] == 'x' &&
	       strspn(s + 2, "0123456789abcdefABCDEF") == len - 2;
}

static uint32_t function_of(struct tables *tb, const char *name, size_t len,
			    pk_str file, int64_t start_line)
{
	struct pk_function f = { 0 };

	f.name = f.system_name = model_string(tb, name, len);
	f.filename = file;
	f.start_line = start_line > 0 ? start_line : 0;
	return pk_profile_intern_function(tb->r->p, &f);
}

/* A processed frame: its function's name, file and line, its library. */
static int processed_frame(struct tables *tb, size_t f, struct frame_info *fi)
{
	struct scope *t = tb->tab;
	size_t nfuncs = t->col[FUNC_NAME].n, len;
	int64_t func, name, file = NONE, source, resource, start;
	const char *s;
	int rc;

	if ((rc = table_index(tb, FRAME_FUNC, f, nfuncs, 0, &func)) ||
	    (rc = table_index(tb, FUNC_NAME, (size_t)func, tb->str->nstrings, 0, &name)))
		return rc;
	fi->line = cell(&t->col[FRAME_LINE], f);
	fi->inlined = cell(&t->col[FRAME_INLINE_DEPTH], f) > 0 ||
		      (cell(&t->col[FRAME_FLAGS], f) != NONE &&
		       (cell(&t->col[FRAME_FLAGS], f) & 1));
	fi->address = cell(&t->col[FRAME_ADDRESS], f) != -1 &&
		      cell(&t->col[FRAME_ADDRESS], f) != NONE ?
		      (uint64_t)cell(&t->col[FRAME_ADDRESS], f) : 0;
	fi->lib = cell(&t->col[FRAME_LIB], f);
	if (t->col[FRAME_LIB].n == 0) {
		if ((rc = table_index(tb, FUNC_RESOURCE, (size_t)func,
				      t->col[RESOURCE_LIB].n, 1, &resource)))
			return rc;
		fi->lib = resource == NONE ? NONE : cell(&t->col[RESOURCE_LIB], (size_t)resource);
	}
	if (fi->lib < 0 || (size_t)fi->lib >= tb->libs->nlibs)
		fi->lib = NONE;
	s = string_at(tb, name, &len);
	/* our writer's frames without a function; samply's unsymbolicated */
	if (!len || strcmp(s, PKI_UNKNOWN) == 0 || (is_address(s, len) && fi->lib != NONE)) {
		fi->function = 0;
		return 0;
	}
	if (t->col[FUNC_SOURCE].n) {
		if ((rc = table_index(tb, FUNC_SOURCE, (size_t)func,
				      tb->tab->col[SOURCE_FILE].n ?
				      tb->tab->col[SOURCE_FILE].n :
				      tb->r->processes[0]->col[SOURCE_FILE].n, 1, &source)))
			return rc;
		if (source != NONE)
			file = cell(t->col[SOURCE_FILE].n ? &t->col[SOURCE_FILE] :
				    &tb->r->processes[0]->col[SOURCE_FILE], (size_t)source);
	} else {
		file = cell(&t->col[FUNC_FILE_NAME], (size_t)func);
	}
	start = cell(&t->col[FUNC_LINE], (size_t)func);
	{
		size_t flen = 0;
		const char *fs = file >= 0 ? string_at(tb, file, &flen) : "";

		fi->function = function_of(tb, s, len, model_string(tb, fs, flen), start);
	}
	if (fi->line == NONE)
		fi->line = start > 0 ? start : 0;
	return fi->function ? 0 : oom(tb->r);
}

/* The library whose name (or debug name) is name, or NONE. */
static int64_t lib_named(struct tables *tb, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < tb->libs->nlibs; i++) {
		const struct lib *l = &tb->libs->libs[i];

		if ((pk_profile_string_len(tb->r->names, l->name) == len &&
		     !memcmp(pk_profile_string(tb->r->names, l->name), name, len)) ||
		    (pk_profile_string_len(tb->r->names, l->debug_name) == len &&
		     !memcmp(pk_profile_string(tb->r->names, l->debug_name), name, len)))
			return (int64_t)i;
	}
	return NONE;
}

static int64_t lib_at(struct tables *tb, uint64_t address)
{
	size_t i;

	for (i = 0; i < tb->libs->nlibs; i++)
		if (address >= tb->libs->libs[i].start && address < tb->libs->libs[i].end)
			return (int64_t)i;
	return NONE;
}

/*
 * A Gecko frame: its location string, as the profiler's importer parses
 * it: "0x7f12..." (an address), "name (in lib)" with an offset or a
 * "(file:line)" after it, "name (url:line:col)" or "url:line:col" (a JS
 * function), or a label.
 */
static int gecko_frame(struct tables *tb, size_t f, struct frame_info *fi)
{
	int64_t loc;
	size_t len, i;
	const char *s, *in, *open;
	pk_str file = 0;
	int64_t start = 0;
	int rc;

	if ((rc = table_index(tb, FRAME_LOCATION, f, tb->str->nstrings, 0, &loc)))
		return rc;
	s = string_at(tb, loc, &len);
	fi->line = cell(&tb->tab->col[FRAME_LINE], f);
	fi->lib = NONE;
	fi->address = 0;
	fi->inlined = 0;
	if (is_address(s, len)) {
		fi->address = strtoull(s, NULL, 16);
		fi->lib = lib_at(tb, fi->address);
		fi->function = 0;
		return 0;
	}
	in = NULL;
	for (i = 0; i + 5 <= len; i++)
		if (!memcmp(s + i, " (in ", 5))
			in = s + i;
	open = NULL;
	if (in) {
		const char *close = memchr(in, ')', (size_t)(s + len - in));

		if (close)
			fi->lib = lib_named(tb, in + 5, (size_t)(close - in - 5));
		len = (size_t)(in - s);
	} else if (len && s[len - 1] == ')' && (open = memchr(s, '(', len))) {
		/* "name (url:line:col)": the last " (" */
		for (i = len; i-- > 1;)
			if (s[i] == '(' && s[i - 1] == ' ') {
				open = s + i;
				break;
			}
	}
	if (open && open > s && open[-1] == ' ') {
		const char *url = open + 1, *end = s + len - 1, *colon;
		size_t ulen = (size_t)(end - url);
		int colons = 0;

		/* url:line[:col] */
		for (colon = end; colon > url && colons < 2; colon--)
			if (colon[-1] == ':') {
				colons++;
				if (colons == 1 || colon[0] >= '0')
					ulen = (size_t)(colon - 1 - url);
			}
		start = strtoll(url + ulen + 1, NULL, 10);
		file = model_string(tb, url, ulen);
		len = (size_t)(open - 1 - s);
	}
	fi->function = function_of(tb, s, len, file, start);
	if (fi->line == NONE)
		fi->line = start;
	return fi->function ? 0 : oom(tb->r);
}

/* Stack row i's prefix, which must come before it, or NONE. */
static int prefix_of(struct tables *tb, size_t i, int64_t *prefix)
{
	struct scope *t = tb->tab;
	int64_t off;

	if (t->col[STACK_PREFIX_OFFSET].n) {
		off = cell(&t->col[STACK_PREFIX_OFFSET], i);
		*prefix = off > 0 ? (int64_t)i - off : NONE;
		if (off < 0 || off > (int64_t)i)
			return table_error(tb, STACK_PREFIX_OFFSET, i, "a prefix offset "
					   "before the first stack:", off, i);
		return 0;
	}
	*prefix = cell(&t->col[STACK_PREFIX], i);
	if (*prefix == -1)
		*prefix = NONE;
	if (*prefix != NONE && (*prefix < 0 || (uint64_t)*prefix >= i))
		return table_error(tb, STACK_PREFIX, i, "a prefix that is not an "
				   "earlier stack (a cycle, or out of order):",
				   *prefix, i);
	return 0;
}

static int add_line(struct firefox_reader *r, size_t n, const struct frame_info *fi)
{
	if (pki_grow(&r->lines, &r->lines_cap, n + 1, sizeof(*r->lines)) < 0)
		return oom(r);
	r->lines[n] = (struct pk_line){ .function = fi->function, .line = fi->line };
	return 0;
}

static int frame_info(struct tables *tb, size_t f, struct frame_info *fi)
{
	return tb->gecko ? gecko_frame(tb, f, fi) : processed_frame(tb, f, fi);
}

/*
 * The model stack of stack row i: its frames from the leaf, inlined ones
 * joined to the frame they are inlined into as one location; at most one
 * past the model's limit, for it to count the cut.
 */
static int make_stack(struct tables *tb, size_t i, uint32_t *out)
{
	struct firefox_reader *r = tb->r;
	size_t nframes = tb->tab->col[tb->gecko ? FRAME_LOCATION : FRAME_FUNC].n;
	size_t max = pki_profile_max_stack(r->p), depth = 0, nlines = 0;
	int64_t s = (int64_t)i, f;
	int rc;

	while (s != NONE && depth <= max) {
		struct frame_info fi = { 0 };	/* -O1 sees no path through frame_info() */

		if ((rc = table_index(tb, STACK_FRAME, (size_t)s, nframes, 0, &f)) ||
		    (rc = frame_info(tb, (size_t)f, &fi)))
			return rc;
		if (fi.function && (rc = add_line(r, nlines++, &fi)))
			return rc;
		if (!fi.inlined) {
			uint32_t loc = pk_profile_intern_location(r->p,
					fi.lib == NONE ? 0 : lib_mapping(tb, fi.lib),
					fi.address, r->lines, nlines);

			if (!loc || pki_grow(&r->stack, &r->stack_cap, depth + 1,
					     sizeof(*r->stack)) < 0)
				return oom(r);
			r->stack[depth++] = loc;
			nlines = 0;
		}
		if ((rc = prefix_of(tb, (size_t)s, &s)))
			return rc;
	}
	*out = pk_profile_intern_stack(r->p, r->stack, depth);
	return *out ? 0 : oom(r);
}

static int stack_id(struct tables *tb, int64_t i, uint64_t offset, uint32_t *out)
{
	struct scope *t = tb->tab;
	size_t n = t->col[STACK_FRAME].n;
	int rc;

	if (i == -1) {		/* our writer's sample of an empty stack */
		*out = pk_profile_intern_stack(tb->r->p, NULL, 0);
		return *out ? 0 : oom(tb->r);
	}
	if (i < 0 || (uint64_t)i >= n)
		return pk_error_set(tb->r->ctx, PK_EINPUT, "%s: offset %llu "
				    "(%s.threads[%zu].samples): stack %lld is not "
				    "in the stack table (%zu stacks)",
				    pk_input_name(tb->r->in), (unsigned long long)offset,
				    tb->t->process ? "$.processes[]" : "$",
				    tb->thread_index, (long long)i, n);
	if (!t->stack_ids && !(t->stack_ids = calloc(n, sizeof(*t->stack_ids))))
		return oom(tb->r);
	if (!t->stack_ids[i] && (rc = make_stack(tb, (size_t)i, &t->stack_ids[i])))
		return rc;
	*out = t->stack_ids[i];
	return 0;
}

/* ---- the end: threads and columns ---- */

static int ours(const struct firefox_reader *r)
{
	return r->imported_from && !strncmp(pk_profile_string(r->names,
					    r->imported_from), "profkit ", 8);
}

static uint32_t thread_labels(struct firefox_reader *r, const struct thread *t)
{
	struct pk_label l[4] = { { 0 } };
	size_t n = 0;
	int made = ours(r);

	/* our writer's pid "0" and tid 0 are none; its thread named after
	 * the input had no comm */
	if (t->has_pid && !(made && t->pid == 0)) {
		l[n].key = pk_profile_intern_cstr(r->p, "pid");
		l[n++].num = t->pid;
	}
	if (t->has_tid && !(made && t->tid == 0)) {
		l[n].key = pk_profile_intern_cstr(r->p, "tid");
		l[n++].num = t->tid;
	}
	if (t->name && !(made && t->name == r->product)) {
		l[n].key = pk_profile_intern_cstr(r->p, "comm");
		l[n++].str = pk_profile_intern_cstr(r->p, pk_profile_string(r->names, t->name));
	}
	if (t->process_name && !made) {
		l[n].key = pk_profile_intern_cstr(r->p, "process");
		l[n++].str = pk_profile_intern_cstr(r->p,
				pk_profile_string(r->names, t->process_name));
	}
	return n ? pk_profile_intern_labels(r->p, l, n) : 0;
}

static int add_values(struct firefox_reader *r, uint32_t stack, uint32_t labels,
		      int64_t time, uint64_t count, int64_t wall, int64_t bytes)
{
	int64_t v[64] = { 0 };

	v[r->count_column] = (int64_t)count;
	if (r->wall_column >= 0)
		v[r->wall_column] = wall;
	if (r->bytes_column >= 0)
		v[r->bytes_column] = bytes;
	return pk_profile_add_sample(r->p, stack, labels, time > 0 ? (uint64_t)time : 0,
				     v, r->ncolumns);
}

static int add_thread(struct firefox_reader *r, size_t index)
{
	struct thread *t = r->threads[index];
	struct scope *root = r->processes[0];
	struct tables tb = {
		.r = r, .t = t, .thread_index = index,
		.tab = t->own.col[STACK_FRAME].n ? &t->own : root,
		.str = t->own.nstrings ? &t->own : root,
		.libs = t->own.nlibs ? &t->own : r->processes[t->process],
		.gecko = r->has_gecko_version && !r->has_pp_version,
	};
	uint32_t labels = thread_labels(r, t), stack;
	size_t n = pk_profile_string_count(t->stack_keys) - 1, i;
	int rc = 0;

	/* threads are numbered within their own list */
	for (i = index; i-- > 0;)
		if (r->threads[i]->process != t->process)
			break;
	tb.thread_index = index - (i + 1);
	for (i = 0; !rc && i < n; i++) {
		const struct stack_total *s = &t->totals[i];

		rc = stack_id(&tb, s->stack, s->offset, &stack);
		if (!rc && !r->keep_order)
			rc = add_values(r, stack, labels, 0, s->count, s->wall, s->bytes);
	}
	for (i = 0; !rc && i < t->ntimed; i++) {
		const struct timed *s = &t->timed[i];

		rc = stack_id(&tb, s->stack, 0, &stack);
		if (!rc)
			rc = add_values(r, stack, labels, s->time, s->count, s->wall,
					s->bytes);
	}
	return rc;
}

/* A column of the caller's profile (another input's, summed), or a new one. */
static int column(struct firefox_reader *r, const char *type, const char *unit,
		  enum pk_value_kind kind)
{
	int c = pki_profile_column(r->p, type, unit, NULL, kind);

	if (c >= 0 && (size_t)c >= r->ncolumns)
		r->ncolumns = (size_t)c + 1;
	return c;
}

/* "samples", then "wall" where samples have a time, "bytes" where they
 * weigh bytes. */
static int add_columns(struct firefox_reader *r)
{
	int64_t wall = 0, bytes = 0;
	size_t t, i;

	for (t = 0; t < r->nthreads; t++) {
		const struct thread *th = r->threads[t];

		for (i = 0; i + 1 < pk_profile_string_count(th->stack_keys); i++) {
			wall |= th->totals[i].wall;
			bytes |= th->totals[i].bytes;
		}
	}
	r->ncolumns = pk_profile_sample_type_count(r->p);
	r->count_column = column(r, "samples", "count", PK_VALUE_COUNT);
	r->wall_column = wall || !bytes ? column(r, "wall", "nanoseconds",
						 PK_VALUE_WEIGHT) : -1;
	r->bytes_column = bytes ? column(r, "bytes", "bytes", PK_VALUE_WEIGHT) : -1;
	if (r->count_column < 0 || (wall && r->wall_column < 0) ||
	    (bytes && r->bytes_column < 0))
		return oom(r);
	if (r->ncolumns > 64)
		return pk_error_set(r->ctx, PK_EUSAGE, "too many sample types");
	if (r->wall_column >= 0)
		pk_profile_set_period(r->p, "wall", "nanoseconds",
				      (int64_t)(r->interval_ms * 1e6 + 0.5));
	return 0;
}

static int add_everything(struct firefox_reader *r)
{
	size_t t;
	int rc;

	if (!r->has_pp_version && !r->has_gecko_version)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: no meta.version nor "
				    "meta.preprocessedProfileVersion: not a "
				    "Firefox Profiler file", pk_input_name(r->in));
	if (r->has_pp_version && (r->pp_version < 24 || r->pp_version > 75))
		return pk_error_set(r->ctx, PK_EINPUT, "%s: processed profile "
				    "version %lld: versions 24 to 75 are read",
				    pk_input_name(r->in), (long long)r->pp_version);
	if (r->processes[0]->start > 0)
		pk_profile_set_time(r->p, r->processes[0]->start, 0);
	if ((rc = add_columns(r)))
		return rc;
	for (t = 0; !rc && t < r->nthreads; t++)
		rc = add_thread(r, t);
	return rc ? rc : pk_profile_failed(r->p) ? oom(r) : 0;
}

static void firefox_release(struct firefox_reader *r)
{
	size_t i;

	for (i = 0; i < r->nprocesses; i++) {
		free_scope(r->processes[i]);
		free(r->processes[i]);
	}
	for (i = 0; i < r->nthreads; i++) {
		free_scope(&r->threads[i]->own);
		pk_profile_free(r->threads[i]->stack_keys);
		free(r->threads[i]->totals);
		free(r->threads[i]->timed);
		free(r->threads[i]);
	}
	free(r->processes);
	free(r->threads);
	free(r->samples.stack.v);
	free(r->samples.time.v);
	free(r->samples.weight.v);
	free(r->stack);
	free(r->lines);
	pk_profile_free(r->names);
}

static int firefox_read(struct pk_context *ctx, struct pk_input *in,
			struct pk_profile *p, const struct pk_options *opts)
{
	struct firefox_reader r = { .ctx = ctx, .in = in, .p = p, .interval_ms = 1 };
	int rc;

	(void)opts;
	r.keep_order = (pk_profile_flags(p) & PK_PROFILE_KEEP_ORDER) != 0;
	r.names = pk_profile_new(0);
	rc = r.names ? begin_process(&r) : oom(&r);
	if (!rc)
		rc = pki_input_read_json(in, paths, on_value, &r);
	if (!rc)
		rc = add_everything(&r);
	if (!rc && !pk_profile_sample_count(p) &&
	    !(pk_profile_flags(p) & PK_PROFILE_KEEP_EMPTY))
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no samples in any thread",
				  pk_input_name(in));
	firefox_release(&r);
	return rc;
}

/* ---- detection ---- */

/*
 * An object starting with "meta" that has "preprocessedProfileVersion"
 * (processed), or "version" and then "threads" or "schema" (Gecko's).
 */
static int firefox_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len, *meta;

	s = pki_json_probe_space(s, end);
	if (s == end || *s != '{' || !(meta = pki_json_probe_key(s, end, "meta")) ||
	    pki_json_probe_space(s + 1, end) != meta)
		return 0;
	if (pki_json_probe_key(meta, end, "preprocessedProfileVersion"))
		return 90;
	if (pki_json_probe_key(meta, end, "version") &&
	    (pki_json_probe_key(meta, end, "schema") ||
	     pki_json_probe_key(meta, end, "threads") ||
	     pki_json_probe_key(meta, end, "libs")))
		return 70;
	return 0;
}

const struct pki_format pki_format_firefox = {
	.name = "firefox",
	.read_description = "the Firefox Profiler's processed profiles (samply) "
			    "and Firefox's Gecko profiles",
	.probe = firefox_probe,
	.read = firefox_read,
	.write_description = "the Firefox Profiler's processed profile JSON "
			     "(https://profiler.firefox.com), gzipped if named .gz",
	.extension = ".firefox.json",
	.profile_flags = PK_PROFILE_KEEP_ORDER,
	.write = pki_firefox_write,
};
