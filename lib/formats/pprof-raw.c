/* SPDX-License-Identifier: MIT */
/*
 * Reader for the text Go's `pprof -raw` prints of a profile (Profile's
 * String() in github.com/google/pprof/profile), what stackcollapse-go.pl
 * folds:
 *
 *     PeriodType: cpu nanoseconds
 *     Period: 10000000
 *     Time: 2024-03-01 10:00:00.123456789 +0100 CET
 *     Samples:
 *     samples/count cpu/nanoseconds[dflt]
 *               2   20000000: 1 2 3
 *                     comm:[demo]
 *                     tid:[4011]
 *     Locations
 *          1: 0x4b7126 M=1 main.hotLoop ./work.go:27 s=0
 *                  main.warmLoop ./work.go:33 s=0
 *          2: 0x4b726b M=1
 *     Mappings
 *     1: 0x400000/0x4b8000/0x0 /srv/work 4d2f... [FN][FL][LN]
 *
 * into the model the pprof reader makes of the profile itself: the same
 * sample types, labels, functions, inlined lines, addresses and mappings
 * (where the text says them: not the frame filters, nor the duration,
 * which pprof prints cut short). A sample's labels are two lines, the
 * strings' then the numbers'; a sample with one line of labels that are
 * all numbers is taken to have numeric labels. Samples come before the
 * locations and mappings they name, so they are kept until the end:
 * when the profile sums samples anyway, those of the same location ids
 * and labels are summed as they come, into the first of them, so that
 * what is kept grows with the distinct samples, not with the text (but
 * not past a few thousand samples of which fewer than half were summed:
 * there the table would cost more than it saves).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/memo.h"
#include "core/parts.h"
#include "formats/registry.h"
#include "util/hash.h"
#include "util/idtab.h"

struct raw_line {
	uint32_t function;
	int64_t line;
};

/* A location as the text gives it, kept once for all the ids of the same
 * mapping, address and lines (a text merged from many profiles lists the
 * same location under many ids). */
struct raw_location {
	uint64_t address, mapping;
	size_t first_line, nlines;
	uint32_t ours;
};

/* A location's id and which it is, in r->locations. */
struct raw_location_id {
	uint64_t id;
	uint32_t location;
};

/* A mapping; a helper's (struct raw_reader) with its strings still text,
 * interned when the reader of the samples takes its locations. */
struct raw_mapping {
	uint64_t id;
	uint32_t ours;
	struct pk_mapping m;
	const char *file, *build_id;
	size_t file_len, build_id_len;
};

/* A function as a location line names it: text of the input (system
 * NULL when the line names none). */
struct raw_function {
	const char *name, *filename, *system;
	size_t name_len, filename_len, system_len;
	int64_t start_line;
};

/* A sample, or the samples of its location ids and labels summed: its
 * values are r->values[index * ntypes...], its line the first's, which
 * an error names. */
struct raw_sample {
	size_t first_location, nlocations;
	uint32_t labels;
	uint64_t lineno;
};

enum section { HEADER, TYPES, SAMPLES, LOCATIONS, MAPPINGS };

struct raw_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	enum section section;
	size_t ntypes;
	int64_t *values;
	size_t nvalues, values_cap;
	uint64_t *ids;			/* the samples' location ids */
	size_t nids, ids_cap;
	struct raw_sample *samples;
	size_t nsamples, samples_cap;
	int sample_open;		/* the last sample's labels to come */
	int summing;			/* the profile sums samples anyway */
	struct pk_idtab sample_tab;	/* samples by ids and labels */
	size_t nsummed, next_check;	/* summed so far; when to look again */
	struct pk_label *labels;	/* the last sample's, so far */
	size_t nlabels, labels_cap, label_lines;
	struct raw_location_id *location_ids;
	size_t nlocation_ids, location_ids_cap;
	struct raw_location *locations;	/* each once */
	size_t nlocations, locations_cap;
	struct pk_idtab location_tab;	/* locations by address and lines */
	struct raw_location open;	/* the location read last, its lines */
	int location_open;		/* last in r->lines */
	struct raw_line *lines;
	size_t nlines, lines_cap;
	struct raw_mapping *mappings;
	size_t nmappings, mappings_cap;
	uint32_t *stack;
	size_t stack_cap;
	/* a line's function and line number by its text, when the number
	 * fits in 32 bits: the same functions come at location after
	 * location (a function's at each of its addresses) */
	struct pki_memo lines_memo;
	/* the labels a sample's first and second line of labels give, by
	 * the line's text (labels_memo[line - 1]: a run of labels_read,
	 * its start << 32 | its length): samples of a thread repeat them */
	struct pki_memo labels_memo[2];
	struct pk_label *labels_read;
	size_t nlabels_read, labels_read_cap;
	/* the last sample's lines of labels by their ids in labels_memo
	 * (0: not remembered), and the sets of the pairs met last by
	 * them: a thread's samples give the same labels over and over */
	uint32_t label_ids[2];
	struct { uint64_t ids; uint32_t set; } label_sets[64];
	uint64_t lineno;		/* of the line read last */
	/* A helper reading the locations and mappings on a thread of its
	 * own while the samples are read (p NULL): its errors are only
	 * returned, and its functions and mappings kept as text, interned
	 * in the order they came when its work is taken (adopt_helper) */
	int helper;
	struct raw_function *functions;
	size_t nfunctions, functions_cap;
};

static int bad(struct raw_reader *r, const char *what, const char *line, size_t len)
{
	if (r->helper)
		return PK_EINPUT;	/* the samples' reader reads it again */
	return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: %s: '%.*s'",
			    pk_input_name(r->in), (unsigned long long)r->lineno,
			    what, (int)(len > 60 ? 60 : len), line);
}

static int no_memory(struct raw_reader *r)
{
	return r->helper ? PK_ENOMEM : pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
}

/* ---- the pieces of a line: s[*i..len) is what is left ---- */

/* (The pieces go through a local index: a byte read through a char
 * pointer may be *i, for all the compiler knows, which it then reads
 * from memory again at every byte.) */
static void skip_blanks(const char *s, size_t len, size_t *i)
{
	static const uint64_t spaces = 0x2020202020202020ULL;
	size_t k = *i;
	uint64_t w;

	/* samples' values are right-aligned in wide columns, labels
	 * indented by 16: eight spaces at a time */
	while (k + 8 <= len && (memcpy(&w, s + k, 8), w == spaces))
		k += 8;
	while (k < len && s[k] == ' ')
		k++;
	*i = k;
}

/* A decimal integer, a '-' first when negative is set. */
static int integer(const char *s, size_t len, size_t *i, int negative,
		   int64_t *v)
{
	size_t start = *i, k = start;
	int minus = negative && k < len && s[k] == '-';
	uint64_t u = 0;

	k += (size_t)minus;
	for (; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
		if (u > (UINT64_MAX - 9) / 10) {
			*i = k;
			return -1;
		}
		u = u * 10 + (uint64_t)(s[k] - '0');
	}
	*i = k;
	if (k == start + (size_t)minus || u > (uint64_t)INT64_MAX + (uint64_t)minus)
		return -1;
	*v = minus ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

/* "0x1f" as %#x prints it ("0x0" for zero). */
static int hex(const char *s, size_t len, size_t *i, uint64_t *v)
{
	size_t start;

	if (*i + 2 > len || s[*i] != '0' || s[*i + 1] != 'x')
		return -1;
	*i += 2;
	start = *i;
	for (*v = 0; *i < len && pki_hexval(s[*i]) >= 0; (*i)++) {
		if (*v >> 60)
			return -1;
		*v = *v << 4 | (uint64_t)pki_hexval(s[*i]);
	}
	return *i > start ? 0 : -1;
}

static int grow(struct raw_reader *r, void *array, size_t *cap, size_t need,
		size_t size)
{
	return pki_grow(array, cap, need, size) < 0 ? no_memory(r) : 0;
}

/* ---- header ---- */

/* "2024-03-01 10:00:00.123456789 +0100 CET", as Go's Time.String(). */
static int parse_time(const char *s, size_t len, int64_t *nanos)
{
	int64_t f[6], frac = 0, zone;
	size_t i = 0, k, digits = 0;
	static const char seps[] = "-- ::";

	for (k = 0; k < 6; k++) {
		if (integer(s, len, &i, 0, &f[k]) ||
		    (k < 5 && (i >= len || s[i++] != seps[k])))
			return -1;
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			if (digits < 9)
				frac = frac * 10 + (s[i] - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	if (i + 6 > len || s[i] != ' ' || (s[i + 1] != '+' && s[i + 1] != '-'))
		return -1;
	k = i + 2;
	if (integer(s, len, &k, 0, &zone) || k != i + 6)
		return -1;
	zone = (zone / 100 * 60 + zone % 100) * 60 * (s[i + 1] == '-' ? -1 : 1);
	if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[0] < 1970 ||
	    f[0] > 2200 || f[3] > 23 || f[4] > 59 || f[5] > 60)
		return -1;
	/* days from 1970-01-01 of the proleptic Gregorian date */
	{
		int64_t y = f[0] - (f[1] <= 2), era = y / 400, yoe = y - era * 400;
		int64_t doy = (153 * (f[1] + (f[1] > 2 ? -3 : 9)) + 2) / 5 + f[2] - 1;
		int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
		int64_t days = era * 146097 + doe - 719468;

		*nanos = ((days * 86400 + f[3] * 3600 + f[4] * 60 + f[5]) - zone) *
			 1000000000 + frac;
	}
	return 0;
}

static int header_line(struct raw_reader *r, const char *line, size_t len)
{
	size_t i;
	int64_t v;

	if (pki_starts_with_n(line, len, "Samples:")) {
		r->section = TYPES;
	} else if (pki_starts_with_n(line, len, "PeriodType: ")) {
		/* "TYPE UNIT", the period (a line below) kept */
		char buf[256];
		char *unit;

		if (len - 12 >= sizeof(buf))
			return bad(r, "not 'PeriodType: TYPE UNIT'", line, len);
		memcpy(buf, line + 12, len - 12);
		buf[len - 12] = '\0';
		if (!(unit = strchr(buf, ' ')))
			return bad(r, "not 'PeriodType: TYPE UNIT'", line, len);
		*unit++ = '\0';
		pk_profile_set_period(r->p, buf, unit, pk_profile_period(r->p));
	} else if (pki_starts_with_n(line, len, "Period: ")) {
		i = 8;
		if (integer(line, len, &i, 1, &v) || i != len)
			return bad(r, "not 'Period: N'", line, len);
		pk_profile_set_period(r->p,
				      pk_profile_string(r->p, pk_profile_period_type(r->p).type),
				      pk_profile_string(r->p, pk_profile_period_type(r->p).unit), v);
	} else if (pki_starts_with_n(line, len, "Time: ")) {
		if (parse_time(line + 6, len - 6, &v))
			return bad(r, "not a time as Go prints it", line, len);
		pk_profile_set_time(r->p, v, pk_profile_duration_nanos(r->p));
	} else if (!pki_starts_with_n(line, len, "Comment: ") &&
		   !pki_starts_with_n(line, len, "Duration: ") && len) {
		return bad(r, "not a line of pprof -raw's header", line, len);
	}
	return 0;
}

/* "count/10": our pprof writer's mark of a column in tenths. */
static size_t unit_scale(const char *unit, size_t len, int64_t *scale)
{
	const char *slash = memchr(unit, '/', len);
	size_t i;

	*scale = 1;
	if (!slash || (size_t)(unit + len - slash) > 20 || slash[1] != '1')
		return len;
	for (i = 2; slash + i < unit + len; i++)
		if (slash[i] != '0')
			return len;
	for (i = 2; slash + i < unit + len; i++)
		*scale *= 10;
	return (size_t)(slash - unit);
}

/* "samples/count cpu/nanoseconds[dflt]" */
static int types_line(struct raw_reader *r, const char *line, size_t len)
{
	size_t i = 0;

	r->section = SAMPLES;
	while (skip_blanks(line, len, &i), i < len) {
		const char *type = line + i, *slash, *unit;
		size_t n, unit_len;
		int64_t scale;
		int dflt, column;
		char buf[512];

		while (i < len && line[i] != ' ')
			i++;
		n = (size_t)(line + i - type);
		dflt = n > 6 && memcmp(type + n - 6, "[dflt]", 6) == 0;
		n -= dflt ? 6 : 0;
		slash = memchr(type, '/', n);
		if (!slash || n >= sizeof(buf))
			return bad(r, "not a sample type 'TYPE/UNIT'", line, len);
		unit = slash + 1;
		unit_len = unit_scale(unit, (size_t)(type + n - unit), &scale);
		memcpy(buf, type, n);
		buf[slash - type] = '\0';
		buf[(size_t)(slash - type) + 1 + unit_len] = '\0';
		column = pk_profile_add_sample_type(r->p, buf, buf + (slash - type) + 1,
						    NULL, strcmp(buf + (slash - type) + 1,
								 "count") ?
						    PK_VALUE_WEIGHT : PK_VALUE_COUNT);
		if (column < 0 ||
		    pk_profile_set_sample_type_scale(r->p, (size_t)column, scale))
			return no_memory(r);
		if (dflt)
			pk_profile_set_meta(r->p, PKI_META_DEFAULT_SAMPLE_TYPE, buf);
		r->ntypes++;
	}
	return 0;
}

/* ---- samples ---- */

static int same_sample(const void *owner, uint32_t id, const void *key)
{
	const struct raw_reader *r = owner;
	const struct raw_sample *s = &r->samples[id - 1], *k = key;

	return s->labels == k->labels && s->nlocations == k->nlocations &&
	       !memcmp(r->ids + s->first_location, r->ids + k->first_location,
		       k->nlocations * sizeof(*r->ids));
}

/* The last sample, added to one before of the same location ids and
 * labels when there is one: the profile would sum them in that one's
 * place, and keeping each would cost memory with every line. */
static int sum_last_sample(struct raw_reader *r)
{
	size_t last = r->nsamples - 1, slot, k;
	const struct raw_sample *s = &r->samples[last];
	uint64_t hash = pki_hash_bytes(r->ids + s->first_location,
				       s->nlocations * sizeof(*r->ids), s->labels);
	uint32_t id = pki_idtab_find(&r->sample_tab, hash, same_sample, r, s, &slot);
	int64_t *sum, *values = r->values + last * r->ntypes;

	if (!id)
		return pki_idtab_insert(&r->sample_tab, slot, hash,
					(uint32_t)r->nsamples) ? no_memory(r) : 0;
	/* wrapping, as the profile sums: a hostile text may sum to anything */
	sum = r->values + (size_t)(id - 1) * r->ntypes;
	for (k = 0; k < r->ntypes; k++)
		sum[k] = (int64_t)((uint64_t)sum[k] + (uint64_t)values[k]);
	r->nids = s->first_location;
	r->nvalues -= r->ntypes;
	r->nsamples--;
	r->nsummed++;
	return 0;
}

/* Whether summing still pays: a text of distinct samples (one profile
 * printed, not many merged) would only pay for the table, a sample's
 * hash and lookup, so past a few thousand samples a reader that has
 * summed fewer than it kept stops (the profile sums what comes then). */
static void check_summing(struct raw_reader *r)
{
	if (r->nsamples < r->next_check)
		return;
	r->next_check = r->nsamples * 2;
	if (r->nsummed < r->nsamples) {
		r->summing = 0;
		pki_idtab_release(&r->sample_tab);
	}
}

/* The set of the labels read since the last sample. */
static uint32_t labels_set(struct raw_reader *r)
{
	uint64_t ids = r->label_ids[0] | (uint64_t)r->label_ids[1] << 32;
	size_t slot = (size_t)(pki_hash_u64(ids) % PK_ARRAY_SIZE(r->label_sets));
	int known = r->label_ids[0] && (r->label_lines == 1 || r->label_ids[1]);

	if (known && r->label_sets[slot].ids == ids)
		return r->label_sets[slot].set;
	r->label_sets[slot].ids = known ? ids : 0;
	return r->label_sets[slot].set = pk_profile_intern_labels(r->p, r->labels,
								  r->nlabels);
}

/* The labels read since the last sample are its own. */
static int end_sample(struct raw_reader *r)
{
	if (r->sample_open && r->nlabels) {
		uint32_t set = labels_set(r);

		if (!set)
			return no_memory(r);
		r->samples[r->nsamples - 1].labels = set;
	}
	r->nlabels = 0;
	r->label_lines = 0;
	r->label_ids[0] = r->label_ids[1] = 0;
	if (!r->sample_open)
		return 0;
	r->sample_open = 0;
	if (!r->summing || r->nsamples >= UINT32_MAX)
		return 0;
	check_summing(r);
	return r->summing ? sum_last_sample(r) : 0;
}

/* "     2   20000000: 1 2 3 " */
static int sample_line(struct raw_reader *r, const char *line, size_t len)
{
	struct raw_sample *s;
	size_t i = 0, k;
	int64_t v;
	int rc;

	if ((rc = end_sample(r)) ||
	    (rc = grow(r, &r->samples, &r->samples_cap, r->nsamples + 1, sizeof(*s))) ||
	    (rc = grow(r, &r->values, &r->values_cap, r->nvalues + r->ntypes + 1,
		       sizeof(*r->values))) ||
	    /* (ids to compare, even when a sample has none) */
	    (rc = grow(r, &r->ids, &r->ids_cap, r->nids + 1, sizeof(*r->ids))))
		return rc;
	if (!r->nsamples) {
		r->summing = !pki_profile_keeps_order(r->p);
		r->next_check = 4096;
	}
	s = &r->samples[r->nsamples];
	memset(s, 0, sizeof(*s));
	s->first_location = r->nids;
	s->lineno = r->lineno;
	for (k = 0; k < r->ntypes; k++) {
		skip_blanks(line, len, &i);
		if (integer(line, len, &i, 1, &r->values[r->nvalues + k]))
			return bad(r, "fewer values than sample types", line, len);
	}
	if (i >= len || line[i] != ':')
		return bad(r, "more values than sample types", line, len);
	for (i++; skip_blanks(line, len, &i), i < len; s->nlocations++) {
		if (integer(line, len, &i, 0, &v) || !v || (i < len && line[i] != ' '))
			return bad(r, "not a location id", line, len);
		if ((rc = grow(r, &r->ids, &r->ids_cap, r->nids + 1, sizeof(*r->ids))))
			return rc;
		r->ids[r->nids++] = (uint64_t)v;
	}
	r->nvalues += r->ntypes;
	r->nsamples++;
	r->sample_open = 1;
	return 0;
}

/* Whether "[1024 bytes 8 count]"-like content is numbers (with units). */
static int all_numbers(const char *s, size_t len)
{
	size_t i = 0;
	int64_t v;

	while (skip_blanks(s, len, &i), i < len) {
		if (integer(s, len, &i, 1, &v))
			return 0;
		skip_blanks(s, len, &i);
		while (i < len && s[i] != ' ' && !(s[i] >= '0' && s[i] <= '9') &&
		       s[i] != '-')
			i++;	/* a unit */
	}
	return 1;
}

static int add_label(struct raw_reader *r, const struct pk_label *l)
{
	int rc = grow(r, &r->labels, &r->labels_cap, r->nlabels + 1,
		      sizeof(*r->labels));

	if (!rc)
		r->labels[r->nlabels++] = *l;
	return rc;
}

/* One key's numbers "1024 bytes 8 bytes" or "1 2": a label each. */
static int number_labels(struct raw_reader *r, pk_str key, const char *s,
			 size_t len)
{
	size_t i = 0;
	int rc = 0;

	while (!rc && (skip_blanks(s, len, &i), i < len)) {
		struct pk_label l = { .key = key };
		size_t unit;

		integer(s, len, &i, 1, &l.num);
		skip_blanks(s, len, &i);
		for (unit = i; i < len && s[i] != ' '; i++)
			;
		if (i > unit && !(s[unit] >= '0' && s[unit] <= '9') && s[unit] != '-')
			l.unit = pk_profile_intern(r->p, s + unit, i - unit);
		else
			i = unit;
		rc = add_label(r, &l);
	}
	return rc;
}

/* "                comm:[demo] thread:[a b]": the strings' line, then
 * the numbers' */
static int read_label_line(struct raw_reader *r, const char *line, size_t len)
{
	size_t i = 0, items = 0, k;
	struct { const char *key, *value; size_t key_len, len; } item[64];
	int numbers, rc = 0;

	while (skip_blanks(line, len, &i), i < len) {
		const char *open = memmem(line + i, len - i, ":[", 2), *close;

		if (!open || items == PK_ARRAY_SIZE(item))
			return bad(r, "not a label 'KEY:[VALUE]'", line, len);
		/* the value ends at the "]" before the next " KEY:[" or the end */
		for (close = open + 2; close < line + len; close++)
			if (*close == ']' && (close + 1 == line + len ||
			    (close[1] == ' ' && memmem(close + 1, (size_t)(line + len - close - 1),
						       ":[", 2))))
				break;
		if (close == line + len)
			return bad(r, "not a label 'KEY:[VALUE]'", line, len);
		item[items].key = line + i;
		item[items].key_len = (size_t)(open - line) - i;
		item[items].value = open + 2;
		item[items++].len = (size_t)(close - open - 2);
		i = (size_t)(close - line) + 1;
	}
	/* the second line is the numbers'; a first line of numbers only
	 * is taken for them too */
	numbers = r->label_lines == 2 || items;
	for (k = 0; r->label_lines == 1 && k < items; k++)
		numbers &= all_numbers(item[k].value, item[k].len);
	for (k = 0; !rc && k < items; k++) {
		pk_str key = pk_profile_intern(r->p, item[k].key, item[k].key_len);
		struct pk_label l = { .key = key };

		if (numbers) {
			if (!all_numbers(item[k].value, item[k].len))
				return bad(r, "not numbers", line, len);
			rc = number_labels(r, key, item[k].value, item[k].len);
		} else {
			l.str = pk_profile_intern(r->p, item[k].value, item[k].len);
			rc = add_label(r, &l);
		}
	}
	return rc;
}

/* A line of labels, read the first time its text comes as the sample's
 * first (or second) line of them, then remembered. */
static int label_line(struct raw_reader *r, const char *line, size_t len)
{
	struct pki_memo *memo;
	uint64_t *run;
	size_t first = r->nlabels, n, k;
	uint32_t id;
	int rc;

	if (!r->nsamples || ++r->label_lines > 2)
		return bad(r, "labels without a sample", line, len);
	memo = &r->labels_memo[r->label_lines - 1];
	id = pki_memo_id(memo, line, len);
	run = id ? pki_memo_value(memo, id) : NULL;
	if (run && *run) {
		r->label_ids[r->label_lines - 1] = id;
		first = (size_t)(*run >> 32);
		n = (size_t)(uint32_t)*run - 1;
		for (k = 0; k < n; k++)
			if ((rc = add_label(r, &r->labels_read[first + k])))
				return rc;
		return 0;
	}
	if ((rc = read_label_line(r, line, len)) || !run)
		return rc;
	n = r->nlabels - first;
	if (r->nlabels_read + n > UINT32_MAX)
		return 0;	/* read again the next time */
	if ((rc = grow(r, &r->labels_read, &r->labels_read_cap,
		       r->nlabels_read + n, sizeof(*r->labels_read))))
		return rc;
	/* (a line of no labels: none to copy, and no pointer to copy from) */
	if (n)
		memcpy(r->labels_read + r->nlabels_read, r->labels + first,
		       n * sizeof(*r->labels_read));
	/* the length one more, so that no run is 0 */
	*run = (uint64_t)r->nlabels_read << 32 | (n + 1);
	r->nlabels_read += n;
	r->label_ids[r->label_lines - 1] = id;
	return 0;
}

static int is_sample_line(const char *line, size_t len)
{
	size_t i = 0;

	skip_blanks(line, len, &i);
	if (i < len && line[i] == '-')
		i++;
	if (i == len || line[i] < '0' || line[i] > '9')
		return 0;
	while (i < len && line[i] != ':' && ((line[i] >= '0' && line[i] <= '9') ||
					     line[i] == ' ' || line[i] == '-'))
		i++;
	return i < len && line[i] == ':';
}

/* ---- locations and mappings ---- */

/* ":N" ending s[start..*end): N, and *end moved to the colon. */
static int number_after_colon(const char *s, size_t start, size_t *end,
			      int64_t *v)
{
	size_t i = *end, k;

	while (i > start && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i > start && s[i - 1] == '-')
		i--;
	if (i == *end || i == start || s[i - 1] != ':')
		return -1;
	k = i;
	if (integer(s, *end, &k, 1, v) || k != *end)
		return -1;
	*end = i - 1;
	return 0;
}

/* "NAME FILE:LINE s=START(SYSTEM NAME)" (newer pprof: FILE:LINE:COLUMN)
 * read into f and the line number; -1 when it is no such text. */
static int parse_location_line(const char *s, size_t len, struct raw_function *f,
			       int64_t *line_number)
{
	size_t i, end = 0, space, file_end, k;
	int64_t line, column;

	memset(f, 0, sizeof(*f));
	/* the first " s=N" followed by the end or "(SYSTEM NAME)" */
	for (i = 0; !end; i++) {
		const char *at = memmem(s + i, len - i, " s=", 3);

		if (!at)
			return -1;
		i = (size_t)(at - s);
		k = i + 3;
		if (integer(s, len, &k, 1, &f->start_line) || (k < len && s[k] != '('))
			continue;
		if (k < len) {
			if (s[len - 1] != ')')
				return -1;
			f->system = s + k + 1;
			f->system_len = len - k - 2;
		}
		end = i;
	}
	for (space = end; space > 0 && s[space - 1] != ' '; space--)
		;
	if (!space--)
		return -1;
	file_end = end;
	if (number_after_colon(s, space + 1, &file_end, &line))
		return -1;
	k = file_end;
	if (!number_after_colon(s, space + 1, &k, &column)) {
		line = column;	/* FILE:LINE:COLUMN */
		file_end = k;
	}
	f->name = s;
	f->name_len = space;
	f->filename = s + space + 1;
	f->filename_len = file_end - space - 1;
	*line_number = line;
	return 0;
}

/* The profile's function of f (its strings interned as the line gives
 * them); 0 when out of memory. */
static uint32_t intern_function(struct pk_profile *p, const struct raw_function *f)
{
	struct pk_function fn = { .start_line = f->start_line };

	if (f->system)
		fn.system_name = pk_profile_intern(p, f->system, f->system_len);
	fn.name = pk_profile_intern(p, f->name, f->name_len);
	fn.filename = pk_profile_intern(p, f->filename, f->filename_len);
	if (!fn.system_name)
		fn.system_name = fn.name;
	return pk_profile_intern_function(p, &fn);
}

/* A location line's function (0: "??", a line without a function, kept
 * as none; a helper's: its place in r->functions, from 1) and line
 * number; -1 when it is no such text. */
static int read_location_line(struct raw_reader *r, const char *s, size_t len,
			      uint32_t *function, int64_t *line_number)
{
	struct raw_function f;

	*function = 0;
	if (len == 2 && memcmp(s, "??", 2) == 0)
		return 0;
	if (parse_location_line(s, len, &f, line_number))
		return -1;
	if (!r->helper)
		return (*function = intern_function(r->p, &f)) ? 0 : no_memory(r);
	if (r->nfunctions >= UINT32_MAX - 1 ||
	    grow(r, &r->functions, &r->functions_cap, r->nfunctions + 1,
		 sizeof(*r->functions)))
		return no_memory(r);
	r->functions[r->nfunctions++] = f;
	*function = (uint32_t)r->nfunctions;
	return 0;
}

/* A line of the last location: function and line number. */
static int add_line(struct raw_reader *r, uint32_t function, int64_t line)
{
	int rc = grow(r, &r->lines, &r->lines_cap, r->nlines + 1, sizeof(*r->lines));

	if (rc)
		return rc;
	r->lines[r->nlines].function = function;
	r->lines[r->nlines++].line = line;
	r->open.nlines++;
	return 0;
}

static uint64_t location_hash(const struct raw_reader *r, const struct raw_location *l)
{
	uint64_t h = pki_hash_u64(l->address ^ pki_hash_u64(l->mapping));
	size_t k;

	for (k = 0; k < l->nlines; k++) {
		const struct raw_line *line = &r->lines[l->first_line + k];

		h = pki_hash_u64(h ^ line->function ^ (uint64_t)line->line << 32);
	}
	return h;
}

static int same_location(const void *owner, uint32_t id, const void *key)
{
	const struct raw_reader *r = owner;
	const struct raw_location *l = &r->locations[id - 1], *k = key;
	size_t i;

	if (l->address != k->address || l->mapping != k->mapping ||
	    l->nlines != k->nlines)
		return 0;
	for (i = 0; i < l->nlines; i++) {
		const struct raw_line *a = &r->lines[l->first_line + i];
		const struct raw_line *b = &r->lines[k->first_line + i];

		if (a->function != b->function || a->line != b->line)
			return 0;
	}
	return 1;
}

/* The location read last, its id's: one of the same mapping, address
 * and lines before, its lines dropped, or a new one. */
static int end_location(struct raw_reader *r)
{
	uint64_t hash;
	size_t slot;
	uint32_t found;

	if (!r->location_open)
		return 0;
	r->location_open = 0;
	hash = location_hash(r, &r->open);
	found = pki_idtab_find(&r->location_tab, hash, same_location, r, &r->open, &slot);
	if (found) {
		r->nlines = r->open.first_line;
	} else {
		if (r->nlocations >= UINT32_MAX - 1 ||
		    grow(r, &r->locations, &r->locations_cap, r->nlocations + 1,
			 sizeof(*r->locations)))
			return no_memory(r);
		r->locations[r->nlocations++] = r->open;
		found = (uint32_t)r->nlocations;
		if (pki_idtab_insert(&r->location_tab, slot, hash, found))
			return no_memory(r);
	}
	r->location_ids[r->nlocation_ids - 1].location = found - 1;
	return 0;
}

/* "NAME FILE:LINE s=START(SYSTEM NAME)" (newer pprof: FILE:LINE:COLUMN),
 * or "??" for a line without a function, kept as none. */
static int location_line(struct raw_reader *r, const char *s, size_t len)
{
	uint64_t *memo = pki_memo(&r->lines_memo, s, len);
	uint32_t function;
	int64_t line;
	int rc;

	if (memo && *memo)
		return add_line(r, (uint32_t)(*memo >> 32), (int32_t)(uint32_t)*memo);
	if ((rc = read_location_line(r, s, len, &function, &line)) || !function)
		return rc;
	if (memo && line >= INT32_MIN && line <= INT32_MAX)
		*memo = (uint64_t)function << 32 | (uint32_t)line;
	return add_line(r, function, line);
}

/* "     1: 0x4b7126 M=1 [F] NAME FILE:LINE s=0", or a line's more
 * ("             NAME ...") */
static int locations_line(struct raw_reader *r, const char *line, size_t len)
{
	struct raw_location *loc = &r->open;
	size_t i = 0;
	int64_t id, mapping;
	int rc;

	skip_blanks(line, len, &i);
	if (i == 13 && r->location_open) {
		if (location_line(r, line + i, len - i))
			return bad(r, "not 'NAME FILE:LINE s=START'", line, len);
		return 0;
	}
	if ((rc = end_location(r)) ||
	    (rc = grow(r, &r->location_ids, &r->location_ids_cap,
		       r->nlocation_ids + 1, sizeof(*r->location_ids))))
		return rc;
	memset(loc, 0, sizeof(*loc));
	loc->first_line = r->nlines;
	if (integer(line, len, &i, 0, &id) || !id || i + 2 > len || line[i] != ':' ||
	    line[i + 1] != ' ')
		return bad(r, "not a location 'ID: 0xADDRESS ...'", line, len);
	i += 2;
	r->location_ids[r->nlocation_ids++].id = (uint64_t)id;
	r->location_open = 1;
	if (hex(line, len, &i, &loc->address) || (i < len && line[i] != ' '))
		return bad(r, "not a location's address", line, len);
	skip_blanks(line, len, &i);
	if (pki_starts_with_n(line + i, len - i, "M=")) {
		i += 2;
		if (integer(line, len, &i, 0, &mapping) || (i < len && line[i] != ' '))
			return bad(r, "not a mapping id 'M=N'", line, len);
		loc->mapping = (uint64_t)mapping;
		skip_blanks(line, len, &i);
	}
	if (pki_starts_with_n(line + i, len - i, "[F] "))
		i += 4;
	if (i < len && location_line(r, line + i, len - i))
		return bad(r, "not 'NAME FILE:LINE s=START'", line, len);
	return 0;
}

/* The profile's mapping of raw, its file and build id interned. */
static int intern_mapping(struct raw_reader *r, struct raw_mapping *raw)
{
	raw->m.file = pk_profile_intern(r->p, raw->file, raw->file_len);
	raw->m.build_id = pk_profile_intern(r->p, raw->build_id, raw->build_id_len);
	raw->ours = pk_profile_intern_mapping(r->p, &raw->m);
	return raw->ours ? 0 : no_memory(r);
}

/* "1: 0x400000/0x4b8000/0x0 FILE BUILDID [FN][FL][LN][IN]" */
static int mappings_line(struct raw_reader *r, const char *line, size_t len)
{
	struct pk_mapping m = { 0 };
	struct raw_mapping *raw;
	const char *bits, *build, *s;
	size_t i = 0;
	int64_t id;
	int rc;

	if (!len)
		return 0;
	if (integer(line, len, &i, 0, &id) || !id || !pki_starts_with_n(line + i, len - i, ": ") ||
	    (i += 2, hex(line, len, &i, &m.start)) || i >= len || line[i++] != '/' ||
	    hex(line, len, &i, &m.limit) || i >= len || line[i++] != '/' ||
	    hex(line, len, &i, &m.offset) || i >= len || line[i++] != ' ')
		return bad(r, "not a mapping 'ID: 0xSTART/0xLIMIT/0xOFFSET FILE'",
			   line, len);
	/* from the right: the bits, the build id, then the file */
	for (bits = line + len; bits > line + i && bits[-1] != ' '; bits--)
		;
	if (bits == line + i)
		return bad(r, "not a mapping's 'FILE BUILDID BITS'", line, len);
	for (build = bits - 1; build > line + i && build[-1] != ' '; build--)
		;
	if (build == line + i && build != bits - 1)
		return bad(r, "not a mapping's 'FILE BUILDID BITS'", line, len);
	for (s = bits; s < line + len; s += 4) {
		if (line + len - s < 4 || s[0] != '[' || s[3] != ']')
			return bad(r, "not a mapping's bits [FN][FL][LN][IN]", line, len);
		m.has_functions |= memcmp(s, "[FN]", 4) == 0;
		m.has_filenames |= memcmp(s, "[FL]", 4) == 0;
		m.has_line_numbers |= memcmp(s, "[LN]", 4) == 0;
		m.has_inline_frames |= memcmp(s, "[IN]", 4) == 0;
	}
	if ((rc = grow(r, &r->mappings, &r->mappings_cap, r->nmappings + 1,
		       sizeof(*raw))))
		return rc;
	raw = &r->mappings[r->nmappings++];
	memset(raw, 0, sizeof(*raw));
	raw->id = (uint64_t)id;
	raw->m = m;
	raw->file = line + i;
	raw->file_len = (size_t)(build - 1 - (line + i));
	raw->build_id = build;
	raw->build_id_len = (size_t)(bits - 1 - build);
	return r->helper ? 0 : intern_mapping(r, raw);
}

/* ---- the profile ---- */

static int by_mapping_id(const void *a, const void *b)
{
	const struct raw_mapping *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int by_location_id(const void *a, const void *b)
{
	const struct raw_location_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Whether the locations are in the order of their ids already, as pprof
 * prints them (a sort of them all would be a fifth of the reading). */
static int in_order(const struct raw_location_id *ids, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (ids[i - 1].id > ids[i].id)
			return 0;
	return 1;
}

/* The location of an id: pprof numbers them 1, 2, ... in order, so that
 * the id is mostly its place; else a search. */
static struct raw_location *find_location(struct raw_reader *r, uint64_t id)
{
	const struct raw_location_id *at = NULL, key = { .id = id };

	if (id >= 1 && id <= r->nlocation_ids && r->location_ids[id - 1].id == id)
		at = &r->location_ids[id - 1];
	else if (r->nlocation_ids)
		at = bsearch(&key, r->location_ids, r->nlocation_ids, sizeof(key),
			     by_location_id);
	return at ? &r->locations[at->location] : NULL;
}

/* The profile's location of loc, met first under id. */
static int intern_location(struct raw_reader *r, struct raw_location *loc,
			   uint64_t id)
{
	struct raw_mapping *m, key = { .id = loc->mapping };
	struct pk_line lines[64], *l = lines;
	size_t k;

	m = r->nmappings ? bsearch(&key, r->mappings, r->nmappings, sizeof(*m),
				   by_mapping_id) : NULL;
	if (loc->mapping && !m)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: location %llu names "
				    "mapping %llu, which the mappings do not list",
				    pk_input_name(r->in), (unsigned long long)id,
				    (unsigned long long)loc->mapping);
	if (loc->nlines > PK_ARRAY_SIZE(lines) &&
	    !(l = malloc(loc->nlines * sizeof(*l))))
		return no_memory(r);
	for (k = 0; k < loc->nlines; k++) {
		l[k].function = r->lines[loc->first_line + k].function;
		l[k].line = r->lines[loc->first_line + k].line;
	}
	loc->ours = pk_profile_intern_location(r->p, m ? m->ours : 0, loc->address,
					       l, loc->nlines);
	if (l != lines)
		free(l);
	return loc->ours ? 0 : no_memory(r);
}

static int build(struct raw_reader *r)
{
	size_t max = pki_profile_max_stack(r->p), i, k;
	int rc;

	/* (an empty table may be a null pointer, which qsort and bsearch
	 * must not see) */
	if (r->nmappings)
		qsort(r->mappings, r->nmappings, sizeof(*r->mappings), by_mapping_id);
	if (!in_order(r->location_ids, r->nlocation_ids))
		qsort(r->location_ids, r->nlocation_ids, sizeof(*r->location_ids),
		      by_location_id);
	/* in the order of the ids, as they were listed */
	for (i = 0; i < r->nlocation_ids; i++) {
		const struct raw_location_id *at = &r->location_ids[i];
		struct raw_location *loc = &r->locations[at->location];

		if (i && at->id == at[-1].id)
			return pk_error_set(r->ctx, PK_EINPUT, "%s: location %llu "
					    "listed twice", pk_input_name(r->in),
					    (unsigned long long)at->id);
		if (!loc->ours && (rc = intern_location(r, loc, at->id)))
			return rc;
	}
	for (i = 0; i < r->nsamples; i++) {
		const struct raw_sample *s = &r->samples[i];
		size_t n = s->nlocations < max ? s->nlocations : max + 1;
		uint32_t stack;

		if ((rc = grow(r, &r->stack, &r->stack_cap, n + 1, sizeof(*r->stack))))
			return rc;
		for (k = 0; k < n; k++) {
			uint64_t id = r->ids[s->first_location + k];
			struct raw_location *loc = find_location(r, id);

			if (!loc)
				return pk_error_set(r->ctx, PK_EINPUT, "%s: line %llu: "
						    "location %llu, which the "
						    "locations do not list",
						    pk_input_name(r->in),
						    (unsigned long long)s->lineno,
						    (unsigned long long)id);
			r->stack[k] = loc->ours;
		}
		stack = pk_profile_intern_stack(r->p, r->stack, n);
		if (!stack || pk_profile_add_sample(r->p, stack, s->labels, 0,
						    r->values + i * r->ntypes,
						    r->ntypes))
			return no_memory(r);
	}
	return 0;
}

static int raw_line(struct raw_reader *r, const char *line, size_t len)
{
	switch (r->section) {
	case HEADER:
		return header_line(r, line, len);
	case TYPES:
		return types_line(r, line, len);
	case SAMPLES:
		if (pki_starts_with_n(line, len, "Locations")) {
			r->section = LOCATIONS;
			return end_sample(r);
		}
		if (is_sample_line(line, len))
			return sample_line(r, line, len);
		while (len && line[len - 1] == ' ')
			len--;
		return len ? label_line(r, line, len) : 0;
	case LOCATIONS:
		if (pki_starts_with_n(line, len, "Mappings")) {
			r->section = MAPPINGS;
			return end_location(r);
		}
		return len ? locations_line(r, line, len) : 0;
	case MAPPINGS:
		return mappings_line(r, line, len);
	}
	return 0;
}

static void raw_free(struct raw_reader *r)
{
	free(r->values);
	free(r->ids);
	free(r->samples);
	pki_idtab_release(&r->sample_tab);
	free(r->labels);
	free(r->location_ids);
	free(r->locations);
	pki_idtab_release(&r->location_tab);
	free(r->lines);
	free(r->mappings);
	free(r->stack);
	pki_memo_free(&r->lines_memo);
	pki_memo_free(&r->labels_memo[0]);
	pki_memo_free(&r->labels_memo[1]);
	free(r->labels_read);
	free(r->functions);
}

/* ---- reading: a stream, or the text in memory ---- */

static int read_stream(struct raw_reader *r)
{
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pk_input_line(r->in, &len))) {
		r->lineno = pk_input_lineno(r->in);
		rc = raw_line(r, line, len);
	}
	return rc ? rc : pk_context_error(r->ctx)->code;
}

/* The lines of the text in memory from *at to end while r's section is
 * before the one given; *at moves past them, and what was read leaves
 * memory as it goes (from *kept). */
static int read_memory(struct raw_reader *r, const char **at, const char *end,
		       const char **kept, enum section before)
{
	const char *s = *at, *line;
	size_t len;
	int rc = 0;

	while (!rc && s < end && r->section < before) {
		pki_cut_step(r->in, kept, s);
		line = s;
		len = pki_text_line(line, end, &s, NULL);
		r->lineno++;
		rc = raw_line(r, line, len);
	}
	*at = s;
	return rc;
}

/*
 * The locations and mappings, read on a thread of their own while the
 * samples are: they come after the samples, which name them, so one
 * reader would keep every sample until it has read them. The helper
 * starts at the last line that starts "Locations"; the samples' reader
 * takes its work when it meets the same line as its first of them, and
 * reads on itself where the helper failed (to give the error one reader
 * gives, or where the text is not what the helper took it for).
 */
struct raw_helper {
	struct raw_reader r;
	const char *locations;	/* the line "Locations" it starts after */
	const char *end;
	pthread_t thread;
	int started, rc;
};

/* The last line at or after from that starts "Locations"; NULL: none. */
static const char *last_locations_line(const char *from, const char *end)
{
	const char *s = end;

	while ((s = memrchr(from, 'L', (size_t)(s - from))))
		if ((s == from || s[-1] == '\n') && (size_t)(end - s) >= 9 &&
		    memcmp(s, "Locations", 9) == 0)
			return s;
	return NULL;
}

static void *help(void *arg)
{
	struct raw_helper *h = arg;
	const char *kept, *s;

	h->locations = last_locations_line(h->locations, h->end);
	if (!h->locations) {
		h->rc = PK_EINPUT;
		return NULL;
	}
	pki_text_line(h->locations, h->end, &s, NULL);
	kept = s;
	h->r.section = LOCATIONS;
	h->rc = read_memory(&h->r, &s, h->end, &kept, MAPPINGS + 1);
	if (!h->rc)
		h->rc = end_location(&h->r);
	return NULL;
}

/* A helper for the text from samples (the line after the sample types)
 * to end, when there are threads for it; 0 when none was started. */
static int start_helper(struct raw_reader *r, struct raw_helper *h,
			const struct pk_options *opts, const char *samples,
			const char *end)
{
	memset(h, 0, sizeof(*h));
	if (pki_parts_threads(opts, (size_t)(end - samples)) < 2)
		return 0;
	h->r.helper = 1;
	h->r.ctx = r->ctx;
	h->r.in = r->in;
	h->locations = samples;
	h->end = end;
	h->started = !pthread_create(&h->thread, NULL, help, h);
	return h->started;
}

/* The helper's locations and mappings taken as r's own, met at the
 * line locations: its functions, then its mappings, interned in the
 * order they came, as r would have interned them reading on. */
static int adopt_helper(struct raw_reader *r, struct raw_helper *h)
{
	struct raw_reader *hr = &h->r;
	uint32_t *ours;
	size_t i;
	int rc = 0;

	if (!(ours = malloc((hr->nfunctions + 1) * sizeof(*ours))))
		return no_memory(r);
	for (i = 0; i < hr->nfunctions && !rc; i++)
		if (!(ours[i + 1] = intern_function(r->p, &hr->functions[i])))
			rc = no_memory(r);
	for (i = 0; i < hr->nlines && !rc; i++)
		hr->lines[i].function = ours[hr->lines[i].function];
	free(ours);
	for (i = 0; i < hr->nmappings && !rc; i++)
		rc = intern_mapping(r, &hr->mappings[i]);
	if (rc)
		return rc;
#define TAKE(array, n, cap) \
	(free(r->array), r->array = hr->array, r->n = hr->n, r->cap = hr->cap, \
	 hr->array = NULL, hr->n = hr->cap = 0)
	TAKE(location_ids, nlocation_ids, location_ids_cap);
	TAKE(locations, nlocations, locations_cap);
	TAKE(lines, nlines, lines_cap);
	TAKE(mappings, nmappings, mappings_cap);
#undef TAKE
	r->section = hr->section;
	return 0;
}

/* The text in memory: the header, then the samples while a helper reads
 * the locations and mappings, or all on this thread. */
static int read_in_memory(struct raw_reader *r, const struct pk_options *opts,
			  const char *data, size_t size)
{
	const char *end = data + size, *s = data, *kept = data, *locations;
	struct raw_helper h;
	int rc;

	if ((rc = read_memory(r, &s, end, &kept, SAMPLES)) ||
	    !start_helper(r, &h, opts, s, end))
		return rc ? rc : read_memory(r, &s, end, &kept, MAPPINGS + 1);
	rc = read_memory(r, &s, end, &kept, LOCATIONS);
	/* (the line read last, "Locations" when the samples ended) */
	locations = s > data ? memrchr(data, '\n', (size_t)(s - 1 - data)) : NULL;
	locations = locations ? locations + 1 : data;
	pthread_join(h.thread, NULL);
	if (!rc && r->section == LOCATIONS && !h.rc && h.locations == locations)
		rc = adopt_helper(r, &h);
	raw_free(&h.r);
	if (!rc && r->section == LOCATIONS)
		rc = read_memory(r, &s, end, &kept, MAPPINGS + 1);
	return rc;
}

static int raw_read(struct pk_context *ctx, struct pk_input *in,
		    struct pk_profile *p, const struct pk_options *opts)
{
	struct raw_reader r;
	const char *data;
	size_t size;
	int rc;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	data = (const char *)pki_input_map(in, &size);
	rc = data ? read_in_memory(&r, opts, data, size) : read_stream(&r);
	if (!rc && r.section < LOCATIONS)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: the text ends before its "
				  "Locations (pprof -raw prints Samples:, "
				  "Locations and Mappings)", pk_input_name(in));
	if (!rc)
		rc = end_sample(&r);
	if (!rc)
		rc = end_location(&r);
	if (!rc)
		rc = build(&r);
	raw_free(&r);
	return rc;
}

/* Its header: "PeriodType:", "Period:" or a "Comment:" first, then
 * "Samples:" and the sample types' line. */
static int raw_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len, *nl;
	int lines = 0;

	if (!pki_starts_with_n(s, len, "PeriodType: ") &&
	    !pki_starts_with_n(s, len, "Period: ") &&
	    !pki_starts_with_n(s, len, "Comment: "))
		return 0;
	for (; s < end && lines++ < 64 && (nl = memchr(s, '\n', (size_t)(end - s)));
	     s = nl + 1) {
		const char *types = nl + 1, *types_end;

		if (nl - s != 8 || memcmp(s, "Samples:", 8))
			continue;
		types_end = memchr(types, '\n', (size_t)(end - types));
		if (!types_end)
			types_end = end;
		return types_end == types || memchr(types, '/', (size_t)(types_end - types)) ?
		       90 : 0;
	}
	return 0;
}

const struct pki_format pki_format_pprof_raw = {
	.name = "pprof-raw",
	.read_description = "the text 'pprof -raw' prints (as "
			    "stackcollapse-go.pl reads it)",
	.probe = raw_probe,
	.read = raw_read,
	.read_flags = PKI_READ_PPROF_NAMES | PKI_READ_EMPTY_IS_NO_SAMPLES,
};
