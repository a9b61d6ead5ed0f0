/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: bytes through one reader (FUZZ_READER, set at build
 * time, one binary per reader) and, when they read, through every writer
 * into memory. Any crash, leak, hang or sanitizer report is a finding.
 */
#include <stddef.h>
#include <stdint.h>

#include <profkit/profkit.h>

#ifndef FUZZ_READER
#error "build with -DFUZZ_READER=\"name\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_all(struct pk_context *ctx, const struct pk_profile *p)
{
	struct pk_options *opts = pk_options_new();
	const struct pk_writer *w = NULL;

	while ((w = pk_writer_next(w))) {
		struct pk_output *out;

		if (pk_output_open_memory(ctx, &out))
			continue;
		if (pk_writer_write(ctx, w, p, opts, out) == 0)
			pk_output_finish(out);
		pk_output_abort(out);
		pk_context_clear_error(ctx);
	}
	pk_options_free(opts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pk_reader *reader = pk_reader_find(FUZZ_READER);
	struct pk_context *ctx = pk_context_new();
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	struct pk_input *in = NULL;
	struct pk_options *opts = pk_options_new();

	/* a cap well under libFuzzer's -rss_limit_mb */
	pk_context_set_max_memory(ctx, 256u << 20);
	if (reader && ctx && p && !pk_input_open_memory(ctx, "fuzz", data, size, &in) &&
	    pk_read(ctx, in, reader, p, opts) == 0)
		write_all(ctx, p);
	pk_input_close(in);
	pk_options_free(opts);
	pk_profile_free(p);
	pk_context_free(ctx);
	return 0;
}
