/* SPDX-License-Identifier: MIT */
/*
 * What changed between two profiles: NEW - BASE as pprof -diff_base
 * computes it, or the two columns difffolded.pl prints.
 */
#include "copy.h"

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

static int64_t scaled(int64_t v, int64_t num, int64_t den)
{
	/* difffolded.pl -n: int(count * total2 / total1) */
	return den ? (int64_t)((__int128)v * num / den) : v;
}

int pk_profile_diff(struct pk_context *ctx, struct pk_profile *base,
		    struct pk_profile *new, const struct pk_options *opts,
		    unsigned flags)
{
	int rc = same_scale(ctx, base, new, opts);
	int column = rc ? -1 : pk_value_column(ctx, new, opts);
	int64_t tb = column >= 0 ? pk_profile_total(base, (size_t)column) : 0;
	int64_t tn = column >= 0 ? pk_profile_total(new, (size_t)column) : 0;
	size_t n = pk_profile_sample_type_count(base), i;

	/* an empty input is no samples of the other's kind */
	if (!rc && !pki_profile_is_nothing(new) && !pki_profile_is_nothing(base))
		rc = pk_profile_check_compatible(ctx, new, base, "BASE");
	/* as difffolded.pl -n: every BASE value times NEW's total over BASE's */
	for (i = 0; !rc && (flags & PK_DIFF_NORMALIZE) && tb && tb != tn && i < n; i++)
		pk_profile_scale_column(base, i, tn, tb);
	/* the label tells pprof to take percentages of BASE's total */
	return rc ? rc : pki_merge_labelled(ctx, new, base, -1, "pprof::base", "true");
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

int pk_diff_write_folded(struct pk_context *ctx, struct pk_profile *base,
			 struct pk_profile *new, const struct pk_options *opts,
			 unsigned flags, struct pk_output *out)
{
	struct pk_folded *a = NULL, *b = NULL;
	int rc = same_scale(ctx, base, new, opts);

	if (!rc)
		rc = pk_folded_build(ctx, base, opts, &a);
	if (!rc)
		rc = pk_folded_build(ctx, new, opts, &b);
	if (!rc)
		rc = write_two_columns(out, a, b, (flags & PK_DIFF_NORMALIZE) != 0);
	pk_folded_free(a);
	pk_folded_free(b);
	return rc;
}
