/* SPDX-License-Identifier: MIT */
/*
 * The profile model: one in-memory form that every reader fills and every
 * writer reads. It follows pprof's profile.proto.
 *
 * Strings, functions, locations, stacks and label sets are interned, and
 * samples with the same stack and labels are summed as they arrive, so
 * memory grows with the distinct stacks of an input, not with its size.
 * Only a profile created with PK_PROFILE_KEEP_ORDER keeps every sample
 * with its timestamp (for writers that draw timelines).
 *
 * Ids are 1-based indexes; 0 means "none". A string id 0 is "".
 *
 * Lifetimes: the profile owns everything it returns. Strings (and so
 * names and meta values) stay valid until pk_profile_free. A pointer to
 * a sample type, mapping, function, location, its lines, a stack, a
 * label set or a sample stays valid until the next call that adds one of
 * the same kind (the array may move), or pk_profile_free; ids never
 * change.
 */
#ifndef PROFKIT_PROFILE_H
#define PROFKIT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t pk_str;

enum pk_value_kind {
	PK_VALUE_COUNT,		/* number of samples or events */
	PK_VALUE_WEIGHT,	/* the event's period: time, bytes, ... */
};

struct pk_value_type {
	pk_str type;		/* "samples", "cpu-clock", "alloc_space" */
	pk_str unit;		/* "count", "nanoseconds", "bytes" */
	pk_str event;		/* the event the value counts, or 0 */
	enum pk_value_kind kind;
};

struct pk_mapping {
	uint64_t start, limit, offset;
	pk_str file;
	pk_str build_id;	/* hex digits */
	unsigned has_functions : 1;
	unsigned has_filenames : 1;
	unsigned has_line_numbers : 1;
	unsigned has_inline_frames : 1;
};

struct pk_function {
	pk_str name;		/* demangled */
	pk_str system_name;	/* as in the symbol table */
	pk_str filename;
	int64_t start_line;
};

struct pk_line {
	uint32_t function;	/* function id */
	int64_t line;
};

struct pk_location {
	uint32_t mapping;	/* mapping id, or 0 */
	uint64_t address;
	uint32_t nlines;	/* inline frames, innermost first */
};

struct pk_label {
	pk_str key;
	pk_str str;		/* string label, or 0 for a numeric one */
	int64_t num;
	pk_str unit;
};

struct pk_sample {
	uint32_t stack;		/* stack id (location ids, leaf first) */
	uint32_t labels;	/* label set id, or 0 */
	uint64_t time;		/* nanoseconds, 0 when unknown */
};

enum pk_profile_flags {
	PK_PROFILE_KEEP_ORDER = 1 << 0,	/* keep each sample, in order */
	/* Only function names will be shown (folded, flame graphs): the
	 * symbolizer skips files and lines where the symbol table names an
	 * address. */
	PK_PROFILE_NAMES_ONLY = 1 << 1,
	/* A recording without samples is no error but an empty profile
	 * (profkit-info describes it); other readers' checks stay. */
	PK_PROFILE_KEEP_EMPTY = 1 << 2,
	/* Keep each sample, in order, where its reader says its times are
	 * on the wall clock (perf.data, OpenTelemetry profiles); else sum
	 * them: writers of timestamps that mean dates (OTLP) pay for
	 * keeping samples only where the input has them. */
	PK_PROFILE_KEEP_WALL_ORDER = 1 << 3,
};

struct pk_profile;

struct pk_profile *pk_profile_new(unsigned flags);
void pk_profile_free(struct pk_profile *p);
unsigned pk_profile_flags(const struct pk_profile *p);
/* Non-zero once an allocation failed or the memory limit was passed. */
int pk_profile_failed(const struct pk_profile *p);
/* Bytes held by the model; the build fails once this passes limit. */
size_t pk_profile_memory(const struct pk_profile *p);
void pk_profile_set_memory_limit(struct pk_profile *p, uint64_t bytes);

/* Strings. */
pk_str pk_profile_intern(struct pk_profile *p, const char *s, size_t len);
pk_str pk_profile_intern_cstr(struct pk_profile *p, const char *s);
/* The id of a string already in the profile, or 0. */
pk_str pk_profile_lookup(const struct pk_profile *p, const char *s);
pk_str pk_profile_lookup_len(const struct pk_profile *p, const char *s,
			     size_t len);
const char *pk_profile_string(const struct pk_profile *p, pk_str id);
size_t pk_profile_string_len(const struct pk_profile *p, pk_str id);
size_t pk_profile_string_count(const struct pk_profile *p);

/*
 * Sample types. Adding one after samples exist gives those samples 0 in
 * the new column. Returns the column index, or -1 on failure.
 */
int pk_profile_add_sample_type(struct pk_profile *p, const char *type,
			       const char *unit, const char *event,
			       enum pk_value_kind kind);
size_t pk_profile_sample_type_count(const struct pk_profile *p);
const struct pk_value_type *pk_profile_sample_type(const struct pk_profile *p,
						   size_t index);
int pk_profile_rename_sample_type(struct pk_profile *p, size_t index,
				  const char *type);
/*
 * Exact values. A column's values are fixed point: a value v means
 * v / scale units of the column's unit, the scale being a power of ten
 * from 1 to 10^18 (1, the default, for whole counts; folded input
 * "main;a 1.5" is 15 at scale 10). Every value of a column, and so
 * pk_profile_total(), is at the column's scale. The scale of a column
 * that does not exist is 1.
 */
int64_t pk_profile_sample_type_scale(const struct pk_profile *p,
				     size_t column);
/*
 * Give a column a finer scale (a multiple of its own), multiplying the
 * values it holds so that they keep their meaning. Set it before adding
 * values at that scale. Returns 0; PK_EUSAGE for a column that does not
 * exist, a scale that is not a power of ten or one coarser than the
 * column's; PK_EINPUT when a value would not fit in 64 bits (then
 * nothing changes).
 */
int pk_profile_set_sample_type_scale(struct pk_profile *p, size_t column,
				     int64_t scale);
/*
 * Give column_a of a and column_b of b (a and b may be one profile) the
 * finer of their two scales, so that their values compare and add.
 * Returns 0, or what pk_profile_set_sample_type_scale() returns.
 */
int pk_profile_align_scales(struct pk_profile *a, size_t column_a,
			    struct pk_profile *b, size_t column_b);
/*
 * value / scale as a decimal, without trailing zeros: "11.5", "-0.25",
 * "3". Returns the length snprintf would (PK_VALUE_FORMAT_SIZE bytes
 * always suffice), or PK_EUSAGE for a scale that is not a power of ten.
 */
#define PK_VALUE_FORMAT_SIZE 24
int pk_value_format(char *buf, size_t size, int64_t value, int64_t scale);
/* Column of the event's value of the given kind, or -1. */
int pk_profile_find_column(const struct pk_profile *p, pk_str event,
			   enum pk_value_kind kind);
/* Events in the order they first appeared (string ids), and their count. */
size_t pk_profile_event_count(const struct pk_profile *p);
pk_str pk_profile_event(const struct pk_profile *p, size_t index);

/* Period, time and descriptive metadata. */
void pk_profile_set_period(struct pk_profile *p, const char *type,
			   const char *unit, int64_t period);
struct pk_value_type pk_profile_period_type(const struct pk_profile *p);
int64_t pk_profile_period(const struct pk_profile *p);
void pk_profile_set_time(struct pk_profile *p, int64_t time_nanos,
			 int64_t duration_nanos);
int64_t pk_profile_time_nanos(const struct pk_profile *p);
int64_t pk_profile_duration_nanos(const struct pk_profile *p);
/*
 * Free-form key/value facts: hostname, os-release, cmdline, ... and
 * pprof's frame filters, regular expressions of function names that
 * pprof hides (drop_frames: from the leaf up to the last match, unless
 * keep_frames matches), which pass from reader to pprof writer.
 */
#define PK_META_DROP_FRAMES "drop_frames"
#define PK_META_KEEP_FRAMES "keep_frames"
/* Set by the perf.data reader when it unwound user stacks from their
 * registers and stack copies (--call-graph dwarf): how many reached
 * their root. Such stacks are shown with their inlined functions. */
#define PK_META_DWARF_UNWINDING "dwarf-unwinding"
/* Set by the perf.data reader when it made events of its own from the
 * recorded ones: "off-cpu" from scheduler switches and "wall" (the clock
 * plus off-cpu), separated by spaces. Writers that print the recorded
 * events (perf-script) leave these out unless --event names one. */
#define PK_META_DERIVED_EVENTS "derived-events"
/* Set by pk_read: the input's name and the reader that read it (the
 * first input's, when several are summed). */
#define PK_META_INPUT "input"
#define PK_META_FORMAT "format"
void pk_profile_set_meta(struct pk_profile *p, const char *key,
			 const char *value);
const char *pk_profile_meta(const struct pk_profile *p, const char *key);
size_t pk_profile_meta_count(const struct pk_profile *p);
void pk_profile_meta_at(const struct pk_profile *p, size_t i,
			const char **key, const char **value);
/* Samples with timestamps widen this; writers read the span. */
void pk_profile_time_span(const struct pk_profile *p, uint64_t *first,
			  uint64_t *last);

/* Mappings, functions, locations: interned, so equal input gives one id.
 * A mapping's limit below its start (not known) becomes UINT64_MAX. */
uint32_t pk_profile_intern_mapping(struct pk_profile *p,
				   const struct pk_mapping *m);
size_t pk_profile_mapping_count(const struct pk_profile *p);
const struct pk_mapping *pk_profile_mapping(const struct pk_profile *p,
					    uint32_t id);
/* Mappings are mutable after the fact: symbolizers set the has_* bits. */
struct pk_mapping *pk_profile_mapping_mut(struct pk_profile *p, uint32_t id);

uint32_t pk_profile_intern_function(struct pk_profile *p,
				    const struct pk_function *f);
size_t pk_profile_function_count(const struct pk_profile *p);
const struct pk_function *pk_profile_function(const struct pk_profile *p,
					      uint32_t id);

uint32_t pk_profile_intern_location(struct pk_profile *p, uint32_t mapping,
				    uint64_t address,
				    const struct pk_line *lines, size_t nlines);
size_t pk_profile_location_count(const struct pk_profile *p);
const struct pk_location *pk_profile_location(const struct pk_profile *p,
					      uint32_t id);
/* The lines of loc, a location pk_profile_location gave for p. */
const struct pk_line *pk_profile_location_lines(const struct pk_profile *p,
						const struct pk_location *loc);
/*
 * Replace the lines of a location (symbolizers fill locations that have
 * an address but no lines). Stacks keep referring to the same id.
 * Returns 0, or a negative pk_err.
 */
int pk_profile_set_location_lines(struct pk_profile *p, uint32_t id,
				  const struct pk_line *lines, size_t nlines);

/* Stacks: location ids, leaf first. */
uint32_t pk_profile_intern_stack(struct pk_profile *p, const uint32_t *locs,
				 size_t depth);
size_t pk_profile_stack_count(const struct pk_profile *p);
const uint32_t *pk_profile_stack(const struct pk_profile *p, uint32_t id,
				 size_t *depth);

/* Label sets. */
uint32_t pk_profile_intern_labels(struct pk_profile *p,
				  const struct pk_label *labels, size_t n);
const struct pk_label *pk_profile_labels(const struct pk_profile *p,
					 uint32_t id, size_t *n);
/* The label with this key in a set, or NULL. */
const struct pk_label *pk_profile_label_find(const struct pk_profile *p,
					     uint32_t labels, pk_str key);

/*
 * Add values (one per sample type, each at its column's scale; missing
 * trailing ones are 0) for a stack and label set. Summed into an equal
 * sample unless the profile keeps order. Returns 0, or a negative pk_err
 * on failure.
 */
int pk_profile_add_sample(struct pk_profile *p, uint32_t stack,
			  uint32_t labels, uint64_t time,
			  const int64_t *values, size_t nvalues);
size_t pk_profile_sample_count(const struct pk_profile *p);
const struct pk_sample *pk_profile_sample(const struct pk_profile *p,
					  size_t index);
const int64_t *pk_profile_sample_values(const struct pk_profile *p,
					size_t index);
/* Multiply one column of every sample by num / den (truncating; the
 * column's scale stays). */
void pk_profile_scale_column(struct pk_profile *p, size_t column,
			     int64_t num, int64_t den);
/* Sum of one column over all samples. */
int64_t pk_profile_total(const struct pk_profile *p, size_t column);

#ifdef __cplusplus
}
#endif
#endif
