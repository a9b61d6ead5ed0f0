/* SPDX-License-Identifier: MIT */
/*
 * Which units of a debug file's .debug_info the lookups of some
 * addresses read, so that a copy made in memory (debug-cache.h) can stop
 * inflating that one zlib stream after the last of them: libc's 5.8 MB
 * .debug_info for the two units a perf.data recording's libc frames
 * fall in.
 *
 * libdw finds an address's unit through .debug_aranges, and reads every
 * unit header before the one it wants. A copy whose .debug_info ends
 * after unit U (all units before U whole), and whose .debug_aranges keeps
 * only the sets of the units it holds, answers those lookups as the
 * whole file does, provided that
 *  - libdwfl picks the same unit for each address from both aranges
 *    (it takes the set with the greatest start at or below the address,
 *    so an address between two units' code goes to the lower one);
 *  - the units it picks point nowhere outside themselves (no
 *    DW_FORM_ref_addr, imported or type units, supplementary files).
 * Anything else, or anything unusual in the bytes, answers "read it all".
 * Pure functions over bytes: every offset and size is checked.
 */
#ifndef PROFKIT_SYMBOLIZE_DEBUG_UNITS_H
#define PROFKIT_SYMBOLIZE_DEBUG_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* More units than this asked for: the symbolizer indexes every unit of
 * the file (dwarf.h's SYM_MAX_UNITS), so all of them are read. */
#define SYM_UNITS_MAX 64

/* An address range of .debug_aranges and the unit it is in. */
struct sym_arange {
	uint64_t addr, len, unit;
};

struct sym_units {
	struct sym_arange *ranges;	/* by address (then unit) */
	size_t nranges;
	size_t last_run;	/* where the last unit's last run begins */
	uint64_t units[SYM_UNITS_MAX];	/* those asked for, ascending */
	size_t nunits;
};

/*
 * Read .debug_aranges (ELF64 little-endian, DWARF 32-bit sets) and find
 * the units libdwfl would look in for each of the n DWARF addresses
 * (the first unit when none is). 0, or -1: read .debug_info whole.
 */
int sym_units_asked(struct sym_units *u, const unsigned char *aranges,
		    size_t size, const uint64_t *addrs, size_t n);

/*
 * The unit libdwfl looks in for the DWARF address addr, from u as
 * sym_units_asked read it: 1 and *unit, 0 for none, -1 when libdw's
 * sort leaves the choice open (ask libdwfl).
 */
int sym_units_unit_of(const struct sym_units *u, uint64_t addr,
		      uint64_t *unit);
/*
 * The end of the unit at off in .debug_info (of which have bytes are at
 * info): 0 until 4 bytes are there, else the end, or -1 when the header
 * is not one of a DWARF 2-5 compile unit of 32-bit offsets.
 */
int64_t sym_unit_end(const unsigned char *info, size_t have, uint64_t off);

/*
 * Whether a copy of .debug_info cut at end (a unit's end, after every
 * unit asked for) answers the addresses as the whole: libdwfl picks the
 * same units from the aranges the copy keeps (those before end). 1 or 0.
 */
int sym_units_cut_answers(const struct sym_units *u, uint64_t end,
			  const uint64_t *addrs, size_t n);

/*
 * Whether the units asked for, in info (end bytes) with their
 * abbreviations in abbrev, point nowhere outside themselves. 1 or 0.
 */
int sym_units_self_contained(const struct sym_units *u,
			     const unsigned char *info, size_t end,
			     const unsigned char *abbrev, size_t abbrev_size);

/*
 * .debug_aranges (size bytes at aranges, as sym_units_asked read it)
 * rewritten in place to keep only the sets of units before end: the new
 * size.
 */
size_t sym_aranges_cut(unsigned char *aranges, size_t size, uint64_t end);

void sym_units_release(struct sym_units *u);

#endif
