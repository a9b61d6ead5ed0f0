/* SPDX-License-Identifier: MIT */
/*
 * Reader for elfutils' eu-stack output, a poor man's profiler's samples
 * (`eu-stack -p PID` again and again; stackcollapse-elfutils.pl folds
 * them):
 *
 *     PID 16955 - process
 *     TID 16955:
 *     #0  0x00005560420ae1e9 nap
 *     #1  0x00005560420ae317 main
 *     #2  0x00007f06277cb24a __libc_start_call_main
 *     TID 16957:
 *     #0  0x00005560420ae20d wait_for
 *
 * Each thread's stack is one sample of that thread (pid and tid; eu-stack
 * names no threads). A frame is named as the script names it, by all that
 * follows its address ("nap", with -m "nap - /path/module", "[unknown]"
 * for an address alone), except that -a's activation mark ("- 1" or four
 * blanks before the name) is no part of it; -m's module is the mapping.
 * Lines of -s and -b (source, build id) are passed over, as by the script.
 */
#include <stdlib.h>
#include <string.h>

#include "stack-text.h"
#include "core/names.h"
#include "formats/registry.h"
#include "util/strings.h"

/* "0x00005560420ae1e9 - 1 main - /path": the frame's text after "#N ". */
static uint32_t locate_frame(void *arg, const char *s, size_t len,
			     unsigned variant)
{
	struct st_frame f = { 0 };
	size_t i = st_hex_prefix(s, len, &f.address);
	const char *dash;

	(void)variant;
	s += i;
	len -= i;
	/* -a: " - 1 name" for a caller, "     name" for the sampled frame */
	if ((len >= 4 && memcmp(s, " - 1", 4) == 0 && (len == 4 || s[4] == ' ')) ||
	    (len >= 5 && memcmp(s, "     ", 5) == 0)) {
		s += 4;
		len -= 4;
	}
	if (len && s[0] == ' ') {
		f.name = s + 1;
		f.name_len = len - 1;
	}
	/* -m: "name - /path/module", "- /path/module" without a name */
	dash = f.name_len >= 2 && memcmp(f.name, "- ", 2) == 0 ? f.name :
		f.name_len ? st_find(f.name, f.name_len, " - ", 3) : NULL;
	if (dash) {
		f.module = dash + (dash == f.name ? 2 : 3);
		f.module_len = (size_t)(f.name + f.name_len - f.module);
	}
	if (!f.name_len) {
		f.name = PKI_UNKNOWN;
		f.name_len = strlen(PKI_UNKNOWN);
	}
	return st_location(arg, &f);
}

/* "PID 123 - process", "TID 123:": 'P' or 'T', the number in *id (NULL:
 * not wanted); 0 for any other line (or a number past INT64_MAX). Every
 * line is asked (block_end), most more than once: the first byte
 * decides for most, and the digits are read once, where wanted or where
 * they may be too many. Inline: a call cost its callers more than the
 * answer (2.6% of eu-stack's instructions). */
static inline int id_line(const char *s, size_t len, int64_t *id)
{
	size_t n = 4;
	uint64_t value = 0;
	int64_t large;

	if (len < 5 || (s[0] != 'P' && s[0] != 'T') || memcmp(s + 1, "ID ", 3) != 0 ||
	    s[4] < '0' || s[4] > '9')
		return 0;
	/* too short a line for 19 digits: a number, not one too large */
	if (!id && len - 4 < 19)
		return s[0];
	for (; n < len && s[n] >= '0' && s[n] <= '9'; n++)
		value = value * 10 + (uint64_t)(s[n] - '0');
	/* 18 digits never pass INT64_MAX (nor wrap value) */
	if (n - 4 > 18) {
		if (st_parse_count(s + 4, n - 4, &large) < 0)
			return 0;
		value = (uint64_t)large;
	}
	if (id)
		*id = (int64_t)value;
	return s[0];
}

/* Whether s is a "PID 123 - process" line: a sample's first. */
static int sample_line(const char *s, size_t len)
{
	return id_line(s, len, NULL) == 'P';
}

/* Where the sample from s, its "PID" line, ends: the start of the next
 * sample's; NULL when the part ends first. Its 'P', rare in frames'
 * names, is looked for. */
static const char *sample_end(const struct st_reader *r, const char *s)
{
	const char *end = r->part->end, *p, *next;

	for (p = s; (p = st_find_by(p, (size_t)(end - p), "\nPID ", 5, 1)); p++)
		if (sample_line(p + 1, pki_text_line(p + 1, end, &next, NULL)))
			return p + 1;
	return NULL;
}

static int handle_line(struct st_reader *st, const char *s, size_t len)
{
	size_t n = st_frame_number(s, len);
	int64_t id = 0;	/* read from an id line: id_line's answer again */
	int kind, rc;

	if (n && n + 2 < len && s[n] == '0' && s[n + 1] == 'x')
		return st_push(st, st_frame_loc(st, s + n, len - n, 0,
						    locate_frame, st));
	if (!(kind = id_line(s, len, NULL)))
		return 0;
	/* a thread ends where the next one or the next sample starts */
	if ((rc = st_sample(st, &st->thread, 1)))
		return rc;
	if (kind == 'P') {
		st_entry_ends(st, s);
		/* a process sampled again and again often prints the same
		 * sample (its threads idle): one printed before is added
		 * whole, its pid unread */
		if ((rc = st_entry(st, s, sample_line, sample_end, 1)))
			return rc;
	}
	id_line(s, len, &id);
	if (kind == 'T') {
		st->thread.tid = id;
		return 0;
	}
	st->thread.pid = id;
	st->thread.tid = -1;
	return 0;
}

/* A sample starts at its "PID 123 - process" line: the thread before
 * ends there as at the end of the text, and the pid is new. */
static int record_start(const char *prev, size_t prev_len, const char *line,
			size_t len)
{
	(void)prev;
	(void)prev_len;
	return sample_line(line, len);
}

/* A thread's frames end at the next thread or sample. */
static int block_end(const char *s, size_t len)
{
	return id_line(s, len, NULL) != 0;
}

static int at_end(struct st_reader *st)
{
	return st_sample(st, &st->thread, 1);
}

static const struct st_format eu_stack = {
	.what = "eu-stack",
	.expected = "'TID 123:' lines and '#0  0x... function' frames",
	.size = sizeof(struct st_reader),
	.line = handle_line, .end = at_end,
	.record_start = record_start, .block_end = block_end,
};

static int eu_stack_read(struct pk_context *ctx, struct pk_input *in,
			 struct pk_profile *p, const struct pk_options *opts)
{
	return st_read(&eu_stack, ctx, in, p, opts);
}

/* "PID 123 - process", "TID 123:" and "#0  0x..." lines, no gdb's " in ". */
static int eu_stack_probe(const unsigned char *buf, size_t len)
{
	struct st_probe pr;
	const char *s;
	size_t n, f;
	int frames = 0, threads = 0, process = 0, other = 0;

	st_probe_start(&pr, buf, len);
	while (st_probe_line(&pr, &s, &n)) {
		if (id_line(s, n, NULL) == 'P' && n > 10 &&
		    memcmp(s + n - 10, " - process", 10) == 0)
			process = 1;
		else if (id_line(s, n, NULL) == 'T' && s[n - 1] == ':')
			threads++;
		else if ((f = st_frame_number(s, n)) && f + 2 < n && s[f] == '0' &&
			 s[f + 1] == 'x' && !st_find(s, n, " in ", 4))
			frames++;
		else if (n && s[0] != ' ')
			other++;
	}
	if (pr.binary || !threads || !frames || other > (frames + threads) / 4)
		return 0;
	return process ? 90 : 70;
}

const struct pki_format pki_format_eu_stack = {
	.name = "eu-stack",
	.read_description = "elfutils eu-stack -p PID samples, repeated (poor man's "
			    "profiler; as stackcollapse-elfutils.pl)",
	.probe = eu_stack_probe,
	.read = eu_stack_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
