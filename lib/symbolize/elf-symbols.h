/* SPDX-License-Identifier: MIT */
/*
 * An ELF file's function symbols as a sorted table: .symtab (of the debug
 * file when there is one) or .dynsym, one name per address, picked among
 * its aliases as the reference tool picks it, and the PLT's stubs named
 * "memcmp@plt" as perf names them.
 */
#ifndef PROFKIT_SYMBOLIZE_ELF_SYMBOLS_H
#define PROFKIT_SYMBOLIZE_ELF_SYMBOLS_H

#include <elfutils/libdwfl.h>

#include "symtab.h"

/* Whose pick names an address where several symbols start. */
enum sym_alias_rule {
	SYM_ALIAS_PERF,		/* perf's own (choose_best_symbol) */
	SYM_ALIAS_ADDR2LINE,	/* binutils' addr2line, which perf asks for
				 * the frames it unwinds */
	SYM_ALIAS_LLVM,		/* llvm-symbolizer, which pprof asks */
};

/* The table at the module's Dwfl addresses; NULL when out of memory.
 * plt_names: name PLT stubs (pprof names them after the symbol before). */
struct symtab *sym_elf_symbols(Dwfl_Module *mod, int plt_names,
			       enum sym_alias_rule rule);

/*
 * The same table holding only what looking up addrs (Dwfl addresses,
 * sorted, distinct) needs, read by pread from fd (taken: the file
 * sym_file_symtab_fd opened, is_debug when a debug file): for few
 * addresses of a large table. The whole table (sym_elf_symbols, *whole
 * set) when there are many, or the file is not one read plainly; else
 * any other address must be looked up in a whole table.
 */
struct symtab *sym_elf_symbols_at(Dwfl_Module *mod, int fd, int is_debug,
				  int plt_names, enum sym_alias_rule rule,
				  const uint64_t *addrs, size_t naddrs,
				  int *whole);

#endif
