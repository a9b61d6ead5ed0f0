/* SPDX-License-Identifier: MIT */
/*
 * The value a single-value view shows (pk_value_column, profkit/transform.h)
 * and what it says of the events it leaves out, so that every writer that
 * shows one event says it in the same words.
 */
#ifndef PROFKIT_TRANSFORMS_VALUE_H
#define PROFKIT_TRANSFORMS_VALUE_H

#include "core/internal.h"

/* Warn that only event is shown, the first of n that could be. */
void pki_warn_one_event(struct pk_context *ctx, const struct pk_profile *p,
			pk_str event, size_t n);

#endif
