/* SPDX-License-Identifier: MIT */
/*
 * The formats, as the public API sees them: readers and writers found by
 * name, listed, probed; reading an input.
 */
#include <string.h>

#include "registry.h"
#include "core/internal.h"

#define LIST_ENTRY(id) &pki_format_##id,
static const struct pki_format *const formats[] = {
	PKI_FORMATS(LIST_ENTRY)
	NULL,
};

const struct pki_format *pki_format_next(const struct pki_format *prev)
{
	size_t i = 0;

	if (prev)
		while (formats[i] && formats[i++] != prev)
			;
	return formats[i];
}

/* ---- readers and writers: the formats that read, the formats that
 * write, as the handles callers hold ---- */

static const struct pk_reader *reader_of(const struct pki_format *f)
{
	return (const struct pk_reader *)(const void *)f;
}

static const struct pk_writer *writer_of(const struct pki_format *f)
{
	return (const struct pk_writer *)(const void *)f;
}

const struct pk_reader *pk_reader_next(const struct pk_reader *prev)
{
	const struct pki_format *f = prev ? pki_reader_format(prev) : NULL;

	while ((f = pki_format_next(f)) && !f->read)
		;
	return f ? reader_of(f) : NULL;
}

const struct pk_writer *pk_writer_next(const struct pk_writer *prev)
{
	const struct pki_format *f = prev ? pki_writer_format(prev) : NULL;

	while ((f = pki_format_next(f)) && !f->write)
		;
	return f ? writer_of(f) : NULL;
}

const struct pk_reader *pk_reader_find(const char *name)
{
	const struct pk_reader *r = NULL;

	while ((r = pk_reader_next(r)) && strcmp(pk_reader_name(r), name) != 0)
		;
	return r;
}

const struct pk_writer *pk_writer_find(const char *name)
{
	const struct pk_writer *w = NULL;

	while ((w = pk_writer_next(w)) && strcmp(pk_writer_name(w), name) != 0)
		;
	return w;
}

const char *pk_reader_name(const struct pk_reader *r)
{
	return pki_reader_format(r)->name;
}

const char *pk_reader_description(const struct pk_reader *r)
{
	return pki_reader_format(r)->read_description;
}

int pk_reader_probe(const struct pk_reader *r, const unsigned char *buf,
		    size_t len)
{
	return pki_reader_format(r)->probe(buf, len);
}

const char *pk_writer_name(const struct pk_writer *w)
{
	return pki_writer_format(w)->name;
}

const char *pk_writer_description(const struct pk_writer *w)
{
	return pki_writer_format(w)->write_description;
}

const char *pk_writer_extension(const struct pk_writer *w)
{
	return pki_writer_format(w)->extension;
}

unsigned pk_writer_profile_flags(const struct pk_writer *w)
{
	return pki_writer_format(w)->profile_flags;
}

int pk_writer_write(struct pk_context *ctx, const struct pk_writer *w,
		    const struct pk_profile *p, const struct pk_options *opts,
		    struct pk_output *out)
{
	return pki_writer_format(w)->write(ctx, p, opts ? opts : &pki_default_options,
					  out);
}

/* Enough for every magic number and a few text lines. */
#define PROBE_BYTES 4096

int pk_reader_detect(struct pk_context *ctx, struct pk_input *in,
		     const struct pk_reader **reader)
{
	const struct pk_reader *best = NULL, *r;
	const unsigned char *buf;
	int best_score = 0, tie = 0;
	size_t len;

	buf = pk_input_peek(in, PROBE_BYTES, &len);
	if (pk_context_error(ctx)->code)
		return pk_context_error(ctx)->code;
	if (len == 0)
		return pk_error_set(ctx, PK_EINPUT, "%s: input is empty",
				    pk_input_name(in));
	for (r = pk_reader_next(NULL); r; r = pk_reader_next(r)) {
		int score = pk_reader_probe(r, buf, len);

		if (score > best_score) {
			best = r;
			best_score = score;
			tie = 0;
		} else if (score == best_score && score > 0) {
			tie = 1;
		}
	}
	/* As FFmpeg does: a tie is "unknown", not a guess. */
	if (!best || best_score < PK_PROBE_MIN || tie)
		return pk_error_set(ctx, PK_EINPUT,
				    "%s: unknown profile format (see "
				    "--list-formats; name one with --from)",
				    pk_input_name(in));
	*reader = best;
	return 0;
}

/*
 * An input of no bytes is a profile of no samples, of no format (perf
 * script of an empty recording prints nothing): said once, as
 * stackcollapse-perf.pl and inferno read it, an error with --strict.
 * An input whose reader found no samples in it is said alike, but where
 * the caller keeps empty profiles to describe them (profkit-info).
 */
static void note_no_samples(struct pk_context *ctx, struct pk_input *in,
			    const struct pk_profile *p, int empty)
{
	if (empty)
		pk_warn(ctx, "%s: the input is empty: no samples", pk_input_name(in));
	else if (!(pk_profile_flags(p) & PK_PROFILE_KEEP_EMPTY))
		pk_warn(ctx, "%s: no samples in the input", pk_input_name(in));
}

int pk_read(struct pk_context *ctx, struct pk_input *in,
	    const struct pk_reader *reader, struct pk_profile *p,
	    const struct pk_options *opts)
{
	size_t samples = pk_profile_sample_count(p);
	int rc;

	/* read as the format named, an empty input is what its reader says
	 * (pprof rejects one, as pprof does), or its reference script */
	if ((!reader || (pki_reader_format(reader)->read_flags &
			 PKI_READ_EMPTY_IS_NO_SAMPLES)) &&
	    pki_input_is_empty(in)) {
		if (!pk_profile_meta(p, PK_META_INPUT))
			pk_profile_set_meta(p, PK_META_INPUT, pk_input_name(in));
		note_no_samples(ctx, in, p, 1);
		return 0;
	}
	if (!reader) {
		rc = pk_reader_detect(ctx, in, &reader);
		if (rc)
			return rc;
	}
	pk_profile_set_memory_limit(p, pk_context_max_memory(ctx));
	pki_profile_set_max_stack(p, opts && opts->max_stack ? opts->max_stack :
				  PK_DEFAULT_MAX_STACK);
	if (!pk_profile_meta(p, PK_META_INPUT))
		pk_profile_set_meta(p, PK_META_INPUT, pk_input_name(in));
	if (!pk_profile_meta(p, PK_META_FORMAT))
		pk_profile_set_meta(p, PK_META_FORMAT, pk_reader_name(reader));
	rc = pki_reader_format(reader)->read(ctx, in, p, opts ? opts :
					     &pki_default_options);
	if (pk_profile_failed(p)) {
		/* say why, rather than the reader's bare "out of memory" */
		pk_context_clear_error(ctx);
		rc = pk_error_set(ctx, PK_ENOMEM,
				  "%s: the profile needs more than the memory "
				  "limit of %llu MiB (see --max-memory)",
				  pk_input_name(in),
				  (unsigned long long)(pk_context_max_memory(ctx) >> 20));
	}
	if (!rc && pk_profile_sample_count(p) == samples)
		note_no_samples(ctx, in, p, 0);
	if (!rc && pki_profile_cut_stacks(p))
		pk_warn(ctx, "%s: %zu %s deeper than %zu frames: cut to "
			"their %zu leaf-side frames (see --max-stack)",
			pk_input_name(in), pki_profile_cut_stacks(p),
			pki_profile_cut_stacks(p) == 1 ? "stack was" : "stacks were",
			pki_profile_max_stack(p), pki_profile_max_stack(p));
	return rc;
}
