/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's driver: walks a profile and turns its (mapping,
 * address) locations into functions, files and lines, in place (see
 * profkit/symbolize.h). The parts it drives are beside it: the file
 * finder (finder.c), ELF symbol tables and PLT stubs (elf-symbols.c),
 * kallsyms (kallsyms.c), JIT perf maps (perf-map.c), DWARF lines and
 * inline frames (dwarf.c) and the naming rules of each reference tool
 * (naming.c, demangle.c).
 *
 * Each distinct mapped file becomes one "object", indexed once per
 * symbolizer: an ELF file (found and opened once per context by the file
 * finder, which the perf.data reader's unwinder shares, and reported to
 * its own Dwfl at its link-time addresses), a kallsyms table for the
 * kernel and its modules, or a perf-PID.map table for JIT code. A location's
 * address is turned into the object's address space (a file virtual
 * address for ELF, the address itself for the kernel and JIT code) and
 * the answer is memoized per (object, address), so a library mapped by
 * a hundred processes is looked up once per address, not once per
 * mapping.
 *
 * Inline frames come from DWARF scopes: the innermost frame's line is
 * the line table's, each outer frame's is the DW_AT_call_line of the
 * inlined instance it contains. The outermost frame is named by the
 * symbol table when it has a symbol there (as perf does: "foo.isra.0"),
 * and by DWARF otherwise.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer.h"

#include "demangle.h"
#include "dwarf.h"
#include "elf-symbols.h"
#include "finder.h"
#include "frame.h"
#include "util/idtab.h"
#include "core/internal.h"
#include "kallsyms.h"
#include "mapping.h"
#include "naming.h"
#include "perf-map.h"
#include "symtab.h"
#include "unnamed.h"

enum obj_kind {
	OBJ_NONE,		/* nothing to look addresses up in */
	OBJ_ELF,
	OBJ_KERNEL,
	OBJ_JIT,
};

struct object {
	struct pk_symbolizer *s;
	char *file, *build_id;	/* the mapping's, as recorded */
	int is_binary;		/* stands for --binary */
	size_t index;		/* in the symbolizer's objs */
	int jit;		/* a JIT's perf-PID.map */
	int reported;		/* frames it cannot name are summed up */
	int cut_said;		/* PROFKIT_DEBUG=symbols said its DWARF was cut */
	enum obj_kind kind;
	const struct sym_file *elf;	/* the finder's file (OBJ_ELF: found) */
	const struct symtab *tab;	/* OBJ_KERNEL, OBJ_JIT and OBJ_ELF */
	struct symtab *own_tab;	/* tab, unless the kernel's (shared) */
	int tab_loaded;		/* OBJ_ELF: see elf_symtab */
	/* OBJ_ELF: the addresses a pass will look up (Dwfl's), own_tab
	 * read for only them; else tab_whole, and whole_tab may be tab */
	uint64_t *wanted;
	size_t nwanted, wanted_cap;
	int tab_whole;		/* tab holds every symbol */
	struct symtab *whole_tab;
	struct sym_dwarf dwarf;	/* OBJ_ELF */
	struct sym_a2l a2l;	/* OBJ_ELF */
};

struct pk_symbolizer {
	struct pk_context *ctx;
	struct pk_symbolize_options o;	/* its strings are not kept */
	struct sym_naming naming;
	char *kallsyms;
	struct sym_finder *finder;
	struct sym_kernel kernel;
	struct object **objs;
	size_t nobjs, objs_cap;
	int debug;		/* PROFKIT_DEBUG=symbols: each file's search */
	pthread_t demangler;	/* sym_demangle_open_early's */
	int demangler_started;
};

/* ---- objects ---- */

static void object_free(struct object *obj)
{
	if (!obj)
		return;
	symtab_free(obj->own_tab);
	symtab_free(obj->whole_tab);
	free(obj->wanted);
	sym_dwarf_release(&obj->dwarf);
	sym_a2l_release(&obj->a2l);
	free(obj->file);
	free(obj->build_id);
	free(obj);
}

/* The ELF file of a mapping, by the finder's rules; name: its file
 * without " (deleted)". 0, or -1 when out of memory. */
static int open_elf(struct object *obj, const char *name)
{
	struct pk_symbolizer *s = obj->s;
	const char *bid = obj->build_id;
	const struct sym_file *sf = sym_finder_elf(s->finder, obj->file, bid,
						   obj->is_binary);

	if (!sf)
		return -1;
	obj->elf = sf;
	if (sf->mod) {
		obj->kind = OBJ_ELF;
		sym_dwarf_init(&obj->dwarf, sf->mod, s->naming.names_only);
		if (obj->is_binary && *bid && *sf->file_id &&
		    !sym_build_id_matches(bid, sf->file_id))
			pk_warn(s->ctx, "symbolize: using '%s' (build id %s) "
				"for '%s', recorded with build id %s",
				sf->path, sf->file_id, name, bid);
	} else if (s->debug) {
		pk_warn(s->ctx, "symbolize: no symbols for '%s'%s%s%s: tried %s",
			obj->is_binary ? sym_finder_binary(s->finder) : name,
			*bid ? " (build id " : "", bid, *bid ? ")" : "",
			sf->tried);
	}
	return 0;
}

/* A JIT's symbols: perf-PID.map, found as the ELF files are. */
static struct symtab *open_perf_map(struct pk_symbolizer *s, const char *name)
{
	struct sym_tried tried = { .len = 0 };
	struct symtab *tab = sym_perf_map_load(s->ctx, s->finder, name,
					       &tried);

	if (!tab && s->debug)
		pk_warn(s->ctx, "symbolize: no JIT symbols for '%s': tried "
			"%s%s", name, tried.buf, tried.more ? ", ..." : "");
	return tab;
}

/* What the mapping's file is, and its symbols. 0, or -1 (no memory). */
static int object_open(struct object *obj)
{
	struct pk_symbolizer *s = obj->s;
	char *name = sym_strip_deleted(obj->file);
	int rc = 0;

	if (!name)
		return -1;
	switch (obj->is_binary ? SYM_MAP_FILE : sym_map_kind(obj->file)) {
	case SYM_MAP_ANON:
		break;
	case SYM_MAP_KERNEL:
		obj->tab = sym_kernel_symbols(&s->kernel, obj->file,
					      obj->build_id);
		obj->kind = obj->tab ? OBJ_KERNEL : OBJ_NONE;
		break;
	case SYM_MAP_JIT:
		obj->tab = obj->own_tab = open_perf_map(s, name);
		obj->kind = obj->tab ? OBJ_JIT : OBJ_NONE;
		obj->jit = obj->reported = 1;
		break;
	case SYM_MAP_FILE:
		rc = open_elf(obj, name);
		obj->reported = 1;
		break;
	}
	free(name);
	return rc;
}

static struct object *object_get(struct pk_symbolizer *s, const char *file,
				 const char *build_id, int is_binary)
{
	struct object *obj;
	size_t i;

	for (i = 0; i < s->nobjs; i++) {
		obj = s->objs[i];
		if (obj->is_binary == is_binary &&
		    strcmp(obj->file, file) == 0 &&
		    strcmp(obj->build_id, build_id) == 0)
			return obj;
	}
	if (pki_grow(&s->objs, &s->objs_cap, s->nobjs + 1, sizeof(*s->objs)) < 0)
		return NULL;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	obj->s = s;
	obj->index = s->nobjs;
	obj->is_binary = is_binary;
	obj->file = strdup(file);
	obj->build_id = strdup(build_id);
	if (!obj->file || !obj->build_id || object_open(obj)) {
		object_free(obj);
		return NULL;
	}
	s->objs[s->nobjs++] = obj;
	return obj;
}

/* An address of mapping m in the object's terms: a file address for
 * ELF, the address itself for the kernel and JIT code. */
static uint64_t object_address(const struct object *obj,
			       const struct pk_mapping *m, uint64_t addr)
{
	return obj->kind == OBJ_ELF ? sym_file_address(obj->elf, m, addr) :
		addr;
}

/* ---- addresses to frames ---- */

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Note the object addresses of a pass before its symbols are read; 0,
 * or -1 when out of memory. */
static int want_addresses(struct object *obj, const uint64_t *addrs,
			  size_t n)
{
	size_t i;

	if (obj->tab_loaded)
		return 0;
	if (pki_grow(&obj->wanted, &obj->wanted_cap, obj->nwanted + n,
		     sizeof(*obj->wanted)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		obj->wanted[obj->nwanted++] = addrs[i] + obj->elf->bias;
	return 0;
}

/* Whether the table read for the wanted addresses holds addr. */
static int is_wanted(const struct object *obj, uint64_t addr)
{
	size_t k = pki_count_at_or_below(obj->wanted, obj->nwanted,
					 sizeof(*obj->wanted), 0, addr);

	return k && obj->wanted[k - 1] == addr;
}

/*
 * An ELF object's symbols, read when an address first needs them: only
 * those of the wanted addresses (sym_elf_symbols_at), and the whole
 * table only if another address is asked for.
 */
static const struct symtab *elf_symtab(struct object *obj, uint64_t addr)
{
	const struct sym_naming *nm = &obj->s->naming;
	size_t i, n = 0;
	int is_debug = 0, fd;

	if (!obj->tab_loaded) {
		obj->tab_loaded = 1;
		if (obj->nwanted)	/* never qsort(NULL, 0) */
			qsort(obj->wanted, obj->nwanted, sizeof(*obj->wanted),
			      compare_u64);
		for (i = 0; i < obj->nwanted; i++)
			if (!n || obj->wanted[i] != obj->wanted[n - 1])
				obj->wanted[n++] = obj->wanted[i];
		obj->nwanted = n;
		fd = n ? sym_file_symtab_fd(obj->elf, &is_debug) : -1;
		obj->tab = obj->own_tab =
			sym_elf_symbols_at(obj->elf->mod, fd, is_debug,
					   nm->plt_names, nm->aliases,
					   obj->wanted, n, &obj->tab_whole);
	}
	if (!obj->tab_whole && !is_wanted(obj, addr)) {
		/* not read for this address: the whole table from now on
		 * (the first stays, its names may still be pointed at) */
		obj->tab_whole = 1;
		obj->tab = obj->whole_tab =
			sym_elf_symbols(obj->elf->mod, nm->plt_names,
					nm->aliases);
	}
	return obj->tab;
}

/*
 * The frames at a file address, innermost first: DWARF's inlined
 * instances and the function holding them, else the symbol table.
 * Returns how many were filled in.
 */
static size_t elf_frames(struct object *obj, uint64_t vaddr,
			 struct sym_frame *frames)
{
	const struct sym_naming *nm = &obj->s->naming;
	Dwarf_Addr addr = vaddr + obj->elf->bias;
	const struct symtab *tab = elf_symtab(obj, addr);
	const struct sym *sym = tab ? symtab_find(tab, addr) : NULL;
	Dwarf_Die chain[SYM_MAX_FRAMES];
	const char *src = NULL;
	int lineno = 0, nchain, cplusplus;
	Dwfl_Line *dl;
	size_t n;

	/*
	 * Names only, no inlined functions: the symbol table says it all,
	 * and DWARF (for a distribution library, inflating compressed debug
	 * sections) is never read.
	 */
	if (nm->names_only && nm->no_inline && sym && sym->sized &&
	    !sym->dwarf_names) {
		memset(&frames[0], 0, sizeof(frames[0]));
		sym_frame_from_symbol(&frames[0], sym->name);
		return 1;
	}
	sym_dwarf_has(&obj->dwarf);
	/*
	 * The line table gives only the innermost frame's file and line,
	 * which names-only outputs drop; its program is most of what a
	 * lookup costs in a large unit (libc's, a C++ file's templates).
	 */
	dl = nm->names_only ? NULL : dwfl_module_getsrc(obj->elf->mod, addr);
	if (dl)
		src = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
	nchain = sym_dwarf_chain(&obj->dwarf, addr, nm->no_inline, chain);
	n = sym_dwarf_frames(&obj->dwarf, chain, nchain, src, lineno,
			     !nm->addr2line, frames, &cplusplus);
	if (n) {
		sym_name_frames(nm, &obj->a2l, obj->dwarf.dwbias, chain,
				frames, n, cplusplus, sym);
		return n;
	}
	if (!sym)
		return 0;
	sym_symbol_frame(&frames[0], sym, src, lineno);
	return 1;
}

static size_t table_frames(const struct object *obj, uint64_t addr,
			   struct sym_frame *frames)
{
	const struct sym *sym = symtab_find(obj->tab, addr);

	if (!sym)
		return 0;
	if (obj->kind == OBJ_JIT)
		return sym_perf_map_frames(sym->name, frames, SYM_MAX_FRAMES);
	memset(&frames[0], 0, sizeof(frames[0]));
	frames[0].name = sym->name;
	return 1;
}

/* ---- one pass over a profile ---- */

enum {
	FOUND_FUNCTION = 1,
	FOUND_FILE = 2,
	FOUND_LINE = 4,
};

struct memo {
	const struct object *obj;
	uint64_t addr;
	uint32_t first, n;	/* into run.lines */
	unsigned found;
};

struct run {
	struct pk_symbolizer *s;
	struct pk_profile *p;
	struct object **map_obj;	/* by mapping id - 1 */
	unsigned *map_found;
	struct memo *memo;
	size_t nmemo, memo_cap;
	struct pk_idtab memo_tab;
	struct pk_line *lines;
	size_t nlines, lines_cap;
	pk_str *demangled;	/* by system name id; 0: not yet */
	size_t demangled_cap;
};

static int memo_match(const void *owner, uint32_t id, const void *key)
{
	const struct memo *a = &((const struct run *)owner)->memo[id - 1];
	const struct memo *b = key;

	return a->obj == b->obj && a->addr == b->addr;
}

/* The display name of a mangled name, demangled once per profile. */
static pk_str display_name(struct run *r, pk_str sys, const char *mangled)
{
	char *d;

	if (pki_grow_zeroed(&r->demangled, &r->demangled_cap, (size_t)sys + 1,
			    sizeof(*r->demangled)) < 0)
		return sys;
	if (!r->demangled[sys]) {
		d = sym_demangle(r->s->naming.demangle, mangled);
		r->demangled[sys] = d ? pk_profile_intern_cstr(r->p, d) : sys;
		if (!r->demangled[sys])
			r->demangled[sys] = sys;
		free(d);
	}
	return r->demangled[sys];
}

static uint32_t intern_frame(struct run *r, const struct sym_frame *f)
{
	const char *plain = f->qualified ? f->qualified :
			    f->name ? f->name : "??";
	struct pk_function fn = { 0 };

	if (f->linkage) {
		fn.system_name = pk_profile_intern_cstr(r->p, f->linkage);
		fn.name = display_name(r, fn.system_name, f->linkage);
	} else {
		fn.name = fn.system_name = pk_profile_intern_cstr(r->p, plain);
	}
	fn.filename = pk_profile_intern_cstr(r->p, f->file);
	fn.start_line = f->start_line;
	return pk_profile_intern_function(r->p, &fn);
}

/* Look addr up in obj (once per profile) and keep the lines in r->lines. */
static const struct memo *lookup(struct run *r, struct object *obj,
				 uint64_t addr)
{
	struct memo key = { obj, addr, 0, 0, 0 }, *m;
	uint64_t hash = pki_hash_u64(addr ^ pki_hash_u64((uintptr_t)obj));
	struct sym_frame frames[SYM_MAX_FRAMES];
	size_t slot, n, i;
	uint32_t id;
	int failed;

	id = pki_idtab_find(&r->memo_tab, hash, memo_match, r, &key, &slot);
	if (id)
		return &r->memo[id - 1];
	n = obj->kind == OBJ_ELF ? elf_frames(obj, addr, frames) :
	    table_frames(obj, addr, frames);
	failed = pki_grow(&r->lines, &r->lines_cap, r->nlines + n,
			 sizeof(*r->lines)) < 0 ||
		 pki_grow(&r->memo, &r->memo_cap, r->nmemo + 1,
			 sizeof(*r->memo)) < 0 ||
		 pki_idtab_insert(&r->memo_tab, slot, hash,
				 (uint32_t)r->nmemo + 1) < 0;
	key.first = (uint32_t)r->nlines;
	key.n = failed ? 0 : (uint32_t)n;
	for (i = 0; i < n; i++) {
		if (!failed) {
			r->lines[r->nlines].function =
				intern_frame(r, &frames[i]);
			r->lines[r->nlines].line = frames[i].line;
			r->nlines++;
			key.found |= FOUND_FUNCTION;
			if (frames[i].file)
				key.found |= FOUND_FILE;
			if (frames[i].line > 0)
				key.found |= FOUND_LINE;
		}
		free(frames[i].qualified);
	}
	if (failed)
		return NULL;
	m = &r->memo[r->nmemo++];
	*m = key;
	return m;
}

/*
 * --binary stands for the main program: the first mapping of a file
 * that is not a library, the kernel or anonymous memory (gperftools and
 * perf list the program first), or failing that a nameless mapping.
 */
static pk_str main_file(const struct pk_profile *p)
{
	size_t n = pk_profile_mapping_count(p), i;
	int nameless = 0;

	for (i = 1; i <= n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i);
		const char *file = pk_profile_string(p, m->file);

		if (!*file)
			nameless = 1;
		else if (sym_is_program(file))
			return m->file;
	}
	return nameless ? 0 : (pk_str)-1;
}

/* map_found mark of a mapping with locations to symbolize */
#define NEEDED 0x80000000u

/*
 * Say to the finder which addresses of each ELF file DWARF will be read
 * for, before any is: a compressed debug file copied in memory then
 * inflates only the units they need (debug-cache.h). A file the finder
 * reports anew for it gets its DWARF state anew. 0, or -1.
 */
static int ask_addresses(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t nmaps = pk_profile_mapping_count(p), i;
	size_t nlocs = pk_profile_location_count(p);
	size_t *start = calloc(nmaps + 2, sizeof(*start));
	uint64_t *addrs = malloc((nlocs ? nlocs : 1) * sizeof(*addrs));
	int rc = -1;

	if (!start || !addrs)
		goto done;
	for (i = 1; i <= nlocs; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);

		if (!loc->nlines && loc->mapping && loc->mapping <= nmaps &&
		    r->map_obj[loc->mapping - 1] &&
		    r->map_obj[loc->mapping - 1]->kind == OBJ_ELF)
			start[loc->mapping + 1]++;
	}
	for (i = 2; i <= nmaps + 1; i++)
		start[i] += start[i - 1];
	/* start[m]: where mapping m's addresses go, then end */
	for (i = 1; i <= nlocs; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);
		const struct object *obj;

		if (loc->nlines || !loc->mapping || loc->mapping > nmaps ||
		    !(obj = r->map_obj[loc->mapping - 1]) || obj->kind != OBJ_ELF)
			continue;
		addrs[start[loc->mapping]++] =
			object_address(obj, pk_profile_mapping(p, loc->mapping),
				       loc->address);
	}
	for (i = 0; i < nmaps; i++) {
		struct object *obj = r->map_obj[i];

		if (obj && obj->kind == OBJ_ELF &&
		    want_addresses(obj, addrs + start[i], start[i + 1] - start[i]))
			goto done;
		if (obj && obj->kind == OBJ_ELF && start[i + 1] > start[i] &&
		    sym_finder_will_ask(r->s->finder, obj->elf,
					addrs + start[i],
					start[i + 1] - start[i])) {
			sym_dwarf_release(&obj->dwarf);
			sym_dwarf_init(&obj->dwarf, obj->elf->mod,
				       r->s->naming.names_only);
		}
	}
	rc = 0;
done:
	free(start);
	free(addrs);
	return rc;
}

/* The objects of the needed mappings, the kernel's or the others. */
static int open_mappings(struct run *r, pk_str main, int kernel)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_mapping_count(p), i;

	for (i = 0; i < n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i + 1);
		const char *file = pk_profile_string(p, m->file);
		struct object *obj;

		if (r->map_found[i] != NEEDED || (sym_map_kind(file) == SYM_MAP_KERNEL) != kernel)
			continue;
		r->map_found[i] = 0;
		obj = object_get(r->s, file, pk_profile_string(p, m->build_id),
				 m->file == main);
		if (!obj)
			return -1;
		r->map_obj[i] = obj;
	}
	if (!kernel && ask_addresses(r))
		return -1;
	/* an address will read it: now, while kallsyms is read, and after
	 * every file is found, so that the plain copies of their debug files
	 * are made side by side (sym_finder_elf) */
	for (i = 0; i < n; i++) {
		struct object *obj = r->map_obj[i];

		if (obj && obj->kind == OBJ_ELF &&
		    !(r->s->naming.names_only && r->s->naming.no_inline) &&
		    sym_dwarf_has(&obj->dwarf) && r->s->debug &&
		    sym_file_dwarf_cut(obj->elf) && !obj->cut_said++)
			pk_warn(r->s->ctx, "symbolize: '%s': of its debug file's "
				".debug_info, only the units its addresses "
				"need inflated", obj->file);
	}
	return 0;
}

/* Tell the kernel's symbols which addresses they are for: kallsyms is
 * then scanned for those, not indexed whole. */
static int want_kernel_addresses(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t nmaps = pk_profile_mapping_count(p), n = 0, i, nwant = 0;
	unsigned char *kernel = calloc(nmaps ? nmaps : 1, 1);
	uint64_t *want = NULL;
	int rc = -1;

	for (i = 0; kernel && i < nmaps; i++)
		if (r->map_found[i] == NEEDED &&
		    sym_map_kind(pk_profile_string(p, pk_profile_mapping(p,
				(uint32_t)i + 1)->file)) == SYM_MAP_KERNEL)
			kernel[i] = 1, n = pk_profile_location_count(p);
	if (kernel && (want = malloc((n ? n : 1) * sizeof(*want)))) {
		for (i = 1; i <= n; i++) {
			const struct pk_location *loc =
				pk_profile_location(p, (uint32_t)i);

			if (!loc->nlines && loc->mapping &&
			    loc->mapping <= nmaps && kernel[loc->mapping - 1])
				want[nwant++] = loc->address;
		}
		rc = sym_kernel_want(&r->s->kernel, want, nwant);
	}
	free(kernel);
	free(want);
	return rc;
}

/* Whether file is libstdc++: a C++ program's, whose names are mangled. */
static int is_libstdcxx(const char *file)
{
	const char *base = strrchr(file, '/');

	return pki_starts_with(base ? base + 1 : file, "libstdc++.so");
}

static int prepare_mappings(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_mapping_count(p), i;
	pk_str main = sym_finder_binary(r->s->finder) ? main_file(p) : (pk_str)-1;

	r->map_obj = calloc(n ? n : 1, sizeof(*r->map_obj));
	r->map_found = calloc(n ? n : 1, sizeof(*r->map_found));
	if (!r->map_obj || !r->map_found)
		return -1;
	/* only files some location needs: text inputs come symbolized */
	for (i = 1; i <= pk_profile_location_count(p); i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);

		if (!loc->nlines && loc->mapping && loc->mapping <= n)
			r->map_found[loc->mapping - 1] = NEEDED;
	}
	if (want_kernel_addresses(r))
		return -1;
	/* the kernel's symbols and the C++ demangler on threads, the files'
	 * DWARF meanwhile */
	for (i = 0; i < n; i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i + 1);
		const char *file = pk_profile_string(p, m->file);

		if (r->map_found[i] != NEEDED)
			continue;
		if (sym_map_kind(file) == SYM_MAP_KERNEL)
			sym_kernel_prefetch(&r->s->kernel,
					    pk_profile_string(p, m->build_id));
		if (!r->s->demangler_started && is_libstdcxx(file) &&
		    r->s->naming.demangle != PK_DEMANGLE_NONE)
			r->s->demangler_started =
				!sym_demangle_open_early(&r->s->demangler);
	}
	return open_mappings(r, main, 0) || open_mappings(r, main, 1) ? -1 : 0;
}

/* Set what was found; bits a reader set stay set. */
static void mark_mappings(struct run *r)
{
	size_t n = pk_profile_mapping_count(r->p), i;

	for (i = 0; i < n; i++) {
		struct pk_mapping *m = pk_profile_mapping_mut(r->p, (uint32_t)i + 1);
		unsigned found = r->map_found[i];

		if (!r->map_obj[i])
			continue;	/* not looked at */
		if (found & FOUND_FUNCTION)
			m->has_functions = 1;
		if (found & FOUND_FILE)
			m->has_filenames = 1;
		if (found & FOUND_LINE)
			m->has_line_numbers = 1;
		/* with DWARF, inlined calls were expanded wherever they were */
		if ((found & FOUND_FUNCTION) && r->map_obj[i]->dwarf.has > 0 &&
		    !r->s->naming.no_inline)
			m->has_inline_frames = 1;
	}
}

static int symbolize_locations(struct run *r)
{
	struct pk_profile *p = r->p;
	size_t n = pk_profile_location_count(p), i;
	size_t nmappings = pk_profile_mapping_count(p);

	for (i = 1; i <= n; i++) {
		const struct pk_location *loc = pk_profile_location(p, (uint32_t)i);
		uint32_t mapping = loc->mapping;
		struct object *obj;
		const struct memo *memo;
		uint64_t addr;
		int rc;

		if (loc->nlines || !mapping || mapping > nmappings)
			continue;
		obj = r->map_obj[mapping - 1];
		if (obj->kind == OBJ_NONE)
			continue;
		addr = object_address(obj, pk_profile_mapping(p, mapping),
				      loc->address);
		memo = lookup(r, obj, addr);
		if (!memo)
			return PK_ENOMEM;
		r->map_found[mapping - 1] |= memo->found;
		if (!memo->n)
			continue;
		rc = pk_profile_set_location_lines(p, (uint32_t)i,
						   &r->lines[memo->first],
						   memo->n);
		if (rc)
			return rc;
	}
	return pk_profile_failed(p) ? PK_ENOMEM : 0;
}

/* ---- what stayed without names ---- */

/* Whether a location keeps no name, in a file the summary speaks of. */
static const struct object *unnamed_in(const struct run *r, uint32_t loc)
{
	const struct pk_location *l = pk_profile_location(r->p, loc);
	const struct object *obj;

	if (l->nlines || !l->mapping ||
	    l->mapping > pk_profile_mapping_count(r->p))
		return NULL;
	obj = r->map_obj[l->mapping - 1];
	return obj && obj->reported ? obj : NULL;
}

/* *sum += add, held at INT64_MAX: the weights only rank and share out
 * the summary's objects, and hostile counts may add up past 2^63. */
static void add_saturating(int64_t *sum, int64_t add)
{
	if (__builtin_add_overflow(*sum, add, sum))
		*sum = INT64_MAX;
}

/*
 * Each stack's weight in samples, into weights (by stack id - 1): the
 * values of the columns that count samples (each event's), or 1 for
 * each sample where none does. Returns the total.
 */
static int64_t stack_weights(const struct pk_profile *p, int64_t *weights)
{
	size_t ntypes = pk_profile_sample_type_count(p), counts = 0, i, j;
	int64_t total = 0;

	for (j = 0; j < ntypes; j++)
		counts += pk_profile_sample_type(p, j)->kind == PK_VALUE_COUNT;
	for (i = 0; i < pk_profile_sample_count(p); i++) {
		const int64_t *v = pk_profile_sample_values(p, i);
		uint32_t stack = pk_profile_sample(p, i)->stack;
		int64_t w = counts ? 0 : 1;

		for (j = 0; counts && j < ntypes; j++)
			if (pk_profile_sample_type(p, j)->kind == PK_VALUE_COUNT &&
			    v[j] > 0)
				add_saturating(&w, v[j]);
		if (stack && stack <= pk_profile_stack_count(p)) {
			add_saturating(&weights[stack - 1], w);
			add_saturating(&total, w);
		}
	}
	return total;
}

/* Sum the samples with frames of each object that no name was found
 * for; returns the weight of those with any. */
static int64_t unnamed_weights(const struct run *r, const int64_t *stack_w,
			       int64_t *obj_w)
{
	size_t nstacks = pk_profile_stack_count(r->p), depth, i, k;
	uint32_t *seen = calloc(r->s->nobjs ? r->s->nobjs : 1, sizeof(*seen));
	int64_t unnamed = 0;

	if (!seen)
		return -1;
	for (i = 1; i <= nstacks; i++) {
		const uint32_t *locs = pk_profile_stack(r->p, (uint32_t)i, &depth);
		int any = 0;

		for (k = 0; stack_w[i - 1] && k < depth; k++) {
			const struct object *obj = unnamed_in(r, locs[k]);

			if (!obj || seen[obj->index] == i)
				continue;
			seen[obj->index] = (uint32_t)i;
			add_saturating(&obj_w[obj->index], stack_w[i - 1]);
			any = 1;
		}
		if (any)
			add_saturating(&unnamed, stack_w[i - 1]);
	}
	free(seen);
	return unnamed;
}

/* Whether some object's frames were left without names: with none (as
 * for folded text, which has no mappings) there is nothing to weigh. */
static int any_reported(const struct pk_symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nobjs; i++)
		if (s->objs[i]->reported)
			return 1;
	return 0;
}

/*
 * Say once what stayed without names: the files, heaviest first, by the
 * samples their unnamed frames are in (where the profile has no samples,
 * by how many such frames). Out of memory, the warning is left out.
 */
static void warn_unnamed(struct run *r)
{
	struct pk_symbolizer *s = r->s;
	size_t nlocs = pk_profile_location_count(r->p), nfiles = 0, i;
	size_t nstacks = pk_profile_stack_count(r->p);
	int64_t *stack_w = calloc(nstacks ? nstacks : 1, sizeof(*stack_w));
	int64_t *obj_w = calloc(s->nobjs ? s->nobjs : 1, sizeof(*obj_w));
	struct sym_unnamed *files = calloc(s->nobjs ? s->nobjs : 1,
					   sizeof(*files));
	int64_t total, unnamed = 0;

	if (!stack_w || !obj_w || !files)
		goto out;
	total = stack_weights(r->p, stack_w);
	if (total > 0)
		unnamed = unnamed_weights(r, stack_w, obj_w);
	if (unnamed < 0)
		goto out;
	for (i = 1; i <= nlocs; i++) {
		const struct object *obj = unnamed_in(r, (uint32_t)i);

		if (obj)
			files[obj->index].file = obj->file;
		if (obj && total <= 0)
			obj_w[obj->index]++;
	}
	for (i = 0; i < s->nobjs; i++) {
		const struct object *obj = s->objs[i];

		if (!files[i].file)
			continue;
		files[nfiles] = (struct sym_unnamed) {
			.file = obj->is_binary ? sym_finder_binary(s->finder) :
				obj->file,
			.build_id = obj->build_id,
			.found = obj->kind == OBJ_NONE ? NULL :
				 obj->elf ? obj->elf->path : obj->file,
			.other_build = obj->elf ? obj->elf->other_build : NULL,
			.jit = obj->jit,
			.weight = obj_w[i],
		};
		nfiles++;
	}
	sym_warn_unnamed(s->ctx, files, nfiles, unnamed, total,
			 sym_finder_uses_debuginfod(s->finder));
out:
	free(stack_w);
	free(obj_w);
	free(files);
}

int pki_symbolize(struct pk_symbolizer *s, struct pk_profile *p)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.p = p;
	rc = prepare_mappings(&r) ? PK_ENOMEM : symbolize_locations(&r);
	if (!rc) {
		mark_mappings(&r);
		if (any_reported(s))
			warn_unnamed(&r);
	}
	sym_kernel_join(&s->kernel);	/* a wrong guess: its table waits, unused */
	free(r.map_obj);
	free(r.map_found);
	free(r.memo);
	pki_idtab_release(&r.memo_tab);
	free(r.lines);
	free(r.demangled);
	if (rc)
		return pk_error_set(s->ctx, rc, "symbolize: out of memory "
				    "(or over the memory limit)");
	return 0;
}

/* ---- the symbolizer ---- */

void pki_symbolize_options_init(struct pk_symbolize_options *o)
{
	memset(o, 0, sizeof(*o));
	o->demangle = PK_DEMANGLE_SHORT;
}

struct pk_symbolizer *pki_symbolizer_new(struct pk_context *ctx,
					const struct pk_symbolize_options *o)
{
	struct pk_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		goto nomem;
	s->ctx = ctx;
	if (o)
		s->o = *o;
	else
		pki_symbolize_options_init(&s->o);
	sym_naming_init(&s->naming, &s->o);
	if (s->o.kallsyms && *s->o.kallsyms &&
	    !(s->kallsyms = strdup(s->o.kallsyms)))
		goto nomem;
	s->finder = sym_finder_get(ctx, s->o.binary, s->o.symfs,
				   s->o.symbol_path);
	if (!s->finder)
		goto nomem;
	if (!(s->o.names_only && s->o.no_inline))
		sym_finder_want_dwarf(s->finder);
	else
		sym_finder_symbols_first(s->finder);
	sym_finder_names_only(s->finder, s->o.names_only);
	s->o.binary = s->o.symfs = s->o.kallsyms = s->o.symbol_path = NULL;
	s->debug = getenv("PROFKIT_DEBUG") &&
		   strcmp(getenv("PROFKIT_DEBUG"), "symbols") == 0;
	sym_kernel_init(&s->kernel, ctx, s->kallsyms,
			sym_finder_home_debug(s->finder), s->o.local_kernel);
	return s;
nomem:
	pki_symbolizer_free(s);
	pk_error_set(ctx, PK_ENOMEM, "symbolize: out of memory");
	return NULL;
}

int pki_symbolize_expect(struct pk_context *ctx,
			 const struct pk_symbolize_options *o)
{
	struct sym_finder *f = sym_finder_get(ctx, o->binary, o->symfs,
					      o->symbol_path);

	if (!f)
		return pk_error_set(ctx, PK_ENOMEM, "symbolize: out of memory");
	sym_finder_names_only(f, o->names_only);
	return 0;
}

void pki_symbolizer_free(struct pk_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	if (s->demangler_started)
		pthread_join(s->demangler, NULL);
	sym_kernel_release(&s->kernel);
	for (i = 0; i < s->nobjs; i++)
		object_free(s->objs[i]);
	free(s->objs);
	free(s->kallsyms);
	free(s);
}
