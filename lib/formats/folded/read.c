/* SPDX-License-Identifier: MIT */
/*
 * Reader for folded stacks, as stackcollapse-*.pl, inferno and our own
 * writer print them:
 *
 *     root;caller;leaf 1234
 *
 * and difffolded.pl's two-column form "root;caller;leaf 1200 1234"
 * (before and after). Counts may be fractional: they are kept as fixed
 * point at their column's scale (a power of ten, raised as lines with
 * more decimals come), so a round trip prints them back unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "core/parts.h"
#include "formats/registry.h"
#include "transforms/copy.h"
#include "transforms/fold.h"

#define MAX_DECIMALS 6
#define MAX_LINE (64u << 20)	/* as pk_input_line's */
#define BAD_LINE "%s: line %llu: not a folded stack: '%.*s'"
/* Counts a later part takes: at any scale they fit in 64 bits. */
#define PART_MAX_COUNT (INT64_MAX / 1000000)	/* 10^MAX_DECIMALS */
#define FRAME_MEMO_SIZE 16384	/* a power of two, in sets of FRAME_MEMO_WAYS */
#define FRAME_MEMO_WAYS 4
#define FRAME_MEMO_HEAD 16
#define LEAF_AHEAD 256	/* bytes of the next line looked at for its leaf */
#define MAX_COLUMNS 64	/* sample types before ours and ours */

/*
 * A frame name by its first and last 8 bytes (overlapping when shorter:
 * 4 and 4, or 3 bytes alone), which with its length tell a name of up to
 * 16 bytes from every other, read in a few loads rather than byte by
 * byte; and a hash of all of it.
 */
struct name_key {
	uint64_t first, last;
	uint64_t hash;
};

/* A frame name met before and its location: a longer name's middle is
 * in the profile. */
struct frame_memo {
	uint64_t first, last;
	uint32_t len;
	uint32_t location;	/* 0: an empty entry */
	const char *name;
};

/*
 * A line's sample, added when the next line's frames are found: its
 * stack's lookup, a miss in a table of a million distinct stacks, comes
 * into the cache meanwhile.
 */
struct held_sample {
	uint32_t *frames;	/* locations, leaf first */
	size_t frames_cap, depth;
	int64_t values[MAX_COLUMNS];
	size_t nvalues;		/* 0: none held */
};

/* A frame in the line: where it starts, its length and its key. */
struct frame_span {
	uint32_t at, len;
	struct name_key key;
};

struct folded_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	int columns;		/* 1, or 2 for difffolded input */
	int base_column;	/* the first of ours in the profile */
	uint32_t *frames;	/* locations, leaf first */
	size_t frames_cap;
	struct frame_span *spans;	/* the line's frames, root first */
	size_t spans_cap;
	struct frame_memo *memo;	/* by a hash of the name */
	struct held_sample held;
	uint64_t bad_lines;

	/* A text in memory, read in parts (parts.h). */
	struct pki_part *part;	/* the part read, NULL: none */
	uint64_t first_line;	/* lines before; UINT64_MAX: the part's, not counted */
	uint64_t lines;		/* lines read since */
	int later;		/* a later part's reader */
	/* A later part leaves the rest of its text to the whole from the
	 * first line whose count depends on the counts before it. */
	const char *left, *end;
	uint64_t left_first_line;
};

/* The counts that end a line, and the stack before them. */
struct line_counts {
	int n;			/* 0: not a folded stack */
	int64_t whole[2], frac[2];
	int decimals[2];
	size_t stack_len;
};

/* Parse a non-negative decimal with up to MAX_DECIMALS decimals. */
static int parse_count(const char *s, size_t len, int64_t *whole,
		       int64_t *frac, int *decimals)
{
	size_t i = 0;

	*whole = *frac = 0;
	*decimals = 0;
	if (!len)
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (*whole > (INT64_MAX - 9) / 10)
			return -1;
		*whole = *whole * 10 + (s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (*decimals == MAX_DECIMALS)
				continue;	/* finer than a millionth: dropped */
			*frac = *frac * 10 + (s[i] - '0');
			(*decimals)++;
		}
	}
	return i == len && (i > 0) ? 0 : -1;
}

/* The line read: the lines of the input before it, and it. */
static uint64_t line_number(struct folded_reader *r)
{
	if (r->first_line == UINT64_MAX)
		r->first_line = pki_part_first_line(r->part);
	return r->first_line + r->lines;
}

/* Start the sample types at the first line, when the column count is known. */
static int add_columns(struct folded_reader *r, int columns)
{
	int c;

	r->columns = columns;
	if (columns == 2) {
		r->base_column = pk_profile_add_sample_type(r->p, "base", "count", NULL,
							    PK_VALUE_COUNT);
		c = pk_profile_add_sample_type(r->p, "new", "count", NULL, PK_VALUE_COUNT);
	} else {
		r->base_column = c = pk_profile_find_column(r->p, 0, PK_VALUE_COUNT);
		if (c < 0)
			r->base_column = c = pk_profile_add_sample_type(r->p, "samples",
									 "count", NULL,
									 PK_VALUE_COUNT);
	}
	return c < 0 ? pk_error_set(r->ctx, PK_ENOMEM, "out of memory") : 0;
}

/* A count: whole.frac at the column's scale, raised first for more decimals. */
static int fixed_point(struct folded_reader *r, int column, int64_t whole,
		       int64_t frac, int decimals, int64_t *value)
{
	int64_t want = pki_pow10(decimals), scale;

	if (want > pk_profile_sample_type_scale(r->p, (size_t)column) &&
	    pk_profile_set_sample_type_scale(r->p, (size_t)column, want))
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: with %d "
				    "decimals the counts so far no longer fit "
				    "in 64 bits", pk_input_name(r->in),
				    (unsigned long long)line_number(r),
				    decimals);
	scale = pk_profile_sample_type_scale(r->p, (size_t)column);
	frac *= scale / want;
	if (whole > (INT64_MAX - frac) / scale)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: count too large",
				    pk_input_name(r->in),
				    (unsigned long long)line_number(r));
	*value = whole * scale + frac;
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static void name_key(const char *s, size_t len, struct name_key *k)
{
	uint64_t h = len;
	uint32_t a, b;
	size_t i;

	if (len >= 8) {
		memcpy(&k->first, s, 8);
		memcpy(&k->last, s + len - 8, 8);
		for (i = 8; i + 8 < len; i += 8) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			h = mix(h, w);
		}
	} else if (len >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		k->first = a;
		k->last = b;
	} else {
		k->first = len ? (uint64_t)(unsigned char)s[0] |
				 (uint64_t)(unsigned char)s[len / 2] << 8 |
				 (uint64_t)(unsigned char)s[len - 1] << 16 : 0;
		k->last = 0;
	}
	h = mix(mix(h, k->first), k->last);
	h = (h ^ (h >> 32)) * 0xd6e8feb86659fd93ULL;
	k->hash = h ^ (h >> 32);
}

static int memo_holds(const struct frame_memo *m, const struct name_key *k,
		      const char *s, size_t len)
{
	return m->location && m->len == len && m->first == k->first &&
	       m->last == k->last &&
	       (len <= 16 || memcmp(m->name + 8, s + 8, len - 16) == 0);
}

static struct frame_memo *memo_set(const struct folded_reader *r,
				    const struct name_key *k)
{
	return &r->memo[k->hash & (FRAME_MEMO_SIZE - FRAME_MEMO_WAYS)];
}

/*
 * A frame's location: its name interned, then its function, then the
 * location. The same few thousand names make up most stacks, so their
 * locations are remembered in a small table that stays in the cache,
 * where the profile's three tables of a million distinct stacks do not:
 * a set of entries by the hash of the name, the newest first. A name is
 * remembered when met again, so that the million leaves met once do not
 * push out the names that come back. (Two entries a set, 5000 names
 * missed 400K times in 17M lookups, each three misses in the profile.)
 */
static uint32_t frame_location(struct folded_reader *r, const char *s,
			       const struct frame_span *frame)
{
	const struct name_key *k = &frame->key;
	struct frame_memo *m = memo_set(r, k);
	size_t nstrings = pk_profile_string_count(r->p), len = frame->len, i;
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	uint32_t location;

	for (i = 0; i < FRAME_MEMO_WAYS; i++)
		if (memo_holds(&m[i], k, s, len))
			return m[i].location;
	f.name = f.system_name = pk_profile_intern(r->p, s, len);
	line.function = pk_profile_intern_function(r->p, &f);
	location = pk_profile_intern_location(r->p, 0, 0, &line, 1);
	if (location && pk_profile_string_count(r->p) == nstrings) {
		memmove(&m[1], &m[0], (FRAME_MEMO_WAYS - 1) * sizeof(*m));
		m[0] = (struct frame_memo){ k->first, k->last, (uint32_t)len, location,
					    pk_profile_string(r->p, f.name) };
	}
	return location;
}

/* The stack "a;b;c" becomes locations leaf first. */
static int parse_stack(struct folded_reader *r, const char *s, size_t len,
		       size_t *depth)
{
	const char *at = s, *end = s + len, *semicolon;
	size_t n = 0, i;

	/* root first, each frame's memo entries fetched while the next are
	 * found, then looked up leaf first */
	for (;;) {
		struct frame_span *f;

		semicolon = memchr(at, ';', (size_t)(end - at));
		if (pki_grow(&r->spans, &r->spans_cap, n + 1, sizeof(*r->spans)) < 0)
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
		f = &r->spans[n++];
		f->at = (uint32_t)(at - s);
		f->len = (uint32_t)((semicolon ? semicolon : end) - at);
		name_key(at, f->len, &f->key);
		__builtin_prefetch(memo_set(r, &f->key));
		__builtin_prefetch(memo_set(r, &f->key) + FRAME_MEMO_WAYS - 1);
		if (!semicolon)
			break;
		at = semicolon + 1;
	}
	if (pki_grow(&r->frames, &r->frames_cap, n, sizeof(*r->frames)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct frame_span *f = &r->spans[n - 1 - i];

		r->frames[i] = frame_location(r, s + f->at, f);
	}
	*depth = n;
	return pk_profile_failed(r->p) ? PK_ENOMEM : 0;
}

/* A bad line told, but past the first few (a later part's held until
 * the whole knows how many were told before). */
static void bad_line(struct folded_reader *r, const char *line, size_t len)
{
	pki_part_warn_few(r->part, r->ctx, &r->bad_lines, BAD_LINE,
			  pk_input_name(r->in), (unsigned long long)line_number(r),
			  (int)(len > 60 ? 60 : len), line);
}

/* Split off the last space-separated field. */
static int last_field(const char *s, size_t len, size_t *start)
{
	size_t i = len;

	while (i > 0 && s[i - 1] != ' ')
		i--;
	if (i == 0 || i == len)
		return -1;
	*start = i;
	return 0;
}

/*
 * The line's counts: one, or two (difffolded's) when columns is not 1,
 * after its stack, without trailing blanks; 0 counts: not a folded
 * stack, -1: a blank line or a comment.
 */
static int split_counts(const char *line, size_t len, int columns,
			struct line_counts *c)
{
	size_t start, stack_len = len;

	while (stack_len && (line[stack_len - 1] == ' ' || line[stack_len - 1] == '\t'))
		stack_len--;
	if (!stack_len || line[0] == '#')
		return c->n = -1;
	c->n = 0;
	while (c->n < 2 && !last_field(line, stack_len, &start) &&
	       !parse_count(line + start, stack_len - start, &c->whole[1 - c->n],
			    &c->frac[1 - c->n], &c->decimals[1 - c->n])) {
		c->n++;
		stack_len = start - 1;
		if (columns == 1)
			break;
	}
	c->stack_len = stack_len;
	if (!stack_len)
		c->n = 0;
	return c->n;
}

/*
 * Whether a later part leaves this line to the whole: read apart, its
 * counts would be at a scale of their own, but they are at the scale of
 * the whole's counts before, which can fail (past 64 bits).
 */
static int leave_to_whole(const struct folded_reader *r, const struct line_counts *c)
{
	int i;

	if (!r->later)
		return 0;
	for (i = 2 - c->n; i < 2; i++)
		if (c->decimals[i] || c->whole[i] > PART_MAX_COUNT)
			return 1;
	return 0;
}

/* The sample held, if any, added to the profile. */
static int add_held(struct folded_reader *r)
{
	struct held_sample *h = &r->held;
	size_t n = h->nvalues;

	if (!n)
		return 0;
	h->nvalues = 0;
	return pk_profile_add_sample(r->p, pk_profile_intern_stack(r->p, h->frames,
								   h->depth),
				     0, 0, h->values, n);
}

/* The line's sample held: its locations (r->frames) and values. */
static int hold(struct folded_reader *r, size_t depth, const int64_t *values)
{
	struct held_sample *h = &r->held;
	uint32_t *frames = h->frames;
	size_t cap = h->frames_cap;

	if (r->columns == 2) {
		h->values[0] = values[0];
		h->values[1] = values[1];
		h->nvalues = 2;
	} else {
		if (r->base_column >= MAX_COLUMNS)
			return pk_error_set(r->ctx, PK_EUSAGE, "too many sample types");
		/* the columns before ours are other inputs' */
		memset(h->values, 0, (size_t)r->base_column * sizeof(*h->values));
		h->values[r->base_column] = values[0];
		h->nvalues = (size_t)r->base_column + 1;
	}
	h->frames = r->frames;
	h->frames_cap = r->frames_cap;
	h->depth = depth;
	r->frames = frames;
	r->frames_cap = cap;
	return 0;
}

static int handle_line(struct folded_reader *r, const char *line, size_t len)
{
	struct line_counts counts;
	int64_t values[2];
	size_t depth = 0;
	int c, rc;

	if (split_counts(line, len, r->columns, &counts) < 0)
		return 0;
	if (!counts.n) {
		bad_line(r, line, len);
		return 0;
	}
	if (!r->columns && (rc = add_columns(r, counts.n)))
		return rc;
	if (counts.n != r->columns) {
		bad_line(r, line, len);
		return 0;
	}
	if (leave_to_whole(r, &counts)) {
		r->left = line;
		r->left_first_line = line_number(r) - 1;
		return 0;
	}
	/* decimals may rescale the samples so far, the held one too */
	if ((counts.decimals[0] || counts.decimals[1]) && (rc = add_held(r)))
		return rc;
	for (c = 0; c < counts.n; c++) {
		int i = 2 - counts.n + c;

		if ((rc = fixed_point(r, r->base_column + c, counts.whole[i],
				      counts.frac[i], counts.decimals[i], &values[c])))
			return rc;
	}
	if ((rc = parse_stack(r, line, counts.stack_len, &depth)))
		return rc;
	pki_profile_prefetch_stack(r->p, r->frames, depth);
	if ((rc = add_held(r)))
		return rc;
	return hold(r, depth, values);
}

/*
 * The next line's leaf name into the cache of the profile's string table,
 * while this line is read: in a profile of a million distinct stacks the
 * leaf is new on nearly every line, and its lookup a miss. The line's
 * text is in the cache then, for reading it.
 */
static void prefetch_next_leaf(const struct folded_reader *r, const char *s,
			       const char *end)
{
	size_t n = (size_t)(end - s) < LEAF_AHEAD ? (size_t)(end - s) : LEAF_AHEAD;
	const char *nl = memchr(s, '\n', n), *leaf;
	size_t len;

	if (!nl)
		return;
	for (len = (size_t)(nl - s); len && s[len - 1] != ' '; len--)
		;
	if (!len--)
		return;
	for (leaf = s + len; leaf > s && leaf[-1] != ';'; leaf--)
		;
	pki_profile_prefetch_string(r->p, leaf, (size_t)(s + len - leaf));
}

/* The lines of a text in memory, from s to end, as pk_input_line reads
 * them, until a later part leaves the rest to the whole. */
static int read_text(struct folded_reader *r, const char *s, const char *end)
{
	int rc = 0;

	while (!rc && s < end && !r->left) {
		const char *line = s;
		size_t len = pki_text_line(line, end, &s, NULL);

		prefetch_next_leaf(r, s, end);
		if (r->part)
			pki_part_step(r->part, line);
		r->lines++;
		if (pki_text_line_bytes(line, s) >= MAX_LINE)
			return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: longer "
					    "than %u MiB (binary data? try --from)",
					    pk_input_name(r->in),
					    (unsigned long long)line_number(r),
					    MAX_LINE >> 20);
		rc = handle_line(r, line, len);
	}
	if (!rc)
		rc = add_held(r);
	if (r->part)
		pki_part_finish(r->part, s);
	return rc;
}

static int read_stream(struct folded_reader *r)
{
	const char *line;
	size_t len;
	int rc = 0;

	r->first_line = pk_input_lineno(r->in);
	while (!rc && (line = pk_input_line(r->in, &len))) {
		r->lines++;
		rc = handle_line(r, line, len);
	}
	return rc ? rc : add_held(r);
}

/* ---- a text in memory, read in parts ---- */

/*
 * The sample types the first folded stack of the text starts, as its
 * reader would start them there: the later parts' readers, started
 * before, count in the same columns.
 */
static int start_columns(struct folded_reader *r, const char *s, const char *end)
{
	struct line_counts counts;

	while (s < end) {
		const char *line = s;
		size_t len = pki_text_line(line, end, &s, NULL);

		if (pki_text_line_bytes(line, s) >= MAX_LINE)
			return 0;	/* an error there, whatever follows */
		if (split_counts(line, len, 0, &counts) > 0)
			return add_columns(r, counts.n);
	}
	return 0;
}

static int reader_start(struct folded_reader *r, struct pk_context *ctx,
			struct pk_input *in, struct pk_profile *p)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->in = in;
	r->p = p;
	/* a set of entries in as few cache lines as may be */
	r->memo = aligned_alloc(64, FRAME_MEMO_SIZE * sizeof(*r->memo));
	if (!r->memo)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	memset(r->memo, 0, FRAME_MEMO_SIZE * sizeof(*r->memo));
	return 0;
}

/* What only reading needs. */
static void reader_done(void *reader)
{
	struct folded_reader *r = reader;

	free(r->frames);
	free(r->held.frames);
	free(r->spans);
	free(r->memo);
	r->frames = r->held.frames = NULL;
	r->spans = NULL;
	r->memo = NULL;
	r->frames_cap = r->held.frames_cap = r->spans_cap = 0;
}

/* Folded stacks start at every line. */
static size_t line_start(void *whole, const char *data, size_t size, size_t pos)
{
	const char *nl;

	(void)whole;
	if (!pos || data[pos - 1] == '\n')
		return pos;
	nl = memchr(data + pos, '\n', size - pos);
	return nl ? (size_t)(nl + 1 - data) : size;
}

static void *part_open(void *whole, struct pk_context *ctx, struct pk_profile *p,
		       const struct pki_part *part)
{
	const struct folded_reader *w = whole;
	struct folded_reader *r = malloc(sizeof(*r));

	if (!r || reader_start(r, ctx, w->in, p) ||
	    (w->columns == 1 && add_columns(r, 1))) {
		if (r)
			reader_done(r);
		free(r);
		return NULL;
	}
	r->columns = w->columns;
	r->later = 1;
	r->end = part->end;
	return r;
}

static int read_part(void *reader, struct pki_part *part)
{
	struct folded_reader *r = reader;
	int rc;

	r->part = part;
	r->first_line = UINT64_MAX;
	/* difffolded's columns would be one when appended: the whole reads them */
	if (r->later && r->columns == 2) {
		r->left = part->start;
		r->left_first_line = line_number(r);
	}
	rc = read_text(r, part->start, part->end);
	return rc ? rc : pk_context_error(r->ctx)->code;
}

/* A later part appended, its bad lines told: the rest of its text, if
 * it left some, read by the whole. */
static int absorb_part(void *whole, void *reader)
{
	struct folded_reader *r = whole;
	const struct folded_reader *pr = reader;
	int rc;

	if (!pr->left)
		return 0;
	r->part = NULL;
	r->first_line = pr->left_first_line;
	r->lines = 0;
	rc = read_text(r, pr->left, pr->end);
	pki_input_unmap_part(r->in, pr->left, (size_t)(pr->end - pr->left));
	return rc ? rc : pk_context_error(r->ctx)->code;
}

static uint64_t *bad_line_tally(void *reader)
{
	return &((struct folded_reader *)reader)->bad_lines;
}

static void part_close(void *reader)
{
	struct folded_reader *r = reader;

	reader_done(r);
	free(r);
}

static const struct pki_parts_reader folded_parts = {
	.cut = line_start,
	.open = part_open,
	.read = read_part,
	.done = reader_done,
	.absorb = absorb_part,
	.close = part_close,
	.append = pki_copy_append,
	.few = bad_line_tally,
};

static int folded_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	struct folded_reader r;
	const char *data;
	size_t size;
	int rc = reader_start(&r, ctx, in, p);

	data = rc ? NULL : (const char *)pki_input_map(in, &size);
	if (data) {
		rc = start_columns(&r, data, data + size);
		if (!rc)
			rc = pki_read_parts(&folded_parts, &r, ctx, in, p, opts,
					    data, size);
	} else if (!rc) {
		rc = read_stream(&r);
	}
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !pk_profile_sample_count(p) && r.bad_lines)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no folded stacks found "
				  "(expected 'frame;frame;... COUNT' lines)",
				  pk_input_name(in));
	reader_done(&r);
	return rc;
}

/* Lines ending in a number (or two) with ';' between frames. */
static int folded_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int good = 0, bad = 0, semicolons = 0;

	while (s < end && good + bad < 50) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s), start;
		int64_t w, f;
		int d;

		if (!nl && s != (const char *)buf)
			break;
		if (memchr(s, '\0', n))
			return 0;
		if (n && s[n - 1] == '\r')
			n--;
		if (n && !last_field(s, n, &start) && start > 1 &&
		    !parse_count(s + start, n - start, &w, &f, &d) && s[0] != ' ') {
			good++;
			semicolons += memchr(s, ';', start) != NULL;
		} else if (n) {
			bad++;
		}
		s = nl ? nl + 1 : end;
	}
	if (!good || bad)
		return 0;
	return semicolons * 2 >= good ? 60 : 20;
}

/* Its options are folding's (lib/transforms/fold.c): every writer that
 * folds stacks reads them as the folded format's. */
const struct pki_format pki_format_folded = {
	.name = "folded",
	.read_description = "folded stacks 'a;b;c COUNT' (stackcollapse, "
			    "inferno, difffolded's two columns)",
	.probe = folded_probe,
	.read = folded_read,
	.write_description = "folded stacks for flamegraph.pl and inferno "
			     "(as stackcollapse-perf.pl)",
	.extension = ".folded",
	.write = pki_folded_write,
	.profile_flags = PK_PROFILE_NAMES_ONLY,
	.options = pki_fold_options,
};
