/* SPDX-License-Identifier: MIT */
/* Hashes for the interning tables (util/idtab.h). */
#ifndef PROFKIT_UTIL_HASH_H
#define PROFKIT_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Hash of a byte string (FNV-1a folded with a multiply; fast, good enough). */
static inline uint64_t pki_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static inline uint64_t pki_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
