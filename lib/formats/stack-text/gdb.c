/* SPDX-License-Identifier: MIT */
/*
 * Reader for gdb backtraces of every thread, a poor man's profiler's
 * samples (`gdb -batch -ex "thread apply all bt" -p PID` again and again;
 * stackcollapse-gdb.pl folds them):
 *
 *     Thread 2 (Thread 0x7f06277a06c0 (LWP 16957) "napper-wait"):
 *     #0  wait_for (word=0x5560420b1044 <handed>, seen=28) at naps.c:54
 *     #1  0x00005560420ae258 in waiter (arg=<optimized out>) at naps.c:72
 *     #2  0x00007f062782d1f5 in start_thread (arg=...) at pthread_create.c:442
 *
 * A stack ends at the first line that is no frame (the blank line after
 * it). Each is one sample of its thread: the name gdb gives it (comm) and
 * its LWP (tid). A frame is named by its function, as the script names it
 * (no address, no arguments), but whole: the script keeps a C++ name up
 * to its first blank ("std::vector<int," of "std::vector<int,
 * std::allocator<int> >::push_back"), and ends the stack at a frame
 * of fewer words ("<signal handler called>"). "at FILE:LINE" is the
 * function's file and line, "from LIBRARY" its mapping.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "formats/registry.h"
#include "util/grow.h"
#include "util/strings.h"

/* A thread line seen before: its thread (its name in the memo's copy of
 * the line), once parsed. */
struct gdb_thread {
	struct st_thread thread;
	int parsed;
};

struct gdb_reader {
	struct st_reader st;
	char *comm;
	size_t comm_cap;
	uint32_t last_id;	/* the memo id of the frame read last */
	/* the thread lines by their text, what each says by its id, and
	 * the id of the one read last: every dump names the threads of the
	 * one before, in the same order */
	struct pki_memo threads;
	struct gdb_thread *seen;
	size_t seen_cap;
	uint32_t last_thread;
};

/* Where a function's name ends: at its arguments, " (" outside template
 * brackets (the first " (" when the brackets do not add up). */
static size_t name_end(const char *s, size_t len)
{
	const char *first = st_find(s, len, " (", 2);
	size_t i;
	int depth = 0;

	for (i = 0; i + 1 < len; i++) {
		depth += s[i] == '<' ? 1 : s[i] == '>' && depth ? -1 : 0;
		if (!depth && s[i] == ' ' && s[i + 1] == '(')
			return i;
	}
	return first ? (size_t)(first - s) : len;
}

/* " at naps.c:54" or " from /lib/libc.so.6" at the end of a frame. */
static void frame_place(const char *s, size_t len, struct st_frame *f)
{
	const char *at = NULL, *p = s;
	const char *end = s + len, *colon;

	while ((p = st_find(p, (size_t)(end - p), " at ", 4)))
		at = p++;
	if (at && (colon = memrchr(at, ':', (size_t)(end - at))) && colon + 1 < end &&
	    st_parse_count(colon + 1, (size_t)(end - colon - 1), &f->line) == 0) {
		f->file = at + 4;
		f->file_len = (size_t)(colon - f->file);
		return;
	}
	for (at = NULL, p = s; (p = st_find(p, (size_t)(end - p), " from ", 6)); p++)
		at = p;
	if (at) {
		f->module = at + 6;
		f->module_len = (size_t)(end - f->module);
	}
}

/* "0x00005560420ae258 in waiter (arg=...) at naps.c:72", "wait_for (...)". */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct st_frame f = { 0 };
	size_t i = st_hex_prefix(s, len, &f.address), n;

	(void)variant;
	if (i && i + 4 <= len && memcmp(s + i, " in ", 4) == 0)
		i += 4;
	else
		i = 0;
	f.name = s + i;
	n = name_end(f.name, len - i);
	f.name_len = n;
	frame_place(f.name + n, len - i - n, &f);
	return st_location(arg, &f);
}

/* 'Thread 2 (Thread 0x7f06277a06c0 (LWP 16957) "napper-wait"):': its
 * LWP and its name, in s, into t. */
static void parse_thread(const char *s, size_t len, struct st_thread *t)
{
	const char *lwp = st_find(s, len, "(LWP ", 5), *quote, *end = s + len;
	size_t n;

	t->tid = -1;
	t->comm = NULL;
	t->comm_len = 0;
	if (!lwp)
		lwp = st_find(s, len, "(process ", 9);
	if (lwp) {
		const char *digits = (const char *)memchr(lwp, ' ', (size_t)(end - lwp)) + 1;

		for (n = 0; digits + n < end && digits[n] >= '0' && digits[n] <= '9'; n++)
			;
		if (st_parse_count(digits, n, &t->tid) < 0)
			t->tid = -1;
	}
	quote = memchr(s, '"', len);
	if (quote && len >= 3 && memcmp(end - 3, "\"):", 3) == 0 && end - 3 > quote) {
		t->comm = quote + 1;
		t->comm_len = (size_t)(end - 3 - quote - 1);
	}
}

/* A thread line not remembered (the memo full): parsed, its name copied. */
static int new_thread_line(struct gdb_reader *r, const char *s, size_t len)
{
	struct st_thread *t = &r->st.thread;

	parse_thread(s, len, t);
	if (!t->comm)
		return 0;
	if (pki_grow(&r->comm, &r->comm_cap, t->comm_len + 1, 1) < 0)
		return pk_error_set(r->st.ctx, PK_ENOMEM, "out of memory");
	memcpy(r->comm, t->comm, t->comm_len);
	t->comm = r->comm;
	return 0;
}

/* A thread line, parsed the first time its text comes: first compared
 * with the one that came after the line before it the last time. */
static int thread_line(struct gdb_reader *r, const char *s, size_t len)
{
	uint32_t id = pki_memo_id_after(&r->threads, r->last_thread, 0, s, len);
	struct gdb_thread *seen;
	const char *text;
	size_t n;

	if (!id || pki_grow_zeroed(&r->seen, &r->seen_cap, (size_t)id + 1,
				   sizeof(*r->seen)) < 0)
		return new_thread_line(r, s, len);
	seen = &r->seen[id];
	if (!seen->parsed) {
		text = pki_memo_text(&r->threads, id, &n);
		parse_thread(text, n, &seen->thread);
		seen->parsed = 1;
	}
	r->last_thread = id;
	r->st.thread.tid = seen->thread.tid;
	r->st.thread.comm = seen->thread.comm;
	r->st.thread.comm_len = seen->thread.comm_len;
	return 0;
}

/* A frame's location, first guessed to be the one that came after the
 * frame before it the last time: a dump repeats the threads' stacks of
 * the one before, in the same order. */
static uint32_t frame_loc(struct gdb_reader *r, const char *s, size_t len)
{
	return st_frame_after(&r->st, r->last_id, 0, s, len, locate_frame, &r->st,
			      &r->last_id);
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	struct gdb_reader *r = (struct gdb_reader *)st;
	/* most lines that are no frame ("Thread", blank, gdb's notes)
	 * told at their first byte, without a call */
	size_t n = len && s[0] == '#' ? st_frame_number(s, len) : 0;

	if (n)
		return st_push(&r->st, frame_loc(r, s + n, len - n));
	if (pki_starts_with_n(s, len, "Thread ")) {
		r->st.nframes = 0;	/* as the script: no stack before it */
		return thread_line(r, s, len);
	}
	return r->st.nframes ? st_sample(&r->st, &r->st.thread, 1) : 0;
}

/* A thread's stack starts at its "Thread " line, after a line that
 * ended the stack before (no frame: the script drops frames right
 * before a "Thread " line, the end of the text does not). */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	return pki_starts_with_n(line, len, "Thread ") &&
	       !st_frame_number(prev, prev_len);
}

static int at_end(struct st_reader *st)
{
	return st->nframes ? st_sample(st, &st->thread, 1) : 0;
}

static void release(struct st_reader *st)
{
	struct gdb_reader *r = (struct gdb_reader *)st;

	free(r->comm);
	pki_memo_free(&r->threads);
	free(r->seen);
}

static const struct st_format gdb = {
	.what = "gdb",
	.expected = "'Thread N (...):' lines and '#0  0x... in function (...)' frames",
	.size = sizeof(struct gdb_reader),
	.line = handle_line, .end = at_end, .release = release,
	.record_start = record_start,
};

static int gdb_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&gdb, ctx, in, p, opts);
}

/* "Thread N (Thread 0x... (LWP n)...):" and "#N  0x... in f (" lines. */
static int gdb_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n, f;
	int frames = 0, threads = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (pki_starts_with_n(s, n, "Thread ") && n > 3 &&
		    memcmp(s + n - 2, "):", 2) == 0 &&
		    (st_find(s, n, "(LWP ", 5) || st_find(s, n, "(process ", 9)))
			threads++;
		else if ((f = st_frame_number(s, n)) && st_find(s + f, n - f, " (", 2) &&
			 (s[f] != '0' || st_find(s + f, n - f, " in ", 4)))
			frames++;
	}
	if (pr.binary || !frames)
		return 0;
	return threads ? 90 : frames >= 3 ? 50 : 20;
}

const struct pki_format pki_format_gdb = {
	.name = "gdb",
	.read_description = "gdb 'thread apply all bt' backtraces, repeated (poor "
			    "man's profiler; as stackcollapse-gdb.pl)",
	.probe = gdb_probe,
	.read = gdb_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
