/* SPDX-License-Identifier: MIT */
/* The firefox format's writer (write.c), for its descriptor in read.c. */
#ifndef PROFKIT_FORMATS_FIREFOX_H
#define PROFKIT_FORMATS_FIREFOX_H

#include "core/internal.h"

int pki_firefox_write(struct pk_context *ctx, const struct pk_profile *p,
		      const struct pk_options *opts, struct pk_output *out);

#endif
