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
#include "formats/registry.h"
#include "transforms/fold.h"

#define MAX_DECIMALS 6
#define FRAME_MEMO_SIZE 16384	/* a power of two: pairs of entries */
#define FRAME_MEMO_HEAD 16

/*
 * A frame name met before and its location. Its first bytes are kept
 * here, so that a short name is compared without a read elsewhere; the
 * rest of a longer one is in the profile.
 */
struct frame_memo {
	uint32_t len;
	uint32_t location;	/* 0: an empty entry */
	const char *name;
	char head[FRAME_MEMO_HEAD];
};

struct folded_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	int columns;		/* 1, or 2 for difffolded input */
	int base_column;	/* the first of ours in the profile */
	uint32_t *frames;
	size_t frames_cap;
	struct frame_memo *memo;	/* by a hash of the name */
	uint64_t bad_lines;
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
				    (unsigned long long)pk_input_lineno(r->in),
				    decimals);
	scale = pk_profile_sample_type_scale(r->p, (size_t)column);
	frac *= scale / want;
	if (whole > (INT64_MAX - frac) / scale)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: count too large",
				    pk_input_name(r->in),
				    (unsigned long long)pk_input_lineno(r->in));
	*value = whole * scale + frac;
	return 0;
}

/* head: the name's first bytes, zero-padded, as the entry keeps them */
static int memo_holds(const struct frame_memo *m, const char *head,
		      const char *s, size_t len)
{
	return m->location && m->len == len &&
	       memcmp(m->head, head, FRAME_MEMO_HEAD) == 0 &&
	       (len <= FRAME_MEMO_HEAD ||
		memcmp(m->name + FRAME_MEMO_HEAD, s + FRAME_MEMO_HEAD,
		       len - FRAME_MEMO_HEAD) == 0);
}

/*
 * A frame's location: its name interned, then its function, then the
 * location. The same few thousand names make up most stacks, so their
 * locations are remembered in a small table that stays in the cache,
 * where the profile's three tables of a million distinct stacks do not:
 * two entries by the hash of the name, the newer first. A name is
 * remembered when met again, so that the million leaves met once do not
 * push out the names that come back.
 */
static uint32_t frame_location(struct folded_reader *r, const char *s, size_t len)
{
	struct frame_memo *m = &r->memo[pki_hash_bytes(s, len, 0) &
					(FRAME_MEMO_SIZE - 2)];
	size_t nstrings = pk_profile_string_count(r->p);
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	char head[FRAME_MEMO_HEAD] = { 0 };
	uint32_t location;

	memcpy(head, s, len < FRAME_MEMO_HEAD ? len : FRAME_MEMO_HEAD);
	if (memo_holds(&m[0], head, s, len))
		return m[0].location;
	if (memo_holds(&m[1], head, s, len))
		return m[1].location;
	f.name = f.system_name = pk_profile_intern(r->p, s, len);
	line.function = pk_profile_intern_function(r->p, &f);
	location = pk_profile_intern_location(r->p, 0, 0, &line, 1);
	if (location && len <= UINT32_MAX &&
	    pk_profile_string_count(r->p) == nstrings) {
		m[1] = m[0];
		m[0].name = pk_profile_string(r->p, f.name);
		m[0].len = (uint32_t)len;
		memcpy(m[0].head, head, FRAME_MEMO_HEAD);
		m[0].location = location;
	}
	return location;
}

/* The stack "a;b;c" becomes locations leaf first. */
static int parse_stack(struct folded_reader *r, const char *s, size_t len,
		       size_t *depth)
{
	size_t n = 1, i, end = len;

	for (i = 0; i < len; i++)
		n += s[i] == ';';
	if (pki_grow(&r->frames, &r->frames_cap, n, sizeof(*r->frames)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	*depth = 0;
	for (i = len;; i--) {
		if (i > 0 && s[i - 1] != ';')
			continue;
		r->frames[(*depth)++] = frame_location(r, s + i, end - i);
		if (i == 0)
			break;
		end = i - 1;
	}
	return pk_profile_failed(r->p) ? PK_ENOMEM : 0;
}

static void bad_line(struct folded_reader *r, const char *line, size_t len)
{
	if (++r->bad_lines <= 5)
		pk_warn(r->ctx, "%s: line %llu: not a folded stack: '%.*s'",
			pk_input_name(r->in), (unsigned long long)pk_input_lineno(r->in),
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

static int handle_line(struct folded_reader *r, const char *line, size_t len)
{
	int64_t whole[2], frac[2], values[2];
	int decimals[2], ncounts = 0, c, rc;
	size_t start, depth = 0, stack_len = len;
	uint32_t stack;

	while (stack_len && (line[stack_len - 1] == ' ' || line[stack_len - 1] == '\t'))
		stack_len--;
	if (!stack_len || line[0] == '#')
		return 0;
	/* one count, or two for difffolded output */
	while (ncounts < 2 && !last_field(line, stack_len, &start) &&
	       !parse_count(line + start, stack_len - start, &whole[1 - ncounts],
			    &frac[1 - ncounts], &decimals[1 - ncounts])) {
		ncounts++;
		stack_len = start - 1;
		if (r->columns == 1)
			break;
	}
	if (!ncounts || !stack_len) {
		bad_line(r, line, len);
		return 0;
	}
	if (!r->columns && (rc = add_columns(r, ncounts)))
		return rc;
	if (ncounts != r->columns) {
		bad_line(r, line, len);
		return 0;
	}
	for (c = 0; c < ncounts; c++) {
		int i = 2 - ncounts + c;

		if ((rc = fixed_point(r, r->base_column + c, whole[i], frac[i],
				      decimals[i], &values[c])))
			return rc;
	}
	if ((rc = parse_stack(r, line, stack_len, &depth)))
		return rc;
	stack = pk_profile_intern_stack(r->p, r->frames, depth);
	if (r->columns == 1) {
		int64_t v[64] = { 0 };

		if (r->base_column >= 64)
			return pk_error_set(r->ctx, PK_EUSAGE, "too many sample types");
		v[r->base_column] = values[0];
		return pk_profile_add_sample(r->p, stack, 0, 0, v, (size_t)r->base_column + 1);
	}
	return pk_profile_add_sample(r->p, stack, 0, 0, values, 2);
}

static int folded_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	struct folded_reader r;
	const char *line;
	size_t len;
	int rc = 0;

	(void)opts;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	r.memo = calloc(FRAME_MEMO_SIZE, sizeof(*r.memo));
	if (!r.memo)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	while (!rc && (line = pk_input_line(in, &len)))
		rc = handle_line(&r, line, len);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !pk_profile_sample_count(p) && r.bad_lines)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no folded stacks found "
				  "(expected 'frame;frame;... COUNT' lines)",
				  pk_input_name(in));
	free(r.frames);
	free(r.memo);
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
