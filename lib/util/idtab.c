/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "idtab.h"

void pki_idtab_release(struct pk_idtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = t->count = 0;
}

uint32_t pki_idtab_find(const struct pk_idtab *t, uint64_t hash,
		       pk_idtab_match_fn match, const void *owner,
		       const void *key, size_t *slot)
{
	uint32_t h = (uint32_t)hash;
	size_t i;

	if (!t->slots) {
		*slot = 0;
		return 0;
	}
	for (i = hash & t->mask;; i = (i + 1) & t->mask) {
		const struct pk_idtab_slot *s = &t->slots[i];

		if (!s->id) {
			*slot = i;
			return 0;
		}
		if (s->hash == h && match(owner, s->id, key))
			return s->id;
	}
}

/* The free slot for HASH in a table that has one. */
static size_t free_slot(const struct pk_idtab *t, uint32_t hash)
{
	size_t i;

	for (i = hash & t->mask; t->slots[i].id; i = (i + 1) & t->mask)
		;
	return i;
}

/*
 * Zeroed slots. A table of millions of ids is probed at random: on 4 KB
 * pages nearly every probe also misses the TLB, so a large table asks
 * for huge pages where the system has them (pki_alloc_large).
 *
 * The slots are zeroed by writing, never calloc's fresh pages: a resize
 * reads a slot before it writes it, and a page first read is the
 * kernel's shared zero page, whose first write then costs a second fault
 * and, in a process of several threads, a TLB flush on every core.
 */
static struct pk_idtab_slot *new_slots(size_t size)
{
	size_t bytes = size * sizeof(struct pk_idtab_slot);
	void *p;

	if (size > SIZE_MAX / sizeof(struct pk_idtab_slot))
		return NULL;
	p = pki_alloc_large(bytes);
	return p ? memset(p, 0, bytes) : NULL;
}

static int idtab_resize(struct pk_idtab *t, size_t size)
{
	struct pk_idtab old = *t;
	size_t i;

	t->slots = new_slots(size);
	if (!t->slots) {
		t->slots = old.slots;
		return -1;
	}
	/*
	 * Only 32 bits of each hash are kept, so the low bits pick the slot:
	 * a table never outgrows 2^32 slots, as ids are 32-bit anyway.
	 */
	t->mask = size - 1;
	for (i = 0; old.slots && i <= old.mask; i++)
		if (old.slots[i].id)
			t->slots[free_slot(t, old.slots[i].hash)] = old.slots[i];
	free(old.slots);
	return 0;
}

int pki_idtab_insert(struct pk_idtab *t, size_t slot, uint64_t hash,
		    uint32_t id)
{
	uint32_t h = (uint32_t)hash;

	if (!t->slots || (t->count + 1) * 2 > t->mask + 1) {
		size_t size = t->slots ? (t->mask + 1) * 2 : 64;

		if (size > ((size_t)1 << 32) || idtab_resize(t, size) < 0)
			return -1;
		slot = free_slot(t, h);
	}
	t->slots[slot].id = id;
	t->slots[slot].hash = h;
	t->count++;
	return 0;
}

size_t pki_idtab_bytes(const struct pk_idtab *t)
{
	return t->slots ? (t->mask + 1) * sizeof(*t->slots) : 0;
}
