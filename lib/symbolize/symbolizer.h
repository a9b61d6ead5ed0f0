/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer, internal to the library (pk_load runs it): fills in the lines of locations that have a mapping and
 * an address but no lines, from the ELF files the mappings name (symbol
 * tables and DWARF through elfutils' libdwfl), from kallsyms for the
 * kernel, and from /tmp/perf-PID.map files for JIT code.
 *
 * It works on a finished profile, in place: stacks keep their location
 * ids, and each location gets its function, file and line, inlined
 * frames innermost first. Each mapping's has_* bits say what was found.
 *
 * One symbolizer caches the files it opened and indexed, so several
 * profiles (profkit-merge) pay for each library once. Files that cannot
 * be found cost one warning each, never one per address. While it reads
 * the files' DWARF, a thread of its own reads the kernel's symbols
 * (kallsyms); the thread has ended when pki_symbolize returns.
 */
#ifndef PROFKIT_SYMBOLIZER_H
#define PROFKIT_SYMBOLIZER_H

#include <profkit/error.h>
#include <profkit/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_demangle {
	PK_DEMANGLE_SHORT,	/* "ns::f<int>", as perf prints: no parameters */
	PK_DEMANGLE_FULL,	/* "int ns::f<int>(char const*)", as c++filt */
	PK_DEMANGLE_NONE,	/* the name as in the symbol table */
	PK_DEMANGLE_SIMPLE,	/* "ns::f", as pprof prints: no template arguments */
};

struct pk_symbolize_options {
	/* The main program: replaces the file of the first mapping that is
	 * not a shared library (and every mapping of the same file). */
	const char *binary;
	/* DIR[:DIR...] searched by build id (DIR/.build-id/xx/rest[.debug])
	 * and by base name; $PROFKIT_SYMBOL_PATH is searched after it. */
	const char *symbol_path;
	/* Root prepended to the mappings' paths (perf --symfs): the files
	 * of another machine. When set, the paths themselves are not used. */
	const char *symfs;
	/* A copy of the recording kernel's /proc/kallsyms. */
	const char *kallsyms;
	/* The recording was made on this machine's running kernel, so
	 * /proc/kallsyms may be used when kallsyms is NULL. A build id on
	 * the kernel mapping decides instead when there is one. */
	unsigned local_kernel : 1;
	/* One frame per address, the function holding it, without the
	 * functions inlined there: perf script's frame-pointer callchains. */
	unsigned no_inline : 1;
	/* Only function names are wanted (folded stacks, flame graphs):
	 * frames get no files or lines (no line program is read), and with
	 * no_inline an address the symbol table names reads no DWARF. */
	unsigned names_only : 1;
	enum pk_demangle demangle;
};

void pki_symbolize_options_init(struct pk_symbolize_options *o);

/*
 * Before an input is read: the naming its symbolizer will do (o's
 * files and names_only), for the debug files its reader finds while it
 * unwinds, whose copies are begun then. 0, or a negative pk_err with
 * the error in ctx.
 */
int pki_symbolize_expect(struct pk_context *ctx,
			 const struct pk_symbolize_options *o);

struct pk_symbolizer;

/* NULL on failure, with the error in ctx. o may be NULL for defaults. */
struct pk_symbolizer *pki_symbolizer_new(struct pk_context *ctx,
					const struct pk_symbolize_options *o);
/*
 * Symbolize every location of p that has a mapping, an address and no
 * lines. Missing files are warnings; returns 0, or a negative pk_err
 * (out of memory).
 */
int pki_symbolize(struct pk_symbolizer *s, struct pk_profile *p);
void pki_symbolizer_free(struct pk_symbolizer *s);

#ifdef __cplusplus
}
#endif
#endif
