/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the symbolizer: the PIE binaries in testdata/bin at the
 * addresses perf recorded them at, this test's own PIE and the libc it
 * runs with (live mappings from /proc/self/maps), kallsyms and
 * perf-PID.map files, missing files and build id checks.
 *
 * With arguments it prints the frames of addresses instead, for
 * tests/run-symbolize.sh:
 *
 *   t-symbolize [--demangle=full|none] [--addr2line] FILE START LIMIT
 *               OFFSET ADDR...
 *
 * Default: "ADDR NAME|SYSTEM_NAME|FILE|START_LINE|LINE" per frame,
 * innermost first. --addr2line prints as `addr2line -a -f -i` does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnu/libc-version.h>

#include <profkit/profkit.h>
#include "symbolize/symbolizer.h"

#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct warnings {
	int count;
	char first[4096], last[4096];	/* since count was last 0 */
};

static void collect(void *data, const char *message)
{
	struct warnings *w = data;

	if (w->count++ == 0)
		snprintf(w->first, sizeof(w->first), "%s", message);
	snprintf(w->last, sizeof(w->last), "%s", message);
}

static uint32_t mapping(struct pk_profile *p, const char *file,
			const char *build_id, uint64_t start, uint64_t limit,
			uint64_t offset)
{
	struct pk_mapping m = { 0 };

	m.file = pk_profile_intern_cstr(p, file);
	m.build_id = pk_profile_intern_cstr(p, build_id);
	m.start = start;
	m.limit = limit;
	m.offset = offset;
	return pk_profile_intern_mapping(p, &m);
}

static uint32_t location(struct pk_profile *p, uint32_t map, uint64_t addr)
{
	return pk_profile_intern_location(p, map, addr, NULL, 0);
}

static const struct pk_function *frame_fn(const struct pk_profile *p,
					  uint32_t loc, size_t i)
{
	const struct pk_location *l = pk_profile_location(p, loc);

	if (!l || i >= l->nlines)
		return NULL;
	return pk_profile_function(p, pk_profile_location_lines(p, l)[i].function);
}

static const char *frame_name(const struct pk_profile *p, uint32_t loc,
			      size_t i)
{
	const struct pk_function *f = frame_fn(p, loc, i);

	return f ? pk_profile_string(p, f->name) : "(none)";
}

static int64_t frame_line(const struct pk_profile *p, uint32_t loc, size_t i)
{
	const struct pk_location *l = pk_profile_location(p, loc);

	return i < l->nlines ? pk_profile_location_lines(p, l)[i].line : -1;
}

static size_t nframes(const struct pk_profile *p, uint32_t loc)
{
	return pk_profile_location(p, loc)->nlines;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static struct pk_symbolizer *symbolizer(struct pk_context *ctx,
					const char *symbol_path,
					const char *binary)
{
	struct pk_symbolize_options o;

	pki_symbolize_options_init(&o);
	o.symbol_path = symbol_path;
	o.binary = binary;
	return pki_symbolizer_new(ctx, &o);
}

/* c-fp as perf recorded it: r-xp at 0x561235326000, file offset 0x1000. */
#define CFP_ID "2890d92fe4cd60efeaa6b2a36912f117c14eff25"
#define CFP_START 0x561235326000ULL

static void test_pie_with_frame_pointers(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolizer *s;
	uint32_t m, hot, drv, mn, stack, locs[3];
	const struct pk_function *f;
	const struct pk_mapping *mp;
	int64_t v = 5;

	pk_context_set_warn(ctx, collect, &w);
	pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT);
	m = mapping(p, "/tmp/rec/c-fp", CFP_ID, CFP_START, CFP_START + 0x1000,
		    0x1000);
	/* hot_loop+0x20, driver+0x9, main+0x15 in perf script */
	locs[0] = hot = location(p, m, CFP_START + 0x169);
	locs[1] = drv = location(p, m, CFP_START + 0x278);
	locs[2] = mn = location(p, m, CFP_START + 0x28f);
	stack = pk_profile_intern_stack(p, locs, 3);
	pk_profile_add_sample(p, stack, 0, 0, &v, 1);

	s = symbolizer(ctx, "testdata/bin", NULL);
	is_int(pki_symbolize(s, p), 0, "c-fp: symbolize succeeds");
	is_int(w.count, 0, "c-fp: no warnings");
	is_str(frame_name(p, hot, 0), "hot_loop", "c-fp: hot_loop+0x20");
	is_int(frame_line(p, hot, 0), 6, "c-fp: hot_loop at line 6 (addr2line)");
	f = frame_fn(p, hot, 0);
	is_str(f ? pk_profile_string(p, f->filename) : "", "/tmp/rec/c-fp.c",
	       "c-fp: file from DWARF");
	is_int(f ? f->start_line : 0, 4, "c-fp: hot_loop starts at line 4");
	is_str(frame_name(p, drv, 0), "driver", "c-fp: driver+0x9");
	is_int(frame_line(p, drv, 0), 26, "c-fp: driver at line 26");
	is_str(frame_name(p, mn, 0), "main", "c-fp: main+0x15");
	is_int(frame_line(p, mn, 0), 30, "c-fp: main at line 30");
	mp = pk_profile_mapping(p, m);
	ok(mp->has_functions && mp->has_filenames && mp->has_line_numbers &&
	   mp->has_inline_frames,
	   "c-fp: mapping says functions, files, lines, inlines");
	is_int(pk_profile_location_count(p), 3, "c-fp: no new locations");
	is_int(pk_profile_stack_count(p), 1, "c-fp: stacks keep their ids");
	is_int(pk_profile_sample_values(p, 0)[0], 5, "c-fp: sample intact");
	{
		const struct pk_location *l = pk_profile_location(p, hot);
		struct pk_line line = pk_profile_location_lines(p, l)[0];

		is_int(pk_profile_intern_location(p, m, CFP_START + 0x169, &line, 1),
		       hot, "c-fp: a symbolized location interns to its id");
	}
	is_int(pki_symbolize(s, p), 0, "c-fp: symbolizing again is harmless");
	is_int(nframes(p, hot), 1, "c-fp: ... and changes nothing");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/* cxx-dwarf (g++ -O2): std::vector and std::map code inlined into main. */
#define CXX_ID "eb185cce1b63493e48df335c8f925e583eee731f"
#define CXX_START 0x5579daab0000ULL

#define PAIR "std::pair<int const, long>"
#define RB_TREE "std::_Rb_tree<int, " PAIR ", std::_Select1st<" PAIR " >, " \
	"std::less<int>, std::allocator<" PAIR " > >"
#define MAP "std::map<int, long, std::less<int>, std::allocator<" PAIR " > >"
#define VECTOR "std::vector<unsigned long, std::allocator<unsigned long> >"
#define UNINIT "std::__uninitialized_default_n"

static const struct expect {
	const char *name;
	int64_t line;
} vector_ctor[] = {
	/* addr2line -f -i -C -e cxx-dwarf 0x1196, names as perf prints them */
	{ "std::__fill_a1<unsigned long*, unsigned long>", 922 },
	{ "std::__fill_a<unsigned long*, unsigned long>", 968 },
	{ "std::__fill_n_a<unsigned long*, unsigned long, unsigned long>", 1119 },
	{ "std::__fill_n_a<unsigned long*, unsigned long, unsigned long>", 1108 },
	{ "std::fill_n<unsigned long*, unsigned long, unsigned long>", 1148 },
	{ UNINIT "_1<true>::__uninit_default_n<unsigned long*, unsigned long>",
	  663 },
	{ UNINIT "_1<true>::__uninit_default_n<unsigned long*, unsigned long>",
	  655 },
	{ UNINIT "<unsigned long*, unsigned long>", 701 },
	{ UNINIT "_a<unsigned long*, unsigned long, unsigned long>", 766 },
	{ VECTOR "::_M_default_initialize", 1713 },
	{ VECTOR "::vector", 553 },
	{ "main", 43 },
}, map_index[] = {
	/* 0x159f */
	{ RB_TREE "::_S_right", 788 },
	{ RB_TREE "::_M_lower_bound", 1954 },
	{ RB_TREE "::lower_bound", 1270 },
	{ MAP "::lower_bound", 1307 },
	{ MAP "::operator[]", 527 },
	{ "map_work", 28 },
};

static void check_frames(const struct pk_profile *p, uint32_t loc,
			 const struct expect *want, size_t n, const char *what)
{
	size_t i, bad = 0;

	is_int(nframes(p, loc), n, "%s: %zu frames", what, n);
	for (i = 0; i < n && i < nframes(p, loc); i++) {
		if (strcmp(frame_name(p, loc, i), want[i].name) != 0 ||
		    frame_line(p, loc, i) != want[i].line) {
			diag("frame %zu: got %s:%lld, want %s:%lld", i,
			     frame_name(p, loc, i), (long long)frame_line(p, loc, i),
			     want[i].name, (long long)want[i].line);
			bad++;
		}
	}
	is_int(bad, 0, "%s: names and lines innermost first", what);
}

static void test_inline_frames(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolizer *s;
	const struct pk_function *f;
	uint32_t m, vec, map;

	pk_context_set_warn(ctx, collect, &w);
	m = mapping(p, "/tmp/rec/cxx-dwarf", CXX_ID, CXX_START,
		    CXX_START + 0x1000, 0x1000);
	vec = location(p, m, CXX_START + 0x196);
	map = location(p, m, CXX_START + 0x59f);
	s = symbolizer(ctx, "testdata/bin", NULL);
	is_int(pki_symbolize(s, p), 0, "cxx-dwarf: symbolize succeeds");
	check_frames(p, vec, vector_ctor, ARRAY_SIZE(vector_ctor),
		     "cxx-dwarf 0x1196 (std::vector ctor)");
	check_frames(p, map, map_index, ARRAY_SIZE(map_index),
		     "cxx-dwarf 0x159f (std::map::operator[])");
	f = frame_fn(p, map, 4);
	is_str(f ? pk_profile_string(p, f->system_name) : "",
	       "_ZNSt3mapIilSt4lessIiESaISt4pairIKilEEEixEOi",
	       "cxx-dwarf: system name is the linkage name");
	ok(f && has_suffix(pk_profile_string(p, f->filename), "bits/stl_map.h"),
	   "cxx-dwarf: inlined function's file is its header");
	f = frame_fn(p, map, 5);
	is_str(f ? pk_profile_string(p, f->system_name) : "", "_Z8map_worki",
	       "cxx-dwarf: outer function named by the symbol table");
	is_int(w.count, 0, "cxx-dwarf: no warnings");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/* ---- live mappings of this process ---- */

static int __attribute__((noinline)) self_target(int x)
{
	static const int line = __LINE__ - 2;

	return x * 7 + line;
}

/* The /proc/self/maps line whose range holds addr. */
static int find_self_mapping(uint64_t addr, uint64_t *start, uint64_t *limit,
			     uint64_t *offset, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], file[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s,
			   &e, perms, &off, file) < 4)
			continue;
		if (addr >= s && addr < e) {
			*start = s;
			*limit = e;
			*offset = off;
			snprintf(path, size, "%s", file);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static void test_live_mappings(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolizer *s = symbolizer(ctx, NULL, NULL);
	uint64_t self = (uint64_t)(uintptr_t)self_target + 4, start, limit, off;
	uint64_t libc = (uint64_t)(uintptr_t)gnu_get_libc_version;
	uint32_t self_loc = 0, libc_loc = 0;
	const struct pk_function *f;
	char path[4096];

	pk_context_set_warn(ctx, collect, &w);
	if (find_self_mapping(self, &start, &limit, &off, path, sizeof(path)))
		self_loc = location(p, mapping(p, path, "", start, limit, off),
				    self);
	if (find_self_mapping(libc, &start, &limit, &off, path, sizeof(path)))
		libc_loc = location(p, mapping(p, path, "", start, limit, off),
				    libc);
	ok(self_loc && libc_loc, "live: found this test's and libc's mappings");
	is_int(pki_symbolize(s, p), 0, "live: symbolize succeeds");
	is_str(self_loc ? frame_name(p, self_loc, 0) : "", "self_target",
	       "live: a function of this PIE, mapped where the kernel put it");
	f = self_loc ? frame_fn(p, self_loc, 0) : NULL;
	if (f && f->start_line) {
		ok(has_suffix(pk_profile_string(p, f->filename), "t-symbolize.c"),
		   "live: its file");
		is_int(f->start_line, self_target(0), "live: its start line");
	} else {
		ok(1, "# SKIP built without -g");
		ok(1, "# SKIP built without -g");
	}
	/* "__gnu_get_libc_version" with libc's debug symbols: perf's choice
	 * of a local alias over the weak one that is all .dynsym has */
	ok(libc_loc && has_suffix(frame_name(p, libc_loc, 0),
				  "gnu_get_libc_version"),
	   "live: a function of the running libc");
	is_int(w.count, 0, "live: no warnings");
	if (w.count)
		diag("%s", w.last);
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/* ---- kernel and JIT ---- */

static void test_kallsyms(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolize_options o;
	struct pk_symbolizer *s;
	uint32_t k, mod, l[6];
	const struct pk_mapping *mp;

	pk_context_set_warn(ctx, collect, &w);
	k = mapping(p, "[kernel.kallsyms]", "", 0xffffffff81000000ULL,
		    0xffffffff82276508ULL, 0xffffffff81000000ULL);
	mod = mapping(p, "[foo]", "", 0xffffffffc0a01000ULL,
		      0xffffffffc0a02000ULL, 0);
	/* addresses from the cxx-dwarf recording (perf script names) */
	l[0] = location(p, k, 0xffffffff8225f2d9ULL);	/* pvm_irq_enable+0x19 */
	l[1] = location(p, k, 0xffffffff81000c82ULL);	/* asm_exc_page_fault+0x22 */
	l[2] = location(p, k, 0xffffffff81000000ULL);	/* four aliases */
	l[3] = location(p, mod, 0xffffffffc0a01010ULL);
	l[4] = location(p, mod, 0xffffffffc0a01084ULL);
	l[5] = location(p, k, 0xffffffff82400010ULL);	/* data, not text */
	pki_symbolize_options_init(&o);
	o.kallsyms = "testdata/symbolize/kallsyms";
	s = pki_symbolizer_new(ctx, &o);
	is_int(pki_symbolize(s, p), 0, "kallsyms: symbolize succeeds");
	is_str(frame_name(p, l[0], 0), "pvm_irq_enable",
	       "kallsyms: pvm_irq_enable+0x19");
	is_str(frame_name(p, l[1], 0), "asm_exc_page_fault",
	       "kallsyms: asm_exc_page_fault+0x22");
	is_str(frame_name(p, l[2], 0), "srso_alias_untrain_ret",
	       "kallsyms: the first of equal global aliases");
	is_str(frame_name(p, l[3], 0), "foo_init",
	       "kallsyms: a module's local symbol");
	is_str(frame_name(p, l[4], 0), "foo_weak", "kallsyms: a module's weak symbol");
	is_int(nframes(p, l[5]), 0, "kallsyms: an address in data stays unsymbolized");
	mp = pk_profile_mapping(p, k);
	ok(mp->has_functions && !mp->has_filenames && !mp->has_line_numbers &&
	   !mp->has_inline_frames, "kallsyms: mapping has functions only");
	is_int(w.count, 0, "kallsyms: no warnings");
	pki_symbolizer_free(s);
	pk_profile_free(p);

	/* no kallsyms, not the running kernel: one warning for both */
	p = pk_profile_new(0);
	k = mapping(p, "[kernel.kallsyms]", "00112233445566778899aabbccddeeff00112233",
		    0xffffffff81000000ULL, 0xffffffff82276508ULL, 0);
	mod = mapping(p, "[foo]", "", 0xffffffffc0a01000ULL, 0xffffffffc0a02000ULL, 0);
	l[0] = location(p, k, 0xffffffff8225f2d9ULL);
	l[1] = location(p, mod, 0xffffffffc0a01010ULL);
	s = pki_symbolizer_new(ctx, NULL);
	is_int(pki_symbolize(s, p), 0, "no kallsyms: symbolize succeeds");
	is_int(w.count, 1, "no kallsyms: one warning");
	ok(strstr(w.last, "--kallsyms") != NULL, "no kallsyms: it says what to do");
	is_int(nframes(p, l[0]) + nframes(p, l[1]), 0,
	       "no kallsyms: locations unchanged");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/*
 * kallsyms in no order, with aliases of every type, against the rule
 * written out plainly: sort by address, then global before local before
 * anything else, then line; the first at each address wins and ends
 * where the next address begins (the last a page on); only text counts.
 * Twice through one symbolizer: the second profile's addresses are new.
 * Large enough to be read in several parts, by two threads the first
 * time, with a line too long to be a symbol's (skipped) across a part's
 * end.
 */
struct ksym {
	uint64_t addr;
	int rank;
	size_t line;
	char name[16];
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->line > y->line) - (x->line < y->line);
}

static const char *ksym_expected(const struct ksym *v, size_t n, uint64_t addr)
{
	size_t i, at = n;
	uint64_t end;

	for (i = 0; i < n && v[i].addr <= addr; i++)
		if (!i || v[i].addr != v[i - 1].addr)
			at = i;
	if (at == n || v[at].rank == 2)
		return "(none)";
	while (i < n && v[i].addr == v[at].addr)
		i++;
	end = i < n ? v[i].addr : (v[at].addr | 0xfff) + 0x1001;
	return addr < end ? v[at].name : "(none)";
}

static void test_kallsyms_unsorted(void)
{
	enum { NSYMS = 20000, NADDRS = 150, LONG_LINE = 70000 };
	static const char types[] = "TtWwDdbr";
	struct pk_context *ctx = pk_context_new();
	static struct ksym v[NSYMS];
	char path[] = "/tmp/t-symbolize-kallsyms-XXXXXX";
	struct pk_symbolize_options o;
	struct pk_symbolizer *s;
	uint64_t base = 0xffffffff81000000ULL;
	int fd = mkstemp(path), round, wrong = 0;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	size_t i;

	srand(18);
	for (i = 0; f && i < NSYMS; i++) {
		/* the last is text at the top: it ends a page on */
		char type = i == NSYMS - 1 ? 'T' : types[rand() % 8];

		v[i].addr = base + (uint64_t)(i == NSYMS - 1 ? 2000 :
					      rand() % 2000) * 16;
		v[i].rank = type == 'T' || type == 'W' ? 0 :
			type == 't' || type == 'w' ? 1 : 2;
		v[i].line = i;
		snprintf(v[i].name, sizeof(v[i].name), "sym%zu", i);
		/* as kallsyms has them, and some as the older files may */
		fprintf(f, i % 7 == 3 ? "%016llX %c %s%s\n" :
			i % 11 == 4 ? "0x%llx %c %s%s\n" : "%016llx %c %s%s\n",
			(unsigned long long)v[i].addr, type, v[i].name,
			i % 5 ? "" : "\t[mod]");
		if (i == 7000)	/* from about 230 KB on, above the last */
			fprintf(f, "%016llx T %0*d\n",
				(unsigned long long)base + 34000, LONG_LINE, 0);
	}
	ok(f && fclose(f) == 0, "unsorted kallsyms: written");
	qsort(v, NSYMS, sizeof(*v), ksym_cmp);
	pki_symbolize_options_init(&o);
	o.kallsyms = path;
	s = pki_symbolizer_new(ctx, &o);
	for (round = 0; round < 2; round++) {
		struct pk_profile *p = pk_profile_new(0);
		uint32_t k = mapping(p, "[kernel.kallsyms]", "", base,
				     base + 0x10000, base), l[NADDRS];
		uint64_t a[NADDRS];

		for (i = 0; i < NADDRS; i++) {
			a[i] = base - 64 + (uint64_t)(rand() % 44000);
			l[i] = location(p, k, a[i]);
		}
		is_int(pki_symbolize(s, p), 0, "unsorted kallsyms: symbolize");
		for (i = 0; i < NADDRS; i++)
			if (strcmp(frame_name(p, l[i], 0),
				   ksym_expected(v, NSYMS, a[i])) != 0 &&
			    wrong++ < 3)
				diag("0x%llx: %s, expected %s",
				     (unsigned long long)a[i],
				     frame_name(p, l[i], 0),
				     ksym_expected(v, NSYMS, a[i]));
		is_int(wrong, 0, round ? "unsorted kallsyms: new addresses, "
		       "the same symbolizer" : "unsorted kallsyms: every address");
		pk_profile_free(p);
	}
	pki_symbolizer_free(s);
	unlink(path);
	pk_context_free(ctx);
}

/* kallsyms read without the right to see addresses: all are 0 */
static void test_kallsyms_hidden(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	char path[] = "/tmp/t-symbolize-kallsyms-XXXXXX";
	struct pk_symbolize_options o;
	struct pk_symbolizer *s;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	uint32_t k, l;

	pk_context_set_warn(ctx, collect, &w);
	ok(f && fputs("0000000000000000 T _text\n0000000000000000 t foo\t[mod]\n",
		      f) >= 0 && fclose(f) == 0, "hidden kallsyms: written");
	k = mapping(p, "[kernel.kallsyms]", "", 0xffffffff81000000ULL,
		    0xffffffff82000000ULL, 0xffffffff81000000ULL);
	l = location(p, k, 0xffffffff81000010ULL);
	pki_symbolize_options_init(&o);
	o.kallsyms = path;
	s = pki_symbolizer_new(ctx, &o);
	is_int(pki_symbolize(s, p), 0, "hidden kallsyms: symbolize succeeds");
	is_int(nframes(p, l), 0, "hidden kallsyms: the address stays unsymbolized");
	ok(w.count == 1 && strstr(w.last, "kptr_restrict") != NULL,
	   "hidden kallsyms: one warning that says why");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	unlink(path);
	pk_context_free(ctx);
}

static void test_perf_map(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolizer *s;
	uint32_t m, gone, l[8];
	size_t i;
	static const struct {
		uint64_t addr;
		const char *name;
	} want[] = {
		{ 0x7f3c00001010, "LazyCompile:~main /app/index.js:10" },
		{ 0x7f3c00001050, "Builtin:ArgumentsAdaptorTrampoline" },
		{ 0x7f3c00002010, "Function:foo replaced" },
		{ 0x7f3c00002090, "Function:foo bar" },
		{ 0x7f3c00003000, "(none)" },
		{ 0x7f3c0000400f, "with trailing spaces and CR" },
		{ 0x7f3c00005000, "crlf" },
		{ 0x7f3c00005008, "(none)" },
	};

	pk_context_set_warn(ctx, collect, &w);
	m = mapping(p, "/tmp/perf-4242.map", "", 0x7f3c00000000ULL,
		    0x7f3c00010000ULL, 0);
	gone = mapping(p, "/tmp/perf-999999.map", "", 0x7f3d00000000ULL,
		       0x7f3d00010000ULL, 0);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		l[i] = location(p, m, want[i].addr);
	location(p, gone, 0x7f3d00000010ULL);
	s = symbolizer(ctx, "testdata/symbolize", NULL);
	is_int(pki_symbolize(s, p), 0, "perf map: symbolize succeeds");
	for (i = 0; i < ARRAY_SIZE(want); i++)
		is_str(frame_name(p, l[i], 0), want[i].name,
		       "perf map: 0x%llx", (unsigned long long)want[i].addr);
	is_int(w.count, 1, "perf map: one warning, for the missing map");
	ok(strstr(w.last, "perf-999999.map") != NULL, "perf map: naming it");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/* ---- missing files, build ids, --binary ---- */

static void test_missing_and_build_ids(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolizer *s;
	uint32_t a, b, wrong, kept, la, lb, lw, lk;
	struct pk_function fn = { 0 };
	struct pk_line line = { 0, 7 };

	pk_context_set_warn(ctx, collect, &w);
	/* one library in two processes, at two addresses */
	a = mapping(p, "/nonexistent/libgone.so.1", "", 0x7f0000000000ULL,
		    0x7f0000100000ULL, 0);
	b = mapping(p, "/nonexistent/libgone.so.1", "", 0x7f1000000000ULL,
		    0x7f1000100000ULL, 0);
	la = location(p, a, 0x7f0000000100ULL);
	location(p, a, 0x7f0000000200ULL);
	lb = location(p, b, 0x7f1000000100ULL);
	s = symbolizer(ctx, "testdata/bin", NULL);
	is_int(pki_symbolize(s, p), 0, "missing: symbolize succeeds");
	is_int(w.count, 1, "missing: one warning, not one per address");
	ok(strstr(w.last, "frames without names in 1 file:") &&
	   strstr(w.last, "  /nonexistent/libgone.so.1: not found") &&
	   !strstr(w.last, "testdata/bin/libgone.so.1"),
	   "missing: it names the file, not every place looked at");
	is_int(nframes(p, la) + nframes(p, lb), 0, "missing: locations unchanged");
	ok(!pk_profile_mapping(p, a)->has_functions, "missing: no has_functions");
	pki_symbolizer_free(s);

	/* PROFKIT_DEBUG=symbols: each file's search as well */
	w.count = 0;
	setenv("PROFKIT_DEBUG", "symbols", 1);
	s = symbolizer(ctx, "testdata/bin", NULL);
	unsetenv("PROFKIT_DEBUG");
	is_int(pki_symbolize(s, p), 0, "PROFKIT_DEBUG: symbolize succeeds");
	ok(w.count == 2 && strstr(w.first, "'/nonexistent/libgone.so.1'") &&
	   strstr(w.first, "testdata/bin/libgone.so.1"),
	   "PROFKIT_DEBUG=symbols: where the file was looked for");
	pki_symbolizer_free(s);

	/* a c-fp of another build is not used */
	w.count = 0;
	s = symbolizer(ctx, "testdata/bin", NULL);
	wrong = mapping(p, "/build/c-fp", "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef",
			CFP_START, CFP_START + 0x1000, 0x1000);
	lw = location(p, wrong, CFP_START + 0x169);
	/* a location that already has lines is left alone */
	fn.name = fn.system_name = pk_profile_intern_cstr(p, "kept");
	line.function = pk_profile_intern_function(p, &fn);
	kept = mapping(p, "/tmp/rec/c-fp", CFP_ID, CFP_START,
		       CFP_START + 0x1000, 0x1000);
	lk = pk_profile_intern_location(p, kept, CFP_START + 0x169, &line, 1);
	is_int(pki_symbolize(s, p), 0, "build id: symbolize succeeds");
	is_int(nframes(p, lw), 0,
	       "build id: a file with another build id is not used");
	ok(w.count == 1 && strstr(w.last, "/build/c-fp: not found (") &&
	   strstr(w.last, "testdata/bin/c-fp is another build)"),
	   "build id: the warning says the file found is another build");
	is_str(frame_name(p, lk, 0), "kept",
	       "build id: symbolized locations untouched");
	pki_symbolizer_free(s);

	/* --binary is used for the program whatever its build id */
	w.count = 0;
	s = symbolizer(ctx, NULL, "testdata/bin/c-fp");
	is_int(pki_symbolize(s, p), 0, "--binary: symbolize succeeds");
	is_str(frame_name(p, lw, 0), "hot_loop",
	       "--binary: replaces the main program");
	is_int(nframes(p, la), 0, "--binary: libraries are not replaced");
	ok(w.count == 2 && strstr(w.first, "using 'testdata/bin/c-fp'"),
	   "--binary: warns that the build ids differ");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

static void test_symfs(void)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct warnings w = { 0 };
	struct pk_symbolize_options o;
	struct pk_symbolizer *s;
	uint32_t found, host;

	pk_context_set_warn(ctx, collect, &w);
	found = location(p, mapping(p, "/bin/c-fp", "", CFP_START,
				    CFP_START + 0x1000, 0x1000),
			 CFP_START + 0x169);
	host = location(p, mapping(p, "/bin/sh", "", 0x555555554000ULL,
				   0x555555570000ULL, 0x1000),
			0x555555555000ULL);
	pki_symbolize_options_init(&o);
	o.symfs = "testdata";
	s = pki_symbolizer_new(ctx, &o);
	is_int(pki_symbolize(s, p), 0, "symfs: symbolize succeeds");
	is_str(frame_name(p, found, 0), "hot_loop",
	       "symfs: /bin/c-fp is testdata/bin/c-fp");
	is_int(nframes(p, host), 0, "symfs: this machine's /bin/sh is not used");
	ok(w.count == 1 && strstr(w.last, "  /bin/sh: not found") &&
	   strstr(w.last, "--symfs=DIR"),
	   "symfs: one warning, naming /bin/sh and what would find it");
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
}

/* ---- the frames of addresses, for run-symbolize.sh ---- */

static void print_frames(const struct pk_profile *p, uint32_t loc,
			 uint64_t addr, int addr2line)
{
	const struct pk_location *l = pk_profile_location(p, loc);
	const struct pk_line *lines = pk_profile_location_lines(p, l);
	uint32_t i;

	if (addr2line)
		printf("0x%016llx\n", (unsigned long long)addr);
	if (addr2line && !l->nlines)
		printf("??\n??:0\n");
	for (i = 0; i < l->nlines; i++) {
		const struct pk_function *f = pk_profile_function(p, lines[i].function);
		const char *file = pk_profile_string(p, f->filename);

		if (addr2line)
			printf("%s\n%s:%lld\n", pk_profile_string(p, f->system_name),
			       *file ? file : "??", (long long)lines[i].line);
		else
			printf("0x%llx %s|%s|%s|%lld|%lld\n",
			       (unsigned long long)addr,
			       pk_profile_string(p, f->name),
			       pk_profile_string(p, f->system_name), file,
			       (long long)f->start_line, (long long)lines[i].line);
	}
	if (!addr2line && !l->nlines)
		printf("0x%llx ??\n", (unsigned long long)addr);
}

static int frames_main(int argc, char **argv)
{
	struct pk_symbolize_options o;
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct pk_symbolizer *s;
	int addr2line = 0, i = 1, first, rc;
	uint32_t m;

	pki_symbolize_options_init(&o);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--demangle=full") == 0)
			o.demangle = PK_DEMANGLE_FULL;
		else if (strcmp(argv[i], "--demangle=none") == 0)
			o.demangle = PK_DEMANGLE_NONE;
		else if (strcmp(argv[i], "--addr2line") == 0)
			addr2line = 1;
	}
	if (argc - i < 5) {
		fprintf(stderr, "usage: t-symbolize [--demangle=full|none] "
			"[--addr2line] FILE START LIMIT OFFSET ADDR...\n");
		return 2;
	}
	m = mapping(p, argv[i], "", strtoull(argv[i + 1], NULL, 0),
		    strtoull(argv[i + 2], NULL, 0), strtoull(argv[i + 3], NULL, 0));
	first = i + 4;
	for (i = first; i < argc; i++)
		location(p, m, strtoull(argv[i], NULL, 0));
	s = pki_symbolizer_new(ctx, &o);
	rc = s ? pki_symbolize(s, p) : -1;
	for (i = first; rc == 0 && i < argc; i++)
		print_frames(p, (uint32_t)(i - first + 1),
			     strtoull(argv[i], NULL, 0), addr2line);
	if (rc)
		fprintf(stderr, "t-symbolize: %s\n", pk_context_error(ctx)->message);
	pki_symbolizer_free(s);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");

	if (argc > 1)
		return frames_main(argc, argv);
	if (srcdir && chdir(srcdir) != 0) {
		printf("1..0 # SKIP cannot enter %s\n", srcdir);
		return 77;
	}
	/* no ~/.debug, no symbol path from the environment: only testdata */
	setenv("HOME", "/nonexistent", 1);
	unsetenv("PROFKIT_SYMBOL_PATH");
	test_pie_with_frame_pointers();
	test_inline_frames();
	test_live_mappings();
	test_kallsyms();
	test_kallsyms_unsorted();
	test_kallsyms_hidden();
	test_perf_map();
	test_missing_and_build_ids();
	test_symfs();
	return done_testing();
}
