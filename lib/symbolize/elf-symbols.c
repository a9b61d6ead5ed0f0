/* SPDX-License-Identifier: MIT */
/* ELF symbol tables and PLT stubs (elf-symbols.h). */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf-symbols.h"
#include "core/internal.h"
#include "util/search.h"

#define PLT_ENTRY 16		/* bytes of an x86_64 PLT stub */

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

/* The x86_64 PLT: relocation slot i is the stub at first + 16 i. */
struct plt {
	Elf *elf;
	Elf_Data *relocs, *syms;
	GElf_Word strtab;	/* of the dynamic symbols */
	size_t n;		/* relocations */
	GElf_Addr first, end;	/* the stubs' addresses */
};

static int plt_open(struct plt *plt, Elf *elf)
{
	GElf_Shdr rela, stubs, dynsym;
	GElf_Ehdr ehdr;
	Elf_Scn *rela_scn, *sym_scn;

	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 ||
	    !(rela_scn = find_section(elf, ".rela.plt", &rela)) ||
	    rela.sh_type != SHT_RELA || !rela.sh_entsize ||
	    !(sym_scn = elf_getscn(elf, rela.sh_link)) ||
	    !gelf_getshdr(sym_scn, &dynsym) ||
	    !(plt->relocs = elf_getdata(rela_scn, NULL)) ||
	    !(plt->syms = elf_getdata(sym_scn, NULL)))
		return -1;
	/* with IBT the stubs are in .plt.sec; .plt's first entry is not one */
	if (find_section(elf, ".plt.sec", &stubs))
		plt->first = stubs.sh_addr;
	else if (find_section(elf, ".plt", &stubs))
		plt->first = stubs.sh_addr + PLT_ENTRY;
	else
		return -1;
	plt->end = stubs.sh_addr + stubs.sh_size;
	plt->elf = elf;
	plt->strtab = dynsym.sh_link;
	plt->n = rela.sh_size / rela.sh_entsize;
	return 0;
}

/* The name of the function slot i calls, or NULL. */
static const char *plt_name(const struct plt *plt, size_t i)
{
	GElf_Rela r;
	GElf_Sym sym;

	if (!gelf_getrela(plt->relocs, (int)i, &r) ||
	    !gelf_getsym(plt->syms, (int)GELF_R_SYM(r.r_info), &sym))
		return NULL;
	return elf_strptr(plt->elf, plt->strtab, sym.st_name);
}

/*
 * "memcmp@plt" for each PLT stub, as perf names them (pprof does not):
 * slot i of .rela.plt is the stub at .plt.sec + 16 i (IBT) or .plt + 16
 * (i + 1) (x86_64; other machines keep their stubs unnamed). Names live
 * in t->text.
 */
static int add_plt_symbols(struct symtab *t, Elf *elf, GElf_Addr bias)
{
	struct plt plt;
	size_t i, size = 0, used = 0;
	const char *name;

	if (plt_open(&plt, elf))
		return 0;
	for (i = 0; i < plt.n; i++)
		if ((name = plt_name(&plt, i)))
			size += strlen(name) + sizeof("@plt");
	if (!size || !(t->text = malloc(size)))
		return 0;
	for (i = 0; i < plt.n; i++) {
		GElf_Addr at = plt.first + PLT_ENTRY * i + bias;

		if (!(name = plt_name(&plt, i)) ||
		    plt.first + PLT_ENTRY * (i + 1) > plt.end ||
		    used + strlen(name) + sizeof("@plt") > size)
			continue;
		sprintf(t->text + used, "%s@plt", name);
		if (symtab_push(t, at, at + PLT_ENTRY, t->text + used,
				alias_rank(t->text + used, 1, STB_GLOBAL, 0)))
			return -1;
		used += strlen(t->text + used) + 1;
	}
	return 0;
}

/* Add the module's function symbols, each ranked among its aliases. */
static int add_functions(struct symtab *t, Dwfl_Module *mod, Elf *elf)
{
	int n = dwfl_module_getsymtab(mod), k;

	/* room for all at once: not a table copied a dozen times as it grows */
	if (n > 0 && pki_grow(&t->v, &t->cap, t->n + (size_t)n, sizeof(*t->v)))
		return -1;
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, k, &sym, &addr,
							   &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || name[0] == '$' ||
		    shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    shndx == (GElf_Word)-1 ||
		    !(type == STT_FUNC || type == STT_GNU_IFUNC ||
		      (type == STT_NOTYPE && is_code_section(elf, shndx))))
			continue;
		if (symtab_push(t, addr, sym.st_size ? addr + sym.st_size : 0,
				name, alias_rank(name, sym.st_size != 0,
						 GELF_ST_BIND(sym.st_info),
						 (unsigned)k)))
			return -1;
	}
	return 0;
}

/* A symbol's size (0: none given) and place in its table (0: a PLT stub) */
static uint64_t sym_size(const struct sym *s)
{
	return s->sized ? s->end - s->start : 0;
}

static uint64_t sym_index(const struct sym *s)
{
	return s->rank & 0xffffffffffu;
}

/*
 * Does the tool of rule name an address after a rather than b, two
 * symbols starting there? perf takes the lowest alias_rank (the first
 * of the sorted table). binutils 2.40's addr2line (_bfd_elf_find_function
 * in bfd/dwarf2.c, where a symbol without a size counts one byte) takes
 * the largest, then the first in the table; llvm-symbolizer 14, which
 * pprof asks (SymbolizableObjectFile::create: a stable sort by address
 * and size, keeping the last), the largest, then the last.
 */
static int tool_prefers(enum sym_alias_rule rule, const struct sym *a,
			const struct sym *b)
{
	uint64_t size_a = sym_size(a), size_b = sym_size(b);

	switch (rule) {
	case SYM_ALIAS_ADDR2LINE:
		size_a += !size_a;
		size_b += !size_b;
		return size_a != size_b ? size_a > size_b :
			sym_index(a) < sym_index(b);
	case SYM_ALIAS_LLVM:
		return size_a != size_b ? size_a > size_b :
			sym_index(a) > sym_index(b);
	case SYM_ALIAS_PERF:
		break;
	}
	return a->rank < b->rank;
}

/*
 * One entry per address, named after the alias the tool of rule picks
 * (its extent stays perf's); a sizeless symbol ends where the next
 * begins.
 */
static void keep_one_per_address(struct symtab *t, enum sym_alias_rule rule)
{
	size_t i, j, kept = 0;

	for (i = 0; i < t->n; i = j) {
		const struct sym *pick = &t->v[i];
		const char *name;

		for (j = i + 1; j < t->n && t->v[j].start == t->v[i].start; j++)
			if (tool_prefers(rule, &t->v[j], pick))
				pick = &t->v[j];
		name = pick->name;
		t->v[kept] = t->v[i];
		t->v[kept++].name = name;
	}
	t->n = kept;
	for (i = 0; i < t->n; i++)
		if (!t->v[i].sized)
			t->v[i].end = i + 1 < t->n ? t->v[i + 1].start :
				t->v[i].start + 1;
}

/* The entry of t starting at addr, or NULL. */
static struct sym *entry_at(struct symtab *t, uint64_t addr)
{
	size_t k = pki_count_at_or_below(t->v, t->n, sizeof(*t->v),
					 offsetof(struct sym, start), addr);

	return k && t->v[k - 1].start == addr ? &t->v[k - 1] : NULL;
}

/* The section of type in elf, or NULL. */
static Elf_Scn *section_of_type(Elf *elf, GElf_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	return NULL;
}

/*
 * llvm-symbolizer names a function by the file's own symbol table, never
 * a debug file's, and by DWARF where that table has no symbol: where the
 * file has only .dynsym, pprof names an address after the symbols
 * .dynsym has there ("__libc_malloc", where libc's debug file has
 * "malloc" last), and others by DWARF ("clone3", a local symbol). 0, or
 * -1 when out of memory.
 */
static int name_as_dynsym(struct symtab *t, Elf *elf, GElf_Addr bias)
{
	GElf_Shdr shdr;
	Elf_Scn *scn;
	Elf_Data *data;
	struct sym *picks;
	size_t i, n;

	if (!elf || section_of_type(elf, SHT_SYMTAB, &shdr) ||
	    !(scn = section_of_type(elf, SHT_DYNSYM, &shdr)) ||
	    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return 0;
	if (!(picks = calloc(t->n ? t->n : 1, sizeof(*picks))))
		return -1;
	n = data->d_size / shdr.sh_entsize;	/* what was read, not what
						 * the header claims */
	for (i = 1; i < n; i++) {
		struct sym cand = { 0 }, *at;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    !(cand.name = elf_strptr(elf, shdr.sh_link, sym.st_name)) ||
		    !*cand.name ||
		    !(at = entry_at(t, sym.st_value + bias)))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_NOTYPE && type != STT_OBJECT)
			continue;
		cand.start = at->start;
		cand.end = at->start + sym.st_size;
		cand.sized = sym.st_size != 0;
		cand.rank = i;
		if (!picks[at - t->v].name ||
		    tool_prefers(SYM_ALIAS_LLVM, &cand, &picks[at - t->v]))
			picks[at - t->v] = cand;
	}
	for (i = 0; i < t->n; i++) {
		if (picks[i].name)
			t->v[i].name = picks[i].name;
		t->v[i].dwarf_names = !picks[i].name;
	}
	free(picks);
	return 0;
}

/*
 * The function symbols, sorted, so each address costs a binary search
 * (dwfl_module_addrinfo scans the whole table). Symbols come from
 * .symtab (of the debug file when there is one) or .dynsym, whose
 * section indices are the main file's.
 */
struct symtab *sym_elf_symbols(Dwfl_Module *mod, int plt_names,
			       enum sym_alias_rule rule)
{
	GElf_Addr elf_bias;
	Elf *elf = dwfl_module_getelf(mod, &elf_bias);
	struct symtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (add_functions(t, mod, elf) ||
	    (plt_names && add_plt_symbols(t, elf, elf_bias))) {
		symtab_free(t);
		return NULL;
	}
	symtab_sort(t);
	keep_one_per_address(t, rule);
	if (rule == SYM_ALIAS_LLVM && name_as_dynsym(t, elf, elf_bias)) {
		symtab_free(t);
		return NULL;
	}
	return t;
}
