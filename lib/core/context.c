/* SPDX-License-Identifier: MIT */
/* The context of one job: its error, warnings and limits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct pki_context_slot {
	struct pki_context_slot *next;
	const void *key;
	void *data;
	void (*free_fn)(void *);
};

void **pki_context_slot(struct pk_context *ctx, const void *key,
			void (*free_fn)(void *))
{
	struct pki_context_slot *slot;

	for (slot = ctx->slots; slot; slot = slot->next)
		if (slot->key == key)
			return &slot->data;
	slot = calloc(1, sizeof(*slot));
	if (!slot)
		return NULL;
	slot->key = key;
	slot->free_fn = free_fn;
	slot->next = ctx->slots;
	ctx->slots = slot;
	return &slot->data;
}

struct pk_context *pk_context_new(void)
{
	struct pk_context *ctx = calloc(1, sizeof(*ctx));

	if (ctx)
		ctx->max_memory = PK_DEFAULT_MAX_MEMORY;
	return ctx;
}

void pk_context_free(struct pk_context *ctx)
{
	struct pki_context_slot *slot, *next;

	if (!ctx)
		return;
	for (slot = ctx->slots; slot; slot = next) {
		next = slot->next;
		if (slot->free_fn)
			slot->free_fn(slot->data);
		free(slot);
	}
	free(ctx);
}

void pk_context_set_warn(struct pk_context *ctx, pk_warn_fn fn, void *data)
{
	ctx->warn = fn;
	ctx->warn_data = data;
}

void pk_context_set_max_memory(struct pk_context *ctx, uint64_t bytes)
{
	ctx->max_memory = bytes;
}

uint64_t pk_context_max_memory(const struct pk_context *ctx)
{
	return ctx->max_memory;
}

void pk_context_set_strict(struct pk_context *ctx, int strict)
{
	ctx->strict = strict;
}

int pk_context_strict(const struct pk_context *ctx)
{
	return ctx->strict;
}

const struct pk_error *pk_context_error(const struct pk_context *ctx)
{
	return &ctx->error;
}

void pk_context_clear_error(struct pk_context *ctx)
{
	ctx->error.code = PK_OK;
	ctx->error.message[0] = '\0';
}

int pk_error_setv(struct pk_context *ctx, int code, const char *fmt,
		  va_list ap)
{
	/* Keep the first error: later ones are usually its consequences. */
	if (ctx->error.code != PK_OK)
		return code;
	ctx->error.code = code;
	vsnprintf(ctx->error.message, sizeof(ctx->error.message), fmt, ap);
	return code;
}

int pk_error_set(struct pk_context *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pk_error_setv(ctx, code, fmt, ap);
	va_end(ap);
	return code;
}

void pki_context_set_subject(struct pk_context *ctx, const char *subject)
{
	ctx->subject = subject;
}

/* Does message already start with "subject:"? */
static int names_subject(const char *message, const char *subject)
{
	size_t n = strlen(subject);

	return strncmp(message, subject, n) == 0 && message[n] == ':';
}

/* a warning may take a few lines (the symbolizer's summary) */
#define WARNING_MAX (4 * PK_ERROR_MAX)

void pk_warn(struct pk_context *ctx, const char *fmt, ...)
{
	char buf[WARNING_MAX], named[WARNING_MAX + 520];
	va_list ap;

	ctx->warnings++;
	if (!ctx->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ctx->subject && !names_subject(buf, ctx->subject)) {
		snprintf(named, sizeof(named), "%.512s: %s", ctx->subject, buf);
		ctx->warn(ctx->warn_data, named);
		return;
	}
	ctx->warn(ctx->warn_data, buf);
}

void pk_context_set_progress(struct pk_context *ctx, pk_progress_fn fn,
			     void *data)
{
	ctx->progress = fn;
	ctx->progress_data = data;
}

void pk_progress(struct pk_context *ctx, const char *what, uint64_t done,
		 uint64_t total)
{
	if (ctx->progress)
		ctx->progress(ctx->progress_data, what, done, total);
}

unsigned long pk_warning_count(const struct pk_context *ctx)
{
	return ctx->warnings;
}

int pk_exit_code(int code)
{
	switch (code) {
	case PK_OK:
		return 0;
	case PK_EUSAGE:
		return 2;
	case PK_EIO:
		return 3;
	default:
		return 1;
	}
}

const char *pk_strerror(int code)
{
	switch (code) {
	case PK_OK:
		return "success";
	case PK_EINPUT:
		return "malformed input";
	case PK_EUSAGE:
		return "invalid usage";
	case PK_EIO:
		return "input/output error";
	case PK_ENOMEM:
		return "out of memory";
	default:
		return "unknown error";
	}
}

const char *pk_version(void)
{
	return PACKAGE_VERSION;
}
