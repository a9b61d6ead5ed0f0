/* SPDX-License-Identifier: MIT */
/*
 * Reader for bpftrace maps keyed by stacks, as bpftrace prints them when
 * it ends (stackcollapse-bpftrace.pl folds them):
 *
 *     @[
 *         do_syscall_64+113            a stack key: a frame a line,
 *         entry_SYSCALL_64+118         indented, leaf first
 *     , 
 *         hot_loop+45                  the next stack key
 *         main+21
 *     , c-fp]: 3                       the other keys, then the count
 *
 * as `@[kstack, ustack, comm] = count();` prints it. Keys are separated
 * by ", "; a stack key starts and ends with a line break, so an empty one
 * leaves its two commas together ("@[, "). Frames are "symbol+offset",
 * "0x" and the address where no symbol is known, and with kstack(perf)
 * or ustack(perf) "ADDRESS symbol+offset (module)".
 *
 * A frame keeps its name as the script has it, "symbol+offset" (perf
 * mode's address and module go to the location and its mapping). The
 * first string key names the thread (comm, as the script makes it the
 * root frame); the other keys become labels "keyN" (N its place in the
 * key). Kernel frames: those at a kernel address (perf mode), and with
 * two stack keys the first one's, kstack's place in `@[kstack, ustack]`
 * (the script's order puts its frames at the leaf end, as do we, whatever
 * the order of the keys). Every map of the text counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strings.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"
/* Keys a map entry may have: bpftrace allows no more in a tuple. */
#define MAX_KEYS 64

struct key {
	size_t offset, len;	/* in bt_reader.key_text */
	unsigned place;		/* 1-based, among all keys */
};

struct bt_reader {
	struct st_reader st;
	int in_entry, in_stack;
	unsigned places;	/* keys seen in the entry, stacks included */
	unsigned stacks;	/* of which stack keys */
	size_t first_stack_frames;	/* frames of the first stack key */
	struct pk_strbuf key_text;
	struct key keys[MAX_KEYS];
	size_t nkeys;
	pk_str key_names[MAX_KEYS + 1];	/* "keyN", interned when first used */
	/* an entry's keys after its last stack key ("comm, 12" of
	 * ", comm, 12]: 3") by their text: their label set (known_keys) */
	struct pki_memo keys_memo;
	unsigned char *held_kind;	/* by held frame: its enum frame_kind */
	size_t held_kind_cap;
};

/* What a frame's address says of where it runs. */
enum frame_kind { NO_ADDRESS, USER_ADDRESS, KERNEL_ADDRESS };

/* An address at the line's start: up to 16 hex digits, then a blank or
 * the end ("ffffffff81000e06 asm_sysvec+22", a raw frame). Its length. */
static size_t leading_address(const char *s, size_t len, uint64_t *addr)
{
	size_t i;
	int d;

	*addr = 0;
	for (i = 0; i < len && i < 17 && (d = pki_hexval((unsigned char)s[i])) >= 0; i++)
		*addr = (*addr << 4) | (uint64_t)d;
	return i && i <= 16 && (i == len || s[i] == ' ') ? i : 0;
}

static int is_kernel_address(uint64_t addr)
{
	return addr >> 48 == 0xffff;
}

static enum frame_kind frame_kind(const char *s, size_t len)
{
	uint64_t addr;

	if (!leading_address(s, len, &addr))
		return NO_ADDRESS;
	return is_kernel_address(addr) ? KERNEL_ADDRESS : USER_ADDRESS;
}

static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned kernel)
{
	struct st_frame f = { 0 };
	size_t n = leading_address(s, len, &f.address), open;

	f.name = s;
	f.name_len = len;
	if (n && n < len) {
		/* perf mode: "ADDRESS symbol+offset (module)" */
		f.name = s + n + 1;
		f.name_len = len - n - 1;
		for (open = f.name_len; open > 1 && f.name[open - 1] != '('; open--)
			;
		if (f.name[f.name_len - 1] == ')' && open > 1 && f.name[open - 2] == ' ') {
			f.module = f.name + open;
			f.module_len = f.name_len - open - 1;
			f.name_len = open - 2;
			if (f.module_len == 9 && memcmp(f.module, "[unknown]", 9) == 0)
				f.module = NULL;
		}
	} else if (!n) {
		st_hex_prefix(s, len, &f.address);
	}
	if (kernel && (!f.module || f.module[0] != '[')) {
		f.module = KERNEL_MAPPING;
		f.module_len = strlen(KERNEL_MAPPING);
	}
	return st_location(arg, &f);
}

/* A frame held, its kind noted for the entry's end (where the kernel's
 * frames go first): its address read once. */
static int add_frame(struct bt_reader *r, const char *s, size_t len)
{
	size_t i = r->st.nheld;
	enum frame_kind kind;

	s = st_trim(s, &len);
	if (!len)
		return 0;
	if (pki_grow(&r->held_kind, &r->held_kind_cap, i + 1, 1) < 0)
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	kind = frame_kind(s, len);
	r->held_kind[i] = (unsigned char)kind;
	return st_hold(&r->st, s, len, kind == KERNEL_ADDRESS, locate_frame, &r->st);
}

static void start_entry(struct bt_reader *r)
{
	r->in_entry = 1;
	r->in_stack = 0;
	r->places = r->stacks = 0;
	r->first_stack_frames = 0;
	/* the frames of an entry cut short: held, or pushed whole (a block
	 * remembered, stack-text.h) */
	r->st.nheld = r->st.nframes = r->nkeys = 0;
	r->key_text.len = 0;
}

/* A stack key ends (with its frames, or empty). */
static void end_stack(struct bt_reader *r)
{
	if (!r->stacks++)
		r->first_stack_frames = r->st.nheld;
	r->places++;
	r->in_stack = 0;
}

static int add_scalar(struct bt_reader *r, const char *s, size_t len)
{
	if (!len) {	/* nothing between two commas: an empty stack */
		end_stack(r);
		return 0;
	}
	r->places++;
	if (r->nkeys == MAX_KEYS)
		return st_line_error(&r->st, "more keys than bpftrace prints");
	r->keys[r->nkeys].offset = r->key_text.len;
	r->keys[r->nkeys].len = len;
	r->keys[r->nkeys++].place = r->places;
	return pki_strbuf_add(&r->key_text, s, len) ?
		pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory") : 0;
}

/* Keys "a, b, c" (ending before the count or before a stack key). */
static int add_scalars(struct bt_reader *r, const char *s, size_t len)
{
	const char *end = s + len, *comma;
	int rc;

	for (;;) {
		comma = st_find(s, (size_t)(end - s), ", ", 2);
		if ((rc = add_scalar(r, s, comma ? (size_t)(comma - s) : (size_t)(end - s))))
			return rc;
		if (!comma)
			return 0;
		s = comma + 2;
	}
}

/* A decimal, maybe negative: a number key (pid, tid, cpu, ...). */
static int parse_number(const char *s, size_t len, int64_t *value)
{
	int negative = len && s[0] == '-';

	if (st_parse_count(s + negative, len - negative, value) < 0)
		return -1;
	if (negative)
		*value = -*value;
	return 0;
}

static pk_str key_name(struct bt_reader *r, unsigned place)
{
	char name[16];

	if (!r->key_names[place]) {
		snprintf(name, sizeof(name), "key%u", place);
		r->key_names[place] = pk_profile_intern_cstr(r->st.p, name);
	}
	return r->key_names[place];
}

/* The entry's thread: its first string key is the comm, the rest labels. */
static int entry_thread(struct bt_reader *r, struct st_thread *t,
			struct pk_label *labels)
{
	size_t i;

	for (i = 0; i < r->nkeys; i++) {
		const char *s = r->key_text.s + r->keys[i].offset;
		size_t len = r->keys[i].len;
		struct pk_label *l = &labels[t->nextra];
		int number;

		memset(l, 0, sizeof(*l));
		number = parse_number(s, len, &l->num) == 0;
		if (!t->comm && !number) {
			t->comm = s;
			t->comm_len = len;
			continue;
		}
		l->key = key_name(r, r->keys[i].place);
		if (!number)
			l->str = pk_profile_intern(r->st.p, s, len);
		if (!l->key || (!number && !l->str))
			return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
		t->nextra++;
	}
	t->extra = labels;
	return 0;
}

/* Whether the entry's i-th frame is the kernel's: at a kernel address,
 * or without an address in the first of two stack keys (kstack's place
 * in `@[kstack, ustack]`). */
static unsigned held_is_kernel(struct bt_reader *r, size_t i)
{
	size_t len;

	if (!st_held_text(&r->st, i, &len))
		return 0;	/* located at once, out of memo space */
	if (r->held_kind[i] != NO_ADDRESS)
		return r->held_kind[i] == KERNEL_ADDRESS;
	return r->stacks > 1 && i < r->first_stack_frames;
}

/*
 * The keys of an entry's last line, when they are all its scalar keys
 * (none before its stack keys), remembered by their text and the place
 * of the first: threads repeat, and their keys' labels then cost a
 * lookup. The value: the label set, whether a key names the thread
 * (bit 32) and that place (from bit 33); 0 until known.
 */
#define KEYS_NAMED ((uint64_t)1 << 32)
#define KEYS_PLACE_SHIFT 33

static uint64_t *known_keys(struct bt_reader *r, const char *s, size_t len)
{
	uint64_t *known;

	if (!len || r->nkeys || r->places >= (1u << 30) ||
	    !(known = pki_memo(&r->keys_memo, s, len)))
		return NULL;
	/* the same keys after another number of stack keys: other names */
	return !*known || *known >> KEYS_PLACE_SHIFT == r->places ? known : NULL;
}

/* The entry's thread and its label set: remembered in *known, if not
 * NULL, for the same keys again. */
static int entry_labels(struct bt_reader *r, uint64_t *known, unsigned place,
			uint32_t *id, int *named)
{
	struct st_thread t = ST_NO_THREAD;
	struct pk_label labels[MAX_KEYS];
	int rc;

	if (known && *known) {
		*id = (uint32_t)*known;
		*named = (*known & KEYS_NAMED) != 0;
		return 0;
	}
	if ((rc = entry_thread(r, &t, labels)) || (rc = st_thread_labels(&r->st, &t, id)))
		return rc;
	*named = t.comm != NULL;
	if (known && *id)
		*known = *id | (*named ? KEYS_NAMED : 0) |
			 (uint64_t)place << KEYS_PLACE_SHIFT;
	return 0;
}

/* The entry's count: its frames, leaf first, then the sample (its keys'
 * labels remembered in known, see known_keys; place: the place of the
 * first key remembered). */
static int end_entry(struct bt_reader *r, const char *count, size_t len,
		     uint64_t *known, unsigned place)
{
	uint32_t labels;
	int64_t n;
	size_t i;
	int rc, pass, named;

	r->in_entry = 0;
	if (st_parse_count(count, len, &n) < 0) {
		if (len && st_digits(count, len) == len)
			return st_line_error(&r->st, "count too large");
		return 0;	/* a histogram or a negative sum: no stack count */
	}
	if (!r->stacks)
		return 0;	/* a map without stack keys */
	/* the kernel's frames first (at the leaf end), whatever the keys' order */
	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < r->st.nheld; i++) {
			unsigned kernel = held_is_kernel(r, i);

			if ((int)kernel == pass &&
			    (rc = st_push_held(&r->st, i, kernel, locate_frame, &r->st)))
				return rc;
		}
	if ((rc = entry_labels(r, known, place, &labels, &named)))
		return rc;
	return st_sample_labeled(&r->st, labels, named, n);
}

/* "...]: COUNT" at the end of s: where "]" is, or NULL. */
static const char *count_at_end(const char *s, size_t len, const char **count,
				size_t *count_len)
{
	size_t i = len;

	while (i && s[i - 1] != ':' && s[i - 1] != ']')
		i--;
	if (i < 2 || s[i - 1] != ':' || s[i - 2] != ']')
		return NULL;
	*count = s + i;
	*count_len = len - i;
	*count = st_trim(*count, count_len);
	return s + i - 2;
}

/* Keys on a line of their own, after "@[" or after a stack key. */
static int key_line(struct bt_reader *r, const char *s, size_t len)
{
	const char *count, *close = count_at_end(s, len, &count, &len);
	int rc;

	if (close) {
		size_t keys = (size_t)(close - s);
		uint64_t *known = known_keys(r, s, keys);
		unsigned place = r->places, stacks = r->stacks;

		if (known && *known)
			return end_entry(r, count, len, known, place);
		rc = keys ? add_scalars(r, s, keys) : 0;
		/* an empty key is an empty stack key: not only labels */
		if (r->stacks != stacks)
			known = NULL;
		return rc ? rc : end_entry(r, count, len, known, place);
	}
	/* the keys before a stack key: "a, b, " or nothing */
	if (len && (len < 2 || memcmp(s + len - 2, ", ", 2) != 0)) {
		r->in_entry = 0;
		st_skip_line(&r->st, s, len, "not a bpftrace map key");
		return 0;
	}
	rc = len ? add_scalars(r, s, len - 2) : 0;
	r->in_stack = 1;
	return rc;
}

/* "@[" or "@name[": the map's name, then its keys. Their length, or 0. */
static size_t entry_start(const char *s, size_t len)
{
	size_t i = 1;

	if (!len || s[0] != '@')
		return 0;
	while (i < len && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
			   (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
		i++;
	return i < len && s[i] == '[' ? i + 1 : 0;
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct bt_reader *r = (struct bt_reader *)st;
	size_t start = entry_start(s, len);

	if (r->in_entry && len && st_is_blank(s[0]) && r->in_stack)
		return add_frame(r, s, len);
	if (start) {
		if (r->in_entry)
			st_skip_line(&r->st, s, len, "a map entry cut short before");
		start_entry(r);
		return key_line(r, s + start, len - start);
	}
	if (!r->in_entry)
		return 0;	/* "Attaching 2 probes...", printf output, ... */
	if (r->in_stack) {
		/* the stack key ends: ", more keys" or "]: count" */
		end_stack(r);
		if (len >= 2 && s[0] == ',' && s[1] == ' ')
			return key_line(r, s + 2, len - 2);
		if (len && s[0] == ']')
			return key_line(r, s, len);
	}
	r->in_entry = 0;
	st_skip_line(&r->st, s, len, "not a bpftrace map key");
	return 0;
}

/* An entry ends at "]: COUNT" (a line of keys, not an indented frame):
 * what follows is read as by a new reader. */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	const char *count;
	size_t count_len;

	(void)line;
	(void)len;
	return prev_len && !st_is_blank(prev[0]) &&
	       count_at_end(prev, prev_len, &count, &count_len);
}

/*
 * A stack key's frames are its indented lines; the first line that is
 * none ends it (", more keys" or "]: count"). A block is looked for
 * only where no frame is held: at the entry's first stack key, or after
 * an empty one, where the frames' order and kinds are the block's own.
 */
static int block_end(const char *s, size_t len)
{
	return !len || !st_is_blank(s[0]);
}

static int block_ready(const struct st_reader *st)
{
	const struct bt_reader *r = (const struct bt_reader *)st;

	return r->in_entry && r->in_stack;
}

static int at_end(struct st_reader *st)
{
	if (((struct bt_reader *)st)->in_entry)
		pk_warn(st->ctx, "%s: the text ends inside a map entry (cut short?)",
			pk_input_name(st->in));
	return 0;
}

static void release(struct st_reader *st)
{
	struct bt_reader *r = (struct bt_reader *)st;

	free(r->key_text.s);
	free(r->held_kind);
	pki_memo_free(&r->keys_memo);
}

static const struct st_format bpftrace = {
	.what = "bpftrace", .expected = "'@[' lines, frames, ']: COUNT'",
	.size = sizeof(struct bt_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start,
	.block_end = block_end, .block_ready = block_ready,
};

static int bpftrace_read(struct pk_context *ctx, struct pk_input *in,
			 struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&bpftrace, ctx, in, p, opts);
}

/* "@[" lines and "]: N" ends, and bpftrace's "Attaching N probes". */
static int bpftrace_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s, *count;
	size_t n, count_len;
	int starts = 0, ends = 0, attaching = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (pki_starts_with_n(s, n, "Attaching ") && n > 17 &&
		    memcmp(s + n - 9, " probe...", 9) == 0)
			attaching = 1;
		else if (pki_starts_with_n(s, n, "Attaching ") && n > 18 &&
			 memcmp(s + n - 10, " probes...", 10) == 0)
			attaching = 1;
		else if (entry_start(s, n))
			starts++;
		if (count_at_end(s, n, &count, &count_len) && count_len &&
		    strspn(count, "0123456789") == count_len)
			ends++;
	}
	if (pr.binary || !starts)
		return 0;
	return ends ? (attaching ? 80 : 70) : (attaching ? 40 : 0);
}

const struct pki_format pki_format_bpftrace = {
	.name = "bpftrace",
	.read_description = "bpftrace maps of stacks, '@[kstack, ustack, comm] = "
			    "count()' (as stackcollapse-bpftrace.pl)",
	.probe = bpftrace_probe,
	.read = bpftrace_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
