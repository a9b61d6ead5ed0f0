/* SPDX-License-Identifier: MIT */
/* ELF symbol tables and PLT stubs (elf-symbols.h). */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf-symbols.h"
#include "core/internal.h"

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

/* One entry per address, perf's alias first and addr2line's beside it;
 * a sizeless symbol ends where the next begins. */
static void keep_one_per_address(struct symtab *t)
{
	size_t i, kept = 0;
	uint64_t best = 0;

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
}

/*
 * The function symbols, sorted, so each address costs a binary search
 * (dwfl_module_addrinfo scans the whole table). Symbols come from
 * .symtab (of the debug file when there is one) or .dynsym, whose
 * section indices are the main file's.
 */
struct symtab *sym_elf_symbols(Dwfl_Module *mod, int plt_names)
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
	keep_one_per_address(t);
	return t;
}
