/* SPDX-License-Identifier: MIT */
/*
 * DWARF lines and inline frames of one ELF file: the functions at an
 * address (innermost inlined instance first, then the concrete
 * function), their files and lines, and "ns::A::f" for C++ functions
 * DWARF gives no linkage name for. Owns the per-file index of functions
 * by address, each sampled function's tree of inlined instances, and
 * what each DIE of a chain says of its frame (names, declaration, call
 * site, scope names), read once.
 */
#ifndef PROFKIT_SYMBOLIZE_DWARF_H
#define PROFKIT_SYMBOLIZE_DWARF_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

#include "frame.h"
#include "util/idtab.h"

#define SYM_MAX_UNITS 64	/* units indexed one by one, then all */

struct sym_fn_range;
struct sym_scope_prefix;
struct sym_scope_node;
struct sym_kid_range;
struct sym_tree_root;
struct sym_die_info;
struct sym_units;

struct sym_dwarf {
	Dwfl_Module *mod;
	int names_only;		/* no files or lines: no line table read */
	int has;		/* -1: not looked at yet (sym_dwarf_has) */
	struct sym_fn_range *fns;	/* concrete functions by address */
	size_t nfns, fns_cap;
	int fns_built;		/* every unit's, or given up */
	/* .debug_aranges as debug-units.c reads it, to find an address's
	 * unit without libdw's reading every unit's header; NULL: ask
	 * libdwfl */
	struct sym_units *aranges;
	int aranges_read;
	Dwarf_Off units[SYM_MAX_UNITS];	/* the units indexed so far */
	size_t nunits;
	Dwarf_Addr dwbias;	/* Dwfl address - DWARF address */
	/* the inlined instances and blocks inside each concrete function
	 * an address fell in, as trees of nodes (sym_dwarf_chain) */
	struct sym_tree_root *roots;
	size_t nroots, roots_cap;
	struct pk_idtab root_tab;
	struct sym_scope_node *nodes;
	size_t nnodes, nodes_cap;
	struct sym_kid_range *kids;
	size_t nkids, kids_cap;
	/* each function DIE's names and call site (sym_dwarf_frames) */
	struct sym_die_info *infos;
	size_t ninfos, infos_cap;
	struct pk_idtab info_tab;
	/* "ns::A::" of C++ functions by declaration DIE (qualify) */
	struct sym_scope_prefix *prefixes;
	size_t nprefixes, prefixes_cap;
	struct pk_idtab prefix_tab;
};

/* names_only: the frames get no files (nothing reads .debug_line). */
void sym_dwarf_init(struct sym_dwarf *d, Dwfl_Module *mod, int names_only);
void sym_dwarf_release(struct sym_dwarf *d);
/* Whether the file has DWARF, reading it the first time it is asked. */
int sym_dwarf_has(struct sym_dwarf *d);

/*
 * The functions at addr (a Dwfl address), innermost inlined instance
 * first, then the function holding them; with no_inline only that one.
 * Returns how many DIEs went to chain (SYM_MAX_FRAMES at most).
 */
int sym_dwarf_chain(struct sym_dwarf *d, Dwarf_Addr addr, int no_inline,
		    Dwarf_Die *chain);

/*
 * The frames of a chain: each function's names and declaration, the
 * innermost's line (src:lineno, the line table's), each outer one's the
 * line of the call it contains. qualify: name C++ functions without a
 * linkage name "ns::A::f". *cplusplus: the unit is C++.
 */
size_t sym_dwarf_frames(struct sym_dwarf *d, Dwarf_Die *chain, int n,
			const char *src, int lineno, int qualify,
			struct sym_frame *frames, int *cplusplus);

#endif
