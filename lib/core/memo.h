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
	/* the ids of the texts that came after it (pki_memo_follow): the
	 * last time, and another one the time before; 0: none */
	uint32_t next[2];
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
 * Followers: where texts come in the order they came before (a stack's
 * frames, the stacks of a dump printed again), the text that came after
 * one is likely to come after it again, and comparing it costs less than
 * the text's hash and lookup. A memo keeps two ids after each text: the
 * last two that came after it, the newest first (pki_memo_follow: a
 * stack printed with two threads' keys in turn comes after one of two),
 * or one for each of two ways a text is followed (pki_memo_id_after: a
 * frame by its caller, or by its sibling once its callers are done).
 */

/* Follower k (0 or 1) of id; 0: none. */
static inline uint32_t pki_memo_follower(const struct pki_memo *m, uint32_t id,
					 int k)
{
	return m->entries[id].next[k];
}

/* id came after last (0: none): it is last's newest follower, the one
 * before it the other. */
static inline void pki_memo_follow(struct pki_memo *m, uint32_t last, uint32_t id)
{
	struct pki_memo_entry *e = &m->entries[last];

	if (last && id && e->next[0] != id) {
		e->next[1] = e->next[0];
		e->next[0] = id;
	}
}

/* Whether text is id's. */
static inline int pki_memo_is(const struct pki_memo *m, uint32_t id,
			      const char *text, size_t len)
{
	return m->entries[id].len == len && pki_same_bytes(m->entries[id].text, text, len);
}

/*
 * pki_memo_id of a text that came after last's (an id, 0: none) in the
 * way k: first compared with last's follower k, which the id found then
 * is. Inline: it is a line's whole lookup when the guess holds.
 */
static inline uint32_t pki_memo_id_after(struct pki_memo *m, uint32_t last, int k,
					 const char *text, size_t len)
{
	uint32_t id = last ? pki_memo_follower(m, last, k) : 0;

	if (id && pki_memo_is(m, id, text, len))
		return id;
	id = pki_memo_id(m, text, len);
	if (last && id)
		m->entries[last].next[k] = id;
	return id;
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
