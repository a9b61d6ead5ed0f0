/* SPDX-License-Identifier: MIT */
/* The tests of pk_profile_filter, as options "filter:NAME". */
#ifndef PROFKIT_TRANSFORMS_FILTER_H
#define PROFKIT_TRANSFORMS_FILTER_H

#include "core/options.h"

extern const struct pki_option pki_filter_options[];

#endif
