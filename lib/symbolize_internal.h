/* SPDX-License-Identifier: MIT */
/*
 * What the symbolizer lends the rest of libprofkit, not installed: the
 * perf.data reader unwinds --call-graph dwarf stacks with the CFI of the
 * very files the symbolizer would read, found by the same rules
 * (--binary, --symfs, build ids, the symbol path).
 */
#ifndef PROFKIT_SYMBOLIZE_INTERNAL_H
#define PROFKIT_SYMBOLIZE_INTERNAL_H

#include <stdint.h>

#include <profkit/symbolize.h>

/* A mapped file that can be the main program --binary stands for: not
 * a library, the kernel, JIT code or anonymous memory. */
int pk_symbolizer_is_program(const char *file);

/* Warn about nothing: the symbolizer run after reading will. */
void pk_symbolizer_set_quiet(struct pk_symbolizer *s);

/*
 * The ELF file for mapping m of file (build id may be NULL), and the load
 * bias of the mapping: run-time address - link-time address, found from
 * addr, an address inside m. 0 with *path (owned by s) and *bias; -1
 * when there is no usable file; PK_ENOMEM.
 */
int pk_symbolizer_locate(struct pk_symbolizer *s, const char *file,
			 const char *build_id, int is_binary,
			 const struct pk_mapping *m, uint64_t addr,
			 const char **path, uint64_t *bias);

#endif
