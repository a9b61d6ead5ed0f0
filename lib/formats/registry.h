/* SPDX-License-Identifier: MIT */
/*
 * The one list of formats, a line each, in probe order (cheap and
 * specific probes first; a tie is no guess, so the order decides no
 * detection): FORMAT(id) is the descriptor pki_format_<id>, which the
 * format's own file or folder defines (lib/core/format.h says what it
 * holds). Adding a format is its file or folder and its line here.
 */
#ifndef PROFKIT_FORMATS_REGISTRY_H
#define PROFKIT_FORMATS_REGISTRY_H

#include "core/format.h"

#define PKI_FORMATS(FORMAT) \
	FORMAT(perf_data) \
	FORMAT(jfr) \
	FORMAT(gperftools_cpu) \
	FORMAT(gperftools_heap) \
	FORMAT(perf_script) \
	FORMAT(folded) \
	FORMAT(bpftrace) \
	FORMAT(dtrace) \
	FORMAT(systemtap) \
	FORMAT(pmcstat) \
	FORMAT(eu_stack) \
	FORMAT(gdb) \
	FORMAT(jstack) \
	FORMAT(java_exceptions) \
	FORMAT(pprof) \
	FORMAT(otlp) \
	FORMAT(speedscope) \
	FORMAT(v8) \
	FORMAT(chrome_trace) \
	FORMAT(gprof2dot) \
	FORMAT(dot) \
	FORMAT(callgrind) \
	FORMAT(flamegraph) \
	FORMAT(firefox) \
	FORMAT(macos_sample) \
	FORMAT(instruments) \
	FORMAT(vtune) \
	FORMAT(vsprof) \
	FORMAT(ghc_prof) \
	FORMAT(pprof_raw) \
	FORMAT(ljp) \
	FORMAT(xctrace) \
	FORMAT(otlp_json) \
	/* the end of the list */

#define PKI_DECLARE_FORMAT(id) extern const struct pki_format pki_format_##id;
PKI_FORMATS(PKI_DECLARE_FORMAT)
#undef PKI_DECLARE_FORMAT

/* The formats in the list's order: prev NULL gives the first, the last
 * NULL. */
const struct pki_format *pki_format_next(const struct pki_format *prev);

#endif
