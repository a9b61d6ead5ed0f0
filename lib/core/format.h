/* SPDX-License-Identifier: MIT */
/*
 * What a format is: one descriptor per format, defined in the format's
 * own file (lib/formats/) and listed once in lib/formats/registry.h.
 * Callers of the library see it only through the opaque struct pk_reader
 * and struct pk_writer (both point at the descriptor) and functions.
 */
#ifndef PROFKIT_CORE_FORMAT_H
#define PROFKIT_CORE_FORMAT_H

#include "options.h"

enum pki_read_flags {
	/* Its users read it with pprof: name functions as pprof does. */
	PKI_READ_PPROF_NAMES = 1 << 0,
	/* Its users read it with perf script, which shows no inlined
	 * functions in frame-pointer callchains. */
	PKI_READ_NO_INLINE = 1 << 1,
	/* Its reference (a collapse script) reads an empty input as no
	 * stacks: so does --from naming it, rather than an error. */
	PKI_READ_EMPTY_IS_NO_SAMPLES = 1 << 2,
};

struct pki_format {
	/* The name --from and --to take, and the scope of its options
	 * ("NAME:OPTION"). */
	const char *name;

	/* Reading (read NULL: no reader). The probe looks at the first
	 * bytes (peeked, never consumed) and scores them from 0 (not
	 * mine) to 100 (certainly mine); see PK_PROBE_MIN. */
	const char *read_description;
	int (*probe)(const unsigned char *buf, size_t len);
	int (*read)(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts);
	unsigned read_flags;	/* enum pki_read_flags */

	/* Writing (write NULL: no writer). */
	const char *write_description;
	const char *extension;	/* for names made from an input's */
	/* enum pk_profile_flags the profile it writes must be made with */
	unsigned profile_flags;
	int (*write)(struct pk_context *ctx, const struct pk_profile *p,
		     const struct pk_options *opts, struct pk_output *out);

	/* Its options, keys "NAME:OPTION", ending with a NULL key; or NULL. */
	const struct pki_option *options;
};

/* The descriptor behind a public handle, and back. */
static inline const struct pki_format *pki_reader_format(const struct pk_reader *r)
{
	return (const struct pki_format *)(const void *)r;
}

static inline const struct pki_format *pki_writer_format(const struct pk_writer *w)
{
	return (const struct pki_format *)(const void *)w;
}

#endif
