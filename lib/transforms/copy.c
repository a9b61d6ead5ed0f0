/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "copy.h"

static int same_type(const struct pk_profile *a, const struct pk_value_type *x,
		     const struct pk_profile *b, const struct pk_value_type *y)
{
	/* formats without events (pprof) match by name and unit alone */
	return strcmp(pk_profile_string(a, x->type), pk_profile_string(b, y->type)) == 0 &&
	       strcmp(pk_profile_string(a, x->unit), pk_profile_string(b, y->unit)) == 0 &&
	       (!x->event || !y->event ||
		strcmp(pk_profile_string(a, x->event), pk_profile_string(b, y->event)) == 0);
}

/*
 * Each source column goes to the equal destination column, or a new one:
 * equal by type, unit and event (by_event 0), or by event and kind alone
 * as readers find their columns (find_columns).
 */
static int map_columns(struct pk_copy *c, int by_event)
{
	size_t n = pk_profile_sample_type_count(c->src), i, j;

	for (i = 0; i < n; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(c->src, i);
		size_t m = pk_profile_sample_type_count(c->dst);

		c->columns[i] = -1;
		if (by_event)
			c->columns[i] = pk_profile_find_column(c->dst,
				pki_copy_string(c, t->event), t->kind);
		for (j = 0; !by_event && j < m && c->columns[i] < 0; j++)
			if (same_type(c->dst, pk_profile_sample_type(c->dst, j), c->src, t))
				c->columns[i] = (int)j;
		if (c->columns[i] < 0)
			c->columns[i] = pk_profile_add_sample_type(c->dst,
				pk_profile_string(c->src, t->type),
				pk_profile_string(c->src, t->unit),
				pk_profile_string(c->src, t->event), t->kind);
		if (c->columns[i] < 0)
			return PK_ENOMEM;
	}
	return pki_copy_scales(c);
}

int pki_copy_scales(struct pk_copy *c)
{
	size_t n = pk_profile_sample_type_count(c->src), i;

	for (i = 0; i < n; i++) {
		int64_t s, d;
		int rc;

		c->multipliers[i] = c->factor;
		if (c->columns[i] < 0)
			continue;
		s = pk_profile_sample_type_scale(c->src, i);
		d = pk_profile_sample_type_scale(c->dst, (size_t)c->columns[i]);
		if (s > d &&
		    (rc = pk_profile_set_sample_type_scale(c->dst, (size_t)c->columns[i], s))) {
			c->bad_column = (int)i;
			return rc;
		}
		if (d > s && __builtin_mul_overflow(c->factor, d / s, &c->multipliers[i])) {
			c->bad_column = (int)i;
			return PK_EINPUT;
		}
	}
	return 0;
}

int pki_copy_init(struct pk_copy *c, struct pk_profile *dst,
		 const struct pk_profile *src, int64_t factor)
{
	return pki_copy_init_columns(c, dst, src, factor, 1);
}

int pki_copy_init_columns(struct pk_copy *c, struct pk_profile *dst,
			 const struct pk_profile *src, int64_t factor,
			 int by_name)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->dst = dst;
	c->src = src;
	c->factor = factor;
	c->strings = calloc(pk_profile_string_count(src) + 1, sizeof(*c->strings));
	c->mappings = calloc(pk_profile_mapping_count(src) + 1, sizeof(*c->mappings));
	c->functions = calloc(pk_profile_function_count(src) + 1, sizeof(*c->functions));
	c->locations = calloc(pk_profile_location_count(src) + 1, sizeof(*c->locations));
	c->stacks = calloc(pk_profile_stack_count(src) + 1, sizeof(*c->stacks));
	c->label_sets = calloc(pki_profile_label_set_count(src) + 1,
			       sizeof(*c->label_sets));
	c->columns = calloc(pk_profile_sample_type_count(src) + 1, sizeof(*c->columns));
	c->multipliers = calloc(pk_profile_sample_type_count(src) + 1,
				sizeof(*c->multipliers));
	c->bad_column = -1;
	c->values = calloc(pk_profile_sample_type_count(src) +
			   pk_profile_sample_type_count(dst) + 1, sizeof(*c->values));
	for (i = 0; c->columns && c->multipliers &&
		    i < pk_profile_sample_type_count(src); i++) {
		c->columns[i] = -1;
		c->multipliers[i] = factor;
	}
	if (!c->strings || !c->mappings || !c->functions || !c->locations ||
	    !c->stacks || !c->label_sets || !c->columns || !c->multipliers || !c->values) {
		pki_copy_release(c);
		return PK_ENOMEM;
	}
	return by_name ? map_columns(c, 0) : 0;
}

void pki_copy_release(struct pk_copy *c)
{
	free(c->strings);
	free(c->mappings);
	free(c->shifts);
	free(c->functions);
	free(c->locations);
	free(c->stacks);
	free(c->label_sets);
	free(c->columns);
	free(c->multipliers);
	free(c->values);
	free(c->stack);
	memset(c, 0, sizeof(*c));
}

pk_str pki_copy_string(struct pk_copy *c, pk_str s)
{
	if (!s)
		return 0;
	if (!c->strings[s])
		c->strings[s] = pk_profile_intern(c->dst, pk_profile_string(c->src, s),
						   pk_profile_string_len(c->src, s)) + 1;
	return c->strings[s] - 1;
}

uint32_t pki_copy_mapping(struct pk_copy *c, uint32_t id)
{
	struct pk_mapping m;

	if (!id)
		return 0;
	if (!c->mappings[id]) {
		m = *pk_profile_mapping(c->src, id);
		m.file = pki_copy_string(c, m.file);
		m.build_id = pki_copy_string(c, m.build_id);
		c->mappings[id] = pk_profile_intern_mapping(c->dst, &m);
	}
	return c->mappings[id];
}

/* Source function id as the destination's key: its strings copied. */
static struct pk_function function_key(struct pk_copy *c, uint32_t id)
{
	struct pk_function f = *pk_profile_function(c->src, id);

	f.name = pki_copy_string(c, f.name);
	f.system_name = pki_copy_string(c, f.system_name);
	f.filename = pki_copy_string(c, f.filename);
	return f;
}

uint32_t pki_copy_function(struct pk_copy *c, uint32_t id)
{
	struct pk_function f;

	if (!id)
		return 0;
	if (!c->functions[id]) {
		f = function_key(c, id);
		c->functions[id] = pk_profile_intern_function(c->dst, &f);
	}
	return c->functions[id];
}

/* A source location's lines with their functions copied, and its address
 * shifted with its mapping. */
static void location_key(struct pk_copy *c, const struct pk_location *loc,
			 struct pk_line *lines, uint64_t *address)
{
	const struct pk_line *src_lines = pk_profile_location_lines(c->src, loc);
	size_t i;

	for (i = 0; i < loc->nlines; i++) {
		lines[i].function = pki_copy_function(c, src_lines[i].function);
		lines[i].line = src_lines[i].line;
	}
	*address = loc->address + (uint64_t)(c->shifts ? c->shifts[loc->mapping] : 0);
}

uint32_t pki_copy_location(struct pk_copy *c, uint32_t id)
{
	const struct pk_location *loc;
	struct pk_line small[16], *lines = small;
	uint64_t address;

	if (!id || c->locations[id])
		return id ? c->locations[id] : 0;
	loc = pk_profile_location(c->src, id);
	if (loc->nlines > PK_ARRAY_SIZE(small)) {
		lines = malloc(loc->nlines * sizeof(*lines));
		if (!lines)
			return 0;
	}
	location_key(c, loc, lines, &address);
	c->locations[id] = pk_profile_intern_location(c->dst, pki_copy_mapping(c, loc->mapping),
						      address, lines, loc->nlines);
	if (lines != small)
		free(lines);
	return c->locations[id];
}

static uint32_t copy_label_set(struct pk_copy *c, uint32_t id)
{
	struct pk_label small[8], *l = small;
	const struct pk_label *src;
	size_t n, i, k = 0;
	uint32_t out;

	src = pk_profile_labels(c->src, id, &n);
	if (!n && !c->extra_label.key)
		return 0;
	if (n >= PK_ARRAY_SIZE(small) && !(l = malloc((n + 1) * sizeof(*l))))
		return 0;
	for (i = 0; i < n; i++) {
		l[k] = src[i];
		l[k].key = pki_copy_string(c, src[i].key);
		l[k].str = pki_copy_string(c, src[i].str);
		l[k].unit = pki_copy_string(c, src[i].unit);
		k += l[k].key != c->extra_label.key;	/* the extra one replaces it */
	}
	if (c->extra_label.key)
		l[k++] = c->extra_label;
	out = pk_profile_intern_labels(c->dst, l, k);
	if (l != small)
		free(l);
	return out;
}

uint32_t pki_copy_labels(struct pk_copy *c, uint32_t id)
{
	if (id > pki_profile_label_set_count(c->src))
		return copy_label_set(c, id);
	if (!c->label_sets[id])
		c->label_sets[id] = copy_label_set(c, id);
	return c->label_sets[id];
}

/* Source location ids (leaf first) as a destination stack: 0 without memory. */
static uint32_t copy_locations(struct pk_copy *c, const uint32_t *locs, size_t depth)
{
	size_t k;

	if (pki_grow(&c->stack, &c->stack_cap, depth + 1, sizeof(*c->stack)) < 0)
		return 0;
	for (k = 0; k < depth; k++)
		if (!(c->stack[k] = pki_copy_location(c, locs[k])))
			return 0;
	return pk_profile_intern_stack(c->dst, c->stack, depth);
}

uint32_t pki_copy_stack(struct pk_copy *c, uint32_t id)
{
	size_t depth;
	const uint32_t *locs;

	if (id > pk_profile_stack_count(c->src))
		return 0;
	if (!c->stacks[id]) {
		locs = pk_profile_stack(c->src, id, &depth);
		c->stacks[id] = copy_locations(c, locs, depth);
	}
	return c->stacks[id];
}

int pki_copy_sample(struct pk_copy *c, size_t i, const uint32_t *locs,
		   size_t depth)
{
	const struct pk_sample *s = pk_profile_sample(c->src, i);
	const int64_t *v = pk_profile_sample_values(c->src, i);
	size_t ncols = pk_profile_sample_type_count(c->src);
	size_t dcols = pk_profile_sample_type_count(c->dst), k;
	uint32_t stack;

	stack = locs ? copy_locations(c, locs, depth) : pki_copy_stack(c, s->stack);
	if (!stack)
		return PK_ENOMEM;
	memset(c->values, 0, dcols * sizeof(*c->values));
	for (k = 0; k < ncols; k++) {
		if (c->columns[k] < 0)
			continue;
		if (__builtin_mul_overflow(v[k], c->multipliers[k],
					   &c->values[c->columns[k]])) {
			c->bad_column = (int)k;
			return PK_EINPUT;
		}
	}
	if (pk_profile_failed(c->dst))
		return PK_ENOMEM;
	return pk_profile_add_sample(c->dst, stack, pki_copy_labels(c, s->labels),
				     s->time, c->values, dcols);
}

void pki_copy_metadata(struct pk_copy *c)
{
	struct pk_value_type pt = pk_profile_period_type(c->src);
	size_t i, n = pk_profile_meta_count(c->src);

	for (i = 0; i < n; i++) {
		const char *key, *value;

		pk_profile_meta_at(c->src, i, &key, &value);
		if (!pk_profile_meta(c->dst, key))
			pk_profile_set_meta(c->dst, key, value);
	}
	if (!pk_profile_period(c->dst) && pk_profile_period(c->src))
		pk_profile_set_period(c->dst, pk_profile_string(c->src, pt.type),
				      pk_profile_string(c->src, pt.unit),
				      pk_profile_period(c->src));
	if (!pk_profile_time_nanos(c->dst))
		pk_profile_set_time(c->dst, pk_profile_time_nanos(c->src),
				    pk_profile_duration_nanos(c->src));
}

/*
 * How many ids ahead append_tables asks for the destination's lookups:
 * a part's table appended to the whole's misses the cache on nearly
 * every lookup, the whole's tables being megabytes read at random.
 */
#define AHEAD 8

/*
 * The destination's lookup of source id (of a table whose ids the ones
 * it refers to are copied already) into the cache: its key made as its
 * copy will make it. Stacks and locations too deep for a small array
 * are left to miss.
 */
static void prefetch_string(struct pk_copy *c, size_t id)
{
	pki_profile_prefetch_string(c->dst, pk_profile_string(c->src, (pk_str)id),
				    pk_profile_string_len(c->src, (pk_str)id));
}

static void prefetch_function(struct pk_copy *c, size_t id)
{
	struct pk_function f = function_key(c, (uint32_t)id);

	pki_profile_prefetch_function(c->dst, &f);
}

static void prefetch_location(struct pk_copy *c, size_t id)
{
	const struct pk_location *loc = pk_profile_location(c->src, (uint32_t)id);
	struct pk_line lines[16];
	uint64_t address;

	if (loc->nlines > PK_ARRAY_SIZE(lines))
		return;
	location_key(c, loc, lines, &address);
	pki_profile_prefetch_location(c->dst, c->mappings[loc->mapping], address,
				      lines, loc->nlines);
}

static void prefetch_stack(struct pk_copy *c, size_t id)
{
	uint32_t locs[64];
	size_t depth, k;
	const uint32_t *src = pk_profile_stack(c->src, (uint32_t)id, &depth);

	if (depth > PK_ARRAY_SIZE(locs))
		return;
	for (k = 0; k < depth; k++)
		locs[k] = c->locations[src[k]];
	pki_profile_prefetch_stack(c->dst, locs, depth);
}

/* Copy ids [first, last] of a table in order, each prefetched AHEAD ids
 * before: 0 or PK_ENOMEM. */
static int append_table(struct pk_copy *c, size_t first, size_t last,
			void (*prefetch)(struct pk_copy *, size_t),
			int (*copy)(struct pk_copy *, size_t))
{
	size_t i;

	for (i = first; i <= last && i < first + AHEAD; i++)
		prefetch(c, i);
	for (i = first; i <= last; i++) {
		if (i + AHEAD <= last)
			prefetch(c, i + AHEAD);
		if (!copy(c, i))
			return PK_ENOMEM;
	}
	return 0;
}

static int copy_string(struct pk_copy *c, size_t id)
{
	return pki_copy_string(c, (pk_str)id) != 0;
}

static int copy_function(struct pk_copy *c, size_t id)
{
	return pki_copy_function(c, (uint32_t)id) != 0;
}

static int copy_location(struct pk_copy *c, size_t id)
{
	return pki_copy_location(c, (uint32_t)id) != 0;
}

static int copy_stack(struct pk_copy *c, size_t id)
{
	return pki_copy_stack(c, (uint32_t)id) != 0;
}

/*
 * Each table of src in src's id order, so that what is new to dst gets
 * its ids in the order src met it, as if dst had read src's input.
 */
static int append_tables(struct pk_copy *c)
{
	size_t i, n;
	int rc;

	if ((rc = append_table(c, 1, pk_profile_string_count(c->src) - 1,
			       prefetch_string, copy_string)))
		return rc;
	if ((rc = map_columns(c, 1)))
		return rc;
	n = pk_profile_mapping_count(c->src);
	for (i = 1; i <= n; i++)
		if (!pki_copy_mapping(c, (uint32_t)i))
			return PK_ENOMEM;
	if ((rc = append_table(c, 1, pk_profile_function_count(c->src),
			       prefetch_function, copy_function)) ||
	    (rc = append_table(c, 1, pk_profile_location_count(c->src),
			       prefetch_location, copy_location)) ||
	    (rc = append_table(c, 1, pk_profile_stack_count(c->src),
			       prefetch_stack, copy_stack)))
		return rc;
	n = pki_profile_label_set_count(c->src);
	for (i = 1; i <= n; i++)
		if (!pki_copy_labels(c, (uint32_t)i))
			return PK_ENOMEM;
	return 0;
}

/* Whether every source column goes unscaled to a column of dst: then no
 * value can overflow on the way. */
static int columns_unscaled(const struct pk_copy *c)
{
	size_t n = pk_profile_sample_type_count(c->src), k;

	for (k = 0; k < n; k++)
		if (c->columns[k] >= 0 && c->multipliers[k] != 1)
			return 0;
	return 1;
}

/* Whether source column k is destination column k, for every k of both. */
static int columns_same(const struct pk_copy *c)
{
	size_t n = pk_profile_sample_type_count(c->src), k;

	if (n != pk_profile_sample_type_count(c->dst))
		return 0;
	for (k = 0; k < n; k++)
		if (c->columns[k] != (int)k)
			return 0;
	return 1;
}

/* A source row of values as the destination's row (columns unmapped
 * are 0). */
static void map_row(const struct pk_copy *c, const int64_t *from, int64_t *to)
{
	size_t ncols = pk_profile_sample_type_count(c->src), k;

	memset(to, 0, pk_profile_sample_type_count(c->dst) * sizeof(*to));
	for (k = 0; k < ncols; k++)
		if (c->columns[k] >= 0)
			to[c->columns[k]] = from[k];
}

/*
 * The samples of src at the end of dst, which keeps each in order, as
 * pki_copy_sample would add them one by one, but in one pass: no sample
 * is looked up (none is summed), their records are translated through
 * the tables' ids (append_tables mapped them all) and their values
 * copied as one block where the columns are the same, or given once
 * where src has one row for all. A text read in parts for a timeline
 * (speedscope) spent a tenth of its load in pki_copy_sample.
 */
static int append_samples_in_order(struct pk_copy *c)
{
	size_t n = pk_profile_sample_count(c->src), i;
	size_t nstacks = pk_profile_stack_count(c->src);
	size_t nlabels = pki_profile_label_set_count(c->src);
	size_t ncols = pk_profile_sample_type_count(c->src);
	size_t dcols = pk_profile_sample_type_count(c->dst), stride;
	int64_t *values;
	const int64_t *src_values;
	const struct pk_sample *kept = pki_profile_samples(c->src, &src_values,
							   &stride);
	const int64_t *row = NULL;
	struct pk_sample *s;

	if (!stride) {		/* one row for all, or none */
		map_row(c, src_values, c->values);
		row = c->values;
	}
	if (!(s = pki_profile_add_samples(c->dst, n, row, &values)))
		return PK_ENOMEM;
	if (!row && columns_same(c))
		memcpy(values, src_values, n * ncols * sizeof(*values));
	else if (!row)
		for (i = 0; i < n; i++)
			map_row(c, &src_values[i * ncols], &values[i * dcols]);
	for (i = 0; i < n; i++) {
		const struct pk_sample *from = &kept[i];
		uint32_t stack = from->stack, labels = from->labels;

		/* the maps read here, the functions asked only for what is
		 * not mapped yet: a part's samples come here each */
		s[i].stack = stack <= nstacks && c->stacks[stack] ?
			     c->stacks[stack] : pki_copy_stack(c, stack);
		s[i].labels = labels <= nlabels && c->label_sets[labels] ?
			      c->label_sets[labels] : pki_copy_labels(c, labels);
		s[i].time = from->time;
		if (!s[i].stack) {	/* the empty stack, out of memory */
			memset(&s[i], 0, (n - i) * sizeof(*s));
			return PK_ENOMEM;
		}
	}
	return 0;
}

int pki_copy_append(struct pk_profile *dst, const struct pk_profile *src)
{
	struct pk_copy c;
	size_t i, n;
	int rc = pki_copy_init_columns(&c, dst, src, 1, 0);

	if (rc)
		return rc;
	rc = append_tables(&c);
	n = pk_profile_sample_count(src);
	if (!rc && n && pki_profile_keeps_order(dst) && !c.extra_label.key &&
	    columns_unscaled(&c))
		rc = append_samples_in_order(&c);
	else
		for (i = 0; i < n && !rc; i++)
			rc = pki_copy_sample(&c, i, NULL, 0);
	n = pk_profile_meta_count(src);
	for (i = 0; i < n && !rc; i++) {
		const char *key, *value;

		pk_profile_meta_at(src, i, &key, &value);
		pk_profile_set_meta(dst, key, value);
	}
	pki_profile_absorb_counts(dst, src);
	pki_copy_release(&c);
	return rc ? rc : pk_profile_failed(dst);
}
