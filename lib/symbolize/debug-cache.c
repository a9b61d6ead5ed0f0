/* SPDX-License-Identifier: MIT */
/* Plain copies of compressed debug files (debug-cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "debug-cache.h"
#include "finder.h"
#include "core/internal.h"

/* Debug files whose DWARF inflates to more than this are not copied. */
#define PLAIN_MAX ((uint64_t)1 << 30)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ELFDATA ELFDATA2MSB
#else
#define HOST_ELFDATA ELFDATA2LSB
#endif

/*
 * The section headers of a file in the layout this machine reads
 * natively, ELF64 in its byte order (they are patched as plain structs):
 * a malloc'd copy and their number, or NULL.
 */
static Elf64_Shdr *native_sections(Elf *elf, const unsigned char *image,
				   size_t size, size_t *nsec)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	size_t n;

	if (!image || size < sizeof(eh) || gelf_getclass(elf) != ELFCLASS64)
		return NULL;
	memcpy(&eh, image, sizeof(eh));
	if (eh.e_ident[EI_DATA] != HOST_ELFDATA ||
	    elf_getshdrnum(elf, &n) < 0 || n == 0 || eh.e_shnum != n ||
	    eh.e_shentsize != sizeof(*sh) || eh.e_shoff > size ||
	    n > (size - eh.e_shoff) / sizeof(*sh) ||
	    !(sh = malloc(n * sizeof(*sh))))
		return NULL;
	memcpy(sh, image + eh.e_shoff, n * sizeof(*sh));
	*nsec = n;
	return sh;
}

/* Whether sh is a zlib-compressed (ELFCOMPRESS_ZLIB) section; its
 * header in *ch. */
static int zlib_section(const unsigned char *image, size_t size,
			const Elf64_Shdr *sh, Elf64_Chdr *ch)
{
	if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS ||
	    sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
	    sh->sh_size < sizeof(*ch))
		return 0;
	memcpy(ch, image + sh->sh_offset, sizeof(*ch));
	return ch->ch_type == ELFCOMPRESS_ZLIB;
}

/*
 * Whether a plain copy can be made and then used: some section
 * zlib-compressed, every compressed one zlib (one left compressed, as a
 * zstd one would be, makes a copy plain_and_whole refuses), each small
 * enough to inflate in one go and no more than PLAIN_MAX in all. Decided
 * before a byte is written, not found out after the copy is made.
 */
static int worth_a_copy(const unsigned char *image, size_t size,
			const Elf64_Shdr *sh, size_t nsec)
{
	uint64_t inflated = 0;
	Elf64_Chdr ch;
	size_t i;
	int any = 0;

	for (i = 0; i < nsec; i++) {
		if (!(sh[i].sh_flags & SHF_COMPRESSED))
			continue;
		if (!zlib_section(image, size, &sh[i], &ch) ||
		    sh[i].sh_size > UINT32_MAX || ch.ch_addralign > 4096 ||
		    ch.ch_size > PLAIN_MAX - inflated)
			return 0;
		inflated += ch.ch_size;
		any = 1;
	}
	return any;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Zeros up to a multiple of align; *at is the file's end, moved on. */
static int pad_to(int fd, uint64_t *at, uint64_t align)
{
	static const char zeros[64];
	uint64_t pad = align > 1 && *at % align ? align - *at % align : 0;

	*at += pad;
	while (pad) {
		size_t n = pad < sizeof(zeros) ? (size_t)pad : sizeof(zeros);

		if (write_all(fd, zeros, n))
			return -1;
		pad -= n;
	}
	return 0;
}

/* Inflate a section's stream (after its header, at in) to the file's
 * end: exactly ch->ch_size bytes, or -1. */
static int inflate_section(int fd, const Elf64_Chdr *ch,
			   const unsigned char *in, size_t in_size)
{
	unsigned char out[1 << 16];
	uint64_t left = ch->ch_size;
	z_stream z;
	int rc = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)in + sizeof(*ch);
	z.avail_in = (uInt)(in_size - sizeof(*ch));
	while (rc == Z_OK) {
		size_t got;

		z.next_out = out;
		z.avail_out = sizeof(out);
		rc = inflate(&z, Z_NO_FLUSH);
		got = sizeof(out) - z.avail_out;
		if ((rc != Z_OK && rc != Z_STREAM_END) || got > left ||
		    write_all(fd, out, got))
			break;
		left -= got;
	}
	inflateEnd(&z);
	return rc == Z_STREAM_END && !left ? 0 : -1;
}

/*
 * The file's bytes as they are, then each compressed section inflated,
 * then the section headers pointing there instead; the ELF header's
 * e_shoff last. Program headers, notes and symbols stay where they were.
 * The file is one worth_a_copy accepts.
 */
static int write_plain(int out, const unsigned char *image, size_t size,
		       Elf64_Shdr *sh, size_t nsec)
{
	uint64_t at = size, shoff;
	Elf64_Chdr ch;
	size_t i;

	if (write_all(out, image, size))
		return -1;
	for (i = 0; i < nsec; i++) {
		if (!zlib_section(image, size, &sh[i], &ch))
			continue;
		if (pad_to(out, &at, ch.ch_addralign) ||
		    inflate_section(out, &ch, image + sh[i].sh_offset,
				    sh[i].sh_size))
			return -1;
		sh[i].sh_offset = at;
		sh[i].sh_size = ch.ch_size;
		sh[i].sh_addralign = ch.ch_addralign;
		sh[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		at += ch.ch_size;
	}
	if (pad_to(out, &at, 8))
		return -1;
	shoff = at;
	return write_all(out, sh, nsec * sizeof(*sh)) ||
	       pwrite(out, &shoff, sizeof(shoff),
		      offsetof(Elf64_Ehdr, e_shoff)) != (ssize_t)sizeof(shoff) ?
	       -1 : 0;
}

/* A whole plain copy: its sections all inside it, none compressed
 * (a copy cut short by a crash is made again). */
static int plain_and_whole(Elf *elf)
{
	const unsigned char *image;
	size_t size = 0, nsec = 0, i;
	Elf64_Shdr *sh;
	int ok;

	image = elf ? (const unsigned char *)elf_rawfile(elf, &size) : NULL;
	sh = native_sections(elf, image, size, &nsec);
	ok = sh != NULL;
	for (i = 0; ok && i < nsec; i++)
		ok = !(sh[i].sh_flags & SHF_COMPRESSED) &&
		     (sh[i].sh_type == SHT_NOBITS ||
		      (sh[i].sh_offset <= size &&
		       sh[i].sh_size <= size - sh[i].sh_offset));
	free(sh);
	return ok;
}

/* A file in the cache of build id bid, if it is one: its fd, or -1. */
static int open_cached(const char *path, const char *bid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char hex[81];
	Elf *elf;
	int ok;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	sym_elf_build_id(elf, hex);
	ok = strcmp(hex, bid) == 0 && plain_and_whole(elf);
	elf_end(elf);
	if (ok)
		return fd;
	close(fd);
	return -1;
}

/* mkdir -p of dir's parent and dir; 0 or -1. */
static int make_dirs(char *dir)
{
	char *slash = strrchr(dir, '/');
	int rc;

	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT || !slash || slash == dir)
		return -1;
	*slash = '\0';
	rc = make_dirs(dir);
	*slash = '/';
	return rc || (mkdir(dir, 0700) < 0 && errno != EEXIST) ? -1 : 0;
}

/* Write the plain copy of image as path, atomically: 0 or -1. */
static int store_plain(const char *path, const unsigned char *image,
		       size_t size, Elf64_Shdr *sh, size_t nsec)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".XXXXXX")), *dir = strdup(path);
	int out = -1, rc = -1;

	if (!tmp || !dir)
		goto done;
	*strrchr(dir, '/') = '\0';
	snprintf(tmp, len + sizeof(".XXXXXX"), "%s.XXXXXX", path);
	if (make_dirs(dir) || (out = mkstemp(tmp)) < 0)
		goto done;
	rc = write_plain(out, image, size, sh, nsec);
	if (close(out) < 0 || (!rc && rename(tmp, path) < 0))
		rc = -1;
	if (rc)
		unlink(tmp);
done:
	free(tmp);
	free(dir);
	return rc;
}

int sym_debug_plain(const char *cache_dir, int fd)
{
	Elf *elf;
	const unsigned char *image;
	Elf64_Shdr *sh = NULL;
	char bid[81] = "", *path = NULL;
	size_t size = 0, nsec = 0;
	int plain = -1;

	if (!cache_dir || fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	image = elf ? (const unsigned char *)elf_rawfile(elf, &size) : NULL;
	if (image && (sh = native_sections(elf, image, size, &nsec)))
		sym_elf_build_id(elf, bid);
	if (sh && worth_a_copy(image, size, sh, nsec) && *bid &&
	    (path = malloc(strlen(cache_dir) + strlen(bid) + 16))) {
		sprintf(path, "%s/debug/%s.debug", cache_dir, bid);
		plain = open_cached(path, bid);
		if (plain < 0 && !store_plain(path, image, size, sh, nsec))
			plain = open_cached(path, bid);
	}
	elf_end(elf);
	free(sh);
	free(path);
	return plain;
}
