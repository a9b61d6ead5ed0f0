/* SPDX-License-Identifier: MIT */
/*
 * Inputs, outputs, options and the formats.
 *
 * A reader's probe looks at the first bytes of the input (peeked, never
 * consumed, so pipes work) and returns a score from 0 (not mine) to 100
 * (certainly mine).
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

/* ---- options by key ---- */

/*
 * The options of a load, a write or a transform. Opaque, so that options
 * added with new formats never change a struct's layout (as libarchive's
 * archive_read_set_option). Whoever reads an option declares it, and
 * its key says whose it is:
 *
 *   the pipeline's own, bare: from, event, value, sample-type, threads,
 *     max-stack, binary, symbol-path, symfs, kallsyms, demangle, inline,
 *     no-symbolize, no-unwind
 *   a format's or a transform's, scoped by its name: "pprof:labels",
 *     "flamegraph:width", "folded:pid" (the stackcollapse options, which
 *     every writer that folds stacks reads), "filter:focus"
 *
 * pk_option_next() lists them all with their types, defaults and help.
 * Flags take "1" or "0" (NULL is "1"); a string's NULL or "" unsets it.
 * Values are copied: the caller's strings may go right after the call.
 */
struct pk_options;

/* NULL when out of memory. */
struct pk_options *pk_options_new(void);
void pk_options_free(struct pk_options *opts);
/* 0, or PK_EUSAGE with a message in ctx naming the key and what it
 * takes ("KEY: expected ..."), or that no one declares the key. */
int pk_options_set(struct pk_context *ctx, struct pk_options *opts,
		   const char *key, const char *value);
/* The value of key as set, else its default; NULL when it has neither
 * or no one declares key. Valid until the key is set again. */
const char *pk_options_get(const struct pk_options *opts, const char *key);

enum pk_option_type {
	PK_OPTION_FLAG,		/* "1" or "0" (also yes/no, true/false) */
	PK_OPTION_STRING,	/* any text */
	PK_OPTION_CHOICE,	/* one of its words (pk_option_choice) */
	PK_OPTION_UINT,		/* a whole number in the bounds its help gives */
	PK_OPTION_PERCENT,	/* a number from 0 to 100 */
	PK_OPTION_SECONDS,	/* a time from 0 in seconds, as perf script
				 * prints it ("2542.560001") */
};

/* A declared option; the library's own, valid for the program's life. */
struct pk_option_info;

/*
 * The declared options, one after another (prev NULL: the first; NULL
 * after the last): those of scope ("pprof"; "" for the pipeline's own,
 * bare keys), or all for scope NULL, grouped by scope.
 */
const struct pk_option_info *pk_option_next(const char *scope,
					    const struct pk_option_info *prev);
const struct pk_option_info *pk_option_find(const char *key);
/* "flamegraph:width" */
const char *pk_option_key(const struct pk_option_info *o);
enum pk_option_type pk_option_type_of(const struct pk_option_info *o);
/* As text ("1200"); NULL: none (unset, the format decides) */
const char *pk_option_default(const struct pk_option_info *o);
/* One line, as --help shows it. */
const char *pk_option_help(const struct pk_option_info *o);
/* The words of a PK_OPTION_CHOICE, from 0; NULL past the last. */
const char *pk_option_choice(const struct pk_option_info *o, size_t i);
/* The long option the commands take for it ("width": --width), or
 * NULL; and its value's name in --help ("PX"; NULL for a flag). */
const char *pk_option_flag(const struct pk_option_info *o);
const char *pk_option_value_name(const struct pk_option_info *o);

/* ---- the formats ---- */

/*
 * Each format's reader and writer, as handles of the library's own
 * (valid for the program's life, never dereferenced: query them with
 * the functions below). Listed in probe order: prev NULL gives the
 * first, the last gives NULL.
 */
struct pk_reader;
struct pk_writer;

const struct pk_reader *pk_reader_next(const struct pk_reader *prev);
const struct pk_reader *pk_reader_find(const char *name);
/* The name --from takes (and the scope of the format's options). */
const char *pk_reader_name(const struct pk_reader *r);
const char *pk_reader_description(const struct pk_reader *r);
/* How sure the reader is that buf, an input's first len bytes, is its
 * format: 0 (not mine) to 100 (certainly mine). */
int pk_reader_probe(const struct pk_reader *r, const unsigned char *buf,
		    size_t len);

const struct pk_writer *pk_writer_next(const struct pk_writer *prev);
const struct pk_writer *pk_writer_find(const char *name);
/* The name --to takes (and the scope of the format's options). */
const char *pk_writer_name(const struct pk_writer *w);
const char *pk_writer_description(const struct pk_writer *w);
/* Added to an input's name for the output's (".pb.gz"). */
const char *pk_writer_extension(const struct pk_writer *w);
/* enum pk_profile_flags the writer needs: create the profile it writes
 * with pk_profile_new(pk_writer_profile_flags(w)). */
unsigned pk_writer_profile_flags(const struct pk_writer *w);
/* Write p to out (pk_write writes to a path). opts may be NULL. */
int pk_writer_write(struct pk_context *ctx, const struct pk_writer *w,
		    const struct pk_profile *p, const struct pk_options *opts,
		    struct pk_output *out);

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
