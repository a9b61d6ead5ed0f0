/* SPDX-License-Identifier: MIT */
/*
 * Separate debug files as distributions ship them (Debian's *-dbg and
 * dbgsym packages) have zlib-compressed DWARF sections, and libdw
 * inflates every one of them, with zlib, each time it opens the file:
 * for libc, 4 MB to 10 MB, most of what converting a small profile
 * costs. The first conversion that needs such a file writes a copy with
 * those sections inflated into the cache directory, under the file's
 * build id; later ones read the copy as it is. With no cache, when its
 * DWARF is to be read, the copy is made in memory (the sections nothing
 * reads left out) and dropped when the file is closed. Either is made on two threads, with
 * libdeflate where it was built with it, and may be begun on a thread
 * of its own (sym_debug_plain_start) before it is asked for.
 */
#ifndef PROFKIT_SYMBOLIZE_DEBUG_CACHE_H
#define PROFKIT_SYMBOLIZE_DEBUG_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The plain copy in cache_dir of the debug file open as fd (made now if
 * need be), else (cache_dir NULL, or not writable) with in_memory one
 * made in memory, open: a new fd; or -1 when the file has nothing
 * compressed or no copy is made. fd stays open. */
int sym_debug_plain(const char *cache_dir, int in_memory, int fd);

/*
 * The same on a thread of its own, started now, so that it is made while
 * the caller goes on (the perf.data reader unwinding): fd is taken (NULL
 * when out of memory or threads, fd closed). sym_debug_plain_finish
 * waits for it, returns the copy's fd (or -1) and frees the job. With
 * names_only (no files or lines will be read) a copy made in memory
 * leaves out the line programs.
 */
struct sym_debug_job;
struct sym_debug_job *sym_debug_plain_start(const char *cache_dir,
					     int in_memory, int names_only,
					     int fd);
/*
 * The DWARF addresses (the file's link-time ones) that will be looked
 * up in the copy, before it is finished; may be called more than once.
 * A copy made in memory then holds of .debug_info only the units they
 * need, when the rest can be left out without changing any answer
 * (debug-units.h): libc's units of two frames are 0.2% of it.
 */
void sym_debug_plain_ask(struct sym_debug_job *job, const uint64_t *addrs,
			 size_t n);
/*
 * *cut: what the copy lacks, so that a later pass asking for more needs
 * another, whole one (0: nothing).
 */
#define SYM_DEBUG_CUT_UNITS 1	/* .debug_info beyond the units asked for:
				 * no other address may be looked up */
#define SYM_DEBUG_CUT_LINES 2	/* .debug_line: names alone were wanted */
int sym_debug_plain_finish(struct sym_debug_job *job, int *cut);

#endif
