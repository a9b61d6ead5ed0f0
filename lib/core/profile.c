/* SPDX-License-Identifier: MIT */
/*
 * The profile model. Every table is an array indexed by id - 1 with an
 * idtab beside it for interning; strings live in chunks that never move,
 * so a pointer from pk_profile_string stays valid while the profile lives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/idtab.h"
#include "util/radix.h"
#include "util/strbuf.h"
#include "internal.h"

#define STRING_CHUNK (256 * 1024)

struct string_ref {
	const char *ptr;
	uint32_t len;
};

struct span {
	size_t off;
	uint32_t len;
};

struct meta {
	pk_str key, value;
};

/*
 * Ids by the id they are keyed by, for keys of one common shape: a
 * function that is a name alone, by the name's string id; a location
 * that is one line of such a function, by the function's id; a sample
 * without labels, by its stack's id. New keys come in id order, so this
 * array is read and written where it was last, where a hash table of a
 * million distinct stacks misses the cache on every key (of the folded
 * reader's five misses a new leaf, three were these).
 */
struct dense_ids {
	uint32_t *id;		/* by key; 0: none yet */
	size_t cap;
};

struct pk_profile {
	unsigned flags;
	int wall_clock;		/* the reader's times are dates */
	int failed;
	size_t bytes, limit;
	size_t max_stack;	/* frames a stack keeps, leaf first; 0: all */
	size_t cut_stacks;	/* stacks cut to max_stack since it was set */

	/* strings: chunks of text plus an index */
	char **chunks;
	size_t nchunks, chunks_cap, chunk_used, chunk_size;
	struct string_ref *strings;
	size_t nstrings, strings_cap;
	struct pk_idtab string_tab;

	struct pk_value_type *types;
	size_t ntypes, types_cap;
	int64_t *scales;	/* per column: values are v / scale units */
	size_t scales_cap;
	pk_str *events;
	size_t nevents, events_cap;

	struct pk_value_type period_type;
	int64_t period, time_nanos, duration_nanos;
	uint64_t first_time, last_time;
	struct meta *meta;
	size_t nmeta, meta_cap;

	struct pk_mapping *mappings;
	size_t nmappings, mappings_cap;
	struct pk_idtab mapping_tab;

	struct pk_function *functions;
	size_t nfunctions, functions_cap;
	struct pk_idtab function_tab;
	struct dense_ids function_by_name;

	struct pk_location *locations;
	size_t nlocations, locations_cap;
	uint32_t *first_lines;	/* per location: its lines' index in lines */
	size_t first_lines_cap;
	struct pk_line *lines;
	size_t nlines, lines_cap;
	struct pk_idtab location_tab;
	struct dense_ids location_by_function;
	int location_tab_stale;	/* lines were set: rebuild before use */

	uint32_t *stack_data;
	size_t nstack_data, stack_data_cap;
	struct span *stacks;
	size_t nstacks, stacks_cap;
	struct pk_idtab stack_tab;

	struct pk_label *label_data;
	size_t nlabel_data, label_data_cap;
	struct span *label_sets;
	size_t nlabel_sets, label_sets_cap;
	struct pk_idtab label_tab;

	struct pk_sample *samples;
	size_t nsamples, samples_cap;
	/* a row of ntypes a sample, or one row for all (one_row) while
	 * every sample kept in order has the same values: a timeline of a
	 * sampling period (perf script's [1, period]) stores no row a
	 * sample, which halves the memory its samples touch */
	int64_t *values;
	size_t values_cap;
	int one_row;
	struct pk_idtab sample_tab;
	struct dense_ids sample_by_stack;
	/* the last sample with labels met of each stack, before the table:
	 * most stacks are one thread's (eu-stack's samples of a process
	 * printed again, perf script's), and a hit is two reads, where the
	 * table's is a hash, a probe and a compare */
	struct dense_ids labeled_by_stack;
};

/* Grow one of the profile's arrays, counting its bytes against the limit. */
static int prof_grow(struct pk_profile *p, void *array, size_t *cap,
		     size_t need, size_t elem)
{
	size_t old = *cap;

	if (need <= old)
		return 0;
	if (p->failed)
		return -1;
	if (pki_grow(array, cap, need, elem) < 0) {
		p->failed = PK_ENOMEM;
		return -1;
	}
	p->bytes += (*cap - old) * elem;
	if (p->limit && p->bytes > p->limit) {
		p->failed = PK_ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * Callers may pass a pointer into one of the profile's own arrays (the
 * lines of another location, say); growing the array would free it
 * under them, so such a pointer is turned into an index across growth.
 */
#define ALIASES(ptr, base, n) \
	((ptr) && (base) && (ptr) >= (base) && (ptr) < (base) + (n))

static int prof_tab_insert(struct pk_profile *p, struct pk_idtab *t,
			   size_t slot, uint64_t hash, uint32_t id)
{
	size_t before = pki_idtab_bytes(t);

	if (pki_idtab_insert(t, slot, hash, id) < 0) {
		p->failed = PK_ENOMEM;
		return -1;
	}
	p->bytes += pki_idtab_bytes(t) - before;
	if (p->limit && p->bytes > p->limit) {
		p->failed = PK_ENOMEM;
		return -1;
	}
	return 0;
}

static uint32_t dense_find(const struct dense_ids *d, uint32_t key)
{
	return key < d->cap ? d->id[key] : 0;
}

static int dense_insert(struct pk_profile *p, struct dense_ids *d,
			uint32_t key, uint32_t id)
{
	size_t old = d->cap;

	if (prof_grow(p, &d->id, &d->cap, (size_t)key + 1, sizeof(*d->id)))
		return -1;
	memset(d->id + old, 0, (d->cap - old) * sizeof(*d->id));
	d->id[key] = id;
	return 0;
}

void pki_profile_set_wall_clock(struct pk_profile *p)
{
	if (!p->nsamples)
		p->wall_clock = 1;
}

int pki_profile_wall_clock(const struct pk_profile *p)
{
	return p->wall_clock;
}

/* pki_profile_keeps_order, inline where each sample asks */
static inline int keeps_order(const struct pk_profile *p)
{
	return (p->flags & PK_PROFILE_KEEP_ORDER) ||
	       ((p->flags & PK_PROFILE_KEEP_WALL_ORDER) && p->wall_clock);
}

int pki_profile_keeps_order(const struct pk_profile *p)
{
	return keeps_order(p);
}

struct pk_profile *pk_profile_new(unsigned flags)
{
	struct pk_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->flags = flags;
	/* string id 0 is "" */
	if (prof_grow(p, &p->strings, &p->strings_cap, 1, sizeof(*p->strings))) {
		free(p);
		return NULL;
	}
	p->strings[0].ptr = "";
	p->strings[0].len = 0;
	p->nstrings = 1;
	return p;
}

void pk_profile_free(struct pk_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->strings);
	pki_idtab_release(&p->string_tab);
	free(p->types);
	free(p->scales);
	free(p->events);
	free(p->meta);
	free(p->mappings);
	pki_idtab_release(&p->mapping_tab);
	free(p->functions);
	pki_idtab_release(&p->function_tab);
	free(p->function_by_name.id);
	free(p->locations);
	free(p->first_lines);
	free(p->lines);
	pki_idtab_release(&p->location_tab);
	free(p->location_by_function.id);
	free(p->stack_data);
	free(p->stacks);
	pki_idtab_release(&p->stack_tab);
	free(p->label_data);
	free(p->label_sets);
	pki_idtab_release(&p->label_tab);
	free(p->samples);
	free(p->values);
	pki_idtab_release(&p->sample_tab);
	free(p->sample_by_stack.id);
	free(p->labeled_by_stack.id);
	free(p);
}

unsigned pk_profile_flags(const struct pk_profile *p)
{
	return p->flags;
}

int pk_profile_failed(const struct pk_profile *p)
{
	return p->failed;
}

size_t pk_profile_memory(const struct pk_profile *p)
{
	return p->bytes;
}

void pk_profile_set_memory_limit(struct pk_profile *p, uint64_t bytes)
{
	p->limit = bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

void pki_profile_set_max_stack(struct pk_profile *p, size_t frames)
{
	p->max_stack = frames;
	p->cut_stacks = 0;
}

size_t pki_profile_max_stack(const struct pk_profile *p)
{
	return p->max_stack ? p->max_stack : SIZE_MAX;
}

size_t pki_profile_cut_stacks(const struct pk_profile *p)
{
	return p->cut_stacks;
}

/* ---- strings ---- */

struct string_key {
	const char *s;
	size_t len;
};

static int string_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_profile *p = owner;
	const struct string_key *k = key;
	const struct string_ref *r = &p->strings[id];

	return r->len == k->len && memcmp(r->ptr, k->s, k->len) == 0;
}

static char *string_store(struct pk_profile *p, const char *s, size_t len)
{
	char *dst;

	if (!p->nchunks || p->chunk_used + len + 1 > p->chunk_size) {
		size_t size = len + 1 > STRING_CHUNK ? len + 1 : STRING_CHUNK;
		char *chunk;

		if (prof_grow(p, &p->chunks, &p->chunks_cap, p->nchunks + 1,
			      sizeof(*p->chunks)))
			return NULL;
		chunk = malloc(size);
		if (!chunk) {
			p->failed = PK_ENOMEM;
			return NULL;
		}
		p->bytes += size;
		p->chunks[p->nchunks++] = chunk;
		p->chunk_used = 0;
		p->chunk_size = size;
	}
	dst = p->chunks[p->nchunks - 1] + p->chunk_used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	p->chunk_used += len + 1;
	return dst;
}

pk_str pk_profile_intern(struct pk_profile *p, const char *s, size_t len)
{
	struct string_key key = { s, len };
	uint64_t hash;
	size_t slot;
	uint32_t id;
	char *copy;

	if (len == 0)
		return 0;
	if (len > UINT32_MAX) {
		p->failed = PK_ENOMEM;
		return 0;
	}
	hash = pki_hash_bytes(s, len, 0);
	/* The idtab treats id 0 as empty, so strings are stored as id + 0
	 * where the "" at index 0 is never looked up. */
	id = pki_idtab_find(&p->string_tab, hash, string_match, p, &key, &slot);
	if (id)
		return id;
	if (prof_grow(p, &p->strings, &p->strings_cap, p->nstrings + 1,
		      sizeof(*p->strings)))
		return 0;
	copy = string_store(p, s, len);
	if (!copy)
		return 0;
	id = (uint32_t)p->nstrings;
	if (prof_tab_insert(p, &p->string_tab, slot, hash, id))
		return 0;
	p->strings[id].ptr = copy;
	p->strings[id].len = (uint32_t)len;
	p->nstrings++;
	return id;
}

void pki_profile_prefetch_string(const struct pk_profile *p, const char *s,
				 size_t len)
{
	pki_idtab_prefetch(&p->string_tab, pki_hash_bytes(s, len, 0));
}

pk_str pk_profile_intern_cstr(struct pk_profile *p, const char *s)
{
	return s ? pk_profile_intern(p, s, strlen(s)) : 0;
}

pk_str pk_profile_lookup_len(const struct pk_profile *p, const char *s,
			     size_t len)
{
	struct string_key key = { s, len };
	size_t slot;

	if (!len)
		return 0;
	return pki_idtab_find(&p->string_tab, pki_hash_bytes(s, len, 0),
			     string_match, p, &key, &slot);
}

pk_str pk_profile_lookup(const struct pk_profile *p, const char *s)
{
	return pk_profile_lookup_len(p, s, strlen(s));
}

const char *pk_profile_string(const struct pk_profile *p, pk_str id)
{
	return id < p->nstrings ? p->strings[id].ptr : "";
}

size_t pk_profile_string_len(const struct pk_profile *p, pk_str id)
{
	return id < p->nstrings ? p->strings[id].len : 0;
}

size_t pk_profile_string_count(const struct pk_profile *p)
{
	return p->nstrings;
}

/* ---- sample types and events ---- */

static int add_event(struct pk_profile *p, pk_str event)
{
	size_t i;

	if (!event)
		return 0;
	for (i = 0; i < p->nevents; i++)
		if (p->events[i] == event)
			return 0;
	if (prof_grow(p, &p->events, &p->events_cap, p->nevents + 1,
		      sizeof(*p->events)))
		return -1;
	p->events[p->nevents++] = event;
	return 0;
}

/* The rows values holds: one a sample, or the one of all. */
static size_t value_rows(const struct pk_profile *p)
{
	return p->one_row ? 1 : p->nsamples;
}

/* Widen every sample's values by one column at the end. */
static int widen_values(struct pk_profile *p)
{
	size_t old = p->ntypes, n = value_rows(p), i;

	if (!n)
		return 0;
	if (prof_grow(p, &p->values, &p->values_cap, n * (old + 1),
		      sizeof(*p->values)))
		return -1;
	for (i = n; i-- > 0;) {
		memmove(&p->values[i * (old + 1)], &p->values[i * old],
			old * sizeof(*p->values));
		p->values[i * (old + 1) + old] = 0;
	}
	return 0;
}

int pk_profile_add_sample_type(struct pk_profile *p, const char *type,
			       const char *unit, const char *event,
			       enum pk_value_kind kind)
{
	struct pk_value_type *t;

	if (prof_grow(p, &p->types, &p->types_cap, p->ntypes + 1,
		      sizeof(*p->types)) ||
	    prof_grow(p, &p->scales, &p->scales_cap, p->ntypes + 1,
		      sizeof(*p->scales)) ||
	    widen_values(p))
		return -1;
	p->scales[p->ntypes] = 1;
	t = &p->types[p->ntypes];
	t->type = pk_profile_intern_cstr(p, type);
	t->unit = pk_profile_intern_cstr(p, unit);
	t->event = pk_profile_intern_cstr(p, event);
	t->kind = kind;
	if (add_event(p, t->event) || p->failed)
		return -1;
	return (int)p->ntypes++;
}

int pki_profile_column(struct pk_profile *p, const char *type, const char *unit,
		       const char *event, enum pk_value_kind kind)
{
	size_t i;

	for (i = 0; i < p->ntypes; i++)
		if (!strcmp(pk_profile_string(p, p->types[i].type), type) &&
		    !strcmp(pk_profile_string(p, p->types[i].unit), unit))
			return (int)i;
	return pk_profile_add_sample_type(p, type, unit, event, kind);
}

size_t pk_profile_sample_type_count(const struct pk_profile *p)
{
	return p->ntypes;
}

const struct pk_value_type *pk_profile_sample_type(const struct pk_profile *p,
						   size_t index)
{
	return index < p->ntypes ? &p->types[index] : NULL;
}

int pk_profile_rename_sample_type(struct pk_profile *p, size_t index,
				  const char *type)
{
	if (index >= p->ntypes)
		return PK_EUSAGE;
	p->types[index].type = pk_profile_intern_cstr(p, type);
	return p->failed ? PK_ENOMEM : 0;
}

/* ---- exact values: a column's scale ---- */

/* The number of decimals of a scale, or -1 when it is no power of ten. */
static int scale_digits(int64_t scale)
{
	int digits = 0;

	if (scale < 1)
		return -1;
	for (; scale > 1; scale /= 10, digits++)
		if (scale % 10)
			return -1;
	return digits;
}

int64_t pk_profile_sample_type_scale(const struct pk_profile *p,
				     size_t column)
{
	return column < p->ntypes ? p->scales[column] : 1;
}

int pk_profile_set_sample_type_scale(struct pk_profile *p, size_t column,
				     int64_t scale)
{
	int64_t old, factor, v;
	size_t i, n = p->ntypes;

	if (column >= n || scale_digits(scale) < 0 ||
	    scale < p->scales[column])
		return PK_EUSAGE;
	old = p->scales[column];
	if (scale == old)
		return 0;
	factor = scale / old;
	/* all or nothing: check every value before changing one */
	for (i = 0; i < value_rows(p); i++)
		if (__builtin_mul_overflow(p->values[i * n + column], factor, &v))
			return PK_EINPUT;
	for (i = 0; i < value_rows(p); i++)
		p->values[i * n + column] *= factor;
	p->scales[column] = scale;
	return 0;
}

int pk_profile_align_scales(struct pk_profile *a, size_t column_a,
			    struct pk_profile *b, size_t column_b)
{
	int64_t sa = pk_profile_sample_type_scale(a, column_a);
	int64_t sb = pk_profile_sample_type_scale(b, column_b);
	int rc;

	if (column_a >= a->ntypes || column_b >= b->ntypes)
		return PK_EUSAGE;
	rc = pk_profile_set_sample_type_scale(a, column_a, sa > sb ? sa : sb);
	return rc ? rc : pk_profile_set_sample_type_scale(b, column_b,
							  sa > sb ? sa : sb);
}

/*
 * As snprintf(buf, size, ...) would: up to size - 1 bytes of text and a
 * NUL, the length of all of it returned. Writers format a value a
 * sample, so printf's format parsing is not paid each time.
 */
int pk_value_format(char *buf, size_t size, int64_t value, int64_t scale)
{
	int digits = scale_digits(scale);
	/* the magnitude, INT64_MIN included */
	uint64_t mag = value < 0 ? -(uint64_t)value : (uint64_t)value;
	uint64_t frac = digits > 0 ? mag % (uint64_t)scale : 0;
	char text[48], *end = text + sizeof(text), *s = end;
	size_t len;

	if (digits < 0)
		return PK_EUSAGE;
	if (frac) {
		for (; frac % 10 == 0; frac /= 10)
			digits--;	/* no trailing zeros */
		s = pki_decimal(s, frac);
		while (end - s < digits)
			*--s = '0';
		*--s = '.';
	}
	s = pki_decimal(s, mag / (uint64_t)scale);
	if (value < 0)
		*--s = '-';
	len = (size_t)(end - s);
	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(buf, s, n);
		buf[n] = '\0';
	}
	return (int)len;
}

char *pki_scaled_unit(const char *unit, int64_t scale)
{
	char *s = malloc(strlen(unit) + 24);

	if (s)
		sprintf(s, "%s/%lld", unit, (long long)scale);
	return s;
}

size_t pki_unit_scale(const char *unit, int64_t *scale)
{
	const char *slash = strrchr(unit, '/'), *s;

	*scale = 1;
	if (!slash || slash[1] != '1' || !slash[2] || strlen(slash + 2) > 18)
		return strlen(unit);
	for (s = slash + 2; *s == '0'; s++)
		;
	if (*s)
		return strlen(unit);
	for (s = slash + 2; *s; s++)
		*scale *= 10;
	return (size_t)(slash - unit);
}

/* Marks in slot[1..n] become numbers from 1 in id order; the count. */
static size_t number_marked(uint32_t *slot, size_t n)
{
	size_t used = 0, id;

	for (id = 1; id <= n; id++)
		if (slot[id])
			slot[id] = (uint32_t)++used;
	return used;
}

int pki_reached_number(const struct pk_profile *p, struct pki_reached *r)
{
	size_t id, i;

	r->fn = calloc(p->nfunctions + 1, sizeof(*r->fn));
	r->map = calloc(p->nmappings + 1, sizeof(*r->map));
	if (!r->fn || !r->map)
		return PK_ENOMEM;
	for (id = 1; id <= p->nlocations; id++) {
		const struct pk_location *loc = &p->locations[id - 1];
		const struct pk_line *lines = pk_profile_location_lines(p, loc);

		if (!r->loc[id])
			continue;
		if (pk_profile_mapping(p, loc->mapping))
			r->map[loc->mapping] = 1;
		for (i = 0; i < loc->nlines; i++) {
			if (!pk_profile_function(p, lines[i].function))
				continue;
			r->fn[lines[i].function] = 1;
			r->nlines++;
		}
	}
	r->nlocs = number_marked(r->loc, p->nlocations);
	r->nfns = number_marked(r->fn, p->nfunctions);
	r->nmaps = number_marked(r->map, p->nmappings);
	return 0;
}

void pki_reached_release(struct pki_reached *r)
{
	free(r->loc);
	free(r->fn);
	free(r->map);
}

int pk_profile_find_column(const struct pk_profile *p, pk_str event,
			   enum pk_value_kind kind)
{
	size_t i;

	for (i = 0; i < p->ntypes; i++)
		if (p->types[i].event == event && p->types[i].kind == kind)
			return (int)i;
	return -1;
}

/* Column i becomes old column order[i]; events follow the new order. */
int pki_profile_order_columns(struct pk_profile *p, const size_t *order)
{
	size_t n = p->ntypes, i, k;
	struct pk_value_type *types = malloc(n * sizeof(*types));
	int64_t *scales = malloc(n * sizeof(*scales));
	int64_t *row = malloc(n * sizeof(*row));

	if (!types || !scales || !row) {
		free(types);
		free(scales);
		free(row);
		return PK_ENOMEM;
	}
	for (k = 0; k < n; k++) {
		types[k] = p->types[order[k]];
		scales[k] = p->scales[order[k]];
	}
	memcpy(p->types, types, n * sizeof(*types));
	memcpy(p->scales, scales, n * sizeof(*scales));
	for (i = 0; i < value_rows(p); i++) {
		int64_t *v = &p->values[i * n];

		for (k = 0; k < n; k++)
			row[k] = v[order[k]];
		memcpy(v, row, n * sizeof(*row));
	}
	p->nevents = 0;
	for (k = 0; k < n; k++)
		add_event(p, p->types[k].event);	/* no growth: same events */
	free(types);
	free(scales);
	free(row);
	return 0;
}

size_t pk_profile_event_count(const struct pk_profile *p)
{
	return p->nevents;
}

pk_str pk_profile_event(const struct pk_profile *p, size_t index)
{
	return index < p->nevents ? p->events[index] : 0;
}

/* ---- period, time, metadata ---- */

void pk_profile_set_period(struct pk_profile *p, const char *type,
			   const char *unit, int64_t period)
{
	p->period_type.type = pk_profile_intern_cstr(p, type);
	p->period_type.unit = pk_profile_intern_cstr(p, unit);
	p->period = period;
}

struct pk_value_type pk_profile_period_type(const struct pk_profile *p)
{
	return p->period_type;
}

int64_t pk_profile_period(const struct pk_profile *p)
{
	return p->period;
}

void pk_profile_set_time(struct pk_profile *p, int64_t time_nanos,
			 int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

int64_t pk_profile_time_nanos(const struct pk_profile *p)
{
	return p->time_nanos;
}

int64_t pk_profile_duration_nanos(const struct pk_profile *p)
{
	return p->duration_nanos;
}

void pk_profile_set_meta(struct pk_profile *p, const char *key,
			 const char *value)
{
	pk_str k = pk_profile_intern_cstr(p, key);
	pk_str v = pk_profile_intern_cstr(p, value);
	size_t i;

	for (i = 0; i < p->nmeta; i++) {
		if (p->meta[i].key == k) {
			p->meta[i].value = v;
			return;
		}
	}
	if (prof_grow(p, &p->meta, &p->meta_cap, p->nmeta + 1,
		      sizeof(*p->meta)))
		return;
	p->meta[p->nmeta].key = k;
	p->meta[p->nmeta].value = v;
	p->nmeta++;
}

const char *pk_profile_meta(const struct pk_profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nmeta; i++)
		if (strcmp(pk_profile_string(p, p->meta[i].key), key) == 0)
			return pk_profile_string(p, p->meta[i].value);
	return NULL;
}

size_t pk_profile_meta_count(const struct pk_profile *p)
{
	return p->nmeta;
}

void pk_profile_meta_at(const struct pk_profile *p, size_t i,
			const char **key, const char **value)
{
	*key = pk_profile_string(p, p->meta[i].key);
	*value = pk_profile_string(p, p->meta[i].value);
}

void pk_profile_time_span(const struct pk_profile *p, uint64_t *first,
			  uint64_t *last)
{
	*first = p->first_time;
	*last = p->last_time;
}

/*
 * What a pprof file of p says for its duration: the reader's, else the
 * samples' span. (Sample times are perf's clock, not the wall clock a
 * start time wants, so there is no such fallback for the start.)
 */
int64_t pki_profile_duration(const struct pk_profile *p)
{
	int64_t d = pk_profile_duration_nanos(p);

	return d ? d : (int64_t)(p->last_time - p->first_time);
}

/* pprof's libRx, "[.]so$|[.]so[._][0-9]+": a shared library's path. */
int pki_is_shared_library(const char *path)
{
	const char *so;

	for (so = strstr(path, ".so"); so; so = strstr(so + 1, ".so"))
		if (!so[3] || ((so[3] == '.' || so[3] == '_') && so[4] >= '0' && so[4] <= '9'))
			return 1;
	return 0;
}

/* ---- mappings ---- */

static uint64_t mapping_hash(const struct pk_mapping *m)
{
	uint64_t h = pki_hash_u64(m->start) ^ pki_hash_u64(m->limit * 31 + 7);

	h ^= pki_hash_u64(m->offset + 0x9e3779b97f4a7c15ULL);
	h ^= pki_hash_u64(((uint64_t)m->file << 32) | m->build_id);
	return pki_hash_u64(h);
}

static int mapping_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_mapping *a = &((const struct pk_profile *)owner)->mappings[id - 1];
	const struct pk_mapping *b = key;

	return a->start == b->start && a->limit == b->limit &&
	       a->offset == b->offset && a->file == b->file &&
	       a->build_id == b->build_id;
}

uint32_t pk_profile_intern_mapping(struct pk_profile *p,
				   const struct pk_mapping *given)
{
	struct pk_mapping normal = *given, *m = &normal;
	uint64_t hash;
	size_t slot;
	uint32_t id;

	/* A limit below the start is not known (xctrace gives a binary's
	 * load address alone): the mapping runs to the end of the address
	 * space, as pprof's stand-in mapping does, so that every writer's
	 * mappings start at most at their limit (OTLP's validator checks) */
	if (m->limit < m->start)
		m->limit = UINT64_MAX;
	hash = mapping_hash(m);
	id = pki_idtab_find(&p->mapping_tab, hash, mapping_match, p, m, &slot);
	if (id)
		return id;
	if (prof_grow(p, &p->mappings, &p->mappings_cap, p->nmappings + 1,
		      sizeof(*p->mappings)))
		return 0;
	id = (uint32_t)p->nmappings + 1;
	if (prof_tab_insert(p, &p->mapping_tab, slot, hash, id))
		return 0;
	p->mappings[p->nmappings++] = *m;
	return id;
}

size_t pk_profile_mapping_count(const struct pk_profile *p)
{
	return p->nmappings;
}

const struct pk_mapping *pk_profile_mapping(const struct pk_profile *p,
					    uint32_t id)
{
	return id && id <= p->nmappings ? &p->mappings[id - 1] : NULL;
}

struct pk_mapping *pk_profile_mapping_mut(struct pk_profile *p, uint32_t id)
{
	return id && id <= p->nmappings ? &p->mappings[id - 1] : NULL;
}

/* ---- functions ---- */

static uint64_t function_hash(const struct pk_function *f)
{
	uint64_t h = pki_hash_u64(((uint64_t)f->name << 32) | f->system_name);

	return pki_hash_u64(h ^ (((uint64_t)f->filename << 32) +
				(uint64_t)f->start_line));
}

static int function_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_function *a = &((const struct pk_profile *)owner)->functions[id - 1];
	const struct pk_function *b = key;

	return a->name == b->name && a->system_name == b->system_name &&
	       a->filename == b->filename && a->start_line == b->start_line;
}

/* A name alone (folded stacks, perf script's symbols): by its string,
 * one of ours (a reader's id from its input is looked up as any other). */
static int function_is_name(const struct pk_profile *p,
			    const struct pk_function *f)
{
	return f->system_name == f->name && !f->filename && !f->start_line &&
	       f->name < p->nstrings;
}

uint32_t pk_profile_intern_function(struct pk_profile *p,
				    const struct pk_function *f)
{
	int by_name = function_is_name(p, f);
	uint64_t hash = 0;
	size_t slot = 0;
	uint32_t id;

	if (by_name) {
		id = dense_find(&p->function_by_name, f->name);
	} else {
		hash = function_hash(f);
		id = pki_idtab_find(&p->function_tab, hash, function_match, p,
				   f, &slot);
	}
	if (id)
		return id;
	if (prof_grow(p, &p->functions, &p->functions_cap, p->nfunctions + 1,
		      sizeof(*p->functions)))
		return 0;
	id = (uint32_t)p->nfunctions + 1;
	if (by_name ? dense_insert(p, &p->function_by_name, f->name, id) :
		      prof_tab_insert(p, &p->function_tab, slot, hash, id))
		return 0;
	p->functions[p->nfunctions++] = *f;
	return id;
}

void pki_profile_prefetch_function(const struct pk_profile *p,
				   const struct pk_function *f)
{
	if (!function_is_name(p, f))
		pki_idtab_prefetch(&p->function_tab, function_hash(f));
}

size_t pk_profile_function_count(const struct pk_profile *p)
{
	return p->nfunctions;
}

const struct pk_function *pk_profile_function(const struct pk_profile *p,
					      uint32_t id)
{
	return id && id <= p->nfunctions ? &p->functions[id - 1] : NULL;
}

/* ---- locations ---- */

struct location_key {
	uint32_t mapping;
	uint64_t address;
	const struct pk_line *lines;
	size_t nlines;
};

static int location_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_profile *p = owner;
	const struct pk_location *a = &p->locations[id - 1];
	const struct location_key *k = key;
	size_t i;

	if (a->mapping != k->mapping || a->address != k->address ||
	    a->nlines != k->nlines)
		return 0;
	for (i = 0; i < k->nlines; i++) {
		const struct pk_line *l = &p->lines[p->first_lines[id - 1] + i];

		if (l->function != k->lines[i].function ||
		    l->line != k->lines[i].line)
			return 0;
	}
	return 1;
}

static uint64_t location_hash(uint32_t mapping, uint64_t address,
			      const struct pk_line *lines, size_t nlines)
{
	uint64_t hash = pki_hash_u64(address ^ ((uint64_t)mapping << 40));
	size_t i;

	for (i = 0; i < nlines; i++)
		hash = pki_hash_u64(hash ^ (((uint64_t)lines[i].function << 32) +
					   (uint64_t)lines[i].line));
	return hash;
}

/* One line of one of our functions, without an address or line number
 * (folded stacks): by its function. */
static int location_is_function(const struct pk_profile *p, uint32_t mapping,
				uint64_t address, const struct pk_line *lines,
				size_t nlines)
{
	return !mapping && !address && nlines == 1 && !lines[0].line &&
	       lines[0].function <= p->nfunctions;
}

/*
 * Setting a location's lines changes its key, and the table cannot
 * delete, so it is rebuilt once before the next lookup. Locations that
 * became equal keep their ids; lookups find the first.
 */
static int rebuild_location_tab(struct pk_profile *p)
{
	struct dense_ids *by_function = &p->location_by_function;
	size_t before = pki_idtab_bytes(&p->location_tab), i, slot;

	pki_idtab_release(&p->location_tab);
	p->bytes -= before;
	if (by_function->id)
		memset(by_function->id, 0, by_function->cap * sizeof(*by_function->id));
	p->location_tab_stale = 0;
	for (i = 0; i < p->nlocations; i++) {
		const struct pk_location *loc = &p->locations[i];
		struct location_key key = {
			loc->mapping, loc->address, &p->lines[p->first_lines[i]],
			loc->nlines
		};
		uint64_t hash;

		if (location_is_function(p, key.mapping, key.address, key.lines,
					 key.nlines)) {
			if (!dense_find(by_function, key.lines[0].function) &&
			    dense_insert(p, by_function, key.lines[0].function,
					 (uint32_t)i + 1))
				return -1;
			continue;
		}
		hash = location_hash(key.mapping, key.address, key.lines,
				     key.nlines);
		if (!pki_idtab_find(&p->location_tab, hash, location_match, p,
				   &key, &slot) &&
		    prof_tab_insert(p, &p->location_tab, slot, hash,
				    (uint32_t)i + 1))
			return -1;
	}
	return 0;
}

uint32_t pk_profile_intern_location(struct pk_profile *p, uint32_t mapping,
				    uint64_t address,
				    const struct pk_line *lines, size_t nlines)
{
	struct location_key key = { mapping, address, lines, nlines };
	int by_function = location_is_function(p, mapping, address, lines,
					       nlines);
	uint32_t function = by_function ? lines[0].function : 0, id;
	struct pk_location *loc;
	uint64_t hash = 0;
	ptrdiff_t alias;
	size_t slot = 0;

	if (p->location_tab_stale && rebuild_location_tab(p))
		return 0;
	if (by_function) {
		id = dense_find(&p->location_by_function, function);
	} else {
		hash = location_hash(mapping, address, lines, nlines);
		id = pki_idtab_find(&p->location_tab, hash, location_match, p,
				   &key, &slot);
	}
	if (id)
		return id;
	alias = ALIASES(lines, p->lines, p->nlines) ? lines - p->lines : -1;
	if (nlines > UINT32_MAX - p->nlines ||
	    prof_grow(p, &p->locations, &p->locations_cap, p->nlocations + 1,
		      sizeof(*p->locations)) ||
	    prof_grow(p, &p->first_lines, &p->first_lines_cap,
		      p->nlocations + 1, sizeof(*p->first_lines)) ||
	    prof_grow(p, &p->lines, &p->lines_cap, p->nlines + nlines,
		      sizeof(*p->lines)))
		return 0;
	if (alias >= 0)
		lines = p->lines + alias;
	id = (uint32_t)p->nlocations + 1;
	if (by_function ? dense_insert(p, &p->location_by_function, function, id) :
			  prof_tab_insert(p, &p->location_tab, slot, hash, id))
		return 0;
	p->first_lines[p->nlocations] = (uint32_t)p->nlines;
	loc = &p->locations[p->nlocations++];
	loc->mapping = mapping;
	loc->address = address;
	loc->nlines = (uint32_t)nlines;
	if (nlines)
		memcpy(&p->lines[p->nlines], lines, nlines * sizeof(*lines));
	p->nlines += nlines;
	return id;
}

void pki_profile_prefetch_location(const struct pk_profile *p,
				   uint32_t mapping, uint64_t address,
				   const struct pk_line *lines, size_t nlines)
{
	if (!p->location_tab_stale &&
	    !location_is_function(p, mapping, address, lines, nlines))
		pki_idtab_prefetch(&p->location_tab,
				   location_hash(mapping, address, lines, nlines));
}

int pk_profile_set_location_lines(struct pk_profile *p, uint32_t id,
				  const struct pk_line *lines, size_t nlines)
{
	struct pk_location *loc;

	if (!id || id > p->nlocations)
		return PK_EUSAGE;
	if (p->failed)
		return p->failed;
	loc = &p->locations[id - 1];
	if (nlines > loc->nlines) {
		ptrdiff_t alias = ALIASES(lines, p->lines, p->nlines) ? lines - p->lines : -1;

		/* The old lines stay behind unused: symbolizers fill
		 * locations that had none, so nothing is wasted then. */
		if (nlines > UINT32_MAX - p->nlines ||
		    prof_grow(p, &p->lines, &p->lines_cap, p->nlines + nlines,
			      sizeof(*p->lines)))
			return p->failed ? p->failed : PK_ENOMEM;
		if (alias >= 0)
			lines = p->lines + alias;
		p->first_lines[id - 1] = (uint32_t)p->nlines;
		p->nlines += nlines;
	}
	if (nlines)
		memcpy(&p->lines[p->first_lines[id - 1]], lines,
		       nlines * sizeof(*lines));
	loc->nlines = (uint32_t)nlines;
	p->location_tab_stale = 1;
	return 0;
}

size_t pk_profile_location_count(const struct pk_profile *p)
{
	return p->nlocations;
}

const struct pk_location *pk_profile_location(const struct pk_profile *p,
					      uint32_t id)
{
	return id && id <= p->nlocations ? &p->locations[id - 1] : NULL;
}

const struct pk_line *pk_profile_location_lines(const struct pk_profile *p,
						const struct pk_location *loc)
{
	/* loc is one of p's: pk_profile_location gave it */
	return p->lines ? &p->lines[p->first_lines[loc - p->locations]] : NULL;
}

/* ---- stacks ---- */

struct u32_key {
	const uint32_t *v;
	size_t n;
};

static int stack_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_profile *p = owner;
	const struct span *s = &p->stacks[id - 1];
	const struct u32_key *k = key;

	return s->len == k->n &&
	       (!k->n || memcmp(&p->stack_data[s->off], k->v, k->n * sizeof(*k->v)) == 0);
}

uint32_t pk_profile_intern_stack(struct pk_profile *p, const uint32_t *locs,
				 size_t depth)
{
	struct u32_key key;
	uint64_t hash;
	ptrdiff_t alias;
	size_t slot;
	uint32_t id;

	/* As perf's callchains stop at kernel.perf_event_max_stack: the
	 * leaf side stays, the root side goes, and nothing past it is read. */
	if (p->max_stack && depth > p->max_stack) {
		depth = p->max_stack;
		p->cut_stacks++;
	}
	key.v = locs;
	key.n = depth;
	hash = pki_hash_bytes(locs, depth * sizeof(*locs), 1);
	id = pki_idtab_find(&p->stack_tab, hash, stack_match, p, &key, &slot);
	if (id)
		return id;
	alias = ALIASES(locs, p->stack_data, p->nstack_data) ? locs - p->stack_data : -1;
	if (depth > UINT32_MAX ||
	    prof_grow(p, &p->stacks, &p->stacks_cap, p->nstacks + 1,
		      sizeof(*p->stacks)) ||
	    prof_grow(p, &p->stack_data, &p->stack_data_cap,
		      p->nstack_data + depth, sizeof(*p->stack_data)))
		return 0;
	if (alias >= 0)
		locs = p->stack_data + alias;
	id = (uint32_t)p->nstacks + 1;
	if (prof_tab_insert(p, &p->stack_tab, slot, hash, id))
		return 0;
	p->stacks[p->nstacks].off = p->nstack_data;
	p->stacks[p->nstacks].len = (uint32_t)depth;
	p->nstacks++;
	if (depth)
		memcpy(&p->stack_data[p->nstack_data], locs,
		       depth * sizeof(*locs));
	p->nstack_data += depth;
	return id;
}

void pki_profile_prefetch_stack(const struct pk_profile *p,
				const uint32_t *locs, size_t depth)
{
	if (p->max_stack && depth > p->max_stack)
		depth = p->max_stack;
	pki_idtab_prefetch(&p->stack_tab,
			   pki_hash_bytes(locs, depth * sizeof(*locs), 1));
}

size_t pk_profile_stack_count(const struct pk_profile *p)
{
	return p->nstacks;
}

const uint32_t *pk_profile_stack(const struct pk_profile *p, uint32_t id,
				 size_t *depth)
{
	if (!id || id > p->nstacks) {
		*depth = 0;
		return NULL;
	}
	*depth = p->stacks[id - 1].len;
	return p->stack_data ? &p->stack_data[p->stacks[id - 1].off] : NULL;
}

/* ---- label sets ---- */

struct label_key {
	const struct pk_label *v;
	size_t n;
};

static int label_eq(const struct pk_label *a, const struct pk_label *b)
{
	return a->key == b->key && a->str == b->str && a->num == b->num &&
	       a->unit == b->unit;
}

static int labels_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_profile *p = owner;
	const struct span *s = &p->label_sets[id - 1];
	const struct label_key *k = key;
	size_t i;

	if (s->len != k->n)
		return 0;
	for (i = 0; i < k->n; i++)
		if (!label_eq(&p->label_data[s->off + i], &k->v[i]))
			return 0;
	return 1;
}

uint32_t pk_profile_intern_labels(struct pk_profile *p,
				  const struct pk_label *labels, size_t n)
{
	struct label_key key = { labels, n };
	uint64_t hash = 0x51ed270b27ULL;
	ptrdiff_t alias;
	size_t slot, i;
	uint32_t id;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		hash = pki_hash_u64(hash ^ (((uint64_t)labels[i].key << 32) |
					   labels[i].str));
		hash = pki_hash_u64(hash ^ (uint64_t)labels[i].num ^
				   ((uint64_t)labels[i].unit << 48));
	}
	id = pki_idtab_find(&p->label_tab, hash, labels_match, p, &key, &slot);
	if (id)
		return id;
	alias = ALIASES(labels, p->label_data, p->nlabel_data) ? labels - p->label_data : -1;
	if (n > UINT32_MAX ||
	    prof_grow(p, &p->label_sets, &p->label_sets_cap,
		      p->nlabel_sets + 1, sizeof(*p->label_sets)) ||
	    prof_grow(p, &p->label_data, &p->label_data_cap,
		      p->nlabel_data + n, sizeof(*p->label_data)))
		return 0;
	if (alias >= 0)
		labels = p->label_data + alias;
	id = (uint32_t)p->nlabel_sets + 1;
	if (prof_tab_insert(p, &p->label_tab, slot, hash, id))
		return 0;
	p->label_sets[p->nlabel_sets].off = p->nlabel_data;
	p->label_sets[p->nlabel_sets].len = (uint32_t)n;
	p->nlabel_sets++;
	memcpy(&p->label_data[p->nlabel_data], labels, n * sizeof(*labels));
	p->nlabel_data += n;
	return id;
}

size_t pki_profile_label_set_count(const struct pk_profile *p)
{
	return p->nlabel_sets;
}

const struct pk_label *pk_profile_labels(const struct pk_profile *p,
					 uint32_t id, size_t *n)
{
	if (!id || id > p->nlabel_sets) {
		*n = 0;
		return NULL;
	}
	*n = p->label_sets[id - 1].len;
	return &p->label_data[p->label_sets[id - 1].off];
}

const struct pk_label *pk_profile_label_find(const struct pk_profile *p,
					     uint32_t labels, pk_str key)
{
	const struct pk_label *l;
	size_t n, i;

	l = pk_profile_labels(p, labels, &n);
	for (i = 0; i < n; i++)
		if (l[i].key == key)
			return &l[i];
	return NULL;
}

/* ---- samples ---- */

struct sample_key {
	uint32_t stack, labels;
};

static int sample_match(const void *owner, uint32_t id, const void *key)
{
	const struct pk_sample *s = &((const struct pk_profile *)owner)->samples[id - 1];
	const struct sample_key *k = key;

	return s->stack == k->stack && s->labels == k->labels;
}

static void sum_values(int64_t *dst, const int64_t *src, size_t n)
{
	size_t i;

	/* Wrap rather than overflow: a hostile input may sum to anything. */
	for (i = 0; i < n; i++)
		dst[i] = (int64_t)((uint64_t)dst[i] + (uint64_t)src[i]);
}

static void note_time(struct pk_profile *p, uint64_t time)
{
	if (!time)
		return;
	if (!p->first_time || time < p->first_time)
		p->first_time = time;
	if (time > p->last_time)
		p->last_time = time;
}

void pki_profile_absorb_counts(struct pk_profile *p,
			       const struct pk_profile *part)
{
	p->cut_stacks += part->cut_stacks;
	note_time(p, part->first_time);
	note_time(p, part->last_time);
}

/* Whether values (nvalues of them, the rest 0) are the row every sample
 * has. */
static int same_row(const struct pk_profile *p, const int64_t *values,
		    size_t nvalues)
{
	size_t k;

	if (!p->one_row)
		return 0;
	for (k = 0; k < p->ntypes; k++)
		if (p->values[k] != (k < nvalues ? values[k] : 0))
			return 0;
	return 1;
}

/*
 * Room for the rows of more samples at the end of values, a row a
 * sample from then on: the one row all had is copied for each.
 */
static int rows_each(struct pk_profile *p, size_t more)
{
	size_t n = p->ntypes, i;

	if (prof_grow(p, &p->values, &p->values_cap, (p->nsamples + more) * n,
		      sizeof(*p->values)))
		return -1;
	for (i = 1; p->one_row && n && i < p->nsamples; i++)
		memcpy(&p->values[i * n], p->values, n * sizeof(*p->values));
	p->one_row = 0;
	return 0;
}

/*
 * A new sample at the end of p: its record, and its row of values but
 * where it has the row of all (kept: p keeps its samples in order, and
 * the first one's row is every one's until one differs). Its id, or 0
 * when out of memory.
 */
static uint32_t append_sample(struct pk_profile *p, uint32_t stack,
			      uint32_t labels, uint64_t time,
			      const int64_t *values, size_t nvalues, int kept)
{
	size_t n = p->ntypes, k;
	struct pk_sample *s;
	int shared = same_row(p, values, nvalues);

	if (p->nsamples >= UINT32_MAX - 1 ||
	    (p->nsamples == p->samples_cap &&
	     prof_grow(p, &p->samples, &p->samples_cap, p->nsamples + 1,
		       sizeof(*p->samples))) ||
	    (!shared && rows_each(p, 1)))
		return 0;
	s = &p->samples[p->nsamples];
	s->stack = stack;
	s->labels = labels;
	s->time = time;
	/* a loop, not memset and memcpy: a row is a value or two, and a
	 * sample kept in order comes here each */
	for (k = 0; !shared && k < n; k++)
		p->values[p->nsamples * n + k] = k < nvalues ? values[k] : 0;
	p->one_row |= kept && !p->nsamples;
	return (uint32_t)++p->nsamples;
}

/* The sample of stack and labels where p sums them, if the last of the
 * stack met is it (by_stack: one without labels, found by its stack
 * alone); else 0, for the table to say. Most are: a stack is mostly
 * one thread's. */
static inline uint32_t known_sample(const struct pk_profile *p, uint32_t stack,
				    uint32_t labels, int by_stack)
{
	uint32_t id;

	if (by_stack)
		return dense_find(&p->sample_by_stack, stack);
	id = dense_find(&p->labeled_by_stack, stack);
	return id && p->samples[id - 1].labels == labels ? id : 0;
}

/* The rest of sum_sample, out of line: it keeps the common case's
 * registers few. A sample of labels (or of a stack p has not) found in
 * the table, else new, and the stack's last from then on. */
static __attribute__((noinline)) int sum_in_table(struct pk_profile *p,
						  uint32_t stack, uint32_t labels,
						  uint64_t time, const int64_t *values,
						  size_t nvalues, int by_stack)
{
	struct sample_key key = { stack, labels };
	uint64_t hash = 0;
	size_t slot = 0;
	uint32_t id = 0;

	if (!by_stack) {
		hash = pki_hash_u64(((uint64_t)stack << 32) | labels);
		id = pki_idtab_find(&p->sample_tab, hash, sample_match, p, &key, &slot);
	}
	if (id) {
		if (stack < p->labeled_by_stack.cap)
			p->labeled_by_stack.id[stack] = id;
		sum_values(&p->values[(id - 1) * p->ntypes], values, nvalues);
		return 0;
	}
	if (!(id = append_sample(p, stack, labels, time, values, nvalues, 0)))
		return p->failed;
	if (by_stack)
		return dense_insert(p, &p->sample_by_stack, stack, id) ? p->failed : 0;
	if (prof_tab_insert(p, &p->sample_tab, slot, hash, id) ||
	    (stack <= p->nstacks &&
	     dense_insert(p, &p->labeled_by_stack, stack, id)))
		return p->failed;
	return 0;
}

/* A sample where p sums them: added to the one of its stack and labels
 * if there is one, else new. One without labels is found by its stack
 * alone; one with, or of a stack p has not, in the table. */
static inline int sum_sample(struct pk_profile *p, uint32_t stack, uint32_t labels,
			     uint64_t time, const int64_t *values, size_t nvalues)
{
	int by_stack = !labels && stack <= p->nstacks;
	uint32_t id = known_sample(p, stack, labels, by_stack);

	if (!id)
		return sum_in_table(p, stack, labels, time, values, nvalues, by_stack);
	sum_values(&p->values[(id - 1) * p->ntypes], values, nvalues);
	return 0;
}

int pk_profile_add_sample(struct pk_profile *p, uint32_t stack,
			  uint32_t labels, uint64_t time,
			  const int64_t *values, size_t nvalues)
{
	if (p->failed)
		return p->failed;
	if (nvalues > p->ntypes)
		return PK_EUSAGE;
	note_time(p, time);
	if (!keeps_order(p))
		return sum_sample(p, stack, labels, time, values, nvalues);
	return append_sample(p, stack, labels, time, values, nvalues, 1) ?
	       0 : p->failed;
}

struct pk_sample *pki_profile_add_samples(struct pk_profile *p, size_t n,
					  const int64_t *row, int64_t **values)
{
	size_t cols = p->ntypes, rows, i;

	*values = NULL;
	if (p->failed || !keeps_order(p))
		return NULL;
	if (n > UINT32_MAX - 1 - p->nsamples ||
	    prof_grow(p, &p->samples, &p->samples_cap, p->nsamples + n,
		      sizeof(*p->samples)))
		return NULL;
	if (!row || !same_row(p, row, cols)) {
		/* the first samples of one row store it once */
		rows = row && !p->nsamples ? 1 : n;
		if (rows_each(p, rows))
			return NULL;
		for (i = 0; row && cols && i < rows; i++)
			memcpy(&p->values[(p->nsamples + i) * cols], row,
			       cols * sizeof(*row));
		p->one_row = row && !p->nsamples;
		if (!row && cols)
			*values = &p->values[p->nsamples * cols];
	}
	p->nsamples += n;
	return &p->samples[p->nsamples - n];
}

const struct pk_sample *pki_profile_samples(const struct pk_profile *p,
					    const int64_t **values,
					    size_t *stride)
{
	*values = p->values;
	*stride = p->one_row ? 0 : p->ntypes;
	return p->samples;
}

size_t pk_profile_sample_count(const struct pk_profile *p)
{
	return p->nsamples;
}

const struct pk_sample *pk_profile_sample(const struct pk_profile *p,
					  size_t index)
{
	return index < p->nsamples ? &p->samples[index] : NULL;
}

const int64_t *pk_profile_sample_values(const struct pk_profile *p,
					size_t index)
{
	static const int64_t none[1];

	/* no sample types: no values array to point into */
	if (!p->values)
		return none;
	return &p->values[p->one_row ? 0 : index * p->ntypes];
}

void pk_profile_scale_column(struct pk_profile *p, size_t column,
			     int64_t num, int64_t den)
{
	size_t i;

	if (column >= p->ntypes || den == 0)
		return;
	for (i = 0; i < value_rows(p); i++) {
		int64_t *v = &p->values[i * p->ntypes + column];
		__int128 x = (__int128)*v * num / den;

		*v = x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : (int64_t)x;
	}
}

void pki_profile_sum_columns(struct pk_profile *p, size_t dst, size_t a,
			     size_t b)
{
	size_t i;

	if (dst >= p->ntypes || a >= p->ntypes || b >= p->ntypes)
		return;
	for (i = 0; i < value_rows(p); i++) {
		int64_t *v = &p->values[i * p->ntypes];

		v[dst] = (int64_t)((uint64_t)v[a] + (uint64_t)v[b]);
	}
}

int64_t pk_profile_total(const struct pk_profile *p, size_t column)
{
	uint64_t sum = 0;
	size_t i;

	if (column >= p->ntypes)
		return 0;
	if (p->one_row)		/* wraps as the sum of each would */
		return (int64_t)((uint64_t)p->values[column] * p->nsamples);
	for (i = 0; i < p->nsamples; i++)
		sum += (uint64_t)p->values[i * p->ntypes + column];
	return (int64_t)sum;
}

struct timed_index {
	uint64_t time;
	uint32_t index;
	uint32_t place;		/* in the array sorted */
};

static int compare_timed(const void *a, const void *b)
{
	const struct timed_index *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Indexes out of order: each place's time and index copied, compared. */
static int time_order_copied(const struct pk_profile *p, const uint32_t *idx,
			     size_t n, uint32_t *place)
{
	struct timed_index *t = pki_alloc_large(n * sizeof(*t));
	size_t i;

	if (!t)
		return PK_ENOMEM;
	for (i = 0; i < n; i++) {
		t[i].time = p->samples[idx[i]].time;
		t[i].index = idx[i];
		t[i].place = (uint32_t)i;
	}
	qsort(t, n, sizeof(*t), compare_timed);
	for (i = 0; i < n; i++)
		place[i] = t[i].place;
	free(t);
	return 1;
}

/* The bits of v from low on, bits of them (low < 64, bits < 64). */
static uint64_t bits_of(uint64_t v, unsigned low, unsigned bits)
{
	return (v >> low) & (((uint64_t)1 << bits) - 1);
}

/* The keys of the time's bits from low on above each place, in the
 * order of places in order (NULL: the places' own). */
static void time_keys(const struct pk_profile *p, const uint32_t *idx,
		      const uint32_t *order, size_t n, uint64_t first,
		      unsigned low, unsigned bits, unsigned place_bits,
		      uint64_t *key)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t at = order ? order[i] : i;

		key[i] = bits_of(p->samples[idx[at]].time - first, low, bits)
			 << place_bits | at;
	}
}

/*
 * Indexes ascending (n >= 2): a stable radix sort of keys of the time
 * past the first above the place, so that equal times stay in index
 * order. Where the times' span needs more bits than the place leaves,
 * the low bits are sorted first and then the rest, the second keys
 * made in the first's order: one least significant digit sort in two.
 */
static int time_order_radix(const struct pk_profile *p, const uint32_t *idx,
			    size_t n, uint32_t *place, uint64_t first,
			    unsigned time_bits)
{
	unsigned place_bits = pki_bit_length(n - 1), room = 64 - place_bits;
	uint64_t *key = pki_alloc_large(2 * n * sizeof(*key)), *sorted;
	unsigned low = 0, bits;
	size_t i;

	if (!key)
		return PK_ENOMEM;
	do {
		bits = time_bits - low < room ? time_bits - low : room;
		time_keys(p, idx, low ? place : NULL, n, first, low, bits,
			  place_bits, key);
		sorted = pki_radix_sort(key, key + n, n, place_bits, bits);
		for (i = 0; sorted && i < n; i++)
			place[i] = (uint32_t)bits_of(sorted[i], 0, place_bits);
		low += bits;
	} while (sorted && low < time_bits);
	free(key);
	return sorted ? 1 : PK_ENOMEM;
}

int pki_time_order(const struct pk_profile *p, const uint32_t *idx, size_t n,
		   uint32_t *place)
{
	uint64_t first, last;
	size_t i;
	int ascending = 1;

	for (i = 1; i < n; i++)
		if (p->samples[idx[i]].time < p->samples[idx[i - 1]].time)
			break;
	if (i >= n)
		return 0;
	first = last = p->samples[idx[0]].time;
	for (i = 0; i < n; i++) {
		uint64_t t = p->samples[idx[i]].time;

		first = t < first ? t : first;
		last = t > last ? t : last;
		ascending &= !i || idx[i] > idx[i - 1];
	}
	if (ascending && n <= PKI_RADIX_MAX)
		return time_order_radix(p, idx, n, place, first,
					pki_bit_length(last - first));
	return time_order_copied(p, idx, n, place);
}

int pki_sort_by_time(const struct pk_profile *p, uint32_t *idx, size_t n)
{
	uint32_t *place = pki_alloc_large(n * sizeof(*place));
	size_t i;
	int rc = place ? pki_time_order(p, idx, n, place) : PK_ENOMEM;

	for (i = 0; rc > 0 && i < n; i++)
		place[i] = idx[place[i]];
	if (rc > 0)
		memcpy(idx, place, n * sizeof(*idx));
	free(place);
	return rc < 0 ? rc : 0;
}

/* ---- off-CPU intervals ---- */

int pki_interval_column(const struct pk_profile *p)
{
	pk_str event = pk_profile_lookup(p, PKI_EVENT_OFF_CPU);
	int column = event ? pk_profile_find_column(p, event, PK_VALUE_WEIGHT) : -1;

	if (column < 0 || strcmp(pk_profile_string(p, pk_profile_sample_type(p,
			(size_t)column)->unit), "nanoseconds") != 0)
		return -1;
	return column;
}

uint64_t pki_interval_length(const struct pk_profile *p, int column,
			     size_t index)
{
	int64_t v;

	if (column < 0 || !pk_profile_sample(p, index)->time)
		return 0;
	v = pk_profile_sample_values(p, index)[column];
	return v > 0 ? (uint64_t)(v / pk_profile_sample_type_scale(p, (size_t)column)) : 0;
}
