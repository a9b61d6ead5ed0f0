/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for lib/symbolize/debug-units.c, which reads the
 * .debug_aranges, unit headers and abbreviations of debug files found on
 * the machine (make fuzz builds it beside the readers). The input is cut
 * in four by its first bytes: aranges, addresses, .debug_info and
 * .debug_abbrev; every function runs on them, as the copy in memory
 * would call them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debug-units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut[3], at = 3, i, naddrs;
	unsigned char *aranges, *info;
	uint64_t *addrs;
	struct sym_units u;
	int64_t end;

	if (size < 3)
		return 0;
	for (i = 0; i < 3; i++)
		cut[i] = data[i] * (size / 256 + 1);
	/* aranges, then the addresses (8 bytes each), info, abbrev */
	{
		size_t a = cut[0] < size - at ? cut[0] : size - at;
		size_t b = cut[1] < size - at - a ? cut[1] : size - at - a;
		size_t c = cut[2] < size - at - a - b ? cut[2] : size - at - a - b;
		const uint8_t *abbrev = data + at + a + b + c;
		size_t abbrev_size = size - at - a - b - c;

		aranges = malloc(a ? a : 1);
		info = malloc(c ? c : 1);
		naddrs = b / 8;
		addrs = malloc((naddrs ? naddrs : 1) * sizeof(*addrs));
		if (!aranges || !info || !addrs)
			goto done;
		memcpy(aranges, data + at, a);
		memcpy(info, data + at + a + b, c);
		for (i = 0; i < naddrs; i++)
			memcpy(&addrs[i], data + at + a + 8 * i, 8);
		if (sym_units_asked(&u, aranges, a, addrs, naddrs) == 0) {
			uint64_t last = u.units[u.nunits - 1], unit;

			for (i = 0; i < naddrs; i++)
				(void)sym_units_unit_of(&u, addrs[i], &unit);

			end = sym_unit_end(info, c, last);
			if (end > 0) {
				(void)sym_units_cut_answers(&u, (uint64_t)end,
							    addrs, naddrs);
				if ((uint64_t)end <= c)
					(void)sym_units_self_contained(
						&u, info, (size_t)end, abbrev,
						abbrev_size);
				(void)sym_aranges_cut(aranges, a, (uint64_t)end);
			}
			sym_units_release(&u);
		}
	}
done:
	free(aranges);
	free(info);
	free(addrs);
	return 0;
}
