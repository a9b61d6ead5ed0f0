/* SPDX-License-Identifier: MIT */
/*
 * Reader for SystemTap stacks counted in an aggregate, printed with
 * print_stack() or print_ustack() and their counts (stackcollapse-stap.pl
 * folds them):
 *
 *      0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]
 *      0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]
 *      0x00000000004005b4 : main+0x14/0x30 [/usr/bin/app]
 *      0x00007f3a4b2c1d35 [libc.so.6+0x21d35]
 *     	2404
 *
 * a frame a line, leaf first ("ADDRESS : symbol+offset/size [module]",
 * or "ADDRESS [module+offset]" where no symbol is known), then the count.
 * A frame is named by its symbol, as the script names it; the module is
 * its mapping, a kernel one ("[kernel]", "[ext4]": a name without '/'
 * or '.') bracketed as perf names them, so --kernel marks its frames.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/strbuf.h"
#include "util/strings.h"

/*
 * The name stackcollapse-stap.pl gives a frame (lines 75-78): from the
 * last '+' on cut, then everything up to the last " : ". Its length;
 * *name where it starts.
 */
static size_t script_name(const char *s, size_t len, const char **name)
{
	const char *plus = len ? memrchr(s, '+', len) : NULL;
	size_t i;

	if (plus)
		len = (size_t)(plus - s);
	*name = s;
	for (i = len; i >= 3; i--)
		if (memcmp(s + i - 3, " : ", 3) == 0) {
			*name = s + i;
			return len - i;
		}
	return len;
}

struct stap_reader {
	struct st_reader st;
	struct pk_strbuf module;	/* a kernel module's, bracketed */
};

/*
 * The module in "[...]" at the end of s: "[kernel]", "[ext4]" (kernel
 * modules are names, so bracketed as perf has them), "[/usr/bin/app]"
 * (a program's or library's path), with an offset where no symbol is known
 * ("[libc.so.6+0x21d35]"). Returns 1 with f's module set, 2 when it has
 * an offset, 0 without one; -1 when out of memory.
 */
static int bracketed_module(struct stap_reader *r, const char *s, size_t len,
			    struct st_frame *f)
{
	const char *open = len ? memrchr(s, '[', len) : NULL, *name, *plus;
	size_t n;
	int offset = 0;
	uint64_t v;

	if (!open || s[len - 1] != ']' || open == s || open[-1] != ' ')
		return 0;
	name = open + 1;
	n = (size_t)(s + len - 1 - name);
	plus = memrchr(name, '+', n);
	if (plus && st_hex_prefix(plus + 1, n - (size_t)(plus + 1 - name), &v) ==
	    n - (size_t)(plus + 1 - name)) {
		n = (size_t)(plus - name);
		offset = 1;
	}
	f->module = name;
	f->module_len = n;
	if (!memchr(name, '/', n) && !memchr(name, '.', n)) {
		r->module.len = 0;
		if (pki_strbuf_adds(&r->module, "[") || pki_strbuf_add(&r->module, name, n) ||
		    pki_strbuf_adds(&r->module, "]"))
			return -1;
		f->module = r->module.s;
		f->module_len = r->module.len;
	}
	return 1 + offset;
}

static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct stap_reader *r = arg;
	struct st_frame f = { 0 };
	size_t addr = st_hex_prefix(s, len, &f.address);
	int module = bracketed_module(r, s, len, &f);

	(void)variant;
	if (module < 0)
		return 0;
	f.name_len = script_name(s, len, &f.name);
	if (module == 2 && addr && f.name == s) {
		/* "ADDRESS [lib+0x1f]": no symbol (the script's name
		 * would be "ADDRESS [lib") */
		f.name_len = addr;
	}
	if (!f.name_len) {
		f.name = "-";
		f.name_len = 1;
	}
	return st_location(&r->st, &f);
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct stap_reader *r = (struct stap_reader *)st;
	static const struct st_thread none = ST_NO_THREAD;
	size_t skip = st_blanks(s, len);
	int64_t count;
	int too_large;

	if (skip >= len)
		return 0;
	if (st_count_line(s, len, &count, &too_large))
		return too_large ? st_line_error(&r->st, "count too large") :
			st_sample(&r->st, &none, count);
	return st_push(&r->st, st_frame_loc(&r->st, s + skip, len - skip, 0,
					    locate_frame, r));
}

static int at_end(struct st_reader *st)
{
	if (st->nframes)
		pk_warn(st->ctx, "%s: the text ends inside a stack (cut short?)",
			pk_input_name(st->in));
	return 0;
}

static void release(struct st_reader *st)
{
	free(((struct stap_reader *)st)->module.s);
}

static const struct st_format systemtap = {
	.what = "SystemTap",
	.expected = "' 0xADDRESS : symbol+0x1f/0x40 [module]' frames and a count "
		    "after each stack",
	.size = sizeof(struct stap_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = st_after_count_line, .block_end = st_is_count_line,
};

static int systemtap_read(struct pk_context *ctx, struct pk_input *in,
			  struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&systemtap, ctx, in, p, opts);
}

/* Frame lines "0xADDRESS : symbol+0xOFFSET/0xSIZE" and count lines. */
static int systemtap_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n, a;
	int frames = 0, counts = 0, other = 0, too_large;
	int64_t count;
	uint64_t addr;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (st_count_line(s, n, &count, &too_large)) {
			counts++;
			continue;
		}
		s = st_trim(s, &n);
		if (!n)
			continue;
		a = st_hex_prefix(s, n, &addr);
		if (a && a + 3 < n && (memcmp(s + a, " : ", 3) == 0 ?
		    st_find(s + a, n - a, "/0x", 3) != NULL :
		    s[a] == ' ' && s[a + 1] == '[' && s[n - 1] == ']'))
			frames++;
		else
			other++;
	}
	if (pr.binary || frames < 2 || other > frames / 4)
		return 0;
	return counts ? 70 : 30;
}

const struct pki_format pki_format_systemtap = {
	.name = "systemtap",
	.read_description = "SystemTap print_stack()/print_ustack() stacks with "
			    "their counts (as stackcollapse-stap.pl)",
	.probe = systemtap_probe,
	.read = systemtap_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
