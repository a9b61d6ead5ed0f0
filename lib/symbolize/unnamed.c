/* SPDX-License-Identifier: MIT */
/*
 * The one warning about frames left without names (unnamed.h): which
 * files, what share of the samples, what would name them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unnamed.h"

#include "core/internal.h"
#include "packages.h"

#define SHOWN 5		/* files listed; the rest are counted */

struct text {
	char s[3072];
	size_t len;
};

static void addf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void addf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= sizeof(t->s) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->s + t->len, sizeof(t->s) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->s) - t->len ?
			  (size_t)n : sizeof(t->s) - t->len - 1;
}

/* w of total as a percentage, rounded down: never more than it is */
static void share(char *buf, size_t size, int64_t w, int64_t total)
{
	long long tenths = (long long)(1000.0 * (double)w / (double)total);

	if (w >= total)
		snprintf(buf, size, "100%%");
	else if (w > 0 && tenths == 0)
		snprintf(buf, size, "<0.1%%");
	else
		snprintf(buf, size, "%lld.%lld%%", tenths / 10, tenths % 10);
}

static int heavier_first(const void *a, const void *b)
{
	const struct sym_unnamed *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->file, y->file);
}

/* What happened to one file, and its debug package if known. */
static void add_file(struct text *t, const struct sym_unnamed *u,
		     const char *package, int64_t total)
{
	char pct[32] = "";

	if (total > 0)
		share(pct, sizeof(pct), u->weight, total);
	addf(t, "\n  %6s  %s: ", pct, u->file);
	if (u->found && strcmp(u->found, u->file) != 0)
		addf(t, "%s has no symbols for them", u->found);
	else if (u->found)
		addf(t, "no symbols for them");
	else
		addf(t, "not found");
	if (!u->found && u->other_build)
		addf(t, " (%s is another build)", u->other_build);
	if (package)
		addf(t, "; Debian: %s", package);
}

/* What would name the files, for the kinds of trouble there were. */
static void add_remedies(struct text *t, const struct sym_unnamed *files,
			 size_t n, char **packages, int debuginfod)
{
	int missing = 0, stripped = 0, jit = 0, packaged = 0, ids = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sym_unnamed *u = &files[i];

		jit |= u->jit && !u->found;
		missing |= !u->jit && !u->found;
		stripped |= u->found && !(i < SHOWN && packages[i]);
		packaged |= i < SHOWN && packages[i];
		ids |= *u->build_id != '\0';
	}
	if (missing)
		addf(t, "\n  not found here: give --symfs=DIR, a copy of the "
		     "recording machine's files, or run `perf archive FILE` "
		     "there and unpack FILE.tar.bz2 into ~/.debug here");
	if (jit)
		addf(t, "\n  a JIT's map: copy /tmp/perf-PID.map from the "
		     "recording machine (into --symfs=DIR/tmp)");
	if (stripped)
		addf(t, "\n  without symbols: give the unstripped file or its "
		     "debug file with --symbol-path=DIR");
	if (packaged)
		addf(t, "\n  Debian's debug packages: the recording machine's "
		     "versions; -dbgsym is Debian's name for the automatic "
		     "ones (debian-debug archive), which not every source "
		     "builds");
#ifdef HAVE_DEBUGINFOD
	if (ids && !debuginfod)
		addf(t, "\n  or set DEBUGINFOD_URLS to a debuginfod server "
		     "(https://debuginfod.debian.net for Debian's packages), "
		     "which has files by build id");
	else if (ids)
		addf(t, "\n  the servers of DEBUGINFOD_URLS had none of them");
#else
	(void)debuginfod;
	if (ids && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS"))
		addf(t, "\n  DEBUGINFOD_URLS is not read: libprofkit was "
		     "built without libdebuginfod");
#endif
	addf(t, "\n  (PROFKIT_DEBUG=symbols lists the paths tried)");
}

/* The debug packages of the files shown (NULL: unknown or not a file). */
static void find_packages(const struct sym_unnamed *files, size_t shown,
			  char **packages)
{
	const char *paths[SHOWN];
	char *found[SHOWN];
	size_t at[SHOWN], n = 0, i;

	for (i = 0; i < shown; i++) {
		packages[i] = NULL;
		if (!files[i].jit && files[i].file[0] == '/') {
			at[n] = i;
			paths[n++] = files[i].file;
		}
	}
	sym_debug_packages(paths, n, found);
	for (i = 0; i < n; i++)
		packages[at[i]] = found[i];
}

void sym_warn_unnamed(struct pk_context *ctx, struct sym_unnamed *files,
		      size_t n, int64_t unnamed, int64_t total, int debuginfod)
{
	size_t shown = n < SHOWN ? n : SHOWN, i;
	char *packages[SHOWN], pct[32];
	struct text *t;

	if (!n)
		return;
	if (!ctx->warn) {
		/* nobody reads it (-q): counted (--strict), not worked out,
		 * as finding the packages reads all of dpkg's file lists */
		pk_warn(ctx, "symbolize: frames without names in %zu files", n);
		return;
	}
	if (!(t = calloc(1, sizeof(*t))))
		return;
	qsort(files, n, sizeof(*files), heavier_first);
	find_packages(files, shown, packages);
	if (total > 0) {
		share(pct, sizeof(pct), unnamed, total);
		addf(t, "symbolize: %s of samples have frames without names, "
		     "in %zu file%s:", pct, n, n == 1 ? "" : "s");
	} else {
		addf(t, "symbolize: frames without names in %zu file%s:", n,
		     n == 1 ? "" : "s");
	}
	for (i = 0; i < shown; i++)
		add_file(t, &files[i], packages[i], total);
	if (n > shown)
		addf(t, "\n  and %zu more", n - shown);
	add_remedies(t, files, n, packages, debuginfod);
	pk_warn(ctx, "%s", t->s);
	for (i = 0; i < shown; i++)
		free(packages[i]);
	free(t);
}
