/* SPDX-License-Identifier: MIT */
/*
 * Outputs: stdout, a file made atomically (temporary name, rename on
 * commit, unlink on abort), or memory; optionally gzip-compressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

#define OUTPUT_CHUNK (256 * 1024)

struct pk_output {
	struct pk_context *ctx;
	char *path, *tmp_path;
	int fd;			/* -1 for memory */
	unsigned char *buf;
	size_t len, cap;
	int gzip, failed;
	z_stream z;
	unsigned char *zbuf;
};

static int output_new(struct pk_context *ctx, struct pk_output **out)
{
	struct pk_output *o = calloc(1, sizeof(*o));

	if (!o)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	o->ctx = ctx;
	o->fd = -1;
	*out = o;
	return 0;
}

static void output_free(struct pk_output *o)
{
	if (o->zbuf)
		deflateEnd(&o->z);
	free(o->zbuf);
	free(o->buf);
	free(o->path);
	free(o->tmp_path);
	free(o);
}

static const char *output_name(const struct pk_output *o)
{
	return o->path ? o->path : "<stdout>";
}

int pki_output_gzip_if_named(struct pk_output *o)
{
	return o->path && pki_ends_with(o->path, ".gz") ? pk_output_start_gzip(o) : 0;
}

/* Open path.tmp.PID.N exclusively; the mode honours the umask. */
static int open_temporary(struct pk_output *o)
{
	size_t size = strlen(o->path) + 64;
	int attempt;

	o->tmp_path = malloc(size);
	if (!o->tmp_path)
		return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
	for (attempt = 0; attempt < 100; attempt++) {
		snprintf(o->tmp_path, size, "%s.tmp.%ld.%d", o->path,
			 (long)getpid(), attempt);
		o->fd = open(o->tmp_path,
			     O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	if (o->fd < 0)
		return pk_error_set(o->ctx, PK_EIO, "cannot create '%s': %s",
				    o->path, strerror(errno));
	return 0;
}

int pk_output_open(struct pk_context *ctx, const char *path,
		   struct pk_output **out)
{
	struct pk_output *o = NULL;
	int rc = output_new(ctx, &o);

	if (rc)
		return rc;
	o->cap = OUTPUT_CHUNK;
	o->buf = malloc(o->cap);
	if (!o->buf) {
		output_free(o);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	if (!path || strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
	} else {
		o->path = strdup(path);
		rc = o->path ? open_temporary(o) :
			pk_error_set(ctx, PK_ENOMEM, "out of memory");
		if (rc) {
			pk_output_abort(o);
			return rc;
		}
	}
	*out = o;
	return 0;
}

int pk_output_open_memory(struct pk_context *ctx, struct pk_output **out)
{
	return output_new(ctx, out);
}

const unsigned char *pk_output_memory(const struct pk_output *out,
				      size_t *size)
{
	*size = out->len;
	return out->buf;
}

static int flush_buffer(struct pk_output *o)
{
	size_t done = 0;

	if (o->fd < 0)
		return 0;
	while (done < o->len) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			o->failed = 1;
			return pk_error_set(o->ctx, PK_EIO,
					    "cannot write '%s': %s",
					    output_name(o), strerror(errno));
		}
		done += (size_t)n;
	}
	o->len = 0;
	return 0;
}

/* Append to the buffer; memory outputs grow, file outputs flush. */
static int emit(struct pk_output *o, const void *data, size_t n)
{
	const unsigned char *p = data;

	if (o->failed)
		return PK_EIO;
	if (o->fd < 0) {
		if (pki_grow(&o->buf, &o->cap, o->len + n, 1) < 0) {
			o->failed = 1;
			return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
		}
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return 0;
	}
	while (n) {
		size_t take = o->cap - o->len < n ? o->cap - o->len : n;

		memcpy(o->buf + o->len, p, take);
		o->len += take;
		p += take;
		n -= take;
		if (o->len == o->cap && flush_buffer(o))
			return PK_EIO;
	}
	return 0;
}

static int deflate_some(struct pk_output *o, const void *data, size_t n,
			int flush)
{
	o->z.next_in = (Bytef *)data;
	o->z.avail_in = (uInt)n;
	do {
		int rc;

		o->z.next_out = o->zbuf;
		o->z.avail_out = OUTPUT_CHUNK;
		rc = deflate(&o->z, flush);
		if (rc == Z_STREAM_ERROR)
			return pk_error_set(o->ctx, PK_EIO, "gzip failed");
		if (emit(o, o->zbuf, OUTPUT_CHUNK - o->z.avail_out))
			return PK_EIO;
	} while (o->z.avail_out == 0 || o->z.avail_in > 0);
	return 0;
}

int pk_output_start_gzip(struct pk_output *o)
{
	/* compressed bytes only garble a terminal; gzip refuses to write
	 * them there, a warning is enough (the bytes go where asked) */
	if (o->fd >= 0 && isatty(o->fd))
		pk_warn(o->ctx, "%s is a terminal: writing gzip-compressed "
			"data to it; use -o FILE or redirect it",
			output_name(o));
	o->zbuf = malloc(OUTPUT_CHUNK);
	if (!o->zbuf || deflateInit2(&o->z, 6, Z_DEFLATED, 15 + 16, 8,
				     Z_DEFAULT_STRATEGY) != Z_OK)
		return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
	o->gzip = 1;
	return 0;
}

int pk_output_write(struct pk_output *o, const void *buf, size_t n)
{
	if (!o->gzip)
		return emit(o, buf, n);
	while (n) {
		/* avail_in is 32-bit */
		size_t take = n > (1u << 30) ? (1u << 30) : n;

		if (deflate_some(o, buf, take, Z_NO_FLUSH))
			return PK_EIO;
		buf = (const unsigned char *)buf + take;
		n -= take;
	}
	return 0;
}

int pk_output_puts(struct pk_output *o, const char *s)
{
	return pk_output_write(o, s, strlen(s));
}

int pk_output_putc(struct pk_output *o, int c)
{
	unsigned char ch = (unsigned char)c;

	if (!o->gzip && o->fd >= 0 && o->len < o->cap) {
		o->buf[o->len++] = ch;
		return 0;
	}
	return pk_output_write(o, &ch, 1);
}

int pk_output_printf(struct pk_output *o, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return pk_error_set(o->ctx, PK_EIO, "format error");
	if ((size_t)n < sizeof(small))
		return pk_output_write(o, small, (size_t)n);
	big = malloc((size_t)n + 1);
	if (!big)
		return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = pk_output_write(o, big, (size_t)n);
	free(big);
	return rc;
}

int pk_output_finish(struct pk_output *o)
{
	int rc = 0;

	if (o->gzip == 1 && !o->failed) {
		rc = deflate_some(o, "", 0, Z_FINISH);
		o->gzip = 2;	/* finished: nothing more to compress */
	}
	if (!rc && !o->failed)
		rc = flush_buffer(o);
	if (o->failed && !rc)
		rc = PK_EIO;
	return rc;
}

int pk_output_commit(struct pk_output *o)
{
	int rc = pk_output_finish(o);

	if (o->tmp_path) {
		if (close(o->fd) < 0 && !rc)
			rc = pk_error_set(o->ctx, PK_EIO,
					  "cannot write '%s': %s", o->path,
					  strerror(errno));
		o->fd = -1;
		if (!rc && rename(o->tmp_path, o->path) < 0)
			rc = pk_error_set(o->ctx, PK_EIO,
					  "cannot rename '%s' to '%s': %s",
					  o->tmp_path, o->path,
					  strerror(errno));
		if (rc)
			unlink(o->tmp_path);
	}
	output_free(o);
	return rc;
}

void pk_output_abort(struct pk_output *o)
{
	if (!o)
		return;
	if (o->tmp_path && o->fd >= 0) {
		close(o->fd);
		unlink(o->tmp_path);
	}
	output_free(o);
}
