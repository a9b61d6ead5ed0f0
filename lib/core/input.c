/* SPDX-License-Identifier: MIT */
/*
 * Input streams: a file, stdin or memory, with gzip, zstd, xz or bzip2
 * undone on the fly.
 * Readers peek (for probing), take lines (text formats) or read bytes
 * (binary formats) from one buffer, so probing a pipe loses nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decompress.h"
#include "internal.h"
#include "util/json-read.h"

#define INPUT_CHUNK (1024 * 1024)
/*
 * The first read from an input, at most: more than the formats' probes
 * look at, and little enough that a file mapped after them
 * (pki_input_map) is not first copied by a megabyte's read into pages
 * never touched before, on the one thread that runs then.
 */
#define FIRST_READ (64 * 1024)
/* Longer lines are an error: no text format we read needs them. */
#define MAX_LINE (64 * 1024 * 1024)

struct pk_input {
	struct pk_context *ctx;
	char *name;
	int fd;
	const unsigned char *mem;	/* memory source, or NULL */
	size_t mem_size, mem_pos;
	int64_t file_size;
	int64_t fd_start;	/* where the fd was at open, or -1 */
	void *map;		/* the file mapped by pki_input_map */
	size_t map_len;
	int raw_eof;

	const char *codec;	/* "gzip", "xz", ... or NULL: as it is */
	struct pki_decoder *dec;
	unsigned char *cbuf;	/* compressed bytes read, cavail from cnext */
	size_t cbuf_len, cnext, cavail;
	uint64_t cused;		/* compressed bytes decoded: the offset */
	int between;		/* a compressed stream ended, none began */
	int cdone;		/* the last stream ended at the end of input */

	unsigned char *buf;	/* decompressed bytes [pos, end) */
	size_t cap, pos, end;
	uint64_t base;		/* stream offset of buf[0] */
	int eof, failed;
	uint64_t lineno;

	uint64_t raw_done, progress_next;	/* file bytes read, next report */
	char *progress_what;	/* "reading NAME" */
};

#define PROGRESS_STEP (1u << 20)

static ssize_t raw_read(struct pk_input *in, void *dst, size_t n)
{
	ssize_t got;

	if (in->mem) {
		size_t left = in->mem_size - in->mem_pos;

		if (n > left)
			n = left;
		memcpy(dst, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		return (ssize_t)n;
	}
	do
		got = read(in->fd, dst, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return pk_error_set(in->ctx, PK_EIO, "%s: read failed: %s",
				    in->name, strerror(errno));
	in->raw_done += (uint64_t)got;
	if (in->raw_done >= in->progress_next && in->progress_what) {
		in->progress_next = in->raw_done + PROGRESS_STEP;
		pk_progress(in->ctx, in->progress_what, in->raw_done,
			    in->file_size > 0 ? (uint64_t)in->file_size : 0);
	}
	return got;
}

static ssize_t compressed_refill(struct pk_input *in)
{
	ssize_t got = raw_read(in, in->cbuf, in->cbuf_len);

	if (got < 0)
		return got;
	if (got == 0)
		in->raw_eof = 1;
	in->cnext = 0;
	in->cavail = (size_t)got;
	return got;
}

/* One decoder step; 1 when it consumed or produced something. */
static int compressed_step(struct pk_input *in, struct pki_decoder_io *io)
{
	size_t in_before = io->in_len, out_before = io->out_len;
	const char *why = NULL;
	int rc = pki_decoder_step(in->dec, io, in->raw_eof, &why);

	in->cused += in_before - io->in_len;
	in->cnext += in_before - io->in_len;
	in->cavail = io->in_len;
	if (rc < 0)
		return pk_error_set(in->ctx, PK_EINPUT,
				    "%s: offset %llu: corrupt %s data (%s)",
				    in->name, (unsigned long long)in->cused,
				    in->codec, why);
	if (rc == 1) {
		in->between = 1;
		in->cdone = in->raw_eof && !in->cavail;
		return 1;
	}
	if (in_before == io->in_len && out_before == io->out_len)
		return 0;
	in->between = 0;
	return 1;
}

/* A step that did nothing: the input ended, cleanly or not. */
static int compressed_stuck(struct pk_input *in)
{
	if (in->cavail)
		return pk_error_set(in->ctx, PK_EINPUT,
				    "%s: offset %llu: corrupt %s data",
				    in->name, (unsigned long long)in->cused,
				    in->codec);
	if (in->between)
		return 0;
	return pk_error_set(in->ctx, PK_EINPUT,
			    "%s: offset %llu: %s stream is truncated",
			    in->name, (unsigned long long)in->cused,
			    in->codec);
}

static ssize_t compressed_read(struct pk_input *in, unsigned char *dst,
			       size_t n)
{
	struct pki_decoder_io io = { NULL, 0, dst, n };

	while (io.out_len && !in->cdone) {
		int rc;

		if (!in->cavail && !in->raw_eof) {
			ssize_t got = compressed_refill(in);

			if (got < 0)
				return got;
		}
		io.in = in->cbuf + in->cnext;
		io.in_len = in->cavail;
		rc = compressed_step(in, &io);
		if (rc < 0)
			return rc;
		if (io.out != dst)
			break;
		if (rc == 0 && (in->cavail || in->raw_eof)) {
			rc = compressed_stuck(in);
			if (rc < 0)
				return rc;
			break;
		}
	}
	return (ssize_t)(io.out - dst);
}

static ssize_t stream_read(struct pk_input *in, unsigned char *dst, size_t n)
{
	return in->dec ? compressed_read(in, dst, n) : raw_read(in, dst, n);
}

/* Read once more into the buffer, growing it when full. <0 on error. */
static ssize_t stream_more(struct pk_input *in)
{
	size_t room;
	ssize_t got;

	if (in->eof || in->failed)
		return 0;
	if (in->pos > 0 && in->end == in->cap) {
		memmove(in->buf, in->buf + in->pos, in->end - in->pos);
		in->base += in->pos;
		in->end -= in->pos;
		in->pos = 0;
	}
	if (in->end == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : INPUT_CHUNK;
		unsigned char *grown = realloc(in->buf, cap + 1);

		if (!grown) {
			in->failed = 1;
			return pk_error_set(in->ctx, PK_ENOMEM,
					    "%s: out of memory", in->name);
		}
		in->buf = grown;
		in->cap = cap;
	}
	room = in->cap - in->end;
	if (in->base == 0 && in->end < FIRST_READ && room > FIRST_READ - in->end)
		room = FIRST_READ - in->end;
	got = stream_read(in, in->buf + in->end, room);
	if (got < 0) {
		in->failed = 1;
		return got;
	}
	if (got == 0)
		in->eof = 1;
	in->end += (size_t)got;
	return got;
}

/* Up to n bytes, fewer only at the end: a pipe may give them in parts. */
static ssize_t raw_read_full(struct pk_input *in, unsigned char *dst,
			     size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = raw_read(in, dst + done, n - done);

		if (got < 0)
			return got;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

static int start_decoder(struct pk_input *in, const unsigned char *magic,
			 size_t len)
{
	const char *why = NULL;

	in->dec = pki_decoder_new(in->codec, &why);
	if (!in->dec && why)
		return pk_error_set(in->ctx, PK_EINPUT,
				    "%s: %s-compressed input, but profkit was "
				    "built without %s", in->name, in->codec,
				    why);
	in->cbuf_len = INPUT_CHUNK;
	in->cbuf = in->dec ? malloc(in->cbuf_len) : NULL;
	if (!in->cbuf)
		return pk_error_set(in->ctx, PK_ENOMEM, "%s: out of memory",
				    in->name);
	memcpy(in->cbuf, magic, len);
	in->cavail = len;
	return 0;
}

/* Compressed input gets a decoder, fed the first bytes read here. */
static int start_decompress_if_needed(struct pk_input *in)
{
	unsigned char magic[PKI_CODEC_MAGIC_LEN];
	ssize_t got = raw_read_full(in, magic, sizeof(magic));

	if (got < 0)
		return (int)got;
	in->codec = pki_codec_sniff(magic, (size_t)got);
	if (in->codec)
		return start_decoder(in, magic, (size_t)got);
	/* As it is: the bytes read become the start of the buffer. */
	in->buf = malloc(INPUT_CHUNK + 1);
	if (!in->buf)
		return pk_error_set(in->ctx, PK_ENOMEM, "%s: out of memory",
				    in->name);
	in->cap = INPUT_CHUNK;
	memcpy(in->buf, magic, (size_t)got);
	in->end = (size_t)got;
	if ((size_t)got < sizeof(magic))
		in->eof = 1;
	return 0;
}

static int input_new(struct pk_context *ctx, const char *name,
		     struct pk_input **out)
{
	struct pk_input *in = calloc(1, sizeof(*in));

	if (!in || !(in->name = strdup(name))) {
		free(in);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	in->ctx = ctx;
	in->fd = -1;
	in->file_size = -1;
	in->fd_start = -1;
	*out = in;
	return 0;
}

int pk_input_open(struct pk_context *ctx, const char *path,
		  struct pk_input **out)
{
	struct pk_input *in;
	struct stat st;
	int rc;

	if (!path || strcmp(path, "-") == 0) {
		rc = input_new(ctx, "<stdin>", &in);
		if (rc)
			return rc;
		in->fd = STDIN_FILENO;
	} else {
		rc = input_new(ctx, path, &in);
		if (rc)
			return rc;
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			rc = pk_error_set(ctx, PK_EIO, "cannot open '%s': %s",
					  path, strerror(errno));
			pk_input_close(in);
			return rc;
		}
	}
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->file_size = st.st_size;
		in->fd_start = lseek(in->fd, 0, SEEK_CUR);
	} else if (S_ISDIR(st.st_mode)) {
		rc = pk_error_set(ctx, PK_EIO, "cannot read '%s': %s", path,
				  strerror(EISDIR));
		pk_input_close(in);
		return rc;
	}
	in->progress_what = malloc(strlen(in->name) + sizeof("reading "));
	if (in->progress_what)	/* no progress without memory: no harm */
		sprintf(in->progress_what, "reading %s", in->name);
	in->progress_next = PROGRESS_STEP;
	rc = start_decompress_if_needed(in);
	if (rc) {
		pk_input_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

int pk_input_open_memory(struct pk_context *ctx, const char *name,
			 const void *data, size_t size, struct pk_input **out)
{
	struct pk_input *in;
	int rc = input_new(ctx, name, &in);

	if (rc)
		return rc;
	in->mem = data ? data : (const void *)"";
	in->mem_size = size;
	in->file_size = (int64_t)size;
	rc = start_decompress_if_needed(in);
	if (rc) {
		pk_input_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

void pk_input_close(struct pk_input *in)
{
	if (!in)
		return;
	if (in->progress_what && in->raw_done >= PROGRESS_STEP)
		pk_progress(in->ctx, NULL, in->raw_done, in->raw_done);
	free(in->progress_what);
	if (in->map)
		munmap(in->map, in->map_len);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	pki_decoder_free(in->dec);
	free(in->cbuf);
	free(in->buf);
	free(in->name);
	free(in);
}

const char *pk_input_name(const struct pk_input *in)
{
	return in->name;
}

int64_t pk_input_file_size(const struct pk_input *in)
{
	return in->file_size;
}

/* Any compression: the file size is then not the data's. */
int pk_input_is_compressed(const struct pk_input *in)
{
	return in->codec != NULL;
}

int pk_input_is_gzip(const struct pk_input *in)
{
	return pk_input_is_compressed(in);
}

const unsigned char *pk_input_peek(struct pk_input *in, size_t want,
				   size_t *got)
{
	while (in->end - in->pos < want && !in->eof && !in->failed) {
		if (stream_more(in) < 0)
			break;
	}
	*got = in->end - in->pos;
	if (*got > want)
		*got = want;
	return in->buf ? in->buf + in->pos : (const unsigned char *)"";
}

int pki_input_is_empty(struct pk_input *in)
{
	size_t got;

	pk_input_peek(in, 1, &got);
	return got == 0 && !in->failed;
}

const char *pk_input_line(struct pk_input *in, size_t *len)
{
	size_t scanned = 0;

	for (;;) {
		/* no buffer yet before a gzip stream's first bytes */
		unsigned char *start = in->buf ? in->buf + in->pos : NULL;
		size_t avail = in->end - in->pos;
		unsigned char *nl = avail > scanned ?
			memchr(start + scanned, '\n', avail - scanned) : NULL;

		if (nl || (in->eof && avail)) {
			size_t n = nl ? (size_t)(nl - start) : avail;

			in->pos += nl ? n + 1 : n;
			if (n && start[n - 1] == '\r')
				n--;
			start[n] = '\0';	/* the buffer has a spare byte */
			in->lineno++;
			*len = n;
			return (const char *)start;
		}
		if (in->eof || in->failed)
			return NULL;
		if (avail >= MAX_LINE) {
			in->failed = 1;
			pk_error_set(in->ctx, PK_EINPUT,
				     "%s: line %llu: longer than %d MiB "
				     "(binary data? try --from)",
				     in->name,
				     (unsigned long long)in->lineno + 1,
				     MAX_LINE >> 20);
			return NULL;
		}
		scanned = avail;
		if (stream_more(in) < 0)
			return NULL;
	}
}

uint64_t pk_input_lineno(const struct pk_input *in)
{
	return in->lineno;
}

ssize_t pk_input_read(struct pk_input *in, void *dst, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t avail = in->end - in->pos;

		if (avail) {
			size_t take = avail < n - done ? avail : n - done;

			memcpy((unsigned char *)dst + done, in->buf + in->pos,
			       take);
			in->pos += take;
			done += take;
			continue;
		}
		if (in->eof || in->failed)
			break;
		if (n - done >= INPUT_CHUNK) {
			/* Large reads skip the buffer. */
			ssize_t got = stream_read(in, (unsigned char *)dst + done,
						  n - done);

			if (got < 0) {
				in->failed = 1;
				return got;
			}
			if (got == 0)
				in->eof = 1;
			in->base += (uint64_t)got;
			done += (size_t)got;
			continue;
		}
		if (stream_more(in) < 0)
			return pk_context_error(in->ctx)->code;
	}
	return (ssize_t)done;
}

uint64_t pk_input_offset(const struct pk_input *in)
{
	return in->base + in->pos;
}

void pki_input_skip(struct pk_input *in, size_t n)
{
	in->pos += n < in->end - in->pos ? n : in->end - in->pos;
}

/* The rest of a regular file, mapped, from stream offset off. */
static const unsigned char *map_file(struct pk_input *in, uint64_t off,
				     size_t *size)
{
	struct stat st;
	void *map;

	if (in->fd < 0 || in->fd_start < 0 || fstat(in->fd, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX ||
	    (uint64_t)st.st_size <= (uint64_t)in->fd_start + off)
		return NULL;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	in->map = map;
	in->map_len = (size_t)st.st_size;
	*size = in->map_len - (size_t)in->fd_start - (size_t)off;
	return (const unsigned char *)map + in->fd_start + off;
}

void pki_input_unmap_part(const struct pk_input *in, const void *start,
			  size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)start + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)start + len) & ~(page - 1);

	/* memory of pk_input_open_memory is the caller's: only a file's */
	if (in->map && from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

const unsigned char *pki_input_map(struct pk_input *in, size_t *size)
{
	uint64_t off = pk_input_offset(in);
	const unsigned char *data;

	if (in->codec || in->failed || in->map)
		return NULL;
	if (in->mem) {
		if (off >= in->mem_size)
			return NULL;
		data = in->mem + off;
		*size = in->mem_size - (size_t)off;
	} else if (!(data = map_file(in, off, size))) {
		return NULL;
	}
	/* all of it is the caller's now: nothing is left to read */
	in->base = off + *size - in->end;
	in->pos = in->end;
	in->eof = 1;
	return data;
}

int pk_input_slurp(struct pk_input *in, size_t max, unsigned char **data,
		   size_t *size)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t got;

		if (pki_grow(&buf, &cap, len + INPUT_CHUNK, 1) < 0) {
			free(buf);
			return pk_error_set(in->ctx, PK_ENOMEM,
					    "%s: out of memory", in->name);
		}
		got = pk_input_read(in, buf + len, cap - len);
		if (got < 0) {
			free(buf);
			return (int)got;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > max) {
			free(buf);
			return pk_error_set(in->ctx, PK_ENOMEM,
					    "%s: larger than the memory limit "
					    "of %zu MiB (see --max-memory)",
					    in->name, max >> 20);
		}
	}
	*data = buf;
	*size = len;
	return 0;
}

int pki_input_read_json(struct pk_input *in, const struct pki_json_path *paths,
			pki_json_value_fn *value, void *arg)
{
	const struct pki_json_read_spec spec = {
		.paths = paths, .value = value, .arg = arg,
		.einput = PK_EINPUT, .enomem = PK_ENOMEM,
	};
	struct pki_json_reader *jr = pki_json_reader_new(&spec);
	unsigned char *buf = malloc(INPUT_CHUNK);
	ssize_t got = 0;
	int rc = jr && buf ? 0 : PK_ENOMEM;

	while (!rc && (got = pk_input_read(in, buf, INPUT_CHUNK)) > 0)
		rc = pki_json_reader_feed(jr, buf, (size_t)got);
	free(buf);
	if (!rc && got < 0)
		rc = (int)got;
	else if (!rc)
		rc = pki_json_reader_finish(jr);
	if (rc == PK_ENOMEM)
		pk_error_set(in->ctx, rc, "%s: out of memory", in->name);
	else if (rc && *pki_json_reader_error(jr))
		pk_error_set(in->ctx, rc, "%s: %s", in->name, pki_json_reader_error(jr));
	pki_json_reader_free(jr);
	return rc;
}
