/* SPDX-License-Identifier: MIT */
/*
 * perf.data attributes and feature sections: the events a file holds
 * (perf_event_attr, in any size an old or new perf wrote), the ids that
 * tie records to them, their names, and the facts perf wrote about the
 * recording machine (host, kernel, arch, command line, build ids).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"

/* Feature section numbers (perf's HEADER_* enum). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_CLOCK_DATA = 29,
};

/* Byte offsets inside perf_event_attr. */
enum {
	ATTR_TYPE = 0,
	ATTR_SIZE = 4,
	ATTR_CONFIG = 8,
	ATTR_SAMPLE_PERIOD = 16,
	ATTR_SAMPLE_TYPE = 24,
	ATTR_READ_FORMAT = 32,
	ATTR_FLAGS = 40,
	ATTR_BRANCH_SAMPLE_TYPE = 72,
	ATTR_REGS_USER = 80,
	ATTR_REGS_INTR = 96,
};

/* Strings in feature sections: a u32 length, then that many bytes
 * holding a NUL-terminated string and padding. */
struct cursor {
	const unsigned char *p, *end;
	int big;
};

static int cur_u32(struct cursor *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -1;
	*v = pd_u32(c->p, c->big);
	c->p += 4;
	return 0;
}

static int cur_u64(struct cursor *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -1;
	*v = pd_u64(c->p, c->big);
	c->p += 8;
	return 0;
}

static int cur_skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return -1;
	c->p += n;
	return 0;
}

static int cur_string(struct cursor *c, const char **s, size_t *len)
{
	uint32_t n;
	const unsigned char *nul;

	if (cur_u32(c, &n) < 0 || (uint64_t)(c->end - c->p) < n)
		return -1;
	*s = (const char *)c->p;
	nul = memchr(c->p, '\0', n);
	*len = nul ? (size_t)(nul - c->p) : n;
	c->p += n;
	return 0;
}

/* ---- attributes ---- */

static uint64_t reverse_bits(uint64_t v)
{
	uint64_t r = 0;
	int i;

	for (i = 0; i < 64; i++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/*
 * Decode the prefix of perf_event_attr we know; a shorter attr from an
 * older perf leaves the rest zero, a longer one from a newer perf keeps
 * fields we ignore. The flag bitfield is numbered from the low bit by
 * little-endian compilers and from the high bit by big-endian ones.
 */
static void decode_attr(const unsigned char *b, size_t n, int big,
			struct pd_attr *a)
{
	unsigned char buf[PD_ATTR_KNOWN];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, b, n < sizeof(buf) ? n : sizeof(buf));
	memset(a, 0, sizeof(*a));
	a->type = pd_u32(buf + ATTR_TYPE, big);
	a->config = pd_u64(buf + ATTR_CONFIG, big);
	a->sample_period = pd_u64(buf + ATTR_SAMPLE_PERIOD, big);
	a->sample_type = pd_u64(buf + ATTR_SAMPLE_TYPE, big);
	a->read_format = pd_u64(buf + ATTR_READ_FORMAT, big);
	a->flags = pd_u64(buf + ATTR_FLAGS, big);
	if (big)
		a->flags = reverse_bits(a->flags);
	a->branch_sample_type = pd_u64(buf + ATTR_BRANCH_SAMPLE_TYPE, big);
	a->regs_user = pd_u64(buf + ATTR_REGS_USER, big);
	a->regs_intr = pd_u64(buf + ATTR_REGS_INTR, big);
	pd_attr_trailer(a);
}

/* Where perf finds the id in a sample and, from the end, in the
 * sample_id_all trailer of other records (evsel__calc_id_pos). */
static void set_id_positions(struct pd_evlist *ev)
{
	uint64_t t = ev->attrs[0].sample_type;

	ev->id_pos = ev->is_pos = -1;
	if (t & PD_SAMPLE_IDENTIFIER) {
		ev->id_pos = 0;
		ev->is_pos = 1;
	} else if (t & PD_SAMPLE_ID) {
		ev->id_pos = !!(t & PD_SAMPLE_IP) + !!(t & PD_SAMPLE_TID) +
			     !!(t & PD_SAMPLE_TIME) + !!(t & PD_SAMPLE_ADDR);
		ev->is_pos = 1 + !!(t & PD_SAMPLE_CPU) +
			     !!(t & PD_SAMPLE_STREAM_ID);
	}
}

int pd_evlist_add(struct pd_state *st, const unsigned char *attr,
		  size_t size, uint32_t *index)
{
	struct pd_evlist *ev = &st->ev;

	if (ev->nattrs >= 65536)
		return pk_error_set(st->ctx, PK_EINPUT,
				    "%s: more than 65536 events", st->name);
	if (pki_grow(&ev->attrs, &ev->attrs_cap, ev->nattrs + 1,
		    sizeof(*ev->attrs)) < 0)
		return pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
	decode_attr(attr, size, st->big, &ev->attrs[ev->nattrs]);
	*index = (uint32_t)ev->nattrs++;
	/* in pipe mode the EVENT_DESC feature may come first */
	if (*index < ev->ndesc_names && ev->desc_names[*index]) {
		const char *name = ev->desc_names[*index];

		pd_attr_set_name(&ev->attrs[*index], name, strlen(name),
				 PD_NAME_EVENT_DESC);
	}
	if (ev->nattrs == 1)
		set_id_positions(ev);
	return 0;
}

int pd_evlist_add_id(struct pd_state *st, uint32_t attr, uint64_t id)
{
	struct pd_evlist *ev = &st->ev;

	if (pki_grow(&ev->ids, &ev->ids_cap, ev->nids + 1, sizeof(*ev->ids)) < 0)
		return pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
	ev->ids[ev->nids].id = id;
	ev->ids[ev->nids++].attr = attr;
	ev->ids_sorted = 0;
	return 0;
}

void pd_evlist_release(struct pd_evlist *ev)
{
	size_t i;

	for (i = 0; i < ev->nattrs; i++)
		free(ev->attrs[i].name);
	for (i = 0; i < ev->ndesc_names; i++)
		free(ev->desc_names[i]);
	free(ev->desc_names);
	free(ev->attrs);
	free(ev->ids);
	memset(ev, 0, sizeof(*ev));
}

static int compare_ids(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int attr_of_id(struct pd_evlist *ev, uint64_t id)
{
	size_t lo;

	if (!ev->nids)
		return -1;
	if (!ev->ids_sorted) {
		qsort(ev->ids, ev->nids, sizeof(*ev->ids), compare_ids);
		ev->ids_sorted = 1;
	}
	lo = pki_count_below(ev->ids, ev->nids, sizeof(*ev->ids),
			     PKI_KEY(struct pd_id, id), id);
	if (lo < ev->nids && ev->ids[lo].id == id &&
	    ev->ids[lo].attr < ev->nattrs)
		return (int)ev->ids[lo].attr;
	return -1;
}

/* As perf's evlist__event2evsel: one event needs no id, and records
 * perf synthesized itself carry id 0 and belong to the first event. */
int pd_evlist_find(struct pd_state *st, const unsigned char *rec,
		   size_t size, uint32_t type)
{
	struct pd_evlist *ev = &st->ev;
	size_t n = (size - 8) / 8;
	uint64_t id;

	if (ev->nattrs <= 1)
		return ev->nattrs ? 0 : -1;
	if (type != PD_RECORD_SAMPLE &&
	    !(ev->attrs[0].flags & PD_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (type == PD_RECORD_SAMPLE) {
		if (ev->id_pos < 0)
			return 0;
		if ((size_t)ev->id_pos >= n)
			return -1;
		id = pd_u64(rec + 8 + 8 * (size_t)ev->id_pos, st->big);
	} else {
		if (ev->is_pos < 0)
			return 0;
		if ((size_t)ev->is_pos > n)
			return -1;
		id = pd_u64(rec + 8 + 8 * (n - (size_t)ev->is_pos), st->big);
	}
	return id ? attr_of_id(ev, id) : 0;
}

/* ---- names ---- */

void pd_attr_set_name(struct pd_attr *a, const char *name, size_t len,
		      enum pd_name_source source)
{
	char *copy;

	if (source < a->name_source || !len)
		return;
	copy = malloc(len + 1);
	if (!copy)
		return;	/* a name is a nicety: fall back to the derived one */
	memcpy(copy, name, len);
	copy[len] = '\0';
	free(a->name);
	a->name = copy;
	a->name_source = source;
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static void cache_name(uint64_t config, char *buf, size_t len)
{
	static const char *const caches[] = {
		"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
	};
	static const char *const ops[][2] = {
		{ "load", "loads" }, { "store", "stores" },
		{ "prefetch", "prefetches" },
	};
	unsigned cache = config & 0xff, op = (config >> 8) & 0xff,
		 result = (config >> 16) & 0xff;

	if (cache >= PK_ARRAY_SIZE(caches) || op >= PK_ARRAY_SIZE(ops) ||
	    result > 1)
		snprintf(buf, len, "hw-cache:0x%llx", (unsigned long long)config);
	else if (result)
		snprintf(buf, len, "%s-%s-misses", caches[cache], ops[op][0]);
	else
		snprintf(buf, len, "%s-%s", caches[cache], ops[op][1]);
}

/* A name from type and config, as perf makes one when no name was saved. */
static void derive_name(const struct pd_attr *a, char *buf, size_t len)
{
	unsigned long long config = (unsigned long long)a->config;

	switch (a->type) {
	case PD_TYPE_HARDWARE:
		if (config < PK_ARRAY_SIZE(hw_names))
			snprintf(buf, len, "%s", hw_names[config]);
		else
			snprintf(buf, len, "hardware:0x%llx", config);
		break;
	case PD_TYPE_SOFTWARE:
		if (config < PK_ARRAY_SIZE(sw_names))
			snprintf(buf, len, "%s", sw_names[config]);
		else
			snprintf(buf, len, "software:0x%llx", config);
		break;
	case PD_TYPE_TRACEPOINT:
		snprintf(buf, len, "tracepoint:%llu", config);
		break;
	case PD_TYPE_HW_CACHE:
		cache_name(a->config, buf, len);
		break;
	case PD_TYPE_RAW:
		snprintf(buf, len, "r%llx", config);
		break;
	case PD_TYPE_BREAKPOINT:
		snprintf(buf, len, "breakpoint");
		break;
	default:
		snprintf(buf, len, "pmu%u:0x%llx", a->type, config);
		break;
	}
}

/*
 * perf appends modifiers to names ("cycles:ppp", "cpu-clock:u"); they
 * are not part of the event, and the perf script reader drops them too.
 * "sched:sched_switch" keeps its colon: "sched_switch" is no modifier.
 */
static size_t strip_modifiers(const char *s, size_t len)
{
	const char *colon = len ? memrchr(s, ':', len) : NULL;
	size_t i;

	if (!colon || colon == s || colon == s + len - 1)
		return len;
	for (i = (size_t)(colon - s) + 1; i < len; i++)
		if (!strchr("ukhHGpPSDIWe", s[i]))
			return len;
	return (size_t)(colon - s);
}

void pd_attr_event_name(const struct pd_attr *a, char *buf, size_t len)
{
	if (a->name)
		snprintf(buf, len, "%.*s",
			 (int)strip_modifiers(a->name, strlen(a->name)), a->name);
	else
		derive_name(a, buf, len);
}

static int keep_desc_name(struct pd_evlist *ev, uint32_t i, const char *name,
			  size_t len)
{
	size_t cap = ev->ndesc_names;

	if (i >= 65536 || !len)
		return 0;
	if (i >= ev->ndesc_names) {
		char **grown = realloc(ev->desc_names,
				       ((size_t)i + 1) * sizeof(*grown));

		if (!grown)
			return -1;
		ev->desc_names = grown;
		ev->ndesc_names = (size_t)i + 1;
		memset(grown + cap, 0, (ev->ndesc_names - cap) * sizeof(*grown));
	}
	free(ev->desc_names[i]);
	ev->desc_names[i] = strndup(name, len);
	return ev->desc_names[i] ? 0 : -1;
}

/* EVENT_DESC: nr, attr size, then per event its attr, the number of
 * ids, its name and the ids. Names go to the events in file order. */
static int read_event_desc(struct pd_state *st, struct cursor *c)
{
	uint32_t nr, attr_size, i;

	if (cur_u32(c, &nr) < 0 || cur_u32(c, &attr_size) < 0)
		return -1;
	for (i = 0; i < nr; i++) {
		uint32_t nids;
		const char *name;
		size_t len;

		if (cur_skip(c, attr_size) < 0 || cur_u32(c, &nids) < 0 ||
		    cur_string(c, &name, &len) < 0 ||
		    cur_skip(c, (uint64_t)nids * 8) < 0)
			return -1;
		if (i < st->ev.nattrs)
			pd_attr_set_name(&st->ev.attrs[i], name, len,
					 PD_NAME_EVENT_DESC);
		else if (keep_desc_name(&st->ev, i, name, len) < 0)
			return pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
	}
	return 0;
}

void pd_read_event_type(struct pd_state *st, const unsigned char *data)
{
	uint64_t config = pd_u64(data, st->big);
	const char *name = (const char *)data + 8;
	const char *nul = memchr(name, '\0', 64);
	size_t i;

	for (i = 0; i < st->ev.nattrs; i++)
		if (st->ev.attrs[i].config == config)
			pd_attr_set_name(&st->ev.attrs[i], name,
					 nul ? (size_t)(nul - name) : 64,
					 PD_NAME_EVENT_TYPE);
}

/* EVENT_UPDATE: type, id, payload; type 2 renames the event. */
void pd_read_event_update(struct pd_state *st, const unsigned char *rec,
			  size_t size)
{
	const char *name, *nul;
	int attr;

	if (size < 24 || pd_u64(rec + 8, st->big) != 2)
		return;
	attr = attr_of_id(&st->ev, pd_u64(rec + 16, st->big));
	if (attr < 0)
		return;
	name = (const char *)rec + 24;
	nul = memchr(name, '\0', size - 24);
	pd_attr_set_name(&st->ev.attrs[attr], name,
			 nul ? (size_t)(nul - name) : size - 24,
			 PD_NAME_EVENT_DESC);
}

/* ---- build ids ---- */

/*
 * perf_record_header_build_id: header, pid, 24 bytes of build id (20 and
 * a length byte when misc says so), then the file name. Files from 2.6.3x
 * perf lack the pid; perf spots them by a name starting "nel.kallsyms]".
 */
static void read_one_build_id(struct pd_state *st, const unsigned char *rec,
			      size_t size)
{
	uint16_t misc = pd_u16(rec + 4, st->big);
	const unsigned char *id = rec + 12;
	const char *file = (const char *)rec + 36, *nul;
	size_t id_len = 20, file_len;

	if (size < 36)
		return;
	file_len = size - 36;
	if (file_len >= 13 && memcmp(file, "nel.kallsyms]", 13) == 0) {
		id = rec + 8;
		file = (const char *)rec + 32;
		file_len = size - 32;
	} else if (misc & PD_MISC_BUILD_ID_SIZE) {
		id_len = rec[32] <= 20 ? rec[32] : 20;
	}
	nul = memchr(file, '\0', file_len);
	if (nul)
		file_len = (size_t)(nul - file);
	if (file_len && pd_machine_set_build_id(&st->m, file, file_len, id,
						id_len) < 0)
		pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
}

int pd_read_build_ids(struct pd_state *st, const unsigned char *data,
		      size_t len)
{
	size_t off = 0;

	while (len - off >= 8) {
		size_t size = pd_u16(data + off + 6, st->big);

		if (size < 8 || size > len - off) {
			pd_warn(st, "%s: build id table is damaged at entry "
				"offset %zu; build ids after it are lost",
				st->name, off);
			break;
		}
		read_one_build_id(st, data + off, size);
		off += size;
	}
	return pk_context_error(st->ctx)->code;
}

/* ---- tracing data: the tracepoint formats, for tracepoint names ---- */

static int trace_string(struct cursor *c, const char **s, size_t *len)
{
	const unsigned char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));

	if (!nul)
		return -1;
	*s = (const char *)c->p;
	*len = (size_t)(nul - c->p);
	c->p = nul + 1;
	return 0;
}

static int trace_block(struct cursor *c, const char *magic)
{
	size_t n = strlen(magic) + 1;
	uint64_t size;

	if (c->end - c->p < (ptrdiff_t)n || memcmp(c->p, magic, n) != 0)
		return -1;
	c->p += n;
	return cur_u64(c, &size) < 0 || cur_skip(c, size) < 0 ? -1 : 0;
}

/* "name: sched_switch\nID: 316\n..." -> the name and the id. */
static int format_name_id(const char *text, size_t len, const char **name,
			  size_t *name_len, uint64_t *id)
{
	const char *end = text + len, *line = text;
	int found = 0;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (n > 6 && memcmp(line, "name: ", 6) == 0) {
			*name = line + 6;
			*name_len = n - 6;
			found |= 1;
		} else if (n > 4 && memcmp(line, "ID: ", 4) == 0) {
			*id = strtoull(line + 4, NULL, 10);
			found |= 2;
		}
		if (found == 3 || !nl)
			break;
		line = nl + 1;
	}
	return found == 3 ? 0 : -1;
}

static void name_tracepoint(struct pd_state *st, const char *sys,
			    size_t sys_len, const char *text, size_t len)
{
	const char *name = NULL;
	size_t name_len = 0, i;
	uint64_t id = 0;
	char buf[256];

	if (format_name_id(text, len, &name, &name_len, &id) < 0)
		return;
	snprintf(buf, sizeof(buf), "%.*s:%.*s", (int)sys_len, sys,
		 (int)name_len, name);
	for (i = 0; i < st->ev.nattrs; i++) {
		struct pd_attr *a = &st->ev.attrs[i];

		if (a->type == PD_TYPE_TRACEPOINT && a->config == id)
			pd_attr_set_name(a, buf, strlen(buf),
					 PD_NAME_TRACING_DATA);
	}
}

/* Per subsystem its name, then its event formats: names and fields. */
static int trace_events(struct pd_state *st, struct cursor *c)
{
	uint32_t n, i, j;
	uint64_t size;

	if (cur_u32(c, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *sys;
		size_t sys_len;
		uint32_t count;

		if (trace_string(c, &sys, &sys_len) < 0 ||
		    cur_u32(c, &count) < 0)
			return -1;
		for (j = 0; j < count; j++) {
			if (cur_u64(c, &size) < 0 ||
			    (uint64_t)(c->end - c->p) < size)
				return -1;
			name_tracepoint(st, sys, sys_len, (const char *)c->p,
					(size_t)size);
			pd_tracing_event(st, sys, sys_len, (const char *)c->p,
					 (size_t)size);
			c->p += size;
		}
	}
	return 0;
}

/* kallsyms (perf resolves kernel addresses itself), the printk formats. */
static int trace_printk(struct pd_state *st, struct cursor *c)
{
	uint32_t size;

	if (cur_u32(c, &size) < 0 || cur_skip(c, size) < 0 ||
	    cur_u32(c, &size) < 0 || (uint64_t)(c->end - c->p) < size)
		return -1;
	pd_tracing_printk(st, (const char *)c->p, size);
	c->p += size;
	return 0;
}

/*
 * The tracing data (perf's trace-event-read.c): magic, version, byte
 * order, long and page sizes, the ftrace header files, the ftrace event
 * formats, per subsystem its event formats, kallsyms, the printk formats
 * and (version 0.6 on) the saved comms, which nothing here needs.
 */
int pd_read_tracing_data(struct pd_state *st, const unsigned char *data,
			 size_t len)
{
	static const unsigned char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c',
					       'i', 'n', 'g' };
	struct cursor c = { data, data + len, 0 };
	const char *version;
	size_t vlen;
	uint32_t n, i, page_size;
	uint64_t size;
	int long_size, rc;

	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)) != 0)
		goto bad;
	c.p += sizeof(magic);
	if (trace_string(&c, &version, &vlen) < 0 || c.end - c.p < 6)
		goto bad;
	c.big = c.p[0] != 0;
	long_size = c.p[1];
	c.p += 2;
	if (cur_u32(&c, &page_size) < 0)
		goto bad;
	if ((rc = pd_tracing_start(st, c.big, long_size, page_size)))
		return rc;
	if (trace_block(&c, "header_page") < 0 ||
	    trace_block(&c, "header_event") < 0 || cur_u32(&c, &n) < 0)
		goto bad;
	for (i = 0; i < n; i++)
		if (cur_u64(&c, &size) < 0 || cur_skip(&c, size) < 0)
			goto bad;
	if (trace_events(st, &c) < 0 || trace_printk(st, &c) < 0)
		goto bad;
	return 0;
bad:
	pd_warn(st, "%s: tracing data is damaged at byte %zu of %zu; "
		"tracepoints may be named by number, their fields not "
		"decoded", st->name, (size_t)(c.p - data), len);
	return 0;
}

/* ---- feature sections ---- */

static void set_meta_string(struct pd_state *st, const char *key,
			    struct cursor *c)
{
	const char *s;
	size_t len;
	char *copy;

	if (cur_string(c, &s, &len) < 0) {
		pd_warn(st, "%s: feature '%s' is damaged", st->name, key);
		return;
	}
	copy = malloc(len + 1);
	if (!copy) {
		pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
		return;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	pk_profile_set_meta(st->p, key, copy);
	if (strcmp(key, "arch") == 0)
		snprintf(st->arch, sizeof(st->arch), "%s", copy);
	free(copy);
}

static void read_cmdline(struct pd_state *st, struct cursor *c)
{
	char *line = NULL;
	size_t len = 0, cap = 0;
	uint32_t nr, i;

	if (cur_u32(c, &nr) < 0)
		return;
	for (i = 0; i < nr; i++) {
		const char *arg;
		size_t n;

		if (cur_string(c, &arg, &n) < 0 ||
		    pki_grow(&line, &cap, len + n + 2, 1) < 0)
			break;
		if (len)
			line[len++] = ' ';
		memcpy(line + len, arg, n);
		len += n;
		line[len] = '\0';
	}
	if (line)
		pk_profile_set_meta(st->p, "cmdline", line);
	free(line);
}

static void read_nrcpus(struct pd_state *st, struct cursor *c)
{
	uint32_t avail, online;
	char buf[16];

	if (cur_u32(c, &avail) < 0 || cur_u32(c, &online) < 0)
		return;
	snprintf(buf, sizeof(buf), "%u", online);
	pk_profile_set_meta(st->p, "nr-cpus", buf);
}

/* Version 1: clockid, then the wall clock and that clock at one moment. */
static void read_clock_data(struct pd_state *st, struct cursor *c)
{
	uint32_t version, clockid;
	uint64_t wall, ref;

	if (cur_u32(c, &version) < 0 || version != 1 ||
	    cur_u32(c, &clockid) < 0 || cur_u64(c, &wall) < 0 ||
	    cur_u64(c, &ref) < 0) {
		pd_warn(st, "%s: the clock data is damaged or of an unknown "
			"version; the profile has no wall-clock time", st->name);
		return;
	}
	st->has_clock_data = 1;
	pki_profile_set_wall_clock(st->p);
	st->clock_wall_ns = wall;
	st->clock_ref_ns = ref;
}

int pd_read_feature(struct pd_state *st, unsigned feat,
		    const unsigned char *data, size_t len)
{
	struct cursor c = { data, data + len, st->big };

	switch (feat) {
	case FEAT_TRACING_DATA:
		return pd_read_tracing_data(st, data, len);
	case FEAT_BUILD_ID:
		return pd_read_build_ids(st, data, len);
	case FEAT_HOSTNAME:
		set_meta_string(st, "hostname", &c);
		break;
	case FEAT_OSRELEASE:
		set_meta_string(st, "os-release", &c);
		break;
	case FEAT_VERSION:
		set_meta_string(st, "perf-version", &c);
		break;
	case FEAT_ARCH:
		set_meta_string(st, "arch", &c);
		break;
	case FEAT_NRCPUS:
		read_nrcpus(st, &c);
		break;
	case FEAT_CPUDESC:
		set_meta_string(st, "cpu-desc", &c);
		break;
	case FEAT_CMDLINE:
		read_cmdline(st, &c);
		break;
	case FEAT_EVENT_DESC:
		if (read_event_desc(st, &c) < 0)
			pd_warn(st, "%s: the event descriptions are damaged; "
				"events may lack their names", st->name);
		break;
	case FEAT_CLOCK_DATA:
		read_clock_data(st, &c);
		break;
	default:
		break;		/* the rest matters not for profiles */
	}
	return pk_context_error(st->ctx)->code;
}
