/* SPDX-License-Identifier: MIT */
/*
 * Outputs: stdout, a file made atomically (temporary name, rename on
 * commit, unlink on abort), or memory; optionally gzip-compressed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "internal.h"
#include "util/json.h"

#define OUTPUT_CHUNK (256 * 1024)
#define BEHIND_PARTS 4		/* parts given, waiting to be compressed */
#define BEHIND_FROM (1024 * 1024)	/* bytes given before a thread pays */

struct behind;

struct pk_output {
	struct pk_context *ctx;
	char *path, *tmp_path;
	int direct;	/* fd opened on path itself (a device or a FIFO) */
	int fd;			/* -1 for memory */
	unsigned char *buf;
	size_t len, cap;
	int gzip, failed;
	z_stream z;
	unsigned char *zbuf;
	struct behind *behind;	/* compressing on a thread (pki_output_give) */
	size_t given;		/* bytes given to pki_output_give */
};

/*
 * Compression behind the writer: level 6 deflate of a big profile takes
 * as long as making its bytes, so parts given by pki_output_give are
 * compressed on a thread while the writer makes the next. One stream,
 * fed the same bytes in the same order: the output is byte for byte what
 * pk_output_write makes. While the thread runs, it alone uses the
 * output (every other call ends it first); its errors wait in message
 * for the caller's thread, which owns the context.
 */
struct behind {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct {
		void *data;
		size_t n;
	} parts[BEHIND_PARTS];
	size_t first, count;
	int closing;		/* no more parts will come */
	int failed;		/* a part could not be written */
	int code;		/* the thread's error, 0 if none */
	char message[256];
};

/*
 * The output this thread compresses for (behind_main sets it), or NULL:
 * known on the thread from its first instruction. Not b->thread, which
 * pthread_create stores, on musl after the thread has started: comparing
 * with it holds only while the thread fails on nothing before the first
 * part it is given (under b->lock, after the store).
 */
static _Thread_local const struct pk_output *compressing;

/* An error of writing: the context's, or kept for it while the thread
 * compresses. */
static int output_error(struct pk_output *o, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int output_error(struct pk_output *o, int code, const char *fmt, ...)
{
	struct behind *b = o->behind;
	va_list ap;

	va_start(ap, fmt);
	if (b && compressing == o) {
		if (!b->code) {
			vsnprintf(b->message, sizeof(b->message), fmt, ap);
			b->code = code;
		}
	} else {
		pk_error_setv(o->ctx, code, fmt, ap);
	}
	va_end(ap);
	return code;
}

static int behind_join(struct pk_output *o, int report);

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
	behind_join(o, 0);
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

int pki_profile_is_nothing(const struct pk_profile *p)
{
	return !pk_profile_sample_count(p) && !pk_profile_sample_type_count(p);
}

int pki_write_nothing(struct pk_context *ctx, const struct pk_options *opts,
		      struct pk_output *out,
		      int (*write)(struct pk_context *, const struct pk_profile *,
				   const struct pk_options *, struct pk_output *))
{
	struct pk_profile *counts = pk_profile_new(0);
	int rc;

	if (!counts || pk_profile_add_sample_type(counts, "samples", "count",
						  NULL, PK_VALUE_COUNT) < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	else
		rc = write(ctx, counts, opts, out);
	pk_profile_free(counts);
	return rc;
}

int pki_output_gzip_if_named(struct pk_output *o)
{
	return o->path && pki_ends_with(o->path, ".gz") ? pk_output_start_gzip(o) : 0;
}

/*
 * A temporary file is DIR/.BASE.tmp.PID.N beside its output DIR/BASE:
 * hidden, so a listing of DIR (a batch's outputs) shows only whole
 * outputs under their final names, whatever moment a run was killed at.
 * The PID says whose it is, so the next run writing BASE removes the
 * ones whose writer is gone.
 */
static char *temporary_prefix(const char *path, size_t *dir_len)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t size = strlen(path) + sizeof("..tmp.");
	char *prefix = malloc(size);

	if (prefix)
		snprintf(prefix, size, "%.*s.%s.tmp.", (int)dlen, path,
			 path + dlen);
	*dir_len = dlen;
	return prefix;
}

/*
 * Whether the process PID has ended. A killed job whose parent died too
 * stays a zombie until its new parent reaps it, and in a container whose
 * first process never reaps, that is forever: kill() still finds it, so
 * Linux's /proc is asked for its state too.
 */
static int writer_gone(long pid)
{
	char path[48], stat[128], *state;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) != 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses */
	state = strrchr(stat, ')');
	return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

/* Remove DIR/.BASE.tmp.PID.N files left by runs that were killed. */
static void remove_stale_temporaries(const char *prefix, size_t dir_len)
{
	const char *name_prefix = prefix + dir_len;
	size_t name_len = strlen(name_prefix);
	char *dir = dir_len ? strndup(prefix, dir_len) : strdup(".");
	struct dirent *e;
	DIR *d;

	d = dir ? opendir(dir) : NULL;
	while (d && (e = readdir(d))) {
		char *end, *path;
		long pid;

		if (strncmp(e->d_name, name_prefix, name_len) != 0)
			continue;
		pid = strtol(e->d_name + name_len, &end, 10);
		if (pid <= 0 || *end != '.' || pid == (long)getpid() ||
		    !writer_gone(pid))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) >= 0) {
			unlink(path);
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Open the temporary exclusively; the mode honours the umask. */
static int open_temporary(struct pk_output *o)
{
	size_t dir_len, size;
	char *prefix = temporary_prefix(o->path, &dir_len);
	int attempt;

	if (!prefix)
		return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
	remove_stale_temporaries(prefix, dir_len);
	size = strlen(prefix) + 48;
	o->tmp_path = malloc(size);
	if (!o->tmp_path) {
		free(prefix);
		return pk_error_set(o->ctx, PK_ENOMEM, "out of memory");
	}
	for (attempt = 0; attempt < 100; attempt++) {
		snprintf(o->tmp_path, size, "%s%ld.%d", prefix,
			 (long)getpid(), attempt);
		o->fd = open(o->tmp_path,
			     O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	free(prefix);
	if (o->fd < 0)
		return pk_error_set(o->ctx, PK_EIO, "cannot create '%s': %s",
				    o->path, strerror(errno));
	return 0;
}

/*
 * A path that names something other than a file or nothing (/dev/null,
 * a FIFO, /dev/stdout) is written in place: renaming a temporary over it
 * would replace the device with a file.
 */
static int is_special_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int open_direct(struct pk_output *o)
{
	o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0)
		return pk_error_set(o->ctx, PK_EIO, "cannot open '%s': %s",
				    o->path, strerror(errno));
	o->direct = 1;
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
		rc = !o->path ? pk_error_set(ctx, PK_ENOMEM, "out of memory") :
		     is_special_file(path) ? open_direct(o) : open_temporary(o);
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
			return output_error(o, PK_EIO, "cannot write '%s': %s",
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
			return output_error(o, PK_ENOMEM, "out of memory");
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
			return output_error(o, PK_EIO, "gzip failed");
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

static int gzip_write(struct pk_output *o, const void *buf, size_t n)
{
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

int pk_output_write(struct pk_output *o, const void *buf, size_t n)
{
	if (o->behind && behind_join(o, 1))
		return PK_EIO;
	return o->gzip ? gzip_write(o, buf, n) : emit(o, buf, n);
}

static int json_flush(void *out, const char *s, size_t n)
{
	return pk_output_write(out, s, n);
}

void pki_output_json(struct pki_json *j, struct pk_output *out)
{
	pki_json_init(j, json_flush, out, PK_ENOMEM);
}

void pki_json_fixed(struct pki_json *j, int64_t value, int64_t scale)
{
	char num[PK_VALUE_FORMAT_SIZE];
	int n = pk_value_format(num, sizeof(num), value, scale);

	if (n > 0)
		pki_json_verbatim(j, num, (size_t)n);
}

static void *behind_main(void *arg)
{
	struct pk_output *o = arg;
	struct behind *b = o->behind;
	int failed = 0;

	compressing = o;
	pthread_mutex_lock(&b->lock);
	for (;;) {
		void *data;
		size_t n;

		while (!b->count && !b->closing)
			pthread_cond_wait(&b->changed, &b->lock);
		if (!b->count)
			break;
		data = b->parts[b->first].data;
		n = b->parts[b->first].n;
		b->first = (b->first + 1) % BEHIND_PARTS;
		b->count--;
		pthread_cond_broadcast(&b->changed);
		pthread_mutex_unlock(&b->lock);
		/* after a failure the parts are only freed */
		if (!failed && gzip_write(o, data, n))
			failed = 1;
		free(data);
		pthread_mutex_lock(&b->lock);
		b->failed = failed;
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* The thread, started; -1 if it cannot be (then the caller compresses). */
static int behind_start(struct pk_output *o)
{
	struct behind *b = calloc(1, sizeof(*b));

	if (!b)
		return -1;
	if (pthread_mutex_init(&b->lock, NULL) != 0) {
		free(b);
		return -1;
	}
	if (pthread_cond_init(&b->changed, NULL) != 0) {
		pthread_mutex_destroy(&b->lock);
		free(b);
		return -1;
	}
	o->behind = b;
	if (pthread_create(&b->thread, NULL, behind_main, o) != 0) {
		o->behind = NULL;
		pthread_cond_destroy(&b->changed);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return -1;
	}
	return 0;
}

/* Let the thread compress what it was given and end it: 0, or PK_EIO
 * with its error set in the context when report. */
static int behind_join(struct pk_output *o, int report)
{
	struct behind *b = o->behind;
	int code;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->lock);
	b->closing = 1;
	pthread_cond_broadcast(&b->changed);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	o->behind = NULL;
	code = b->failed ? (b->code ? b->code : PK_EIO) : 0;
	if (code && report)
		pk_error_set(o->ctx, code, "%s",
			     b->code ? b->message : "gzip failed");
	pthread_cond_destroy(&b->changed);
	pthread_mutex_destroy(&b->lock);
	free(b);
	return code ? PK_EIO : 0;
}

int pki_output_wait_given(struct pk_output *o)
{
	return behind_join(o, 1);
}

int pki_output_give(struct pk_output *o, void *data, size_t n)
{
	struct behind *b;
	int failed, rc;

	o->given += n;
	if (o->gzip != 1 || (!o->behind && (o->given < BEHIND_FROM ||
					    behind_start(o) < 0))) {
		rc = pk_output_write(o, data, n);
		free(data);
		return rc;
	}
	b = o->behind;
	pthread_mutex_lock(&b->lock);
	while (b->count == BEHIND_PARTS && !b->failed)
		pthread_cond_wait(&b->changed, &b->lock);
	failed = b->failed;
	if (!failed) {
		b->parts[(b->first + b->count) % BEHIND_PARTS].data = data;
		b->parts[(b->first + b->count) % BEHIND_PARTS].n = n;
		b->count++;
		pthread_cond_broadcast(&b->changed);
	}
	pthread_mutex_unlock(&b->lock);
	if (!failed)
		return 0;
	free(data);
	return behind_join(o, 1);
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
	int rc = behind_join(o, 1);

	if (!rc && o->gzip == 1 && !o->failed) {
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
	} else if (o->direct && close(o->fd) < 0 && !rc) {
		rc = pk_error_set(o->ctx, PK_EIO, "cannot write '%s': %s",
				  o->path, strerror(errno));
	}
	output_free(o);
	return rc;
}

void pk_output_abort(struct pk_output *o)
{
	if (!o)
		return;
	/* the compressing thread may still write to the fd: it ends first */
	behind_join(o, 0);
	if (o->tmp_path && o->fd >= 0) {
		close(o->fd);
		unlink(o->tmp_path);
	} else if (o->direct) {
		close(o->fd);
	}
	output_free(o);
}
