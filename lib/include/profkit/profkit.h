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

/*
 * The commands' pipeline in one call: open path (NULL or "-": standard
 * input; gzip, and the compressions the input layer knows, undone), detect
 * its format (or take the "from" option), read it, unwind perf.data's
 * --call-graph dwarf stacks, and symbolize and name its frames as the
 * reference tool of that format shows them (perf script for perf inputs,
 * pprof for gperftools and pprof inputs), with the options' symbol
 * sources. Samples are added to p, so several loads sum their inputs.
 * Create p with pk_profile_new(pk_writer_profile_flags(w)) for the writer
 * it goes to.
 * opts may be NULL (defaults). Returns 0 or a negative pk_err; the
 * context's earlier error is cleared first, so a failed load does not
 * spoil the next one; warnings name the input.
 */
int pk_load(struct pk_context *ctx, const char *path,
	    const struct pk_options *opts, struct pk_profile *p);

/*
 * Write p with writer to path (NULL or "-": standard output), through a
 * temporary file renamed into place only on success. opts may be NULL.
 */
int pk_write(struct pk_context *ctx, const struct pk_profile *p,
	     const struct pk_writer *writer, const struct pk_options *opts,
	     const char *path);

#ifdef __cplusplus
}
#endif
#endif
