/* SPDX-License-Identifier: MIT */
/* profkit-info: what is in a profile. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const info_usage[] = {
	"profkit-info [--json] [FILE...]",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-info",
	.summary = "Describe profiles: format, sample types and totals, events, time span,\n"
		   "threads, mappings and what the recording says about itself.",
	.usage = info_usage,
	.examples = "  profkit-info perf.data\n  profkit-info --json cpu.pb.gz | jq .events\n",
};

/* s, n bytes, with every line indented by two spaces */
static void put_indented(const char *s, size_t n)
{
	size_t i;

	fputs("  ", stdout);
	for (i = 0; i < n; i++) {
		putchar(s[i]);
		if (s[i] == '\n')
			fputs("  ", stdout);
	}
}

/*
 * Read and describe one input (pk_profile_summary); a failure is said at
 * once, the next input is described all the same. As JSON each summary
 * is an element of one array, opened before the first.
 */
static int describe_input(struct pk_context *ctx, const char *path,
			  int as_json, size_t *described)
{
	struct pk_output *out = NULL;
	struct pk_profile *p = NULL;
	const unsigned char *text;
	size_t len;
	int rc = cmd_read_profile(ctx, path, PK_PROFILE_KEEP_ORDER |
				  PK_PROFILE_KEEP_EMPTY, &p);

	if (!rc)
		rc = pk_output_open_memory(ctx, &out);
	if (!rc)
		rc = pk_profile_summary(ctx, p, path ? path : "-",
					as_json ? PK_SUMMARY_JSON : 0, out);
	if (!rc)
		rc = pk_output_finish(out);
	if (!rc) {
		text = pk_output_memory(out, &len);
		if (as_json) {
			fputs(*described ? ",\n" : "[\n", stdout);
			put_indented((const char *)text, len);
		} else {
			fwrite(text, 1, len, stdout);
		}
		++*described;
	}
	pk_output_abort(out);
	pk_profile_free(p);
	if (rc) {
		rc = cmd_report(ctx, rc);
		pk_context_clear_error(ctx);
	}
	return rc;
}

int main(int argc, char **argv)
{
	int quiet = 0, as_json = 0, i, rc = 0;
	const struct option options[] = {
		OPT_FLAG(0, "json", &as_json, "print JSON (one object per file, in an array)"),
		OPT_KEY("from"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_BY_KEY("see profkit-convert --help"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	struct pk_context *ctx;
	size_t described = 0;

	argc = parse_options(argc, argv, options, &info);
	if (!(ctx = cmd_context(quiet)))
		return 1;
	for (i = 0; i < (argc ? argc : 1); i++) {
		int status = describe_input(ctx, argc ? argv[i] : NULL,
					    as_json, &described);

		if (status > rc)
			rc = status;
	}
	/* as jansson printed the array of them: "[]" when empty */
	if (as_json)
		fputs(described ? "\n]\n" : "[]\n", stdout);
	if (fflush(stdout) || ferror(stdout))
		rc = cmd_report(ctx, pk_error_set(ctx, PK_EIO,
				"cannot write to standard output"));
	pk_context_free(ctx);
	return rc;
}
