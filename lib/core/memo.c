/* SPDX-License-Identifier: MIT */
/*
 * Values remembered by the text they were worked out from (memo.h), in a
 * table of their own: a profile's interning would cost the lookup of a
 * string's slot, then its reference, its bytes and the value, each a
 * miss in a large memo.
 */
#include <stdlib.h>
#include <string.h>

#include "memo.h"
#include "util/grow.h"
#include "util/hash.h"

/* The texts a memo keeps, past which they are worked out each time. */
#define MEMO_MAX_BYTES ((size_t)64 << 20)
/* The texts are copied into chunks of this size (a longer text: its own). */
#define MEMO_CHUNK ((size_t)64 << 10)

struct pki_memo_chunk {
	struct pki_memo_chunk *next;
	size_t size;
	char text[];
};

struct memo_key {
	const char *text;
	size_t len;
};

static int entry_match(const void *owner, uint32_t id, const void *key)
{
	const struct pki_memo_entry *e = &((const struct pki_memo *)owner)->entries[id];
	const struct memo_key *k = key;

	return e->len == k->len && memcmp(e->text, k->text, k->len) == 0;
}

/*
 * The texts' hash: pki_hash_bytes's rounds, but its last word read to
 * the text's end, overlapping the one before, where pki_hash_bytes
 * takes up to seven bytes one at a time: a memo hashes every line of
 * its input, some tens of bytes each. Only the memo's own table sees
 * it; the ids stay in the order the texts came.
 */
static uint64_t memo_hash(const char *text, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;
	size_t i;

	if (len < 8)
		return pki_hash_bytes(text, len, 0);
	for (i = 0; i + 8 < len; i += 8) {
		memcpy(&w, text + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	memcpy(&w, text + len - 8, 8);
	h = (h ^ w) * 0x100000001b3ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

/* A copy of text in the memo's chunks; NULL past the limit. */
static const char *store_text(struct pki_memo *m, const char *text, size_t len)
{
	struct pki_memo_chunk *c = m->chunk;
	char *copy;

	if (!c || c->size - m->chunk_used < len) {
		size_t size = len > MEMO_CHUNK ? len : MEMO_CHUNK;

		if (size > MEMO_MAX_BYTES - m->bytes ||
		    !(c = malloc(sizeof(*c) + size)))
			return NULL;
		c->next = m->chunk;
		c->size = size;
		m->chunk = c;
		m->chunk_used = 0;
		m->bytes += size;
	}
	copy = c->text + m->chunk_used;
	memcpy(copy, text, len);
	m->chunk_used += len;
	return copy;
}

/* A new entry for text, its id inserted at slot; 0 when full. */
static uint32_t add_entry(struct pki_memo *m, const char *text, size_t len,
			  uint64_t hash, size_t slot)
{
	size_t id = m->nentries ? m->nentries : 1;	/* 0 is no id */
	size_t old_cap = m->cap;
	struct pki_memo_entry *e;

	if (id >= UINT32_MAX ||
	    pki_grow(&m->entries, &m->cap, id + 1, sizeof(*m->entries)) < 0)
		return 0;
	m->bytes += (m->cap - old_cap) * sizeof(*m->entries);
	e = &m->entries[id];
	if (!(e->text = store_text(m, text, len)))
		return 0;
	e->len = len;
	e->value = 0;
	e->next[0] = e->next[1] = 0;
	if (pki_idtab_insert(&m->tab, slot, hash, (uint32_t)id) < 0)
		return 0;
	m->nentries = id + 1;
	return (uint32_t)id;
}

/* The lookup of pki_memo_id and pki_memo_id_hashed: inline in each, so
 * that a line's lookup costs one call. */
static inline uint32_t memo_id(struct pki_memo *m, const char *text, size_t len,
			       uint64_t hash)
{
	struct memo_key key = { text, len };
	size_t slot;
	uint32_t id = pki_idtab_find(&m->tab, hash, entry_match, m, &key, &slot);

	if (!id && !(id = add_entry(m, text, len, hash, slot)))
		m->full = 1;
	return id;
}

uint32_t pki_memo_id(struct pki_memo *m, const char *text, size_t len)
{
	return m->full ? 0 : memo_id(m, text, len, memo_hash(text, len));
}

uint32_t pki_memo_id_hashed(struct pki_memo *m, const char *text, size_t len,
			    uint64_t hash)
{
	return m->full ? 0 : memo_id(m, text, len, hash);
}

void pki_memo_free(struct pki_memo *m)
{
	struct pki_memo_chunk *c, *next;

	for (c = m->chunk; c; c = next) {
		next = c->next;
		free(c);
	}
	pki_idtab_release(&m->tab);
	free(m->entries);
	memset(m, 0, sizeof(*m));
}
