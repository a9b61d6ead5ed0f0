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

#include "core/internal.h"

/* All zero is an empty memo. */
struct pki_memo {
	struct pk_profile *texts;	/* interned, under the limit */
	uint64_t *values;		/* by a text's id there */
	size_t cap;
};

/* The id of text (from 1), new the first time; 0 when the memo is full
 * or out of memory. */
uint32_t pki_memo_id(struct pki_memo *m, const char *text, size_t len);

/* The value under an id, 0 until the caller sets it; the pointer is
 * valid until the next pki_memo_id. */
static inline uint64_t *pki_memo_value(struct pki_memo *m, uint32_t id)
{
	return &m->values[id];
}

/* The text of an id, valid until the memo is freed. */
const char *pki_memo_text(const struct pki_memo *m, uint32_t id, size_t *len);

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
