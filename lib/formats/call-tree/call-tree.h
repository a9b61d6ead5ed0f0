/* SPDX-License-Identifier: MIT */
/*
 * The call-tree reports other profilers export, one unit of five formats:
 * macOS `sample` (macos-sample.c), Xcode Instruments' deep copy
 * (instruments.c), Intel VTune's CSV (vtune.c), the Visual Studio
 * profiler's CSV (vsprof.c) and GHC's .prof (ghc-prof.c). Each prints one
 * line per node of a merged call tree, root first, its depth given by
 * indentation or a level column, with the node's own value (self) or its
 * value with its callees' (inclusive). What they share is here (tree.c):
 * the path from the root to the current node, a sample per node, frames
 * named once, decimal numbers kept exactly, CSV fields.
 */
#ifndef PROFKIT_CALL_TREE_H
#define PROFKIT_CALL_TREE_H

#include "core/internal.h"
#include "core/memo.h"
#include "formats/registry.h"
#include "util/strbuf.h"

/* A node on the path from the root. */
struct pki_tree_node {
	uint32_t location;	/* 0: no frame (a thread's node) */
	uint32_t path;		/* its path's id (0: none, out of memory) */
	int64_t inclusive;	/* inclusive formats: the node's value... */
	int64_t callees;	/* ...and what its callees took of it */
	unsigned waiting : 1;	/* inclusive formats: its own value is dropped */
};

/*
 * A row as a format read it, remembered by its line's text: rows recur
 * (a function called from the same place in every thread, every copy
 * of a tree), and a line seen before costs a lookup, not its reading.
 */
struct pki_tree_row {
	uint32_t depth;
	uint32_t location;	/* its frame (macOS sample: a thread's labels) */
	int64_t mantissa;	/* its value, as pki_tree_fixed takes it */
	int64_t factor;
	int decimals;
	unsigned flags;		/* the format's */
	int read;		/* 0: not read yet, the format reads it */
	int64_t scale;		/* the column's scale when value was worked out */
	int64_t value;
	uint32_t parent_path;	/* the path the row was last below... */
	uint32_t path;		/* ...and its own there (0: none yet) */
};

struct pki_tree;
struct pki_part;

/*
 * How a format reads its rows, once its header is read: in parts on
 * threads where its file is mapped (core/parts.h), each cut where a new
 * root starts. The format's reader is a struct of size bytes that
 * starts with its struct pki_tree.
 */
struct pki_tree_rows {
	size_t size;
	/* Read the rows up to the end of the text (pki_tree_line's NULL). */
	int (*read)(struct pki_tree *t);
	/* Where read is pki_tree_read_self_rows: read a line, not empty,
	 * into row (the first time its text comes). */
	int (*read_row)(struct pki_tree *t, const char *line, size_t len,
			struct pki_tree_row *row);
	/* What a part at its end does, as a reader meeting the next root
	 * would, and the text's end (pki_tree_at_text_end); NULL: nothing. */
	int (*end)(struct pki_tree *t);
	/* Where the first root at or after pos starts in data[0, size), the
	 * rows after the header whole has read; size for none... */
	size_t (*cut)(const struct pki_tree *whole, const char *data,
		      size_t size, size_t pos);
	/* ...or, where cut is NULL, whether a whole line (len bytes, its
	 * newline after) starts a root. */
	int (*is_root)(const char *line, size_t len);
	/* Copy whole's settings (from its header) into a part's reader,
	 * zeroed and its tree set up, but for its sample types (NULL: it
	 * has none beside its tree's). */
	void (*copy)(struct pki_tree *part, const struct pki_tree *whole);
	/* Free what the format's reader holds beside its tree (NULL:
	 * nothing). */
	void (*release)(struct pki_tree *t);
	/*
	 * Formats whose rows may end before the text does (NULL: not
	 * so): whether the parts read so far left the rows going on, so
	 * that the next one is rows; a part past their end is dropped,
	 * its messages with it (a later part holds them until then), and
	 * absorb takes a kept part's state into whole.
	 */
	int (*going_on)(const struct pki_tree *whole);
	void (*absorb)(struct pki_tree *whole, const struct pki_tree *part);
	/*
	 * Formats whose roots' subtrees come again (macOS sample's threads;
	 * NULL: not so): what a line is to a part that only tells roots
	 * apart (tree.c's scan_part), PKI_SCAN_* flags: a root its reader
	 * takes for one (a line is_root takes too), the rows' end, a line
	 * its reader would warn of or fail on (a line that is none of
	 * these is read without a word); *depth: a node's depth, a root's
	 * 0.
	 */
	unsigned (*scan_line)(const char *line, size_t len, size_t *depth);
};

enum { PKI_SCAN_ROOT = 1, PKI_SCAN_END = 2, PKI_SCAN_DIRTY = 4 };

/* Whether the rows end with the text here (not at the end of a part
 * before another). */
int pki_tree_at_text_end(const struct pki_tree *t);

/* A rows' read for formats that give each node its own value in one
 * column, a node a line (empty lines skipped): each line read by
 * read_row the first time its text comes, then remembered. */
int pki_tree_read_self_rows(struct pki_tree *t);

/* For a cut: the first whole line at or after pos that is_root takes
 * (size for none), what it looked through out of memory as it goes. */
size_t pki_tree_cut_at_line(const struct pki_tree *t, const char *data, size_t size,
			    size_t pos, int (*is_root)(const char *line, size_t len));

/* Read the rows with f, in parts where the input is mapped and large
 * enough (--threads), each at the end of its text as f->end says. */
int pki_tree_read_rows(struct pki_tree *t, const struct pki_tree_rows *f,
		       const struct pk_options *opts);

/* A path from a root seen before: its node's location below the path
 * parent, and its id (0: a free slot of the set). */
struct pki_tree_path {
	uint32_t parent, location, id;
};

/* A subtree below a root, remembered by its first row (a thread's call
 * graph met again): its text after that row, up to the next root. */
struct pki_tree_subtree {
	char *text;
	size_t len;
	uint64_t lines, rows;	/* its lines and nodes, the first row's too */
	int64_t callees;	/* what the root's callees took of it */
	uint32_t last_row;	/* the memo id of its last line */
	size_t first, nsamples;	/* its samples in the tree's replay */
	uint32_t labels;	/* the thread its samples were last added to... */
	uint64_t pending;	/* ...and the times they are owed there since */
};

/* A sample a subtree added. */
struct pki_tree_replay {
	uint32_t stack;
	int64_t value;
};

struct pki_tree_scan;

struct pki_tree {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pki_tree_node *path;	/* path[d]: the node at depth d */
	size_t depth, path_cap;
	uint32_t *stack;		/* the path leaf first, for a sample */
	size_t stack_cap;
	/* the paths, a hash set, and their stacks by id (from 1; 0 none
	 * yet): a node's stack is found by its parent's path and its
	 * location, not by hashing its whole path again */
	struct pki_tree_path *paths;
	size_t path_mask, npaths;
	uint32_t *path_stacks;
	size_t path_stacks_cap;
	uint32_t labels;		/* the thread of the samples added */
	size_t ncolumns;		/* values a sample has */
	int column;			/* inclusive formats: the one column */
	uint32_t *frame_of;		/* location by the string id of its name */
	size_t frame_of_cap;
	struct pk_strbuf name;		/* scratch for composed names */
	/* the rows read, by their line's text (pki_tree_row) */
	struct pki_memo row_memo;
	struct pki_tree_row *row_of;	/* by memo id */
	size_t row_of_cap;
	uint32_t last_row;		/* the memo id of the line read last */
	uint32_t row_before;		/* ...and of the line before it */
	/* subtrees (pki_tree_subtree_begin), by their first row's memo
	 * id (index + 1), their samples, and the one recorded now */
	struct pki_tree_subtree *subtrees;
	size_t nsubtrees, subtrees_cap;
	uint32_t *subtree_of;
	size_t subtree_of_cap;
	struct pki_tree_replay *replay;
	size_t nreplay, replay_cap;
	size_t subtree_bytes;		/* held, against a limit */
	struct {
		uint32_t row;		/* its first row's memo id; 0: none */
		const char *text;	/* the text after that row */
		uint64_t lines, rows;	/* the counts before it */
		size_t first;		/* its first sample in replay */
		int spoiled;		/* a warning, a stack cut: not kept */
	} recording;
	uint64_t rows;			/* nodes read */
	/* a mapped input (pki_input_map): the text not read yet, and the
	 * lines read; else at is NULL and pk_input_line reads */
	const char *at, *end;
	uint64_t lines;
	struct pki_part *part;		/* read in parts: the one read */
	const char *text_end;		/* ...the end of all of them */
	int later;			/* a reader of a part after the first */
	size_t cuts;			/* the whole's: the parts cut so far */
	/* the whole reading a later part's roots (read_scanned), end
	 * where a root's rows stop: that part, for line numbers, its end,
	 * and the times the root came there */
	struct pki_part *scanned;
	const char *part_end;
	uint64_t times;
	struct pki_tree_scan *scan;	/* a later part's roots, told apart */
	uint64_t counted;		/* warnings of the few (pki_part_warn_few) */
	const struct pki_tree_rows *rows_of;	/* ...and how */
};

void pki_tree_init(struct pki_tree *t, struct pk_context *ctx,
		   struct pk_input *in, struct pk_profile *p);
void pki_tree_free(struct pki_tree *t);

/* The next line of the input, as pk_input_line splits it but not
 * NUL-terminated (a mapped file is read where it lies); a last line
 * without its newline is read, with a warning: the file may have been
 * cut short. */
const char *pki_tree_line(struct pki_tree *t, size_t *len);
/* The number of the line read last. */
uint64_t pki_tree_lineno(const struct pki_tree *t);

/*
 * The next line (pki_tree_line) and the row remembered for its text, its
 * read 0 the first time: the format reads the line into it and sets read
 * (a line it rejects stays unread, and is read, and rejected, again each
 * time). *row is NULL when the memo is full: read the line into a row of
 * the caller's each time; else valid until the next call. Rows come in
 * the runs they came in before (a subtree met again): a line that is the
 * one that followed the line before it last time (its newest follower in
 * the rows' memo) is known by its bytes alone, without its end searched,
 * its hash or a lookup.
 */
const char *pki_tree_next_row(struct pki_tree *t, size_t *len,
			      struct pki_tree_row **row);

/* PK_EINPUT with "INPUT: line N: " before the message. */
int pki_tree_error(struct pki_tree *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The location of a frame named name, in module (len 0: none, else a
 * mapping of that file), interned once. 0 when out of memory.
 */
uint32_t pki_tree_frame(struct pki_tree *t, const char *name, size_t len,
			const char *module, size_t module_len);

/*
 * Formats that give each node its own value: the node at depth (0: a
 * root) is location, and values (ncolumns of them, at their columns'
 * scales) are its own; a node deeper than the path's end plus one is an
 * error.
 */
int pki_tree_self(struct pki_tree *t, size_t depth, uint32_t location,
		  const int64_t *values);

/*
 * Formats that give each node its value with its callees' (macOS sample,
 * Visual Studio without its exclusive column): a node's own value, what
 * its callees leave of it, is added to column when the node leaves the
 * path: when a node at its depth or above comes, or at
 * pki_tree_finish. waiting: add nothing for the node itself.
 */
int pki_tree_inclusive(struct pki_tree *t, size_t depth, uint32_t location,
		       int64_t value, int waiting);
/* The same for a row (pki_tree_row), its mantissa the value: a row met
 * again below the same node costs no lookup of its path. */
int pki_tree_inclusive_row(struct pki_tree *t, struct pki_tree_row *row,
			   int waiting);
int pki_tree_finish(struct pki_tree *t);

/*
 * Inclusive formats whose roots are lines of their own (macOS sample's
 * threads): a root's subtree met again (a thread's call graph, whole)
 * costs a comparison of its text and its samples added again, not its
 * reading. row is the first row after a root line (at depth 1, not read
 * yet into the path); is_root says whether a line starts a root. 1: the
 * subtree was the one that row began before, and is added whole (the
 * text up to the next root read); 0: read it, it is recorded; <0 an
 * error.
 */
int pki_tree_subtree_begin(struct pki_tree *t, struct pki_tree_row *row,
			   int (*is_root)(const char *line, size_t len));
/* A line that is no row (a warning): the subtree recorded is not kept. */
void pki_tree_subtree_spoil(struct pki_tree *t);
/* At a root's line (line): pki_tree_finish, and the subtree recorded
 * kept. */
int pki_tree_subtree_end(struct pki_tree *t, const char *line);

/*
 * An unsigned decimal "12", "0.016612" as fixed point: *mantissa with
 * *decimals digits after the point (at most 9). Thousands separators
 * are not numbers here. -1 when s is no such number or too large.
 */
int pki_tree_decimal(const char *s, size_t len, int64_t *mantissa,
		     int *decimals);
/*
 * mantissa / 10^decimals * factor at column's scale, which is made finer
 * first where the value needs it (as the folded reader raises it). *value
 * is the result; PK_EINPUT naming the line when it does not fit.
 */
int pki_tree_fixed(struct pki_tree *t, int column, int64_t mantissa,
		   int decimals, int64_t factor, int64_t *value);

/*
 * A row's value at its column's scale now: pki_tree_fixed of its
 * mantissa, decimals and factor, worked out again only where the scale
 * changed since.
 */
int pki_tree_row_value(struct pki_tree *t, struct pki_tree_row *row,
		       int64_t *value);

/* A CSV field: its text, without quotes or its surrounding blanks; in
 * quoted fields a doubled quote is one (*unescaped set: the caller
 * copies it through pki_tree_csv_text). */
struct pki_csv_field {
	const char *s;
	size_t len;
	size_t indent;		/* blanks before it (VTune's depth) */
	int quoted_quotes;	/* "" inside: the text needs unescaping */
};

/*
 * Split line into at most max fields at commas outside quotes (a UTF-8
 * byte order mark before the first skipped). Returns the number of
 * fields, or -1 for an unterminated quote.
 */
int pki_csv_split(const char *line, size_t len, struct pki_csv_field *fields,
		  int max);
/* The same for a row that needs at least need fields: 0, or PK_EINPUT
 * naming the line. */
int pki_tree_csv_row(struct pki_tree *t, const char *line, size_t len,
		     struct pki_csv_field *fields, int max, int need);
/* The field's text with "" as ", in t->name (reset first). */
int pki_tree_csv_text(struct pki_tree *t, const struct pki_csv_field *f);
/* The index of the header field named name (exactly, or starting with
 * it when prefix is set), or -1. */
int pki_csv_column(const struct pki_csv_field *fields, int n, const char *name,
		   int prefix);

#define PKI_UTF8_BOM "\xef\xbb\xbf"

/* Whether the first line of buf (up to n bytes) starts with prefix,
 * after a UTF-8 byte order mark. */
int pki_tree_first_line_is(const unsigned char *buf, size_t n, const char *prefix);

#endif
