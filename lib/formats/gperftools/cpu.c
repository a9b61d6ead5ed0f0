/* SPDX-License-Identifier: MIT */
/*
 * Reader for gperftools CPU profiles (CPUPROFILE=file). The memory map
 * and pprof's clean-ups are shared with the heap reader (gperf.c).
 *
 * The file is made of pointer-sized slots (4 or 8 bytes) in the byte
 * order of the profiled machine:
 *
 *     0, 3, 0, period_us, 0            header
 *     count, depth, pc[depth]          records, leaf first, depth <= 254
 *     0, 1, 0                          end of data
 *
 * and then the text of /proc/self/maps. Equal stacks may repeat; they
 * are summed. The profile is unsymbolized: locations carry addresses
 * and mappings, and a symbolizer adds lines later.
 *
 * Everything follows what `pprof -raw` prints for the same file: each
 * caller address moves back by one to land on its call instruction, a
 * frame that the signal handler pushes below nearly every leaf is
 * removed, and the memory map is cleaned up as pprof's ParseProcMaps,
 * massageMappings and remapMappingIDs do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/registry.h"
#include "gperf.h"
#include "core/internal.h"

/* ==== the CPU profile ==== */

#define MAX_DEPTH 254
#define MAX_WARNINGS 5

struct slot_layout {
	unsigned width;		/* 4 or 8 */
	int big_endian;
};

/* In the order pprof tries them. */
static const struct slot_layout layouts[] = {
	{ 4, 0 }, { 4, 1 }, { 8, 0 }, { 8, 1 },
};

struct cpu_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pk_gperf *g;
	const struct slot_layout *layout;
	int64_t period;		/* nanoseconds */
	int64_t left;		/* bytes left in the file, -1 if unknown */
	uint64_t records;
};

static uint64_t get_slot(const unsigned char *b, const struct slot_layout *l)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < l->width; i++)
		v |= (uint64_t)b[l->big_endian ? l->width - 1 - i : i] << (8 * i);
	return v;
}

/* The layout whose header reads 0, 3, 0|1, period > 0, 0; or NULL. */
static const struct slot_layout *find_layout(const unsigned char *buf,
					     size_t len, uint64_t *version,
					     uint64_t *period)
{
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(layouts); i++) {
		const struct slot_layout *l = &layouts[i];
		unsigned w = l->width;

		if (len < 5 * w)
			continue;
		if (get_slot(buf, l) == 0 && get_slot(buf + w, l) == 3 &&
		    get_slot(buf + 2 * w, l) <= 1 && get_slot(buf + 3 * w, l) &&
		    get_slot(buf + 4 * w, l) == 0) {
			*version = get_slot(buf + 2 * w, l);
			*period = get_slot(buf + 3 * w, l);
			return l;
		}
	}
	return NULL;
}

static int gperf_cpu_probe(const unsigned char *buf, size_t len)
{
	uint64_t version, period;

	return find_layout(buf, len, &version, &period) ? 100 : 0;
}

/* Read up to n slots into out; *bytes says how many bytes came. */
static int read_slots(struct cpu_reader *r, uint64_t *out, size_t n,
		      size_t *bytes)
{
	unsigned char buf[(MAX_DEPTH + 2) * 8];
	size_t w = r->layout->width, i;
	ssize_t got = pk_input_read(r->in, buf, n * w);

	if (got < 0)
		return (int)got;
	for (i = 0; i < (size_t)got / w; i++)
		out[i] = get_slot(buf + i * w, r->layout);
	if (r->left >= 0)
		r->left -= got;
	*bytes = (size_t)got;
	return 0;
}

static int cpu_error(struct cpu_reader *r, uint64_t offset, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

static int cpu_error(struct cpu_reader *r, uint64_t offset, const char *fmt,
		     ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: offset 0x%llx: %s",
			    pk_input_name(r->in), (unsigned long long)offset,
			    msg);
}

static int add_record(struct cpu_reader *r, uint64_t offset, uint64_t count,
		      uint64_t *pcs, size_t depth)
{
	int64_t values[2];
	size_t i;

	if (count > (uint64_t)(INT64_MAX / r->period))
		return cpu_error(r, offset, "sample count %llu is out of range",
				 (unsigned long long)count);
	/* Callers' addresses are return addresses: back onto the call. */
	for (i = 1; i < depth; i++)
		pcs[i]--;
	values[0] = (int64_t)count;
	values[1] = (int64_t)count * r->period;
	r->records++;
	return pki_gperf_add(r->g, pcs, depth, values, 2, 0);
}

static int check_depth(struct cpu_reader *r, uint64_t offset, uint64_t depth)
{
	uint64_t left = (uint64_t)r->left / r->layout->width;

	if (depth == 0)
		return cpu_error(r, offset, "record depth 0 (a record holds "
				 "at least one address)");
	if (depth > MAX_DEPTH)
		return cpu_error(r, offset, "record depth %llu exceeds %d",
				 (unsigned long long)depth, MAX_DEPTH);
	if (r->left >= 0 && depth > left)
		return cpu_error(r, offset, "record depth %llu exceeds the "
				 "%llu slots left in the file (truncated file?)",
				 (unsigned long long)depth,
				 (unsigned long long)left);
	return 0;
}

/* Records up to the end marker. Returns 1 at the marker, 0 at EOF. */
static int read_records(struct cpu_reader *r)
{
	uint64_t head[2], pcs[MAX_DEPTH + 2];
	size_t w = r->layout->width, bytes;

	for (;;) {
		uint64_t offset = pk_input_offset(r->in);
		int rc = read_slots(r, head, 2, &bytes);

		if (rc)
			return rc;
		if (bytes == 0)
			return 0;
		if (bytes != 2 * w)
			return cpu_error(r, offset, "record truncated after %zu "
					 "bytes (truncated file?)", bytes);
		rc = check_depth(r, offset, head[1]);
		if (!rc)
			rc = read_slots(r, pcs, (size_t)head[1], &bytes);
		if (rc)
			return rc;
		if (bytes != head[1] * w)
			return cpu_error(r, offset, "record truncated: %zu of "
					 "%llu addresses (truncated file?)",
					 bytes / w, (unsigned long long)head[1]);
		if (head[0] == 0 && head[1] == 1 && pcs[0] == 0)
			return 1;
		rc = add_record(r, offset, head[0], pcs, (size_t)head[1]);
		if (rc)
			return rc;
	}
}

/* The /proc/self/maps text after the end marker. */
static int read_maps(struct cpu_reader *r)
{
	unsigned long long unknown = 0;
	const char *line;
	size_t len;

	for (;;) {
		uint64_t offset = pk_input_offset(r->in);
		int rc;

		line = pk_input_line(r->in, &len);
		if (!line)
			break;
		if (memchr(line, '\0', len))
			return cpu_error(r, offset, "binary data in the memory "
					 "map (expected /proc/self/maps text)");
		if (pk_input_offset(r->in) - offset == len) {
			pk_warn(r->ctx, "%s: offset 0x%llx: the memory map ends "
				"mid-line (truncated file?); ignoring that line",
				pk_input_name(r->in), (unsigned long long)offset);
			break;
		}
		rc = pki_gperf_map_line(r->g, line, len);
		if (rc < 0)
			return rc;
		if (rc == 0 && len)
			unknown++;
	}
	if (pk_context_error(r->ctx)->code)
		return pk_context_error(r->ctx)->code;
	if (!pki_gperf_map_count(r->g) && r->records)
		pk_warn(r->ctx, "%s: no executable mappings in the memory map "
			"after the samples%s", pk_input_name(r->in),
			unknown ? " (its lines are not /proc/self/maps lines)" : "");
	return 0;
}

static int read_header(struct cpu_reader *r)
{
	uint64_t version = 0, period = 0, header[5];
	size_t len;
	const unsigned char *buf = pk_input_peek(r->in, 40, &len);

	if (pk_context_error(r->ctx)->code)
		return pk_context_error(r->ctx)->code;
	r->layout = find_layout(buf, len, &version, &period);
	if (!r->layout)
		return cpu_error(r, 0, "not a gperftools CPU profile (expected "
				 "header slots 0, 3, 0, period, 0)");
	if (version == 1)
		return cpu_error(r, 2 * r->layout->width, "Java CPU profiles "
				 "(format version 1) are not supported");
	if (period > (uint64_t)(INT64_MAX / 1000))
		return cpu_error(r, 3 * r->layout->width, "sampling period of "
				 "%llu microseconds is out of range",
				 (unsigned long long)period);
	r->period = (int64_t)period * 1000;
	if (pk_input_file_size(r->in) >= 0 && !pk_input_is_compressed(r->in))
		r->left = pk_input_file_size(r->in);
	else
		r->left = -1;
	return read_slots(r, header, 5, &len);
}

static int gperf_cpu_read(struct pk_context *ctx, struct pk_input *in,
			  struct pk_profile *p, const struct pk_options *opts)
{
	struct cpu_reader r;
	int rc;

	(void)opts;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	rc = read_header(&r);
	if (rc)
		return rc;
	r.g = pki_gperf_new(ctx, in, p);
	if (!r.g)
		return pk_context_error(ctx)->code;
	if (pk_profile_add_sample_type(p, "samples", "count", NULL,
				       PK_VALUE_COUNT) < 0 ||
	    pk_profile_add_sample_type(p, "cpu", "nanoseconds", NULL,
				       PK_VALUE_WEIGHT) < 0) {
		pki_gperf_free(r.g);
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	}
	pk_profile_set_period(p, "cpu", "nanoseconds", r.period);
	pki_gperf_set_hidden_frames(p, PK_GPERF_CPU);
	rc = read_records(&r);
	if (rc == 0)
		pk_warn(ctx, "%s: offset 0x%llx: no end-of-data record "
			"(truncated file?); there is no memory map",
			pk_input_name(in),
			(unsigned long long)pk_input_offset(in));
	else if (rc == 1)
		rc = read_maps(&r);
	if (!rc)
		rc = pki_gperf_finish(r.g, PK_GPERF_STRIP_HANDLER_FRAMES |
					   PK_GPERF_DROP_DUPLICATE_LEAF);
	pki_gperf_free(r.g);
	return rc;
}

const struct pki_format pki_format_gperftools_cpu = {
	.name = "gperftools-cpu",
	.read_description = "gperftools CPU profile (CPUPROFILE=file), unsymbolized",
	.probe = gperf_cpu_probe,
	.read_flags = PKI_READ_PPROF_NAMES,
	.read = gperf_cpu_read,
};
