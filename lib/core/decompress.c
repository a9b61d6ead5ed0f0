/* SPDX-License-Identifier: MIT */
/*
 * Decompressors behind one step function, so input.c undoes gzip,
 * zstd, xz and bzip2 alike. Concatenated streams are one stream, as the
 * gzip, zstd, xz and bzip2 commands decompress them.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_BZIP2
#include <bzlib.h>
#endif

#include "decompress.h"

struct codec {
	const char *name;
	const char *magic;
	size_t magic_len;
	/* what to build with when the library is missing, else NULL */
	const char *missing;
	int (*init)(struct pki_decoder *d);
	int (*step)(struct pki_decoder *d, struct pki_decoder_io *io,
		    int finish, const char **why);
	void (*end)(struct pki_decoder *d);
};

struct pki_decoder {
	const struct codec *codec;
	union {
		z_stream z;
#ifdef HAVE_ZSTD
		ZSTD_DStream *zstd;
#endif
#ifdef HAVE_LZMA
		lzma_stream xz;
#endif
#ifdef HAVE_BZIP2
		bz_stream bz;
#endif
	} u;
};

/* The libraries count in unsigned int; larger buffers go in parts. */
static unsigned int uint_len(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (unsigned int)n;
}

static int gzip_init(struct pki_decoder *d)
{
	/* 15 + 16: the largest window, with a gzip header */
	return inflateInit2(&d->u.z, 15 + 16) == Z_OK ? 0 : -1;
}

static int gzip_step(struct pki_decoder *d, struct pki_decoder_io *io,
		     int finish, const char **why)
{
	z_stream *z = &d->u.z;
	int rc;

	(void)finish;
	z->next_in = io->in;
	z->avail_in = uint_len(io->in_len);
	z->next_out = io->out;
	z->avail_out = uint_len(io->out_len);
	rc = inflate(z, Z_NO_FLUSH);
	io->in_len -= (size_t)(z->next_in - io->in);
	io->in = z->next_in;
	io->out_len -= (size_t)(z->next_out - io->out);
	io->out = z->next_out;
	if (rc == Z_STREAM_END) {
		inflateReset(z);
		return 1;
	}
	if (rc == Z_OK || rc == Z_BUF_ERROR)
		return 0;
	*why = z->msg ? z->msg : "inflate";
	return -1;
}

static void gzip_end(struct pki_decoder *d)
{
	inflateEnd(&d->u.z);
}

#ifdef HAVE_ZSTD
static int zstd_init(struct pki_decoder *d)
{
	d->u.zstd = ZSTD_createDStream();
	return d->u.zstd ? 0 : -1;
}

static int zstd_step(struct pki_decoder *d, struct pki_decoder_io *io,
		     int finish, const char **why)
{
	ZSTD_inBuffer in = { io->in, io->in_len, 0 };
	ZSTD_outBuffer out = { io->out, io->out_len, 0 };
	size_t ret = ZSTD_decompressStream(d->u.zstd, &out, &in);

	(void)finish;
	io->in += in.pos;
	io->in_len -= in.pos;
	io->out += out.pos;
	io->out_len -= out.pos;
	if (ZSTD_isError(ret)) {
		*why = ZSTD_getErrorName(ret);
		return -1;
	}
	return ret == 0;	/* 0: a frame was decoded and flushed whole */
}

static void zstd_end(struct pki_decoder *d)
{
	ZSTD_freeDStream(d->u.zstd);
}
#endif

#ifdef HAVE_LZMA
static int xz_init(struct pki_decoder *d)
{
	lzma_stream init = LZMA_STREAM_INIT;

	d->u.xz = init;
	return lzma_stream_decoder(&d->u.xz, UINT64_MAX,
				   LZMA_CONCATENATED) == LZMA_OK ? 0 : -1;
}

static const char *xz_strerror(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR: return "out of memory";
	case LZMA_FORMAT_ERROR: return "not xz data";
	case LZMA_OPTIONS_ERROR: return "unsupported options";
	case LZMA_DATA_ERROR: return "corrupt data";
	default: return "lzma_code failed";
	}
}

/* LZMA_CONCATENATED: the end comes once, with LZMA_FINISH at the end of
 * the input; LZMA_BUF_ERROR there is a cut stream, which input.c sees as
 * no progress. */
static int xz_step(struct pki_decoder *d, struct pki_decoder_io *io,
		   int finish, const char **why)
{
	lzma_stream *s = &d->u.xz;
	lzma_ret ret;

	s->next_in = io->in;
	s->avail_in = io->in_len;
	s->next_out = io->out;
	s->avail_out = io->out_len;
	ret = lzma_code(s, finish ? LZMA_FINISH : LZMA_RUN);
	io->in = (unsigned char *)s->next_in;
	io->in_len = s->avail_in;
	io->out = s->next_out;
	io->out_len = s->avail_out;
	if (ret == LZMA_STREAM_END)
		return 1;
	if (ret == LZMA_OK || ret == LZMA_BUF_ERROR)
		return 0;
	*why = xz_strerror(ret);
	return -1;
}

static void xz_end(struct pki_decoder *d)
{
	lzma_end(&d->u.xz);
}
#endif

#ifdef HAVE_BZIP2
static int bzip2_init(struct pki_decoder *d)
{
	memset(&d->u.bz, 0, sizeof(d->u.bz));
	return BZ2_bzDecompressInit(&d->u.bz, 0, 0) == BZ_OK ? 0 : -1;
}

static const char *bzip2_strerror(int ret)
{
	switch (ret) {
	case BZ_MEM_ERROR: return "out of memory";
	case BZ_DATA_ERROR_MAGIC: return "not bzip2 data";
	case BZ_DATA_ERROR: return "corrupt data";
	default: return "BZ2_bzDecompress failed";
	}
}

static int bzip2_step(struct pki_decoder *d, struct pki_decoder_io *io,
		      int finish, const char **why)
{
	bz_stream *bz = &d->u.bz;
	int ret;

	(void)finish;
	bz->next_in = (char *)io->in;
	bz->avail_in = uint_len(io->in_len);
	bz->next_out = (char *)io->out;
	bz->avail_out = uint_len(io->out_len);
	ret = BZ2_bzDecompress(bz);
	io->in_len -= (size_t)((unsigned char *)bz->next_in - io->in);
	io->in = (unsigned char *)bz->next_in;
	io->out_len -= (size_t)((unsigned char *)bz->next_out - io->out);
	io->out = (unsigned char *)bz->next_out;
	if (ret == BZ_STREAM_END) {
		/* libbz2 has no reset: a next stream needs a new decoder */
		BZ2_bzDecompressEnd(bz);
		if (bzip2_init(d) == 0)
			return 1;
		*why = "out of memory";
		return -1;
	}
	if (ret == BZ_OK)
		return 0;
	*why = bzip2_strerror(ret);
	return -1;
}

static void bzip2_end(struct pki_decoder *d)
{
	BZ2_bzDecompressEnd(&d->u.bz);
}
#endif

#ifdef HAVE_ZSTD
#define ZSTD_CODEC NULL, zstd_init, zstd_step, zstd_end
#else
#define ZSTD_CODEC "libzstd (configure --with-zstd)", NULL, NULL, NULL
#endif
#ifdef HAVE_LZMA
#define XZ_CODEC NULL, xz_init, xz_step, xz_end
#else
#define XZ_CODEC "liblzma (configure --with-lzma)", NULL, NULL, NULL
#endif
#ifdef HAVE_BZIP2
#define BZIP2_CODEC NULL, bzip2_init, bzip2_step, bzip2_end
#else
#define BZIP2_CODEC "libbz2 (configure --with-bzip2)", NULL, NULL, NULL
#endif

/* "BZh" then the block size, 1 to 9, then a block's or the end's magic */
static const struct codec codecs[] = {
	{ "gzip", "\x1f\x8b", 2, NULL, gzip_init, gzip_step, gzip_end },
	{ "zstd", "\x28\xb5\x2f\xfd", 4, ZSTD_CODEC },
	{ "xz", "\xfd" "7zXZ\0", 6, XZ_CODEC },
	{ "bzip2", "BZh", 3, BZIP2_CODEC },
};

static int bzip2_block_size_ok(const unsigned char *magic, size_t len)
{
	return len >= 5 && magic[3] >= '1' && magic[3] <= '9' &&
	       (magic[4] == 0x31 || magic[4] == 0x17);
}

static const struct codec *codec_of(const unsigned char *magic, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		const struct codec *c = &codecs[i];

		if (len < c->magic_len || memcmp(magic, c->magic, c->magic_len))
			continue;
		if (strcmp(c->name, "bzip2") == 0 &&
		    !bzip2_block_size_ok(magic, len))
			continue;
		return c;
	}
	return NULL;
}

const char *pki_codec_sniff(const unsigned char *magic, size_t len)
{
	const struct codec *c = codec_of(magic, len);

	return c ? c->name : NULL;
}

struct pki_decoder *pki_decoder_new(const char *name, const char **why)
{
	const struct codec *c = NULL;
	struct pki_decoder *d;
	size_t i;

	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (strcmp(codecs[i].name, name) == 0)
			c = &codecs[i];
	if (c && c->missing) {
		*why = c->missing;
		return NULL;
	}
	d = c ? calloc(1, sizeof(*d)) : NULL;
	if (!d || c->init(d) < 0) {
		free(d);
		*why = NULL;
		return NULL;
	}
	d->codec = c;
	return d;
}

void pki_decoder_free(struct pki_decoder *d)
{
	if (!d)
		return;
	d->codec->end(d);
	free(d);
}

int pki_decoder_step(struct pki_decoder *d, struct pki_decoder_io *io,
		     int finish, const char **why)
{
	return d->codec->step(d, io, finish, why);
}
