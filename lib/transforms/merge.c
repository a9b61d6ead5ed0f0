/* SPDX-License-Identifier: MIT */
/* Merging profiles: the sum of their samples (or a difference). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

/*
 * A merge fails on memory, or on values that do not fit in 64 bits once
 * brought to the finer scale of a fractional input (never wrapping).
 */
static int merge_error(struct pk_context *ctx, const struct pk_copy *c, int rc)
{
	const struct pk_value_type *t;
	int64_t s, d;

	if (rc == PK_ENOMEM)
		return pk_error_set(ctx, rc, "out of memory merging profiles");
	if (rc != PK_EINPUT || c->bad_column < 0)
		return pk_error_set(ctx, rc, "cannot merge a sample type");
	t = pk_profile_sample_type(c->src, (size_t)c->bad_column);
	s = pk_profile_sample_type_scale(c->src, (size_t)c->bad_column);
	d = pk_profile_sample_type_scale(c->dst, (size_t)c->columns[c->bad_column]);
	if (s == 1 && d == 1)
		return pk_error_set(ctx, PK_EINPUT, "cannot merge %s/%s: a value "
				    "does not fit in 64 bits",
				    pk_profile_string(c->src, t->type),
				    pk_profile_string(c->src, t->unit));
	return pk_error_set(ctx, PK_EINPUT, "cannot merge %s/%s: a value does not "
			    "fit in 64 bits at the scale of the fractional counts "
			    "(1/%lld)", pk_profile_string(c->src, t->type),
			    pk_profile_string(c->src, t->unit),
			    (long long)(s > d ? s : d));
}

/*
 * pprof's mapping key: the build id (else the file), the offset and the
 * size rounded up to pages, so that one binary loaded at another address
 * in another run is one mapping.
 */
static int same_mapping(const struct pk_profile *a, const struct pk_mapping *x,
			const struct pk_profile *b, const struct pk_mapping *y)
{
	pk_str xs = x->build_id ? x->build_id : x->file;
	pk_str ys = y->build_id ? y->build_id : y->file;
	uint64_t xsize = ((x->limit - x->start) + 0xfff) & ~(uint64_t)0xfff;
	uint64_t ysize = ((y->limit - y->start) + 0xfff) & ~(uint64_t)0xfff;

	return xsize == ysize && x->offset == y->offset &&
	       strcmp(pk_profile_string(a, xs), pk_profile_string(b, ys)) == 0;
}

/* Source mappings that equal one of dst's become it, addresses rebased. */
static int match_mappings(struct pk_copy *c)
{
	size_t n = pk_profile_mapping_count(c->src);
	size_t m = pk_profile_mapping_count(c->dst);
	uint32_t i, j;

	c->shifts = calloc(n + 1, sizeof(*c->shifts));
	if (!c->shifts)
		return PK_ENOMEM;
	for (i = 1; i <= n; i++) {
		const struct pk_mapping *s = pk_profile_mapping(c->src, i);

		for (j = 1; j <= m; j++) {
			const struct pk_mapping *d = pk_profile_mapping(c->dst, j);

			if (!same_mapping(c->dst, d, c->src, s))
				continue;
			c->mappings[i] = j;
			c->shifts[i] = (int64_t)(d->start - s->start);
			break;
		}
	}
	return 0;
}

/* The start and length of a profile, the span of its samples if unset. */
static void profile_time(const struct pk_profile *p, int64_t *time,
			 int64_t *duration)
{
	uint64_t first, last;

	pk_profile_time_span(p, &first, &last);
	*time = pk_profile_time_nanos(p) ? pk_profile_time_nanos(p) : (int64_t)first;
	*duration = pk_profile_duration_nanos(p) ? pk_profile_duration_nanos(p) :
		(int64_t)(last - first);
}

/*
 * Headers combine as pprof's merge combines them: the earliest start,
 * the durations summed (not the time between the recordings), the
 * longest period. t and d are dst's own, from before the copy widened
 * its span.
 */
static void merge_headers(struct pk_copy *c, int64_t t, int64_t d)
{
	int64_t src_t, src_d;
	struct pk_value_type pt = pk_profile_period_type(c->dst);

	profile_time(c->src, &src_t, &src_d);
	pki_copy_metadata(c);
	if (!t || (src_t && src_t < t))
		t = src_t;
	pk_profile_set_time(c->dst, t, d + src_d);
	if (pk_profile_period(c->src) > pk_profile_period(c->dst))
		pk_profile_set_period(c->dst, pk_profile_string(c->dst, pt.type),
				      pk_profile_string(c->dst, pt.unit),
				      pk_profile_period(c->src));
}

static int copy_samples(struct pk_context *ctx, struct pk_copy *c, int rc)
{
	size_t n = pk_profile_sample_count(c->src), i;
	int64_t t = 0, d = 0;

	if (!rc) {
		profile_time(c->dst, &t, &d);
		rc = match_mappings(c);
	}
	for (i = 0; !rc && i < n; i++)
		rc = pki_copy_sample(c, i, NULL, 0);
	if (!rc)
		merge_headers(c, t, d);
	if (!rc && pk_profile_failed(c->dst))
		rc = PK_ENOMEM;
	if (rc)
		rc = merge_error(ctx, c, rc);
	pki_copy_release(c);
	return rc;
}

int pki_merge_labelled(struct pk_context *ctx, struct pk_profile *dst,
		       const struct pk_profile *src, int64_t factor,
		       const char *key, const char *value)
{
	struct pk_copy c;
	int rc = pki_copy_init(&c, dst, src, factor);

	if (!rc && key) {
		c.extra_label.key = pk_profile_intern_cstr(dst, key);
		c.extra_label.str = pk_profile_intern_cstr(dst, value);
	}
	return copy_samples(ctx, &c, rc);
}

int pk_profile_merge(struct pk_context *ctx, struct pk_profile *dst,
		     const struct pk_profile *src, int64_t factor)
{
	return pki_merge_labelled(ctx, dst, src, factor, NULL, NULL);
}

int pk_profile_merge_column(struct pk_context *ctx, struct pk_profile *dst,
			    const struct pk_profile *src, size_t src_column,
			    size_t dst_column)
{
	struct pk_copy c;
	int rc = pki_copy_init_columns(&c, dst, src, 1, 0);

	if (!rc) {
		if (src_column >= pk_profile_sample_type_count(src) ||
		    dst_column >= pk_profile_sample_type_count(dst))
			rc = PK_EUSAGE;
		else
			c.columns[src_column] = (int)dst_column;
	}
	if (!rc)
		rc = pki_copy_scales(&c);
	return copy_samples(ctx, &c, rc);
}

static void describe_types(const struct pk_profile *p, char *buf, size_t size)
{
	size_t n = pk_profile_sample_type_count(p), i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < size; i++) {
		const struct pk_value_type *t = pk_profile_sample_type(p, i);
		int w = snprintf(buf + used, size - used, "%s%s/%s", i ? ", " : "",
				 pk_profile_string(p, t->type),
				 pk_profile_string(p, t->unit));

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int same_period_type(const struct pk_profile *a, const struct pk_profile *b)
{
	struct pk_value_type x = pk_profile_period_type(a), y = pk_profile_period_type(b);

	/* formats without a period type (perf, folded) go with any */
	if ((!x.type && !x.unit) || (!y.type && !y.unit))
		return 1;
	return strcmp(pk_profile_string(a, x.type), pk_profile_string(b, y.type)) == 0 &&
	       strcmp(pk_profile_string(a, x.unit), pk_profile_string(b, y.unit)) == 0;
}

/* pprof's rule: the same sample types in order, and the same period type. */
int pk_profile_check_compatible(struct pk_context *ctx, const struct pk_profile *a,
				const struct pk_profile *b, const char *b_name)
{
	size_t n = pk_profile_sample_type_count(a), i;
	struct pk_value_type x, y;
	char want[512], got[512];

	if (n == pk_profile_sample_type_count(b)) {
		for (i = 0; i < n; i++) {
			x = *pk_profile_sample_type(a, i);
			y = *pk_profile_sample_type(b, i);
			if (strcmp(pk_profile_string(a, x.type), pk_profile_string(b, y.type)) ||
			    strcmp(pk_profile_string(a, x.unit), pk_profile_string(b, y.unit)))
				break;
		}
		if (i == n && same_period_type(a, b))
			return 0;
		if (i == n) {
			x = pk_profile_period_type(a);
			y = pk_profile_period_type(b);
			return pk_error_set(ctx, PK_EINPUT, "%s: period type %s/%s differs "
					    "from the earlier inputs' %s/%s", b_name,
					    pk_profile_string(b, y.type), pk_profile_string(b, y.unit),
					    pk_profile_string(a, x.type), pk_profile_string(a, x.unit));
		}
	}
	describe_types(a, want, sizeof(want));
	describe_types(b, got, sizeof(got));
	return pk_error_set(ctx, PK_EINPUT,
			    "%s: sample types [%s] differ from the earlier inputs' [%s]; "
			    "profiles of different kinds cannot be summed",
			    b_name, got, want);
}

/* Folded stacks carry one plain count and no event. */
static int is_plain(const struct pk_profile *p)
{
	return pk_profile_sample_type_count(p) == 1 && !pk_profile_event_count(p);
}

int pk_profile_accumulate(struct pk_context *ctx, struct pk_profile **sum,
			  struct pk_profile **p, const char *name,
			  const struct pk_options *opts)
{
	struct pk_profile *t;
	int column;

	/* an empty input adds nothing, nor its lack of sample types */
	if (pki_profile_is_nothing(*sum)) {
		t = *sum;
		*sum = *p;
		*p = t;
	}
	if (pki_profile_is_nothing(*p))
		return 0;
	if (is_plain(*sum) && !is_plain(*p)) {
		t = *sum;	/* the richer profile becomes the sum */
		*sum = *p;
		*p = t;
	}
	if (is_plain(*p) && !is_plain(*sum)) {
		column = pk_value_column(ctx, *sum, opts);
		if (column < 0)
			return pk_context_error(ctx)->code ? pk_context_error(ctx)->code :
				pk_error_set(ctx, PK_EINPUT, "%s: nothing to add to", name);
		return pk_profile_merge_column(ctx, *sum, *p, 0, (size_t)column);
	}
	if (pk_profile_check_compatible(ctx, *sum, *p, name))
		return pk_context_error(ctx)->code;
	return pk_profile_merge(ctx, *sum, *p, 1);
}
