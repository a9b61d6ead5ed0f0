/* SPDX-License-Identifier: MIT */
/*
 * The file finder: which file on this machine is a mapping's binary, and
 * which its debug file. It owns the rules (--binary, build ids in perf's
 * cache and the symbol path, --symfs, base names in the symbol path, the
 * recorded path, .gnu_debuglink, /usr/lib/debug, and last the debuginfod
 * servers of $DEBUGINFOD_URLS) and the files opened by
 * them: each ELF file is opened once per context, reported to a Dwfl of
 * its own at its link-time addresses, and kept for whoever asks next,
 * the perf.data reader's unwinder or the symbolizer.
 */
#ifndef PROFKIT_SYMBOLIZE_FINDER_H
#define PROFKIT_SYMBOLIZE_FINDER_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include <profkit/profile.h>

struct pk_context;
struct sym_finder;

struct sym_load_segment {
	uint64_t offset, vaddr, filesz;
};

/* The answer for one (file, build id, --binary) of a mapping. */
struct sym_file {
	char *file, *build_id;	/* the mapping's, as recorded */
	int is_binary;		/* stands for --binary */
	char *path;		/* what was opened; NULL: nothing found */
	char *tried;		/* what was looked at, for a warning */
	char *other_build;	/* a file by its name of another build, or NULL */
	char file_id[81];	/* the opened file's build id, or "" */

	Dwfl *dwfl;		/* the file alone, at link-time addresses */
	Dwfl_Module *mod;
	GElf_Addr bias;		/* Dwfl address - file address */
	int e_type;
	int debug_only;		/* a separate debug file: offsets unusable */
	uint64_t link_base;	/* the first segment's page-aligned vaddr */
	struct sym_load_segment *segs;
	size_t nsegs;
};

/*
 * The finder of a context that follows these rules (the strings are
 * copied; symbol_path and $PROFKIT_SYMBOL_PATH are DIR[:DIR...]), made
 * if it has none yet: the perf.data reader's unwinder and the symbolizer
 * after it share one, and so each file. It lives as long as the context
 * (pk_context_free frees it); NULL when out of memory. Where
 * $DEBUGINFOD_URLS is set (and libprofkit was built with libdebuginfod),
 * what is not on this machine is fetched by build id.
 */
/* The build id note of an ELF file (NULL: none) as hex, or "" (out: 81
 * bytes). */
void sym_elf_build_id(Elf *elf, char *out);

struct sym_finder *sym_finder_get(struct pk_context *ctx, const char *binary,
				  const char *symfs, const char *symbol_path);

/*
 * The ELF file of a mapping of file (with " (deleted)" cut off) recorded
 * with build_id ("" if none); is_binary: the mapping is the main program
 * and --binary stands for it. Looked for once; NULL when out of memory.
 * For a file without DWARF of its own whose debug file is there by build
 * id, the plain copy of that (debug-cache.h) is begun on a thread now,
 * where there is a cache or DWARF is wanted: it is made while the caller
 * goes on, until libdwfl asks for the debug file.
 */
const struct sym_file *sym_finder_elf(struct sym_finder *f, const char *file,
				      const char *build_id, int is_binary);

/*
 * The file in another Dwfl (an unwinder's, one per process) at run-time
 * bias (run-time address - file address), sharing its open Elf: a Dwfl
 * whose find_elf is sym_file_find_elf gets a module, with userdata, or
 * NULL when the file has no code here (a separate debug file).
 */
Dwfl_Module *sym_file_report(const struct sym_file *sf, Dwfl *dwfl,
			     const char *name, GElf_Addr bias, void *userdata);
int sym_file_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr base, char **file_name, Elf **elfp);

/* The places a recorded file may be by its name, best first: under
 * --symfs, by base name in the symbol path, the path itself (not with
 * --symfs). try(arg, path) is called with each until it returns 0;
 * returns 0 then, else -1. */
int sym_finder_by_name(const struct sym_finder *f, const char *file,
		       int (*try)(void *arg, const char *path), void *arg);

/* $HOME/.debug, perf's build-id cache, or NULL. */
const char *sym_finder_home_debug(const struct sym_finder *f);
/* Whether $DEBUGINFOD_URLS names servers to ask. */
int sym_finder_uses_debuginfod(const struct sym_finder *f);
/* --binary, or NULL. */
const char *sym_finder_binary(const struct sym_finder *f);
/*
 * DWARF will be read, not only symbol tables: a compressed debug file
 * with no cache to copy it into is inflated into a copy in memory
 * (debug-cache.h), faster than libdw inflates it, rather than read as
 * it is (its symbol table needs no inflating).
 */
void sym_finder_want_dwarf(struct sym_finder *f);
/* Addresses are named by symbol tables, DWARF read only where they
 * cannot: the plain copy of a debug file is then made when libdwfl asks
 * for it, not begun as soon as its file is found. */
void sym_finder_symbols_first(struct sym_finder *f);
/* Whether the addresses of the files found from now on will be named
 * without files or lines: their copies in memory then leave out the
 * line programs (libc's 1.3 MB). */
void sym_finder_names_only(struct sym_finder *f, int names_only);

/*
 * The link-time addresses of sf whose DWARF a pass will look up, said
 * before it reads any (may be said in several calls): a copy made in
 * memory of its compressed debug file then inflates only the units they
 * need. A file whose copy was cut so for an earlier pass (or left
 * without its line programs) is reported anew, with a whole copy:
 * returns 1 then (sf->mod changed), else 0.
 */
int sym_finder_will_ask(struct sym_finder *f, const struct sym_file *sf,
			const uint64_t *addrs, size_t n);
/* Whether the DWARF read for sf is such a copy cut after the units. */
int sym_file_dwarf_cut(const struct sym_file *sf);
/* The file the module's symbol table is read from, open (*is_debug: a
 * debug file), or -1 when only libdwfl's search can tell. */
int sym_file_symtab_fd(const struct sym_file *sf, int *is_debug);

/*
 * A run-time address of mapping m in the file's own terms, a link-time
 * address (for the file's Dwfl add f->bias).
 */
uint64_t sym_file_address(const struct sym_file *f, const struct pk_mapping *m,
			  uint64_t addr);

/* The places looked at for a file, as a warning lists them. */
#define SYM_TRIED_MAX 480	/* characters of "tried ..." in a warning */
struct sym_tried {
	char buf[SYM_TRIED_MAX + 8];
	size_t len;
	int more;		/* some were left out */
};

/* Add "path" or "path (why)". */
void sym_tried_add(struct sym_tried *t, const char *path, const char *why);

/* n bytes of a build id as hex (out: 2 n + 1 bytes). */
void sym_build_id_hex(const unsigned char *bits, size_t n, char *out);
/* Whether a file's build id (hex) is the recorded one. */
int sym_build_id_matches(const char *recorded, const char *file);
/* "/.build-id/xx/rest", lower case: the id split as build-id trees do;
 * "" for an id too short or too long for that. */
void sym_build_id_subpath(const char *bid, char *out, size_t size);

#endif
