/* SPDX-License-Identifier: MIT */
/* The units of .debug_info some addresses need (debug-units.h). */
#include <stdlib.h>
#include <string.h>

#include "debug-units.h"

/* What DWARF says here (dwarf.h's names), kept to what is read. */
enum {
	TAG_PARTIAL_UNIT = 0x3c,
	TAG_IMPORTED_UNIT = 0x3d,
	TAG_TYPE_UNIT = 0x41,
	TAG_SKELETON_UNIT = 0x4a,
	AT_DWO_NAME = 0x76,
	AT_GNU_DWO_NAME = 0x2130,
	FORM_REF_ADDR = 0x10,
	FORM_INDIRECT = 0x16,
	FORM_REF_SUP4 = 0x1c,
	FORM_STRP_SUP = 0x1d,
	FORM_REF_SIG8 = 0x20,
	FORM_IMPLICIT_CONST = 0x21,
	FORM_REF_SUP8 = 0x24,
	FORM_GNU_REF_ALT = 0x1f20,
	FORM_GNU_STRP_ALT = 0x1f21,
	UT_COMPILE = 1,
};

#define ARANGES_HEADER 16	/* a set's header, padded to two addresses */

static uint64_t read_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* A ULEB128 (SLEB128: the same bytes) at *at below end: 0, or -1. */
static int read_leb(const unsigned char *p, size_t end, size_t *at,
		    uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*at < end) {
		unsigned char b = p[(*at)++];

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/*
 * The set of .debug_aranges at *at: its unit, and where its ranges and
 * the next set begin. 0, or -1 for anything but a DWARF 2 set of 64-bit
 * addresses whose (0, 0) ends it exactly (libdw versions differ on
 * what follows one ending sooner).
 */
static int aranges_set(const unsigned char *p, size_t size, size_t at,
		       uint64_t *unit, size_t *ranges, size_t *next)
{
	uint64_t len;
	size_t end, i;

	if (size - at < ARANGES_HEADER)
		return -1;
	len = read_le(p + at, 4);
	if (len >= 0xfffffff0u || len > size - at - 4)
		return -1;
	end = at + 4 + (size_t)len;
	if (end - at < ARANGES_HEADER + 16 ||
	    read_le(p + at + 4, 2) != 2 || p[at + 10] != 8 || p[at + 11] != 0)
		return -1;
	*unit = read_le(p + at + 6, 4);
	*ranges = at + ARANGES_HEADER;
	for (i = *ranges; end - i >= 16; i += 16)
		if (read_le(p + i, 8) == 0 && read_le(p + i + 8, 8) == 0) {
			if (i + 16 != end)
				return -1;
			*next = end;
			return 0;
		}
	return -1;
}

static int arange_cmp(const void *a, const void *b)
{
	const struct sym_arange *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* Where the last run of one unit's ranges begins in r (libdwfl merges
 * runs, and checks only the last against its end). */
static size_t last_run(const struct sym_arange *r, size_t n)
{
	size_t i = n;

	while (i > 1 && r[i - 2].unit == r[n - 1].unit)
		i--;
	return i ? i - 1 : 0;
}

/*
 * The unit libdwfl looks in for addr, given the ranges by address and
 * where their last run begins: the one of the greatest start at or
 * below it, unless that is in the last run and addr lies past the last
 * range. Returns 1 and *unit, 0 for none, -1 when ranges of different
 * units start there (libdw's sort leaves their order open).
 */
static int unit_of(const struct sym_arange *r, size_t n, size_t last,
		   uint64_t addr, uint64_t *unit)
{
	size_t lo = 0, hi = n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	i = lo - 1;
	if (i > 0 && r[i - 1].addr == r[i].addr && r[i - 1].unit != r[i].unit)
		return -1;
	if (i >= last && addr > r[last].addr &&
	    addr > r[n - 1].addr + r[n - 1].len)
		return 0;
	*unit = r[i].unit;
	return 1;
}

static int add_unit(struct sym_units *u, uint64_t unit)
{
	size_t i;

	for (i = 0; i < u->nunits; i++)
		if (u->units[i] == unit)
			return 0;
	if (u->nunits == SYM_UNITS_MAX)
		return -1;
	for (i = u->nunits++; i > 0 && u->units[i - 1] > unit; i--)
		u->units[i] = u->units[i - 1];
	u->units[i] = unit;
	return 0;
}

int sym_units_asked(struct sym_units *u, const unsigned char *aranges,
		    size_t size, const uint64_t *addrs, size_t n)
{
	size_t at = 0, cap = 0, i, k, ranges, next, last;
	uint64_t unit;
	int rc;

	memset(u, 0, sizeof(*u));
	while (at < size) {
		if (aranges_set(aranges, size, at, &unit, &ranges, &next))
			goto fail;
		for (k = ranges; k + 16 < next; k += 16) {
			if (u->nranges == cap) {
				struct sym_arange *grown;

				cap = cap ? 2 * cap : 256;
				grown = realloc(u->ranges, cap * sizeof(*grown));
				if (!grown)
					goto fail;
				u->ranges = grown;
			}
			u->ranges[u->nranges].addr = read_le(aranges + k, 8);
			u->ranges[u->nranges].len = read_le(aranges + k + 8, 8);
			u->ranges[u->nranges++].unit = unit;
		}
		at = next;
	}
	if (u->nranges)
		qsort(u->ranges, u->nranges, sizeof(*u->ranges), arange_cmp);
	last = u->last_run = last_run(u->ranges, u->nranges);
	for (i = 0; i < n; i++) {
		rc = unit_of(u->ranges, u->nranges, last, addrs[i], &unit);
		if (rc < 0 || (rc > 0 && add_unit(u, unit)))
			goto fail;
	}
	/* a .debug_info of no unit would be no DWARF at all */
	if (u->nunits == 0 && add_unit(u, 0))
		goto fail;
	return 0;
fail:
	sym_units_release(u);
	return -1;
}

int sym_units_unit_of(const struct sym_units *u, uint64_t addr,
		      uint64_t *unit)
{
	return unit_of(u->ranges, u->nranges, u->last_run, addr, unit);
}

int64_t sym_unit_end(const unsigned char *info, size_t have, uint64_t off)
{
	uint64_t len, version;

	if (off > have || have - off < 12)
		return 0;
	len = read_le(info + off, 4);
	version = read_le(info + off + 4, 2);
	if (len >= 0xfffffff0u || len < 8 || version < 2 || version > 5)
		return -1;
	if (version == 5 ? info[off + 6] != UT_COMPILE || info[off + 7] != 8 :
	    info[off + 10] != 8)
		return -1;
	return (int64_t)(off + 4 + len);
}

int sym_units_cut_answers(const struct sym_units *u, uint64_t end,
			  const uint64_t *addrs, size_t n)
{
	struct sym_arange *kept = malloc((u->nranges + 1) * sizeof(*kept));
	size_t nkept = 0, i, whole_last, cut_last;
	int same = kept != NULL;

	for (i = 0; same && i < u->nranges; i++)
		if (u->ranges[i].unit < end)
			kept[nkept++] = u->ranges[i];
	whole_last = u->last_run;
	cut_last = last_run(kept, nkept);
	for (i = 0; same && i < n; i++) {
		uint64_t whole_unit = 0, cut_unit = 0;
		int whole = unit_of(u->ranges, u->nranges, whole_last, addrs[i],
				    &whole_unit);
		int cut = unit_of(kept, nkept, cut_last, addrs[i], &cut_unit);

		same = whole >= 0 && whole == cut && whole_unit == cut_unit;
	}
	free(kept);
	return same;
}

/* Whether the abbreviations at off name only what stays in the unit. */
static int abbrevs_self_contained(const unsigned char *abbrev, size_t size,
				  uint64_t off)
{
	size_t at = (size_t)off;
	uint64_t code, tag, name, form, skip;

	if (off >= size)
		return 0;
	for (;;) {
		if (read_leb(abbrev, size, &at, &code))
			return 0;
		if (code == 0)
			return 1;
		if (read_leb(abbrev, size, &at, &tag) || at >= size)
			return 0;
		if (tag == TAG_PARTIAL_UNIT || tag == TAG_IMPORTED_UNIT ||
		    tag == TAG_TYPE_UNIT || tag == TAG_SKELETON_UNIT)
			return 0;
		at++;	/* DW_CHILDREN_* */
		for (;;) {
			if (read_leb(abbrev, size, &at, &name) ||
			    read_leb(abbrev, size, &at, &form))
				return 0;
			if (name == 0 && form == 0)
				break;
			switch (form) {
			case FORM_REF_ADDR: case FORM_INDIRECT:
			case FORM_REF_SUP4: case FORM_STRP_SUP:
			case FORM_REF_SIG8: case FORM_REF_SUP8:
			case FORM_GNU_REF_ALT: case FORM_GNU_STRP_ALT:
				return 0;
			case FORM_IMPLICIT_CONST:
				if (read_leb(abbrev, size, &at, &skip))
					return 0;
				break;
			default:
				break;
			}
			if (name == AT_DWO_NAME || name == AT_GNU_DWO_NAME)
				return 0;
		}
	}
}

int sym_units_self_contained(const struct sym_units *u,
			     const unsigned char *info, size_t end,
			     const unsigned char *abbrev, size_t abbrev_size)
{
	size_t i;

	for (i = 0; i < u->nunits; i++) {
		uint64_t off = u->units[i];
		int64_t unit_end = sym_unit_end(info, end, off);

		if (unit_end <= 0 || (uint64_t)unit_end > end ||
		    !abbrevs_self_contained(abbrev, abbrev_size,
					    read_le(info + off +
						    (info[off + 4] == 5 ? 8 : 6),
						    4)))
			return 0;
	}
	return 1;
}

size_t sym_aranges_cut(unsigned char *aranges, size_t size, uint64_t end)
{
	size_t at = 0, kept = 0, ranges, next;
	uint64_t unit;

	while (at < size &&
	       !aranges_set(aranges, size, at, &unit, &ranges, &next)) {
		if (unit < end) {
			memmove(aranges + kept, aranges + at, next - at);
			kept += next - at;
		}
		at = next;
	}
	return kept;
}

void sym_units_release(struct sym_units *u)
{
	free(u->ranges);
	u->ranges = NULL;
	u->nranges = u->nunits = 0;
}
