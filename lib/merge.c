/* SPDX-License-Identifier: MIT */
/* Merging profiles: the sum of their samples (or a difference). */
#include <stdio.h>
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
		return pk_error_set(ctx, rc, "cannot merge the column");
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

int pk_profile_merge(struct pk_context *ctx, struct pk_profile *dst,
		     const struct pk_profile *src, int64_t factor)
{
	struct pk_copy c;
	size_t n = pk_profile_sample_count(src), i;
	int rc = pki_copy_init(&c, dst, src, factor);

	for (i = 0; !rc && i < n; i++)
		rc = pki_copy_sample(&c, i, NULL, 0);
	if (!rc)
		pki_copy_metadata(&c);
	if (!rc && pk_profile_failed(dst))
		rc = PK_ENOMEM;
	if (rc)
		rc = merge_error(ctx, &c, rc);
	pki_copy_release(&c);
	return rc;
}

int pk_profile_merge_column(struct pk_context *ctx, struct pk_profile *dst,
			    const struct pk_profile *src, size_t src_column,
			    size_t dst_column)
{
	struct pk_copy c;
	size_t n = pk_profile_sample_count(src), i;
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
	for (i = 0; !rc && i < n; i++)
		rc = pki_copy_sample(&c, i, NULL, 0);
	if (!rc)
		pki_copy_metadata(&c);
	if (rc)
		rc = merge_error(ctx, &c, rc);
	pki_copy_release(&c);
	return rc;
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

int pk_profile_check_compatible(struct pk_context *ctx, const struct pk_profile *a,
				const struct pk_profile *b, const char *b_name)
{
	size_t n = pk_profile_sample_type_count(a), i;
	char want[512], got[512];

	if (n == pk_profile_sample_type_count(b)) {
		for (i = 0; i < n; i++) {
			const struct pk_value_type *x = pk_profile_sample_type(a, i);
			const struct pk_value_type *y = pk_profile_sample_type(b, i);

			if (strcmp(pk_profile_string(a, x->type), pk_profile_string(b, y->type)) ||
			    strcmp(pk_profile_string(a, x->unit), pk_profile_string(b, y->unit)))
				break;
		}
		if (i == n)
			return 0;
	}
	describe_types(a, want, sizeof(want));
	describe_types(b, got, sizeof(got));
	return pk_error_set(ctx, PK_EINPUT,
			    "%s: sample types [%s] differ from the earlier inputs' [%s]; "
			    "profiles of different kinds cannot be summed",
			    b_name, got, want);
}
