/* SPDX-License-Identifier: MIT */
/*
 * The stack-text readers' shared half: frames remembered by their text,
 * stacks added with their counts and threads (stack-text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "transforms/copy.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/strings.h"

static int begin(struct st_reader *r, struct pk_context *ctx, struct pk_input *in,
		 struct pk_profile *p, const struct st_format *f)
{
	r->ctx = ctx;
	r->in = in;
	r->p = p;
	r->format = f;
	r->what = f->what;
	r->thread.pid = r->thread.tid = -1;
	r->column = -1;
	r->key_comm = pk_profile_intern_cstr(p, "comm");
	r->key_pid = pk_profile_intern_cstr(p, "pid");
	r->key_tid = pk_profile_intern_cstr(p, "tid");
	pk_profile_set_meta(p, PKI_META_VERBATIM_NAMES, "yes");
	if (pk_profile_failed(p))
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	return 0;
}

int st_event(struct st_reader *r, const char *event)
{
	pk_str id = event ? pk_profile_lookup(r->p, event) : 0;

	r->column = event && !id ? -1 : pk_profile_find_column(r->p, id, PK_VALUE_COUNT);
	if (r->column < 0)
		r->column = pk_profile_add_sample_type(r->p, "samples", "count", event,
						       PK_VALUE_COUNT);
	return r->column < 0 ? pk_error_set(r->ctx, PK_ENOMEM, "out of memory") : 0;
}

/* What only reading needs, freed once read. */
static void release(struct st_reader *r)
{
	size_t i;

	if (r->format->release)
		r->format->release(r);
	pki_memo_free(&r->memo);
	pki_memo_free(&r->block_memo);
	free(r->blocks);
	free(r->block_frames);
	r->blocks = NULL;
	r->block_frames = NULL;
	free(r->frames);
	free(r->held);
	for (i = 0; i < ST_RECENT_THREADS; i++)
		free(r->recent[i].comm);
	memset(r->recent, 0, sizeof(r->recent));
	free(r->labels);
	pki_memo_free(&r->entries.memo);
	free(r->entries.entries);
	free(r->entries.samples);
	memset(&r->entries, 0, sizeof(r->entries));
	free(r->last_module.s);
	r->last_module.s = NULL;
	r->last_mapping = 0;
	r->frames = NULL;
	r->held = NULL;
	r->labels = NULL;
}

/* rc, or an error when no stack was found. */
static int end(struct st_reader *r, int rc)
{
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	if (!rc && pk_profile_failed(r->p))
		rc = pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory (or past "
				  "the memory limit)", pk_input_name(r->in));
	if (!rc && !r->samples)
		rc = pk_error_set(r->ctx, PK_EINPUT, "%s: no %s stacks found "
				  "(expected %s)", pk_input_name(r->in), r->what,
				  r->format->expected);
	if (r->skipped > PKI_FEW_WARNINGS)
		pk_warn(r->ctx, "%s: %llu lines skipped in all",
			pk_input_name(r->in), (unsigned long long)r->skipped);
	return rc;
}

static int read_stream(struct st_reader *r)
{
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pk_input_line(r->in, &len)))
		rc = r->format->line(r, line, len);
	if (!rc && r->format->end)
		rc = r->format->end(r);
	return rc;
}

/* Blocks longer are read line by line each time (and their lines
 * counted in 32 bits). */
#define BLOCK_MAX_BYTES ((size_t)64 << 10)
/* The frames of the blocks remembered, past which the blocks not yet
 * remembered are read each time: 16 MiB. */
#define BLOCK_MAX_FRAMES ((size_t)4 << 20)

/* Whether the text of id in m is at s, then a line before end that ends
 * says ends it (a block's, an entry's): where its text ends; else NULL. */
static inline const char *text_at(const struct pki_memo *m, uint32_t id, const char *s,
				  const char *end, int (*ends)(const char *line, size_t len))
{
	const char *text, *next;
	size_t len;

	text = pki_memo_text(m, id, &len);
	return (size_t)(end - s) > len && memcmp(s, text, len) == 0 &&
	       ends(s + len, pki_text_line(s + len, end, &next, NULL)) ? s + len : NULL;
}

/*
 * Blocks and entries come in the order they came before (the threads of
 * a dump, a profile printed again): the one at s is first taken for one
 * of the two that came after the last (pki_memo_follower), which costs
 * no line read. Where the one found ends, *id its; else NULL.
 */
static inline const char *follower_at(const struct pki_memo *m, uint32_t last,
				      const char *s, const char *end,
				      int (*ends)(const char *line, size_t len),
				      uint32_t *id)
{
	const char *stop = NULL;
	int k;

	for (k = 0; last && k < 2 && !stop; k++)
		stop = (*id = pki_memo_follower(m, last, k)) ? text_at(m, *id, s, end, ends) :
			NULL;
	return stop;
}

/* Whether a block may start at the next line (stack-text.h). */
static inline int block_ready(const struct st_reader *r)
{
	return !r->nframes && !r->nheld && !r->known &&
	       (!r->format->block_ready || r->format->block_ready(r));
}

/* Where the block whose first line is from s to next ends: the line that
 * ends it, its *lines counted (*found set); else where looking stopped
 * (the part's end, or BLOCK_MAX_BYTES on). */
static const char *block_end(const struct st_reader *r, const char *s,
			     const char *next, const char *end, uint64_t *lines,
			     int *found)
{
	const char *limit = (size_t)(end - s) > BLOCK_MAX_BYTES ? s + BLOCK_MAX_BYTES : end;
	const char *line;

	*found = 0;
	for (line = next, *lines = 1; line < limit; line = next, ++*lines)
		if (r->format->block_end(line, pki_text_line(line, end, &next, NULL))) {
			*found = 1;
			return line;
		}
	return limit;
}

/* Block index (+ 1)'s frames pushed, its stack known (its lines are
 * read), and it the newest follower of the last block. */
static int push_block(struct st_reader *r, uint32_t index)
{
	const struct st_block *b = &r->blocks[index - 1];

	if (pki_grow(&r->frames, &r->frames_cap, b->depth, sizeof(*r->frames)) < 0)
		return -1;
	memcpy(r->frames, r->block_frames + b->first, b->depth * sizeof(*r->frames));
	r->nframes = b->depth;
	r->lineno += b->lines;
	r->known = index;
	pki_memo_follow(&r->block_memo, r->last_block, b->id);
	r->last_block = b->id;
	return 0;
}

/* The block at s, if one of the two that came after the last
 * (follower_at): pushed, where it ends; else NULL. */
static const char *next_block(struct st_reader *r, const char *s, const char *end)
{
	uint32_t id;
	const char *stop = follower_at(&r->block_memo, r->last_block, s, end,
				       r->format->block_end, &id);

	if (!stop || push_block(r, (uint32_t)*pki_memo_value(&r->block_memo, id)) < 0)
		return NULL;
	r->block_read.id = 0;
	return r->block_read.end = stop;
}

/*
 * The block of frames whose first line (no line that ends a block) is
 * from s to next (stack-text.h): one remembered is pushed, and where it
 * ends returned, for reading to go on at the line that ends it; else
 * NULL, its lines read, no block looked for again among them, and
 * remembered when the line that ends them adds their stack.
 */
static const char *known_block(struct st_reader *r, const char *s,
			       const char *next, const char *end)
{
	struct st_block_read *read = &r->block_read;
	uint32_t id, index;
	const char *stop;
	size_t len;
	int found;

	read->id = 0;
	read->samples = r->samples;
	read->skipped = r->skipped;
	read->end = stop = block_end(r, s, next, end, &read->lines, &found);
	if (!found || r->block_memo.full)
		return NULL;
	len = (size_t)(stop - s);
	id = pki_memo_id_hashed(&r->block_memo, s, len, pki_hash_text(s, len));
	index = id ? (uint32_t)*pki_memo_value(&r->block_memo, id) : 0;
	if (index && push_block(r, index) == 0)
		return stop;
	read->id = id;
	return NULL;
}

/* The block read line by line ends here, at a sample of stack: it is
 * remembered if it pushed all its frames and nothing else happened. */
static void remember_block(struct st_reader *r, uint32_t stack, size_t depth)
{
	struct st_block_read *read = &r->block_read;
	struct st_block *b;
	uint32_t id = read->id;

	read->id = 0;
	if (r->samples != read->samples || r->skipped != read->skipped ||
	    !depth || depth > pki_profile_max_stack(r->p) ||
	    r->nblock_frames + depth > BLOCK_MAX_FRAMES ||
	    pki_grow(&r->blocks, &r->blocks_cap, r->nblocks + 1, sizeof(*r->blocks)) < 0 ||
	    pki_grow(&r->block_frames, &r->block_frames_cap, r->nblock_frames + depth,
		     sizeof(*r->block_frames)) < 0)
		return;	/* read each time: no harm */
	b = &r->blocks[r->nblocks++];
	b->id = id;
	b->stack = stack;
	b->first = (uint32_t)r->nblock_frames;
	b->depth = (uint32_t)depth;
	b->lines = (uint32_t)read->lines;
	memcpy(r->block_frames + b->first, r->frames, depth * sizeof(*r->frames));
	r->nblock_frames += depth;
	*pki_memo_value(&r->block_memo, id) = r->nblocks;
	pki_memo_follow(&r->block_memo, r->last_block, id);
	r->last_block = id;
}

/* The lines of a part from *at, a block of frames seen before skipped
 * whole (stack-text.h); *at moves past what was read. */
static int read_blocks(struct st_reader *r, struct pki_part *part, const char **at,
		       const char *end)
{
	const struct st_format *f = r->format;
	const char *s = *at, *line, *stop;
	size_t len;
	int rc = 0;

	for (;;) {
		int ready;

		if (rc) {
			if (rc != ST_ENTRY_FOUND)
				break;
			s = r->pass_to;	/* an entry added whole: on past it */
			r->lineno += r->pass_lines;
			rc = 0;
		}
		ready = s >= r->block_read.end && block_ready(r);

		if (ready && (stop = next_block(r, s, end))) {
			s = stop;
			continue;
		}
		if (s >= end)
			break;
		line = s;
		/* a part's text leaves memory as it is read; a collected
		 * part's (no part) has left already */
		if (part)
			pki_part_step(part, line);
		len = pki_text_line(line, end, &s, NULL);
		if (ready && !f->block_end(line, len) &&
		    (stop = known_block(r, line, s, end))) {
			s = stop;
			continue;
		}
		r->lineno++;
		r->line_at = line;
		rc = f->line(r, line, len);
		r->known = 0;	/* the line that ends a block took its stack */
	}
	r->line_at = NULL;
	*at = s;
	return rc;
}

/*
 * A later part of counted stacks (each ended by its count line: DTrace,
 * SystemTap) repeats the stacks of the parts before it, as often as not:
 * read, it would learn their frames afresh, as long as the whole's reader
 * took to learn them, and its profile would be looked up again in the
 * whole's. Such a part is collected instead: its thread finds each
 * distinct stack's text, where it first came and the sum of its later
 * counts, and when the part's turn comes (before_append, before its
 * profile, of no sample, is appended, as the call tree's later parts)
 * the whole's reader, which knows the stacks of the parts before, reads
 * each distinct stack's first occurrence and adds the later counts to
 * its sample. What one reader of the whole would learn, in the same
 * order; the part's thread does no learning. A part whose stacks repeat
 * less than twice on average in its first PKI_PART_STEP bytes (a DTrace
 * aggregation prints each stack once) is read after all: the whole's
 * reader would learn all of it alone.
 */
#define COLLECT_MIN_REPEATS 2

/*
 * Three stores here remember texts, and stay three. The blocks' memo
 * and the entries' copy their texts, as what was read leaves memory, for
 * the whole's reader; a collected part's records point into the part's
 * text, which the whole reads again from there, and are made on the
 * part's thread while the whole's reader grows its memos on another. One
 * memo for blocks and entries would save no lookup (each is looked up at
 * lines of its own, by a text of its own) and would let entries that
 * never come again fill the blocks' room; records kept in a memo would
 * copy every distinct stack for nothing and stop at the memo's limit.
 * What they share is the lookup's hash: a record's, taken on the part's
 * thread, finds it in the whole's block memo (known_stack).
 */
static int record_match(const void *owner, uint32_t id, const void *key)
{
	const struct st_record *a = &((const struct st_reader *)owner)->records[id - 1];
	const struct st_record *b = key;

	return a->frames_len == b->frames_len &&
	       memcmp(a->text, b->text, b->frames_len) == 0;
}

/* A stack and its count: a distinct one remembered, a repeated one's
 * count summed (wrapped, as the profile sums). -1 when out of memory. */
static int add_record(struct st_reader *r, const struct st_record *key, int64_t count)
{
	struct st_record *record;
	size_t slot;
	uint32_t id = pki_idtab_find(&r->record_tab, key->hash, record_match, r, key, &slot);

	if (id) {
		record = &r->records[id - 1];
		record->rest = (int64_t)((uint64_t)record->rest + (uint64_t)count);
		record->more++;
		return 0;
	}
	if (r->nrecords >= UINT32_MAX - 1 ||
	    pki_grow(&r->records, &r->records_cap, r->nrecords + 1, sizeof(*r->records)) < 0 ||
	    pki_idtab_insert(&r->record_tab, slot, key->hash, (uint32_t)r->nrecords + 1) < 0)
		return -1;
	r->records[r->nrecords++] = *key;
	return 0;
}

static void forget_records(struct st_reader *r)
{
	free(r->records);
	pki_idtab_release(&r->record_tab);
	r->records = NULL;
	r->nrecords = r->records_cap = 0;
}

/* Whether the stacks collected so far repeat enough, count stacks in
 * all. */
static int repeats_enough(const struct st_reader *r, uint64_t count)
{
	return count && count >= COLLECT_MIN_REPEATS * (uint64_t)r->nrecords;
}

/*
 * Collect the part (see above), up to a count too large (or out of
 * memory): the rest is read as it is, its error named by its line. 0
 * when the part is to be read instead: nothing is left collected or
 * unmapped then.
 */
static int collect_part(struct st_reader *r, struct pki_part *part)
{
	const char *s = part->start, *end = part->end, *line, *next = s;
	uint64_t count = 0, lines = 0, first;
	int decided = 0;

	while (s < end) {
		struct st_record key = { .text = s, .line = lines };
		int64_t n;
		int too_large;
		size_t len = 0;

		for (first = lines, line = s; line < end; line = next, lines++) {
			len = pki_text_line(line, end, &next, NULL);
			if (st_is_count_line(line, len))
				break;
		}
		if (line >= end) {	/* the lines after the last count line */
			lines = first;
			break;
		}
		key.frames_len = (size_t)(line - s);
		key.hash = pki_hash_text(s, key.frames_len);
		key.len = (size_t)(next - s);
		st_count_line(line, len, &n, &too_large);
		if (too_large || add_record(r, &key, n) < 0) {
			lines = first;
			break;
		}
		count++;
		lines++;
		s = next;
		if (decided) {
			pki_part_step(part, s);
		} else if ((size_t)(s - part->start) >= PKI_PART_STEP) {
			if (!repeats_enough(r, count))
				break;
			decided = 1;
		}
	}
	if (!decided && !repeats_enough(r, count)) {
		forget_records(r);
		return 0;
	}
	r->tail = s;
	r->tail_end = end;
	r->tail_line = lines;
	pki_part_finish(part, end);
	return 1;
}

/* Read text to end with the whole's reader w as the part's line lines
 * on: what it says of a line names the line in the file. */
static int read_as_part(struct st_reader *w, struct pki_part *part, uint64_t lines,
			const char *text, const char *end)
{
	struct pki_part *own = w->part;
	uint64_t own_lines = w->lineno;
	int rc;

	w->part = part;
	w->lineno = lines;
	rc = read_blocks(w, NULL, &text, end);
	w->part = own;
	w->lineno = own_lines;
	return rc;
}

static int ensure_column(struct st_reader *r);

/* Add count to the sample of stack (of no thread), as the counts of
 * samples more. */
static int add_counts(struct st_reader *w, uint32_t stack, int64_t count,
		      uint64_t samples)
{
	int rc;

	w->values[w->column] = count;
	rc = pk_profile_add_sample(w->p, stack, 0, 0, w->values, (size_t)w->column + 1);
	w->values[w->column] = 0;
	w->samples += samples;
	return rc ? pk_error_set(w->ctx, PK_ENOMEM, "out of memory") : 0;
}

/* The stack of a block w remembers, whose text is the record's frames
 * (the line after them is its count line): the sample its count line
 * would add. 0 when w has not seen it whole. */
static uint32_t known_stack(struct st_reader *w, const struct st_record *record)
{
	uint32_t id, index;

	if (!record->frames_len || w->block_memo.full || !block_ready(w))
		return 0;
	id = pki_memo_id_hashed(&w->block_memo, record->text, record->frames_len,
				record->hash);
	index = id ? (uint32_t)*pki_memo_value(&w->block_memo, id) : 0;
	return index ? w->blocks[index - 1].stack : 0;
}

/* The whole's reader reads a collected part, before the part's profile
 * (of no sample) is appended: each distinct stack's first occurrence (a
 * stack it knows added at once), its later counts added to its sample,
 * then the rest of the part, and the part's end. */
static int read_collected(void *whole, void *reader)
{
	struct st_reader *w = whole;
	const struct st_reader *r = reader;
	size_t i;
	int rc = 0;

	if (!r->collect)
		return 0;
	for (i = 0; i < r->nrecords && !rc; i++) {
		const struct st_record *record = &r->records[i];
		uint64_t samples = w->samples;
		uint32_t stack = known_stack(w, record);
		int64_t first;
		int too_large;

		if (stack && ensure_column(w) == 0) {
			const char *count = record->text + record->frames_len, *end;

			st_count_line(count, pki_text_line(count, record->text + record->len,
							   &end, NULL), &first, &too_large);
			rc = add_counts(w, stack, (int64_t)((uint64_t)first +
						(uint64_t)record->rest), 1 + record->more);
			continue;
		}
		rc = read_as_part(w, r->part, record->line, record->text,
				  record->text + record->len);
		/* a stack of no frames adds no sample, the first time or later */
		if (!rc && record->more && w->samples != samples)
			rc = add_counts(w, w->last_stack, record->rest, record->more);
	}
	if (!rc)
		rc = read_as_part(w, r->part, r->tail_line, r->tail, r->tail_end);
	if (!rc && w->format->end)
		rc = w->format->end(w);
	return rc ? rc : pk_context_error(w->ctx)->code;
}

/* A part of the text in memory, and its end as the end of a text. */
static int read_part(void *reader, struct pki_part *part)
{
	struct st_reader *r = reader;
	const char *s = part->start, *line;
	size_t len;
	int rc = 0;

	r->part = part;
	if (r->collect && collect_part(r, part))
		return 0;
	r->collect = 0;
	if (r->format->block_end) {
		rc = read_blocks(r, part, &s, part->end);
	} else {
		while (!rc && (line = pki_part_line(part, &s, &len, NULL))) {
			r->lineno++;
			rc = r->format->line(r, line, len);
		}
	}
	pki_part_finish(part, s);
	if (!rc && r->format->end)
		rc = r->format->end(r);
	return rc ? rc : pk_context_error(r->ctx)->code;
}

/* The first line at or after pos where the format says a record starts. */
static size_t record_start(void *whole, const char *data, size_t size, size_t pos)
{
	const struct st_reader *w = whole;
	const struct st_format *f = w->format;
	const char *end = data + size, *from = data + pos, *kept = from;
	const char *prev = pos ? memrchr(data, '\n', pos) : NULL, *line, *next;
	size_t prev_len = pki_text_line(prev ? prev + 1 : data, end, &line, NULL), len;

	for (prev = prev ? prev + 1 : data; line < end; prev = line, line = next) {
		len = pki_text_line(line, end, &next, NULL);
		if (line >= from && f->record_start(prev, prev_len, line, len))
			return (size_t)(line - data);
		if (line >= from)
			pki_cut_step(w->in, &kept, line);
		prev_len = len;
	}
	return size;
}

static void *part_open(void *whole, struct pk_context *ctx, struct pk_profile *p,
		       const struct pki_part *part)
{
	const struct st_reader *w = whole;
	struct st_reader *r = calloc(1, w->format->size);

	(void)part;
	if (r && begin(r, ctx, w->in, p, w->format)) {
		release(r);
		free(r);
		return NULL;
	}
	if (r && w->format->resume)
		w->format->resume(r);
	/* a profile keeping every sample in order has no sum to add to */
	if (r)
		r->collect = w->format->block_end == st_is_count_line &&
			     !pki_profile_keeps_order(p);
	return r;
}

static void part_done(void *reader)
{
	release(reader);
}

static void part_close(void *reader)
{
	forget_records(reader);
	free(reader);
}

/* A part's stacks counted (its skipped lines are parts.c's; a collected
 * part's stacks the whole counted as it read them). */
static int absorb_part(void *whole, void *reader)
{
	struct st_reader *w = whole, *r = reader;

	w->samples += r->samples;
	return 0;
}

static uint64_t *skipped_lines(void *reader)
{
	return &((struct st_reader *)reader)->skipped;
}

static const struct pki_parts_reader st_parts = {
	.cut = record_start,
	.open = part_open,
	.read = read_part,
	.done = part_done,
	.absorb = absorb_part,
	.close = part_close,
	.before_append = read_collected,
	.append = pki_copy_append,
	.few = skipped_lines,
};

int st_read(const struct st_format *f, struct pk_context *ctx,
	    struct pk_input *in, struct pk_profile *p,
	    const struct pk_options *opts)
{
	struct st_reader *r = calloc(1, f->size);
	const char *data = NULL;
	size_t size;
	int rc;

	if (!r)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	rc = begin(r, ctx, in, p, f);
	if (!rc && f->record_start)
		data = (const char *)pki_input_map(in, &size);
	if (!rc)
		rc = data ? pki_read_parts(&st_parts, r, ctx, in, p, opts, data, size) :
			read_stream(r);
	release(r);
	rc = end(r, rc);
	free(r);
	return rc;
}

uint32_t st_location(struct st_reader *r, const struct st_frame *f)
{
	struct pk_function fn = { 0 };
	struct pk_mapping m = { 0 };
	struct pk_line line = { 0 };
	uint32_t mapping = 0;

	if (f->module && r->last_mapping && r->last_module.len == f->module_len &&
	    memcmp(r->last_module.s, f->module, f->module_len) == 0) {
		mapping = r->last_mapping;
	} else if (f->module) {
		m.file = pk_profile_intern(r->p, f->module, f->module_len);
		mapping = pk_profile_intern_mapping(r->p, &m);
		r->last_module.len = 0;
		r->last_mapping = mapping &&
			!pki_strbuf_add(&r->last_module, f->module, f->module_len) ?
			mapping : 0;
	}
	if (!f->name_len)
		return pk_profile_intern_location(r->p, mapping, f->address, NULL, 0);
	fn.name = fn.system_name = pk_profile_intern(r->p, f->name, f->name_len);
	if (f->file)
		fn.filename = pk_profile_intern(r->p, f->file, f->file_len);
	line.function = pk_profile_intern_function(r->p, &fn);
	line.line = f->line;
	return pk_profile_intern_location(r->p, mapping, f->address, &line, 1);
}

uint32_t st_frame_by_id(struct st_reader *r, uint32_t id, unsigned variant,
			st_locate_fn locate, void *arg)
{
	/* a variant's location in its half of the memo's value */
	unsigned shift = (variant & 1) * 32;
	uint32_t loc = (uint32_t)(*pki_memo_value(&r->memo, id) >> shift);
	const char *text;
	size_t len;

	if (loc)
		return loc;
	text = pki_memo_text(&r->memo, id, &len);
	loc = locate(arg, text, len, variant);
	/* locate may have grown the memo */
	*pki_memo_value(&r->memo, id) |= (uint64_t)loc << shift;
	return loc;
}

uint32_t st_frame_loc(struct st_reader *r, const char *text, size_t len,
		      unsigned variant, st_locate_fn locate, void *arg)
{
	uint32_t id = pki_memo_id(&r->memo, text, len);

	return id ? st_frame_by_id(r, id, variant, locate, arg) :
		locate(arg, text, len, variant);
}

int st_hold(struct st_reader *r, const char *text, size_t len,
	    unsigned now_variant, st_locate_fn locate, void *arg)
{
	struct st_held *h;

	if (pki_grow(&r->held, &r->held_cap, r->nheld + 1, sizeof(*r->held)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	h = &r->held[r->nheld++];
	h->id = pki_memo_id(&r->memo, text, len);
	h->loc = h->id ? 0 : locate(arg, text, len, now_variant);
	return h->id || h->loc ? 0 : pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
}

const char *st_held_text(const struct st_reader *r, size_t i, size_t *len)
{
	return r->held[i].id ? pki_memo_text(&r->memo, r->held[i].id, len) : NULL;
}

int st_push_held(struct st_reader *r, size_t i, unsigned variant,
		 st_locate_fn locate, void *arg)
{
	const struct st_held *h = &r->held[i];

	return st_push(r, h->id ? st_frame_by_id(r, h->id, variant, locate, arg) : h->loc);
}

int st_push(struct st_reader *r, uint32_t loc)
{
	if (!loc)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	/* one frame past what the profile keeps makes it count the cut */
	if (r->nframes > pki_profile_max_stack(r->p))
		return 0;
	if (pki_grow(&r->frames, &r->frames_cap, r->nframes + 1,
		     sizeof(*r->frames)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	r->frames[r->nframes++] = loc;
	return 0;
}

/* The counts' column, made on the first sample (before its labels, as
 * the profile's strings have always been interned in that order). */
static int make_column(struct st_reader *r)
{
	if (r->column < 0 && st_event(r, NULL))
		return pk_context_error(r->ctx)->code;
	if (r->column >= ST_MAX_COLUMNS)
		return pk_error_set(r->ctx, PK_EUSAGE, "too many sample types");
	return 0;
}

/* make_column's answer, asked on every sample: one compare once made. */
static inline int ensure_column(struct st_reader *r)
{
	return (unsigned)r->column < ST_MAX_COLUMNS ? 0 : make_column(r);
}

/* Does the text name the sample's thread at all? */
static int names_thread(const struct st_thread *t)
{
	return t->comm || t->pid >= 0 || t->tid >= 0 || t->nextra;
}

/* The slot of the threads seen lately that t would be kept in. */
static inline struct st_recent_thread *recent_slot(struct st_reader *r,
					    const struct st_thread *t)
{
	/* Fibonacci hashing: the ids' high bits, mixed */
	uint64_t h = ((uint64_t)t->tid ^ (uint64_t)t->pid << 24 ^ (uint64_t)t->comm_len << 48) *
		     0x9e3779b97f4a7c15ULL;

	return &r->recent[h >> 58];
}

/* Whether slot keeps t's label set, as far as its ids and its name's
 * length tell (a thread with more labels, extra, is never kept). */
static inline int same_ids(const struct st_recent_thread *slot,
			   const struct st_thread *t)
{
	return slot->tid == t->tid && slot->pid == t->pid && slot->labels &&
	       slot->name_key == (t->comm ? t->comm_len + 1 : 0) && !t->nextra;
}

/* Whether slot keeps t's name, of the same length (without a call to
 * memcmp, which would cost st_sample the registers it saves). */
static inline int same_name(const struct st_recent_thread *slot,
			    const struct st_thread *t)
{
	return pki_same_bytes(slot->comm, t->comm, t->comm_len);
}

/* t's label set if it was seen lately, else 0. */
static uint32_t recent_labels(struct st_reader *r, const struct st_thread *t)
{
	const struct st_recent_thread *slot = recent_slot(r, t);

	return same_ids(slot, t) && same_name(slot, t) ? slot->labels : 0;
}

/* t's label set interned, and kept for its next sample. */
static uint32_t intern_labels(struct st_reader *r, const struct st_thread *t)
{
	struct st_recent_thread *slot;
	size_t n = 0;
	uint32_t id;

	if (pki_grow(&r->labels, &r->labels_cap, t->nextra + 3, sizeof(*r->labels)) < 0)
		return 0;
	memset(r->labels, 0, 3 * sizeof(*r->labels));
	if (t->comm) {
		r->labels[n].key = r->key_comm;
		r->labels[n++].str = pk_profile_intern(r->p, t->comm, t->comm_len);
	}
	if (t->pid >= 0) {
		r->labels[n].key = r->key_pid;
		r->labels[n++].num = t->pid;
	}
	if (t->tid >= 0) {
		r->labels[n].key = r->key_tid;
		r->labels[n++].num = t->tid;
	}
	if (t->nextra)
		memcpy(r->labels + n, t->extra, t->nextra * sizeof(*r->labels));
	n += t->nextra;
	if (!(id = pk_profile_intern_labels(r->p, r->labels, n)) || t->nextra)
		return id;
	slot = recent_slot(r, t);
	slot->labels = 0;
	if (t->comm_len) {
		if (pki_grow(&slot->comm, &slot->comm_cap, t->comm_len, 1) < 0)
			return id;	/* not kept: interned again next time */
		memcpy(slot->comm, t->comm, t->comm_len);
	}
	slot->pid = t->pid;
	slot->tid = t->tid;
	slot->name_key = t->comm ? t->comm_len + 1 : 0;
	slot->labels = id;
	return id;
}

/* The label set of t, a thread the text names and not seen lately, for
 * a sample that counts something. */
static int new_thread_labels(struct st_reader *r, const struct st_thread *t,
			     uint32_t *labels)
{
	int rc;

	if ((rc = ensure_column(r)))
		return rc;
	if (!(*labels = intern_labels(r, t)))
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	return 0;
}

/* Whether a sample of t counts nothing: no frame, no thread's name. */
static int counts_nothing(const struct st_reader *r, const struct st_thread *t)
{
	return !r->nframes && !t->comm;
}

int st_thread_labels(struct st_reader *r, const struct st_thread *t,
		     uint32_t *labels)
{
	*labels = 0;
	if (!names_thread(t) || counts_nothing(r, t) || (*labels = recent_labels(r, t)))
		return 0;
	return new_thread_labels(r, t, labels);
}

/* st_sample of a thread not seen lately: out of st_sample's line, which
 * needs no register saved for one seen lately (nor for no thread), but
 * jumps on. */
static __attribute__((noinline)) int sample_new_thread(struct st_reader *r,
						       const struct st_thread *t,
						       int64_t count)
{
	uint32_t labels;
	int rc;

	if ((rc = new_thread_labels(r, t, &labels)))
		return rc;
	return st_sample_labeled(r, labels, t->comm != NULL, count);
}

int st_sample(struct st_reader *r, const struct st_thread *t, int64_t count)
{
	const struct st_recent_thread *slot;

	if (!names_thread(t) || counts_nothing(r, t))
		return st_sample_labeled(r, 0, t->comm != NULL, count);
	slot = recent_slot(r, t);
	if (!same_ids(slot, t) || !same_name(slot, t))
		return sample_new_thread(r, t, count);
	return st_sample_labeled(r, slot->labels, t->comm != NULL, count);
}

/* ---- entries (stack-text.h) ---- */

static inline int add_sample(struct st_reader *r, uint32_t stack, uint32_t labels,
			     int64_t count);

/* The entries' samples and texts past which no more entries are
 * remembered (32 MiB, 16 MiB): a text whose entries never come again (a
 * busy process's samples) holds no more. */
#define ENTRY_MAX_SAMPLES ((size_t)4 << 20)
#define ENTRY_MAX_BYTES ((size_t)16 << 20)

/* A sample of the entry being read, kept with it. */
static void entry_sample(struct st_reader *r, uint32_t stack, uint32_t labels)
{
	struct st_entries *e = &r->entries;

	if (e->nsamples < ENTRY_MAX_SAMPLES &&
	    pki_grow(&e->samples, &e->samples_cap, e->nsamples + 1, sizeof(*e->samples)) == 0) {
		e->samples[e->nsamples].stack = stack;
		e->samples[e->nsamples++].labels = labels;
		return;
	}
	e->nsamples = e->reading.first;
	e->reading.id = 0;	/* read each time: no harm */
}

/* The entry of memo id id comes after the last one met, and is the last. */
static void entry_met(struct st_entries *e, uint32_t id)
{
	pki_memo_follow(&e->memo, e->last, id);
	e->last = id;
}

void st_entry_ends(struct st_reader *r, const char *s)
{
	struct st_entries *e = &r->entries;
	struct st_entry *entry;

	if (!e->reading.id || s < e->reading.end)
		return;
	if (s > e->reading.end ||	/* not met: never so */
	    r->lineno - e->reading.first_line > UINT32_MAX ||
	    pki_grow(&e->entries, &e->entries_cap, e->nentries + 1, sizeof(*e->entries)) < 0) {
		e->nsamples = e->reading.first;
		e->reading.id = 0;
		return;
	}
	entry = &e->entries[e->nentries++];
	entry->id = e->reading.id;
	entry->first = (uint32_t)e->reading.first;
	entry->nsamples = (uint32_t)(e->nsamples - e->reading.first);
	entry->lines = (uint32_t)(r->lineno - e->reading.first_line);
	*pki_memo_value(&e->memo, e->reading.id) = e->nentries;
	e->reading.id = 0;
	entry_met(e, entry->id);
}

/* Entry index (+ 1) found at s: its samples added, reading on at stop. */
static int entry_found(struct st_reader *r, uint32_t index, const char *stop,
		       uint32_t lines_read)
{
	struct st_entries *e = &r->entries;
	const struct st_entry *entry = &e->entries[index - 1];
	const struct st_entry_sample *sample = e->samples + entry->first;
	uint32_t i;
	int rc;

	entry_met(e, entry->id);
	if ((rc = ensure_column(r)))
		return rc;
	for (i = 0; i < entry->nsamples; i++)
		if ((rc = add_sample(r, sample[i].stack, sample[i].labels, 1)))
			return rc;
	r->pass_to = stop;
	r->pass_lines = entry->lines - lines_read;
	return ST_ENTRY_FOUND;
}

/* The entry after the last one met, or the one before it, if at s (a
 * line that ends it after it in the part). */
static int entry_known(struct st_reader *r, const char *s,
		       int (*ends)(const char *line, size_t len), uint32_t lines_read,
		       int *found)
{
	struct st_entries *e = &r->entries;
	uint32_t id;
	const char *stop = follower_at(&e->memo, e->last, s, r->part->end, ends, &id);

	*found = stop != NULL;
	return *found ? entry_found(r, (uint32_t)*pki_memo_value(&e->memo, id), stop,
				    lines_read) : 0;
}

/* The entry of the text from s to stop, found by its hash, else read. */
static int entry_lookup(struct st_reader *r, const char *s, const char *stop,
			uint32_t lines_read)
{
	struct st_entries *e = &r->entries;
	size_t len = (size_t)(stop - s);
	uint32_t id, index;

	if (e->memo.full || len > ENTRY_MAX_BYTES - e->bytes ||
	    !(id = pki_memo_id(&e->memo, s, len)))
		return 0;
	if ((index = (uint32_t)*pki_memo_value(&e->memo, id)))
		return entry_found(r, index, stop, lines_read);
	e->bytes += len;
	e->reading.id = id;
	e->reading.end = stop;
	e->reading.first_line = r->lineno + 1 - lines_read;
	e->reading.first = e->nsamples;
	return 0;
}

int st_entry(struct st_reader *r, const char *s,
	     int (*ends)(const char *line, size_t len),
	     const char *(*end_of)(const struct st_reader *r, const char *s),
	     uint32_t lines_read)
{
	const char *stop;
	int rc, found;

	if (!r->part || r->entries.reading.id)
		return 0;
	if ((rc = entry_known(r, s, ends, lines_read, &found)) || found ||
	    !(stop = end_of(r, s)))
		return rc;
	return entry_lookup(r, s, stop, lines_read);
}

/* A sample of stack (0: out of memory), its column made. */
static inline int add_sample(struct st_reader *r, uint32_t stack, uint32_t labels,
			     int64_t count)
{
	int rc;

	r->values[r->column] = count;
	r->samples++;
	if (r->entries.reading.id)
		entry_sample(r, stack, labels);
	rc = !stack || pk_profile_add_sample(r->p, stack, labels, 0, r->values,
					     (size_t)r->column + 1);
	r->values[r->column] = 0;
	return rc ? pk_error_set(r->ctx, PK_ENOMEM, "out of memory") : 0;
}

int st_sample_labeled(struct st_reader *r, uint32_t labels, int named,
		      int64_t count)
{
	uint32_t stack, known = r->known;
	size_t depth = r->nframes;
	int rc;

	r->nframes = r->nheld = 0;
	r->known = 0;
	if (!depth && !named)
		return 0;
	if ((rc = ensure_column(r)))
		return rc;
	if (known && r->blocks[known - 1].depth == depth) {
		stack = r->blocks[known - 1].stack;
		if (!stack)	/* remembered by st_drop */
			stack = r->blocks[known - 1].stack =
				pk_profile_intern_stack(r->p, r->frames, depth);
	} else {
		stack = pk_profile_intern_stack(r->p, r->frames, depth);
		if (stack && r->block_read.id && r->line_at == r->block_read.end)
			remember_block(r, stack, depth);
	}
	r->last_stack = stack;
	return add_sample(r, stack, labels, count);
}


void st_drop(struct st_reader *r)
{
	size_t depth = r->nframes;

	r->nframes = r->nheld = 0;
	r->known = 0;
	if (depth && r->block_read.id && r->line_at == r->block_read.end)
		remember_block(r, 0, depth);
}

int st_parse_count(const char *s, size_t len, int64_t *count)
{
	size_t i;

	*count = 0;
	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || *count > (INT64_MAX - 9) / 10)
			return -1;
		*count = *count * 10 + (s[i] - '0');
	}
	return 0;
}

int st_is_count_line(const char *s, size_t len)
{
	/* st_count_line's test, the count not parsed: a block's end is
	 * looked for on every line, and a known block's end read again */
	size_t i = st_blanks(s, len);

	return i < len && st_digits(s + i, len - i) == len - i;
}

int st_count_line(const char *s, size_t len, int64_t *count, int *too_large)
{
	size_t i = st_blanks(s, len);

	*too_large = 0;
	if (!st_is_count_line(s, len))
		return 0;
	*too_large = st_parse_count(s + i, len - i, count) < 0;
	return 1;
}

int st_after_count_line(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	(void)line;
	(void)len;
	return st_is_count_line(prev, prev_len);
}

uint64_t st_lineno(struct st_reader *r)
{
	return r->part ? pki_part_first_line(r->part) + r->lineno :
		pk_input_lineno(r->in);
}

int st_line_error(struct st_reader *r, const char *problem)
{
	return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: %s",
			    pk_input_name(r->in), (unsigned long long)st_lineno(r),
			    problem);
}

void st_skip_line(struct st_reader *r, const char *line, size_t len,
		  const char *why)
{
	pki_part_warn_few(r->part, r->ctx, &r->skipped, "%s: line %llu: %s: '%.*s'",
			  pk_input_name(r->in), (unsigned long long)st_lineno(r), why,
			  (int)(len > 60 ? 60 : len), line);
}

const char *st_trim(const char *s, size_t *len)
{
	size_t n = *len, blanks = st_blanks(s, n);

	s += blanks;
	n -= blanks;
	while (n && st_is_blank(s[n - 1]))
		n--;
	*len = n;
	return s;
}

size_t st_frame_number(const char *s, size_t len)
{
	size_t i = 1;

	if (!len || s[0] != '#')
		return 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 1 || i == len || s[i] != ' ')
		return 0;
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

size_t st_hex_prefix(const char *s, size_t len, uint64_t *value)
{
	size_t i = 2;
	int d;

	*value = 0;
	if (len < 3 || s[0] != '0' || s[1] != 'x')
		return 0;
	for (; i < len && (d = pki_hexval((unsigned char)s[i])) >= 0; i++)
		*value = (*value << 4) | (uint64_t)d;
	return i > 2 && i - 2 <= 16 ? i : 0;
}

void st_probe_start(struct st_probe *pr, const unsigned char *buf, size_t len)
{
	pr->s = (const char *)buf;
	pr->end = pr->s + len;
	pr->binary = 0;
}

int st_probe_line(struct st_probe *pr, const char **line, size_t *len)
{
	const char *nl = memchr(pr->s, '\n', (size_t)(pr->end - pr->s));
	size_t n;

	if (!nl || pr->binary)
		return 0;
	n = (size_t)(nl - pr->s);
	if (memchr(pr->s, '\0', n)) {
		pr->binary = 1;
		return 0;
	}
	*line = pr->s;
	*len = n && pr->s[n - 1] == '\r' ? n - 1 : n;
	pr->s = nl + 1;
	return 1;
}
