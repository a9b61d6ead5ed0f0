/* SPDX-License-Identifier: MIT */
/*
 * pprof -raw text (pprof-raw.h): its locations and mappings, and the
 * profile made of them and the samples kept.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pprof-raw.h"
#include "util/hash.h"

/* "0x1f" as %#x prints it ("0x0" for zero). */
static int hex(const char *s, size_t len, size_t *i, uint64_t *v)
{
	size_t start;

	if (*i + 2 > len || s[*i] != '0' || s[*i + 1] != 'x')
		return -1;
	*i += 2;
	start = *i;
	for (*v = 0; *i < len && pki_hexval(s[*i]) >= 0; (*i)++) {
		if (*v >> 60)
			return -1;
		*v = *v << 4 | (uint64_t)pki_hexval(s[*i]);
	}
	return *i > start ? 0 : -1;
}

/* ---- locations and mappings ---- */

/* ":N" ending s[start..*end): N, and *end moved to the colon. */
static int number_after_colon(const char *s, size_t start, size_t *end,
			      int64_t *v)
{
	size_t i = *end, k;

	while (i > start && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i > start && s[i - 1] == '-')
		i--;
	if (i == *end || i == start || s[i - 1] != ':')
		return -1;
	k = i;
	if (integer(s, *end, &k, 1, v) || k != *end)
		return -1;
	*end = i - 1;
	return 0;
}

/* "NAME FILE:LINE s=START(SYSTEM NAME)" (newer pprof: FILE:LINE:COLUMN)
 * read into f and the line number; -1 when it is no such text. */
static int parse_location_line(const char *s, size_t len, struct raw_function *f,
			       int64_t *line_number)
{
	size_t i, end = 0, space, file_end, k;
	int64_t line, column;

	memset(f, 0, sizeof(*f));
	/* the first " s=N" followed by the end or "(SYSTEM NAME)" */
	for (i = 0; !end; i++) {
		const char *at = memmem(s + i, len - i, " s=", 3);

		if (!at)
			return -1;
		i = (size_t)(at - s);
		k = i + 3;
		if (integer(s, len, &k, 1, &f->start_line) || (k < len && s[k] != '('))
			continue;
		if (k < len) {
			if (s[len - 1] != ')')
				return -1;
			f->system = s + k + 1;
			f->system_len = len - k - 2;
		}
		end = i;
	}
	for (space = end; space > 0 && s[space - 1] != ' '; space--)
		;
	if (!space--)
		return -1;
	file_end = end;
	if (number_after_colon(s, space + 1, &file_end, &line))
		return -1;
	k = file_end;
	if (!number_after_colon(s, space + 1, &k, &column)) {
		line = column;	/* FILE:LINE:COLUMN */
		file_end = k;
	}
	f->name = s;
	f->name_len = space;
	f->filename = s + space + 1;
	f->filename_len = file_end - space - 1;
	*line_number = line;
	return 0;
}

/* The profile's function of f (its strings interned as the line gives
 * them); 0 when out of memory. */
uint32_t praw_intern_function(struct pk_profile *p, const struct raw_function *f)
{
	struct pk_function fn = { .start_line = f->start_line };

	if (f->system)
		fn.system_name = pk_profile_intern(p, f->system, f->system_len);
	fn.name = pk_profile_intern(p, f->name, f->name_len);
	fn.filename = pk_profile_intern(p, f->filename, f->filename_len);
	if (!fn.system_name)
		fn.system_name = fn.name;
	return pk_profile_intern_function(p, &fn);
}

/* A location line's function (0: "??", a line without a function, kept
 * as none; a helper's: its place in r->functions, from 1) and line
 * number; -1 when it is no such text. */
static int read_location_line(struct raw_reader *r, const char *s, size_t len,
			      uint32_t *function, int64_t *line_number)
{
	struct raw_function f;

	*function = 0;
	if (len == 2 && memcmp(s, "??", 2) == 0)
		return 0;
	if (parse_location_line(s, len, &f, line_number))
		return -1;
	if (!r->helper)
		return (*function = praw_intern_function(r->p, &f)) ? 0 : praw_no_memory(r);
	if (r->nfunctions >= UINT32_MAX - 1 ||
	    praw_grow(r, &r->functions, &r->functions_cap, r->nfunctions + 1,
		 sizeof(*r->functions)))
		return praw_no_memory(r);
	r->functions[r->nfunctions++] = f;
	*function = (uint32_t)r->nfunctions;
	return 0;
}

/* A line of the last location: function and line number. */
static int add_line(struct raw_reader *r, uint32_t function, int64_t line)
{
	int rc = praw_grow(r, &r->lines, &r->lines_cap, r->nlines + 1, sizeof(*r->lines));

	if (rc)
		return rc;
	r->lines[r->nlines].function = function;
	r->lines[r->nlines++].line = line;
	r->open.nlines++;
	return 0;
}

static uint64_t location_hash(const struct raw_reader *r, const struct raw_location *l)
{
	uint64_t h = pki_hash_u64(l->address ^ pki_hash_u64(l->mapping));
	size_t k;

	for (k = 0; k < l->nlines; k++) {
		const struct pk_line *line = &r->lines[l->first_line + k];

		h = pki_hash_u64(h ^ line->function ^ (uint64_t)line->line << 32);
	}
	return h;
}

static int same_location(const void *owner, uint32_t id, const void *key)
{
	const struct raw_reader *r = owner;
	const struct raw_location *l = &r->locations[id - 1], *k = key;
	size_t i;

	if (l->address != k->address || l->mapping != k->mapping ||
	    l->nlines != k->nlines)
		return 0;
	for (i = 0; i < l->nlines; i++) {
		const struct pk_line *a = &r->lines[l->first_line + i];
		const struct pk_line *b = &r->lines[k->first_line + i];

		if (a->function != b->function || a->line != b->line)
			return 0;
	}
	return 1;
}

/* The location read last, its id's: one of the same mapping, address
 * and lines before, its lines dropped, or a new one. */
int praw_end_location(struct raw_reader *r)
{
	uint64_t hash;
	size_t slot;
	uint32_t found;

	if (!r->location_open)
		return 0;
	r->location_open = 0;
	if (r->open_known) {	/* its one line the known location's */
		r->nlines = r->open.first_line;
		r->location_ids[r->nlocation_ids - 1].location = r->open_known - 1;
		return 0;
	}
	hash = location_hash(r, &r->open);
	found = pki_idtab_find(&r->location_tab, hash, same_location, r, &r->open, &slot);
	if (found) {
		r->nlines = r->open.first_line;
	} else {
		if (r->nlocations >= UINT32_MAX - 1 ||
		    praw_grow(r, &r->locations, &r->locations_cap, r->nlocations + 1,
			 sizeof(*r->locations)))
			return praw_no_memory(r);
		r->locations[r->nlocations++] = r->open;
		found = (uint32_t)r->nlocations;
		if (pki_idtab_insert(&r->location_tab, slot, hash, found))
			return praw_no_memory(r);
	}
	if (r->open_text)
		*pki_memo_value(&r->location_memo, r->open_text) = found;
	r->location_ids[r->nlocation_ids - 1].location = found - 1;
	return 0;
}

/* Samples a text has at least for their stacks to be found on two threads. */
#define MIN_HALVES 256

/* Texts after an id looked up before the memo of them is given up where
 * fewer than half were found: a text merged from many profiles repeats
 * each one's locations, but only after the first's, which are many. */
#define LOCATION_TRIES (1u << 16)

/* The location a text after an id was before, when it had no more lines
 * (0: none); the text remembered (r->open_text) to be told which it is,
 * when the memo finds enough of them. */
static uint32_t known_location(struct raw_reader *r, const char *text, size_t len)
{
	uint64_t *known;

	if (r->location_memo_off)
		return 0;
	if (++r->location_tries == LOCATION_TRIES && r->location_finds < LOCATION_TRIES / 2) {
		r->location_memo_off = 1;	/* a text of distinct locations */
		pki_memo_free(&r->location_memo);
		return 0;
	}
	if (!(r->open_text = pki_memo_id(&r->location_memo, text, len)))
		return 0;
	known = pki_memo_value(&r->location_memo, r->open_text);
	r->location_finds += *known != 0;
	return (uint32_t)*known;
}

/* "NAME FILE:LINE s=START(SYSTEM NAME)" (newer pprof: FILE:LINE:COLUMN),
 * or "??" for a line without a function, kept as none. */
static int location_line(struct raw_reader *r, const char *s, size_t len)
{
	uint64_t *memo = pki_memo(&r->lines_memo, s, len);
	uint32_t function;
	int64_t line;
	int rc;

	if (memo && *memo)
		return add_line(r, (uint32_t)(*memo >> 32), (int32_t)(uint32_t)*memo);
	if ((rc = read_location_line(r, s, len, &function, &line)) || !function)
		return rc;
	if (memo && line >= INT32_MIN && line <= INT32_MAX)
		*memo = (uint64_t)function << 32 | (uint32_t)line;
	return add_line(r, function, line);
}

/* "     1: 0x4b7126 M=1 [F] NAME FILE:LINE s=0", or a line's more
 * ("             NAME ...") */
static int locations_line(struct raw_reader *r, const char *line, size_t len)
{
	struct raw_location *loc = &r->open;
	size_t i = 0;
	int64_t id, mapping;
	int rc;

	skip_blanks(line, len, &i);
	if (i == 13 && r->location_open) {
		/* not of one line: found by its lines at its end */
		r->open_known = r->open_text = 0;
		if (location_line(r, line + i, len - i))
			return praw_bad(r, "not 'NAME FILE:LINE s=START'", line, len);
		return 0;
	}
	if ((rc = praw_end_location(r)) ||
	    (rc = praw_grow(r, &r->location_ids, &r->location_ids_cap,
		       r->nlocation_ids + 1, sizeof(*r->location_ids))))
		return rc;
	memset(loc, 0, sizeof(*loc));
	loc->first_line = r->nlines;
	if (integer(line, len, &i, 0, &id) || !id || i + 2 > len || line[i] != ':' ||
	    line[i + 1] != ' ')
		return praw_bad(r, "not a location 'ID: 0xADDRESS ...'", line, len);
	i += 2;
	if (r->nlocation_ids && (uint64_t)id <= r->location_ids[r->nlocation_ids - 1].id)
		r->ids_unordered = 1;
	r->location_ids[r->nlocation_ids++].id = (uint64_t)id;
	r->location_open = 1;
	loc->first_id = (uint64_t)id;
	r->open_text = 0;
	if ((r->open_known = known_location(r, line + i, len - i))) {
		const struct raw_location *known = &r->locations[r->open_known - 1];

		loc->address = known->address;
		loc->mapping = known->mapping;
		return known->nlines ? add_line(r, r->lines[known->first_line].function,
						r->lines[known->first_line].line) : 0;
	}
	if (hex(line, len, &i, &loc->address) || (i < len && line[i] != ' '))
		return praw_bad(r, "not a location's address", line, len);
	skip_blanks(line, len, &i);
	if (pki_starts_with_n(line + i, len - i, "M=")) {
		i += 2;
		if (integer(line, len, &i, 0, &mapping) || (i < len && line[i] != ' '))
			return praw_bad(r, "not a mapping id 'M=N'", line, len);
		loc->mapping = (uint64_t)mapping;
		skip_blanks(line, len, &i);
	}
	if (pki_starts_with_n(line + i, len - i, "[F] "))
		i += 4;
	if (i < len && location_line(r, line + i, len - i))
		return praw_bad(r, "not 'NAME FILE:LINE s=START'", line, len);
	return 0;
}

/* A line of the locations', or the line "Mappings" that ends them. */
int praw_locations_line(struct raw_reader *r, const char *line, size_t len)
{
	if (pki_starts_with_n(line, len, "Mappings")) {
		r->section = MAPPINGS;
		return praw_end_location(r);
	}
	return len ? locations_line(r, line, len) : 0;
}

/* The profile's mapping of raw, its file and build id interned. */
int praw_intern_mapping(struct raw_reader *r, struct raw_mapping *raw)
{
	raw->m.file = pk_profile_intern(r->p, raw->file, raw->file_len);
	raw->m.build_id = pk_profile_intern(r->p, raw->build_id, raw->build_id_len);
	raw->ours = pk_profile_intern_mapping(r->p, &raw->m);
	return raw->ours ? 0 : praw_no_memory(r);
}

/* "1: 0x400000/0x4b8000/0x0 FILE BUILDID [FN][FL][LN][IN]" */
int praw_mappings_line(struct raw_reader *r, const char *line, size_t len)
{
	struct pk_mapping m = { 0 };
	struct raw_mapping *raw;
	const char *bits, *build, *s;
	size_t i = 0;
	int64_t id;
	int rc;

	if (!len)
		return 0;
	if (integer(line, len, &i, 0, &id) || !id || !pki_starts_with_n(line + i, len - i, ": ") ||
	    (i += 2, hex(line, len, &i, &m.start)) || i >= len || line[i++] != '/' ||
	    hex(line, len, &i, &m.limit) || i >= len || line[i++] != '/' ||
	    hex(line, len, &i, &m.offset) || i >= len || line[i++] != ' ')
		return praw_bad(r, "not a mapping 'ID: 0xSTART/0xLIMIT/0xOFFSET FILE'",
			   line, len);
	/* from the right: the bits, the build id, then the file */
	for (bits = line + len; bits > line + i && bits[-1] != ' '; bits--)
		;
	if (bits == line + i)
		return praw_bad(r, "not a mapping's 'FILE BUILDID BITS'", line, len);
	for (build = bits - 1; build > line + i && build[-1] != ' '; build--)
		;
	if (build == line + i && build != bits - 1)
		return praw_bad(r, "not a mapping's 'FILE BUILDID BITS'", line, len);
	for (s = bits; s < line + len; s += 4) {
		if (line + len - s < 4 || s[0] != '[' || s[3] != ']')
			return praw_bad(r, "not a mapping's bits [FN][FL][LN][IN]", line, len);
		m.has_functions |= memcmp(s, "[FN]", 4) == 0;
		m.has_filenames |= memcmp(s, "[FL]", 4) == 0;
		m.has_line_numbers |= memcmp(s, "[LN]", 4) == 0;
		m.has_inline_frames |= memcmp(s, "[IN]", 4) == 0;
	}
	if ((rc = praw_grow(r, &r->mappings, &r->mappings_cap, r->nmappings + 1,
		       sizeof(*raw))))
		return rc;
	raw = &r->mappings[r->nmappings++];
	memset(raw, 0, sizeof(*raw));
	raw->id = (uint64_t)id;
	raw->m = m;
	raw->file = line + i;
	raw->file_len = (size_t)(build - 1 - (line + i));
	raw->build_id = build;
	raw->build_id_len = (size_t)(bits - 1 - build);
	return r->helper ? 0 : praw_intern_mapping(r, raw);
}

/* ---- the profile ---- */

static int by_mapping_id(const void *a, const void *b)
{
	const struct raw_mapping *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int by_location_id(const void *a, const void *b)
{
	const struct raw_location_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Whether the locations are in the order of their ids already, as pprof
 * prints them (a sort of them all would be a fifth of the reading). */
static int in_order(const struct raw_location_id *ids, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (ids[i - 1].id > ids[i].id)
			return 0;
	return 1;
}

/* The location of an id: pprof numbers them 1, 2, ... in order, so that
 * the id is mostly its place; else a search. */
static struct raw_location *find_location(const struct raw_reader *r, uint64_t id)
{
	const struct raw_location_id *at = NULL, key = { .id = id };

	if (id >= 1 && id <= r->nlocation_ids && r->location_ids[id - 1].id == id)
		at = &r->location_ids[id - 1];
	else if (r->nlocation_ids)
		at = bsearch(&key, r->location_ids, r->nlocation_ids, sizeof(key),
			     by_location_id);
	return at ? &r->locations[at->location] : NULL;
}

/* The profile's location of loc, met first under id. */
static int intern_location(struct raw_reader *r, struct raw_location *loc,
			   uint64_t id)
{
	struct raw_mapping *m, key = { .id = loc->mapping };

	m = r->nmappings ? bsearch(&key, r->mappings, r->nmappings, sizeof(*m),
				   by_mapping_id) : NULL;
	if (loc->mapping && !m)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: location %llu names "
				    "mapping %llu, which the mappings do not list",
				    pk_input_name(r->in), (unsigned long long)id,
				    (unsigned long long)loc->mapping);
	/* (no lines: none to point at, where there may be no array) */
	loc->ours = pk_profile_intern_location(r->p, m ? m->ours : 0, loc->address,
					       loc->nlines ? r->lines + loc->first_line :
					       NULL, loc->nlines);
	return loc->ours ? 0 : praw_no_memory(r);
}

/* The profile's stack of a sample, its locations taken (the first max + 1
 * of them, for the profile to cut); 0 when out of memory. */
static int sample_stack(struct raw_reader *r, const struct raw_sample *s,
			size_t max, uint32_t *stack)
{
	size_t n = s->nlocations <= max ? s->nlocations : max + 1, k;
	int rc;

	if ((rc = praw_grow(r, &r->stack, &r->stack_cap, n + 1, sizeof(*r->stack))))
		return rc;
	for (k = 0; k < n; k++) {
		uint64_t id = r->ids[s->first_location + k];
		struct raw_location *loc = find_location(r, id);

		if (!loc)
			return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: "
					    "location %llu, which the locations "
					    "do not list", pk_input_name(r->in),
					    (unsigned long long)s->lineno,
					    (unsigned long long)id);
		r->stack[k] = loc->ours;
	}
	return (*stack = pk_profile_intern_stack(r->p, r->stack, n)) ? 0 :
	       praw_no_memory(r);
}

/*
 * The stacks of half the samples, found on a thread of each half: each
 * distinct one kept once, its locations the profile's, so that the
 * profile has only those to intern (in the order they came, the first
 * half's first). A half gives up (rc) at a sample of an unknown location
 * or deeper than the profile keeps: read one by one, its samples then
 * give the one reader's error, and the stacks it cuts their count.
 */
struct stack_half {
	const struct raw_reader *r;
	size_t from, to;		/* its samples */
	uint32_t *stack_of;		/* a sample's stack here, from 1 */
	uint32_t *data;			/* the stacks' locations */
	size_t ndata, data_cap;
	struct { size_t off, len; } *stacks;
	size_t nstacks, stacks_cap;
	struct pk_idtab tab;
	/* where the profile sums samples anyway, the half's summed by
	 * stack and labels, in the order they came: the profile adds
	 * those few */
	struct { uint32_t stack, labels; } *sums;
	int64_t *sum_values;
	size_t nsums, sums_cap, sum_values_cap;
	struct pk_idtab sum_tab;
	int rc;
};

static int same_half_stack(const void *owner, uint32_t id, const void *key)
{
	const struct stack_half *h = owner;
	const size_t *new_one = key;	/* its locations last in data */
	size_t off = h->stacks[id - 1].off, len = h->stacks[id - 1].len;

	return len == h->ndata - *new_one &&
	       (!len || memcmp(h->data + off, h->data + *new_one, len * sizeof(*h->data)) == 0);
}

/* The half's sample's stack, from 1: its locations appended to data, and
 * taken back when they are a stack before. */
static uint32_t half_stack(struct stack_half *h, const struct raw_sample *s)
{
	const struct raw_reader *r = h->r;
	size_t start = h->ndata, k, slot;
	uint64_t hash;
	uint32_t id;

	if (pki_grow(&h->data, &h->data_cap, h->ndata + s->nlocations + 1,
		     sizeof(*h->data)) < 0)
		return 0;
	for (k = 0; k < s->nlocations; k++) {
		struct raw_location *loc = find_location(r, r->ids[s->first_location + k]);

		if (!loc)
			return 0;
		h->data[h->ndata++] = loc->ours;
	}
	hash = pki_hash_bytes(h->data + start, s->nlocations * sizeof(*h->data), 1);
	if ((id = pki_idtab_find(&h->tab, hash, same_half_stack, h, &start, &slot))) {
		h->ndata = start;
		return id;
	}
	if (h->nstacks >= UINT32_MAX - 1 ||
	    pki_grow(&h->stacks, &h->stacks_cap, h->nstacks + 1, sizeof(*h->stacks)) < 0)
		return 0;
	h->stacks[h->nstacks].off = start;
	h->stacks[h->nstacks++].len = s->nlocations;
	return pki_idtab_insert(&h->tab, slot, hash, (uint32_t)h->nstacks) ? 0 :
	       (uint32_t)h->nstacks;
}

static int same_sum(const void *owner, uint32_t id, const void *key)
{
	const struct stack_half *h = owner;
	const uint32_t *k = key;

	return h->sums[id - 1].stack == k[0] && h->sums[id - 1].labels == k[1];
}

/* A sample of the half's stack added to its sums; -1 when out of memory. */
static int sum_sample(struct stack_half *h, size_t i, uint32_t stack)
{
	const struct raw_reader *r = h->r;
	uint32_t key[2] = { stack, r->samples[i].labels }, id;
	uint64_t hash = pki_hash_u64((uint64_t)key[0] << 32 | key[1]);
	const int64_t *values = r->values + i * r->ntypes;
	size_t slot, k;

	if ((id = pki_idtab_find(&h->sum_tab, hash, same_sum, h, key, &slot))) {
		praw_sum(r, h->sum_values + (size_t)(id - 1) * r->ntypes, values);
		return 0;
	}
	if (pki_grow(&h->sums, &h->sums_cap, h->nsums + 1, sizeof(*h->sums)) < 0 ||
	    pki_grow(&h->sum_values, &h->sum_values_cap, (h->nsums + 1) * r->ntypes + 1,
		     sizeof(*h->sum_values)) < 0)
		return -1;
	h->sums[h->nsums].stack = key[0];
	h->sums[h->nsums].labels = key[1];
	for (k = 0; k < r->ntypes; k++)
		h->sum_values[h->nsums * r->ntypes + k] = values[k];
	h->nsums++;
	return pki_idtab_insert(&h->sum_tab, slot, hash, (uint32_t)h->nsums);
}

static void *find_half_stacks(void *arg)
{
	struct stack_half *h = arg;
	const struct raw_reader *r = h->r;
	size_t max = pki_profile_max_stack(r->p), i;

	h->rc = -1;
	if (!(h->stack_of = malloc((h->to - h->from + 1) * sizeof(*h->stack_of))))
		return NULL;
	for (i = h->from; i < h->to; i++)
		if (r->samples[i].nlocations > max ||
		    !(h->stack_of[i - h->from] = half_stack(h, &r->samples[i])) ||
		    (!r->keeps_order && sum_sample(h, i, h->stack_of[i - h->from])))
			return NULL;
	h->rc = 0;
	return NULL;
}

static void free_half(struct stack_half *h)
{
	free(h->stack_of);
	free(h->data);
	free(h->stacks);
	pki_idtab_release(&h->tab);
	free(h->sums);
	free(h->sum_values);
	pki_idtab_release(&h->sum_tab);
}

/* A half's stacks the profile's, in the order they came, and its
 * samples added; -1 when out of memory. */
static int add_half(struct raw_reader *r, const struct stack_half *h)
{
	uint32_t *ours = malloc((h->nstacks + 1) * sizeof(*ours));
	size_t i;
	int rc = ours ? 0 : -1;

	for (i = 0; i < h->nstacks && !rc; i++)
		if (!(ours[i + 1] = pk_profile_intern_stack(r->p, h->data + h->stacks[i].off,
							    h->stacks[i].len)))
			rc = -1;
	for (i = 0; i < h->nsums && !rc; i++)
		rc = pk_profile_add_sample(r->p, ours[h->sums[i].stack], h->sums[i].labels,
					   0, h->sum_values + i * r->ntypes, r->ntypes) ? -1 : 0;
	/* (kept in order: each sample) */
	for (i = h->from; i < h->to && r->keeps_order && !rc; i++)
		rc = pk_profile_add_sample(r->p, ours[h->stack_of[i - h->from]],
					   r->samples[i].labels, 0,
					   r->values + i * r->ntypes, r->ntypes) ? -1 : 0;
	free(ours);
	return rc;
}

/* The samples added, their stacks found on two threads; 1 where a half
 * gave up (none added then). */
static int add_samples_by_halves(struct raw_reader *r)
{
	struct stack_half half[2];
	pthread_t thread;
	int rc, started;

	memset(half, 0, sizeof(half));
	half[0].r = half[1].r = r;
	half[0].to = half[1].from = r->nsamples / 2;
	half[1].to = r->nsamples;
	started = !pthread_create(&thread, NULL, find_half_stacks, &half[1]);
	find_half_stacks(&half[0]);
	if (started)
		pthread_join(thread, NULL);
	if (!started || half[0].rc || half[1].rc)
		rc = 1;		/* one by one */
	else if (add_half(r, &half[0]) || add_half(r, &half[1]))
		rc = praw_no_memory(r);
	else
		rc = 0;
	free_half(&half[0]);
	free_half(&half[1]);
	return rc;
}

int praw_build(struct raw_reader *r)
{
	size_t max = pki_profile_max_stack(r->p), i;
	uint32_t stack = 0;
	int rc;

	/* (an empty table may be a null pointer, which qsort and bsearch
	 * must not see) */
	if (r->nmappings)
		qsort(r->mappings, r->nmappings, sizeof(*r->mappings), by_mapping_id);
	/* the ids rising, as pprof prints them, the locations kept came in
	 * the order of their first ids, which name none twice */
	for (i = 0; !r->ids_unordered && i < r->nlocations; i++)
		if ((rc = intern_location(r, &r->locations[i], r->locations[i].first_id)))
			return rc;
	if (r->ids_unordered && !in_order(r->location_ids, r->nlocation_ids))
		qsort(r->location_ids, r->nlocation_ids, sizeof(*r->location_ids),
		      by_location_id);
	/* else in the order of the ids, as they were listed */
	for (i = 0; r->ids_unordered && i < r->nlocation_ids; i++) {
		const struct raw_location_id *at = &r->location_ids[i];
		struct raw_location *loc = &r->locations[at->location];

		if (i && at->id == at[-1].id)
			return pk_error_set(r->ctx, PK_EINPUT, "%s: location %llu "
					    "listed twice", pk_input_name(r->in),
					    (unsigned long long)at->id);
		if (!loc->ours && (rc = intern_location(r, loc, at->id)))
			return rc;
	}
	if (r->threads && r->nsamples >= MIN_HALVES &&
	    (rc = add_samples_by_halves(r)) != 1)
		return rc;
	for (i = 0; i < r->nsamples; i++) {
		const struct raw_sample *s = &r->samples[i];

		if ((rc = sample_stack(r, s, max, &stack)))
			return rc;
		if (pk_profile_add_sample(r->p, stack, s->labels, 0,
					  r->values + i * r->ntypes, r->ntypes))
			return praw_no_memory(r);
	}
	return 0;
}
