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
 * Millions of samples would make a jansson tree many times the size of
 * the model, so the sample arrays are written as they are walked; only
 * strings go through jansson, which escapes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "formats/registry.h"
#include "core/internal.h"

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"

/* ---- a buffered JSON writer that keeps the first error ---- */

struct jw {
	struct pk_output *out;
	int rc;
	size_t len;
	char buf[8192];
};

static void jw_flush(struct jw *j)
{
	if (!j->rc && j->len)
		j->rc = pk_output_write(j->out, j->buf, j->len);
	j->len = 0;
}

static void jw_write(struct jw *j, const char *s, size_t n)
{
	if (j->len + n > sizeof(j->buf)) {
		jw_flush(j);
		if (n > sizeof(j->buf)) {
			if (!j->rc)
				j->rc = pk_output_write(j->out, s, n);
			return;
		}
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static void jw_puts(struct jw *j, const char *s)
{
	jw_write(j, s, strlen(s));
}

static void jw_int(struct jw *j, int64_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *s = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--s = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--s = '-';
	jw_write(j, s, (size_t)(e - s));
}

/* A fixed-point value (value / scale, the column's scale) as a JSON number. */
static void jw_fixed(struct jw *j, int64_t v, int64_t scale)
{
	char buf[PK_VALUE_FORMAT_SIZE];
	int n = pk_value_format(buf, sizeof(buf), v, scale);

	if (n > 0)
		jw_write(j, buf, (size_t)n);
}

static int jw_callback(const char *buf, size_t size, void *data)
{
	struct jw *j = data;

	jw_write(j, buf, size);
	return j->rc ? -1 : 0;
}

/* Dump a jansson value and drop the reference. */
static void jw_json(struct jw *j, json_t *v)
{
	if (!v) {
		if (!j->rc)
			j->rc = PK_ENOMEM;
		return;
	}
	if (json_dump_callback(v, jw_callback, j,
			       JSON_COMPACT | JSON_ENCODE_ANY) && !j->rc)
		j->rc = PK_ENOMEM;
	json_decref(v);
}

/*
 * A JSON string of bytes that may not be UTF-8 (a comm, a symbol from a
 * damaged binary): jansson refuses those, so bad bytes become U+FFFD.
 */
static json_t *json_text(const char *s, size_t len)
{
	json_t *v = json_stringn(s, len);
	unsigned char *fixed, *o;
	size_t i = 0;

	if (v)
		return v;
	fixed = malloc(len * 3 + 1);
	if (!fixed)
		return NULL;
	for (o = fixed; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 :
			   (c >> 3) == 30 ? 4 : 0;
		json_t *one = n && i + n <= len ? json_stringn(s + i, n) : NULL;

		if (one) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
			json_decref(one);
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	v = json_stringn((const char *)fixed, (size_t)(o - fixed));
	free(fixed);
	return v;
}

static void jw_string(struct jw *j, const char *s, size_t len)
{
	jw_json(j, json_text(s, len));
}

/* ---- the writer's state ---- */

/* What one event contributes: its value column and what marks its samples. */
struct series {
	pk_str event;		/* 0 for inputs without events */
	int column;		/* the weights */
	int member;		/* non-zero here: the sample is this event's */
	const char *unit;	/* speedscope's name for the column's unit */
	int64_t scale;		/* the column's: values are value / scale */
};

/* One output profile: a thread of one series. */
struct group {
	size_t series;
	size_t first, count;	/* slice of order[] */
	int64_t total;
};

struct speedscope {
	struct pk_context *ctx;
	const struct pk_profile *p;
	const struct pk_options *opts;
	pk_str key_comm, key_pid, key_tid;
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

	uint32_t *order;	/* sample indexes, by group, in time order */
	size_t norder;

	/* frames: an interner whose functions are our frames */
	struct pk_profile *frames;
	uint32_t *loc_frames;	/* location id -> offset+1 in frame_lists */
	uint32_t *frame_lists;	/* [n, frame ids outermost first...] */
	size_t nframe_lists, frame_lists_cap;
	unsigned char *stack_done;	/* bitmap over stack ids */

	uint32_t *stack_buf;	/* a sample's frame ids, root first */
	size_t stack_len, stack_cap;
	uint32_t *open;		/* evented: the frames open now */
	size_t nopen, open_cap, events_out;
	char *name_buf;
	size_t name_cap;
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
		pk_error_set(w->ctx, PK_EINPUT, "event '%s' has no values", o.event);
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

static int name_add(struct speedscope *w, size_t *len, const char *s, size_t n)
{
	if (pki_grow(&w->name_buf, &w->name_cap, *len + n + 1, 1) < 0)
		return -1;
	memcpy(w->name_buf + *len, s, n);
	*len += n;
	return 0;
}

/*
 * "comm tid" (the pid without a tid), plus " (event)" if several: the
 * same from perf.data as from perf script's default fields, which have
 * no pid and lose the spaces around a comm.
 */
static uint32_t group_of(struct speedscope *w, uint32_t labels, size_t series)
{
	const struct pk_profile *p = w->p;
	const struct pk_label *comm = pk_profile_label_find(p, labels, w->key_comm);
	const struct pk_label *pid = pk_profile_label_find(p, labels, w->key_pid);
	const struct pk_label *tid = pk_profile_label_find(p, labels, w->key_tid);
	size_t len = 0;
	char num[64];
	int n = 0;

	if (comm && comm->str) {
		const char *s = pk_profile_string(p, comm->str);
		size_t slen = pk_profile_string_len(p, comm->str);

		while (slen && *s == ' ')
			s++, slen--;
		while (slen && s[slen - 1] == ' ')
			slen--;
		if (name_add(w, &len, s, slen))
			return 0;
	}
	if (tid || pid)
		n = snprintf(num, sizeof(num), "%s%lld", len ? " " : "",
			     (long long)(tid ? tid : pid)->num);
	if (n > 0 && name_add(w, &len, num, (size_t)n))
		return 0;
	if (!len && name_add(w, &len, w->title, strlen(w->title)))
		return 0;
	if (w->nseries > 1) {
		const char *ev = pk_profile_string(p, w->series[series].event);

		if (name_add(w, &len, " (", 2) ||
		    name_add(w, &len, ev, strlen(ev)) || name_add(w, &len, ")", 1))
			return 0;
	}
	return pk_profile_intern(w->names, w->name_buf, len);
}

static int note_group(struct speedscope *w, uint32_t g, size_t series,
		      int64_t weight)
{
	size_t old = w->groups_cap;

	if (pki_grow(&w->groups, &w->groups_cap, (size_t)g + 1,
		    sizeof(*w->groups)) < 0)
		return -1;
	if (w->groups_cap > old)
		memset(w->groups + old, 0, (w->groups_cap - old) * sizeof(*w->groups));
	if (g >= w->ngroups) {
		w->ngroups = (size_t)g + 1;
		w->groups[g].series = series;
	}
	w->groups[g].count++;
	w->groups[g].total = (int64_t)((uint64_t)w->groups[g].total +
				       (uint64_t)(weight > 0 ? weight : 0));
	return 0;
}

static uint32_t cached_group(struct speedscope *w, uint32_t labels,
			     size_t series)
{
	size_t old = w->label_group_cap;
	uint32_t g;

	if (pki_grow(&w->label_group, &w->label_group_cap, (size_t)labels + 1,
		    sizeof(*w->label_group)) < 0)
		return 0;
	if (w->label_group_cap > old)
		memset(w->label_group + old, 0,
		       (w->label_group_cap - old) * sizeof(*w->label_group));
	g = w->label_group[labels];
	if (!g) {
		g = group_of(w, labels, series);
		w->label_group[labels] = g;
	}
	return g;
}

/*
 * Give each sample the group of the first series it belongs to; group
 * ids follow first appearance, so profiles come out in input order.
 */
static int assign_groups(struct speedscope *w, uint32_t *sample_group)
{
	size_t n = pk_profile_sample_count(w->p), s, i;

	for (s = 0; s < w->nseries; s++) {
		const struct series *se = &w->series[s];

		if (w->label_group)
			memset(w->label_group, 0,
			       w->label_group_cap * sizeof(*w->label_group));
		for (i = 0; i < n; i++) {
			const int64_t *v = pk_profile_sample_values(w->p, i);
			uint32_t g;

			if (sample_group[i] || !v[se->member])
				continue;
			g = cached_group(w, pk_profile_sample(w->p, i)->labels, s);
			if (!g || note_group(w, g, s, v[se->column]))
				return oom(w);
			sample_group[i] = g;
			w->norder++;
		}
	}
	return 0;
}

static uint64_t time_of(const struct speedscope *w, uint32_t index)
{
	return pk_profile_sample(w->p, index)->time;
}

/* Lay the samples out group by group (a counting sort), each in time order. */
static int build_order(struct speedscope *w)
{
	size_t n = pk_profile_sample_count(w->p), g, i, at = 0;
	uint32_t *sample_group = calloc(n ? n : 1, sizeof(*sample_group));
	int rc;

	if (!sample_group)
		return oom(w);
	rc = assign_groups(w, sample_group);
	if (!rc && !(w->order = malloc((w->norder ? w->norder : 1) *
				       sizeof(*w->order))))
		rc = oom(w);
	for (g = 1; !rc && g < w->ngroups; g++) {
		w->groups[g].first = at;
		at += w->groups[g].count;
		w->groups[g].count = 0;
	}
	for (i = 0; !rc && i < n; i++) {
		struct group *gr;

		if (!sample_group[i])
			continue;	/* in no group: nothing to index */
		gr = &w->groups[sample_group[i]];
		w->order[gr->first + gr->count++] = (uint32_t)i;
	}
	free(sample_group);
	/* each group's indexes are ascending here, so pki_sort_by_time's
	 * equal times in index order are equal times in input order */
	for (g = 1; !rc && g < w->ngroups; g++)
		if (pki_sort_by_time(w->p, w->order + w->groups[g].first,
				     w->groups[g].count))
			rc = oom(w);
	return rc;
}

/* ---- frames ---- */

static int mod_basename(const char *mod, const char **base, size_t *len)
{
	const char *slash = strrchr(mod, '/');
	size_t n;

	if (!*mod || strcmp(mod, "[unknown]") == 0)
		return 0;
	*base = slash ? slash + 1 : mod;
	n = strlen(*base);
	if (n > 10 && strcmp(*base + n - 10, " (deleted)") == 0)
		n -= 10;
	*len = n;
	return n != 0;
}

/* A frame's id in the interner (its index in "frames" plus one), or 0. */
static uint32_t intern_frame(struct speedscope *w, const struct pk_function *fn,
			     int64_t line, const char *mod)
{
	const char *name = fn ? pk_profile_string(w->p, fn->name) : "";
	struct pk_function f = { 0 };
	const char *base;
	size_t blen, len = 0;

	if (*name && strcmp(name, "[unknown]") != 0) {
		f.name = pk_profile_intern_cstr(w->frames, name);
	} else if (mod_basename(mod, &base, &blen)) {
		/* as folded: "[libc.so.6]", but "[kernel.kallsyms]" stays */
		int bracketed = base[0] == '[' && base[blen - 1] == ']';

		if ((!bracketed && name_add(w, &len, "[", 1)) ||
		    name_add(w, &len, base, blen) ||
		    (!bracketed && name_add(w, &len, "]", 1)))
			return 0;
		f.name = pk_profile_intern(w->frames, w->name_buf, len);
	} else {
		f.name = pk_profile_intern_cstr(w->frames, "[unknown]");
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
	if (!w->loc_frames || !w->stack_done)
		return oom(w);
	for (i = 0; i < w->norder; i++) {
		uint32_t stack = pk_profile_sample(w->p, w->order[i])->stack;
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

static json_t *frame_json(const struct pk_profile *fr, const struct pk_function *f)
{
	json_t *o = json_object();

	if (!o || json_object_set_new(o, "name", json_text(
			pk_profile_string(fr, f->name),
			pk_profile_string_len(fr, f->name))) ||
	    (f->filename && json_object_set_new(o, "file", json_text(
			pk_profile_string(fr, f->filename),
			pk_profile_string_len(fr, f->filename)))) ||
	    (f->start_line > 0 &&
	     json_object_set_new(o, "line", json_integer(f->start_line)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void write_frames(struct speedscope *w, struct jw *j)
{
	size_t n = pk_profile_function_count(w->frames), i;

	jw_puts(j, "\"shared\":{\"frames\":[");
	for (i = 1; i <= n && !j->rc; i++) {
		jw_puts(j, i > 1 ? ",\n" : "\n");
		jw_json(j, frame_json(w->frames,
				      pk_profile_function(w->frames, (uint32_t)i)));
	}
	jw_puts(j, "]}");
}

static int64_t sample_weight(struct speedscope *w, size_t index, int column)
{
	int64_t v = pk_profile_sample_values(w->p, index)[column];

	/* speedscope refuses negative weights (a pprof diff has them) */
	if (v < 0) {
		w->negative++;
		return 0;
	}
	return v;
}

static void write_profile_head(struct speedscope *w, struct jw *j, size_t g,
			       const char *type, const char *unit)
{
	jw_puts(j, "{\"type\":\"");
	jw_puts(j, type);
	jw_puts(j, "\",\"name\":");
	jw_string(j, pk_profile_string(w->names, (pk_str)g),
		  pk_profile_string_len(w->names, (pk_str)g));
	jw_puts(j, ",\"unit\":\"");
	jw_puts(j, unit);
	jw_puts(j, "\"");
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

	if (!timeline_start(w) ||
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

static void write_stack(struct speedscope *w, struct jw *j)
{
	size_t k;

	for (k = 0; k < w->stack_len; k++) {
		if (k)
			jw_write(j, ",", 1);
		jw_int(j, (int64_t)w->stack_buf[k] - 1);
	}
}

static int write_sampled(struct speedscope *w, struct jw *j, size_t g)
{
	const struct group *gr = &w->groups[g];
	const struct series *se = &w->series[gr->series];
	int gaps = has_gaps(w, gr);
	uint64_t at = timeline_start(w), gap_sum = 0, gap;
	size_t i, out = 0;

	for (i = 0; gaps && i < gr->count; i++)
		gap_sum += gap_before(w, gr, w->order[gr->first + i], &at);
	write_profile_head(w, j, g, "sampled", se->unit);
	jw_puts(j, ",\"startValue\":0,\"endValue\":");
	jw_fixed(j, gr->total + (int64_t)gap_sum * se->scale, se->scale);
	jw_puts(j, ",\"samples\":[");
	at = timeline_start(w);
	for (i = 0; i < gr->count && !j->rc; i++) {
		uint32_t index = w->order[gr->first + i];

		if (gaps && gap_before(w, gr, index, &at))
			jw_puts(j, out++ ? ",\n[]" : "\n[]");
		if (sample_frames(w, pk_profile_sample(w->p, index)->stack))
			return oom(w);
		jw_puts(j, out++ ? ",\n[" : "\n[");
		write_stack(w, j);
		jw_write(j, "]", 1);
	}
	jw_puts(j, "],\n\"weights\":[");
	at = timeline_start(w);
	for (i = out = 0; i < gr->count && !j->rc; i++) {
		uint32_t index = w->order[gr->first + i];

		gap = gaps ? gap_before(w, gr, index, &at) : 0;
		if (gap) {
			jw_write(j, ",", out++ ? 1 : 0);
			jw_fixed(j, (int64_t)gap * se->scale, se->scale);
		}
		jw_write(j, ",", out++ ? 1 : 0);
		jw_fixed(j, sample_weight(w, index, se->column), se->scale);
	}
	jw_puts(j, "]}");
	return 0;
}

static void write_event(struct speedscope *w, struct jw *j, char type,
			uint32_t frame, uint64_t at)
{
	char head[] = ",\n{\"type\":\"O\",\"frame\":";

	head[11] = type;
	if (w->events_out++)
		jw_puts(j, head);
	else
		jw_puts(j, head + 1);
	jw_int(j, (int64_t)frame - 1);
	jw_puts(j, ",\"at\":");
	jw_int(j, (int64_t)at);
	jw_write(j, "}", 1);
}

/* Close the open frames down to depth keep, innermost first. */
static void close_frames(struct speedscope *w, struct jw *j, size_t keep,
			 uint64_t at)
{
	while (w->nopen > keep)
		write_event(w, j, 'C', w->open[--w->nopen], at);
}

/* Move from the open frames to stack_buf's at time at. */
static int change_stack(struct speedscope *w, struct jw *j, uint64_t at)
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
		write_event(w, j, 'O', w->open[w->nopen], at);
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
static int write_evented(struct speedscope *w, struct jw *j, size_t g)
{
	const struct group *gr = &w->groups[g];
	int column = w->series[gr->series].column;
	int timed = strcmp(w->series[gr->series].unit, "nanoseconds") == 0;
	uint64_t first, last, end = 0, mean = mean_interval(w, gr);
	size_t i;

	pk_profile_time_span(w->p, &first, &last);
	write_profile_head(w, j, g, "evented", "nanoseconds");
	jw_puts(j, ",\"startValue\":");
	jw_int(j, (int64_t)first);
	jw_puts(j, ",\"events\":[");
	w->nopen = 0;
	w->events_out = 0;
	for (i = 0; i < gr->count && !j->rc; i++) {
		uint32_t index = w->order[gr->first + i];
		uint64_t t = time_of(w, index), next = 0;
		uint64_t length = pki_interval_length(w->p, w->interval_column, index);
		uint64_t span = length ? length : timed ?
				(uint64_t)sample_weight(w, index, column) /
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
	jw_puts(j, "],\n\"endValue\":");
	jw_int(j, (int64_t)(end > first ? end : first));
	jw_write(j, "}", 1);
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
	struct jw j = { .out = out };
	uint64_t first, last;
	int evented = 0, rc = 0;
	size_t g;

	pk_profile_time_span(w->p, &first, &last);
	if (w->evented && !first)
		pk_warn(w->ctx, "speedscope: the input has no timestamps: "
			"writing sampled profiles, not evented ones");
	else
		evented = w->evented;

	jw_puts(&j, "{\"$schema\":\"" SCHEMA_URL "\",\n\"exporter\":");
	jw_string(&j, "profkit " PACKAGE_VERSION, strlen("profkit " PACKAGE_VERSION));
	jw_puts(&j, ",\n\"name\":");
	jw_string(&j, w->title, strlen(w->title));
	jw_puts(&j, ",\n\"activeProfileIndex\":");
	jw_int(&j, (int64_t)(w->ngroups > 1 ? heaviest_profile(w) : 0));
	jw_puts(&j, ",\n");
	write_frames(w, &j);
	jw_puts(&j, ",\n\"profiles\":[");
	for (g = 1; g < w->ngroups && !rc && !j.rc; g++) {
		jw_puts(&j, g > 1 ? ",\n" : "\n");
		rc = evented ? write_evented(w, &j, g) : write_sampled(w, &j, g);
	}
	if (w->ngroups < 2) {
		/* speedscope wants a profile to show, even an empty one */
		jw_puts(&j, "\n{\"type\":\"sampled\",\"name\":");
		jw_string(&j, w->title, strlen(w->title));
		jw_puts(&j, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":0,"
			"\"samples\":[],\"weights\":[]}");
	}
	jw_puts(&j, "]}\n");
	jw_flush(&j);
	if (!rc && j.rc)
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
	free(w->loc_frames);
	free(w->frame_lists);
	free(w->stack_done);
	free(w->stack_buf);
	free(w->open);
	free(w->name_buf);
}

static const struct pki_option speedscope_options[] = {
	{ .key = "speedscope:evented", .type = PK_OPTION_FLAG,
	  .flag = "speedscope-evented",
	  .help = "one evented timeline per thread, from the times" },
	{ .key = NULL },
};

static int speedscope_write(struct pk_context *ctx, const struct pk_profile *p,
			    const struct pk_options *opts,
			    struct pk_output *out)
{
	struct speedscope w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.p = p;
	w.opts = opts;
	w.evented = pki_option_flag(opts, &speedscope_options[0]);
	w.title = pki_profile_title(p);
	w.key_comm = pk_profile_lookup(p, "comm");
	w.key_pid = pk_profile_lookup(p, "pid");
	w.key_tid = pk_profile_lookup(p, "tid");
	w.interval_column = pki_interval_column(p);
	w.names = pk_profile_new(0);
	w.frames = pk_profile_new(0);
	w.ngroups = 1;		/* group ids start at 1 */
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

const struct pki_format pki_format_speedscope = {
	.name = "speedscope",
	.write_description = "speedscope JSON, one timeline per thread "
			     "(https://www.speedscope.app)",
	.extension = ".speedscope.json",
	.profile_flags = PK_PROFILE_KEEP_ORDER,
	.write = speedscope_write,
	.options = speedscope_options,
};
