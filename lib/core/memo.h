/* SPDX-License-Identifier: MIT */
/*
 * Values worked out from a text (a frame's location from its line, say),
 * remembered by the text: a text seen before costs a lookup, not its
 * parsing again. The texts are kept under a memory limit, past which a
 * text is worked out each time it comes.
 */
#ifndef PROFKIT_CORE_MEMO_H
#define PROFKIT_CORE_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/idtab.h"
#include "util/strings.h"

/* A text and its value, side by side: a text met again is found with
 * one miss in its table's slot, one here and one in its bytes. */
struct pki_memo_entry {
	const char *text;
	size_t len;
	uint64_t value;
};

/* All zero is an empty memo. */
struct pki_memo {
	struct pk_idtab tab;		/* ids by their text's hash */
	struct pki_memo_entry *entries;	/* by id, from 1 */
	size_t nentries, cap;
	struct pki_memo_chunk *chunk;	/* the texts' copies, newest first */
	size_t chunk_used;
	size_t bytes;			/* held, against the limit */
	int full;			/* past the limit, or out of memory */
};

/* The id of text (from 1), new the first time; 0 when the memo is full
 * or out of memory. */
uint32_t pki_memo_id(struct pki_memo *m, const char *text, size_t len);
/* The same, text hashed by the caller (long texts: pki_hash_text); a
 * memo's texts must all be hashed one way. */
uint32_t pki_memo_id_hashed(struct pki_memo *m, const char *text, size_t len,
			    uint64_t hash);

/* The value under an id, 0 until the caller sets it; the pointer is
 * valid until the next pki_memo_id. */
static inline uint64_t *pki_memo_value(struct pki_memo *m, uint32_t id)
{
	return &m->entries[id].value;
}

/* The text of an id, valid until the memo is freed. */
static inline const char *pki_memo_text(const struct pki_memo *m, uint32_t id,
					size_t *len)
{
	*len = m->entries[id].len;
	return m->entries[id].text;
}

/*
 * pki_memo_id, the text first compared with guess's (an id, 0: none):
 * where texts come in the order they came before (a stack's frames), the
 * caller keeps the id that came after each, and one comparison costs
 * less than the text's hash and lookup.
 */
static inline uint32_t pki_memo_id_guessed(struct pki_memo *m, uint32_t guess,
					   const char *text, size_t len)
{
	if (guess && m->entries[guess].len == len &&
	    pki_same_bytes(m->entries[guess].text, text, len))
		return guess;
	return pki_memo_id(m, text, len);
}

/* The value of text (pki_memo_value of its id); NULL when the memo is
 * full or out of memory: work it out each time then. */
static inline uint64_t *pki_memo(struct pki_memo *m, const char *text, size_t len)
{
	uint32_t id = pki_memo_id(m, text, len);

	return id ? pki_memo_value(m, id) : NULL;
}

/* Free what the memo holds; it is empty again. */
void pki_memo_free(struct pki_memo *m);

#endif
