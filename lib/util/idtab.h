/* SPDX-License-Identifier: MIT */
/*
 * An open-addressing hash set of ids. The table stores only ids and their
 * hashes; the caller keeps the keys and says whether an id matches.
 */
#ifndef PROFKIT_IDTAB_H
#define PROFKIT_IDTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * A slot holds the id beside its hash, so that a probe of a table larger
 * than the caches (a million distinct stacks) costs one miss, not two.
 */
struct pk_idtab_slot {
	uint32_t id;		/* 0 marks an empty slot */
	uint32_t hash;
};

struct pk_idtab {
	struct pk_idtab_slot *slots;
	size_t mask;
	size_t count;
};

typedef int (*pk_idtab_match_fn)(const void *owner, uint32_t id,
				 const void *key);

void pki_idtab_release(struct pk_idtab *t);
/* The id whose key matches, or 0 with *slot set for pki_idtab_insert. */
uint32_t pki_idtab_find(const struct pk_idtab *t, uint64_t hash,
		       pk_idtab_match_fn match, const void *owner,
		       const void *key, size_t *slot);
/* Insert id (never 0) at slot from pki_idtab_find. Returns 0 or -1. */
int pki_idtab_insert(struct pk_idtab *t, size_t slot, uint64_t hash,
		    uint32_t id);
size_t pki_idtab_bytes(const struct pk_idtab *t);

/* The slot a find of hash starts at, into the cache ahead of that find:
 * a caller with many keys to look up (a table appended to another)
 * hides the miss of one behind the work of those before it. */
static inline void pki_idtab_prefetch(const struct pk_idtab *t, uint64_t hash)
{
	if (t->slots)
		__builtin_prefetch(&t->slots[hash & t->mask]);
}

#endif
