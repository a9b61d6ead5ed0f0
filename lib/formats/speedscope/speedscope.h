/* SPDX-License-Identifier: MIT */
/* The speedscope format's writer (write.c), for its descriptor in read.c. */
#ifndef PROFKIT_FORMATS_SPEEDSCOPE_H
#define PROFKIT_FORMATS_SPEEDSCOPE_H

#include "core/internal.h"

/* Every file's "$schema": what tells a speedscope file apart. */
#define PKI_SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

extern const struct pki_option pki_speedscope_options[];
int pki_speedscope_write(struct pk_context *ctx, const struct pk_profile *p,
			 const struct pk_options *opts, struct pk_output *out);

#endif
