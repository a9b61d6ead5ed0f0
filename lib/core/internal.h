/* SPDX-License-Identifier: MIT */
/* Helpers shared inside libprofkit; nothing here is installed. */
#ifndef PROFKIT_INTERNAL_H
#define PROFKIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <profkit/profkit.h>

#include "options.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/search.h"
#include "util/strings.h"

#define PK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct pk_context {
	struct pk_error error;
	pk_warn_fn warn;
	void *warn_data;
	pk_progress_fn progress;
	void *progress_data;
	unsigned long warnings;
	uint64_t max_memory;
	int strict;
	const char *subject;	/* the input being loaded: names warnings */
	/* what the layers above keep for the context's life (the
	 * symbolizer's files, each opened once): pki_context_slot */
	struct pki_context_slot *slots;
};

/* Name warnings after subject (NULL: none) until it is unset. */
void pki_context_set_subject(struct pk_context *ctx, const char *subject);
/*
 * A pointer that a layer above core keeps in the context, found by key
 * (the address of something of that layer's own) and freed with the
 * context by free_fn, so that the context owns it without knowing what
 * it is. NULL when out of memory.
 */
void **pki_context_slot(struct pk_context *ctx, const void *key,
			void (*free_fn)(void *));

/* Default cap on memory that sizes read from an input may drive. */
#define PK_DEFAULT_MAX_MEMORY (8ULL << 30)

/*
 * Default frames kept per stack (--max-stack): far above what unwinders
 * give (perf's kernel.perf_event_max_stack is 127, gperftools' 254),
 * deep enough for deep recursion, and a bound on hostile input.
 */
#define PK_DEFAULT_MAX_STACK 4096

/* Cut stacks deeper than frames (0: keep all) to their leaf-side frames,
 * and restart the count of stacks cut. */
void pki_profile_set_max_stack(struct pk_profile *p, size_t frames);
/* The frames a stack keeps (SIZE_MAX: all): readers need read no more. */
size_t pki_profile_max_stack(const struct pk_profile *p);
/* How many stacks were cut since pki_profile_set_max_stack. */
size_t pki_profile_cut_stacks(const struct pk_profile *p);

/*
 * The rest of an uncompressed input as one block of memory, so a reader
 * can split it: the memory of pk_input_open_memory, or a regular file
 * mapped (no copy). NULL where it cannot be (a pipe, compressed input,
 * an empty rest, mmap failing): read it as a stream then. The input is
 * used up; the block lives until pk_input_close.
 */
const unsigned char *pki_input_map(struct pk_input *in, size_t *size);
/* Whether the (decompressed) input has no bytes at all; not after an
 * error reading it, which the context holds. */
int pki_input_is_empty(struct pk_input *in);
/* Skip n bytes that pk_input_peek showed (fewer if fewer are there). */
void pki_input_skip(struct pk_input *in, size_t n);
/* Bytes of the block read: a mapped file's pages read leave the
 * process's memory (they stay readable, from the page cache). */
void pki_input_unmap_part(const struct pk_input *in, const void *start,
			  size_t len);

/*
 * Read the rest of in as one JSON document, a stream: the values on the
 * paths go to value(arg, ...) (util/json-read.h). Returns 0 or the first
 * error, set in the context: the reader's message after the input's name
 * ("NAME: offset N ($.path): what was expected"), or what value set.
 */
struct pki_json_path;
struct pki_json_reader;
struct pki_json_value;
int pki_input_read_json(struct pk_input *in, const struct pki_json_path *paths,
			int (*value)(void *arg, struct pki_json_reader *jr, int id,
				     const struct pki_json_value *v),
			void *arg);

/*
 * The reader's sample times are dates (time_nanos places them on the wall
 * clock): a profile made with PK_PROFILE_KEEP_WALL_ORDER keeps each sample
 * from then on. Effective before the first sample only, so that a
 * profile keeps all its samples or sums all. pki_profile_keeps_order:
 * whether it keeps them (PK_PROFILE_KEEP_ORDER, or that).
 */
void pki_profile_set_wall_clock(struct pk_profile *p);
int pki_profile_wall_clock(const struct pk_profile *p);
int pki_profile_keeps_order(const struct pk_profile *p);

/* Fold into p what a part of its input read apart (the perf script reader's
 * chunks) counted: the stacks it cut, its samples' time span. */
void pki_profile_absorb_counts(struct pk_profile *p,
			       const struct pk_profile *part);
size_t pki_profile_label_set_count(const struct pk_profile *p);
/*
 * Room for n samples more at the end of p, which keeps every sample
 * (pki_profile_keeps_order): their records, every field for the caller
 * to set as pk_profile_add_sample would, their times' span noted apart
 * (pki_profile_absorb_counts). Their values: with row (of
 * pk_profile_sample_type_count values), that row each; else at
 * *values, a row a sample for the caller to set. NULL when out of
 * memory, or p sums its samples.
 */
struct pk_sample *pki_profile_add_samples(struct pk_profile *p, size_t n,
					  const int64_t *row, int64_t **values);
/*
 * The samples' records, pk_profile_sample_count of them, and at *values
 * their values (NULL with no sample types), sample i's row at
 * i * *stride: stride is pk_profile_sample_type_count, or 0 while every
 * sample kept in order has the same values, stored once. For a writer
 * that walks every sample, where pk_profile_sample and
 * pk_profile_sample_values are a call each.
 */
const struct pk_sample *pki_profile_samples(const struct pk_profile *p,
					    const int64_t **values,
					    size_t *stride);

/*
 * Ahead of interning a key into p, the start of its lookup brought into
 * the cache: a caller interning many keys (a part's tables appended to
 * the whole) asks a few keys ahead, so that their cache misses overlap.
 */
void pki_profile_prefetch_string(const struct pk_profile *p, const char *s,
				 size_t len);
void pki_profile_prefetch_function(const struct pk_profile *p,
				   const struct pk_function *f);
void pki_profile_prefetch_location(const struct pk_profile *p,
				   uint32_t mapping, uint64_t address,
				   const struct pk_line *lines, size_t nlines);
void pki_profile_prefetch_stack(const struct pk_profile *p,
				const uint32_t *locs, size_t depth);

/* The column of this type and unit (an earlier input's, when inputs are
 * summed into p), else a new one; -1 when out of memory. */
int pki_profile_column(struct pk_profile *p, const char *type, const char *unit,
		       const char *event, enum pk_value_kind kind);

/* Reorder a profile's columns: column i becomes old column order[i] (a
 * permutation); its events follow. 0 or PK_ENOMEM (then nothing moved). */
int pki_profile_order_columns(struct pk_profile *p, const size_t *order);
/* Column dst of every sample becomes the sum of its columns a and b. */
void pki_profile_sum_columns(struct pk_profile *p, size_t dst, size_t a,
			     size_t b);
int64_t pki_profile_duration(const struct pk_profile *p);
/* Sort sample indexes by the samples' times, equal times by index (a
 * copy of each index and time is made only when out of order). 0 or
 * PK_ENOMEM (then idx is as it was). */
int pki_sort_by_time(const struct pk_profile *p, uint32_t *idx, size_t n);
/* The same order as places in idx: 0 when idx is in it already, else 1
 * with place[k] the place in idx of the k-th sample in time order (for
 * a caller that keeps more than indexes in idx's order); or PK_ENOMEM. */
int pki_time_order(const struct pk_profile *p, const uint32_t *idx, size_t n,
		   uint32_t *place);
int pki_is_shared_library(const char *path);

/*
 * Formats whose values are whole (pprof, OTLP) write a fractional column
 * at its scale and say so in its unit: "count/10", the value 115 being
 * 11.5 counts. pki_scaled_unit makes that unit (malloc'd; NULL when out
 * of memory); pki_unit_scale reads one back: the length of the unit
 * without the scale, and the scale at *scale (1 when it has none).
 */
char *pki_scaled_unit(const char *unit, int64_t scale);
size_t pki_unit_scale(const char *unit, int64_t *scale);

/*
 * What a writer's output holds of the model, by id: loc[id] is set
 * (non-zero) by the caller for each location its samples reach, in an
 * array of pk_profile_location_count() + 1; pki_reached_number marks the
 * functions and mappings those locations use (a line whose function does
 * not exist is none), then numbers each table's marks from 1 in id
 * order, with the counts, and the lines of the locations whose function
 * exists. 0 or PK_ENOMEM. pki_reached_release frees the three arrays.
 */
struct pki_reached {
	uint32_t *loc, *fn, *map;
	size_t nlocs, nfns, nmaps, nlines;
};
int pki_reached_number(const struct pk_profile *p, struct pki_reached *r);
void pki_reached_release(struct pki_reached *r);
/* JSON viewers open gzipped files: compress what is written from now on
 * when the output file's name ends in ".gz" (never stdout or memory). */
struct pk_output;
int pki_output_gzip_if_named(struct pk_output *out);
/*
 * A profile of nothing (no samples and no sample types: an empty input)
 * for a format that cannot be without a sample type (pprof, the Firefox
 * Profiler's): write writes a profile of no samples with the one a count
 * of samples has instead.
 */
int pki_profile_is_nothing(const struct pk_profile *p);
int pki_write_nothing(struct pk_context *ctx, const struct pk_options *opts,
		      struct pk_output *out,
		      int (*write)(struct pk_context *, const struct pk_profile *,
				   const struct pk_options *, struct pk_output *));
/*
 * Write data (malloc'd, n bytes) and free it. A gzip output compresses
 * it on a thread of its own meanwhile, so the caller can make the next
 * part; the bytes are those pk_output_write would make. The caller ends
 * with pki_output_wait_given (any other call on the output waits too),
 * which returns the first error.
 */
int pki_output_give(struct pk_output *out, void *data, size_t n);
int pki_output_wait_given(struct pk_output *out);
/* Start a JSON writer (util/json.h) onto out: what out cannot write is
 * its error, PK_ENOMEM what it lacks memory for. */
struct pki_json;
void pki_output_json(struct pki_json *j, struct pk_output *out);
/* value / scale as a JSON number, with pk_value_format's digits. */
void pki_json_fixed(struct pki_json *j, int64_t value, int64_t scale);

/*
 * Off-CPU intervals. The perf.data reader derives the event "off-cpu" from
 * scheduler switches: a sample each time a thread was switched out, at
 * that time, weighing how long it stayed out (and the same in "wall").
 * On a timeline such a sample covers [time, time + weight) exactly, where
 * any other sample stands for a sampling period near its time.
 */
#define PKI_EVENT_OFF_CPU "off-cpu"
#define PKI_EVENT_WALL "wall"
/* How to record what they need, for the messages that ask for it. */
#define PKI_OFF_CPU_RECIPE "perf record -e sched:sched_switch " \
	"--switch-events --call-graph dwarf -- PROGRAM"
#define PKI_WALL_RECIPE "perf record -e cpu-clock -e sched:sched_switch " \
	"--switch-events --call-graph dwarf -- PROGRAM"
/* The column of the off-CPU weights (nanoseconds), or -1. */
int pki_interval_column(const struct pk_profile *p);
/* How long the sample at index was off the CPU, in ns, or 0 when it is no
 * interval (column: pki_interval_column's). */
uint64_t pki_interval_length(const struct pk_profile *p, int column,
			     size_t index);

/* The sample type a profile says to show by default (pprof's
 * default_sample_type; the pprof reader keeps it): pk_profile_top shows
 * it unless the options choose another. */
#define PKI_META_DEFAULT_SAMPLE_TYPE "default_sample_type"

/*
 * Set by readers whose frame and thread names are final (the call trees
 * of Instruments, VTune, Visual Studio, GHC; the stack text of DTrace,
 * bpftrace, gdb, jstack, ...): folding prints them as those tools'
 * collapse scripts do, without stackcollapse-perf.pl's tidying of perf's
 * names (parameter list cut, quotes dropped, blanks in thread names made
 * underscores), so that "worker(int)" and "worker(double)", or Haskell's
 * "go" and "go'", stay apart.
 */
#define PKI_META_VERBATIM_NAMES "verbatim-names"

/* The input's name without its directories when the reader kept it, else
 * "profkit": the title of a JSON profile. */
static inline const char *pki_profile_title(const struct pk_profile *p)
{
	const char *name = pk_profile_meta(p, PK_META_INPUT), *slash;

	if (!name || !*name || name[0] == '<')
		return "profkit";
	slash = strrchr(name, '/');
	return slash && slash[1] ? slash + 1 : name;
}

/*
 * The cap on repeated warnings: warn while *count, bumped by every call,
 * is at most max, so a damaged input or a missing file costs a few
 * lines, and *count still says how many there were.
 */
#define PK_WARN_AT_MOST(ctx, count, max, ...) \
	do { \
		if (++*(count) <= (max)) \
			pk_warn((ctx), __VA_ARGS__); \
	} while (0)

#endif
