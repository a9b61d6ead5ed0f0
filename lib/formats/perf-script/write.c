/* SPDX-License-Identifier: MIT */
/*
 * Samples as `perf script` prints them by default, so that what reads
 * perf script text (stackcollapse-perf.pl, speedscope, Firefox Profiler,
 * inferno, our own reader) takes any profile:
 *
 *     c-fp  4011  2421.515863:     500000 cpu-clock:
 *                 1169 hot_loop (/tmp/rec/c-fp)
 *                 1278 driver (/tmp/rec/c-fp)
 *
 * The header is comm, tid, [cpu] where the recording has it, time,
 * period where the event has one, and the event; then one line per frame
 * with the function (inlined ones on lines of their own, "(inlined)", as
 * perf shows them) and a blank line. Without callchains the one frame
 * ends the header line. A tracepoint sample's fields (its "trace" label,
 * from the perf.data reader) follow the event, and then perf prints no
 * frame without callchains. The model keeps no symbol offsets, so names have
 * none: perf printed none before Linux 4.8, and readers strip them.
 *
 * With addresses-only the layout is `perf script -F
 * comm,pid,tid,time,event,ip,dso`, to check the perf.data reader against
 * perf itself line by line.
 *
 * As perf prints them, frames in a file mapped by a process show the
 * address within the file (minus the mapping's start, plus its offset);
 * kernel, anonymous and unmapped addresses are shown as they are. The
 * model does not say whether perf recorded callchains, so samples are
 * printed with callchains when any stack has other than one frame.
 *
 * A profile without threads or times (gperftools, pprof, folded) gets
 * the main binary's name as comm, tid 0, and a clock that advances by
 * each sample's period (1 ms where the period is not time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-script.h"
#include "core/names.h"

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
	unsigned char *prints;	/* by column: whether its event prints */
	pk_str key_pid, key_tid, key_comm, key_cpu, key_trace;
	int addresses_only;
	int callchains;
	int width;		/* of the event names, as perf pads them */
	int has_times;		/* else a clock made of the periods */
	uint64_t clock;
	char comm[16];		/* for samples without one: 15 bytes, as perf */
};

/* What one count column prints as: an event, and its period's column. */
struct event {
	const char *name;
	int weight;		/* column, or -1: no period */
	int64_t weight_scale;
	int weight_is_time;	/* nanoseconds: the made-up clock follows it */
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

static const char *function_name(const struct script *s,
				 const struct pk_line *line)
{
	const struct pk_function *fn = pk_profile_function(s->p, line->function);

	return pki_function_name(fn ? pk_profile_string(s->p, fn->name) : "");
}

/*
 * "ADDR FUNCTION (DSO)": inlined functions first, each on its own line
 * with "(inlined)" as perf prints them, then the function the address is
 * in; without callchains the latter alone ends the header line.
 */
static int print_symbols(struct script *s, const struct pk_location *loc,
			 uint64_t addr, const char *file, int in_chain)
{
	const struct pk_line *lines = pk_profile_location_lines(s->p, loc);
	uint32_t i = in_chain || !loc->nlines ? 0 : loc->nlines - 1;
	int rc = 0;

	if (!loc->nlines)
		return pk_output_printf(s->out, "%c%16llx [unknown] (%s)\n",
					in_chain ? '\t' : ' ',
					(unsigned long long)addr, file);
	for (; i < loc->nlines && !rc; i++)
		rc = pk_output_printf(s->out, "%c%16llx %s (%s)\n",
				      in_chain ? '\t' : ' ',
				      (unsigned long long)addr,
				      function_name(s, &lines[i]),
				      i + 1 < loc->nlines ? "inlined" : file);
	return rc;
}

static int print_frame(struct script *s, uint32_t loc_id, int in_chain)
{
	const struct pk_location *loc = pk_profile_location(s->p, loc_id);
	const struct pk_mapping *m = NULL;
	const char *file;
	uint64_t addr = loc ? loc->address : 0;

	if (loc)
		m = pk_profile_mapping(s->p, loc->mapping);
	file = m ? pk_profile_string(s->p, m->file) : PKI_UNKNOWN;
	if (in_chain)
		addr = shown_address(m, file, addr);
	if (loc && !s->addresses_only)
		return print_symbols(s, loc, addr, file, in_chain);
	return pk_output_printf(s->out, "%c%16llx%s (%s)\n",
				in_chain ? '\t' : ' ', (unsigned long long)addr,
				s->addresses_only ? "" : " [unknown]", file);
}

static int64_t label_num(const struct script *s,
			 const struct pk_sample *sample, pk_str key)
{
	const struct pk_label *l = pk_profile_label_find(s->p, sample->labels,
							 key);

	return l ? l->num : -1;
}

/* "comm pid/tid time: event: " as -F comm,pid,tid,time,event prints it. */
static int print_addresses_header(struct script *s,
				  const struct pk_sample *sample,
				  const char *comm, const char *time,
				  const char *event)
{
	int rc = pk_output_printf(s->out, s->callchains ? "%s " : "%16s ", comm);

	return rc ? rc : pk_output_printf(s->out, "%5lld/%-5lld %12s: %*s: ",
				(long long)label_num(s, sample, s->key_pid),
				(long long)label_num(s, sample, s->key_tid),
				time, s->width, event);
}

/* "comm tid [cpu] time: period event: " as perf script prints it. */
static int print_header(struct script *s, const struct pk_sample *sample,
			const char *comm, const char *time,
			const char *event, int64_t period)
{
	int64_t tid = label_num(s, sample, s->key_tid);
	int64_t cpu = label_num(s, sample, s->key_cpu);
	int rc;

	if (tid < 0)
		tid = label_num(s, sample, s->key_pid);
	rc = pk_output_printf(s->out, s->callchains ? "%s " : "%16s ", comm);
	if (!rc)
		rc = pk_output_printf(s->out, "%5lld ",
				      (long long)(tid < 0 ? 0 : tid));
	if (!rc && cpu >= 0)
		rc = pk_output_printf(s->out, "[%03lld] ", (long long)cpu);
	if (!rc)
		rc = pk_output_printf(s->out, "%12s: ", time);
	if (!rc && period >= 0)
		rc = pk_output_printf(s->out, "%10lld ", (long long)period);
	return rc ? rc : pk_output_printf(s->out, "%*s: ", s->width, event);
}

/* A sample, with period -1 where its event has none. */
static int print_sample(struct script *s, const struct pk_sample *sample,
			const char *event, int64_t period)
{
	const struct pk_label *l = pk_profile_label_find(s->p, sample->labels,
							 s->key_comm);
	const char *comm = l ? pk_profile_string(s->p, l->str) : s->comm;
	const struct pk_label *trace;
	uint64_t t = s->has_times ? sample->time : s->clock;
	const uint32_t *stack;
	size_t depth, i;
	char time[48];
	int rc;

	/* perf cuts the time to microseconds */
	snprintf(time, sizeof(time), "%llu.%06llu",
		 (unsigned long long)(t / 1000000000),
		 (unsigned long long)(t / 1000 % 1000000));
	trace = s->addresses_only ? NULL :
		pk_profile_label_find(s->p, sample->labels, s->key_trace);
	if (trace)
		period = -1;	/* perf prints none for tracepoints */
	if (s->addresses_only)
		rc = print_addresses_header(s, sample, comm, time, event);
	else
		rc = print_header(s, sample, comm, time, event, period);
	if (rc)
		return rc;
	stack = pk_profile_stack(s->p, sample->stack, &depth);
	if (trace) {
		/* a tracepoint's fields; without callchains, perf no frame */
		rc = pk_output_puts(s->out, pk_profile_string(s->p, trace->str));
		if (rc || !s->callchains)
			return rc ? rc : pk_output_putc(s->out, '\n');
	}
	if (!s->callchains)
		return depth ? print_frame(s, stack[0], 0) :
			pk_output_printf(s->out, " %16x%s ([unknown])\n", 0,
					 s->addresses_only ? "" : " [unknown]");
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

/*
 * The event a count column prints as, and the column of its period: the
 * first weight column of the same event after it (pprof and gperftools
 * columns name no event but come in pairs: samples and cpu, alloc_objects
 * and alloc_space). Unnamed, the event is the period's column's type.
 */
static struct event column_event(const struct script *s, size_t column)
{
	const struct pk_value_type *count = pk_profile_sample_type(s->p, column);
	size_t n = pk_profile_sample_type_count(s->p), i;
	struct event ev = { NULL, -1, 1, 0 };
	const struct pk_value_type *vt = NULL;

	for (i = column + 1; i < n && ev.weight < 0; i++) {
		vt = pk_profile_sample_type(s->p, i);
		if (vt->event != count->event)
			continue;
		if (vt->kind == PK_VALUE_COUNT)
			break;
		ev.weight = (int)i;
	}
	if (ev.weight >= 0) {
		vt = pk_profile_sample_type(s->p, (size_t)ev.weight);
		ev.weight_scale = pk_profile_sample_type_scale(s->p, (size_t)ev.weight);
		ev.weight_is_time = strcmp(pk_profile_string(s->p, vt->unit),
					   "nanoseconds") == 0;
	}
	ev.name = pk_profile_string(s->p, count->event);
	if (!*ev.name && !s->addresses_only)
		ev.name = pk_profile_string(s->p, ev.weight >= 0 ? vt->type :
					    count->type);
	return ev;
}

/*
 * A sample's count times, the period of its event shared among them so
 * that they add up to the sample's (as the made-up clock advances).
 */
static int print_repeats(struct script *s, const struct pk_sample *sample,
			 const int64_t *values, const struct event *ev,
			 int64_t repeats)
{
	int64_t w = -1, k, each = 0, rest = 0, period = -1;
	int rc = 0;

	if (ev->weight >= 0) {
		w = values[ev->weight];
		w = w / ev->weight_scale + (w % ev->weight_scale * 2 >= ev->weight_scale);
		each = w / repeats;
		rest = w % repeats;
	}
	for (k = 0; k < repeats && !rc; k++) {
		if (w >= 0)
			period = each + (k < rest);
		rc = print_sample(s, sample, ev->name, period);
		s->clock += ev->weight_is_time && period > 0 ? (uint64_t)period :
			1000000;
	}
	return rc;
}

/* Whether name is one of the events the reader derived from others. */
static int is_derived(const struct pk_profile *p, const char *name)
{
	const char *derived = pk_profile_meta(p, PK_META_DERIVED_EVENTS);
	size_t len = strlen(name);
	const char *at;

	for (at = derived; len && at && (at = strstr(at, name)); at += len)
		if ((at == derived || at[-1] == ' ') &&
		    (at[len] == ' ' || at[len] == '\0'))
			return 1;
	return 0;
}

/* perf script prints the recorded events; off-cpu and wall time, which
 * the reader derived from them, only when --event names them (alone). */
static int prints_event(const struct pk_profile *p,
			const struct pk_options *opts, pk_str event)
{
	const char *name = pk_profile_string(p, event);

	if (opts && opts->event && is_derived(p, opts->event))
		return strcmp(name, opts->event) == 0;
	return !is_derived(p, name);
}

/*
 * Sample indexes in time order, as perf script prints them: a reader
 * that derives events adds their samples late (an off-CPU interval when
 * it ends), out of order. NULL when out of memory.
 */
static uint32_t *time_order(const struct pk_profile *p, size_t n)
{
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t i;

	for (i = 0; order && i < n; i++)
		order[i] = (uint32_t)i;
	if (order && pki_sort_by_time(p, order, n)) {
		free(order);
		order = NULL;
	}
	return order;
}

/* Which count columns print, once for all samples. */
static int choose_columns(struct script *s, const struct pk_options *opts)
{
	size_t n = pk_profile_sample_type_count(s->p), i;

	s->prints = calloc(n ? n : 1, 1);
	if (!s->prints)
		return PK_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct pk_value_type *vt = pk_profile_sample_type(s->p, i);

		s->prints[i] = vt->kind == PK_VALUE_COUNT &&
			       prints_event(s->p, opts, vt->event);
	}
	return 0;
}

/* Each sample once per count in each event's count column (budget). */
static int print_samples(struct pk_context *ctx, struct script *s)
{
	size_t ntypes = pk_profile_sample_type_count(s->p), n, k, t;
	int64_t repeats, budget = REPEAT_BUDGET;
	uint32_t *order;
	int rc = 0;

	n = pk_profile_sample_count(s->p);
	if (!(order = time_order(s->p, n)))
		return pk_error_set(ctx, PK_ENOMEM, "perf-script: out of memory");
	for (k = 0; k < n && !rc; k++) {
		const struct pk_sample *sample = pk_profile_sample(s->p, order[k]);
		const int64_t *values = pk_profile_sample_values(s->p, order[k]);

		for (t = 0; t < ntypes && !rc; t++) {
			struct event ev;
			int64_t count;

			if (!s->prints[t] || values[t] <= 0)
				continue;
			ev = column_event(s, t);
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
			rc = print_repeats(s, sample, values, &ev, repeats);
		}
	}
	free(order);
	return rc;
}

/* The comm of samples without one: the main binary's name, as perf has it. */
static void default_comm(struct script *s)
{
	const struct pk_mapping *m = pk_profile_mapping_count(s->p) ?
		pk_profile_mapping(s->p, 1) : NULL;
	const char *file = m ? pk_profile_string(s->p, m->file) : "";
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (!*base || *base == '[')
		base = PKI_UNKNOWN;
	snprintf(s->comm, sizeof(s->comm), "%s", base);
}

static void scan_samples(struct script *s)
{
	size_t i, n = pk_profile_sample_count(s->p), depth;

	for (i = 0; i < n && !(s->callchains && s->has_times); i++) {
		const struct pk_sample *sample = pk_profile_sample(s->p, i);

		pk_profile_stack(s->p, sample->stack, &depth);
		s->callchains |= depth != 1;
		s->has_times |= sample->time != 0;
	}
}

const struct pki_option pki_perf_script_write_options[] = {
	{ .key = "perf-script:addresses-only", .type = PK_OPTION_FLAG,
	  .flag = "addresses-only", .help = "addresses and dsos only, no functions" },
	{ .key = NULL },
};

int pki_perf_script_write(struct pk_context *ctx, const struct pk_profile *p,
			  const struct pk_options *opts, struct pk_output *out)
{
	struct script s;
	size_t i, n;
	int rc;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.out = out;
	s.addresses_only = pki_option_flag(opts, &pki_perf_script_write_options[0]);
	s.key_pid = pk_profile_lookup(p, "pid");
	s.key_tid = pk_profile_lookup(p, "tid");
	s.key_comm = pk_profile_lookup(p, "comm");
	s.key_cpu = pk_profile_lookup(p, "cpu");
	s.key_trace = pk_profile_lookup(p, "trace");
	if (choose_columns(&s, opts))
		return pk_error_set(ctx, PK_ENOMEM, "perf-script: out of memory");
	scan_samples(&s);
	if (s.addresses_only)
		s.has_times = 1;	/* as perf would: 0 */
	else
		default_comm(&s);
	n = pk_profile_sample_type_count(p);
	for (i = 0; i < n; i++) {
		int len;

		if (!s.prints[i])
			continue;
		len = (int)strlen(column_event(&s, i).name);
		if (len > s.width)
			s.width = len;
	}
	rc = print_samples(ctx, &s);
	free(s.prints);
	return rc;
}
