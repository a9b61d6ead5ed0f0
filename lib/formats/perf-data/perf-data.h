/* SPDX-License-Identifier: MIT */
/*
 * Inside the perf.data reader: read.c, the format's entry,
 * drives the file (layouts, record stream, time order, compression); its
 * parts are here in lib/formats/perf-data/: header.c reads attributes and feature
 * sections, tracing.c decodes tracepoint fields with libtraceevent,
 * tracing-format.c checks event formats before libtraceevent reads them,
 * tracing-text.c prints most samples' trace text without it,
 * sample.c decodes sample records, machine.c keeps the
 * processes, threads and mappings, unwind.c unwinds the user stacks of
 * --call-graph dwarf samples and model.c turns samples into the profile
 * model.
 *
 * Every multi-byte field is decoded with the file's byte order (pd_u64
 * and friends), never by casting, so a file from a big-endian machine
 * needs no swapping pass and no field is read from a misaligned pointer.
 * Record layouts and constants are those of the kernel's
 * include/uapi/linux/perf_event.h and perf's tools/perf/util/header.c.
 */
#ifndef PROFKIT_PERF_DATA_H
#define PROFKIT_PERF_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/idtab.h"
#include "core/internal.h"

/* ---- record types ---- */

enum {
	PD_RECORD_MMAP = 1,
	PD_RECORD_LOST = 2,
	PD_RECORD_COMM = 3,
	PD_RECORD_EXIT = 4,
	PD_RECORD_THROTTLE = 5,
	PD_RECORD_UNTHROTTLE = 6,
	PD_RECORD_FORK = 7,
	PD_RECORD_SAMPLE = 9,
	PD_RECORD_MMAP2 = 10,
	PD_RECORD_LOST_SAMPLES = 13,
	PD_RECORD_SWITCH = 14,
	PD_RECORD_SWITCH_CPU_WIDE = 15,
	PD_RECORD_KSYMBOL = 17,
	/* records perf itself writes, never queued for ordering */
	PD_RECORD_USER_START = 64,
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_COMPRESSED2 = 83,
};

/* header.misc */
#define PD_MISC_CPUMODE_MASK 7u
enum {
	PD_CPUMODE_UNKNOWN = 0,
	PD_CPUMODE_KERNEL = 1,
	PD_CPUMODE_USER = 2,
	PD_CPUMODE_HYPERVISOR = 3,
	PD_CPUMODE_GUEST_KERNEL = 4,
	PD_CPUMODE_GUEST_USER = 5,
};
#define PD_MISC_MMAP_DATA (1u << 13)
#define PD_MISC_FORK_EXEC (1u << 13)
#define PD_MISC_MMAP_BUILD_ID (1u << 14)
#define PD_MISC_BUILD_ID_SIZE (1u << 15)
#define PD_MISC_SWITCH_OUT (1u << 13)	/* of SWITCH records */

/* attr.sample_type */
#define PD_SAMPLE_IP (1ull << 0)
#define PD_SAMPLE_TID (1ull << 1)
#define PD_SAMPLE_TIME (1ull << 2)
#define PD_SAMPLE_ADDR (1ull << 3)
#define PD_SAMPLE_READ (1ull << 4)
#define PD_SAMPLE_CALLCHAIN (1ull << 5)
#define PD_SAMPLE_ID (1ull << 6)
#define PD_SAMPLE_CPU (1ull << 7)
#define PD_SAMPLE_PERIOD (1ull << 8)
#define PD_SAMPLE_STREAM_ID (1ull << 9)
#define PD_SAMPLE_RAW (1ull << 10)
#define PD_SAMPLE_BRANCH_STACK (1ull << 11)
#define PD_SAMPLE_REGS_USER (1ull << 12)
#define PD_SAMPLE_STACK_USER (1ull << 13)
#define PD_SAMPLE_WEIGHT (1ull << 14)
#define PD_SAMPLE_DATA_SRC (1ull << 15)
#define PD_SAMPLE_IDENTIFIER (1ull << 16)
#define PD_SAMPLE_TRANSACTION (1ull << 17)
#define PD_SAMPLE_REGS_INTR (1ull << 18)
#define PD_SAMPLE_PHYS_ADDR (1ull << 19)
#define PD_SAMPLE_AUX (1ull << 20)
#define PD_SAMPLE_CGROUP (1ull << 21)
#define PD_SAMPLE_DATA_PAGE_SIZE (1ull << 22)
#define PD_SAMPLE_CODE_PAGE_SIZE (1ull << 23)
#define PD_SAMPLE_WEIGHT_STRUCT (1ull << 24)

/* attr.read_format */
#define PD_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define PD_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define PD_FORMAT_ID (1ull << 2)
#define PD_FORMAT_GROUP (1ull << 3)
#define PD_FORMAT_LOST (1ull << 4)

/* attr flag bits (the bitfield word, in the writer's bit numbering) */
#define PD_ATTR_FREQ (1ull << 10)
#define PD_ATTR_SAMPLE_ID_ALL (1ull << 18)
#define PD_ATTR_EXCLUDE_CALLCHAIN_USER (1ull << 22)
#define PD_ATTR_CONTEXT_SWITCH (1ull << 26)	/* --switch-events */

/* attr.branch_sample_type */
#define PD_BRANCH_HW_INDEX (1ull << 17)

/* attr.type */
enum {
	PD_TYPE_HARDWARE = 0,
	PD_TYPE_SOFTWARE = 1,
	PD_TYPE_TRACEPOINT = 2,
	PD_TYPE_HW_CACHE = 3,
	PD_TYPE_RAW = 4,
	PD_TYPE_BREAKPOINT = 5,
};

/* attr.config of PD_TYPE_SOFTWARE */
enum {
	PD_SW_CPU_CLOCK = 0,
	PD_SW_TASK_CLOCK = 1,
};

/* Callchain entries at or above this are context markers, not addresses. */
#define PD_CONTEXT_MAX ((uint64_t)-4095)
#define PD_CONTEXT_HV ((uint64_t)-32)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)

/* Sizes of the structures perf writes. */
#define PD_FILE_HEADER_SIZE 104
#define PD_FILE_HEADER_V1_SIZE 72	/* before the feature bitmap */
#define PD_PIPE_HEADER_SIZE 16
#define PD_ATTR_SIZE_VER0 64
#define PD_ATTR_KNOWN 136	/* bytes of perf_event_attr we decode */
#define PD_RECORD_MAX 65535

/* ---- byte order ---- */

/*
 * A load and, for the other byte order, a swap: every field of every
 * sample goes through these, and a loop over bytes indexed by the
 * order does not compile to that (the shifts below become bswap).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PD_HOST_BIG 1
#else
#define PD_HOST_BIG 0
#endif

static inline uint16_t pd_u16(const unsigned char *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t pd_u32(const unsigned char *p, int big)
{
	uint32_t v;

	memcpy(&v, p, 4);
	if (big != PD_HOST_BIG)
		v = (v >> 24) | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | (v << 24);
	return v;
}

static inline uint64_t pd_u64(const unsigned char *p, int big)
{
	uint64_t v;

	memcpy(&v, p, 8);
	if (big != PD_HOST_BIG) {
		v = v >> 32 | v << 32;
		v = (v >> 16 & 0x0000ffff0000ffffULL) |
		    (v & 0x0000ffff0000ffffULL) << 16;
		v = (v >> 8 & 0x00ff00ff00ff00ffULL) |
		    (v & 0x00ff00ff00ff00ffULL) << 8;
	}
	return v;
}

/*
 * A hash of the whole u64s of bytes that are checked anyway when their
 * hashes agree (a callchain, a tracepoint payload): each word's multiply
 * is apart from the others, so a long chain is not hashed one multiply's
 * latency a word; a tail shorter than a word is left to the check.
 */
static inline uint64_t pd_hash_words(const unsigned char *bytes, size_t len,
				     uint64_t seed)
{
	uint64_t h = seed, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, bytes + i, 8);
		h = ((h << 23) | (h >> 41)) + w * 0x9e3779b97f4a7c15ULL;
	}
	return pki_hash_u64(h ^ len);
}

/* The first 8 bytes of a header: type, misc and size. */
struct pd_rec {
	const unsigned char *data;	/* the whole record */
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint64_t offset;	/* in the file or stream, for messages */
};

/* ---- events (perf_event_attr and its ids) ---- */

enum pd_name_source {
	PD_NAME_NONE,
	PD_NAME_TRACING_DATA,	/* tracepoint formats */
	PD_NAME_EVENT_TYPE,	/* the old event_types table */
	PD_NAME_EVENT_DESC,	/* EVENT_DESC feature or EVENT_UPDATE */
};

struct pd_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint64_t branch_sample_type;
	uint64_t regs_user;
	uint64_t regs_intr;
	char *name;		/* malloc'd, or NULL */
	enum pd_name_source name_source;
	/* the sample_id_all trailer of other records, worked out once
	 * (pd_attr_trailer): its u64s, and the time's, counted from the
	 * end (1: the last; 0: no time) */
	uint8_t trailer_u64s, trailer_time;
};

struct pd_id {
	uint64_t id;
	uint32_t attr;
};

struct pd_evlist {
	struct pd_attr *attrs;
	size_t nattrs, attrs_cap;
	struct pd_id *ids;	/* id -> attr, sorted when ids_sorted */
	size_t nids, ids_cap;
	int ids_sorted;
	int id_pos, is_pos;	/* where the id is, from attrs[0] */
	char **desc_names;	/* EVENT_DESC names of events yet to come */
	size_t ndesc_names;
};

/* ---- processes, threads and mappings ---- */

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t file;		/* private string id */
	uint32_t build_id;	/* private string id of the hex digits, or 0 */
	uint32_t mapping;	/* model mapping id once used, else 0 */
	unsigned no_unwind : 1;	/* no file with CFI found for it */
};

struct pd_space {
	int64_t key;		/* pid, or -1 for the kernel */
	struct pd_map *maps;	/* sorted by start */
	size_t nmaps, maps_cap;
};

struct pd_thread {
	int32_t tid, pid;
	uint32_t comm;		/* private string id */
	int comm_set;
};

struct pd_machine {
	struct pk_profile *strings;	/* private string table */
	struct pd_thread *threads;
	size_t nthreads, threads_cap;
	struct pk_idtab thread_tab;
	/* ids of threads found lately, by tid mod 64 (0: none): samples
	 * come in runs of a thread's, switch records alternate a few */
	uint32_t recent_thread[64];
	struct pd_space *spaces;
	size_t nspaces, spaces_cap;
	struct pk_idtab space_tab;
	struct pd_space kernel;	/* kernel and modules: may overlap */
	uint32_t *build_ids;	/* file string id -> build id string id */
	size_t build_ids_cap;
	uint32_t str_kernel;	/* "[kernel.kallsyms]" */
	uint64_t generation;	/* bumped by each record that changes maps */
};

/* Threads share their process's space; one without a pid has its own. */
static inline int64_t pd_space_key(const struct pd_thread *t)
{
	return t->pid != -1 ? t->pid : (int64_t)t->tid + ((int64_t)1 << 32);
}

/* ---- what the parts share ---- */

struct pd_state {
	struct pk_context *ctx;
	struct pk_profile *p;
	const char *name;	/* the input, for messages */
	int big;		/* the file is big-endian */
	struct pd_evlist ev;
	struct pd_machine m;
	char arch[32];		/* ARCH feature: uname -m of the recording */
	/* CLOCK_DATA feature (perf record -k): the wall clock, in ns since
	 * the epoch, at the moment the sample clock read clock_ref_ns */
	int has_clock_data;
	uint64_t clock_wall_ns, clock_ref_ns;
	int64_t file_mtime_ns;	/* of a perf.data file, 0: a stream */
	uint64_t warnings;
	const struct pk_options *opts;	/* the reader's, may be NULL */
	struct pd_tracing *tracing;	/* the event formats, or NULL */
};

/* Warn at most a few times per kind of damage; the reader sums up. */
void pd_warn(struct pd_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* header.c */
void pd_evlist_release(struct pd_evlist *ev);
/* Add an attribute from its on-file bytes (size says how many there are). */
int pd_evlist_add(struct pd_state *st, const unsigned char *attr, size_t size,
		  uint32_t *index);
int pd_evlist_add_id(struct pd_state *st, uint32_t attr, uint64_t id);
/* The attribute a record belongs to, or -1 when its id is unknown. */
int pd_evlist_find(struct pd_state *st, const unsigned char *rec,
		   size_t size, uint32_t type);
void pd_attr_set_name(struct pd_attr *a, const char *name, size_t len,
		      enum pd_name_source source);
/* The attribute's event name for the model, without perf's modifiers. */
void pd_attr_event_name(const struct pd_attr *a, char *buf, size_t len);
/* A feature section (HEADER_* number feat) or a HEADER_FEATURE record. */
int pd_read_feature(struct pd_state *st, unsigned feat,
		    const unsigned char *data, size_t len);
int pd_read_build_ids(struct pd_state *st, const unsigned char *data,
		      size_t len);
int pd_read_tracing_data(struct pd_state *st, const unsigned char *data,
			 size_t len);
/* One 72-byte perf_trace_event_type: config and a name. */
void pd_read_event_type(struct pd_state *st, const unsigned char *data);
void pd_read_event_update(struct pd_state *st, const unsigned char *rec,
			  size_t size);

/* model.c */
struct pd_event_columns {
	pk_str event;
	int count, weight;	/* columns, -1 until needed */
};

struct pd_made_mapping {
	uint32_t mapping, file;
};

/* What an event's samples are to the off-CPU view (offcpu.c). */
enum pd_role {
	PD_ROLE_UNKNOWN,	/* not looked at yet */
	PD_ROLE_OTHER,
	PD_ROLE_SWITCH,		/* sched:sched_switch: a switch-out */
	PD_ROLE_OFFCPU,		/* perf record --off-cpu's offcpu-time */
	PD_ROLE_CLOCK,		/* cpu-clock or task-clock: ns on CPU */
};

/* A thread switched out, waiting to be switched in again. */
struct pd_blocked {
	uint64_t since;		/* 0: not blocked */
	uint32_t stack, labels;
	int switched_out;	/* its SWITCH OUT record came */
};

struct pd_offcpu {
	enum pd_role *roles;	/* by attr */
	size_t roles_cap;
	struct pd_blocked *blocked;	/* by thread index in the machine */
	size_t blocked_cap;
	int event, clock;	/* mo->events indexes of off-cpu and of
				 * the first clock; -1: none */
	uint64_t intervals;
	int system_wide;	/* the idle task's switches are sampled */
	pk_str key_state, key_trace, key_prev_comm, key_next_pid;
	uint32_t *block_set;	/* sched_switch label set -> a block's, 0: not yet */
	size_t block_set_cap;
};

/*
 * Label sets made lately, direct-mapped: by a key (a thread and cpu, a
 * tracepoint payload) and up to 4 labels of the sample's own, which the
 * samples of a thread repeat, the set interned for them.
 */
struct pd_label_cache {
	struct pd_label_cache_slot {
		uint64_t key;
		uint32_t set;		/* 0: empty */
		size_t nbase;
		struct pk_label base[4];
	} slots[256];
};

/* The set of the n labels l, of which the first nbase are the sample's
 * own and the rest follow from key: the one c holds for them, else
 * interned in p (c NULL: always). */
uint32_t pd_label_set(struct pk_profile *p, struct pd_label_cache *c,
		      uint64_t key, const struct pk_label *l, size_t nbase,
		      size_t n);

struct pd_model {
	struct pd_state *st;
	struct pd_event_columns *events;
	size_t nevents, events_cap;
	int32_t *attr_event;	/* attr -> events index, -1 until seen */
	size_t attr_event_cap;
	uint32_t *locs;
	size_t locs_cap;
	int64_t *values;
	size_t values_cap;
	uint32_t *comm_str;	/* private comm string -> model string */
	size_t comm_str_cap;
	struct pd_made_mapping *made;	/* mappings made without build id */
	size_t nmade, made_cap;
	pk_str key_pid, key_tid, key_comm, key_cpu;
	uint64_t samples, bad_samples, guest;
	uint64_t first_time, last_time;	/* of the samples, 0: none */
	size_t earlier_columns;	/* of inputs read into the profile before */
	struct pd_unwinder *unwinder;	/* made at the first stack copy */
	struct pd_offcpu off;
	struct pd_frame_memo *frames;	/* see push_frame */
	struct pd_chain_memo *chains;	/* see chain_stack */
	unsigned char *chain_bytes;	/* the chains they remember */
	size_t chain_bytes_len, chain_bytes_cap;
	struct pd_label_cache *labels;	/* see sample_labels */
	struct pd_last_labels {	/* the last sample's, 0 set: none */
		int32_t pid, tid;
		uint32_t comm, cpu, set;
		int has_cpu;
	} last_labels;
};

void pd_model_init(struct pd_model *mo, struct pd_state *st);
/* Add a SAMPLE record of event attr; 0 or a pk_err. */
int pd_model_sample(struct pd_model *mo, const struct pd_rec *rec,
		    uint32_t attr);
/* A process exited (EXIT record of its main thread). */
void pd_model_exit(struct pd_model *mo, int32_t pid);
/* The columns of the event named name, made at its first use; unit: of
 * its weight column, made when not NULL. NULL when out of memory. */
struct pd_event_columns *pd_model_columns(struct pd_model *mo,
					  const char *name, const char *unit);
/* A sample's values in mo->values: 1 in c's count column, 0 elsewhere
 * (the caller sets a weight); *ncols, their number. NULL without memory. */
int64_t *pd_model_values(struct pd_model *mo, const struct pd_event_columns *c,
			 size_t *ncols);
/* Once all is read: names and orders the sample types, sets the
 * profile's period and times, adds late build ids. */
int pd_model_finish(struct pd_model *mo);
void pd_model_release(struct pd_model *mo);

/* offcpu.c: off-CPU and wall-clock time from scheduler switches */
struct pd_sample;

void pd_offcpu_init(struct pd_model *mo);
void pd_offcpu_release(struct pd_model *mo);
enum pd_role pd_offcpu_role(struct pd_model *mo, uint32_t attr);
/* An offcpu-time sample of perf record --off-cpu, made like the others:
 * newer perfs put its thread, period and callchain in its raw data, and
 * those written at the end of the recording have no real time. */
void pd_offcpu_sample(const struct pd_model *mo, struct pd_sample *s);
/* A sched_switch sample of thread t went into the model as stack and
 * labels: t blocks from now, and its next_pid runs again. */
int pd_offcpu_switch(struct pd_model *mo, const struct pd_sample *s,
		     const struct pd_thread *t, uint32_t stack,
		     uint32_t labels);
/* A SWITCH or SWITCH_CPU_WIDE record. */
int pd_model_switch(struct pd_model *mo, const struct pd_rec *rec,
		    uint32_t attr);
/* Once all is read: the wall-clock columns, or what the recording lacks
 * for the off-CPU and wall-clock time asked for. */
int pd_offcpu_finish(struct pd_model *mo);

/* sample.c */
struct pd_sample {
	uint64_t ip, time, addr, id, period;
	int32_t pid, tid;
	uint32_t cpu;
	const unsigned char *callchain;	/* nr_callchain u64s, file order */
	uint64_t nr_callchain;
	uint64_t user_ip;	/* from the user registers, when sampled */
	int has_user_ip;
	/* --call-graph dwarf: the user registers (abi 0: none) and a copy
	 * of the user stack from the sampled stack pointer up */
	uint64_t user_abi, user_regs_mask;
	const unsigned char *user_regs;
	const unsigned char *user_stack;
	uint64_t user_stack_size;	/* the bytes the kernel filled */
	const unsigned char *raw;	/* PERF_SAMPLE_RAW data, or NULL */
	uint32_t raw_size;
};

/* 0, or -1 with *what naming the field that overran the record. */
int pd_parse_sample(const struct pd_attr *a, const unsigned char *rec,
		    size_t size, int big, const char *arch,
		    struct pd_sample *s, const char **what);
/* User register reg (perf's numbering) of a sample: 1 and *value, or 0
 * when it was not sampled. */
int pd_sample_user_reg(const struct pd_sample *s, int reg, int big,
		       uint64_t *value);
/* The fields of a's sample_id_all trailer: a->trailer_u64s and
 * a->trailer_time from a->sample_type. */
void pd_attr_trailer(struct pd_attr *a);

/* What the sample_id_all trailer of a non-sample record says. */
struct pd_sample_id {
	uint64_t time, id;
	int32_t pid, tid;	/* -1 when not there */
	uint32_t cpu;		/* UINT32_MAX when not there */
};

/* The sample_id_all trailer of a non-sample record; -1 if it is absent. */
int pd_parse_id_trailer(const struct pd_attr *a, const unsigned char *rec,
			size_t size, int big, struct pd_sample_id *s);
/* The time of a record for ordering, or -1 when it carries none. */
int pd_record_time(const struct pd_attr *a, const unsigned char *rec,
		   size_t size, uint32_t type, int big, uint64_t *time);

/* tracing.c: tracepoint fields, from the tracing data's formats */
struct pd_tracing;

/* A tracing data section begins (its byte order and sizes): 0 or a pk_err. */
int pd_tracing_start(struct pd_state *st, int big, int long_size,
		     uint32_t page_size);
/* One event format of subsystem sys ("name: ...\nID: ...\nformat: ..."). */
void pd_tracing_event(struct pd_state *st, const char *sys, size_t sys_len,
		      const char *text, size_t len);
/* The printk formats: "0xADDR : \"FORMAT\"" lines. */
void pd_tracing_printk(struct pd_state *st, const char *text, size_t len);
/* The label set of a sample: base, and its tracepoint fields when its raw
 * data decodes (offset: of the record, for messages). */
uint32_t pd_tracing_labels(struct pd_state *st, const struct pd_sample *s,
			   uint64_t offset, const struct pk_label *base,
			   size_t nbase);
void pd_tracing_free(struct pd_tracing *tr);

/* unwind.c: user stacks of --call-graph dwarf samples */
struct pd_unwinder;

struct pd_unwind_counts {
	uint64_t complete;	/* unwound to the outermost frame */
	uint64_t partial;	/* stopped early: no CFI, stack copy too short */
	uint64_t not_unwound;	/* no user registers or stack, or no file */
};

/* Called with each frame's pc, leaf first; non-zero stops (a pk_err). */
typedef int (*pd_unwind_push_fn)(void *arg, uint64_t pc);

/* NULL when out of memory (error set in st->ctx). */
struct pd_unwinder *pd_unwinder_new(struct pd_state *st,
				    const struct pk_options *opts);
/* The number of frames pushed (0: none), or a negative pk_err. */
int pd_unwind(struct pd_unwinder *u, const struct pd_thread *t,
	      const struct pd_sample *s, pd_unwind_push_fn push, void *arg);
/* The process exited: close its files. */
void pd_unwinder_forget(struct pd_unwinder *u, int32_t pid);
const struct pd_unwind_counts *pd_unwinder_counts(const struct pd_unwinder *u);
void pd_unwinder_free(struct pd_unwinder *u);

/* machine.c */
int pd_machine_init(struct pd_machine *m);
void pd_machine_release(struct pd_machine *m);
struct pd_thread *pd_machine_thread(struct pd_machine *m, int32_t pid,
				    int32_t tid);
/* The thread tid if one was seen, else NULL (none is made). */
struct pd_thread *pd_machine_find_thread(struct pd_machine *m, int32_t tid);
/* Follow an MMAP, MMAP2, COMM, FORK or KSYMBOL record: 0 or PK_ENOMEM. */
int pd_machine_record(struct pd_machine *m, const struct pd_rec *rec,
		      int big);
/* The mapping holding addr for a thread in a cpumode, or NULL. */
struct pd_map *pd_machine_find(struct pd_machine *m,
			       const struct pd_thread *t, int cpumode,
			       uint64_t addr);
int pd_machine_set_build_id(struct pd_machine *m, const char *file,
			    size_t len, const unsigned char *id,
			    size_t id_len);
/* The build id recorded for a file (private string ids), or 0. */
uint32_t pd_machine_build_id(const struct pd_machine *m, uint32_t file);
/* A mapping's build id: its MMAP2 record's, else the file's, or 0. */
uint32_t pd_map_build_id(const struct pd_machine *m, const struct pd_map *map);

#endif
