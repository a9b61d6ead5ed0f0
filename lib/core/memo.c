/* SPDX-License-Identifier: MIT */
/* Values remembered by the text they were worked out from (memo.h). */
#include <stdlib.h>
#include <string.h>

#include "memo.h"

/* The texts a memo keeps, past which they are worked out each time. */
#define MEMO_MAX_BYTES (64u << 20)

uint32_t pki_memo_id(struct pki_memo *m, const char *text, size_t len)
{
	pk_str id;

	if (!m->texts) {
		if (!(m->texts = pk_profile_new(0)))
			return 0;
		pk_profile_set_memory_limit(m->texts, MEMO_MAX_BYTES);
	}
	if (pk_profile_failed(m->texts) ||
	    !(id = pk_profile_intern(m->texts, text, len)) ||
	    pki_grow_zeroed(&m->values, &m->cap, (size_t)id + 1, sizeof(*m->values)) < 0)
		return 0;
	return id;
}

const char *pki_memo_text(const struct pki_memo *m, uint32_t id, size_t *len)
{
	*len = pk_profile_string_len(m->texts, id);
	return pk_profile_string(m->texts, id);
}

void pki_memo_free(struct pki_memo *m)
{
	pk_profile_free(m->texts);
	free(m->values);
	memset(m, 0, sizeof(*m));
}
