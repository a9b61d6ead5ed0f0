/* SPDX-License-Identifier: MIT */
/*
 * Reader for Xcode Instruments' call trees copied as text (the Time
 * Profiler's call tree, Edit > Deep Copy): a header line, then a row per
 * node, its total time and share, its own (self) time, and the symbol
 * indented one blank a level:
 *
 *     Weight<TAB>Self Weight<TAB><TAB>Symbol Name
 *     9.00 ms  100.0%<TAB>0 s<TAB> <TAB>demo (4242)
 *     9.00 ms  100.0%<TAB>0 s<TAB> <TAB> Main Thread  0x1b2c3
 *     5.00 ms   55.5%<TAB>5.00 ms<TAB> <TAB>  main
 *
 * as stackcollapse-instruments.pl reads it: the header is skipped, each
 * row's own time is a sample of its path, in milliseconds ("min" and "s"
 * converted), and the process and thread rows are frames like the rest.
 * The perl script rounds each row's time to whole milliseconds; profkit
 * keeps its decimals.
 */
#include <string.h>

#include "call-tree.h"

struct row {
	const char *self;	/* the own time's number */
	size_t self_len;
	int64_t factor;		/* milliseconds per unit */
	size_t depth;
	const char *symbol;
	size_t symbol_len;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "min", "s" or "ms" ending s[0..*end), after a blank: its milliseconds
 * per unit, *end moved before the blank; 0 for none. */
static int64_t unit_before(const char *s, size_t *end)
{
#define UNIT(u) u, sizeof(u) - 1
	static const struct {
		const char *unit;
		size_t len;
		int64_t factor;
	} units[] = {
		{ UNIT(" min"), 60000 }, { UNIT(" ms"), 1 }, { UNIT(" s"), 1000 },
	};
#undef UNIT
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(units); i++) {
		size_t n = units[i].len;

		if (*end >= n && memcmp(s + *end - n, units[i].unit, n) == 0) {
			*end -= n;
			return units[i].factor;
		}
	}
	return 0;
}

/* Digits, or digits.digits when point is 2 (1: optional), ending at
 * *end: their start, *end moved there; -1 for none. */
static int number_before(const char *s, size_t *end, int point)
{
	size_t i = *end, frac = 0;

	while (i > 0 && is_digit(s[i - 1]))
		i--;
	if (i > 0 && s[i - 1] == '.' && i < *end && point) {
		frac = *end - i;
		i--;
		while (i > 0 && is_digit(s[i - 1]))
			i--;
	}
	if (i == *end || !is_digit(s[i]) || (point == 2 && !frac))
		return -1;
	*end = i;
	return 0;
}

static size_t blanks_before(const char *s, size_t end)
{
	size_t i = end;

	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	return end - i;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/* The first "\t \t" of a row: memchr's tabs (two or three a row) cost
 * less than memmem's setup for a three-byte needle */
static const char *symbol_separator(const char *line, size_t len)
{
	const char *tab = line, *end = line + len;

	while ((tab = memchr(tab, '\t', (size_t)(end - tab)))) {
		if (end - tab >= 3 && tab[1] == ' ' && tab[2] == '\t')
			return tab;
		tab++;
	}
	return NULL;
}

/* A row: "W UNIT  P%<TAB>S UNIT<TAB> <TAB>INDENT SYMBOL", as the perl
 * script's expression reads it (from the right of its first "\t \t"). */
static int parse_row(const char *line, size_t len, struct row *r)
{
	const char *sep = symbol_separator(line, len);
	size_t end, n, i;

	if (!sep)
		return -1;
	end = (size_t)(sep - line);
	if (!(r->factor = unit_before(line, &end)))
		return -1;
	n = end;
	if (number_before(line, &end, 1))
		return -1;
	r->self = line + end;
	r->self_len = n - end;
	if (!(n = blanks_before(line, end)))
		return -1;
	end -= n;
	if (!end || line[end - 1] != '%')
		return -1;
	end--;
	if (number_before(line, &end, 2) || !(n = blanks_before(line, end)))
		return -1;
	end -= n;
	if (!unit_before(line, &end) || number_before(line, &end, 2))
		return -1;
	for (i = (size_t)(sep - line) + 3; i < len && is_space(line[i]); i++)
		;
	r->depth = i - (size_t)(sep - line) - 3;
	r->symbol = line + i;
	r->symbol_len = len - i;
	return r->symbol_len ? 0 : -1;
}

/* A row's line into row: its depth, frame and own time. */
static int read_row(struct pki_tree *t, const char *line, size_t len,
		    struct pki_tree_row *row)
{
	struct row r;

	if (parse_row(line, len, &r) ||
	    pki_tree_decimal(r.self, r.self_len, &row->mantissa, &row->decimals))
		return pki_tree_error(t, "not a call tree row ('TIME UNIT "
				      "PERCENT%%<TAB>SELF UNIT<TAB> <TAB>"
				      "SYMBOL'): '%.*s'",
				      (int)(len > 60 ? 60 : len), line);
	row->factor = r.factor;
	row->depth = (uint32_t)r.depth;
	/* a line is shorter than 4 GiB: so is its indentation */
	if (!(row->location = pki_tree_frame(t, r.symbol, r.symbol_len, NULL, 0)))
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	return 0;
}

/* A root: a row whose symbol has no blank before it. */
static int is_root(const char *line, size_t len)
{
	const char *sep = symbol_separator(line, len);

	return sep && line + len - sep > 3 && !is_space(sep[3]);
}

static const struct pki_tree_rows instruments_rows = {
	.size = sizeof(struct pki_tree),
	.read = pki_tree_read_self_rows,
	.read_row = read_row,
	.is_root = is_root,
};

static int instruments_read(struct pk_context *ctx, struct pk_input *in,
			    struct pk_profile *p, const struct pk_options *opts)
{
	struct pki_tree t;
	size_t len;
	int rc = 0;

	pki_tree_init(&t, ctx, in, p);
	t.column = pk_profile_add_sample_type(p, "time", "milliseconds", NULL,
					      PK_VALUE_WEIGHT);
	if (t.column < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && pki_tree_line(&t, &len))	/* the header */
		rc = pki_tree_read_rows(&t, &instruments_rows, opts);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !t.rows)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no call tree rows",
				  pk_input_name(in));
	pki_tree_free(&t);
	return rc;
}

/* A header naming the symbol column, then rows (the complete lines in
 * buf, at least one). */
static int instruments_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	const char *nl = memchr(s, '\n', len);
	int rows = 0;

	if (!nl || !memmem(s, (size_t)(nl - s), "Symbol Name", 11))
		return 0;
	for (s = nl + 1; s < end && (nl = memchr(s, '\n', (size_t)(end - s))); s = nl + 1) {
		struct row row;
		size_t n = (size_t)(nl - s);

		if (n && s[n - 1] == '\r')
			n--;
		if (parse_row(s, n, &row))
			return 0;
		rows++;
	}
	return rows ? 90 : 0;
}

const struct pki_format pki_format_instruments = {
	.name = "instruments",
	.read_description = "Xcode Instruments call trees, Deep Copy text "
			    "(as stackcollapse-instruments.pl reads them)",
	.probe = instruments_probe,
	.read = instruments_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
