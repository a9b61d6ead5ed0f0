/* SPDX-License-Identifier: MIT */
/*
 * Errors and warnings.
 *
 * Every library call returns 0 or a negative enum pk_err and leaves a
 * message in the context naming the input, the offset or line and the
 * problem. Commands turn the code into an exit status with pk_exit_code().
 */
#ifndef PROFKIT_ERROR_H
#define PROFKIT_ERROR_H

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_err {
	PK_OK = 0,
	PK_EINPUT = -1,		/* the input is malformed or unsupported */
	PK_EUSAGE = -2,		/* the caller asked for something impossible */
	PK_EIO = -3,		/* reading or writing failed */
	PK_ENOMEM = -4,		/* out of memory, or over the memory limit */
};

#define PK_ERROR_MAX 1024

struct pk_error {
	int code;		/* enum pk_err, PK_OK when no error */
	char message[PK_ERROR_MAX];
};

typedef void (*pk_warn_fn)(void *data, const char *message);

struct pk_context;

/* A context carries options, the error and the warning sink of one job. */
struct pk_context *pk_context_new(void);
void pk_context_free(struct pk_context *ctx);

void pk_context_set_warn(struct pk_context *ctx, pk_warn_fn fn, void *data);
/*
 * Progress of long work: what ("reading FILE"), done of total units
 * (bytes; total 0 when unknown), about every MiB; done == total, or
 * what NULL, when it ends. Commands draw it on a terminal.
 */
typedef void (*pk_progress_fn)(void *data, const char *what, uint64_t done,
			       uint64_t total);
void pk_context_set_progress(struct pk_context *ctx, pk_progress_fn fn,
			     void *data);
void pk_progress(struct pk_context *ctx, const char *what, uint64_t done,
		 uint64_t total);
/* Upper bound for memory driven by sizes read from inputs, in bytes. */
void pk_context_set_max_memory(struct pk_context *ctx, uint64_t bytes);
uint64_t pk_context_max_memory(const struct pk_context *ctx);
/* With strict set, damage that is normally a warning is an error. */
void pk_context_set_strict(struct pk_context *ctx, int strict);
int pk_context_strict(const struct pk_context *ctx);

/* The context's own struct: valid until pk_context_free; its message
 * changes with the next error (pk_load and pk_write clear it first). */
const struct pk_error *pk_context_error(const struct pk_context *ctx);
void pk_context_clear_error(struct pk_context *ctx);

/* Set the error (the first one wins) and return code. */
int pk_error_set(struct pk_context *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pk_error_setv(struct pk_context *ctx, int code, const char *fmt,
		  va_list ap);
/* Report a warning through the context's sink; counted either way. */
void pk_warn(struct pk_context *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
unsigned long pk_warning_count(const struct pk_context *ctx);

/* 0 for PK_OK, 1 bad input or memory, 2 usage, 3 I/O. */
int pk_exit_code(int code);
const char *pk_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
