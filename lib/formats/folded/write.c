/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, one line per distinct stack with its weight:
 *
 *     comm;main;work;hot 1234
 *
 * as stackcollapse-perf.pl prints them; lib/transforms/fold.c does the folding.
 */
#include "folded.h"

int pki_folded_write(struct pk_context *ctx, const struct pk_profile *p,
		     const struct pk_options *opts, struct pk_output *out)
{
	struct pk_folded *f = NULL;
	size_t i, len;
	int rc = pk_folded_build(ctx, p, opts, &f);

	for (i = 0; !rc && i < pk_folded_count(f); i++) {
		const char *s = pk_folded_stack(f, i, &len);

		rc = pk_output_write(out, s, len);
		if (!rc)
			rc = pk_output_count(out, pk_folded_value(f, i), pk_folded_scale(f));
		if (!rc)
			rc = pk_output_putc(out, '\n');
	}
	pk_folded_free(f);
	return rc;
}
