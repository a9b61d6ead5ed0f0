/* SPDX-License-Identifier: MIT */
/*
 * Folding: each sample's stack as one line, root first,
 *
 *     comm;main;work;hot
 *
 * named as stackcollapse-perf.pl names frames (flamegraph.pl and inferno
 * read this), summed per line and sorted bytewise. The folded writer
 * prints it; diff, flame graphs and others build on it. Where the perl
 * script is wrong we are not; doc/formats.md lists each difference.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "core/internal.h"
#include "core/names.h"
#include "core/parts.h"
#include "util/strbuf.h"
#include "util/strings.h"
#include "value.h"

enum { PID, TID, KERNEL, JIT, ADDRS, NO_COMM };

/* the keys "folded:NAME", the flags --NAME */
#define FLAG(name, h) { .key = "folded:" name, .type = PK_OPTION_FLAG, \
	.flag = name, .help = h }

const struct pki_option pki_fold_options[] = {
	[PID] = FLAG("pid", "root frame 'comm-PID'"),
	[TID] = FLAG("tid", "root frame 'comm-PID/TID'"),
	[KERNEL] = FLAG("kernel", "mark kernel frames with _[k]"),
	[JIT] = FLAG("jit", "mark JIT frames with _[j]"),
	[ADDRS] = FLAG("addrs", "show addresses of unknown frames"),
	[NO_COMM] = FLAG("no-comm", "no process name root frame"),
	{ .key = NULL },
};

void pki_fold_settings(const struct pk_options *opts,
		       struct pki_fold_settings *s)
{
	const struct pki_option *o = pki_fold_options;

	s->include_pid = pki_option_flag(opts, &o[PID]) != 0;
	s->include_tid = pki_option_flag(opts, &o[TID]) != 0;
	s->annotate_kernel = pki_option_flag(opts, &o[KERNEL]) != 0;
	s->annotate_jit = pki_option_flag(opts, &o[JIT]) != 0;
	s->show_addrs = pki_option_flag(opts, &o[ADDRS]) != 0;
	s->no_comm = pki_option_flag(opts, &o[NO_COMM]) != 0;
}

/* Where one frame's name lies in struct folded's names. */
struct name_span {
	size_t off, len;
};

/* A location's frame names: count spans from first - 1; first is 0
 * while it is not yet named. */
struct location_names {
	uint32_t first, count;
};

/*
 * One folded line per stack and label set, the line's text in lines at
 * off. entry_of[stack] is the first entry of a stack (index + 1, or 0),
 * next the following one of that stack (other labels).
 */
struct fold_entry {
	size_t off, len;
	int64_t sum;
	uint32_t labels, next;
};

/* A line of the result: its text, and its samples' values summed. */
struct folded_line {
	const char *s;
	size_t len;
	int64_t sum;
};

/* Values summed as the profile sums them: wrapping, never undefined. */
static int64_t add_values(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

struct folded {
	const struct pk_profile *p;
	struct pki_fold_settings opts;
	int verbatim;		/* PKI_META_VERBATIM_NAMES: names stay as read */
	int column;
	struct pki_thread_keys thread_keys;
	struct pk_strbuf name;	/* the frame being named */
	/* frame names, each named once per location however many stacks
	 * hold it: per Java naming ([1]: samples of a bare "java") */
	struct pk_strbuf names;
	struct name_span *spans;
	size_t nspans, spans_cap;
	struct location_names *located[2];
	/* the last sample's label set and its root frame: a thread's
	 * samples mostly come together */
	uint32_t root_labels;
	int have_root, root_java;
	struct pk_strbuf root;
	struct pk_strbuf lines;	/* the text of every entry's line */
	struct fold_entry *entries;
	size_t nentries, entries_cap;
	uint32_t *entry_of;
	size_t from, to;		/* the samples folded here */
	struct folded_line *sorted;	/* their lines, alike ones summed */
	size_t nsorted;
	int rc;
};

/* Go method names such as "net/http.(*Client).Do" keep their parens. */
static int looks_like_go_method(const char *s, size_t len)
{
	const char *open = NULL;
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (!open && s[i] == '.' && s[i + 1] == '(')
			open = s + i;
		else if (open && s[i] == ')' && s[i + 1] == '.')
			return 1;
	}
	return 0;
}

/* Skip the symbol after "operator" so "operator<<" or "operator()" do
 * not count as brackets. Returns the index after it. */
static size_t skip_operator(const char *s, size_t len, size_t i)
{
	i += strlen("operator");
	while (i < len && s[i] == ' ')
		i++;
	if (i + 1 < len && ((s[i] == '(' && s[i + 1] == ')') ||
			    (s[i] == '[' && s[i + 1] == ']')))
		return i + 2;
	while (i < len && strchr("<>=!-+*/%^&|~,", s[i]))
		i++;
	return i;
}

/*
 * Where the parameter list starts: the first '(' outside template
 * arguments and lambda braces that is not "(anonymous namespace)".
 * stackcollapse-perf.pl cuts at the first '(' anywhere, which breaks
 * "std::function<void (int)>" and lambdas.
 */
static size_t params_start(const char *s, size_t len)
{
	int depth = 0;
	size_t i = 0;

	while (i < len) {
		char c = s[i];

		if (c == 'o' && pki_starts_with_n(s + i, len - i, "operator") &&
		    (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ')) {
			i = skip_operator(s, len, i);
			continue;
		}
		if (c == '<' || c == '{')
			depth++;
		else if ((c == '>' && (i == 0 || s[i - 1] != '-')) || c == '}')
			depth -= depth > 0;
		else if (c == '(' && depth == 0) {
			static const char anon[] = "(anonymous namespace)";

			if (!pki_starts_with_n(s + i, len - i, anon))
				return i;
			i += sizeof(anon) - 1;
			continue;
		}
		i++;
	}
	return len;
}

static int mod_is_kernel(const char *mod)
{
	size_t n = strlen(mod);

	return (mod[0] == '[' || (n >= 7 && strcmp(mod + n - 7, "vmlinux") == 0)) &&
	       !strstr(mod, "unknown");
}

static int mod_is_jit(const char *mod)
{
	const char *s = strstr(mod, "/tmp/perf-");

	if (!s)
		return 0;
	s += strlen("/tmp/perf-");
	if (*s < '0' || *s > '9')
		return 0;
	while (*s >= '0' && *s <= '9')
		s++;
	return strncmp(s, ".map", 4) == 0;
}

/* Whether the name so far holds mark: the buffer's bytes past its
 * length are an earlier name's. */
static int has_mark(const struct pk_strbuf *b, const char *mark)
{
	size_t n = strlen(mark), i;

	for (i = 0; i + n <= b->len; i++)
		if (memcmp(b->s + i, mark, n) == 0)
			return 1;
	return 0;
}

/* A function's name as stackcollapse-perf.pl tidies it: no parameter
 * list, no quotes, a Java class without its type letter. */
static void tidy_name(struct pk_strbuf *b, int java)
{
	size_t i, cut;

	/* a name that is all parameter list is none: V8's "(program)",
	 * "(anonymous)" stay whole */
	if (!looks_like_go_method(b->s, b->len)) {
		cut = params_start(b->s, b->len);
		if (cut > 0)
			b->len = cut;
	}
	for (i = cut = 0; i < b->len; i++)
		if (b->s[i] != '"' && b->s[i] != '\'')
			b->s[cut++] = b->s[i];
	b->len = cut;
	if (java && b->s[0] == 'L' && memchr(b->s, '/', b->len)) {
		memmove(b->s, b->s + 1, --b->len);
	}
}

/* One frame's name as stackcollapse-perf.pl prints it, into f->name. */
static int frame_name(struct folded *f, const char *fn, const char *mod,
		      uint64_t addr, int outermost, int java)
{
	const struct pki_unknown_name unknown = {
		.style = PKI_UNKNOWN_STACKCOLLAPSE, .address = f->opts.show_addrs,
	};
	struct pk_strbuf *b = &f->name;
	char *semi;

	b->len = 0;
	if (pki_is_unknown_function(fn) ? pki_unknown_name(b, mod, addr, &unknown) :
	    pki_strbuf_adds(b, fn))
		return -1;
	for (semi = memchr(b->s, ';', b->len); semi;
	     semi = memchr(semi + 1, ';', b->len - (size_t)(semi + 1 - b->s)))
		*semi = ':';
	if (!f->verbatim)
		tidy_name(b, java);
	/* a JIT map's "A->B->C" was read as A with B and C inlined; only
	 * such frames are marked, not perf's "(inlined)" ones */
	if (!outermost && mod_is_jit(mod) && !has_mark(b, "_[i]"))
		return pki_strbuf_adds(b, "_[i]");
	if (outermost && f->opts.annotate_kernel && mod_is_kernel(mod))
		return pki_strbuf_adds(b, "_[k]");
	if (outermost && f->opts.annotate_jit && mod_is_jit(mod) &&
	    !has_mark(b, "_[j]"))
		return pki_strbuf_adds(b, "_[j]");
	return 0;
}

/* The root frame of a label set: its thread, as stackcollapse-perf.pl
 * names it, into f->root; and whether its names are Java's. */
static int name_root(struct folded *f, uint32_t labels)
{
	const struct pki_thread_name how = {
		.style = pki_stackcollapse_style(f->opts.include_pid,
						 f->opts.include_tid),
		.trim = !f->verbatim, .underscores = !f->verbatim,
	};
	const struct pk_label *comm = pk_profile_label_find(f->p, labels, f->thread_keys.comm);
	struct pki_thread t;

	/* The perl script condenses Java names only for a bare "java". */
	f->root_java = comm && !f->opts.include_pid && !f->opts.include_tid &&
		       strcmp(pk_profile_string(f->p, comm->str), "java") == 0;
	f->root.len = 0;
	f->root_labels = labels;
	f->have_root = 1;
	if (f->opts.no_comm)
		return 0;
	pki_thread_of(f->p, &f->thread_keys, labels, &t);
	return pki_thread_name(&f->root, f->p, &t, &how);
}

/* Add the frame just named (f->name) to the names of a location. */
static int keep_name(struct folded *f, struct location_names *ln)
{
	struct name_span *span;

	if (pki_grow(&f->spans, &f->spans_cap, f->nspans + 1, sizeof(*f->spans)) < 0 ||
	    pki_strbuf_add(&f->names, f->name.s, f->name.len))
		return -1;
	span = &f->spans[f->nspans++];
	span->off = f->names.len - f->name.len;
	span->len = f->name.len;
	ln->count++;
	return 0;
}

/* Name the frames of location id, root first, once per Java naming. */
static const struct location_names *location_names(struct folded *f, uint32_t id,
						    int java)
{
	struct location_names *ln;
	const struct pk_location *loc;
	const struct pk_mapping *m;
	const struct pk_line *lines;
	const char *mod;
	size_t j;

	if (!f->located[java]) {
		f->located[java] = calloc(pk_profile_location_count(f->p) + 1,
					  sizeof(*f->located[java]));
		if (!f->located[java])
			return NULL;
	}
	ln = &f->located[java][id];
	if (ln->first)
		return ln;
	ln->first = (uint32_t)f->nspans + 1;
	loc = pk_profile_location(f->p, id);
	m = pk_profile_mapping(f->p, loc->mapping);
	lines = pk_profile_location_lines(f->p, loc);
	mod = m ? pk_profile_string(f->p, m->file) : "";
	for (j = loc->nlines; j-- > 0;) {
		const struct pk_function *fn = pk_profile_function(f->p, lines[j].function);
		const char *name = fn ? pk_profile_string(f->p, fn->name) : "";

		/* as the perl script skips perf's "(...)": not a frame;
		 * frames without an address (V8's "(program)") are */
		if (name[0] == '(' && loc->address)
			continue;
		if (frame_name(f, name, mod, loc->address, j == loc->nlines - 1, java) ||
		    keep_name(f, ln))
			return NULL;
	}
	if (!loc->nlines && (frame_name(f, "", mod, loc->address, 1, java) ||
			     keep_name(f, ln)))
		return NULL;
	return ln;
}

/* Append the folded line of one sample to f->lines. */
static int render_sample(struct folded *f, const struct pk_sample *s)
{
	struct pk_strbuf *line = &f->lines;
	size_t start = line->len, depth, i, k;
	const uint32_t *stack;

	if ((!f->have_root || f->root_labels != s->labels) && name_root(f, s->labels))
		return -1;
	if (f->root.len && pki_strbuf_add(line, f->root.s, f->root.len))
		return -1;
	stack = pk_profile_stack(f->p, s->stack, &depth);
	for (i = depth; i-- > 0;) {
		const struct location_names *ln = location_names(f, stack[i], f->root_java);

		if (!ln)
			return -1;
		for (k = 0; k < ln->count; k++) {
			const struct name_span *span = &f->spans[ln->first - 1 + k];

			if ((line->len > start && pki_strbuf_add(line, ";", 1)) ||
			    pki_strbuf_add(line, f->names.s + span->off, span->len))
				return -1;
		}
	}
	return 0;
}

/* ---- choosing the value column ---- */

static int event_matches(const char *event, const char *want)
{
	size_t n = strlen(event);

	/* "cpu-clock" also answers to "cpu-clock:pppH" */
	return strcmp(event, want) == 0 ||
	       (strncmp(event, want, n) == 0 && want[n] == ':' &&
		!strchr(want + n + 1, ':'));
}

void pki_warn_one_event(struct pk_context *ctx, const struct pk_profile *p,
			pk_str event, size_t n)
{
	pk_warn(ctx, "showing event '%s' only, the first of %zu (choose with "
		"--event)", pk_profile_string(p, event), n);
}

/* The input's events, or its sample types, as "a, b, c" into buf. */
static void join_names(const struct pk_profile *p, int sample_types,
		       char *buf, size_t size)
{
	size_t n = sample_types ? pk_profile_sample_type_count(p) :
		   pk_profile_event_count(p), len = 0, i;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++) {
		pk_str name = sample_types ? pk_profile_sample_type(p, i)->type :
			      pk_profile_event(p, i);
		int k = snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				 pk_profile_string(p, name));

		len += k > 0 ? (size_t)k : 0;
	}
	if (len >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

/* A usage error: --event or --sample-type names nothing in the input;
 * what it may name is listed. */
static int not_in_input(struct pk_context *ctx, const struct pk_profile *p,
			int sample_types, const char *want)
{
	const char *what = sample_types ? "sample type" : "event";
	char names[400];

	join_names(p, sample_types, names, sizeof(names));
	if (*names)
		return pk_error_set(ctx, PK_EUSAGE, "no %s '%s' in the input; "
				    "its %ss: %s", what, want, what, names);
	join_names(p, 1, names, sizeof(names));
	return pk_error_set(ctx, PK_EUSAGE, "no %s '%s' in the input: it "
			    "names no %ss; its sample types (--sample-type): %s",
			    what, want, what, names);
}

int pk_value_column(struct pk_context *ctx, const struct pk_profile *p,
		    const struct pk_options *opts)
{
	size_t nevents = pk_profile_event_count(p), i;
	pk_str event = 0;
	int count, weight;

	if (!opts)
		opts = &pki_default_options;
	if (!pk_profile_sample_type_count(p))
		return -1;
	if (opts->sample_type) {
		for (i = 0; i < pk_profile_sample_type_count(p); i++)
			if (strcmp(pk_profile_string(p, pk_profile_sample_type(p, i)->type),
				   opts->sample_type) == 0)
				return (int)i;
		return not_in_input(ctx, p, 1, opts->sample_type);
	}
	if (opts->event) {
		for (i = 0; i < nevents && !event; i++)
			if (event_matches(pk_profile_string(p, pk_profile_event(p, i)), opts->event))
				event = pk_profile_event(p, i);
		if (!event && (strcmp(opts->event, PKI_EVENT_OFF_CPU) == 0 ||
			       strcmp(opts->event, PKI_EVENT_WALL) == 0))
			return pk_error_set(ctx, PK_EUSAGE, "no event '%s' in "
					    "the input: off-CPU and wall-clock "
					    "time come from perf.data recorded "
					    "with: " PKI_WALL_RECIPE,
					    opts->event);
		if (!event)
			return not_in_input(ctx, p, 0, opts->event);
	} else if (nevents) {
		event = pk_profile_event(p, 0);
		if (nevents > 1)
			pki_warn_one_event(ctx, p, event, nevents);
	}
	if (!nevents) {
		/* Formats without events: the last type is the main one. */
		return opts->value == PK_VALUE_SAMPLES ? 0 :
			(int)pk_profile_sample_type_count(p) - 1;
	}
	count = pk_profile_find_column(p, event, PK_VALUE_COUNT);
	weight = pk_profile_find_column(p, event, PK_VALUE_WEIGHT);
	if (opts->value == PK_VALUE_SAMPLES)
		return count;
	if (opts->value == PK_VALUE_PERIOD && weight < 0)
		return pk_error_set(ctx, PK_EUSAGE,
				    "event '%s' has no period in the input",
				    pk_profile_string(p, event));
	return weight >= 0 ? weight : count;
}

/* ---- summing ---- */

/* The entry of a sample's stack and label set, its line rendered when
 * they first come. NULL when out of memory. */
static struct fold_entry *entry_of(struct folded *f, const struct pk_sample *s)
{
	uint32_t *link = &f->entry_of[s->stack];
	struct fold_entry *e;

	/* room first: link may point into the entries */
	if (pki_grow(&f->entries, &f->entries_cap, f->nentries + 1,
		     sizeof(*f->entries)) < 0)
		return NULL;
	for (; *link; link = &f->entries[*link - 1].next)
		if (f->entries[*link - 1].labels == s->labels)
			return &f->entries[*link - 1];
	e = &f->entries[f->nentries++];
	*link = (uint32_t)f->nentries;
	e->labels = s->labels;
	e->next = 0;
	e->sum = 0;
	e->off = f->lines.len;
	if (render_sample(f, s) < 0)
		return NULL;
	e->len = f->lines.len - e->off;
	return e;
}

static int fold_samples(struct folded *f)
{
	size_t i;

	f->entry_of = calloc(pk_profile_stack_count(f->p) + 1, sizeof(*f->entry_of));
	if (!f->entry_of)
		return PK_ENOMEM;
	for (i = f->from; i < f->to; i++) {
		const int64_t value = pk_profile_sample_values(f->p, i)[f->column];
		struct fold_entry *e;

		if (!value)
			continue;
		e = entry_of(f, pk_profile_sample(f->p, i));
		if (!e)
			return PK_ENOMEM;
		e->sum = add_values(e->sum, value);
	}
	return 0;
}

/* A count, or a fixed-point one from fractional folded input: 2.5 */
int pk_output_count(struct pk_output *out, int64_t value, int64_t scale)
{
	char buf[1 + PK_VALUE_FORMAT_SIZE] = " ";
	int len = pk_value_format(buf + 1, sizeof(buf) - 1, value, scale < 1 ? 1 : scale);

	if (len < 0)
		return PK_EUSAGE;
	return pk_output_write(out, buf, 1 + (size_t)len);
}

struct pk_folded {
	char *text[2];			/* the lines' bytes, a share each */
	struct folded_line *lines;	/* sorted */
	size_t nlines;
	int64_t scale;
};

/* Byte depth of line l, or -1 past its end: a line sorts before the
 * lines it begins. */
static int byte_at(const struct folded_line *l, size_t depth)
{
	return depth < l->len ? (unsigned char)l->s[depth] : -1;
}

static void swap_lines(struct folded_line *a, size_t i, size_t j)
{
	struct folded_line t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/* Lines equal in their first depth bytes, few of them, by insertion. */
static void insertion_sort(struct folded_line *a, size_t n, size_t depth)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct folded_line l = a[i];

		for (j = i; j > 0; j--) {
			const struct folded_line *p = &a[j - 1];
			size_t len = (p->len < l.len ? p->len : l.len) - depth;
			int c = memcmp(p->s + depth, l.s + depth, len);

			if (c < 0 || (c == 0 && p->len <= l.len))
				break;
			a[j] = a[j - 1];
		}
		a[j] = l;
	}
}

/* How many bytes past depth all n lines share, each of depth bytes at
 * least. Eight at a time: the deep stacks of one root share thousands. */
static size_t shared_bytes(const struct folded_line *a, size_t n, size_t depth)
{
	size_t shared = a[0].len - depth, i;

	for (i = 1; i < n && shared; i++) {
		size_t most = a[i].len - depth < shared ? a[i].len - depth : shared;

		shared = pki_shared_prefix(a[0].s + depth, a[i].s + depth, most);
	}
	return shared;
}

/*
 * Sort lines equal in their first depth bytes, bytewise: Bentley and
 * Sedgewick's multikey quicksort, which reads each line's shared start
 * once per level rather than once per comparison (folded lines share
 * long roots), and skips at once what all the lines of a part share.
 * The two smaller of the three parts are sorted by recursion, so it
 * goes no deeper than log2(n); the largest by the loop.
 */
static void sort_from(struct folded_line *a, size_t n, size_t depth)
{
	while (n > 16) {
		int pivot = byte_at(&a[n / 2], depth);
		size_t lt = 0, gt = n, i = 0;
		size_t part[3][2];	/* start and length of < = > */
		int big, k;

		/* a[0, lt) < pivot, a[lt, i) = pivot, a[gt, n) > pivot */
		while (i < gt) {
			int c = byte_at(&a[i], depth);

			if (c < pivot)
				swap_lines(a, lt++, i++);
			else if (c > pivot)
				swap_lines(a, i, --gt);
			else
				i++;
		}
		if (lt == 0 && gt == n) {
			if (pivot < 0)
				return;	/* all ended here: all equal */
			depth += 1 + shared_bytes(a, n, depth + 1);
			continue;
		}
		part[0][0] = 0, part[0][1] = lt;
		part[1][0] = lt, part[1][1] = gt - lt;
		part[2][0] = gt, part[2][1] = n - gt;
		big = part[1][1] >= part[0][1] && part[1][1] >= part[2][1] ? 1 :
		      part[0][1] >= part[2][1] ? 0 : 2;
		for (k = 0; k < 3; k++)
			/* the lines that end here are all equal */
			if (k != big && !(k == 1 && pivot < 0))
				sort_from(a + part[k][0], part[k][1], depth + (k == 1));
		if (big == 1 && pivot < 0)
			return;
		a += part[big][0];
		n = part[big][1];
		depth += big == 1;
	}
	insertion_sort(a, n, depth);
}

/* Whether two lines have the same bytes. */
static int same_line(const struct folded_line *x, const struct folded_line *y)
{
	return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

/* The lines of f's entries sorted bytewise, as perl's sort with cmp,
 * into f->sorted; equal lines (of different stacks or threads, named
 * alike) summed into one. */
static int sort_lines(struct folded *f)
{
	struct folded_line *lines;
	size_t n = 0, i;

	lines = malloc((f->nentries + 1) * sizeof(*lines));
	if (!lines)
		return PK_ENOMEM;
	for (i = 0; i < f->nentries; i++) {
		const struct fold_entry *e = &f->entries[i];

		if (!e->len)
			continue;	/* no comm and no frames */
		lines[n].s = f->lines.s + e->off;
		lines[n].len = e->len;
		lines[n++].sum = e->sum;
	}
	sort_from(lines, n, 0);
	f->sorted = lines;
	for (i = 0; i < n; i++) {
		if (f->nsorted && same_line(&lines[f->nsorted - 1], &lines[i]))
			lines[f->nsorted - 1].sum = add_values(lines[f->nsorted - 1].sum,
							       lines[i].sum);
		else
			lines[f->nsorted++] = lines[i];
	}
	return 0;
}

/* Fold and sort a share of the samples: a thread's work. */
static void *fold_share(void *arg)
{
	struct folded *f = arg;

	f->rc = f->column < 0 ? 0 : fold_samples(f);
	if (!f->rc)
		f->rc = sort_lines(f);
	return NULL;
}

static int compare_lines(const struct folded_line *x, const struct folded_line *y)
{
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Two shares' sorted lines merged into out, equal ones summed; their
 * number. */
static size_t merge_shares(const struct folded *a, const struct folded *b,
			   struct folded_line *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->nsorted || j < b->nsorted) {
		int c = i == a->nsorted ? 1 : j == b->nsorted ? -1 :
			compare_lines(&a->sorted[i], &b->sorted[j]);

		out[n] = c <= 0 ? a->sorted[i++] : b->sorted[j++];
		if (!c)
			out[n].sum = add_values(out[n].sum, b->sorted[j++].sum);
		n++;
	}
	return n;
}

/* The shares' lines as out's, those that sum to 0 left out. */
static int gather_lines(struct folded *share, size_t nshares, struct pk_folded *out)
{
	size_t n, i;

	if (nshares == 1) {
		out->lines = share[0].sorted;
		share[0].sorted = NULL;
		n = share[0].nsorted;
	} else {
		out->lines = malloc((share[0].nsorted + share[1].nsorted + 1) *
				    sizeof(*out->lines));
		if (!out->lines)
			return PK_ENOMEM;
		n = merge_shares(&share[0], &share[1], out->lines);
	}
	for (i = 0; i < n; i++)
		if (out->lines[i].sum)
			out->lines[out->nlines++] = out->lines[i];
	return 0;
}

/* Free what folding used on the way; the lines' text stays. */
static void folded_release(struct folded *f)
{
	free(f->name.s);
	free(f->names.s);
	free(f->spans);
	free(f->located[0]);
	free(f->located[1]);
	free(f->root.s);
	free(f->entries);
	free(f->entry_of);
	free(f->sorted);
}

int pk_folded_build(struct pk_context *ctx, const struct pk_profile *p,
		    const struct pk_options *opts, struct pk_folded **out)
{
	size_t n = pk_profile_sample_count(p), nshares = 1, k;
	struct folded share[2];
	struct pk_folded *res;
	pthread_t thread;
	int started = 0, rc;

	memset(share, 0, sizeof(share));
	share[0].p = p;
	pki_fold_settings(opts, &share[0].opts);
	share[0].verbatim = pk_profile_meta(p, PKI_META_VERBATIM_NAMES) != NULL;
	share[0].column = pk_value_column(ctx, p, opts);
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	res = calloc(1, sizeof(*res));
	if (!res)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	res->scale = share[0].column < 0 ? 1 :
		pk_profile_sample_type_scale(p, (size_t)share[0].column);
	pki_thread_keys(p, &share[0].thread_keys);
	share[0].to = n;
	/* each half the samples, then their sorted lines merged */
	if (pki_two_threads(opts, n, 2048)) {
		nshares = 2;
		share[1] = share[0];
		share[0].to = share[1].from = n / 2;
		started = pthread_create(&thread, NULL, fold_share, &share[1]) == 0;
	}
	fold_share(&share[0]);
	if (started)
		pthread_join(thread, NULL);
	else if (nshares == 2)
		fold_share(&share[1]);
	rc = share[0].rc ? share[0].rc : share[1].rc;
	if (!rc)
		rc = gather_lines(share, nshares, res);
	for (k = 0; k < nshares; k++) {
		res->text[k] = share[k].lines.s;
		folded_release(&share[k]);
	}
	if (rc) {
		pk_folded_free(res);
		return pk_error_set(ctx, rc, "out of memory");
	}
	*out = res;
	return 0;
}

void pk_folded_free(struct pk_folded *f)
{
	if (!f)
		return;
	free(f->text[0]);
	free(f->text[1]);
	free(f->lines);
	free(f);
}

size_t pk_folded_count(const struct pk_folded *f)
{
	return f->nlines;
}

const char *pk_folded_stack(const struct pk_folded *f, size_t i, size_t *len)
{
	*len = f->lines[i].len;
	return f->lines[i].s;
}

int64_t pk_folded_value(const struct pk_folded *f, size_t i)
{
	return f->lines[i].sum;
}

int64_t pk_folded_scale(const struct pk_folded *f)
{
	return f->scale;
}

