/* SPDX-License-Identifier: MIT */
/*
 * Flat and cumulative weight per function, as pprof -top computes them:
 * flat where the function is the innermost frame, cum once per sample
 * wherever it appears, inline frames included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct top_state {
	const struct pk_profile *p;
	struct pk_profile *names;	/* function names interned: the row ids */
	struct pk_top_row *rows;
	size_t rows_cap;
	uint64_t *seen;			/* per row: the last sample counted */
	uint32_t *loc_names;		/* per location line: row id, cached */
};

/* The row id of a line, by function name (or the address when unknown). */
static pk_str row_of(struct top_state *s, const struct pk_location *loc,
		     const struct pk_line *line)
{
	const struct pk_function *fn = line ? pk_profile_function(s->p, line->function) : NULL;
	char addr[32];

	if (fn && fn->name)
		return pk_profile_intern(s->names, pk_profile_string(s->p, fn->name),
					 pk_profile_string_len(s->p, fn->name));
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)loc->address);
	return pk_profile_intern_cstr(s->names, addr);
}

static int add_weight(struct top_state *s, pk_str row, int64_t v, int leaf,
		      uint64_t sample)
{
	size_t n = pk_profile_string_count(s->names);
	size_t old = s->rows_cap;

	if (pki_grow(&s->rows, &s->rows_cap, n, sizeof(*s->rows)) < 0)
		return PK_ENOMEM;
	if (s->rows_cap > old) {
		memset(s->rows + old, 0, (s->rows_cap - old) * sizeof(*s->rows));
		s->seen = realloc(s->seen, s->rows_cap * sizeof(*s->seen));
		if (!s->seen)
			return PK_ENOMEM;
		memset(s->seen + old, 0, (s->rows_cap - old) * sizeof(*s->seen));
	}
	if (leaf)
		s->rows[row].flat += v;
	if (s->seen[row] != sample + 1) {	/* cum once per sample */
		s->seen[row] = sample + 1;
		s->rows[row].cum += v;
	}
	return 0;
}

static int count_sample(struct top_state *s, size_t i, int column)
{
	const struct pk_sample *smp = pk_profile_sample(s->p, i);
	int64_t v = pk_profile_sample_values(s->p, i)[column];
	const uint32_t *stack;
	size_t depth, k, j;
	int rc = 0;

	if (!v)
		return 0;
	stack = pk_profile_stack(s->p, smp->stack, &depth);
	for (k = 0; k < depth && !rc; k++) {
		const struct pk_location *loc = pk_profile_location(s->p, stack[k]);
		const struct pk_line *lines = pk_profile_location_lines(s->p, loc);

		if (!loc->nlines) {
			rc = add_weight(s, row_of(s, loc, NULL), v, k == 0, i);
			continue;
		}
		for (j = 0; j < loc->nlines && !rc; j++)
			rc = add_weight(s, row_of(s, loc, &lines[j]), v, k == 0 && j == 0, i);
	}
	return rc;
}

static int by_flat(const void *a, const void *b)
{
	const struct pk_top_row *x = a, *y = b;
	int64_t fx = llabs(x->flat), fy = llabs(y->flat);
	int c;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return llabs(x->cum) > llabs(y->cum) ? -1 : llabs(x->cum) < llabs(y->cum);
}

static int by_cum(const void *a, const void *b)
{
	const struct pk_top_row *x = a, *y = b;
	int64_t cx = llabs(x->cum), cy = llabs(y->cum);
	int c;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return llabs(x->flat) > llabs(y->flat) ? -1 : llabs(x->flat) < llabs(y->flat);
}

int pk_profile_top(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, int by_cumulative,
		   struct pk_top *top)
{
	struct top_state s;
	size_t n = pk_profile_sample_count(p), i, m = 0;
	int column = pk_value_column(ctx, p, opts), rc = 0;

	memset(top, 0, sizeof(*top));
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	if (column < 0)
		return 0;
	memset(&s, 0, sizeof(s));
	s.p = p;
	s.names = pk_profile_new(0);
	if (!s.names)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	for (i = 0; i < n && !rc; i++) {
		rc = count_sample(&s, i, column);
		top->total += pk_profile_sample_values(p, i)[column];
	}
	for (i = 1; !rc && i < pk_profile_string_count(s.names); i++) {
		s.rows[m] = s.rows[i];
		s.rows[m++].name = pk_profile_string(s.names, (pk_str)i);
	}
	free(s.seen);
	if (rc) {
		free(s.rows);
		pk_profile_free(s.names);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	if (m > 1)
		qsort(s.rows, m, sizeof(*s.rows), by_cumulative ? by_cum : by_flat);
	top->rows = s.rows;
	top->nrows = m;
	top->names = s.names;
	top->column = column;
	return 0;
}

void pk_top_release(struct pk_top *top)
{
	free(top->rows);
	pk_profile_free(top->names);
	memset(top, 0, sizeof(*top));
}
