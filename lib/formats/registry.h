/* SPDX-License-Identifier: MIT */
/* The format tables, one per lib/read_*.c and lib/write_*.c file. */
#ifndef PROFKIT_FORMATS_H
#define PROFKIT_FORMATS_H

#include <profkit/format.h>

extern const struct pk_reader pki_reader_perf_data;
extern const struct pk_reader pki_reader_gperf_cpu;
extern const struct pk_reader pki_reader_gperf_heap;
extern const struct pk_reader pki_reader_perf_script;
extern const struct pk_reader pki_reader_folded;
extern const struct pk_reader pki_reader_pprof;
extern const struct pk_reader pki_reader_jfr;

extern const struct pk_writer pki_writer_folded;
extern const struct pk_writer pki_writer_perf_script;
extern const struct pk_writer pki_writer_pprof;
extern const struct pk_writer pki_writer_speedscope;
extern const struct pk_writer pki_writer_chrome_trace;
extern const struct pk_writer pki_writer_gprof2dot;
extern const struct pk_writer pki_writer_dot;
extern const struct pk_writer pki_writer_callgrind;
extern const struct pk_writer pki_writer_flamegraph;
extern const struct pk_writer pki_writer_firefox;

#endif
