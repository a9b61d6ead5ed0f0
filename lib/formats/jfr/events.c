/* SPDX-License-Identifier: MIT */
/*
 * The events read, and what each sample weighs:
 *
 *   jdk.ExecutionSample              cpu: the sampling period, ns
 *   jdk.NativeMethodSample           native: the sampling period, ns
 *   jdk.ObjectAllocationSample       weight: bytes
 *   jdk.ObjectAllocationInNewTLAB    allocationSize, tlabSize: bytes
 *   jdk.ObjectAllocationOutsideTLAB  allocationSize: bytes
 *   jdk.JavaMonitorEnter             duration: ns
 *   jdk.ThreadPark                   duration: ns
 *
 * each also counted (samples). --event=NAME reads that event alone: one
 * of these, or any other with stack traces (counted, and its duration
 * if it has one).
 *
 * A sampled event's period is the recording's own setting of it
 * (jdk.ActiveSetting "period", "10 ms"; async-profiler's "interval", in
 * ns); a chunk without one keeps the period of the chunk before, and the
 * first chunk without any takes the median time between two samples of
 * one thread (doc/formats.md says why).
 */
#include <stdlib.h>
#include <string.h>

#include "jfr.h"

static const struct jfr_event_spec known_events[] = {
	{ "jdk.ExecutionSample", "cpu", { NULL, NULL } },
	{ "jdk.NativeMethodSample", "native", { NULL, NULL } },
	{ "jdk.ObjectAllocationSample", NULL, { "weight", NULL } },
	{ "jdk.ObjectAllocationInNewTLAB", NULL, { "allocationSize", "tlabSize" } },
	{ "jdk.ObjectAllocationOutsideTLAB", NULL, { "allocationSize", NULL } },
	{ "jdk.JavaMonitorEnter", NULL, { "duration", NULL } },
	{ "jdk.ThreadPark", NULL, { "duration", NULL } },
};

/* At most this many gaps between samples make an observed period. */
#define MAX_GAPS 65536

int jfr_events_init(struct jfr_reader *r)
{
	size_t n = r->opts.event ? 1 : PK_ARRAY_SIZE(known_events), i, k;

	r->events = calloc(n, sizeof(*r->events));
	if (!r->events)
		return jfr_nomem(r);
	r->nevents = n;
	for (i = 0; i < n; i++) {
		struct jfr_event *ev = &r->events[i];

		ev->spec = &known_events[i];
		ev->columns[0] = ev->columns[1] = ev->columns[2] = -1;
	}
	if (!r->opts.event)
		return 0;
	for (k = 0; k < PK_ARRAY_SIZE(known_events); k++)
		if (strcmp(known_events[k].name, r->opts.event) == 0)
			break;
	if (k < PK_ARRAY_SIZE(known_events)) {
		r->events[0].spec = &known_events[k];
	} else {
		/* another event: counted, and its duration if it has one */
		r->events[0].own.name = r->opts.event;
		r->events[0].own.fields[0] = "duration";
		r->events[0].spec = &r->events[0].own;
	}
	return 0;
}

void jfr_events_release(struct jfr_reader *r)
{
	free(r->events);
	free(r->type_counts);
}

/* Ticks in ns, exactly as far as a long double goes, at most +-2^63. */
static int64_t ticks_to_nanos(const struct jfr_chunk *ch, int64_t ticks)
{
	long double ns;

	if (ch->ticks_per_second == 1000000000)
		return ticks;
	ns = (long double)ticks * 1e9L / (long double)ch->ticks_per_second;
	if (ns >= 9.2e18L)
		return INT64_MAX;
	return ns <= -9.2e18L ? INT64_MIN : (int64_t)ns;
}

/* The time of an event at ticks, in ns since 1970 (0 before 1970). */
static uint64_t event_time(const struct jfr_chunk *ch, uint64_t ticks)
{
	int64_t since = ticks_to_nanos(ch, (int64_t)(ticks - (uint64_t)ch->start_ticks));

	if (since < -ch->start_nanos)
		return 0;
	/* the chunk's start is at least 0: no overflow past INT64_MAX */
	return since > INT64_MAX - ch->start_nanos ? INT64_MAX :
		(uint64_t)(ch->start_nanos + since);
}

/* ---- where each event's fields are, in this chunk ---- */

static int layout_event(struct jfr_reader *r, size_t index)
{
	struct jfr_event *ev = &r->events[index];
	struct jfr_metadata *md = &r->ch.md;
	int type = jfr_type_named(md, ev->spec->name), i, last;

	ev->type = type;
	ev->chunk_count = 0;
	ev->setting_period = ev->setting_interval = 0;
	ev->period = 0;
	if (type < 0)
		return 0;
	ev->f_time = jfr_number_field(md, type, "startTime");
	ev->f_thread = jfr_pooled_field(md, type, "sampledThread", JFR_POOL_THREAD);
	if (ev->f_thread == JFR_NO_FIELD)
		ev->f_thread = jfr_pooled_field(md, type, "eventThread", JFR_POOL_THREAD);
	ev->f_stack = jfr_pooled_field(md, type, "stackTrace", JFR_POOL_STACK);
	if (ev->f_stack == JFR_NO_FIELD) {
		ev->type = -1;
		if (!r->opts.event)
			return 0;
		return pk_error_set(r->ctx, PK_EINPUT, "%s: %s events have no "
				    "stack traces: there is no profile of them",
				    r->name, ev->spec->name);
	}
	/* another event without a duration is counted only */
	if (ev->spec == &ev->own && ev->columns[0] < 0 &&
	    jfr_number_field(md, type, "duration") == JFR_NO_FIELD)
		ev->own.fields[0] = NULL;
	last = ev->f_time > ev->f_thread ? ev->f_time : ev->f_thread;
	last = last > ev->f_stack ? last : ev->f_stack;
	for (i = 0; i < 2; i++) {
		ev->f_value[i] = ev->spec->fields[i] ?
			jfr_number_field(md, type, ev->spec->fields[i]) : JFR_NO_FIELD;
		ev->duration[i] = ev->spec->fields[i] &&
				  strcmp(ev->spec->fields[i], "duration") == 0;
		last = last > ev->f_value[i] ? last : ev->f_value[i];
	}
	ev->nfields = last + 1;
	md->types[type].event = (uint16_t)(index + 1);
	return 0;
}

/* The event types that say something of the recording, and their fields. */
static void layout_settings(struct jfr_reader *r)
{
	const struct jfr_metadata *md = &r->ch.md;

	r->active_setting = jfr_type_named(md, "jdk.ActiveSetting");
	r->setting_id = jfr_number_field(md, r->active_setting, "id");
	r->setting_name = jfr_string_field(md, r->active_setting, "name");
	r->setting_value = jfr_string_field(md, r->active_setting, "value");
	if (r->setting_id == JFR_NO_FIELD || r->setting_name == JFR_NO_FIELD ||
	    r->setting_value == JFR_NO_FIELD)
		r->active_setting = -1;
	r->active_recording = jfr_type_named(md, "jdk.ActiveRecording");
	r->jvm_information = jfr_type_named(md, "jdk.JVMInformation");
	r->time_engine = 0;
}

/* ---- the first pass: settings, the JVM, counts ---- */

/* A timespan setting ("10 ms", "1 s") in ns, or 0. */
static int64_t timespan(const char *s)
{
	static const struct { const char *unit; int64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "m", 60000000000LL },
		{ "h", 3600000000000LL }, { "d", 86400000000000LL },
	};
	char *end;
	long long n = strtoll(s, &end, 10);
	size_t i;

	if (end == s || n <= 0)
		return 0;
	while (*end == ' ')
		end++;
	for (i = 0; i < PK_ARRAY_SIZE(units); i++)
		if (strcmp(end, units[i].unit) == 0)
			return n <= INT64_MAX / units[i].ns ? n * units[i].ns : 0;
	return 0;
}

/* async-profiler's sampling engines whose interval is a time in ns */
static int is_time_engine(const char *engine)
{
	return !strcmp(engine, "cpu") || !strcmp(engine, "itimer") ||
	       !strcmp(engine, "ctimer") || !strcmp(engine, "wall");
}

static int read_setting(struct jfr_reader *r, const struct jfr_type *t,
			struct jfr_cursor *c)
{
	const struct jfr_metadata *md = &r->ch.md;
	const unsigned char *at[JFR_MAX_FIELDS];
	enum jfr_string_state state;
	uint64_t id;
	size_t name_len, i;
	int n = r->setting_id, rc;
	const char *name, *value;

	n = n > r->setting_name ? n : r->setting_name;
	n = n > r->setting_value ? n : r->setting_value;
	jfr_field_starts(md, t, c, at, n + 1);
	if (c->fault)
		return jfr_fault(&r->ch, c);
	id = jfr_number_at(md, jfr_field_at(md, t, r->setting_id), at[r->setting_id], c->end);
	r->text.len = 0;
	rc = jfr_field_text(r, t, r->setting_name, at, &r->text, 0, &state);
	name_len = r->text.len;
	if (!rc && (pki_strbuf_add(&r->text, "", 1)))
		rc = jfr_nomem(r);
	if (!rc)
		rc = jfr_field_text(r, t, r->setting_value, at, &r->text, 0, &state);
	if (!rc && pki_strbuf_add(&r->text, "", 1))
		rc = jfr_nomem(r);
	if (rc)
		return rc;
	name = r->text.s;
	value = r->text.s + name_len + 1;
	if (r->active_recording >= 0 && id == md->types[r->active_recording].id &&
	    strcmp(name, "event") == 0)
		r->time_engine = is_time_engine(value) ? 1 : -1;
	for (i = 0; i < r->nevents; i++) {
		struct jfr_event *ev = &r->events[i];
		int64_t ns;

		if (ev->type < 0 || !ev->spec->sampled || md->types[ev->type].id != id)
			continue;
		/* several recordings: the sampler runs at the shortest */
		if (strcmp(name, "period") == 0 && (ns = timespan(value)) &&
		    (!ev->setting_period || ns < ev->setting_period))
			ev->setting_period = ns;
		if (strcmp(name, "interval") == 0 && (ns = strtoll(value, NULL, 10)) > 0)
			ev->setting_interval = ns;
	}
	return 0;
}

/* jdk.JVMInformation: the pid, for the labels, and facts. */
static int read_jvm(struct jfr_reader *r, const struct jfr_type *t,
		    struct jfr_cursor *c)
{
	static const char *const facts[][2] = {
		{ "jvmVersion", "jvm-version" },
		{ "jvmArguments", "jvm-arguments" },
		{ "javaArguments", "java-arguments" },
	};
	const struct jfr_metadata *md = &r->ch.md;
	const unsigned char *at[JFR_MAX_FIELDS];
	int type = (int)(t - md->types), pid = jfr_number_field(md, type, "pid");
	int f[PK_ARRAY_SIZE(facts)], n = pid + 1, rc;
	enum jfr_string_state state;
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(facts); i++) {
		f[i] = jfr_string_field(md, type, facts[i][0]);
		n = n > f[i] + 1 ? n : f[i] + 1;
	}
	jfr_field_starts(md, t, c, at, n);
	if (c->fault)
		return jfr_fault(&r->ch, c);
	if (pid != JFR_NO_FIELD)
		r->pid = (int64_t)jfr_number_at(md, jfr_field_at(md, t, pid), at[pid], c->end);
	for (i = 0; i < PK_ARRAY_SIZE(facts); i++) {
		if (f[i] == JFR_NO_FIELD || pk_profile_meta(r->p, facts[i][1]))
			continue;
		r->text.len = 0;
		rc = jfr_field_text(r, t, f[i], at, &r->text, 0, &state);
		if (!rc && pki_strbuf_add(&r->text, "", 1))
			rc = jfr_nomem(r);
		if (rc)
			return rc;
		if (r->text.len > 1)
			pk_profile_set_meta(r->p, facts[i][1], r->text.s);
	}
	return 0;
}

static int scan_event(void *arg, uint64_t id, struct jfr_cursor *c,
		      const unsigned char *start)
{
	struct jfr_reader *r = arg;
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_type *t = jfr_type_of(md, id);
	int type;

	(void)start;
	if (!t) {
		r->unknown_types++;
		return 0;
	}
	type = (int)(t - md->types);
	r->type_counts[type]++;
	if (t->event)
		r->events[t->event - 1].chunk_count++;
	else if (type == r->active_setting)
		return read_setting(r, t, c);
	else if (type == r->jvm_information)
		return read_jvm(r, t, c);
	return 0;
}

/* ---- observed periods ---- */

struct gaps {
	struct jfr_reader *r;
	const struct jfr_event *ev;
	uint64_t threads[4096], last[4096];
	int64_t *gap;
	size_t n;
};

static int gap_event(void *arg, uint64_t id, struct jfr_cursor *c,
		     const unsigned char *start)
{
	struct gaps *g = arg;
	const struct jfr_metadata *md = &g->r->ch.md;
	const struct jfr_type *t = jfr_type_of(md, id);
	uint64_t n[JFR_MAX_FIELDS], thread, ticks;
	size_t i, probes;

	(void)start;
	if (!t || (int)(t - md->types) != g->ev->type || g->n == MAX_GAPS ||
	    g->ev->f_time == JFR_NO_FIELD || g->ev->f_thread == JFR_NO_FIELD)
		return 0;
	jfr_field_numbers(md, t, c, n, g->ev->nfields);
	if (c->fault)
		return 0;	/* the events pass says where */
	ticks = n[g->ev->f_time];
	thread = n[g->ev->f_thread];
	i = (size_t)pki_hash_u64(thread) % PK_ARRAY_SIZE(g->threads);
	for (probes = 0; probes < PK_ARRAY_SIZE(g->threads); probes++) {
		if (!g->threads[i] || g->threads[i] == thread)
			break;
		i = (i + 1) % PK_ARRAY_SIZE(g->threads);
	}
	if (!thread || probes == PK_ARRAY_SIZE(g->threads))
		return 0;
	if (g->threads[i] && ticks > g->last[i])
		g->gap[g->n++] = (int64_t)(ticks - g->last[i]);
	g->threads[i] = thread;
	g->last[i] = ticks;
	return 0;
}

static int compare_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The median time between two samples of one thread, in ns, or 0. */
static int observed_period(struct jfr_reader *r, const struct jfr_event *ev,
			   int64_t *period)
{
	struct gaps *g = calloc(1, sizeof(*g));
	int rc;

	*period = 0;
	if (!g || !(g->gap = malloc(MAX_GAPS * sizeof(*g->gap)))) {
		free(g);
		return jfr_nomem(r);
	}
	g->r = r;
	g->ev = ev;
	rc = jfr_chunk_walk(&r->ch, 0, gap_event, g);
	if (!rc && g->n) {
		qsort(g->gap, g->n, sizeof(*g->gap), compare_int64);
		*period = ticks_to_nanos(&r->ch, g->gap[g->n / 2]);
	}
	free(g->gap);
	free(g);
	return rc;
}

static int find_periods(struct jfr_reader *r)
{
	size_t i;
	int rc;

	for (i = 0; i < r->nevents; i++) {
		struct jfr_event *ev = &r->events[i];

		if (!ev->spec->sampled || !ev->chunk_count)
			continue;
		if (ev->setting_period)
			ev->period = ev->setting_period;
		else if (ev->setting_interval && r->time_engine >= 0)
			ev->period = ev->setting_interval;
		else
			ev->period = ev->last_period;
		if (ev->period) {
			ev->last_period = ev->period;
			continue;
		}
		if ((rc = observed_period(r, ev, &ev->period)))
			return rc;
		ev->last_period = ev->period;
		ev->period_observed = 1;
		if (!ev->period)
			pk_warn(r->ctx, "%s: chunk %u: no sampling period for %s "
				"(no setting says it, and no thread has two "
				"samples): its %s time is 0 (see --value=samples)",
				r->name, r->ch.index + 1, ev->spec->name,
				ev->spec->sampled);
	}
	return 0;
}

int jfr_events_scan(struct jfr_reader *r)
{
	size_t i;
	int rc = 0;

	/* keys are the chunk's own */
	r->last_stack = r->last_labels[0] = r->last_labels[1] = 0;
	free(r->type_counts);
	r->type_counts = calloc(r->ch.md.ntypes + 1, sizeof(*r->type_counts));
	if (!r->type_counts)
		return jfr_nomem(r);
	for (i = 0; i < r->nevents && !rc; i++)
		rc = layout_event(r, i);
	layout_settings(r);
	if (!rc)
		rc = jfr_chunk_walk(&r->ch, 1, scan_event, r);
	if (!rc)
		rc = find_periods(r);
	return rc;
}

/* ---- the second pass: samples ---- */

/* The number of field f of an event, 0 for a field it has not. */
static uint64_t field(const uint64_t *numbers, int f)
{
	return f == JFR_NO_FIELD ? 0 : numbers[f];
}

static int read_event(void *arg, uint64_t id, struct jfr_cursor *c,
		      const unsigned char *start)
{
	struct jfr_reader *r = arg;
	const struct jfr_chunk *ch = &r->ch;
	const struct jfr_metadata *md = &ch->md;
	const struct jfr_type *t = jfr_type_of(md, id);
	uint64_t n[JFR_MAX_FIELDS];
	struct jfr_event *ev;
	int64_t weights[2] = { 0, 0 };
	uint32_t stack, labels;
	int truncated, i, rc;

	(void)start;
	if (!t || !t->event)
		return 0;
	ev = &r->events[t->event - 1];
	jfr_field_numbers(md, t, c, n, ev->nfields);
	if (c->fault)
		return jfr_fault(ch, c);
	/* a sampled event weighs its period; the others, their fields */
	weights[0] = ev->period;
	for (i = 0; i < 2; i++) {
		if (ev->f_value[i] == JFR_NO_FIELD)
			continue;
		weights[i] = (int64_t)n[ev->f_value[i]];
		if (ev->duration[i])
			weights[i] = ticks_to_nanos(ch, weights[i]);
	}
	if ((rc = jfr_model_stack(r, n[ev->f_stack], &stack, &truncated)) ||
	    (rc = jfr_model_thread(r, field(n, ev->f_thread), truncated, &labels)))
		return rc;
	r->truncated += (unsigned)truncated;
	return jfr_model_add(r, ev, stack, labels,
			     event_time(ch, field(n, ev->f_time)), weights);
}

int jfr_events_read(struct jfr_reader *r)
{
	size_t i;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].chunk_count)
			break;
	return i < r->nevents ? jfr_chunk_walk(&r->ch, 0, read_event, r) : 0;
}
