/* SPDX-License-Identifier: MIT */
/* DWARF lines and inline frames of one ELF file (dwarf.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "debug-units.h"
#include "dwarf.h"
#include "core/internal.h"

struct sym_scope_prefix {
	Dwarf *dwarf;		/* the main file's or a dwz alt file's */
	Dwarf_Off offset;	/* of the declaration */
	char *text;		/* NULL: the scopes have no names */
};

static const char *die_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

static int is_cplusplus(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
		return 1;
	default:
		return 0;
	}
}

/* The name a scope adds to a qualified name, or NULL if it cannot. */
static const char *scope_name(Dwarf_Die *scope)
{
	const char *name = dwarf_diename(scope);

	switch (dwarf_tag(scope)) {
	case DW_TAG_namespace:
		return name ? name : "(anonymous namespace)";
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return name;
	default:
		return NULL;
	}
}

/*
 * "ns::A::f" for a C++ function DWARF gives no linkage name for: the
 * names of the namespaces and classes around its declaration. Inside a
 * function or an unnamed class (a lambda) the bare name is kept, as
 * perf and addr2line print it.
 */
#define SYM_MAX_SCOPE_DEPTH 64	/* deeper: dwarf_getscopes_die finds it */

/* Whether dwarf_getscopes_die looks inside a DIE of this tag. */
static int holds_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return 1;
	default:
		return 0;
	}
}

/*
 * The scopes around decl as dwarf_getscopes_die gives them (scopes[0]
 * is decl, scopes[n - 1] its unit; SYM_MAX_SCOPE_DEPTH + 1 at most),
 * without its visit of every DIE of the unit before decl, which in a C++
 * unit full of headers was most of what a small profile's symbolization
 * cost: at each level the siblings are skipped up to the one whose DIEs
 * hold decl's offset. -1 for anything unusual (imported units, siblings
 * out of order, a DIE libdw would not look inside): libdw walks then.
 */
static int scopes_around(Dwarf_Die *decl, Dwarf_Die *scopes)
{
	Dwarf_Off target = dwarf_dieoffset(decl), off = 0;
	Dwarf_Die path[SYM_MAX_SCOPE_DEPTH], child, next;
	int n, i, rc;

	if (!dwarf_diecu(decl, &path[0], NULL, NULL))
		return -1;
	for (n = 1; n < SYM_MAX_SCOPE_DEPTH; n++) {
		if (dwarf_child(&path[n - 1], &child) != 0)
			return -1;
		for (;;) {
			if (dwarf_tag(&child) == DW_TAG_imported_unit)
				return -1;
			off = dwarf_dieoffset(&child);
			if (off >= target)
				break;
			rc = dwarf_siblingof(&child, &next);
			if (rc < 0 || (rc == 0 && dwarf_dieoffset(&next) <= off))
				return -1;
			if (rc > 0 || dwarf_dieoffset(&next) > target)
				break;	/* decl is child or inside it */
			child = next;
		}
		if (off == target) {
			scopes[0] = *decl;
			for (i = 0; i < n; i++)
				scopes[i + 1] = path[n - 1 - i];
			return n + 1;
		}
		if (off > target || !holds_scopes(dwarf_tag(&child)) ||
		    !dwarf_haschildren(&child))
			return -1;
		path[n] = child;
	}
	return -1;
}

/* "ns::A::" of scopes[n - 2] .. scopes[1] (scopes as
 * dwarf_getscopes_die gives them), or NULL (malloc'd). */
static char *join_scope_names(Dwarf_Die *scopes, int n)
{
	size_t len = 1;
	char *out;
	int i;

	for (i = n - 2; i > 0; i--) {
		if (!scope_name(&scopes[i]))
			return NULL;
		len += strlen(scope_name(&scopes[i])) + 2;
	}
	if (n < 3 || !(out = malloc(len)))
		return NULL;
	out[0] = '\0';
	for (i = n - 2; i > 0; i--) {
		strcat(out, scope_name(&scopes[i]));
		strcat(out, "::");
	}
	return out;
}

/*
 * The scopes around die as dwarf_getscopes_die gives them, their number
 * (or -1) returned: *scopes is around when scopes_around found them, else
 * libdw's array, to free.
 */
static int scopes_of(Dwarf_Die *die, Dwarf_Die *around, Dwarf_Die **scopes)
{
	int n = scopes_around(die, around);

	*scopes = around;
	if (n < 0) {
		*scopes = NULL;
		n = dwarf_getscopes_die(die, scopes);
	}
	return n;
}

/* "ns::A::" of the scopes around decl, or NULL (malloc'd). */
static char *scope_prefix_of(Dwarf_Die *decl)
{
	Dwarf_Die around[SYM_MAX_SCOPE_DEPTH + 1], *scopes;
	int n = scopes_of(decl, around, &scopes);
	char *out = join_scope_names(scopes, n);

	if (scopes != around)
		free(scopes);
	return out;
}

static int prefix_match(const void *owner, uint32_t id, const void *key)
{
	const struct sym_scope_prefix *a = &((const struct sym_dwarf *)owner)->prefixes[id - 1];
	const struct sym_scope_prefix *b = key;

	return a->dwarf == b->dwarf && a->offset == b->offset;
}

/*
 * The scope prefix of decl, once per declaration: dwarf_getscopes_die
 * walks the unit from its start, and the same functions come back for
 * many addresses. NULL when it has none.
 */
static const char *cached_scope_prefix(struct sym_dwarf *d, Dwarf_Die *decl)
{
	struct sym_scope_prefix key = { dwarf_cu_getdwarf(decl->cu),
				    dwarf_dieoffset(decl), NULL };
	uint64_t hash = pki_hash_u64(key.offset ^ pki_hash_u64((uintptr_t)key.dwarf));
	size_t slot;
	uint32_t id = pki_idtab_find(&d->prefix_tab, hash, prefix_match, d,
				    &key, &slot);

	if (id)
		return d->prefixes[id - 1].text;
	key.text = scope_prefix_of(decl);
	if (pki_grow(&d->prefixes, &d->prefixes_cap, d->nprefixes + 1,
		    sizeof(*d->prefixes)) < 0 ||
	    pki_idtab_insert(&d->prefix_tab, slot, hash,
			    (uint32_t)d->nprefixes + 1) < 0) {
		free(key.text);	/* out of memory: unqualified names */
		return NULL;
	}
	d->prefixes[d->nprefixes++] = key;
	return key.text;
}

/* "ns::A::f" for a C++ function DIE without a linkage name, or NULL. */
static char *qualify_name(struct sym_dwarf *d, Dwarf_Die *die,
			  const char *name)
{
	Dwarf_Die decl = *die, tmp;
	Dwarf_Attribute attr;
	const char *prefix;
	char *out;
	int hops;

	for (hops = 0; hops < 8; hops++) {
		Dwarf_Die *next = dwarf_formref_die(
			dwarf_attr(&decl, DW_AT_abstract_origin, &attr), &tmp);

		if (!next)
			next = dwarf_formref_die(
				dwarf_attr(&decl, DW_AT_specification, &attr),
				&tmp);
		if (!next)
			break;
		decl = tmp;
	}
	prefix = cached_scope_prefix(d, &decl);
	if (!prefix)
		return NULL;
	out = malloc(strlen(prefix) + strlen(name) + 1);
	if (out) {
		strcpy(out, prefix);
		strcat(out, name);
	}
	return out;
}

/* A frame for a function DIE: its names and declaration (the file
 * only with files). */
static void frame_from_die(struct sym_frame *f, Dwarf_Die *die, int files)
{
	int line = 0;

	memset(f, 0, sizeof(*f));
	f->linkage = die_string(die, DW_AT_linkage_name);
	if (!f->linkage)
		f->linkage = die_string(die, DW_AT_MIPS_linkage_name);
	f->name = die_string(die, DW_AT_name);
	f->file = files ? dwarf_decl_file(die) : NULL;
	if (dwarf_decl_line(die, &line) == 0)
		f->start_line = line;
}

/* ---- the functions at an address ---- */

struct sym_fn_range {
	Dwarf_Addr low, high;	/* DWARF addresses, [low, high) */
	Dwarf_Die die;		/* the concrete function */
};

static int fn_cmp(const void *a, const void *b)
{
	const struct sym_fn_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* Add the functions under parent (a unit, namespace or class). */
static int index_functions(struct sym_dwarf *d, Dwarf_Die *parent,
			   size_t *cap, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		Dwarf_Addr base, low, high;
		ptrdiff_t off = 0;

		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			while ((off = dwarf_ranges(&child, off, &base, &low,
						   &high)) > 0) {
				if (low >= high)
					continue;
				if (pki_grow(&d->fns, cap, d->nfns + 1,
					    sizeof(*d->fns)) < 0)
					return -1;
				d->fns[d->nfns].low = low;
				d->fns[d->nfns].high = high;
				d->fns[d->nfns].die = child;
				d->nfns++;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (index_functions(d, &child, cap, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * The concrete functions' address ranges, sorted: dwarf_getscopes walks
 * a whole compilation unit per address, which for 100k addresses in big
 * C++ units is most of the time spent. A unit is indexed when an address
 * first falls in it, so a library with thousands of units (libc's debug
 * file) costs the few that are sampled; past SYM_MAX_UNITS of them, all of
 * the file's units are indexed at once.
 */
static void forget_function_index(struct sym_dwarf *d)
{
	free(d->fns);	/* out of memory: use dwarf_getscopes */
	d->fns = NULL;
	d->nfns = d->fns_cap = 0;
	d->fns_built = 1;
}

static void index_all_units(struct sym_dwarf *d)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	d->nfns = 0;
	d->fns_built = 1;
	while ((cu = dwfl_module_nextcu(d->mod, cu, &bias))) {
		d->dwbias = bias;
		if (index_functions(d, cu, &d->fns_cap, 0)) {
			forget_function_index(d);
			return;
		}
	}
	qsort(d->fns, d->nfns, sizeof(*d->fns), fn_cmp);
}

/* The .debug_aranges of the file's DWARF, plain, little-endian ELF64
 * (what debug-units.c reads), or NULL. */
static Elf_Data *aranges_data(Dwarf *dw)
{
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!ident || ident[EI_CLASS] != ELFCLASS64 ||
	    ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, &sh) ?
			elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

		if (name && strcmp(name, ".debug_aranges") == 0)
			return sh.sh_type == SHT_PROGBITS &&
			       !(sh.sh_flags & SHF_COMPRESSED) ?
			       elf_getdata(scn, NULL) : NULL;
	}
	return NULL;
}

/*
 * The unit DIE holding addr (a Dwfl address) as dwfl_module_addrdie
 * finds it, *bias set, or NULL. libdw's aranges read the header of
 * every unit their sets name (libc's 2062) on the first lookup, and
 * finding a unit reads only the headers before it: the sets are read
 * here (once), libdwfl's choice made as debug-units.c makes it, and
 * libdw asked for that unit. Anything unusual is libdwfl's to answer,
 * and so is all when lines are wanted: the line table's lookups read
 * libdw's aranges anyway.
 */
static Dwarf_Die *unit_die_of(struct sym_dwarf *d, Dwarf_Addr addr,
			      Dwarf_Die *mem, Dwarf_Addr *bias)
{
	Dwarf *dw = dwfl_module_getdwarf(d->mod, bias);
	uint64_t unit;
	Dwarf_Off next;
	size_t header;
	Elf_Data *data;
	int rc;

	if (!d->aranges_read && dw && d->names_only) {
		d->aranges_read = 1;
		data = aranges_data(dw);
		if (data && data->d_buf &&
		    (d->aranges = malloc(sizeof(*d->aranges))) &&
		    sym_units_asked(d->aranges, data->d_buf, data->d_size,
				    NULL, 0)) {
			free(d->aranges);
			d->aranges = NULL;
		}
	}
	if (!dw || !d->aranges)
		return dwfl_module_addrdie(d->mod, addr, bias);
	rc = sym_units_unit_of(d->aranges, addr - *bias, &unit);
	if (rc == 0)
		return NULL;
	if (rc < 0 || dwarf_next_unit(dw, unit, &next, &header, NULL, NULL,
				      NULL, NULL, NULL, NULL) != 0 ||
	    !dwarf_offdie(dw, unit + header, mem))
		return dwfl_module_addrdie(d->mod, addr, bias);
	return mem;
}

/* Index the unit holding addr (a Dwfl address), if not done yet. */
static void index_unit_of(struct sym_dwarf *d, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, mem;
	Dwarf_Off off;
	size_t i, old = d->nfns;

	if (d->fns_built)
		return;
	cu = unit_die_of(d, addr, &mem, &bias);
	if (!cu)
		return;
	off = dwarf_dieoffset(cu);
	for (i = 0; i < d->nunits; i++)
		if (d->units[i] == off)
			return;
	if (d->nunits == SYM_MAX_UNITS) {
		index_all_units(d);
		return;
	}
	d->units[d->nunits++] = off;
	d->dwbias = bias;
	if (index_functions(d, cu, &d->fns_cap, 0)) {
		forget_function_index(d);
		return;
	}
	if (d->nfns > old)
		qsort(d->fns, d->nfns, sizeof(*d->fns), fn_cmp);
}

/* The concrete function holding pc (a DWARF address) in the index. */
static const struct sym_fn_range *find_function(const struct sym_dwarf *d,
						Dwarf_Addr pc)
{
	size_t lo = pki_count_at_or_below(d->fns, d->nfns, sizeof(*d->fns),
					 offsetof(struct sym_fn_range, low),
					 pc);
	size_t i;

	/* nested ranges (a function inside another's) are rare and few */
	for (i = lo; i > 0 && lo - i < 8; i--)
		if (pc < d->fns[i - 1].high)
			return &d->fns[i - 1];
	return NULL;
}

static int is_function_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The DIEs an inline chain goes down through. */
static int is_scope_tag(int tag)
{
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* The inlined instances at pc inside fn, innermost first, then fn. */
static int inline_chain(const Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die path[SYM_MAX_FRAMES], cur = *fn, child;
	int n = 0, i, deeper;

	path[n++] = cur;
	do {
		deeper = 0;
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if (!is_scope_tag(tag))
				continue;
			if (dwarf_haspc(&child, pc) <= 0)
				continue;
			if (tag == DW_TAG_inlined_subroutine && n < SYM_MAX_FRAMES)
				path[n++] = child;
			cur = child;
			deeper = 1;
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
	} while (deeper);
	for (i = 0; i < n; i++)
		out[i] = path[n - 1 - i];
	return n;
}

/* ---- inline trees: each concrete function's scopes, read once ---- */

/*
 * inline_chain asks libdw for the children of every scope on the way
 * down, for every address: in big functions full of inlined calls that
 * was most of the time symbolizing took. The first time an address
 * falls in a function, its scopes (inlined instances, lexical, try and
 * catch blocks) are read into nodes, each with its children's address
 * ranges sorted, so each address goes down by binary searches. The walk
 * picks what inline_chain picks: the first child, in DIE order, holding
 * the address. Range lists may be shared and long: past the bounds a
 * function is left to inline_chain.
 */
#define SYM_TREE_MAX_KIDS (1u << 16)	/* ranges in one function */
#define SYM_TREES_MAX_KIDS (1u << 22)	/* in all of a file's trees */

struct sym_scope_node {
	Dwarf_Die die;
	uint32_t kids, nkids;	/* its children's ranges in d->kids */
	unsigned inlined : 1;	/* a DW_TAG_inlined_subroutine */
	unsigned kids_overlap : 1;	/* two children's ranges overlap */
};

struct sym_kid_range {
	Dwarf_Addr low, high;	/* DWARF addresses, [low, high) */
	uint32_t node;		/* the child, in d->nodes */
	uint32_t order;		/* its place among its siblings */
};

struct sym_tree_root {
	const void *fn;		/* the function DIE (Dwarf_Die.addr) */
	uint32_t node;		/* its node + 1; 0: walked by inline_chain */
};

static int kid_cmp(const void *a, const void *b)
{
	const struct sym_kid_range *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int add_node(struct sym_dwarf *d, const Dwarf_Die *die, int inlined)
{
	struct sym_scope_node *node;

	if (pki_grow(&d->nodes, &d->nodes_cap, d->nnodes + 1,
		    sizeof(*d->nodes)) < 0)
		return -1;
	node = &d->nodes[d->nnodes++];
	memset(node, 0, sizeof(*node));
	node->die = *die;
	node->inlined = inlined;
	return 0;
}

/* The ranges of a child scope, for the node it will be; how many, or
 * -1 past limit (ranges in d->kids) or out of memory. */
static int add_kid_ranges(struct sym_dwarf *d, Dwarf_Die *child,
			  uint32_t order, size_t limit)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;
	int n = 0;

	/* as dwarf_haspc: the ranges read before an error count */
	while ((off = dwarf_ranges(child, off, &base, &low, &high)) > 0) {
		if (low >= high)
			continue;
		if (d->nkids >= limit ||
		    pki_grow(&d->kids, &d->kids_cap, d->nkids + 1,
			     sizeof(*d->kids)) < 0)
			return -1;
		d->kids[d->nkids].low = low;
		d->kids[d->nkids].high = high;
		d->kids[d->nkids].node = (uint32_t)d->nnodes;
		d->kids[d->nkids].order = order;
		d->nkids++;
		n++;
	}
	return n;
}

/* The child scopes of node i, as nodes, and their ranges, sorted. */
static int read_kids(struct sym_dwarf *d, size_t i, size_t limit)
{
	Dwarf_Die die = d->nodes[i].die, child;
	size_t first = d->nkids, k;
	uint32_t order = 0;
	Dwarf_Addr end = 0;
	int n;

	if (dwarf_child(&die, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (!is_scope_tag(tag))
				continue;
			n = add_kid_ranges(d, &child, order++, limit);
			/* a scope without addresses holds none: no node */
			if (n < 0 || (n > 0 && add_node(d, &child,
					tag == DW_TAG_inlined_subroutine)))
				return -1;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	d->nodes[i].kids = (uint32_t)first;
	d->nodes[i].nkids = (uint32_t)(d->nkids - first);
	if (d->nkids > first)	/* d->kids is NULL before the first */
		qsort(d->kids + first, d->nkids - first, sizeof(*d->kids),
		      kid_cmp);
	for (k = first; k < d->nkids; k++) {
		if (k > first && d->kids[k].low < end)
			d->nodes[i].kids_overlap = 1;
		if (d->kids[k].high > end)
			end = d->kids[k].high;
	}
	return 0;
}

/* The scopes of function fn, read now: its node + 1, or 0 when they
 * are past the bounds (or out of memory), forgotten again. */
static uint32_t read_tree(struct sym_dwarf *d, const Dwarf_Die *fn)
{
	size_t root = d->nnodes, nkids = d->nkids, i;
	size_t limit = d->nkids + SYM_TREE_MAX_KIDS;

	if (limit > SYM_TREES_MAX_KIDS)
		limit = SYM_TREES_MAX_KIDS;
	if (add_node(d, fn, 0) < 0)
		return 0;
	/* breadth first: each node's children follow the nodes before */
	for (i = root; i < d->nnodes; i++) {
		if (read_kids(d, i, limit) < 0) {
			d->nnodes = root;
			d->nkids = nkids;
			return 0;
		}
	}
	return (uint32_t)root + 1;
}

static int root_match(const void *owner, uint32_t id, const void *key)
{
	return ((const struct sym_dwarf *)owner)->roots[id - 1].fn == key;
}

/* The tree of function fn, read the first time: its node + 1, or 0. */
static uint32_t tree_of(struct sym_dwarf *d, const Dwarf_Die *fn)
{
	uint64_t hash = pki_hash_u64((uintptr_t)fn->addr);
	size_t slot;
	uint32_t id = pki_idtab_find(&d->root_tab, hash, root_match, d,
				    fn->addr, &slot);

	if (id)
		return d->roots[id - 1].node;
	if (pki_grow(&d->roots, &d->roots_cap, d->nroots + 1,
		    sizeof(*d->roots)) < 0 ||
	    pki_idtab_insert(&d->root_tab, slot, hash,
			    (uint32_t)d->nroots + 1) < 0)
		return 0;
	d->roots[d->nroots].fn = fn->addr;
	d->roots[d->nroots].node = read_tree(d, fn);
	return d->roots[d->nroots++].node;
}

/* The child of node holding pc, the first in DIE order: its node + 1,
 * or 0. */
static uint32_t kid_at(const struct sym_dwarf *d,
		       const struct sym_scope_node *node, Dwarf_Addr pc)
{
	const struct sym_kid_range *k;
	uint32_t best = 0, best_order = UINT32_MAX;
	size_t n, i;

	if (!node->nkids)
		return 0;
	k = d->kids + node->kids;
	n = pki_count_at_or_below(k, node->nkids, sizeof(*k),
				  offsetof(struct sym_kid_range, low), pc);
	/* apart, only the last range starting at or below pc can hold it */
	if (!node->kids_overlap)
		return n && pc < k[n - 1].high ? k[n - 1].node + 1 : 0;
	for (i = 0; i < n; i++) {
		if (pc < k[i].high && k[i].order < best_order) {
			best = k[i].node + 1;
			best_order = k[i].order;
		}
	}
	return best;
}

/* inline_chain's answer from the tree whose root is node root - 1. */
static int tree_chain(const struct sym_dwarf *d, uint32_t root,
		      Dwarf_Addr pc, Dwarf_Die *out)
{
	uint32_t path[SYM_MAX_FRAMES], cur = root - 1, next;
	int n = 0, i;

	path[n++] = cur;
	while ((next = kid_at(d, &d->nodes[cur], pc))) {
		cur = next - 1;
		if (d->nodes[cur].inlined && n < SYM_MAX_FRAMES)
			path[n++] = cur;
	}
	for (i = 0; i < n; i++)
		out[i] = d->nodes[path[n - 1 - i]].die;
	return n;
}

/* The same through dwarf_getscopes, for what the index does not hold. */
static int scopes_chain(struct sym_dwarf *d, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL, *cu, inner, around[SYM_MAX_SCOPE_DEPTH + 1];
	Dwarf_Die mem;
	Dwarf_Addr dwbias = 0;
	int nscopes, n = 0, i;

	cu = unit_die_of(d, addr, &mem, &dwbias);
	if (!cu || dwarf_getscopes(cu, addr - dwbias, &scopes) <= 0) {
		free(scopes);
		return 0;
	}
	/*
	 * Past an inlined instance dwarf_getscopes goes on into the
	 * abstract definition's scopes; the DIE's own parents are the chain
	 * of inlined calls up to the concrete function.
	 */
	inner = scopes[0];
	free(scopes);
	nscopes = scopes_of(&inner, around, &scopes);
	for (i = 0; i < nscopes && n < SYM_MAX_FRAMES; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (!is_function_tag(tag))
			continue;
		out[n++] = scopes[i];
		if (tag != DW_TAG_inlined_subroutine)
			break;
	}
	if (scopes != around)
		free(scopes);
	return n;
}

int sym_dwarf_has(struct sym_dwarf *d)
{
	if (d->has < 0)
		d->has = dwfl_module_getdwarf(d->mod, &(Dwarf_Addr){ 0 }) != NULL;
	return d->has;
}

int sym_dwarf_chain(struct sym_dwarf *d, Dwarf_Addr addr, int no_inline,
		    Dwarf_Die *chain)
{
	const struct sym_fn_range *fn;
	Dwarf_Addr pc;
	uint32_t root;
	int n;

	if (!sym_dwarf_has(d))
		return 0;
	index_unit_of(d, addr);
	pc = addr - d->dwbias;
	fn = find_function(d, pc);
	if (!fn)
		n = scopes_chain(d, addr, chain);
	else if ((root = tree_of(d, &fn->die)))
		n = tree_chain(d, root, pc, chain);
	else
		n = inline_chain(&fn->die, pc, chain);
	if (n > 1 && no_inline) {
		chain[0] = chain[n - 1];	/* the concrete function */
		n = 1;
	}
	return n;
}

/* Where the function chain[i] was inlined: its call's line and file. */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, int64_t *line,
		      const char **file)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	*line = 0;
	*file = NULL;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &w) == 0)
		*line = (int64_t)w;
	if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr),
				     &w) == 0)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

/* ---- what a function DIE says of its frames, read once ---- */

/*
 * A DIE's names, declaration and call site are the same for every
 * address whose chain it is in, and reading them (dwarf_attr_integrate
 * follows abstract origins) cost more than finding the chain.
 */
struct sym_die_info {
	const void *die;	/* Dwarf_Die.addr */
	struct sym_frame frame;	/* without its qualified name */
	char *qualified;	/* "ns::A::f", once asked (qualified_read) */
	const char *call_file;
	int64_t call_line;
	unsigned cplusplus : 1;	/* its unit is C++ */
	unsigned qualified_read : 1;
};

/* with_files: the declaration's and the call's file too, which parse
 * the unit's line program. */
static void read_die_info(struct sym_die_info *info, Dwarf_Die *die,
			  int with_files)
{
	Dwarf_Files *files = NULL;
	Dwarf_Die cu;

	memset(info, 0, sizeof(*info));
	info->die = die->addr;
	frame_from_die(&info->frame, die, with_files);
	if (dwarf_diecu(die, &cu, NULL, NULL)) {
		info->cplusplus = is_cplusplus(&cu);
		if (!with_files || dwarf_getsrcfiles(&cu, &files, NULL) != 0)
			files = NULL;
	}
	call_site(die, files, &info->call_line, &info->call_file);
}

static int info_match(const void *owner, uint32_t id, const void *key)
{
	return ((const struct sym_dwarf *)owner)->infos[id - 1].die == key;
}

/* The info of die, read the first time; NULL when out of memory. */
static struct sym_die_info *die_info(struct sym_dwarf *d, Dwarf_Die *die)
{
	uint64_t hash = pki_hash_u64((uintptr_t)die->addr);
	size_t slot;
	uint32_t id = pki_idtab_find(&d->info_tab, hash, info_match, d,
				    die->addr, &slot);

	if (id)
		return &d->infos[id - 1];
	if (pki_grow(&d->infos, &d->infos_cap, d->ninfos + 1,
		    sizeof(*d->infos)) < 0 ||
	    pki_idtab_insert(&d->info_tab, slot, hash,
			    (uint32_t)d->ninfos + 1) < 0)
		return NULL;
	read_die_info(&d->infos[d->ninfos], die, !d->names_only);
	return &d->infos[d->ninfos++];
}

/* "ns::A::f" for a C++ function without a linkage name, or NULL. */
static const char *die_qualified(struct sym_dwarf *d,
				 struct sym_die_info *info, Dwarf_Die *die)
{
	if (!info->qualified_read) {
		info->qualified_read = 1;
		if (!info->frame.linkage && info->frame.name)
			info->qualified = qualify_name(d, die,
						       info->frame.name);
	}
	return info->qualified;
}

size_t sym_dwarf_frames(struct sym_dwarf *d, Dwarf_Die *chain, int n,
			const char *src, int lineno, int qualify,
			struct sym_frame *frames, int *cplusplus)
{
	const char *call_file = NULL, *qualified;
	int64_t call_line = 0;
	int i;

	*cplusplus = 0;
	for (i = 0; i < n; i++) {
		struct sym_die_info scratch, *info = die_info(d, &chain[i]);

		if (!info) {	/* out of memory: unqualified names */
			read_die_info(&scratch, &chain[i], !d->names_only);
			scratch.qualified_read = 1;
			info = &scratch;
		}
		if (i == 0)
			*cplusplus = info->cplusplus;
		frames[i] = info->frame;
		if (*cplusplus && qualify &&
		    (qualified = die_qualified(d, info, &chain[i])))
			frames[i].qualified = strdup(qualified);
		frames[i].line = i ? call_line : lineno;
		/* artificial functions (lambdas) may have no decl_file */
		if (!frames[i].file)
			frames[i].file = i ? call_file : src;
		call_line = info->call_line;
		call_file = info->call_file;
	}
	return (size_t)n;
}

void sym_dwarf_init(struct sym_dwarf *d, Dwfl_Module *mod, int names_only)
{
	memset(d, 0, sizeof(*d));
	d->mod = mod;
	d->names_only = names_only;
	d->has = -1;	/* loaded when an address needs it */
}

void sym_dwarf_release(struct sym_dwarf *d)
{
	size_t i;

	free(d->fns);
	if (d->aranges)
		sym_units_release(d->aranges);
	free(d->aranges);
	free(d->roots);
	pki_idtab_release(&d->root_tab);
	free(d->nodes);
	free(d->kids);
	for (i = 0; i < d->ninfos; i++)
		free(d->infos[i].qualified);
	free(d->infos);
	pki_idtab_release(&d->info_tab);
	for (i = 0; i < d->nprefixes; i++)
		free(d->prefixes[i].text);
	free(d->prefixes);
	pki_idtab_release(&d->prefix_tab);
}
