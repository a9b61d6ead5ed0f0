/* SPDX-License-Identifier: MIT */
/*
 * Inputs, outputs and the format registry.
 *
 * Each format is one file in lib/ that defines one struct pk_reader or
 * struct pk_writer; lib/formats/registry.c lists them. A reader's probe looks at
 * the first bytes of the input (peeked, never consumed, so pipes work)
 * and returns a score from 0 (not mine) to 100 (certainly mine).
 */
#ifndef PROFKIT_FORMAT_H
#define PROFKIT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <profkit/error.h>
#include <profkit/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- input: a file or stdin, gzip undone transparently ---- */

struct pk_input;

/* path NULL or "-" reads standard input. */
int pk_input_open(struct pk_context *ctx, const char *path,
		  struct pk_input **in);
/* Read from memory (fuzzers, tests); the buffer must outlive the input. */
int pk_input_open_memory(struct pk_context *ctx, const char *name,
			 const void *data, size_t size, struct pk_input **in);
void pk_input_close(struct pk_input *in);
/* Valid until pk_input_close. */
const char *pk_input_name(const struct pk_input *in);
/* Size of the underlying file when it is a regular file, else -1. */
int64_t pk_input_file_size(const struct pk_input *in);
/* Nonzero for compressed input (gzip, zstd, xz or bzip2): the file size
 * is then not the size of the data. */
int pk_input_is_compressed(const struct pk_input *in);
/* The same, under its name from when gzip was the only codec. */
int pk_input_is_gzip(const struct pk_input *in);

/* Up to want bytes from the current position without consuming them;
 * valid until the next call on in. */
const unsigned char *pk_input_peek(struct pk_input *in, size_t want,
				   size_t *got);
/* The next line without its "\n" or "\r\n"; NULL at the end or on
 * error. Valid until the next call on in. */
const char *pk_input_line(struct pk_input *in, size_t *len);
/* Number of the line pk_input_line returned last (1-based). */
uint64_t pk_input_lineno(const struct pk_input *in);
/* Read up to n bytes; returns the count (0 at the end) or a pk_err. */
ssize_t pk_input_read(struct pk_input *in, void *buf, size_t n);
/* Offset of the next unread byte in the (decompressed) stream. */
uint64_t pk_input_offset(const struct pk_input *in);
/* Read the whole remaining stream into memory (at most max bytes). */
int pk_input_slurp(struct pk_input *in, size_t max, unsigned char **data,
		   size_t *size);

/* ---- output: stdout or a file written atomically ---- */

struct pk_output;

/*
 * path NULL or "-" writes standard output. Otherwise the output goes to a
 * temporary file beside path that pk_output_commit renames into place and
 * pk_output_abort removes: a failure never leaves a partial file.
 */
int pk_output_open(struct pk_context *ctx, const char *path,
		   struct pk_output **out);
/* Collect the output in memory (fuzzers, tests). */
int pk_output_open_memory(struct pk_context *ctx, struct pk_output **out);
/* The bytes written so far; valid until the next write or the end of out. */
const unsigned char *pk_output_memory(const struct pk_output *out,
				      size_t *size);
/* From now on compress what is written with gzip. */
int pk_output_start_gzip(struct pk_output *out);
int pk_output_write(struct pk_output *out, const void *buf, size_t n);
int pk_output_puts(struct pk_output *out, const char *s);
int pk_output_putc(struct pk_output *out, int c);
int pk_output_printf(struct pk_output *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* End the gzip stream and flush; memory outputs are complete after it. */
int pk_output_finish(struct pk_output *out);
/* Finish, close and rename into place; frees out. */
int pk_output_commit(struct pk_output *out);
/* Discard everything; frees out. */
void pk_output_abort(struct pk_output *out);

/* ---- options: what the commands' long options say, as key=value ---- */

/*
 * The options of a load or a write. Opaque, so that options added with
 * new formats never change a struct's layout (as libarchive's
 * archive_read_set_option). Keys are the commands' long option names;
 * profkit-convert(1) describes each:
 *
 *   reading    from, event, value (samples | period), sample-type
 *   symbols    binary, symbol-path, symfs, kallsyms, demangle (perf |
 *              pprof | full | none), inline, no-symbolize, no-unwind
 *   folded     pid, tid, kernel, jit, addrs, no-comm
 *   pprof      gzip (default 1), labels (all | none)
 *   speedscope speedscope-evented
 *   flamegraph title, colors (hot | mem | io), width, icicle, diff
 *   dot        node-thres, edge-thres (percentages)
 *
 * Flags take "1" or "0" (NULL is "1"). Values are copied: the caller's
 * strings may go right after the call.
 */
struct pk_options;

/* NULL when out of memory. */
struct pk_options *pk_options_new(void);
void pk_options_free(struct pk_options *opts);
/* 0, or PK_EUSAGE with a message in ctx naming the key and what it takes. */
int pk_options_set(struct pk_context *ctx, struct pk_options *opts,
		   const char *key, const char *value);

/* ---- the registry ---- */

enum pk_reader_flags {
	/* Its users read it with pprof: name functions as pprof does. */
	PK_READER_PPROF_NAMES = 1 << 0,
	/* Its users read it with perf script, which shows no inlined
	 * functions in frame-pointer callchains. */
	PK_READER_NO_INLINE = 1 << 1,
};

/* The tables below are the library's: callers hold pointers to them,
 * never copies, so fields may be added at their ends. */

struct pk_reader {
	const char *name;
	const char *description;
	int (*probe)(const unsigned char *buf, size_t len);
	int (*read)(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts);
	unsigned flags;		/* enum pk_reader_flags */
};

struct pk_writer {
	const char *name;
	const char *description;
	const char *extension;	/* for names made from an input's */
	/* enum pk_profile_flags the writer needs: create the profile it
	 * writes with pk_profile_new(writer->flags) */
	unsigned flags;
	int (*write)(struct pk_context *ctx, const struct pk_profile *p,
		     const struct pk_options *opts, struct pk_output *out);
};

/* NULL-terminated lists. */
extern const struct pk_reader *const pk_readers[];
extern const struct pk_writer *const pk_writers[];

const struct pk_reader *pk_reader_find(const char *name);
const struct pk_writer *pk_writer_find(const char *name);
/*
 * Pick the reader whose probe scores highest on the input's first bytes.
 * A tie or a best score under PK_PROBE_MIN is an error naming the input.
 */
#define PK_PROBE_MIN 25
int pk_reader_detect(struct pk_context *ctx, struct pk_input *in,
		     const struct pk_reader **reader);

/* Convenience: read a whole input into p with the given or detected reader. */
int pk_read(struct pk_context *ctx, struct pk_input *in,
	    const struct pk_reader *reader, struct pk_profile *p,
	    const struct pk_options *opts);

#ifdef __cplusplus
}
#endif
#endif
