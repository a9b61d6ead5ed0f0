/* SPDX-License-Identifier: MIT */
/*
 * The library used as libprofkit(3) shows it: pk_load and pk_write with
 * options set by name. One context serves a series of inputs: a failed
 * load does not spoil the next; warnings name their input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profkit/profkit.h>

#include "tap.h"

static char last_warning[2048];

static void keep_warning(void *data, const char *message)
{
	(void)data;
	snprintf(last_warning, sizeof(last_warning), "%s", message);
}

/* Write text to a new file in dir; its path (static buffer per slot). */
static const char *write_file(const char *dir, const char *name,
			      const void *data, size_t size)
{
	static char paths[4][512];
	static int slot;
	char *path = paths[slot++ % 4];
	FILE *f;

	snprintf(path, 512, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		diag("cannot write %s", path);
	return path;
}

/* The first n bytes of a file of testdata, or NULL. */
static unsigned char *read_prefix(const char *path, size_t n)
{
	unsigned char *buf = malloc(n);
	FILE *f = fopen(path, "rb");

	if (!buf || !f || fread(buf, 1, n, f) != n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static int64_t total(const struct pk_profile *p)
{
	size_t n = pk_profile_sample_type_count(p);

	return n ? pk_profile_total(p, n - 1) : -1;
}

static void test_broken_then_good(struct pk_context *ctx, const char *dir,
				  const char *top)
{
	char good[512];
	unsigned char *head;
	const char *broken;
	struct pk_profile *p = pk_profile_new(0);
	int rc;

	snprintf(good, sizeof(good), "%s/testdata/perf-data/c-fp.perf.data", top);
	head = read_prefix(good, 200);
	broken = write_file(dir, "cut.perf.data", head ? head : (unsigned char *)"", head ? 200 : 0);
	free(head);
	rc = pk_load(ctx, broken, NULL, p);
	ok(rc == PK_EINPUT && strstr(pk_context_error(ctx)->message, broken),
	   "a cut perf.data fails, naming the file: %s", pk_context_error(ctx)->message);
	pk_profile_free(p);

	p = pk_profile_new(0);
	last_warning[0] = '\0';
	rc = pk_load(ctx, good, NULL, p);
	ok(rc == 0 && pk_context_error(ctx)->code == PK_OK,
	   "then a good one loads with the same context (rc %d: %s)", rc,
	   pk_context_error(ctx)->message);
	ok(pk_profile_sample_count(p) > 0, "and has its samples");
	/* its binaries are not here: the symbolizer's warning names it */
	ok(strncmp(last_warning, good, strlen(good)) == 0 &&
	   strstr(last_warning, ": symbolize: "),
	   "the symbolizer's warnings name the input: %s", last_warning);
	pk_profile_free(p);
}

static void test_warnings_name_input(struct pk_context *ctx, const char *dir)
{
	/* the probe reads 50 lines: the bad one comes after them */
	char text[64 * 51];
	size_t len = 0;
	const char *path;
	struct pk_profile *p = pk_profile_new(0);
	int rc, i;

	for (i = 0; i < 50; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "main;a 1\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "not a folded line\n");
	path = write_file(dir, "warns.folded", text, len);

	last_warning[0] = '\0';
	rc = pk_load(ctx, path, NULL, p);
	ok(rc == 0 && strncmp(last_warning, path, strlen(path)) == 0,
	   "a warning names its input: %s", last_warning);
	/* two loads into one profile sum the inputs */
	rc = pk_load(ctx, path, NULL, p);
	ok(rc == 0 && total(p) == 100, "two loads into one profile sum (%lld)",
	   (long long)total(p));
	pk_profile_free(p);
}

static void test_options(struct pk_context *ctx, const char *dir)
{
	static const char text[] = "main;a 1\n";
	const char *path = write_file(dir, "one.folded", text, sizeof(text) - 1);
	struct pk_options *o = pk_options_new();
	struct pk_profile *p = pk_profile_new(0);

	ok(pk_options_set(ctx, o, "symfs", "/srv/root") == 0 &&
	   pk_options_set(ctx, o, "inline", NULL) == 0 &&
	   pk_options_set(ctx, o, "gzip", "0") == 0, "known keys are taken");
	ok(pk_options_set(ctx, o, "no-such-key", "1") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message, "unknown option 'no-such-key'") == 0,
	   "an unknown key is a usage error: %s", pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "value", "bytes") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message,
		  "value: expected 'samples' or 'period', not 'bytes'") == 0,
	   "a bad value says what the key takes: %s", pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "node-thres", "101") == PK_EUSAGE,
	   "a percentage over 100 is refused");
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "from", "no-such-format") == 0 &&
	   pk_load(ctx, path, o, p) == PK_EUSAGE &&
	   strstr(pk_context_error(ctx)->message, "unknown input format 'no-such-format'"),
	   "an unknown --from fails the load: %s", pk_context_error(ctx)->message);
	ok(pk_options_set(ctx, o, "from", "folded") == 0 &&
	   pk_load(ctx, path, o, p) == 0 && total(p) == 1,
	   "the named reader reads it");
	pk_profile_free(p);
	pk_options_free(o);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char dir[512];
	struct pk_context *ctx = pk_context_new();

	if (!top)
		top = ".";
	snprintf(dir, sizeof(dir), "%s/profkit-t-load.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	/* no ~/.debug cache of this machine's recordings: symbols are missing */
	setenv("HOME", dir, 1);
	unsetenv("PROFKIT_SYMBOL_PATH");
	pk_context_set_warn(ctx, keep_warning, NULL);
	test_broken_then_good(ctx, dir, top);
	test_warnings_name_input(ctx, dir);
	test_options(ctx, dir);
	pk_context_free(ctx);
	unlink(write_file(dir, "cut.perf.data", "", 0));
	unlink(write_file(dir, "warns.folded", "", 0));
	unlink(write_file(dir, "one.folded", "", 0));
	rmdir(dir);
	return done_testing();
}
