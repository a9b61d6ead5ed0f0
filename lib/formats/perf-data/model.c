/* SPDX-License-Identifier: MIT */
/*
 * perf.data samples into the profile model: one location per sampled
 * address, in the mapping the machine model (machine.c) finds
 * for it, with no lines, so that a symbolizer can resolve the finished
 * model from the mappings' files and build ids. Sample types and labels
 * are made as the perf script reader makes them, so both readers of one
 * recording build the same model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"

static int nomem(struct pd_model *mo)
{
	return pk_error_set(mo->st->ctx, PK_ENOMEM, "%s: out of memory",
			    mo->st->name);
}

static const char *event_unit(const char *event)
{
	/* perf's software clocks count nanoseconds */
	if (strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0)
		return "nanoseconds";
	return "count";
}

struct pd_event_columns *pd_model_columns(struct pd_model *mo,
					  const char *name, const char *unit)
{
	pk_str event = pk_profile_intern_cstr(mo->st->p, name);
	struct pd_event_columns *c;
	size_t i;

	for (i = 0; i < mo->nevents && mo->events[i].event != event; i++)
		;
	if (i == mo->nevents) {
		if (!event || pki_grow(&mo->events, &mo->events_cap, mo->nevents + 1,
				      sizeof(*mo->events)) < 0)
			return NULL;
		/* an earlier input summed into the profile may have them */
		c = &mo->events[mo->nevents++];
		c->event = event;
		c->weight = pk_profile_find_column(mo->st->p, event,
						   PK_VALUE_WEIGHT);
		c->count = pk_profile_find_column(mo->st->p, event,
						  PK_VALUE_COUNT);
		if (c->count < 0)
			c->count = pk_profile_add_sample_type(mo->st->p, "samples",
							      "count", name,
							      PK_VALUE_COUNT);
		if (c->count < 0)
			return NULL;
	}
	c = &mo->events[i];
	if (unit && c->weight < 0) {
		c->weight = pk_profile_add_sample_type(mo->st->p, name, unit,
						       name, PK_VALUE_WEIGHT);
		if (c->weight < 0)
			return NULL;
	}
	return c;
}

/* The columns of an attribute's event, made at its first sample in the
 * perf script reader's way, so both readers build the same model; perf
 * record --off-cpu's samples are off-CPU time. */
static struct pd_event_columns *columns_for(struct pd_model *mo,
					    uint32_t attr)
{
	const struct pd_attr *a = &mo->st->ev.attrs[attr];
	struct pd_event_columns *c;
	char name[256];
	size_t i, old = mo->attr_event_cap;

	if (pki_grow(&mo->attr_event, &mo->attr_event_cap, (size_t)attr + 1,
		    sizeof(*mo->attr_event)) < 0)
		return NULL;
	for (i = old; i < mo->attr_event_cap; i++)
		mo->attr_event[i] = -1;
	if (mo->attr_event[attr] >= 0)
		return &mo->events[mo->attr_event[attr]];
	if (pd_offcpu_role(mo, attr) == PD_ROLE_OFFCPU)
		c = pd_model_columns(mo, PKI_EVENT_OFF_CPU, "nanoseconds");
	else {
		pd_attr_event_name(a, name, sizeof(name));
		c = pd_model_columns(mo, name,
				     (a->sample_type & PD_SAMPLE_PERIOD) ?
				     event_unit(name) : NULL);
	}
	if (c)
		mo->attr_event[attr] = (int32_t)(c - mo->events);
	return c;
}

/* Name the sample types once every event is known, as the perf script
 * reader does: "samples" alone, "EVENT_samples" beside other events. */
static int name_sample_types(struct pd_model *mo)
{
	char buf[512];
	size_t i;

	if (mo->nevents < 2)
		return 0;
	for (i = 0; i < mo->nevents; i++) {
		snprintf(buf, sizeof(buf), "%s_samples",
			 pk_profile_string(mo->st->p, mo->events[i].event));
		if (pk_profile_rename_sample_type(mo->st->p,
						  (size_t)mo->events[i].count, buf))
			return nomem(mo);
	}
	return 0;
}

static pk_str model_string(struct pd_model *mo, uint32_t id)
{
	const struct pk_profile *s = mo->st->m.strings;

	return pk_profile_intern(mo->st->p, pk_profile_string(s, id),
				 pk_profile_string_len(s, id));
}

static pk_str model_comm(struct pd_model *mo, uint32_t comm)
{
	if (pki_grow_zeroed(&mo->comm_str, &mo->comm_str_cap, (size_t)comm + 1,
			    sizeof(*mo->comm_str)) < 0)
		return 0;
	if (!mo->comm_str[comm])
		mo->comm_str[comm] = model_string(mo, comm);
	return mo->comm_str[comm];
}

static uint32_t model_mapping(struct pd_model *mo, struct pd_map *map)
{
	struct pk_mapping m = { 0 };
	uint32_t build_id;

	if (map->mapping)
		return map->mapping;
	build_id = pd_map_build_id(&mo->st->m, map);
	m.start = map->start;
	m.limit = map->end;
	m.offset = map->pgoff;
	m.file = model_string(mo, map->file);
	m.build_id = build_id ? model_string(mo, build_id) : 0;
	map->mapping = pk_profile_intern_mapping(mo->st->p, &m);
	if (map->mapping && !build_id) {
		/* a build id may still come (pipe mode writes them last) */
		if (pki_grow(&mo->made, &mo->made_cap, mo->nmade + 1,
			    sizeof(*mo->made)) < 0)
			return 0;
		mo->made[mo->nmade].mapping = map->mapping;
		mo->made[mo->nmade++].file = map->file;
	}
	return map->mapping;
}

/* Build ids that came after their mappings were made. */
static void late_build_ids(struct pd_model *mo)
{
	size_t i;

	for (i = 0; i < mo->nmade; i++) {
		struct pk_mapping *m = pk_profile_mapping_mut(mo->st->p,
							      mo->made[i].mapping);
		uint32_t b = pd_machine_build_id(&mo->st->m, mo->made[i].file);

		if (m && !m->build_id && b)
			m->build_id = model_string(mo, b);
	}
}

/*
 * A frame's location, remembered per address space, cpu mode and
 * address until a record changes maps: samples mostly repeat addresses,
 * and finding the map and interning the location was most of a frame's
 * cost. Direct-mapped; a miss costs what every frame cost before.
 */
#define FRAME_MEMO_SIZE 4096

struct pd_frame_memo {
	uint64_t generation;	/* the machine's when made, 0: empty */
	uint64_t ip;
	int64_t space;		/* pd_space_key, or -1 for the kernel */
	uint32_t loc;
	int cpumode;
};

static struct pd_frame_memo *frame_memo(struct pd_model *mo,
					const struct pd_thread *t,
					int cpumode, uint64_t ip,
					int64_t *space)
{
	if (!mo->frames &&
	    !(mo->frames = calloc(FRAME_MEMO_SIZE, sizeof(*mo->frames))))
		return NULL;
	*space = cpumode == PD_CPUMODE_KERNEL ? -1 : pd_space_key(t);
	return &mo->frames[pki_hash_u64(ip ^ (uint64_t)*space * 31 ^
					(uint64_t)cpumode) &
			   (FRAME_MEMO_SIZE - 1)];
}

static int push_frame(struct pd_model *mo, size_t *n,
		      const struct pd_thread *t, int cpumode, uint64_t ip)
{
	uint64_t generation = mo->st->m.generation + 1;
	int64_t space;
	struct pd_frame_memo *f = frame_memo(mo, t, cpumode, ip, &space);
	struct pd_map *map;
	uint32_t mapping, loc;

	if (pki_grow(&mo->locs, &mo->locs_cap, *n + 1, sizeof(*mo->locs)) < 0)
		return nomem(mo);
	if (f && f->generation == generation && f->ip == ip &&
	    f->space == space && f->cpumode == cpumode) {
		mo->locs[(*n)++] = f->loc;
		return 0;
	}
	map = pd_machine_find(&mo->st->m, t, cpumode, ip);
	mapping = map ? model_mapping(mo, map) : 0;
	if (map && !mapping)
		return nomem(mo);
	loc = pk_profile_intern_location(mo->st->p, mapping, ip, NULL, 0);
	if (!loc)
		return nomem(mo);
	if (f)
		*f = (struct pd_frame_memo){ generation, ip, space, loc, cpumode };
	mo->locs[(*n)++] = loc;
	return 0;
}

/*
 * The callchain, leaf first; context markers say whether the entries
 * after them are kernel or user addresses (perf starts in user mode). An
 * unknown marker means a corrupt chain, which perf drops whole.
 */
static int push_callchain(struct pd_model *mo, const struct pd_sample *s,
			  const struct pd_thread *t, size_t *n, int *has_user)
{
	int mode = PD_CPUMODE_USER, rc;
	uint64_t i;

	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = pd_u64(s->callchain + 8 * i, mo->st->big);

		if (ip >= PD_CONTEXT_MAX) {
			if (ip == PD_CONTEXT_HV)
				mode = PD_CPUMODE_HYPERVISOR;
			else if (ip == PD_CONTEXT_KERNEL)
				mode = PD_CPUMODE_KERNEL;
			else if (ip == PD_CONTEXT_USER)
				mode = PD_CPUMODE_USER;
			else {
				*n = 0;
				return 0;
			}
			continue;
		}
		if ((rc = push_frame(mo, n, t, mode, ip)))
			return rc;
		if (mode == PD_CPUMODE_USER)
			*has_user = 1;
	}
	return 0;
}

/*
 * A thread repeats a few callchains thousands of times: the stack a whole
 * chain made is remembered, by its bytes and address space, while the
 * machine's maps stay as they were (as push_frame's frames are).
 */
#define CHAIN_MEMO_SIZE 4096
/* The remembered chains' bytes start over past this. */
#define CHAIN_BYTES_MAX (4u << 20)

struct pd_chain_memo {
	uint64_t generation;	/* the machine's when made, 0: empty */
	uint64_t hash;
	int64_t space;
	size_t at, len;		/* of its bytes in chain_bytes */
	uint32_t stack;
};

static int chain_is(const struct pd_model *mo, const struct pd_chain_memo *c,
		    uint64_t generation, uint64_t hash, int64_t space,
		    const unsigned char *chain, size_t len)
{
	return c->generation == generation && c->hash == hash &&
	       c->space == space && c->len == len &&
	       memcmp(mo->chain_bytes + c->at, chain, len) == 0;
}

static void remember_chain(struct pd_model *mo, struct pd_chain_memo *c,
			   uint64_t generation, uint64_t hash, int64_t space,
			   const unsigned char *chain, size_t len,
			   uint32_t stack)
{
	if (mo->chain_bytes_len + len > CHAIN_BYTES_MAX) {
		/* forget them all rather than let the bytes grow */
		memset(mo->chains, 0, CHAIN_MEMO_SIZE * sizeof(*mo->chains));
		mo->chain_bytes_len = 0;
	}
	if (pki_grow(&mo->chain_bytes, &mo->chain_bytes_cap,
		     mo->chain_bytes_len + len, 1) < 0)
		return;	/* not remembered: made again next time */
	memcpy(mo->chain_bytes + mo->chain_bytes_len, chain, len);
	*c = (struct pd_chain_memo){ generation, hash, space,
				     mo->chain_bytes_len, len, stack };
	mo->chain_bytes_len += len;
}

/* The stack of a sample's callchain (all of it), into *stack. */
static int chain_stack(struct pd_model *mo, const struct pd_sample *s,
		       const struct pd_thread *t, uint32_t *stack)
{
	uint64_t generation = mo->st->m.generation + 1;
	const unsigned char *chain = s->callchain;
	size_t len = (size_t)s->nr_callchain * 8, n = 0;
	int64_t space = pd_space_key(t);
	uint64_t hash = pd_hash_words(chain, len, (uint64_t)space);
	struct pd_chain_memo *c;
	int has_user = 0, rc;

	if (!mo->chains &&
	    !(mo->chains = calloc(CHAIN_MEMO_SIZE, sizeof(*mo->chains))))
		return nomem(mo);
	c = &mo->chains[hash & (CHAIN_MEMO_SIZE - 1)];
	/* an empty chain has no bytes to remember it by */
	if (len && chain_is(mo, c, generation, hash, space, chain, len)) {
		*stack = c->stack;
		return 0;
	}
	if ((rc = push_callchain(mo, s, t, &n, &has_user)))
		return rc;
	*stack = pk_profile_intern_stack(mo->st->p, mo->locs, n);
	if (len)
		remember_chain(mo, c, generation, hash, space, chain, len, *stack);
	return 0;
}

struct user_frames {
	struct pd_model *mo;
	const struct pd_thread *t;
	size_t *n;
};

static int push_user_frame(void *arg, uint64_t pc)
{
	struct user_frames *f = arg;

	return push_frame(f->mo, f->n, f->t, PD_CPUMODE_USER, pc);
}

static int wants_unwinding(const struct pd_model *mo,
			   const struct pd_sample *s)
{
	return s->user_abi && s->user_stack_size &&
	       !(mo->st->opts && mo->st->opts->no_unwind);
}

/*
 * The user frames of a --call-graph dwarf sample, unwound from its
 * registers and stack copy; failing that, the one user frame we know:
 * where the sample stopped.
 */
static int push_user_stack(struct pd_model *mo, const struct pd_sample *s,
			   const struct pd_thread *t, int cpumode, size_t *n)
{
	struct user_frames f = { mo, t, n };
	int rc;

	if (wants_unwinding(mo, s)) {
		if (!mo->unwinder &&
		    !(mo->unwinder = pd_unwinder_new(mo->st, mo->st->opts)))
			return nomem(mo);
		rc = pd_unwind(mo->unwinder, t, s, push_user_frame, &f);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (s->has_user_ip)
		return push_frame(mo, n, t, PD_CPUMODE_USER, s->user_ip);
	if (cpumode == PD_CPUMODE_USER)
		return push_frame(mo, n, t, PD_CPUMODE_USER, s->ip);
	return 0;
}

uint32_t pd_label_set(struct pk_profile *p, struct pd_label_cache *c,
		      uint64_t key, const struct pk_label *l, size_t nbase,
		      size_t n)
{
	struct pd_label_cache_slot *m;
	uint64_t h = key;
	size_t i;

	if (!c || nbase > PK_ARRAY_SIZE(m->base))
		return pk_profile_intern_labels(p, l, n);
	for (i = 0; i < nbase; i++)
		h = h * 31 + ((uint64_t)l[i].str << 32 ^ (uint64_t)l[i].num);
	m = &c->slots[pki_hash_u64(h) & (PK_ARRAY_SIZE(c->slots) - 1)];
	if (m->set && m->key == key && m->nbase == nbase &&
	    memcmp(m->base, l, nbase * sizeof(*l)) == 0)
		return m->set;
	m->set = pk_profile_intern_labels(p, l, n);
	m->key = key;
	m->nbase = nbase;
	memcpy(m->base, l, nbase * sizeof(*l));
	return m->set;
}

/*
 * A sample's labels, remembered per thread and cpu: each sample has the
 * same few as that thread's last, and interning them was the costliest
 * part of a sample after its frames. Label set ids never change. A
 * thread's samples come in runs: those of the sample before are looked
 * at first, by the fields they are made of.
 */
static uint32_t sample_labels(struct pd_model *mo, const struct pd_attr *a,
			      const struct pd_sample *s,
			      const struct pd_thread *t, uint64_t offset)
{
	struct pd_last_labels *last = &mo->last_labels;
	int has_cpu = (a->sample_type & PD_SAMPLE_CPU) != 0;
	struct pk_label l[4];
	size_t n = 0;

	if (a->type != PD_TYPE_TRACEPOINT && last->set &&
	    last->tid == s->tid && last->pid == s->pid &&
	    last->comm == t->comm && last->has_cpu == has_cpu &&
	    (!has_cpu || last->cpu == s->cpu))
		return last->set;
	memset(l, 0, sizeof(l));
	if (s->pid >= 0) {
		l[n].key = mo->key_pid;
		l[n++].num = s->pid;
	}
	l[n].key = mo->key_tid;
	l[n++].num = s->tid;
	l[n].key = mo->key_comm;
	l[n++].str = model_comm(mo, t->comm);
	if (has_cpu) {
		l[n].key = mo->key_cpu;
		l[n++].num = s->cpu;
	}
	if (a->type == PD_TYPE_TRACEPOINT)
		return pd_tracing_labels(mo->st, s, offset, l, n);
	if (!mo->labels)
		mo->labels = calloc(1, sizeof(*mo->labels));
	*last = (struct pd_last_labels){
		s->pid, s->tid, t->comm, s->cpu,
		pd_label_set(mo->st->p, mo->labels,
			     (uint64_t)(uint32_t)s->tid << 32 | s->cpu, l, n, n),
		has_cpu
	};
	return last->set;
}

int64_t *pd_model_values(struct pd_model *mo, const struct pd_event_columns *c,
			 size_t *ncols)
{
	*ncols = pk_profile_sample_type_count(mo->st->p);
	if (pki_grow(&mo->values, &mo->values_cap, *ncols,
		     sizeof(*mo->values)) < 0)
		return NULL;
	memset(mo->values, 0, *ncols * sizeof(*mo->values));
	mo->values[c->count] = 1;
	return mo->values;
}

static int add_to_model(struct pd_model *mo, uint32_t attr, enum pd_role role,
			const struct pd_sample *s, uint32_t stack,
			const struct pd_thread *t, uint64_t offset)
{
	const struct pd_attr *a = &mo->st->ev.attrs[attr];
	struct pd_event_columns *c = columns_for(mo, attr);
	uint32_t labels;
	size_t ncols;
	int rc;

	if (!c || !pd_model_values(mo, c, &ncols))
		return nomem(mo);
	if (c->weight >= 0 && (a->sample_type & PD_SAMPLE_PERIOD))
		mo->values[c->weight] = (int64_t)s->period;
	if (s->time && (!mo->first_time || s->time < mo->first_time))
		mo->first_time = s->time;
	if (s->time > mo->last_time)
		mo->last_time = s->time;
	labels = sample_labels(mo, a, s, t, offset);
	rc = pk_profile_add_sample(mo->st->p, stack, labels, s->time, mo->values,
				   ncols);
	if (rc)
		return nomem(mo);
	if (role == PD_ROLE_SWITCH)
		return pd_offcpu_switch(mo, s, t, stack, labels);
	return 0;
}

/*
 * The stack of a sample made frame by frame, into *stack: its callchain
 * or its ip, then with --call-graph dwarf the user frames unwound.
 */
static int frames_stack(struct pd_model *mo, const struct pd_attr *a,
			const struct pd_sample *s, const struct pd_thread *t,
			int cpumode, uint32_t *stack)
{
	int has_user = 0, rc;
	size_t n = 0;

	if (s->callchain)
		rc = push_callchain(mo, s, t, &n, &has_user);
	else
		rc = push_frame(mo, &n, t, cpumode, s->ip);
	if (rc)
		return rc;
	/* --call-graph dwarf: the kernel gave no user chain */
	if ((a->flags & PD_ATTR_EXCLUDE_CALLCHAIN_USER) && !has_user &&
	    (rc = push_user_stack(mo, s, t, cpumode, &n)))
		return rc;
	*stack = pk_profile_intern_stack(mo->st->p, mo->locs, n);
	return 0;
}

int pd_model_sample(struct pd_model *mo, const struct pd_rec *rec,
		    uint32_t attr)
{
	const struct pd_attr *a = &mo->st->ev.attrs[attr];
	int cpumode = rec->misc & PD_MISC_CPUMODE_MASK, rc;
	const struct pd_thread *t;
	const char *what = "";
	enum pd_role role;
	struct pd_sample s;
	uint32_t stack = 0;

	if (pd_parse_sample(a, rec->data, rec->size, mo->st->big, mo->st->arch,
			    &s, &what) < 0) {
		mo->bad_samples++;
		pd_warn(mo->st, "%s: offset 0x%llx: the sample's %s runs past "
			"the end of its record; sample skipped", mo->st->name,
			(unsigned long long)rec->offset, what);
		return 0;
	}
	/* perf shows no guest samples unless asked to */
	if (cpumode == PD_CPUMODE_GUEST_KERNEL ||
	    cpumode == PD_CPUMODE_GUEST_USER) {
		mo->guest++;
		return 0;
	}
	if ((role = pd_offcpu_role(mo, attr)) == PD_ROLE_OFFCPU)
		pd_offcpu_sample(mo, &s);
	t = pd_machine_thread(&mo->st->m, s.pid, s.tid);
	/* an empty stack still needs somewhere to point */
	if (!t || pki_grow(&mo->locs, &mo->locs_cap, 1, sizeof(*mo->locs)) < 0)
		return nomem(mo);
	/* a chain the kernel gave whole is its stack, made once */
	if (s.callchain && !(a->flags & PD_ATTR_EXCLUDE_CALLCHAIN_USER))
		rc = chain_stack(mo, &s, t, &stack);
	else
		rc = frames_stack(mo, a, &s, t, cpumode, &stack);
	if (rc)
		return rc;
	mo->samples++;
	return add_to_model(mo, attr, role, &s, stack, t, rec->offset);
}

void pd_model_init(struct pd_model *mo, struct pd_state *st)
{
	memset(mo, 0, sizeof(*mo));
	mo->st = st;
	mo->earlier_columns = pk_profile_sample_type_count(st->p);
	mo->key_pid = pk_profile_intern_cstr(st->p, "pid");
	mo->key_tid = pk_profile_intern_cstr(st->p, "tid");
	mo->key_comm = pk_profile_intern_cstr(st->p, "comm");
	mo->key_cpu = pk_profile_intern_cstr(st->p, "cpu");
	pd_offcpu_init(mo);
}

void pd_model_exit(struct pd_model *mo, int32_t pid)
{
	pd_unwinder_forget(mo->unwinder, pid);
}

/* How many user stacks unwound to their root: profkit-info shows it. */
static void note_unwinding(struct pd_model *mo)
{
	const struct pd_unwind_counts *c;
	uint64_t all;
	char buf[200];

	if (!mo->unwinder)
		return;
	c = pd_unwinder_counts(mo->unwinder);
	all = c->complete + c->partial + c->not_unwound;
	snprintf(buf, sizeof(buf), "%llu of %llu user stacks to their root "
		 "(%.1f%%), %llu partial, %llu not unwound",
		 (unsigned long long)c->complete, (unsigned long long)all,
		 all ? 100.0 * (double)c->complete / (double)all : 0.0,
		 (unsigned long long)c->partial,
		 (unsigned long long)c->not_unwound);
	pk_profile_set_meta(mo->st->p, PK_META_DWARF_UNWINDING, buf);
	if (c->partial + c->not_unwound > all / 10)
		pd_warn(mo->st, "%s: %llu of %llu user stacks did not unwind "
			"to their root (are the recorded binaries and "
			"libraries here? see --symfs and --symbol-path)",
			mo->st->name,
			(unsigned long long)(c->partial + c->not_unwound),
			(unsigned long long)all);
}

/* The first attribute of an event's: where perf lists the event. */
static size_t event_rank(const struct pd_model *mo, size_t event)
{
	size_t a;

	for (a = 0; a < mo->attr_event_cap; a++)
		if (mo->attr_event[a] == (int32_t)event)
			break;
	return a;
}

/*
 * Columns were made as samples came, so the event sampled first leads;
 * perf report and perf evlist list events in attribute order, and the
 * first event is the default one. Put the columns in that order, unless
 * an earlier input's columns are in the profile too: those lead.
 */
static int order_events(struct pd_model *mo)
{
	struct pd_event_columns sorted[64];
	size_t order[2 * 64], rank[64], from[64], n = 0, i, j;

	if (mo->earlier_columns || mo->nevents < 2 ||
	    mo->nevents > PK_ARRAY_SIZE(rank))
		return 0;
	for (i = 0; i < mo->nevents; i++) {
		rank[i] = event_rank(mo, i);
		n += 1 + (mo->events[i].weight >= 0);
	}
	if (n != pk_profile_sample_type_count(mo->st->p))
		return 0;
	for (i = 0; i < mo->nevents; i++) {	/* insertion sort: few events */
		for (j = i; j > 0 && rank[from[j - 1]] > rank[i]; j--)
			from[j] = from[j - 1];
		from[j] = i;
	}
	for (i = 0, n = 0; i < mo->nevents; i++) {
		sorted[i] = mo->events[from[i]];
		order[n] = (size_t)sorted[i].count;
		sorted[i].count = (int)n++;
		if (sorted[i].weight >= 0) {
			order[n] = (size_t)sorted[i].weight;
			sorted[i].weight = (int)n++;
		}
	}
	if (pki_profile_order_columns(mo->st->p, order))
		return nomem(mo);
	memcpy(mo->events, sorted, mo->nevents * sizeof(*sorted));
	for (i = 0; i < mo->attr_event_cap; i++)
		for (j = 0; mo->attr_event[i] >= 0 && j < mo->nevents; j++)
			if (from[j] == (size_t)mo->attr_event[i]) {
				mo->attr_event[i] = (int32_t)j;
				break;
			}
	return 0;
}

static int is_clock(const char *event)
{
	return strcmp(event_unit(event), "nanoseconds") == 0;
}

/*
 * pprof's period is one number. A fixed period (-c) is the attribute's;
 * a clock sampled at a frequency (-F) ticks every 1e9 / F ns; any other
 * event sampled at a frequency gets the mean period of its samples.
 */
static int64_t event_period(const struct pd_model *mo, size_t event,
			    const struct pd_attr *a)
{
	const struct pd_event_columns *c = &mo->events[event];
	const char *name = pk_profile_string(mo->st->p, c->event);
	int64_t count;

	if (!(a->flags & PD_ATTR_FREQ))
		return (int64_t)a->sample_period;
	if (is_clock(name) && a->sample_period)
		return (int64_t)(1000000000 / a->sample_period);
	count = pk_profile_total(mo->st->p, (size_t)c->count);
	if (c->weight < 0 || count <= 0)
		return 0;
	return (pk_profile_total(mo->st->p, (size_t)c->weight) + count / 2) /
	       count;
}

/* Period type and period of the first event: a clock's are pprof's
 * "cpu nanoseconds", as Go's CPU profiles have them. */
static void set_period(struct pd_model *mo)
{
	const char *name;
	size_t a;

	if (!mo->nevents || pk_profile_period(mo->st->p))
		return;
	for (a = 0; a < mo->attr_event_cap && mo->attr_event[a] != 0; a++)
		;
	if (a == mo->attr_event_cap)
		return;
	name = pk_profile_string(mo->st->p, mo->events[0].event);
	if (is_clock(name))
		pk_profile_set_period(mo->st->p, "cpu", "nanoseconds",
				      event_period(mo, 0, &mo->st->ev.attrs[a]));
	else
		pk_profile_set_period(mo->st->p, name, "count",
				      event_period(mo, 0, &mo->st->ev.attrs[a]));
}

/*
 * The profile starts at its first sample and lasts until its last. The
 * wall clock of a sample time comes from the clock data (perf record -k)
 * where there is some; else the file's mtime, when perf wrote it at the
 * end of the recording, stands for it (perf report's "captured on").
 */
static void set_times(struct pd_model *mo)
{
	const struct pd_state *st = mo->st;
	int64_t start = st->file_mtime_ns;

	if (pk_profile_time_nanos(st->p) || !mo->first_time)
		return;
	if (st->has_clock_data)
		start = (int64_t)(st->clock_wall_ns +
				  (mo->first_time - st->clock_ref_ns));
	pk_profile_set_time(st->p, start,
			    (int64_t)(mo->last_time - mo->first_time));
}

int pd_model_finish(struct pd_model *mo)
{
	int rc = pd_offcpu_finish(mo);

	if (!rc)
		rc = name_sample_types(mo);
	if (!rc)
		rc = order_events(mo);
	if (!rc) {
		set_period(mo);
		set_times(mo);
	}

	if (!rc)
		late_build_ids(mo);
	if (!rc)
		note_unwinding(mo);
	return rc;
}

void pd_model_release(struct pd_model *mo)
{
	free(mo->events);
	free(mo->attr_event);
	free(mo->locs);
	free(mo->values);
	free(mo->comm_str);
	free(mo->made);
	free(mo->frames);
	free(mo->chains);
	free(mo->chain_bytes);
	free(mo->labels);
	pd_unwinder_free(mo->unwinder);
	pd_offcpu_release(mo);
	memset(mo, 0, sizeof(*mo));
}
