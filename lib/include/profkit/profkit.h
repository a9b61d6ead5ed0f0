/* SPDX-License-Identifier: MIT */
/* libprofkit: read, convert and write CPU and memory profiles. */
#ifndef PROFKIT_PROFKIT_H
#define PROFKIT_PROFKIT_H

#include <profkit/error.h>
#include <profkit/profile.h>
#include <profkit/format.h>
#include <profkit/transform.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *pk_version(void);

#ifdef __cplusplus
}
#endif
#endif
