/* SPDX-License-Identifier: MIT */
/*
 * Reader for the traces.txt of lightweight-java-profiler
 * (-agentpath:liblagent.so): each distinct stack with the number of times
 * it was sampled and its number of frames, the leaf first, one
 * "Class.method(File.java:LINE)" a line, then a blank line; a total at
 * the end:
 *
 *     42 3 <TAB>demo.Work.spin(Work.java:12)
 *     <TAB>demo.Work.run(Work.java:30)
 *     <TAB>java.lang.Thread.run(Thread.java:750)
 *
 *     Total trace count = 42, Total traces = 1
 *
 * As stackcollapse-ljp.awk reads it: a frame is its method, the file
 * and line kept as the function's file and line, and nothing after the
 * total is read (the hot methods' table).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/memo.h"
#include "core/parts.h"
#include "formats/registry.h"
#include "transforms/copy.h"

#define TOTAL "Total"

struct ljp_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	uint32_t *stack;
	size_t depth, stack_cap;
	int64_t count;		/* of the stack being read; 0: none */
	uint64_t bad_lines;
	int ended;		/* at the total: the rest is not read */
	/* a mapped input read in parts: the one read, the text of it not
	 * read yet, and the lines read of it; else part is NULL and
	 * pk_input_line reads */
	struct pki_part *part;
	const char *at;
	uint64_t lines;
	/* a frame's location by its line's text: the same frames come in
	 * trace after trace, and in the same order */
	struct pki_memo frames;
	uint32_t last_id, first_id;	/* of the frame read last, of its trace's first */
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "-1" or "455" ending at end: the number; -1 for none. */
static int line_number(const char *s, const char *end, int64_t *n)
{
	int minus = s < end && *s == '-';

	*n = 0;
	for (s += minus; s < end && is_digit(*s) && *n < INT32_MAX; s++)
		*n = *n * 10 + (*s - '0');
	if (s != end || s[-1] == '-')
		return -1;
	*n = minus ? -*n : *n;
	return 0;
}

/* "demo.Work.spin(Work.java:12)": the method, and the file and line in
 * the parentheses (as the awk script, the text from the first '(' to
 * the last ')' is not the name). */
static uint32_t frame(struct ljp_reader *r, const char *s, size_t len)
{
	const char *open = memchr(s, '(', len), *close = s + len, *colon;
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	size_t name_len = open ? (size_t)(open - s) : len;

	while (name_len && (s[name_len - 1] == ' ' || s[name_len - 1] == '\t'))
		name_len--;
	f.name = f.system_name = pk_profile_intern(r->p, s, name_len);
	while (open && close > open && close[-1] != ')')
		close--;
	for (colon = close - 1; open && colon > open && *colon != ':'; colon--)
		;
	if (open && colon > open + 1 && close > colon + 1 &&
	    !line_number(colon + 1, close - 1, &line.line))
		f.filename = pk_profile_intern(r->p, open + 1, (size_t)(colon - open - 1));
	line.function = pk_profile_intern_function(r->p, &f);
	return pk_profile_intern_location(r->p, 0, 0, &line, 1);
}

/* The memo's value of a frame's text, what came after the frame before
 * it in its trace (follower 0), or after the trace before's first frame
 * (follower 1), the last time compared first (pki_memo_id_after); NULL
 * when the memo is full. */
static uint64_t *frame_memo(struct ljp_reader *r, const char *s, size_t len)
{
	uint32_t id = r->depth ? pki_memo_id_after(&r->frames, r->last_id, 0, s, len) :
		pki_memo_id_after(&r->frames, r->first_id, 1, s, len);

	r->last_id = id;
	if (!r->depth)
		r->first_id = id;
	return id ? pki_memo_value(&r->frames, id) : NULL;
}

static int push_frame(struct ljp_reader *r, const char *s, size_t len)
{
	uint64_t *memo;
	uint32_t loc;

	if (r->depth > pki_profile_max_stack(r->p))
		return 0;	/* the profile cuts it: the leaf side stays */
	if (pki_grow(&r->stack, &r->stack_cap, r->depth + 1, sizeof(*r->stack)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	memo = frame_memo(r, s, len);
	if (memo && *memo) {
		loc = (uint32_t)*memo;
	} else {
		if (!(loc = frame(r, s, len)))
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
		if (memo)
			*memo = loc;
	}
	r->stack[r->depth++] = loc;
	return 0;
}

/* The stack read so far is a sample. */
static int end_stack(struct ljp_reader *r)
{
	uint32_t stack;

	if (r->count && r->depth) {
		stack = pk_profile_intern_stack(r->p, r->stack, r->depth);
		if (!stack || pk_profile_add_sample(r->p, stack, 0, 0, &r->count, 1))
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	}
	r->count = 0;
	r->depth = 0;
	return 0;
}

/* The number of the line read last. */
static uint64_t lineno(const struct ljp_reader *r)
{
	return r->part ? pki_part_first_line(r->part) + r->lines :
	       pk_input_lineno(r->in);
}

static void bad_line(struct ljp_reader *r, const char *line, size_t len)
{
	pki_part_warn_few(r->part, r->ctx, &r->bad_lines, "%s: line %llu: not "
			  "a trace 'COUNT FRAMES<TAB>FRAME' nor a frame: '%.*s'",
			  pk_input_name(r->in), (unsigned long long)lineno(r),
			  (int)(len > 60 ? 60 : len), line);
}

/* "COUNT FRAMES<TAB>FRAME": the count, the first frame at *frame. */
static int trace_head(const char *line, size_t len, int64_t *count, size_t *frame)
{
	size_t i = 0;
	int64_t n = 0;

	for (; i < len && is_digit(line[i]); i++) {
		if (n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (line[i] - '0');
	}
	if (!i || i == len || line[i++] != ' ' || i == len || !is_digit(line[i]))
		return -1;
	while (i < len && is_digit(line[i]))
		i++;
	if (i < len && line[i] != ' ' && line[i] != '\t')
		return -1;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*count = n;
	*frame = i;
	return 0;
}

static int ljp_line(struct ljp_reader *r, const char *line, size_t len)
{
	size_t i = 0;
	int64_t count;

	/* a frame's line starts with a blank: no head */
	if (len && is_digit(line[0]) && trace_head(line, len, &count, &i) == 0) {
		int rc = end_stack(r);

		r->count = count;
		if (rc || i == len)
			return rc;
		return push_frame(r, line + i, len - i);
	}
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len)
		return end_stack(r);
	if (!i || !r->count) {
		bad_line(r, line, len);
		return 0;
	}
	return push_frame(r, line + i, len - i);
}

/* The next line; a last one without its newline is warned of. */
static const char *next_line(struct ljp_reader *r, size_t *len)
{
	uint64_t offset = 0;
	const char *line;
	int cut;

	if (r->part) {
		line = pki_part_line(r->part, &r->at, len, &cut);
		r->lines += line != NULL;
	} else {
		offset = pk_input_offset(r->in);
		line = pk_input_line(r->in, len);
		cut = line && pk_input_offset(r->in) - offset == *len;
	}
	if (line && cut)
		pk_warn(r->ctx, "%s: line %llu: the file ends mid-line (truncated "
			"file?)", pk_input_name(r->in), (unsigned long long)lineno(r));
	return line;
}

/* The traces up to the total or the end of the text (of the part); the
 * last one is a sample, as the next trace's first line would make it. */
static int read_traces(struct ljp_reader *r)
{
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = next_line(r, &len))) {
		if (pki_starts_with_n(line, len, TOTAL " ")) {
			r->ended = 1;
			break;
		}
		rc = ljp_line(r, line, len);
	}
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	return rc ? rc : end_stack(r);
}

static void reader_start(struct ljp_reader *r, struct pk_context *ctx,
			 struct pk_input *in, struct pk_profile *p)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->in = in;
	r->p = p;
}

/* What only reading needs. */
static void reader_done(void *reader)
{
	struct ljp_reader *r = reader;

	free(r->stack);
	r->stack = NULL;
	r->stack_cap = 0;
	pki_memo_free(&r->frames);
	r->last_id = r->first_id = 0;
}

/* ---- reading in parts: a trace starts at its count ---- */

static size_t trace_start(void *whole, const char *data, size_t size, size_t pos)
{
	const char *s = data + pos, *end = data + size, *nl;
	int64_t count;
	size_t frame;

	(void)whole;
	if (pos && !(s = memchr(s - 1, '\n', size - pos + 1)))
		return size;
	for (s += pos ? 1 : 0; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			break;
		if (!trace_head(s, (size_t)(nl - s), &count, &frame))
			return (size_t)(s - data);
	}
	return size;
}

static void *part_open(void *whole, struct pk_context *ctx, struct pk_profile *p,
		       const struct pki_part *part)
{
	const struct ljp_reader *w = whole;
	struct ljp_reader *r = malloc(sizeof(*r));

	(void)part;
	if (!r)
		return NULL;
	reader_start(r, ctx, w->in, p);
	if (pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT) < 0) {
		free(r);
		pk_error_set(ctx, PK_ENOMEM, "out of memory");
		return NULL;
	}
	return r;
}

static int read_part(void *reader, struct pki_part *part)
{
	struct ljp_reader *r = reader;
	int rc;

	r->part = part;
	r->at = part->start;
	r->lines = 0;
	rc = read_traces(r);
	pki_part_finish(part, r->at);
	return rc;
}

static int absorb_part(void *whole, void *reader)
{
	((struct ljp_reader *)whole)->ended = ((struct ljp_reader *)reader)->ended;
	return 0;
}

/* Parts past the total are dropped. */
static int part_kept(void *whole)
{
	return !((struct ljp_reader *)whole)->ended;
}

static uint64_t *bad_line_tally(void *reader)
{
	return &((struct ljp_reader *)reader)->bad_lines;
}

static void part_close(void *reader)
{
	reader_done(reader);
	free(reader);
}

static const struct pki_parts_reader ljp_parts = {
	.cut = trace_start,
	.open = part_open,
	.read = read_part,
	.done = reader_done,
	.absorb = absorb_part,
	.close = part_close,
	.kept = part_kept,
	.append = pki_copy_append,
	.few = bad_line_tally,
};

static int ljp_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	struct ljp_reader r;
	const char *data;
	size_t size;
	int rc = 0;

	reader_start(&r, ctx, in, p);
	pk_profile_set_meta(p, PKI_META_VERBATIM_NAMES, "yes");
	if (pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT) < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	data = rc ? NULL : (const char *)pki_input_map(in, &size);
	if (data && size)
		rc = pki_read_parts(&ljp_parts, &r, ctx, in, p, opts, data, size);
	else if (!data && !rc)
		rc = read_traces(&r);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !pk_profile_sample_count(p))
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no traces ('COUNT FRAMES"
				  "<TAB>FRAME' and a frame a line)",
				  pk_input_name(in));
	reader_done(&r);
	return rc;
}

/* A trace's first line, then a frame's: "42 3 <TAB>a.B.c(B.java:1)",
 * "<TAB>a.B.d(B.java:2)". */
static int ljp_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *nl = memchr(s, '\n', len), *next;
	int64_t count;
	size_t frame;

	if (!nl || trace_head(s, (size_t)(nl - s), &count, &frame) ||
	    frame == (size_t)(nl - s) || nl[-1] != ')' || !memchr(s, '(', (size_t)(nl - s)))
		return 0;
	next = nl + 1;
	nl = memchr(next, '\n', len - (size_t)(next - s));
	if (!nl)
		return 0;
	/* the next frame, or the blank line after a stack of one */
	if (nl == next)
		return 60;
	return next[0] == '\t' && nl[-1] == ')' && memchr(next, '(', (size_t)(nl - next)) ?
	       70 : 0;
}

const struct pki_format pki_format_ljp = {
	.name = "ljp",
	.read_description = "lightweight-java-profiler traces (as "
			    "stackcollapse-ljp.awk reads them)",
	.probe = ljp_probe,
	.read = ljp_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
