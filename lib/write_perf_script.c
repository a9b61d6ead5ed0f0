/* SPDX-License-Identifier: MIT */
/*
 * Samples as `perf script -F comm,pid,tid,time,event,ip,dso` prints them,
 * so a conversion can be checked against perf itself line by line:
 *
 *     c-fp  4011/4011   2421.515863: cpu-clock:
 *                 1169 (/tmp/rec/c-fp)
 *                 1278 (/tmp/rec/c-fp)
 *
 * With callchains each frame is a line and a blank line ends the sample;
 * without, the one address ends the header line. As perf prints them,
 * frames in a file mapped by a process show the address within the file
 * (minus the mapping's start, plus its offset); kernel, anonymous and
 * unmapped addresses are shown as they are.
 *
 * The model does not say whether perf recorded callchains, so samples
 * are printed with callchains when any stack has other than one frame.
 */
#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "internal.h"

/*
 * A sample that stands for many (an aggregated profile: folded, pprof,
 * heap profiles) prints once per count while the whole output stays
 * under this many samples beyond one per sample of the model, then
 * once: a few bytes of input must not become gigabytes of text.
 */
#define REPEAT_BUDGET 100000

struct script {
	const struct pk_profile *p;
	struct pk_output *out;
	pk_str key_pid, key_tid, key_comm;
	int callchains;
	int width;		/* of the event names, as perf pads them */
};

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Mappings perf addresses as they are: no file behind them. */
static int is_identity(const char *file)
{
	return strcmp(file, "//anon") == 0 || strcmp(file, "[heap]") == 0 ||
	       starts_with(file, "[stack") || starts_with(file, "/SYSV") ||
	       starts_with(file, "/dev/zero") ||
	       starts_with(file, "/anon_hugepage") ||
	       (starts_with(file, "/tmp/perf-") && ends_with(file, ".map"));
}

static int is_kernel(const char *file, uint64_t start)
{
	static const char *const user_brackets[] = {
		"[vdso]", "[vsyscall]", "[vectors]", "[uprobes]", "[heap]",
	};
	size_t i;

	if (file[0] == '[') {
		for (i = 0; i < PK_ARRAY_SIZE(user_brackets); i++)
			if (strcmp(file, user_brackets[i]) == 0)
				return 0;
		return !starts_with(file, "[stack");
	}
	return ends_with(file, ".ko") || strstr(file, ".ko.") ||
	       start >= 0xffff800000000000ULL;
}

static uint64_t shown_address(const struct pk_mapping *m, const char *file,
			      uint64_t addr)
{
	if (!m || is_kernel(file, m->start) || is_identity(file))
		return addr;
	return addr - m->start + m->offset;
}

static int print_frame(struct script *s, uint32_t loc_id, int in_chain)
{
	const struct pk_location *loc = pk_profile_location(s->p, loc_id);
	const struct pk_mapping *m = NULL;
	const char *file;
	uint64_t addr = loc ? loc->address : 0;

	if (loc)
		m = pk_profile_mapping(s->p, loc->mapping);
	file = m ? pk_profile_string(s->p, m->file) : "[unknown]";

	if (!in_chain)
		return pk_output_printf(s->out, " %16llx (%s)\n",
					(unsigned long long)addr, file);
	return pk_output_printf(s->out, "\t%16llx (%s)\n",
				(unsigned long long)shown_address(m, file, addr),
				file);
}

static int64_t label_num(const struct script *s,
			 const struct pk_sample *sample, pk_str key)
{
	const struct pk_label *l = pk_profile_label_find(s->p, sample->labels,
							 key);

	return l ? l->num : -1;
}

static int print_sample(struct script *s, const struct pk_sample *sample,
			const char *event)
{
	const struct pk_label *comm = pk_profile_label_find(s->p, sample->labels,
							    s->key_comm);
	const char *name = comm ? pk_profile_string(s->p, comm->str) : "";
	const uint32_t *stack;
	size_t depth, i;
	char time[48];
	int rc;

	/* perf cuts the time to microseconds */
	snprintf(time, sizeof(time), "%llu.%06llu",
		 (unsigned long long)(sample->time / 1000000000),
		 (unsigned long long)(sample->time / 1000 % 1000000));
	rc = pk_output_printf(s->out, s->callchains ? "%s " : "%16s ", name);
	if (!rc)
		rc = pk_output_printf(s->out, "%5lld/%-5lld %12s: %*s: ",
				      (long long)label_num(s, sample, s->key_pid),
				      (long long)label_num(s, sample, s->key_tid),
				      time, s->width, event);
	if (rc)
		return rc;
	stack = pk_profile_stack(s->p, sample->stack, &depth);
	if (!s->callchains)
		return depth ? print_frame(s, stack[0], 0) :
			pk_output_printf(s->out, " %16x ([unknown])\n", 0);
	rc = pk_output_putc(s->out, '\n');
	for (i = 0; i < depth && !rc; i++)
		rc = print_frame(s, stack[i], 1);
	return rc ? rc : pk_output_putc(s->out, '\n');
}

/*
 * How often a sample prints: its count, rounded to the nearest whole one
 * when fractional (at least once: the sample is there).
 */
static int64_t whole_count(int64_t v, int64_t scale)
{
	int64_t q = v / scale;

	if ((v % scale) * 2 >= scale)
		q++;
	return q ? q : 1;
}

/* Each sample once per count in each event's count column (budget). */
static int print_samples(struct pk_context *ctx, struct script *s)
{
	size_t ntypes = pk_profile_sample_type_count(s->p), n, i, t;
	int64_t k, repeats, budget = REPEAT_BUDGET;
	int rc = 0;

	n = pk_profile_sample_count(s->p);
	for (i = 0; i < n && !rc; i++) {
		const struct pk_sample *sample = pk_profile_sample(s->p, i);
		const int64_t *values = pk_profile_sample_values(s->p, i);

		for (t = 0; t < ntypes && !rc; t++) {
			const struct pk_value_type *vt;
			const char *event;
			int64_t count;

			vt = pk_profile_sample_type(s->p, t);
			if (vt->kind != PK_VALUE_COUNT || values[t] <= 0)
				continue;
			event = pk_profile_string(s->p, vt->event);
			count = whole_count(values[t], pk_profile_sample_type_scale(s->p, t));
			repeats = count - 1 <= budget ? count : 1;
			if (repeats < count && budget >= 0) {
				pk_warn(ctx, "past %d repeats of samples that "
					"stand for many, each prints once",
					REPEAT_BUDGET);
				budget = -1;
			}
			if (budget >= 0)
				budget -= repeats - 1;
			for (k = 0; k < repeats && !rc; k++)
				rc = print_sample(s, sample, event);
		}
	}
	return rc;
}

static int perf_script_write(struct pk_context *ctx, const struct pk_profile *p,
			     const struct pk_options *opts,
			     struct pk_output *out)
{
	struct script s;
	size_t i, n, depth;

	(void)opts;
	memset(&s, 0, sizeof(s));
	s.p = p;
	s.out = out;
	s.key_pid = pk_profile_lookup(p, "pid");
	s.key_tid = pk_profile_lookup(p, "tid");
	s.key_comm = pk_profile_lookup(p, "comm");
	n = pk_profile_sample_count(p);
	for (i = 0; i < n && !s.callchains; i++) {
		pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
		s.callchains = depth != 1;
	}
	n = pk_profile_sample_type_count(p);
	for (i = 0; i < n; i++) {
		const struct pk_value_type *vt = pk_profile_sample_type(p, i);
		int len = (int)pk_profile_string_len(p, vt->event);

		if (vt->kind == PK_VALUE_COUNT && len > s.width)
			s.width = len;
	}
	return print_samples(ctx, &s);
}

const struct pk_writer pki_writer_perf_script = {
	.name = "perf-script",
	.description = "text as `perf script -F comm,pid,tid,time,event,ip,dso` "
		       "prints it (to check against perf)",
	.extension = ".perf-script.txt",
	.flags = PK_PROFILE_KEEP_ORDER | PK_PROFILE_NAMES_ONLY,
	.write = perf_script_write,
};
