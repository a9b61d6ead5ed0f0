/* SPDX-License-Identifier: MIT */
/*
 * Demangled names (demangle.h): C++ and legacy Rust through libstdc++'s
 * __cxa_demangle, then cut to what each reference tool prints.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "dl.h"
#include "rust-v0.h"
#include "core/internal.h"

/*
 * Demangling uses __cxa_demangle from libstdc++: elfutils exports no
 * demangler, libiberty's cplus_demangle is a static library outside our
 * dependencies, and libstdc++ is on every machine with a C++ runtime
 * (perf links it for the same purpose). It handles C++ and legacy Rust
 * (_ZN...17h<hash>E, cleaned up below); Rust v0 names (_R...) have a
 * demangler of their own (rust-v0.c). libstdc++ is opened at the first
 * mangled name (dl.h): a C profile, or --version, does without it.
 */
static char *(*cxa_demangle)(const char *mangled, char *buf, size_t *len,
			     int *status);
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_open(void)
{
	sym_dl_function("libstdc++.so.6", "__cxa_demangle", &cxa_demangle);
}

static void *open_early(void *unused)
{
	(void)unused;
	pthread_once(&cxa_once, cxa_open);
	return NULL;
}

int sym_demangle_open_early(pthread_t *thread)
{
	return pthread_create(thread, NULL, open_early, NULL) == 0 ? 0 : -1;
}

static size_t skip_group(const char *s, size_t i, size_t len);

/* Length of the operator token at s ("operator<<=", "operator new[]"). */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {
		"<=>", "<<=", ">>=", "->*", "()", "[]", "<<", ">>", "<=",
		">=", "->", "==", "!=", "&&", "||", "++", "--", "+=", "-=",
		"*=", "/=", "%=", "&=", "|=", "^=", ",", "<", ">", "+", "-",
		"*", "/", "%", "&", "|", "^", "~", "!", "=",
	};
	size_t i, n = 8;	/* "operator" */

	if (pki_starts_with(s + n, " new") || pki_starts_with(s + n, " delete")) {
		n += s[n + 1] == 'n' ? 4 : 7;
		if (pki_starts_with(s + n, "[]"))
			n += 2;
		return n;
	}
	if (s[n] == ' ') {
		/* a conversion: "operator unsigned long*" up to its "(" */
		while (s[n] && s[n] != '(')
			n = s[n] == '<' ? skip_group(s, n, strlen(s)) + 1 : n + 1;
		return n;
	}
	for (i = 0; i < PK_ARRAY_SIZE(ops); i++)
		if (pki_starts_with(s + n, ops[i]))
			return n + strlen(ops[i]);
	return n;
}

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* "operator" as a word at s[i], not the end of "my_operator". */
static int is_operator_at(const char *s, size_t i)
{
	return pki_starts_with(s + i, "operator") &&
	       (i == 0 || !is_ident_char(s[i - 1]));
}

/* Index of the bracket closing the one at s[i], or len. */
static size_t skip_group(const char *s, size_t i, size_t len)
{
	int depth = 0;

	for (; i < len; i++) {
		if (is_operator_at(s, i)) {
			i += operator_len(s + i) - 1;
			continue;
		}
		if (s[i] == '-' && s[i + 1] == '>') {	/* decltype(p->x) */
			i++;
			continue;
		}
		if (strchr("<([{", s[i]))
			depth++;
		else if (strchr(">)]}", s[i]) && --depth == 0)
			return i;
	}
	return len;
}

/* "vtable for ", "non-virtual thunk to " ...: kept before the name. */
static const char *special_prefix(const char *full)
{
	static const char *const prefixes[] = {
		"non-virtual thunk to ", "virtual thunk to ",
		"covariant return thunk to ", "construction vtable for ",
		"vtable for ", "typeinfo for ", "typeinfo name for ",
		"VTT for ", "guard variable for ", "transaction clone for ",
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(prefixes); i++)
		if (pki_starts_with(full, prefixes[i]))
			return prefixes[i];
	return "";
}

/* Where the name is in full[*start, len): *start moves past the return
 * type, *end stops at the parameters. */
static void name_bounds(const char *full, size_t len, size_t *start,
			size_t *end)
{
	size_t i;

	for (i = *start; i < len; i++) {
		if (is_operator_at(full, i)) {
			i += operator_len(full + i) - 1;
			/* "std::operator< <char>": the blank is the name's */
			if (full[i + 1] == ' ' && full[i + 2] == '<')
				i++;
		} else if (full[i] == ' ') {
			*start = i + 1;
		} else if (full[i] == '(') {
			size_t close = skip_group(full, i, len);

			if (close + 2 < len && full[close + 1] == ':' &&
			    full[close + 2] == ':') {
				i = close;
				continue;
			}
			*end = i;
			return;
		} else if (strchr("<[{", full[i])) {
			i = skip_group(full, i, len);
		}
	}
}

/*
 * "unsigned long* std::fill_n<unsigned long*>(unsigned long*) const"
 * -> "std::fill_n<unsigned long*>": drop the return type, parameters,
 * qualifiers and " [clone .cold]" suffixes, as perf shows names. A
 * "(...)" followed by "::" is part of the name ("(anonymous namespace)::f").
 */
static char *short_name(const char *full)
{
	const char *prefix = special_prefix(full);
	const char *clone = strstr(full, " [clone ");
	size_t len = clone ? (size_t)(clone - full) : strlen(full);
	size_t keep = strlen(prefix), start = keep, end = strlen(full), size;
	char *out;

	name_bounds(full, len, &start, &end);
	if (end > len)
		end = len;
	if (start > end)
		start = keep;
	size = strlen(prefix) + (end - start) + 1;
	out = malloc(size);
	if (out)
		snprintf(out, size, "%s%.*s", prefix, (int)(end - start),
			 full + start);
	return out;
}

/* "_ZN4core3fmt5write17h0123456789abcdefE" (maybe ".llvm.123" after). */
static int is_rust_legacy(const char *mangled)
{
	const char *e = strstr(mangled, "17h");
	size_t i;

	if (!pki_starts_with(mangled, "_ZN"))
		return 0;
	for (; e; e = strstr(e + 1, "17h")) {
		for (i = 3; i < 19 && pki_hexval(e[i]) >= 0; i++)
			;
		if (i == 19 && e[19] == 'E' && (!e[20] || e[20] == '.'))
			return 1;
	}
	return 0;
}

/* Undo rustc's escapes: "$LT$" '<', "$u20$" ' ', ".." "::". */
static void rust_unescape(char *s)
{
	static const struct { const char *esc; char c; } map[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' },
		{ "$LT$", '<' }, { "$GT$", '>' }, { "$LP$", '(' },
		{ "$RP$", ')' }, { "$C$", ',' },
	};
	char *r = s, *w = s;
	size_t i;

	while (*r) {
		if (r[0] == '_' && r[1] == '$' && (r == s || r[-1] == ':')) {
			r++;
			continue;
		}
		if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		if (r[0] == '$' && r[1] == 'u' && pki_hexval(r[2]) >= 0 &&
		    pki_hexval(r[3]) >= 0 && r[4] == '$') {
			*w++ = (char)(pki_hexval(r[2]) * 16 + pki_hexval(r[3]));
			r += 5;
			continue;
		}
		for (i = 0; i < PK_ARRAY_SIZE(map); i++)
			if (pki_starts_with(r, map[i].esc))
				break;
		if (i < PK_ARRAY_SIZE(map)) {
			*w++ = map[i].c;
			r += strlen(map[i].esc);
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/*
 * "std::map<int, long>::find" -> "std::map::find", in place: pprof's
 * default names drop template arguments too. Operators keep their
 * brackets ("operator<<", "operator<=>"), not the space the demangler
 * puts between one and its arguments ("operator<< <char>").
 */
static void drop_template_args(char *s)
{
	size_t len = strlen(s), i, w = 0;

	for (i = 0; i < len; i++) {
		if (is_operator_at(s, i)) {
			size_t n = operator_len(s + i);

			memmove(s + w, s + i, n);
			w += n;
			i += n - 1;
		} else if (s[i] == '<') {
			if (w > 0 && s[w - 1] == ' ')
				w--;
			i = skip_group(s, i, len);
		} else {
			s[w++] = s[i];
		}
	}
	s[w] = '\0';
}

enum pk_demangle pki_demangle_style(const struct pk_options *opts,
				    enum pk_demangle unset)
{
	static const enum pk_demangle styles[] = {
		PK_DEMANGLE_SHORT, PK_DEMANGLE_SIMPLE, PK_DEMANGLE_FULL,
		PK_DEMANGLE_NONE,
	};

	if (opts && opts->demangle >= 0 &&
	    (size_t)opts->demangle < PK_ARRAY_SIZE(styles))
		return styles[opts->demangle];
	return unset;
}

/* The demangled name (malloc'd), or NULL to use the mangled one. */
static char *demangle_unversioned(enum pk_demangle mode, const char *mangled)
{
	char *full, *out, *hash;
	int status = 0;

	if (mode == PK_DEMANGLE_NONE)
		return NULL;
	/* the same in every style, as rustfilt and perf print them */
	if (pki_starts_with(mangled, "_R"))
		return sym_rust_v0_demangle(mangled);
	if (!pki_starts_with(mangled, "_Z"))
		return NULL;
	pthread_once(&cxa_once, cxa_open);
	if (!cxa_demangle)
		return NULL;
	full = cxa_demangle(mangled, NULL, NULL, &status);
	if (!full || status != 0) {
		free(full);
		return NULL;
	}
	if (is_rust_legacy(mangled)) {
		/* "core::fmt::write::h0123456789abcdef": drop the hash */
		for (hash = strstr(full, "::h"); hash;
		     hash = strstr(hash + 1, "::h")) {
			size_t i;

			for (i = 3; i < 19 && pki_hexval(hash[i]) >= 0; i++)
				;
			if (i == 19 && (!hash[19] || hash[19] == ' ')) {
				memmove(hash, hash + 19, strlen(hash + 19) + 1);
				break;
			}
		}
		rust_unescape(full);
		return full;
	}
	if (mode == PK_DEMANGLE_FULL)
		return full;
	out = short_name(full);
	free(full);
	if (out && mode == PK_DEMANGLE_SIMPLE)
		drop_template_args(out);
	return out;
}

/*
 * As demangle_unversioned, for names that may end in a symbol version
 * ("memcpy@@GLIBC_2.14", glibc's symbol tables): the version stays, as
 * perf shows it, except in pprof's style, which has none.
 */
char *sym_demangle(enum pk_demangle mode, const char *mangled)
{
	const char *at = mangled[0] ? strchr(mangled + 1, '@') : NULL;
	char *base, *d, *out;
	size_t size;

	if (!at || mode == PK_DEMANGLE_NONE)
		return demangle_unversioned(mode, mangled);
	base = strndup(mangled, (size_t)(at - mangled));
	if (!base)
		return NULL;
	d = demangle_unversioned(mode, base);
	if (mode == PK_DEMANGLE_SIMPLE) {
		if (d)
			free(base);
		return d ? d : base;
	}
	free(base);
	if (!d)
		return NULL;
	size = strlen(d) + strlen(at) + 1;
	out = malloc(size);
	if (out)
		snprintf(out, size, "%s%s", d, at);
	free(d);
	return out;
}

/* Where "::h" and a legacy Rust hash of 16 hex digits end s[0, len)
 * ("core::fmt::write::h0123456789abcdef"), or 0. */
static size_t rust_hash_at(const char *s, size_t len)
{
	size_t i;

	if (len <= 19 || memcmp(s + len - 19, "::h", 3) != 0)
		return 0;
	for (i = len - 16; i < len; i++)
		if (!(s[i] >= '0' && s[i] <= '9') && !(s[i] >= 'a' && s[i] <= 'f'))
			return 0;
	return len - 19;
}

/*
 * perf leaves a legacy Rust name half demangled where its check of the
 * name fails: the escapes and hash stay. Finished as rustc-demangle
 * finishes them, as perf shows the names it does demangle (so the
 * element "_$u7b$$u7b$closure$u7d$$u7d$" is "{{closure}}", where
 * inferno keeps the underscore).
 */
char *sym_demangle_printed(enum pk_demangle mode, const char *printed,
			   size_t len)
{
	size_t hash;
	char *s, *d = NULL;

	if (mode == PK_DEMANGLE_NONE || len < 3)
		return NULL;
	if (printed[0] == '_' && (printed[1] == 'R' || printed[1] == 'Z')) {
		if (!(s = strndup(printed, len)))
			return NULL;
		if (printed[1] == 'R' || is_rust_legacy(s))
			d = sym_demangle(mode, s);
		free(s);
		return d;
	}
	hash = rust_hash_at(printed, len);
	if (!hash || !(s = strndup(printed, hash)))
		return NULL;
	rust_unescape(s);
	return s;
}
