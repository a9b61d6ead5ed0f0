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
#include "util/strings.h"

/*
 * An exception logged again prints the same entry again: its stacks'
 * lines, with "Caused by:" and "... N more" between them. A text in
 * memory remembers each entry (from its first "at" line to the line that
 * ends it, one of the log's own: st_entry_known) with the samples it
 * added, and adds them again where it comes again.
 */

/* The blanks a line starts with (the script's \s, form feeds too). */
static size_t leading_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (st_is_blank(s[i]) || s[i] == '\f' || s[i] == '\v'))
		i++;
	return i;
}

/* "\tat Stacks.load(Stacks.java:70)": where the method starts, or 0.
 * Asked of most lines two or three times: a tab's "at" (printStackTrace's)
 * and a line that starts with no blank (the log's) are told first. */
static size_t at_line(const char *s, size_t len)
{
	size_t i;

	if (len >= 4 && s[0] == '\t' && s[1] == 'a' && s[2] == 't' && s[3] == ' ')
		return 4;
	if (len && (unsigned char)s[0] > ' ' && s[0] != 'a')
		return 0;
	i = leading_blanks(s, len);

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
 * end none, and cost no call then. */
static int end_stack(struct st_reader *r)
{
	return r->nframes ? st_sample_labeled(r, 0, 0, 1) : 0;
}

/* Where the entry from s (an "at" line) ends: the start of the line that
 * ends it; NULL when the part ends first. */
static const char *entry_end(const struct st_reader *r, const char *s)
{
	const char *end = r->part->end, *next;

	for (; s < end; s = next)
		if (ends_entry(s, pki_text_line(s, end, &next, NULL)))
			return s;
	return NULL;
}

static int handle_line(struct st_reader *r, const char *s, size_t len)
{
	size_t at = at_line(s, len);
	const char *next;
	int rc;

	if (at)
		return st_push(r, st_frame_loc(r, s + at, len - at, 0, locate_frame, r));
	if (r->nframes && st_find(s, len, "waiting on ", 11))
		return 0;
	if ((rc = end_stack(r)))
		return rc;
	st_entry_ends(r, s);
	/* a text in memory: an entry may start at the next line */
	if (!r->part || st_entry_reading(r))
		return 0;	/* no look ahead */
	pki_text_line(s + len, r->part->end, &next, NULL);
	return next < r->part->end && at_line(next, (size_t)(r->part->end - next)) ?
	       st_entry(r, next, ends_entry, entry_end, 0) : 0;
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

static int at_end(struct st_reader *r)
{
	return end_stack(r);
}

static const struct st_format java_exceptions = {
	.what = "Java exception",
	.expected = "'at package.Class.method(File.java:1)' lines",
	.size = sizeof(struct st_reader),
	.line = handle_line, .end = at_end,
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
