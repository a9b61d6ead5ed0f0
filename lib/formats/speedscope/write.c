/* SPDX-License-Identifier: MIT */
/*
 * speedscope's JSON file format (https://www.speedscope.app/file-format-
 * schema.json): frames shared by every profile, then one "sampled"
 * profile per thread whose samples are frame-index stacks, root first,
 * in time order, each with a weight:
 *
 *     {"$schema": "...", "shared": {"frames": [{"name": "main"}, ...]},
 *      "profiles": [{"type": "sampled", "name": "app 43",
 *                    "unit": "nanoseconds", "startValue": 0,
 *                    "endValue": 3000, "samples": [[0, 1], [0]],
 *                    "weights": [2000, 1000]}]}
 *
 * An input with several events gets one profile per (event, thread).
 * With speedscope:evented each profile is instead an "evented" one
 * that opens and closes frames as the stack changes between timestamps.
 * Off-CPU intervals (lib/core/internal.h) are placed where they happened and
 * last as long as they did, in both kinds of profile.
 *
 * Millions of samples would make a tree many times the size of the
 * model, so the JSON is written as the samples are walked.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedscope.h"
#include "core/names.h"
#include "core/parts.h"
#include "util/grow.h"
#include "util/json.h"
#include "util/radix.h"

/* ---- the writer's state ---- */

/* What one event contributes: its value column and what marks its samples. */
struct series {
	pk_str event;		/* 0 for inputs without events */
	int column;		/* the weights */
	int member;		/* non-zero here: the sample is this event's */
	const char *unit;	/* speedscope's name for the column's unit */
	int64_t scale;		/* the column's: values are value / scale */
};

/* Where stack_text holds a stack's array, after a comma and a newline;
 * len 0 until it is written. */
struct stack_text {
	size_t off, len;
};

/* The last weight written, as a comma and its number: a thread's
 * weights are mostly one sampling period, formatted once. */
struct weight_text {
	int64_t value, scale;	/* scale 0: none yet */
	size_t len;
	char s[1 + PK_VALUE_FORMAT_SIZE];
};

/* One output profile: a thread of one series. */
struct group {
	size_t series;
	size_t first, count;	/* slice of order[] */
	int64_t total;
	int64_t weight;		/* its first sample's */
	int weights_differ;	/* else every sample weighs weight */
};

struct speedscope {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;
	struct pki_thread_keys keys;
	const char *title;
	int interval_column;	/* off-CPU lengths, or -1 */
	int evented;		/* speedscope:evented asked for */

	struct series *series;
	size_t nseries;

	/* profile names -> group ids (the string ids of this interner) */
	struct pk_profile *names;
	struct group *groups;
	size_t ngroups, groups_cap;
	uint32_t *label_group;	/* label set id -> group, per series */
	size_t label_group_cap;

	/* the samples in groups: their times' span, whether one is no whole
	 * microsecond, their greatest stack; those of index under half
	 * (where sort_keys cuts them for two threads) */
	size_t norder, half, norder_below_half;
	uint64_t first_time, last_time;
	int finer_times;
	uint32_t max_stack;
	/* sample indexes, by group, in time order where needs_timed_order,
	 * else in index order */
	uint32_t *order;
	/* of each sample in time order: its stack, its group's weight */
	uint32_t *order_stacks;
	int64_t *order_weights;
	/* or, where sort_keys set stack_keys, each key's low stack_bits
	 * are its sample's stack (the keys lie in key_buffer) */
	uint64_t *stack_keys, *key_buffer;
	unsigned stack_bits;

	/* frames: an interner whose functions are our frames */
	struct pk_profile *frames;
	uint32_t *loc_frames;	/* location id -> offset+1 in frame_lists */
	uint32_t *frame_lists;	/* [n, frame ids outermost first...] */
	size_t nframe_lists, frame_lists_cap;
	unsigned char *stack_done;	/* bitmap over stack ids */

	uint32_t *stack_buf;	/* a sample's frame ids, root first */
	size_t stack_len, stack_cap;
	/* sampled: a stack's array of frames, written once and then copied
	 * for each of its samples */
	struct pki_json stack_json;	/* writes them into stack_text */
	struct pk_strbuf stack_text;
	struct stack_text *stack_texts;	/* by stack id (0: the empty stack) */
	size_t nstacks;
	struct weight_text weight_text;
	uint32_t *open;		/* evented: the frames open now */
	size_t nopen, open_cap;
	struct pk_strbuf name;	/* a profile's or frame's, made */
	unsigned long negative;
};

static int oom(struct speedscope *w)
{
	return pk_error_set(w->ctx, PK_ENOMEM, "speedscope: out of memory");
}

/* ---- which events and values ---- */

static const char *speedscope_unit(const struct pk_profile *p, int column)
{
	static const char *const units[] = {
		"nanoseconds", "microseconds", "milliseconds", "seconds",
		"bytes",
	};
	const struct pk_value_type *t = pk_profile_sample_type(p, (size_t)column);
	const char *unit = t ? pk_profile_string(p, t->unit) : "";
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(units); i++)
		if (strcmp(unit, units[i]) == 0)
			return units[i];
	return "none";
}

/* The column of one event, by the rules of pk_value_column. */
static int event_column(struct speedscope *w, pk_str event, struct series *s)
{
	struct pk_options o = *w->opts;
	int count = pk_profile_find_column(w->p, event, PK_VALUE_COUNT);

	o.event = pk_profile_string(w->p, event);
	/* --value=period fails for the event asked for, not the others shown */
	if (o.value == PK_VALUE_PERIOD && !w->opts->event &&
	    pk_profile_event_count(w->p) > 1 &&
	    pk_profile_find_column(w->p, event, PK_VALUE_WEIGHT) < 0) {
		pk_warn(w->ctx, "speedscope: event '%s' has no period: "
			"its profiles count samples", o.event);
		o.value = PK_VALUE_SAMPLES;
	}
	s->event = event;
	s->column = pk_value_column(w->ctx, w->p, &o);
	s->member = count >= 0 ? count : s->column;
	if (s->column < 0 && !pk_context_error(w->ctx)->code)
		pk_error_set(w->ctx, PK_EINPUT, "event '%s' has no sample types", o.event);
	return pk_context_error(w->ctx)->code;
}

/*
 * The column folded shows (pk_value_column): opts->event or else the
 * first event, weighed by its period unless asked for samples. Unlike
 * folded, an input with several events and no --event shows every
 * event, each in its own profiles, as speedscope lists them side by side.
 */
static int choose_series(struct speedscope *w)
{
	size_t nevents = pk_profile_event_count(w->p), i;
	int rc = 0;

	w->series = calloc(nevents ? nevents : 1, sizeof(*w->series));
	if (!w->series)
		return oom(w);
	if (!nevents) {
		w->series[0].column = pk_value_column(w->ctx, w->p, w->opts);
		w->series[0].member = w->series[0].column;
		w->nseries = w->series[0].column >= 0;
		rc = pk_context_error(w->ctx)->code;
	} else if (w->opts->event) {
		/* pk_value_column finds the event "cpu-clock:pppH" names */
		int column = pk_value_column(w->ctx, w->p, w->opts);

		rc = pk_context_error(w->ctx)->code;
		if (!rc && column >= 0)
			rc = event_column(w, pk_profile_sample_type(w->p,
					  (size_t)column)->event,
					  &w->series[w->nseries++]);
	}
	for (i = 0; i < nevents && !w->opts->event && !rc; i++)
		rc = event_column(w, pk_profile_event(w->p, i),
				  &w->series[w->nseries++]);
	for (i = 0; i < w->nseries; i++) {
		w->series[i].unit = speedscope_unit(w->p, w->series[i].column);
		w->series[i].scale = pk_profile_sample_type_scale(w->p,
					(size_t)w->series[i].column);
	}
	return rc;
}

/* ---- grouping samples into profiles ---- */

/*
 * "comm tid" (the pid without a tid), plus " (event)" if several: the
 * same from perf.data as from perf script's default fields, which have
 * no pid and lose the blanks around a comm.
 */
static uint32_t group_of(struct speedscope *w, uint32_t labels, size_t series)
{
	const struct pki_thread_name how = {
		.style = PKI_THREAD_COMM_TID, .trim = 1, .fallback = w->title,
	};
	struct pki_thread t;

	pki_thread_of(w->p, &w->keys, labels, &t);
	w->name.len = 0;
	if (pki_thread_name(&w->name, w->p, &t, &how))
		return 0;
	if (w->nseries > 1) {
		const char *ev = pk_profile_string(w->p, w->series[series].event);

		if (pki_strbuf_adds(&w->name, " (") ||
		    pki_strbuf_adds(&w->name, ev) || pki_strbuf_adds(&w->name, ")"))
			return 0;
	}
	return pk_profile_intern(w->names, w->name.s, w->name.len);
}

static int note_group(struct speedscope *w, uint32_t g, size_t series,
		      int64_t weight)
{
	if (pki_grow_zeroed(&w->groups, &w->groups_cap, (size_t)g + 1,
			    sizeof(*w->groups)) < 0)
		return -1;
	if (g >= w->ngroups) {
		w->ngroups = (size_t)g + 1;
		w->groups[g].series = series;
		w->groups[g].weight = weight;
	}
	w->groups[g].weights_differ |= weight != w->groups[g].weight;
	w->groups[g].count++;
	w->groups[g].total = (int64_t)((uint64_t)w->groups[g].total +
				       (uint64_t)(weight > 0 ? weight : 0));
	return 0;
}

static uint32_t cached_group(struct speedscope *w, uint32_t labels,
			     size_t series)
{
	uint32_t g;

	if (pki_grow_zeroed(&w->label_group, &w->label_group_cap,
			    (size_t)labels + 1, sizeof(*w->label_group)) < 0)
		return 0;
	g = w->label_group[labels];
	if (!g) {
		g = group_of(w, labels, series);
		w->label_group[labels] = g;
	}
	return g;
}

static void note_sample(struct speedscope *w, const struct pk_sample *s,
			size_t index)
{
	w->norder_below_half += index < w->half;
	if (!w->norder++ || s->time < w->first_time)
		w->first_time = s->time;
	if (s->time > w->last_time)
		w->last_time = s->time;
	w->finer_times |= s->time % 1000 != 0;
	if (s->stack > w->max_stack)
		w->max_stack = s->stack;
}

/*
 * Give each sample the group of the first series it belongs to; group
 * ids follow first appearance, so profiles come out in input order.
 */
static int assign_groups(struct speedscope *w, uint32_t *sample_group)
{
	size_t n = pk_profile_sample_count(w->p), s, i, stride;
	const int64_t *values;
	const struct pk_sample *samples = pki_profile_samples(w->p, &values,
							      &stride);

	w->half = n / 2;
	for (s = 0; s < w->nseries; s++) {
		const struct series *se = &w->series[s];

		if (w->label_group)
			memset(w->label_group, 0,
			       w->label_group_cap * sizeof(*w->label_group));
		for (i = 0; i < n; i++) {
			/* a series has a column: values is not NULL */
			const int64_t *v = values + i * stride;
			uint32_t g;

			if (sample_group[i] || !v[se->member])
				continue;
			g = cached_group(w, samples[i].labels, s);
			if (!g || note_group(w, g, s, v[se->column]))
				return oom(w);
			sample_group[i] = g;
			note_sample(w, &samples[i], i);
		}
	}
	return 0;
}

static uint64_t time_of(const struct speedscope *w, uint32_t index)
{
	return pk_profile_sample(w->p, index)->time;
}

/*
 * The samples' times are wanted past the sort: for evented profiles, and
 * for the gaps that off-CPU intervals leave in sampled ones.
 */
static int needs_timed_order(const struct speedscope *w)
{
	return w->evented || w->interval_column >= 0;
}

/* Each group's stacks and weights (and indexes, if needed) from index
 * order to time order; place and scratch have room for a group's. */
static int sort_group(struct speedscope *w, const struct group *gr,
		      uint32_t *place, int64_t *scratch)
{
	uint32_t *order = w->order + gr->first;
	uint32_t *stacks = w->order_stacks + gr->first;
	int64_t *weights = w->order_weights + gr->first;
	uint32_t *scratch32 = (uint32_t *)scratch;
	size_t i, n = gr->count;
	int rc = pki_time_order(w->p, order, n, place);

	if (rc <= 0)
		return rc;
	for (i = 0; needs_timed_order(w) && i < n; i++)
		scratch32[i] = order[place[i]];
	if (needs_timed_order(w))
		memcpy(order, scratch32, n * sizeof(*order));
	for (i = 0; i < n; i++)
		scratch32[i] = stacks[place[i]];
	memcpy(stacks, scratch32, n * sizeof(*stacks));
	for (i = 0; gr->weights_differ && i < n; i++)
		scratch[i] = weights[place[i]];
	if (gr->weights_differ)
		memcpy(weights, scratch, n * sizeof(*weights));
	return 0;
}

/*
 * Lay the samples out group by group (a counting sort), with each one's
 * stack and weight, then each group in time order. The stacks and
 * weights are taken here, reading the profile's arrays one after the
 * other: in time order they would be read all over those arrays.
 */
static int place_samples(struct speedscope *w, const uint32_t *sample_group)
{
	size_t n = pk_profile_sample_count(w->p), g, i, at = 0;

	w->order = pki_alloc_large(w->norder * sizeof(*w->order));
	w->order_stacks = pki_alloc_large(w->norder * sizeof(*w->order_stacks));
	w->order_weights = pki_alloc_large(w->norder *
					   sizeof(*w->order_weights));
	if (!w->order || !w->order_stacks || !w->order_weights)
		return oom(w);
	for (g = 1; g < w->ngroups; g++) {
		w->groups[g].first = at;
		at += w->groups[g].count;
		w->groups[g].count = 0;
	}
	for (i = 0; i < n; i++) {
		struct group *gr;
		size_t to;

		if (!sample_group[i])
			continue;	/* in no group: nothing to index */
		gr = &w->groups[sample_group[i]];
		to = gr->first + gr->count++;
		w->order[to] = (uint32_t)i;
		w->order_stacks[to] = pk_profile_sample(w->p, i)->stack;
		w->order_weights[to] = pk_profile_sample_values(w->p, i)
					[w->series[gr->series].column];
	}
	return 0;
}

/* A sample's time in the keys: from the first, in whole microseconds
 * where every time is one (perf script's are), which saves a pass of
 * the sort over a second of samples. */
static uint64_t key_time(const struct speedscope *w, uint64_t time)
{
	uint64_t t = time - w->first_time;

	return w->finer_times ? t : t / 1000;
}

/* The keys of the grouped samples of index from up to to, in index
 * order (sort_keys). */
static void make_keys(struct speedscope *w, const uint32_t *sample_group,
		      size_t from, size_t to, uint64_t *key,
		      unsigned group_shift, unsigned stack_bits)
{
	size_t i, k = 0, stride;
	const int64_t *values;
	const struct pk_sample *s = pki_profile_samples(w->p, &values, &stride);

	for (i = from; i < to; i++) {
		if (!sample_group[i])
			continue;
		key[k++] = (group_shift < 64 ? (uint64_t)(sample_group[i] - 1) <<
					       group_shift : 0) |
			   key_time(w, s[i].time) << stack_bits | s[i].stack;
	}
}

/* The keys of some samples, made and sorted by a thread. */
struct key_run {
	struct speedscope *w;
	const uint32_t *sample_group;
	size_t from, to;	/* the samples' indexes */
	size_t n;		/* of them grouped: their keys */
	uint64_t *key, *tmp;	/* room for the keys, twice */
	unsigned group_shift, stack_bits, bits;
	uint64_t *sorted;	/* key or tmp, NULL when out of memory */
};

static void *sort_run(void *arg)
{
	struct key_run *r = arg;

	make_keys(r->w, r->sample_group, r->from, r->to, r->key,
		  r->group_shift, r->stack_bits);
	r->sorted = pki_radix_sort(r->key, r->tmp, r->n, r->stack_bits, r->bits);
	return NULL;
}

/* Two sorted runs of keys merged, stable, by the bits above low. */
struct key_merge {
	const uint64_t *a, *b;
	size_t na, nb;
	unsigned low;
	uint64_t *out;
};

/* The first half of the merge, from the front: a key of a goes before
 * the equal keys of b. */
static void merge_front(const struct key_merge *m)
{
	size_t i = 0, j = 0, k, n = (m->na + m->nb) / 2;

	for (k = 0; k < n; k++)
		m->out[k] = j == m->nb ||
			    (i < m->na && m->a[i] >> m->low <= m->b[j] >> m->low) ?
			    m->a[i++] : m->b[j++];
}

/* The rest, from the back: a key of b goes after the equal keys of a. */
static void *merge_back(void *arg)
{
	const struct key_merge *m = arg;
	size_t i = m->na, j = m->nb, k, n = (m->na + m->nb) / 2;

	for (k = m->na + m->nb; k-- > n;)
		m->out[k] = !i || (j && m->b[j - 1] >> m->low >= m->a[i - 1] >> m->low) ?
			    m->b[--j] : m->a[--i];
	return NULL;
}

/*
 * The keys' halves, key[0, na) and key[na, n), made and sorted on two
 * threads (tmp their scratch), then merged on two: the sorted keys, in
 * key or tmp; NULL when out of memory. Where a thread cannot be made,
 * the caller's thread does its share.
 */
static uint64_t *sort_halves(struct key_run *a, struct key_run *b,
			     size_t na, size_t n, uint64_t *key, uint64_t *tmp)
{
	struct key_merge m = { .na = na, .nb = n - na, .low = a->stack_bits };
	pthread_t thread;
	int started = pthread_create(&thread, NULL, sort_run, b) == 0;

	sort_run(a);
	if (started)
		pthread_join(thread, NULL);
	else
		sort_run(b);
	if (!a->sorted || !b->sorted)
		return NULL;
	/* one half sorted in key, the other in tmp (a pass one skipped):
	 * both taken to key, so that tmp is free for the merge */
	if (a->sorted != key && b->sorted == key + na) {
		memcpy(key, a->sorted, na * sizeof(*key));
		a->sorted = key;
	} else if (a->sorted == key && b->sorted != key + na) {
		memcpy(key + na, b->sorted, (n - na) * sizeof(*key));
		b->sorted = key + na;
	}
	m.a = a->sorted;
	m.b = b->sorted;
	m.out = a->sorted == key ? tmp : key;
	started = pthread_create(&thread, NULL, merge_back, &m) == 0;
	merge_front(&m);
	if (started)
		pthread_join(thread, NULL);
	else
		merge_back(&m);
	return m.out;
}

/*
 * The common case, sampled profiles without gaps and each group's samples
 * of one weight, needs only the stacks in time order: a key a sample,
 * its group above its time above its stack, sorted once (on two threads
 * where pki_two_threads). 1 when that does not fit in 64 bits, else
 * 0 or an error.
 */
static int sort_keys(struct speedscope *w, const uint32_t *sample_group)
{
	unsigned time_bits = pki_bit_length(key_time(w, w->last_time));
	unsigned group_bits = w->ngroups > 2 ?
			      pki_bit_length(w->ngroups - 2) : 0;
	unsigned sb = pki_bit_length(w->max_stack);
	size_t g, at = 0, na = w->norder_below_half;
	uint64_t *key;
	struct key_run a, b;

	for (g = 1; g < w->ngroups; g++)
		if (w->groups[g].weights_differ)
			return 1;
	if (needs_timed_order(w) || w->norder > PKI_RADIX_MAX ||
	    group_bits + time_bits + sb > 64)
		return 1;
	key = w->key_buffer = pki_alloc_large(2 * w->norder * sizeof(*key));
	if (!key)
		return oom(w);
	a = (struct key_run){
		.w = w, .sample_group = sample_group,
		.from = 0, .to = pk_profile_sample_count(w->p), .n = w->norder,
		.key = key, .tmp = key + w->norder,
		/* one group: no bits of it, and a shift past the key */
		.group_shift = group_bits ? time_bits + sb : 64,
		.stack_bits = sb, .bits = group_bits + time_bits,
	};
	/* each half the samples' keys, then merged on two: for a profile
	 * large enough that a thread costs little */
	if (pki_two_threads(w->opts, w->norder, 65536)) {
		b = a;
		a.to = b.from = w->half;
		a.n = na;
		b.n -= na;
		b.key += na;
		b.tmp += na;
		w->stack_keys = sort_halves(&a, &b, na, w->norder, key,
					    key + w->norder);
	} else {
		sort_run(&a);
		w->stack_keys = a.sorted;
	}
	if (!w->stack_keys)
		return oom(w);
	w->stack_bits = sb;
	for (g = 1; g < w->ngroups; g++) {
		w->groups[g].first = at;
		at += w->groups[g].count;
	}
	return 0;
}

/* The stack and the weight of the k-th sample in order. */
static uint32_t stack_at(const struct speedscope *w, size_t k)
{
	if (w->stack_keys)
		return (uint32_t)(w->stack_keys[k] &
				  (((uint64_t)1 << w->stack_bits) - 1));
	return w->order_stacks[k];
}

static int64_t weight_at(const struct speedscope *w, const struct group *gr,
			 size_t k)
{
	return gr->weights_differ ? w->order_weights[k] : gr->weight;
}

/* The general case: each sample's index, stack and weight laid out by
 * group, then each group sorted by time. */
static int order_samples(struct speedscope *w, uint32_t *sample_group)
{
	int64_t *scratch;
	size_t g;
	int rc = place_samples(w, sample_group);

	if (rc)
		return rc;
	/* sample_group, no longer needed, holds the places; each group's
	 * indexes are ascending here, so pki_time_order's equal times in
	 * index order are equal times in input order */
	scratch = pki_alloc_large(w->norder * sizeof(*scratch));
	if (!scratch)
		return oom(w);
	for (g = 1; !rc && g < w->ngroups; g++)
		if (sort_group(w, &w->groups[g], sample_group, scratch))
			rc = oom(w);
	free(scratch);
	return rc;
}

static int build_order(struct speedscope *w)
{
	size_t n = pk_profile_sample_count(w->p);
	uint32_t *sample_group = pki_alloc_large(n * sizeof(*sample_group));
	int rc;

	if (!sample_group)
		return oom(w);
	memset(sample_group, 0, n * sizeof(*sample_group));
	rc = assign_groups(w, sample_group);
	if (!rc)
		rc = sort_keys(w, sample_group);
	if (rc == 1)
		rc = order_samples(w, sample_group);
	free(sample_group);
	return rc;
}

/* ---- frames ---- */

/* A frame's id in the interner (its index in "frames" plus one), or 0. */
static uint32_t intern_frame(struct speedscope *w, const struct pk_function *fn,
			     int64_t line, const char *mod)
{
	const char *name = fn ? pk_profile_string(w->p, fn->name) : "";
	/* as folded: "[libc.so.6]", but "[kernel.kallsyms]" stays */
	const struct pki_unknown_name unknown = {
		.style = PKI_UNKNOWN_STACKCOLLAPSE, .keep_brackets = 1,
	};
	struct pk_function f = { 0 };

	if (!pki_is_unknown_function(name)) {
		f.name = pk_profile_intern_cstr(w->frames, name);
	} else {
		w->name.len = 0;
		if (pki_unknown_name(&w->name, mod, 0, &unknown))
			return 0;
		f.name = pk_profile_intern(w->frames, w->name.s, w->name.len);
	}
	if (fn && fn->filename)
		f.filename = pk_profile_intern_cstr(w->frames,
						    pk_profile_string(w->p, fn->filename));
	f.start_line = line > 0 ? line : 0;
	if (!f.name || (fn && fn->filename && !f.filename))
		return 0;
	return pk_profile_intern_function(w->frames, &f);
}

static int list_add(struct speedscope *w, uint32_t v)
{
	if (pki_grow(&w->frame_lists, &w->frame_lists_cap, w->nframe_lists + 1,
		    sizeof(*w->frame_lists)) < 0)
		return -1;
	w->frame_lists[w->nframe_lists++] = v;
	return 0;
}

/* The frames of a location, inlined callers first, are resolved once. */
static int resolve_location(struct speedscope *w, uint32_t loc_id)
{
	const struct pk_location *loc = pk_profile_location(w->p, loc_id);
	const struct pk_mapping *m = loc ? pk_profile_mapping(w->p, loc->mapping) : NULL;
	const char *mod = m ? pk_profile_string(w->p, m->file) : "";
	const struct pk_line *lines = loc ? pk_profile_location_lines(w->p, loc) : NULL;
	size_t start = w->nframe_lists, j;
	uint32_t n = loc && loc->nlines ? loc->nlines : 1;

	if (list_add(w, n))
		return -1;
	for (j = n; j-- > 0;) {
		uint32_t id = lines && loc->nlines ?
			intern_frame(w, pk_profile_function(w->p, lines[j].function),
				     lines[j].line, mod) :
			intern_frame(w, NULL, 0, mod);

		if (!id || list_add(w, id))
			return -1;
	}
	w->loc_frames[loc_id] = (uint32_t)start + 1;
	return 0;
}

/* Frame ids are given in output order, so the file reads top-down. */
static int resolve_frames(struct speedscope *w)
{
	size_t nlocs = pk_profile_location_count(w->p);
	size_t nstacks = pk_profile_stack_count(w->p), i, d;

	w->loc_frames = calloc(nlocs + 1, sizeof(*w->loc_frames));
	w->stack_done = calloc(nstacks / 8 + 1, 1);
	w->stack_texts = calloc(nstacks + 1, sizeof(*w->stack_texts));
	w->nstacks = nstacks;
	if (!w->loc_frames || !w->stack_done || !w->stack_texts)
		return oom(w);
	for (i = 0; i < w->norder; i++) {
		uint32_t stack = stack_at(w, i);
		const uint32_t *locs;
		size_t depth;

		if (stack > nstacks || (w->stack_done[stack / 8] & (1u << (stack % 8))))
			continue;
		w->stack_done[stack / 8] |= (unsigned char)(1u << (stack % 8));
		locs = pk_profile_stack(w->p, stack, &depth);
		for (d = depth; d-- > 0;)
			if (locs[d] && locs[d] <= nlocs && !w->loc_frames[locs[d]] &&
			    resolve_location(w, locs[d]))
				return oom(w);
	}
	return 0;
}

/* A sample's frame ids (1-based), root first, into stack_buf. */
static int sample_frames(struct speedscope *w, uint32_t stack)
{
	size_t depth, d, nlocs = pk_profile_location_count(w->p);
	const uint32_t *locs = pk_profile_stack(w->p, stack, &depth);

	w->stack_len = 0;
	for (d = depth; d-- > 0;) {
		const uint32_t *list;

		if (!locs[d] || locs[d] > nlocs || !w->loc_frames[locs[d]])
			continue;
		list = w->frame_lists + w->loc_frames[locs[d]] - 1;
		if (pki_grow(&w->stack_buf, &w->stack_cap, w->stack_len + list[0],
			    sizeof(*w->stack_buf)) < 0)
			return -1;
		memcpy(w->stack_buf + w->stack_len, list + 1,
		       list[0] * sizeof(*list));
		w->stack_len += list[0];
	}
	return 0;
}

/* ---- output ---- */

/* A string of one of our interners. */
static void put_string(struct pki_json *j, const struct pk_profile *in, pk_str s)
{
	pki_json_string(j, pk_profile_string(in, s), pk_profile_string_len(in, s));
}

static void write_frames(struct speedscope *w, struct pki_json *j)
{
	size_t n = pk_profile_function_count(w->frames), i;

	pki_json_key(j, "shared");
	pki_json_begin_object(j);
	pki_json_key(j, "frames");
	pki_json_begin_array(j);
	for (i = 1; i <= n && !j->rc; i++) {
		const struct pk_function *f =
			pk_profile_function(w->frames, (uint32_t)i);

		pki_json_space(j, "\n");
		pki_json_begin_object(j);
		pki_json_key(j, "name");
		put_string(j, w->frames, f->name);
		if (f->filename) {
			pki_json_key(j, "file");
			put_string(j, w->frames, f->filename);
		}
		if (f->start_line > 0) {
			pki_json_key(j, "line");
			pki_json_int(j, f->start_line);
		}
		pki_json_end_object(j);
	}
	pki_json_end_array(j);
	pki_json_end_object(j);
}

static int64_t shown_weight(struct speedscope *w, int64_t v)
{
	/* speedscope refuses negative weights (a pprof diff has them) */
	if (v < 0) {
		w->negative++;
		return 0;
	}
	return v;
}

/* A profile's object, opened, with its type, name and unit. */
static void write_profile_head(struct pki_json *j, const char *type,
			       const char *name, size_t len, const char *unit)
{
	pki_json_space(j, "\n");
	pki_json_begin_object(j);
	pki_json_key(j, "type");
	pki_json_cstring(j, type);
	pki_json_key(j, "name");
	pki_json_string(j, name, len);
	pki_json_key(j, "unit");
	pki_json_cstring(j, unit);
}

/* The name of group g's profile. */
static void write_group_head(struct speedscope *w, struct pki_json *j,
			     size_t g, const char *type, const char *unit)
{
	write_profile_head(j, type, pk_profile_string(w->names, (pk_str)g),
			   pk_profile_string_len(w->names, (pk_str)g), unit);
}

/* The first time of the recording: where gaps are counted from. */
static uint64_t timeline_start(const struct speedscope *w)
{
	uint64_t first, last;

	pk_profile_time_span(w->p, &first, &last);
	return first;
}

/*
 * A sampled profile has no times, only weights one after the other. A
 * thread's off-CPU or wall time (nanoseconds, with intervals) gets an
 * empty sample for the time between, so that each interval starts where
 * it did, from the first time of the recording on; gaps under half a
 * running sample's weight (the sampling's jitter) are let be.
 */
static int has_gaps(struct speedscope *w, const struct group *gr)
{
	size_t i;

	if (w->interval_column < 0 || !timeline_start(w) ||
	    strcmp(w->series[gr->series].unit, "nanoseconds") != 0)
		return 0;
	for (i = 0; i < gr->count; i++)
		if (pki_interval_length(w->p, w->interval_column,
					w->order[gr->first + i]))
			return 1;
	return 0;
}

/* The gap before the sample at index, the timeline being at *at (ns);
 * moves *at past the sample. */
static uint64_t gap_before(struct speedscope *w, const struct group *gr,
			   uint32_t index, uint64_t *at)
{
	const struct series *se = &w->series[gr->series];
	int64_t weight = pk_profile_sample_values(w->p, index)[se->column];
	uint64_t t = time_of(w, index), gap = 0;
	uint64_t length = weight > 0 ? (uint64_t)(weight / se->scale) : 0;

	if (t > *at && (pki_interval_length(w->p, w->interval_column, index) ||
			t - *at > length / 2))
		gap = t - *at;
	*at += gap + length;
	return gap;
}

static int append_stack_text(void *arg, const char *s, size_t n)
{
	struct speedscope *w = arg;

	return pki_strbuf_add(&w->stack_text, s, n) ? PK_ENOMEM : 0;
}

/* The frames of a stack as a JSON array, into stack_text. */
static int make_stack_text(struct speedscope *w, uint32_t stack,
			   struct stack_text *t)
{
	size_t k;

	if (sample_frames(w, stack))
		return -1;
	t->off = w->stack_text.len;
	pki_json_raw(&w->stack_json, ",\n", 2);
	pki_json_begin_array(&w->stack_json);
	for (k = 0; k < w->stack_len; k++)
		pki_json_int(&w->stack_json, (int64_t)w->stack_buf[k] - 1);
	pki_json_end_array(&w->stack_json);
	pki_json_flush(&w->stack_json);
	t->len = w->stack_text.len - t->off;
	return w->stack_json.rc ? -1 : 0;
}

/*
 * The members of the "samples" and "weights" arrays are laid out here,
 * each put as it is (pki_json_raw) with the comma before it but the
 * first: a million samples each through the writer's structure cost
 * more than the rest of the file.
 */
static void put_member(struct pki_json *j, const char *s, size_t len,
		       int first)
{
	pki_json_raw(j, s + first, len - first);
}

/* A member's text copies times, the first of the array's if first:
 * copies of the text put a run at a time, the run made by doubling. */
static void put_members(struct pki_json *j, const char *s, size_t len,
			size_t copies, int first)
{
	char run[4096];
	size_t fit = sizeof(run) / len, made, i;

	if (!copies)
		return;
	put_member(j, s, len, first);
	if (--copies < 2 || !fit) {
		for (; copies && !j->rc; copies--)
			pki_json_raw(j, s, len);
		return;
	}
	if (fit > copies)
		fit = copies;
	memcpy(run, s, len);
	for (made = 1; made < fit; made += i) {
		i = made < fit - made ? made : fit - made;
		memcpy(run + made * len, run, i * len);
	}
	for (; copies && !j->rc; copies -= i) {
		i = copies < fit ? copies : fit;
		pki_json_raw(j, run, i * len);
	}
}

/* A stack's samples, copies of them, each on a line of its own: the
 * same text for every sample of the stack, so made once. */
static int write_stack(struct speedscope *w, struct pki_json *j, uint32_t stack,
		       size_t copies, int first)
{
	struct stack_text *t = &w->stack_texts[stack <= w->nstacks ? stack : 0];

	if (!t->len && make_stack_text(w, stack, t))
		return -1;
	put_members(j, w->stack_text.s + t->off, t->len, copies, first);
	return 0;
}

/* A weight's member, copies of it. */
static void write_weight(struct speedscope *w, struct pki_json *j, int64_t v,
			 int64_t scale, size_t copies, int first)
{
	struct weight_text *t = &w->weight_text;

	if (v != t->value || scale != t->scale) {
		int n = pk_value_format(t->s + 1, sizeof(t->s) - 1, v, scale);

		t->s[0] = ',';
		t->len = n > 0 ? 1 + (size_t)n : 1;
		t->value = v;
		t->scale = scale;
	}
	put_members(j, t->s, t->len, copies, first);
}

/* A group's weights, each with the gap before it where there are gaps. */
static void write_each_weight(struct speedscope *w, struct pki_json *j,
			      const struct group *gr, int gaps)
{
	const struct series *se = &w->series[gr->series];
	uint64_t at = timeline_start(w), gap;
	size_t i, n = 0;

	for (i = 0; i < gr->count && !j->rc; i++) {
		gap = gaps ? gap_before(w, gr, w->order[gr->first + i], &at) : 0;
		if (gap)
			write_weight(w, j, (int64_t)gap * se->scale, se->scale,
				     1, !n++);
		write_weight(w, j, shown_weight(w, weight_at(w, gr,
							       gr->first + i)),
			     se->scale, 1, !n++);
	}
}

/* A group's weights all alike, with no gaps between: one member text
 * repeated. */
static void write_same_weights(struct speedscope *w, struct pki_json *j,
			       const struct group *gr)
{
	const struct series *se = &w->series[gr->series];

	write_weight(w, j, shown_weight(w, gr->weight), se->scale, gr->count, 1);
	if (gr->weight < 0)	/* each was counted */
		w->negative += gr->count - 1;
}

static int write_sampled(struct speedscope *w, struct pki_json *j, size_t g)
{
	const struct group *gr = &w->groups[g];
	const struct series *se = &w->series[gr->series];
	int gaps = has_gaps(w, gr);
	uint64_t at = timeline_start(w), gap_sum = 0;
	size_t i, run, n = 0;

	for (i = 0; gaps && i < gr->count; i++)
		gap_sum += gap_before(w, gr, w->order[gr->first + i], &at);
	write_group_head(w, j, g, "sampled", se->unit);
	pki_json_key(j, "startValue");
	pki_json_int(j, 0);
	pki_json_key(j, "endValue");
	pki_json_fixed(j, gr->total + (int64_t)gap_sum * se->scale, se->scale);
	pki_json_key(j, "samples");
	pki_json_begin_array(j);
	at = timeline_start(w);
	for (i = 0; i < gr->count && !j->rc; i += run) {
		uint32_t stack = stack_at(w, gr->first + i);

		/* order is in time order only where there can be gaps */
		if (gaps && gap_before(w, gr, w->order[gr->first + i], &at))
			put_member(j, ",\n[]", 4, !n++);
		/* samples of one stack one after the other (a hot loop) are
		 * put as a run, but for a gap between any two */
		for (run = 1; !gaps && i + run < gr->count &&
			      stack_at(w, gr->first + i + run) == stack; run++)
			;
		if (write_stack(w, j, stack, run, !n))
			return oom(w);
		n += run;
	}
	pki_json_end_array(j);
	pki_json_space(j, "\n");
	pki_json_key(j, "weights");
	pki_json_begin_array(j);
	if (gaps || gr->weights_differ)
		write_each_weight(w, j, gr, gaps);
	else if (gr->count)
		write_same_weights(w, j, gr);
	pki_json_end_array(j);
	pki_json_end_object(j);
	return 0;
}

/* type: "O" opens the frame, "C" closes it. */
static void write_event(struct pki_json *j, const char *type, uint32_t frame,
			uint64_t at)
{
	pki_json_space(j, "\n");
	pki_json_begin_object(j);
	pki_json_key(j, "type");
	pki_json_cstring(j, type);
	pki_json_key(j, "frame");
	pki_json_int(j, (int64_t)frame - 1);
	pki_json_key(j, "at");
	pki_json_uint(j, at);
	pki_json_end_object(j);
}

/* Close the open frames down to depth keep, innermost first. */
static void close_frames(struct speedscope *w, struct pki_json *j, size_t keep,
			 uint64_t at)
{
	while (w->nopen > keep)
		write_event(j, "C", w->open[--w->nopen], at);
}

/* Move from the open frames to stack_buf's at time at. */
static int change_stack(struct speedscope *w, struct pki_json *j, uint64_t at)
{
	size_t same = 0;

	while (same < w->nopen && same < w->stack_len &&
	       w->open[same] == w->stack_buf[same])
		same++;
	close_frames(w, j, same, at);
	if (pki_grow(&w->open, &w->open_cap, w->stack_len, sizeof(*w->open)) < 0)
		return -1;
	for (; w->nopen < w->stack_len; w->nopen++) {
		w->open[w->nopen] = w->stack_buf[w->nopen];
		write_event(j, "O", w->open[w->nopen], at);
	}
	return 0;
}

/* Mean time between a group's timestamped samples, for the last one. */
static uint64_t mean_interval(struct speedscope *w, const struct group *gr)
{
	uint64_t t0 = 0, t1 = 0;
	size_t i, n = 0;

	for (i = 0; i < gr->count; i++) {
		uint64_t t = time_of(w, w->order[gr->first + i]);

		if (t && !n++)
			t0 = t;
		if (t)
			t1 = t;
	}
	return n > 1 ? (t1 - t0) / (n - 1) : 0;
}

/*
 * A sample's stack runs from its time to the next sample's. When the
 * weights are nanoseconds (a cpu-clock period) it runs for its weight
 * only, so a thread that sleeps between samples shows the gap; up to
 * half a period of jitter still counts as back to back. An off-CPU
 * interval runs for its length exactly.
 */
static int write_evented(struct speedscope *w, struct pki_json *j, size_t g)
{
	const struct group *gr = &w->groups[g];
	int column = w->series[gr->series].column;
	int timed = strcmp(w->series[gr->series].unit, "nanoseconds") == 0;
	uint64_t first, last, end = 0, mean = mean_interval(w, gr);
	size_t i;

	pk_profile_time_span(w->p, &first, &last);
	write_group_head(w, j, g, "evented", "nanoseconds");
	pki_json_key(j, "startValue");
	pki_json_uint(j, first);
	pki_json_key(j, "events");
	pki_json_begin_array(j);
	w->nopen = 0;
	for (i = 0; i < gr->count && !j->rc; i++) {
		uint32_t index = w->order[gr->first + i];
		uint64_t t = time_of(w, index), next = 0;
		uint64_t length = pki_interval_length(w->p, w->interval_column, index);
		uint64_t span = length ? length : timed ?
				(uint64_t)shown_weight(w, pk_profile_sample_values(w->p,
						index)[column]) /
				(uint64_t)w->series[gr->series].scale : mean;

		if (!t)
			continue;	/* no timestamp: not on the timeline */
		if (w->nopen && t > end)
			close_frames(w, j, 0, end);
		if (sample_frames(w, pk_profile_sample(w->p, index)->stack) ||
		    change_stack(w, j, t))
			return oom(w);
		if (i + 1 < gr->count)
			next = time_of(w, w->order[gr->first + i + 1]);
		if (next && !length && (!timed || next - t <= span + span / 2))
			end = next;
		else
			end = t + span;
	}
	close_frames(w, j, 0, end);
	pki_json_end_array(j);
	pki_json_space(j, "\n");
	pki_json_key(j, "endValue");
	pki_json_uint(j, end > first ? end : first);
	pki_json_end_object(j);
	return 0;
}

static size_t heaviest_profile(const struct speedscope *w)
{
	size_t g, best = 1;

	for (g = 2; g < w->ngroups; g++)
		if (w->groups[g].total > w->groups[best].total)
			best = g;
	return best - 1;
}

static int write_file(struct speedscope *w, struct pk_output *out)
{
	struct pki_json j;
	uint64_t first, last;
	int evented = 0, rc = 0;
	size_t g;

	pk_profile_time_span(w->p, &first, &last);
	if (w->evented && !first)
		pk_warn(w->ctx, "speedscope: the input has no timestamps: "
			"writing sampled profiles, not evented ones");
	else
		evented = w->evented;

	pki_output_json(&j, out);
	pki_json_begin_object(&j);
	pki_json_key(&j, "$schema");
	pki_json_cstring(&j, PKI_SPEEDSCOPE_SCHEMA);
	pki_json_space(&j, "\n");
	pki_json_key(&j, "exporter");
	pki_json_cstring(&j, "profkit " PACKAGE_VERSION);
	pki_json_space(&j, "\n");
	pki_json_key(&j, "name");
	pki_json_cstring(&j, w->title);
	pki_json_space(&j, "\n");
	pki_json_key(&j, "activeProfileIndex");
	pki_json_uint(&j, w->ngroups > 1 ? heaviest_profile(w) : 0);
	pki_json_space(&j, "\n");
	write_frames(w, &j);
	pki_json_space(&j, "\n");
	pki_json_key(&j, "profiles");
	pki_json_begin_array(&j);
	for (g = 1; g < w->ngroups && !rc && !j.rc; g++)
		rc = evented ? write_evented(w, &j, g) : write_sampled(w, &j, g);
	if (w->ngroups < 2) {
		/* speedscope wants a profile to show, even an empty one */
		write_profile_head(&j, "sampled", w->title, strlen(w->title),
				   "none");
		pki_json_key(&j, "startValue");
		pki_json_int(&j, 0);
		pki_json_key(&j, "endValue");
		pki_json_int(&j, 0);
		pki_json_key(&j, "samples");
		pki_json_begin_array(&j);
		pki_json_end_array(&j);
		pki_json_key(&j, "weights");
		pki_json_begin_array(&j);
		pki_json_end_array(&j);
		pki_json_end_object(&j);
	}
	pki_json_end_array(&j);
	pki_json_end_object(&j);
	pki_json_raw(&j, "\n", 1);
	if (pki_json_finish(&j) && !rc)
		rc = j.rc == PK_ENOMEM ? oom(w) : j.rc;
	return rc;
}

static void speedscope_release(struct speedscope *w)
{
	pk_profile_free(w->names);
	pk_profile_free(w->frames);
	free(w->series);
	free(w->groups);
	free(w->label_group);
	free(w->order);
	free(w->order_stacks);
	free(w->order_weights);
	free(w->key_buffer);
	free(w->loc_frames);
	free(w->frame_lists);
	free(w->stack_done);
	free(w->stack_buf);
	pki_json_finish(&w->stack_json);
	free(w->stack_text.s);
	free(w->stack_texts);
	free(w->open);
	free(w->name.s);
}

const struct pki_option pki_speedscope_options[] = {
	{ .key = "speedscope:evented", .type = PK_OPTION_FLAG,
	  .flag = "speedscope-evented",
	  .help = "one evented timeline per thread, from the times" },
	{ .key = NULL },
};

int pki_speedscope_write(struct pk_context *ctx, const struct pk_profile *p,
			 const struct pk_options *opts, struct pk_output *out)
{
	struct speedscope w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.p = p;
	w.opts = opts;
	w.evented = pki_option_flag(opts, &pki_speedscope_options[0]);
	w.title = pki_profile_title(p);
	pki_thread_keys(p, &w.keys);
	w.interval_column = pki_interval_column(p);
	w.names = pk_profile_new(0);
	w.frames = pk_profile_new(0);
	w.ngroups = 1;		/* group ids start at 1 */
	pki_json_init(&w.stack_json, append_stack_text, &w, PK_ENOMEM);
	rc = w.names && w.frames ? choose_series(&w) : oom(&w);
	if (!rc)
		rc = build_order(&w);
	if (!rc)
		rc = resolve_frames(&w);
	if (!rc)
		rc = write_file(&w, out);
	if (!rc && w.negative)
		pk_warn(ctx, "speedscope: %lu negative values written as 0 "
			"(speedscope takes no negative weights)", w.negative);
	speedscope_release(&w);
	return rc;
}
