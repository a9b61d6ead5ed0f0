/* SPDX-License-Identifier: MIT */
/*
 * The pipeline every command runs: detect, read, unwind, symbolize and
 * name an input as the reference tool of its format would, then write it.
 * The policy lives here, not in the commands, so that a program calling
 * pk_load gets the profile profkit-convert writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/utsname.h>

#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"

#include "core/format.h"
#include "core/internal.h"

/* perf record -g: frame pointers; dwarf: a copy of the user stack */
#define CALL_CHAINS_RECIPE "perf record -g (--call-graph dwarf for " \
	"programs built without frame pointers)"
/* Was the recording made on the kernel running now? */
static int same_kernel(const struct pk_profile *p)
{
	const char *recorded = pk_profile_meta(p, "os-release");
	struct utsname u;

	return recorded && uname(&u) == 0 && strcmp(recorded, u.release) == 0;
}

/* What naming p needs, whatever its input: the files to look in, and
 * whether names alone are wanted. */
static void naming_options(struct pk_symbolize_options *so,
			   const struct pk_profile *p,
			   const struct pk_options *opts)
{
	pki_symbolize_options_init(so);
	so->binary = opts->binary;
	so->symbol_path = opts->symbol_path;
	so->symfs = opts->symfs;
	so->kallsyms = opts->kallsyms;
	so->names_only = (pk_profile_flags(p) & PK_PROFILE_NAMES_ONLY) != 0;
}

/*
 * Name the addresses of p as the input's own tool does: pprof's names for
 * what users read with pprof; perf script's frames for perf's inputs,
 * which show inlined functions only in the stacks perf unwound itself
 * (--call-graph dwarf), not in frame-pointer callchains.
 */
static int symbolize(struct pk_context *ctx, struct pk_profile *p,
		     const struct pk_options *opts,
		     const struct pk_reader *reader, int unwound)
{
	unsigned flags = pki_reader_format(reader)->read_flags;
	struct pk_symbolize_options so;
	struct pk_symbolizer *s;
	int rc;

	naming_options(&so, p, opts);
	so.local_kernel = same_kernel(p);
	so.demangle = pki_demangle_style(opts, flags & PKI_READ_PPROF_NAMES ?
					 PK_DEMANGLE_SIMPLE : PK_DEMANGLE_SHORT);
	so.no_inline = !opts->inline_frames &&
		       (flags & PKI_READ_NO_INLINE) && !unwound;
	s = pki_symbolizer_new(ctx, &so);
	if (!s)
		return pk_context_error(ctx)->code;
	rc = pki_symbolize(s, p);
	pki_symbolizer_free(s);
	return rc;
}

static int find_reader(struct pk_context *ctx, struct pk_input *in,
		       const struct pk_options *opts,
		       const struct pk_reader **reader)
{
	if (!opts->from || strcmp(opts->from, "auto") == 0) {
		/* an empty input has no format: pk_read says it is empty */
		if (pki_input_is_empty(in))
			return 0;
		return pk_reader_detect(ctx, in, reader);
	}
	*reader = pk_reader_find(opts->from);
	if (!*reader)
		return pk_error_set(ctx, PK_EUSAGE, "unknown input format '%s' "
				    "(see --list-formats)", opts->from);
	return 0;
}

/* The perf.data reader's "dwarf-unwinding" fact, "" when absent. */
static const char *unwinding_fact(const struct pk_profile *p)
{
	const char *v = pk_profile_meta(p, PK_META_DWARF_UNWINDING);

	return v ? v : "";
}

/* perf.data, or perf script's text of one */
static int is_perf_recording(const struct pk_reader *reader)
{
	return strcmp(pk_reader_name(reader), "perf-data") == 0 ||
	       strcmp(pk_reader_name(reader), "perf-script") == 0;
}

/*
 * A perf recording made without call chains (perf record without -g):
 * every stack is the sampled frame alone. Said once, with how to record
 * them, and kept among the recording's facts (profkit-info lists them).
 * Not for copies of user stacks (--call-graph dwarf), which unwinding
 * turns into chains or not, nor when the user asked for the sampled
 * frame only (--no-unwind).
 */
static void note_no_call_chains(struct pk_context *ctx, struct pk_profile *p,
				const struct pk_reader *reader)
{
	/* perf script hides recorded ones with -G, or -F without ip */
	const char *text = strcmp(pk_reader_name(reader), "perf-script") ? "" :
		", and print them with perf script without -G";
	size_t n = pk_profile_stack_count(p), depth, i;
	char why[256], fact[sizeof(why) + 8];

	if (!n || !pk_profile_sample_count(p))
		return;
	for (i = 1; i <= n; i++) {
		pk_profile_stack(p, (uint32_t)i, &depth);
		if (depth > 1)
			return;
	}
	snprintf(why, sizeof(why), "stacks are one frame deep; record them "
		 "with: " CALL_CHAINS_RECIPE "%s", text);
	pk_warn(ctx, "no call chains: %s", why);
	snprintf(fact, sizeof(fact), "none; %s", why);
	pk_profile_set_meta(p, "call-chains", fact);
}

/*
 * Read one input into p and symbolize what it added. Whether stacks were
 * unwound is this input's fact, not an earlier one's (inputs summed into
 * one profile each get their own naming); the last unwound input's
 * counts stay in the profile.
 */
static int load_input(struct pk_context *ctx, struct pk_input *in,
		      const struct pk_options *opts, struct pk_profile *p)
{
	const struct pk_reader *reader = NULL;
	char *earlier = strdup(unwinding_fact(p));
	struct pk_symbolize_options so;
	int rc, unwound;

	if (!earlier)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (*earlier)
		pk_profile_set_meta(p, PK_META_DWARF_UNWINDING, "");
	rc = find_reader(ctx, in, opts, &reader);
	/* the files a reader finds (unwinding) are copied for that naming */
	naming_options(&so, p, opts);
	if (!rc && reader && !opts->no_symbolize)
		rc = pki_symbolize_expect(ctx, &so);
	if (!rc)
		rc = pk_read(ctx, in, reader, p, opts);
	unwound = *unwinding_fact(p) != '\0';
	/* user stacks copied (--call-graph dwarf) are chains to unwind */
	if (!rc && reader && is_perf_recording(reader) && !unwound &&
	    !opts->no_unwind)
		note_no_call_chains(ctx, p, reader);
	if (!unwound && *earlier)
		pk_profile_set_meta(p, PK_META_DWARF_UNWINDING, earlier);
	free(earlier);
	/* no reader: an empty input, nothing read, nothing to name */
	if (!rc && reader && !opts->no_symbolize)
		rc = symbolize(ctx, p, opts, reader, unwound);
	return rc;
}

int pk_load(struct pk_context *ctx, const char *path,
	    const struct pk_options *opts, struct pk_profile *p)
{
	struct pk_input *in;
	int rc;

	pk_context_clear_error(ctx);
	if (!opts)
		opts = &pki_default_options;
	rc = pk_input_open(ctx, path, &in);
	if (rc)
		return rc;
	pki_context_set_subject(ctx, pk_input_name(in));
	rc = load_input(ctx, in, opts, p);
	pki_context_set_subject(ctx, NULL);
	pk_input_close(in);
	return rc;
}

int pk_write(struct pk_context *ctx, const struct pk_profile *p,
	     const struct pk_writer *writer, const struct pk_options *opts,
	     const char *path)
{
	struct pk_output *out;
	int rc;

	pk_context_clear_error(ctx);
	if (!opts)
		opts = &pki_default_options;
	rc = pk_output_open(ctx, path, &out);
	if (rc)
		return rc;
	rc = pk_writer_write(ctx, writer, p, opts, out);
	if (rc) {
		pk_output_abort(out);
		return rc;
	}
	return pk_output_commit(out);
}
