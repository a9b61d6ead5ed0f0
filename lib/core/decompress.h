/* SPDX-License-Identifier: MIT */
/* Decompressors for input.c: gzip always; zstd, xz and bzip2 when
 * configure found their libraries. */
#ifndef PROFKIT_DECOMPRESS_H
#define PROFKIT_DECOMPRESS_H

#include <stddef.h>

struct pki_decoder;

/* Bytes enough for pki_codec_sniff to tell every format apart. */
#define PKI_CODEC_MAGIC_LEN 6

/* The compression the first bytes announce: "gzip", "zstd", "xz",
 * "bzip2", or NULL for none. */
const char *pki_codec_sniff(const unsigned char *magic, size_t len);

/* A decoder for the format pki_codec_sniff named; NULL with *why set
 * (a static message) when the library is not built in or memory ran out. */
struct pki_decoder *pki_decoder_new(const char *codec, const char **why);
void pki_decoder_free(struct pki_decoder *d);

/* Buffers one step reads from and writes to; advanced past what it did. */
struct pki_decoder_io {
	unsigned char *in;
	size_t in_len;
	unsigned char *out;
	size_t out_len;
};

/* Decode what io allows; finish: no input follows what io holds.
 * Returns 1 when a stream (gzip member, zstd frame, ...) ended, so that
 * a next one may follow; 0 otherwise, progress or not; -1 on corrupt
 * data, *why then says what the library said. */
int pki_decoder_step(struct pki_decoder *d, struct pki_decoder_io *io,
		     int finish, const char **why);

#endif
