/* SPDX-License-Identifier: MIT */
/*
 * A frame as the symbolizer's parts hand it on before the profile
 * interns it: the function's names (as DWARF or the symbol table give
 * them, the display name is decided later), its file and lines.
 */
#ifndef PROFKIT_SYMBOLIZE_FRAME_H
#define PROFKIT_SYMBOLIZE_FRAME_H

#include <stdint.h>

#define SYM_MAX_FRAMES 128	/* inline depth kept per address */

struct sym_frame {
	const char *name;	/* DW_AT_name or the symbol */
	const char *linkage;	/* mangled name, or NULL */
	char *qualified;	/* "ns::A::f" from DWARF scopes, or NULL */
	const char *file;
	int64_t start_line, line;
};

#endif
