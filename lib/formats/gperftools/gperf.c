/* SPDX-License-Identifier: MIT */
/*
 * What every gperftools legacy profile shares (cpu.c,
 * heap.c): the memory map that ends the file, and the way
 * pprof turns samples and that map into a profile: ParseProcMaps,
 * massageMappings, remapMappingIDs and the clean-ups of CPU and thread
 * stacks, in the order pprof applies them, so that `pprof -raw` of our
 * output prints what `pprof -raw` of the legacy file prints.
 */
#include <stdlib.h>
#include <string.h>

#include "gperf.h"
#include "core/internal.h"
#include "util/strbuf.h"

/* Values kept per scratch sample beyond the reader's own (at most 4). */
#define GPERF_MAX_VALUES 4
#define COL_RECORDS GPERF_MAX_VALUES	/* input records summed here */
#define SCRATCH_COLUMNS (GPERF_MAX_VALUES + 1)

/* Location mapping states besides "index + 1" into maps[]. */
#define LOC_UNSEEN UINT32_MAX
#define LOC_NO_MAPPING 0

/*
 * Label set of records whose values are all zero: pprof's merge drops
 * them, but they still count for its clean-ups and for the order in
 * which locations meet mappings, so they are kept apart from the rest.
 */
#define ZERO_RECORD UINT32_MAX

struct gperf_map {
	uint64_t start, limit, offset;
	pk_str file, build_id;	/* in the scratch profile */
	uint32_t id;		/* in the output profile, 0 until used */
};

struct gperf_sample {
	size_t first;		/* index of its stack in frames[] */
	uint32_t depth;
	uint32_t labels;	/* label set of the output profile */
	const int64_t *values;	/* scratch columns */
};

struct pk_gperf {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;

	/*
	 * Samples go to a scratch profile first: pprof's clean-ups look at
	 * all of them, and the memory map that gives locations their
	 * mappings comes last. Its locations are plain addresses.
	 */
	struct pk_profile *scratch;
	uint32_t *stack;
	size_t stack_cap;

	struct gperf_map *maps;
	size_t nmaps, maps_cap;
	pk_str *attrs;		/* "$name", value pairs, in scratch */
	size_t nattrs, attrs_cap;
	struct pk_strbuf line;

	/* set up by pki_gperf_finish */
	struct gperf_sample *samples;
	size_t nsamples;
	uint32_t *frames;
	size_t nframes;
	uint32_t *loc_map;	/* scratch location -> map index + 1 */
	uint32_t *out_loc;	/* scratch location -> output location, 0 */
	int fake_used;		/* by a location */
	uint32_t fake_id;
};

static int gperf_nomem(struct pk_gperf *g)
{
	return pk_error_set(g->ctx, PK_ENOMEM, "%s: out of memory",
			    pk_input_name(g->in));
}

struct pk_gperf *pki_gperf_new(struct pk_context *ctx, struct pk_input *in,
			       struct pk_profile *p)
{
	struct pk_gperf *g = calloc(1, sizeof(*g));
	size_t i;

	if (!g)
		goto fail;
	g->ctx = ctx;
	g->in = in;
	g->p = p;
	g->scratch = pk_profile_new(0);
	if (!g->scratch)
		goto fail;
	pk_profile_set_memory_limit(g->scratch, pk_context_max_memory(ctx));
	for (i = 0; i < SCRATCH_COLUMNS; i++)
		if (pk_profile_add_sample_type(g->scratch, "v", "count", NULL,
					       PK_VALUE_COUNT) < 0)
			goto fail;
	return g;
fail:
	pki_gperf_free(g);
	pk_error_set(ctx, PK_ENOMEM, "%s: out of memory", pk_input_name(in));
	return NULL;
}

void pki_gperf_free(struct pk_gperf *g)
{
	if (!g)
		return;
	pk_profile_free(g->scratch);
	free(g->stack);
	free(g->maps);
	free(g->attrs);
	free(g->line.s);
	free(g->samples);
	free(g->frames);
	free(g->loc_map);
	free(g->out_loc);
	free(g);
}

int pki_gperf_add(struct pk_gperf *g, const uint64_t *addrs, size_t n,
		  const int64_t *values, size_t nvalues, uint32_t labels)
{
	int64_t v[SCRATCH_COLUMNS] = { 0 };
	int nonzero = 0;
	uint32_t stack;
	size_t i;

	if (nvalues > GPERF_MAX_VALUES)
		return pk_error_set(g->ctx, PK_EUSAGE, "internal: %zu values",
				    nvalues);
	if (pki_grow(&g->stack, &g->stack_cap, n ? n : 1, sizeof(*g->stack)) < 0)
		return gperf_nomem(g);
	for (i = 0; i < n; i++) {
		g->stack[i] = pk_profile_intern_location(g->scratch, 0, addrs[i],
							 NULL, 0);
		if (!g->stack[i])
			return gperf_nomem(g);
	}
	stack = pk_profile_intern_stack(g->scratch, g->stack, n);
	for (i = 0; i < nvalues; i++) {
		v[i] = values[i];
		nonzero |= values[i] != 0;
	}
	v[COL_RECORDS] = 1;
	if (!nonzero)
		labels = ZERO_RECORD;
	if (!stack || pk_profile_add_sample(g->scratch, stack, labels, 0, v,
					    SCRATCH_COLUMNS))
		return gperf_nomem(g);
	return 0;
}

/* ---- the memory map text, as pprof's parseMappingEntry ---- */

static int re_space(char c)
{
	/* RE2's \s */
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int go_space(char c)
{
	/* Go's strings.TrimSpace, ASCII part */
	return re_space(c) || c == '\v';
}

static int is_xdigit(char c)
{
	return pki_hexval(c) >= 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_perm(char c)
{
	return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p';
}

/* Hex digits [a, b) as a number; -1 when it does not fit 64 bits. */
static int hex_value(const char *s, size_t a, size_t b, uint64_t *v)
{
	uint64_t x = 0;

	for (; a < b; a++) {
		if (x >> 60)
			return -1;
		x = (x << 4) | (uint64_t)pki_hexval(s[a]);
	}
	*v = x;
	return 0;
}

static size_t span(const char *s, size_t len, size_t i, int (*cls)(char))
{
	while (i < len && cls(s[i]))
		i++;
	return i;
}

/* "0x" followed by a hex digit at i. */
static int hex_prefix(const char *s, size_t len, size_t i)
{
	return i + 2 < len && s[i] == '0' && s[i + 1] == 'x' &&
	       is_xdigit(s[i + 2]);
}

struct map_fields {
	size_t start[2], end[2];	/* the address range's digits */
	const char *perm, *file, *offset, *build_id;
	size_t perm_len, file_len, offset_len, build_id_len;
};

/*
 * `\s*(?:0x)?HEX[\s-]?\s*(?:0x)?HEX:?` at the start of the line. Returns
 * the index after it, or 0 when the line does not start with a range.
 * As the regular expression would backtrack, "1000x2000"-like runs
 * split before their last digit.
 */
static size_t parse_range(const char *s, size_t len, struct map_fields *f)
{
	size_t i = span(s, len, 0, re_space), a, b, j;

	if (hex_prefix(s, len, i))
		i += 2;
	a = i;
	b = span(s, len, a, is_xdigit);
	if (b == a)
		return 0;
	j = b;
	if (j < len && (re_space(s[j]) || s[j] == '-'))
		j++;
	j = span(s, len, j, re_space);
	if (hex_prefix(s, len, j))
		j += 2;
	f->start[0] = a;
	f->end[0] = b;
	f->start[1] = j;
	f->end[1] = span(s, len, j, is_xdigit);
	if (f->end[1] == j) {
		if (b - a < 2)
			return 0;
		f->end[0] = b - 1;
		f->start[1] = b - 1;
		f->end[1] = b;
	}
	j = f->end[1];
	if (j < len && s[j] == ':')
		j++;
	return j;
}

/* The token after \s+ at *i, or NULL when no space or no token. */
static const char *next_token(const char *s, size_t len, size_t *i,
			      size_t *tok_len)
{
	size_t a = *i, b;

	if (a >= len || !re_space(s[a]))
		return NULL;
	a = span(s, len, a, re_space);
	b = a;
	while (b < len && !re_space(s[b]))
		b++;
	if (b == a)
		return NULL;
	*i = b;
	*tok_len = b - a;
	return s + a;
}

static int all_of(const char *t, size_t n, int (*cls)(char))
{
	return span(t, n, 0, cls) == n;
}

static int is_dev(const char *t, size_t n)
{
	const char *colon = memchr(t, ':', n);
	size_t k;

	if (!colon)
		return 0;
	k = (size_t)(colon - t);
	return k > 0 && k + 1 < n && all_of(t, k, is_xdigit) &&
	       all_of(colon + 1, n - k - 1, is_xdigit);
}

/* "start-end perms offset dev inode path", as /proc/self/maps. */
static int parse_proc_line(const char *s, size_t len, size_t i,
			   struct map_fields *f)
{
	const char *t;
	size_t n;

	t = next_token(s, len, &i, &n);
	if (t && all_of(t, n, is_perm)) {
		f->perm = t;
		f->perm_len = n;
		t = next_token(s, len, &i, &n);
	}
	if (t && all_of(t, n, is_xdigit)) {
		f->offset = t;
		f->offset_len = n;
		t = next_token(s, len, &i, &n);
	}
	if (!t || !is_dev(t, n))
		return -1;
	t = next_token(s, len, &i, &n);
	if (!t || !is_digit(t[0]))
		return -1;
	if (all_of(t, n, is_digit))
		f->file = next_token(s, len, &i, &f->file_len);
	return 0;
}

/* "start-end [perms] [path] [(@offset)] [build id]", all optional. */
static void parse_brief_line(const char *s, size_t len, size_t i,
			     struct map_fields *f)
{
	size_t j = i, n, k;
	const char *t = next_token(s, len, &j, &n);

	if (t && is_perm(t[0])) {
		/* As the regexp: the longest perms prefix, even of a word. */
		f->perm = t;
		f->perm_len = span(t, n, 0, is_perm);
		if (f->perm_len < n)
			return;
		i = j;
	}
	f->file = next_token(s, len, &i, &f->file_len);
	if (!f->file)
		return;
	j = i;
	t = next_token(s, len, &j, &n);
	if (t && n >= 4 && t[0] == '(' && t[1] == '@') {
		k = span(t, n, 2, is_xdigit);
		if (k > 2 && k < n && t[k] == ')') {
			f->offset = t + 2;
			f->offset_len = k - 2;
			i = (size_t)(t - s) + k + 1;
		}
	}
	t = next_token(s, len, &i, &n);
	if (t && is_xdigit(t[0])) {
		f->build_id = t;
		f->build_id_len = span(t, n, 0, is_xdigit);
	}
}

/*
 * One line of the map: 1 and *m filled for an executable mapping, 0 for
 * a mapping to skip, -1 for a line that is no mapping at all.
 */
static int parse_map_line(struct pk_gperf *g, const char *s, size_t len,
			  struct gperf_map *m)
{
	struct map_fields f;
	size_t i;

	memset(&f, 0, sizeof(f));
	memset(m, 0, sizeof(*m));
	i = parse_range(s, len, &f);
	if (!i)
		return -1;
	if (parse_proc_line(s, len, i, &f) < 0) {
		struct map_fields brief = f;

		brief.perm = brief.offset = brief.file = NULL;
		brief.perm_len = brief.offset_len = brief.file_len = 0;
		parse_brief_line(s, len, i, &brief);
		f = brief;
	}
	if (f.perm && !memchr(f.perm, 'x', f.perm_len))
		return 0;
	if (hex_value(s, f.start[0], f.end[0], &m->start) < 0 ||
	    hex_value(s, f.start[1], f.end[1], &m->limit) < 0 ||
	    (f.offset && hex_value(f.offset, 0, f.offset_len, &m->offset) < 0))
		return -1;
	if (f.file)
		m->file = pk_profile_intern(g->scratch, f.file, f.file_len);
	if (f.build_id)
		m->build_id = pk_profile_intern(g->scratch, f.build_id,
						f.build_id_len);
	return 1;
}

/* glog's "I0102 03:04:05.678 file.cc:12] " before the text, or 0. */
static size_t log_prefix(const char *s, size_t len)
{
	const char *close = memchr(s, ']', len);
	size_t r, d;

	if (!close)
		return 0;
	r = (size_t)(close - s);
	if (memchr(s, '[', r) || r + 1 >= len || !re_space(s[r + 1]))
		return 0;
	d = r;
	while (d > 0 && is_digit(s[d - 1]))
		d--;
	if (d == r || d < 2 || s[d - 1] != ':')
		return 0;
	return r + 2;
}

/* Replace each "$name" defined by an earlier "name=value" line. */
static int expand_attrs(struct pk_gperf *g, const char *s, size_t len)
{
	size_t i = 0, k;

	g->line.len = 0;
	if (pki_strbuf_add(&g->line, "", 0) < 0)
		return -1;
	while (i < len) {
		for (k = 0; k < g->nattrs; k += 2) {
			const char *name = pk_profile_string(g->scratch, g->attrs[k]);
			size_t n = pk_profile_string_len(g->scratch, g->attrs[k]);

			if (n <= len - i && memcmp(s + i, name, n) == 0)
				break;
		}
		if (k < g->nattrs) {
			pk_str v = g->attrs[k + 1];

			if (pki_strbuf_add(&g->line, pk_profile_string(g->scratch, v),
				   pk_profile_string_len(g->scratch, v)) < 0)
				return -1;
			i += pk_profile_string_len(g->scratch, g->attrs[k]);
		} else {
			if (pki_strbuf_add(&g->line, s + i, 1) < 0)
				return -1;
			i++;
		}
	}
	return 0;
}

void pki_gperf_trim(const char **s, size_t *len)
{
	while (*len && go_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && go_space((*s)[*len - 1]))
		(*len)--;
}

/* "name=value": later lines may say $name. */
static int define_attr(struct pk_gperf *g, const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len), *key = s, *val;
	size_t klen, vlen;
	char *name;
	pk_str k, v;

	if (!eq)
		return 0;
	klen = (size_t)(eq - s);
	val = eq + 1;
	vlen = len - klen - 1;
	pki_gperf_trim(&key, &klen);
	pki_gperf_trim(&val, &vlen);
	name = malloc(klen + 2);
	if (!name)
		return -1;
	name[0] = '$';
	memcpy(name + 1, key, klen);
	k = pk_profile_intern(g->scratch, name, klen + 1);
	free(name);
	v = pk_profile_intern(g->scratch, val, vlen);
	if (!k || (vlen && !v) ||
	    pki_grow(&g->attrs, &g->attrs_cap, g->nattrs + 2,
		    sizeof(*g->attrs)) < 0)
		return -1;
	g->attrs[g->nattrs++] = k;
	g->attrs[g->nattrs++] = v;
	return 0;
}

/*
 * Feed one line of the memory map. Returns 1 for a mapping, 0 for any
 * other line (ignored, as pprof and gperftools' docs say), <0 on error.
 */
int pki_gperf_map_line(struct pk_gperf *g, const char *line, size_t len)
{
	size_t skip = log_prefix(line, len);
	struct gperf_map m;
	int rc;

	if (expand_attrs(g, line + skip, len - skip) < 0)
		return gperf_nomem(g);
	rc = parse_map_line(g, g->line.s, g->line.len, &m);
	if (pk_profile_failed(g->scratch))
		return gperf_nomem(g);
	if (rc < 0)
		return define_attr(g, g->line.s, g->line.len) < 0 ?
			gperf_nomem(g) : 0;
	if (rc == 0)
		return 0;
	if (pki_grow(&g->maps, &g->maps_cap, g->nmaps + 1, sizeof(*g->maps)) < 0)
		return gperf_nomem(g);
	g->maps[g->nmaps++] = m;
	return 1;
}

size_t pki_gperf_map_count(const struct pk_gperf *g)
{
	return g->nmaps;
}

/* ---- pprof's massageMappings ---- */

static int adjacent(const struct gperf_map *a, const struct gperf_map *b)
{
	if (a->file && b->file && a->file != b->file)
		return 0;
	if (a->build_id && b->build_id && a->build_id != b->build_id)
		return 0;
	if (a->limit != b->start)
		return 0;
	if (a->offset && b->offset &&
	    a->offset + (a->limit - a->start) != b->offset)
		return 0;
	return 1;
}

static void merge_adjacent(struct pk_gperf *g)
{
	size_t n = 0, i;

	for (i = 0; i < g->nmaps; i++) {
		struct gperf_map *last = n ? &g->maps[n - 1] : NULL;
		const struct gperf_map *m = &g->maps[i];

		if (last && adjacent(last, m)) {
			last->limit = m->limit;
			if (m->file)
				last->file = m->file;
			if (m->build_id)
				last->build_id = m->build_id;
			continue;
		}
		g->maps[n++] = *m;
	}
	g->nmaps = n;
}

/* pprof's libRx: "\.so$" or "\.so[._][0-9]+" anywhere. */
static int looks_like_library(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 3 <= len; i++) {
		if (memcmp(s + i, ".so", 3) != 0)
			continue;
		if (i + 3 == len)
			return 1;
		if (i + 4 < len && (s[i + 3] == '.' || s[i + 3] == '_') &&
		    is_digit(s[i + 4]))
			return 1;
	}
	return 0;
}

/* The file name without "(deleted)" and surrounding space, in g->line. */
static int main_candidate(struct pk_gperf *g, pk_str file)
{
	const char *s = pk_profile_string(g->scratch, file), *d;
	size_t len = pk_profile_string_len(g->scratch, file), n;
	const char *t;

	g->line.len = 0;
	while ((d = memmem(s, len, "(deleted)", 9))) {
		if (pki_strbuf_add(&g->line, s, (size_t)(d - s)) < 0)
			return -1;
		len -= (size_t)(d - s) + 9;
		s = d + 9;
	}
	if (pki_strbuf_add(&g->line, s, len) < 0)
		return -1;
	t = g->line.s;
	n = g->line.len;
	pki_gperf_trim(&t, &n);
	return n && t[0] != '[' && !looks_like_library(t, n);
}

/* The main binary goes first: pprof swaps it with the first mapping. */
static int move_main_first(struct pk_gperf *g)
{
	size_t i;

	for (i = 0; i < g->nmaps; i++) {
		int rc = main_candidate(g, g->maps[i].file);

		if (rc < 0)
			return rc;
		if (rc) {
			struct gperf_map t = g->maps[0];

			g->maps[0] = g->maps[i];
			g->maps[i] = t;
			return 0;
		}
	}
	return 0;
}

/* ---- pprof's remapMappingIDs ---- */

static void fix_main_mapping(struct pk_gperf *g)
{
	const char *file;

	if (g->nmaps > 1) {
		file = pk_profile_string(g->scratch, g->maps[0].file);
		if (strncmp(file, "/anon_hugepage", 14) == 0 &&
		    g->maps[0].limit == g->maps[1].start) {
			memmove(g->maps, g->maps + 1,
				(g->nmaps - 1) * sizeof(*g->maps));
			g->nmaps--;
		}
	}
	if (g->nmaps && g->maps[0].start - g->maps[0].offset == 0x400000) {
		g->maps[0].start = 0x400000;
		g->maps[0].offset = 0;
	}
}

/* The mapping of an address, as pprof assigns it (maps may change). */
static uint32_t find_mapping(struct pk_gperf *g, uint64_t a)
{
	uint32_t fake = (uint32_t)g->nmaps + 1;
	size_t i;

	if (!a)
		return LOC_NO_MAPPING;
	for (i = 0; i < g->nmaps; i++)
		if (g->maps[i].start <= a && a < g->maps[i].limit)
			return (uint32_t)i + 1;
	/* pprof appends the fake mapping to its list: it covers the rest. */
	if (g->fake_used)
		return fake;
	/* Legacy handlers lost the first part of split mappings. */
	for (i = 0; i < g->nmaps; i++) {
		struct gperf_map *m = &g->maps[i];

		if (m->offset && m->start - m->offset <= a && a < m->start) {
			m->start -= m->offset;
			m->offset = 0;
			return (uint32_t)i + 1;
		}
	}
	g->fake_used = 1;
	return fake;
}

/* Locations in the order pprof numbers them: first use in a sample. */
static void assign_mappings(struct pk_gperf *g)
{
	size_t i;

	for (i = 0; i < g->nframes; i++) {
		uint32_t loc = g->frames[i];

		if (g->loc_map[loc] == LOC_UNSEEN)
			g->loc_map[loc] = find_mapping(g,
				pk_profile_location(g->scratch, loc)->address);
	}
}

/* ---- pprof's clean-ups of CPU and thread stacks ---- */

static void remove_frame(struct pk_gperf *g, struct gperf_sample *s,
			 size_t index)
{
	uint32_t *f = g->frames + s->first;

	memmove(f + index, f + index + 1,
		(s->depth - index - 1) * sizeof(*f));
	s->depth--;
}

/*
 * A frame at Location[1] of nearly every sample (all but one in 32) was
 * pushed by the signal handler: remove it, twice at most. Counted over
 * input records, as pprof counts before it merges them.
 */
static int strip_handler_frames(struct pk_gperf *g)
{
	size_t nlocs = pk_profile_location_count(g->scratch), i, iter;
	uint64_t records = 0, *count = calloc(nlocs + 1, sizeof(*count));

	if (!count)
		return gperf_nomem(g);
	for (i = 0; i < g->nsamples; i++)
		records += (uint64_t)g->samples[i].values[COL_RECORDS];
	for (iter = 0; iter < 2; iter++) {
		uint32_t found = 0;

		memset(count, 0, (nlocs + 1) * sizeof(*count));
		for (i = 0; i < g->nsamples; i++) {
			const struct gperf_sample *s = &g->samples[i];

			if (s->depth > 1)
				count[g->frames[s->first + 1]] +=
					(uint64_t)s->values[COL_RECORDS];
		}
		for (i = 1; i <= nlocs && !found; i++)
			if (count[i] && count[i] >= records - records / 32)
				found = (uint32_t)i;
		for (i = 0; found && i < g->nsamples; i++) {
			struct gperf_sample *s = &g->samples[i];

			if (s->depth > 1 && g->frames[s->first + 1] == found)
				remove_frame(g, s, 1);
		}
	}
	free(count);
	return 0;
}

/* The leaf again, as the return address before it (address + 1). */
static void drop_duplicate_leaves(struct pk_gperf *g)
{
	size_t i;

	for (i = 0; i < g->nsamples; i++) {
		struct gperf_sample *s = &g->samples[i];
		const uint32_t *f = g->frames + s->first;

		if (s->depth > 1 &&
		    pk_profile_location(g->scratch, f[0])->address ==
		    pk_profile_location(g->scratch, f[1])->address + 1)
			remove_frame(g, s, 1);
	}
}

/* ---- building the output profile ---- */

static int collect_samples(struct pk_gperf *g)
{
	size_t n = pk_profile_sample_count(g->scratch), i, depth, total = 0;
	size_t nlocs = pk_profile_location_count(g->scratch);

	for (i = 0; i < n; i++) {
		pk_profile_stack(g->scratch, pk_profile_sample(g->scratch, i)->stack,
				 &depth);
		total += depth;
	}
	g->samples = calloc(n ? n : 1, sizeof(*g->samples));
	g->frames = malloc((total ? total : 1) * sizeof(*g->frames));
	g->loc_map = malloc((nlocs + 1) * sizeof(*g->loc_map));
	if (!g->samples || !g->frames || !g->loc_map)
		return gperf_nomem(g);
	for (i = 0; i <= nlocs; i++)
		g->loc_map[i] = LOC_UNSEEN;
	for (i = 0; i < n; i++) {
		const struct pk_sample *ps = pk_profile_sample(g->scratch, i);
		const uint32_t *stack = pk_profile_stack(g->scratch, ps->stack,
							 &depth);
		struct gperf_sample *s = &g->samples[i];

		s->first = g->nframes;
		s->depth = (uint32_t)depth;
		s->labels = ps->labels;
		s->values = pk_profile_sample_values(g->scratch, i);
		if (depth)
			memcpy(g->frames + g->nframes, stack,
			       depth * sizeof(*stack));
		g->nframes += depth;
	}
	g->nsamples = n;
	return 0;
}

static uint32_t output_mapping(struct pk_gperf *g, uint32_t index)
{
	struct pk_mapping m = { 0 };
	struct gperf_map *gm;

	if (index == LOC_NO_MAPPING)
		return 0;
	if (index > g->nmaps) {
		/* pprof's stand-in for addresses outside every mapping */
		if (!g->fake_id) {
			m.limit = UINT64_MAX;
			g->fake_id = pk_profile_intern_mapping(g->p, &m);
		}
		return g->fake_id;
	}
	gm = &g->maps[index - 1];
	if (!gm->id) {
		m.start = gm->start;
		m.limit = gm->limit;
		m.offset = gm->offset;
		m.file = pk_profile_intern(g->p,
			pk_profile_string(g->scratch, gm->file),
			pk_profile_string_len(g->scratch, gm->file));
		m.build_id = pk_profile_intern(g->p,
			pk_profile_string(g->scratch, gm->build_id),
			pk_profile_string_len(g->scratch, gm->build_id));
		gm->id = pk_profile_intern_mapping(g->p, &m);
	}
	return gm->id;
}

static int emit_sample(struct pk_gperf *g, const struct gperf_sample *s,
		       size_t nvalues)
{
	size_t i;
	uint32_t stack;

	if (pki_grow(&g->stack, &g->stack_cap, s->depth ? s->depth : 1,
		    sizeof(*g->stack)) < 0)
		return gperf_nomem(g);
	for (i = 0; i < s->depth; i++) {
		uint32_t loc = g->frames[s->first + i];

		/* each location once: its mapping and address are fixed */
		if (!g->out_loc[loc])
			g->out_loc[loc] = pk_profile_intern_location(g->p,
				output_mapping(g, g->loc_map[loc]),
				pk_profile_location(g->scratch, loc)->address,
				NULL, 0);
		if (!(g->stack[i] = g->out_loc[loc]))
			return gperf_nomem(g);
	}
	stack = pk_profile_intern_stack(g->p, g->stack, s->depth);
	if (!stack || pk_profile_add_sample(g->p, stack, s->labels, 0,
					    s->values, nvalues))
		return gperf_nomem(g);
	return 0;
}

int pki_gperf_finish(struct pk_gperf *g, unsigned fixups)
{
	size_t nvalues = pk_profile_sample_type_count(g->p), i;
	int rc;

	if (pk_profile_failed(g->scratch))
		return gperf_nomem(g);
	if (nvalues > GPERF_MAX_VALUES)
		return pk_error_set(g->ctx, PK_EUSAGE, "internal: %zu values",
				    nvalues);
	rc = collect_samples(g);
	if (!rc && (fixups & PK_GPERF_STRIP_HANDLER_FRAMES))
		rc = strip_handler_frames(g);
	if (rc)
		return rc;
	merge_adjacent(g);
	if (move_main_first(g) < 0)
		return gperf_nomem(g);
	fix_main_mapping(g);
	assign_mappings(g);
	if (fixups & PK_GPERF_DROP_DUPLICATE_LEAF)
		drop_duplicate_leaves(g);
	/* As pprof's merge: its first mapping (the main binary) comes
	 * first, even unused; with no map that is the stand-in. */
	if (g->nmaps || g->fake_used)
		output_mapping(g, 1);
	free(g->out_loc);
	g->out_loc = calloc(pk_profile_location_count(g->scratch) + 1,
			    sizeof(*g->out_loc));
	if (!g->out_loc)
		return gperf_nomem(g);
	for (i = 0; i < g->nsamples && !rc; i++)
		if (g->samples[i].labels != ZERO_RECORD)
			rc = emit_sample(g, &g->samples[i], nvalues);
	if (!rc && pk_profile_failed(g->p))
		rc = gperf_nomem(g);
	return rc;
}

/*
 * The frames pprof hides in each kind of legacy profile (its
 * cpuProfilerRx, allocRx, allocSkipRx and lockRx), kept in the profile
 * as pprof's drop_frames and keep_frames so that pprof hides them in
 * our output too: the profiler's signal handler, the allocator, the
 * mutex implementation.
 */
static const char cpu_drop_frames[] =
	"ProfileData::Add|ProfileData::prof_handler|CpuProfiler::prof_handler|"
	"__pthread_sighandler|__restore";
static const char alloc_drop_frames[] =
	"calloc|cfree|malloc|free|memalign|do_memalign|(__)?posix_memalign|"
	"pvalloc|valloc|realloc|tcmalloc::.*|tc_calloc|tc_cfree|tc_malloc|"
	"tc_free|tc_memalign|tc_posix_memalign|tc_pvalloc|tc_valloc|"
	"tc_realloc|tc_new|tc_delete|tc_newarray|tc_deletearray|"
	"tc_new_nothrow|tc_newarray_nothrow|malloc_zone_malloc|"
	"malloc_zone_calloc|malloc_zone_valloc|malloc_zone_realloc|"
	"malloc_zone_memalign|malloc_zone_free|runtime\\..*|BaseArena::.*|"
	"(::)?do_malloc_no_errno|(::)?do_malloc_pages|(::)?do_malloc|"
	"DoSampledAllocation|MallocedMemBlock::MallocedMemBlock|_M_allocate|"
	"__builtin_(vec_)?delete|__builtin_(vec_)?new|"
	"__gnu_cxx::new_allocator::allocate|__libc_malloc|"
	"__malloc_alloc_template::allocate|allocate|cpp_alloc|"
	"operator new(\\[\\])?|simple_alloc::allocate";
static const char alloc_keep_frames[] =
	"runtime\\.panic|runtime\\.reflectcall|runtime\\.call[0-9]*";
static const char lock_drop_frames[] =
	"RecordLockProfileData|(base::)?RecordLockProfileData.*|"
	"(base::)?SubmitMutexProfileData.*|(base::)?SubmitSpinLockProfileData.*|"
	"(base::Mutex::)?AwaitCommon.*|(base::Mutex::)?Unlock.*|"
	"(base::Mutex::)?UnlockSlow.*|(base::Mutex::)?ReaderUnlock.*|"
	"(base::MutexLock::)?~MutexLock.*|(Mutex::)?AwaitCommon.*|"
	"(Mutex::)?Unlock.*|(Mutex::)?UnlockSlow.*|(Mutex::)?ReaderUnlock.*|"
	"(MutexLock::)?~MutexLock.*|(SpinLock::)?Unlock.*|"
	"(SpinLock::)?SlowUnlock.*|(SpinLockHolder::)?~SpinLockHolder.*";

void pki_gperf_set_hidden_frames(struct pk_profile *p, enum pk_gperf_kind kind)
{
	switch (kind) {
	case PK_GPERF_CPU:
		pk_profile_set_meta(p, PK_META_DROP_FRAMES, cpu_drop_frames);
		break;
	case PK_GPERF_HEAP:
		pk_profile_set_meta(p, PK_META_DROP_FRAMES, alloc_drop_frames);
		pk_profile_set_meta(p, PK_META_KEEP_FRAMES, alloc_keep_frames);
		break;
	case PK_GPERF_LOCK:
		pk_profile_set_meta(p, PK_META_DROP_FRAMES, lock_drop_frames);
		break;
	}
}
