/* SPDX-License-Identifier: MIT */
/*
 * Sorted address tables, [start, end) -> name: what kallsyms, a JIT's
 * perf-PID.map and an ELF symbol table each become, so that every
 * address costs one binary search. Owns the table and, for tables read
 * from a text file, the text the names point into.
 */
#ifndef PROFKIT_SYMBOLIZE_SYMTAB_H
#define PROFKIT_SYMBOLIZE_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* Entries symtab_find looks at below the last one starting at or below
 * an address: overlaps are rare and short. */
#define SYMTAB_OVERLAP_MAX 16

struct sym {
	uint64_t start, end;
	const char *name;	/* into the table's text (or libelf's) */
	uint64_t rank;		/* tie-break among equal starts */
	int sized;		/* end is the symbol's own, not a guess */
	/* the reference tool names the function by DWARF where DWARF
	 * knows it, and by this name only elsewhere */
	int dwarf_names;
};

struct symtab {
	char *path;
	char *text;		/* the file, names NUL-terminated in place */
	struct sym *v;
	size_t n, cap;
	int hidden;		/* kallsyms with every address 0 */
};

/* Add an entry (end 0: not known yet); 0 or -1 when out of memory. */
int symtab_push(struct symtab *t, uint64_t start, uint64_t end,
		const char *name, uint64_t rank);
/* Sort by start, then rank. */
void symtab_sort(struct symtab *t);
/* The entry holding addr, or NULL. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);
/* Read the text file path (at most max bytes) and parse it into a new
 * table; NULL when it cannot be read or parsed. */
struct symtab *symtab_load(const char *path, uint64_t max,
			   int (*parse)(struct symtab *));
void symtab_free(struct symtab *t);

/* Read a whole regular file (also /proc files, whose size is unknown),
 * NUL-terminated: 0, or -1 and nothing to free. */
int sym_slurp(const char *path, size_t max, char **data, size_t *size);
/* A hex number at *pp ("0x" optional), at most 16 digits; moves *pp. */
int sym_parse_hex(char **pp, uint64_t *v);

#endif
