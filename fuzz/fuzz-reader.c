/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: bytes through one reader (FUZZ_READER, set at build
 * time, one binary per reader) and, when they read, through one writer
 * into memory, chosen by a hash of the bytes: the same input always takes
 * the same writer, every writer meets every kind of input, and the reader
 * runs as often as if there were no writers (through all ten, an input
 * took ten times as long). A text that can be read in parts is read in
 * one to three, by the same hash, so that the threaded paths meet the
 * fuzzer too. Any crash, leak, hang or sanitizer report is a finding.
 *
 * A sample that counts many may be written once per count (perf-script
 * text, chrome-trace's timeline of an untimed input): a few bytes of
 * folded text saying "a;b 10101010" would make megabytes of output, and
 * the fuzzer would run one input a second. So before the writers, each
 * count column is scaled down to at most COUNTS_PER_SAMPLE a sample on
 * average: the output stays within a few times what one print of each
 * sample makes. The reader has seen the counts as they were.
 */
#include <stddef.h>
#include <stdint.h>

#include <profkit/profkit.h>

#ifndef FUZZ_READER
#error "build with -DFUZZ_READER=\"name\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COUNTS_PER_SAMPLE 4
#define COUNTS_AT_LEAST 64

/* The positive counts of a column added up, INT64_MAX if they pass it. */
static int64_t counts_in(const struct pk_profile *p, size_t column)
{
	int64_t total = 0;
	size_t i;

	for (i = 0; i < pk_profile_sample_count(p); i++) {
		int64_t v = pk_profile_sample_values(p, i)[column];

		if (v > 0)
			total = v > INT64_MAX - total ? INT64_MAX : total + v;
	}
	return total;
}

static void bound_counts(struct pk_profile *p)
{
	int64_t budget = COUNTS_AT_LEAST +
			 COUNTS_PER_SAMPLE * (int64_t)pk_profile_sample_count(p);
	size_t column;

	for (column = 0; column < pk_profile_sample_type_count(p); column++) {
		int64_t total;

		if (pk_profile_sample_type(p, column)->kind != PK_VALUE_COUNT)
			continue;
		total = counts_in(p, column);
		if (total > budget)
			pk_profile_scale_column(p, column, budget, total);
	}
}

/* FNV-1a of the input: which writer it goes through, and in how many
 * parts it is read */
static uint32_t input_hash(const uint8_t *data, size_t size)
{
	uint32_t hash = 2166136261u;
	size_t i;

	for (i = 0; i < size; i++)
		hash = (hash ^ data[i]) * 16777619u;
	return hash;
}

static const struct pk_writer *writer_for(uint32_t hash)
{
	const struct pk_writer *w = NULL;
	size_t n;

	for (n = 0; (w = pk_writer_next(w)); n++)
		;
	if (!n)
		return NULL;
	for (n = hash % n; (w = pk_writer_next(w)) && n; n--)
		;
	return w;
}

static void write_one(struct pk_context *ctx, const struct pk_profile *p,
		      const struct pk_writer *writer)
{
	struct pk_options *opts = pk_options_new();
	struct pk_output *out;

	if (writer && opts && !pk_output_open_memory(ctx, &out)) {
		if (pk_writer_write(ctx, writer, p, opts, out) == 0)
			pk_output_finish(out);
		pk_output_abort(out);
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

	uint32_t hash = input_hash(data, size);
	/* a text read in parts (lib/core/parts.h) on 1 to 3 threads: a
	 * small input is one part unless --threads says otherwise */
	const char *threads[] = { "1", "2", "3" };

	/* a cap well under libFuzzer's -rss_limit_mb */
	pk_context_set_max_memory(ctx, 256u << 20);
	if (reader && ctx && p && opts &&
	    !pk_options_set(ctx, opts, "threads", threads[(hash >> 16) % 3]) &&
	    !pk_input_open_memory(ctx, "fuzz", data, size, &in) &&
	    pk_read(ctx, in, reader, p, opts) == 0) {
		bound_counts(p);
		write_one(ctx, p, writer_for(hash));
	}
	pk_input_close(in);
	pk_options_free(opts);
	pk_profile_free(p);
	pk_context_free(ctx);
	return 0;
}
