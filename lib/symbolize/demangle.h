/* SPDX-License-Identifier: MIT */
/*
 * Naming rules per reference tool, for mangled names: perf's short names
 * ("ns::f<int>", no parameters, the symbol version kept), c++filt's full
 * ones, and pprof's simple ones ("ns::f", no template arguments, no
 * version).
 */
#ifndef PROFKIT_SYMBOLIZE_DEMANGLE_H
#define PROFKIT_SYMBOLIZE_DEMANGLE_H

#include <pthread.h>

#include "symbolizer.h"
#include "core/options.h"

/* The style the "demangle" option names (perf, pprof, full, none: the
 * choices of lib/core/options.c), or unset when opts names none. */
enum pk_demangle pki_demangle_style(const struct pk_options *opts,
				    enum pk_demangle unset);

/*
 * libstdc++, whose __cxa_demangle names C++, opened on a new thread
 * (*thread, to be joined) where a profile's names will surely need it:
 * mapping and relocating its 2 MB was a twentieth of a warm conversion
 * of a small C++ profile, done now on the other core while symbols are
 * read. 0, or -1 when no thread started (the first name opens it).
 */
int sym_demangle_open_early(pthread_t *thread);

/* The name to show for a mangled (maybe versioned, "memcpy@@GLIBC_2.14")
 * symbol name (malloc'd), or NULL to show it as it is. */
char *sym_demangle(enum pk_demangle mode, const char *mangled);

/*
 * The name to show for one a profiler printed (perf script's frames,
 * printed[0, len)) where it left a Rust name mangled ("_R...",
 * "_ZN...17h0123456789abcdefE") or half demangled
 * ("GcBox$LT$T$GT$::new::h0123456789abcdef"), malloc'd; NULL to show it
 * as printed, C++'s mangled names too (perf demangles those unless told
 * not to, and stackcollapse-perf.pl keeps what it printed).
 */
char *sym_demangle_printed(enum pk_demangle mode, const char *printed,
			   size_t len);

#endif
