/* SPDX-License-Identifier: MIT */
/*
 * Stack text: what profilers and debuggers print of stacks, which one of
 * FlameGraph's stackcollapse scripts folds. Two families share this
 * folder's reading:
 *
 *   counted stacks    a stack, then how often it was seen: DTrace and
 *                     bpftrace aggregations, SystemTap, pmcstat callchains
 *   stack dumps       every thread's stack at one moment, dumped again
 *                     and again (poor man's profilers): eu-stack, gdb,
 *                     jstack, and Java exception stacks in a log
 *
 * Each format's file parses its lines and names each frame as its
 * reference script names it (that name is the function's, so folded,
 * pprof and speedscope show the same stacks); what the tool prints
 * beside the name (module, address, file and line) goes into the model
 * too. This file's struct st_reader turns frames into samples: it
 * remembers each distinct frame text's location, so a repeated line costs
 * one lookup, and adds each stack with its count ("samples", "count")
 * and its thread.
 */
#ifndef PROFKIT_FORMATS_STACK_TEXT_H
#define PROFKIT_FORMATS_STACK_TEXT_H

#include <string.h>

#include "core/internal.h"
#include "core/memo.h"
#include "core/parts.h"
#include "util/strbuf.h"

/* One frame: what its line says, as its reader splits it. */
struct st_frame {
	const char *name;	/* the function, as the reference names the frame */
	size_t name_len;	/* 0: no function ("[unknown]") */
	const char *module;	/* the mapping's file, or NULL */
	size_t module_len;
	uint64_t address;
	const char *file;	/* source file, or NULL */
	size_t file_len;
	int64_t line;		/* its line, or 0 */
};

/* A sample's thread, as far as the text names it. */
struct st_thread {
	const char *comm;	/* its name, or NULL */
	size_t comm_len;	/* 0 where comm is NULL */
	int64_t pid, tid;	/* -1: not printed */
	const struct pk_label *extra;	/* more labels of the sample */
	size_t nextra;
};

#define ST_NO_THREAD { NULL, 0, -1, -1, NULL, 0 }

/* Sample types a text may count in. */
#define ST_MAX_COLUMNS 64

/* A thread seen lately and its label set; a slot is shared by the
 * threads whose pid, tid and name's length hash to it, the one seen last
 * kept. Threads with more labels (extra) are not kept. */
#define ST_RECENT_THREADS 64	/* 1 << 6: stack.c hashes to 6 bits */

struct st_recent_thread {
	int64_t pid, tid;
	size_t name_key;	/* 0: no name, else its length + 1 */
	uint32_t labels;	/* 0: the slot is empty */
	char *comm;		/* the name's copy */
	size_t comm_cap;
};

/*
 * Entries: a format's run of lines that adds several samples (a dump of
 * threads, an exception with its causes), remembered by its text with
 * what it added, in a text in memory (st_entry_known and the others).
 */
struct st_entry {
	uint32_t id;		/* its text's, in the entries' memo */
	uint32_t first, nsamples;	/* its samples, in samples */
	uint32_t lines;
};

struct st_entries {
	struct pki_memo memo;	/* value: the entry's index + 1 */
	struct st_entry *entries;
	size_t nentries, entries_cap;
	struct st_entry_sample { uint32_t stack, labels; } *samples;
	size_t nsamples, samples_cap;
	uint32_t last;		/* the entry met last: its memo id */
	size_t bytes;		/* the texts' in memo */
	struct {		/* an entry read line by line, to remember */
		const char *end;	/* the line that ends it */
		uint32_t id;		/* its text's id, 0: none read */
		uint64_t first_line;	/* its first line's lineno */
		size_t first;		/* its samples from here in samples */
	} reading;
};

struct st_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	const char *what;	/* "DTrace aggregation", for messages */
	int column;		/* the counts' sample type, -1 before the first */
	pk_str key_comm, key_pid, key_tid;
	struct st_thread thread;	/* a dump's thread being read: none yet */

	uint32_t *frames;	/* the stack being read, leaf first */
	size_t nframes, frames_cap;
	struct st_held { uint32_t id, loc; } *held;	/* st_hold's */
	size_t nheld, held_cap;

	/* frame text -> location, one per variant (kernel or not), each
	 * in 32 bits of the value */
	struct pki_memo memo;
	/* the last module st_location met and its mapping: a stack's
	 * frames share few modules */
	struct pk_strbuf last_module;
	uint32_t last_mapping;

	/* the label sets of the threads seen lately, by their ids and name:
	 * every dump names the same threads again (st_sample) */
	struct st_recent_thread recent[ST_RECENT_THREADS];
	struct pk_label *labels;
	size_t labels_cap;

	uint64_t samples;
	struct st_entries entries;
	uint64_t skipped;	/* lines, the first few warned of */
	/* a sample's values: all 0 but the column of one being added */
	int64_t values[ST_MAX_COLUMNS];

	/* the text in memory, read in parts (core/parts.h) */
	const struct st_format *format;
	struct pki_part *part;	/* the part read, NULL for a stream */
	uint64_t lineno;	/* lines of the part read */
	const char *line_at;	/* the line being read, in a part */
	const char *pass_to;	/* an entry found: reading goes on here */
	uint64_t pass_lines;	/* past so many lines */

	/* whole blocks of frames by their text (st_format's block_end):
	 * the memo's value is an index in blocks + 1 */
	struct pki_memo block_memo;
	struct st_block *blocks;
	size_t nblocks, blocks_cap;
	uint32_t *block_frames;	/* their stacks' frames, one after another */
	size_t nblock_frames, block_frames_cap;
	uint32_t known;		/* the block just pushed: its index + 1 */
	uint32_t last_block;	/* the last block pushed or remembered: its
				 * id in block_memo */
	struct st_block_read {	/* a block read line by line, to remember */
		const char *end;	/* where its last line ends */
		uint32_t id;		/* its id in block_memo, 0: none */
		uint64_t lines, samples, skipped;	/* then */
	} block_read;
	uint32_t last_stack;	/* of the last sample added */

	/* a later part of counted stacks collected, not read (stack.c) */
	int collect;		/* its stacks may be collected */
	struct st_record *records;	/* the distinct ones, first seen first */
	size_t nrecords, records_cap;
	struct pk_idtab record_tab;	/* by their text's hash */
	const char *tail, *tail_end;	/* the rest, read as it is */
	uint64_t tail_line;		/* lines of the part before it */
};

/* A stack of a part collected: its text (in the input, mapped), its
 * frames' bytes (then its count line's) and their hash (pki_hash_text,
 * the whole's block_memo's too), the lines of the part before it, the
 * wrapped sum of the counts of its later occurrences and their number. */
struct st_record {
	const char *text;
	size_t frames_len, len;
	uint64_t hash;
	uint64_t line;
	int64_t rest;
	uint64_t more;
};

/* A block remembered: its text's id (the blocks that came after it are
 * its followers in block_memo), its stack, its frames in block_frames,
 * its lines. */
struct st_block {
	uint32_t id, stack;
	uint32_t first, depth;
	uint32_t lines;
};

/*
 * A format: its reader (a struct of size bytes that starts with a
 * struct st_reader), what it does at each line, at the end of the text
 * (or of a part of it), and what it frees then. end and release may be
 * NULL.
 *
 * A text in memory is read in parts on threads where the format says
 * where a record starts: record_start(prev, line) when a reader of the
 * text from line on, started anew (then set by resume, if not NULL),
 * reads as the whole's reader would go on after prev, the line before
 * (and the end at prev's end adds what line would have added). Without
 * record_start the text is read on one thread.
 *
 * Stacks repeat, and so do their lines: a text in memory can skip the
 * parsing of a block of frames seen before. A block starts where
 * block_ready(r) says the reader waits for a stack's first frame (NULL:
 * where no frame is read or held), and ends before the first line of
 * which block_end says so. Its lines must only push or hold frames, or be
 * ignored: a line that changes anything else of the reader (a thread, a
 * state) ends it. The line that ends it adds the stack (st_sample),
 * drops it (st_drop, or its frames cleared) or keeps it; a block
 * remembered is pushed, not held, so a format drops pushed frames
 * wherever it drops held ones. A block remembered the first time its
 * line ending adds its stack or drops it by st_drop (no sample, no
 * warning before) is skipped the next time: its frames pushed and its
 * stack known, the line that ends it read. Without block_end every line
 * is read.
 */
struct st_format {
	const char *what;	/* "DTrace aggregation": "no ... stacks found" */
	const char *expected;	/* what its lines look like, for that message */
	size_t size;
	int (*line)(struct st_reader *r, const char *s, size_t len);
	int (*end)(struct st_reader *r);
	void (*release)(struct st_reader *r);
	int (*record_start)(const char *prev, size_t prev_len, const char *line,
			    size_t len);
	void (*resume)(struct st_reader *r);
	int (*block_end)(const char *line, size_t len);
	int (*block_ready)(const struct st_reader *r);
};

/* Read in into p as format f, its names kept as read; a text in memory
 * on opts->threads threads (else one a core), where f can cut it. */
int st_read(const struct st_format *f, struct pk_context *ctx,
	    struct pk_input *in, struct pk_profile *p,
	    const struct pk_options *opts);
/* Count the stacks from now on as the event's (NULL: none): a column of
 * their own, "samples" "count". */
int st_event(struct st_reader *r, const char *event);

/* The location of a frame, interned; 0 when out of memory. */
uint32_t st_location(struct st_reader *r, const struct st_frame *f);
/*
 * A format's way from a frame's text to its location in a variant:
 * usually it splits the text into a struct st_frame and calls
 * st_location. arg is what the format passes along (its reader).
 */
typedef uint32_t (*st_locate_fn)(void *arg, const char *text, size_t len,
				 unsigned variant);
/* The location of a frame's text in a variant: locate runs only the
 * first time the two are seen. 0 when out of memory. */
uint32_t st_frame_loc(struct st_reader *r, const char *text, size_t len,
		      unsigned variant, st_locate_fn locate, void *arg);
/* The same by the text's id in r->memo (pki_memo_id; 0: the memo is
 * full, the text is located each time). */
uint32_t st_frame_by_id(struct st_reader *r, uint32_t id, unsigned variant,
			st_locate_fn locate, void *arg);

/*
 * st_frame_loc in variant 0 of a frame that came after the frame of memo
 * id last (0: none) in the way k (core/memo.h), as the frames of a dump
 * or a tree come in the order they came before: the text first compared
 * with the frame that came after last's that way (pki_memo_id_after).
 * *id: its memo id (0: the memo is full). Inline: it is a line's whole
 * lookup when the guess holds.
 */
static inline uint32_t st_frame_after(struct st_reader *r, uint32_t last, int k,
				      const char *text, size_t len,
				      st_locate_fn locate, void *arg, uint32_t *id)
{
	uint32_t loc;

	if (!(*id = pki_memo_id_after(&r->memo, last, k, text, len)))
		return locate(arg, text, len, 0);
	loc = (uint32_t)*pki_memo_value(&r->memo, *id);
	return loc ? loc : st_frame_by_id(r, *id, 0, locate, arg);
}

/*
 * Frames whose variant is known only later (at the end of their stack,
 * say): held by their memo id, or located at once in variant
 * now_variant when the memo is full. st_held_text gives a held frame's
 * text (NULL for one located at once), st_push_held pushes it onto the
 * stack in its variant. st_sample lets them go.
 */
int st_hold(struct st_reader *r, const char *text, size_t len,
	    unsigned now_variant, st_locate_fn locate, void *arg);
const char *st_held_text(const struct st_reader *r, size_t i, size_t *len);
int st_push_held(struct st_reader *r, size_t i, unsigned variant,
		 st_locate_fn locate, void *arg);

/* Add a frame to the stack being read (leaf first). */
int st_push(struct st_reader *r, uint32_t loc);
/* Add the stack read so far, count times, for thread t; start a new
 * one. An empty stack of no thread counts nothing. t's label set is
 * interned once: the threads seen lately keep theirs (recent). */
int st_sample(struct st_reader *r, const struct st_thread *t, int64_t count);
/*
 * st_sample in two halves, for a format that remembers a label set of
 * its own (bpftrace's keys): st_thread_labels gives t's (0: none; also
 * when the stack read so far counts nothing: empty, and t without a
 * name), st_sample_labeled adds the stack with it (named: whether the
 * thread has a name).
 */
int st_thread_labels(struct st_reader *r, const struct st_thread *t,
		     uint32_t *labels);
int st_sample_labeled(struct st_reader *r, uint32_t labels, int named,
		      int64_t count);

/*
 * The entry at s (struct st_entries), in a part of a format of blocks,
 * where the reader rests (no frame read or held, no state but what the
 * entry's lines set again), lines_read of its lines read already (the
 * one being read, say): the one after the last entry met, or the one
 * before it, if its text is at s and the line after it ends it (ends
 * says); else the one of the text from s to end_of(r, s) (the start of
 * the line that ends it; NULL: none in the part), by its hash. One found
 * has its samples added again (count 1 each) and st_entry returns
 * ST_ENTRY_FOUND, for the format's line to return: reading goes on at
 * the line that ends it. One not known is read line by line and remembered
 * with the samples added until the format calls st_entry_ends at the
 * line that ends it. That line must add what the reader leaves of the
 * entry (its last stack) and nothing when read after the entry's
 * samples are added whole.
 */
#define ST_ENTRY_FOUND 1
int st_entry(struct st_reader *r, const char *s,
	     int (*ends)(const char *line, size_t len),
	     const char *(*end_of)(const struct st_reader *r, const char *s),
	     uint32_t lines_read);
/* The line at s is read: the entry read line by line ends there. */
void st_entry_ends(struct st_reader *r, const char *s);
/* Whether an entry is being read line by line. */
static inline int st_entry_reading(const struct st_reader *r)
{
	return r->entries.reading.id != 0;
}

/* Drop the stack read so far, as st_sample would add it: a block of it
 * read line by line is remembered all the same (its stack interned when
 * a sample first takes it), to be pushed whole the next time. */
void st_drop(struct st_reader *r);

/* "   1234", a count line of counted stacks (stackcollapse.pl's
 * /^\s*(\d+)+$/): whether s is one, and its count or whether that is
 * too large. */
int st_count_line(const char *s, size_t len, int64_t *count, int *too_large);
/* Whether s is a count line: block_end of counted stacks. */
int st_is_count_line(const char *s, size_t len);
/* record_start of counted stacks: after a count line. */
int st_after_count_line(const char *prev, size_t prev_len, const char *line,
			size_t len);
/* A decimal count; -1 when not one or past INT64_MAX. */
int st_parse_count(const char *s, size_t len, int64_t *count);
/* The line being read, counted from the input's first. */
uint64_t st_lineno(struct st_reader *r);
/* "line N: " problem, for a line of the input; returns PK_EINPUT. */
int st_line_error(struct st_reader *r, const char *problem);
/* Warn of a skipped line (the first few). */
void st_skip_line(struct st_reader *r, const char *line, size_t len,
		  const char *why);

/* ---- text helpers ---- */

static inline int st_is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* How many of s's first len bytes are blanks (st_blanks) or decimal
 * digits (st_digits): strspn's answer, without its set's table to build
 * on every line. Frames are indented by a dozen spaces or more (DTrace,
 * SystemTap): eight are taken at a time. */
static inline size_t st_blanks(const char *s, size_t len)
{
	static const uint64_t spaces = 0x2020202020202020ULL;
	size_t i = 0;
	uint64_t w;

	while (i + 8 <= len && (memcpy(&w, s + i, 8), w == spaces))
		i += 8;
	while (i < len && st_is_blank(s[i]))
		i++;
	return i;
}

static inline size_t st_digits(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* memmem's answer for the short needles of a line's parsing: memchr of
 * the needle's byte at key (one rare in the lines searched: the ':' of
 * "State: "), then the needle compared, costs less than memmem's setup
 * on lines of a few dozen bytes. The first place, as memmem's. */
static inline const char *st_find_by(const char *s, size_t len, const char *needle,
				     size_t needle_len, size_t key)
{
	const char *last, *p;

	if (!needle_len)
		return s;
	if (len < needle_len)
		return NULL;
	/* where the key byte of a needle at the text's last place is */
	last = s + (len - needle_len) + key;
	for (p = s + key; p <= last; p++) {
		p = memchr(p, needle[key], (size_t)(last - p) + 1);
		if (!p)
			break;
		if (memcmp(p - key, needle, needle_len) == 0)
			return p - key;
	}
	return NULL;
}

static inline const char *st_find(const char *s, size_t len, const char *needle,
				  size_t needle_len)
{
	return st_find_by(s, len, needle, needle_len, 0);
}

/* s without its leading and trailing blanks. */
const char *st_trim(const char *s, size_t *len);

/* "#12 " of a debugger's frame: the number and the blanks after it; 0
 * when s starts with no frame number. */
size_t st_frame_number(const char *s, size_t len);

/* Whether s starts with "0x" and hex digits, and where they end. */
size_t st_hex_prefix(const char *s, size_t len, uint64_t *value);

/*
 * Probes: the first lines of a buffer, one at a time. st_probe_line gives
 * the next whole line (never the cut one at the end), or 0 at the end or
 * at a NUL byte (binary data is no stack text).
 */
struct st_probe {
	const char *s, *end;
	int binary;
};

void st_probe_start(struct st_probe *pr, const unsigned char *buf, size_t len);
int st_probe_line(struct st_probe *pr, const char **line, size_t *len);

#endif
