/* SPDX-License-Identifier: MIT */
/*
 * JSON read as a stream over yajl's callbacks (json-read.h says what it
 * gives), with a fast path for the tokens profiles are made of (below).
 * The reader keeps a stack of the objects and arrays open, each
 * with its member's key or element's index, for messages, and with its
 * node in a tree of the reader's paths, for dispatch: a value is the
 * caller's when the stack's nodes lead to a node with an id.
 */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "json-read.h"
#include "json.h"
#include "strbuf.h"

/* yajl gets the input in slices of this much: how far a token can grow
 * past max_string before the reader sees it. */
#define SLICE (1u << 20)
/* Bytes of a key kept for messages and pki_json_reader_key. */
#define KEY_KEEP 256
#define NO_NODE UINT32_MAX

/* ---- the paths, as a tree ---- */

enum step { STEP_ROOT, STEP_KEY, STEP_ANY_KEY, STEP_INDEX };

struct path_node {
	enum step step;
	const char *key;	/* STEP_KEY's, in the caller's table */
	size_t key_len;
	int id;
	uint32_t first_child, next_sibling;	/* NO_NODE: none */
};

/* An object or array open, outermost first. */
struct frame {
	uint32_t node;		/* its path node, or NO_NODE */
	uint32_t member;	/* the current member's or elements' node */
	int is_array;
	uint64_t count;		/* values begun in it */
	uint64_t start;		/* the offset of its '{' or '[' */
	size_t key_at, key_len;	/* the current key, in keys */
};

/* A number's decimal digits: value = mant * 10^exp10. */
struct decimal {
	uint64_t mant;		/* the first 19 significant digits */
	long exp10;
	int negative;
	int inexact;		/* non-zero digits past the 19th */
};

struct pki_json_reader {
	struct pki_json_read_spec spec;
	yajl_handle yajl;
	locale_t c_locale;

	struct path_node *nodes;
	size_t nnodes, nodes_cap;

	struct frame *frames;
	size_t depth, frames_cap;
	struct pk_strbuf keys;

	struct pki_json_value value;
	struct decimal digits;		/* value's, when digits_read */
	int digits_read;
	struct pk_strbuf scratch;	/* a number's text for strtod_l */

	const unsigned char *slice;	/* what yajl parses now */
	size_t slice_len;
	uint64_t base;			/* offset of slice */
	uint64_t last_end;		/* where the last token ended */
	uint64_t value_start;		/* where the current value starts */
	int bom;			/* bytes of a byte order mark seen; 3: done */
	uint64_t doc_start;		/* after the byte order mark */
	int rc;				/* the first error, kept */

	/* the fast path (below) */
	int fast;			/* it has the input now */
	int engage;			/* yajl stopped for it */
	int engage_state;		/* where it starts: EXPECT_* */
	int replaying;			/* yajl parses our JSON, not the input */
	enum {
		EXPECT_FIRST,	/* after '[' or '{' */
		EXPECT_VALUE,	/* after ',' in an array, ':' in an object */
		EXPECT_COMMA,	/* after a value */
		EXPECT_KEY,	/* after ',' in an object */
		EXPECT_COLON,	/* after a key */
	} fast_state;
	int fast_in_array;		/* the innermost container is one */
	uint64_t fast_since;		/* where it took over */
	uint64_t fast_after;		/* not before this offset */
	unsigned short_runs;		/* it read little, this many times */
	struct pk_strbuf error;
};

/* ---- paths ---- */

static uint32_t add_node(struct pki_json_reader *jr, uint32_t parent,
			 enum step step, const char *key, size_t key_len)
{
	uint32_t i, *link;

	/* first: the links below point into the array */
	if (pki_grow(&jr->nodes, &jr->nodes_cap, jr->nnodes + 1,
		     sizeof(*jr->nodes)) < 0)
		return NO_NODE;
	for (link = parent == NO_NODE ? NULL : &jr->nodes[parent].first_child;
	     link && *link != NO_NODE; link = &jr->nodes[*link].next_sibling) {
		const struct path_node *n = &jr->nodes[*link];

		if (n->step == step && n->key_len == key_len &&
		    (!key_len || memcmp(n->key, key, key_len) == 0))
			return *link;
	}
	i = (uint32_t)jr->nnodes++;
	jr->nodes[i] = (struct path_node){
		.step = step, .key = key, .key_len = key_len,
		.first_child = NO_NODE, .next_sibling = NO_NODE,
	};
	if (link)
		*link = i;
	return i;
}

/* "$.a[].b.*": -1 for a path that does not parse or no memory. */
static int add_path(struct pki_json_reader *jr, const char *s, int id)
{
	uint32_t node = 0;

	if (*s++ != '$')
		return -1;
	while (*s && node != NO_NODE) {
		if (s[0] == '[' && s[1] == ']') {
			node = add_node(jr, node, STEP_INDEX, NULL, 0);
			s += 2;
		} else if (s[0] == '.' && s[1] == '*' && (!s[2] || strchr(".[", s[2]))) {
			node = add_node(jr, node, STEP_ANY_KEY, NULL, 0);
			s += 2;
		} else if (s[0] == '.') {
			size_t len = strcspn(++s, ".[");

			if (!len)
				return -1;
			node = add_node(jr, node, STEP_KEY, s, len);
			s += len;
		} else {
			return -1;
		}
	}
	if (node == NO_NODE)
		return -1;
	jr->nodes[node].id = id;
	return 0;
}

/* The node of a member with this key under node, or NO_NODE. */
static uint32_t member_node(const struct pki_json_reader *jr, uint32_t node,
			    const unsigned char *key, size_t len)
{
	uint32_t c, any = NO_NODE;

	if (node == NO_NODE)
		return NO_NODE;
	for (c = jr->nodes[node].first_child; c != NO_NODE; c = jr->nodes[c].next_sibling) {
		const struct path_node *n = &jr->nodes[c];

		/* the first byte tells most keys apart, without a call */
		if (n->step == STEP_KEY && n->key_len == len &&
		    (!len || (n->key[0] == (char)key[0] && memcmp(n->key, key, len) == 0)))
			return c;
		if (n->step == STEP_ANY_KEY)
			any = c;
	}
	return any;
}

static uint32_t element_node(const struct pki_json_reader *jr, uint32_t node)
{
	uint32_t c;

	if (node == NO_NODE)
		return NO_NODE;
	for (c = jr->nodes[node].first_child; c != NO_NODE; c = jr->nodes[c].next_sibling)
		if (jr->nodes[c].step == STEP_INDEX)
			return c;
	return NO_NODE;
}

/* ---- where the parser is ---- */

/* Where yajl's last token ended (in its callbacks: the current one's). */
static uint64_t token_end(const struct pki_json_reader *jr)
{
	return jr->base + yajl_get_bytes_consumed(jr->yajl);
}

/* One step of the current value's path: ".key", "[\"a key\"]" or "[12]". */
static int add_step(const struct pki_json_reader *jr, const struct frame *f,
		    struct pk_strbuf *b)
{
	const char *key = f->key_len ? jr->keys.s + f->key_at : "";
	size_t i, ident = f->key_len && !(key[0] >= '0' && key[0] <= '9');
	char num[32];

	if (!f->count)
		return 0;	/* no element or key yet */
	if (f->is_array) {
		snprintf(num, sizeof(num), "[%llu]", (unsigned long long)(f->count - 1));
		return pki_strbuf_adds(b, num);
	}
	for (i = 0; i < f->key_len && ident; i++)
		ident = key[i] == '_' || key[i] == '$' ||
			(key[i] >= '0' && key[i] <= '9') ||
			((key[i] | 0x20) >= 'a' && (key[i] | 0x20) <= 'z');
	if (ident)
		return pki_strbuf_add(b, ".", 1) || pki_strbuf_add(b, key, f->key_len);
	return pki_strbuf_add(b, "[", 1) || pki_strbuf_add_json(b, key, f->key_len) ||
	       pki_strbuf_add(b, "]", 1);
}

/* "$.nodes[12].callFrame.url" into b: the current value's path, its
 * middle left out when it is deep ("$.a[0][0]...(100 more)...[0][0]"). */
static int add_path_text(const struct pki_json_reader *jr, struct pk_strbuf *b)
{
	size_t d, ends = 8;
	int rc = pki_strbuf_add(b, "$", 1);
	char more[48];

	for (d = 0; d < jr->depth && !rc; d++) {
		if (jr->depth > 2 * ends + 1 && d == ends) {
			snprintf(more, sizeof(more), "...(%zu more)...",
				 jr->depth - 2 * ends);
			rc = pki_strbuf_adds(b, more);
			d = jr->depth - ends - 1;
			continue;
		}
		rc = add_step(jr, &jr->frames[d], b);
	}
	return rc;
}

/* "offset N ($.path)" into b. */
static int add_where(const struct pki_json_reader *jr, uint64_t offset,
		     struct pk_strbuf *b)
{
	char at[48];

	snprintf(at, sizeof(at), "offset %llu (", (unsigned long long)offset);
	return pki_strbuf_adds(b, at) || add_path_text(jr, b) || pki_strbuf_adds(b, ")");
}

void pki_json_reader_where(struct pki_json_reader *jr, char *buf, size_t size)
{
	jr->scratch.len = 0;
	snprintf(buf, size, "%s", add_where(jr, jr->value_start, &jr->scratch) ?
		 "somewhere" : jr->scratch.s);
}

static int set_errorv(struct pki_json_reader *jr, uint64_t offset,
		      const char *fmt, va_list ap)
{
	char what[512];

	if (jr->rc)
		return jr->rc;
	vsnprintf(what, sizeof(what), fmt, ap);
	jr->error.len = 0;
	if (add_where(jr, offset, &jr->error) || pki_strbuf_adds(&jr->error, ": ") ||
	    pki_strbuf_adds(&jr->error, what))
		return jr->rc = jr->spec.enomem;
	return jr->rc = jr->spec.einput;
}

static int set_error(struct pki_json_reader *jr, uint64_t offset,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int set_error(struct pki_json_reader *jr, uint64_t offset,
		     const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = set_errorv(jr, offset, fmt, ap);
	va_end(ap);
	return rc;
}

int pki_json_reader_fail(struct pki_json_reader *jr, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = set_errorv(jr, jr->value_start, fmt, ap);
	va_end(ap);
	return rc;
}

int pki_json_reader_code(const struct pki_json_reader *jr)
{
	return jr->rc;
}

const char *pki_json_reader_error(const struct pki_json_reader *jr)
{
	return jr->error.len ? jr->error.s : "";
}

uint64_t pki_json_reader_offset(const struct pki_json_reader *jr)
{
	return jr->base;
}

uint64_t pki_json_reader_value_offset(const struct pki_json_reader *jr)
{
	return jr->value_start;
}

uint64_t pki_json_reader_index(const struct pki_json_reader *jr)
{
	const struct frame *f = jr->depth ? &jr->frames[jr->depth - 1] : NULL;

	return f && f->is_array && f->count ? f->count - 1 : 0;
}

const char *pki_json_reader_key(const struct pki_json_reader *jr, size_t *len)
{
	const struct frame *f = jr->depth ? &jr->frames[jr->depth - 1] : NULL;

	*len = f && !f->is_array ? f->key_len : 0;
	return *len ? jr->keys.s + f->key_at : "";
}

/* ---- numbers ---- */

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Digits of a number's integer part or fraction into d: past the 19th,
 * only whether they are zeros and how many before the point. */
static const unsigned char *add_digits(const unsigned char *s,
				       const unsigned char *end, int fraction,
				       int *digits, struct decimal *d)
{
	/* in locals: what s points to might be d, as far as C knows */
	uint64_t mant = d->mant;
	long exp10 = d->exp10;
	int n = *digits, inexact = d->inexact;

	for (; s < end && is_digit(*s); s++) {
		if (n < 19) {
			n += mant || *s != '0';
			mant = mant * 10 + (uint64_t)(*s - '0');
			exp10 -= fraction;
		} else {
			inexact |= *s != '0';
			exp10 += !fraction;
		}
	}
	d->mant = mant;
	d->exp10 = exp10;
	d->inexact = inexact;
	*digits = n;
	return s;
}

/* The digits of the number text[0..len) into d, in one pass: 1 when the
 * text is exactly one JSON number, 0 when not (d is then of no use). */
static int read_decimal(const char *text, size_t len, struct decimal *d)
{
	const unsigned char *s = (const unsigned char *)text, *end = s + len;
	int digits = 0, eneg = 0;
	long e = 0;

	memset(d, 0, sizeof(*d));
	if (s < end && *s == '-')
		d->negative = 1, s++;
	if (s == end || !is_digit(*s) || (*s == '0' && s + 1 < end && is_digit(s[1])))
		return 0;
	s = add_digits(s, end, 0, &digits, d);
	if (s < end && *s == '.') {
		if (++s == end || !is_digit(*s))
			return 0;
		s = add_digits(s, end, 1, &digits, d);
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		if (++s < end && (*s == '-' || *s == '+'))
			eneg = *s++ == '-';
		if (s == end || !is_digit(*s))
			return 0;
		for (; s < end && is_digit(*s); s++)
			if (e < 100000000)
				e = e * 10 + (*s - '0');
	}
	d->exp10 += eneg ? -e : e;
	return s == end;
}

static const uint64_t pow10_u64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};

/*
 * mant * 10^exp10 rounded to a whole number (half away from zero) into
 * *out as a magnitude. -1 when it passes UINT64_MAX; *exact says whether
 * nothing was rounded.
 */
static int decimal_magnitude(const struct decimal *d, long exp10, uint64_t *out,
			     int *exact)
{
	uint64_t m = d->mant;

	*exact = !d->inexact;
	if (!m || exp10 == 0) {
		*out = m;
		return 0;
	}
	if (exp10 > 0) {
		if (exp10 > 19 || m > UINT64_MAX / pow10_u64[exp10])
			return -1;
		*out = m * pow10_u64[exp10];
		return 0;
	}
	if (exp10 < -19) {
		*out = 0;	/* m < 2e19: under half of 10^20 */
		*exact = 0;
		return 0;
	}
	*out = m / pow10_u64[-exp10];
	m %= pow10_u64[-exp10];
	*exact &= m == 0;
	*out += m >= pow10_u64[-exp10] - m;
	return 0;
}

/* A magnitude with its sign as an int64 in [min, max]; -1 if not. */
static int signed_in(uint64_t mag, int negative, int64_t min, int64_t max,
		     int64_t *out)
{
	int64_t v;

	if (negative) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -1;
		v = mag ? (int64_t)(0 - mag) : 0;	/* two's complement, as C23 says */
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -1;
		v = (int64_t)mag;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static double number_double(struct pki_json_reader *jr, const struct decimal *d,
			    const char *text, size_t len)
{
	static const double pow10_exact[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	double v;

	/* both factors exact: one rounding, as strtod's */
	if (!d->inexact && d->mant <= (1ULL << 53) && d->exp10 >= -22 && d->exp10 <= 22) {
		v = (double)d->mant;
		v = d->exp10 < 0 ? v / pow10_exact[-d->exp10] : v * pow10_exact[d->exp10];
		return d->negative ? -v : v;
	}
	jr->scratch.len = 0;
	if (pki_strbuf_add(&jr->scratch, text, len))
		return NAN;
	return strtod_l(jr->scratch.s, NULL, jr->c_locale);
}

/*
 * Most numbers are plain integers that fit, without a decimal point, an
 * exponent or more than 18 digits: 1 and the value for one of those
 * (exactly a JSON number: no leading zero), 0 for anything else.
 */
static int plain_int(const char *s, size_t len, int64_t *out)
{
	size_t sign = s[0] == '-', i;
	uint64_t mag = 0;

	if (len == sign || len - sign > 18 || (s[sign] == '0' && len - sign > 1))
		return 0;
	for (i = sign; i < len; i++) {
		if (!is_digit((unsigned char)s[i]))
			return 0;
		mag = mag * 10 + (uint64_t)(s[i] - '0');
	}
	*out = sign ? -(int64_t)mag : (int64_t)mag;
	return 1;
}

/*
 * Whether the digits after the point make a number no whole one, seen
 * without a division: 10^k divides a whole mant * 10^-k's mant, and so
 * does 2^k (1.5, 0.25, 12.345: a profile's times in ms).
 */
static int has_fraction(const struct decimal *d)
{
	return d->exp10 < 0 && d->exp10 >= -19 &&
	       (d->mant & ((1ULL << -d->exp10) - 1)) != 0;
}

/* The digits of v, read again unless v is the value just read. */
static void value_digits(const struct pki_json_reader *jr,
			 const struct pki_json_value *v, struct decimal *d)
{
	if (v == &jr->value && jr->digits_read)
		*d = jr->digits;
	else
		read_decimal(v->text, v->len, d);
}

/*
 * The value of a number token: is_int and i where whole, d always. Its
 * digits are read here unless the fast path read them into jr->digits
 * already (have_digits).
 */
static int set_number(struct pki_json_reader *jr, const char *text, size_t len,
		      int have_digits)
{
	struct pki_json_value *v = &jr->value;
	struct decimal *d = &jr->digits;
	uint64_t mag;
	int exact;

	if (have_digits) {
		/* as they are */
	} else if (plain_int(text, len, &v->i)) {
		v->is_int = 1;
		v->d = (double)v->i;
		return 0;
	} else {
		read_decimal(text, len, d);
	}
	jr->digits_read = 1;
	v->is_int = !has_fraction(d) &&
		    !decimal_magnitude(d, d->exp10, &mag, &exact) && exact &&
		    !signed_in(mag, d->negative, INT64_MIN, INT64_MAX, &v->i);
	v->d = v->is_int ? (double)v->i : number_double(jr, d, text, len);
	if (isnan(v->d))
		return jr->rc = jr->spec.enomem;
	return 0;
}

/* ---- the checks readers share ---- */

static const char *type_name(enum pki_json_type t)
{
	static const char *const names[] = {
		[PKI_JSON_NULL] = "null", [PKI_JSON_BOOL] = "a boolean",
		[PKI_JSON_NUMBER] = "a number", [PKI_JSON_STRING] = "a string",
		[PKI_JSON_BEGIN_OBJECT] = "an object", [PKI_JSON_END_OBJECT] = "an object",
		[PKI_JSON_BEGIN_ARRAY] = "an array", [PKI_JSON_END_ARRAY] = "an array",
	};

	return names[t];
}

static int expect_type(struct pki_json_reader *jr, const struct pki_json_value *v,
		       enum pki_json_type begin, enum pki_json_type end)
{
	return v->type == begin || v->type == end ? 0 :
	       pki_json_reader_fail(jr, "expected %s, not %s", type_name(begin),
				    type_name(v->type));
}

int pki_json_expect_object(struct pki_json_reader *jr, const struct pki_json_value *v)
{
	return expect_type(jr, v, PKI_JSON_BEGIN_OBJECT, PKI_JSON_END_OBJECT);
}

int pki_json_expect_array(struct pki_json_reader *jr, const struct pki_json_value *v)
{
	return expect_type(jr, v, PKI_JSON_BEGIN_ARRAY, PKI_JSON_END_ARRAY);
}

int pki_json_expect_string(struct pki_json_reader *jr, const struct pki_json_value *v)
{
	return v->type == PKI_JSON_STRING ? 0 :
	       pki_json_reader_fail(jr, "expected a string, not %s", type_name(v->type));
}

int pki_json_expect_int(struct pki_json_reader *jr, const struct pki_json_value *v,
			int64_t min, int64_t max, int64_t *out)
{
	if (v->type == PKI_JSON_NUMBER && v->is_int && v->i >= min && v->i <= max) {
		*out = v->i;
		return 0;
	}
	if (v->type != PKI_JSON_NUMBER)
		return pki_json_reader_fail(jr, "expected a whole number from %lld "
					    "to %lld, not %s", (long long)min,
					    (long long)max, type_name(v->type));
	return pki_json_reader_fail(jr, "expected a whole number from %lld to "
				    "%lld, not %.*s", (long long)min, (long long)max,
				    v->len > 40 ? 40 : (int)v->len, v->text);
}

int pki_json_expect_number(struct pki_json_reader *jr,
			   const struct pki_json_value *v, double *out)
{
	if (v->type == PKI_JSON_NUMBER && isfinite(v->d)) {
		*out = v->d;
		return 0;
	}
	if (v->type != PKI_JSON_NUMBER)
		return pki_json_reader_fail(jr, "expected a number, not %s",
					    type_name(v->type));
	return pki_json_reader_fail(jr, "expected a finite number, not %.*s",
				    v->len > 40 ? 40 : (int)v->len, v->text);
}

/* v / 10^decimals as a decimal, for messages (32 bytes hold any). */
static const char *scaled_text(char *buf, int64_t v, int decimals)
{
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	uint64_t div = decimals > 0 && decimals < 20 ? pow10_u64[decimals] : 1;
	int n = snprintf(buf, 32, "%s%llu", v < 0 ? "-" : "",
			 (unsigned long long)(mag / div));

	if (div > 1 && mag % div)
		snprintf(buf + n, (size_t)(32 - n), ".%0*llu", decimals,
			 (unsigned long long)(mag % div));
	return buf;
}

int pki_json_expect_scaled(struct pki_json_reader *jr,
			   const struct pki_json_value *v, int decimals,
			   int64_t min, int64_t max, int64_t *out)
{
	struct decimal d;
	uint64_t mag;
	int64_t whole;
	int exact;

	if (v->type != PKI_JSON_NUMBER)
		return pki_json_reader_fail(jr, "expected a number, not %s",
					    type_name(v->type));
	/* a whole number, as most are: no need to read its digits again */
	if (v->is_int && decimals >= 0 && decimals < 19 &&
	    !__builtin_mul_overflow(v->i, (int64_t)pow10_u64[decimals], &whole) &&
	    whole >= min && whole <= max) {
		*out = whole;
		return 0;
	}
	value_digits(jr, v, &d);
	if (decimal_magnitude(&d, d.exp10 + decimals, &mag, &exact) ||
	    signed_in(mag, d.negative, min, max, out)) {
		char lo[32], hi[32];

		return pki_json_reader_fail(jr, "expected a number from %s to %s, "
					    "not %.*s", scaled_text(lo, min, decimals),
					    scaled_text(hi, max, decimals),
					    v->len > 40 ? 40 : (int)v->len, v->text);
	}
	return 0;
}

int pki_json_decimals(const struct pki_json_value *v)
{
	struct decimal d;

	if (v->type != PKI_JSON_NUMBER || v->is_int)
		return 0;
	read_decimal(v->text, v->len, &d);
	while (d.mant && d.exp10 < 0 && d.mant % 10 == 0)
		d.mant /= 10, d.exp10++;
	return !d.mant || d.exp10 >= 0 ? 0 : d.exp10 < -18 ? 18 : (int)-d.exp10;
}

/* ---- values, as yajl or the fast path finds them ---- */

static inline int wanted(const struct pki_json_reader *jr, uint32_t node)
{
	return node != NO_NODE && jr->nodes[node].id;
}

/* The node of the value at [start, end), counted in its array. */
static inline uint32_t begin_value(struct pki_json_reader *jr, uint64_t start,
			    uint64_t end)
{
	struct frame *f;

	jr->value_start = start;
	jr->last_end = end;
	jr->digits_read = 0;
	if (!jr->depth)
		return 0;	/* the document: the root node */
	f = &jr->frames[jr->depth - 1];
	if (f->is_array)
		f->count++;
	return f->member;
}

/* Hand the current value to the caller if its node has an id. 0 stops
 * the parse, its reason kept in rc. */
static inline int deliver(struct pki_json_reader *jr, uint32_t node, enum pki_json_type type)
{
	int rc;

	if (!wanted(jr, node))
		return 1;
	jr->value.type = type;
	rc = jr->spec.value(jr->spec.arg, jr, jr->nodes[node].id, &jr->value);
	if (rc && !jr->rc)
		jr->rc = rc;
	return !rc;
}

static int take_literal(struct pki_json_reader *jr, enum pki_json_type type,
			int truth, uint64_t start, uint64_t end)
{
	uint32_t node = begin_value(jr, start, end);

	jr->value.truth = truth;
	return deliver(jr, node, type);
}

/* A number; have_digits: the fast path read its digits into jr->digits. */
static int take_number(struct pki_json_reader *jr, const char *text, size_t len,
		       int have_digits, uint64_t start)
{
	uint32_t node = begin_value(jr, start, start + len);

	if (!wanted(jr, node))
		return 1;
	jr->value.text = text;
	jr->value.len = len;
	return !set_number(jr, text, len, have_digits) &&
	       deliver(jr, node, PKI_JSON_NUMBER);
}

/* A plain integer whose value is in jr->value.i already. */
static inline int take_int(struct pki_json_reader *jr, const char *text, size_t len,
		    uint64_t start)
{
	uint32_t node = begin_value(jr, start, start + len);

	if (!wanted(jr, node))
		return 1;
	jr->value.text = text;
	jr->value.len = len;
	jr->value.is_int = 1;
	jr->value.d = (double)jr->value.i;
	return deliver(jr, node, PKI_JSON_NUMBER);
}

static int too_long(struct pki_json_reader *jr, size_t len)
{
	if (len <= jr->spec.max_string)
		return 0;
	set_error(jr, jr->value_start, "a string of %zu bytes, over the limit "
		  "of %zu", len, jr->spec.max_string);
	return 1;
}

static int take_string(struct pki_json_reader *jr, const unsigned char *s,
		       size_t len, uint64_t start, uint64_t end)
{
	uint32_t node = begin_value(jr, start, end);

	if (too_long(jr, len))
		return 0;
	jr->value.text = (const char *)s;
	jr->value.len = len;
	return deliver(jr, node, PKI_JSON_STRING);
}

static int take_key(struct pki_json_reader *jr, const unsigned char *key,
		    size_t len, uint64_t start, uint64_t end)
{
	struct frame *f = &jr->frames[jr->depth - 1];

	jr->value_start = start;
	jr->last_end = end;
	if (too_long(jr, len))
		return 0;
	f->count++;
	f->member = member_node(jr, f->node, key, len);
	jr->keys.len = f->key_at;
	f->key_len = len < KEY_KEEP ? len : KEY_KEEP;
	if (pki_strbuf_add(&jr->keys, (const char *)key, f->key_len)) {
		jr->rc = jr->spec.enomem;
		return 0;
	}
	return 1;
}

static int begin_container(struct pki_json_reader *jr, int is_array, uint64_t start)
{
	uint32_t node = begin_value(jr, start, start + 1);
	struct frame *f;

	if (jr->depth >= jr->spec.max_depth) {
		set_error(jr, start, "objects and arrays nested deeper than %u",
			  jr->spec.max_depth);
		return 0;
	}
	if (!deliver(jr, node, is_array ? PKI_JSON_BEGIN_ARRAY : PKI_JSON_BEGIN_OBJECT))
		return 0;
	if (pki_grow(&jr->frames, &jr->frames_cap, jr->depth + 1,
		     sizeof(*jr->frames)) < 0) {
		jr->rc = jr->spec.enomem;
		return 0;
	}
	f = &jr->frames[jr->depth++];
	*f = (struct frame){
		.node = node, .is_array = is_array, .key_at = jr->keys.len, .start = start,
		.member = is_array ? element_node(jr, node) : NO_NODE,
	};
	return 1;
}

static int end_container(struct pki_json_reader *jr, int is_array, uint64_t start)
{
	const struct frame *f = &jr->frames[--jr->depth];

	/* what is said about the object or array is said where it begins */
	jr->keys.len = f->key_at;
	jr->value_start = f->start;
	jr->last_end = start + 1;
	return deliver(jr, f->node, is_array ? PKI_JSON_END_ARRAY : PKI_JSON_END_OBJECT);
}

/* ---- yajl's callbacks ---- */

/*
 * While a yajl of our own is brought to where the fast path left off
 * (replay), what it parses is ours, not the input's: nothing of it goes
 * further. The replay holds only [, {, "" keys, null and commas.
 */

static int on_null(void *ctx)
{
	struct pki_json_reader *jr = ctx;
	uint64_t end = token_end(jr);

	return jr->replaying || take_literal(jr, PKI_JSON_NULL, 0, end - 4, end);
}

static int on_boolean(void *ctx, int truth)
{
	struct pki_json_reader *jr = ctx;
	uint64_t end = token_end(jr);

	return take_literal(jr, PKI_JSON_BOOL, truth, end - (truth ? 4 : 5), end);
}

static int fast_path_fits(const struct pki_json_reader *jr, uint64_t end);

/* yajl stops after the token that ends at end for the fast path to read
 * on from state, if it may. */
static int engage(struct pki_json_reader *jr, uint64_t end, int state)
{
	if (!jr->depth || !fast_path_fits(jr, end))
		return 1;
	jr->engage = 1;
	jr->engage_state = state;
	return 0;
}

/* A number cut by a feed was yajl's; the fast path reads on after it. */
static int on_number(void *ctx, const char *text, size_t len)
{
	struct pki_json_reader *jr = ctx;
	uint64_t end = token_end(jr);

	return take_number(jr, text, len, 0, end - len) &&
	       engage(jr, end, EXPECT_COMMA);
}

/* Where a string token of len decoded bytes that ends at end began. */
static uint64_t string_start(const struct pki_json_reader *jr,
			     const unsigned char *s, size_t len, uint64_t end)
{
	if (jr->slice && s >= jr->slice && s <= jr->slice + jr->slice_len)
		return jr->base + (uint64_t)(s - jr->slice) - 1;
	return end - len - 2;	/* escapes or a token over two feeds: near */
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct pki_json_reader *jr = ctx;
	uint64_t end = token_end(jr);

	return take_string(jr, s, len, string_start(jr, s, len, end), end);
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
	struct pki_json_reader *jr = ctx;
	uint64_t end = token_end(jr);

	return jr->replaying || take_key(jr, key, len, string_start(jr, key, len, end), end);
}


static int on_end_object(void *ctx)
{
	struct pki_json_reader *jr = ctx;

	return end_container(jr, 0, token_end(jr) - 1);
}

/* An object or array begun: yajl stops right after its '{' or '[' for
 * the fast path to read on. */
static int begin_and_engage(struct pki_json_reader *jr, int is_array)
{
	uint64_t end = token_end(jr);

	if (jr->replaying)
		return 1;
	return begin_container(jr, is_array, end - 1) &&
	       engage(jr, end, EXPECT_FIRST);
}

static int on_begin_object(void *ctx)
{
	return begin_and_engage(ctx, 0);
}

static int on_begin_array(void *ctx)
{
	return begin_and_engage(ctx, 1);
}

static int on_end_array(void *ctx)
{
	struct pki_json_reader *jr = ctx;

	return end_container(jr, 1, token_end(jr) - 1);
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_begin_object,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end_object,
	.yajl_start_array = on_begin_array,
	.yajl_end_array = on_end_array,
};

/* yajl stopped: a callback's reason, or yajl's own message. */
static int parse_failed(struct pki_json_reader *jr, yajl_status status,
			int at_end)
{
	unsigned char *msg;
	uint64_t at = at_end ? jr->base : token_end(jr);

	if (status == yajl_status_client_canceled || jr->rc)
		return jr->rc ? jr->rc : jr->spec.einput;
	if (at_end && !jr->depth && jr->last_end == jr->doc_start)
		return set_error(jr, jr->base, "no JSON document (an empty input?)");
	msg = yajl_get_error(jr->yajl, 0, NULL, 0);
	if (msg && strstr((const char *)msg, "premature EOF"))
		set_error(jr, at, "the input ends inside the document (truncated?)");
	else
		set_error(jr, at, "not JSON: %.*s", msg ? (int)strcspn((const char *)msg, "\n") : 0,
			  msg ? (const char *)msg : "");
	if (msg)
		yajl_free_error(jr->yajl, msg);
	return jr->rc;
}

static int new_yajl(struct pki_json_reader *jr)
{
	if (jr->yajl)
		yajl_free(jr->yajl);
	jr->yajl = yajl_alloc(&callbacks, NULL, jr);
	if (!jr->yajl)
		return jr->rc = jr->spec.enomem;
	/* UTF-8 is the model's to keep as bytes: not checked twice */
	yajl_config(jr->yajl, yajl_dont_validate_strings, 1);
	return 0;
}

/* ---- the fast path ---- */

/* At the end of a slice read (at): the bytes since the last token are
 * bounded, as yajl keeps those of a token that goes on. */
static void check_gap(struct pki_json_reader *jr, uint64_t at)
{
	if (at - jr->last_end > jr->spec.max_string)
		set_error(jr, jr->last_end, "no value ends within %zu bytes: "
			  "a string, number or white space over the limit",
			  jr->spec.max_string);
}

/*
 * yajl reads a profile at about 100 MB/s. The fast path reads the JSON
 * profiles are made of several times faster: objects, arrays, keys and
 * strings without escapes, numbers and literals. yajl starts the
 * document and stops after the '{' or '[' of its first object or array;
 * the fast path reads on, and gives the input back to yajl at the first
 * token it does not read itself (a string with an escape or a control
 * character, a string that goes on past the bytes fed, a bad token, a
 * stray comma), which yajl then judges as it would have, and at the end
 * of the document. To take over, a new yajl is fed what brings it to the
 * same place ("[{\"\":[null," for an element expected in an array in an
 * object in an array). A token cut at the end of a feed is yajl's, as
 * it came (yajl's offsets in its messages depend on where feeds cut
 * tokens); the fast path reads on after it.
 */

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* What a number or literal is made of (a run of these is one token). */
static int is_token_char(unsigned char c)
{
	static const uint64_t set[4] = {
		0x03ff680000000000ULL,	/* + - . 0-9 */
		0x07fffffe00000020ULL,	/* E a-z */
	};

	return (int)(set[c >> 6] >> (c & 63)) & 1;
}

static int fast_path_fits(const struct pki_json_reader *jr, uint64_t end)
{
	size_t i = (size_t)(end - jr->base);

	if (jr->spec.no_fast_path || end < jr->fast_after || !jr->slice)
		return 0;
	while (i < jr->slice_len && is_space(jr->slice[i]))
		i++;
	return i < jr->slice_len;
}

static int in_array(const struct pki_json_reader *jr)
{
	return jr->fast_in_array;
}

/* The fast path's state in a container it entered or went back to. */
static void fast_enter(struct pki_json_reader *jr, int state)
{
	jr->fast_state = state;
	jr->fast_in_array = jr->depth && jr->frames[jr->depth - 1].is_array;
}

/* Whether a value may come next: after ',' or '[' in an array, ':' in an
 * object. */
static int value_expected(const struct pki_json_reader *jr)
{
	return jr->fast_state == EXPECT_VALUE ||
	       (jr->fast_state == EXPECT_FIRST && in_array(jr));
}

/* A number or literal at start: 1 taken, 0 none (for yajl to judge),
 * -1 refused by the caller. */
static int fast_token(struct pki_json_reader *jr, const unsigned char *s,
		      size_t len, uint64_t start)
{
	const char *text = (const char *)s;
	int taken;

	if (!value_expected(jr))
		return 0;
	if (plain_int(text, len, &jr->value.i))
		taken = take_int(jr, text, len, start);
	else if (read_decimal(text, len, &jr->digits))
		taken = take_number(jr, text, len, 1, start);
	else if (len == 4 && memcmp(s, "null", 4) == 0)
		taken = take_literal(jr, PKI_JSON_NULL, 0, start, start + 4);
	else if (len == 4 && memcmp(s, "true", 4) == 0)
		taken = take_literal(jr, PKI_JSON_BOOL, 1, start, start + 4);
	else if (len == 5 && memcmp(s, "false", 5) == 0)
		taken = take_literal(jr, PKI_JSON_BOOL, 0, start, start + 5);
	else
		return 0;
	jr->fast_state = EXPECT_COMMA;
	return taken ? 1 : -1;
}

/* The yajl state of the stack, as JSON that leads there. */
static int add_replay(const struct pki_json_reader *jr, struct pk_strbuf *b)
{
	static const char *const inner_array[] = {
		[EXPECT_FIRST] = "[", [EXPECT_VALUE] = "[null,",
		[EXPECT_COMMA] = "[null",
	};
	static const char *const inner_object[] = {
		[EXPECT_FIRST] = "{", [EXPECT_KEY] = "{\"\":null,",
		[EXPECT_COLON] = "{\"\"", [EXPECT_VALUE] = "{\"\":",
		[EXPECT_COMMA] = "{\"\":null",
	};
	size_t d;
	int rc = 0;

	for (d = 0; d < jr->depth && !rc; d++) {
		int is_array = jr->frames[d].is_array;

		if (d + 1 < jr->depth)
			rc = pki_strbuf_adds(b, is_array ? "[" : "{\"\":");
		else
			rc = pki_strbuf_adds(b, is_array ? inner_array[jr->fast_state] :
					     inner_object[jr->fast_state]);
	}
	return rc || (!jr->depth && pki_strbuf_adds(b, "null"));
}

/* yajl reads on from at. */
static void hand_over(struct pki_json_reader *jr, uint64_t at)
{
	uint64_t base = jr->base;
	yajl_status status;

	jr->fast = 0;
	/* little read each time (escapes everywhere): yajl keeps the next MiB */
	jr->short_runs = at - jr->fast_since < 64 ? jr->short_runs + 1 : 0;
	if (jr->short_runs >= 8) {
		jr->fast_after = at + SLICE;
		jr->short_runs = 0;
	}
	jr->scratch.len = 0;
	if (new_yajl(jr) || add_replay(jr, &jr->scratch)) {
		jr->rc = jr->spec.enomem;
		return;
	}
	jr->replaying = 1;
	status = yajl_parse(jr->yajl, (const unsigned char *)jr->scratch.s, jr->scratch.len);
	jr->replaying = 0;
	if (status != yajl_status_ok)
		parse_failed(jr, status, 0);
	jr->base = base;
}

/*
 * The end of the number at p[i], when it is a plain one, as most are: at most 18 digits, a point among them or not,
 * no exponent. A whole one's value goes to jr->value.i (*whole set),
 * another's digits to *d. i for any other token, or one that may go on
 * past p[n], which fast_token (or yajl) then reads.
 */
static size_t quick_number(struct pki_json_reader *jr, const unsigned char *p,
			   size_t i, size_t n, int *whole, struct decimal *d)
{
	size_t first = i + (p[i] == '-'), k, point = 0;
	uint64_t mant = 0;

	/* more than 18 digits wrap mant around, but are not taken */
	for (k = first; k < n && is_digit(p[k]); k++)
		mant = mant * 10 + (uint64_t)(p[k] - '0');
	if (k > first && k < n && p[k] == '.')
		for (point = k++; k < n && is_digit(p[k]); k++)
			mant = mant * 10 + (uint64_t)(p[k] - '0');
	if (k == first || k == n || is_token_char(p[k]) || point + 1 == k ||
	    k - first - !!point > 18 ||
	    (p[first] == '0' && first + 1 < k && is_digit(p[first + 1])))
		return i;
	*whole = !point;
	if (!point) {
		jr->value.i = p[i] == '-' ? -(int64_t)mant : (int64_t)mant;
		return k;
	}
	*d = (struct decimal){
		.mant = mant, .exp10 = -(long)(k - point - 1), .negative = p[i] == '-',
	};
	return k;
}

/* Plain numbers from p[i], and more after each ',' in an array, as in
 * most of a profile's bytes: the end of what they took (after a ',' when
 * what follows it is no plain number); i with none, or rc set. */
static size_t fast_numbers(struct pki_json_reader *jr, const unsigned char *p,
			   size_t i, size_t n)
{
	size_t j;
	int whole;

	if (!value_expected(jr))
		return i;
	/* the digits straight where the value is made from them */
	while ((j = quick_number(jr, p, i, n, &whole, &jr->digits)) > i) {
		const char *text = (const char *)p + i;
		uint64_t at = jr->base + i;

		if (!(whole ? take_int(jr, text, j - i, at) :
		      take_number(jr, text, j - i, 1, at)))
			return i;
		jr->fast_state = EXPECT_COMMA;
		if (j == n || p[j] != ',' || !in_array(jr))
			return j;
		jr->fast_state = EXPECT_VALUE;
		i = j + 1;
	}
	return i;
}

/* The end of the string whose '"' is p[i], past its closing quote; i when
 * it has an escape or a control character (yajl decodes and judges
 * those) or goes on past p[n]. */
static size_t plain_string(const unsigned char *p, size_t i, size_t n)
{
	size_t k;

	for (k = i + 1; k < n; k++) {
		if (p[k] == '"')
			return k + 1;
		if (p[k] == '\\' || p[k] < 0x20)
			return i;
	}
	return i;
}

/* The string p[i..j) (quotes included) as a key or a value: 1 taken, 0
 * not where one may be, -1 refused. */
static int fast_string(struct pki_json_reader *jr, const unsigned char *p,
		       size_t i, size_t j)
{
	uint64_t at = jr->base + i, end = jr->base + j;

	if (value_expected(jr)) {
		jr->fast_state = EXPECT_COMMA;
		return take_string(jr, p + i + 1, j - i - 2, at, end) ? 1 : -1;
	}
	if (in_array(jr) || (jr->fast_state != EXPECT_FIRST &&
			     jr->fast_state != EXPECT_KEY))
		return 0;
	jr->fast_state = EXPECT_COLON;
	return take_key(jr, p + i + 1, j - i - 2, at, end) ? 1 : -1;
}

/* The ']' or '}' at p[i]: 1 read, 0 not where one may be, -1 refused. */
static int fast_end(struct pki_json_reader *jr, unsigned char c, uint64_t at)
{
	int is_array = in_array(jr);

	if ((c == ']') != is_array ||
	    (jr->fast_state != EXPECT_FIRST && jr->fast_state != EXPECT_COMMA))
		return 0;
	if (!end_container(jr, is_array, at))
		return -1;
	fast_enter(jr, EXPECT_COMMA);
	return 1;
}

/* One token at p[i], not white space: the end of what it read (past i),
 * i where yajl is to judge it, or i with rc set. */
static size_t fast_step(struct pki_json_reader *jr, const unsigned char *p,
			size_t i, size_t n)
{
	unsigned char c = p[i];
	uint64_t at = jr->base + i;
	size_t j;
	int taken;

	switch (c) {
	case ',':
		if (jr->fast_state != EXPECT_COMMA)
			return i;
		jr->fast_state = in_array(jr) ? EXPECT_VALUE : EXPECT_KEY;
		return i + 1;
	case ':':
		if (jr->fast_state != EXPECT_COLON)
			return i;
		jr->fast_state = EXPECT_VALUE;
		return i + 1;
	case '[':
	case '{':
		if (!value_expected(jr) || !begin_container(jr, c == '[', at))
			return i;
		fast_enter(jr, EXPECT_FIRST);
		return i + 1;
	case ']':
	case '}':
		return fast_end(jr, c, at) > 0 ? i + 1 : i;
	case '"':
		if ((j = plain_string(p, i, n)) == i)
			return i;
		return fast_string(jr, p, i, j) > 0 ? j : i;
	}
	if ((j = fast_numbers(jr, p, i, n)) > i || jr->rc)
		return j;
	/* one where no value may be is yajl's, fed as it came */
	if (!is_token_char(c) || !value_expected(jr))
		return i;
	for (j = i; j < n && is_token_char(p[j]); j++)
		;
	taken = j == n ? 0 : fast_token(jr, p + i, j - i, at);
	return taken > 0 ? j : i;
}

/* Read on from p; the bytes of p used. */
static size_t fast_scan(struct pki_json_reader *jr, const unsigned char *p, size_t n)
{
	size_t i = 0, next;

	while (i < n) {
		if (is_space(p[i])) {
			i++;
			continue;
		}
		if ((next = fast_step(jr, p, i, n)) == i || jr->rc) {
			if (!jr->rc)
				hand_over(jr, jr->base + i);
			return next;
		}
		i = next;
		if (!jr->depth) {
			/* the document's end: yajl judges what follows */
			hand_over(jr, jr->base + i);
			return i;
		}
	}
	check_gap(jr, jr->base + n);
	return i;
}

/* ---- feeding ---- */

/* Up to a slice of p through yajl; the bytes of p used. */
static size_t yajl_slice(struct pki_json_reader *jr, const unsigned char *p, size_t n)
{
	size_t len = n < SLICE ? n : SLICE;
	yajl_status status;

	jr->slice = p;
	jr->slice_len = len;
	status = yajl_parse(jr->yajl, p, len);
	if (status == yajl_status_ok) {
		check_gap(jr, jr->base + len);
		return len;
	}
	if (jr->engage && !jr->rc) {
		jr->engage = 0;
		jr->fast = 1;
		fast_enter(jr, jr->engage_state);
		jr->fast_since = token_end(jr);
		return yajl_get_bytes_consumed(jr->yajl);
	}
	parse_failed(jr, status, 0);
	return 0;
}

int pki_json_reader_feed(struct pki_json_reader *jr, const void *data, size_t n)
{
	const unsigned char *p = data;

	if (jr->rc)
		return jr->rc;
	/* a byte order mark, even fed a byte at a time, is no JSON */
	while (jr->bom < 3 && n && *p == (unsigned char)"\xef\xbb\xbf"[jr->bom]) {
		jr->bom++, p++, n--;
		jr->base = jr->last_end = jr->doc_start = (uint64_t)jr->bom;
	}
	if (n && jr->bom < 3) {
		if (jr->bom)
			return set_error(jr, 0, "not JSON: a broken byte order mark");
		jr->bom = 3;
	}
	while (n && !jr->rc) {
		size_t used = jr->fast ? fast_scan(jr, p, n) : yajl_slice(jr, p, n);

		jr->base += used;
		p += used;
		n -= used;
	}
	return jr->rc;
}

int pki_json_reader_finish(struct pki_json_reader *jr)
{
	yajl_status status;

	if (!jr->rc && jr->fast)
		hand_over(jr, jr->base);
	if (jr->rc)
		return jr->rc;
	jr->slice = NULL;
	jr->slice_len = 0;
	status = yajl_complete_parse(jr->yajl);
	return status == yajl_status_ok ? 0 : parse_failed(jr, status, 1);
}

/* ---- life ---- */

struct pki_json_reader *pki_json_reader_new(const struct pki_json_read_spec *spec)
{
	struct pki_json_reader *jr = calloc(1, sizeof(*jr));
	const struct pki_json_path *path;

	if (!jr)
		return NULL;
	jr->spec = *spec;
	if (!jr->spec.max_depth)
		jr->spec.max_depth = PKI_JSON_READ_MAX_DEPTH;
	if (!jr->spec.max_string)
		jr->spec.max_string = PKI_JSON_READ_MAX_STRING;
	jr->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!jr->c_locale || new_yajl(jr) ||
	    add_node(jr, NO_NODE, STEP_ROOT, NULL, 0) == NO_NODE)
		goto fail;
	for (path = spec->paths; path && path->path; path++)
		if (add_path(jr, path->path, path->id))
			goto fail;
	return jr;
fail:
	pki_json_reader_free(jr);
	return NULL;
}

void pki_json_reader_free(struct pki_json_reader *jr)
{
	if (!jr)
		return;
	if (jr->yajl)
		yajl_free(jr->yajl);
	if (jr->c_locale)
		freelocale(jr->c_locale);
	free(jr->nodes);
	free(jr->frames);
	free(jr->keys.s);
	free(jr->scratch.s);
	free(jr->error.s);
	free(jr);
}
