/* SPDX-License-Identifier: MIT */
/*
 * The table sym_elf_symbols_at reads for a few addresses (by pread, only
 * the entries their lookups need) answers each of them as the whole
 * table does: the same entry (start, end, size known, name) or none, for
 * every address around the functions of the testdata binaries, asked
 * alone and all together, under each tool's rule for aliases, with and
 * without PLT stubs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elf-symbols.h"

#include "tap.h"

#define BATCH 1024	/* the most addresses a table is read for */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static int same_entry(const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return a == b;
	return a->start == b->start && a->end == b->end &&
	       a->sized == b->sized && strcmp(a->name, b->name) == 0;
}

/* Does the table read for addrs answer each as whole does? */
static int answers_alike(Dwfl_Module *mod, const char *path, int plt,
			 enum sym_alias_rule rule, const struct symtab *whole,
			 const uint64_t *addrs, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), is_whole = -1;
	struct symtab *few = sym_elf_symbols_at(mod, fd, 0, plt, rule, addrs,
						n, &is_whole);
	size_t i;
	int alike = few && !is_whole;

	for (i = 0; alike && i < n; i++)
		if (!same_entry(symtab_find(few, addrs[i]),
				symtab_find(whole, addrs[i]))) {
			diag("%s: 0x%llx answered otherwise", path,
			     (unsigned long long)addrs[i]);
			alike = 0;
		}
	symtab_free(few);
	return alike;
}

static void check_binary(const char *path)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	uint64_t lo, hi, a, *addrs;
	size_t n, i, alone_ok, together_ok;
	int plt, rule;

	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "t", path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!ok(mod != NULL, "%s: reported", path))
		return;
	for (plt = 0; plt <= 1; plt++)
		for (rule = SYM_ALIAS_PERF; rule <= SYM_ALIAS_LLVM; rule++) {
			struct symtab *whole = sym_elf_symbols(mod, plt, rule);

			if (!ok(whole && whole->n > 1, "%s: a whole table", path))
				continue;
			/* every address from before the first entry to past
			 * the last one's end */
			lo = whole->v[0].start - 2;
			hi = whole->v[whole->n - 1].end + 2;
			addrs = malloc((hi - lo) * sizeof(*addrs));
			for (n = 0, a = lo; addrs && a < hi; a++)
				addrs[n++] = a;
			alone_ok = together_ok = addrs != NULL;
			for (i = 0; alone_ok && i < n; i += 3)
				alone_ok = answers_alike(mod, path, plt, rule,
							 whole, addrs + i, 1);
			for (i = 0; together_ok && i < n; i += BATCH)
				together_ok = answers_alike(mod, path, plt, rule,
					whole, addrs + i, n - i < BATCH ? n - i : BATCH);
			ok(alone_ok, "%s (plt %d, rule %d): each address alone",
			   path, plt, rule);
			ok(together_ok, "%s (plt %d, rule %d): %u at a time",
			   path, plt, rule, BATCH);
			free(addrs);
			symtab_free(whole);
		}
	dwfl_end(dwfl);
}

int main(void)
{
	static const char *const binaries[] = {
		"c-fp", "plt", "plt-ibt", "pltcxx", "cxx-dwarf", "rusty-v0",
		"units",
	};
	const char *srcdir = getenv("top_srcdir");
	char path[256];
	size_t i;

	if (srcdir && chdir(srcdir) != 0) {
		printf("1..0 # SKIP cannot enter %s\n", srcdir);
		return 77;
	}
	elf_version(EV_CURRENT);
	for (i = 0; i < sizeof(binaries) / sizeof(*binaries); i++) {
		snprintf(path, sizeof(path), "testdata/bin/%s", binaries[i]);
		check_binary(path);
	}
	return done_testing();
}
