/* SPDX-License-Identifier: MIT */
/* Merging profiles: the sum of their samples (or a difference). */
#include <stdio.h>
#include <string.h>

#include "copy.h"

int pk_profile_merge(struct pk_context *ctx, struct pk_profile *dst,
		     const struct pk_profile *src, int64_t factor)
{
	struct pk_copy c;
	size_t n = pk_profile_sample_count(src), i;
	int rc = pk_copy_init(&c, dst, src, factor);

	for (i = 0; !rc && i < n; i++)
		rc = pk_copy_sample(&c, i, NULL, 0);
	if (!rc)
		pk_copy_metadata(&c);
	pk_copy_release(&c);
	if (!rc && pk_profile_failed(dst))
		rc = PK_ENOMEM;
	return rc ? pk_error_set(ctx, rc, "out of memory merging profiles") : 0;
}

int pk_profile_merge_column(struct pk_context *ctx, struct pk_profile *dst,
			    const struct pk_profile *src, size_t src_column,
			    size_t dst_column)
{
	struct pk_copy c;
	size_t n = pk_profile_sample_count(src), i;
	int rc = pk_copy_init_columns(&c, dst, src, 1, 0);

	if (!rc) {
		if (src_column >= pk_profile_sample_type_count(src) ||
		    dst_column >= pk_profile_sample_type_count(dst))
			rc = PK_EUSAGE;
		else
			c.columns[src_column] = (int)dst_column;
	}
	for (i = 0; !rc && i < n; i++)
		rc = pk_copy_sample(&c, i, NULL, 0);
	if (!rc)
		pk_copy_metadata(&c);
	pk_copy_release(&c);
	if (rc)
		return pk_error_set(ctx, rc, "cannot merge the column");
	return 0;
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
