/* SPDX-License-Identifier: MIT */
/*
 * pprof -raw text (pprof-raw.h): its header, sample types, samples and
 * their labels.
 */
#include <stdlib.h>
#include <string.h>

#include "pprof-raw.h"
#include "util/hash.h"

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

int praw_header_line(struct raw_reader *r, const char *line, size_t len)
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
			return praw_bad(r, "not 'PeriodType: TYPE UNIT'", line, len);
		memcpy(buf, line + 12, len - 12);
		buf[len - 12] = '\0';
		if (!(unit = strchr(buf, ' ')))
			return praw_bad(r, "not 'PeriodType: TYPE UNIT'", line, len);
		*unit++ = '\0';
		pk_profile_set_period(r->p, buf, unit, pk_profile_period(r->p));
	} else if (pki_starts_with_n(line, len, "Period: ")) {
		i = 8;
		if (integer(line, len, &i, 1, &v) || i != len)
			return praw_bad(r, "not 'Period: N'", line, len);
		pk_profile_set_period(r->p,
				      pk_profile_string(r->p, pk_profile_period_type(r->p).type),
				      pk_profile_string(r->p, pk_profile_period_type(r->p).unit), v);
	} else if (pki_starts_with_n(line, len, "Time: ")) {
		if (parse_time(line + 6, len - 6, &v))
			return praw_bad(r, "not a time as Go prints it", line, len);
		pk_profile_set_time(r->p, v, pk_profile_duration_nanos(r->p));
	} else if (!pki_starts_with_n(line, len, "Comment: ") &&
		   !pki_starts_with_n(line, len, "Duration: ") && len) {
		return praw_bad(r, "not a line of pprof -raw's header", line, len);
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
int praw_types_line(struct raw_reader *r, const char *line, size_t len)
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
			return praw_bad(r, "not a sample type 'TYPE/UNIT'", line, len);
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
			return praw_no_memory(r);
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
	size_t last = r->nsamples - 1, slot;
	const struct raw_sample *s = &r->samples[last];
	uint64_t hash = pki_hash_bytes(r->ids + s->first_location,
				       s->nlocations * sizeof(*r->ids), s->labels);
	uint32_t id = pki_idtab_find(&r->sample_tab, hash, same_sample, r, s, &slot);
	const int64_t *values = r->values + last * r->ntypes;

	if (!id)
		return pki_idtab_insert(&r->sample_tab, slot, hash,
					(uint32_t)r->nsamples) ? praw_no_memory(r) : 0;
	praw_sum(r, r->values + (size_t)(id - 1) * r->ntypes, values);
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

/* A helper's sample's labels: the id of its lines' pair. */
static int label_pair(struct raw_reader *r)
{
	uint32_t pair = pki_memo_id(&r->label_pairs, (const char *)r->label_ids,
				    sizeof(r->label_ids));

	r->samples[r->nsamples - 1].labels = pair;
	return pair ? 0 : PK_ENOMEM;
}

/* The labels read since the last sample are its own. */
int praw_end_sample(struct raw_reader *r)
{
	int rc;

	if (r->helper && r->sample_open && r->label_lines &&
	    (rc = label_pair(r)))
		return rc;
	if (r->sample_open && r->nlabels) {
		uint32_t set = labels_set(r);

		if (!set)
			return praw_no_memory(r);
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

	if ((rc = praw_end_sample(r)) ||
	    (rc = praw_grow(r, &r->samples, &r->samples_cap, r->nsamples + 1, sizeof(*s))) ||
	    (rc = praw_grow(r, &r->values, &r->values_cap, r->nvalues + r->ntypes + 1,
		       sizeof(*r->values))) ||
	    /* (ids to compare, even when a sample has none) */
	    (rc = praw_grow(r, &r->ids, &r->ids_cap, r->nids + 1, sizeof(*r->ids))))
		return rc;
	if (!r->nsamples) {
		r->summing = !r->keeps_order;
		r->next_check = 4096;
	}
	s = &r->samples[r->nsamples];
	memset(s, 0, sizeof(*s));
	s->first_location = r->nids;
	s->lineno = r->lineno;
	for (k = 0; k < r->ntypes; k++) {
		skip_blanks(line, len, &i);
		if (integer(line, len, &i, 1, &r->values[r->nvalues + k]))
			return praw_bad(r, "fewer values than sample types", line, len);
	}
	if (i >= len || line[i] != ':')
		return praw_bad(r, "more values than sample types", line, len);
	for (i++; skip_blanks(line, len, &i), i < len; s->nlocations++) {
		if (integer(line, len, &i, 0, &v) || !v || (i < len && line[i] != ' '))
			return praw_bad(r, "not a location id", line, len);
		if ((rc = praw_grow(r, &r->ids, &r->ids_cap, r->nids + 1, sizeof(*r->ids))))
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
	int rc = praw_grow(r, &r->labels, &r->labels_cap, r->nlabels + 1,
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
int praw_read_label_line(struct raw_reader *r, const char *line, size_t len)
{
	size_t i = 0, items = 0, k;
	struct { const char *key, *value; size_t key_len, len; } item[64];
	int numbers, rc = 0;

	while (skip_blanks(line, len, &i), i < len) {
		const char *open = memmem(line + i, len - i, ":[", 2), *close;

		if (!open || items == PK_ARRAY_SIZE(item))
			return praw_bad(r, "not a label 'KEY:[VALUE]'", line, len);
		/* the value ends at the "]" before the next " KEY:[" or the end */
		for (close = open + 2; close < line + len; close++)
			if (*close == ']' && (close + 1 == line + len ||
			    (close[1] == ' ' && memmem(close + 1, (size_t)(line + len - close - 1),
						       ":[", 2))))
				break;
		if (close == line + len)
			return praw_bad(r, "not a label 'KEY:[VALUE]'", line, len);
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
				return praw_bad(r, "not numbers", line, len);
			rc = number_labels(r, key, item[k].value, item[k].len);
		} else {
			l.str = pk_profile_intern(r->p, item[k].value, item[k].len);
			rc = add_label(r, &l);
		}
	}
	return rc;
}

/* The id of a line of labels in the memo of its place: one of the few
 * met last there, the text compared to the memo's copy, costs no hash
 * (the samples of a few threads take turns). */
static uint32_t label_line_id(struct raw_reader *r, struct pki_memo *memo,
			      const char *line, size_t len)
{
	uint32_t *recent = r->recent_labels[memo - r->labels_memo];
	size_t k, text_len;
	uint32_t id;

	for (k = 0; k < PK_ARRAY_SIZE(r->recent_labels[0]) && recent[k]; k++) {
		const char *text = pki_memo_text(memo, recent[k], &text_len);

		if (text_len == len && memcmp(text, line, len) == 0)
			return recent[k];
	}
	if ((id = pki_memo_id(memo, line, len))) {
		memmove(recent + 1, recent,
			(PK_ARRAY_SIZE(r->recent_labels[0]) - 1) * sizeof(*recent));
		recent[0] = id;
	}
	return id;
}

/* A helper's line of labels (id in the memo of its place), left to the
 * reader of the profile: the ids new to the memo listed as they came,
 * the order in which one reader would have read them. */
static int defer_label_line(struct raw_reader *r, uint32_t id)
{
	size_t place = r->label_lines - 1;
	uint64_t *seen;

	if (!id)
		return PK_ENOMEM;	/* the memo full: read by the reader */
	seen = pki_memo_value(&r->labels_memo[place], id);
	if (!*seen) {
		if (praw_grow(r, &r->label_events, &r->label_events_cap,
			      r->nlabel_events + 1, sizeof(*r->label_events)))
			return PK_ENOMEM;
		r->label_events[r->nlabel_events++] = (uint64_t)place << 32 | id;
		*seen = 1;
	}
	r->label_ids[place] = id;
	return 0;
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
		return praw_bad(r, "labels without a sample", line, len);
	memo = &r->labels_memo[r->label_lines - 1];
	id = label_line_id(r, memo, line, len);
	if (r->helper)
		return defer_label_line(r, id);
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
	if ((rc = praw_read_label_line(r, line, len)) || !run)
		return rc;
	n = r->nlabels - first;
	if (r->nlabels_read + n > UINT32_MAX)
		return 0;	/* read again the next time */
	if ((rc = praw_grow(r, &r->labels_read, &r->labels_read_cap,
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

int praw_is_sample_line(const char *line, size_t len)
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

/* A line of the samples': a sample, a line of its labels, or the line
 * "Locations" that ends them. */
int praw_samples_line(struct raw_reader *r, const char *line, size_t len)
{
	if (pki_starts_with_n(line, len, "Locations")) {
		r->section = LOCATIONS;
		return praw_end_sample(r);
	}
	if (praw_is_sample_line(line, len))
		return sample_line(r, line, len);
	while (len && line[len - 1] == ' ')
		len--;
	return len ? label_line(r, line, len) : 0;
}

/* ---- a helper's samples taken ---- */

/* The helper's lines of labels read by r as they came (r->quiet: a line
 * r cannot read is read again in its place), each a run of labels_read
 * in runs[place][id]. */
static int read_helper_labels(struct raw_reader *r, struct raw_reader *h,
			      uint64_t *runs[2])
{
	size_t i, n;
	int rc = 0;

	r->quiet = 1;
	for (i = 0; i < h->nlabel_events && !rc; i++) {
		size_t place = (size_t)(h->label_events[i] >> 32), len;
		uint32_t id = (uint32_t)h->label_events[i];
		const char *text = pki_memo_text(&h->labels_memo[place], id, &len);

		r->nlabels = 0;
		r->label_lines = place + 1;
		if ((rc = praw_read_label_line(r, text, len)))
			break;
		n = r->nlabels;
		if (r->nlabels_read + n > UINT32_MAX ||
		    praw_grow(r, &r->labels_read, &r->labels_read_cap,
			      r->nlabels_read + n, sizeof(*r->labels_read)))
			rc = PK_ENOMEM;
		else if (n)
			memcpy(r->labels_read + r->nlabels_read, r->labels,
			       n * sizeof(*r->labels_read));
		runs[place][id] = (uint64_t)r->nlabels_read << 32 | n;
		r->nlabels_read += n;
	}
	r->quiet = 0;
	r->nlabels = 0;
	r->label_lines = 0;
	return rc;
}

/* The set of each pair of lines of labels, in the order the pairs came
 * (sets[pair], 0: no labels). */
static int helper_label_sets(struct raw_reader *r, struct raw_reader *h,
			     uint64_t *runs[2], uint32_t *sets)
{
	size_t pair, place, k;
	int rc = 0;

	for (pair = 1; pair < h->label_pairs.nentries && !rc; pair++) {
		uint32_t ids[2];
		size_t len;

		memcpy(ids, pki_memo_text(&h->label_pairs, (uint32_t)pair, &len),
		       sizeof(ids));
		r->nlabels = 0;
		for (place = 0; place < 2 && ids[place] && !rc; place++) {
			uint64_t run = runs[place][ids[place]];

			for (k = 0; k < (uint32_t)run && !rc; k++)
				rc = add_label(r, &r->labels_read[(run >> 32) + k]);
		}
		sets[pair] = 0;
		if (!rc && r->nlabels &&
		    !(sets[pair] = pk_profile_intern_labels(r->p, r->labels, r->nlabels)))
			rc = praw_no_memory(r);
	}
	r->nlabels = 0;
	return rc;
}

/* The helper's samples appended to r's, their labels sets of r's. */
static int append_helper_samples(struct raw_reader *r, struct raw_reader *h,
				 const uint32_t *sets, uint64_t first_line)
{
	size_t i;

	if (praw_grow(r, &r->samples, &r->samples_cap, r->nsamples + h->nsamples,
		      sizeof(*r->samples)) ||
	    praw_grow(r, &r->ids, &r->ids_cap, r->nids + h->nids + 1, sizeof(*r->ids)) ||
	    praw_grow(r, &r->values, &r->values_cap, r->nvalues + h->nvalues + 1,
		      sizeof(*r->values)))
		return PK_ENOMEM;
	for (i = 0; i < h->nsamples; i++) {
		struct raw_sample *s = &r->samples[r->nsamples + i];

		*s = h->samples[i];
		s->first_location += r->nids;
		s->labels = sets[s->labels];
		s->lineno += first_line;
	}
	if (h->nids)
		memcpy(r->ids + r->nids, h->ids, h->nids * sizeof(*r->ids));
	if (h->nvalues)
		memcpy(r->values + r->nvalues, h->values, h->nvalues * sizeof(*r->values));
	r->nsamples += h->nsamples;
	r->nids += h->nids;
	r->nvalues += h->nvalues;
	return 0;
}

int praw_adopt_samples(struct raw_reader *r, struct raw_reader *h,
		       uint64_t first_line)
{
	uint64_t *runs[2];
	uint32_t *sets;
	int rc;

	if ((rc = praw_end_sample(r)))
		return rc;
	runs[0] = calloc(h->labels_memo[0].nentries + 1, sizeof(*runs[0]));
	runs[1] = calloc(h->labels_memo[1].nentries + 1, sizeof(*runs[1]));
	sets = calloc(h->label_pairs.nentries + 1, sizeof(*sets));
	if (!runs[0] || !runs[1] || !sets)
		rc = praw_no_memory(r);
	else if (read_helper_labels(r, h, runs))
		rc = 1;
	/* from here on as one reader would go on, but for memory */
	else if (!(rc = helper_label_sets(r, h, runs, sets)) &&
		 append_helper_samples(r, h, sets, first_line))
		rc = praw_no_memory(r);
	free(runs[0]);
	free(runs[1]);
	free(sets);
	return rc;
}
