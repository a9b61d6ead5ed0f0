/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU and wall-clock time from scheduler switches, as hotspot and
 * off-CPU flame graphs count them: a thread blocks from the sched_switch
 * sample taken as it is switched out (its stack says why) until it is
 * switched in again. The switch-in is the thread's next PERF_RECORD_SWITCH
 * IN (perf record --switch-events; SWITCH_CPU_WIDE in system-wide
 * recordings), or in a system-wide recording, where every switch is
 * sampled, the sched_switch whose next_pid is the thread, whichever
 * comes first. A recording of
 * some tasks without switch events sees them switch out but rarely in:
 * it has no off-CPU time. Each block is a sample
 * of the derived event "off-cpu", in nanoseconds, charged to the stack at
 * the switch-out at the time it began, with the thread's labels and the
 * state it blocked in (prev_state, as perf script prints it: S, D, R+).
 *
 * perf record --off-cpu (BPF) writes the blocked time itself, as the
 * period of its offcpu-time samples; those are "off-cpu" samples too.
 *
 * "wall" is the time on CPU (the period of cpu-clock or task-clock
 * samples, in nanoseconds) plus the time off it, per stack and thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"

/* perf's --off-cpu puts the samples it writes at the end at this time */
#define OFFCPU_END_TIME (~0ull << 32)
#define PD_SW_BPF_OUTPUT 10


static int nomem(struct pd_model *mo)
{
	return pk_error_set(mo->st->ctx, PK_ENOMEM, "%s: out of memory",
			    mo->st->name);
}

void pd_offcpu_init(struct pd_model *mo)
{
	struct pd_offcpu *o = &mo->off;
	struct pk_profile *p = mo->st->p;

	o->event = o->clock = -1;
	o->key_state = pk_profile_intern_cstr(p, "prev_state");
	o->key_trace = pk_profile_intern_cstr(p, "trace");
	o->key_prev_comm = pk_profile_intern_cstr(p, "prev_comm");
	o->key_next_pid = pk_profile_intern_cstr(p, "next_pid");
}

void pd_offcpu_release(struct pd_model *mo)
{
	free(mo->off.roles);
	free(mo->off.blocked);
	free(mo->off.block_set);
}

static enum pd_role find_role(const struct pd_attr *a)
{
	char name[256];

	pd_attr_event_name(a, name, sizeof(name));
	if (a->type == PD_TYPE_TRACEPOINT &&
	    strcmp(name, "sched:sched_switch") == 0)
		return PD_ROLE_SWITCH;
	if (strcmp(name, "offcpu-time") == 0 && a->type == PD_TYPE_SOFTWARE &&
	    a->config == PD_SW_BPF_OUTPUT)
		return PD_ROLE_OFFCPU;
	if (a->type == PD_TYPE_SOFTWARE && (a->sample_type & PD_SAMPLE_PERIOD) &&
	    (a->config == PD_SW_CPU_CLOCK || a->config == PD_SW_TASK_CLOCK))
		return PD_ROLE_CLOCK;
	return PD_ROLE_OTHER;
}

enum pd_role pd_offcpu_role(struct pd_model *mo, uint32_t attr)
{
	struct pd_offcpu *o = &mo->off;

	if (attr >= mo->st->ev.nattrs ||
	    pki_grow_zeroed(&o->roles, &o->roles_cap, (size_t)attr + 1,
			    sizeof(*o->roles)) < 0)
		return PD_ROLE_OTHER;
	if (o->roles[attr] == PD_ROLE_UNKNOWN)
		o->roles[attr] = find_role(&mo->st->ev.attrs[attr]);
	return o->roles[attr];
}

/*
 * Newer perfs embed {pid, tid}, period, callchain and cgroup, as u64s, in
 * the raw data of offcpu-time samples (tools/perf/util/bpf_off_cpu.c,
 * off_cpu_write; the u64 of the ids is tid << 32 | pid).
 */
void pd_offcpu_sample(const struct pd_model *mo, struct pd_sample *s)
{
	int big = mo->st->big;
	uint64_t ids, nr;

	if (s->time >= OFFCPU_END_TIME)
		s->time = 0;
	if (!s->raw || s->raw_size < 24)
		return;
	ids = pd_u64(s->raw, big);
	nr = pd_u64(s->raw + 16, big);
	if (nr > (s->raw_size - 24) / 8)
		return;
	s->pid = (int32_t)(uint32_t)ids;
	s->tid = (int32_t)(ids >> 32);
	s->period = pd_u64(s->raw + 8, big);
	s->callchain = s->raw + 24;
	s->nr_callchain = nr;
}

static struct pd_blocked *blocked_slot(struct pd_model *mo,
				       const struct pd_thread *t)
{
	struct pd_offcpu *o = &mo->off;
	size_t i = (size_t)(t - mo->st->m.threads);

	if (pki_grow_zeroed(&o->blocked, &o->blocked_cap, i + 1,
			    sizeof(*o->blocked)) < 0)
		return NULL;
	return &o->blocked[i];
}

/* Thread tid runs again at time: its block, if any, becomes a sample. */
static int switch_in(struct pd_model *mo, int32_t tid, uint64_t time)
{
	struct pd_thread *t = pd_machine_find_thread(&mo->st->m, tid);
	struct pd_offcpu *o = &mo->off;
	struct pd_event_columns *c;
	struct pd_blocked *b;
	size_t ncols;

	if (!t || (size_t)(t - mo->st->m.threads) >= o->blocked_cap)
		return 0;
	b = &o->blocked[t - mo->st->m.threads];
	if (!b->since || time < b->since)
		return 0;
	/* the columns are made at the first block, then found by index */
	if (o->event >= 0)
		c = &mo->events[o->event];
	else if (!(c = pd_model_columns(mo, PKI_EVENT_OFF_CPU, "nanoseconds")))
		goto nomem;
	o->event = (int)(c - mo->events);
	if (!pd_model_values(mo, c, &ncols))
		goto nomem;
	mo->values[c->weight] = (int64_t)(time - b->since);
	if (pk_profile_add_sample(mo->st->p, b->stack, b->labels, b->since,
				  mo->values, ncols))
		goto nomem;
	o->intervals++;
	b->since = 0;
	return 0;
nomem:
	return nomem(mo);
}

/* The state perf prints for prev_state ("S", "D", "R+") in the text of
 * the fields: "prev_comm=COMM prev_pid=N prev_prio=N prev_state=S ==> ...",
 * looked for after the comm, which may hold anything. */
static pk_str switch_state(struct pd_model *mo, uint32_t labels)
{
	struct pk_profile *p = mo->st->p;
	const struct pk_label *text = pk_profile_label_find(p, labels,
							    mo->off.key_trace);
	const struct pk_label *comm = pk_profile_label_find(p, labels,
							    mo->off.key_prev_comm);
	static const char key[] = " prev_state=";
	size_t skip, len;
	const char *s, *at;

	if (!text || !text->str || !comm || !comm->str)
		return 0;
	s = pk_profile_string(p, text->str);
	len = pk_profile_string_len(p, text->str);
	skip = strlen("prev_comm=") + pk_profile_string_len(p, comm->str);
	if (skip > len || !(at = strstr(s + skip, key)))
		return 0;
	at += strlen(key);
	return pk_profile_intern(p, at, strcspn(at, " "));
}

/* The labels of a block: the thread's, and the state it blocked in. */
static uint32_t make_block_labels(struct pd_model *mo, uint32_t labels)
{
	size_t n = 0, i, nl = 0;
	const struct pk_label *l = pk_profile_labels(mo->st->p, labels, &nl);
	struct pk_label keep[4];

	for (i = 0; i < nl && n < 3; i++)
		if (l[i].key == mo->key_pid || l[i].key == mo->key_tid ||
		    l[i].key == mo->key_comm)
			keep[n++] = l[i];
	memset(&keep[n], 0, sizeof(keep[n]));
	keep[n].key = mo->off.key_state;
	if ((keep[n].str = switch_state(mo, labels)))
		n++;
	return pk_profile_intern_labels(mo->st->p, keep, n);
}

/* The same, made once per label set: threads switch the same ways again
 * and again, and the text's prev_state is costly to find. */
static uint32_t block_labels(struct pd_model *mo, uint32_t labels)
{
	struct pd_offcpu *o = &mo->off;

	if (pki_grow_zeroed(&o->block_set, &o->block_set_cap, (size_t)labels + 1,
			    sizeof(*o->block_set)) < 0)
		return make_block_labels(mo, labels);
	if (!o->block_set[labels])
		o->block_set[labels] = make_block_labels(mo, labels);
	return o->block_set[labels];
}

int pd_offcpu_switch(struct pd_model *mo, const struct pd_sample *s,
		     const struct pd_thread *t, uint32_t stack,
		     uint32_t labels)
{
	const struct pk_label *next;
	struct pd_blocked *b;
	int rc;

	if (!s->time)
		return 0;
	/* only system-wide (or per-CPU) recordings trace the idle task, and
	 * only they see every switch-in of a thread: the others' next_pid
	 * is not looked for */
	if (t->tid == 0)
		mo->off.system_wide = 1;
	if (mo->off.system_wide &&
	    (next = pk_profile_label_find(mo->st->p, labels,
					  mo->off.key_next_pid)) &&
	    !next->str && next->num > 0 &&
	    (rc = switch_in(mo, (int32_t)next->num, s->time)))
		return rc;
	if (t->tid <= 0)	/* the idle task does not block */
		return 0;
	if (!(b = blocked_slot(mo, t)))
		return nomem(mo);
	b->since = s->time;
	b->stack = stack;
	b->labels = block_labels(mo, labels);
	b->switched_out = 0;
	return 0;
}

/*
 * A thread's second SWITCH OUT record in one block means that records
 * were lost (perf's buffers overflowed) between the two: its switch-in,
 * and the sched_switch sample of this switch-out. The block's end is not
 * known; it is dropped rather than stretched over the time it ran.
 */
static void switch_out(struct pd_model *mo, int32_t tid)
{
	struct pd_thread *t = pd_machine_find_thread(&mo->st->m, tid);
	struct pd_offcpu *o = &mo->off;
	struct pd_blocked *b;

	if (!t || (size_t)(t - mo->st->m.threads) >= o->blocked_cap)
		return;
	b = &o->blocked[t - mo->st->m.threads];
	if (b->since && b->switched_out)
		b->since = 0;
	b->switched_out = 1;
}

int pd_model_switch(struct pd_model *mo, const struct pd_rec *rec,
		    uint32_t attr)
{
	struct pd_sample_id s;

	if (pd_parse_id_trailer(&mo->st->ev.attrs[attr], rec->data, rec->size,
				mo->st->big, &s) < 0 || !s.time)
		return 0;
	/* only system-wide (or per-CPU) recordings have CPU-wide switches */
	if (rec->type == PD_RECORD_SWITCH_CPU_WIDE)
		mo->off.system_wide = 1;
	if (rec->misc & PD_MISC_SWITCH_OUT) {
		switch_out(mo, s.tid);
		return 0;
	}
	return switch_in(mo, s.tid, s.time);
}

/* What a recording holds for off-CPU time. */
struct ingredients {
	int switches;		/* sched_switch samples */
	int stacks;		/* ... with callchains */
	int every;		/* ... at every switch (period 1) */
	int switch_ins;		/* switch events, or a system-wide recording */
	int bpf;		/* perf record --off-cpu */
	int clock;		/* cpu-clock or task-clock */
};

static void look_for_ingredients(struct pd_model *mo, struct ingredients *in)
{
	const struct pd_evlist *ev = &mo->st->ev;
	uint32_t i;

	memset(in, 0, sizeof(*in));
	in->switch_ins = mo->off.system_wide;
	for (i = 0; i < ev->nattrs; i++) {
		const struct pd_attr *a = &ev->attrs[i];

		if (a->flags & PD_ATTR_CONTEXT_SWITCH)
			in->switch_ins = 1;
		switch (pd_offcpu_role(mo, i)) {
		case PD_ROLE_SWITCH:
			in->switches = 1;
			in->stacks |= !!(a->sample_type & PD_SAMPLE_CALLCHAIN);
			in->every |= !(a->flags & PD_ATTR_FREQ) &&
				     a->sample_period == 1;
			break;
		case PD_ROLE_OFFCPU:
			in->bpf = 1;
			break;
		case PD_ROLE_CLOCK:
			in->clock = 1;
			break;
		default:
			break;
		}
	}
}

static int has_off_cpu(const struct ingredients *in)
{
	return in->bpf || (in->switches && in->stacks && in->switch_ins);
}

enum asked { ASKED_NONE, ASKED_OFF_CPU, ASKED_WALL };

/* Whether --event asks for off-CPU or wall-clock time. */
static enum asked asked_for(const struct pd_model *mo)
{
	const char *e = mo->st->opts ? mo->st->opts->event : NULL;

	if (e && strcmp(e, PKI_EVENT_OFF_CPU) == 0)
		return ASKED_OFF_CPU;
	if (e && strcmp(e, PKI_EVENT_WALL) == 0)
		return ASKED_WALL;
	return ASKED_NONE;
}

/* One message naming all that is missing, and how to record it. */
static int missing(struct pd_model *mo, const struct ingredients *in,
		   enum asked what)
{
	char list[400] = "";
	size_t n = 0;
	int wall = what == ASKED_WALL;

#define ADD(s) n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", \
				     n ? ", " : "", s)
	if (!in->switches && !in->bpf)
		ADD("no sched:sched_switch samples");
	if (in->switches && !in->stacks && !in->bpf)
		ADD("no call chains");
	if (in->switches && !in->every && !in->bpf)
		ADD("sched_switch sampled, not recorded at every switch "
		    "(-F or -c)");
	if (!in->switch_ins && !in->bpf)
		ADD("no switch events");
	if (wall && !in->clock)
		ADD("no cpu-clock or task-clock samples");
#undef ADD
	return pk_error_set(mo->st->ctx, PK_EINPUT, "%s: no %s time: %s; "
			    "record with: %s", mo->st->name,
			    wall ? "wall-clock" : "off-CPU", list,
			    wall ? PKI_WALL_RECIPE : PKI_OFF_CPU_RECIPE);
}

/* The first clock event that has samples, as an index into mo->events. */
static int clock_event(struct pd_model *mo)
{
	size_t a;

	for (a = 0; a < mo->attr_event_cap; a++)
		if (mo->attr_event[a] >= 0 &&
		    pd_offcpu_role(mo, (uint32_t)a) == PD_ROLE_CLOCK &&
		    mo->events[mo->attr_event[a]].weight >= 0)
			return mo->attr_event[a];
	return -1;
}

/* wall = the clock's columns + the off-CPU columns, sample by sample. */
static int add_wall(struct pd_model *mo)
{
	int clock = clock_event(mo), off = mo->off.event;
	struct pd_event_columns *w, c, o;

	if (clock < 0 || off < 0)
		return 0;
	c = mo->events[clock];
	o = mo->events[off];
	if (!(w = pd_model_columns(mo, PKI_EVENT_WALL, "nanoseconds")))
		return nomem(mo);
	pki_profile_sum_columns(mo->st->p, (size_t)w->count, (size_t)c.count,
				(size_t)o.count);
	pki_profile_sum_columns(mo->st->p, (size_t)w->weight, (size_t)c.weight,
				(size_t)o.weight);
	return 0;
}

int pd_offcpu_finish(struct pd_model *mo)
{
	enum asked what = asked_for(mo);
	struct ingredients in;
	int rc;

	look_for_ingredients(mo, &in);
	if (what != ASKED_NONE && (!has_off_cpu(&in) || !(in.every || in.bpf) ||
				   (what == ASKED_WALL && !in.clock)))
		return missing(mo, &in, what);
	if (!has_off_cpu(&in))
		return 0;
	if (in.switches && !in.every && !in.bpf)
		pd_warn(mo->st, "%s: sched_switch was sampled (-F or -c), not "
			"recorded at every switch: off-CPU time is missing "
			"blocks; record with: %s", mo->st->name,
			PKI_OFF_CPU_RECIPE);
	if (mo->off.event < 0) {
		struct pd_event_columns *c = pd_model_columns(mo,
							      PKI_EVENT_OFF_CPU,
							      "nanoseconds");

		if (!c)
			return nomem(mo);
		mo->off.event = (int)(c - mo->events);
	}
	if ((rc = add_wall(mo)))
		return rc;
	pk_profile_set_meta(mo->st->p, PK_META_DERIVED_EVENTS,
			    in.bpf ? "wall" : "off-cpu wall");
	return 0;
}
