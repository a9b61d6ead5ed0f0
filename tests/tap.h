/* SPDX-License-Identifier: MIT */
/* A tiny TAP producer for the C unit tests (run by automake's tap-driver). */
#ifndef PROFKIT_TAP_H
#define PROFKIT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline void plan(int n)
{
	printf("1..%d\n", n);
}

static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define is_int(got, want, ...) \
	(ok((long long)(got) == (long long)(want), __VA_ARGS__) || \
	 (diag("  got %lld, want %lld", (long long)(got), (long long)(want)), 0))

#define is_str(got, want, ...) \
	(ok(strcmp((got), (want)) == 0, __VA_ARGS__) || \
	 (diag("  got '%s'\n#  want '%s'", (got), (want)), 0))

/* Print the plan at the end (TAP allows it), so counts never drift. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
