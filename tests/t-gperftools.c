/* SPDX-License-Identifier: MIT */
/*
 * The gperftools readers against `pprof -raw`: each X with an
 * X.pprof-raw.txt beside it in ../shared/conformance/gperftools is read
 * and the model printed the way pprof prints a profile (profile.String()),
 * which must give the same text. Skips when that folder is absent (a
 * "1..0 # SKIP" plan and status 0: automake's TAP driver counts status 77
 * as an error).
 *
 *     t-gperftools [DIR]       TAP over DIR (default: the conformance dir)
 *     t-gperftools --dump FILE print FILE's profile as `pprof -raw` would
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

static const char *str(const struct pk_profile *p, pk_str id)
{
	return pk_profile_string(p, id);
}

/* Go's time.Duration.String(), for the "Duration:" line. */
static void go_duration(char *buf, size_t size, int64_t d)
{
	uint64_t u = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
	const char *sign = d < 0 ? "-" : "";
	char frac[16] = "";
	uint64_t unit, whole, rest;
	const char *name;
	int digits, n;

	if (u == 0) {
		snprintf(buf, size, "0s");
		return;
	}
	if (u < 1000000000) {
		if (u < 1000)
			unit = 1, name = "ns", digits = 0;
		else if (u < 1000000)
			unit = 1000, name = "\xc2\xb5s", digits = 3;
		else
			unit = 1000000, name = "ms", digits = 6;
	} else {
		unit = 1000000000, name = "s", digits = 9;
	}
	whole = u / unit;
	rest = u % unit;
	if (rest) {
		n = snprintf(frac, sizeof(frac), ".%0*" PRIu64, digits, rest);
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = '\0';
	}
	if (unit < 1000000000 || whole < 60) {
		snprintf(buf, size, "%s%" PRIu64 "%s%s", sign, whole, frac, name);
		return;
	}
	if (whole < 3600)
		snprintf(buf, size, "%s%" PRIu64 "m%" PRIu64 "%ss", sign,
			 whole / 60, whole % 60, frac);
	else
		snprintf(buf, size, "%s%" PRIu64 "h%" PRIu64 "m%" PRIu64 "%ss",
			 sign, whole / 3600, whole / 60 % 60, whole % 60, frac);
}

/* fmt's %.4v of a string: at most 4 runes. */
static void print_runes(FILE *f, const char *s, int max)
{
	int n = 0;

	for (; *s; s++) {
		if ((*s & 0xc0) != 0x80 && n++ == max)
			break;
		fputc(*s, f);
	}
}

static int compare_labels(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "key:[v v]" per key, sorted, as numLabelsToString and labelsToString. */
static void dump_labels(FILE *f, const struct pk_profile *p, uint32_t set,
			int numeric)
{
	const struct pk_label *l;
	char *items[64], buf[4096];
	size_t n, i, j, m = 0;

	l = pk_profile_labels(p, set, &n);
	for (i = 0; i < n && m < 64; i++) {
		size_t len = 0;

		if (!!numeric == !!l[i].str)
			continue;
		for (j = 0; j < i; j++)
			if (l[j].key == l[i].key && !!l[j].str == !!l[i].str)
				break;
		if (j < i)
			continue;	/* printed with the first of its key */
		len += (size_t)snprintf(buf, sizeof(buf), "%s:[", str(p, l[i].key));
		for (j = i; j < n && len < sizeof(buf) - 64; j++) {
			if (l[j].key != l[i].key || !!l[j].str != !!l[i].str)
				continue;
			if (j > i)
				buf[len++] = ' ';
			if (!numeric)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
							"%s", str(p, l[j].str));
			else if (l[j].unit)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
							"%lld %s", (long long)l[j].num,
							str(p, l[j].unit));
			else
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
							"%lld", (long long)l[j].num);
		}
		snprintf(buf + len, sizeof(buf) - len, "]");
		items[m++] = strdup(buf);
	}
	if (!m)
		return;
	qsort(items, m, sizeof(*items), compare_labels);
	fputs("                ", f);
	for (i = 0; i < m; i++) {
		fprintf(f, "%s%s", i ? " " : "", items[i]);
		free(items[i]);
	}
	fputc('\n', f);
}

static void dump_samples(FILE *f, const struct pk_profile *p)
{
	size_t ntypes = pk_profile_sample_type_count(p), i, j, depth;

	fputs("Samples:\n", f);
	for (i = 0; i < ntypes; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(p, i);

		fprintf(f, "%s%s/%s", i ? " " : "", str(p, t->type), str(p, t->unit));
	}
	fputc('\n', f);
	for (i = 0; i < pk_profile_sample_count(p); i++) {
		const struct pk_sample *s = pk_profile_sample(p, i);
		const int64_t *v = pk_profile_sample_values(p, i);
		const uint32_t *stack = pk_profile_stack(p, s->stack, &depth);

		for (j = 0; j < ntypes; j++)
			fprintf(f, " %10lld", (long long)v[j]);
		fputs(": ", f);
		for (j = 0; j < depth; j++)
			fprintf(f, "%u ", stack[j]);
		fputc('\n', f);
		if (s->labels) {
			dump_labels(f, p, s->labels, 0);
			dump_labels(f, p, s->labels, 1);
		}
	}
}

static void dump_profile(FILE *f, const struct pk_profile *p)
{
	struct pk_value_type pt = pk_profile_period_type(p);
	int64_t duration = pk_profile_duration_nanos(p);
	size_t i;

	if (pt.type || pt.unit)
		fprintf(f, "PeriodType: %s %s\n", str(p, pt.type), str(p, pt.unit));
	fprintf(f, "Period: %lld\n", (long long)pk_profile_period(p));
	if (duration) {
		char buf[64];

		go_duration(buf, sizeof(buf), duration);
		fputs("Duration: ", f);
		print_runes(f, buf, 4);
		fputc('\n', f);
	}
	dump_samples(f, p);
	fputs("Locations\n", f);
	for (i = 1; i <= pk_profile_location_count(p); i++) {
		const struct pk_location *l = pk_profile_location(p, (uint32_t)i);

		fprintf(f, "%6zu: 0x%" PRIx64 " ", i, l->address);
		if (l->mapping)
			fprintf(f, "M=%u ", l->mapping);
		fputc('\n', f);
	}
	fputs("Mappings\n", f);
	for (i = 1; i <= pk_profile_mapping_count(p); i++) {
		const struct pk_mapping *m = pk_profile_mapping(p, (uint32_t)i);

		fprintf(f, "%zu: 0x%" PRIx64 "/0x%" PRIx64 "/0x%" PRIx64 " %s %s %s%s%s%s\n",
			i, m->start, m->limit, m->offset, str(p, m->file),
			str(p, m->build_id), m->has_functions ? "[FN]" : "",
			m->has_filenames ? "[FL]" : "",
			m->has_line_numbers ? "[LN]" : "",
			m->has_inline_frames ? "[IN]" : "");
	}
}

static void print_warning(void *data, const char *message)
{
	(void)data;
	fprintf(stderr, "warning: %s\n", message);
}

/* Read path and print its dump to f; returns 0 or the pk_err. */
static int dump_file(const char *path, FILE *f)
{
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(0);
	struct pk_input *in = NULL;
	struct pk_options *opts = pk_options_new();
	int rc;

	if (!ctx || !p) {
		fprintf(stderr, "out of memory\n");
		return PK_ENOMEM;
	}
	pk_context_set_warn(ctx, print_warning, NULL);
	rc = pk_input_open(ctx, path, &in);
	if (!rc)
		rc = pk_read(ctx, in, NULL, p, opts);
	if (rc)
		fprintf(stderr, "%s\n", pk_context_error(ctx)->message);
	else
		dump_profile(f, p);
	pk_input_close(in);
	pk_options_free(opts);
	pk_profile_free(p);
	pk_context_free(ctx);
	return rc;
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		*len = fread(buf, 1, (size_t)n, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

static void show_first_difference(const char *want, const char *got)
{
	int line = 1;

	while (*want && *want == *got) {
		line += *want == '\n';
		want++;
		got++;
	}
	diag("  first difference at line %d", line);
	diag("  want: %.*s", (int)strcspn(want, "\n"), want);
	diag("  got:  %.*s", (int)strcspn(got, "\n"), got);
}

static int check_one(const char *dir, const char *name)
{
	char input[4096], expected[4096], *want, *got = NULL;
	size_t want_len, got_len = 0;
	FILE *f = open_memstream(&got, &got_len);
	int rc, same;

	snprintf(input, sizeof(input), "%s/%s", dir, name);
	snprintf(expected, sizeof(expected), "%s/%s.pprof-raw.txt", dir, name);
	want = read_whole(expected, &want_len);
	if (!f || !want) {
		free(want);
		if (f)
			fclose(f);
		free(got);
		return ok(0, "%s: cannot read the expected dump", name);
	}
	rc = dump_file(input, f);
	fclose(f);
	same = !rc && got_len == want_len && memcmp(got, want, want_len) == 0;
	ok(same, "%s matches pprof -raw", name);
	if (!same && !rc)
		show_first_difference(want, got);
	free(want);
	free(got);
	return same;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
	const char *suffix = ".pprof-raw.txt";
	size_t slen = strlen(suffix), n = 0, i;
	char *names[256];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		printf("1..0 # SKIP %s is absent\n", dir);
		return 0;
	}
	while ((e = readdir(d)) && n < 256) {
		size_t len = strlen(e->d_name);

		if (len > slen && strcmp(e->d_name + len - slen, suffix) == 0)
			names[n++] = strndup(e->d_name, len - slen);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	for (i = 0; i < n; i++) {
		check_one(dir, names[i]);
		free(names[i]);
	}
	return done_testing();
}

int main(int argc, char **argv)
{
	char dir[4096];
	const char *top = getenv("top_srcdir");

	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return dump_file(argv[2], stdout) ? 1 : 0;
	if (argc == 2)
		return run_dir(argv[1]);
	snprintf(dir, sizeof(dir), "%s/../shared/conformance/gperftools",
		 top ? top : ".");
	return run_dir(dir);
}
