/* SPDX-License-Identifier: MIT */
/*
 * Probes, in FFmpeg's manner: random bytes must not look like any format,
 * and each format's own sample must pick its reader.
 *
 * The probe matrix (FFmpeg's tools/probetest.c turned to real files): every
 * sample input under testdata/ against every reader's probe, on the bytes
 * detection sees (gzip undone). Its own reader must score highest, at least
 * PK_PROBE_MIN, with no tie, and pk_reader_detect must pick it; each line
 * lists the scores that were not 0. Which reader an input belongs to comes
 * from its folder and name (the rules below). Files no reader takes
 * (writers' outputs, expected texts) are listed with their scores too and
 * must not be taken by any.
 *
 *   t-probe                      testdata/ of $top_srcdir (make check)
 *   t-probe --conformance DIR    ../shared/conformance (check-conformance)
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profkit/profkit.h>

#include "tap.h"

/* The i-th reader, in the library's order, or NULL past the last. */
static const struct pk_reader *reader_at(size_t i)
{
	const struct pk_reader *r = pk_reader_next(NULL);

	while (r && i--)
		r = pk_reader_next(r);
	return r;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned char next_byte(int text)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	if (!text)
		return (unsigned char)rng;
	/* printable text with newlines and spaces: the hard case */
	return "abcdef0123456789 :;[]()/\n\t_-.xyz"[rng % 33];
}

/* The highest score any reader gives the bytes, and which reader gives it. */
static int best_score(const unsigned char *buf, size_t len, const char **name)
{
	size_t i;
	int best = 0, s;

	*name = "none";
	for (i = 0; reader_at(i); i++) {
		s = pk_reader_probe(reader_at(i), buf, len);
		if (s > best) {
			best = s;
			*name = pk_reader_name(reader_at(i));
		}
	}
	return best;
}

static void test_random_buffers(void)
{
	unsigned char buf[4096];
	int worst = 0, text, round;
	const char *worst_name = "";
	size_t i;

	for (text = 0; text <= 1; text++) {
		for (round = 0; round < 2000; round++) {
			size_t len = 1 + (rng % sizeof(buf));

			const char *name;
			int s;

			for (i = 0; i < len; i++)
				buf[i] = next_byte(text);
			s = best_score(buf, len, &name);
			if (s > worst) {
				worst = s;
				worst_name = name;
			}
		}
	}
	ok(worst < PK_PROBE_MIN, "random bytes and text score under %d (worst %d, %s)",
	   PK_PROBE_MIN, worst, worst_name);
}

/*
 * pprof -raw lines ("     2   20000000: 1 2 3") look like perf script
 * headers with a pid and an event: an event is never a number, and the
 * text is pprof-raw's alone.
 */
static void test_pprof_raw_is_its_own(void)
{
	char buf[4096];
	size_t len;
	const char *name;
	int i, s;

	len = (size_t)snprintf(buf, sizeof(buf), "PeriodType: cpu nanoseconds\n"
				 "Period: 10000000\nSamples:\n"
				 "samples/count cpu/nanoseconds\n");
	for (i = 1; i <= 30; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%11d %10d: %d 2 3 4 5 6 7 8 9 10 \n",
					i, i * 10000000, i + 10);
	s = best_score((const unsigned char *)buf, len, &name);
	ok(s >= PK_PROBE_MIN && strcmp(name, "pprof-raw") == 0,
	   "pprof -raw text is pprof-raw's (best %d, %s)", s, name);
}

static void test_detects(const char *text, const char *want)
{
	struct pk_context *ctx = pk_context_new();
	const struct pk_reader *r = NULL;
	struct pk_input *in;
	int rc;

	rc = pk_input_open_memory(ctx, "sample", text, strlen(text), &in);
	if (!rc)
		rc = pk_reader_detect(ctx, in, &r);
	ok(rc == 0 && r && strcmp(pk_reader_name(r), want) == 0, "detects %s", want);
	pk_input_close(in);
	pk_context_free(ctx);
}

/* Which reader a file belongs to, by its path under the root. */
static const char skip_marker[] = "skip";
#define SKIP skip_marker	/* not a profile nor an output: not probed */
#define NONE NULL		/* no reader's: none may claim it */
struct rule {
	const char *pattern;	/* fnmatch(3), '*' crossing '/' */
	const char *reader;
};

static const struct rule testdata_rules[] = {
	{ "bin/*", SKIP },	/* the recorded programs */
	{ "src/*", SKIP },	/* their sources */
	{ "bad/*", SKIP },	/* fuzz crashers: tests/bad-input.sh */
	{ "README.md", SKIP },
	{ "*.perf.data", "perf-data" },
	{ "*.perf-script.txt", "perf-script" },
	{ "perf-script/*.txt", "perf-script" },
	{ "perf-data/*.trace.txt", "perf-script" },	/* perf script's header lines */
	{ "perf-data/*.switches.txt", "perf-script" },	/* with switch records */
	{ "graph/odd-names.txt", "perf-script" },
	{ "*.folded", "folded" },
	{ "*.difffolded", "folded" },
	{ "folded/*.expected", "folded" },
	{ "gperftools/*.cpu", "gperftools-cpu" },
	{ "gperftools/*.heap", "gperftools-heap" },
	{ "gperftools/*.growth", "gperftools-heap" },
	{ "gperftools/*.threads", "gperftools-heap" },
	{ "gperftools/*.contention", "gperftools-heap" },
	{ "gperftools/*.mutex", "gperftools-heap" },
	{ "callgrind/*.callgrind", "callgrind" },
	{ "dtrace/*.txt", "dtrace" },
	{ "bpftrace/*.txt", "bpftrace" },
	{ "systemtap/*.txt", "systemtap" },
	{ "pmcstat/*.txt", "pmcstat" },
	{ "eu-stack/*.txt", "eu-stack" },
	{ "gdb/*.txt", "gdb" },
	{ "jstack/*.txt", "jstack" },
	{ "java-exceptions/*.txt", "java-exceptions" },
	{ "pprof/*.pb", "pprof" },
	{ "pprof/*.pb.gz", "pprof" },
	{ "jfr/*.jfr", "jfr" },
	{ "speedscope/*.json", "speedscope" },
	{ "v8/*.cpuprofile", "v8" },
	{ "chrome-trace/*.json*", "chrome-trace" },
	{ "firefox/*.json", "firefox" },
	{ "otlp/*.otlp.json", "otlp" },
	{ "otlp/*.otlp.pb", "otlp" },
	/* compressed: probed as what they hold */
	{ "compressed/*.txt.*", "perf-script" },
	{ "compressed/*.folded.*", "folded" },
	{ "compressed/*.heap.*", "gperftools-heap" },
	{ "compressed/*.pb.*", "pprof" },
	/* other profilers' exports (issue 26) */
	{ "*.pprof-raw.txt", "pprof-raw" },
	{ "pprof/*.raw", "pprof-raw" },
	{ "pprof-raw/*.txt", "pprof-raw" },
	{ "macos-sample/*.txt", "macos-sample" },
	{ "instruments/*.txt", "instruments" },
	{ "vtune/*.csv", "vtune" },
	{ "vsprof/*.csv", "vsprof" },
	{ "ghc-prof/*.prof", "ghc-prof" },
	{ "ljp/*.txt", "ljp" },
	{ "xctrace/*.xml", "xctrace" },
	{ "*", NONE },
};

static const struct rule conformance_rules[] = {
	{ "README.md", SKIP },
	{ "perf-data/*.perf-script.txt", "perf-script" },
	{ "perf-data/*", "perf-data" },
	{ "perf-script/results/*", "folded" },	/* stackcollapse-perf.pl's */
	{ "perf-script/*.txt", "perf-script" },
	{ "gperftools/*.txt", "pprof-raw" },	/* pprof -raw */
	{ "gperftools/*.string", "pprof-raw" },	/* pprof's dump: the same text */
	{ "gperftools/*.cpu", "gperftools-cpu" },
	{ "gperftools/*", "gperftools-heap" },
	{ "*", NONE },
};

static const char *rule_for(const struct rule *rules, const char *rel)
{
	for (;; rules++)
		if (fnmatch(rules->pattern, rel, 0) == 0)
			return rules->reader;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The scores of every reader on the first bytes of path, as detection
 * sees them; 0 when it cannot be read. */
static int probe_file(const char *path, int *scores, const char **detected)
{
	struct pk_context *ctx = pk_context_new();
	const struct pk_reader *r = NULL;
	const unsigned char *buf;
	struct pk_input *in = NULL;
	size_t len = 0, i;
	int rc;

	rc = pk_input_open(ctx, path, &in);
	if (!rc) {
		buf = pk_input_peek(in, 4096, &len);
		for (i = 0; reader_at(i); i++)
			scores[i] = buf && len ? pk_reader_probe(reader_at(i), buf, len) : 0;
		*detected = pk_reader_detect(ctx, in, &r) == 0 ? pk_reader_name(r) : NULL;
	} else {
		diag("%s: %s", path, pk_context_error(ctx)->message);
	}
	pk_input_close(in);
	pk_context_free(ctx);
	return rc == 0;
}

static char *path_join(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s%s%s", dir, *dir ? "/" : "", name) < 0)
		abort();
	return path;
}

static void check_file(const char *root, const char *rel, const char *want)
{
	char *path = path_join(root, rel), scores_text[512] = "";
	int scores[64] = { 0 }, best = -1, best_score = 0, tie = 0;
	const char *detected = NULL;
	size_t i, n = 0;
	int readable = probe_file(path, scores, &detected);

	free(path);
	if (!readable) {
		ok(0, "%s: readable", rel);
		return;
	}
	for (i = 0; reader_at(i); i++) {
		if (scores[i] > best_score) {
			best = (int)i;
			best_score = scores[i];
			tie = 0;
		} else if (scores[i] == best_score && scores[i] > 0) {
			tie = 1;
		}
		if (scores[i] > 0)
			n += (size_t)snprintf(scores_text + n, sizeof(scores_text) - n,
					      "%s%s %d", n ? ", " : "",
					      pk_reader_name(reader_at(i)), scores[i]);
		if (n >= sizeof(scores_text))
			n = sizeof(scores_text) - 1;
	}
	if (!n)
		snprintf(scores_text, sizeof(scores_text), "every probe 0");
	if (want == NONE) {
		ok(best_score < PK_PROBE_MIN || tie || !detected,
		   "%s is no reader's (%s)", rel, scores_text);
		return;
	}
	ok(best >= 0 && strcmp(pk_reader_name(reader_at(best)), want) == 0 && !tie &&
	   best_score >= PK_PROBE_MIN && detected && strcmp(detected, want) == 0,
	   "%s is %s's alone (%s)", rel, want, scores_text);
}

/* Every file below root/sub, sorted, checked by the rules. */
static void walk(const char *root, const char *sub, const struct rule *rules,
		 int *files)
{
	char *dir_path = path_join(root, sub);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct stat st;
	DIR *d = opendir(dir_path);

	if (!d) {
		ok(0, "cannot read %s", dir_path);
		free(dir_path);
		return;
	}
	free(dir_path);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		char *rel = path_join(sub, names[i]);
		char *path = path_join(root, rel);
		const char *want = rule_for(rules, rel);

		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			walk(root, rel, rules, files);
		} else if (want != SKIP) {
			check_file(root, rel, want);
			(*files)++;
		}
		free(path);
		free(rel);
		free(names[i]);
	}
	free(names);
}

static void test_matrix(const char *root, const struct rule *rules)
{
	int files = 0;

	walk(root, "", rules, &files);
	ok(files > 0, "%d files of %s probed", files, root);
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	char *testdata;

	if (argc == 3 && strcmp(argv[1], "--conformance") == 0) {
		test_matrix(argv[2], conformance_rules);
		return done_testing();
	}
	if (argc > 1) {
		fprintf(stderr, "usage: t-probe [--conformance DIR]\n");
		return 2;
	}
	test_random_buffers();
	test_pprof_raw_is_its_own();
	test_detects("prog  1234 [000] 1.000001:  1 cpu-clock: \n\t 55d0 main+0x10 (/x)\n\n"
		     "prog  1234 [000] 1.000002:  1 cpu-clock: \n\t 55d0 main+0x10 (/x)\n\n",
		     "perf-script");
	testdata = path_join(srcdir ? srcdir : ".", "testdata");
	test_matrix(testdata, testdata_rules);
	free(testdata);
	return done_testing();
}
