/* SPDX-License-Identifier: MIT */
/*
 * Rust v0 demangling (rust-v0.h), written from the grammar of the
 * rustc book's "v0 Symbol Format" and printed as its recommended
 * demangling, the way rustc-demangle's alternate form (rustfilt, perf,
 * llvm-cxxfilt) prints it.
 *
 * Why our own: libstdc++'s __cxa_demangle (demangle.c) knows no v0;
 * libiberty has it, but as a static archive of a GPL toolchain's helper
 * library (libiberty-dev) or inside binutils' libbfd, whose soname
 * changes with every binutils release. The grammar is small.
 *
 * Each rule is a function that parses its part and prints it unless
 * printing is off (an impl's own path, the instantiating crate). The
 * first error stops everything: the name is then shown mangled.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rust-v0.h"
#include "util/strbuf.h"
#include "util/strings.h"

/* Far past real names (rustc's deepest are a few dozen levels). */
#define V0_MAX_DEPTH 256
#define V0_MAX_OUTPUT (64 * 1024)
/* Parsing steps: back references may revisit a part many times. */
#define V0_MAX_STEPS (1UL << 20)
/* Decoded characters of one Punycode identifier. */
#define V0_MAX_PUNYCODE 128

struct v0 {
	const char *sym;	/* after "_R" */
	size_t len, pos;
	struct pk_strbuf out;
	int printing;
	unsigned depth;
	unsigned long steps;
	uint64_t lifetimes;	/* bound by the binders around */
	int bad;
};

struct ident {
	const char *ascii, *punycode;
	size_t ascii_len, punycode_len;
};

static int peek(const struct v0 *v)
{
	return v->pos < v->len ? v->sym[v->pos] : 0;
}

static int eat(struct v0 *v, int c)
{
	if (v->bad || peek(v) != c)
		return 0;
	v->pos++;
	return 1;
}

static int next(struct v0 *v)
{
	if (v->bad || v->pos >= v->len) {
		v->bad = 1;
		return 0;
	}
	return v->sym[v->pos++];
}

static void print_n(struct v0 *v, const char *s, size_t n)
{
	if (!v->printing || v->bad)
		return;
	if (v->out.len + n > V0_MAX_OUTPUT || pki_strbuf_add(&v->out, s, n) < 0)
		v->bad = 1;
}

static void print(struct v0 *v, const char *s)
{
	print_n(v, s, strlen(s));
}

static void print_u64(struct v0 *v, uint64_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
	print(v, buf);
}

/* Enter a rule: within the depth and step limits. */
static int enter(struct v0 *v)
{
	if (v->bad || v->depth >= V0_MAX_DEPTH || ++v->steps > V0_MAX_STEPS) {
		v->bad = 1;
		return 0;
	}
	v->depth++;
	return 1;
}

static void leave(struct v0 *v)
{
	v->depth--;
}

static int is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static int is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* base-62-number: "_" is 0, else digits 0-9a-zA-Z then "_", plus 1. */
static uint64_t base62(struct v0 *v)
{
	uint64_t n = 0;
	int c;

	if (eat(v, '_'))
		return 0;
	while (!v->bad && (c = next(v)) != '_') {
		int d = is_digit(c) ? c - '0' : is_lower(c) ? c - 'a' + 10 :
			is_upper(c) ? c - 'A' + 36 : -1;

		if (d < 0 || n > (UINT64_MAX - (uint64_t)d) / 62) {
			v->bad = 1;
			return 0;
		}
		n = n * 62 + (uint64_t)d;
	}
	if (n == UINT64_MAX)
		v->bad = 1;
	return v->bad ? 0 : n + 1;
}

/* TAG base-62-number, plus 1; 0 when TAG is not there. */
static uint64_t opt_base62(struct v0 *v, int tag)
{
	uint64_t n;

	if (!eat(v, tag))
		return 0;
	n = base62(v);
	if (n == UINT64_MAX)
		v->bad = 1;
	return v->bad ? 0 : n + 1;
}

/* decimal-number: "0", or digits not starting with 0. */
static size_t decimal(struct v0 *v)
{
	size_t n;
	int c = next(v);

	if (!is_digit(c)) {
		v->bad = 1;
		return 0;
	}
	n = (size_t)(c - '0');
	while (n && is_digit(peek(v))) {
		if (n > v->len) {	/* no identifier is that long */
			v->bad = 1;
			return 0;
		}
		n = n * 10 + (size_t)(next(v) - '0');
	}
	return n;
}

/* undisambiguated-identifier: "u"? decimal-number "_"? bytes */
static struct ident identifier(struct v0 *v)
{
	struct ident id = { 0 };
	int punycode = eat(v, 'u');
	size_t n = decimal(v), i;
	const char *s;

	eat(v, '_');
	if (v->bad || n > v->len - v->pos) {
		v->bad = 1;
		return id;
	}
	s = v->sym + v->pos;
	v->pos += n;
	/* Rust's identifiers are these in ASCII; no ';' or ' ' gets in */
	for (i = 0; i < n; i++)
		if (!is_digit(s[i]) && !is_lower(s[i]) && !is_upper(s[i]) &&
		    s[i] != '_') {
			v->bad = 1;
			return id;
		}
	id.ascii = s;
	id.ascii_len = n;
	if (punycode) {
		/* the encoded part follows the last '_' ('-' in RFC 3492) */
		for (i = n; i > 0 && s[i - 1] != '_'; i--)
			;
		id.ascii_len = i ? i - 1 : 0;
		id.punycode = s + i;
		id.punycode_len = n - i;
		if (!id.punycode_len)
			v->bad = 1;
	}
	return id;
}

/* RFC 3492's bias adaptation. */
static uint32_t punycode_adapt(uint32_t delta, uint32_t points, int first)
{
	uint32_t k = 0;

	delta = first ? delta / 700 : delta / 2;
	delta += delta / points;
	while (delta > ((36 - 1) * 26) / 2) {
		delta /= 36 - 1;
		k += 36;
	}
	return k + (36 * delta) / (delta + 38);
}

/* Decode a Punycode identifier into code points; 0 when invalid. */
static size_t punycode_decode(const struct ident *id, uint32_t *cp)
{
	uint32_t n = 128, bias = 72, i = 0;
	size_t len = 0, pos = 0, j;

	if (id->ascii_len > V0_MAX_PUNYCODE)
		return 0;
	for (j = 0; j < id->ascii_len; j++)
		cp[len++] = (unsigned char)id->ascii[j];
	while (pos < id->punycode_len) {
		uint32_t old = i, w = 1, k, t, digit;

		for (k = 36;; k += 36) {
			int c = pos < id->punycode_len ? id->punycode[pos++] : 0;

			if (is_lower(c))
				digit = (uint32_t)(c - 'a');
			else if (is_digit(c))
				digit = (uint32_t)(c - '0' + 26);
			else
				return 0;
			if (digit > (UINT32_MAX - i) / w)
				return 0;
			i += digit * w;
			t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
			if (digit < t)
				break;
			if (w > UINT32_MAX / (36 - t))
				return 0;
			w *= 36 - t;
		}
		bias = punycode_adapt(i - old, (uint32_t)len + 1, old == 0);
		if (i / ((uint32_t)len + 1) > 0x10FFFF - n)
			return 0;
		n += i / ((uint32_t)len + 1);
		i %= (uint32_t)len + 1;
		if ((n >= 0xD800 && n <= 0xDFFF) || len >= V0_MAX_PUNYCODE)
			return 0;
		memmove(cp + i + 1, cp + i, (len - i) * sizeof(*cp));
		cp[i++] = n;
		len++;
	}
	return len;
}

static void print_utf8(struct v0 *v, uint32_t c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | c >> 18);
		b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	print_n(v, b, n);
}

/* An identifier, decoded; Punycode that does not decode is shown as
 * rustc-demangle shows it, "punycode{ascii-encoded}". */
static void print_ident(struct v0 *v, const struct ident *id)
{
	uint32_t cp[V0_MAX_PUNYCODE];
	size_t n, i;

	if (!id->punycode) {
		print_n(v, id->ascii, id->ascii_len);
		return;
	}
	n = punycode_decode(id, cp);
	if (!n) {
		print(v, "punycode{");
		if (id->ascii_len) {
			print_n(v, id->ascii, id->ascii_len);
			print(v, "-");
		}
		print_n(v, id->punycode, id->punycode_len);
		print(v, "}");
		return;
	}
	for (i = 0; i < n; i++)
		print_utf8(v, cp[i]);
}

static int ident_empty(const struct ident *id)
{
	return !id->ascii_len && !id->punycode_len;
}

static void path(struct v0 *v, int in_value);
static void type(struct v0 *v);
static void constant(struct v0 *v);

/*
 * backref: "B" base-62-number, an offset from just after "_R" to an
 * earlier part, which rule parses and prints again; returns what rule
 * returns. Not followed while not printing: the part's text is parsed.
 */
static int backref(struct v0 *v, int (*rule)(struct v0 *, int), int arg)
{
	size_t at = v->pos - 1;	/* of the 'B' */
	uint64_t to = base62(v);
	size_t back = v->pos;
	int r;

	if (v->bad || to >= at) {
		v->bad = 1;
		return 0;
	}
	if (!v->printing || !enter(v))
		return 0;
	v->pos = (size_t)to;
	r = rule(v, arg);
	v->pos = back;
	leave(v);
	return r;
}

/* The lifetime bound at De Bruijn index lt: 'a for the outermost. */
static void lifetime(struct v0 *v, uint64_t lt)
{
	uint64_t level;

	print(v, "'");
	if (lt == 0) {
		print(v, "_");
		return;
	}
	if (lt > v->lifetimes) {
		v->bad = 1;
		return;
	}
	level = v->lifetimes - lt;
	if (level < 26) {
		char c[2] = { (char)('a' + level), '\0' };

		print(v, c);
	} else {
		print(v, "_");
		print_u64(v, level);
	}
}

/* binder: "G" base-62-number, lifetimes bound for what follows;
 * returns how many. */
static uint64_t binder(struct v0 *v)
{
	uint64_t n = opt_base62(v, 'G'), i;

	/* each would be referred to later: no more than the name holds */
	if (n > v->len) {
		v->bad = 1;
		return 0;
	}
	if (!n)
		return 0;
	v->lifetimes += n;
	print(v, "for<");
	for (i = 0; i < n; i++) {
		if (i)
			print(v, ", ");
		lifetime(v, n - i);
	}
	print(v, "> ");
	return n;
}

/* Items up to "E", sep between them; returns how many. */
static size_t list(struct v0 *v, void (*item)(struct v0 *), const char *sep)
{
	size_t n = 0;

	while (!v->bad && !eat(v, 'E')) {
		if (v->pos >= v->len) {
			v->bad = 1;
			break;
		}
		if (n++)
			print(v, sep);
		item(v);
	}
	return n;
}

static void generic_arg(struct v0 *v)
{
	if (eat(v, 'L'))
		lifetime(v, base62(v));
	else if (eat(v, 'K'))
		constant(v);
	else
		type(v);
}

static void generic_args(struct v0 *v)
{
	print(v, "<");
	list(v, generic_arg, ", ");
	print(v, ">");
}

static int path_rule(struct v0 *v, int in_value)
{
	path(v, in_value);
	return 0;
}

/* A nested path's own part, after its parent's. */
static void nested(struct v0 *v, int ns)
{
	uint64_t dis = opt_base62(v, 's');
	struct ident id = identifier(v);

	if (is_upper(ns)) {
		/* closures, shims, other special namespaces */
		print(v, "::{");
		print(v, ns == 'C' ? "closure" : ns == 'S' ? "shim" :
		      (char[2]){ (char)ns, '\0' });
		if (!ident_empty(&id)) {
			print(v, ":");
			print_ident(v, &id);
		}
		print(v, "#");
		print_u64(v, dis);
		print(v, "}");
	} else if (!ident_empty(&id)) {
		print(v, "::");
		print_ident(v, &id);
	}
}

static void path(struct v0 *v, int in_value)
{
	int tag, printing, ns;

	if (!enter(v))
		return;
	switch ((tag = next(v))) {
	case 'C': {	/* crate root: its name, no disambiguator */
		struct ident id;

		opt_base62(v, 's');
		id = identifier(v);
		print_ident(v, &id);
		break;
	}
	case 'N':	/* nested path */
		ns = next(v);
		if (!is_upper(ns) && !is_lower(ns))
			v->bad = 1;
		path(v, in_value);
		nested(v, ns);
		break;
	case 'M':	/* <Type>: an inherent impl */
	case 'X':	/* <Type as Trait>: a trait impl */
	case 'Y':	/* <Type as Trait>: a trait's definition */
		if (tag != 'Y') {
			/* the impl's own path is not shown */
			opt_base62(v, 's');
			printing = v->printing;
			v->printing = 0;
			path(v, 0);
			v->printing = printing;
		}
		print(v, "<");
		type(v);
		if (tag != 'M') {
			print(v, " as ");
			path(v, 0);
		}
		print(v, ">");
		break;
	case 'I':	/* generic arguments: "f::<T>" in values, "S<T>" in types */
		path(v, in_value);
		if (in_value)
			print(v, "::");
		generic_args(v);
		break;
	case 'B':
		backref(v, path_rule, in_value);
		break;
	default:
		v->bad = 1;
	}
	leave(v);
}

/* A dyn trait's path, its generic arguments left open for bindings;
 * returns whether they were. */
static int open_path(struct v0 *v, int unused)
{
	(void)unused;
	if (eat(v, 'B'))
		return backref(v, open_path, 0);
	if (eat(v, 'I')) {
		path(v, 0);
		print(v, "<");
		list(v, generic_arg, ", ");
		return 1;
	}
	path(v, 0);
	return 0;
}

/* dyn-trait: path {"p" undisambiguated-identifier type} */
static void dyn_trait(struct v0 *v)
{
	int open = open_path(v, 0);

	while (eat(v, 'p')) {
		struct ident id;

		print(v, open ? ", " : "<");
		open = 1;
		id = identifier(v);
		print_ident(v, &id);
		print(v, " = ");
		type(v);
	}
	if (open)
		print(v, ">");
}

/* fn-sig: binder? "U"? ("K" abi)? {type} "E" type */
static void fn_sig(struct v0 *v)
{
	uint64_t bound = binder(v);
	int unsafe = eat(v, 'U');

	if (unsafe)
		print(v, "unsafe ");
	if (eat(v, 'K')) {
		print(v, "extern \"");
		if (eat(v, 'C')) {
			print(v, "C");
		} else {
			/* "-" in an ABI's name is mangled as "_" */
			struct ident id = identifier(v);
			size_t i;

			if (id.punycode || !id.ascii_len)
				v->bad = 1;
			for (i = 0; i < id.ascii_len && !v->bad; i++)
				print_n(v, id.ascii[i] == '_' ? "-" : id.ascii + i, 1);
		}
		print(v, "\" ");
	}
	print(v, "fn(");
	list(v, type, ", ");
	print(v, ")");
	if (!eat(v, 'u')) {
		print(v, " -> ");
		type(v);
	}
	v->lifetimes -= bound;
}

static const char *basic_type(int c)
{
	static const char *const names[26] = {
		['a' - 'a'] = "i8", ['b' - 'a'] = "bool", ['c' - 'a'] = "char",
		['d' - 'a'] = "f64", ['e' - 'a'] = "str", ['f' - 'a'] = "f32",
		['h' - 'a'] = "u8", ['i' - 'a'] = "isize", ['j' - 'a'] = "usize",
		['l' - 'a'] = "i32", ['m' - 'a'] = "u32", ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_", ['s' - 'a'] = "i16",
		['t' - 'a'] = "u16", ['u' - 'a'] = "()", ['v' - 'a'] = "...",
		['x' - 'a'] = "i64", ['y' - 'a'] = "u64", ['z' - 'a'] = "!",
	};

	return is_lower(c) ? names[c - 'a'] : NULL;
}

static int type_rule(struct v0 *v, int unused)
{
	(void)unused;
	type(v);
	return 0;
}

static void type(struct v0 *v)
{
	int tag = next(v);
	const char *basic = basic_type(tag);
	uint64_t bound;

	if (basic || is_lower(tag)) {
		if (!basic)
			v->bad = 1;
		else
			print(v, basic);
		return;
	}
	if (!enter(v))
		return;
	switch (tag) {
	case 'R':	/* &'a T */
	case 'Q':	/* &'a mut T */
		print(v, "&");
		if (eat(v, 'L')) {
			uint64_t lt = base62(v);

			if (lt) {
				lifetime(v, lt);
				print(v, " ");
			}
		}
		if (tag == 'Q')
			print(v, "mut ");
		type(v);
		break;
	case 'P':
		print(v, "*const ");
		type(v);
		break;
	case 'O':
		print(v, "*mut ");
		type(v);
		break;
	case 'A':	/* [T; N] */
	case 'S':	/* [T] */
		print(v, "[");
		type(v);
		if (tag == 'A') {
			print(v, "; ");
			constant(v);
		}
		print(v, "]");
		break;
	case 'T':	/* (T,) (T, U) */
		print(v, "(");
		if (list(v, type, ", ") == 1)
			print(v, ",");
		print(v, ")");
		break;
	case 'F':
		fn_sig(v);
		break;
	case 'D':	/* dyn-bounds lifetime */
		print(v, "dyn ");
		bound = binder(v);
		list(v, dyn_trait, " + ");
		v->lifetimes -= bound;
		if (!eat(v, 'L')) {
			v->bad = 1;
		} else {
			uint64_t lt = base62(v);

			if (lt) {
				print(v, " + ");
				lifetime(v, lt);
			}
		}
		break;
	case 'B':
		backref(v, type_rule, 0);
		break;
	default:	/* a path names the type */
		v->pos--;
		path(v, 0);
	}
	leave(v);
}

/* const-data's hex digits up to "_": their count, *value if they fit. */
static size_t hex_digits(struct v0 *v, const char **digits, uint64_t *value)
{
	size_t n = 0;
	int c;

	*digits = v->sym + v->pos;
	*value = 0;
	while (!v->bad && (c = next(v)) != '_') {
		int d = is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0) {
			v->bad = 1;
			return 0;
		}
		if (*value >> 60)
			*value = UINT64_MAX;	/* too big: shown in hex */
		else
			*value = *value << 4 | (uint64_t)d;
		n++;
	}
	return n;
}

static void const_uint(struct v0 *v)
{
	const char *digits;
	uint64_t value;
	size_t n = hex_digits(v, &digits, &value);

	if (value == UINT64_MAX && n > 16) {
		print(v, "0x");
		print_n(v, digits, n);
	} else {
		print_u64(v, value);
	}
}

/* A char constant as Rust writes one: 'a', '\n', '\u{7f}'. */
static void const_char(struct v0 *v)
{
	const char *digits;
	uint64_t c;
	char buf[16];

	hex_digits(v, &digits, &c);
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
		v->bad = 1;
		return;
	}
	print(v, "'");
	if (c == '\t' || c == '\r' || c == '\n' || c == '\'' || c == '\\' || c == 0) {
		buf[0] = '\\';
		buf[1] = c == '\t' ? 't' : c == '\r' ? 'r' : c == '\n' ? 'n' :
			 c == 0 ? '0' : (char)c;
		print_n(v, buf, 2);
	} else if (c < 0x20 || c == 0x7f) {
		snprintf(buf, sizeof(buf), "\\u{%llx}", (unsigned long long)c);
		print(v, buf);
	} else {
		print_utf8(v, (uint32_t)c);
	}
	print(v, "'");
}

static int const_rule(struct v0 *v, int unused)
{
	(void)unused;
	constant(v);
	return 0;
}

/*
 * const: type const-data | "p" | backref. The spec's integers, bool and
 * char; a constant of another type (the str and aggregate constants of
 * unstable const generics) leaves the name mangled.
 */
static void constant(struct v0 *v)
{
	const char *digits;
	uint64_t value;
	int tag;

	if (!enter(v))
		return;
	switch ((tag = next(v))) {
	case 'p':
		print(v, "_");
		break;
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
		if (eat(v, 'n'))
			print(v, "-");
		/* fall through */
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		const_uint(v);
		break;
	case 'b':
		hex_digits(v, &digits, &value);
		if (value > 1)
			v->bad = 1;
		print(v, value ? "true" : "false");
		break;
	case 'c':
		const_char(v);
		break;
	case 'B':
		backref(v, const_rule, 0);
		break;
	default:
		v->bad = 1;
	}
	leave(v);
}

char *sym_rust_v0_demangle(const char *mangled)
{
	struct v0 v = { 0 };
	size_t i;

	if (!mangled || mangled[0] != '_' || mangled[1] != 'R')
		return NULL;
	v.sym = mangled + 2;
	/* the vendor-specific suffix (".llvm.123", "$tlv$init") is not shown */
	v.len = strcspn(v.sym, ".$");
	for (i = 0; i < v.len; i++)
		if ((unsigned char)v.sym[i] >= 0x80)
			return NULL;
	/* a path starts upper case; a leading number would be an
	 * encoding version, none of which is defined */
	if (!is_upper(peek(&v)))
		return NULL;
	v.printing = 1;
	path(&v, 1);
	if (is_upper(peek(&v))) {	/* the instantiating crate */
		v.printing = 0;
		path(&v, 0);
	}
	if (v.bad || v.pos != v.len || !v.out.s) {
		free(v.out.s);
		return NULL;
	}
	return v.out.s;
}
