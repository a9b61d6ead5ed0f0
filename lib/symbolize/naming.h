/* SPDX-License-Identifier: MIT */
/*
 * Naming rules per reference tool: which name a frame gets when DWARF
 * and the symbol table disagree. perf names the functions of frame-
 * pointer stacks by their symbols ("foo.isra.0", "memcmp@plt"), and the
 * frames it unwinds (--call-graph dwarf, with inlined functions) as
 * addr2line does; pprof as llvm-symbolizer does (inlined functions by
 * DWARF, the function holding them by its symbol), with no PLT names and
 * no template arguments. Each picks its own among several symbols at one
 * address (enum sym_alias_rule). Owns addr2line's memory of the
 * functions it named once.
 */
#ifndef PROFKIT_SYMBOLIZE_NAMING_H
#define PROFKIT_SYMBOLIZE_NAMING_H

#include <elfutils/libdw.h>
#include <stddef.h>

#include "symbolizer.h"

#include "elf-symbols.h"
#include "frame.h"
#include "util/idtab.h"
#include "symtab.h"

struct sym_naming {
	enum pk_demangle demangle;
	/* perf's unwound stacks: every frame by its DWARF linkage name,
	 * else its bare DWARF name, as addr2line prints them */
	int addr2line;
	/* PLT stubs are "memcmp@plt" (perf); pprof names them after the
	 * symbol before them */
	int plt_names;
	/* whose pick among the symbols at one address names it */
	enum sym_alias_rule aliases;
	int no_inline;		/* one frame per address */
	int names_only;		/* no files or lines wanted */
};

void sym_naming_init(struct sym_naming *nm,
		     const struct pk_symbolize_options *o);

/* addr2line's memory: the C++ functions it named once by a symbol. */
struct sym_a2l {
	struct sym_a2l_name *v;
	size_t n, cap;
	struct pk_idtab tab;
};

void sym_a2l_release(struct sym_a2l *a);

/* Name frame f after the symbol sym (mangled ones are demangled later). */
void sym_frame_from_symbol(struct sym_frame *f, const char *sym);

/*
 * Rename the n frames DWARF gave for the DIEs of chain (innermost
 * first) as the reference tool shows them, sym being the symbol holding
 * the address (or NULL); dwbias: Dwfl address - DWARF address.
 */
void sym_name_frames(const struct sym_naming *nm, struct sym_a2l *a2l,
		     Dwarf_Addr dwbias, Dwarf_Die *chain,
		     struct sym_frame *frames, size_t n, int cplusplus,
		     const struct sym *sym);

/* The one frame of an address DWARF knows nothing of, by its symbol;
 * src:lineno from the line table, if it had one. */
void sym_symbol_frame(const struct sym_naming *nm, struct sym_frame *f,
		      const struct sym *sym, const char *src, int lineno);

#endif
