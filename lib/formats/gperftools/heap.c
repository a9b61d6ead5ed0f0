/* SPDX-License-Identifier: MIT */
/*
 * Reader for the text legacy profiles of gperftools and Google servers:
 *
 *   heap       heap profile:   1:  4096 [   1:  4096] @ heapprofile
 *              (or heap_v2/RATE, heapz_v2/RATE, heap/2*RATE), then
 *                  inuse_count: inuse_bytes [alloc_count: alloc_bytes] @ 0x..
 *   growth     heap profile: ... @ growthz (and fragmentationz)
 *   contention --- contentionz 1 ---   (or --- mutex: / --- contention:)
 *              "key = value" lines, then   cycles count @ 0x..
 *   thread     --- threadz 1 --- then --- Thread ID (name: N/TID) stack: ---
 *
 * each ending with a memory map after "MAPPED_LIBRARIES:" or
 * "--- Memory map: ---". Values, labels and addresses are what pprof
 * makes of them (profile/legacy_profile.go): sampled heap profiles are
 * unsampled, every address moves back by one onto its call instruction
 * (thread stacks keep their leaf), each heap sample gets a numeric label
 * "bytes" with the size of its blocks. The result is unsymbolized.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/registry.h"
#include "gperf.h"
#include "core/internal.h"
#include "util/libm.h"

enum legacy_kind {
	KIND_NONE,
	KIND_HEAP,		/* heap profile: ... @ heap... */
	KIND_GROWTH,		/* @ growthz, @ fragmentationz */
	KIND_CONTENTION,
	KIND_THREAD,
};

struct text_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pk_gperf *g;
	const char *line;	/* the current line, NULL at the end */
	size_t len;
	uint64_t *addrs;
	size_t naddrs, addrs_cap;
	uint64_t *last;		/* the previous thread's stack */
	size_t nlast, last_cap;
	pk_str key_bytes;
};

struct span_ref {
	const char *s;
	size_t len;
};

/* ---- small matchers, each as the regular expression pprof uses ---- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_lower_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static size_t skip_char(const char *s, size_t len, size_t i, char c)
{
	while (i < len && s[i] == c)
		i++;
	return i;
}

static size_t skip_digits(const char *s, size_t len, size_t i)
{
	while (i < len && is_digit(s[i]))
		i++;
	return i;
}

static int contains(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

static int blank_or_comment(const char *s, size_t len)
{
	pki_gperf_trim(&s, &len);
	return len == 0 || s[0] == '#';
}

static int is_map_sentinel(const char *s, size_t len)
{
	return contains(s, len, "--- Memory map: ---") ||
	       contains(s, len, "MAPPED_LIBRARIES:");
}

/* A decimal number that fits int64 (strconv.ParseInt(s, 10, 64)). */
static int parse_int(const char *s, size_t len, int64_t *v)
{
	uint64_t x = 0, max = (uint64_t)INT64_MAX;
	int neg = len && s[0] == '-';
	size_t i = (size_t)neg;

	if (i == len)
		return -1;
	for (; i < len; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (!is_digit(s[i]) || x > (max + (uint64_t)neg - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/* strconv.ParseInt(s, 0, 64): 0x.., 0b.., 0o.., 0.. (octal), decimal. */
static int parse_go_int(const char *s, size_t len, int64_t *v)
{
	uint64_t x = 0, max = (uint64_t)INT64_MAX;
	unsigned base = 10, digits = 0;
	int neg = 0;
	size_t i = 0;

	if (i < len && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i + 1 < len && s[i] == '0') {
		char b = (char)(s[i + 1] | 0x20);

		base = b == 'x' ? 16 : b == 'b' ? 2 : b == 'o' ? 8 : 8;
		i += b == 'x' || b == 'b' || b == 'o' ? 2 : 1;
		digits = base == 8 && b != 'o';	/* the 0 of "0755" */
	}
	for (; i < len; i++) {
		int d = pki_hexval(s[i]);

		if (s[i] == '_' && base != 10)
			continue;
		if (d < 0 || (unsigned)d >= base ||
		    x > (max + (uint64_t)neg - (uint64_t)d) / base)
			return -1;
		x = x * base + (uint64_t)d;
		digits++;
	}
	if (!digits)
		return -1;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/* Go's int64(f) on amd64: out of range gives the minimum. */
static int64_t float_to_int64(double f)
{
	if (f >= -9223372036854775808.0 && f < 9223372036854775808.0)
		return (int64_t)f;
	return INT64_MIN;
}

/* ---- errors ---- */

static int text_error(struct text_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int text_error(struct text_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: %s",
			    pk_input_name(r->in),
			    (unsigned long long)pk_input_lineno(r->in), msg);
}

static int nomem(struct text_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory",
			    pk_input_name(r->in));
}

/*
 * The next line into r->line; 0 at the end or on error. The profilers
 * end every line with a newline: a last line without one was cut short
 * (a sample with half its stack, a mapping with half its end address),
 * so it is left out.
 */
static int next_line(struct text_reader *r)
{
	uint64_t offset = pk_input_offset(r->in);

	r->line = pk_input_line(r->in, &r->len);
	if (!r->line)
		return 0;
	if (memchr(r->line, '\0', r->len)) {
		text_error(r, "binary data in a text profile");
		r->line = NULL;
	} else if (pk_input_offset(r->in) - offset == r->len) {
		pk_warn(r->ctx, "%s: line %llu: the file ends mid-line "
			"(truncated file?); ignoring that line",
			pk_input_name(r->in),
			(unsigned long long)pk_input_lineno(r->in));
		r->line = NULL;
	}
	return r->line != NULL;
}

/* ---- addresses ---- */

/* Every "0x[0-9a-f]+" of s into r->addrs, after what is there. */
static int collect_hex(struct text_reader *r, const char *s, size_t len)
{
	size_t i = 0;

	while (i + 2 < len) {
		size_t a, b;
		uint64_t x = 0;

		if (s[i] != '0' || s[i + 1] != 'x' || !is_lower_hex(s[i + 2])) {
			i++;
			continue;
		}
		a = i + 2;
		for (b = a; b < len && is_lower_hex(s[b]); b++) {
			if (x >> 60)
				return text_error(r, "address 0x%.*s does not "
						  "fit 64 bits", (int)(b - a + 1),
						  s + a);
			x = (x << 4) | (uint64_t)pki_hexval(s[b]);
		}
		if (pki_grow(&r->addrs, &r->addrs_cap, r->naddrs + 1,
			    sizeof(*r->addrs)) < 0)
			return nomem(r);
		r->addrs[r->naddrs++] = x;
		i = b;
	}
	return 0;
}

/* Return addresses point after the call: move them back onto it. */
static void adjust_addrs(struct text_reader *r, size_t from)
{
	size_t i;

	for (i = from; i < r->naddrs; i++)
		r->addrs[i]--;
}

/* `[ x0-9a-f]*` after "@": where a sample's addresses are. */
static size_t addr_run(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == 'x' || is_lower_hex(s[i])))
		i++;
	return i;
}

/* ---- the header line ---- */

struct heap_header {
	enum legacy_kind kind;
	struct span_ref num[4];	/* inuse count, bytes, alloc count, bytes */
	struct span_ref type;	/* "heapz_v2" ... */
	struct span_ref rate;	/* digits after '/' */
};

/* ` *(\d+)` at *i. */
static int header_number(const char *s, size_t len, size_t *i,
			 struct span_ref *n)
{
	size_t a = skip_char(s, len, *i, ' '), b = skip_digits(s, len, a);

	if (a == b)
		return -1;
	n->s = s + a;
	n->len = b - a;
	*i = b;
	return 0;
}

static int expect(const char *s, size_t len, size_t *i, char c)
{
	if (*i >= len || s[*i] != c)
		return -1;
	(*i)++;
	return 0;
}

/*
 * The heap header regexps of pprof, tried in its order: heap profile:
 * N: N [ N: N ] @ heap.../RATE, then "] @ growthz?", "] @ fragmentationz?".
 */
static int match_heap_header_at(const char *s, size_t len, size_t i,
				struct heap_header *h)
{
	size_t j, close;

	if (header_number(s, len, &i, &h->num[0]) || expect(s, len, &i, ':') ||
	    header_number(s, len, &i, &h->num[1]))
		return -1;
	i = skip_char(s, len, i, ' ');
	if (expect(s, len, &i, '[') || header_number(s, len, &i, &h->num[2]) ||
	    expect(s, len, &i, ':') || header_number(s, len, &i, &h->num[3]))
		return -1;
	i = skip_char(s, len, i, ' ');
	if (expect(s, len, &i, ']'))
		return -1;
	close = i;
	j = skip_char(s, len, i, ' ');
	if (!expect(s, len, &j, '@')) {
		j = skip_char(s, len, j, ' ');
		if (pki_starts_with_n(s + j, len - j, "heap")) {
			h->type.s = s + j;
			j += 4;
			while (j < len && (s[j] == '_' || is_digit(s[j]) ||
					   (s[j] >= 'a' && s[j] <= 'z')))
				j++;
			h->type.len = (size_t)(s + j - h->type.s);
			if (j < len && s[j] == '/')
				j++;
			h->rate.s = s + j;
			h->rate.len = skip_digits(s, len, j) - j;
			h->kind = KIND_HEAP;
			return 0;
		}
	}
	if (pki_starts_with_n(s + close, len - close, " @ growth") ||
	    pki_starts_with_n(s + close, len - close, " @ fragmentation")) {
		h->kind = KIND_GROWTH;
		return 0;
	}
	return -1;
}

static int match_heap_header(const char *s, size_t len, struct heap_header *h)
{
	const char *at = s, *end = s + len;

	memset(h, 0, sizeof(*h));
	while ((at = memmem(at, (size_t)(end - at), "heap profile:", 13))) {
		at += 13;
		if (match_heap_header_at(s, len, (size_t)(at - s), h) == 0)
			return 0;
	}
	return -1;
}

/* `--- threadz \d+ ---` anywhere. */
static int match_threadz(const char *s, size_t len)
{
	const char *at = s, *end = s + len;

	while ((at = memmem(at, (size_t)(end - at), "--- threadz ", 12))) {
		size_t i = (size_t)(at - s) + 12, d = skip_digits(s, len, i);

		if (d > i && pki_starts_with_n(s + d, len - d, " ---"))
			return 1;
		at += 12;
	}
	return 0;
}

/* `--- Thread HEX \(name: .*\/\d+\) stack: ---` anywhere. */
static int match_thread_start(const char *s, size_t len)
{
	const char *at = s, *end = s + len;

	while ((at = memmem(at, (size_t)(end - at), "--- Thread ", 11))) {
		size_t i = (size_t)(at - s) + 11, j = i;
		const char *tail;

		while (j < len && pki_hexval(s[j]) >= 0)
			j++;
		at += 11;
		if (j == i || !pki_starts_with_n(s + j, len - j, " (name: "))
			continue;
		j += 8;
		tail = s + j;
		while ((tail = memmem(tail, (size_t)(end - tail),
				      ") stack: ---", 12))) {
			size_t k = (size_t)(tail - s), d = k;

			while (d > j && is_digit(s[d - 1]))
				d--;
			if (d < k && d > j && s[d - 1] == '/')
				return 1;
			tail++;
		}
	}
	return 0;
}

static enum legacy_kind classify(const char *s, size_t len)
{
	struct heap_header h;

	if (match_heap_header(s, len, &h) == 0)
		return h.kind;
	if (pki_starts_with_n(s, len, "--- contentionz ") ||
	    pki_starts_with_n(s, len, "--- mutex:") ||
	    pki_starts_with_n(s, len, "--- contention:"))
		return KIND_CONTENTION;
	if (match_threadz(s, len) || match_thread_start(s, len))
		return KIND_THREAD;
	return KIND_NONE;
}

static int gperf_heap_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (memchr(s, '\0', n))
			return 0;
		if (!blank_or_comment(s, n))
			return classify(s, n) != KIND_NONE ? 100 : 0;
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

/* ---- the memory map ---- */

/* From the current line on: skip to the map's sentinel, read the map. */
static int read_memory_map(struct text_reader *r)
{
	int rc = 0;

	while (r->line && !is_map_sentinel(r->line, r->len))
		next_line(r);
	while (!rc && r->line && next_line(r))
		rc = pki_gperf_map_line(r->g, r->line, r->len) < 0 ?
			pk_context_error(r->ctx)->code : 0;
	return rc ? rc : pk_context_error(r->ctx)->code;
}

/* ---- heap and growth ---- */

struct heap_state {
	int scaled;		/* heapz v2 Poisson sampling */
	int has_alloc;		/* alloc columns differ from inuse */
	int64_t rate;
};

/* pprof's scaleHeapSample: undo sampling at an average of rate bytes. */
static void unsample(int64_t *count, int64_t *size, int64_t rate)
{
	double avg, scale;

	if (*count == 0 || *size == 0) {
		*count = *size = 0;
		return;
	}
	if (rate <= 1)
		return;
	avg = (double)*size / (double)*count;
	scale = 1 / (1 - pki_exp(-avg / (double)rate));
	*count = float_to_int64((double)*count * scale);
	*size = float_to_int64((double)*size * scale);
}

static int heap_values(struct text_reader *r, const struct heap_state *st,
		       const struct span_ref *num, const char *what,
		       int64_t *values, int64_t *blocksize)
{
	int64_t count, size;

	if (parse_int(num[0].s, num[0].len, &count) ||
	    parse_int(num[1].s, num[1].len, &size))
		return text_error(r, "%s count or size does not fit 64 bits",
				  what);
	if (count == 0 && size != 0)
		return text_error(r, "%s count was 0 but %s bytes was %lld",
				  what, what, (long long)size);
	if (count != 0) {
		*blocksize = size / count;
		if (st->scaled)
			unsample(&count, &size, st->rate);
	}
	values[0] = count;
	values[1] = size;
	return 0;
}

/*
 * `(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *] @` at i; returns the index
 * after "@", or 0.
 */
static size_t match_heap_sample_at(const char *s, size_t len, size_t i,
				   struct span_ref *num)
{
	size_t k, a;

	for (k = 0; k < 4; k++) {
		if (k == 1 || k == 3)
			i = skip_char(s, len, i, ' ');
		if (k == 2) {
			i = skip_char(s, len, i, ' ');
			if (expect(s, len, &i, '['))
				return 0;
			i = skip_char(s, len, i, ' ');
		}
		a = i;
		if (k < 2 && i < len && s[i] == '-')
			i++;
		if (skip_digits(s, len, i) == i)
			return 0;
		i = skip_digits(s, len, i);
		num[k].s = s + a;
		num[k].len = i - a;
		if ((k == 0 || k == 2) && expect(s, len, &i, ':'))
			return 0;
	}
	i = skip_char(s, len, i, ' ');
	if (!pki_starts_with_n(s + i, len - i, "] @"))
		return 0;
	return i + 3;
}

static size_t match_heap_sample(const char *s, size_t len,
				struct span_ref *num)
{
	size_t i = 0, at;

	while (i < len) {
		if (s[i] != '-' && !is_digit(s[i])) {
			i++;
			continue;
		}
		at = match_heap_sample_at(s, len, i, num);
		if (at)
			return at;
		/* any start inside this number fails the same way */
		i = skip_digits(s, len, i + 1);
	}
	return 0;
}

static int heap_sample(struct text_reader *r, const struct heap_state *st,
		       const char *s, size_t len)
{
	struct span_ref num[4];
	struct pk_label label = { 0 };
	int64_t values[4], blocksize = 0;
	size_t at = match_heap_sample(s, len, num), n = 0;
	uint32_t labels;
	int rc;

	if (!at)
		return text_error(r, "not a heap sample (expected 'count: "
				  "bytes [count: bytes] @ 0x...')");
	if (st->has_alloc) {
		rc = heap_values(r, st, num + 2, "allocation", values, &blocksize);
		if (rc)
			return rc;
		n = 2;
	}
	rc = heap_values(r, st, num, "inuse", values + n, &blocksize);
	if (rc)
		return rc;
	r->naddrs = 0;
	rc = collect_hex(r, s + at, addr_run(s, len, at) - at);
	if (rc)
		return rc;
	adjust_addrs(r, 0);
	if (!blocksize)	/* pprof's proto has no numeric label 0 */
		return pki_gperf_add(r->g, r->addrs, r->naddrs, values, n + 2, 0);
	label.key = r->key_bytes;
	label.num = blocksize;
	labels = pk_profile_intern_labels(r->p, &label, 1);
	if (!labels)
		return nomem(r);
	return pki_gperf_add(r->g, r->addrs, r->naddrs, values, n + 2, labels);
}

/* Sample types as "type/unit" pairs; counts first, then weights. */
static int add_sample_types(struct text_reader *r, const char *const *types,
			    size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 2)
		if (pk_profile_add_sample_type(r->p, types[i], types[i + 1], NULL,
				strcmp(types[i + 1], "count") == 0 ?
				PK_VALUE_COUNT : PK_VALUE_WEIGHT) < 0)
			return nomem(r);
	return 0;
}

static int same_span(const struct span_ref *a, const struct span_ref *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int is_span(const struct span_ref *a, const char *s)
{
	return a->len == strlen(s) && memcmp(a->s, s, a->len) == 0;
}

/* "heapz_v2/RATE" and the like: how to unsample, and the period. */
static int heap_type(struct text_reader *r, const struct heap_header *h,
		     struct heap_state *st)
{
	const struct span_ref *n = h->num;

	/* pprof compares the header's numbers as text */
	st->has_alloc = (!same_span(&n[2], &n[0]) && !is_span(&n[2], "0")) ||
			(!same_span(&n[3], &n[1]) && !is_span(&n[3], "0"));
	st->rate = 0;
	if (h->rate.len && parse_int(h->rate.s, h->rate.len, &st->rate))
		return text_error(r, "sampling rate %.*s is out of range",
				  (int)h->rate.len, h->rate.s);
	if (is_span(&h->type, "heapz_v2") || is_span(&h->type, "heap_v2")) {
		st->scaled = 1;
	} else if (is_span(&h->type, "heapprofile")) {
		st->rate = 1;	/* HEAPPROFILE dumps: every allocation */
	} else if (is_span(&h->type, "heap")) {
		st->scaled = 1;
		st->rate /= 2;
	} else {
		return text_error(r, "unknown heap profile type '%.*s'",
				  (int)h->type.len, h->type.s);
	}
	return 0;
}

static int setup_heap(struct text_reader *r, struct heap_state *st,
		      const char *s, size_t len)
{
	static const char *const alloc_types[] = {
		"alloc_objects", "count", "alloc_space", "bytes",
		"inuse_objects", "count", "inuse_space", "bytes",
	};
	static const char *const types[] = {
		"objects", "count", "space", "bytes",
	};
	struct heap_header h;
	int rc;

	match_heap_header(s, len, &h);
	memset(st, 0, sizeof(*st));
	st->rate = 1;	/* growth and fragmentation profiles */
	if (h.kind == KIND_HEAP && (rc = heap_type(r, &h, st)))
		return rc;
	/* alloc before inuse, so that viewers default to inuse_space */
	if (st->has_alloc)
		rc = add_sample_types(r, alloc_types, PK_ARRAY_SIZE(alloc_types));
	else
		rc = add_sample_types(r, types, PK_ARRAY_SIZE(types));
	if (rc)
		return rc;
	pk_profile_set_period(r->p, "space", "bytes", st->rate);
	r->key_bytes = pk_profile_intern_cstr(r->p, "bytes");
	return r->key_bytes ? 0 : nomem(r);
}

static int read_heap(struct text_reader *r)
{
	struct heap_state st;
	int rc = setup_heap(r, &st, r->line, r->len);

	while (!rc && next_line(r)) {
		const char *s = r->line;
		size_t len = r->len;

		pki_gperf_trim(&s, &len);
		if (!len || s[0] == '#')
			continue;
		if (is_map_sentinel(s, len))
			break;
		rc = heap_sample(r, &st, s, len);
	}
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	return rc ? rc : read_memory_map(r);
}

/* ---- contention ---- */

struct contention_state {
	int64_t period, cpu_hz;
};

static int contention_attr(struct text_reader *r, struct contention_state *st,
			   const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len), *key = s, *val = eq + 1;
	size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
	int64_t v;

	pki_gperf_trim(&key, &klen);
	pki_gperf_trim(&val, &vlen);
#define KEY(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
	if (KEY("discarded samples"))
		return 0;
	if (!KEY("cycles/second") && !KEY("sampling period") &&
	    !KEY("ms since reset"))
		return text_error(r, "unknown contention profile attribute "
				  "'%.*s'", (int)klen, key);
	if (parse_go_int(val, vlen, &v))
		return text_error(r, "'%.*s' is not a number", (int)vlen, val);
	if (KEY("cycles/second"))
		st->cpu_hz = v;
	else if (KEY("sampling period"))
		st->period = v;
	else
		pk_profile_set_time(r->p, 0, (int64_t)((uint64_t)v * 1000000));
#undef KEY
	return 0;
}

/*
 * `(\d+) *(\d+) @` leftmost: "cycles count @". As the regexp backtracks,
 * a lone number before " @" splits before its last digit.
 */
static size_t match_contention_sample(const char *s, size_t len,
				      struct span_ref *v1, struct span_ref *v2)
{
	size_t i = 0;

	while (i < len) {
		size_t a = i, b, c, d;

		if (!is_digit(s[i])) {
			i++;
			continue;
		}
		b = skip_digits(s, len, a);
		c = skip_char(s, len, b, ' ');
		d = skip_digits(s, len, c);
		if (c > b && d > c && pki_starts_with_n(s + d, len - d, " @")) {
			v1->s = s + a, v1->len = b - a;
			v2->s = s + c, v2->len = d - c;
			return d + 2;
		}
		if (b - a >= 2 && pki_starts_with_n(s + b, len - b, " @")) {
			v1->s = s + a, v1->len = b - a - 1;
			v2->s = s + b - 1, v2->len = 1;
			return b + 2;
		}
		i = b;
	}
	return 0;
}

static int contention_sample(struct text_reader *r,
			     const struct contention_state *st,
			     const char *s, size_t len)
{
	struct span_ref a, b;
	int64_t cycles, count, values[2];
	size_t at = match_contention_sample(s, len, &a, &b);
	int rc;

	if (!at)
		return text_error(r, "not a contention sample (expected "
				  "'cycles count @ 0x...')");
	if (parse_int(a.s, a.len, &cycles) || parse_int(b.s, b.len, &count))
		return text_error(r, "a number does not fit 64 bits");
	if (st->period > 0) {
		/* delays in cycles become nanoseconds */
		if (st->cpu_hz > 0)
			cycles = float_to_int64((double)cycles *
						(double)st->period /
						((double)st->cpu_hz / 1e9));
		count = (int64_t)((uint64_t)count * (uint64_t)st->period);
	}
	values[0] = count;
	values[1] = cycles;
	r->naddrs = 0;
	rc = collect_hex(r, s + at, addr_run(s, len, at) - at);
	if (rc)
		return rc;
	adjust_addrs(r, 0);
	return pki_gperf_add(r->g, r->addrs, r->naddrs, values, 2, 0);
}

static int read_contention(struct text_reader *r)
{
	static const char *const contention_types[] = {
		"contentions", "count", "delay", "nanoseconds",
	};
	struct contention_state st = { 1, 0 };
	const char *s = NULL;
	size_t len = 0;
	int rc = 0;

	/* "key = value" lines up to the first sample or "---" */
	while (!rc && next_line(r)) {
		s = r->line;
		len = r->len;
		pki_gperf_trim(&s, &len);
		if (!len || s[0] == '#')
			continue;
		if (pki_starts_with_n(s, len, "---") || !memchr(s, '=', len))
			break;
		rc = contention_attr(r, &st, s, len);
	}
	if (rc || pk_context_error(r->ctx)->code)
		return rc ? rc : pk_context_error(r->ctx)->code;
	rc = add_sample_types(r, contention_types,
			      PK_ARRAY_SIZE(contention_types));
	if (rc)
		return rc;
	pk_profile_set_period(r->p, "contentions", "count", st.period);
	while (!rc && r->line) {
		s = r->line;
		len = r->len;
		pki_gperf_trim(&s, &len);
		if (pki_starts_with_n(s, len, "---"))
			break;
		if (len && s[0] != '#')
			rc = contention_sample(r, &st, s, len);
		if (!rc)
			next_line(r);
	}
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	return rc ? rc : read_memory_map(r);
}

/* ---- threads ---- */

/* One thread's stack lines; r->line ends at the next "---" or NULL. */
static int thread_stack(struct text_reader *r, int *same)
{
	*same = 0;
	r->naddrs = 0;
	while (next_line(r)) {
		const char *s = r->line;
		size_t len = r->len;
		int rc;

		pki_gperf_trim(&s, &len);
		if (!len)
			continue;
		if (pki_starts_with_n(s, len, "---"))
			return 0;
		if (contains(s, len, "same as previous thread")) {
			*same = 1;
			continue;
		}
		rc = collect_hex(r, s, len);
		if (rc)
			return rc;
	}
	return pk_context_error(r->ctx)->code;
}

static int thread_sample(struct text_reader *r)
{
	int64_t one = 1;
	int same, rc = thread_stack(r, &same);

	if (rc)
		return rc;
	if (same || !r->naddrs) {
		/* one more thread with the previous stack */
		if (!r->nlast)
			return 0;
		return pki_gperf_add(r->g, r->last, r->nlast, &one, 1, 0);
	}
	adjust_addrs(r, 1);
	if (pki_grow(&r->last, &r->last_cap, r->naddrs, sizeof(*r->last)) < 0)
		return nomem(r);
	memcpy(r->last, r->addrs, r->naddrs * sizeof(*r->addrs));
	r->nlast = r->naddrs;
	return pki_gperf_add(r->g, r->addrs, r->naddrs, &one, 1, 0);
}

static int read_threads(struct text_reader *r)
{
	int rc = 0;

	if (pk_profile_add_sample_type(r->p, "thread", "count", NULL,
				       PK_VALUE_COUNT) < 0)
		return nomem(r);
	pk_profile_set_period(r->p, "thread", "count", 1);
	if (match_threadz(r->line, r->len)) {
		/* comments up to the first thread */
		while (next_line(r) && !is_map_sentinel(r->line, r->len) &&
		       r->line[0] != '-')
			;
	}
	while (!rc && r->line && !is_map_sentinel(r->line, r->len)) {
		if (pki_starts_with_n(r->line, r->len, "---- no stack trace for"))
			break;
		if (!match_thread_start(r->line, r->len))
			return text_error(r, "expected '--- Thread ID (name: "
					  "NAME/TID) stack: ---'");
		rc = thread_sample(r);
	}
	if (!rc)
		rc = pk_context_error(r->ctx)->code;
	return rc ? rc : read_memory_map(r);
}

/* ---- the reader ---- */

static int first_line(struct text_reader *r)
{
	while (next_line(r))
		if (!blank_or_comment(r->line, r->len))
			return 0;
	if (pk_context_error(r->ctx)->code)
		return pk_context_error(r->ctx)->code;
	return pk_error_set(r->ctx, PK_EINPUT, "%s: no gperftools profile "
			    "header", pk_input_name(r->in));
}

static int gperf_heap_read(struct pk_context *ctx, struct pk_input *in,
			   struct pk_profile *p, const struct pk_options *opts)
{
	struct text_reader r;
	enum legacy_kind kind;
	unsigned fixups = 0;
	int rc;

	(void)opts;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	rc = first_line(&r);
	if (rc)
		return rc;
	kind = classify(r.line, r.len);
	if (kind == KIND_NONE)
		return text_error(&r, "not a gperftools heap, growth, "
				  "contention or thread profile header");
	r.g = pki_gperf_new(ctx, in, p);
	if (!r.g)
		return pk_context_error(ctx)->code;
	if (kind == KIND_HEAP || kind == KIND_GROWTH) {
		rc = read_heap(&r);
		pki_gperf_set_hidden_frames(p, PK_GPERF_HEAP);
	} else if (kind == KIND_CONTENTION) {
		rc = read_contention(&r);
		pki_gperf_set_hidden_frames(p, PK_GPERF_LOCK);
	} else {
		rc = read_threads(&r);
		pki_gperf_set_hidden_frames(p, PK_GPERF_CPU);
		fixups = PK_GPERF_DROP_DUPLICATE_LEAF;
	}
	if (!rc)
		rc = pki_gperf_finish(r.g, fixups);
	pki_gperf_free(r.g);
	free(r.addrs);
	free(r.last);
	return rc;
}

const struct pki_format pki_format_gperftools_heap = {
	.name = "gperftools-heap",
	.read_description = "gperftools heap, growth, contention and thread "
			    "profiles (text), unsymbolized",
	.probe = gperf_heap_probe,
	.read_flags = PKI_READ_PPROF_NAMES,
	.read = gperf_heap_read,
};
