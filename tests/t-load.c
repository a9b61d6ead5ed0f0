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
	   pk_options_set(ctx, o, "pprof:gzip", "0") == 0, "known keys are taken");
	ok(pk_options_set(ctx, o, "no-such-key", "1") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message, "unknown option 'no-such-key'") == 0,
	   "an unknown key is a usage error: %s", pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "gzip", "0") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message,
		  "unknown option 'gzip' (did you mean pprof:gzip?)") == 0,
	   "a format's option without its scope names the scoped key: %s",
	   pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "pprof:no-such-key", "1") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message, "unknown option "
		  "'pprof:no-such-key' (pprof takes gzip, labels)") == 0,
	   "an unknown scoped key lists its scope's keys: %s",
	   pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "pprof:labels", "some") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message,
		  "pprof:labels: expected 'all' or 'none', not 'some'") == 0,
	   "a bad value names the scoped key: %s", pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "value", "bytes") == PK_EUSAGE &&
	   strcmp(pk_context_error(ctx)->message,
		  "value: expected 'samples' or 'period', not 'bytes'") == 0,
	   "a bad value says what the key takes: %s", pk_context_error(ctx)->message);
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "dot:node-thres", "101") == PK_EUSAGE,
	   "a percentage over 100 is refused");
	pk_context_clear_error(ctx);
	ok(pk_options_set(ctx, o, "from", "no-such-format") == 0 &&
	   pk_load(ctx, path, o, p) == PK_EUSAGE &&
	   strstr(pk_context_error(ctx)->message, "unknown input format 'no-such-format'"),
	   "an unknown --from fails the load: %s", pk_context_error(ctx)->message);
	ok(pk_options_set(ctx, o, "from", "folded") == 0 &&
	   pk_load(ctx, path, o, p) == 0 && total(p) == 1,
	   "the named reader reads it");
	ok(strcmp(pk_options_get(o, "pprof:gzip"), "0") == 0 &&
	   strcmp(pk_options_get(o, "pprof:labels"), "all") == 0 &&
	   strcmp(pk_options_get(o, "flamegraph:width"), "1200") == 0 &&
	   !pk_options_get(o, "flamegraph:title") && !pk_options_get(o, "no-such-key") &&
	   strcmp(pk_options_get(NULL, "dot:edge-thres"), "0.1") == 0,
	   "pk_options_get: the value set, else the default");
	ok(pk_options_set(ctx, o, "symfs", "") == 0 && !pk_options_get(o, "symfs"),
	   "an empty string unsets a string");
	pk_profile_free(p);
	pk_options_free(o);
}

/* The scope of a key, "" for a bare one. */
static void key_scope(const char *key, char *scope, size_t size)
{
	const char *colon = strchr(key, ':');

	snprintf(scope, size, "%.*s", colon ? (int)(colon - key) : 0, key);
}

/*
 * Every declared option: a unique key, a help line, its scope a
 * format's name (or filter's), the pipeline's bare keys first, and the
 * listing by scope gives the same options.
 */
static void test_declarations(void)
{
	const struct pk_option_info *k = NULL, *j, *s;
	size_t n = 0, bad = 0, in_scopes = 0;
	char scope[64];
	int bare = 1;

	while ((k = pk_option_next(NULL, k))) {
		n++;
		key_scope(pk_option_key(k), scope, sizeof(scope));
		if (*scope)
			bare = 0;
		else if (!bare)
			bad++, diag("bare key %s after a scoped one", pk_option_key(k));
		if (*scope && strcmp(scope, "filter") && !pk_reader_find(scope) &&
		    !pk_writer_find(scope))
			bad++, diag("%s: the scope is no format's", pk_option_key(k));
		if (!pk_option_help(k) || !*pk_option_help(k) ||
		    pk_option_find(pk_option_key(k)) != k)
			bad++, diag("%s: no help, or declared twice", pk_option_key(k));
		if ((pk_option_type_of(k) == PK_OPTION_CHOICE) != (pk_option_choice(k, 0) != NULL))
			bad++, diag("%s: choices and type disagree", pk_option_key(k));
		for (j = NULL, s = NULL; (j = pk_option_next(scope, j));)
			if (j == k)
				s = j;
		in_scopes += s != NULL;
	}
	ok(n > 40 && !bad, "%zu options declared, each once, scoped by a format", n);
	ok(in_scopes == n, "listing each scope gives every option");
	ok(pk_option_find("folded:pid") && !pk_option_default(pk_option_find("folded:pid")) &&
	   strcmp(pk_option_flag(pk_option_find("folded:pid")), "pid") == 0 &&
	   strcmp(pk_option_flag(pk_option_find("speedscope:evented")),
		  "speedscope-evented") == 0 &&
	   strcmp(pk_option_value_name(pk_option_find("flamegraph:width")), "PX") == 0 &&
	   pk_option_type_of(pk_option_find("flamegraph:width")) == PK_OPTION_UINT &&
	   strcmp(pk_option_choice(pk_option_find("pprof:labels"), 1), "none") == 0 &&
	   !pk_option_choice(pk_option_find("pprof:labels"), 2),
	   "the getters give the declarations");
}

/* pk_profile_top shows what pprof shows: the profile's default sample
 * type unless the options name one. */
static void test_top_default(struct pk_context *ctx, const char *top)
{
	char path[512];
	struct pk_profile *p = pk_profile_new(0);
	struct pk_options *o = pk_options_new();
	struct pk_top *t = NULL, *named = NULL;
	int space = -1, objects = -1;
	size_t i;

	snprintf(path, sizeof(path), "%s/testdata/pprof/go-allocs.pb.gz", top);
	ok(pk_load(ctx, path, NULL, p) == 0, "a Go allocs profile loads");
	for (i = 0; i < pk_profile_sample_type_count(p); i++) {
		const char *type = pk_profile_string(p, pk_profile_sample_type(p, i)->type);

		if (strcmp(type, "alloc_space") == 0)
			space = (int)i;
		if (strcmp(type, "alloc_objects") == 0)
			objects = (int)i;
	}
	ok(pk_profile_top(ctx, p, NULL, 0, &t) == 0 && space > 0 &&
	   pk_top_column(t) == space && pk_top_count(t) > 0 &&
	   pk_top_total(t) == pk_profile_total(p, (size_t)space),
	   "pk_profile_top shows the default sample type, alloc_space (%d)", space);
	ok(pk_options_set(ctx, o, "sample-type", "alloc_objects") == 0 &&
	   pk_profile_top(ctx, p, o, 0, &named) == 0 && objects >= 0 &&
	   pk_top_column(named) == objects,
	   "\"sample-type\" chooses another");
	pk_top_free(t);
	pk_top_free(named);
	pk_options_free(o);
	pk_profile_free(p);
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
	test_declarations();
	test_top_default(ctx, top);
	pk_context_free(ctx);
	unlink(write_file(dir, "cut.perf.data", "", 0));
	unlink(write_file(dir, "warns.folded", "", 0));
	unlink(write_file(dir, "one.folded", "", 0));
	rmdir(dir);
	return done_testing();
}
