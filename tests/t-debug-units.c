/* SPDX-License-Identifier: MIT */
/*
 * Which units of .debug_info a cut copy keeps (lib/symbolize/debug-units.c):
 * the unit libdwfl picks for an address from .debug_aranges (the lower
 * unit for an address between two, none past the last), and when a copy
 * cut after some units would answer otherwise, or refer outside itself;
 * hostile bytes answer "read it all", never read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debug-units.h"

#include "tap.h"

static void put(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Append an aranges set for unit of nr (addr, len) pairs at p: its size. */
static size_t aranges_set(unsigned char *p, uint64_t unit, const uint64_t *r,
			  size_t nr)
{
	size_t size = 16 + 16 * nr + 16, i;

	memset(p, 0, size);
	put(p, size - 4, 4);
	put(p + 4, 2, 2);
	put(p + 6, unit, 4);
	p[10] = 8;
	for (i = 0; i < nr; i++) {
		put(p + 16 + 16 * i, r[2 * i], 8);
		put(p + 24 + 16 * i, r[2 * i + 1], 8);
	}
	return size;
}

/* A DWARF 5 compile unit header at p, abbreviations at abbrev, of size
 * bytes in all (the DIE bytes after it zero). */
static void unit_at(unsigned char *p, uint64_t size, uint64_t abbrev)
{
	memset(p, 0, size);
	put(p, size - 4, 4);
	put(p + 4, 5, 2);
	p[6] = 1;	/* DW_UT_compile */
	p[7] = 8;
	put(p + 8, abbrev, 4);
}

int main(void)
{
	unsigned char ar[512], info[300], abbrev[32];
	/* units at 0, 100 and 200 (100 bytes each): code at 0x1000, 0x2000
	 * and 0x3000, the first also at 0x4000 */
	static const uint64_t r0[] = { 0x1000, 0x100, 0x4000, 0x10 };
	static const uint64_t r1[] = { 0x2000, 0x100 };
	static const uint64_t r2[] = { 0x3000, 0x100 };
	struct sym_units u;
	size_t n = 0, cut;
	uint64_t addrs[SYM_UNITS_MAX + 2];
	int i;

	n += aranges_set(ar + n, 0, r0, 2);
	n += aranges_set(ar + n, 100, r1, 1);
	n += aranges_set(ar + n, 200, r2, 1);

	addrs[0] = 0x1010;
	ok(sym_units_asked(&u, ar, n, addrs, 1) == 0 && u.nunits == 1 &&
	   u.units[0] == 0, "an address in the first unit's code: that unit");
	ok(sym_units_cut_answers(&u, 100, addrs, 1),
	   "a copy cut after it answers the same");
	sym_units_release(&u);

	addrs[0] = 0x2010;
	addrs[1] = 0x1010;
	ok(sym_units_asked(&u, ar, n, addrs, 2) == 0 && u.nunits == 2 &&
	   u.units[0] == 0 && u.units[1] == 100, "two units, in offset order");
	sym_units_release(&u);

	/* between the first unit's code and the second's: libdwfl takes
	 * the lower; cut after the first, that is the last range left, and
	 * the address lies past it */
	{
		unsigned char two[128];
		size_t m = aranges_set(two, 0, r1, 1);

		m += aranges_set(two + m, 100, r2, 1);
		addrs[0] = 0x2800;
		ok(sym_units_asked(&u, two, m, addrs, 1) == 0 && u.nunits == 1 &&
		   u.units[0] == 0, "an address between two units': the lower one");
		ok(!sym_units_cut_answers(&u, 100, addrs, 1),
		   "cut after it, the copy would answer none: not cut there");
		ok(sym_units_cut_answers(&u, 200, addrs, 1),
		   "cut after the next unit: the same answer");
		sym_units_release(&u);
	}

	addrs[0] = 0x5000;	/* past every range */
	addrs[1] = 0x10;	/* below every range */
	ok(sym_units_asked(&u, ar, n, addrs, 2) == 0 && u.nunits == 1 &&
	   u.units[0] == 0, "no unit answers: the first is kept all the same");
	ok(sym_units_cut_answers(&u, 100, addrs, 2),
	   "and cut after it, none answers either");
	sym_units_release(&u);

	addrs[0] = 0x4008;
	ok(sym_units_asked(&u, ar, n, addrs, 1) == 0 && u.units[0] == 0,
	   "a unit's second range");
	sym_units_release(&u);

	/* one address at a time, as the symbolizer finds a unit's DIE */
	{
		uint64_t unit = 1;

		ok(sym_units_asked(&u, ar, n, NULL, 0) == 0 &&
		   sym_units_unit_of(&u, 0x2010, &unit) == 1 && unit == 100,
		   "one address: its unit");
		ok(sym_units_unit_of(&u, 0x2800, &unit) == 1 && unit == 100,
		   "one between two units' code: the lower");
		ok(sym_units_unit_of(&u, 0x10, &unit) == 0 &&
		   sym_units_unit_of(&u, 0x5000, &unit) == 0,
		   "one below the first range or past the last: none");
		sym_units_release(&u);
	}

	/* two units' ranges starting at one address: libdw's order is open */
	n += aranges_set(ar + n, 100, (const uint64_t[]){ 0x3000, 0x8 }, 1);
	addrs[0] = 0x3004;
	ok(sym_units_asked(&u, ar, n, addrs, 1) < 0,
	   "two units' ranges at one start: all read");
	n -= 48;

	for (i = 0; i < SYM_UNITS_MAX + 1; i++)
		addrs[i] = 0x1000 + (uint64_t)i;
	ok(sym_units_asked(&u, ar, n, addrs, SYM_UNITS_MAX + 1) == 0 &&
	   u.nunits == 1, "many addresses of one unit: that unit");
	sym_units_release(&u);

	/* malformed sets */
	ar[n - 1] = 1;	/* the last set's (0, 0) is not one */
	ok(sym_units_asked(&u, ar, n, addrs, 1) < 0, "no end of a set: all read");
	ar[n - 1] = 0;
	ok(sym_units_asked(&u, ar, n - 3, addrs, 1) < 0, "a set cut short: all read");
	put(ar + 4, 3, 2);
	ok(sym_units_asked(&u, ar, n, addrs, 1) < 0, "aranges version 3: all read");
	put(ar + 4, 2, 2);

	/* unit headers */
	unit_at(info, 100, 0);
	unit_at(info + 100, 100, 0);
	unit_at(info + 200, 100, 0);
	is_int(sym_unit_end(info, 300, 100), 200, "a unit's end");
	is_int(sym_unit_end(info, 105, 100), 0, "not enough of it yet: 0");
	info[204] = 6;
	is_int(sym_unit_end(info, 300, 200), -1, "DWARF 6: not read");
	info[204] = 5;
	info[206] = 2;	/* DW_UT_type */
	is_int(sym_unit_end(info, 300, 200), -1, "a type unit: not read");
	info[206] = 1;

	/* abbreviations: code 1, DW_TAG_compile_unit, no children,
	 * DW_AT_name DW_FORM_string, then the same with DW_FORM_ref_addr */
	memcpy(abbrev, "\x01\x11\x00\x03\x08\x00\x00\x00"
		       "\x01\x11\x00\x03\x10\x00\x00\x00", 16);
	addrs[0] = 0x2010;
	sym_units_asked(&u, ar, n, addrs, 1);
	ok(sym_units_self_contained(&u, info, 200, abbrev, 16),
	   "a unit of plain attributes stands alone");
	put(info + 108, 8, 4);
	ok(!sym_units_self_contained(&u, info, 200, abbrev, 16),
	   "one with DW_FORM_ref_addr does not");
	ok(!sym_units_self_contained(&u, info, 200, abbrev, 12),
	   "abbreviations cut short: not read");
	sym_units_release(&u);

	cut = sym_aranges_cut(ar, n, 200);
	ok(cut == 64 + 48 && sym_units_asked(&u, ar, cut, addrs, 1) == 0 &&
	   u.nranges == 3, "aranges cut at 200 keep the first two units' sets");
	sym_units_release(&u);
	return done_testing();
}
