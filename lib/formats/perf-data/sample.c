/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE: the fields its event's sample_type selects, in the
 * kernel's order (perf_output_sample). We keep what a profile needs and
 * step over the rest, checking each size against what is left of the
 * record before trusting it. Other records end in a sample_id trailer
 * (with sample_id_all) that gives their time, pid/tid and cpu.
 */
#include <string.h>

#include "perf-data.h"

struct fields {
	const unsigned char *p, *end;
	int big;
	const char *what;	/* the field that did not fit */
};

/* need and take_u64 inline: a sample takes five or more fields, and a
 * large recording has hundreds of thousands of samples */
static inline int need(struct fields *f, uint64_t n, const char *what)
{
	if ((uint64_t)(f->end - f->p) < n) {
		f->what = what;
		return -1;
	}
	return 0;
}

static inline int take_u64(struct fields *f, uint64_t *v, const char *what)
{
	if (need(f, 8, what) < 0)
		return -1;
	*v = pd_u64(f->p, f->big);
	f->p += 8;
	return 0;
}

static int skip_u64s(struct fields *f, uint64_t n, const char *what)
{
	if (n > (uint64_t)(f->end - f->p) / 8) {
		f->what = what;
		return -1;
	}
	f->p += n * 8;
	return 0;
}

/* A value of read_format, alone or for each event of a group. */
static int skip_read(struct fields *f, uint64_t format)
{
	uint64_t per = 1 + !!(format & PD_FORMAT_ID) + !!(format & PD_FORMAT_LOST);
	uint64_t times = !!(format & PD_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(format & PD_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(format & PD_FORMAT_GROUP))
		return skip_u64s(f, per + times, "read values");
	if (take_u64(f, &nr, "read group size") < 0 ||
	    skip_u64s(f, times, "read times") < 0)
		return -1;
	if (nr > (uint64_t)(f->end - f->p) / 8 / per) {
		f->what = "read group values";
		return -1;
	}
	f->p += nr * per * 8;
	return 0;
}

/* Index of the instruction pointer among the sampled user registers. */
static int ip_register(const char *arch)
{
	if (strcmp(arch, "x86_64") == 0 || (arch[0] == 'i' && strstr(arch, "86")))
		return 8;	/* PERF_REG_X86_IP */
	if (strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm64") == 0)
		return 32;	/* PERF_REG_ARM64_PC */
	if (strncmp(arch, "arm", 3) == 0)
		return 15;	/* PERF_REG_ARM_PC */
	return -1;
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* abi, then one u64 per bit of mask unless abi is 0 (no registers). */
static int take_regs(struct fields *f, uint64_t mask, uint64_t *abi,
		     const unsigned char **regs)
{
	if (take_u64(f, abi, "register abi") < 0)
		return -1;
	if (!*abi)
		return 0;
	*regs = f->p;
	return skip_u64s(f, (uint64_t)popcount64(mask), "registers");
}

/* The user registers, and the instruction pointer among them. */
static int take_user_regs(struct fields *f, const struct pd_attr *a,
			  const char *arch, struct pd_sample *s)
{
	int ip_reg = ip_register(arch);

	if (take_regs(f, a->regs_user, &s->user_abi, &s->user_regs) < 0)
		return -1;
	s->user_regs_mask = a->regs_user;
	if (s->user_abi && ip_reg >= 0 && pd_sample_user_reg(s, ip_reg, f->big,
							     &s->user_ip))
		s->has_user_ip = 1;
	return 0;
}

int pd_sample_user_reg(const struct pd_sample *s, int reg, int big,
		       uint64_t *value)
{
	uint64_t below;

	if (!s->user_abi || reg < 0 || reg > 63 ||
	    !((s->user_regs_mask >> reg) & 1))
		return 0;
	below = s->user_regs_mask & ((1ull << reg) - 1);
	*value = pd_u64(s->user_regs + 8 * popcount64(below), big);
	return 1;
}

static int take_sized_blob(struct fields *f, const char *what)
{
	uint64_t size;

	if (take_u64(f, &size, what) < 0 || need(f, size, what) < 0)
		return -1;
	f->p += size;
	return 0;
}

/* Fields up to PERIOD: fixed-size, each present or not. */
static int take_head(struct fields *f, uint64_t t, struct pd_sample *s)
{
	uint64_t v;

	if ((t & PD_SAMPLE_IDENTIFIER) && take_u64(f, &s->id, "identifier") < 0)
		return -1;
	if ((t & PD_SAMPLE_IP) && take_u64(f, &s->ip, "ip") < 0)
		return -1;
	if (t & PD_SAMPLE_TID) {
		if (need(f, 8, "pid/tid") < 0)
			return -1;
		s->pid = (int32_t)pd_u32(f->p, f->big);
		s->tid = (int32_t)pd_u32(f->p + 4, f->big);
		f->p += 8;
	}
	if ((t & PD_SAMPLE_TIME) && take_u64(f, &s->time, "time") < 0)
		return -1;
	if ((t & PD_SAMPLE_ADDR) && take_u64(f, &s->addr, "addr") < 0)
		return -1;
	if ((t & PD_SAMPLE_ID) && take_u64(f, &s->id, "id") < 0)
		return -1;
	if ((t & PD_SAMPLE_STREAM_ID) && take_u64(f, &v, "stream id") < 0)
		return -1;
	if (t & PD_SAMPLE_CPU) {
		if (need(f, 8, "cpu") < 0)
			return -1;
		s->cpu = pd_u32(f->p, f->big);
		f->p += 8;
	}
	if ((t & PD_SAMPLE_PERIOD) && take_u64(f, &s->period, "period") < 0)
		return -1;
	return 0;
}

static int take_branch_stack(struct fields *f, const struct pd_attr *a)
{
	uint64_t nr, hw_idx;

	if (take_u64(f, &nr, "branch stack size") < 0)
		return -1;
	if ((a->branch_sample_type & PD_BRANCH_HW_INDEX) &&
	    take_u64(f, &hw_idx, "branch hw_idx") < 0)
		return -1;
	if (nr > (uint64_t)(f->end - f->p) / 24) {
		f->what = "branch stack";
		return -1;
	}
	f->p += nr * 24;	/* from, to, flags */
	return 0;
}

/* size, the copy, then how much of it the kernel filled (dyn_size). */
static int take_stack_user(struct fields *f, struct pd_sample *s)
{
	uint64_t size, dyn_size;

	if (take_u64(f, &size, "user stack size") < 0 ||
	    need(f, size, "user stack") < 0)
		return -1;
	s->user_stack = f->p;
	f->p += size;
	/* dyn_size follows only a non-empty stack */
	if (!size)
		return 0;
	if (take_u64(f, &dyn_size, "user stack dyn_size") < 0)
		return -1;
	s->user_stack_size = dyn_size < size ? dyn_size : size;
	return 0;
}

/* Fields after CALLCHAIN, which we step over. */
static int take_tail(struct fields *f, const struct pd_attr *a,
		     const char *arch, struct pd_sample *s)
{
	uint64_t t = a->sample_type, abi;
	const unsigned char *regs;

	if ((t & PD_SAMPLE_BRANCH_STACK) && take_branch_stack(f, a) < 0)
		return -1;
	if ((t & PD_SAMPLE_REGS_USER) && take_user_regs(f, a, arch, s) < 0)
		return -1;
	if ((t & PD_SAMPLE_STACK_USER) && take_stack_user(f, s) < 0)
		return -1;
	if ((t & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT)) &&
	    skip_u64s(f, 1, "weight") < 0)
		return -1;
	if ((t & PD_SAMPLE_DATA_SRC) && skip_u64s(f, 1, "data source") < 0)
		return -1;
	if ((t & PD_SAMPLE_TRANSACTION) && skip_u64s(f, 1, "transaction") < 0)
		return -1;
	if ((t & PD_SAMPLE_REGS_INTR) &&
	    take_regs(f, a->regs_intr, &abi, &regs) < 0)
		return -1;
	if ((t & PD_SAMPLE_PHYS_ADDR) && skip_u64s(f, 1, "physical address") < 0)
		return -1;
	if ((t & PD_SAMPLE_CGROUP) && skip_u64s(f, 1, "cgroup") < 0)
		return -1;
	if ((t & PD_SAMPLE_DATA_PAGE_SIZE) && skip_u64s(f, 1, "data page size") < 0)
		return -1;
	if ((t & PD_SAMPLE_CODE_PAGE_SIZE) && skip_u64s(f, 1, "code page size") < 0)
		return -1;
	if ((t & PD_SAMPLE_AUX) && take_sized_blob(f, "aux data") < 0)
		return -1;
	return 0;
}

int pd_parse_sample(const struct pd_attr *a, const unsigned char *rec,
		    size_t size, int big, const char *arch,
		    struct pd_sample *s, const char **what)
{
	struct fields f = { rec + 8, rec + size, big, NULL };
	uint64_t t = a->sample_type;

	memset(s, 0, sizeof(*s));
	s->pid = s->tid = -1;
	s->cpu = UINT32_MAX;
	if (take_head(&f, t, s) < 0)
		goto bad;
	if ((t & PD_SAMPLE_READ) && skip_read(&f, a->read_format) < 0)
		goto bad;
	if (t & PD_SAMPLE_CALLCHAIN) {
		if (take_u64(&f, &s->nr_callchain, "callchain size") < 0)
			goto bad;
		s->callchain = f.p;
		if (skip_u64s(&f, s->nr_callchain, "callchain") < 0)
			goto bad;
	}
	if (t & PD_SAMPLE_RAW) {
		uint32_t raw;

		/* a u32 size, then the data; together u64-aligned */
		if (need(&f, 4, "raw data size") < 0)
			goto bad;
		raw = pd_u32(f.p, big);
		f.p += 4;
		if (need(&f, raw, "raw data") < 0)
			goto bad;
		s->raw = f.p;
		s->raw_size = raw;
		f.p += raw;
	}
	if (take_tail(&f, a, arch, s) < 0)
		goto bad;
	return 0;
bad:
	*what = f.what;
	return -1;
}

/* What sample_id_all appends to other records, in this order. */
#define ID_TRAILER_FIELDS (PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | \
			   PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | \
			   PD_SAMPLE_IDENTIFIER)

void pd_attr_trailer(struct pd_attr *a)
{
	uint64_t t = a->sample_type;

	a->trailer_u64s = (uint8_t)popcount64(t & ID_TRAILER_FIELDS);
	a->trailer_time = t & PD_SAMPLE_TIME ?
		(uint8_t)(1 + popcount64(t & ID_TRAILER_FIELDS &
					 ~(PD_SAMPLE_TID | PD_SAMPLE_TIME))) : 0;
}

/* A switch recording has two of these records per sample: the trailer's
 * layout comes from the attribute, worked out once. */
int pd_parse_id_trailer(const struct pd_attr *a, const unsigned char *rec,
			size_t size, int big, struct pd_sample_id *s)
{
	uint64_t t = a->sample_type;
	const unsigned char *p;

	s->time = s->id = 0;
	s->pid = s->tid = -1;
	s->cpu = UINT32_MAX;
	if (!(a->flags & PD_ATTR_SAMPLE_ID_ALL) || size < 8 + 8u * a->trailer_u64s)
		return -1;
	/* read from the last u64 backwards */
	p = rec + size - 8;
	if (t & PD_SAMPLE_IDENTIFIER) {
		s->id = pd_u64(p, big);
		p -= 8;
	}
	if (t & PD_SAMPLE_CPU) {
		s->cpu = pd_u32(p, big);
		p -= 8;
	}
	if (t & PD_SAMPLE_STREAM_ID)
		p -= 8;
	if (t & PD_SAMPLE_ID) {
		s->id = pd_u64(p, big);
		p -= 8;
	}
	if (t & PD_SAMPLE_TIME) {
		s->time = pd_u64(p, big);
		p -= 8;
	}
	if (t & PD_SAMPLE_TID) {
		s->pid = (int32_t)pd_u32(p, big);
		s->tid = (int32_t)pd_u32(p + 4, big);
	}
	return 0;
}

int pd_record_time(const struct pd_attr *a, const unsigned char *rec,
		   size_t size, uint32_t type, int big, uint64_t *time)
{
	uint64_t t = a->sample_type;
	size_t off;

	if (!(t & PD_SAMPLE_TIME))
		return -1;
	if (type != PD_RECORD_SAMPLE) {
		/* the time alone, as every record of a switch recording asks */
		if (!(a->flags & PD_ATTR_SAMPLE_ID_ALL) ||
		    size < 8 + 8u * a->trailer_u64s)
			return -1;
		*time = pd_u64(rec + size - 8u * a->trailer_time, big);
		return 0;
	}
	off = 8 + 8 * (size_t)(!!(t & PD_SAMPLE_IDENTIFIER) +
			       !!(t & PD_SAMPLE_IP) + !!(t & PD_SAMPLE_TID));
	if (size < off + 8)
		return -1;
	*time = pd_u64(rec + off, big);
	return 0;
}
