/* SPDX-License-Identifier: MIT */
/*
 * A text in memory read in parts on threads of their own: cut where a
 * record starts (a place a fresh reader starts from as the reader of the
 * whole would go on), each part read by a reader of its own into a
 * profile and context of its own, and the parts appended to the whole in
 * input order as soon as they are read, so that few are held at once.
 * Strings, stacks and samples keep the order one thread gives them, and
 * so does every output, however the threads were scheduled.
 *
 * The format gives its reader's half (struct pki_parts_reader); the
 * calling thread reads the first part with the whole's own reader, and
 * takes the next parts left while it waits for the one to append. A
 * part a thread, or, for a format that gives min_part, more parts than
 * threads, each smaller than the one before, so that a thread another
 * slows down leaves its share to the others.
 */
#ifndef PROFKIT_CORE_PARTS_H
#define PROFKIT_CORE_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/internal.h"

/* Memory a part reads between two unmaps of what it read (and reports
 * of progress, in the first part). */
#define PKI_PART_STEP (8u << 20)

/* One part of the text, as its reader sees it. */
struct pki_part {
	const char *data;	/* the whole text */
	const char *start, *end;	/* this part's: whole lines */
	void *reader;		/* the format's reader of it */
	/* the rest is parts.c's */
	struct pk_context *ctx;	/* the reader's, but the first part's */
	struct pk_profile *p;
	const char *read_to;	/* read and unmapped up to */
	struct pki_parts *parts;
	uint64_t first_line;	/* lines before start, UINT64_MAX: not counted */
	char *warnings;		/* held: each a kind's byte, its text, NUL */
	size_t warnings_len, warnings_cap;
	int rc;
	int read;		/* read, the reader's caches freed (under the lock) */
};

/* What a format does with a part. All but done are needed. */
struct pki_parts_reader {
	/*
	 * Where the first record at or after pos starts: the start of a
	 * line a new reader reads as the whole's reader would there; size
	 * when there is none. whole: the first part's reader.
	 */
	size_t (*cut)(void *whole, const char *data, size_t size, size_t pos);
	/*
	 * A reader for a later part, into a context and profile of its own,
	 * its settings from whole (the first part's reader); NULL when out
	 * of memory (the reader's context says so, or nothing does).
	 */
	void *(*open)(void *whole, struct pk_context *ctx, struct pk_profile *p,
		      const struct pki_part *part);
	/* Read the part; 0 or the error its context holds. */
	int (*read)(void *reader, struct pki_part *part);
	/* Free what only reading needs (caches), once the part is read. */
	void (*done)(void *reader);
	/* Take a part's counts and notes into the whole's reader (its
	 * profile is appended and its warnings given before: what the
	 * whole reads here of the part's text warns after them). */
	int (*absorb)(void *whole, void *reader);
	/* Free the reader (after done, if that was called). */
	void (*close)(void *reader);
	/* Whether the parts read from now on are kept, whole being as the
	 * parts before left it (NULL: all are): a format whose text may
	 * end before the file does drops the parts past its end, as one
	 * reader would stop there. */
	int (*kept)(void *whole);
	/* What the whole reads of a part's text before the part's profile
	 * is appended (NULL: nothing): a part may leave to the whole
	 * reader the records the whole has met before, read once for all
	 * their copies. 0, or the error the whole's context holds. */
	int (*before_append)(void *whole, void *reader);
	/* Append a part's profile to the whole's: pki_copy_append, which
	 * core cannot name. */
	int (*append)(struct pk_profile *dst, const struct pk_profile *src);
	/* The reader's tally of its warnings of the few (pki_part_warn_few;
	 * NULL: it gives none): a part's tally is added to the whole's
	 * once its warnings are given. */
	uint64_t *(*few)(void *reader);
	/* Text a part reads at least, the text cut into parts of a
	 * thread's share of what is left (0: one part a thread, the text
	 * split evenly): smaller parts let a thread ahead take those
	 * another, slowed down, has not started, at the cost of a reader
	 * started afresh and a profile appended each. */
	size_t min_part;
};

/*
 * Read data[0, size), the rest of in mapped (pki_input_map), into p
 * with fmt, whole being the reader of p (it reads the first part on this
 * thread): on threads (--threads, else one a core) when it is large
 * enough, else whole. A part's warnings reach ctx when it is appended;
 * its error is whole's. Reports progress as "reading NAME". 0 or a
 * pk_err, set in ctx.
 */
int pki_read_parts(const struct pki_parts_reader *fmt, void *whole,
		   struct pk_context *ctx, struct pk_input *in,
		   struct pk_profile *p, const struct pk_options *opts,
		   const char *data, size_t size);

/* The threads pki_read_parts reads a text of size bytes on: --threads,
 * else one a core, for 4 MiB of text each at least (a small input stays
 * on one). */
size_t pki_parts_threads(const struct pk_options *opts, size_t size);

/* Whether a writer's work of n items (samples, keys) is to be split over
 * two threads: with more than one core, for at least least of them (so
 * that a thread costs little beside its share), unless --threads=1. */
int pki_two_threads(const struct pk_options *opts, size_t n, size_t least);

/* What a reader of a part calls as it goes, at s (reads are up to s):
 * every PKI_PART_STEP bytes the text read leaves memory. */
void pki_part_step_slow(struct pki_part *part, const char *s);

static inline void pki_part_step(struct pki_part *part, const char *s)
{
	if ((size_t)(s - part->read_to) >= PKI_PART_STEP)
		pki_part_step_slow(part, s);
}

/*
 * What a cut calls as it looks through the text for a record, at s: what
 * it looked through since *kept leaves memory every PKI_PART_STEP bytes,
 * as reading does, or a text of few records would be in memory whole
 * while it is cut (the rest, up to the cut, leaves when the cut returns).
 */
static inline void pki_cut_step(struct pk_input *in, const char **kept,
				const char *s)
{
	if ((size_t)(s - *kept) >= PKI_PART_STEP) {
		pki_input_unmap_part(in, *kept, (size_t)(s - *kept));
		*kept = s;
	}
}

/* ... and once read (s: where reading stopped). */
void pki_part_finish(struct pki_part *part, const char *s);

/*
 * The line of a text in memory at s (s < end), as pk_input_line splits
 * it but read where it lies, not NUL-terminated: its length without its
 * newline and a '\r' before that; *next: where the next line starts (end
 * after the last). *cut (if not NULL): whether it is a last line that
 * nothing ends, no newline and no '\r' (pk_input_line takes a last '\r'
 * for the end of a line): a file cut short, say.
 */
static inline size_t pki_text_line(const char *s, const char *end,
				   const char **next, int *cut)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	size_t len = (size_t)((nl ? nl : end) - s);
	int cr = len && s[len - 1] == '\r';

	*next = nl ? nl + 1 : end;
	if (cut)
		*cut = !nl && !cr;
	return len - (size_t)cr;
}

/* The bytes of the line pki_text_line read from line to next, a '\r'
 * before its newline counted: what a limit on a line's length counts,
 * as pk_input_line's does. */
static inline size_t pki_text_line_bytes(const char *line, const char *next)
{
	return (size_t)(next - line) - (next > line && next[-1] == '\n');
}

/*
 * The part's next line from *at, as pki_text_line reads it (*at moves
 * past it), or NULL at the part's end; what was read before it leaves
 * memory as reading goes (pki_part_step).
 */
static inline const char *pki_part_line(struct pki_part *part, const char **at,
					size_t *len, int *cut)
{
	const char *line = *at;

	if (line >= part->end)
		return NULL;
	pki_part_step(part, line);
	*len = pki_text_line(line, part->end, at, cut);
	return line;
}

/* Warnings of a kind an input gives the first few of (lines skipped,
 * say), then only counts. */
#define PKI_FEW_WARNINGS 5

/*
 * A warning of the few, of the part read with ctx (NULL: a stream, read
 * whole): given while *count, the reader's tally of them bumped by every
 * call, is at most PKI_FEW_WARNINGS. A later part holds it with its
 * other warnings until the part is appended, then gives it while the
 * whole's tally, with those given before it, is under that: what one
 * reader of the whole would give.
 */
void pki_part_warn_few(struct pki_part *part, struct pk_context *ctx,
		       uint64_t *count, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The lines of the input before the part: counted the first time a
 * reader asks (to name a line in a message, say), on the part's thread.
 */
uint64_t pki_part_first_line(struct pki_part *part);

#endif
