/* SPDX-License-Identifier: MIT */
/*
 * Reader for DTrace aggregations keyed by stacks, as dtrace prints them
 * (stackcollapse.pl folds them):
 *
 *     CPU     ID                    FUNCTION:NAME
 *       0  64091                        :tick-60s
 *
 *
 *                   libc.so.1`__pollsys+0xa          a frame a line, leaf
 *                   libc.so.1`poll+0x52              first: module`function
 *                   a.out`main+0x20                  +offset, or an address
 *                     1                              the count
 *
 * from `@[ustack()] = count();`, and stack() and jstack() likewise. Each
 * stack key starts with a blank line, so `@[stack(), ustack()]` prints
 * two blocks before its count. A frame is named as the script names it
 * (module`function, the offset and C++ arguments cut, Java's "L" and ";"
 * undone, "A->B" inlined frames as "A;B_[i]"); its module is its
 * mapping. A block whose root frame is in the kernel itself (unix,
 * genunix, kernel, mach_kernel) is a kernel stack: its modules are
 * bracketed ("[zfs]", as perf names kernel modules) and --kernel marks
 * its frames. The header ends at the first blank line or frame.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/strbuf.h"
#include "util/strings.h"

struct dt_reader {
	struct st_reader st;
	int past_header;	/* past the first blank line or frame */
	size_t block;		/* the first held frame of the current block */
	struct pk_strbuf name, module;
	/* the last frame's module as read, and its mapping (see
	 * frame_mapping): a stack's frames share a few modules */
	struct pk_strbuf last_module;
	unsigned last_kernel;
	uint32_t last_mapping;
	struct pk_line lines[32];	/* of one frame, innermost first */
};

/* "module`function": the module's length, or 0 without one. */
static size_t module_len(const char *s, size_t len)
{
	const char *tick = memchr(s, '`', len);

	return tick ? (size_t)(tick - s) : 0;
}

/* Whether s is an offset: "0x1f" or "31". */
static int is_offset(const char *s, size_t len)
{
	uint64_t v;

	return st_hex_prefix(s, len, &v) == len ||
	       (len && st_digits(s, len) == len);
}

/*
 * A frame's text as stackcollapse.pl cuts it (lines 84-88): without its
 * offset, and a C++ name without its arguments, from the last '(' or '<'
 * after the first "::". Where the script cuts what is no offset (the
 * '+' of "libstdc++.so.6`0x7f...") or inside the arguments (a '<' of
 * "f(std::vector<int>)"), the offset is left and the cut is the last
 * '(' or '<' outside parentheses.
 */
static size_t cut_frame(const char *s, size_t len)
{
	const char *plus = memrchr(s, '+', len), *colons;
	size_t i, cut;
	int depth = 0;

	if (plus && is_offset(plus + 1, (size_t)(s + len - plus - 1)))
		len = (size_t)(plus - s);
	colons = len >= 2 ? st_find(s, len, "::", 2) : NULL;
	if (!colons)
		return len;
	for (cut = len, i = (size_t)(colons - s) + 2; i < len; i++) {
		if ((s[i] == '(' || s[i] == '<') && depth == 0)
			cut = i;
		depth += s[i] == '(' ? 1 : s[i] == ')' && depth ? -1 : 0;
	}
	return cut;
}

static int is_kernel_module(const char *s, size_t len)
{
	static const char *const kernels[] = { "unix", "genunix", "kernel", "mach_kernel" };
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(kernels); i++)
		if (len == strlen(kernels[i]) && memcmp(s, kernels[i], len) == 0)
			return 1;
	return 0;
}

/* One piece of "A->B->C", as the script names it (lines 93-101). */
static uint32_t piece_function(struct dt_reader *r, const char *s, size_t len,
			       int inlined)
{
	struct pk_function f = { 0 };
	char *semi, *end;

	r->name.len = 0;
	if (len && s[0] == 'L') {
		s++;
		len--;
	}
	if (pki_strbuf_add(&r->name, s, len) ||
	    (inlined && pki_strbuf_adds(&r->name, "_[i]")))
		return 0;
	end = r->name.s + r->name.len;
	for (semi = r->name.s; (semi = memchr(semi, ';', (size_t)(end - semi))); )
		*semi++ = ':';
	f.name = f.system_name = pk_profile_intern(r->st.p, r->name.s, r->name.len);
	return f.name ? pk_profile_intern_function(r->st.p, &f) : 0;
}

/* The module of a frame (s, mod bytes; none: the kernel's own), as
 * r->module names it: bracketed in a kernel stack. Its interned name,
 * 0 when out of memory. */
static pk_str module_name(struct dt_reader *r, const char *s, size_t mod,
			  unsigned kernel)
{
	r->module.len = 0;
	if ((kernel && pki_strbuf_adds(&r->module, "[")) ||
	    (mod ? pki_strbuf_add(&r->module, s, mod) :
	     pki_strbuf_adds(&r->module, "kernel")) ||
	    (kernel && pki_strbuf_adds(&r->module, "]")))
		return 0;
	return pk_profile_intern(r->st.p, r->module.s, r->module.len);
}

/* Whether the frame's module (as module_name takes it) is the last
 * frame's, whose mapping is known. */
static int same_module(const struct dt_reader *r, const char *s, size_t mod,
		       unsigned kernel)
{
	return r->last_mapping && r->last_kernel == kernel &&
	       r->last_module.len == mod && memcmp(r->last_module.s, s, mod) == 0;
}

static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned kernel)
{
	struct dt_reader *r = arg;
	struct pk_mapping m = { 0 };
	size_t n = cut_frame(s, len), mod = module_len(s, len), nlines = 0, i;
	uint64_t address = 0;
	uint32_t mapping = 0;
	const char *piece = s, *end = s + n, *arrow;

	/* a kernel frame without a module is the kernel's own */
	if (n && (mod || kernel) && same_module(r, s, mod, kernel))
		mapping = r->last_mapping;
	else if ((mod || kernel) && !(m.file = module_name(r, s, mod, kernel)))
		return 0;
	st_hex_prefix(s + mod + (mod > 0), len - mod - (mod > 0), &address);
	if (!n)
		return st_location(&r->st, &(struct st_frame){ .name = "-", .name_len = 1,
				   .module = m.file ? r->module.s : NULL,
				   .module_len = r->module.len, .address = address });
	/* "A->B->C": A calls B, inlined, which calls C; lines innermost first */
	for (;;) {
		arrow = st_find(piece, (size_t)(end - piece), "->", 2);
		if (nlines == PK_ARRAY_SIZE(r->lines))
			break;
		if (!arrow && piece == end && nlines)
			break;	/* perl's split drops a trailing empty piece */
		r->lines[nlines].line = 0;
		r->lines[nlines].function = piece_function(r, piece,
			(size_t)((arrow ? arrow : end) - piece), nlines > 0);
		nlines++;
		if (!arrow)
			break;
		piece = arrow + 2;
	}
	for (i = 0; i < nlines / 2; i++) {
		struct pk_line t = r->lines[i];

		r->lines[i] = r->lines[nlines - 1 - i];
		r->lines[nlines - 1 - i] = t;
	}
	/* the mapping after the functions, as it always was */
	if (m.file) {
		r->last_module.len = 0;
		if (!(mapping = pk_profile_intern_mapping(r->st.p, &m)) ||
		    pki_strbuf_add(&r->last_module, s, mod))
			return 0;
		r->last_kernel = kernel;
		r->last_mapping = mapping;
	}
	return pk_profile_intern_location(r->st.p, mapping, address, r->lines, nlines);
}

/* A stack key ends: its frames go on the stack, the kernel's marked. */
static int end_block(struct dt_reader *r)
{
	size_t len, i;
	const char *root;
	unsigned kernel = 0;
	int rc;

	if (r->st.nheld > r->block) {
		root = st_held_text(&r->st, r->st.nheld - 1, &len);
		kernel = root && is_kernel_module(root, module_len(root, len));
	}
	for (i = r->block; i < r->st.nheld; i++)
		if ((rc = st_push_held(&r->st, i, kernel, locate_frame, r)))
			return rc;
	r->block = r->st.nheld;
	return 0;
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct dt_reader *r = (struct dt_reader *)st;
	static const struct st_thread none = ST_NO_THREAD;
	size_t indent = st_blanks(s, len);
	int64_t count;
	int too_large, rc;

	if (indent == len) {
		r->past_header = 1;
		return end_block(r);
	}
	/* the header ends at a blank line, or at a frame (indented) */
	if (!r->past_header && indent < 4)
		return 0;
	r->past_header = 1;
	s += indent;
	len -= indent;
	if (st_count_line(s, len, &count, &too_large)) {
		if (too_large)
			return st_line_error(&r->st, "count too large");
		if ((rc = end_block(r)))
			return rc;
		r->block = 0;
		return st_sample(&r->st, &none, count);
	}
	return st_hold(&r->st, s, len, 0, locate_frame, r);
}

/* A stack starts after its count line (past the header: indented),
 * which ends the stack before. */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	return st_blanks(prev, prev_len) >= 4 &&
	       st_after_count_line(prev, prev_len, line, len);
}

/* A stack's lines are frames and blank lines once past the header. */
static int block_ready(const struct st_reader *st)
{
	return ((const struct dt_reader *)st)->past_header;
}

static void resume(struct st_reader *st)
{
	((struct dt_reader *)st)->past_header = 1;
}

static int at_end(struct st_reader *st)
{
	if (st->nheld)
		pk_warn(st->ctx, "%s: the text ends inside a stack (cut short?)",
			pk_input_name(st->in));
	return 0;
}

static void release(struct st_reader *st)
{
	struct dt_reader *r = (struct dt_reader *)st;

	free(r->name.s);
	free(r->module.s);
	free(r->last_module.s);
}

static const struct st_format dtrace = {
	.what = "DTrace",
	.expected = "indented 'module`function+0x1f' frames and a count after each stack",
	.size = sizeof(struct dt_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start, .resume = resume,
	.block_end = st_is_count_line, .block_ready = block_ready,
};

static int dtrace_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&dtrace, ctx, in, p, opts);
}

/* dtrace's header, indented "module`function+0xoffset" frames and
 * count lines. */
static int dtrace_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n, mod;
	int frames = 0, counts = 0, header = 0, other = 0, too_large;
	int64_t count;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		const char *t = s;
		size_t tn = n;

		t = st_trim(t, &tn);
		if (pki_starts_with_n(s, n, "CPU     ID") && st_find(s, n, "FUNCTION:NAME", 13))
			header = 1;
		else if (st_count_line(s, n, &count, &too_large))
			counts++;
		else if (tn && tn < n && (mod = module_len(t, tn)) &&
			 st_find(t + mod, tn - mod, "+0x", 3))
			frames++;
		else if (tn && memchr(t, ' ', tn))
			other++;
	}
	if (pr.binary || frames < 2 || other > frames / 4 + header)
		return 0;
	return counts ? (header ? 80 : 65) : 30;
}

const struct pki_format pki_format_dtrace = {
	.name = "dtrace",
	.read_description = "DTrace aggregations of stack(), ustack() or jstack() "
			    "(as stackcollapse.pl)",
	.probe = dtrace_probe,
	.read = dtrace_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
