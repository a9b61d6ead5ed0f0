/* SPDX-License-Identifier: MIT */
/*
 * Reader for FreeBSD's hwpmc callchains, the call graph `pmcstat -R
 * FILE -G OUT` writes (stackcollapse-pmc.pl folds it):
 *
 *     @ CPU_CLK_UNHALTED_CORE [2091 samples]
 *
 *     03.07%  [17]       witness_unlock @ /boot/kernel/kernel
 *      70.59%  [12]        __mtx_unlock_flags
 *       16.67%  [2]          selfdfree
 *        100.0%  [2]           sys_poll
 *
 * For each PMC, a tree per sampled function: a node a line, its depth
 * the indentation, "percent  [samples]  function", " @ image" where the
 * image changes; each node's children are its callers. A node holds the
 * samples of the chains through it, so those that end at it (their
 * caller was not found, or pmcstat's -N depth was reached) are its count
 * less its children's. Each PMC is an event of its own. Functions keep
 * their names; images are mappings, the kernel's ("/boot/kernel/...")
 * bracketed as perf names the kernel ("[kernel]", "[zfs.ko]"), so
 * --kernel marks their frames.
 *
 * A file is read in parts on threads, cut at a sampled function that
 * names its image (no blank before it, " @ " after it): nothing read
 * before it matters there but the event, which a part's reader looks up
 * in the text before it.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strings.h"

#define KERNEL_DIR "/boot/kernel/"

/* A node of the tree being read, on the path from the sampled function. */
struct node {
	uint32_t loc, id;	/* its location, its key's memo id */
	int64_t count, children;	/* samples, those of its callers */
};

struct pmc_reader {
	struct st_reader st;
	struct node *path;	/* path[d]: the open node at depth d */
	size_t depth, path_cap;	/* open nodes */
	/* a frame's memo key, "image\nfunction": the image now, then the
	 * function of the line read, copied after it */
	char *key;
	size_t image_len, key_cap;
	struct pk_strbuf module;	/* a kernel image as perf names it */
	int resumed;		/* a part's event looked up, or none needed */
};

static int is_kernel_image(const char *s, size_t len)
{
	return pki_starts_with_n(s, len, KERNEL_DIR);
}

/* The memo key "image\nfunction": the text alone does not say the image
 * (empty: none yet). */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct pmc_reader *r = arg;
	const char *nl = memchr(s, '\n', len);
	struct st_frame f = { 0 };
	size_t n = (size_t)(nl - s);

	(void)variant;
	f.name = nl + 1;
	f.name_len = (size_t)(s + len - f.name);
	if (n && is_kernel_image(s, n)) {
		/* "[kernel]", "[zfs.ko]": the kernel's, as perf has them */
		const char *base = (const char *)memrchr(s, '/', n) + 1;
		struct pk_strbuf *m = &r->module;

		m->len = 0;
		if (pki_strbuf_adds(m, "[") ||
		    pki_strbuf_add(m, base, (size_t)(nl - base)) ||
		    pki_strbuf_adds(m, "]"))
			return 0;
		f.module = m->s;
		f.module_len = m->len;
	} else if (n) {
		f.module = s;
		f.module_len = n;
	}
	st_hex_prefix(f.name, f.name_len, &f.address);
	return st_location(&r->st, &f);
}

/* Close the open nodes at depth and deeper: each adds the samples that
 * end at it, its count less its callers'. */
static int close_nodes(struct pmc_reader *r, size_t depth)
{
	size_t max, d, i;
	int rc;

	while (r->depth > depth) {
		struct node *n = &r->path[--r->depth];
		int64_t own = n->count - n->children;

		if (r->depth)
			r->path[r->depth - 1].children += n->count;
		if (own <= 0)
			continue;
		/* the path from the sampled function (depth 0) is leaf first;
		 * one frame past those a profile keeps tells it of the cut */
		max = pki_profile_max_stack(r->st.p);
		d = r->depth + 1 > max ? max + 1 : r->depth + 1;
		if (pki_grow(&r->st.frames, &r->st.frames_cap, d, sizeof(*r->st.frames)) < 0)
			return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
		for (i = 0; i < d; i++)
			r->st.frames[i] = r->path[i].loc;
		r->st.nframes = d;
		/* no thread */
		if ((rc = st_sample_labeled(&r->st, 0, 0, own)))
			return rc;
	}
	return 0;
}

/* The event of "@ EVENT [N samples]": where its name starts and its
 * length; 0 when the line is no event's. */
static int event_name(const char *s, size_t len, const char **name, size_t *name_len)
{
	const char *open;

	if (len <= 2 || s[0] != '@' || s[1] != ' ' || s[len - 1] != ']' ||
	    !(open = memrchr(s, '[', len)) || open < s + 3)
		return 0;
	*name = s + 2;
	*name_len = (size_t)(open - 1 - *name);
	return 1;
}

/* "@ EVENT [N samples]": a PMC's trees follow. */
static int event_line(struct pmc_reader *r, const char *s, size_t len)
{
	const char *name;
	size_t name_len;
	char *event;
	int rc;

	if (!event_name(s, len, &name, &name_len))
		return 0;
	if (!(event = strndup(name, name_len)))
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	rc = st_event(&r->st, event);
	free(event);
	return rc;
}

/* The last event line that starts in [low, high) of a text in memory from
 * data, its lines ending before start; NULL when none does. Event lines
 * are few, the text between them long: memrchr of their '@' is what
 * looks through it fastest. */
static const char *event_in(const char *data, const char *low, const char *high,
			    const char *start, size_t *len)
{
	const char *s = high, *next, *name;
	size_t name_len;

	while (s > low && (s = memrchr(low, '@', (size_t)(s - low)))) {
		if (s > data && s[-1] != '\n')
			continue;
		*len = pki_text_line(s, start, &next, NULL);
		if (event_name(s, *len, &name, &name_len))
			return s;
	}
	return NULL;
}

/*
 * A part of the text starts without its event: the last event line
 * before it names it (none: the text has none yet). What is looked
 * through leaves memory a step at a time, as reading's does: the parts
 * before read it on their own.
 */
static int resume_event(struct pmc_reader *r)
{
	const char *data = r->st.part->data, *start = r->st.part->start;
	const char *high, *low, *line = NULL;
	size_t len = 0;
	int rc = 0;

	for (high = start; high > data && !line; high = low) {
		low = (size_t)(high - data) > PKI_PART_STEP ? high - PKI_PART_STEP : data;
		if ((line = event_in(data, low, high, start, &len)))
			rc = event_line(r, line, len);
		pki_input_unmap_part(r->st.in, low, (size_t)(high - low));
	}
	return rc;
}

/*
 * A node line is runs of a few kinds of bytes (blanks, digits, a name):
 * each run is looked through eight bytes at a time, a word's bytes of a
 * kind flagged at once (0x80 in each; no sum carries into the next
 * byte, so each byte's flag is its own) and the first found by counting
 * bits.
 */
#define ONES 0x0101010101010101ULL
#define LOWS 0x7f7f7f7f7f7f7f7fULL
#define HIGHS 0x8080808080808080ULL

/* w's bytes that are c. */
static inline uint64_t bytes_equal(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (ONES * c);

	return ~(((x & LOWS) + LOWS) | x | LOWS);
}

/* w's bytes that are blanks; digits; digits or '.'. */
static inline uint64_t blank_bytes(uint64_t w)
{
	return bytes_equal(w, ' ') | bytes_equal(w, '\t');
}

static inline uint64_t digit_bytes(uint64_t w)
{
	uint64_t x = w ^ (ONES * '0');	/* a digit's byte is now under 10 */

	return ~(((x & LOWS) + ONES * (0x80 - 10)) | x) & HIGHS;
}

static inline uint64_t percent_bytes(uint64_t w)
{
	return digit_bytes(w) | bytes_equal(w, '.');
}

/* The first of w's bytes in memory that mask flags (one is). */
static inline size_t first_flagged(uint64_t mask)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (size_t)__builtin_clzll(mask) / 8;
#else
	return (size_t)__builtin_ctzll(mask) / 8;
#endif
}

/* How many of s's first len bytes are of the kind that kind flags (its
 * own test of a byte: is), or of no such kind when not (want 0). */
static inline size_t run(const char *s, size_t len, uint64_t (*kind)(uint64_t),
			 int (*is)(char), int want)
{
	size_t i = 0;
	uint64_t w, mask;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		mask = want ? ~kind(w) & HIGHS : kind(w);
		if (mask)
			return i + first_flagged(mask);
	}
	while (i < len && is(s[i]) == want)
		i++;
	return i;
}

static int is_space(char c)
{
	return c == ' ';
}

static uint64_t space_bytes(uint64_t w)
{
	return bytes_equal(w, ' ');
}

static int is_blank(char c)
{
	return st_is_blank(c);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_percent(char c)
{
	return is_digit(c) || c == '.';
}

/*
 * "  70.59%  [12]        __mtx_unlock_flags @ /boot/kernel/kernel": the
 * depth (leading spaces), count, function and image. 0 when the line is
 * no node (the script's /^( *)[0-9.]+%  \[([0-9]+)\]\s*(\S+)/).
 */
static int node_line(const char *s, size_t len, size_t *depth, const char **count,
		     size_t *count_len, const char **name, size_t *name_len)
{
	size_t i = run(s, len, space_bytes, is_space, 1), j;

	*depth = i;
	j = i + run(s + i, len - i, percent_bytes, is_percent, 1);
	if (j == i || j + 4 > len || memcmp(s + j, "%  [", 4) != 0)
		return 0;
	j += 4;
	*count = s + j;
	*count_len = run(s + j, len - j, digit_bytes, is_digit, 1);
	j += *count_len;
	if (!*count_len || j >= len || s[j] != ']')
		return 0;
	j++;
	j += run(s + j, len - j, blank_bytes, is_blank, 1);
	*name = s + j;
	*name_len = run(s + j, len - j, blank_bytes, is_blank, 0);
	return *name_len > 0;
}

/* A node's count: its digits, as st_parse_count reads them (-1: too
 * large), at once when they are too few to be. */
static int node_count(const char *s, size_t len, int64_t *count)
{
	int64_t n = 0;
	size_t i;

	if (len > 18)
		return st_parse_count(s, len, count);
	for (i = 0; i < len; i++)
		n = n * 10 + (s[i] - '0');
	*count = n;
	return 0;
}

/* The memo key of the function at name in the image now: after the
 * image's text in r->key. NULL when out of memory. */
static const char *frame_key(struct pmc_reader *r, const char *name, size_t name_len,
			     size_t *len)
{
	*len = r->image_len + 1 + name_len;
	if (pki_grow(&r->key, &r->key_cap, *len, 1) < 0)
		return NULL;
	r->key[r->image_len] = '\n';
	memcpy(r->key + r->image_len + 1, name, name_len);
	return r->key;
}

/* " @ /usr/bin/app" after a function: the image from now on. */
static int set_image(struct pmc_reader *r, const char *image, size_t len)
{
	if (pki_grow(&r->key, &r->key_cap, len + 1, 1) < 0)
		return -1;
	memcpy(r->key, image, len);
	r->image_len = len;
	return 0;
}

/*
 * The location of a frame's key at depth, and its memo id (0: the memo is
 * full), guessed from what came after the frame before it the last time
 * (the node before it at its depth when sibling, else its callee): a
 * tree repeats its callers in the order they came before. 0 when out of
 * memory.
 */
static uint32_t frame_loc(struct pmc_reader *r, size_t depth, int sibling,
			  const char *key, size_t len, uint32_t *id)
{
	uint32_t before = sibling ? r->path[depth].id : depth ? r->path[depth - 1].id : 0;

	return st_frame_after(&r->st, before, sibling, key, len, locate_frame, r, id);
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct pmc_reader *r = (struct pmc_reader *)st;
	const char *count, *name, *at, *key;
	size_t depth, count_len, name_len, rest, key_len;
	int64_t n;
	uint32_t id, loc;
	int sibling, rc;

	if (!r->resumed) {
		r->resumed = 1;
		if (r->st.part && r->st.part->start > r->st.part->data &&
		    (rc = resume_event(r)))
			return rc;
	}
	if (len > 2 && s[0] == '@' && s[1] == ' ')
		return (rc = close_nodes(r, 0)) ? rc : event_line(r, s, len);
	if (!node_line(s, len, &depth, &count, &count_len, &name, &name_len))
		return 0;
	if (depth > r->depth) {
		st_skip_line(&r->st, s, len, "deeper than the line before allows");
		return 0;
	}
	if (node_count(count, count_len, &n) < 0)
		return st_line_error(&r->st, "count too large");
	rest = len - (size_t)(name + name_len - s);
	at = name + name_len;
	if ((rest > 3 && memcmp(at, " @ ", 3) == 0 && set_image(r, at + 3, rest - 3) < 0) ||
	    !(key = frame_key(r, name, name_len, &key_len)))
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	sibling = depth < r->depth;
	if ((rc = close_nodes(r, depth)))
		return rc;
	/* closed, the nodes keep their ids */
	loc = frame_loc(r, depth, sibling, key, key_len, &id);
	if (!loc || pki_grow(&r->path, &r->path_cap, depth + 1, sizeof(*r->path)) < 0)
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	r->path[depth].loc = loc;
	r->path[depth].id = id;
	r->path[depth].count = n;
	r->path[depth].children = 0;
	r->depth = depth + 1;
	return 0;
}

/* A sampled function that names its image: all a reader started there
 * needs but the event (resume_event). */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	const char *count, *name;
	size_t depth, count_len, name_len, rest;

	(void)prev;
	(void)prev_len;
	if (!len || line[0] == ' ' ||
	    !node_line(line, len, &depth, &count, &count_len, &name, &name_len))
		return 0;
	rest = len - (size_t)(name + name_len - line);
	return rest > 3 && memcmp(name + name_len, " @ ", 3) == 0;
}

static int at_end(struct st_reader *st)
{
	return close_nodes((struct pmc_reader *)st, 0);
}

static void release(struct st_reader *st)
{
	struct pmc_reader *r = (struct pmc_reader *)st;

	free(r->path);
	free(r->key);
	free(r->module.s);
}

static const struct st_format pmcstat = {
	.what = "pmcstat",
	.expected = "'@ EVENT [N samples]' and '  70.59%  [12]  function' lines",
	.size = sizeof(struct pmc_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start,
};

static int pmcstat_read(struct pk_context *ctx, struct pk_input *in,
			struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&pmcstat, ctx, in, p, opts);
}

/* "@ EVENT [N samples]" and node lines. */
static int pmcstat_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s, *count, *name;
	size_t n, depth, count_len, name_len;
	int nodes = 0, header = 0, other = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (n > 12 && s[0] == '@' && s[1] == ' ' &&
		    memcmp(s + n - 9, " samples]", 9) == 0)
			header = 1;
		else if (node_line(s, n, &depth, &count, &count_len, &name, &name_len))
			nodes++;
		else if (n)
			other++;
	}
	if (pr.binary || !nodes || other > nodes / 4)
		return 0;
	return header ? 80 : nodes >= 3 ? 60 : 20;
}

const struct pki_format pki_format_pmcstat = {
	.name = "pmcstat",
	.read_description = "FreeBSD pmcstat -G call graphs (as stackcollapse-pmc.pl)",
	.probe = pmcstat_probe,
	.read = pmcstat_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
