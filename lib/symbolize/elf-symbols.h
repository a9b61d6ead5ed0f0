/* SPDX-License-Identifier: MIT */
/*
 * An ELF file's function symbols as a sorted table: .symtab (of the debug
 * file when there is one) or .dynsym, one name per address as perf picks
 * it among aliases, addr2line's pick kept beside it, and the PLT's stubs
 * named "memcmp@plt" as perf names them.
 */
#ifndef PROFKIT_SYMBOLIZE_ELF_SYMBOLS_H
#define PROFKIT_SYMBOLIZE_ELF_SYMBOLS_H

#include <elfutils/libdwfl.h>

#include "symtab.h"

/* The table at the module's Dwfl addresses; NULL when out of memory.
 * plt_names: name PLT stubs (pprof names them after the symbol before). */
struct symtab *sym_elf_symbols(Dwfl_Module *mod, int plt_names);

#endif
