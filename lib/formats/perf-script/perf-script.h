/* SPDX-License-Identifier: MIT */
/* The perf script format's writer (write.c), for its descriptor in read.c. */
#ifndef PROFKIT_FORMATS_PERF_SCRIPT_H
#define PROFKIT_FORMATS_PERF_SCRIPT_H

#include "core/internal.h"

extern const struct pki_option pki_perf_script_write_options[];
int pki_perf_script_write(struct pk_context *ctx, const struct pk_profile *p,
			  const struct pk_options *opts, struct pk_output *out);

#endif
