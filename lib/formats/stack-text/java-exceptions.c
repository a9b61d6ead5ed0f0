/* SPDX-License-Identifier: MIT */
/*
 * Reader for Java exception stacks found in a log, as
 * Throwable.printStackTrace() prints them (stackcollapse-java-exceptions.pl
 * folds them):
 *
 *     java.lang.IllegalStateException: load failed
 *     	at Stacks.load(Stacks.java:70)
 *     	at Stacks.main(Stacks.java:91)
 *     Caused by: java.io.IOException: bad record: x1
 *     	at Stacks.parse(Stacks.java:62)
 *     	... 1 more
 *
 * A run of "at" lines is one stack, leaf first, counted once; any other
 * line ends it (a "Caused by:", "Suppressed:", "... N more", the log's
 * next line), except a monitor's "waiting on" line. A frame is named as
 * the script names it, all before '(' ("java.base/java.lang.Integer.
 * parseInt" keeps its module), its "(File.java:15)" the file and line.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/strings.h"

/*
 * An exception logged again prints the same entry again: its stacks'
 * lines, with "Caused by:" and "... N more" between them. A text in
 * memory remembers each entry's text (from its first "at" line to the
 * line that ends it, one of the log's own) and the stacks it added: the
 * next time, the entry that came after the last one is compared with
 * the text (else the entry's lines are found and looked up by their
 * hash), and the entry's samples are added again, its lines passed over.
 */
struct entry {
	uint32_t id;		/* its text's, in entry_memo */
	/* the entries after it (index + 1): next the last time, before
	 * another one the time before (an exception logged in turns with
	 * two others) */
	uint32_t next, before;
	uint32_t first, nstacks;	/* its samples' stacks, in stacks */
	uint32_t lines;
};

/* The entries' stacks past which no more entries are remembered (16 MiB;
 * the memo's texts have their own limit). */
#define ENTRY_MAX_STACKS ((size_t)4 << 20)

struct je_reader {
	struct st_reader st;
	struct pki_memo entry_memo;	/* value: the entry's index + 1 */
	struct entry *entries;
	size_t nentries, entries_cap;
	uint32_t *stacks;
	size_t nstacks, stacks_cap;
	uint32_t last;		/* the entry met last: index + 1 */
	struct {		/* an entry read line by line, to remember */
		const char *end;	/* its last line's end: the next line */
		uint32_t id;		/* its text's id, 0: none read */
		uint32_t lines;
		size_t first;		/* its stacks from here in stacks */
	} reading;
};

/* The blanks a line starts with (the script's \s, form feeds too). */
static size_t leading_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (st_is_blank(s[i]) || s[i] == '\f' || s[i] == '\v'))
		i++;
	return i;
}

/* "\tat Stacks.load(Stacks.java:70)": where the method starts, or 0. */
static size_t at_line(const char *s, size_t len)
{
	size_t i = leading_blanks(s, len);

	return i + 3 <= len && memcmp(s + i, "at ", 3) == 0 ? i + 3 : 0;
}

/* Whether a line after an entry's first ends it: no "at" line, no
 * "Caused by:", "Suppressed:" nor "... N more", and none a stack's
 * "waiting on" may be part of (which would not end the stack). */
static int ends_entry(const char *s, size_t len)
{
	size_t blanks = leading_blanks(s, len);
	const char *t = s + blanks;
	size_t n = len - blanks;

	if (pki_starts_with_n(t, n, "at ") || pki_starts_with_n(t, n, "Caused by: ") ||
	    pki_starts_with_n(t, n, "Suppressed: ") || pki_starts_with_n(t, n, "... "))
		return 0;
	return !st_find(s, len, "waiting on ", 11);
}

/* "Stacks.load(Stacks.java:70)", "Integer.parseInt(Integer.java:668)". */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct st_frame f = { 0 };
	const char *open = memchr(s, '(', len), *colon;

	(void)variant;
	f.name = s;
	f.name_len = open ? (size_t)(open - s) : len;
	if (open && s[len - 1] == ')' &&
	    (colon = memrchr(open, ':', (size_t)(s + len - 1 - open))) &&
	    st_parse_count(colon + 1, (size_t)(s + len - 2 - colon), &f.line) == 0) {
		f.file = open + 1;
		f.file_len = (size_t)(colon - f.file);
	}
	return st_location(arg, &f);
}

/* The stack read so far, a sample of no thread: most lines of a log
 * end none, and cost no call then. A sample of an entry being read is
 * remembered with it. */
static int end_stack(struct je_reader *r)
{
	int rc;

	if (!r->st.nframes)
		return 0;
	if ((rc = st_sample_labeled(&r->st, 0, 0, 1)) || !r->reading.id)
		return rc;
	if (r->nstacks < ENTRY_MAX_STACKS &&
	    pki_grow(&r->stacks, &r->stacks_cap, r->nstacks + 1, sizeof(*r->stacks)) == 0) {
		r->stacks[r->nstacks++] = r->st.sampled;
		return 0;
	}
	r->nstacks = r->reading.first;
	r->reading.id = 0;	/* read each time: no harm */
	return 0;
}

/* Entry index (+ 1) comes after the last one met, and is the last. */
static void followed_by(struct je_reader *r, uint32_t index)
{
	struct entry *last = r->last ? &r->entries[r->last - 1] : NULL;

	if (last && last->next != index) {
		last->before = last->next;
		last->next = index;
	}
	r->last = index;
}

/* The entry read line by line ends at line: remembered, after the last. */
static void remember_entry(struct je_reader *r)
{
	struct entry *e;
	uint32_t id = r->reading.id;

	r->reading.id = 0;
	if (pki_grow(&r->entries, &r->entries_cap, r->nentries + 1, sizeof(*r->entries)) < 0) {
		r->nstacks = r->reading.first;
		return;
	}
	e = &r->entries[r->nentries++];
	e->id = id;
	e->next = e->before = 0;
	e->first = (uint32_t)r->reading.first;
	e->lines = r->reading.lines;
	e->nstacks = (uint32_t)(r->nstacks - r->reading.first);
	*pki_memo_value(&r->entry_memo, id) = r->nentries;
	followed_by(r, (uint32_t)r->nentries);
}

/* Whether entry index (+ 1) is at s, a line that ends it after it in the
 * part: where its text ends, else NULL. */
static const char *entry_at(struct je_reader *r, uint32_t index, const char *s)
{
	const char *end = r->st.part->end, *text, *next;
	size_t len;

	text = pki_memo_text(&r->entry_memo, r->entries[index - 1].id, &len);
	return (size_t)(end - s) > len && memcmp(s, text, len) == 0 &&
	       ends_entry(s + len, pki_text_line(s + len, end, &next, NULL)) ? s + len : NULL;
}

/* Where the entry from s (an "at" line) ends: the start of the line that
 * ends it, its *lines counted; NULL when the part ends first (or past
 * 2^32 lines). */
static const char *entry_end(const struct je_reader *r, const char *s,
			     uint32_t *lines)
{
	const char *end = r->st.part->end, *next;
	size_t len;

	for (*lines = 0; s < end && *lines < UINT32_MAX; s = next, ++*lines) {
		len = pki_text_line(s, end, &next, NULL);
		if (ends_entry(s, len))
			return s;
	}
	return NULL;
}

/* The entry at s, its samples added and its lines to be passed over
 * when remembered; else read line by line, to be remembered. */
static int next_entry(struct je_reader *r, const char *s)
{
	const struct entry *last = r->last ? &r->entries[r->last - 1] : NULL, *e;
	uint32_t index = last ? last->next : 0, id, i, lines;
	const char *stop = index ? entry_at(r, index, s) : NULL;
	int rc;

	if (!stop && last && (index = last->before))
		stop = entry_at(r, index, s);
	if (!stop) {
		if (!(stop = entry_end(r, s, &lines)) || r->entry_memo.full)
			return 0;
		id = pki_memo_id_hashed(&r->entry_memo, s, (size_t)(stop - s),
					pki_hash_text(s, (size_t)(stop - s)));
		if (id && !(index = (uint32_t)*pki_memo_value(&r->entry_memo, id))) {
			r->reading.id = id;
			r->reading.end = stop;
			r->reading.lines = lines;
			r->reading.first = r->nstacks;
			return 0;
		}
		if (!id)
			return 0;
	}
	followed_by(r, index);
	e = &r->entries[index - 1];
	for (i = 0; i < e->nstacks; i++)
		if ((rc = st_sample_stack(&r->st, r->stacks[e->first + i], 0, 1)))
			return rc;
	st_pass_over(&r->st, stop, e->lines);
	return 0;
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct je_reader *r = (struct je_reader *)st;
	size_t at;
	const char *next;
	int rc;

	if ((at = at_line(s, len)))
		return st_push(st, st_frame_loc(st, s + at, len - at, 0, locate_frame, st));
	if (st->nframes && st_find(s, len, "waiting on ", 11))
		return 0;
	if ((rc = end_stack(r)))
		return rc;
	if (r->reading.id && s >= r->reading.end) {
		if (s == r->reading.end)
			remember_entry(r);
		else
			r->reading.id = 0;	/* not met: never so */
	}
	/* a text in memory: an entry may start at the next line */
	if (!st->part || r->reading.id)
		return 0;
	pki_text_line(s + len, st->part->end, &next, NULL);
	return next < st->part->end && at_line(next, (size_t)(st->part->end - next)) ?
	       next_entry(r, next) : 0;
}

/* A line neither "at" nor "waiting on" ends the stack before it. */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	(void)line;
	(void)len;
	return !at_line(prev, prev_len) && !st_find(prev, prev_len, "waiting on ", 11);
}

/* A stack's frames end at the first line that is none ("Caused by:",
 * "... 3 more", the log's next line; "- waiting on" keeps them). */
static int block_end(const char *s, size_t len)
{
	return !at_line(s, len);
}

static int at_end(struct st_reader *st)
{
	return end_stack((struct je_reader *)st);
}

static void release(struct st_reader *st)
{
	struct je_reader *r = (struct je_reader *)st;

	pki_memo_free(&r->entry_memo);
	free(r->entries);
	free(r->stacks);
}

static const struct st_format java_exceptions = {
	.what = "Java exception",
	.expected = "'at package.Class.method(File.java:1)' lines",
	.size = sizeof(struct je_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start,
	.block_end = block_end,
};

static int java_exceptions_read(struct pk_context *ctx, struct pk_input *in,
				struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&java_exceptions, ctx, in, p, opts);
}

/* An exception's line ("...Exception: ", "Caused by: ") and "at" lines. */
static int java_exceptions_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n, at;
	int frames = 0, exceptions = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (st_find(s, n, "java.lang.Thread.State: ", 24))
			return 0;	/* a thread dump: jstack's */
		if ((at = at_line(s, n)) && memchr(s + at, '(', n - at) && s[n - 1] == ')')
			frames++;
		else if (pki_starts_with_n(s, n, "Caused by: ") ||
			 pki_starts_with_n(s, n, "Exception in thread \"") ||
			 st_find(s, n, "Exception: ", 11) || st_find(s, n, "Error: ", 7) ||
			 (n > 9 && memcmp(s + n - 9, "Exception", 9) == 0))
			exceptions++;
	}
	if (pr.binary || frames < 2 || !exceptions)
		return 0;
	return frames >= 4 ? 55 : 30;
}

const struct pki_format pki_format_java_exceptions = {
	.name = "java-exceptions",
	.read_description = "Java exception stacks in a log (printStackTrace; as "
			    "stackcollapse-java-exceptions.pl)",
	.probe = java_exceptions_probe,
	.read = java_exceptions_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
