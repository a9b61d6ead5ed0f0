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

/*
 * Two words multiplied, the halves of the full product folded (as
 * wyhash does): every bit of both words mixed in one multiply.
 */
static inline uint64_t pki_fold_multiply(uint64_t a, uint64_t b)
{
	unsigned __int128 m = (unsigned __int128)a * b;

	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* Sixteen bytes at s into a lane of pki_hash_text. */
static inline uint64_t pki_hash_lane(uint64_t lane, const char *s, uint64_t key)
{
	uint64_t w[2];

	memcpy(w, s, 16);
	return pki_fold_multiply(w[0] ^ key, w[1] ^ lane);
}

/*
 * A hash of a long text (a callchain's, a block of frames: hundreds of
 * bytes): sixteen bytes to a multiply, in four lanes so the multiplies
 * overlap, and the last sixteen bytes read where they end, overlapping
 * the others, not byte by byte. Scalar words, not an array a compiler
 * would vectorize with emulated 64-bit multiplies.
 */
static inline uint64_t pki_hash_text(const char *s, size_t len)
{
	uint64_t a = len ^ 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL;
	uint64_t c = 0xa4093822299f31d0ULL, d = 0x082efa98ec4e6c89ULL;
	const uint64_t key = 0x452821e638d01377ULL;
	size_t i = 0;

	if (len < 16)
		return pki_hash_bytes(s, len, a);
	for (; i + 64 <= len; i += 64) {
		a = pki_hash_lane(a, s + i, key);
		b = pki_hash_lane(b, s + i + 16, key);
		c = pki_hash_lane(c, s + i + 32, key);
		d = pki_hash_lane(d, s + i + 48, key);
	}
	for (; i + 16 <= len; i += 16)
		a = pki_hash_lane(a, s + i, key);
	a = pki_hash_lane(a, s + len - 16, key);
	return pki_hash_u64(a ^ pki_fold_multiply(b ^ key, c ^ d));
}

#endif
