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
	uint32_t loc;
	int64_t count, children;	/* samples, those of its callers */
};

struct pmc_reader {
	struct st_reader st;
	struct node *path;	/* path[d]: the open node at depth d */
	size_t depth, path_cap;	/* open nodes */
	struct pk_strbuf image, key;	/* the image now; a frame's memo key */
};

static int is_kernel_image(const char *s, size_t len)
{
	return pki_starts_with_n(s, len, KERNEL_DIR);
}

/* The memo key "function\n image": the text alone does not say the image. */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct pmc_reader *r = arg;
	const char *nl = memchr(s, '\n', len);
	struct st_frame f = { 0 };
	struct pk_strbuf *m = &r->key;

	(void)variant;
	f.name = s;
	f.name_len = nl ? (size_t)(nl - s) : len;
	if (nl && nl + 1 < s + len) {
		const char *image = nl + 1, *base;
		size_t n = (size_t)(s + len - image);

		if (is_kernel_image(image, n)) {
			/* "[kernel]", "[zfs.ko]": the kernel's, as perf has them */
			base = (const char *)memrchr(image, '/', n) + 1;
			m->len = 0;
			if (pki_strbuf_adds(m, "[") ||
			    pki_strbuf_add(m, base, (size_t)(image + n - base)) ||
			    pki_strbuf_adds(m, "]"))
				return 0;
			image = m->s;
			n = m->len;
		}
		f.module = image;
		f.module_len = n;
	}
	st_hex_prefix(f.name, f.name_len, &f.address);
	return st_location(&r->st, &f);
}

/* Close the open nodes at depth and deeper: each adds the samples that
 * end at it, its count less its callers'. */
static int close_nodes(struct pmc_reader *r, size_t depth)
{
	static const struct st_thread none = ST_NO_THREAD;
	size_t d, i;
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
		d = r->depth + 1;
		if (d > pki_profile_max_stack(r->st.p))
			d = pki_profile_max_stack(r->st.p) + 1;
		for (i = 0; i < d; i++)
			if ((rc = st_push(&r->st, r->path[i].loc)))
				return rc;
		if ((rc = st_sample(&r->st, &none, own)))
			return rc;
	}
	return 0;
}

/* "@ EVENT [N samples]": a PMC's trees follow. */
static int event_line(struct pmc_reader *r, const char *s, size_t len)
{
	const char *open = memrchr(s, '[', len);
	char *event;
	int rc;

	if (!open || open < s + 3 || s[len - 1] != ']')
		return 0;
	if (!(event = strndup(s + 2, (size_t)(open - 1 - (s + 2)))))
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	rc = st_event(&r->st, event);
	free(event);
	return rc;
}

/*
 * "  70.59%  [12]        __mtx_unlock_flags @ /boot/kernel/kernel": the
 * depth (leading blanks), count, function and image. 0 when the line is
 * no node (the script's /^( *)[0-9.]+%  \[([0-9]+)\]\s*(\S+)/).
 */
static int node_line(const char *s, size_t len, size_t *depth, const char **count,
		     size_t *count_len, const char **name, size_t *name_len)
{
	size_t i = 0, j;

	while (i < len && s[i] == ' ')
		i++;
	*depth = i;
	for (j = i; j < len && ((s[j] >= '0' && s[j] <= '9') || s[j] == '.'); j++)
		;
	if (j == i || j + 4 > len || memcmp(s + j, "%  [", 4) != 0)
		return 0;
	*count = s + j + 4;
	for (j += 4; j < len && s[j] >= '0' && s[j] <= '9'; j++)
		;
	*count_len = (size_t)(s + j - *count);
	if (!*count_len || j >= len || s[j] != ']')
		return 0;
	for (j++; j < len && st_is_blank(s[j]); j++)
		;
	*name = s + j;
	for (*name_len = 0; j + *name_len < len && !st_is_blank(s[j + *name_len]);)
		++*name_len;
	return *name_len > 0;
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct pmc_reader *r = (struct pmc_reader *)st;
	const char *count, *name, *at;
	size_t depth, count_len, name_len, rest;
	int64_t n;
	uint32_t loc;
	int rc;

	if (len > 2 && s[0] == '@' && s[1] == ' ')
		return (rc = close_nodes(r, 0)) ? rc : event_line(r, s, len);
	if (!node_line(s, len, &depth, &count, &count_len, &name, &name_len))
		return 0;
	if (depth > r->depth) {
		st_skip_line(&r->st, s, len, "deeper than the line before allows");
		return 0;
	}
	if (st_parse_count(count, count_len, &n) < 0)
		return st_line_error(&r->st, "count too large");
	if ((rc = close_nodes(r, depth)))
		return rc;
	rest = len - (size_t)(name + name_len - s);
	at = name + name_len;
	if (rest > 3 && memcmp(at, " @ ", 3) == 0) {
		r->image.len = 0;
		if (pki_strbuf_add(&r->image, at + 3, rest - 3))
			return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	}
	/* the image is none (a null buffer) until a line names one */
	r->key.len = 0;
	if (pki_strbuf_add(&r->key, name, name_len) || pki_strbuf_adds(&r->key, "\n") ||
	    (r->image.len && pki_strbuf_add(&r->key, r->image.s, r->image.len)))
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	loc = st_frame_loc(&r->st, r->key.s, r->key.len, 0, locate_frame, r);
	if (!loc || pki_grow(&r->path, &r->path_cap, depth + 1, sizeof(*r->path)) < 0)
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	r->path[depth].loc = loc;
	r->path[depth].count = n;
	r->path[depth].children = 0;
	r->depth = depth + 1;
	return 0;
}

static int at_end(struct st_reader *st)
{
	return close_nodes((struct pmc_reader *)st, 0);
}

static void release(struct st_reader *st)
{
	struct pmc_reader *r = (struct pmc_reader *)st;

	free(r->path);
	free(r->image.s);
	free(r->key.s);
}

static const struct st_format pmcstat = {
	.what = "pmcstat",
	.expected = "'@ EVENT [N samples]' and '  70.59%  [12]  function' lines",
	.size = sizeof(struct pmc_reader),
	.line = handle_line, .end = at_end, .release = release,
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
