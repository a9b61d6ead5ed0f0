/* SPDX-License-Identifier: MIT */
/*
 * Reader for the reports of macOS `sample PID` (`sample PID -file F`):
 * after a header, a call graph per thread, each line a node of the
 * merged tree with the samples it was on the stack in (inclusive):
 *
 *     Analysis of sampling rg (pid 64751) every 1 millisecond
 *     ...
 *     Call graph:
 *         825 Thread_15758523   DispatchQueue_1: com.apple.main-thread  (serial)
 *         + 825 start  (in libdyld.dylib) + 1  [0x7fff737cf3d5]
 *         +   825 main  (in rg) + 41  [0x10384b549]
 *         +   ! 794 -[Foo bar:]  (in Foo) + 12  [0x10000abcd]
 *
 *     Total number in stack (recursive counted multiple times):
 *
 * Two columns of " +!:|" make a level. As stackcollapse-sample.awk and
 * inferno: frames are "module`function" with ".dylib" dropped
 * (macos-sample:no-modules: the function alone), each node's own samples
 * are what its callees leave, and the own samples of the waiting
 * functions of libsystem_kernel (an idle thread's leaf) are dropped. A
 * thread is labels: comm "Thread_N", tid N, the queue, the pid of the
 * header.
 */
#include <stdlib.h>
#include <string.h>

#include "call-tree.h"
#include "core/parts.h"

enum { NO_MODULES };

static const struct pki_option sample_options[] = {
	[NO_MODULES] = { .key = "macos-sample:no-modules", .type = PK_OPTION_FLAG,
			 .help = "frames without their module (not 'module`function')" },
	{ .key = NULL },
};

/* Where a thread waits, the leaves stackcollapse-sample.awk hides. */
#define NAME(s) { s, sizeof(s) - 1 }
static const struct {
	const char *s;
	size_t len;
} waiting_functions[] = {
	NAME("__psynch_cvwait"), NAME("__select"), NAME("__semwait_signal"),
	NAME("__ulock_wait"), NAME("__wait4"), NAME("__workq_kernreturn"),
	NAME("kevent"), NAME("mach_msg_trap"), NAME("read"),
	NAME("semaphore_wait_trap"),
};
#undef NAME

#define WAITING_MODULE "libsystem_kernel"
#define GRAPH_START "Call graph:"
#define GRAPH_END "Total number in stack"
#define HEADER "Analysis of sampling "

struct sample_reader {
	struct pki_tree t;
	int modules;
	pk_str key_comm, key_pid, key_tid, key_queue;
	int64_t pid;		/* of the header; -1 without one */
	struct pk_strbuf module;
	int ended;		/* at the call graph's end */
	int thread_begun;	/* the line before was a thread's */
};

/* A row's flags: a thread's (its location is the thread's labels), a
 * waiting function's. */
enum { THREAD_ROW = 1, WAITING_ROW = 2 };

static void bad_line(struct sample_reader *r, const char *line, size_t len,
		     const char *why)
{
	/* a thread's call graph with a warning is read each time */
	pki_tree_subtree_spoil(&r->t);
	r->thread_begun = 0;
	pki_part_warn_few(r->t.part, r->t.ctx, &r->t.counted,
			  "%s: line %llu: %s: '%.*s'", pk_input_name(r->t.in),
			  (unsigned long long)pki_tree_lineno(&r->t), why,
			  (int)(len > 80 ? 80 : len), line);
}

static int is_waiting(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(waiting_functions); i++)
		if (waiting_functions[i].len == len &&
		    memcmp(waiting_functions[i].s, name, len) == 0)
			return 1;
	return 0;
}

static void trim_end(const char *s, size_t *len)
{
	while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
		(*len)--;
}

/* The label keys, in the reader's profile. */
static void intern_keys(struct sample_reader *r)
{
	r->key_comm = pk_profile_intern_cstr(r->t.p, "comm");
	r->key_pid = pk_profile_intern_cstr(r->t.p, "pid");
	r->key_tid = pk_profile_intern_cstr(r->t.p, "tid");
	r->key_queue = pk_profile_intern_cstr(r->t.p, "queue");
}

/* The header's "(pid N)", or -1. */
static int64_t header_pid(const char *line, size_t len)
{
	const char *s = memmem(line, len, "(pid ", 5);
	int64_t pid = 0;

	if (!s)
		return -1;
	for (s += 5; s < line + len && *s >= '0' && *s <= '9'; s++)
		if ((pid = pid * 10 + (*s - '0')) > INT32_MAX)
			return -1;
	return s < line + len && *s == ')' ? pid : -1;
}

/* A thread's line, "Thread_N   DispatchQueue_1: NAME  (serial)": the
 * labels of its samples, interned. 0 when out of memory. */
static uint32_t thread_labels(struct sample_reader *r, const char *text, size_t len)
{
	struct pk_label labels[4];
	size_t n = 0, word = 0, rest;
	int64_t tid = 0;

	while (word < len && text[word] != ' ')
		word++;
	memset(labels, 0, sizeof(labels));
	labels[n].key = r->key_comm;
	labels[n++].str = pk_profile_intern(r->t.p, text, word);
	if (word > 7 && memcmp(text, "Thread_", 7) == 0) {
		size_t i;

		for (i = 7; i < word && text[i] >= '0' && text[i] <= '9' &&
		     tid <= INT32_MAX; i++)
			tid = tid * 10 + (text[i] - '0');
		if (i == word && tid <= INT32_MAX) {
			labels[n].key = r->key_tid;
			labels[n++].num = tid;
		}
	}
	if (r->pid >= 0) {
		labels[n].key = r->key_pid;
		labels[n++].num = r->pid;
	}
	for (rest = word; rest < len && text[rest] == ' '; rest++)
		;
	if (rest < len) {
		labels[n].key = r->key_queue;
		labels[n++].str = pk_profile_intern(r->t.p, text + rest, len - rest);
	}
	return pk_profile_intern_labels(r->t.p, labels, n);
}

/* The first " (in " from s to end: memchr's '(' (one a frame, mostly)
 * cost less than memmem's setup for a five-byte needle, on every line */
static const char *module_start(const char *s, const char *end)
{
	const char *open = s + 1;

	while (end - open >= 4 && (open = memchr(open, '(', (size_t)(end - open - 3)))) {
		if (open[-1] == ' ' && memcmp(open + 1, "in ", 3) == 0)
			return open - 1;
		open++;
	}
	return NULL;
}

/* "NAME  (in MODULE) + 12  [0x...]": the name and the module, ".dylib"
 * dropped from it (into r->module). */
static void split_frame(struct sample_reader *r, const char *text, size_t len,
			size_t *name_len, int *has_module)
{
	const char *in = text, *end = text + len, *close = NULL;

	r->module.len = 0;
	*has_module = 0;
	while ((in = module_start(in, end)) &&
	       !(close = memchr(in + 5, ')', (size_t)(end - in - 5))))
		in += 5;
	if (in && close) {
		const char *m = in + 5, *dylib;

		*name_len = (size_t)(in - text);
		while ((dylib = memmem(m, (size_t)(close - m), ".dylib", 6))) {
			pki_strbuf_add(&r->module, m, (size_t)(dylib - m));
			m = dylib + 6;
		}
		pki_strbuf_add(&r->module, m, (size_t)(close - m));
		*has_module = 1;
	} else {
		const char *addr = memmem(text, len, "  [", 3);

		*name_len = addr ? (size_t)(addr - text) : len;
	}
	trim_end(text, name_len);
}

/* The location of a frame's text (0 when out of memory), and whether
 * it waits. */
static uint32_t frame_location(struct sample_reader *r, const char *text,
			       size_t len, int *waiting)
{
	struct pki_tree *t = &r->t;
	size_t name_len;
	int has_module, shown;

	split_frame(r, text, len, &name_len, &has_module);
	shown = has_module && r->modules && r->module.len;
	*waiting = is_waiting(text, name_len) &&
		   (!shown || (r->module.len == strlen(WAITING_MODULE) &&
			       memcmp(r->module.s, WAITING_MODULE, r->module.len) == 0));
	t->name.len = 0;
	if ((shown && (pki_strbuf_add(&t->name, r->module.s, r->module.len) ||
		       pki_strbuf_adds(&t->name, "`"))) ||
	    pki_strbuf_add(&t->name, text, name_len))
		return 0;
	return pki_tree_frame(t, t->name.s, t->name.len, shown ? r->module.s : NULL,
			      shown ? r->module.len : 0);
}

static int is_graph_mark(char c)
{
	return c == ' ' || c == '+' || c == '!' || c == ':' || c == '|';
}

/* A line of the call graph: 4 blanks, two columns of " +!:|" a level,
 * the count, the node; into row (left unread for a line skipped). */
static int read_graph_line(struct sample_reader *r, const char *line, size_t len,
			   struct pki_tree_row *row)
{
	size_t i = 4, depth;
	int64_t count = 0;
	int waiting = 0;

	while (i < len && is_graph_mark(line[i]))
		i++;
	if (i == len || line[i] < '0' || line[i] > '9') {
		bad_line(r, line, len, "not a call graph line");
		return 0;
	}
	if ((i - 4) % 2) {
		bad_line(r, line, len, "an odd indentation");
		return 0;
	}
	depth = (i - 4) / 2;
	for (; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
		if (count > (INT64_MAX - 9) / 10)
			return pki_tree_error(&r->t, "the count is too large");
		count = count * 10 + (line[i] - '0');
	}
	if (i == len || line[i] != ' ') {
		bad_line(r, line, len, "no name after the count");
		return 0;
	}
	i++;
	/* a frame is a thread's callee: the thread takes level 0 */
	row->location = depth ? frame_location(r, line + i, len - i, &waiting) :
			thread_labels(r, line + i, len - i);
	if (!row->location)
		return pk_error_set(r->t.ctx, PK_ENOMEM, "out of memory");
	/* a line is shorter than 4 GiB: so is its indentation */
	row->depth = (uint32_t)depth;
	row->mantissa = count;
	row->flags = (depth ? 0 : THREAD_ROW) | (waiting ? WAITING_ROW : 0);
	row->read = 1;
	return 0;
}

/* Whether a line is read as a thread's: "    COUNT NAME" */
static int starts_thread(const char *line, size_t len)
{
	size_t i = 4;

	if (len <= i || memcmp(line, "    ", 4) != 0)
		return 0;
	while (i < len && line[i] >= '0' && line[i] <= '9')
		i++;
	return i > 4 && i < len && line[i] == ' ';
}

static int graph_line(struct sample_reader *r, const char *line, size_t len,
		      struct pki_tree_row *row)
{
	struct pki_tree_row own = { 0 };
	int rc;

	if (!row)
		row = &own;
	if (!row->read && ((rc = read_graph_line(r, line, len, row)) || !row->read))
		return rc;
	if (!(row->flags & THREAD_ROW)) {
		/* a thread's call graph met again is added whole */
		if (r->thread_begun && row != &own &&
		    (rc = pki_tree_subtree_begin(&r->t, row, starts_thread)))
			return rc < 0 ? rc : 0;
		r->thread_begun = 0;
		return pki_tree_inclusive_row(&r->t, row, row->flags & WAITING_ROW);
	}
	/* the last thread's nodes leave with its labels */
	if ((rc = pki_tree_subtree_end(&r->t, line)))
		return rc;
	r->t.labels = row->location;
	r->thread_begun = 1;
	return pki_tree_inclusive(&r->t, 0, 0, row->mantissa, 0);
}

static int read_rows(struct pki_tree *t)
{
	struct sample_reader *r = (struct sample_reader *)t;
	struct pki_tree_row *row;
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pki_tree_next_row(t, &len, &row))) {
		if (pki_starts_with_n(line, len, GRAPH_END)) {
			r->ended = 1;
			break;
		}
		if (len >= 4 && memcmp(line, "    ", 4) == 0)
			rc = graph_line(r, line, len, row);
		else if (len)
			bad_line(r, line, len, "not a call graph line");
	}
	return rc;
}

/*
 * A line as read_rows takes it, for a part that only tells threads
 * apart (pki_tree_rows' scan_line): a thread's, the graph's end, or one
 * read_graph_line warns of or may refuse (a count of more than 18
 * digits may not fit).
 */
static unsigned scan_line(const char *line, size_t len, size_t *depth)
{
	size_t i = 4, digits;

	if (pki_starts_with_n(line, len, GRAPH_END))
		return PKI_SCAN_END;
	if (!len)
		return 0;
	if (len < 4 || memcmp(line, "    ", 4) != 0)
		return PKI_SCAN_DIRTY;
	while (i < len && is_graph_mark(line[i]))
		i++;
	for (digits = 0; i + digits < len && line[i + digits] >= '0' &&
	     line[i + digits] <= '9'; digits++)
		;
	*depth = (i - 4) / 2;
	if (!digits || digits > 18 || (i - 4) % 2 || i + digits == len ||
	    line[i + digits] != ' ')
		return PKI_SCAN_DIRTY | (i == 4 && digits ? PKI_SCAN_ROOT : 0);
	return i == 4 ? PKI_SCAN_ROOT : 0;
}

static int going_on(const struct pki_tree *whole)
{
	return !((const struct sample_reader *)whole)->ended;
}

static void absorb(struct pki_tree *whole, const struct pki_tree *part)
{
	((struct sample_reader *)whole)->ended =
		((const struct sample_reader *)part)->ended;
}

/* The last thread's nodes leave at the end (of a part), after a
 * warning where the text ends before the call graph does. */
static int end_rows(struct pki_tree *t)
{
	if (pki_tree_at_text_end(t) && !((struct sample_reader *)t)->ended)
		pk_warn(t->ctx, "%s: the call graph ends without its '" GRAPH_END
			"' line (truncated file?)", pk_input_name(t->in));
	return pki_tree_finish(t);
}

static void copy_settings(struct pki_tree *part, const struct pki_tree *whole)
{
	struct sample_reader *to = (struct sample_reader *)part;
	const struct sample_reader *from = (const struct sample_reader *)whole;

	to->modules = from->modules;
	to->pid = from->pid;
	intern_keys(to);
}

static void release(struct pki_tree *t)
{
	struct sample_reader *r = (struct sample_reader *)t;

	free(r->module.s);
}

static const struct pki_tree_rows sample_rows = {
	.size = sizeof(struct sample_reader),
	.read = read_rows,
	.end = end_rows,
	/* a line read as a thread's: a part cut at "    12x" would start
	 * a thread where one reader goes on below the one before */
	.is_root = starts_thread,
	.copy = copy_settings,
	.release = release,
	.going_on = going_on,
	.absorb = absorb,
	.scan_line = scan_line,
};

static int sample_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	struct sample_reader r;
	const char *line;
	size_t len;
	int rc = 0, in_graph = 0;

	memset(&r, 0, sizeof(r));
	pki_tree_init(&r.t, ctx, in, p);
	r.modules = !pki_option_flag(opts, &sample_options[NO_MODULES]);
	r.pid = -1;
	intern_keys(&r);
	r.t.column = pk_profile_add_sample_type(p, "samples", "count", NULL,
						PK_VALUE_COUNT);
	if (r.t.column < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	while (!rc && !in_graph && (line = pki_tree_line(&r.t, &len))) {
		if (pki_starts_with_n(line, len, HEADER) && r.pid < 0)
			r.pid = header_pid(line, len);
		in_graph = pki_starts_with_n(line, len, GRAPH_START);
	}
	if (!rc && in_graph)
		rc = pki_tree_read_rows(&r.t, &sample_rows, opts);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !in_graph)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no call graph (a line "
				  "'" GRAPH_START "') in this sample report",
				  pk_input_name(in));
	pki_tree_free(&r.t);
	release(&r.t);
	return rc;
}

/* The header line, or the call graph's first line. */
static int sample_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int lines = 0, graph = 0;

	while (s < end && lines++ < 40) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		if (pki_starts_with_n(s, n, HEADER) && lines <= 8)
			return 90;
		if (graph)
			return n > 5 && memcmp(s, "    ", 4) == 0 &&
			       s[4] >= '0' && s[4] <= '9' &&
			       memmem(s, n, " Thread_", 8) ? 80 : 0;
		graph = pki_starts_with_n(s, n, GRAPH_START);
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

const struct pki_format pki_format_macos_sample = {
	.name = "macos-sample",
	.read_description = "macOS 'sample PID' call graphs (as "
			    "stackcollapse-sample.awk reads them)",
	.probe = sample_probe,
	.read = sample_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
	.options = sample_options,
};
