/* SPDX-License-Identifier: MIT */
/*
 * Reader for speedscope's JSON file format (its file-format-schema.json;
 * py-spy, rbspy, austin and our own writer make it):
 *
 *     {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *      "shared": {"frames": [{"name": "main", "file": "a.py", "line": 3}]},
 *      "profiles": [{"type": "sampled", "name": "MainThread",
 *                    "unit": "milliseconds", "startValue": 0,
 *                    "endValue": 20, "samples": [[0, 1], [0]],
 *                    "weights": [10, 10]},
 *                   {"type": "evented", "name": "worker", "unit": "none",
 *                    "startValue": 0, "endValue": 8, "events":
 *                    [{"type": "O", "frame": 0, "at": 0}, ...]}]}
 *
 * Each profile is a thread (its name the thread's, as perf's comm). A
 * sampled profile's samples are stacks of frame indexes, root first,
 * each weighing its weight; an evented one weighs the stack open between
 * two events the time between them, as speedscope's importer counts
 * them (a frame closed must be the innermost open, times never go back).
 * Weights are in the profile's unit, one sample type per unit, exact
 * with their decimals (fixed point). A sample's time, for timelines, is
 * where speedscope draws it: startValue plus the weights before it, or
 * the event's "at".
 *
 * The document streams (lib/util/json-read.h); keys come in any order.
 * A sample waits for its weight (or the other way round), and for the
 * profile's name and unit, in a queue that holds only what is unpaired.
 * py-spy writes the frames after the profiles: until they are known,
 * samples go into a scratch profile whose locations stand for frame
 * indexes (interned, so it grows with distinct stacks, not samples),
 * copied into the profile with the frames' locations at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedscope.h"
#include "formats/registry.h"
#include "transforms/copy.h"
#include "util/json-read.h"

/* Bounds on hostile input: frames per stack (deeper stacks are refused),
 * frame indexes before the frames are known. */
#define MAX_FRAMES_PER_STACK (1u << 16)
#define MAX_FRAME_INDEX ((1u << 24) - 1)

enum {
	FILE_NAME = 1, EXPORTER,
	FRAMES, FRAME, FRAME_NAME, FRAME_FILE, FRAME_LINE,
	PROFILES, PROFILE, TYPE, NAME, UNIT, START_VALUE,
	SAMPLES, SAMPLE, SAMPLE_FRAME, WEIGHTS, WEIGHT,
	EVENTS, EVENT, EVENT_TYPE, EVENT_FRAME, EVENT_AT,
};

static const struct pki_json_path paths[] = {
	{ "$.name", FILE_NAME },
	{ "$.exporter", EXPORTER },
	{ "$.shared.frames", FRAMES },
	{ "$.shared.frames[]", FRAME },
	{ "$.shared.frames[].name", FRAME_NAME },
	{ "$.shared.frames[].file", FRAME_FILE },
	{ "$.shared.frames[].line", FRAME_LINE },
	{ "$.profiles", PROFILES },
	{ "$.profiles[]", PROFILE },
	{ "$.profiles[].type", TYPE },
	{ "$.profiles[].name", NAME },
	{ "$.profiles[].unit", UNIT },
	{ "$.profiles[].startValue", START_VALUE },
	{ "$.profiles[].samples", SAMPLES },
	{ "$.profiles[].samples[]", SAMPLE },
	{ "$.profiles[].samples[][]", SAMPLE_FRAME },
	{ "$.profiles[].weights", WEIGHTS },
	{ "$.profiles[].weights[]", WEIGHT },
	{ "$.profiles[].events", EVENTS },
	{ "$.profiles[].events[]", EVENT },
	{ "$.profiles[].events[].type", EVENT_TYPE },
	{ "$.profiles[].events[].frame", EVENT_FRAME },
	{ "$.profiles[].events[].at", EVENT_AT },
	{ NULL, 0 },
};

/* speedscope's units: the sample type each becomes, and nanoseconds per
 * unit for times (0: not a time). */
static const struct unit {
	const char *name, *type, *unit;
	enum pk_value_kind kind;
	double nanoseconds;
} units[] = {
	{ "none", "samples", "count", PK_VALUE_COUNT, 0 },
	{ "nanoseconds", "time", "nanoseconds", PK_VALUE_WEIGHT, 1 },
	{ "microseconds", "time", "microseconds", PK_VALUE_WEIGHT, 1e3 },
	{ "milliseconds", "time", "milliseconds", PK_VALUE_WEIGHT, 1e6 },
	{ "seconds", "time", "seconds", PK_VALUE_WEIGHT, 1e9 },
	{ "bytes", "space", "bytes", PK_VALUE_WEIGHT, 0 },
};

enum kind { KIND_NONE, KIND_SAMPLED, KIND_EVENTED };

/* A number at the profile's decimals: value / 10^decimals, and as a
 * double for times. */
struct amount {
	int64_t fixed;
	double d;
};

/* The profile being read. */
struct profile {
	enum kind type;			/* its "type" */
	int has_samples, has_events;	/* the keys of its data seen */
	const struct unit *unit;
	int column;			/* in the target, -1 until the unit */
	pk_str name;			/* in the target, 0: none yet */
	int has_name, has_start;
	int has_labels;			/* labels: the name's, interned once */
	uint32_t labels;
	double start;			/* startValue */
	int decimals;			/* of the weights read so far */
	uint64_t nsamples, nweights;	/* in all */

	/* stacks and weights not yet added: one of them waits for the
	 * other, or both for the name and unit */
	uint32_t *stacks;		/* 0: an empty stack */
	int64_t *weights;		/* at decimals */
	double *times;			/* evented: each interval's start (unit) */
	size_t nstacks, nqweights, done, stacks_cap, weights_cap, times_cap;
	double elapsed;			/* sampled: the weights added so far */

	/* evented */
	uint32_t *open;			/* frame indexes, root first */
	size_t nopen, open_cap;
	int has_last;
	struct amount last;
	int event_type;			/* 'O', 'C', or 0 */
	int64_t event_frame;		/* -1: none */
	int has_at;
	struct amount at;
};

struct ss_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pki_json_reader *jr;	/* in the callback */

	/* shared.frames: frame index -> location in p */
	uint32_t *frame_locs;
	size_t nframes, frame_locs_cap;
	int frames_done;
	struct pk_function frame_fn;	/* the frame being read */
	int frame_named;
	int64_t frame_line;

	/* until the frames are known, samples go to scratch, at locations
	 * standing for frame indexes */
	struct pk_profile *scratch;
	uint32_t *stand_ins;		/* frame index -> scratch location */
	size_t stand_ins_cap;
	uint32_t max_index;		/* the largest frame index used */
	char max_index_where[256];	/* and where */

	struct profile prof;
	uint32_t *frames;		/* a sample's frame indexes */
	size_t nframes_in_sample, frames_cap;
	uint32_t *last_frames;		/* the last sample's, and its stack */
	size_t nlast, last_frames_cap;
	uint32_t last_stack;
	uint32_t *locs;			/* a stack's locations, leaf first */
	size_t locs_cap;
	int64_t *values;
	size_t values_cap;
	int64_t *totals;		/* per column, at its scale: the model
					 * wraps, a file may not */
	size_t totals_cap;
	pk_str comm;
	unsigned long nprofiles, nsampled, nevented;
};

static int oom(struct ss_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory", pk_input_name(r->in));
}

/* Where samples go: the profile, or scratch until the frames are known. */
static struct pk_profile *target(const struct ss_reader *r)
{
	return r->scratch ? r->scratch : r->p;
}

/* ---- frames ---- */

static int end_frame(struct ss_reader *r)
{
	struct pk_line line = { 0 };

	if (!r->frame_named)
		return pki_json_reader_fail(r->jr, "expected the frame's \"name\"");
	if (pki_grow(&r->frame_locs, &r->frame_locs_cap, r->nframes + 1,
		     sizeof(*r->frame_locs)) < 0)
		return oom(r);
	r->frame_fn.system_name = r->frame_fn.name;
	line.function = pk_profile_intern_function(r->p, &r->frame_fn);
	line.line = r->frame_line;
	r->frame_locs[r->nframes++] = pk_profile_intern_location(r->p, 0, 0, &line, 1);
	return pk_profile_failed(r->p) ? oom(r) : 0;
}

/*
 * A frame index as read: known frames are checked at once; before them
 * the largest index is noted with its place, to be checked at the end.
 */
static int note_frame(struct ss_reader *r, int64_t k)
{
	if (!r->scratch) {
		if ((uint64_t)k < r->nframes)
			return 0;
		return pki_json_reader_fail(r->jr, "frame %lld is out of range: "
					    "shared.frames has %zu", (long long)k,
					    r->nframes);
	}
	if (k > MAX_FRAME_INDEX)
		return pki_json_reader_fail(r->jr, "frame index %lld is too large "
					    "(at most %u frames)", (long long)k,
					    MAX_FRAME_INDEX + 1);
	if (!r->max_index_where[0] || (uint32_t)k > r->max_index) {
		r->max_index = (uint32_t)k;
		pki_json_reader_where(r->jr, r->max_index_where, sizeof(r->max_index_where));
	}
	return 0;
}

/* The location of frame index k (noted) in the target, at *loc: the
 * frame's, or a stand-in for it. */
static int frame_location(struct ss_reader *r, uint32_t k, uint32_t *loc)
{
	if (!r->scratch) {
		*loc = r->frame_locs[k];
		return 0;
	}
	if (pki_grow_zeroed(&r->stand_ins, &r->stand_ins_cap, (size_t)k + 1,
			    sizeof(*r->stand_ins)) < 0)
		return oom(r);
	if (!r->stand_ins[k] &&
	    !(r->stand_ins[k] = pk_profile_intern_location(r->scratch, 0,
							   (uint64_t)k + 1, NULL, 0)))
		return oom(r);
	*loc = r->stand_ins[k];
	return 0;
}

/* Frame indexes, root first, as a stack of the target at *stack (0 for
 * none). */
static int intern_frames(struct ss_reader *r, const uint32_t *frames, size_t n,
			 uint32_t *stack)
{
	size_t i;
	int rc = 0;

	*stack = 0;
	if (!n)
		return 0;
	if (pki_grow(&r->locs, &r->locs_cap, n, sizeof(*r->locs)) < 0)
		return oom(r);
	for (i = 0; i < n && !rc; i++)
		rc = frame_location(r, frames[i], &r->locs[n - 1 - i]);
	if (!rc && !(*stack = pk_profile_intern_stack(target(r), r->locs, n)))
		rc = oom(r);
	return rc;
}

/* ---- a profile's samples ---- */

static int ready(const struct profile *pr)
{
	return pr->column >= 0 && pr->has_name && pr->has_start;
}

/* The column of the profile's unit in the target (made the first time). */
static int unit_column(struct ss_reader *r, const struct unit *u)
{
	struct pk_profile *t = target(r);
	size_t i, n = pk_profile_sample_type_count(t);

	for (i = 0; i < n; i++) {
		const struct pk_value_type *vt = pk_profile_sample_type(t, i);

		if (strcmp(pk_profile_string(t, vt->unit), u->unit) == 0 &&
		    strcmp(pk_profile_string(t, vt->type), u->type) == 0)
			return (int)i;
	}
	return pk_profile_add_sample_type(t, u->type, u->unit, NULL, u->kind);
}

/* One stack and weight into the target. */
static int add_one(struct ss_reader *r, uint32_t stack, int64_t weight, double time)
{
	struct profile *pr = &r->prof;
	struct pk_profile *t = target(r);
	struct pk_label comm = { .key = r->comm, .str = pr->name };
	int64_t factor = pk_profile_sample_type_scale(t, (size_t)pr->column) /
			 pki_pow10(pr->decimals);

	if (!stack || !weight)
		return 0;	/* speedscope draws nothing for them either */
	if (!pr->has_labels) {
		pr->labels = pr->name ? pk_profile_intern_labels(t, &comm, 1) : 0;
		pr->has_labels = 1;
	}
	if (pki_grow_zeroed(&r->values, &r->values_cap, (size_t)pr->column + 1,
			    sizeof(*r->values)) < 0)
		return oom(r);
	memset(r->values, 0, r->values_cap * sizeof(*r->values));
	if (__builtin_mul_overflow(weight, factor, &r->values[pr->column]) ||
	    __builtin_add_overflow(r->totals[pr->column], r->values[pr->column],
				   &r->totals[pr->column]))
		return pki_json_reader_fail(r->jr, "the weights of a unit add up "
					    "past 2^63");
	return pk_profile_add_sample(t, stack, pr->labels, time > 0 ? (uint64_t)time : 0,
				     r->values, (size_t)pr->column + 1);
}

/* Add what pairs up, once the profile's name and unit are known. */
static int pump(struct ss_reader *r)
{
	struct profile *pr = &r->prof;
	size_t n = pr->nstacks < pr->nqweights ? pr->nstacks : pr->nqweights;
	struct pk_profile *t = target(r);
	int64_t scale;
	int rc = 0;

	if (!ready(pr) || pr->done == n)
		return 0;
	if (pki_grow_zeroed(&r->totals, &r->totals_cap, (size_t)pr->column + 1,
			    sizeof(*r->totals)) < 0)
		return oom(r);
	scale = pk_profile_sample_type_scale(t, (size_t)pr->column);
	if (scale < pki_pow10(pr->decimals) &&
	    (__builtin_mul_overflow(r->totals[pr->column], pki_pow10(pr->decimals) / scale,
				    &r->totals[pr->column]) ||
	     pk_profile_set_sample_type_scale(t, (size_t)pr->column, pki_pow10(pr->decimals))))
		return pki_json_reader_fail(r->jr, "with %d decimals the weights no "
					    "longer fit in 64 bits", pr->decimals);
	for (; pr->done < n && !rc; pr->done++) {
		double time;

		if (pr->has_events) {
			time = pr->times[pr->done];
		} else {
			time = pr->start + pr->elapsed;
			pr->elapsed += (double)pr->weights[pr->done] /
				       (double)pki_pow10(pr->decimals);
		}
		time *= pr->unit->nanoseconds;
		rc = add_one(r, pr->stacks[pr->done], pr->weights[pr->done], time);
	}
	if (pr->done == pr->nstacks && pr->done == pr->nqweights)
		pr->done = pr->nstacks = pr->nqweights = 0;
	return rc ? rc : pk_profile_failed(t) ? oom(r) : 0;
}

static int push_stack(struct ss_reader *r, uint32_t stack)
{
	struct profile *pr = &r->prof;

	if (pki_grow(&pr->stacks, &pr->stacks_cap, pr->nstacks + 1, sizeof(*pr->stacks)) < 0)
		return oom(r);
	pr->stacks[pr->nstacks++] = stack;
	return 0;
}

static int push_weight(struct ss_reader *r, int64_t weight)
{
	struct profile *pr = &r->prof;

	if (pki_grow(&pr->weights, &pr->weights_cap, pr->nqweights + 1,
		     sizeof(*pr->weights)) < 0)
		return oom(r);
	pr->weights[pr->nqweights++] = weight;
	return 0;
}

/*
 * The profile's weights get the decimals of v (up to nanoseconds of a
 * second: more are floating-point noise), those waiting and the last
 * event's time too. Then v at those decimals into *out.
 */
static int fixed_point(struct ss_reader *r, const struct pki_json_value *v,
		       int64_t min, int64_t *out)
{
	struct profile *pr = &r->prof;
	int want = pki_json_decimals(v);
	int64_t factor;
	size_t i;

	if (want > 9)
		want = 9;
	if (want > pr->decimals) {
		factor = pki_pow10(want - pr->decimals);
		for (i = pr->done; i < pr->nqweights; i++)
			if (__builtin_mul_overflow(pr->weights[i], factor, &pr->weights[i]))
				return pki_json_reader_fail(r->jr, "with %d decimals the "
							    "weights no longer fit in "
							    "64 bits", want);
		if (pr->has_last && __builtin_mul_overflow(pr->last.fixed, factor,
							   &pr->last.fixed))
			return pki_json_reader_fail(r->jr, "with %d decimals the times "
						    "no longer fit in 64 bits", want);
		pr->decimals = want;
	}
	return pki_json_expect_scaled(r->jr, v, pr->decimals, min, INT64_MAX, out);
}

/* ---- sampled profiles ---- */

/* A sampled profile's stack; the last one's again (a function that runs
 * a while is sampled so) is not interned again. */
static int end_sample(struct ss_reader *r)
{
	size_t n = r->nframes_in_sample;
	uint32_t stack = r->last_stack;
	int rc = 0;

	/* an empty sample has no frames array to compare or copy (NULL) */
	if (!stack || n != r->nlast ||
	    (n && memcmp(r->frames, r->last_frames, n * sizeof(*r->frames)) != 0)) {
		rc = intern_frames(r, r->frames, n, &stack);
		if (!rc && pki_grow(&r->last_frames, &r->last_frames_cap, n + 1,
				    sizeof(*r->last_frames)) < 0)
			rc = oom(r);
		if (!rc) {
			if (n)
				memcpy(r->last_frames, r->frames, n * sizeof(*r->frames));
			r->nlast = n;
			r->last_stack = stack;
		}
	}
	r->prof.nsamples++;
	if (!rc)
		rc = push_stack(r, stack);
	return rc ? rc : pump(r);
}

static int sample_frame(struct ss_reader *r, const struct pki_json_value *v)
{
	int64_t k;

	if (pki_json_expect_int(r->jr, v, 0, UINT32_MAX, &k))
		return pki_json_reader_code(r->jr);
	if (note_frame(r, k))
		return pki_json_reader_code(r->jr);
	if (r->nframes_in_sample == MAX_FRAMES_PER_STACK)
		return pki_json_reader_fail(r->jr, "a stack of more than %u frames",
					    MAX_FRAMES_PER_STACK);
	if (pki_grow(&r->frames, &r->frames_cap, r->nframes_in_sample + 1,
		     sizeof(*r->frames)) < 0)
		return oom(r);
	r->frames[r->nframes_in_sample++] = (uint32_t)k;
	return 0;
}

static int weight(struct ss_reader *r, const struct pki_json_value *v)
{
	int64_t w;
	int rc = fixed_point(r, v, 0, &w);

	r->prof.nweights++;
	if (!rc)
		rc = push_weight(r, w);
	return rc ? rc : pump(r);
}

/* ---- evented profiles ---- */

/* The stack open from the last event to this one, weighing the time. */
static int interval(struct ss_reader *r)
{
	struct profile *pr = &r->prof;
	uint32_t stack;
	int64_t length;
	int rc;

	if (__builtin_sub_overflow(pr->at.fixed, pr->last.fixed, &length))
		return pki_json_reader_fail(r->jr, "a time too far from the last");
	rc = intern_frames(r, pr->open, pr->nopen, &stack);
	if (!rc && pki_grow(&pr->times, &pr->times_cap, pr->nstacks + 1,
			    sizeof(*pr->times)) < 0)
		rc = oom(r);
	if (!rc) {
		pr->times[pr->nstacks] = pr->last.d;
		rc = push_stack(r, stack);
	}
	if (!rc)
		rc = push_weight(r, length);
	return rc ? rc : pump(r);
}

static int end_event(struct ss_reader *r)
{
	struct profile *pr = &r->prof;
	int rc = 0;

	if (!pr->event_type || pr->event_frame < 0 || !pr->has_at)
		return pki_json_reader_fail(r->jr, "expected an event's \"type\", "
					    "\"frame\" and \"at\"");
	if (pr->has_last && pr->at.fixed < pr->last.fixed)
		return pki_json_reader_fail(r->jr, "an event at %.17g, before the "
					    "one before it (%.17g)", pr->at.d, pr->last.d);
	if (pr->has_last && pr->nopen && pr->at.fixed > pr->last.fixed)
		rc = interval(r);
	if (rc)
		return rc;
	if (pr->event_type == 'O') {
		if (pr->nopen == MAX_FRAMES_PER_STACK)
			return pki_json_reader_fail(r->jr, "a stack of more than %u "
						    "frames", MAX_FRAMES_PER_STACK);
		if (pki_grow(&pr->open, &pr->open_cap, pr->nopen + 1, sizeof(*pr->open)) < 0)
			return oom(r);
		pr->open[pr->nopen++] = (uint32_t)pr->event_frame;
	} else if (!pr->nopen || pr->open[pr->nopen - 1] != (uint32_t)pr->event_frame) {
		return pki_json_reader_fail(r->jr, "frame %lld closed while %s",
					    (long long)pr->event_frame, pr->nopen ?
					    "another is the innermost open" : "none is open");
	} else {
		pr->nopen--;
	}
	pr->last = pr->at;
	pr->has_last = 1;
	return 0;
}

static int event_field(struct ss_reader *r, int id, const struct pki_json_value *v)
{
	struct profile *pr = &r->prof;

	switch (id) {
	case EVENT_TYPE:
		if (v->type != PKI_JSON_STRING || v->len != 1 ||
		    (v->text[0] != 'O' && v->text[0] != 'C'))
			return pki_json_reader_fail(r->jr, "expected \"O\" or \"C\"");
		pr->event_type = v->text[0];
		return 0;
	case EVENT_FRAME:
		return pki_json_expect_int(r->jr, v, 0, UINT32_MAX, &pr->event_frame) ||
		       note_frame(r, pr->event_frame) ? pki_json_reader_code(r->jr) : 0;
	default:
		pr->has_at = 1;
		pr->at.d = v->d;
		return fixed_point(r, v, INT64_MIN, &pr->at.fixed);
	}
}

/* ---- profiles ---- */

static int begin_profile(struct ss_reader *r)
{
	struct profile *pr = &r->prof;
	struct profile keep = *pr;

	/* the frames are known now or after the profiles: direct or scratch */
	if (!r->nprofiles++ && !r->frames_done) {
		r->scratch = pk_profile_new(pk_profile_flags(r->p));
		if (!r->scratch)
			return oom(r);
		pk_profile_set_memory_limit(r->scratch, pk_context_max_memory(r->ctx));
	}
	if (!(r->comm = pk_profile_intern_cstr(target(r), "comm")))
		return oom(r);
	memset(pr, 0, sizeof(*pr));
	pr->stacks = keep.stacks, pr->stacks_cap = keep.stacks_cap;
	pr->weights = keep.weights, pr->weights_cap = keep.weights_cap;
	pr->times = keep.times, pr->times_cap = keep.times_cap;
	pr->open = keep.open, pr->open_cap = keep.open_cap;
	pr->column = -1;
	pr->event_frame = -1;
	return 0;
}

static int end_profile(struct ss_reader *r)
{
	struct profile *pr = &r->prof;

	if (!pr->type)
		return pki_json_reader_fail(r->jr, "expected the profile's \"type\": "
					    "\"sampled\" or \"evented\"");
	if ((pr->type == KIND_SAMPLED && pr->has_events) ||
	    (pr->type == KIND_EVENTED && pr->has_samples))
		return pki_json_reader_fail(r->jr, "%s profile with %s",
					    pr->type == KIND_SAMPLED ? "a sampled" : "an evented",
					    pr->has_events ? "events" : "samples");
	if (!pr->unit)
		return pki_json_reader_fail(r->jr, "expected the profile's \"unit\"");
	if (pr->nsamples != pr->nweights)
		return pki_json_reader_fail(r->jr, "samples and weights differ in "
					    "number (%llu and %llu)",
					    (unsigned long long)pr->nsamples,
					    (unsigned long long)pr->nweights);
	pr->has_name = pr->has_start = 1;	/* the file says no more */
	if (pr->type == KIND_SAMPLED)
		r->nsampled++;
	else
		r->nevented++;
	return pump(r);
}

static int profile_field(struct ss_reader *r, int id, const struct pki_json_value *v)
{
	struct profile *pr = &r->prof;
	size_t i;

	if (id == START_VALUE) {
		if (pki_json_expect_number(r->jr, v, &pr->start))
			return pki_json_reader_code(r->jr);
		pr->has_start = 1;
		return pump(r);
	}
	if (pki_json_expect_string(r->jr, v))
		return pki_json_reader_code(r->jr);
	if (id == TYPE) {
		pr->type = v->len == 7 && !memcmp(v->text, "sampled", 7) ? KIND_SAMPLED :
			   v->len == 7 && !memcmp(v->text, "evented", 7) ? KIND_EVENTED :
			   KIND_NONE;
		return pr->type ? 0 : pki_json_reader_fail(r->jr, "expected \"sampled\" "
							   "or \"evented\"");
	}
	if (id == NAME) {
		pr->has_name = 1;
		pr->has_labels = 0;
		pr->name = pk_profile_intern(target(r), v->text, v->len);
		return pr->name || !v->len ? pump(r) : oom(r);
	}
	for (i = 0; i < PK_ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == v->len && !memcmp(units[i].name, v->text, v->len))
			pr->unit = &units[i];
	if (!pr->unit)
		return pki_json_reader_fail(r->jr, "expected a unit: none, nanoseconds, "
					    "microseconds, milliseconds, seconds or bytes");
	if ((pr->column = unit_column(r, pr->unit)) < 0)
		return oom(r);
	return pump(r);
}

/* ---- the document ---- */

static int frame_field(struct ss_reader *r, int id, const struct pki_json_value *v)
{
	pk_str *s = id == FRAME_NAME ? &r->frame_fn.name : &r->frame_fn.filename;

	if (id == FRAME_LINE) {
		double line;

		/* speedscope takes any number; a line is a whole one */
		if (pki_json_expect_number(r->jr, v, &line))
			return pki_json_reader_code(r->jr);
		r->frame_line = v->is_int && v->i > 0 ? v->i : 0;
		return 0;
	}
	if (pki_json_expect_string(r->jr, v))
		return pki_json_reader_code(r->jr);
	r->frame_named |= id == FRAME_NAME;
	*s = pk_profile_intern(r->p, v->text, v->len);
	return *s || !v->len ? 0 : oom(r);
}

static int fact(struct ss_reader *r, const char *key, const struct pki_json_value *v)
{
	pk_str s;

	if (pki_json_expect_string(r->jr, v))
		return pki_json_reader_code(r->jr);
	s = pk_profile_intern(r->p, v->text, v->len);
	if (!s && v->len)
		return oom(r);
	pk_profile_set_meta(r->p, key, pk_profile_string(r->p, s));
	return 0;
}

/* A container's kind, and its beginning: 1 when v begins it. */
static int begins(struct ss_reader *r, const struct pki_json_value *v, int array,
		  int *rc)
{
	*rc = array ? pki_json_expect_array(r->jr, v) : pki_json_expect_object(r->jr, v);
	return !*rc && (v->type == PKI_JSON_BEGIN_ARRAY || v->type == PKI_JSON_BEGIN_OBJECT);
}

static int on_value(void *arg, struct pki_json_reader *jr, int id,
		    const struct pki_json_value *v)
{
	struct ss_reader *r = arg;
	int rc = 0;

	r->jr = jr;
	switch (id) {
	case FILE_NAME:
		return fact(r, "name", v);
	case EXPORTER:
		return fact(r, "exporter", v);
	case FRAMES:
		if (!begins(r, v, 1, &rc) && !rc)
			r->frames_done = 1;
		return rc;
	case FRAME:
		if (begins(r, v, 0, &rc)) {
			memset(&r->frame_fn, 0, sizeof(r->frame_fn));
			r->frame_named = 0;
			r->frame_line = 0;
		}
		return rc || v->type == PKI_JSON_BEGIN_OBJECT ? rc : end_frame(r);
	case FRAME_NAME: case FRAME_FILE: case FRAME_LINE:
		return frame_field(r, id, v);
	case PROFILES:
		return pki_json_expect_array(r->jr, v);
	case PROFILE:
		if (begins(r, v, 0, &rc))
			rc = begin_profile(r);
		return rc || v->type == PKI_JSON_BEGIN_OBJECT ? rc : end_profile(r);
	case TYPE: case NAME: case UNIT: case START_VALUE:
		return profile_field(r, id, v);
	case SAMPLES: case WEIGHTS:
		r->prof.has_samples = 1;
		return r->prof.has_events ? pki_json_reader_fail(r->jr, "samples in a "
								 "profile with events") :
		       pki_json_expect_array(r->jr, v);
	case SAMPLE:
		if (begins(r, v, 1, &rc))
			r->nframes_in_sample = 0;
		return rc || v->type == PKI_JSON_BEGIN_ARRAY ? rc : end_sample(r);
	case SAMPLE_FRAME:
		return sample_frame(r, v);
	case WEIGHT:
		return weight(r, v);
	case EVENTS:
		r->prof.has_events = 1;
		return r->prof.has_samples ? pki_json_reader_fail(r->jr, "events in a "
								  "profile with samples") :
		       pki_json_expect_array(r->jr, v);
	case EVENT:
		if (begins(r, v, 0, &rc)) {
			r->prof.event_type = 0;
			r->prof.event_frame = -1;
			r->prof.has_at = 0;
		}
		return rc || v->type == PKI_JSON_BEGIN_OBJECT ? rc : end_event(r);
	default:
		return event_field(r, id, v);
	}
}

/* ---- the end ---- */

/* The samples of scratch into the profile, stand-ins become frames. */
static int resolve(struct ss_reader *r)
{
	struct pk_copy c;
	size_t i, n = pk_profile_sample_count(r->scratch);
	int rc;

	if (r->max_index_where[0] && r->max_index >= r->nframes)
		return pk_error_set(r->ctx, PK_EINPUT, "%s: %s: frame %u is out of "
				    "range: shared.frames has %zu", pk_input_name(r->in),
				    r->max_index_where, r->max_index, r->nframes);
	if ((rc = pki_copy_init(&c, r->p, r->scratch, 1)))
		return rc == PK_ENOMEM ? oom(r) : rc;
	for (i = 0; i < r->stand_ins_cap && i < r->nframes; i++)
		if (r->stand_ins[i])
			c.locations[r->stand_ins[i]] = r->frame_locs[i];
	for (i = 0; i < n && !rc; i++)
		rc = pki_copy_sample(&c, i, NULL, 0);
	pki_copy_release(&c);
	if (rc == PK_EINPUT)
		return pk_error_set(r->ctx, rc, "%s: a weight too large for 64 bits",
				    pk_input_name(r->in));
	return rc ? oom(r) : 0;
}

static void describe(struct ss_reader *r)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "%lu (%lu sampled, %lu evented)", r->nprofiles,
		 r->nsampled, r->nevented);
	pk_profile_set_meta(r->p, "profiles", buf);
}

static void release(struct ss_reader *r)
{
	pk_profile_free(r->scratch);
	free(r->frame_locs);
	free(r->stand_ins);
	free(r->prof.stacks);
	free(r->prof.weights);
	free(r->prof.times);
	free(r->prof.open);
	free(r->frames);
	free(r->last_frames);
	free(r->locs);
	free(r->values);
	free(r->totals);
}

static int speedscope_read(struct pk_context *ctx, struct pk_input *in,
			   struct pk_profile *p, const struct pk_options *opts)
{
	struct ss_reader r = { .ctx = ctx, .in = in, .p = p };
	int rc;

	(void)opts;
	r.prof.column = -1;
	rc = pki_input_read_json(in, paths, on_value, &r);
	if (!rc && r.scratch)
		rc = resolve(&r);
	if (!rc)
		describe(&r);
	release(&r);
	return rc;
}

/* Its "$schema" near the start: a speedscope file. */
static int speedscope_probe(const unsigned char *buf, size_t len)
{
	return memmem(buf, len, PKI_SPEEDSCOPE_SCHEMA, strlen(PKI_SPEEDSCOPE_SCHEMA)) &&
	       memmem(buf, len, "\"$schema\"", 9) ? 100 : 0;
}

const struct pki_format pki_format_speedscope = {
	.name = "speedscope",
	.read_description = "speedscope JSON, sampled and evented profiles "
			    "(py-spy, rbspy, austin, speedscope)",
	.probe = speedscope_probe,
	.read = speedscope_read,
	.write_description = "speedscope JSON, one timeline per thread "
			     "(https://www.speedscope.app)",
	.extension = ".speedscope.json",
	.profile_flags = PK_PROFILE_KEEP_ORDER,
	.write = pki_speedscope_write,
	.options = pki_speedscope_options,
};
