/* SPDX-License-Identifier: MIT */
/*
 * Naming rules per reference tool, for mangled names: perf's short names
 * ("ns::f<int>", no parameters, the symbol version kept), c++filt's full
 * ones, and pprof's simple ones ("ns::f", no template arguments, no
 * version).
 */
#ifndef PROFKIT_SYMBOLIZE_DEMANGLE_H
#define PROFKIT_SYMBOLIZE_DEMANGLE_H

#include "symbolizer.h"

/* The name to show for a mangled (maybe versioned, "memcpy@@GLIBC_2.14")
 * symbol name (malloc'd), or NULL to show it as it is. */
char *sym_demangle(enum pk_demangle mode, const char *mangled);

#endif
