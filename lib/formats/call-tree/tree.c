/* SPDX-License-Identifier: MIT */
/* What the call-tree readers share (call-tree.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call-tree.h"
#include "core/names.h"
#include "core/parts.h"
#include "transforms/copy.h"

#define MAX_DECIMALS 9
/* pk_input_line's limit: past it a line is taken for binary data */
#define MAX_LINE (64 * 1024 * 1024)

void pki_tree_init(struct pki_tree *t, struct pk_context *ctx,
		   struct pk_input *in, struct pk_profile *p)
{
	size_t size;

	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->in = in;
	t->p = p;
	t->ncolumns = 1;
	t->times = 1;
	/* read in place where the file can be mapped: no copy to a buffer,
	 * no call per line */
	t->at = (const char *)pki_input_map(in, &size);
	t->end = t->at ? t->at + size : NULL;
	/* names as these tools print them: no perf names to tidy */
	pk_profile_set_meta(p, PKI_META_VERBATIM_NAMES, "yes");
}

static void free_scan(struct pki_tree *t);

void pki_tree_free(struct pki_tree *t)
{
	free(t->path);
	free(t->stack);
	free(t->frame_of);
	free(t->paths);
	free(t->path_stacks);
	free(t->name.s);
	pki_memo_free(&t->row_memo);
	free(t->row_of);
	while (t->nsubtrees)
		free(t->subtrees[--t->nsubtrees].text);
	free(t->subtrees);
	free(t->subtree_of);
	free(t->replay);
	free_scan(t);
}

static void warn_cut(struct pki_tree *t)
{
	pk_warn(t->ctx, "%s: line %llu: the file ends mid-line (truncated file?)",
		pk_input_name(t->in), (unsigned long long)pki_tree_lineno(t));
}

/* pk_input_line's reading of the mapped text */
static const char *mapped_line(struct pki_tree *t, size_t *len)
{
	const char *line = t->at, *next;
	int cut;

	if (line == t->end)
		return NULL;
	if (t->part)
		pki_part_step(t->part, line);
	*len = pki_text_line(line, t->end, &next, &cut);
	/* its bytes but the newline, as pk_input_line measures them (a
	 * '\r' at most more than len) */
	if (*len >= MAX_LINE - 1 &&
	    pki_text_line_bytes(line, next) >= MAX_LINE) {
		t->at = t->end;
		pk_error_set(t->ctx, PK_EINPUT, "%s: line %llu: longer than %d "
			     "MiB (binary data? try --from)", pk_input_name(t->in),
			     (unsigned long long)t->lines + 1, MAX_LINE >> 20);
		return NULL;
	}
	t->at = next;
	t->lines++;
	if (cut)
		warn_cut(t);
	return line;
}

const char *pki_tree_line(struct pki_tree *t, size_t *len)
{
	uint64_t offset;
	const char *line;

	if (t->at)
		return mapped_line(t, len);
	offset = pk_input_offset(t->in);
	line = pk_input_line(t->in, len);
	if (line && pk_input_offset(t->in) - offset == *len)
		warn_cut(t);
	return line;
}

/* The part whose lines t reads: the one it reads, or the one whose
 * roots the whole reads for it (read_scanned). */
static struct pki_part *lines_part(const struct pki_tree *t)
{
	return t->part ? t->part : t->scanned;
}

uint64_t pki_tree_lineno(const struct pki_tree *t)
{
	if (lines_part(t))
		return pki_part_first_line(lines_part(t)) + t->lines;
	return t->at ? t->lines : pk_input_lineno(t->in);
}

/*
 * The rows' memo hashes a line as it looks for the line's end, in one
 * pass over its bytes, a word at a time: row_hash and scan_line hash
 * alike, the whole words of a text, then its last bytes zero-filled
 * into one more word.
 */
#define BYTES_OF(c) (0x0101010101010101ULL * (unsigned char)(c))

static inline uint64_t mix_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

static inline uint64_t last_word(uint64_t h, const char *bytes, size_t n,
				 size_t len)
{
	uint64_t w = 0;

	memcpy(&w, bytes, n);
	h = mix_word(h, w) ^ len;
	h *= 0xd6e8feb86659fd93ULL;
	return h ^ h >> 32;
}

#define ROW_HASH_SEED 0xcbf29ce484222325ULL

static uint64_t row_hash(const char *text, size_t len)
{
	uint64_t h = ROW_HASH_SEED, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, text + i, 8);
		h = mix_word(h, w);
	}
	return last_word(h, text + i, len - i, len);
}

/*
 * The newline that ends the line at s, and the hash of the bytes before
 * it (row_hash's); NULL when there is none but in the text's last seven
 * bytes, which a word read would pass.
 */
static const char *scan_line(const char *s, const char *end, uint64_t *hash)
{
	uint64_t h = ROW_HASH_SEED, w, x;
	const char *p, *nl;

	for (p = s; end - p >= 8; p += 8) {
		memcpy(&w, p, 8);
		x = w ^ BYTES_OF('\n');
		/* a zero byte of x, a newline of w */
		if ((x - BYTES_OF(1)) & ~x & BYTES_OF(0x80)) {
			for (nl = p; *nl != '\n'; nl++)
				;
			*hash = last_word(h, p, (size_t)(nl - p), (size_t)(nl - s));
			return nl;
		}
		h = mix_word(h, w);
	}
	return NULL;
}

/* The memo id of a line's row, 0 when the memo is full. */
static uint32_t row_id(struct pki_tree *t, const char *line, size_t len,
		       uint64_t hash)
{
	uint32_t id = pki_memo_id_hashed(&t->row_memo, line, len, hash);

	if (!id || pki_grow_zeroed(&t->row_of, &t->row_of_cap, (size_t)id + 1,
				   sizeof(*t->row_of)) < 0)
		return 0;
	return id;
}

/*
 * The mapped text's next line, as mapped_line reads it, and the hash of
 * its text, where scan_line finds its end; else NULL.
 */
static const char *scanned_line(struct pki_tree *t, size_t *len, uint64_t *hash)
{
	const char *line = t->at, *nl;

	if (!line || !(nl = scan_line(line, t->end, hash)) ||
	    nl - line >= MAX_LINE - 1)
		return NULL;
	*len = (size_t)(nl - line);
	if (*len && line[*len - 1] == '\r')
		*hash = row_hash(line, --*len);
	if (t->part)
		pki_part_step(t->part, line);
	t->at = nl + 1;
	t->lines++;
	return line;
}

/*
 * The mapped text's next line when it is the text of row id (its newline,
 * or a '\r' and a newline, after it), read as mapped_line reads it;
 * else NULL. A line's text has no newline: bytes equal up to one are
 * the whole line.
 */
static const char *line_of_row(struct pki_tree *t, uint32_t id, size_t *len)
{
	const char *line = t->at, *after, *text;
	size_t n;

	if (!id || !line)
		return NULL;
	text = pki_memo_text(&t->row_memo, id, &n);
	if ((size_t)(t->end - line) <= n || memcmp(line, text, n) != 0)
		return NULL;
	after = line + n;
	if (*after == '\r' && after + 1 < t->end)
		after++;
	if (*after != '\n')
		return NULL;
	if (t->part)
		pki_part_step(t->part, line);
	t->at = after + 1;
	t->lines++;
	*len = n;
	return line;
}

const char *pki_tree_next_row(struct pki_tree *t, size_t *len,
			      struct pki_tree_row **row)
{
	uint32_t id = t->last_row ? pki_memo_follower(&t->row_memo, t->last_row, 0) : 0;
	const char *line;
	uint64_t hash;

	if (!(line = line_of_row(t, id, len))) {
		if ((line = scanned_line(t, len, &hash)))
			;
		else if ((line = pki_tree_line(t, len)))
			hash = row_hash(line, *len);
		else
			return NULL;
		id = row_id(t, line, *len, hash);
	}
	pki_memo_follow(&t->row_memo, t->last_row, id);
	t->row_before = t->last_row;
	t->last_row = id;
	*row = id ? &t->row_of[id] : NULL;
	return line;
}

int pki_tree_error(struct pki_tree *t, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pk_error_set(t->ctx, PK_EINPUT, "%s: line %llu: %s",
			    pk_input_name(t->in),
			    (unsigned long long)pki_tree_lineno(t), what);
}

static uint32_t new_frame(struct pki_tree *t, pk_str name, const char *module,
			  size_t module_len)
{
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	uint32_t mapping = 0;

	if (module_len) {
		struct pk_mapping m = { 0 };

		m.file = pk_profile_intern(t->p, module, module_len);
		m.has_functions = 1;
		mapping = pk_profile_intern_mapping(t->p, &m);
	}
	f.name = f.system_name = name;
	line.function = pk_profile_intern_function(t->p, &f);
	return pk_profile_intern_location(t->p, mapping, 0, &line, 1);
}

/* Names repeat on every line: the location of a name is found by the
 * string's id, without interning the function and location again. The
 * module is part of the name wherever a format shows it, so one name
 * has one module. A frame without a name is "[unknown]" (the empty
 * string's id 0 would read as out of memory). */
uint32_t pki_tree_frame(struct pki_tree *t, const char *name, size_t len,
			const char *module, size_t module_len)
{
	pk_str id;

	if (!len) {
		name = PKI_UNKNOWN;
		len = strlen(PKI_UNKNOWN);
	}
	id = pk_profile_intern(t->p, name, len);
	size_t have = t->frame_of_cap;

	if (!id)
		return 0;
	if (id >= t->frame_of_cap) {
		if (pki_grow(&t->frame_of, &t->frame_of_cap, (size_t)id + 1,
			     sizeof(*t->frame_of)) < 0)
			return 0;
		memset(t->frame_of + have, 0,
		       (t->frame_of_cap - have) * sizeof(*t->frame_of));
	}
	if (!t->frame_of[id])
		t->frame_of[id] = new_frame(t, id, module, module_len);
	return t->frame_of[id];
}

/* ---- reading in parts ---- */

static int settle_subtrees(struct pki_tree *t);
static void drop_recording(struct pki_tree *t);
static int scan_part(struct pki_tree *t);
static int parts_scan(const struct pki_tree *t);
static int scanned_to_end(const struct pki_tree *t);
static int read_scanned(void *whole, void *reader);

int pki_tree_at_text_end(const struct pki_tree *t)
{
	return !lines_part(t) || lines_part(t)->end == t->text_end;
}

#define CUT_LOOK_LEAST ((size_t)1 << 20)

/*
 * A tree may have few roots (VTune's one "Total", Instruments' one
 * process): the look for one ends an eighth of the rest past pos (1 MiB
 * at least), the part before then taking the rest. Looking on to the
 * end cost a text of one root the scan of all its second half (7 ms of
 * 50 MB) for a second part that never came. What is looked through
 * leaves memory as it goes (pki_cut_step).
 */
size_t pki_tree_cut_at_line(const struct pki_tree *t, const char *data, size_t size,
			    size_t pos, int (*is_root)(const char *line, size_t len))
{
	const char *s = data + pos, *end = data + size, *look_end, *nl, *kept;
	size_t look = (size - pos) / 8;

	if (look < CUT_LOOK_LEAST)
		look = CUT_LOOK_LEAST;
	look_end = look < size - pos ? data + pos + look : end;
	if (pos && !(s = memchr(s - 1, '\n', size - pos + 1)))
		return size;
	for (kept = s += pos ? 1 : 0; s < look_end &&
	     (nl = memchr(s, '\n', (size_t)(end - s))); s = nl + 1) {
		if (is_root(s, (size_t)(nl - s)))
			return (size_t)(s - data);
		pki_cut_step(t->in, &kept, nl);
	}
	return size;
}

/*
 * Where a format's later parts only tell roots apart (scan_part), the
 * first part, read by the whole, learns the names and reads its roots,
 * slower a MB than a later part tells its own apart (callgrind, the
 * macOS sample bench input: 1.6M against 0.9M instructions a MB): it
 * takes a quarter of its share, the later parts the rest, and the whole
 * reads their roots after its own. (Where roots do not come again, the
 * later parts read theirs themselves, and the first finishes early.)
 */
#define FIRST_PART_SHARE 4

static size_t cut_part(void *whole, const char *data, size_t size, size_t pos)
{
	struct pki_tree *t = whole;

	if (parts_scan(t) && !t->cuts++)
		pos /= FIRST_PART_SHARE;
	return t->rows_of->cut ? t->rows_of->cut(whole, data, size, pos) :
	       pki_tree_cut_at_line(t, data, size, pos, t->rows_of->is_root);
}

/* The whole's sample types, in order, for a part's profile. */
static int copy_sample_types(struct pk_profile *p, const struct pk_profile *whole)
{
	size_t i, n = pk_profile_sample_type_count(whole);

	for (i = 0; i < n; i++) {
		const struct pk_value_type *v = pk_profile_sample_type(whole, i);

		if (pk_profile_add_sample_type(p, pk_profile_string(whole, v->type),
					       pk_profile_string(whole, v->unit),
					       pk_profile_string(whole, v->event),
					       v->kind) != (int)i)
			return -1;
	}
	return 0;
}

static void close_part(void *reader)
{
	struct pki_tree *t = reader;

	if (t->rows_of->release)
		t->rows_of->release(t);
	pki_tree_free(t);
	free(reader);
}

static void *open_part(void *whole, struct pk_context *ctx, struct pk_profile *p,
		       const struct pki_part *part)
{
	const struct pki_tree *w = whole;
	struct pki_tree *t = calloc(1, w->rows_of->size);

	if (!t)
		return NULL;
	pki_tree_init(t, ctx, w->in, p);
	t->rows_of = w->rows_of;
	t->ncolumns = w->ncolumns;
	t->column = w->column;
	/* the lines before the parts, the header's, are not in the text */
	t->lines = w->lines;
	t->text_end = w->text_end;
	t->later = 1;
	(void)part;
	if (w->rows_of->copy)
		w->rows_of->copy(t, w);
	if (copy_sample_types(p, w->p)) {
		close_part(t);
		pk_error_set(ctx, PK_ENOMEM, "out of memory");
		return NULL;
	}
	return t;
}

static int read_part(void *reader, struct pki_part *part)
{
	struct pki_tree *t = reader;
	int rc;

	/* no root to cut at: the part before took the rest */
	if (part->start == part->end)
		return 0;
	t->part = part;
	t->at = part->start;
	t->end = part->end;
	/* the roots the whole will read, then the rest read here */
	rc = scan_part(t);
	if (!rc)
		rc = t->rows_of->read(t);
	pki_part_finish(part, t->at);
	if (!rc)
		rc = pk_context_error(t->ctx)->code;
	/* a part all in blocks ends with its last (read_scanned) */
	if (!rc && t->rows_of->end && !scanned_to_end(t)) {
		/* a reader of the whole ends this root on the next one's line */
		t->lines += !pki_tree_at_text_end(t);
		rc = t->rows_of->end(t);
	}
	/* a subtree ended by the part's end, not by a root's line: the
	 * whole may read on elsewhere (read_scanned) */
	drop_recording(t);
	return rc ? rc : settle_subtrees(t);
}

static int absorb_part(void *whole, void *reader)
{
	struct pki_tree *w = whole, *t = reader;

	w->rows += t->rows;
	if (w->rows_of->absorb)
		w->rows_of->absorb(w, t);
	return 0;
}

static uint64_t *few_warnings(void *reader)
{
	return &((struct pki_tree *)reader)->counted;
}

/* Parts past the rows' end are dropped. */
static int part_kept(void *whole)
{
	const struct pki_tree *w = whole;

	return !w->rows_of->going_on || w->rows_of->going_on(w);
}

static const struct pki_parts_reader tree_parts = {
	.cut = cut_part,
	.open = open_part,
	.read = read_part,
	.absorb = absorb_part,
	.close = close_part,
	.kept = part_kept,
	.before_append = read_scanned,
	.append = pki_copy_append,
	.few = few_warnings,
};

int pki_tree_read_rows(struct pki_tree *t, const struct pki_tree_rows *f,
		       const struct pk_options *opts)
{
	int rc;

	t->rows_of = f;
	if (!t->at || t->at == t->end) {
		rc = f->read(t);
		if (!rc)
			rc = pk_context_error(t->ctx)->code;
		if (!rc && f->end)
			rc = f->end(t);
		return rc ? rc : settle_subtrees(t);
	}
	t->text_end = t->end;
	return pki_read_parts(&tree_parts, t, t->ctx, t->in, t->p, opts, t->at,
			      (size_t)(t->end - t->at));
}

static size_t path_slot(uint32_t parent, uint32_t location, size_t mask)
{
	return pki_hash_u64((uint64_t)parent << 32 | location) & mask;
}

/* The paths' hash set at twice the size. */
static int grow_paths(struct pki_tree *t)
{
	size_t size = t->paths ? (t->path_mask + 1) * 2 : 1024, i, k;
	struct pki_tree_path *paths;

	if (size > UINT32_MAX || !(paths = calloc(size, sizeof(*paths))))
		return -1;
	for (k = 0; t->paths && k <= t->path_mask; k++) {
		const struct pki_tree_path *p = &t->paths[k];

		if (!p->id)
			continue;
		for (i = path_slot(p->parent, p->location, size - 1); paths[i].id;
		     i = (i + 1) & (size - 1))
			;
		paths[i] = *p;
	}
	free(t->paths);
	t->paths = paths;
	t->path_mask = size - 1;
	return 0;
}

/* The id of the path parent (0: none, a root) and location below it,
 * new the first time; 0 when out of memory. */
static uint32_t path_id(struct pki_tree *t, uint32_t parent, uint32_t location)
{
	struct pki_tree_path *p;
	size_t i;

	if ((t->npaths + 2) * 2 > t->path_mask + 1 && grow_paths(t) < 0)
		return 0;
	for (i = path_slot(parent, location, t->path_mask); t->paths[i].id;
	     i = (i + 1) & t->path_mask) {
		p = &t->paths[i];
		if (p->parent == parent && p->location == location)
			return p->id;
	}
	if (pki_grow_zeroed(&t->path_stacks, &t->path_stacks_cap, t->npaths + 2,
			    sizeof(*t->path_stacks)) < 0)
		return 0;
	p = &t->paths[i];
	p->parent = parent;
	p->location = location;
	p->id = (uint32_t)++t->npaths;
	return p->id;
}

/* Room for a node at depth, checking that no level is skipped. */
static int reach(struct pki_tree *t, size_t depth)
{
	if (depth > t->depth)
		return pki_tree_error(t, "a node %zu levels below the one "
				      "above it (at most 1)", depth - t->depth + 1);
	if (pki_grow(&t->path, &t->path_cap, depth + 1, sizeof(*t->path)) < 0)
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	t->rows++;
	return 0;
}

/* The node at depth is location, read from row where not NULL: a row
 * met again below the parent it had last time has the path it had. */
static void place(struct pki_tree *t, size_t depth, uint32_t location,
		  struct pki_tree_row *row)
{
	struct pki_tree_node *n = &t->path[depth];
	uint32_t parent = depth ? t->path[depth - 1].path : 0;

	n->location = location;
	if (depth && !parent) {
		n->path = 0;
	} else if (row && row->path && row->parent_path == parent) {
		n->path = row->path;
	} else {
		n->path = path_id(t, parent, location);
		if (row) {
			row->parent_path = parent;
			row->path = n->path;
		}
	}
}

/* The stack of the first depth nodes of the path, interned. */
static uint32_t path_stack(struct pki_tree *t, size_t depth)
{
	/* a frame past the profile's limit makes it cut the stack (and
	 * count the cut); more would be copied for nothing */
	size_t max = pki_profile_max_stack(t->p), n = 0, d;
	uint32_t id = t->path[depth - 1].path, stack;

	if (id && t->path_stacks[id])
		return t->path_stacks[id];
	if (pki_grow(&t->stack, &t->stack_cap, (depth < max ? depth : max) + 2,
		     sizeof(*t->stack)) < 0)
		return 0;
	for (d = depth; d-- > 0 && n <= max;)
		if (t->path[d].location)
			t->stack[n++] = t->path[d].location;
	/* a subtree replayed would not count the cut again */
	if (n > max)
		t->recording.spoiled = 1;
	stack = pk_profile_intern_stack(t->p, t->stack, n);
	/* a stack cut is counted each time: it is interned each time */
	if (id && n <= max)
		t->path_stacks[id] = stack;
	return stack;
}

static void record_sample(struct pki_tree *t, uint32_t stack, int64_t value);

/* A sample of values for the first depth nodes of the path, t->times
 * over (the products wrap, as that many sums would; scan_part reads at
 * most 64 values). */
static int add_sample(struct pki_tree *t, size_t depth, const int64_t *values)
{
	uint32_t stack = path_stack(t, depth);
	int64_t times_values[64];
	const int64_t *v = values;
	size_t c;

	if (t->times != 1) {
		for (c = 0; c < t->ncolumns; c++)
			times_values[c] = (int64_t)((uint64_t)values[c] * t->times);
		v = times_values;
	}
	if (!stack || pk_profile_add_sample(t->p, stack, t->labels, 0, v,
					    t->ncolumns))
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	/* a subtree's samples, not its root's own */
	if (t->recording.row && depth > 1)
		record_sample(t, stack, values[t->column]);
	return 0;
}

static int self_at(struct pki_tree *t, size_t depth, uint32_t location,
		   const int64_t *values, struct pki_tree_row *row)
{
	size_t c;
	int rc = reach(t, depth);

	if (rc)
		return rc;
	place(t, depth, location, row);
	t->depth = depth + 1;
	for (c = 0; c < t->ncolumns; c++)
		if (values[c])
			return add_sample(t, t->depth, values);
	return 0;
}

int pki_tree_read_self_rows(struct pki_tree *t)
{
	struct pki_tree_row own, *row;
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pki_tree_next_row(t, &len, &row))) {
		int64_t value;

		if (!len)
			continue;
		if (!row) {
			memset(&own, 0, sizeof(own));
			row = &own;
		}
		if (!row->read) {
			if ((rc = t->rows_of->read_row(t, line, len, row)))
				break;
			row->scale = 0;		/* its value not worked out yet */
			row->read = 1;
		}
		if (!(rc = pki_tree_row_value(t, row, &value)))
			rc = self_at(t, row->depth, row->location, &value, row);
	}
	return rc;
}

/* The deepest node leaves the path: its own value is added. */
static int leave(struct pki_tree *t)
{
	struct pki_tree_node *n = &t->path[--t->depth];
	int64_t own = n->inclusive - n->callees, values[64];

	if (own < 0)
		return pki_tree_error(t, "callees take %lld, more than their "
				      "caller's %lld", (long long)n->callees,
				      (long long)n->inclusive);
	if (!own || n->waiting)
		return 0;
	/* the columns a sample has, not all 64: a leave a node */
	memset(values, 0, t->ncolumns * sizeof(*values));
	values[t->column] = own;
	return add_sample(t, t->depth + 1, values);
}

int pki_tree_self(struct pki_tree *t, size_t depth, uint32_t location,
		  const int64_t *values)
{
	return self_at(t, depth, location, values, NULL);
}

static int inclusive_at(struct pki_tree *t, size_t depth, uint32_t location,
			int64_t value, int waiting, struct pki_tree_row *row)
{
	struct pki_tree_node *n;
	int rc = 0;

	if (t->column < 0 || t->ncolumns > 64 || (size_t)t->column >= t->ncolumns)
		return pk_error_set(t->ctx, PK_EUSAGE, "no sample type for the values");
	if ((rc = reach(t, depth)))
		return rc;
	while (!rc && t->depth > depth)
		rc = leave(t);
	if (rc)
		return rc;
	if (depth && value > INT64_MAX - t->path[depth - 1].callees)
		return pki_tree_error(t, "the count %lld is too large",
				      (long long)value);
	if (depth)
		t->path[depth - 1].callees += value;
	place(t, depth, location, row);
	n = &t->path[depth];
	n->inclusive = value;
	n->callees = 0;
	n->waiting = waiting != 0;
	t->depth = depth + 1;
	return 0;
}

int pki_tree_inclusive(struct pki_tree *t, size_t depth, uint32_t location,
		       int64_t value, int waiting)
{
	return inclusive_at(t, depth, location, value, waiting, NULL);
}

int pki_tree_inclusive_row(struct pki_tree *t, struct pki_tree_row *row,
			   int waiting)
{
	return inclusive_at(t, row->depth, row->location, row->mantissa,
			    waiting, row);
}

int pki_tree_finish(struct pki_tree *t)
{
	int rc = 0;

	while (!rc && t->depth)
		rc = leave(t);
	return rc;
}

/* ---- subtrees met again ---- */

/* The subtrees' texts and samples kept, past which none is recorded: a
 * copy of the text read, where no subtree comes again (a real report's
 * threads, each once but for idle twins), so less than the rows'. */
#define SUBTREES_MAX_BYTES ((size_t)16 << 20)

static void record_sample(struct pki_tree *t, uint32_t stack, int64_t value)
{
	size_t need = (t->nreplay + 1 - t->recording.first) * sizeof(*t->replay);

	if (t->recording.spoiled || need > SUBTREES_MAX_BYTES - t->subtree_bytes ||
	    pki_grow(&t->replay, &t->replay_cap, t->nreplay + 1,
		     sizeof(*t->replay)) < 0) {
		t->recording.spoiled = 1;
		return;
	}
	t->replay[t->nreplay].stack = stack;
	t->replay[t->nreplay++].value = value;
}

/* No subtree recorded any longer: its samples' room is free again. */
static void drop_recording(struct pki_tree *t)
{
	if (t->recording.row)
		t->nreplay = t->recording.first;
	t->recording.row = 0;
}

/* Whether the text read next is s's, a root's line after it. */
static int comes_again(const struct pki_tree *t, const struct pki_tree_subtree *s,
		       int (*is_root)(const char *line, size_t len))
{
	/* a block the whole reads (read_scanned) ends where the next
	 * root's line starts */
	const char *end = t->part_end ? t->part_end : t->end;
	const char *after = t->at + s->len, *next;

	if ((size_t)(end - t->at) <= s->len || after > t->end ||
	    memcmp(t->at, s->text, s->len))
		return 0;
	return is_root(after, pki_text_line(after, end, &next, NULL));
}

/* s's samples added times times to the thread labels (the product
 * wraps, as that many sums of a sample's values do). */
static int add_subtree(struct pki_tree *t, const struct pki_tree_subtree *s,
		       uint32_t labels, uint64_t times)
{
	int64_t values[64] = { 0 };
	size_t i;

	for (i = s->first; i < s->first + s->nsamples; i++) {
		values[t->column] = (int64_t)((uint64_t)t->replay[i].value * times);
		if (pk_profile_add_sample(t->p, t->replay[i].stack, labels, 0,
					  values, t->ncolumns))
			return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	}
	return 0;
}

/* What s owes its last thread, added. */
static int settle_subtree(struct pki_tree *t, struct pki_tree_subtree *s)
{
	uint64_t times = s->pending;

	s->pending = 0;
	return times ? add_subtree(t, s, s->labels, times) : 0;
}

/* What every subtree owes, added: at the end of the rows read. */
static int settle_subtrees(struct pki_tree *t)
{
	size_t k;
	int rc = 0;

	for (k = 0; k < t->nsubtrees && !rc; k++)
		rc = settle_subtree(t, &t->subtrees[k]);
	return rc;
}

/*
 * s's samples added again below the root, and its text passed. Below
 * the thread they were last added to, where the profile sums its
 * samples, they are only counted, and added at once at the end
 * (settle_subtrees): the samples they add to are there already, and
 * a sum is the same in any order.
 */
static int replay(struct pki_tree *t, struct pki_tree_subtree *s)
{
	int rc;

	if (s->labels == t->labels && !pki_profile_keeps_order(t->p)) {
		s->pending += t->times;
	} else {
		if ((rc = settle_subtree(t, s)) ||
		    (rc = add_subtree(t, s, t->labels, t->times)))
			return rc;
		s->labels = t->labels;
	}
	t->path[0].callees = s->callees;
	t->rows += s->rows;
	t->lines += s->lines;
	t->at += s->len;
	if (t->part)
		pki_part_step(t->part, t->at);
	/* the next root's line as it came after the subtree last time */
	t->last_row = s->last_row;
	return 1;
}

int pki_tree_subtree_begin(struct pki_tree *t, struct pki_tree_row *row,
			   int (*is_root)(const char *line, size_t len))
{
	uint32_t id, k;

	drop_recording(t);
	/* a mapped text (a stream's lines do not stay), the root alone on
	 * the path, as its line left it */
	if (!row || !t->at || t->depth != 1 || t->path[0].callees ||
	    t->column < 0 || t->ncolumns > 64 || (size_t)t->column >= t->ncolumns)
		return 0;
	id = (uint32_t)(row - t->row_of);
	k = id < t->subtree_of_cap ? t->subtree_of[id] : 0;
	if (k && comes_again(t, &t->subtrees[k - 1], is_root))
		return replay(t, &t->subtrees[k - 1]);
	t->recording.row = id;
	t->recording.text = t->at;
	t->recording.lines = t->lines;
	t->recording.rows = t->rows;
	t->recording.first = t->nreplay;
	t->recording.spoiled = 0;
	return 0;
}

void pki_tree_subtree_spoil(struct pki_tree *t)
{
	t->recording.spoiled = 1;
}

/* The subtree recorded up to line, where a root starts, kept; last_row:
 * the memo id of the line read last before the root's. */
static void keep_subtree(struct pki_tree *t, const char *line, int64_t callees,
			 uint32_t last_row)
{
	size_t len = (size_t)(line - t->recording.text), first = t->recording.first;
	uint32_t id = t->recording.row;
	struct pki_tree_subtree *s;
	char *text;

	if (len > SUBTREES_MAX_BYTES - t->subtree_bytes ||
	    pki_grow(&t->subtrees, &t->subtrees_cap, t->nsubtrees + 1,
		     sizeof(*t->subtrees)) < 0 ||
	    pki_grow_zeroed(&t->subtree_of, &t->subtree_of_cap, (size_t)id + 1,
			    sizeof(*t->subtree_of)) < 0 ||
	    !(text = malloc(len ? len : 1)))
		return;
	memcpy(text, t->recording.text, len);
	s = &t->subtrees[t->nsubtrees++];
	s->text = text;
	s->len = len;
	/* the root's line is read: not the subtree's */
	s->lines = t->lines - 1 - t->recording.lines;
	s->rows = t->rows - t->recording.rows;
	s->callees = callees;
	s->last_row = last_row;
	s->first = first;
	s->nsamples = t->nreplay - first;
	s->labels = t->labels;
	s->pending = 0;
	t->subtree_bytes += len + sizeof(*s) + s->nsamples * sizeof(*t->replay);
	t->subtree_of[id] = (uint32_t)t->nsubtrees;
	t->recording.row = 0;	/* its samples stay */
}

static int end_subtree(struct pki_tree *t, const char *line, uint32_t last_row)
{
	int64_t callees = t->depth ? t->path[0].callees : 0;
	int rc = pki_tree_finish(t);

	if (!rc && t->recording.row && !t->recording.spoiled &&
	    t->nsubtrees < UINT32_MAX)
		keep_subtree(t, line, callees, last_row);
	drop_recording(t);
	return rc;
}

int pki_tree_subtree_end(struct pki_tree *t, const char *line)
{
	/* the root's line is read: the one before it is the last */
	return end_subtree(t, line, t->row_before);
}

/* ---- a later part's roots, told apart ---- */

/*
 * A later part's reader does not read the roots of its text: it tells
 * them apart, by their text (a root's line and its subtree, up to the
 * next root's line), and counts each; the whole's reader, which met
 * most of them before in its own part, then reads each once, its
 * samples as many times over (read_scanned). In a report whose thread
 * graphs come again (the bench's grown input: a thousand graphs each
 * fifty times) the second part then learns no names a second time, and
 * the first learns them once. Where the roots do not come again the
 * part reads the rest itself, as before (fresh_enough).
 */
struct pki_tree_block {
	const char *text;	/* the memo's copy (NULL: read where it is) */
	size_t start, len;	/* in the part */
	uint64_t line, lines;	/* the part's lines before it; its own */
	uint64_t count;
	uint32_t next;		/* the block after it last time (index + 1) */
};

struct pki_tree_scan {
	struct pki_memo memo;		/* block indexes + 1 by text */
	struct pki_tree_block *blocks;
	size_t nblocks, cap;
	uint64_t first_lines;		/* the reader's lines at the part's start */
	int to_end;			/* all the part's text is in blocks */
};

/* Blocks a part holds at most (a block read where it is, of a line
 * warned of, is one each time it comes), past which it reads on. */
#define SCAN_MAX_BLOCKS ((size_t)1 << 16)
/* What a part tells apart before it judges its blocks' repeats. */
#define SCAN_LOOK_LEAST ((size_t)1 << 20)

static void free_scan(struct pki_tree *t)
{
	if (!t->scan)
		return;
	pki_memo_free(&t->scan->memo);
	free(t->scan->blocks);
	free(t->scan);
	t->scan = NULL;
}

/* A line's PKI_SCAN_* flags, as its reader would take it: the file's
 * last line cut, or one too long, is warned of or refused; a node whose
 * stack is cut (counted each time) is read each time too. */
static unsigned scan_flags(const struct pki_tree *t, const char *line,
			   const char *end, const char **next)
{
	int cut;
	size_t len = pki_text_line(line, end, next, &cut), depth = 0;
	unsigned flags = t->rows_of->scan_line(line, len, &depth);

	if (cut || len >= MAX_LINE - 1 || depth >= pki_profile_max_stack(t->p))
		flags |= PKI_SCAN_DIRTY;
	return flags;
}

/* Whether a line read as flags says ends a block: a root its reader
 * takes for one, the rows' end. */
static int ends_block(unsigned flags)
{
	return (flags & PKI_SCAN_END) ||
	       (flags & (PKI_SCAN_ROOT | PKI_SCAN_DIRTY)) == PKI_SCAN_ROOT;
}

/* Where the block at s ends (end, or the line that ends it), its lines
 * and whether any is warned of. */
static const char *block_end(const struct pki_tree *t, const char *s,
			     const char *end, uint64_t *lines, int *dirty)
{
	const char *next;
	unsigned flags = scan_flags(t, s, end, &next);

	*dirty = (flags & PKI_SCAN_DIRTY) != 0;
	for (*lines = 1, s = next; s < end; (*lines)++, s = next) {
		flags = scan_flags(t, s, end, &next);
		if (ends_block(flags))
			break;
		*dirty |= (flags & PKI_SCAN_DIRTY) != 0;
	}
	return s;
}

/* Whether block b comes again at s, a block's end after it. */
static int block_again(const struct pki_tree *t, const struct pki_tree_block *b,
		       const char *s, const char *end)
{
	const char *after = s + b->len, *next;

	if (!b->text || (size_t)(end - s) < b->len || memcmp(s, b->text, b->len))
		return 0;
	return after == end || ends_block(scan_flags(t, after, end, &next));
}

/* The block at s (len bytes, lines lines) counted: its index + 1, new the
 * first time (each time for a dirty one); 0 when the part holds enough. */
static uint32_t count_block(struct pki_tree *t, const char *s, size_t len,
			    uint64_t lines, int dirty)
{
	struct pki_tree_scan *sc = t->scan;
	struct pki_tree_block *b;
	uint64_t *index = NULL;
	uint32_t id = 0;

	if (!dirty) {
		if (!(id = pki_memo_id_hashed(&sc->memo, s, len, row_hash(s, len))))
			return 0;
		index = pki_memo_value(&sc->memo, id);
		if (*index) {
			sc->blocks[*index - 1].count++;
			return (uint32_t)*index;
		}
	}
	if (sc->nblocks >= SCAN_MAX_BLOCKS ||
	    pki_grow(&sc->blocks, &sc->cap, sc->nblocks + 1, sizeof(*sc->blocks)) < 0)
		return 0;
	b = &sc->blocks[sc->nblocks++];
	memset(b, 0, sizeof(*b));
	b->text = id ? pki_memo_text(&sc->memo, id, &b->len) : NULL;
	b->start = (size_t)(s - t->part->start);
	b->len = len;
	b->line = t->lines - sc->first_lines;
	b->lines = lines;
	b->count = 1;
	if (index)
		*index = sc->nblocks;
	return (uint32_t)sc->nblocks;
}

/* Whether a part's blocks come again often enough to leave them to the
 * whole: past the first eighth of the part (1 MiB at least), less than
 * half of what was told apart is new. */
static int fresh_enough(const struct pki_tree *t, const char *s, size_t fresh)
{
	size_t told = (size_t)(s - t->part->start);
	size_t look = (size_t)(t->part->end - t->part->start) / 8;

	return told < (look > SCAN_LOOK_LEAST ? look : SCAN_LOOK_LEAST) ||
	       fresh <= told / 2;
}

/* Whether the later parts of t's text tell their roots apart: a format
 * whose subtrees come again, read into a profile that sums its samples. */
static int parts_scan(const struct pki_tree *t)
{
	return t->rows_of->scan_line && !pki_profile_keeps_order(t->p) &&
	       t->column >= 0 && t->ncolumns <= 64 &&
	       (size_t)t->column < t->ncolumns;
}

/*
 * Tell the part's blocks apart from its start, t->at and t->lines left
 * where the part's reader reads on: the rows' end, the part's end, or
 * where the blocks stop coming again.
 */
static int scan_part(struct pki_tree *t)
{
	const char *s = t->at, *end = t->end, *next;
	size_t fresh = 0;
	uint32_t last = 0, k;

	if (!t->later || !parts_scan(t))
		return 0;
	if (!(t->scan = calloc(1, sizeof(*t->scan))))
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	t->scan->first_lines = t->lines;
	while (s < end) {
		struct pki_tree_block *b;
		uint64_t lines;
		int dirty;

		pki_part_step(t->part, s);
		k = last ? t->scan->blocks[last - 1].next : 0;
		if (!k || !block_again(t, &t->scan->blocks[k - 1], s, end)) {
			if ((scan_flags(t, s, end, &next) & PKI_SCAN_END) ||
			    !fresh_enough(t, s, fresh))
				break;
			next = block_end(t, s, end, &lines, &dirty);
			if (!(k = count_block(t, s, (size_t)(next - s), lines, dirty)))
				break;
			if (last)
				t->scan->blocks[last - 1].next = k;
			b = &t->scan->blocks[k - 1];
			if (b->count == 1)
				fresh += b->len;
		} else {
			b = &t->scan->blocks[k - 1];
			b->count++;
		}
		t->lines += b->lines;
		s += b->len;
		last = k;
	}
	t->at = s;
	t->scan->to_end = s == end;
	return 0;
}

/* Whether all of t's part is in blocks, for the whole to read. */
static int scanned_to_end(const struct pki_tree *t)
{
	return t->scan && t->scan->to_end;
}

/*
 * The whole reads a later part's blocks (scan_part), each once where it
 * came first, its samples its count over: as many reads of it in a row
 * would give, the samples of a profile that sums them being the same
 * in any order, and a block read where it came (a line warned of) once.
 * Its nodes leave where the next root's line is, as its reader would
 * leave them there.
 */
static int read_scanned(void *whole, void *reader)
{
	struct pki_tree *w = whole;
	const struct pki_tree *t = reader;
	const struct pki_tree_scan *sc = t->scan;
	size_t k;
	int rc = 0;

	if (!sc || !sc->nblocks)
		return 0;
	w->part = NULL;
	w->scanned = t->part;
	w->part_end = t->part->end;
	for (k = 0; k < sc->nblocks && !rc; k++) {
		const struct pki_tree_block *b = &sc->blocks[k];

		w->at = t->part->start + b->start;
		w->end = w->at + b->len;
		w->lines = sc->first_lines + b->line;
		w->times = b->count;
		rc = w->rows_of->read(w);
		if (!rc)
			rc = pk_context_error(w->ctx)->code;
		if (rc)
			break;
		/* the text's end: as the part's reader would end there */
		if (w->end == w->text_end) {
			rc = w->rows_of->end ? w->rows_of->end(w) : pki_tree_finish(w);
		} else {
			w->lines++;
			rc = end_subtree(w, w->end, w->last_row);
		}
	}
	drop_recording(w);
	w->times = 1;
	w->scanned = NULL;
	w->at = w->end = w->part_end;
	w->part_end = NULL;
	return rc ? rc : settle_subtrees(w);
}

/* pki_tree_decimal checking each digit: long numbers, and bad ones */
static int pki_tree_decimal_slow(const char *s, size_t len, int64_t *mantissa,
				 int *decimals)
{
	size_t i, digits = 0;
	int point = 0;

	*mantissa = 0;
	*decimals = 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' && !point) {
			point = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || *mantissa > (INT64_MAX - 9) / 10)
			return -1;
		*mantissa = *mantissa * 10 + (s[i] - '0');
		digits++;
		if (point && ++*decimals > MAX_DECIMALS)
			return -1;
	}
	if (!digits || (point && !*decimals))
		return -1;
	/* "0.500" needs no finer scale than "0.5" */
	while (*decimals && *mantissa % 10 == 0) {
		*mantissa /= 10;
		(*decimals)--;
	}
	return 0;
}

static int64_t pow10i(int n)
{
	static const int64_t pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000,
	};

	return pow10[n];
}

int pki_tree_decimal(const char *s, size_t len, int64_t *mantissa,
		     int *decimals)
{
	const char *end = s + len, *point = memchr(s, '.', len);
	int64_t m = 0;
	size_t digits = len - (point != NULL);

	/* up to 18 digits cannot overflow: no check for each */
	if (!digits || digits > 18 || (point && point + 1 == end))
		return pki_tree_decimal_slow(s, len, mantissa, decimals);
	for (; s < end; s++) {
		if (s == point)
			continue;
		if ((unsigned char)(*s - '0') > 9)
			return -1;
		m = m * 10 + (*s - '0');
	}
	*decimals = point ? (int)(end - point - 1) : 0;
	if (*decimals > MAX_DECIMALS)
		return -1;
	/* "0.500" needs no finer scale than "0.5" */
	while (*decimals && m % 10 == 0) {
		m /= 10;
		(*decimals)--;
	}
	*mantissa = m;
	return 0;
}

int pki_tree_fixed(struct pki_tree *t, int column, int64_t mantissa,
		   int decimals, int64_t factor, int64_t *value)
{
	int tens = 0, need;
	int64_t f = factor, scale;
	__int128 v;

	/* the decimals left once factor's tens are used up */
	while (f && f % 10 == 0 && tens < decimals) {
		f /= 10;
		tens++;
	}
	need = decimals - tens;
	if (pow10i(need) > pk_profile_sample_type_scale(t->p, (size_t)column) &&
	    pk_profile_set_sample_type_scale(t->p, (size_t)column, pow10i(need)))
		return pki_tree_error(t, "with %d decimals the values so far "
				      "no longer fit in 64 bits", decimals);
	scale = pk_profile_sample_type_scale(t->p, (size_t)column);
	v = (__int128)mantissa * f * (scale / pow10i(need));
	if (v > INT64_MAX)
		return pki_tree_error(t, "a value too large");
	*value = (int64_t)v;
	return 0;
}

int pki_tree_row_value(struct pki_tree *t, struct pki_tree_row *row,
		       int64_t *value)
{
	int64_t scale = pk_profile_sample_type_scale(t->p, (size_t)t->column);
	int rc;

	if (row->scale != scale) {
		if ((rc = pki_tree_fixed(t, t->column, row->mantissa, row->decimals,
					 row->factor, &row->value)))
			return rc;
		/* as raised for this row */
		row->scale = pk_profile_sample_type_scale(t->p, (size_t)t->column);
	}
	*value = row->value;
	return 0;
}

/* The offset of the first comma from i on, len for none. */
static size_t next_comma(const char *line, size_t len, size_t i)
{
	const char *comma = i < len ? memchr(line + i, ',', len - i) : NULL;

	return comma ? (size_t)(comma - line) : len;
}

int pki_csv_split(const char *line, size_t len, struct pki_csv_field *fields,
		  int max)
{
	size_t i = pki_starts_with_n(line, len, PKI_UTF8_BOM) ? 3 : 0;
	int n = 0;

	while (n < max) {
		struct pki_csv_field *f = &fields[n++];
		size_t start = i, end;

		f->quoted_quotes = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		f->indent = i - start;
		if (i < len && line[i] == '"') {
			f->s = line + ++i;
			for (;; i++) {
				const char *quote = memchr(line + i, '"', len - i);

				if (!quote)
					return -1;
				i = (size_t)(quote - line);
				if (i + 1 < len && line[i + 1] == '"') {
					f->quoted_quotes = 1;
					i++;
					continue;
				}
				break;
			}
			f->len = (size_t)(line + i - f->s);
			i = next_comma(line, len, i + 1);	/* past blanks after the quote */
		} else {
			f->s = line + i;
			i = next_comma(line, len, i);
			for (end = i; end > (size_t)(f->s - line) &&
			     (line[end - 1] == ' ' || line[end - 1] == '\t'); end--)
				;
			f->len = end - (size_t)(f->s - line);
		}
		if (i >= len)
			break;
		i++;	/* the comma */
	}
	return n;
}

int pki_tree_csv_row(struct pki_tree *t, const char *line, size_t len,
		     struct pki_csv_field *fields, int max, int need)
{
	int n = pki_csv_split(line, len, fields, max);

	if (n < need)
		return pki_tree_error(t, "%s: '%.*s'", n < 0 ? "an unterminated "
				      "quote" : "fewer fields than the header's",
				      (int)(len > 60 ? 60 : len), line);
	return 0;
}

int pki_tree_csv_text(struct pki_tree *t, const struct pki_csv_field *f)
{
	size_t i, run = 0;

	/* in runs, each up to a quote of a pair ("" inside a quoted field:
	 * pki_csv_split leaves no quote alone), the second its run's first */
	t->name.len = 0;
	for (i = 0; f->quoted_quotes && i < f->len; i++) {
		if (f->s[i] != '"')
			continue;
		if (pki_strbuf_add(&t->name, f->s + run, i - run) < 0)
			return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
		run = ++i;
	}
	if (pki_strbuf_add(&t->name, f->s + run, f->len - run) < 0)
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	return 0;
}

int pki_csv_column(const struct pki_csv_field *fields, int n, const char *name,
		   int prefix)
{
	size_t len = strlen(name);
	int i;

	for (i = 0; i < n; i++)
		if ((fields[i].len == len || (prefix && fields[i].len > len)) &&
		    memcmp(fields[i].s, name, len) == 0)
			return i;
	return -1;
}

int pki_tree_first_line_is(const unsigned char *buf, size_t n, const char *prefix)
{
	size_t len = strlen(prefix);

	if (pki_starts_with_n((const char *)buf, n, PKI_UTF8_BOM)) {
		buf += 3;
		n -= 3;
	}
	return n >= len && memcmp(buf, prefix, len) == 0;
}
