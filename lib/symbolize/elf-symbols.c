/* SPDX-License-Identifier: MIT */
/* ELF symbol tables and PLT stubs (elf-symbols.h). */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Sorted, one entry per address; 0, or -1 when out of memory. */
static int finish_table(struct symtab *t, Elf *elf, GElf_Addr bias,
			enum sym_alias_rule rule)
{
	symtab_sort(t);
	keep_one_per_address(t, rule);
	return rule == SYM_ALIAS_LLVM ? name_as_dynsym(t, elf, bias) : 0;
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
	    (plt_names && add_plt_symbols(t, elf, elf_bias)) ||
	    finish_table(t, elf, elf_bias, rule)) {
		symtab_free(t);
		return NULL;
	}
	return t;
}

/* ---- the symbols of a few addresses, read with pread ---- */

/*
 * A profile of a small program asks a library for a handful of
 * addresses, and a table of all its symbols (libc's .symtab: 10,000,
 * in a debug file libdwfl maps whole) costs more memory than the rest
 * of the conversion. For at most FEW_MAX addresses the table holds
 * only the entries symtab_find looks at for them, read from the file
 * by pread: every function symbol's start once (16 bytes each, the
 * names not read), then at each address the entries at and below it
 * that symtab_find tries, and the one above, which ends a sizeless one
 * below. The same file, sections and rules as libdwfl's and
 * add_functions' give the same answers as the whole table; any file
 * they do not fit plainly is left to the whole table.
 */
#define FEW_MAX 1024
#define SYM_CHUNK 256		/* symbols a pread */
#define NAME_UNREAD (-2)
#define NAME_NONE (-1)		/* no name perf takes */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ELFDATA ELFDATA2MSB
#else
#define HOST_ELFDATA ELFDATA2LSB
#endif

/* A function symbol (index 0: a PLT stub, named already). */
struct cand {
	uint64_t start;
	uint32_t index;		/* in .symtab */
	int32_t name;		/* into few.names, or NAME_* */
};

struct few {
	int fd;
	Elf *file;		/* the file read: its headers, by pread */
	Elf *elf;		/* the module's main file */
	GElf_Addr bias;
	uint64_t syms_off, nsyms, str_off, str_size;
	struct cand *c;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int read_fully(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t k = pread(fd, (char *)buf + got, len - got,
				  (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

/* The first load segment's header: libdwfl places a debug file's
 * addresses by it. */
static int first_load(Elf *elf, GElf_Phdr *ph)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, ph) && ph->p_type == PT_LOAD)
			return 0;
	return -1;
}

/*
 * Whether the table file is one libdwfl reads as we do: a native ELF64
 * of x86_64 or aarch64 (no function address bits, no descriptors) with
 * one plain .symtab and no extended section indices, its .strtab ending
 * in a NUL, and a debug file at the main file's addresses (libdwfl would
 * adjust a prelinked one's). Sets the sections' places.
 */
static int few_fits(struct few *f, int is_debug)
{
	GElf_Ehdr eh, main_eh;
	GElf_Shdr sh, str;
	GElf_Phdr a, b;
	Elf_Scn *scn = NULL, *symscn = NULL;
	struct stat st;
	char last;
	int nsym = 0;

	if (!f->file || elf_kind(f->file) != ELF_K_ELF ||
	    !gelf_getehdr(f->file, &eh) || !gelf_getehdr(f->elf, &main_eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != HOST_ELFDATA ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) ||
	    (main_eh.e_type != ET_DYN && main_eh.e_type != ET_EXEC) ||
	    fstat(f->fd, &st) < 0)
		return 0;
	if (is_debug && (find_section(f->elf, ".gnu.prelink_undo", &sh) ||
			 first_load(f->elf, &a) || first_load(f->file, &b) ||
			 a.p_vaddr != b.p_vaddr || a.p_memsz != b.p_memsz ||
			 a.p_align != b.p_align))
		return 0;
	while ((scn = elf_nextscn(f->file, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return 0;
		if (sh.sh_type == SHT_SYMTAB_SHNDX)
			return 0;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_entsize)
			symscn = scn, nsym++;
	}
	if (nsym != 1 || !gelf_getshdr(symscn, &sh) ||
	    sh.sh_entsize != sizeof(Elf64_Sym) ||
	    !gelf_getshdr(elf_getscn(f->file, sh.sh_link), &str) ||
	    str.sh_type != SHT_STRTAB || str.sh_size == 0 ||
	    ((sh.sh_flags | str.sh_flags) & SHF_COMPRESSED) ||
	    sh.sh_offset > (uint64_t)st.st_size ||
	    sh.sh_size > (uint64_t)st.st_size - sh.sh_offset ||
	    str.sh_offset > (uint64_t)st.st_size ||
	    str.sh_size > (uint64_t)st.st_size - str.sh_offset ||
	    sh.sh_size / sizeof(Elf64_Sym) > INT32_MAX ||
	    str.sh_size > INT32_MAX ||
	    read_fully(f->fd, &last, 1, str.sh_offset + str.sh_size - 1) ||
	    last != '\0')
		return 0;
	f->syms_off = sh.sh_offset;
	f->nsyms = sh.sh_size / sizeof(Elf64_Sym);
	f->str_off = str.sh_offset;
	f->str_size = str.sh_size;
	return 1;
}

/* Whether add_functions takes the symbol, its name aside (libdwfl gives
 * no section for one in a section not loaded). */
static int few_is_function(const struct few *f, const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (s->st_name == 0 || s->st_name >= f->str_size ||
	    s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
		return 0;
	if (s->st_shndx < SHN_LORESERVE &&
	    (scn = elf_getscn(f->file, s->st_shndx)) && gelf_getshdr(scn, &sh) &&
	    !(sh.sh_flags & SHF_ALLOC))
		return 0;
	return type == STT_FUNC || type == STT_GNU_IFUNC ||
	       (type == STT_NOTYPE && is_code_section(f->elf, s->st_shndx));
}

static int few_add(struct few *f, uint64_t start, uint32_t index,
		   int32_t name)
{
	if (pki_grow(&f->c, &f->cap, f->n + 1, sizeof(*f->c)) < 0)
		return -1;
	f->c[f->n].start = start;
	f->c[f->n].index = index;
	f->c[f->n++].name = name;
	return 0;
}

/* Every function symbol's start. 0, -1 (no memory), 1 (does not fit). */
static int few_collect(struct few *f)
{
	Elf64_Sym buf[SYM_CHUNK];
	uint64_t k, i, n;

	for (k = 1; k < f->nsyms; k += n) {
		n = f->nsyms - k < SYM_CHUNK ? f->nsyms - k : SYM_CHUNK;
		if (read_fully(f->fd, buf, n * sizeof(*buf),
			       f->syms_off + k * sizeof(*buf)))
			return 1;
		for (i = 0; i < n; i++) {
			if (buf[i].st_shndx == SHN_XINDEX)
				return 1;
			if (few_is_function(f, &buf[i]) &&
			    few_add(f, buf[i].st_value + f->bias,
				    (uint32_t)(k + i), NAME_UNREAD))
				return -1;
		}
	}
	return 0;
}

/* The PLT's stubs as candidates, their names read now. */
static int few_plt(struct few *f)
{
	struct symtab plt = { 0 };
	size_t i, len;
	int rc = add_plt_symbols(&plt, f->elf, f->bias);

	for (i = 0; !rc && i < plt.n; i++) {
		len = strlen(plt.v[i].name) + 1;
		if (f->names_len + len > INT32_MAX ||
		    pki_grow(&f->names, &f->names_cap, f->names_len + len, 1) ||
		    few_add(f, plt.v[i].start, 0, (int32_t)f->names_len))
			rc = -1;
		else
			memcpy(f->names + f->names_len, plt.v[i].name, len);
		f->names_len += rc ? 0 : len;
	}
	free(plt.text);
	free(plt.v);
	return rc;
}

/* Read the name at strtab offset off into f->names: its offset there,
 * or -1. */
static int32_t few_read_name(struct few *f, uint64_t off)
{
	size_t start = f->names_len, step;
	char *nul;

	for (;;) {
		step = f->str_size - off < 128 ? (size_t)(f->str_size - off) : 128;
		if (f->names_len + step + 1 > INT32_MAX ||
		    pki_grow(&f->names, &f->names_cap, f->names_len + step + 1, 1) ||
		    read_fully(f->fd, f->names + f->names_len, step,
			       f->str_off + off))
			return -1;
		nul = memchr(f->names + f->names_len, '\0', step);
		if (nul) {
			f->names_len = (size_t)(nul - f->names) + 1;
			return (int32_t)start;
		}
		f->names_len += step;
		off += step;	/* the section ends in a NUL: off stays in */
	}
}

/* Candidate c as add_functions pushes it, into *e (its name an offset in
 * f->names): 1, 0 when perf takes no name of it, -1 on an error. */
static int few_entry(struct few *f, struct cand *c, struct sym *e)
{
	Elf64_Sym s = { 0 };
	const char *name;

	if (c->name == NAME_NONE)
		return 0;
	if (c->index == 0) {	/* a PLT stub */
		s.st_size = PLT_ENTRY;
		s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	} else if (read_fully(f->fd, &s, sizeof(s),
			      f->syms_off + (uint64_t)c->index * sizeof(s))) {
		return -1;
	}
	if (c->name == NAME_UNREAD &&
	    (c->name = few_read_name(f, s.st_name)) < 0)
		return -1;
	name = f->names + c->name;
	if (!*name || name[0] == '$') {
		c->name = NAME_NONE;
		return 0;
	}
	e->start = c->start;
	e->end = s.st_size ? c->start + s.st_size : 0;
	e->sized = e->end != 0;
	e->rank = alias_rank(name, e->sized, ELF64_ST_BIND(s.st_info),
			     c->index);
	return 1;
}

/* The entry the whole table keeps at the start of c[i, j): the first of
 * its named aliases by rank, into *first. 1, 0 (none), -1 (error). */
static int few_group(struct few *f, size_t i, size_t j, struct sym *first)
{
	struct sym e;
	int found = 0, rc;

	for (; i < j; i++) {
		if ((rc = few_entry(f, &f->c[i], &e)) < 0)
			return -1;
		if (rc && (!found || e.rank < first->rank))
			*first = e;
		found |= rc;
	}
	return found;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->start != y->start ? (x->start < y->start ? -1 : 1) :
	       (x->index > y->index) - (x->index < y->index);
}

static void few_keep(unsigned char *keep, size_t i, size_t j)
{
	memset(keep + i, 1, j - i);
}

/* Mark in keep the candidates symtab_find needs for addr. 0 or -1. */
static int few_want(struct few *f, uint64_t addr, unsigned char *keep)
{
	size_t hi = pki_count_at_or_below(f->c, f->n, sizeof(*f->c),
					  offsetof(struct cand, start), addr);
	size_t i, j, seen = 0;
	uint64_t next = 0;
	int have_next = 0, rc;
	struct sym e;

	/* the first start above addr with an entry ends a sizeless one */
	for (j = hi; j < f->n && !have_next; j = i) {
		for (i = j + 1; i < f->n && f->c[i].start == f->c[j].start; i++)
			;
		if ((rc = few_group(f, j, i, &e)) < 0)
			return -1;
		if (rc) {
			few_keep(keep, j, i);
			next = e.start;
			have_next = 1;
		}
	}
	for (i = hi; i > 0 && seen < SYMTAB_OVERLAP_MAX; i = j) {
		for (j = i - 1; j > 0 && f->c[j - 1].start == f->c[i - 1].start; j--)
			;
		if ((rc = few_group(f, j, i, &e)) < 0)
			return -1;
		if (!rc)
			continue;
		few_keep(keep, j, i);
		seen++;
		if (addr < (e.sized ? e.end : have_next ? next : e.start + 1))
			break;
		next = e.start;
		have_next = 1;
	}
	return 0;
}

/* The table of the kept candidates, taking f->names. */
static struct symtab *few_table(struct few *f, const unsigned char *keep,
				enum sym_alias_rule rule)
{
	struct symtab *t = calloc(1, sizeof(*t));
	struct sym e;
	size_t i;
	int rc = t ? 0 : -1;

	for (i = 0; !rc && i < f->n; i++)
		if (keep[i] && (rc = few_entry(f, &f->c[i], &e)) > 0)
			rc = symtab_push(t, e.start, e.sized ? e.end : 0,
					 f->names + f->c[i].name, e.rank);
	if (t) {
		t->text = f->names;
		f->names = NULL;
	}
	if (rc || finish_table(t, f->elf, f->bias, rule)) {
		symtab_free(t);
		return NULL;
	}
	return t;
}

/* The table for addrs (sorted) from the file at fd: 0, 1 when the file
 * does not fit, -1 on an error (no memory, a read failed). */
static int few_symbols(struct few *f, int is_debug, int plt_names,
		       enum sym_alias_rule rule, const uint64_t *addrs,
		       size_t naddrs, struct symtab **out)
{
	unsigned char *keep = NULL;
	size_t i;
	int rc;

	if (!few_fits(f, is_debug))
		return 1;
	rc = few_collect(f);
	if (!rc && plt_names)
		rc = few_plt(f);
	if (rc)
		return rc;
	if (f->n)	/* never qsort(NULL, 0) */
		qsort(f->c, f->n, sizeof(*f->c), cand_cmp);
	if (!(keep = calloc(f->n ? f->n : 1, 1)))
		return -1;
	for (i = 0; !rc && i < naddrs; i++)
		rc = few_want(f, addrs[i], keep);
	if (!rc && !(*out = few_table(f, keep, rule)))
		rc = -1;
	free(keep);
	return rc;
}

struct symtab *sym_elf_symbols_at(Dwfl_Module *mod, int fd, int is_debug,
				  int plt_names, enum sym_alias_rule rule,
				  const uint64_t *addrs, size_t naddrs,
				  int *whole)
{
	struct few f = { .fd = fd };
	struct symtab *t = NULL;
	int rc = 1;

	f.elf = dwfl_module_getelf(mod, &f.bias);
	if (f.elf && fd >= 0 && naddrs && naddrs <= FEW_MAX) {
		f.file = elf_begin(fd, ELF_C_READ, NULL);
		rc = few_symbols(&f, is_debug, plt_names, rule, addrs, naddrs,
				 &t);
		elf_end(f.file);
	}
	free(f.c);
	free(f.names);
	if (fd >= 0)
		close(fd);
	/* a file that cannot be read so (or no memory): libdwfl's way */
	*whole = rc != 0;
	return rc ? sym_elf_symbols(mod, plt_names, rule) : t;
}
