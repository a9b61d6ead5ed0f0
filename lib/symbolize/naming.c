/* SPDX-License-Identifier: MIT */
/* Naming rules per reference tool (naming.h). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "naming.h"

struct sym_a2l_name {
	Dwarf *dwarf;
	Dwarf_Off offset;	/* of the function or inlined instance */
	const char *name;	/* the symbol that replaced its name, or NULL */
};

void sym_naming_init(struct sym_naming *nm,
		     const struct pk_symbolize_options *o)
{
	nm->demangle = o->demangle;
	nm->addr2line = o->demangle == PK_DEMANGLE_SHORT && !o->no_inline;
	nm->plt_names = o->demangle != PK_DEMANGLE_SIMPLE;
	nm->aliases = nm->addr2line ? SYM_ALIAS_ADDR2LINE :
		o->demangle == PK_DEMANGLE_SIMPLE ? SYM_ALIAS_LLVM :
		SYM_ALIAS_PERF;
	nm->no_inline = o->no_inline;
	nm->names_only = o->names_only;
}

void sym_frame_from_symbol(struct sym_frame *f, const char *sym)
{
	/* mangled, or versioned ("memcpy@@GLIBC_2.14"): the display name
	 * is decided when interned; "_Znam@plt" stays as perf shows it */
	if (!pki_ends_with(sym, "@plt") &&
	    (pki_starts_with(sym, "_Z") || pki_starts_with(sym, "_R") ||
	     (sym[0] && strchr(sym + 1, '@')))) {
		f->linkage = sym;
		f->name = NULL;
	} else {
		f->linkage = NULL;
		f->name = sym;
	}
	free(f->qualified);
	f->qualified = NULL;
}

/* ---- addr2line ---- */

static int a2l_match(const void *owner, uint32_t id, const void *key)
{
	const struct sym_a2l_name *a = &((const struct sym_a2l *)owner)->v[id - 1];
	const struct sym_a2l_name *b = key;

	return a->dwarf == b->dwarf && a->offset == b->offset;
}

/* What addr2line knows of die; with add, made if new (*added set). */
static struct sym_a2l_name *a2l_state(struct sym_a2l *a, Dwarf_Die *die,
				      int add, int *added)
{
	struct sym_a2l_name key = { dwarf_cu_getdwarf(die->cu),
				    dwarf_dieoffset(die), NULL };
	uint64_t hash = pki_hash_u64(key.offset ^ pki_hash_u64((uintptr_t)key.dwarf));
	size_t slot;
	uint32_t id = pki_idtab_find(&a->tab, hash, a2l_match, a, &key, &slot);

	*added = 0;
	if (id || !add)
		return id ? &a->v[id - 1] : NULL;
	if (pki_grow(&a->v, &a->cap, a->n + 1, sizeof(*a->v)) < 0 ||
	    pki_idtab_insert(&a->tab, slot, hash, (uint32_t)a->n + 1) < 0)
		return NULL;
	a->v[a->n] = key;
	*added = 1;
	return &a->v[a->n++];
}

/*
 * perf shows the frames it unwinds as addr2line (binutils) names them,
 * and addr2line names a C++ function with no DWARF linkage name (a
 * lambda's, one of a local class) oddly: the first time it is the
 * innermost frame, by the symbol holding the address, and from then
 * on, if the symbol starts where the function does, always by that
 * symbol. perf asks once per address, in the order samples come, which
 * is the order of the profile's locations: so the same names come out.
 */
static void addr2line_names(struct sym_a2l *a, Dwarf_Addr dwbias,
			    Dwarf_Die *chain, struct sym_frame *frames,
			    size_t n, const struct sym *sym)
{
	struct sym_a2l_name *st;
	Dwarf_Addr low;
	size_t i;
	int added;

	for (i = 0; i < n; i++) {
		if (frames[i].linkage)
			continue;
		st = a2l_state(a, &chain[i], i == 0, &added);
		if (st && added && sym) {
			if (dwarf_lowpc(&chain[i], &low) == 0 &&
			    low + dwbias == sym->start)
				st->name = sym->name;
			sym_frame_from_symbol(&frames[i], sym->name);
		} else if (st && st->name) {
			sym_frame_from_symbol(&frames[i], st->name);
		}
	}
}

void sym_a2l_release(struct sym_a2l *a)
{
	free(a->v);
	pki_idtab_release(&a->tab);
}

/* ---- the rules ---- */

void sym_name_frames(const struct sym_naming *nm, struct sym_a2l *a2l,
		     Dwarf_Addr dwbias, Dwarf_Die *chain,
		     struct sym_frame *frames, size_t n, int cplusplus,
		     const struct sym *sym)
{
	if (!n)
		return;
	if (nm->addr2line) {
		if (cplusplus)
			addr2line_names(a2l, dwbias, chain, frames, n, sym);
		return;
	}
	/* name the function itself by its symbol ("f.isra.0"), as perf
	 * does and llvm-symbolizer, which pprof asks */
	if (dwarf_tag(&chain[n - 1]) != DW_TAG_inlined_subroutine &&
	    sym && sym->sized && !sym->dwarf_names)
		sym_frame_from_symbol(&frames[n - 1], sym->name);
}

void sym_symbol_frame(const struct sym_naming *nm, struct sym_frame *f,
		      const struct sym *sym, const char *src, int lineno)
{
	memset(f, 0, sizeof(*f));
	sym_frame_from_symbol(f, sym->name);
	/* where perf asks addr2line, "_Znam@plt" is demangled too */
	if (nm->addr2line && !f->linkage && pki_ends_with(f->name, "@plt") &&
	    pki_starts_with(f->name, "_Z")) {
		f->linkage = f->name;
		f->name = NULL;
	}
	f->file = src;
	f->line = src ? lineno : 0;
}
