/* SPDX-License-Identifier: MIT */
/*
 * Internal to the JFR reader (lib/formats/jfr/): the chunk, its metadata
 * and constant pools, the decoding of values, shared by its files:
 *
 *   decode.c    bytes: compressed integers, strings, skipping any value
 *   metadata.c  the metadata event: every type and its fields
 *   chunk.c     a chunk's header, its events in order, the constant
 *               pools of its checkpoint events
 *   events.c    the events read: their fields, the first pass's
 *               settings and counts, the second pass's samples
 *   model.c     what the model gets: frames, stacks, threads, columns
 *   read.c      the reader: its options, chunks one after another, facts
 *
 * A recording is a sequence of chunks, each complete in itself: a
 * 68-byte header, then events. Every event starts with its size and its
 * type id (compressed integers); type 0 is the metadata event that
 * describes every type, type 1 a checkpoint event holding constant
 * pools. All numbers but the header's are compressed: 7 bits a byte,
 * low bits first, the ninth byte whole (doc/formats.md, JFR).
 */
#ifndef PROFKIT_JFR_H
#define PROFKIT_JFR_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "util/strbuf.h"

#define JFR_HEADER_SIZE 68
#define JFR_EVENT_METADATA 0
#define JFR_EVENT_CHECKPOINT 1
/* Types nest inside types (a stack trace's frames, a frame's fields):
 * deeper than this, a type contains itself. */
#define JFR_MAX_NESTING 32

/* ---- decode.c: a cursor over bytes ---- */

/*
 * Bytes [p, end) of the chunk at base. A read past end reads 0 and
 * remembers the first fault (what and where); so a caller tests
 * c->fault once after a value, not after every read. Bytes up to limit
 * (the chunk's end, past an event's) may be read ahead: a compressed
 * integer is decoded without a test a byte, then checked against end.
 */
struct jfr_cursor {
	const unsigned char *p, *end, *limit;
	const unsigned char *fault_at;
	const char *fault;
};

static inline void jfr_cursor_init(struct jfr_cursor *c,
				   const unsigned char *p,
				   const unsigned char *end)
{
	c->p = p;
	c->end = c->limit = end;
	c->fault_at = NULL;
	c->fault = NULL;
}

/* Remember the first fault at the cursor and stop it at its end. */
void jfr_fail(struct jfr_cursor *c, const char *why);
uint64_t jfr_varint_slow(struct jfr_cursor *c);

/*
 * A compressed integer: seven bits a byte, low bits first, the high bit
 * set on every byte but the last; a ninth byte counts all its eight
 * bits, so none is longer than nine bytes.
 */
static inline uint64_t jfr_varint(struct jfr_cursor *c)
{
	const unsigned char *p = c->p;
	uint64_t v;
	int i;

	if (p < c->end && *p < 0x80) {
		c->p = p + 1;
		return *p;
	}
	if (c->limit - p < 9 || p >= c->end)
		return jfr_varint_slow(c);
	v = *p & 0x7f;
	for (i = 1; i < 8; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			break;
	}
	if (i == 8)
		v |= (uint64_t)p[8] << 56;
	if (i + 1 > c->end - p)
		return jfr_varint_slow(c);	/* says where it was cut */
	c->p = p + i + 1;
	return v;
}

static inline unsigned jfr_byte(struct jfr_cursor *c)
{
	if (c->p < c->end)
		return *c->p++;
	jfr_fail(c, "the event ends inside a value");
	return 0;
}

static inline void jfr_skip(struct jfr_cursor *c, uint64_t n)
{
	if (n <= (uint64_t)(c->end - c->p))
		c->p += n;
	else
		jfr_fail(c, "the event ends inside a value");
}

/* ---- metadata.c: the types of a chunk ---- */

enum jfr_kind {
	JFR_STRUCT,	/* its fields, in order */
	JFR_VARINT,	/* short, char, int, long: compressed */
	JFR_BYTE,	/* byte, boolean: one byte */
	JFR_FLOAT,	/* four bytes */
	JFR_DOUBLE,	/* eight bytes */
	JFR_STRING,	/* java.lang.String: an encoding byte, then its bytes */
};

/* The constant pools the reader keeps, by the type of their values. */
enum jfr_pool_id {
	JFR_POOL_NONE,
	JFR_POOL_THREAD,	/* java.lang.Thread */
	JFR_POOL_STACK,		/* jdk.types.StackTrace */
	JFR_POOL_METHOD,	/* jdk.types.Method */
	JFR_POOL_CLASS,		/* java.lang.Class */
	JFR_POOL_SYMBOL,	/* jdk.types.Symbol */
	JFR_POOL_STRING,	/* java.lang.String */
	JFR_POOL_FRAME_TYPE,	/* jdk.types.FrameType */
	JFR_NPOOLS
};

/* How a value is skipped: the common cases without looking at its type. */
enum jfr_code {
	JFR_CODE_VALUE,		/* by its type: a struct, a string, an array */
	JFR_CODE_VARINT,	/* a compressed integer or constant key */
	JFR_CODE_BYTE,		/* one byte */
	JFR_CODE_FOUR,		/* a float */
	JFR_CODE_EIGHT,		/* a double */
	JFR_CODE_EMPTY,		/* nothing at all */
};

struct jfr_field {
	const char *name;
	uint32_t type;		/* index in jfr_metadata.types */
	unsigned char pooled;	/* the value is a key of a constant pool */
	unsigned char array;	/* a count, then that many values */
	unsigned char code;	/* enum jfr_code */
};

struct jfr_type {
	uint64_t id;
	const char *name;
	uint32_t first_field, nfields;	/* in jfr_metadata.fields */
	/* the fields that take bytes: what skipping a value walks */
	uint32_t first_walk, nwalk;	/* in jfr_metadata.walk */
	unsigned char kind;		/* enum jfr_kind */
	unsigned char pool;		/* enum jfr_pool_id */
	unsigned char empty;		/* a struct of no bytes at all */
	unsigned char varints;		/* its first fields that are varints */
	unsigned char code;		/* of a value of it, inline */
	uint16_t event;			/* the reader's event + 1, or 0 */
};

/* A field's index in its type, or -1 when the type has none of the name. */
#define JFR_NO_FIELD (-1)
/*
 * The fields the reader reads come early in their types (the JVM puts
 * an event's start time, duration, thread and stack trace first): one
 * further along is not looked for, so that no event walks a thousand
 * fields a hostile metadata event describes before the one it wants.
 */
#define JFR_MAX_FIELDS 64

/* Where the fields the reader reads are, in the types it reads. */
struct jfr_layout {
	int stack_truncated, stack_frames;			/* StackTrace */
	int frame_method, frame_line, frame_type;		/* StackFrame */
	int method_class, method_name, method_descriptor;	/* Method */
	int class_name, class_source;				/* Class */
	int symbol_string;					/* Symbol */
	int thread_os_name, thread_os_id, thread_java_name,
	    thread_java_id;					/* Thread */
	int frame_type_description;				/* FrameType */
	uint32_t stack_frame_type;	/* the type of a StackTrace's frames */
};

struct jfr_metadata {
	struct jfr_type *types;		/* sorted by id */
	size_t ntypes;
	struct jfr_field *fields;
	size_t nfields;
	uint32_t *walk;			/* field indexes, type by type */
	char *names;			/* every name, NUL-terminated */
	struct jfr_layout layout;
	int pool_type[JFR_NPOOLS];	/* the type of each pool's values, or -1 */
	/* ids of the types looked up by id on every event: direct up to
	 * here, by binary search past it */
	uint32_t *by_id;
	size_t by_id_len;
};

/* Key -> where the value is in the chunk, and what the reader made of it. */
struct jfr_pool {
	uint64_t *keys;
	size_t *at;		/* offset in the chunk; 0: an empty slot */
	uint64_t *memo;		/* 0 until the reader sets it */
	size_t mask, count;
};

/* The chunk and where its errors are told. */
struct jfr_chunk {
	struct pk_context *ctx;
	const char *name;		/* the input's, for messages */
	const unsigned char *base;	/* the chunk's first byte */
	uint64_t offset;		/* of base in the input */
	uint64_t size;
	uint16_t major, minor;
	int64_t start_nanos, duration_nanos, start_ticks, ticks_per_second;
	uint64_t metadata_offset;
	struct jfr_metadata md;
	struct jfr_pool pools[JFR_NPOOLS];
	size_t pool_bytes;		/* memory the pools hold */
	unsigned index;			/* 0 for the first chunk */
};

/* Errors that name the input and the byte of the input they are at. */
int jfr_error_at(const struct jfr_chunk *ch, const unsigned char *at,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The cursor's fault as such an error. */
int jfr_fault(const struct jfr_chunk *ch, const struct jfr_cursor *c);

/* Read the metadata event at the chunk's metadata offset. */
int jfr_metadata_read(struct jfr_chunk *ch);
void jfr_metadata_release(struct jfr_metadata *md);
/* The type of an id, or NULL. */
const struct jfr_type *jfr_type_of(const struct jfr_metadata *md,
				   uint64_t id);
/* The index of a type by name, or -1. */
int jfr_type_named(const struct jfr_metadata *md, const char *name);
/* The index of the named field of a type, or JFR_NO_FIELD. */
int jfr_field_named(const struct jfr_metadata *md, uint32_t type,
		    const char *name);
/* The same for a field of what the reader takes it for, or JFR_NO_FIELD
 * (type may be -1: none): a number (or constant key), a string (or the
 * key of a string or symbol constant), a key of the given pool. */
int jfr_number_field(const struct jfr_metadata *md, int type, const char *name);
int jfr_string_field(const struct jfr_metadata *md, int type, const char *name);
int jfr_pooled_field(const struct jfr_metadata *md, int type, const char *name,
		     enum jfr_pool_id pool);
static inline const struct jfr_field *
jfr_field_at(const struct jfr_metadata *md, const struct jfr_type *t, int i)
{
	return &md->fields[t->first_field + (uint32_t)i];
}
/* Whether field i of type t reads as one compressed integer: a number
 * or a constant pool key. */
int jfr_field_is_varint(const struct jfr_metadata *md,
			const struct jfr_type *t, int i);

/* ---- decode.c: values ---- */

/* Skip one value of a field, or of a type (depth: the nesting so far). */
void jfr_skip_field(const struct jfr_metadata *md, const struct jfr_field *f,
		    struct jfr_cursor *c, int depth);
void jfr_skip_value(const struct jfr_metadata *md, uint32_t type,
		    struct jfr_cursor *c, int depth);
/*
 * Walk the first n fields of a struct value (n at most JFR_MAX_FIELDS),
 * noting where field i starts in at[i]; the cursor ends after them.
 */
void jfr_field_starts(const struct jfr_metadata *md, const struct jfr_type *t,
		      struct jfr_cursor *c, const unsigned char **at, int n);
/* The numbers of the first n fields of a struct value (as
 * jfr_number_at reads them, 0 for other values); the cursor ends after. */
void jfr_field_numbers(const struct jfr_metadata *md, const struct jfr_type *t,
		       struct jfr_cursor *c, uint64_t *numbers, int n);
/* Skip the fields of a struct value from the nth on. */
void jfr_skip_fields_from(const struct jfr_metadata *md, const struct jfr_type *t,
			  struct jfr_cursor *c, int n);
/* The number a field holds at at: a constant's key, an integer, a byte;
 * 0 for anything else. */
uint64_t jfr_number_at(const struct jfr_metadata *md, const struct jfr_field *f,
		       const unsigned char *at, const unsigned char *end);
/* Whether a field takes no bytes: a struct of nothing, inline. */
static inline int jfr_field_empty(const struct jfr_metadata *md,
				  const struct jfr_field *f)
{
	return !f->array && !f->pooled && md->types[f->type].empty;
}

/* Skip a value of one of the codes that need no type. */
static inline void jfr_skip_simple(struct jfr_cursor *c, unsigned char code)
{
	switch (code) {
	case JFR_CODE_VARINT:
		jfr_varint(c);
		return;
	case JFR_CODE_BYTE:
		jfr_skip(c, 1);
		return;
	case JFR_CODE_FOUR:
		jfr_skip(c, 4);
		return;
	case JFR_CODE_EIGHT:
		jfr_skip(c, 8);
		return;
	}
}

/* Skip a field, the common cases in line. */
static inline void jfr_skip_coded(const struct jfr_metadata *md,
				  const struct jfr_field *f,
				  struct jfr_cursor *c, int depth)
{
	if (f->code == JFR_CODE_VALUE)
		jfr_skip_field(md, f, c, depth);
	else
		jfr_skip_simple(c, f->code);
}

/* What a string value decodes to. */
enum jfr_string_state { JFR_STRING_NULL, JFR_STRING_SET };

/*
 * Append a string value at c to out, as UTF-8 (invalid bytes as
 * U+FFFD), with '/' made '.' when dots is set. A reference to the string
 * pool is followed; *state says whether the value was null. Missing
 * constants append nothing and count in *missing.
 */
void jfr_string(const struct jfr_chunk *ch, struct jfr_cursor *c,
		struct pk_strbuf *out, int dots, enum jfr_string_state *state,
		uint64_t *missing);

/* ---- chunk.c: the header, the events, the constant pools ---- */

/* The header's numbers: eight bytes, big-endian. */
static inline uint64_t jfr_be64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Check the header of the chunk at base (avail bytes from there). */
int jfr_chunk_header(struct jfr_chunk *ch, const unsigned char *base,
		     uint64_t avail);
/* An event of type id, c after its type id, start its first byte. */
typedef int (*jfr_visit_fn)(void *arg, uint64_t type_id, struct jfr_cursor *c,
			    const unsigned char *start);
int jfr_chunk_walk(struct jfr_chunk *ch, int pools, jfr_visit_fn visit,
		   void *arg);
void jfr_pools_release(struct jfr_chunk *ch);

/* The slot of a key in a pool, or -1. */
ptrdiff_t jfr_pool_find(const struct jfr_pool *pool, uint64_t key);

/* A cursor on a pool's value of key, or 0 when the pool has none. */
int jfr_pool_value(const struct jfr_chunk *ch, enum jfr_pool_id id,
		   uint64_t key, struct jfr_cursor *c, ptrdiff_t *slot);

/* ---- the reader: read.c, events.c, model.c ---- */

/* The options the reader reads, all of them (read.c fills this). */
struct jfr_options {
	const char *event;		/* read this event only; NULL: those known */
	unsigned signatures : 1;	/* method names end in their descriptor */
	unsigned mark_jit : 1;		/* frames marked with their type, _[j] ... */
	unsigned mark_kernel : 1;	/* kernel frames marked _[k] */
};

/* What the samples of an event weigh, besides counting one each. */
struct jfr_event_spec {
	const char *name;
	/* a sampled event: this weight column holds its period, in ns */
	const char *sampled;
	/* fields read as weights: "duration" in ns, the others in bytes */
	const char *fields[2];
};

struct jfr_event {
	const struct jfr_event_spec *spec;
	struct jfr_event_spec own;	/* another event named with --event */
	int columns[3];			/* count, weights; -1 until made */
	uint64_t samples;
	int64_t period;			/* sampled: ns a sample stands for */
	int64_t last_period;		/* what the chunks before said */
	int period_observed;		/* from the samples, not the settings */
	/* in the chunk being read: its type, where its fields are */
	int type;
	int f_time, f_thread, f_stack, f_value[2];
	unsigned char duration[2];	/* f_value[i] in ticks, not bytes */
	int nfields;			/* the fields up to the last of those */
	uint64_t chunk_count;
	int64_t setting_period;		/* the chunk's "period" setting, or 0 */
	int64_t setting_interval;	/* async-profiler's "interval" */
};

/* Samples alike in a row, summed (model.c): an event's count and weights. */
struct jfr_run {
	struct jfr_event *ev;		/* NULL: none */
	uint32_t stack, labels;
	uint64_t sums[3];
	uint64_t first, last;		/* the times they span */
};

/* Count of each event type, for the facts. */
struct jfr_count {
	char *name;
	uint64_t n;
	int stacks;		/* its events have stack traces */
};

struct jfr_reader {
	struct pk_context *ctx;
	struct pk_profile *p;
	const char *name;
	struct jfr_options opts;
	struct jfr_chunk ch;
	struct jfr_event *events;
	size_t nevents;
	/* per chunk: events of each type index; the types of the events
	 * that say things (-1 when the chunk has none) */
	uint64_t *type_counts;
	int active_setting, jvm_information, active_recording;
	int setting_id, setting_name, setting_value;	/* their fields */
	int time_engine;		/* async-profiler's interval is in ns */
	/* across chunks */
	struct jfr_count *counts;
	size_t ncounts;
	unsigned chunks;
	char version[16];		/* of the first chunk: "2.1" */
	int64_t start_nanos, end_nanos;
	int64_t pid;			/* from jdk.JVMInformation, or -1 */
	uint64_t missing, truncated, unknown_types;
	/* the model; the last stack and thread, per chunk */
	uint64_t last_stack_key, last_thread_key;
	uint32_t last_stack, last_labels[2];
	int last_truncated;
	pk_str key_comm, key_tid, key_java_tid, key_pid, key_truncated, str_true;
	uint32_t *stack;
	size_t stack_cap;
	int64_t *values;
	size_t values_cap;
	struct jfr_run run;
	struct pk_strbuf text, class_name, name_buf, system_buf;
};

/* model.c */
/* "NAME: out of memory", as an error; PK_ENOMEM. */
int jfr_nomem(const struct jfr_reader *r);
int jfr_model_init(struct jfr_reader *r);
void jfr_model_release(struct jfr_reader *r);
/* The model's stack of a stack trace constant, and whether the JVM
 * truncated it. */
int jfr_model_stack(struct jfr_reader *r, uint64_t key, uint32_t *stack,
		    int *truncated);
/* The label set of a thread constant. */
int jfr_model_thread(struct jfr_reader *r, uint64_t key, int truncated,
		     uint32_t *labels);
/* Add one event's sample: values are its weights, in its columns' order. */
int jfr_model_add(struct jfr_reader *r, struct jfr_event *ev, uint32_t stack,
		  uint32_t labels, uint64_t time, const int64_t *weights);
/* Append a string field of a struct value whose fields start at at[]. */
int jfr_field_text(struct jfr_reader *r, const struct jfr_type *t, int field,
		   const unsigned char *const *at, struct pk_strbuf *out,
		   int dots, enum jfr_string_state *state);
/* The samples summed last into the model, and the CPU samples' columns
 * first, when they are not: the default. */
int jfr_model_finish(struct jfr_reader *r);

/* events.c */
int jfr_events_init(struct jfr_reader *r);
void jfr_events_release(struct jfr_reader *r);
/* The first pass over a chunk, then the events read. */
int jfr_events_scan(struct jfr_reader *r);
int jfr_events_read(struct jfr_reader *r);

#endif
