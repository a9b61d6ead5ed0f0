/* SPDX-License-Identifier: MIT */
/*
 * An interactive SVG flame graph, laid out as Brendan Gregg's
 * flamegraph.pl draws one: the merged call tree with the root ("all") at
 * the bottom (or at the top for an icicle graph), one 16 px row per
 * depth, each frame as wide as its share of the total, callees sorted by
 * name and the frame's own (self) weight left of its callees, as the
 * perl script's sorted folded lines place it. Frames under 0.1 px are
 * left out with their callees, as flamegraph.pl leaves them out; so are
 * frames under a pixel deeper than any wider frame reaches when they
 * would take more rows than the wider frames: the graph would be mostly
 * blank for what no one can see (one thin, deep start-up stack made a
 * graph 2000 px high and nine tenths blank).
 *
 * Each frame is a group with a <title> tooltip "name (N unit, P%)", a
 * rectangle and a label cut to fit. A small script reads those back to
 * zoom on click and to search (Ctrl-F or the Search button). Colours come
 * from a hash of the name, so one function keeps its colour across graphs.
 *
 * A differential profile (sample types "base" and "new", from difffolded
 * two-column input) is drawn with the widths of "new", each frame red for
 * growth or blue for shrinkage of the stacks ending in it, saturated by
 * that change over the largest one, as flamegraph.pl does.
 *
 * Coordinates and percentages are computed in integers of tenths and
 * hundredths and printed without printf's %f, so the output is the same
 * whatever the locale and platform.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "core/internal.h"
#include "core/names.h"
#include "transforms/fold.h"
#include "util/strbuf.h"

#define FG_FRAME_HEIGHT 16
#define FG_FONT_SIZE 12
#define FG_FONT_WIDTH 0.59	/* average glyph width over the font size */
#define FG_MIN_WIDTH 0.1	/* pixels, as flamegraph.pl's --minwidth */
#define FG_TALL_WIDTH 1.0	/* pixels: narrower frames set no height */
#define FG_XPAD 10
#define FG_YPAD_TOP (FG_FONT_SIZE * 3)		/* title and buttons */
#define FG_YPAD_BOTTOM (FG_FONT_SIZE * 2 + 10)	/* details line */

static int sb_printf(struct pk_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int sb_printf(struct pk_strbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;	/* only short numeric fields go through here */
	return pki_strbuf_add(b, tmp, (size_t)n);
}

/* ---- UTF-8 and XML ---- */

/*
 * Length of the well-formed UTF-8 sequence at s, or 0 when the bytes are
 * not one or would be a character XML 1.0 forbids (controls other than
 * tab, newline and carriage return, U+FFFE and U+FFFF).
 */
static size_t utf8_char_len(const unsigned char *s, size_t len)
{
	size_t n;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ||
		       s[0] == '\r';
	n = pki_utf8_char(s, len);
	if (n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;	/* U+FFFE, U+FFFF */
	return n;
}

/* Bytes of the first n characters of s (a bad byte counts as one). */
static size_t utf8_prefix(const char *s, size_t len, size_t n)
{
	size_t i = 0, k;

	while (n-- > 0 && i < len) {
		k = utf8_char_len((const unsigned char *)s + i, len - i);
		i += k ? k : 1;
	}
	return i;
}

static size_t utf8_length(const char *s, size_t len)
{
	size_t i = 0, n = 0, k;

	for (; i < len; n++) {
		k = utf8_char_len((const unsigned char *)s + i, len - i);
		i += k ? k : 1;
	}
	return n;
}

/*
 * Append s as XML character data or attribute text: markup characters
 * escaped, bytes that are not well-formed UTF-8 (or characters XML does
 * not allow, or line breaks) replaced by U+FFFD or a space, so any symbol
 * name gives a well-formed document.
 */
static int sb_add_xml(struct pk_strbuf *b, const char *s, size_t len)
{
	size_t i = 0, k;
	int rc = 0;

	while (i < len && !rc) {
		unsigned char c = (unsigned char)s[i];

		k = utf8_char_len((const unsigned char *)s + i, len - i);
		if (c == '&')
			rc = pki_strbuf_adds(b, "&amp;");
		else if (c == '<')
			rc = pki_strbuf_adds(b, "&lt;");
		else if (c == '>')
			rc = pki_strbuf_adds(b, "&gt;");
		else if (c == '"')
			rc = pki_strbuf_adds(b, "&quot;");
		else if (c == '\'')
			rc = pki_strbuf_adds(b, "&apos;");
		else if (c == '\t' || c == '\n' || c == '\r')
			rc = pki_strbuf_adds(b, " ");
		else if (!k)
			rc = pki_strbuf_adds(b, "\xef\xbf\xbd");
		else
			rc = pki_strbuf_add(b, s + i, k);
		i += k ? k : 1;
	}
	return rc;
}

/* ---- the call tree ---- */

/* Kept small: a big profile has millions of them. */
struct fg_node {
	uint32_t parent;
	uint32_t name;		/* id in fg->names */
	uint32_t depth : 29;	/* 0 for the root */
	uint32_t kernel : 1;	/* the frame is in the kernel */
	uint32_t ran : 1;	/* wall time: running samples reach it */
	uint32_t blocked : 1;	/* wall time: off-CPU intervals reach it */
	int64_t total;		/* value of the frame and its callees */
	int64_t delta;		/* differential: new - base of stacks ending here */
	int64_t narrow;		/* value of its callees too narrow to build */
	int64_t before;		/* value of the narrow callees of its caller
				   named before it, since the one before */
};

/*
 * A sample on its way up the tree: the name of its next frame, and
 * where in its stack that name came from, to find the one after.
 */
struct fg_item {
	const uint32_t *locs;	/* the stack, leaf first */
	uint32_t level;		/* locations left, the current one included */
	uint32_t name_at;	/* the current location's next name */
	uint32_t next;		/* the next frame's name; 0: the stack ended */
	uint32_t kernel : 1;	/* the next frame is in the kernel */
	uint32_t blocked : 1;	/* wall time: an off-CPU interval */
	int64_t value, delta;
};

/* The callee of one name while a frame's samples are split. */
struct fg_group {
	uint32_t at;		/* its samples: counted, then placed */
	uint32_t node;		/* 0 when too narrow to build */
	uint32_t kernel : 1, ran : 1, blocked : 1;	/* as in fg_node */
	int64_t total;
};

/* A frame whose samples are still to be split among its callees. */
struct fg_span {
	uint32_t node;
	uint32_t begin, end;	/* its samples in fg->items */
};

/* A callee of a drawn frame, for laying callees out in name order. */
struct fg_callee {
	uint32_t parent, id;
	const char *name;
	size_t len;
};

#define FG_ROOT 1

struct flamegraph {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;
	struct pki_fold_settings fold;	/* folded:pid and the others */
	const char *title, *colors;	/* NULL: the defaults */
	unsigned icicle : 1, diff : 1;
	int column;		/* the value that gives the widths */
	int base_column;	/* differential: the "base" column, else -1 */
	int64_t scale;		/* values are fixed point: value / scale */
	/* differential: base and new at one scale, the finer of theirs */
	int64_t mult, base_mult;
	const char *unit;
	const char *measure;	/* "Off-CPU Time " of the default title, or "" */
	int interval_column;	/* wall time: off-CPU lengths, else -1 */
	struct pki_thread_keys thread_keys;

	struct pk_profile *names;	/* frame names, interned */
	/* per location, named when first reached: its names ... */
	uint32_t *loc_first, *loc_end;	/* (loc_end 0: not yet) */
	uint32_t *loc_names;	/* ... here, outermost first */
	unsigned char *loc_kernel;
	size_t nloc_names, loc_names_cap;

	struct fg_node *nodes;	/* [0] unused, [FG_ROOT] is "all" */
	size_t nnodes, nodes_cap;
	struct fg_item *items, *scratch;	/* the samples, grouped by path */
	size_t nitems;
	struct fg_span *spans;	/* frames to split, a stack */
	struct fg_group *groups;	/* by name id */
	size_t groups_cap;
	uint32_t *names_seen;	/* the callees' names, in the order met */
	struct fg_callee *built;	/* the callees built, by name */
	size_t built_cap;
	int64_t max_delta;
	struct fg_callee *callees;	/* by parent, then name */
	size_t ncallees;

	/* layout */
	unsigned width, height, maxdepth;
	unsigned max_depth;	/* flamegraph:max-depth; 0: no limit */
	double px_per_value;
	const char *palette;

	struct pk_strbuf buf, name;
};

static int over_memory_limit(const struct flamegraph *fg)
{
	uint64_t limit = pk_context_max_memory(fg->ctx);
	uint64_t bytes = (uint64_t)fg->nodes_cap * sizeof(*fg->nodes) +
			 2 * (uint64_t)fg->nitems * sizeof(*fg->items) +
			 (uint64_t)fg->groups_cap * sizeof(*fg->groups) +
			 pk_profile_memory(fg->names);

	return limit && bytes > limit;
}

/* A new node; 0 on failure (node 0 is a placeholder made first). */
static uint32_t add_node(struct flamegraph *fg, uint32_t parent,
			 uint32_t name)
{
	struct fg_node *n;

	if (fg->nnodes >= UINT32_MAX ||
	    pki_grow(&fg->nodes, &fg->nodes_cap, fg->nnodes + 1,
		    sizeof(*fg->nodes)) < 0)
		return 0;
	n = &fg->nodes[fg->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	n->depth = parent ? fg->nodes[parent].depth + 1 : 0;
	return (uint32_t)fg->nnodes++;
}

/* ---- frame names ---- */

static int mod_is_kernel(const char *mod)
{
	size_t n = strlen(mod);

	return (mod[0] == '[' ||
		(n >= 7 && strcmp(mod + n - 7, "vmlinux") == 0)) &&
	       !strstr(mod, "unknown");
}

/* A name's id, with room for it in fg->groups; 0 on failure. */
static uint32_t intern_name(struct flamegraph *fg, const char *s, size_t n)
{
	uint32_t id = pk_profile_intern(fg->names, s, n);

	if (id && pki_grow_zeroed(&fg->groups, &fg->groups_cap, (size_t)id + 1,
				  sizeof(*fg->groups)) < 0)
		return 0;
	return id;
}

/* A frame without a symbol is named after its mapping, as in folded. */
static uint32_t unknown_name(struct flamegraph *fg, const char *mod,
			     uint64_t addr)
{
	const struct pki_unknown_name unknown = {
		.style = PKI_UNKNOWN_STACKCOLLAPSE, .address = fg->fold.show_addrs,
	};

	fg->name.len = 0;
	if (pki_unknown_name(&fg->name, mod, addr, &unknown))
		return 0;
	return intern_name(fg, fg->name.s, fg->name.len);
}

static int add_loc_name(struct flamegraph *fg, uint32_t name)
{
	if (!name || pki_grow(&fg->loc_names, &fg->loc_names_cap,
			     fg->nloc_names + 1, sizeof(*fg->loc_names)) < 0)
		return -1;
	fg->loc_names[fg->nloc_names++] = name;
	return 0;
}

/*
 * Name a location's frames, outermost inline frame first, when a sample
 * first reaches it: the million leaves of a million thin stacks never
 * are, as their callers are too narrow to split.
 */
static int name_location(struct flamegraph *fg, uint32_t id)
{
	const struct pk_profile *p = fg->p;
	const struct pk_location *loc = pk_profile_location(p, id);
	const struct pk_mapping *m = pk_profile_mapping(p, loc->mapping);
	const struct pk_line *lines = pk_profile_location_lines(p, loc);
	const char *mod = m ? pk_profile_string(p, m->file) : "";
	size_t j;

	fg->loc_first[id] = (uint32_t)fg->nloc_names;
	fg->loc_kernel[id] = (unsigned char)mod_is_kernel(mod);
	for (j = loc->nlines; j-- > 0;) {
		const struct pk_function *fn =
			pk_profile_function(p, lines[j].function);
		const char *name = fn ? pk_profile_string(p, fn->name) : "";
		uint32_t nid;

		if (pki_is_unknown_function(name))
			nid = unknown_name(fg, mod, loc->address);
		else
			nid = intern_name(fg, name, strlen(name));
		if (add_loc_name(fg, nid))
			return -1;
	}
	if (!loc->nlines &&
	    add_loc_name(fg, unknown_name(fg, mod, loc->address)))
		return -1;
	fg->loc_end[id] = (uint32_t)fg->nloc_names;
	return 0;
}

static int start_naming(struct flamegraph *fg)
{
	size_t nloc = pk_profile_location_count(fg->p);

	fg->loc_first = malloc((nloc + 1) * sizeof(*fg->loc_first));
	fg->loc_end = calloc(nloc + 1, sizeof(*fg->loc_end));
	fg->loc_kernel = calloc(nloc + 1, 1);
	return fg->loc_first && fg->loc_end && fg->loc_kernel ? 0 : -1;
}

/*
 * The process root frame: "comm", "comm-PID" or "comm-PID/TID", as
 * folded has it but for its blanks, which it keeps.
 */
static uint32_t root_name(struct flamegraph *fg, uint32_t labels)
{
	const struct pki_thread_name how = {
		.style = pki_stackcollapse_style(fg->fold.include_pid,
						 fg->fold.include_tid),
	};
	struct pki_thread t;

	pki_thread_of(fg->p, &fg->thread_keys, labels, &t);
	if (fg->fold.no_comm || !t.has_comm)
		return UINT32_MAX;	/* no root frame */
	fg->name.len = 0;
	if (pki_thread_name(&fg->name, fg->p, &t, &how))
		return 0;
	if (!fg->name.len)
		return UINT32_MAX;	/* as folded: an empty name is no frame */
	return intern_name(fg, fg->name.s, fg->name.len);
}

/* ---- building the tree ---- */

/*
 * The tree is built from the root up, as a radix sort groups: the samples
 * of a frame are split by the name of their next frame, one callee for
 * each name, and only callees wide enough to be drawn are split in turn.
 * A million distinct stacks make a million thin branches no one can see;
 * they are never built, and each sample is touched once for each drawn
 * frame on its path, without a lookup.
 */

static int add_value(int64_t *sum, int64_t v)
{
	if (v > INT64_MAX - *sum)
		return -1;
	*sum += v;
	return 0;
}

/* Deltas saturate: many shrinking stacks cannot wrap around. */
static void add_delta(int64_t *sum, int64_t d)
{
	if (d > 0 && *sum > INT64_MAX - d)
		*sum = INT64_MAX;
	else if (d < 0 && *sum < -INT64_MAX - d)
		*sum = -INT64_MAX;
	else
		*sum += d;
}

static double width_of(const struct flamegraph *fg, int64_t value)
{
	return (double)value * fg->px_per_value;
}

static double frame_width(const struct flamegraph *fg, const struct fg_node *n)
{
	return width_of(fg, n->total);
}

/*
 * Whether a frame of this value is built and its callees split: not when
 * it is too narrow to be drawn, as its callees are narrower still; but in
 * a differential graph always, since the largest change of any stack
 * (one that vanished, say) scales the colours.
 */
static int worth_building(const struct flamegraph *fg, int64_t total)
{
	return fg->base_column >= 0 || width_of(fg, total) >= FG_MIN_WIDTH;
}

/* Names bytewise (perl's sort), as flamegraph.pl orders callees. */
static int compare_names(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

/* By parent, then name. */
static int compare_callees(const void *a, const void *b)
{
	const struct fg_callee *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return compare_names(x->name, x->len, y->name, y->len);
}

/* Enter the item's current location, at its first name. */
static int enter_location(struct flamegraph *fg, struct fg_item *it)
{
	uint32_t loc = it->locs[it->level - 1];

	if (!fg->loc_end[loc] && name_location(fg, loc))
		return -1;
	it->name_at = fg->loc_first[loc];
	return 0;
}

/* Move on to the item's next frame, outermost inline frame first. */
static int next_frame(struct flamegraph *fg, struct fg_item *it)
{
	while (it->level) {
		uint32_t loc = it->locs[it->level - 1];

		if (it->name_at < fg->loc_end[loc]) {
			it->next = fg->loc_names[it->name_at++];
			it->kernel = fg->loc_kernel[loc];
			return 0;
		}
		if (--it->level && enter_location(fg, it))
			return -1;
	}
	it->next = 0;
	it->kernel = 0;
	return 0;
}

/* A sample's item, at its first frame; 1 when it has no frames. */
static int add_item(struct flamegraph *fg, const struct pk_sample *s,
		    int64_t value, int64_t delta, int blocked)
{
	uint32_t root = root_name(fg, s->labels);
	struct fg_item *it;
	const uint32_t *locs;
	size_t depth;

	if (!root)
		return PK_ENOMEM;
	locs = pk_profile_stack(fg->p, s->stack, &depth);
	if (root == UINT32_MAX && !depth)
		return 1;	/* as folded: nothing to draw */
	if (add_value(&fg->nodes[FG_ROOT].total, value))
		return PK_EINPUT;
	it = &fg->items[fg->nitems++];
	it->locs = locs;
	it->level = (uint32_t)depth;
	it->blocked = blocked != 0;
	it->value = value;
	it->delta = delta;
	if (depth && enter_location(fg, it))
		return PK_ENOMEM;
	if (root == UINT32_MAX)
		return next_frame(fg, it) ? PK_ENOMEM : 0;
	it->next = root;
	it->kernel = 0;
	return 0;
}

/* One item for each sample with a value, summed into the root. */
static int add_items(struct flamegraph *fg)
{
	size_t n = pk_profile_sample_count(fg->p), i;
	unsigned long negative = 0;
	int rc;

	for (i = 0; i < n; i++) {
		const int64_t *v = pk_profile_sample_values(fg->p, i);
		int64_t value, base;

		if (__builtin_mul_overflow(v[fg->column], fg->mult, &value) ||
		    (fg->base_column >= 0 &&
		     __builtin_mul_overflow(v[fg->base_column], fg->base_mult, &base)))
			return pk_error_set(fg->ctx, PK_EINPUT, "flamegraph: a value "
					    "does not fit in 64 bits at the scale "
					    "of the other sample type");
		if (fg->base_column < 0)
			base = value;

		if (value < 0 || base < 0) {
			negative++;
			continue;
		}
		if (!value && !base)
			continue;
		/* deltas are bounded: both sides are in 0..INT64_MAX */
		rc = add_item(fg, pk_profile_sample(fg->p, i), value, value - base,
			      fg->interval_column >= 0 && v[fg->interval_column] > 0);
		if (rc == PK_EINPUT)
			return pk_error_set(fg->ctx, PK_EINPUT,
					    "flamegraph: the values add up past "
					    "2^63");
		if (rc < 0)
			return PK_ENOMEM;
	}
	if (negative)
		pk_warn(fg->ctx, "flamegraph: %lu samples with negative values "
			"left out", negative);
	return 0;
}

/* The callees built, of those named before name. */
static size_t built_below(const struct flamegraph *fg, size_t nbuilt,
			  const char *name, size_t len)
{
	size_t lo = 0, hi = nbuilt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fg_callee *c = &fg->built[mid];

		if (compare_names(c->name, c->len, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Build the callees of a frame wide enough to draw. The value of the
 * narrow ones is all that is kept of them: in total, for the frame's own
 * value, and between the built ones in name order, where they push the
 * next one along, so each drawn frame sits where the whole tree puts it.
 */
static int build_callees(struct flamegraph *fg, uint32_t parent,
			 uint32_t nseen)
{
	size_t nbuilt = 0, k;

	if (pki_grow(&fg->built, &fg->built_cap, nseen, sizeof(*fg->built)) < 0)
		return PK_ENOMEM;
	for (k = 0; k < nseen; k++) {
		struct fg_group *g = &fg->groups[fg->names_seen[k]];
		struct fg_node *n;

		g->node = 0;
		if (!worth_building(fg, g->total))
			continue;
		g->node = add_node(fg, parent, fg->names_seen[k]);
		if (!g->node)
			return PK_ENOMEM;
		n = &fg->nodes[g->node];
		n->total = g->total;
		n->kernel = g->kernel;
		n->ran = g->ran;
		n->blocked = g->blocked;
		fg->built[nbuilt++] = (struct fg_callee){
			parent, g->node, pk_profile_string(fg->names, n->name),
			pk_profile_string_len(fg->names, n->name)
		};
	}
	if (nbuilt == nseen)
		return 0;
	qsort(fg->built, nbuilt, sizeof(*fg->built), compare_callees);
	for (k = 0; k < nseen; k++) {
		const struct fg_group *g = &fg->groups[fg->names_seen[k]];
		size_t next;

		if (g->node)
			continue;
		fg->nodes[parent].narrow += g->total;
		next = built_below(fg, nbuilt,
				   pk_profile_string(fg->names, fg->names_seen[k]),
				   pk_profile_string_len(fg->names, fg->names_seen[k]));
		if (next < nbuilt)
			fg->nodes[fg->built[next].id].before += g->total;
	}
	return 0;
}

/*
 * Split the samples of a frame among its callees: one group for each
 * next frame's name, its samples placed together; those that end here
 * give the frame its change. The callees built go on the stack, to be
 * split in turn.
 */
static int split(struct flamegraph *fg, const struct fg_span *span,
		 size_t *nspans)
{
	struct fg_item *items = fg->items;
	uint32_t nseen = 0, ended = 0, at, i, k;
	int rc;

	for (i = span->begin; i < span->end; i++) {
		uint32_t name = items[i].next;

		if (!name)
			ended++;
		else if (!fg->groups[name].at++)
			fg->names_seen[nseen++] = name;
	}
	at = span->begin + ended;
	for (k = 0; k < nseen; k++) {
		struct fg_group *g = &fg->groups[fg->names_seen[k]];
		uint32_t count = g->at;

		g->at = at;
		at += count;
	}
	at = span->begin;
	for (i = span->begin; i < span->end; i++) {
		const struct fg_item *it = &items[i];
		struct fg_group *g;

		if (!it->next) {
			add_delta(&fg->nodes[span->node].delta, it->delta);
			fg->scratch[at++] = *it;
			continue;
		}
		g = &fg->groups[it->next];
		g->total += it->value;	/* at most the root's total */
		g->kernel |= it->kernel;
		g->blocked |= it->blocked;
		g->ran |= !it->blocked;
		fg->scratch[g->at++] = *it;
	}
	memcpy(items + span->begin, fg->scratch + span->begin,
	       (span->end - span->begin) * sizeof(*items));
	rc = build_callees(fg, span->node, nseen);
	if (rc)
		return rc;
	for (k = 0; k < nseen; k++) {
		struct fg_group *g = &fg->groups[fg->names_seen[k]];
		uint32_t node = g->node, end = g->at;

		memset(g, 0, sizeof(*g));
		if (node) {
			/* naming the new frames may move fg->groups */
			for (i = at; i < end; i++)
				if (next_frame(fg, &items[i]))
					return PK_ENOMEM;
			fg->spans[(*nspans)++] = (struct fg_span){ node, at, end };
		}
		at = end;
	}
	return 0;
}

static int build_tree(struct flamegraph *fg)
{
	size_t n = pk_profile_sample_count(fg->p), nspans = 0;
	int rc;

	if (pki_grow(&fg->nodes, &fg->nodes_cap, 1, sizeof(*fg->nodes)) < 0)
		return PK_ENOMEM;
	memset(&fg->nodes[0], 0, sizeof(fg->nodes[0]));
	fg->nnodes = 1;
	if (add_node(fg, 0, intern_name(fg, "all", 3)) != FG_ROOT)
		return PK_ENOMEM;
	fg->items = malloc((n ? n : 1) * sizeof(*fg->items));
	fg->scratch = malloc((n ? n : 1) * sizeof(*fg->scratch));
	fg->spans = malloc((n ? n : 1) * sizeof(*fg->spans));
	fg->names_seen = malloc((n ? n : 1) * sizeof(*fg->names_seen));
	if (!fg->items || !fg->scratch || !fg->spans || !fg->names_seen)
		return PK_ENOMEM;
	rc = add_items(fg);
	if (rc)
		return rc;
	if (fg->nodes[FG_ROOT].total <= 0)
		return pk_error_set(fg->ctx, PK_EINPUT,
				    "flamegraph: no samples with a value to draw");
	fg->px_per_value = (double)(fg->width - 2 * FG_XPAD) /
			   (double)fg->nodes[FG_ROOT].total;
	fg->spans[nspans++] = (struct fg_span){ FG_ROOT, 0, (uint32_t)fg->nitems };
	while (nspans) {
		struct fg_span span = fg->spans[--nspans];

		rc = split(fg, &span, &nspans);
		if (rc)
			return rc;
		if (over_memory_limit(fg))
			return pk_error_set(fg->ctx, PK_ENOMEM,
					    "flamegraph: the call tree of %zu "
					    "frames needs more than the memory "
					    "limit of %llu MiB (see --max-memory)",
					    fg->nnodes, (unsigned long long)
					    (pk_context_max_memory(fg->ctx) >> 20));
	}
	return 0;
}

/* ---- callees in name order ---- */

/* Wide enough, and no deeper than the frames of a pixel or more reach. */
static int drawn(const struct flamegraph *fg, const struct fg_node *n)
{
	return frame_width(fg, n) >= FG_MIN_WIDTH && n->depth <= fg->maxdepth;
}

/*
 * Sort the callees built of every drawn frame (those too narrow to draw
 * are not built, but for a differential graph's). The rest of a big tree
 * is never sorted.
 */
static int sort_callees(struct flamegraph *fg)
{
	size_t n = 0, i;

	for (i = FG_ROOT + 1; i < fg->nnodes; i++)
		n += drawn(fg, &fg->nodes[fg->nodes[i].parent]);
	fg->callees = malloc((n ? n : 1) * sizeof(*fg->callees));
	if (!fg->callees)
		return PK_ENOMEM;
	for (i = FG_ROOT + 1; i < fg->nnodes; i++) {
		const struct fg_node *node = &fg->nodes[i];
		struct fg_callee *c;

		if (!drawn(fg, &fg->nodes[node->parent]))
			continue;
		c = &fg->callees[fg->ncallees++];
		c->parent = node->parent;
		c->id = (uint32_t)i;
		c->name = pk_profile_string(fg->names, node->name);
		c->len = pk_profile_string_len(fg->names, node->name);
	}
	qsort(fg->callees, fg->ncallees, sizeof(*fg->callees), compare_callees);
	return 0;
}

/* Index of the first callee of parent in fg->callees. */
static size_t first_callee(const struct flamegraph *fg, uint32_t parent)
{
	return pki_count_below(fg->callees, fg->ncallees, sizeof(*fg->callees),
			       PKI_KEY(struct fg_callee, parent), parent);
}

/* ---- choosing the value column ---- */

static int find_type(const struct pk_profile *p, const char *type)
{
	size_t n = pk_profile_sample_type_count(p), i;

	for (i = 0; i < n; i++)
		if (strcmp(pk_profile_string(p, pk_profile_sample_type(p, i)->type),
			   type) == 0)
			return (int)i;
	return -1;
}

/*
 * The unit a tooltip names, as flamegraph.pl's --countname: "samples"
 * only for sample counts; other counts (perf's page-faults, pprof's
 * contentions) by their type; times by the short unit, in exact counts.
 */
static const char *tooltip_unit(const char *type, const char *unit)
{
	static const char *const brief[][2] = {
		{ "nanoseconds", "ns" }, { "microseconds", "us" },
		{ "milliseconds", "ms" }, { "seconds", "s" },
	};
	size_t i, len = strlen(type);

	for (i = 0; i < PK_ARRAY_SIZE(brief); i++)
		if (strcmp(unit, brief[i][0]) == 0)
			return brief[i][1];
	if (*unit && strcmp(unit, "count") != 0)
		return unit;
	/* "new": difffolded's counts, samples to flamegraph.pl */
	if (!len || strcmp(type, "samples") == 0 || strcmp(type, "new") == 0 ||
	    (len > 8 && strcmp(type + len - 8, "_samples") == 0))
		return "samples";
	return type;
}

/*
 * Off-CPU and wall-clock time name themselves in the default title, as
 * off-CPU flame graphs are titled; off-CPU time is blue by default, as
 * flamegraph.pl's io palette draws it in those.
 */
static void name_measure(struct flamegraph *fg, const char *event)
{
	fg->measure = "";
	fg->interval_column = -1;
	if (strcmp(event, PKI_EVENT_OFF_CPU) == 0) {
		fg->measure = "Off-CPU Time ";
		if (!fg->colors)
			fg->palette = "io";
	} else if (strcmp(event, PKI_EVENT_WALL) == 0) {
		fg->measure = "Wall-Clock Time ";
		fg->interval_column = pki_interval_column(fg->p);
	}
}

/*
 * Differential when asked, or when the input is difffolded's two-column
 * form (sample types "base" and "new"), as flamegraph.pl switches on a
 * second count column; unless one sample type is asked for by name.
 */
static int pick_columns(struct flamegraph *fg)
{
	int base = find_type(fg->p, "base"), new = find_type(fg->p, "new");
	const struct pk_value_type *t;

	fg->base_column = -1;
	if (base >= 0 && new >= 0 && (fg->diff || !fg->opts->sample_type)) {
		fg->base_column = base;
		fg->column = new;
	} else if (fg->diff) {
		return pk_error_set(fg->ctx, PK_EUSAGE,
				    "a differential flame graph needs 'base' "
				    "and 'new' counts (two-column folded input, "
				    "as difffolded.pl writes)");
	} else {
		/* as folded output: opts->sample_type, event and value */
		fg->column = pk_value_column(fg->ctx, fg->p, fg->opts);
		if (pk_context_error(fg->ctx)->code)
			return pk_context_error(fg->ctx)->code;
		if (fg->column < 0)
			return pk_error_set(fg->ctx, PK_EINPUT,
					    "flamegraph: the input has no samples");
	}
	fg->scale = pk_profile_sample_type_scale(fg->p, (size_t)fg->column);
	fg->mult = fg->base_mult = 1;
	if (fg->base_column >= 0) {
		int64_t bs = pk_profile_sample_type_scale(fg->p, (size_t)fg->base_column);

		if (bs > fg->scale)
			fg->mult = bs / fg->scale;
		else
			fg->base_mult = fg->scale / bs;
		fg->scale *= fg->mult;
	}
	t = pk_profile_sample_type(fg->p, (size_t)fg->column);
	fg->unit = tooltip_unit(pk_profile_string(fg->p, t->type),
				pk_profile_string(fg->p, t->unit));
	name_measure(fg, pk_profile_string(fg->p, t->event));
	return 0;
}

/* ---- numbers, printed the same in every locale ---- */

/* "1,234,567" as flamegraph.pl; a scaled (fractional) count keeps its
 * decimals, without trailing zeros: "1,234.5". */
static int sb_add_count(struct pk_strbuf *b, int64_t v, int64_t scale)
{
	char digits[PK_VALUE_FORMAT_SIZE], out[2 * PK_VALUE_FORMAT_SIZE];
	int n = pk_value_format(digits, sizeof(digits), v, scale);
	size_t sign, whole, k, o = 0;

	if (n < 0 || (size_t)n >= sizeof(digits))
		return -1;
	sign = digits[0] == '-';
	whole = strcspn(digits + sign, ".");
	if (sign)
		out[o++] = '-';
	for (k = 0; k < whole; k++) {
		if (k && (whole - k) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[sign + k];
	}
	/* the decimals, ".5", as they are */
	memcpy(out + o, digits + sign + whole, (size_t)n - sign - whole);
	o += (size_t)n - sign - whole;
	return pki_strbuf_add(b, out, o);
}

/* Nearest integer, halves away from zero (no libm needed). */
static long long round_ll(double x)
{
	return x < 0 ? -(long long)(0.5 - x) : (long long)(x + 0.5);
}

/* value/total as a percentage with two decimals, "72.63". */
static int sb_add_percent(struct pk_strbuf *b, int64_t value, int64_t total,
			  int sign)
{
	long long h = round_ll(10000.0 * (double)value / (double)total);
	const char *s = h < 0 ? "-" : sign && h > 0 ? "+" : "";

	if (h < 0)
		h = -h;
	return sb_printf(b, "%s%lld.%02lld", s, h / 100, h % 100);
}

/* Tenths as "12.3". */
static int sb_add_tenths(struct pk_strbuf *b, long long t)
{
	return sb_printf(b, "%s%lld.%lld", t < 0 ? "-" : "", llabs(t) / 10,
			 llabs(t) % 10);
}

/* ---- colours ---- */

/* FNV-1a over bytes, then mixed: the same on every platform. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return pki_hash_u64(h);
}

/* A 16-bit slice of the hash scaled to 0..range-1. */
static unsigned hash_part(uint64_t h, int slice, unsigned range)
{
	return (unsigned)((((h >> (16 * slice)) & 0xffff) * range) >> 16);
}

static int sb_add_rgb(struct pk_strbuf *b, unsigned r, unsigned g, unsigned bl)
{
	return sb_printf(b, "rgb(%u,%u,%u)", r, g, bl);
}

/* flamegraph.pl's differential scale: white to red (more) or blue (less). */
static int diff_colour(struct flamegraph *fg, struct pk_strbuf *b,
		       int64_t delta)
{
	double max = (double)fg->max_delta;
	unsigned v;

	if (delta > 0) {
		v = (unsigned)(210.0 * (max - (double)delta) / max);
		return sb_add_rgb(b, 255, v, v);
	}
	if (delta < 0) {
		v = (unsigned)(210.0 * (max + (double)delta) / max);
		return sb_add_rgb(b, v, v, 255);
	}
	return sb_add_rgb(b, 255, 255, 255);
}

static int frame_colour(struct flamegraph *fg, struct pk_strbuf *b,
			const struct fg_node *n, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);

	if (len == 1 && name[0] == '-')
		return sb_add_rgb(b, 160, 160, 160);	/* a stack separator */
	if (fg->base_column >= 0)
		return diff_colour(fg, b, n->delta);
	if (n->kernel)		/* orange, as flamegraph.pl's java palette */
		return sb_add_rgb(b, 190 + hash_part(h, 0, 65),
				  90 + hash_part(h, 0, 65), 0);
	if (strcmp(fg->palette, "mem") == 0)
		return sb_add_rgb(b, 0, 190 + hash_part(h, 1, 50),
				  hash_part(h, 0, 210));
	/* wall time: frames only waits reach are blue, as off-CPU time */
	if (strcmp(fg->palette, "io") == 0 || (n->blocked && !n->ran)) {
		unsigned rg = 80 + hash_part(h, 0, 60);

		return sb_add_rgb(b, rg, rg, 190 + hash_part(h, 1, 55));
	}
	return sb_add_rgb(b, 205 + hash_part(h, 2, 50), hash_part(h, 0, 230),
			  hash_part(h, 1, 55));
}

/* ---- the document ---- */

static const char *background(const char *palette, int stop)
{
	if (strcmp(palette, "mem") == 0)
		return stop ? "#e0e0ff" : "#eeeeee";
	if (strcmp(palette, "io") == 0)
		return stop ? "#e8e8e8" : "#f8f8f8";
	return stop ? "#eeeeb0" : "#eeeeee";
}

/*
 * The script: it reads each frame's name and geometry back from the
 * document, so the C side only writes plain SVG. Zooming redraws the
 * clicked frame's callees across the full width and greys its callers;
 * a search paints matching frames purple and reports the share of the
 * total they cover, counting nested matches once.
 */
static const char fg_script[] =
"var frames = [], details, matched, unzoom_btn, search_btn, searching = null;\n"
"function fit(f, w) {\n"
"\tvar n = Math.floor(w / (fg.fontsize * fg.fontwidth));\n"
"\tif (n < 3) return \"\";\n"
"\tif (n >= f.name.length) return f.name;\n"
"\treturn f.name.substring(0, n - 2) + \"..\";\n"
"}\n"
"function place(f, x, w, opacity) {\n"
"\tf.g.style.display = \"\";\n"
"\tf.g.style.opacity = opacity;\n"
"\tf.rect.setAttribute(\"x\", x.toFixed(1));\n"
"\tf.rect.setAttribute(\"width\", w.toFixed(1));\n"
"\tf.text.setAttribute(\"x\", (x + 3).toFixed(1));\n"
"\tf.text.textContent = fit(f, w);\n"
"}\n"
"function frame_of(e) {\n"
"\tfor (; e && e.getAttribute; e = e.parentNode)\n"
"\t\tif (e.getAttribute(\"class\") == \"f\") return frames[e.getAttribute(\"data-i\")];\n"
"\treturn null;\n"
"}\n"
"function zoom(f) {\n"
"\tvar full = fg.width - 2 * fg.xpad, ratio = full / f.w, eps = 0.0001;\n"
"\tfor (var i = 0; i < frames.length; i++) {\n"
"\t\tvar o = frames[i];\n"
"\t\tvar caller = fg.inverted ? o.y < f.y : o.y > f.y;\n"
"\t\tif (caller && o.x <= f.x + eps && o.x + o.w + eps >= f.x + f.w)\n"
"\t\t\tplace(o, fg.xpad, full, 0.5);\n"
"\t\telse if (!caller && o.x + eps >= f.x && o.x + o.w <= f.x + f.w + eps)\n"
"\t\t\tplace(o, fg.xpad + (o.x - f.x) * ratio, o.w * ratio, 1);\n"
"\t\telse\n"
"\t\t\to.g.style.display = \"none\";\n"
"\t}\n"
"\tunzoom_btn.removeAttribute(\"class\");\n"
"}\n"
"function unzoom() {\n"
"\tfor (var i = 0; i < frames.length; i++)\n"
"\t\tplace(frames[i], frames[i].x, frames[i].w, 1);\n"
"\tunzoom_btn.setAttribute(\"class\", \"hidden\");\n"
"}\n"
"function reset_search() {\n"
"\tfor (var i = 0; i < frames.length; i++)\n"
"\t\tframes[i].rect.setAttribute(\"fill\", frames[i].fill);\n"
"\tmatched.nodeValue = \" \";\n"
"\tsearch_btn.firstChild.nodeValue = \"Search\";\n"
"\tsearching = null;\n"
"}\n"
"function search(term) {\n"
"\tvar re, hits = [], sum = 0, end = -1, i;\n"
"\ttry { re = new RegExp(term); } catch (e) { alert(\"Not a regular expression: \" + term); return; }\n"
"\treset_search();\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tif (re.test(frames[i].name)) {\n"
"\t\t\tframes[i].rect.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
"\t\t\thits.push(frames[i]);\n"
"\t\t}\n"
"\t}\n"
"\t/* frames nest or are apart: count each outermost match once */\n"
"\thits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
"\tfor (i = 0; i < hits.length; i++) {\n"
"\t\tif (hits[i].x + 0.0001 >= end) {\n"
"\t\t\tsum += hits[i].w;\n"
"\t\t\tend = hits[i].x + hits[i].w;\n"
"\t\t}\n"
"\t}\n"
"\tsearching = term;\n"
"\tsearch_btn.firstChild.nodeValue = \"Reset Search\";\n"
"\tmatched.nodeValue = \"Matched: \" + (100 * sum / (fg.width - 2 * fg.xpad)).toFixed(1) + \"%\";\n"
"}\n"
"function search_prompt() {\n"
"\tif (searching !== null) { reset_search(); return; }\n"
"\tvar term = prompt(\"Search for frames (a regular expression):\", \"\");\n"
"\tif (term) search(term);\n"
"}\n"
"function fg_init(evt) {\n"
"\tvar box = document.getElementById(\"frames\"), gs = box.getElementsByTagName(\"g\");\n"
"\tdetails = document.getElementById(\"details\").firstChild;\n"
"\tmatched = document.getElementById(\"matched\").firstChild;\n"
"\tunzoom_btn = document.getElementById(\"unzoom\");\n"
"\tsearch_btn = document.getElementById(\"search\");\n"
"\tfor (var i = 0; i < gs.length; i++) {\n"
"\t\tvar g = gs[i], r = g.getElementsByTagName(\"rect\")[0];\n"
"\t\tvar title = g.getElementsByTagName(\"title\")[0].textContent;\n"
"\t\tg.setAttribute(\"data-i\", i);\n"
"\t\tframes.push({ g: g, rect: r, text: g.getElementsByTagName(\"text\")[0],\n"
"\t\t\ttitle: title, name: title.substring(0, title.lastIndexOf(\" (\")),\n"
"\t\t\tx: parseFloat(r.getAttribute(\"x\")), w: parseFloat(r.getAttribute(\"width\")),\n"
"\t\t\ty: parseFloat(r.getAttribute(\"y\")), fill: r.getAttribute(\"fill\") });\n"
"\t}\n"
"\tbox.addEventListener(\"mouseover\", function (e) {\n"
"\t\tvar f = frame_of(e.target);\n"
"\t\tif (f) details.nodeValue = \"Function: \" + f.title;\n"
"\t});\n"
"\tbox.addEventListener(\"mouseout\", function () { details.nodeValue = \" \"; });\n"
"\tbox.addEventListener(\"click\", function (e) {\n"
"\t\tvar f = frame_of(e.target);\n"
"\t\tif (f) zoom(f);\n"
"\t});\n"
"\tunzoom_btn.addEventListener(\"click\", unzoom);\n"
"\tsearch_btn.addEventListener(\"click\", search_prompt);\n"
"\twindow.addEventListener(\"keydown\", function (e) {\n"
"\t\tif (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
"\t\t\te.preventDefault();\n"
"\t\t\tsearch_prompt();\n"
"\t\t} else if (e.keyCode === 27) {\n"
"\t\t\treset_search();\n"
"\t\t}\n"
"\t});\n"
"}\n";

static int write_header(struct flamegraph *fg, struct pk_output *out)
{
	const char *title = fg->title ? fg->title :
		fg->icicle ? "Icicle Graph" : "Flame Graph";
	const char *measure = fg->title || !fg->measure ? "" : fg->measure;
	unsigned w = fg->width, h = fg->height;
	struct pk_strbuf *b = &fg->buf;
	int rc;

	b->len = 0;
	if (sb_add_xml(b, measure, strlen(measure)) ||
	    sb_add_xml(b, title, strlen(title)))
		return PK_ENOMEM;
	rc = pk_output_printf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" "
		"onload=\"fg_init(evt)\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- written by profkit: click a frame to zoom, "
		"Ctrl-F to search -->\n"
		"<defs>\n"
		"\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" "
		"x1=\"0\" x2=\"0\">\n"
		"\t\t<stop stop-color=\"%s\" offset=\"5%%\"/>\n"
		"\t\t<stop stop-color=\"%s\" offset=\"95%%\"/>\n"
		"\t</linearGradient>\n"
		"</defs>\n"
		"<style type=\"text/css\">\n"
		"\ttext { font-family: Verdana, sans-serif; font-size: %dpx; "
		"fill: rgb(0,0,0); }\n"
		"\t#title { text-anchor: middle; font-size: %dpx; }\n"
		"\t#unzoom, #search { cursor: pointer; }\n"
		"\t.hidden { display: none; }\n"
		"\t.f:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"\"use strict\";\n"
		"var fg = { width: %u, xpad: %d, fontsize: %d, fontwidth: 0.59, "
		"inverted: %d };\n",
		w, h, w, h, background(fg->palette, 0), background(fg->palette, 1),
		FG_FONT_SIZE, FG_FONT_SIZE + 5, w, FG_XPAD, FG_FONT_SIZE,
		fg->icicle ? 1 : 0);
	if (!rc)
		rc = pk_output_puts(out, fg_script);
	if (!rc)
		rc = pk_output_printf(out,
			"]]></script>\n"
			"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
			"fill=\"url(#background)\"/>\n"
			"<text id=\"title\" x=\"%u\" y=\"%d\">%s</text>\n"
			"<text id=\"unzoom\" class=\"hidden\" x=\"%d\" y=\"%d\">"
			"Reset Zoom</text>\n"
			"<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n"
			"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
			"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n"
			"<g id=\"frames\">\n",
			w, h, w / 2, FG_FONT_SIZE * 2, b->s,
			FG_XPAD, FG_FONT_SIZE * 2,
			w - FG_XPAD - 100, FG_FONT_SIZE * 2,
			FG_XPAD, h - FG_YPAD_BOTTOM / 2,
			w - FG_XPAD - 100, h - FG_YPAD_BOTTOM / 2);
	return rc;
}

/* The label flamegraph.pl would print: what fits at the average glyph
 * width, cut with "..". */
static int sb_add_label(struct pk_strbuf *b, const char *name, size_t len,
			long long width_tenths)
{
	double chars = (double)width_tenths / 10.0 /
		       (FG_FONT_SIZE * FG_FONT_WIDTH);
	size_t fit = (size_t)chars, n;

	if (fit < 3)
		return 0;
	n = utf8_length(name, len);
	if (n <= fit)
		return sb_add_xml(b, name, len);
	return sb_add_xml(b, name, utf8_prefix(name, len, fit - 2)) ||
	       pki_strbuf_adds(b, "..");
}

static long long x_tenths(const struct flamegraph *fg, int64_t at)
{
	return round_ll((FG_XPAD + (double)at * fg->px_per_value) * 10.0);
}

static int write_frame(struct flamegraph *fg, uint32_t id, int64_t start,
		       struct pk_output *out)
{
	const struct fg_node *n = &fg->nodes[id];
	const char *name = pk_profile_string(fg->names, n->name);
	size_t len = pk_profile_string_len(fg->names, n->name);
	int64_t total = fg->nodes[FG_ROOT].total;
	long long x1 = x_tenths(fg, start), x2 = x_tenths(fg, start + n->total);
	long y;
	struct pk_strbuf *b = &fg->buf;
	int rc;

	if (fg->icicle)
		y = FG_YPAD_TOP + (long)n->depth * FG_FRAME_HEIGHT;
	else
		y = (long)fg->height - FG_YPAD_BOTTOM -
		    ((long)n->depth + 1) * FG_FRAME_HEIGHT + 1;
	b->len = 0;
	rc = pki_strbuf_adds(b, "<g class=\"f\"><title>") ||
	     sb_add_xml(b, name, len) || pki_strbuf_adds(b, " (") ||
	     sb_add_count(b, n->total, fg->scale) || pki_strbuf_adds(b, " ") ||
	     sb_add_xml(b, fg->unit, strlen(fg->unit)) ||
	     pki_strbuf_adds(b, ", ");
	if (id == FG_ROOT)
		rc = rc || pki_strbuf_adds(b, "100%)");
	else
		rc = rc || sb_add_percent(b, n->total, total, 0) ||
		     pki_strbuf_adds(b, "%");
	if (id != FG_ROOT && fg->base_column >= 0)
		rc = rc || pki_strbuf_adds(b, "; ") ||
		     sb_add_percent(b, n->delta, total, 1) ||
		     pki_strbuf_adds(b, "%");
	rc = rc || pki_strbuf_adds(b, id == FG_ROOT ? "</title><rect x=\"" :
				  ")</title><rect x=\"") ||
	     sb_add_tenths(b, x1) ||
	     sb_printf(b, "\" y=\"%ld\" width=\"", y) ||
	     sb_add_tenths(b, x2 - x1) ||
	     sb_printf(b, "\" height=\"%d\" rx=\"2\" ry=\"2\" fill=\"",
		       FG_FRAME_HEIGHT - 1) ||
	     frame_colour(fg, b, n, name, len) ||
	     pki_strbuf_adds(b, "\"/><text x=\"") || sb_add_tenths(b, x1 + 30) ||
	     pki_strbuf_adds(b, "\" y=\"") ||
	     sb_add_tenths(b, (long long)y * 10 + 105) ||
	     pki_strbuf_adds(b, "\">") ||
	     sb_add_label(b, name, len, x2 - x1) ||
	     pki_strbuf_adds(b, "</text></g>\n");
	if (rc)
		return PK_ENOMEM;
	return pk_output_write(out, b->s, b->len);
}

struct pending {
	uint32_t id;
	int64_t start;
};

/*
 * Frames in pre-order with an explicit stack (stacks may be thousands
 * deep). A frame's own weight comes first, its callees after it, in name
 * order.
 */
static int write_frames(struct flamegraph *fg, struct pk_output *out)
{
	struct pending *todo = malloc(fg->nnodes * sizeof(*todo));
	size_t ntodo = 0;
	int rc = 0;

	if (!todo)
		return PK_ENOMEM;
	todo[ntodo++] = (struct pending){ FG_ROOT, 0 };
	while (ntodo && !rc) {
		struct pending at = todo[--ntodo];
		const struct fg_node *n = &fg->nodes[at.id];
		int64_t start = at.start + n->total - n->narrow;
		size_t first = ntodo, begin = first_callee(fg, at.id), end, i, j;

		rc = write_frame(fg, at.id, at.start, out);
		for (end = begin; end < fg->ncallees &&
		     fg->callees[end].parent == at.id; end++)
			start -= fg->nodes[fg->callees[end].id].total;
		for (i = begin; i < end; i++) {
			const struct fg_node *c = &fg->nodes[fg->callees[i].id];

			start += c->before;
			if (drawn(fg, c))
				todo[ntodo++] = (struct pending){ fg->callees[i].id, start };
			start += c->total;
		}
		/* pop them in name order */
		for (i = first, j = ntodo; i + 1 < j; i++, j--) {
			struct pending t = todo[i];

			todo[i] = todo[j - 1];
			todo[j - 1] = t;
		}
	}
	free(todo);
	return rc;
}

/*
 * The depth and height drawn: as deep as the frames flamegraph.pl draws
 * reach, unless the frames under a pixel would take more rows than those
 * of a pixel or more (a frame is never wider than its caller); then only
 * as deep as the wider ones, and the thinner deeper ones are left out,
 * with a warning.
 */
static void measure(struct flamegraph *fg)
{
	unsigned deepest = 0;	/* of the frames flamegraph.pl draws */
	size_t cut = 0, i;

	fg->maxdepth = 0;
	fg->max_delta = 1;
	for (i = FG_ROOT; i < fg->nnodes; i++) {
		const struct fg_node *n = &fg->nodes[i];
		int64_t d = n->delta < 0 ? -n->delta : n->delta;
		double w = frame_width(fg, n);

		if (d > fg->max_delta)
			fg->max_delta = d;	/* vanished stacks count too */
		if (w >= FG_TALL_WIDTH && n->depth > fg->maxdepth)
			fg->maxdepth = n->depth;
		if (w >= FG_MIN_WIDTH && n->depth > deepest)
			deepest = n->depth;
	}
	if (deepest - fg->maxdepth <= fg->maxdepth + 1)
		fg->maxdepth = deepest;	/* at most half the rows thin */
	for (i = FG_ROOT; deepest > fg->maxdepth && i < fg->nnodes; i++)
		cut += frame_width(fg, &fg->nodes[i]) >= FG_MIN_WIDTH &&
		       fg->nodes[i].depth > fg->maxdepth;
	if (cut)
		pk_warn(fg->ctx, "flamegraph: %zu frames narrower than a pixel, "
			"deeper than the wider ones reach, left out (they "
			"would make the graph %u pixels taller, mostly blank)",
			cut, (deepest - fg->maxdepth) * FG_FRAME_HEIGHT);
	if (fg->max_depth && fg->maxdepth > fg->max_depth)
		fg->maxdepth = fg->max_depth;	/* asked for: no warning */
	fg->height = (fg->maxdepth + 1) * FG_FRAME_HEIGHT + FG_YPAD_TOP +
		     FG_YPAD_BOTTOM;
}


static int render(struct flamegraph *fg, struct pk_output *out)
{
	int rc;

	fg->names = pk_profile_new(0);
	if (!fg->names || start_naming(fg))
		return PK_ENOMEM;
	pki_thread_keys(fg->p, &fg->thread_keys);
	rc = build_tree(fg);
	if (rc)
		return rc;
	measure(fg);
	rc = sort_callees(fg);
	if (rc)
		return rc;
	rc = write_header(fg, out);
	if (!rc)
		rc = write_frames(fg, out);
	if (!rc)
		rc = pk_output_puts(out, "</g>\n</svg>\n");
	return rc;
}

enum { TITLE, COLORS, WIDTH, ICICLE, DIFF, MAX_DEPTH };

static const char *const palettes[] = { "hot", "mem", "io", NULL };

static const struct pki_option flamegraph_options[] = {
	[TITLE] = { .key = "flamegraph:title", .type = PK_OPTION_STRING,
		.flag = "title", .value_name = "TEXT",
		.help = "title (default \"Flame Graph\"; \"Off-CPU Time ...\")" },
	[COLORS] = { .key = "flamegraph:colors", .type = PK_OPTION_CHOICE,
		.choices = palettes, .flag = "colors", .value_name = "NAME",
		.help = "palette: hot (default; off-CPU: io), mem or io" },
	[WIDTH] = { .key = "flamegraph:width", .type = PK_OPTION_UINT,
		.def = "1200", .min = 200, .max = 1000000, .flag = "width",
		.value_name = "PX", .help = "image width in pixels (default 1200)" },
	[ICICLE] = { .key = "flamegraph:icicle", .type = PK_OPTION_FLAG,
		.flag = "icicle", .help = "root at the top (\"Icicle Graph\")" },
	[DIFF] = { .key = "flamegraph:diff", .type = PK_OPTION_FLAG,
		.flag = "diff", .help = "require a differential (two-column) input" },
	[MAX_DEPTH] = { .key = "flamegraph:max-depth", .type = PK_OPTION_UINT,
		.def = "0", .min = 0, .max = 1000000, .flag = "max-depth",
		.value_name = "N", .help = "draw at most N frames above the root "
		"(default 0: all)" },
	{ .key = NULL },
};

static void read_options(struct flamegraph *fg, const struct pk_options *opts)
{
	const struct pki_option *d = flamegraph_options;

	fg->opts = opts;
	pki_fold_settings(opts, &fg->fold);
	fg->title = pki_option_string(opts, &d[TITLE]);
	fg->colors = pki_option_string(opts, &d[COLORS]);
	fg->palette = fg->colors ? fg->colors : "hot";
	fg->width = pki_option_uint(opts, &d[WIDTH]);
	fg->icicle = pki_option_flag(opts, &d[ICICLE]) != 0;
	fg->diff = pki_option_flag(opts, &d[DIFF]) != 0;
	fg->max_depth = pki_option_uint(opts, &d[MAX_DEPTH]);
}

/*
 * A profile of no samples (an empty input): what flamegraph.pl draws for
 * no input, a 60 pixel high SVG that says so, with the title.
 */
static int write_empty(struct flamegraph *fg, struct pk_output *out)
{
	const char *title = fg->title ? fg->title :
		fg->icicle ? "Icicle Graph" : "Flame Graph";
	struct pk_strbuf *b = &fg->buf;

	b->len = 0;
	if (sb_add_xml(b, title, strlen(title)))
		return PK_ENOMEM;
	return pk_output_printf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"60\" "
		"viewBox=\"0 0 %u 60\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- written by profkit -->\n"
		"<text x=\"%u\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-family: Verdana, sans-serif; font-size: %dpx\">"
		"%s: no samples</text>\n"
		"</svg>\n", fg->width, fg->width, fg->width / 2,
		FG_FONT_SIZE + 5, b->s);
}

static int flamegraph_write(struct pk_context *ctx, const struct pk_profile *p,
			    const struct pk_options *opts,
			    struct pk_output *out)
{
	struct flamegraph fg;
	int rc;

	memset(&fg, 0, sizeof(fg));
	fg.ctx = ctx;
	fg.p = p;
	read_options(&fg, opts);
	if (!pk_profile_sample_count(p))
		rc = write_empty(&fg, out);
	else if (!(rc = pick_columns(&fg)))
		rc = render(&fg, out);
	if (rc == PK_ENOMEM && !pk_context_error(ctx)->code)
		pk_error_set(ctx, rc, "flamegraph: out of memory (the call "
			     "tree has %zu frames)", fg.nnodes);
	if (rc && pk_context_error(ctx)->code)
		rc = pk_context_error(ctx)->code;
	pk_profile_free(fg.names);
	free(fg.nodes);
	free(fg.callees);
	free(fg.items);
	free(fg.scratch);
	free(fg.spans);
	free(fg.groups);
	free(fg.names_seen);
	free(fg.built);
	free(fg.loc_first);
	free(fg.loc_end);
	free(fg.loc_names);
	free(fg.loc_kernel);
	free(fg.buf.s);
	free(fg.name.s);
	return rc;
}

const struct pki_format pki_format_flamegraph = {
	.name = "flamegraph",
	.write_description = "interactive SVG flame graph (as flamegraph.pl)",
	.extension = ".svg",
	.write = flamegraph_write,
	.profile_flags = PK_PROFILE_NAMES_ONLY,
	.options = flamegraph_options,
};
