/* SPDX-License-Identifier: MIT */
/*
 * profkit-diff: what changed between two profiles. By default the
 * two-column folded form difffolded.pl prints ("stack base new"), which
 * flamegraph.pl and profkit-flamegraph draw as a differential flame
 * graph; with --to, the profile NEW - BASE.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "parse-options.h"

static const char *const diff_usage[] = {
	"profkit-diff [--normalize] [--to=FMT] [-o FILE] BASE NEW",
	NULL,
};

static const struct command_info info = {
	.name = "profkit-diff",
	.summary = "Compare two profiles. Prints 'stack base new' lines as difffolded.pl does,\n"
		   "or with --to the difference NEW - BASE (negative where BASE was larger).",
	.usage = diff_usage,
	.examples =
		"  profkit-diff before.perf-script after.perf-script | flamegraph.pl > diff.svg\n"
		"  profkit-diff --to=pprof base.pb.gz new.pb.gz -o delta.pb.gz\n",
};

static int64_t scaled(int64_t v, int64_t num, int64_t den)
{
	/* difffolded.pl -n: int(count * total2 / total1) */
	return den ? (int64_t)((__int128)v * num / den) : v;
}

static int64_t folded_total(const struct pk_folded *f)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < pk_folded_count(f); i++)
		t += pk_folded_value(f, i);
	return t;
}

static int print_line(struct pk_output *out, const char *s, size_t len,
		      int64_t a, int64_t b, int64_t scale)
{
	int rc = pk_output_write(out, s, len);

	if (!rc)
		rc = pk_output_count(out, a, scale);
	if (!rc)
		rc = pk_output_count(out, b, scale);
	return rc ? rc : pk_output_putc(out, '\n');
}

/* Walk both sorted line lists together. */
static int write_two_columns(struct pk_output *out, const struct pk_folded *a,
			     const struct pk_folded *b, int normalize)
{
	size_t i = 0, j = 0, na = pk_folded_count(a), nb = pk_folded_count(b);
	int64_t ta = folded_total(a), tb = folded_total(b);
	int rc = 0;

	while (!rc && (i < na || j < nb)) {
		size_t la = 0, lb = 0;
		const char *sa = i < na ? pk_folded_stack(a, i, &la) : NULL;
		const char *sb = j < nb ? pk_folded_stack(b, j, &lb) : NULL;
		int c = !sa ? 1 : !sb ? -1 : memcmp(sa, sb, la < lb ? la : lb);
		int64_t va = 0, vb = 0;

		if (sa && sb && !c)
			c = (la > lb) - (la < lb);
		if (c <= 0)
			va = pk_folded_value(a, i++);
		if (c >= 0)
			vb = pk_folded_value(b, j++);
		if (normalize && ta != tb)
			va = scaled(va, tb, ta);
		rc = c <= 0 ? print_line(out, sa, la, va, vb, pk_folded_scale(a)) :
			print_line(out, sb, lb, va, vb, pk_folded_scale(b));
	}
	return rc;
}

static int diff_folded(struct pk_context *ctx, struct pk_profile *base,
		       struct pk_profile *new, const struct pk_options *opts,
		       int normalize, const char *output)
{
	struct pk_folded *a = NULL, *b = NULL;
	struct pk_output *out;
	int rc = pk_folded_build(ctx, base, opts, &a);

	if (!rc)
		rc = pk_folded_build(ctx, new, opts, &b);
	if (!rc)
		rc = pk_output_open(ctx, output, &out);
	if (!rc) {
		rc = write_two_columns(out, a, b, normalize);
		if (rc)
			pk_output_abort(out);
		else
			rc = pk_output_commit(out);
	}
	pk_folded_free(a);
	pk_folded_free(b);
	return rc;
}

/* NEW - BASE as a profile, BASE scaled to NEW's total with --normalize. */
static int diff_profile(struct pk_context *ctx, struct pk_profile *base,
			struct pk_profile *new, const struct pk_options *opts,
			int normalize, const struct pk_writer *writer,
			const char *output)
{
	int column = pk_value_column(ctx, new, opts), rc;
	int64_t tb = column >= 0 ? pk_profile_total(base, (size_t)column) : 0;
	int64_t tn = column >= 0 ? pk_profile_total(new, (size_t)column) : 0;
	size_t n = pk_profile_sample_type_count(base), i;

	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	rc = pk_profile_check_compatible(ctx, new, base, "BASE");
	/* as difffolded.pl -n: every BASE value times NEW's total over BASE's */
	for (i = 0; !rc && normalize && tb && tb != tn && i < n; i++)
		pk_profile_scale_column(base, i, tn, tb);
	if (!rc)
		rc = pk_profile_merge(ctx, new, base, -1);
	if (!rc)
		rc = cmd_write_output(ctx, writer, new, output);
	return rc;
}

/* Fractional counts: the compared columns at one scale, so they compare. */
static int same_scale(struct pk_context *ctx, struct pk_profile *base,
		      struct pk_profile *new, const struct pk_options *opts)
{
	int b = pk_value_column(ctx, base, opts), n = pk_value_column(ctx, new, opts);

	if (b < 0 || n < 0 || !pk_profile_align_scales(base, (size_t)b, new, (size_t)n))
		return pk_context_error(ctx)->code;
	return pk_error_set(ctx, PK_EINPUT, "BASE and NEW: a value does not fit "
			    "in 64 bits at the scale of the fractional counts");
}

int main(int argc, char **argv)
{
	const char *to = NULL, *output = NULL;
	int quiet = 0, normalize = 0;
	const struct option options[] = {
		OPT_PK(0, "from", "FMT", "input format (default: detect each)"),
		OPT_STRING(0, "to", &to, "FMT", "write NEW - BASE in this format"),
		OPT_STRING('o', "output", &output, "FILE", "write FILE instead of stdout"),
		OPT_FLAG(0, "normalize", &normalize, "scale BASE to NEW's total (difffolded -n)"),
		OPT_PK(0, "event", "NAME", "compare this event (default: the first)"),
		OPT_PK(0, "value", "KIND", "compare 'samples' or 'period'"),
		OPT_FLAG('q', "quiet", &quiet, "no warnings"),
		OPT_SYMBOLS,
		OPT_END(),
	};
	const struct pk_writer *writer = NULL;
	struct pk_profile *base = NULL, *new = NULL;
	struct pk_context *ctx;
	int rc;

	argc = parse_options(argc, argv, options, &info);
	if (argc != 2) {
		cmd_error("give two profiles: BASE and NEW");
		return 2;
	}
	if ((to && !(writer = cmd_writer(to))) || !(ctx = cmd_context(quiet)))
		return 2;
	rc = cmd_read_profile(ctx, argv[0], 0, &base);
	if (!rc)
		rc = cmd_read_profile(ctx, argv[1], 0, &new);
	if (!rc)
		rc = same_scale(ctx, base, new, cmd_options());
	if (!rc)
		rc = writer ? diff_profile(ctx, base, new, cmd_options(), normalize, writer, output) :
			diff_folded(ctx, base, new, cmd_options(), normalize, output);
	rc = cmd_report(ctx, rc);
	pk_profile_free(base);
	pk_profile_free(new);
	pk_context_free(ctx);
	return rc;
}
