/* SPDX-License-Identifier: MIT */
/*
 * Reader for JVM thread dumps, a poor man's Java profiler's samples
 * (`jstack PID` again and again; stackcollapse-jstack.pl folds them):
 *
 *     "pool-1-thread-1" #12 prio=5 os_prio=0 ... nid=0x6bf3 runnable  [0x...]
 *        java.lang.Thread.State: RUNNABLE
 *     	at Stacks.mix(Stacks.java:15)
 *     	at Stacks.outer(Stacks.java:29)
 *     	- locked <0x000000069ec02f40> (a java.lang.Object)
 *
 * A thread ends at a blank line. As the script, only running threads
 * count: RUNNABLE ones, less the JVM's own (compiler threads, "Signal
 * Dispatcher", "Service Thread", "Attach Listener") and those waiting in
 * epoll or in a socket's accept or read. Each is one sample of its
 * thread, named as the script names it (a trailing "-N" dropped, so a
 * pool's threads are one), with its native id (nid) as tid; a thread's
 * name alone is a stack too. A frame is named "package.Class.method";
 * "(File.java:15)" is its file and line, "java.base@17/" its module.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/grow.h"
#include "util/strings.h"

enum state { UNKNOWN, RUNNABLE, OTHER };

static const char state_text[] = "java.lang.Thread.State: ";

struct jstack_reader {
	struct st_reader st;
	char *name;
	size_t name_cap;
	enum state state;
	int waiting;	/* a frame of a waiting method read */
	/* what an "at" line's text is, by its id in st.memo (AT_*; 0:
	 * not known yet): the same text is the same kind of line */
	unsigned char *kinds;
	size_t kinds_cap;
};

enum at_kind { AT_FRAME = 1, AT_WAITING, AT_STATE };

/* "\tat Stacks.mix(Stacks.java:15)", its first blanks bytes blanks:
 * where the method starts, or 0. */
static size_t at_after(const char *s, size_t len, size_t blanks)
{
	return blanks + 3 <= len && s[blanks] == 'a' && s[blanks + 1] == 't' &&
	       s[blanks + 2] == ' ' ? blanks + 3 : 0;
}

static size_t at_line(const char *s, size_t len)
{
	return at_after(s, len, st_blanks(s, len));
}

/* "(java.base@17.0.15/Thread.java:840)": the module, file and line. */
static void source_place(const char *s, size_t len, struct st_frame *f)
{
	const char *slash, *colon;

	if (len < 2 || s[0] != '(' || s[len - 1] != ')')
		return;
	s++;
	len -= 2;
	slash = memchr(s, '/', len);
	if (slash) {
		f->module = s;
		f->module_len = (size_t)(slash - s);
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	colon = memrchr(s, ':', len);
	if (colon && st_parse_count(colon + 1, (size_t)(s + len - colon - 1), &f->line) == 0) {
		f->file = s;
		f->file_len = (size_t)(colon - s);
	}
}

/* "Stacks.mix(Stacks.java:15)": the method up to '(' (the script's). */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct st_frame f = { 0 };
	const char *open = memchr(s, '(', len);

	(void)variant;
	f.name = s;
	f.name_len = open ? (size_t)(open - s) : len;
	if (open)
		source_place(open, (size_t)(s + len - open), &f);
	return st_location(arg, &f);
}

/* Whether s contains what, looked for by its byte at key: a method's
 * name has many a lowercase letter, few capitals. */
static int contains(const char *s, size_t len, const char *what, size_t key)
{
	return st_find_by(s, len, what, strlen(what), key) != NULL;
}

static int ends_with(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what);

	return len >= n && memcmp(s + len - n, what, n) == 0;
}

/* A method the script takes for waiting, not running (lines 155-163). */
static int is_waiting(const char *s, size_t len)
{
	return contains(s, len, "epollWait", 5) || contains(s, len, "EPoll.wait", 1) ||
	       ends_with(s, len, "socketAccept") || ends_with(s, len, "socketRead0") ||
	       (ends_with(s, len, "accept0") && contains(s, len, "Socket", 0));
}

/* The JVM's own threads, never running Java code (the script's
 * /C. CompilerThread/ and others, lines 139-142). Each name has a blank:
 * they are looked for where the thread's name has one, most names
 * ("main", "pool-1-thread-2") none. */
static int is_background(const char *s, size_t len)
{
#define OWN(name, blank) { name, sizeof(name) - 1, blank }
	static const struct { const char *name; size_t len, blank; } own[] = {
		OWN("Signal Dispatcher", 6), OWN("Service Thread", 7),
		OWN("Attach Listener", 6),
	};
#undef OWN
	const char *end = s + len, *p;
	size_t i, n;

	for (p = s; (p = memchr(p, ' ', (size_t)(end - p))); p++) {
		if (p - s >= 2 && p[-2] == 'C' && end - p > 14 &&
		    memcmp(p + 1, "CompilerThread", 14) == 0)
			return 1;
		for (i = 0; i < PK_ARRAY_SIZE(own); i++) {
			n = own[i].len;
			if ((size_t)(p - s) >= own[i].blank && (size_t)(end - p) >= n - own[i].blank &&
			    memcmp(p - own[i].blank, own[i].name, n) == 0)
				return 1;
		}
	}
	return 0;
}

/* '"pool-1-thread-1" #12 ... nid=0x6bf3 runnable': name and native id. */
static int thread_line(struct jstack_reader *r, const char *s, size_t len)
{
	const char *name = s + 1, *end = memchr(name, '"', len - 1), *nid;
	size_t full = end ? (size_t)(end - name) : len - 1, n = full, digits = full;
	uint64_t id;

	while (digits && name[digits - 1] >= '0' && name[digits - 1] <= '9')
		digits--;
	if (digits < full && digits > 0 && name[digits - 1] == '-')
		n = digits - 1;	/* "pool-1-thread-3" is "pool-1-thread" */
	if (pki_grow(&r->name, &r->name_cap, n + 1, 1) < 0)
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	memcpy(r->name, name, n);
	r->st.thread.comm = r->name;
	r->st.thread.comm_len = n;
	/* its 'n' is the first after the name in most headers ("daemon"
	 * aside), where '=' comes six times */
	nid = st_find_by(s, len, " nid=", 5, 1);
	r->st.thread.tid = nid && st_hex_prefix(nid + 5, len - (size_t)(nid + 5 - s), &id) &&
			id <= INT64_MAX ? (int64_t)id : -1;
	if (is_background(name, full))
		r->state = OTHER;
	return 0;
}

/* A thread ends: a running one is a sample; the frames of one not
 * running are dropped, remembered whole (st_drop) where no waiting
 * method's frame made it so, as the next time it may run. */
static int end_thread(struct jstack_reader *r)
{
	int rc = 0;

	if (r->state == RUNNABLE)
		rc = st_sample(&r->st, &r->st.thread, 1);
	else if (r->state == OTHER && !r->waiting)
		st_drop(&r->st);
	r->st.nframes = 0;
	r->state = UNKNOWN;
	r->waiting = 0;
	r->st.thread.comm = NULL;
	r->st.thread.comm_len = 0;
	r->st.thread.tid = -1;
	return rc;
}

/* "   java.lang.Thread.State: RUNNABLE" (anywhere in a line; a frame's
 * line searched from its method on, which no blank nor "at " starts),
 * its first blanks bytes blanks: whether s is one, and the thread's
 * state if not known yet. */
static int state_line(struct jstack_reader *r, const char *s, size_t len,
		      size_t blanks)
{
	size_t n;
	const char *t;

	/* where jstack puts it, after blanks (so first); else anywhere, by
	 * its ':', rarer than its 'j' in the frames' lines */
	if (len - blanks >= strlen(state_text) &&
	    memcmp(s + blanks, state_text, strlen(state_text)) == 0)
		t = s + blanks;
	else
		t = st_find_by(s, len, state_text, strlen(state_text), strlen(state_text) - 2);
	if (!t)
		return 0;
	n = (size_t)(s + len - t) - strlen(state_text);
	t += strlen(state_text);
	/* the state's word, up to a blank */
	if (r->state == UNKNOWN)
		r->state = n >= 8 && memcmp(t, "RUNNABLE", 8) == 0 &&
			   (n == 8 || st_is_blank(t[8])) ? RUNNABLE : OTHER;
	return 1;
}

/* What the text of an "at" line (after "at ") is: a state line (the
 * state's text found anywhere in it), a waiting method's frame or
 * another frame. */
static enum at_kind at_kind(const char *s, size_t len)
{
	const char *open;

	if (st_find_by(s, len, state_text, strlen(state_text), strlen(state_text) - 2))
		return AT_STATE;
	open = memchr(s, '(', len);
	return is_waiting(s, open ? (size_t)(open - s) : len) ? AT_WAITING : AT_FRAME;
}

/* "\tat Stacks.mix(Stacks.java:15)" from "Stacks.mix(...)" on: its text's
 * kind and location remembered by its id in the frames' memo. */
static int at_text(struct jstack_reader *r, const char *s, size_t len)
{
	uint32_t id = pki_memo_id(&r->st.memo, s, len);
	enum at_kind kind;

	if (!id) {
		kind = at_kind(s, len);
	} else if (pki_grow_zeroed(&r->kinds, &r->kinds_cap, (size_t)id + 1, 1) < 0) {
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	} else {
		if (!r->kinds[id])
			r->kinds[id] = (unsigned char)at_kind(s, len);
		kind = r->kinds[id];
	}
	if (kind == AT_STATE) {
		state_line(r, s, len, st_blanks(s, len));
		return 0;
	}
	/* once OTHER, the thread's stack is dropped at its end */
	if (kind == AT_WAITING) {
		r->waiting = 1;
		r->state = OTHER;
	}
	return st_push(&r->st, id ? st_frame_by_id(&r->st, id, 0, locate_frame, &r->st) :
			       locate_frame(&r->st, s, len, 0));
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct jstack_reader *r = (struct jstack_reader *)st;
	size_t at, blanks;

	if (!len)
		return end_thread(r);
	if (s[0] == '#')
		return 0;
	if (s[0] == '"')
		return thread_line(r, s, len);
	/* the blanks before "at " or the state, counted once for both */
	blanks = st_blanks(s, len);
	if ((at = at_after(s, len, blanks)))
		return at_text(r, s + at, len - at);
	/* other lines ("- locked <0x...>", the date, "Full thread dump")
	 * are no frames, and their state line changes a known state not */
	if (r->state == UNKNOWN)
		state_line(r, s, len, blanks);
	return 0;
}

/* A thread ends at a blank line: what follows is read anew. */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	(void)prev;
	(void)line;
	(void)len;
	return !prev_len;
}

/*
 * A thread's frames, once its state is read (the state line changes
 * nothing after that), end at the empty line that ends the thread or at
 * the next thread's line. A block of a waiting method's frame turns the
 * state OTHER, its stack dropped: such a block is never remembered (one
 * of a thread not running for another reason is, by st_drop).
 */
static int block_end(const char *s, size_t len)
{
	return !len || s[0] == '"';
}

static int block_ready(const struct st_reader *st)
{
	return ((const struct jstack_reader *)st)->state != UNKNOWN;
}

static int at_end(struct st_reader *st)
{
	return end_thread((struct jstack_reader *)st);
}

static void release(struct st_reader *st)
{
	struct jstack_reader *r = (struct jstack_reader *)st;

	free(r->name);
	free(r->kinds);
}

static const struct st_format jstack = {
	.what = "jstack",
	.expected = "'\"thread\" #1 ... nid=0x1 runnable' lines, "
		    "'java.lang.Thread.State: RUNNABLE' and 'at method(File.java:1)' lines",
	.size = sizeof(struct jstack_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start,
	.block_end = block_end, .block_ready = block_ready,
};

static int jstack_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&jstack, ctx, in, p, opts);
}

/* "Full thread dump", '"name" #1 ... prio=' and Thread.State lines. */
static int jstack_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n;
	int dump = 0, threads = 0, states = 0, frames = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (pki_starts_with_n(s, n, "Full thread dump "))
			dump = 1;
		else if (n && s[0] == '"' && st_find(s, n, " prio=", 6) && st_find(s, n, " nid=", 5))
			threads++;
		else if (st_find(s, n, "   java.lang.Thread.State: ", 27))
			states++;
		else if (at_line(s, n) && memchr(s, '(', n))
			frames++;
	}
	if (pr.binary || !threads || (!states && !dump))
		return 0;
	return dump ? 95 : 85;
}

const struct pki_format pki_format_jstack = {
	.name = "jstack",
	.read_description = "JVM thread dumps (jstack PID), repeated (poor man's "
			    "Java profiler; as stackcollapse-jstack.pl)",
	.probe = jstack_probe,
	.read = jstack_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
