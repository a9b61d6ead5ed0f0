/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer: turns (mapping, address) locations into functions,
 * files and lines, in place (see profkit/symbolize.h).
 *
 * Each distinct mapped file becomes one "object", found, opened and
 * indexed once per symbolizer: an ELF file reported to its own Dwfl at
 * its link-time addresses (bias 0), a kallsyms table for the kernel and
 * its modules, or a perf-PID.map table for JIT code. A location's
 * address is turned into the object's address space (a file virtual
 * address for ELF, the address itself for the kernel and JIT code) and
 * the answer is memoized per (object, address), so a library mapped by
 * a hundred processes is looked up once per address, not once per
 * mapping.
 *
 * Inline frames come from DWARF scopes: the innermost frame's line is
 * the line table's, each outer frame's is the DW_AT_call_line of the
 * inlined instance it contains. The outermost frame is named by the
 * symbol table when it has a symbol there (as perf does: "foo.isra.0"),
 * and by DWARF otherwise.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profkit/symbolize.h>

#include "idtab.h"
#include "internal.h"
#include "symbolize_internal.h"

#define MAX_FRAMES 128		/* inline depth kept per address */
#define TRIED_MAX 480		/* characters of "tried ..." in a warning */
#define MAX_UNITS 64		/* units indexed one by one (index_unit_of) */

/* libstdc++'s demangler (extern "C"; see the note at demangle()). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

/* A sorted table of [start, end) -> name: kallsyms, a perf map, ELF. */
struct sym {
	uint64_t start, end;
	const char *name;	/* into the table's text (or libelf's) */
	uint64_t rank;		/* tie-break among equal starts */
	int sized;		/* end is the symbol's own, not a guess */
	/* addr2line's (binutils') choice among the aliases (bfd_preference) */
	const char *bfd_alias;
};

struct symtab {
	char *path;
	char *text;		/* the file, names NUL-terminated in place */
	struct sym *v;
	size_t n;
	int hidden;		/* kallsyms with every address 0 */
};

struct load_segment {
	uint64_t offset, vaddr, filesz;
};

enum obj_kind {
	OBJ_NONE,		/* nothing to look addresses up in */
	OBJ_ELF,
	OBJ_KERNEL,
	OBJ_JIT,
};

struct object {
	struct pk_symbolizer *s;
	char *file, *build_id;	/* the mapping's, as recorded */
	int is_binary;		/* stands for --binary */
	enum obj_kind kind;
	char *path;		/* what was opened */

	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	int e_type;
	int debug_only;		/* a separate debug file: offsets unusable */
	uint64_t link_base;	/* the first segment's page-aligned vaddr */
	int has_dwarf;		/* -1: not looked at yet (object_has_dwarf) */
	struct fn_range *fns;	/* concrete functions by address */
	size_t nfns, fns_cap;
	int fns_built;		/* every unit's, or given up */
	Dwarf_Off units[MAX_UNITS];	/* the units indexed so far */
	size_t nunits;
	Dwarf_Addr dwbias;	/* Dwfl address - DWARF address */
	char file_id[81];	/* the opened file's build id, or "" */
	struct load_segment *segs;
	size_t nsegs;

	struct symtab *tab;	/* OBJ_KERNEL (shared), OBJ_JIT and OBJ_ELF */
	int tab_loaded;		/* OBJ_ELF: see elf_symtab */

	/* "ns::A::" of C++ functions by declaration DIE (qualify) */
	struct scope_prefix *prefixes;
	size_t nprefixes, prefixes_cap;
	struct pk_idtab prefix_tab;

	/* C++ functions addr2line has named once (addr2line_names) */
	struct a2l_name *a2l;
	size_t na2l, a2l_cap;
	struct pk_idtab a2l_tab;
};

struct a2l_name {
	Dwarf *dwarf;
	Dwarf_Off offset;	/* of the function or inlined instance */
	const char *name;	/* the symbol that replaced its name, or NULL */
};

struct scope_prefix {
	Dwarf *dwarf;		/* the main file's or a dwz alt file's */
	Dwarf_Off offset;	/* of the declaration */
	char *text;		/* NULL: the scopes have no names */
};

struct pk_symbolizer {
	struct pk_context *ctx;
	struct pk_symbolize_options o;
	char *binary, *symfs, *kallsyms;
	char **dirs;		/* the symbol path, absolute */
	size_t ndirs;
	char *home_debug;	/* $HOME/.debug, perf's build-id cache */
	char *system_debug;	/* /usr/lib/debug, under --symfs as perf has it */
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;

	struct object **objs;
	size_t nobjs, objs_cap;
	struct symtab **ktabs;	/* kallsyms tables by path */
	size_t nktabs, ktabs_cap;
	char *running_build_id;	/* of the running kernel, or "" */
	int kernel_warned;
	/* kallsyms read on a thread while DWARF is inflated (prefetch_kallsyms) */
	struct {
		pthread_t thread;
		int running;
		char *path;
		struct symtab *tab;
	} prefetch;
	int quiet;		/* a second user of the same files: no warnings */
};

/* ---- small helpers ---- */

struct tried {
	char buf[TRIED_MAX + 8];
	size_t len;
	int more;
};

static void tried_add(struct tried *t, const char *path, const char *why)
{
	int n;

	if (t->len >= TRIED_MAX) {
		t->more = 1;
		return;
	}
	n = snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s%s%s%s%s",
		     t->len ? ", " : "", path, why ? " (" : "", why ? why : "",
		     why ? ")" : "");
	if (n < 0 || (size_t)n >= sizeof(t->buf) - t->len) {
		t->buf[t->len] = '\0';
		t->more = 1;
		return;
	}
	t->len += (size_t)n;
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *s = malloc(la + lb + lc + 1);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c ? c : "", lc + 1);
	return s;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static int open_regular(const char *path);

/* Read a whole regular file (also /proc files, whose size is unknown). */
static int slurp(const char *path, size_t max, char **data, size_t *size)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto fail;	/* a FIFO named as a perf map would block */
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap &&
		    (cap >= max || pk_grow(&buf, &cap, len + 65536, 1) < 0))
			goto fail;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*data = buf;
	*size = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}

static void hex_encode(const unsigned char *bits, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[bits[i] >> 4];
		out[2 * i + 1] = digits[bits[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * Whether a file's build id (hex) is the recorded one. Older perf.data
 * files pad build ids to 20 bytes with zeros, so trailing zeros in the
 * recorded id do not count.
 */
static int build_id_matches(const char *recorded, const char *file)
{
	size_t n = strlen(file), i;

	if (strncasecmp(recorded, file, n) != 0)
		return 0;
	for (i = n; recorded[i]; i++)
		if (recorded[i] != '0')
			return 0;
	return 1;
}

/* "/.build-id/xx/rest", lower case: the id split as build-id trees do. */
static void build_id_subpath(const char *bid, char *out, size_t size)
{
	char *c;

	snprintf(out, size, "/.build-id/%.2s/%s", bid, bid + 2);
	for (c = out; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
}

/* ---- demangling ---- */

/*
 * Demangling uses __cxa_demangle from libstdc++: elfutils exports no
 * demangler, libiberty's cplus_demangle is a static library outside our
 * dependencies, and libstdc++ is on every machine with a C++ runtime
 * (perf links it for the same purpose). It handles C++ and legacy Rust
 * (_ZN...17h<hash>E, cleaned up below); Rust v0 names (_R...) stay
 * mangled.
 */

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

	if (starts_with(s + n, " new") || starts_with(s + n, " delete")) {
		n += s[n + 1] == 'n' ? 4 : 7;
		if (starts_with(s + n, "[]"))
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
		if (starts_with(s + n, ops[i]))
			return n + strlen(ops[i]);
	return n;
}

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Index of the bracket closing the one at s[i], or len. */
static size_t skip_group(const char *s, size_t i, size_t len)
{
	int depth = 0;

	for (; i < len; i++) {
		if (starts_with(s + i, "operator") &&
		    (i == 0 || !is_ident_char(s[i - 1]))) {
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

/*
 * "unsigned long* std::fill_n<unsigned long*>(unsigned long*) const"
 * -> "std::fill_n<unsigned long*>": drop the return type, parameters,
 * qualifiers and " [clone .cold]" suffixes, as perf shows names. A
 * "(...)" followed by "::" is part of the name ("(anonymous namespace)::f").
 */
static char *short_name(const char *full)
{
	static const char *const prefixes[] = {
		"non-virtual thunk to ", "virtual thunk to ",
		"covariant return thunk to ", "construction vtable for ",
		"vtable for ", "typeinfo for ", "typeinfo name for ",
		"VTT for ", "guard variable for ", "transaction clone for ",
	};
	size_t len = strlen(full), start = 0, end = len, keep = 0, size, i;
	const char *clone, *prefix = "";
	char *out;

	for (i = 0; i < PK_ARRAY_SIZE(prefixes); i++) {
		if (starts_with(full, prefixes[i])) {
			prefix = prefixes[i];
			start = keep = strlen(prefix);
			break;
		}
	}
	clone = strstr(full, " [clone ");
	if (clone)
		len = (size_t)(clone - full);
	for (i = start; i < len; i++) {
		if (starts_with(full + i, "operator") &&
		    (i == 0 || !is_ident_char(full[i - 1]))) {
			i += operator_len(full + i) - 1;
			/* "std::operator< <char>": the blank is the name's */
			if (full[i + 1] == ' ' && full[i + 2] == '<')
				i++;
		} else if (full[i] == ' ') {
			start = i + 1;
		} else if (full[i] == '(') {
			size_t close = skip_group(full, i, len);

			if (close + 2 < len && full[close + 1] == ':' &&
			    full[close + 2] == ':') {
				i = close;
				continue;
			}
			end = i;
			break;
		} else if (strchr("<[{", full[i])) {
			i = skip_group(full, i, len);
		}
	}
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

	if (!starts_with(mangled, "_ZN"))
		return 0;
	for (; e; e = strstr(e + 1, "17h")) {
		for (i = 3; i < 19 && pk_hexval(e[i]) >= 0; i++)
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
		if (r[0] == '$' && r[1] == 'u' && pk_hexval(r[2]) >= 0 &&
		    pk_hexval(r[3]) >= 0 && r[4] == '$') {
			*w++ = (char)(pk_hexval(r[2]) * 16 + pk_hexval(r[3]));
			r += 5;
			continue;
		}
		for (i = 0; i < PK_ARRAY_SIZE(map); i++)
			if (starts_with(r, map[i].esc))
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
 * brackets ("operator<<", "operator<=>").
 */
static void drop_template_args(char *s)
{
	size_t len = strlen(s), i, w = 0;

	for (i = 0; i < len; i++) {
		if (starts_with(s + i, "operator") &&
		    (i == 0 || !is_ident_char(s[i - 1]))) {
			size_t n = operator_len(s + i);

			memmove(s + w, s + i, n);
			w += n;
			i += n - 1;
		} else if (s[i] == '<') {
			i = skip_group(s, i, len);
		} else {
			s[w++] = s[i];
		}
	}
	s[w] = '\0';
}

/* The demangled name (malloc'd), or NULL to use the mangled one. */
static char *demangle_unversioned(enum pk_demangle mode, const char *mangled)
{
	char *full, *out, *hash;
	int status = 0;

	if (mode == PK_DEMANGLE_NONE || !starts_with(mangled, "_Z"))
		return NULL;
	full = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!full || status != 0) {
		free(full);
		return NULL;
	}
	if (is_rust_legacy(mangled)) {
		/* "core::fmt::write::h0123456789abcdef": drop the hash */
		for (hash = strstr(full, "::h"); hash;
		     hash = strstr(hash + 1, "::h")) {
			size_t i;

			for (i = 3; i < 19 && pk_hexval(hash[i]) >= 0; i++)
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
static char *demangle(enum pk_demangle mode, const char *mangled)
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

/* ---- kallsyms and perf maps ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->text);
	free(t->v);
	free(t);
}

static int parse_hex(char **pp, uint64_t *v)
{
	char *p = *pp;
	size_t n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (; pk_hexval(*p) >= 0; p++, n++) {
		if (n == 16)
			return -1;
		*v = (*v << 4) | (uint64_t)pk_hexval(*p);
	}
	*pp = p;
	return n ? 0 : -1;
}

static int symtab_push(struct symtab *t, size_t *cap, uint64_t start,
		       uint64_t end, const char *name, uint64_t rank)
{
	if (pk_grow(&t->v, cap, t->n + 1, sizeof(*t->v)) < 0)
		return -1;
	t->v[t->n].start = start;
	t->v[t->n].end = end;
	t->v[t->n].name = name;
	t->v[t->n].rank = rank;
	t->v[t->n].sized = end != 0;
	t->v[t->n].bfd_alias = name;
	t->n++;
	return 0;
}

/*
 * "ffffffff81000000 T _text" or "ffffffffc0a01000 t fn\t[module]".
 * kallsyms has no sizes: a symbol ends where the next one (of any type)
 * begins. Only text symbols are kept; among aliases a global one wins.
 */
static int parse_kallsyms(struct symtab *t)
{
	size_t cap = 0, i, kept = 0;
	char *p = t->text, *next;
	int all_zero = 1;

	for (; *p; p = next) {
		unsigned rank;
		uint64_t addr;
		char *name;

		next = strchr(p, '\n');
		next = next ? next + 1 : p + strlen(p);
		if (parse_hex(&p, &addr) || *p != ' ' || !p[1] || p[2] != ' ')
			continue;
		rank = strchr("TW", p[1]) ? 0 : strchr("tw", p[1]) ? 1 : 2;
		name = p + 3;
		name[strcspn(name, " \t\r\n")] = '\0';
		if (!*name)
			continue;
		if (addr)
			all_zero = 0;
		if (symtab_push(t, &cap, addr, 0, name,
				(rank << 30) | (unsigned)(t->n & 0x3fffffff)))
			return -1;
	}
	t->hidden = t->n && all_zero;
	qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	for (i = 0; i < t->n; i++)
		if (!kept || t->v[kept - 1].start != t->v[i].start)
			t->v[kept++] = t->v[i];
	for (i = 0; i < kept; i++)
		t->v[i].end = i + 1 < kept ? t->v[i + 1].start :
			(t->v[i].start | 0xfff) + 0x1001;
	t->n = 0;
	for (i = 0; i < kept; i++)
		if (t->v[i].rank >> 30 != 2)
			t->v[t->n++] = t->v[i];
	return 0;
}

/* "START SIZE name with spaces" in hex, as JITs write /tmp/perf-PID.map. */
static int parse_perf_map(struct symtab *t)
{
	size_t cap = 0;
	char *p = t->text, *next;

	for (; *p; p = next) {
		uint64_t start, size;
		char *name, *end;

		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		else
			next = p + strlen(p);
		if (parse_hex(&p, &start) || *p != ' ')
			continue;
		p++;
		if (parse_hex(&p, &size) || *p != ' ' || !size ||
		    start + size < start)
			continue;
		name = p + 1;
		end = name + strlen(name);
		while (end > name && (end[-1] == ' ' || end[-1] == '\r'))
			*--end = '\0';
		/* a later entry for the same start wins: code was replaced */
		if (*name && symtab_push(t, &cap, start, start + size, name,
					 (unsigned)(t->n & 0x7fffffff)))
			return -1;
	}
	qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	return 0;
}

static struct symtab *symtab_load(struct pk_symbolizer *s, const char *path,
				  int (*parse)(struct symtab *))
{
	struct symtab *t = calloc(1, sizeof(*t));
	size_t size;

	if (!t)
		return NULL;
	t->path = strdup(path);
	if (!t->path ||
	    slurp(path, pk_context_max_memory(s->ctx), &t->text, &size) ||
	    parse(t)) {
		symtab_free(t);
		return NULL;
	}
	return t;
}

static const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo entries start at or below addr; overlaps are rare and short */
	for (i = lo; i > 0 && lo - i < 16; i--)
		if (addr < t->v[i - 1].end)
			return &t->v[i - 1];
	return NULL;
}

/* ---- finding files ---- */

/* The running kernel's build id, from its ELF notes, or "". */
static char *running_kernel_build_id(void)
{
	char *data, *out = NULL;
	size_t size, off = 0;

	if (slurp("/sys/kernel/notes", 1 << 20, &data, &size))
		return strdup("");
	while (!out && size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, data + off, 4);
		memcpy(&descsz, data + off + 4, 4);
		memcpy(&type, data + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > size || descsz > size || desc_off > size ||
		    descsz > size - desc_off)
			break;
		if (type == 3 && namesz == 4 &&
		    memcmp(data + name_off, "GNU", 4) == 0 && descsz <= 64) {
			out = malloc(2 * descsz + 1);
			if (out)
				hex_encode((unsigned char *)data + desc_off,
					   descsz, out);
		}
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	free(data);
	return out ? out : strdup("");
}

/* perf record's copy of kallsyms in its build-id cache (malloc'd), or NULL. */
static char *cached_kallsyms(const struct pk_symbolizer *s, const char *bid)
{
	char sub[160];

	if (strlen(bid) <= 2 || strlen(bid) >= 128 || !s->home_debug)
		return NULL;
	build_id_subpath(bid, sub, sizeof(sub));
	return join(s->home_debug, sub, "/kallsyms");
}

/* Was the recording made on the running kernel? Its build id says
 * better than the caller (local_kernel). */
static int kernel_is_running(struct pk_symbolizer *s, const char *bid)
{
	if (*bid) {
		if (!s->running_build_id)
			s->running_build_id = running_kernel_build_id();
		if (s->running_build_id && *s->running_build_id)
			return build_id_matches(bid, s->running_build_id);
	}
	return s->o.local_kernel;
}

/* ---- kallsyms on a thread ---- */

/*
 * Reading /proc/kallsyms is mostly the kernel's time writing it, and
 * inflating a library's compressed debug sections is mostly ours: the
 * symbolizer does the one on a thread while doing the other. The thread
 * only reads and parses into a table of its own (symtab_load touches no
 * shared state); kernel_table adopts it, joining, when it gets there.
 */
static void *prefetch_main(void *arg)
{
	struct pk_symbolizer *s = arg;

	s->prefetch.tab = symtab_load(s, s->prefetch.path, parse_kallsyms);
	return NULL;
}

static void prefetch_join(struct pk_symbolizer *s)
{
	if (s->prefetch.running)
		pthread_join(s->prefetch.thread, NULL);
	s->prefetch.running = 0;
}

/* The prefetched table of path, if that is what the thread read. */
static struct symtab *prefetched(struct pk_symbolizer *s, const char *path)
{
	struct symtab *t;

	if (!s->prefetch.path || strcmp(s->prefetch.path, path) != 0)
		return NULL;
	prefetch_join(s);
	t = s->prefetch.tab;
	s->prefetch.tab = NULL;
	return t;
}

/* Start reading the kallsyms open_kernel will want first, if any. */
static void prefetch_kallsyms(struct pk_symbolizer *s, const char *bid)
{
	const char *path = s->kallsyms;
	char *cache = NULL;

	if (s->prefetch.path)
		return;
	if (!path && (cache = cached_kallsyms(s, bid)) &&
	    access(cache, R_OK) == 0)
		path = cache;
	if (!path && kernel_is_running(s, bid))
		path = "/proc/kallsyms";
	if (path && access(path, R_OK) == 0 &&
	    (s->prefetch.path = strdup(path)) &&
	    pthread_create(&s->prefetch.thread, NULL, prefetch_main, s) == 0)
		s->prefetch.running = 1;
	free(cache);
}

static struct symtab *kernel_table(struct pk_symbolizer *s, const char *path)
{
	struct symtab *t;
	size_t i;

	for (i = 0; i < s->nktabs; i++)
		if (strcmp(s->ktabs[i]->path, path) == 0)
			return s->ktabs[i];
	if (access(path, R_OK) != 0)
		return NULL;
	t = prefetched(s, path);
	if (!t)
		t = symtab_load(s, path, parse_kallsyms);
	if (!t)
		return NULL;
	if (pk_grow(&s->ktabs, &s->ktabs_cap, s->nktabs + 1,
		    sizeof(*s->ktabs)) < 0) {
		symtab_free(t);
		return NULL;
	}
	s->ktabs[s->nktabs++] = t;
	return t;
}

/*
 * Kernel symbols, best source first: --kallsyms, perf's build-id cache
 * (a copy of kallsyms made at record time), then /proc/kallsyms when the
 * recording is of the running kernel.
 */
static void open_kernel(struct object *obj)
{
	struct pk_symbolizer *s = obj->s;
	struct tried tried = { .len = 0 };
	const char *bid = obj->build_id;
	int running = 0;
	char *path = NULL;

	if (s->kallsyms) {
		obj->tab = kernel_table(s, s->kallsyms);
		if (!obj->tab)
			tried_add(&tried, s->kallsyms, "unreadable");
	}
	if (!obj->tab && (path = cached_kallsyms(s, bid))) {
		obj->tab = kernel_table(s, path);
		if (!obj->tab)
			tried_add(&tried, path, NULL);
	}
	free(path);
	if (!obj->tab) {
		running = kernel_is_running(s, bid);
		if (!running && *bid && s->running_build_id &&
		    *s->running_build_id) {
			char why[128];

			snprintf(why, sizeof(why), "of build id %s",
				 s->running_build_id);
			tried_add(&tried, "/proc/kallsyms", why);
		}
	}
	if (!obj->tab && running)
		obj->tab = kernel_table(s, "/proc/kallsyms");
	if (obj->tab && obj->tab->hidden) {
		if (!s->kernel_warned++)
			pk_warn(s->ctx, "symbolize: every address in '%s' is 0 "
				"(kernel.kptr_restrict): kernel frames stay "
				"unsymbolized", obj->tab->path);
		obj->tab = NULL;
	}
	if (obj->tab) {
		obj->kind = OBJ_KERNEL;
		obj->path = strdup(obj->tab->path);
		return;
	}
	if (!s->kernel_warned++)
		pk_warn(s->ctx, "symbolize: no kernel symbols for '%s'%s%s%s: "
			"give --kallsyms=FILE (a copy of the recording "
			"machine's /proc/kallsyms)%s%s", obj->file,
			*bid ? " (build id " : "", bid, *bid ? ")" : "",
			tried.len ? "; tried " : "", tried.buf);
}

/* Read the load segments and check the build id; the Elf stays open. */
static const char *check_elf(struct object *obj, Elf *elf, int check_id,
			     char *why, size_t why_size)
{
	GElf_Ehdr ehdr;
	const void *bits;
	ssize_t nbits;
	size_t nph, i;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return "not ELF";
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		return "not an executable or shared object";
	nbits = dwelf_elf_gnu_build_id(elf, &bits);
	obj->file_id[0] = '\0';
	if (nbits > 0 && nbits <= 40)
		hex_encode(bits, (size_t)nbits, obj->file_id);
	if (check_id && *obj->build_id && *obj->file_id &&
	    !build_id_matches(obj->build_id, obj->file_id)) {
		snprintf(why, why_size, "build id %s", obj->file_id);
		return why;
	}
	if (elf_getphdrnum(elf, &nph))
		return "no program headers";
	free(obj->segs);
	obj->segs = calloc(nph ? nph : 1, sizeof(*obj->segs));
	if (!obj->segs)
		return "out of memory";
	obj->nsegs = 0;
	obj->debug_only = 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!obj->nsegs)
			obj->link_base = ph.p_vaddr &
				~(ph.p_align > 1 ? ph.p_align - 1 : 0);
		/* separate debug files keep the headers, not the bytes */
		if ((ph.p_flags & PF_X) && ph.p_filesz == 0 && ph.p_memsz)
			obj->debug_only = 1;
		obj->segs[obj->nsegs].offset = ph.p_offset;
		obj->segs[obj->nsegs].vaddr = ph.p_vaddr;
		obj->segs[obj->nsegs].filesz = ph.p_filesz;
		obj->nsegs++;
	}
	obj->e_type = ehdr.e_type;
	return NULL;
}

/*
 * Labels (STT_NOTYPE) in code count as functions, as perf counts them:
 * assembly entry points such as ld.so's _dl_start_user have no type.
 */
static int is_code_section(Elf *elf, GElf_Word shndx)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr shdr;

	return scn && gelf_getshdr(scn, &shdr) &&
	       (shdr.sh_flags & SHF_EXECINSTR);
}

/*
 * Which of the symbols at one address names it, as perf chooses (its
 * choose_best_symbol), lowest first: one with a size, then a global,
 * then a local, then a weak one, then fewer leading underscores
 * ("clone3" over "__clone3"), then the longer name, then the first.
 */
static uint64_t alias_rank(const char *name, int sized, int bind,
			   unsigned index)
{
	size_t underscores = strspn(name, "_"), len = strlen(name);
	uint64_t binding = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 1;

	if (underscores > 15)
		underscores = 15;
	if (len > 0xffff)
		len = 0xffff;
	return (uint64_t)!sized << 62 | binding << 60 |
	       (uint64_t)underscores << 56 | (uint64_t)(0xffff - len) << 40 |
	       (index & 0xffffffffffu);
}

/*
 * Among aliases, addr2line (binutils) names an address after the last
 * local symbol in the table, else the last one: from an alias_rank, the
 * binding (local: 1) and the symbol's index.
 */
static uint64_t bfd_preference(uint64_t rank)
{
	return (uint64_t)(((rank >> 60) & 3) == 1) << 40 |
	       (rank & 0xffffffffffu);
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, shdr) &&
		    (n = elf_strptr(elf, shstrndx, shdr->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/*
 * "memcmp@plt" for each PLT stub, as perf names them (pprof does not): slot i of
 * .rela.plt is the stub at .plt.sec + 16 i (IBT) or .plt + 16 (i + 1)
 * (x86_64; other machines keep their stubs unnamed). Names live in
 * t->text.
 */
static int add_plt_symbols(struct symtab *t, size_t *cap, Elf *elf,
			   GElf_Addr bias)
{
	GElf_Shdr rela, plt, dynsym;
	GElf_Ehdr ehdr;
	Elf_Scn *rela_scn, *plt_scn, *sym_scn;
	Elf_Data *relocs, *syms;
	GElf_Addr first;
	size_t n, i, size = 0, used = 0;

	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 ||
	    !(rela_scn = find_section(elf, ".rela.plt", &rela)) ||
	    rela.sh_type != SHT_RELA || !rela.sh_entsize ||
	    !(sym_scn = elf_getscn(elf, rela.sh_link)) ||
	    !gelf_getshdr(sym_scn, &dynsym) ||
	    !(relocs = elf_getdata(rela_scn, NULL)) ||
	    !(syms = elf_getdata(sym_scn, NULL)))
		return 0;
	if ((plt_scn = find_section(elf, ".plt.sec", &plt)))
		first = plt.sh_addr;
	else if ((plt_scn = find_section(elf, ".plt", &plt)))
		first = plt.sh_addr + 16;
	else
		return 0;
	n = rela.sh_size / rela.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;

		if (gelf_getrela(relocs, (int)i, &r) &&
		    gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) &&
		    (name = elf_strptr(elf, dynsym.sh_link, sym.st_name)))
			size += strlen(name) + sizeof("@plt");
	}
	if (!size || !(t->text = malloc(size)))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		GElf_Addr at = first + 16 * i + bias;

		if (!gelf_getrela(relocs, (int)i, &r) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(elf, dynsym.sh_link, sym.st_name)) ||
		    first + 16 * (i + 1) > plt.sh_addr + plt.sh_size ||
		    used + strlen(name) + sizeof("@plt") > size)
			continue;
		sprintf(t->text + used, "%s@plt", name);
		if (symtab_push(t, cap, at, at + 16, t->text + used,
				alias_rank(t->text + used, 1, STB_GLOBAL, 0)))
			return -1;
		used += strlen(t->text + used) + 1;
	}
	return 0;
}

/*
 * The function symbols of an ELF object, sorted, so each address costs
 * a binary search (dwfl_module_addrinfo scans the whole table), one name
 * per address (alias_rank); a sizeless symbol ends where the next begins.
 * Symbols come from .symtab (of the debug file when there is one) or
 * .dynsym, whose section indices are the main file's.
 */
static struct symtab *load_elf_symbols(Dwfl_Module *mod, int plt_names)
{
	GElf_Addr elf_bias;
	Elf *elf = dwfl_module_getelf(mod, &elf_bias);
	struct symtab *t = calloc(1, sizeof(*t));
	int n = dwfl_module_getsymtab(mod), k;
	size_t cap = 0, i, kept = 0;
	uint64_t best = 0;

	if (!t)
		return NULL;
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, k, &sym, &addr,
							   &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		int bind = GELF_ST_BIND(sym.st_info);
		uint64_t rank;

		if (!name || !*name || name[0] == '$' ||
		    shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    shndx == (GElf_Word)-1 ||
		    !(type == STT_FUNC || type == STT_GNU_IFUNC ||
		      (type == STT_NOTYPE && is_code_section(elf, shndx))))
			continue;
		rank = alias_rank(name, sym.st_size != 0, bind, (unsigned)k);
		if (symtab_push(t, &cap, addr,
				sym.st_size ? addr + sym.st_size : 0, name,
				rank)) {
			symtab_free(t);
			return NULL;
		}
	}
	if (plt_names && add_plt_symbols(t, &cap, elf, elf_bias)) {
		symtab_free(t);
		return NULL;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	for (i = 0; i < t->n; i++) {
		struct sym *prev = kept ? &t->v[kept - 1] : NULL;
		uint64_t pref = bfd_preference(t->v[i].rank);

		if (!prev || prev->start != t->v[i].start) {
			t->v[kept++] = t->v[i];
			best = pref;
		} else if (pref > best) {
			prev->bfd_alias = t->v[i].name;
			best = pref;
		}
	}
	t->n = kept;
	for (i = 0; i < t->n; i++)
		if (!t->v[i].sized)
			t->v[i].end = i + 1 < t->n ? t->v[i + 1].start :
				t->v[i].start + 1;
	return t;
}

/* Open path as obj's ELF file; 0 on success, else why is noted. */
/*
 * Recordings name the files to open, and a hostile one may name a FIFO,
 * a device or /proc/kmsg: only a regular file with room for an ELF
 * header is opened, never anything a read could block on.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	if (starts_with(path, "/proc/") || starts_with(path, "/sys/") ||
	    starts_with(path, "/dev/")) {
		errno = EPERM;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 52) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int try_elf(struct object *obj, const char *path, int check_id,
		   struct tried *tried)
{
	struct pk_symbolizer *s = obj->s;
	char why_buf[128];
	const char *why;
	void **userdata;
	Elf *elf;
	int fd = open_regular(path);

	if (fd < 0) {
		tried_add(tried, path, errno == ENOENT ? NULL : strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	why = elf ? check_elf(obj, elf, check_id, why_buf, sizeof(why_buf)) :
		"not ELF";
	elf_end(elf);
	if (why) {
		tried_add(tried, path, why);
		close(fd);
		return -1;
	}
	obj->dwfl = dwfl_begin(&s->callbacks);
	if (obj->dwfl) {
		dwfl_report_begin(obj->dwfl);
		/* ET_DYN at bias 0: Dwfl addresses are the file's vaddrs */
		obj->mod = dwfl_report_elf(obj->dwfl, base_name(path), path,
					   fd, 0, true);
		dwfl_report_end(obj->dwfl, NULL, NULL);
	}
	if (!obj->mod) {
		tried_add(tried, path, dwfl_errmsg(-1));
		if (obj->dwfl)
			dwfl_end(obj->dwfl);
		obj->dwfl = NULL;
		close(fd);	/* not consumed on failure */
		return -1;
	}
	dwfl_module_info(obj->mod, &userdata, NULL, NULL, NULL, NULL, NULL,
			 NULL);
	*userdata = obj;
	if (!dwfl_module_getelf(obj->mod, &obj->bias))
		obj->bias = 0;
	obj->has_dwarf = -1;	/* loaded when an address needs it */
	obj->path = strdup(path);
	obj->kind = OBJ_ELF;
	return 0;
}

/* Try DIR + sub + tail; 0 when it was the one. */
static int try_elf3(struct object *obj, const char *dir, const char *sub,
		    const char *tail, struct tried *tried)
{
	char *path = join(dir, sub, tail);
	int rc;

	if (!path)
		return -1;
	rc = try_elf(obj, path, 1, tried);
	free(path);
	return rc;
}

/*
 * The ELF file for a mapping, most reliable first: by build id (perf's
 * cache, the symbol path), under --symfs, by base name in the symbol
 * path, the recorded path itself, and last a separate debug file found
 * by build id (its symbols and lines are right; its file offsets are
 * not, so the address is translated as if vaddr == offset).
 */
static void open_elf(struct object *obj, const char *file)
{
	struct pk_symbolizer *s = obj->s;
	struct tried tried = { .len = 0 };
	const char *bid = obj->build_id;
	char sub[160] = "";
	size_t i;

	if (obj->is_binary) {
		if (try_elf(obj, s->binary, 0, &tried))
			goto fail;
		if (*bid && *obj->file_id && !s->quiet &&
		    !build_id_matches(bid, obj->file_id))
			pk_warn(s->ctx, "symbolize: using '%s' (build id %s) "
				"for '%s', recorded with build id %s",
				s->binary, obj->file_id, file, bid);
		return;
	}
	if (strlen(bid) > 2 && strlen(bid) < 128) {
		build_id_subpath(bid, sub, sizeof(sub));
		if (s->home_debug &&
		    (!try_elf3(obj, s->home_debug, sub, "/elf", &tried) ||
		     !try_elf3(obj, s->home_debug, sub, "/vdso", &tried)))
			return;
		for (i = 0; i < s->ndirs; i++)
			if (!try_elf3(obj, s->dirs[i], sub, NULL, &tried) ||
			    !try_elf3(obj, s->dirs[i], sub, "/elf", &tried))
				return;
	}
	if (file[0] == '[')
		goto debug_only;	/* [vdso]: there is no file */
	if (s->symfs && !try_elf3(obj, s->symfs, file[0] == '/' ? "" : "/",
				  file, &tried))
		return;
	for (i = 0; i < s->ndirs; i++)
		if (!try_elf3(obj, s->dirs[i], "/", base_name(file), &tried))
			return;
	if (!s->symfs && try_elf(obj, file, 1, &tried) == 0)
		return;
debug_only:
	if (strlen(bid) > 2 && strlen(bid) < 128) {
		if (!try_elf3(obj, s->system_debug, sub, ".debug", &tried) ||
		    (s->home_debug &&
		     !try_elf3(obj, s->home_debug, sub, "/debug", &tried)))
			return;
		for (i = 0; i < s->ndirs; i++)
			if (!try_elf3(obj, s->dirs[i], sub, ".debug", &tried))
				return;
	}
fail:
	if (s->quiet)
		return;
	pk_warn(s->ctx, "symbolize: no symbols for '%s'%s%s%s: tried %s%s",
		obj->is_binary ? s->binary : file, *bid ? " (build id " : "",
		bid, *bid ? ")" : "", tried.len ? tried.buf : "nothing",
		tried.more ? ", ..." : "");
}

/* A debug file found by name is only used when its build id agrees. */
static int debug_file_matches(const struct object *obj, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits;
	ssize_t n;
	char hex[81];
	int ok = 0;

	if (elf && elf_kind(elf) == ELF_K_ELF) {
		n = dwelf_elf_gnu_build_id(elf, &bits);
		ok = 1;
		if (n > 0 && n <= 40 && *obj->file_id) {
			hex_encode(bits, (size_t)n, hex);
			ok = strcmp(hex, obj->file_id) == 0;
		}
	}
	elf_end(elf);
	return ok;
}

static int open_debug_candidate(const struct object *obj, char *path,
				const char *main_file, char **found)
{
	int fd;

	if (!path)
		return -1;
	if (main_file && strcmp(path, main_file) == 0) {
		free(path);
		return -1;
	}
	fd = open_regular(path);
	if (fd >= 0 && debug_file_matches(obj, fd)) {
		*found = path;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return -1;
}

/*
 * libdwfl asks this for the DWARF of a file that has none of its own.
 * dwfl_standard_find_debuginfo would also ask debuginfod servers
 * whenever $DEBUGINFOD_URLS is set (Debian sets it for login shells), so
 * unless the caller opted in, look only on this machine: by build id
 * (/usr/lib/debug and the symbol path), perf's cache, and by the
 * .gnu_debuglink name beside the file, in .debug/, under /usr/lib/debug
 * and in the symbol path.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	struct object *obj = *userdata;
	char sub[160], *dir;
	const char *link;
	size_t i;
	int fd;

	if (!obj || obj->s->o.debuginfod)
		return dwfl_standard_find_debuginfo(mod, userdata, modname,
						    base, file_name, debuglink,
						    crc, debuginfo_file_name);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink, crc,
					  debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (strlen(obj->file_id) > 2 && obj->s->home_debug) {
		build_id_subpath(obj->file_id, sub, sizeof(sub));
		fd = open_debug_candidate(obj, join(obj->s->home_debug, sub,
						    "/debug"),
					  file_name, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!file_name)
		return -1;
	link = debuglink ? debuglink : base_name(file_name);
	dir = strdup(file_name);
	if (!dir)
		return -1;
	dir[base_name(file_name) - file_name] = '\0';	/* keeps the '/' */
	fd = open_debug_candidate(obj, join(dir, link, NULL), file_name,
				  debuginfo_file_name);
	if (fd < 0)
		fd = open_debug_candidate(obj, join(dir, ".debug/", link),
					  file_name, debuginfo_file_name);
	if (fd < 0 && dir[0] == '/') {
		char *sys = join(obj->s->system_debug, dir, NULL);

		if (sys)
			fd = open_debug_candidate(obj, join(sys, link, NULL),
						  file_name,
						  debuginfo_file_name);
		free(sys);
	}
	for (i = 0; fd < 0 && i < obj->s->ndirs; i++)
		fd = open_debug_candidate(obj, join(obj->s->dirs[i], "/", link),
					  file_name, debuginfo_file_name);
	free(dir);
	return fd;
}

static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr base, char **file_name, Elf **elf)
{
	(void)mod;
	(void)userdata;
	(void)name;
	(void)base;
	(void)file_name;
	(void)elf;
	return -1;	/* every module is reported with its file open */
}

/* "/tmp/perf-1234.map": symbols that a JIT wrote for its code. */
static int is_perf_map(const char *file)
{
	const char *b = base_name(file), *p;

	if (!starts_with(b, "perf-") || !ends_with(b, ".map"))
		return 0;
	for (p = b + 5; *p >= '0' && *p <= '9'; p++)
		;
	return p > b + 5 && strcmp(p, ".map") == 0;
}

static void open_jit(struct object *obj, const char *file)
{
	struct pk_symbolizer *s = obj->s;
	struct tried tried = { .len = 0 };
	char *path;
	size_t i;

	/* as for ELF files: --symfs, the symbol path, the path itself */
	for (i = 0; !obj->tab && i < s->ndirs + 2; i++) {
		if (i == 0)
			path = s->symfs ? join(s->symfs, "/", file) : NULL;
		else if (i <= s->ndirs)
			path = join(s->dirs[i - 1], "/", base_name(file));
		else
			path = s->symfs ? NULL : strdup(file);
		if (!path)
			continue;
		obj->tab = symtab_load(s, path, parse_perf_map);
		if (!obj->tab)
			tried_add(&tried, path, NULL);
		free(path);
	}
	if (obj->tab) {
		obj->kind = OBJ_JIT;
		obj->path = strdup(obj->tab->path);
		return;
	}
	if (!s->quiet)
		pk_warn(s->ctx, "symbolize: no JIT symbols for '%s': tried "
			"%s%s", file, tried.buf, tried.more ? ", ..." : "");
}

/* Mappings of no file: nothing to look up and nothing to warn about. */
static int is_anonymous(const char *file)
{
	static const char *const prefixes[] = {
		"//anon", "/anon_hugepage", "/dev/zero", "/memfd:", "/SYSV",
		"[anon", "[heap]", "[stack", "[vvar", "[vsyscall]",
		"[uprobes]", "[unknown]", "[vectors]", "[sigpage]",
	};
	size_t i;

	if (!*file)
		return 1;
	for (i = 0; i < PK_ARRAY_SIZE(prefixes); i++)
		if (starts_with(file, prefixes[i]))
			return 1;
	return 0;
}

static int is_kernel(const char *file)
{
	return starts_with(file, "[kernel.kallsyms]") ||
	       starts_with(file, "[guest.kernel.kallsyms") ||
	       ends_with(file, ".ko") || ends_with(file, ".ko.xz") ||
	       ends_with(file, ".ko.gz") || ends_with(file, ".ko.zst") ||
	       (file[0] == '[' && ends_with(file, "]") &&
		strcmp(file, "[vdso]") != 0 && !is_anonymous(file));
}

/* "libc.so.6", "ld-linux-x86-64.so.2", "libfoo.so": not the program. */
static int is_shared_library(const char *file)
{
	const char *so = strstr(base_name(file), ".so");

	return so && (so[3] == '\0' || so[3] == '.');
}

static void object_free(struct object *obj)
{
	size_t i;

	if (!obj)
		return;
	if (obj->dwfl)
		dwfl_end(obj->dwfl);
	if (obj->kind != OBJ_KERNEL)
		symtab_free(obj->tab);
	free(obj->segs);
	free(obj->fns);
	for (i = 0; i < obj->nprefixes; i++)
		free(obj->prefixes[i].text);
	free(obj->prefixes);
	pk_idtab_release(&obj->prefix_tab);
	free(obj->a2l);
	pk_idtab_release(&obj->a2l_tab);
	free(obj->file);
	free(obj->build_id);
	free(obj->path);
	free(obj);
}

/* " (deleted)": /proc/PID/maps after the file was replaced. */
static char *strip_deleted(const char *file)
{
	size_t len = strlen(file);

	if (ends_with(file, " (deleted)"))
		len -= strlen(" (deleted)");
	return strndup(file, len);
}

static struct object *object_get(struct pk_symbolizer *s, const char *file,
				 const char *build_id, int is_binary)
{
	struct object *obj;
	char *name;
	size_t i;

	for (i = 0; i < s->nobjs; i++) {
		obj = s->objs[i];
		if (obj->is_binary == is_binary &&
		    strcmp(obj->file, file) == 0 &&
		    strcmp(obj->build_id, build_id) == 0)
			return obj;
	}
	if (pk_grow(&s->objs, &s->objs_cap, s->nobjs + 1, sizeof(*s->objs)) < 0)
		return NULL;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	obj->s = s;
	obj->is_binary = is_binary;
	obj->file = strdup(file);
	obj->build_id = strdup(build_id);
	name = strip_deleted(file);
	if (!obj->file || !obj->build_id || !name) {
		free(name);
		object_free(obj);
		return NULL;
	}
	s->objs[s->nobjs++] = obj;
	if (is_binary)
		open_elf(obj, name);
	else if (is_anonymous(name))
		;
	else if (is_kernel(name))
		open_kernel(obj);
	else if (is_perf_map(name))
		open_jit(obj, name);
	else
		open_elf(obj, name);
	free(name);
	return obj;
}

/* ---- addresses to frames ---- */

/*
 * A runtime address in the object's own terms. For an ELF shared object
 * or PIE the address becomes a file offset through the mapping, then a
 * link-time address through the load segment holding that offset (as
 * perf and pprof do: vaddr and offset may differ by any amount). So do
 * executables (ET_EXEC): node maps its own file a second time for V8's
 * builtins, away from the link-time addresses. The kernel and JIT maps
 * use absolute addresses, and a mapping with no range (start = limit =
 * 0) already holds file addresses.
 */
static uint64_t object_address(const struct object *obj,
			       const struct pk_mapping *m, uint64_t addr)
{
	uint64_t fileoff;
	size_t i;

	if (obj->kind != OBJ_ELF || (m->start == 0 && m->limit == 0))
		return addr;
	fileoff = addr - m->start + m->offset;
	for (i = 0; !obj->debug_only && i < obj->nsegs; i++) {
		const struct load_segment *seg = &obj->segs[i];

		if (fileoff >= seg->offset && fileoff - seg->offset < seg->filesz)
			return fileoff - seg->offset + seg->vaddr;
	}
	/*
	 * No segment holds it, or a separate debug file's offsets are made
	 * up: an executable's address is its own, and anything else is
	 * taken as laid out as linkers do, offset 0 at the first segment's
	 * page.
	 */
	return obj->e_type == ET_EXEC ? addr : fileoff + obj->link_base;
}

struct frame {
	const char *name;	/* DW_AT_name or the symbol */
	const char *linkage;	/* mangled name, or NULL */
	char *qualified;	/* "ns::A::f" from DWARF scopes, or NULL */
	const char *file;
	int64_t start_line, line;
};

static const char *die_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

static int is_cplusplus(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
		return 1;
	default:
		return 0;
	}
}

/* The name a scope adds to a qualified name, or NULL if it cannot. */
static const char *scope_name(Dwarf_Die *scope)
{
	const char *name = dwarf_diename(scope);

	switch (dwarf_tag(scope)) {
	case DW_TAG_namespace:
		return name ? name : "(anonymous namespace)";
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return name;
	default:
		return NULL;
	}
}

/*
 * "ns::A::f" for a C++ function DWARF gives no linkage name for: the
 * names of the namespaces and classes around its declaration. Inside a
 * function or an unnamed class (a lambda) the bare name is kept, as
 * perf and addr2line print it.
 */
/* "ns::A::" of the scopes around decl, or NULL (malloc'd). */
static char *scope_prefix_of(Dwarf_Die *decl)
{
	Dwarf_Die *scopes = NULL;
	size_t len = 1;
	char *out = NULL;
	int n, i;

	n = dwarf_getscopes_die(decl, &scopes);
	/* scopes[0] is decl, scopes[n - 1] the compile unit */
	for (i = n - 2; i > 0; i--) {
		if (!scope_name(&scopes[i]))
			goto out;
		len += strlen(scope_name(&scopes[i])) + 2;
	}
	if (n < 3 || !(out = malloc(len)))
		goto out;
	out[0] = '\0';
	for (i = n - 2; i > 0; i--) {
		strcat(out, scope_name(&scopes[i]));
		strcat(out, "::");
	}
out:
	free(scopes);
	return out;
}

static int prefix_match(const void *owner, uint32_t id, const void *key)
{
	const struct scope_prefix *a = &((const struct object *)owner)->prefixes[id - 1];
	const struct scope_prefix *b = key;

	return a->dwarf == b->dwarf && a->offset == b->offset;
}

/*
 * The scope prefix of decl, once per declaration: dwarf_getscopes_die
 * walks the unit from its start, and the same functions come back for
 * many addresses. NULL when it has none.
 */
static const char *cached_scope_prefix(struct object *obj, Dwarf_Die *decl)
{
	struct scope_prefix key = { dwarf_cu_getdwarf(decl->cu),
				    dwarf_dieoffset(decl), NULL };
	uint64_t hash = pk_hash_u64(key.offset ^ pk_hash_u64((uintptr_t)key.dwarf));
	size_t slot;
	uint32_t id = pk_idtab_find(&obj->prefix_tab, hash, prefix_match, obj,
				    &key, &slot);

	if (id)
		return obj->prefixes[id - 1].text;
	key.text = scope_prefix_of(decl);
	if (pk_grow(&obj->prefixes, &obj->prefixes_cap, obj->nprefixes + 1,
		    sizeof(*obj->prefixes)) < 0 ||
	    pk_idtab_insert(&obj->prefix_tab, slot, hash,
			    (uint32_t)obj->nprefixes + 1) < 0) {
		free(key.text);	/* out of memory: unqualified names */
		return NULL;
	}
	obj->prefixes[obj->nprefixes++] = key;
	return key.text;
}

/* "ns::A::f" for a C++ function DIE without a linkage name, or NULL. */
static char *qualify(struct object *obj, Dwarf_Die *die, const char *name)
{
	Dwarf_Die decl = *die, tmp;
	Dwarf_Attribute attr;
	const char *prefix;
	char *out;
	int hops;

	for (hops = 0; hops < 8; hops++) {
		Dwarf_Die *next = dwarf_formref_die(
			dwarf_attr(&decl, DW_AT_abstract_origin, &attr), &tmp);

		if (!next)
			next = dwarf_formref_die(
				dwarf_attr(&decl, DW_AT_specification, &attr),
				&tmp);
		if (!next)
			break;
		decl = tmp;
	}
	prefix = cached_scope_prefix(obj, &decl);
	if (!prefix)
		return NULL;
	out = malloc(strlen(prefix) + strlen(name) + 1);
	if (out) {
		strcpy(out, prefix);
		strcat(out, name);
	}
	return out;
}

/*
 * perf names the frames of the stacks it shows with their inlined
 * functions after addr2line: each one, the function itself too, by its
 * DWARF linkage name, else by its bare DWARF name ("_M_invoke" of a
 * lambda's std::function handler; "__libc_start_main_impl", where the
 * symbol table says "__libc_start_main").
 */
static int dwarf_names(const struct pk_symbolizer *s)
{
	return s->o.demangle == PK_DEMANGLE_SHORT && !s->o.no_inline;
}

static void frame_from_die(struct object *obj, struct frame *f,
			   Dwarf_Die *die, int cplusplus)
{
	int line = 0;

	memset(f, 0, sizeof(*f));
	f->linkage = die_string(die, DW_AT_linkage_name);
	if (!f->linkage)
		f->linkage = die_string(die, DW_AT_MIPS_linkage_name);
	f->name = die_string(die, DW_AT_name);
	f->file = dwarf_decl_file(die);
	if (dwarf_decl_line(die, &line) == 0)
		f->start_line = line;
	if (!f->linkage && f->name && cplusplus && !dwarf_names(obj->s))
		f->qualified = qualify(obj, die, f->name);
}

static void frame_from_symbol(struct frame *f, const char *sym)
{
	/* mangled, or versioned ("memcpy@@GLIBC_2.14"): display_name
	 * decides; "_Znam@plt" stays as perf shows it */
	if (!ends_with(sym, "@plt") &&
	    (starts_with(sym, "_Z") || starts_with(sym, "_R") ||
	     (sym[0] && strchr(sym + 1, '@')))) {
		f->linkage = sym;
		f->name = NULL;
	} else {
		f->linkage = NULL;
		f->name = sym;
	}
	free(f->qualified);
	f->qualified = NULL;
}

/* ---- DWARF: the functions at an address ---- */

struct fn_range {
	Dwarf_Addr low, high;	/* DWARF addresses, [low, high) */
	Dwarf_Die die;		/* the concrete function */
};

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* Add the functions under parent (a unit, namespace or class). */
static int index_functions(struct object *obj, Dwarf_Die *parent,
			   size_t *cap, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		Dwarf_Addr base, low, high;
		ptrdiff_t off = 0;

		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			while ((off = dwarf_ranges(&child, off, &base, &low,
						   &high)) > 0) {
				if (low >= high)
					continue;
				if (pk_grow(&obj->fns, cap, obj->nfns + 1,
					    sizeof(*obj->fns)) < 0)
					return -1;
				obj->fns[obj->nfns].low = low;
				obj->fns[obj->nfns].high = high;
				obj->fns[obj->nfns].die = child;
				obj->nfns++;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (index_functions(obj, &child, cap, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * The concrete functions' address ranges, sorted: dwarf_getscopes walks
 * a whole compilation unit per address, which for 100k addresses in big
 * C++ units is most of the time spent. A unit is indexed when an address
 * first falls in it, so a library with thousands of units (libc's debug
 * file) costs the few that are sampled; past MAX_UNITS of them, all of
 * the file's units are indexed at once.
 */
static void forget_function_index(struct object *obj)
{
	free(obj->fns);	/* out of memory: use dwarf_getscopes */
	obj->fns = NULL;
	obj->nfns = obj->fns_cap = 0;
	obj->fns_built = 1;
}

static void index_all_units(struct object *obj)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	obj->nfns = 0;
	obj->fns_built = 1;
	while ((cu = dwfl_module_nextcu(obj->mod, cu, &bias))) {
		obj->dwbias = bias;
		if (index_functions(obj, cu, &obj->fns_cap, 0)) {
			forget_function_index(obj);
			return;
		}
	}
	qsort(obj->fns, obj->nfns, sizeof(*obj->fns), fn_cmp);
}

/* Index the unit holding addr (a Dwfl address), if not done yet. */
static void index_unit_of(struct object *obj, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	Dwarf_Off off;
	size_t i, old = obj->nfns;

	if (obj->fns_built)
		return;
	cu = dwfl_module_addrdie(obj->mod, addr, &bias);
	if (!cu)
		return;
	off = dwarf_dieoffset(cu);
	for (i = 0; i < obj->nunits; i++)
		if (obj->units[i] == off)
			return;
	if (obj->nunits == MAX_UNITS) {
		index_all_units(obj);
		return;
	}
	obj->units[obj->nunits++] = off;
	obj->dwbias = bias;
	if (index_functions(obj, cu, &obj->fns_cap, 0)) {
		forget_function_index(obj);
		return;
	}
	if (obj->nfns > old)
		qsort(obj->fns, obj->nfns, sizeof(*obj->fns), fn_cmp);
}

static const struct fn_range *find_function(const struct object *obj,
					     Dwarf_Addr pc)
{
	size_t lo = 0, hi = obj->nfns, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (obj->fns[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < 8; i--)
		if (pc < obj->fns[i - 1].high)
			return &obj->fns[i - 1];
	return NULL;
}

static int is_function_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The inlined instances at pc inside fn, innermost first, then fn. */
static int inline_chain(const Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die path[MAX_FRAMES], cur = *fn, child;
	int n = 0, i, deeper;

	path[n++] = cur;
	do {
		deeper = 0;
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_inlined_subroutine &&
			    tag != DW_TAG_lexical_block &&
			    tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
				continue;
			if (dwarf_haspc(&child, pc) <= 0)
				continue;
			if (tag == DW_TAG_inlined_subroutine && n < MAX_FRAMES)
				path[n++] = child;
			cur = child;
			deeper = 1;
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
	} while (deeper);
	for (i = 0; i < n; i++)
		out[i] = path[n - 1 - i];
	return n;
}

/* The same through dwarf_getscopes, for what the index does not hold. */
static int scopes_chain(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL, *cu, inner;
	Dwarf_Addr dwbias = 0;
	int nscopes, n = 0, i;

	cu = dwfl_module_addrdie(mod, addr, &dwbias);
	if (!cu || dwarf_getscopes(cu, addr - dwbias, &scopes) <= 0) {
		free(scopes);
		return 0;
	}
	/*
	 * Past an inlined instance dwarf_getscopes goes on into the
	 * abstract definition's scopes; the DIE's own parents are the chain
	 * of inlined calls up to the concrete function.
	 */
	inner = scopes[0];
	free(scopes);
	scopes = NULL;
	nscopes = dwarf_getscopes_die(&inner, &scopes);
	for (i = 0; i < nscopes && n < MAX_FRAMES; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (!is_function_tag(tag))
			continue;
		out[n++] = scopes[i];
		if (tag != DW_TAG_inlined_subroutine)
			break;
	}
	free(scopes);
	return n;
}

/* Whether the object has DWARF, reading it the first time it is asked. */
static int object_has_dwarf(struct object *obj)
{
	if (obj->has_dwarf < 0)
		obj->has_dwarf = dwfl_module_getdwarf(obj->mod,
						      &(Dwarf_Addr){ 0 }) != NULL;
	return obj->has_dwarf;
}

static int a2l_match(const void *owner, uint32_t id, const void *key)
{
	const struct a2l_name *a = &((const struct object *)owner)->a2l[id - 1];
	const struct a2l_name *b = key;

	return a->dwarf == b->dwarf && a->offset == b->offset;
}

/* What addr2line knows of die; with add, made if new (*added set). */
static struct a2l_name *a2l_state(struct object *obj, Dwarf_Die *die,
				  int add, int *added)
{
	struct a2l_name key = { dwarf_cu_getdwarf(die->cu),
				dwarf_dieoffset(die), NULL };
	uint64_t hash = pk_hash_u64(key.offset ^ pk_hash_u64((uintptr_t)key.dwarf));
	size_t slot;
	uint32_t id = pk_idtab_find(&obj->a2l_tab, hash, a2l_match, obj, &key,
				    &slot);

	*added = 0;
	if (id || !add)
		return id ? &obj->a2l[id - 1] : NULL;
	if (pk_grow(&obj->a2l, &obj->a2l_cap, obj->na2l + 1,
		    sizeof(*obj->a2l)) < 0 ||
	    pk_idtab_insert(&obj->a2l_tab, slot, hash,
			    (uint32_t)obj->na2l + 1) < 0)
		return NULL;
	obj->a2l[obj->na2l] = key;
	*added = 1;
	return &obj->a2l[obj->na2l++];
}

/*
 * perf shows the frames it unwinds as addr2line (binutils) names them,
 * and addr2line names a C++ function with no DWARF linkage name (a
 * lambda's, one of a local class) oddly: the first time it is the
 * innermost frame, by the symbol holding the address, and from then
 * on, if the symbol starts where the function does, always by that
 * symbol. perf asks once per address, in the order samples come, which
 * is the order of the profile's locations: so the same names come out.
 */
static void addr2line_names(struct object *obj, Dwarf_Die *chain,
			    struct frame *frames, size_t n,
			    const struct sym *sym)
{
	struct a2l_name *st;
	Dwarf_Addr low;
	size_t i;
	int added;

	for (i = 0; i < n; i++) {
		if (frames[i].linkage)
			continue;
		st = a2l_state(obj, &chain[i], i == 0, &added);
		if (st && added && sym) {
			if (dwarf_lowpc(&chain[i], &low) == 0 &&
			    low + obj->dwbias == sym->start)
				st->name = sym->bfd_alias;
			frame_from_symbol(&frames[i], sym->bfd_alias);
		} else if (st && st->name) {
			frame_from_symbol(&frames[i], st->name);
		}
	}
}

/* An ELF object's symbols, read when an address first needs them (the
 * unwinder's lookups of the same files never do). */
static const struct symtab *elf_symtab(struct object *obj)
{
	if (!obj->tab_loaded) {
		obj->tab_loaded = 1;
		/* pprof names a PLT stub after the symbol before it (_init) */
		obj->tab = load_elf_symbols(obj->mod, obj->s->o.demangle !=
					    PK_DEMANGLE_SIMPLE);
	}
	return obj->tab;
}

/*
 * The frames at a file address, innermost first: DWARF's inlined
 * instances and the function holding them, else the symbol table.
 * Returns how many were filled in.
 */
static size_t elf_frames(struct object *obj, uint64_t vaddr,
			 struct frame *frames)
{
	Dwarf_Addr addr = vaddr + obj->bias;
	const struct symtab *tab = elf_symtab(obj);
	const struct sym *sym = tab ? symtab_find(tab, addr) : NULL;
	const char *src = NULL, *call_file = NULL;
	const struct fn_range *fn = NULL;
	Dwarf_Die chain[MAX_FRAMES], cu;
	Dwarf_Files *files = NULL;
	Dwfl_Line *dl;
	int lineno = 0, nchain = 0, i, cplusplus = 0, dwarf;
	int64_t call_line = 0;
	size_t n = 0;

	/*
	 * Names only, no inlined functions: the symbol table says it all,
	 * and DWARF (for a distribution library, inflating compressed debug
	 * sections) is never read.
	 */
	if (obj->s->o.names_only && obj->s->o.no_inline && sym && sym->sized) {
		memset(&frames[0], 0, sizeof(frames[0]));
		frame_from_symbol(&frames[0], sym->name);
		return 1;
	}
	dwarf = object_has_dwarf(obj);
	dl = dwfl_module_getsrc(obj->mod, addr);
	if (dl)
		src = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
	if (dwarf)
		index_unit_of(obj, addr);
	if (dwarf)
		fn = find_function(obj, addr - obj->dwbias);
	if (fn)
		nchain = inline_chain(&fn->die, addr - obj->dwbias, chain);
	else if (dwarf)
		nchain = scopes_chain(obj->mod, addr, chain);
	if (nchain > 1 && obj->s->o.no_inline) {
		chain[0] = chain[nchain - 1];	/* the concrete function */
		nchain = 1;
	}
	if (nchain && dwarf_diecu(&chain[0], &cu, NULL, NULL)) {
		cplusplus = is_cplusplus(&cu);
		if (dwarf_getsrcfiles(&cu, &files, NULL) != 0)
			files = NULL;
	}
	for (i = 0; i < nchain; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word w;

		frame_from_die(obj, &frames[n], &chain[i], cplusplus);
		frames[n].line = n ? call_line : lineno;
		/* artificial functions (lambdas) may have no decl_file */
		if (!frames[n].file)
			frames[n].file = n ? call_file : src;
		call_line = 0;
		call_file = NULL;
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line,
					       &attr), &w) == 0)
			call_line = (int64_t)w;
		if (files && dwarf_formudata(dwarf_attr(&chain[i],
							DW_AT_call_file,
							&attr), &w) == 0)
			call_file = dwarf_filesrc(files, w, NULL, NULL);
		n++;
	}
	if (n && cplusplus && dwarf_names(obj->s))
		addr2line_names(obj, chain, frames, n, sym);
	if (n) {
		/* name the function itself as perf does: "f.isra.0" */
		if (dwarf_tag(&chain[n - 1]) != DW_TAG_inlined_subroutine &&
		    sym && sym->sized && !dwarf_names(obj->s))
			frame_from_symbol(&frames[n - 1], sym->name);
	} else if (sym) {
		memset(&frames[0], 0, sizeof(frames[0]));
		frame_from_symbol(&frames[0], dwarf_names(obj->s) ?
				  sym->bfd_alias : sym->name);
		/* where perf asks addr2line, "_Znam@plt" is demangled too */
		if (dwarf_names(obj->s) && !frames[0].linkage &&
		    ends_with(frames[0].name, "@plt") &&
		    starts_with(frames[0].name, "_Z")) {
			frames[0].linkage = frames[0].name;
			frames[0].name = NULL;
		}
		frames[0].file = src;
		frames[0].line = src ? lineno : 0;
		n = 1;
	}
	return n;
}

static size_t table_frames(const struct object *obj, uint64_t addr,
			   struct frame *frames)
{
	const struct sym *sym = symtab_find(obj->tab, addr);

	if (!sym)
		return 0;
	memset(&frames[0], 0, sizeof(frames[0]));
	frames[0].name = sym->name;
	return 1;
}

/* ---- one pass over a profile ---- */

enum {
	FOUND_FUNCTION = 1,
	FOUND_FILE = 2,
	FOUND_LINE = 4,
};

struct memo {
	const struct object *obj;
	uint64_t addr;
	uint32_t first, n;	/* into run.lines */
	unsigned found;
};

struct run {
	struct pk_symbolizer *s;
	struct pk_profile *p;
	struct object **map_obj;	/* by mapping id - 1 */
	unsigned *map_found;
	struct memo *memo;
	size_t nmemo, memo_cap;
	struct pk_idtab memo_tab;
	struct pk_line *lines;
	size_t nlines, lines_cap;
	pk_str *demangled;	/* by system name id; 0: not yet */
	size_t demangled_cap;
};

static int memo_match(const void *owner, uint32_t id, const void *key)
{
	const struct memo *a = &((const struct run *)owner)->memo[id - 1];
	const struct memo *b = key;

	return a->obj == b->obj && a->addr == b->addr;
}

/* The display name of a mangled name, demangled once per profile. */
static pk_str display_name(struct run *r, pk_str sys, const char *mangled)
{
	size_t old = r->demangled_cap;
	char *d;

	if (sys >= old) {
		if (pk_grow(&r->demangled, &r->demangled_cap, (size_t)sys + 1,
			    sizeof(*r->demangled)) < 0)
			return sys;
		memset(r->demangled + old, 0,
		       (r->demangled_cap - old) * sizeof(*r->demangled));
	}
	if (!r->demangled[sys]) {
		d = demangle(r->s->o.demangle, mangled);
		r->demangled[sys] = d ? pk_profile_intern_cstr(r->p, d) : sys;
		if (!r->demangled[sys])
			r->demangled[sys] = sys;
		free(d);
	}
	return r->demangled[sys];
}

static uint32_t intern_frame(struct run *r, const struct frame *f)
{
	const char *plain = f->qualified ? f->qualified :
			    f->name ? f->name : "??";
	struct pk_function fn = { 0 };

	if (f->linkage) {
		fn.system_name = pk_profile_intern_cstr(r->p, f->linkage);
		fn.name = display_name(r, fn.system_name, f->linkage);
	} else {
		fn.name = fn.system_name = pk_profile_intern_cstr(r->p, plain);
	}
	fn.filename = pk_profile_intern_cstr(r->p, f->file);
	fn.start_line = f->start_line;
	return pk_profile_intern_function(r->p, &fn);
}

/* Look addr up in obj (once per profile) and keep the lines in r->lines. */
static const struct memo *lookup(struct run *r, struct object *obj,
				 uint64_t addr)
{
	struct memo key = { obj, addr, 0, 0, 0 }, *m;
	uint64_t hash = pk_hash_u64(addr ^ pk_hash_u64((uintptr_t)obj));
	struct frame frames[MAX_FRAMES];
	size_t slot, n, i;
	uint32_t id;
	int failed;

	id = pk_idtab_find(&r->memo_tab, hash, memo_match, r, &key, &slot);
	if (id)
		return &r->memo[id - 1];
	n = obj->kind == OBJ_ELF ? elf_frames(obj, addr, frames) :
	    table_frames(obj, addr, frames);
	failed = pk_grow(&r->lines, &r->lines_cap, r->nlines + n,
			 sizeof(*r->lines)) < 0 ||
		 pk_grow(&r->memo, &r->memo_cap, r->nmemo + 1,
			 sizeof(*r->memo)) < 0 ||
		 pk_idtab_insert(&r->memo_tab, slot, hash,
				 (uint32_t)r->nmemo + 1) < 0;
	key.first = (uint32_t)r->nlines;
	key.n = failed ? 0 : (uint32_t)n;
	for (i = 0; i < n; i++) {
		if (!failed) {
			r->lines[r->nlines].function =
				intern_frame(r, &frames[i]);
			r->lines[r->nlines].line = frames[i].line;
			r->nlines++;
			key.found |= FOUND_FUNCTION;
			if (frames[i].file)
				key.found |= FOUND_FILE;
			if (frames[i].line > 0)
				key.found |= FOUND_LINE;
		}
		free(frames[i].qualified);
	}
	if (failed)
		return NULL;
	m = &r->memo[r->nmemo++];
	*m = key;
	return m;
}

/*
 * --binary stands for the main program: the first mapping of a file
 * that is not a library, the kernel or anonymous memory (gperftools and
 * perf list the program first), or failing that a nameless mapping.
 */
static pk_str main_file(const struct pk_profile *p)
{
	size_t n = pk_profile_mapping_count(p), i;
	int nameless = 0;

	for (i = 1; i <= n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i);
		const char *file = pk_profile_string(p, m->file);

		if (!*file)
			nameless = 1;
		else if (pk_symbolizer_is_program(file))
			return m->file;
	}
	return nameless ? 0 : (pk_str)-1;
}

int pk_symbolizer_is_program(const char *file)
{
	return !is_anonymous(file) && !is_kernel(file) && !is_perf_map(file) &&
	       !is_shared_library(file) && file[0] != '[';
}

/* map_found mark of a mapping with locations to symbolize */
#define NEEDED 0x80000000u

/* The objects of the needed mappings, the kernel's or the others. */
static int open_mappings(struct run *r, pk_str main, int kernel)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_mapping_count(p), i;

	for (i = 0; i < n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i + 1);
		const char *file = pk_profile_string(p, m->file);
		struct object *obj;

		if (r->map_found[i] != NEEDED || is_kernel(file) != kernel)
			continue;
		r->map_found[i] = 0;
		obj = object_get(r->s, file, pk_profile_string(p, m->build_id),
				 m->file == main);
		if (!obj)
			return -1;
		r->map_obj[i] = obj;
		/* an address will read it: now, while kallsyms is read */
		if (obj->kind == OBJ_ELF &&
		    !(r->s->o.names_only && r->s->o.no_inline))
			object_has_dwarf(obj);
	}
	return 0;
}

static int prepare_mappings(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_mapping_count(p), i;
	pk_str main = r->s->binary ? main_file(p) : (pk_str)-1;

	r->map_obj = calloc(n ? n : 1, sizeof(*r->map_obj));
	r->map_found = calloc(n ? n : 1, sizeof(*r->map_found));
	if (!r->map_obj || !r->map_found)
		return -1;
	/* only files some location needs: text inputs come symbolized */
	for (i = 1; i <= pk_profile_location_count(p); i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);

		if (!loc->nlines && loc->mapping && loc->mapping <= n)
			r->map_found[loc->mapping - 1] = NEEDED;
	}
	/* the kernel's symbols on a thread, the files' DWARF meanwhile */
	for (i = 0; i < n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i + 1);

		if (r->map_found[i] == NEEDED &&
		    is_kernel(pk_profile_string(p, m->file)))
			prefetch_kallsyms(r->s, pk_profile_string(p, m->build_id));
	}
	return open_mappings(r, main, 0) || open_mappings(r, main, 1) ? -1 : 0;
}

/* Set what was found; bits a reader set stay set. */
static void mark_mappings(struct run *r)
{
	size_t n = pk_profile_mapping_count(r->p), i;

	for (i = 0; i < n; i++) {
		struct pk_mapping *m = pk_profile_mapping_mut(r->p, (uint32_t)i + 1);
		unsigned found = r->map_found[i];

		if (!r->map_obj[i])
			continue;	/* not looked at */
		if (found & FOUND_FUNCTION)
			m->has_functions = 1;
		if (found & FOUND_FILE)
			m->has_filenames = 1;
		if (found & FOUND_LINE)
			m->has_line_numbers = 1;
		/* with DWARF, inlined calls were expanded wherever they were */
		if ((found & FOUND_FUNCTION) && r->map_obj[i]->has_dwarf > 0 &&
		    !r->s->o.no_inline)
			m->has_inline_frames = 1;
	}
}

static int symbolize_locations(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_location_count(p), i;
	size_t nmappings = pk_profile_mapping_count(p);

	for (i = 1; i <= n; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);
		uint32_t mapping = loc->mapping;
		struct object *obj;
		const struct memo *memo;
		uint64_t addr;
		int rc;

		if (loc->nlines || !mapping || mapping > nmappings)
			continue;
		obj = r->map_obj[mapping - 1];
		if (obj->kind == OBJ_NONE)
			continue;
		addr = object_address(obj, pk_profile_mapping(p, mapping),
				      loc->address);
		memo = lookup(r, obj, addr);
		if (!memo)
			return PK_ENOMEM;
		r->map_found[mapping - 1] |= memo->found;
		if (!memo->n)
			continue;
		rc = pk_profile_set_location_lines(p, (uint32_t)i,
						   &r->lines[memo->first],
						   memo->n);
		if (rc)
			return rc;
	}
	return pk_profile_failed(p) ? PK_ENOMEM : 0;
}

int pk_symbolize(struct pk_symbolizer *s, struct pk_profile *p)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.p = p;
	rc = prepare_mappings(&r) ? PK_ENOMEM : symbolize_locations(&r);
	if (!rc)
		mark_mappings(&r);
	prefetch_join(s);	/* a wrong guess: its table waits, unused */
	free(r.map_obj);
	free(r.map_found);
	free(r.memo);
	pk_idtab_release(&r.memo_tab);
	free(r.lines);
	free(r.demangled);
	if (rc)
		return pk_error_set(s->ctx, rc, "symbolize: out of memory "
				    "(or over the memory limit)");
	return 0;
}

/* ---- the symbolizer ---- */

void pk_symbolize_options_init(struct pk_symbolize_options *o)
{
	memset(o, 0, sizeof(*o));
	o->demangle = PK_DEMANGLE_SHORT;
}

static int add_dirs(struct pk_symbolizer *s, const char *list, size_t *cap)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ":");
		char *dir = NULL;

		if (len) {
			char *rel = strndup(p, len);
			char cwd[4096];

			if (rel && rel[0] != '/' && getcwd(cwd, sizeof(cwd)))
				dir = join(cwd, "/", rel);
			else if (rel)
				dir = strdup(rel);
			free(rel);
			if (!dir || pk_grow(&s->dirs, cap, s->ndirs + 1,
					    sizeof(*s->dirs)) < 0) {
				free(dir);
				return -1;
			}
			s->dirs[s->ndirs++] = dir;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* libdwfl's path: the usual ":.debug:/usr/lib/debug", then ours. */
static char *make_debuginfo_path(const struct pk_symbolizer *s)
{
	size_t len = sizeof(":.debug:") + strlen(s->system_debug), i;
	char *path;

	for (i = 0; i < s->ndirs; i++)
		len += strlen(s->dirs[i]) + 1;
	path = malloc(len);
	if (!path)
		return NULL;
	strcpy(path, ":.debug:");
	strcat(path, s->system_debug);
	for (i = 0; i < s->ndirs; i++) {
		strcat(path, ":");
		strcat(path, s->dirs[i]);
	}
	return path;
}

static char *dup_or_null(const char *s, int *failed)
{
	char *d;

	if (!s || !*s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

struct pk_symbolizer *pk_symbolizer_new(struct pk_context *ctx,
					const struct pk_symbolize_options *o)
{
	struct pk_symbolizer *s = calloc(1, sizeof(*s));
	const char *home = getenv("HOME");
	size_t dirs_cap = 0;
	int failed = 0;

	if (!s) {
		pk_error_set(ctx, PK_ENOMEM, "symbolize: out of memory");
		return NULL;
	}
	s->ctx = ctx;
	if (o)
		s->o = *o;
	else
		pk_symbolize_options_init(&s->o);
	s->binary = dup_or_null(s->o.binary, &failed);
	s->symfs = dup_or_null(s->o.symfs, &failed);
	s->kallsyms = dup_or_null(s->o.kallsyms, &failed);
	s->o.binary = s->o.symfs = s->o.kallsyms = s->o.symbol_path = NULL;
	if (home && *home && !(s->home_debug = join(home, "/.debug", NULL)))
		failed = 1;
	s->system_debug = join(s->symfs ? s->symfs : "", "/usr/lib/debug", NULL);
	if (!s->system_debug)
		failed = 1;
	if (failed || add_dirs(s, o ? o->symbol_path : NULL, &dirs_cap) ||
	    add_dirs(s, getenv("PROFKIT_SYMBOL_PATH"), &dirs_cap) ||
	    !(s->debuginfo_path = make_debuginfo_path(s))) {
		pk_symbolizer_free(s);
		pk_error_set(ctx, PK_ENOMEM, "symbolize: out of memory");
		return NULL;
	}
	s->callbacks.find_elf = no_find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	elf_version(EV_CURRENT);
	return s;
}

/* ---- for the unwinder (symbolize_internal.h) ---- */

void pk_symbolizer_set_quiet(struct pk_symbolizer *s)
{
	s->quiet = 1;
}

int pk_symbolizer_locate(struct pk_symbolizer *s, const char *file,
			 const char *build_id, int is_binary,
			 const struct pk_mapping *m, uint64_t addr,
			 const char **path, uint64_t *bias)
{
	struct object *obj = object_get(s, file, build_id ? build_id : "",
					is_binary);

	if (!obj)
		return PK_ENOMEM;
	/* a separate debug file has no .eh_frame to unwind with */
	if (obj->kind != OBJ_ELF || obj->debug_only)
		return -1;
	*path = obj->path;
	*bias = addr - object_address(obj, m, addr);
	return 0;
}

void pk_symbolizer_free(struct pk_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	prefetch_join(s);
	symtab_free(s->prefetch.tab);
	free(s->prefetch.path);
	for (i = 0; i < s->nobjs; i++)
		object_free(s->objs[i]);
	free(s->objs);
	for (i = 0; i < s->nktabs; i++)
		symtab_free(s->ktabs[i]);
	free(s->ktabs);
	for (i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->binary);
	free(s->symfs);
	free(s->system_debug);
	free(s->kallsyms);
	free(s->home_debug);
	free(s->debuginfo_path);
	free(s->running_build_id);
	free(s);
}
