/* SPDX-License-Identifier: MIT */
/*
 * Reader for `perf script` text: a header line per sample
 *
 *     comm  pid/tid [cpu] secs.usecs: period event: [trace fields]
 *
 * (every field optional, comm may hold spaces; a tracepoint's fields
 * become labels, trace-fields.c), then callchain lines
 *
 *     addr symbol+0xoff (dso)
 *       file.c:123                      (with -F +srcline: skipped)
 *
 * leaf first (symbol, offset and dso each optional), and a blank line;
 * without callchains the frame ends the header line and no blank line
 * follows. With no header field at all the header line is empty. Where
 * tokens are ambiguous (a comm ending in digits, a period without an
 * event, a hex-looking comm), perf's fixed field widths decide: a tid is
 * "%5d", a period "%10lu", an address "%16lx" after one blank.
 * Frame lines repeat endlessly in a large input, so each distinct frame
 * text is parsed only once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-script.h"
#include "symbolize/demangle.h"
#include "transforms/copy.h"
#include "formats/registry.h"
#include "util/hash.h"
#include "util/idtab.h"
#include "core/internal.h"
#include "core/parts.h"
#include "core/trace-fields.h"

#define MAX_TOKENS 64
#define MAX_WARNINGS 5
/* Memory for the callchains remembered whole (they cost their text). */
#define MAX_CHAIN_BYTES (64u << 20)
/* Chains guessed from their first bytes (a power of two), and how many
 * bytes: a tab and perf's 16 columns of the leaf's address, and more. */
#define CHAIN_GUESSES 1024
#define CHAIN_GUESS_KEY 32	/* guess_slot reads four words */

struct event_columns {
	int count, weight;	/* columns in the profile, -1 for none */
};

struct frame_entry {
	pk_str text;
	uint32_t loc;
};

struct chain_entry {
	pk_str text;
	uint32_t stack;
	size_t lines;
};

struct ps_record {
	int active;
	int single_line;	/* the frame was on the header line */
	int weak;		/* a header only frames can confirm ("comm") */
	uint64_t lineno;	/* of the header line */
	char text[64];		/* the weak header, for a warning */
	pk_str comm;		/* 0 when not printed */
	int64_t pid, tid, cpu;	/* -1 when not printed */
	uint64_t time;
	int64_t period;		/* -1 when not printed */
	pk_str event;
	size_t ntrace;		/* labels of tracepoint fields */
	const char *time_at;	/* the time in the header line, or NULL */
	uint32_t stack;		/* from a callchain seen whole before, or 0 */
	const char *chain;	/* the callchain's text, to remember */
	size_t chain_len, chain_lines;
	uint64_t chain_hash;	/* of its text */
	size_t chain_guess;	/* its slot in chain_guess */
};

/* A line that is not perf script, kept to be reported in input order. */
struct bad_note {
	uint64_t lineno;
	char text[64];
};

struct ps_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct ps_record rec;

	uint32_t *frames;	/* location ids, leaf first */
	size_t nframes, frames_cap;
	uint32_t pending[32];	/* "(inlined)" frames not yet merged */
	size_t npending;
	pk_str str_inlined;
	enum pk_demangle demangle;	/* for the Rust names perf left */

	/*
	 * frame text -> location, so a repeated line costs one lookup keyed
	 * by its address (cheap to hash) and one memcmp
	 */
	struct pk_profile *frame_text;
	struct frame_entry *frame_cache;
	size_t nframe_cache, frame_cache_cap;
	struct pk_idtab frame_tab;
	uint32_t last_labels;	/* records of one thread repeat their labels */
	struct pk_label last_label_set[4];
	size_t last_nlabels;
	/* a tracepoint sample's labels: its own 4 slots, then its fields */
	struct pk_label *labels;
	size_t labels_cap;

	int64_t *values;
	size_t values_cap;

	/*
	 * Whole callchains (the text from the header to the blank line) ->
	 * stack: a text read from memory repeats them, and a known one costs
	 * a hash, not a parse of each line. chain_frames counts the frames
	 * of the record's chain, which must all be frames to be remembered.
	 */
	struct pk_profile *chains;
	struct chain_entry *chain_cache;
	size_t nchain_cache, chain_cache_cap, chain_frames;
	struct pk_idtab chain_tab;
	char *chain_buf;	/* a stream's chain, till it is remembered */
	size_t chain_buf_cap;
	/*
	 * The chain last met of those whose text starts with the same
	 * CHAIN_GUESS_KEY bytes (mostly the same leaf), by a hash of them: a
	 * record's chain is mostly the last one of its leaf, and one compare
	 * of the guess then finds it, its lines not scanned for its end nor
	 * hashed whole. An index in chain_cache + 1, 0 for none.
	 */
	uint32_t chain_guess[CHAIN_GUESSES];
	pk_str last_comm, last_event;	/* headers of a thread repeat them */
	/*
	 * The last header line with a time (and no frame), and its record as
	 * parsed: the next header of the thread is likely the same line but
	 * for the time, which is then all there is to parse.
	 */
	char memo_line[256];
	size_t memo_len, memo_time, memo_time_len, memo_dot;
	struct ps_record memo_rec;

	/* the columns of the last record's event, with or without period */
	pk_str col_event;
	int col_period, col_valid;
	struct event_columns cols;

	pk_str key_pid, key_tid, key_comm, key_cpu;
	uint64_t records, bad_lines, lines;
	uint64_t lineno;	/* lines read */
	uint64_t cut_line;	/* the last line, cut off mid-line, or 0 */
	struct bad_note notes[MAX_WARNINGS];
	int after_blank;	/* a header may be a lone comm here */
	int last_frame;		/* the line before ended in a frame */
};

struct token {
	const char *s;
	size_t len;
	size_t spaces;		/* blanks before it */
};

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int all_digits(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int64_t parse_decimal(const char *s, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return INT64_MAX;	/* saturate, never overflow */
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static size_t tokenize(const char *s, size_t len, struct token *tok, size_t max)
{
	size_t n = 0, i = 0;

	while (n < max) {
		size_t start = i;

		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			break;
		tok[n].spaces = i - start;
		tok[n].s = s + i;
		while (i < len && !is_space(s[i]))
			i++;
		tok[n].len = (size_t)(s + i - tok[n].s);
		n++;
	}
	return n;
}

/* "1234" or "1234/5678" */
static int is_pid_token(const struct token *t)
{
	const char *slash = memchr(t->s, '/', t->len);

	if (!slash)
		return all_digits(t->s, t->len);
	return all_digits(t->s, (size_t)(slash - t->s)) &&
	       all_digits(slash + 1, t->len - (size_t)(slash - t->s) - 1);
}

static int is_cpu_token(const struct token *t)
{
	return t->len >= 3 && t->s[0] == '[' && t->s[t->len - 1] == ']' &&
	       all_digits(t->s + 1, t->len - 2);
}

/* "2542.567890:" */
static int is_time_token(const struct token *t)
{
	const char *dot = memchr(t->s, '.', t->len);

	return dot && t->len >= 4 && t->s[t->len - 1] == ':' &&
	       all_digits(t->s, (size_t)(dot - t->s)) &&
	       all_digits(dot + 1, t->len - (size_t)(dot - t->s) - 2);
}

static int ends_with_colon(const struct token *t)
{
	return t->len >= 2 && t->s[t->len - 1] == ':';
}

static uint64_t parse_time(const struct token *t)
{
	const char *dot = memchr(t->s, '.', t->len);
	size_t ndigits = t->len - (size_t)(dot - t->s) - 2, i;
	uint64_t secs = (uint64_t)parse_decimal(t->s, (size_t)(dot - t->s));
	uint64_t frac = 0, scale = 1000000000;

	for (i = 0; i < ndigits && i < 9; i++) {
		frac = frac * 10 + (uint64_t)(dot[1 + i] - '0');
		scale /= 10;
	}
	if (secs > UINT64_MAX / 1000000000)
		return UINT64_MAX;
	return secs * 1000000000 + frac * scale;
}

/*
 * The event token without its trailing ':' and without perf's modifier
 * suffix (":ppp", ":u", ":pppH"), which is not part of the event's name:
 * "cpu-clock:pppH:" -> "cpu-clock", "sched:sched_switch:" stays.
 */
static size_t event_name_len(const char *s, size_t len)
{
	const char *colon;
	size_t i;

	len--;			/* the final ':' */
	colon = len ? memrchr(s, ':', len) : NULL;
	if (!colon || colon == s)
		return len;
	for (i = (size_t)(colon - s) + 1; i < len; i++)
		if (!strchr("ukhHGpPSDIWe", s[i]))
			return len;
	return (size_t)(colon - s);
}

/* Intern s, or take *last when it is s: the next header likely has it. */
static pk_str intern_again(struct ps_reader *r, pk_str *last, const char *s,
			   size_t len)
{
	if (*last && pk_profile_string_len(r->p, *last) == len &&
	    memcmp(pk_profile_string(r->p, *last), s, len) == 0)
		return *last;
	return *last = pk_profile_intern(r->p, s, len);
}

static int set_event(struct ps_reader *r, const struct token *t)
{
	r->rec.event = intern_again(r, &r->last_event, t->s,
				    event_name_len(t->s, t->len));
	return 0;
}

static int in_set(char c, const char *set)
{
	return c && strchr(set, c) != NULL;
}

static int is_hex_token(const struct token *t)
{
	size_t i;

	if (!t->len || t->len > 16)
		return 0;
	for (i = 0; i < t->len; i++)
		if (pki_hexval(t->s[i]) < 0)
			return 0;
	return 1;
}

/* perf prints a sample's address as " %16lx": right-aligned after a blank */
static int is_address_at(const struct token *t)
{
	return is_hex_token(t) && t->spaces + t->len >= 17;
}

/* The blanks before a field as perf lays it out: one ends the field
 * before it, which the first field has not. */
static size_t pad_of(const struct token *tok, const struct token *t)
{
	return t == tok ? t->spaces + 1 : t->spaces;
}

/* "%10lu ": a period, told from a tid or an address by its padding */
static int is_period_at(const struct token *tok, const struct token *t)
{
	return all_digits(t->s, t->len) && t->len < 20 &&
	       pad_of(tok, t) == (t->len < 10 ? 11 - t->len : 1);
}

/* "%5d ": a lone number that is a tid, not the end of a comm ("worker 0") */
static int is_tid_at(const struct token *tok, const struct token *t)
{
	if (!is_pid_token(t))
		return 0;
	return memchr(t->s, '/', t->len) != NULL || pad_of(tok, t) + t->len >= 6;
}

/* "cpu-clock:", "sched:sched_switch:"; never a number ("20000000:") */
static int is_event_token(const struct token *t)
{
	return ends_with_colon(t) && !is_time_token(t) &&
	       !all_digits(t->s, t->len - 1);
}

/*
 * A branch stack entry (-F brstack, brstacksym, brstackoff):
 * "0x4005b0/0x400590/P/-/-/0", "main+0x10/hot+0x0/P/-/-/0", dsos in
 * parentheses or not; its flags "/P/-/-/N" (predicted or mispredicted,
 * in a transaction, aborted, cycles) follow the target in every perf.
 */
static int is_brstack_token(const struct token *t)
{
	size_t i;

	for (i = 0; i + 8 <= t->len; i++)
		if (t->s[i] == '/' && in_set(t->s[i + 1], "PM-") && t->s[i + 2] == '/' &&
		    in_set(t->s[i + 3], "X-") && t->s[i + 4] == '/' &&
		    in_set(t->s[i + 5], "A-") && t->s[i + 6] == '/' &&
		    t->s[i + 7] >= '0' && t->s[i + 7] <= '9')
			return 1;
	return 0;
}

/* The fields of a header line: which tokens are the comm, where the
 * fields after it start, where a frame on the line starts. */
struct header {
	size_t comm_end;	/* the comm is tok[0 .. comm_end) */
	size_t fields;		/* the first field after the comm */
	size_t frame;		/* the token a frame starts at, or n */
	int pid;		/* tok[fields] is the pid or tid */
	int strong;		/* a pid with more after it, a cpu or a time */
};

/*
 * A pid ("N" or "N/M") followed by what perf prints after a pid: [cpu], a
 * time, the event, or a period and the event.
 */
static int pid_follows(const struct token *tok, size_t n, size_t k)
{
	const struct token *t = &tok[k + 1];

	if (k + 1 >= n || !is_pid_token(&tok[k]))
		return 0;
	if (is_cpu_token(t) || is_time_token(t) || is_event_token(t))
		return 1;
	return k + 2 < n && is_period_at(tok, t) && is_event_token(&tok[k + 2]);
}

/*
 * Find the fields of a header line. The pid is the first number followed
 * by what perf prints after a pid; everything before it is the comm,
 * spaces and trailing digits included ("work er 0  5958 [000]"). Without
 * a pid the fields start at a cpu or a time ("strong": no other line
 * holds one), else at an event, else at a tid or a period ending the
 * comm; a frame may follow them on the line (no callchain). Only frames
 * after it confirm a header that is not strong.
 */
static void find_fields(const struct token *tok, size_t n, struct header *h)
{
	size_t k, f;

	memset(h, 0, sizeof(*h));
	h->frame = n;
	for (k = 0; k + 1 < n; k++)
		if (pid_follows(tok, n, k)) {
			h->comm_end = h->fields = k;
			h->pid = h->strong = 1;
			return;
		}
	for (f = 0; f < n && !is_address_at(&tok[f]); f++)
		;
	for (k = 0; k < f; k++)
		if (is_cpu_token(&tok[k]) || is_time_token(&tok[k])) {
			h->comm_end = h->fields = k;
			h->strong = 1;
			return;
		}
	h->frame = f;
	for (k = 0; k < f; k++)
		if (is_event_token(&tok[k])) {
			h->comm_end = h->fields = k;
			if (k && is_period_at(tok, &tok[k - 1]))
				h->comm_end = h->fields = k - 1;
			return;
		}
	h->comm_end = h->fields = f;
	if (f && is_period_at(tok, &tok[f - 1])) {
		h->comm_end = h->fields = f - 1;
	} else if (f && is_tid_at(tok, &tok[f - 1])) {
		h->comm_end = h->fields = f - 1;
		h->pid = 1;
	}
}

static void start_record(struct ps_reader *r)
{
	memset(&r->rec, 0, sizeof(r->rec));
	r->rec.active = 1;
	r->rec.pid = r->rec.tid = r->rec.cpu = r->rec.period = -1;
	r->rec.lineno = r->lineno;
	r->chain_frames = 0;
}

/*
 * Read the header fields into a new record; returns the index of the
 * first token after them (trace fields or a frame), or n.
 */
static size_t parse_header(struct ps_reader *r, const struct token *tok,
			   size_t n, const struct header *h)
{
	size_t j = h->fields;
	const char *slash;

	start_record(r);
	if (h->comm_end)
		r->rec.comm = intern_again(r, &r->last_comm, tok[0].s,
			(size_t)(tok[h->comm_end - 1].s + tok[h->comm_end - 1].len - tok[0].s));
	if (h->pid) {
		slash = memchr(tok[j].s, '/', tok[j].len);
		if (slash) {
			r->rec.pid = parse_decimal(tok[j].s, (size_t)(slash - tok[j].s));
			r->rec.tid = parse_decimal(slash + 1, tok[j].len - (size_t)(slash - tok[j].s) - 1);
		} else {
			/* perf script prints the tid alone by default */
			r->rec.tid = parse_decimal(tok[j].s, tok[j].len);
		}
		j++;
	}
	if (j < n && is_cpu_token(&tok[j])) {
		r->rec.cpu = parse_decimal(tok[j].s + 1, tok[j].len - 2);
		j++;
	}
	if (j < n && is_time_token(&tok[j])) {
		r->rec.time = parse_time(&tok[j]);
		r->rec.time_at = tok[j].s;
		j++;
	}
	if (j + 1 < n && all_digits(tok[j].s, tok[j].len) &&
	    ends_with_colon(&tok[j + 1])) {
		r->rec.period = parse_decimal(tok[j].s, tok[j].len);
		j++;
	} else if (j < h->frame && is_period_at(tok, &tok[j])) {
		/* -F period without event */
		r->rec.period = parse_decimal(tok[j].s, tok[j].len);
		j++;
	}
	if (j < h->frame && ends_with_colon(&tok[j])) {
		set_event(r, &tok[j]);
		j++;
	}
	return j;
}

/* ---- frames ---- */

/*
 * Split "addr [symbol[+0xoff]] [(dso)]"; the dso is the parenthesized
 * group that ends the line, matched from the end so a dso may hold
 * spaces and parens, and set off by a blank ("operator()(int)" is part
 * of a name). Without need_dso the symbol and the dso are optional
 * (perf script -F ip,sym): dso->s is NULL when there is none.
 */
static int split_frame(const char *s, size_t len, int need_dso, uint64_t *addr,
		       struct token *sym, struct token *dso)
{
	size_t i = 0, end, depth = 0;
	uint64_t a = 0;

	while (i < len && pki_hexval(s[i]) >= 0) {
		a = (a << 4) | (uint64_t)pki_hexval(s[i]);
		i++;
	}
	if (i == 0 || i > 16 || (i < len && !is_space(s[i])) || (need_dso && i == len))
		return -1;
	while (i < len && is_space(s[i]))
		i++;
	end = len;
	while (end > i && is_space(s[end - 1]))
		end--;
	*addr = a;
	sym->s = s + i;
	sym->len = end - i;
	dso->s = NULL;
	dso->len = 0;
	for (size_t j = end; end > i && s[end - 1] == ')' && j-- > i;) {
		if (s[j] == ')') {
			depth++;
		} else if (s[j] == '(' && --depth == 0) {
			size_t sym_end = j;

			if (j != i && !is_space(s[j - 1]))
				break;
			while (sym_end > i && is_space(s[sym_end - 1]))
				sym_end--;
			sym->len = sym_end - i;
			dso->s = s + j + 1;
			dso->len = end - 1 - (j + 1);
			return 0;
		}
	}
	return need_dso ? -1 : 0;
}

/* "main+0x1d" -> "main": perf 4.8+ prints symbol offsets. */
static size_t strip_offset(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && pki_hexval(s[i - 1]) >= 0)
		i--;
	if (i >= 3 && i < len && s[i - 1] == 'x' && s[i - 2] == '0' &&
	    s[i - 3] == '+')
		return i - 3;
	return len;
}

/* The "->" joining a JIT chain at s[i], not C++'s "operator->". */
static int is_chain_arrow(const char *s, size_t len, size_t i)
{
	static const char op[] = "operator";
	size_t n = sizeof(op) - 1;

	return i + 1 < len && s[i] == '-' && s[i + 1] == '>' &&
	       !(i >= n && memcmp(s + i - n, op, n) == 0);
}

/*
 * A function perf printed: by the name it printed, and where that is a
 * Rust name it left mangled or half demangled, shown as perf shows the
 * ones it demangles (sym_demangle_printed).
 */
static uint32_t printed_function(struct ps_reader *r, const char *s, size_t len)
{
	struct pk_function f = { 0 };
	char *d = sym_demangle_printed(r->demangle, s, len);

	f.system_name = pk_profile_intern(r->p, s, len);
	f.name = d ? pk_profile_intern_cstr(r->p, d) : f.system_name;
	free(d);
	return pk_profile_intern_function(r->p, &f);
}

static uint32_t make_location(struct ps_reader *r, uint64_t addr,
			      const struct token *sym, const struct token *dso)
{
	struct pk_line lines[32];
	struct pk_mapping m = { 0 };
	size_t nlines = 0, len = strip_offset(sym->s, sym->len), start = 0, i;

	if (dso->s)
		m.file = pk_profile_intern(r->p, dso->s, dso->len);
	/*
	 * perf-map-agent's unfoldall names JIT code "outer->inner", the
	 * methods inlined there (as stackcollapse-perf.pl reads it); the
	 * model wants lines innermost first.
	 */
	for (i = 0; i <= len; i++) {
		if (i < len && !is_chain_arrow(sym->s, len, i))
			continue;
		if (nlines < PK_ARRAY_SIZE(lines))
			lines[nlines++].function =
				printed_function(r, sym->s + start, i - start);
		start = i + 2;
		i++;
	}
	for (i = 0; i < nlines / 2; i++) {
		struct pk_line t = lines[i];

		lines[i] = lines[nlines - 1 - i];
		lines[nlines - 1 - i] = t;
	}
	for (i = 0; i < nlines; i++)
		lines[i].line = 0;
	/* without a dso (perf script -F ip,sym) the frame has no mapping */
	return pk_profile_intern_location(r->p, dso->s ? pk_profile_intern_mapping(r->p, &m) : 0,
					  addr, lines, nlines);
}

static int append_frame(struct ps_reader *r, uint32_t loc)
{
	/* leaf first: one frame past what the profile keeps tells it to
	 * count the cut; the rest need no room */
	if (r->nframes > pki_profile_max_stack(r->p))
		return 0;
	if (pki_grow(&r->frames, &r->frames_cap, r->nframes + 1,
		    sizeof(*r->frames)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	r->frames[r->nframes++] = loc;
	return 0;
}

static int is_inlined(struct ps_reader *r, uint32_t loc)
{
	const struct pk_location *l = pk_profile_location(r->p, loc);
	const struct pk_mapping *m = pk_profile_mapping(r->p, l->mapping);

	return m && m->file == r->str_inlined;
}

/*
 * perf prints each inlined function as its own "(inlined)" line before
 * the function it was inlined into, at the same address. The model keeps
 * them as one location with several lines, innermost first.
 */
static uint32_t merge_inlined(struct ps_reader *r, uint32_t loc)
{
	const struct pk_location *real = pk_profile_location(r->p, loc);
	struct pk_line lines[64];
	size_t n = 0, i;

	for (i = 0; i < r->npending && n < PK_ARRAY_SIZE(lines) - 1; i++) {
		const struct pk_location *l = pk_profile_location(r->p, r->pending[i]);

		if (l->nlines)
			lines[n++] = pk_profile_location_lines(r->p, l)[0];
	}
	for (i = 0; i < real->nlines && n < PK_ARRAY_SIZE(lines); i++)
		lines[n++] = pk_profile_location_lines(r->p, real)[i];
	r->npending = 0;
	return pk_profile_intern_location(r->p, real->mapping, real->address,
					  lines, n);
}

/*
 * "(inlined)" frames with no frame of their own after them (perf prints
 * libc's __libc_start_main_impl so) stand alone. "inlined" is no file:
 * they take the mapping of the frame printed before them, when any.
 */
static int flush_pending(struct ps_reader *r)
{
	const struct pk_location *prev = r->nframes ?
		pk_profile_location(r->p, r->frames[r->nframes - 1]) : NULL;
	uint32_t mapping = prev ? prev->mapping : 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < r->npending && !rc; i++) {
		const struct pk_location *l = pk_profile_location(r->p, r->pending[i]);
		uint32_t loc = pk_profile_intern_location(r->p, mapping, l->address,
							  pk_profile_location_lines(r->p, l),
							  l->nlines);

		rc = loc ? append_frame(r, loc) :
			pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	}
	r->npending = 0;
	return rc;
}

static int push_frame(struct ps_reader *r, uint32_t loc)
{
	if (is_inlined(r, loc)) {
		int rc = r->npending == PK_ARRAY_SIZE(r->pending) ?
			flush_pending(r) : 0;

		if (rc)
			return rc;
		r->pending[r->npending++] = loc;
		return 0;
	}
	if (r->npending) {
		const struct pk_location *real = pk_profile_location(r->p, loc);
		const struct pk_location *inl = pk_profile_location(r->p, r->pending[0]);
		int rc;

		/* inlined into this frame only if perf printed the same address */
		if (real->address != inl->address) {
			if ((rc = flush_pending(r)))
				return rc;
		} else if (!(loc = merge_inlined(r, loc))) {
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
		}
	}
	return append_frame(r, loc);
}

static const char *skip_space(const char *s, size_t *len)
{
	while (*len && is_space(*s)) {
		s++;
		(*len)--;
	}
	return s;
}

/*
 * The hash of a frame text, all of it: one of its address and length
 * alone put every frame of one address and name length (a hostile text
 * of such frames, or a JIT's) in one chain, 40,000 of them 11 s. -1 for
 * a line that starts with no address, which is no frame.
 */
static int frame_key(const char *s, size_t len, uint64_t *hash)
{
	if (!len || pki_hexval(s[0]) < 0)
		return -1;
	*hash = pki_hash_text(s, len);
	return 0;
}

struct frame_text {
	const char *s;
	size_t len;
};

static int same_text(const struct pk_profile *p, pk_str text,
		     const struct frame_text *k)
{
	return pk_profile_string_len(p, text) == k->len &&
	       memcmp(pk_profile_string(p, text), k->s, k->len) == 0;
}

static int frame_match(const void *owner, uint32_t id, const void *key)
{
	const struct ps_reader *r = owner;

	return same_text(r->frame_text, r->frame_cache[id - 1].text, key);
}

/* The location of a frame text seen before, or 0. */
static uint32_t cached_frame(struct ps_reader *r, const char *s, size_t len)
{
	struct frame_text key;
	uint64_t hash;
	size_t slot;
	uint32_t id;

	s = skip_space(s, &len);
	if (frame_key(s, len, &hash) < 0)
		return 0;
	key.s = s;
	key.len = len;
	id = pki_idtab_find(&r->frame_tab, hash, frame_match, r, &key, &slot);
	return id ? r->frame_cache[id - 1].loc : 0;
}

static int remember_frame(struct ps_reader *r, const char *s, size_t len,
			  uint32_t loc)
{
	struct frame_text key = { s, len };
	uint64_t hash;
	size_t slot;

	if (frame_key(s, len, &hash) < 0 ||
	    pki_idtab_find(&r->frame_tab, hash, frame_match, r, &key, &slot))
		return 0;
	if (pki_grow(&r->frame_cache, &r->frame_cache_cap, r->nframe_cache + 1,
		    sizeof(*r->frame_cache)) < 0)
		return -1;
	r->frame_cache[r->nframe_cache].text = pk_profile_intern(r->frame_text, s, len);
	r->frame_cache[r->nframe_cache].loc = loc;
	if (!r->frame_cache[r->nframe_cache].text ||
	    pki_idtab_insert(&r->frame_tab, slot, hash,
			    (uint32_t)r->nframe_cache + 1) < 0)
		return -1;
	r->nframe_cache++;
	return 0;
}

/*
 * Returns 1 for a frame line, 0 for something else, <0 on error. Without
 * need_dso the symbol and the dso are optional.
 */
static int parse_frame(struct ps_reader *r, const char *s, size_t len,
		       int need_dso)
{
	struct token sym, dso;
	uint64_t addr;
	uint32_t loc;

	s = skip_space(s, &len);
	if (split_frame(s, len, need_dso, &addr, &sym, &dso) < 0)
		return 0;
	loc = make_location(r, addr, &sym, &dso);
	if (!loc || remember_frame(r, s, len, loc) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	return push_frame(r, loc) ? -1 : 1;
}

/* ---- samples ---- */

static const char *event_unit(const char *event)
{
	/* perf's software clocks count nanoseconds */
	if (strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0)
		return "nanoseconds";
	return "count";
}

/*
 * The columns of an event: found in the profile (which may hold earlier
 * inputs), else added; the weight column only once a period is seen.
 */
static int find_columns(struct ps_reader *r, pk_str event, int with_period,
			struct event_columns *c)
{
	const char *name = pk_profile_string(r->p, event);

	c->count = pk_profile_find_column(r->p, event, PK_VALUE_COUNT);
	if (c->count < 0)
		c->count = pk_profile_add_sample_type(r->p, "samples", "count",
						      name, PK_VALUE_COUNT);
	c->weight = pk_profile_find_column(r->p, event, PK_VALUE_WEIGHT);
	if (c->weight < 0 && with_period)
		c->weight = pk_profile_add_sample_type(r->p, *name ? name : "events",
						       event_unit(name), name,
						       PK_VALUE_WEIGHT);
	if (c->count < 0 || (with_period && c->weight < 0))
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	return 0;
}

static uint32_t record_labels(struct ps_reader *r)
{
	struct pk_label l[4];
	size_t n = 0;

	memset(l, 0, sizeof(l));
	if (r->rec.pid >= 0) {
		l[n].key = r->key_pid;
		l[n++].num = r->rec.pid;
	}
	if (r->rec.tid >= 0) {
		l[n].key = r->key_tid;
		l[n++].num = r->rec.tid;
	}
	if (r->rec.comm) {
		l[n].key = r->key_comm;
		l[n++].str = r->rec.comm;
	}
	if (r->rec.cpu >= 0) {
		l[n].key = r->key_cpu;
		l[n++].num = r->rec.cpu;
	}
	if (r->rec.ntrace) {
		/* the fields follow the sample's own labels, as from perf.data */
		memcpy(r->labels + 4 - n, l, n * sizeof(*l));
		return pk_profile_intern_labels(r->p, r->labels + 4 - n,
						n + r->rec.ntrace);
	}
	if (n != r->last_nlabels || memcmp(l, r->last_label_set, n * sizeof(*l))) {
		r->last_labels = pk_profile_intern_labels(r->p, l, n);
		memcpy(r->last_label_set, l, n * sizeof(*l));
		r->last_nlabels = n;
	}
	return r->last_labels;
}

static void note_bad_line(struct ps_reader *r, uint64_t lineno,
			  const char *line, size_t len);

static int chain_match(const void *owner, uint32_t id, const void *key)
{
	const struct ps_reader *r = owner;

	return same_text(r->chains, r->chain_cache[id - 1].text, key);
}

/* The record's columns: its event's, found once for a run of them. */
static int record_columns(struct ps_reader *r)
{
	int with_period = r->rec.period >= 0;
	int rc;

	if (r->col_valid && r->col_event == r->rec.event &&
	    r->col_period == with_period)
		return 0;
	if ((rc = find_columns(r, r->rec.event, with_period, &r->cols)))
		return rc;
	r->col_event = r->rec.event;
	r->col_period = with_period;
	r->col_valid = 1;
	return 0;
}

/*
 * The record's callchain, every line of it a frame and its stack not
 * cut, is remembered whole by its text (read_lines looks it up).
 */
static void remember_chain(struct ps_reader *r, uint32_t stack)
{
	struct frame_text key = { r->rec.chain, r->rec.chain_len };
	struct chain_entry *e;
	size_t slot;

	if (!r->rec.chain || r->chain_frames != r->rec.chain_lines ||
	    r->lineno != r->rec.lineno + r->rec.chain_lines + 1 ||
	    r->nframes > pki_profile_max_stack(r->p) ||
	    pk_profile_memory(r->chains) > MAX_CHAIN_BYTES)
		return;
	if (pki_idtab_find(&r->chain_tab, r->rec.chain_hash, chain_match, r, &key,
			   &slot) ||
	    pki_grow(&r->chain_cache, &r->chain_cache_cap, r->nchain_cache + 1,
		     sizeof(*r->chain_cache)) < 0)
		return;
	e = &r->chain_cache[r->nchain_cache];
	e->text = pk_profile_intern(r->chains, key.s, key.len);
	e->stack = stack;
	e->lines = r->rec.chain_lines;
	/* without memory the chain is parsed each time: no harm */
	if (e->text && pki_idtab_insert(&r->chain_tab, slot, r->rec.chain_hash,
					(uint32_t)r->nchain_cache + 1) == 0) {
		r->nchain_cache++;
		if (r->rec.chain_guess < CHAIN_GUESSES)
			r->chain_guess[r->rec.chain_guess] = (uint32_t)r->nchain_cache;
	}
}

static int finish_record(struct ps_reader *r)
{
	size_t ncols;
	uint32_t stack = r->rec.stack;
	int rc;

	if (!r->rec.active)
		return 0;
	r->rec.active = 0;
	if (r->rec.weak && !stack && !r->nframes && !r->npending) {
		/* a line that only frames after it would make a header */
		note_bad_line(r, r->rec.lineno, r->rec.text, strlen(r->rec.text));
		return 0;
	}
	r->records++;
	if ((rc = flush_pending(r)) || (rc = record_columns(r)))
		return rc;
	ncols = pk_profile_sample_type_count(r->p);
	if (pki_grow(&r->values, &r->values_cap, ncols, sizeof(*r->values)) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	memset(r->values, 0, ncols * sizeof(*r->values));
	r->values[r->cols.count] = 1;
	if (r->cols.weight >= 0 && r->rec.period >= 0)
		r->values[r->cols.weight] = r->rec.period;
	if (!stack) {
		stack = pk_profile_intern_stack(r->p, r->frames, r->nframes);
		remember_chain(r, stack);
	}
	r->nframes = 0;
	rc = pk_profile_add_sample(r->p, stack, record_labels(r), r->rec.time,
				   r->values, ncols);
	return rc ? pk_error_set(r->ctx, rc, "%s: out of memory",
				 pk_input_name(r->in)) : 0;
}

/*
 * Name the count columns once every event is known: "samples" alone,
 * "EVENT_samples" when several events share the profile.
 */
static int name_sample_types(struct ps_reader *r)
{
	size_t n = pk_profile_sample_type_count(r->p), i;
	char buf[512];

	if (pk_profile_event_count(r->p) < 2)
		return 0;
	for (i = 0; i < n; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(r->p, i);

		if (t->kind != PK_VALUE_COUNT || !t->event)
			continue;
		snprintf(buf, sizeof(buf), "%s_samples",
			 pk_profile_string(r->p, t->event));
		if (pk_profile_rename_sample_type(r->p, i, buf))
			return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	}
	return 0;
}

/* perf script --header: keep the facts profkit-info reports. */
static void parse_comment(struct ps_reader *r, const char *line, size_t len)
{
	static const char *const keys[][2] = {
		{ "# hostname : ", "hostname" },
		{ "# os release : ", "os-release" },
		{ "# arch : ", "arch" },
		{ "# cmdline : ", "cmdline" },
		{ "# perf version : ", "perf-version" },
		{ "# captured on: ", "captured-on" },
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(keys); i++) {
		size_t klen = strlen(keys[i][0]);

		if (len > klen && memcmp(line, keys[i][0], klen) == 0) {
			/* a line of mapped text ends in no NUL */
			char *value = strndup(line + klen, len - klen);

			if (value)
				pk_profile_set_meta(r->p, keys[i][1], value);
			free(value);
		}
	}
}

static int is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!is_space(s[i]))
			return 0;
	return 1;
}

/* Bad lines are warned about in input order once the input is read:
 * threads read its parts, and only whole counts say what to report. */
static void note_bad_line(struct ps_reader *r, uint64_t lineno,
			  const char *line, size_t len)
{
	struct bad_note *n;

	if (len > 60)
		len = 60;
	if (r->bad_lines++ >= MAX_WARNINGS)
		return;
	n = &r->notes[r->bad_lines - 1];
	n->lineno = lineno;
	memcpy(n->text, line, len);
	n->text[len] = '\0';
}

static void bad_line(struct ps_reader *r, const char *line, size_t len)
{
	note_bad_line(r, r->lineno, line, len);
}

/* "  file.c:123" after a frame: perf script -F +srcline */
static int is_srcline(const char *line, size_t len)
{
	return len > 2 && line[0] == ' ' && line[1] == ' ' && !is_space(line[2]);
}

static int is_frame_text(const char *s, size_t len)
{
	struct token sym, dso;
	uint64_t addr;

	s = skip_space(s, &len);
	return split_frame(s, len, 0, &addr, &sym, &dso) == 0;
}

/* What follows a callchain with -F brstack: only branch entries. */
static int is_brstack_line(const char *line, const struct token *tok, size_t n)
{
	size_t i;

	if (!n || !is_space(line[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!is_brstack_token(&tok[i]))
			return 0;
	return 1;
}

/*
 * A frame line in a callchain: tab-indented as perf prints it, or laid
 * out as perf lays out an address, may lack the symbol and the dso; in
 * other lines (old perf's unindented frames) the dso must end it.
 */
static int chain_frame(struct ps_reader *r, const char *line, size_t len)
{
	struct token t[1];
	int relaxed = line[0] == '\t' ||
		(tokenize(line, len, t, 1) == 1 && is_address_at(&t[0]));

	return parse_frame(r, line, len, !relaxed);
}

/* "sched:sched_switch", "syscalls:sys_enter_write", "probe:f" */
static int is_tracepoint(const struct ps_reader *r)
{
	return r->rec.event && strchr(pk_profile_string(r->p, r->rec.event), ':');
}

/*
 * A tracepoint's fields: the text from tok[j] to a frame laid out as
 * perf lays out an address (-F ip with trace), before tok[frame] at the
 * latest, or to the end of the line. Returns the frame's token, or n.
 */
static size_t trace_fields(struct ps_reader *r, const char *line, size_t len,
			   const struct token *tok, size_t n, size_t j,
			   size_t frame)
{
	const char *event = pk_profile_string(r->p, r->rec.event);
	const char *end = line + len;
	size_t f;
	ssize_t got;

	for (f = j; f < frame && f < n && !is_address_at(&tok[f]); f++)
		;
	if (f < n)
		end = f > j ? tok[f - 1].s + tok[f - 1].len : tok[f].s;
	if (f > j) {
		got = pki_grow(&r->labels, &r->labels_cap, 4, sizeof(*r->labels)) < 0 ? -1 :
			pki_trace_text_labels(r->p, event, strlen(event), tok[j].s,
					      (size_t)(end - tok[j].s), &r->labels,
					      &r->labels_cap, 4);
		/* without memory for them the sample keeps its own labels */
		r->rec.ntrace = got > 4 ? (size_t)got - 4 : 0;
	}
	return f;
}

/*
 * A new record from a header line, with the frame that ends it when the
 * sample has no callchain (trailing branch entries are dropped).
 */
static int new_record(struct ps_reader *r, const char *line, size_t len,
		      const struct token *tok, size_t n, const struct header *h)
{
	size_t j, end = n;
	int rc;

	const char *stop = line + len;

	r->memo_len = 0;	/* trace_fields may overwrite its labels */
	if ((rc = finish_record(r)))
		return rc;
	j = parse_header(r, tok, n, h);
	if (j < n && is_tracepoint(r))
		j = trace_fields(r, line, len, tok, n, j, h->frame);
	else if (h->frame < n)
		j = h->frame;
	while (end > j + 1 && is_brstack_token(&tok[end - 1]))
		end--;
	if (end < n)
		stop = tok[end - 1].s + tok[end - 1].len;
	/* Without callchains the frame ends the header line. */
	if (j < n && pki_hexval(*tok[j].s) >= 0) {
		rc = parse_frame(r, tok[j].s, (size_t)(stop - tok[j].s),
				 !is_address_at(&tok[j]));
		if (rc < 0)
			return rc;
		r->rec.single_line = rc;
		r->last_frame = rc;
	}
	r->rec.weak = !h->strong && !r->rec.single_line;
	if (r->rec.weak) {
		size_t tlen = len < sizeof(r->rec.text) - 1 ? len : sizeof(r->rec.text) - 1;

		memcpy(r->rec.text, line, tlen);
		r->rec.text[tlen] = '\0';
	}
	if (h->strong && r->rec.time_at && !r->rec.single_line &&
	    len <= sizeof(r->memo_line)) {
		memcpy(r->memo_line, line, len);
		r->memo_len = len;
		r->memo_time = (size_t)(r->rec.time_at - line);
		r->memo_time_len = (size_t)(strchr(r->rec.time_at, ':') + 1 - r->rec.time_at);
		r->memo_dot = (size_t)(strchr(r->rec.time_at, '.') - r->rec.time_at);
		r->memo_rec = r->rec;
	}
	return 0;
}

/*
 * A time laid out as the remembered one (digits, '.' at dot, digits,
 * ':'): 1 and its value as parse_time gives it, found in one pass; 0 for
 * no time. Seconds of more than ten digits take the long way.
 */
static int time_again(const char *s, size_t len, size_t dot, uint64_t *ns)
{
	struct token t = { s, len, 0 };
	uint64_t secs = 0, frac = 0, scale = 1000000000;
	size_t i;

	if (dot > 10) {
		*ns = is_time_token(&t) ? parse_time(&t) : 0;
		return is_time_token(&t);
	}
	if (s[dot] != '.' || s[len - 1] != ':')
		return 0;
	for (i = 0; i + 1 < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (i == dot)
			continue;
		if (d > 9)
			return 0;
		if (i < dot) {
			secs = secs * 10 + d;
		} else if (i - dot <= 9) {
			frac = frac * 10 + d;
			scale /= 10;
		}
	}
	*ns = secs * 1000000000 + frac * scale;
	return 1;
}

/*
 * A header line that is the remembered one but for its time (of the
 * same width) is parsed as that one was: the time is all that changed.
 */
static int header_again(struct ps_reader *r, const char *line, size_t len)
{
	size_t t = r->memo_time, tlen = r->memo_time_len;
	uint64_t time;
	int rc;

	if (!r->memo_len || len != r->memo_len ||
	    memcmp(line, r->memo_line, t) != 0 ||
	    memcmp(line + t + tlen, r->memo_line + t + tlen, len - t - tlen) != 0 ||
	    !time_again(line + t, tlen, r->memo_dot, &time))
		return 0;
	if ((rc = finish_record(r)))
		return rc;
	r->rec = r->memo_rec;
	r->rec.lineno = r->lineno;
	r->rec.time = time;
	r->chain_frames = 0;
	return 1;
}

static int handle_line(struct ps_reader *r, const char *line, size_t len)
{
	struct token tok[MAX_TOKENS];
	struct header h;
	int chain = r->rec.active && !r->rec.single_line;
	int after_blank = r->after_blank, last_frame = r->last_frame;
	size_t n;
	int rc;

	if (len && line[0] == '#') {
		parse_comment(r, line, len);
		return 0;
	}
	if (is_blank(line, len)) {
		r->after_blank = 1;
		r->last_frame = 0;
		return finish_record(r);
	}
	r->lines++;
	r->after_blank = r->last_frame = 0;
	if (chain) {
		/* Frame texts repeat: a known one needs no parsing. */
		uint32_t loc = cached_frame(r, line, len);

		if (loc) {
			r->last_frame = 1;
			r->chain_frames++;
			return push_frame(r, loc);
		}
		/* In a callchain an indented line is a frame. */
		if (is_space(line[0]) && (rc = chain_frame(r, line, len))) {
			r->last_frame = rc > 0;
			r->chain_frames += rc > 0;
			return rc < 0 ? rc : 0;
		}
	} else if (line[0] == '\t' && is_frame_text(line, len)) {
		/* a callchain under an empty header line (-F ip,sym) */
		if ((rc = finish_record(r)))
			return rc;
		start_record(r);
		rc = parse_frame(r, line, len, 0);
		r->last_frame = rc > 0;
		return rc < 0 ? rc : 0;
	}
	if ((rc = header_again(r, line, len)))
		return rc < 0 ? rc : 0;
	n = tokenize(line, len, tok, MAX_TOKENS);
	find_fields(tok, n, &h);
	/* a header starts a record (without callchains perf pads the comm) */
	if (h.strong || h.frame < n)
		return new_record(r, line, len, tok, n, &h);
	if (last_frame && is_srcline(line, len))
		return 0;
	if (chain && is_brstack_line(line, tok, n)) {
		r->after_blank = 1;	/* it ends the record */
		return finish_record(r);
	}
	/* old perf prints frames unindented */
	if (r->rec.active && (rc = parse_frame(r, line, len, 1))) {
		r->last_frame = rc > 0;
		return rc < 0 ? rc : 0;
	}
	/* a header of comm or event alone, which frames must follow */
	if (after_blank && !r->rec.active)
		return new_record(r, line, len, tok, n, &h);
	/* a lone comm before this was no header either: warn in order */
	if (r->rec.weak && !r->nframes && !r->npending && (rc = finish_record(r)))
		return rc;
	bad_line(r, line, len);
	return 0;
}

/* ---- reading: a stream, or a block of memory on several threads ---- */

static int reader_init(struct ps_reader *r, struct pk_context *ctx,
		       struct pk_input *in, struct pk_profile *p)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->in = in;
	r->p = p;
	r->frame_text = pk_profile_new(0);
	r->chains = pk_profile_new(0);
	if (!r->frame_text || !r->chains)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	r->key_pid = pk_profile_intern_cstr(p, "pid");
	r->key_tid = pk_profile_intern_cstr(p, "tid");
	r->key_comm = pk_profile_intern_cstr(p, "comm");
	r->key_cpu = pk_profile_intern_cstr(p, "cpu");
	r->str_inlined = pk_profile_intern_cstr(p, "inlined");
	r->after_blank = 1;
	return 0;
}

static void reader_release(struct ps_reader *r)
{
	pk_profile_free(r->frame_text);
	pk_profile_free(r->chains);
	pki_idtab_release(&r->frame_tab);
	free(r->frame_cache);
	free(r->chain_cache);
	free(r->chain_buf);
	pki_idtab_release(&r->chain_tab);
	free(r->frames);
	free(r->values);
	free(r->labels);
}

/* perf ends every line: a last line without '\n' is a sample cut off. */
static void cut_off(struct ps_reader *r)
{
	r->cut_line = r->lineno;
	r->rec.active = 0;
	r->nframes = 0;
	r->npending = 0;
}

/* An empty line ("\n", "\r\n") at s: where the next one starts, or NULL. */
static const char *after_empty_line(const char *s, const char *end)
{
	if (s < end && *s == '\n')
		return s + 1;
	if (end - s >= 2 && s[0] == '\r' && s[1] == '\n')
		return s + 2;
	return NULL;
}

/*
 * The end of the callchain starting at s: the empty line ending it, or
 * NULL when the text ends first or a line is not indented as perf
 * indents frames (text without empty lines is not scanned to its end).
 */
static const char *chain_end(const char *s, const char *end, size_t *lines)
{
	*lines = 0;
	while (s < end && !after_empty_line(s, end)) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl || !is_space(*s))
			return NULL;
		s = nl + 1;
		++*lines;
	}
	return s < end ? s : NULL;
}

/* Where the guess for a chain starting at s is kept: a hash of its
 * first CHAIN_GUESS_KEY bytes, two multiplies. */
static size_t guess_slot(const char *s)
{
	uint64_t w[4];

	memcpy(w, s, sizeof(w));
	return (pki_fold_multiply(w[0] ^ 0x243f6a8885a308d3ULL, w[1] ^ 0x13198a2e03707344ULL) ^
		pki_fold_multiply(w[2] ^ 0xa4093822299f31d0ULL, w[3] ^ 0x082efa98ec4e6c89ULL)) &
	       (CHAIN_GUESSES - 1);
}

/*
 * The end of the chain at s if it is the one guessed from its first
 * bytes (*slot: where their guess is kept, CHAIN_GUESSES for none): its
 * text, then an empty line, as chain_end would find it; NULL if not.
 */
static const char *guessed_chain(struct ps_reader *r, const char *s,
				 const char *end, size_t *slot)
{
	const struct chain_entry *e;
	size_t len;

	*slot = CHAIN_GUESSES;
	if (end - s < CHAIN_GUESS_KEY)
		return NULL;
	*slot = guess_slot(s);
	if (!r->chain_guess[*slot])
		return NULL;
	e = &r->chain_cache[r->chain_guess[*slot] - 1];
	len = pk_profile_string_len(r->chains, e->text);
	if ((size_t)(end - s) <= len || !after_empty_line(s + len, end) ||
	    memcmp(s, pk_profile_string(r->chains, e->text), len) != 0)
		return NULL;
	return s + len;
}

/* The record's stack is the known chain e, which ends at stop. */
static const char *chain_known(struct ps_reader *r, const struct chain_entry *e,
			       const char *stop)
{
	r->rec.stack = e->stack;
	r->lineno += e->lines;
	r->lines += e->lines;
	r->last_frame = 1;
	return stop;
}

/*
 * After a header line, a callchain remembered whole is the record's
 * stack without a line of it parsed; else it is noted, to be remembered
 * if all its lines are frames. Returns where reading goes on.
 */
static const char *known_chain(struct ps_reader *r, const char *s,
			       const char *end)
{
	struct frame_text key;
	size_t lines, slot, guess;
	const char *stop;
	uint64_t hash;
	uint32_t id;

	/* only right after a header: the chain must make the whole stack */
	if (!r->rec.active || r->rec.single_line || r->rec.lineno != r->lineno ||
	    r->nframes || r->npending)
		return s;
	if ((stop = guessed_chain(r, s, end, &guess)))
		return chain_known(r, &r->chain_cache[r->chain_guess[guess] - 1],
				   stop);
	if (!(stop = chain_end(s, end, &lines)) || stop == s)
		return s;
	key.s = s;
	key.len = (size_t)(stop - s);
	hash = pki_hash_text(key.s, key.len);
	id = pki_idtab_find(&r->chain_tab, hash, chain_match, r, &key, &slot);
	if (!id) {
		r->rec.chain = s;
		r->rec.chain_len = (size_t)(stop - s);
		r->rec.chain_lines = lines;
		r->rec.chain_hash = hash;
		r->rec.chain_guess = guess;
		/* a stream's buffer moves on before the chain is remembered */
		if (r->chain_buf) {
			if (pki_grow(&r->chain_buf, &r->chain_buf_cap, key.len, 1) < 0) {
				r->rec.chain = NULL;
				return s;
			}
			r->rec.chain = memcpy(r->chain_buf, s, key.len);
		}
		return s;
	}
	if (guess < CHAIN_GUESSES)
		r->chain_guess[guess] = id;
	return chain_known(r, &r->chain_cache[id - 1], stop);
}

/* How far a stream is read ahead for a callchain after a header. */
#define CHAIN_AHEAD (64u << 10)

/*
 * A stream, line by line; after a header, the callchain in the bytes
 * read ahead is looked up whole as in text in memory.
 */
static int read_stream(struct ps_reader *r, struct pk_input *in)
{
	const char *line, *ahead, *next;
	size_t len, got;
	int rc = 0;

	if (pki_grow(&r->chain_buf, &r->chain_buf_cap, 256, 1) < 0)
		return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
	for (;;) {
		uint64_t start = pk_input_offset(in);

		if (rc || !(line = pk_input_line(in, &len)))
			break;
		r->lineno++;
		if (pk_input_offset(in) - start == len && len) {
			cut_off(r);
			break;
		}
		if ((rc = handle_line(r, line, len)) || !r->rec.active ||
		    r->rec.lineno != r->lineno)
			continue;
		ahead = (const char *)pk_input_peek(in, CHAIN_AHEAD, &got);
		next = known_chain(r, ahead, ahead + got);
		pki_input_skip(in, (size_t)(next - ahead));
	}
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	return rc ? rc : finish_record(r);
}

/* The lines of a part of the text in memory, as read_stream reads them. */
static int read_lines(void *reader, struct pki_part *part)
{
	struct ps_reader *r = reader;
	const char *s = part->start, *line;
	size_t len;
	int rc = 0, cut;

	while (!rc && (line = pki_part_line(part, &s, &len, &cut))) {
		r->lineno++;
		if (cut) {
			cut_off(r);
			break;
		}
		rc = handle_line(r, line, len);
		s = known_chain(r, s, part->end);
	}
	pki_part_finish(part, s);
	return rc ? rc : finish_record(r);
}

/* Where the first record at or after pos starts: past an empty line. */
static size_t record_start(void *whole, const char *data, size_t size, size_t pos)
{
	const char *end = data + size, *s = data + pos, *next, *kept = s;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl)
			break;
		if ((next = after_empty_line(nl + 1, end)))
			return (size_t)(next - data);
		s = nl + 1;
		pki_cut_step(((struct ps_reader *)whole)->in, &kept, s);
	}
	return size;
}

/* A later part's reader, as the whole's (its own caches). */
static void *part_open(void *whole, struct pk_context *ctx, struct pk_profile *p,
		       const struct pki_part *part)
{
	struct ps_reader *r = malloc(sizeof(*r));

	(void)part;
	if (r && reader_init(r, ctx, ((struct ps_reader *)whole)->in, p)) {
		reader_release(r);
		free(r);
		return NULL;
	}
	if (r)
		r->demangle = ((struct ps_reader *)whole)->demangle;
	return r;
}

static void part_done(void *reader)
{
	reader_release(reader);
}

/* A part read, taken into the whole: its counts and notes. */
static int absorb_part(void *whole, void *reader)
{
	struct ps_reader *r = whole;
	const struct ps_reader *pr = reader;
	uint64_t i;

	for (i = 0; i < pr->bad_lines && i < MAX_WARNINGS; i++) {
		if (r->bad_lines < MAX_WARNINGS) {
			r->notes[r->bad_lines] = pr->notes[i];
			r->notes[r->bad_lines].lineno += r->lineno;
		}
		r->bad_lines++;
	}
	r->bad_lines += pr->bad_lines - i;
	if (pr->cut_line)
		r->cut_line = r->lineno + pr->cut_line;
	r->records += pr->records;
	r->lines += pr->lines;
	r->lineno += pr->lineno;
	return 0;
}

/*
 * Text in memory, cut at record boundaries (the empty lines after
 * callchains) into parts read on threads (core/parts.h).
 */
static const struct pki_parts_reader perf_script_parts = {
	.cut = record_start,
	.open = part_open,
	.read = read_lines,
	.done = part_done,
	.absorb = absorb_part,
	.close = free,
	.append = pki_copy_append,
	/* a part costs 0.19 M instructions more (its caches learnt afresh,
	 * its profile appended) where 2 MiB take some 9 M */
	.min_part = 2u << 20,
};

/* What the whole input says: warnings in input order, then the verdict. */
static int finish_input(struct ps_reader *r, int rc)
{
	const char *name = pk_input_name(r->in);
	uint64_t i;

	for (i = 0; i < r->bad_lines && i < MAX_WARNINGS; i++)
		pk_warn(r->ctx, "%s: line %llu: not a perf script line: '%s'", name,
			(unsigned long long)r->notes[i].lineno, r->notes[i].text);
	if (r->cut_line)
		pk_warn(r->ctx, "%s: line %llu: the file ends mid-line "
			"(truncated file?); dropping its last sample", name,
			(unsigned long long)r->cut_line);
	if (!rc)
		rc = name_sample_types(r);
	if (!rc && r->bad_lines > MAX_WARNINGS)
		pk_warn(r->ctx, "%s: %llu lines in all were not perf script lines",
			name, (unsigned long long)r->bad_lines);
	if (!rc && !r->records && r->bad_lines)
		rc = pk_error_set(r->ctx, PK_EINPUT,
				  "%s: no perf script samples found (expected "
				  "'comm pid [cpu] time: event:' lines)", name);
	/* a few odd lines are warnings; mostly odd lines are another format */
	if (!rc && r->bad_lines * 2 > r->lines)
		rc = pk_error_set(r->ctx, PK_EINPUT,
				  "%s: line %llu: not a perf script line: '%s' "
				  "(%llu of %llu lines are not; expected "
				  "'comm pid [cpu] time: event:' headers and "
				  "'address symbol (dso)' frames)", name,
				  (unsigned long long)r->notes[0].lineno,
				  r->notes[0].text, (unsigned long long)r->bad_lines,
				  (unsigned long long)r->lines);
	return rc;
}

static int perf_script_read(struct pk_context *ctx, struct pk_input *in,
			    struct pk_profile *p, const struct pk_options *opts)
{
	struct ps_reader r;
	const char *data;
	size_t size;
	int rc = reader_init(&r, ctx, in, p);

	r.demangle = pki_demangle_style(opts, PK_DEMANGLE_SHORT);
	if (!rc) {
		data = (const char *)pki_input_map(in, &size);
		if (data)
			rc = pki_read_parts(&perf_script_parts, &r, ctx, in, p, opts,
					    data, size);
		else
			rc = read_stream(&r, in);
		rc = finish_input(&r, rc);
	}
	reader_release(&r);
	return rc;
}

/* ---- probe ---- */

/* A token laid out as perf lays out an address: "\t%16lx", " %16lx". */
static int has_address_at(const struct token *tok, size_t ntok)
{
	size_t i;

	for (i = 0; i < ntok; i++)
		if (is_address_at(&tok[i]))
			return 1;
	return 0;
}

/*
 * Headers with a pid are perf's own; frames that end in a dso may be
 * anything's, so without such a header the frames must be laid out as
 * perf lays them out, and any other line (a comm, an event, a time
 * alone) counts only when such a frame follows it.
 */
static int perf_script_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;
	int headers = 0, frames = 0, laid_out = 0, others = 0;
	int pending = 0, last_frame = 0;

	while (s < end && headers + frames + others < 40) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		struct token tok[MAX_TOKENS];
		struct header h;
		size_t ntok;
		int frame = 0;

		if (!nl && s != (const char *)buf)
			break;	/* a cut-off last line proves nothing */
		if (n && s[n - 1] == '\r')
			n--;
		ntok = tokenize(s, n, tok, MAX_TOKENS);
		if (memchr(s, '\0', n))
			return 0;
		find_fields(tok, ntok, &h);
		if ((n && s[0] == '#') || is_blank(s, n)) {
			others += pending;
			pending = 0;
		} else if (h.strong && h.pid) {
			headers++;
		} else if (has_address_at(tok, ntok)) {
			frames++;
			laid_out++;
			frame = 1;
			pending = 0;
		} else if (ntok >= 2 && s[n - 1] == ')' && pki_hexval(tok[0].s[0]) >= 0) {
			frames++;
			frame = 1;
		} else if (last_frame && is_srcline(s, n)) {
			frame = 1;
		} else {
			others += pending;
			pending = 1;
		}
		last_frame = frame;
		s = nl ? nl + 1 : end;
	}
	others += pending;
	/* perf script --header of a recording without samples: the header
	 * perf writes, and nothing else */
	if (!headers && !frames && pki_starts_with_n((const char *)buf, len,
						     "# ========\n# captured on"))
		return 60;
	if (headers && others * 4 <= headers + frames)
		return headers + frames >= 4 ? 80 : 50;
	if (!headers && laid_out >= 4 && others * 4 <= frames)
		return others ? 50 : 75;
	return 0;
}

const struct pki_format pki_format_perf_script = {
	.name = "perf-script",
	.read_description = "text printed by `perf script` (with or without "
			    "callchains)",
	.probe = perf_script_probe,
	.read = perf_script_read,
	.write_description = "text as `perf script` prints it (--addresses-only: "
			     "as `-F comm,pid,tid,time,event,ip,dso`)",
	.extension = ".perf-script.txt",
	.profile_flags = PK_PROFILE_KEEP_ORDER | PK_PROFILE_NAMES_ONLY,
	.write = pki_perf_script_write,
	.options = pki_perf_script_write_options,
};
