/* SPDX-License-Identifier: MIT */
/*
 * Reader for `perf script` text: a header line per sample
 *
 *     comm  pid/tid [cpu] secs.usecs: period event: [trace fields]
 *
 * (fields optional, comm may hold spaces), then callchain lines
 *
 *     addr symbol+0xoff (dso)
 *
 * leaf first, and a blank line; without callchains the frame ends the
 * header line and no blank line follows. Frame lines repeat endlessly in
 * a large input, so each distinct frame text is parsed only once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "idtab.h"
#include "internal.h"

#define MAX_TOKENS 64
#define MAX_WARNINGS 5

struct event_columns {
	int count, weight;	/* columns in the profile, -1 for none */
};

struct frame_entry {
	pk_str text;
	uint32_t loc;
};

struct ps_record {
	int active;
	int single_line;	/* the frame was on the header line */
	pk_str comm;
	int64_t pid, tid, cpu;	/* -1 when not printed */
	uint64_t time;
	int64_t period;		/* -1 when not printed */
	pk_str event;
};

struct ps_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct ps_record rec;

	uint32_t *frames;	/* location ids, leaf first */
	size_t nframes, frames_cap;
	uint32_t pending[32];	/* "(inlined)" frames not yet merged */
	size_t npending;
	pk_str str_inlined;

	/*
	 * frame text -> location, so a repeated line costs one lookup keyed
	 * by its address (cheap to hash) and one memcmp
	 */
	struct pk_profile *frame_text;
	struct frame_entry *frame_cache;
	size_t nframe_cache, frame_cache_cap;
	struct pk_idtab frame_tab;
	uint32_t last_labels;	/* records of one thread repeat their labels */
	struct pk_label last_label_set[4];
	size_t last_nlabels;

	int64_t *values;
	size_t values_cap;

	pk_str key_pid, key_tid, key_comm, key_cpu;
	uint64_t records, bad_lines;
};

struct token {
	const char *s;
	size_t len;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int all_digits(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int64_t parse_decimal(const char *s, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return INT64_MAX;	/* saturate, never overflow */
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static size_t tokenize(const char *s, size_t len, struct token *tok, size_t max)
{
	size_t n = 0, i = 0;

	while (n < max) {
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			break;
		tok[n].s = s + i;
		while (i < len && !is_space(s[i]))
			i++;
		tok[n].len = (size_t)(tok[n].s + 0 - s);
		tok[n].len = (size_t)(s + i - tok[n].s);
		n++;
	}
	return n;
}

/* "1234" or "1234/5678" */
static int is_pid_token(const struct token *t)
{
	const char *slash = memchr(t->s, '/', t->len);

	if (!slash)
		return all_digits(t->s, t->len);
	return all_digits(t->s, (size_t)(slash - t->s)) &&
	       all_digits(slash + 1, t->len - (size_t)(slash - t->s) - 1);
}

static int is_cpu_token(const struct token *t)
{
	return t->len >= 3 && t->s[0] == '[' && t->s[t->len - 1] == ']' &&
	       all_digits(t->s + 1, t->len - 2);
}

/* "2542.567890:" */
static int is_time_token(const struct token *t)
{
	const char *dot = memchr(t->s, '.', t->len);

	return dot && t->len >= 4 && t->s[t->len - 1] == ':' &&
	       all_digits(t->s, (size_t)(dot - t->s)) &&
	       all_digits(dot + 1, t->len - (size_t)(dot - t->s) - 2);
}

static int ends_with_colon(const struct token *t)
{
	return t->len >= 2 && t->s[t->len - 1] == ':';
}

static uint64_t parse_time(const struct token *t)
{
	const char *dot = memchr(t->s, '.', t->len);
	size_t ndigits = t->len - (size_t)(dot - t->s) - 2, i;
	uint64_t secs = (uint64_t)parse_decimal(t->s, (size_t)(dot - t->s));
	uint64_t frac = 0, scale = 1000000000;

	for (i = 0; i < ndigits && i < 9; i++) {
		frac = frac * 10 + (uint64_t)(dot[1 + i] - '0');
		scale /= 10;
	}
	if (secs > UINT64_MAX / 1000000000)
		return UINT64_MAX;
	return secs * 1000000000 + frac * scale;
}

/*
 * The event token without its trailing ':' and without perf's modifier
 * suffix (":ppp", ":u", ":pppH"), which is not part of the event's name:
 * "cpu-clock:pppH:" -> "cpu-clock", "sched:sched_switch:" stays.
 */
static size_t event_name_len(const char *s, size_t len)
{
	const char *colon;
	size_t i;

	len--;			/* the final ':' */
	colon = len ? memrchr(s, ':', len) : NULL;
	if (!colon || colon == s)
		return len;
	for (i = (size_t)(colon - s) + 1; i < len; i++)
		if (!strchr("ukhHGpPSDIWe", s[i]))
			return len;
	return (size_t)(colon - s);
}

static int set_event(struct ps_reader *r, const struct token *t)
{
	r->rec.event = pk_profile_intern(r->p, t->s, event_name_len(t->s, t->len));
	return 0;
}

/*
 * Find the pid token: the first "N" or "N/M" followed by what perf prints
 * after a pid ([cpu], a time, or the event). Everything before it is the
 * comm, spaces and trailing digits included ("work er 0  5958 [000]").
 */
static size_t find_pid_token(const struct token *tok, size_t n)
{
	size_t k;

	for (k = 1; k + 1 < n; k++)
		if (is_pid_token(&tok[k]) &&
		    (is_cpu_token(&tok[k + 1]) || is_time_token(&tok[k + 1]) ||
		     ends_with_colon(&tok[k + 1])))
			return k;
	return 0;
}

static int is_header(const char *line, size_t len)
{
	struct token tok[MAX_TOKENS];

	return find_pid_token(tok, tokenize(line, len, tok, MAX_TOKENS)) != 0;
}

static int parse_header(struct ps_reader *r, const char *line, size_t len,
			const char **trailer, size_t *trailer_len)
{
	struct token tok[MAX_TOKENS];
	size_t n = tokenize(line, len, tok, MAX_TOKENS), k, j;
	const char *slash;

	k = find_pid_token(tok, n);
	if (!k)
		return -1;
	memset(&r->rec, 0, sizeof(r->rec));
	r->rec.active = 1;
	r->rec.cpu = -1;
	r->rec.period = -1;
	r->rec.comm = pk_profile_intern(r->p, tok[0].s,
					(size_t)(tok[k - 1].s + tok[k - 1].len - tok[0].s));
	slash = memchr(tok[k].s, '/', tok[k].len);
	if (slash) {
		r->rec.pid = parse_decimal(tok[k].s, (size_t)(slash - tok[k].s));
		r->rec.tid = parse_decimal(slash + 1, tok[k].len - (size_t)(slash - tok[k].s) - 1);
	} else {
		/* perf script prints the tid alone by default */
		r->rec.pid = -1;
		r->rec.tid = parse_decimal(tok[k].s, tok[k].len);
	}
	j = k + 1;
	if (j < n && is_cpu_token(&tok[j])) {
		r->rec.cpu = parse_decimal(tok[j].s + 1, tok[j].len - 2);
		j++;
	}
	if (j < n && is_time_token(&tok[j])) {
		r->rec.time = parse_time(&tok[j]);
		j++;
	}
	if (j + 1 < n && all_digits(tok[j].s, tok[j].len) &&
	    ends_with_colon(&tok[j + 1])) {
		r->rec.period = parse_decimal(tok[j].s, tok[j].len);
		j++;
	}
	if (j < n && ends_with_colon(&tok[j])) {
		set_event(r, &tok[j]);
		j++;
	}
	*trailer = j < n ? tok[j].s : line + len;
	*trailer_len = (size_t)(line + len - *trailer);
	return 0;
}

/* ---- frames ---- */

/* Split "addr symbol (dso)"; the dso is the parenthesized group that ends
 * the line, matched from the end so a dso may hold spaces and parens. */
static int split_frame(const char *s, size_t len, uint64_t *addr,
		       struct token *sym, struct token *dso)
{
	size_t i = 0, end, depth = 0;
	uint64_t a = 0;

	while (i < len && pki_hexval(s[i]) >= 0) {
		a = (a << 4) | (uint64_t)pki_hexval(s[i]);
		i++;
	}
	if (i == 0 || i > 16 || i == len || !is_space(s[i]))
		return -1;
	while (i < len && is_space(s[i]))
		i++;
	end = len;
	while (end > i && is_space(s[end - 1]))
		end--;
	if (end <= i || s[end - 1] != ')')
		return -1;
	for (size_t j = end; j-- > i;) {
		if (s[j] == ')')
			depth++;
		else if (s[j] == '(' && --depth == 0) {
			size_t sym_end = j;

			/* "operator()(int)" is part of a name: keep going */
			if (j != i && !is_space(s[j - 1]))
				continue;
			while (sym_end > i && is_space(s[sym_end - 1]))
				sym_end--;
			*addr = a;
			sym->s = s + i;
			sym->len = sym_end - i;
			dso->s = s + j + 1;
			dso->len = end - 1 - (j + 1);
			return 0;
		}
	}
	return -1;
}

/* "main+0x1d" -> "main": perf 4.8+ prints symbol offsets. */
static size_t strip_offset(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && pki_hexval(s[i - 1]) >= 0)
		i--;
	if (i >= 3 && i < len && s[i - 1] == 'x' && s[i - 2] == '0' &&
	    s[i - 3] == '+')
		return i - 3;
	return len;
}

static uint32_t make_location(struct ps_reader *r, uint64_t addr,
			      const struct token *sym, const struct token *dso)
{
	struct pk_line lines[32];
	struct pk_mapping m = { 0 };
	size_t nlines = 0, len = strip_offset(sym->s, sym->len), start = 0, i;

	m.file = pk_profile_intern(r->p, dso->s, dso->len);
	/*
	 * Old perf joined inlined callers as "outer->inner" on one line;
	 * the model wants lines innermost first.
	 */
	for (i = 0; i <= len; i++) {
		struct pk_function f = { 0 };

		if (i < len && !(i + 1 < len && sym->s[i] == '-' && sym->s[i + 1] == '>'))
			continue;
		f.name = f.system_name = pk_profile_intern(r->p, sym->s + start, i - start);
		if (nlines < PK_ARRAY_SIZE(lines))
			lines[nlines++].function = pk_profile_intern_function(r->p, &f);
		start = i + 2;
		i++;
	}
	for (i = 0; i < nlines / 2; i++) {
		struct pk_line t = lines[i];

		lines[i] = lines[nlines - 1 - i];
		lines[nlines - 1 - i] = t;
	}
	for (i = 0; i < nlines; i++)
		lines[i].line = 0;
	return pk_profile_intern_location(r->p, pk_profile_intern_mapping(r->p, &m),
					  addr, lines, nlines);
}

static int append_frame(struct ps_reader *r, uint32_t loc)
{
	if (pki_grow(&r->frames, &r->frames_cap, r->nframes + 1,
		    sizeof(*r->frames)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	r->frames[r->nframes++] = loc;
	return 0;
}

static int is_inlined(struct ps_reader *r, uint32_t loc)
{
	const struct pk_location *l = pk_profile_location(r->p, loc);
	const struct pk_mapping *m = pk_profile_mapping(r->p, l->mapping);

	return m && m->file == r->str_inlined;
}

/*
 * perf prints each inlined function as its own "(inlined)" line before
 * the function it was inlined into, at the same address. The model keeps
 * them as one location with several lines, innermost first.
 */
static uint32_t merge_inlined(struct ps_reader *r, uint32_t loc)
{
	const struct pk_location *real = pk_profile_location(r->p, loc);
	struct pk_line lines[64];
	size_t n = 0, i;

	for (i = 0; i < r->npending && n < PK_ARRAY_SIZE(lines) - 1; i++) {
		const struct pk_location *l = pk_profile_location(r->p, r->pending[i]);

		if (l->nlines)
			lines[n++] = pk_profile_location_lines(r->p, l)[0];
	}
	for (i = 0; i < real->nlines && n < PK_ARRAY_SIZE(lines); i++)
		lines[n++] = pk_profile_location_lines(r->p, real)[i];
	r->npending = 0;
	return pk_profile_intern_location(r->p, real->mapping, real->address,
					  lines, n);
}

/*
 * "(inlined)" frames with no frame of their own after them (perf prints
 * libc's __libc_start_main_impl so) stand alone. "inlined" is no file:
 * they take the mapping of the frame printed before them, when any.
 */
static int flush_pending(struct ps_reader *r)
{
	const struct pk_location *prev = r->nframes ?
		pk_profile_location(r->p, r->frames[r->nframes - 1]) : NULL;
	uint32_t mapping = prev ? prev->mapping : 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < r->npending && !rc; i++) {
		const struct pk_location *l = pk_profile_location(r->p, r->pending[i]);
		uint32_t loc = pk_profile_intern_location(r->p, mapping, l->address,
							  pk_profile_location_lines(r->p, l),
							  l->nlines);

		rc = loc ? append_frame(r, loc) :
			pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	}
	r->npending = 0;
	return rc;
}

static int push_frame(struct ps_reader *r, uint32_t loc)
{
	if (is_inlined(r, loc)) {
		int rc = r->npending == PK_ARRAY_SIZE(r->pending) ?
			flush_pending(r) : 0;

		if (rc)
			return rc;
		r->pending[r->npending++] = loc;
		return 0;
	}
	if (r->npending) {
		const struct pk_location *real = pk_profile_location(r->p, loc);
		const struct pk_location *inl = pk_profile_location(r->p, r->pending[0]);
		int rc;

		/* inlined into this frame only if perf printed the same address */
		if (real->address != inl->address) {
			if ((rc = flush_pending(r)))
				return rc;
		} else if (!(loc = merge_inlined(r, loc))) {
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
		}
	}
	return append_frame(r, loc);
}

static const char *skip_space(const char *s, size_t *len)
{
	while (*len && is_space(*s)) {
		s++;
		(*len)--;
	}
	return s;
}

/* The hash of a frame text: its leading address and its length. */
static int frame_key(const char *s, size_t len, uint64_t *hash)
{
	uint64_t addr = 0;
	size_t i;

	for (i = 0; i < len && i < 16 && pki_hexval(s[i]) >= 0; i++)
		addr = (addr << 4) | (uint64_t)pki_hexval(s[i]);
	if (!i)
		return -1;
	*hash = pki_hash_u64(addr ^ ((uint64_t)len << 52));
	return 0;
}

struct frame_text {
	const char *s;
	size_t len;
};

static int frame_match(const void *owner, uint32_t id, const void *key)
{
	const struct ps_reader *r = owner;
	const struct frame_text *k = key;
	pk_str text = r->frame_cache[id - 1].text;

	return pk_profile_string_len(r->frame_text, text) == k->len &&
	       memcmp(pk_profile_string(r->frame_text, text), k->s, k->len) == 0;
}

/* The location of a frame text seen before, or 0. */
static uint32_t cached_frame(struct ps_reader *r, const char *s, size_t len)
{
	struct frame_text key;
	uint64_t hash;
	size_t slot;
	uint32_t id;

	s = skip_space(s, &len);
	if (frame_key(s, len, &hash) < 0)
		return 0;
	key.s = s;
	key.len = len;
	id = pki_idtab_find(&r->frame_tab, hash, frame_match, r, &key, &slot);
	return id ? r->frame_cache[id - 1].loc : 0;
}

static int remember_frame(struct ps_reader *r, const char *s, size_t len,
			  uint32_t loc)
{
	struct frame_text key = { s, len };
	uint64_t hash;
	size_t slot;

	if (frame_key(s, len, &hash) < 0 ||
	    pki_idtab_find(&r->frame_tab, hash, frame_match, r, &key, &slot))
		return 0;
	if (pki_grow(&r->frame_cache, &r->frame_cache_cap, r->nframe_cache + 1,
		    sizeof(*r->frame_cache)) < 0)
		return -1;
	r->frame_cache[r->nframe_cache].text = pk_profile_intern(r->frame_text, s, len);
	r->frame_cache[r->nframe_cache].loc = loc;
	if (!r->frame_cache[r->nframe_cache].text ||
	    pki_idtab_insert(&r->frame_tab, slot, hash,
			    (uint32_t)r->nframe_cache + 1) < 0)
		return -1;
	r->nframe_cache++;
	return 0;
}

/* Returns 1 for a frame line, 0 for something else, <0 on error. */
static int parse_frame(struct ps_reader *r, const char *s, size_t len)
{
	struct token sym, dso;
	uint64_t addr;
	uint32_t loc;

	s = skip_space(s, &len);
	if (split_frame(s, len, &addr, &sym, &dso) < 0)
		return 0;
	loc = make_location(r, addr, &sym, &dso);
	if (!loc || remember_frame(r, s, len, loc) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	return push_frame(r, loc) ? -1 : 1;
}

/* ---- samples ---- */

static const char *event_unit(const char *event)
{
	/* perf's software clocks count nanoseconds */
	if (strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0)
		return "nanoseconds";
	return "count";
}

/*
 * The columns of an event: found in the profile (which may hold earlier
 * inputs), else added; the weight column only once a period is seen.
 */
static int find_columns(struct ps_reader *r, pk_str event, int with_period,
			struct event_columns *c)
{
	const char *name = pk_profile_string(r->p, event);

	c->count = pk_profile_find_column(r->p, event, PK_VALUE_COUNT);
	if (c->count < 0)
		c->count = pk_profile_add_sample_type(r->p, "samples", "count",
						      name, PK_VALUE_COUNT);
	c->weight = pk_profile_find_column(r->p, event, PK_VALUE_WEIGHT);
	if (c->weight < 0 && with_period)
		c->weight = pk_profile_add_sample_type(r->p, *name ? name : "events",
						       event_unit(name), name,
						       PK_VALUE_WEIGHT);
	if (c->count < 0 || (with_period && c->weight < 0))
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	return 0;
}

static uint32_t record_labels(struct ps_reader *r)
{
	struct pk_label l[4];
	size_t n = 0;

	memset(l, 0, sizeof(l));
	if (r->rec.pid >= 0) {
		l[n].key = r->key_pid;
		l[n++].num = r->rec.pid;
	}
	l[n].key = r->key_tid;
	l[n++].num = r->rec.tid;
	l[n].key = r->key_comm;
	l[n++].str = r->rec.comm;
	if (r->rec.cpu >= 0) {
		l[n].key = r->key_cpu;
		l[n++].num = r->rec.cpu;
	}
	if (n != r->last_nlabels || memcmp(l, r->last_label_set, n * sizeof(*l))) {
		r->last_labels = pk_profile_intern_labels(r->p, l, n);
		memcpy(r->last_label_set, l, n * sizeof(*l));
		r->last_nlabels = n;
	}
	return r->last_labels;
}

static int finish_record(struct ps_reader *r)
{
	struct event_columns c;
	size_t ncols;
	uint32_t stack;
	int rc;

	if (!r->rec.active)
		return 0;
	r->rec.active = 0;
	r->records++;
	if ((rc = flush_pending(r)) ||
	    (rc = find_columns(r, r->rec.event, r->rec.period >= 0, &c)))
		return rc;
	ncols = pk_profile_sample_type_count(r->p);
	if (pki_grow(&r->values, &r->values_cap, ncols, sizeof(*r->values)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	memset(r->values, 0, ncols * sizeof(*r->values));
	r->values[c.count] = 1;
	if (c.weight >= 0 && r->rec.period >= 0)
		r->values[c.weight] = r->rec.period;
	stack = pk_profile_intern_stack(r->p, r->frames, r->nframes);
	r->nframes = 0;
	rc = pk_profile_add_sample(r->p, stack, record_labels(r), r->rec.time,
				   r->values, ncols);
	return rc ? pk_error_set(r->ctx, rc, "%s: out of memory",
				 pk_input_name(r->in)) : 0;
}

/*
 * Name the count columns once every event is known: "samples" alone,
 * "EVENT_samples" when several events share the profile.
 */
static int name_sample_types(struct ps_reader *r)
{
	size_t n = pk_profile_sample_type_count(r->p), i;
	char buf[512];

	if (pk_profile_event_count(r->p) < 2)
		return 0;
	for (i = 0; i < n; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(r->p, i);

		if (t->kind != PK_VALUE_COUNT || !t->event)
			continue;
		snprintf(buf, sizeof(buf), "%s_samples",
			 pk_profile_string(r->p, t->event));
		if (pk_profile_rename_sample_type(r->p, i, buf))
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	}
	return 0;
}

/* perf script --header: keep the facts profkit-info reports. */
static void parse_comment(struct ps_reader *r, const char *line, size_t len)
{
	static const char *const keys[][2] = {
		{ "# hostname : ", "hostname" },
		{ "# os release : ", "os-release" },
		{ "# arch : ", "arch" },
		{ "# cmdline : ", "cmdline" },
		{ "# perf version : ", "perf-version" },
		{ "# captured on: ", "captured-on" },
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(keys); i++) {
		size_t klen = strlen(keys[i][0]);

		if (len > klen && memcmp(line, keys[i][0], klen) == 0)
			pk_profile_set_meta(r->p, keys[i][1], line + klen);
	}
}

static int is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!is_space(s[i]))
			return 0;
	return 1;
}

static void bad_line(struct ps_reader *r, const char *line, size_t len)
{
	if (++r->bad_lines <= MAX_WARNINGS)
		pk_warn(r->ctx, "%s: line %llu: not a perf script line: '%.*s'",
			pk_input_name(r->in),
			(unsigned long long)pk_input_lineno(r->in),
			(int)(len > 60 ? 60 : len), line);
}

static int handle_line(struct ps_reader *r, const char *line, size_t len)
{
	const char *trailer;
	size_t trailer_len;
	int rc;

	if (len && line[0] == '#') {
		parse_comment(r, line, len);
		return 0;
	}
	if (is_blank(line, len))
		return finish_record(r);
	/* Frame texts repeat: a known one needs no parsing. */
	if (r->rec.active) {
		uint32_t loc = cached_frame(r, line, len);

		if (loc)
			return push_frame(r, loc);
	}
	/* In a callchain an indented line is a frame; otherwise a header
	 * starts a record (without callchains perf pads the comm) and
	 * anything else is a frame (old perf prints them unindented). */
	if (r->rec.active && !r->rec.single_line && is_space(line[0])) {
		rc = parse_frame(r, line, len);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (!is_header(line, len)) {
		rc = r->rec.active ? parse_frame(r, line, len) : 0;
		if (rc == 0)
			bad_line(r, line, len);
		return rc < 0 ? rc : 0;
	}
	if ((rc = finish_record(r)))
		return rc;
	if (parse_header(r, line, len, &trailer, &trailer_len) < 0)
		return pk_error_set(r->ctx, PK_EINPUT, "internal: header mismatch");
	/* Without callchains the frame ends the header line. */
	if (trailer_len && pki_hexval(*trailer) >= 0) {
		rc = parse_frame(r, trailer, trailer_len);
		if (rc < 0)
			return rc;
		r->rec.single_line = rc;
	}
	return 0;
}

static int perf_script_read(struct pk_context *ctx, struct pk_input *in,
			    struct pk_profile *p, const struct pk_options *opts)
{
	struct ps_reader r;
	const char *line;
	size_t len;
	int rc = 0;

	(void)opts;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	r.frame_text = pk_profile_new(0);
	if (!r.frame_text)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	r.key_pid = pk_profile_intern_cstr(p, "pid");
	r.key_tid = pk_profile_intern_cstr(p, "tid");
	r.key_comm = pk_profile_intern_cstr(p, "comm");
	r.key_cpu = pk_profile_intern_cstr(p, "cpu");
	r.str_inlined = pk_profile_intern_cstr(p, "inlined");
	for (;;) {
		uint64_t start = pk_input_offset(in);

		if (rc || !(line = pk_input_line(in, &len)))
			break;
		if (pk_input_offset(in) - start == len && len) {
			/* perf ends every line: the last sample was cut off */
			pk_warn(ctx, "%s: line %llu: the file ends mid-line "
				"(truncated file?); dropping its last sample",
				pk_input_name(in),
				(unsigned long long)pk_input_lineno(in));
			r.rec.active = 0;
			r.nframes = 0;
			r.npending = 0;
			break;
		}
		rc = handle_line(&r, line, len);
	}
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc)
		rc = finish_record(&r);
	if (!rc)
		rc = name_sample_types(&r);
	if (!rc && r.bad_lines > MAX_WARNINGS)
		pk_warn(ctx, "%s: %llu lines in all were not perf script lines",
			pk_input_name(in), (unsigned long long)r.bad_lines);
	if (!rc && !r.records && r.bad_lines)
		rc = pk_error_set(ctx, PK_EINPUT,
				  "%s: no perf script samples found (expected "
				  "'comm pid [cpu] time: event:' lines)",
				  pk_input_name(in));
	pk_profile_free(r.frame_text);
	pki_idtab_release(&r.frame_tab);
	free(r.frame_cache);
	free(r.frames);
	free(r.values);
	return rc;
}

/* ---- probe ---- */

static int perf_script_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int headers = 0, frames = 0, others = 0;

	while (s < end && headers + frames + others < 40) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		struct token tok[MAX_TOKENS];
		size_t ntok;

		if (!nl && s != (const char *)buf)
			break;	/* a cut-off last line proves nothing */
		if (n && s[n - 1] == '\r')
			n--;
		ntok = tokenize(s, n, tok, MAX_TOKENS);
		if (memchr(s, '\0', n))
			return 0;
		if ((n && s[0] == '#') || is_blank(s, n))
			;
		else if (find_pid_token(tok, ntok))
			headers++;
		else if (ntok >= 2 && s[n - 1] == ')' && pki_hexval(tok[0].s[0]) >= 0)
			frames++;
		else
			others++;
		s = nl ? nl + 1 : end;
	}
	if (headers && others * 4 <= headers + frames)
		return headers + frames >= 4 ? 80 : 50;
	return 0;
}

const struct pk_reader pki_reader_perf_script = {
	.name = "perf-script",
	.description = "text printed by `perf script` (with or without callchains)",
	.probe = perf_script_probe,
	.read = perf_script_read,
};
