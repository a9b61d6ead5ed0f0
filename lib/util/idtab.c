/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "idtab.h"

void pki_idtab_release(struct pk_idtab *t)
{
	free(t->ids);
	free(t->hashes);
	t->ids = t->hashes = NULL;
	t->mask = t->count = 0;
}

uint32_t pki_idtab_find(const struct pk_idtab *t, uint64_t hash,
		       pk_idtab_match_fn match, const void *owner,
		       const void *key, size_t *slot)
{
	uint32_t h = (uint32_t)hash;
	size_t i;

	if (!t->ids) {
		*slot = 0;
		return 0;
	}
	for (i = hash & t->mask;; i = (i + 1) & t->mask) {
		uint32_t id = t->ids[i];

		if (!id) {
			*slot = i;
			return 0;
		}
		if (t->hashes[i] == h && match(owner, id, key))
			return id;
	}
}

static int idtab_resize(struct pk_idtab *t, size_t size)
{
	uint32_t *ids = calloc(size, sizeof(*ids));
	uint32_t *hashes = malloc(size * sizeof(*hashes));
	size_t i, mask = size - 1;

	if (!ids || !hashes) {
		free(ids);
		free(hashes);
		return -1;
	}
	/*
	 * Only 32 bits of each hash are kept, so the low bits pick the slot:
	 * a table never outgrows 2^32 slots, as ids are 32-bit anyway.
	 */
	for (i = 0; t->ids && i <= t->mask; i++) {
		size_t j;

		if (!t->ids[i])
			continue;
		for (j = t->hashes[i] & mask; ids[j]; j = (j + 1) & mask)
			;
		ids[j] = t->ids[i];
		hashes[j] = t->hashes[i];
	}
	free(t->ids);
	free(t->hashes);
	t->ids = ids;
	t->hashes = hashes;
	t->mask = mask;
	return 0;
}

int pki_idtab_insert(struct pk_idtab *t, size_t slot, uint64_t hash,
		    uint32_t id)
{
	uint32_t h = (uint32_t)hash;

	if (!t->ids || (t->count + 1) * 2 > t->mask + 1) {
		size_t size = t->ids ? (t->mask + 1) * 2 : 64;

		if (size > ((size_t)1 << 32) || idtab_resize(t, size) < 0)
			return -1;
		for (slot = h & t->mask; t->ids[slot];
		     slot = (slot + 1) & t->mask)
			;
	}
	t->ids[slot] = id;
	t->hashes[slot] = h;
	t->count++;
	return 0;
}

size_t pki_idtab_bytes(const struct pk_idtab *t)
{
	return t->ids ? (t->mask + 1) * 2 * sizeof(uint32_t) : 0;
}
