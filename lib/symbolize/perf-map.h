/* SPDX-License-Identifier: MIT */
/*
 * JIT code's symbols: the /tmp/perf-PID.map files that JITs (V8 with
 * --perf-basic-prof, the JVM's agents, LuaJIT ...) write for perf.
 */
#ifndef PROFKIT_SYMBOLIZE_PERF_MAP_H
#define PROFKIT_SYMBOLIZE_PERF_MAP_H

#include "finder.h"
#include "frame.h"
#include "symtab.h"

struct pk_context;

/* The table of the perf map file, found by name as ELF files are; NULL
 * when there is none, the places looked at noted in tried. */
struct symtab *sym_perf_map_load(struct pk_context *ctx,
				 const struct sym_finder *f, const char *file,
				 struct sym_tried *tried);

/*
 * The frames of JIT code named name, innermost first: perf-map-agent's
 * unfoldall names it "outer->inner->...", the methods inlined there, as
 * stackcollapse-perf.pl reads it. At most max; the parts are malloc'd
 * as the frames' qualified names.
 */
size_t sym_perf_map_frames(const char *name, struct sym_frame *frames,
			   size_t max);

#endif
