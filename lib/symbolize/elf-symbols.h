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

#endif
