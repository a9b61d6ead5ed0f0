/* SPDX-License-Identifier: MIT */
/* The chrome-trace format's writer (write.c), for its descriptor in read.c. */
#ifndef PROFKIT_FORMATS_CHROME_TRACE_H
#define PROFKIT_FORMATS_CHROME_TRACE_H

#include "core/internal.h"

int pki_chrome_trace_write(struct pk_context *ctx, const struct pk_profile *p,
			   const struct pk_options *opts, struct pk_output *out);

#endif
