/* SPDX-License-Identifier: MIT */
/*
 * Filtering a profile: the samples that pass every test are copied into
 * a new profile, pruned stacks replacing their own (pprof's focus,
 * ignore and prune_from, plus perf's pid/tid/comm/event/time, and the
 * fields of tracepoint samples).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "filter.h"
#include "util/strbuf.h"

enum {
	FOCUS_KEY, IGNORE_KEY, PRUNE_FROM_KEY, PID_KEY, TID_KEY, COMM_KEY,
	FIELD_KEY, FROM_TIME_KEY, TO_TIME_KEY, MIN_PERCENT_KEY,
};

/* the keys "filter:NAME", the flags --NAME */
#define TEST(name, t, v, h) { .key = "filter:" name, .type = PK_OPTION_##t, \
	.flag = name, .value_name = v, .help = h }

const struct pki_option pki_filter_options[] = {
	[FOCUS_KEY] = TEST("focus", STRING, "RE", "keep samples through a matching function"),
	[IGNORE_KEY] = TEST("ignore", STRING, "RE", "drop samples through a matching function"),
	[PRUNE_FROM_KEY] = TEST("prune-from", STRING, "RE", "drop the callees of a matching function"),
	[PID_KEY] = TEST("pid", UINT, "PID", "keep this process"),
	[TID_KEY] = TEST("tid", UINT, "TID", "keep this thread"),
	[COMM_KEY] = TEST("comm", STRING, "RE", "keep threads whose name matches"),
	[FIELD_KEY] = TEST("field", STRING, "NAME=VALUE", "keep tracepoint samples with this field"),
	[FROM_TIME_KEY] = TEST("from-time", SECONDS, "SECS", "keep samples from this time (as perf prints)"),
	[TO_TIME_KEY] = TEST("to-time", SECONDS, "SECS", "keep samples up to this time"),
	[MIN_PERCENT_KEY] = TEST("min-percent", PERCENT, "PCT", "drop stacks under PCT% of the total"),
	{ .key = NULL },
};

/* The tests the options give; unset ones pass everything. */
struct filter_tests {
	const char *focus, *ignore, *prune_from, *comm, *field;
	int64_t pid, tid;	/* -1: any */
	uint64_t from_time, to_time;	/* nanoseconds; 0: open */
	double min_percent;
};

static int64_t id_test(const struct pk_options *opts, const struct pki_option *decl)
{
	return pki_option_text(opts, decl) ? (int64_t)pki_option_uint(opts, decl) : -1;
}

/* Seconds as perf script prints them ("2542.560001") to nanoseconds. */
static uint64_t time_test(const struct pk_options *opts, const struct pki_option *decl)
{
	return (uint64_t)(pki_option_number(opts, decl) * 1e9 + 0.5);
}

static void read_tests(const struct pk_options *opts, struct filter_tests *f)
{
	const struct pki_option *o = pki_filter_options;

	f->focus = pki_option_string(opts, &o[FOCUS_KEY]);
	f->ignore = pki_option_string(opts, &o[IGNORE_KEY]);
	f->prune_from = pki_option_string(opts, &o[PRUNE_FROM_KEY]);
	f->comm = pki_option_string(opts, &o[COMM_KEY]);
	f->field = pki_option_string(opts, &o[FIELD_KEY]);
	f->pid = id_test(opts, &o[PID_KEY]);
	f->tid = id_test(opts, &o[TID_KEY]);
	f->from_time = time_test(opts, &o[FROM_TIME_KEY]);
	f->to_time = time_test(opts, &o[TO_TIME_KEY]);
	f->min_percent = pki_option_number(opts, &o[MIN_PERCENT_KEY]);
}

struct filter_state {
	const struct pk_profile *p;
	const struct filter_tests *f;
	regex_t focus, ignore, prune, comm;
	unsigned has_focus : 1, has_ignore : 1, has_prune : 1, has_comm : 1;
	signed char *loc_match[3];	/* per location: -1 unknown, 0, 1 */
	int column, event_column;
	pk_str key_pid, key_tid, key_comm;
	/* --field NAME=VALUE: the label NAME, or 0 where no sample has it */
	const char *field, *field_value;
	pk_str key_field, key_trace;
};

enum { FOCUS, IGNORE, PRUNE };

/* The test a sample failed first, to say which filter kept nothing. */
enum drop {
	KEPT, BY_EVENT, BY_PID, BY_TID, BY_COMM, BY_FIELD, BY_FROM_TIME,
	BY_TO_TIME, BY_FOCUS, BY_IGNORE, BY_MIN_PERCENT, NDROPS
};

static int compile(struct pk_context *ctx, regex_t *re, const char *pattern,
		   const char *option)
{
	char msg[256];
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);

	if (!rc)
		return 0;
	regerror(rc, re, msg, sizeof(msg));
	return pk_error_set(ctx, PK_EUSAGE, "%s: bad regular expression '%s': %s",
			    option, pattern, msg);
}

/* Does any line (inline frame) of the location match? Memoized. */
static int location_matches(struct filter_state *s, int which, regex_t *re,
			    uint32_t id)
{
	const struct pk_location *loc = pk_profile_location(s->p, id);
	const struct pk_line *lines = pk_profile_location_lines(s->p, loc);
	size_t i;

	if (s->loc_match[which][id] >= 0)
		return s->loc_match[which][id];
	s->loc_match[which][id] = 0;
	for (i = 0; i < loc->nlines; i++) {
		const struct pk_function *fn = pk_profile_function(s->p, lines[i].function);

		if (fn && regexec(re, pk_profile_string(s->p, fn->name), 0, NULL, 0) == 0)
			s->loc_match[which][id] = 1;
	}
	return s->loc_match[which][id];
}

static int stack_matches(struct filter_state *s, int which, regex_t *re,
			 const uint32_t *stack, size_t depth)
{
	size_t i;

	for (i = 0; i < depth; i++)
		if (location_matches(s, which, re, stack[i]))
			return 1;
	return 0;
}

/* "NAME=VALUE" as a word of perf script's text of the fields. */
static int trace_has(const char *text, const char *field)
{
	size_t n = strlen(field);
	const char *p;

	for (p = strstr(text, field); p; p = strstr(p + 1, field))
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/*
 * The field's label equals the value (a number, any base strtoll takes,
 * for a numeric one), or the fields' text has NAME=VALUE as perf prints
 * it: prev_state=D is a number in the label, D in the text.
 */
static int field_pass(struct filter_state *s, const struct pk_sample *smp)
{
	const struct pk_label *l = pk_profile_label_find(s->p, smp->labels,
							 s->key_field);
	char *end;
	long long v;

	if (l && l->str)
		return strcmp(pk_profile_string(s->p, l->str), s->field_value) == 0;
	if (l) {
		v = strtoll(s->field_value, &end, 0);
		if (*s->field_value && !*end && v == l->num)
			return 1;
	}
	l = pk_profile_label_find(s->p, smp->labels, s->key_trace);
	return l && trace_has(pk_profile_string(s->p, l->str), s->field);
}

static enum drop labels_pass(struct filter_state *s, const struct pk_sample *smp)
{
	const struct pk_label *l;

	if (s->f->pid >= 0) {
		l = pk_profile_label_find(s->p, smp->labels, s->key_pid);
		if (!l || l->num != s->f->pid)
			return BY_PID;
	}
	if (s->f->tid >= 0) {
		l = pk_profile_label_find(s->p, smp->labels, s->key_tid);
		if (!l || l->num != s->f->tid)
			return BY_TID;
	}
	if (s->has_comm) {
		l = pk_profile_label_find(s->p, smp->labels, s->key_comm);
		if (!l || regexec(&s->comm, pk_profile_string(s->p, l->str), 0, NULL, 0))
			return BY_COMM;
	}
	if (s->field && !field_pass(s, smp))
		return BY_FIELD;
	if (s->f->from_time && smp->time < s->f->from_time)
		return BY_FROM_TIME;
	if (s->f->to_time && smp->time > s->f->to_time)
		return BY_TO_TIME;
	return KEPT;
}

/* Weight of each distinct stack, for --min-percent. */
static int64_t *stack_weights(struct filter_state *s, int64_t *total)
{
	size_t n = pk_profile_sample_count(s->p), i;
	int64_t *w = calloc(pk_profile_stack_count(s->p) + 1, sizeof(*w));

	*total = 0;
	if (!w || s->column < 0)
		return w;
	for (i = 0; i < n; i++) {
		int64_t v = pk_profile_sample_values(s->p, i)[s->column];

		w[pk_profile_sample(s->p, i)->stack] += v;
		*total += v;
	}
	return w;
}

static enum drop sample_pass(struct filter_state *s, size_t i,
			     const int64_t *weights, int64_t total,
			     size_t *depth, const uint32_t **stack)
{
	const struct pk_sample *smp = pk_profile_sample(s->p, i);
	enum drop why;
	size_t k;

	*stack = pk_profile_stack(s->p, smp->stack, depth);
	if (s->event_column >= 0 && !pk_profile_sample_values(s->p, i)[s->event_column])
		return BY_EVENT;
	if ((why = labels_pass(s, smp)) != KEPT)
		return why;
	if (s->has_focus && !stack_matches(s, FOCUS, &s->focus, *stack, *depth))
		return BY_FOCUS;
	if (s->has_ignore && stack_matches(s, IGNORE, &s->ignore, *stack, *depth))
		return BY_IGNORE;
	if (s->f->min_percent > 0 && total &&
	    (double)weights[smp->stack] * 100.0 < s->f->min_percent * (double)total)
		return BY_MIN_PERCENT;
	if (s->has_prune) {
		/* keep the first matching frame from the root and its callers */
		for (k = *depth; k-- > 0;) {
			if (location_matches(s, PRUNE, &s->prune, (*stack)[k])) {
				*stack += k;
				*depth -= k;
				break;
			}
		}
	}
	return KEPT;
}

static int setup_field(struct pk_context *ctx, struct filter_state *s,
		       const char *field)
{
	const char *eq = strchr(field, '=');

	if (!eq || eq == field)
		return pk_error_set(ctx, PK_EUSAGE, "--field: '%s' is not "
				    "NAME=VALUE", field);
	s->field = field;
	s->field_value = eq + 1;
	s->key_field = pk_profile_lookup_len(s->p, field, (size_t)(eq - field));
	s->key_trace = pk_profile_lookup(s->p, "trace");
	return 0;
}

static int setup(struct pk_context *ctx, struct filter_state *s,
		 const struct pk_options *opts)
{
	size_t nloc = pk_profile_location_count(s->p) + 1;
	struct pk_options event_opts = *opts;
	int w, rc = 0;

	if (s->f->focus && !(rc = compile(ctx, &s->focus, s->f->focus, "--focus")))
		s->has_focus = 1;
	if (!rc && s->f->ignore && !(rc = compile(ctx, &s->ignore, s->f->ignore, "--ignore")))
		s->has_ignore = 1;
	if (!rc && s->f->prune_from &&
	    !(rc = compile(ctx, &s->prune, s->f->prune_from, "--prune-from")))
		s->has_prune = 1;
	if (!rc && s->f->comm && !(rc = compile(ctx, &s->comm, s->f->comm, "--comm")))
		s->has_comm = 1;
	if (rc)
		return rc;
	for (w = 0; w < 3; w++) {
		s->loc_match[w] = malloc(nloc);
		if (!s->loc_match[w])
			return pk_error_set(ctx, PK_ENOMEM, "out of memory");
		memset(s->loc_match[w], -1, nloc);
	}
	s->column = pk_value_column(ctx, s->p, opts);
	s->event_column = -1;
	if (opts->event) {
		event_opts.value = PK_VALUE_SAMPLES;
		s->event_column = pk_value_column(ctx, s->p, &event_opts);
	}
	s->key_pid = pk_profile_lookup(s->p, "pid");
	s->key_tid = pk_profile_lookup(s->p, "tid");
	s->key_comm = pk_profile_lookup(s->p, "comm");
	return s->f->field ? setup_field(ctx, s, s->f->field) :
		pk_context_error(ctx)->code;
}

static void teardown(struct filter_state *s)
{
	int w;

	if (s->has_focus)
		regfree(&s->focus);
	if (s->has_ignore)
		regfree(&s->ignore);
	if (s->has_prune)
		regfree(&s->prune);
	if (s->has_comm)
		regfree(&s->comm);
	for (w = 0; w < 3; w++)
		free(s->loc_match[w]);
}

/* "--focus='RE'", "--pid=42": a test as it was given. */
static int describe(struct pk_strbuf *b, const struct filter_tests *f,
		    const struct pk_options *opts, enum drop which)
{
	static const char *const option[NDROPS] = {
		"", "--event", "--pid", "--tid", "--comm", "--field", "--from-time",
		"--to-time", "--focus", "--ignore", "--min-percent",
	};
	const char *text = NULL;
	char num[64] = "";

	switch (which) {
	case BY_EVENT: text = opts->event; break;
	case BY_COMM: text = f->comm; break;
	case BY_FIELD: text = f->field; break;
	case BY_FOCUS: text = f->focus; break;
	case BY_IGNORE: text = f->ignore; break;
	case BY_PID: snprintf(num, sizeof(num), "%lld", (long long)f->pid); break;
	case BY_TID: snprintf(num, sizeof(num), "%lld", (long long)f->tid); break;
	case BY_FROM_TIME: snprintf(num, sizeof(num), "%.9g", (double)f->from_time / 1e9); break;
	case BY_TO_TIME: snprintf(num, sizeof(num), "%.9g", (double)f->to_time / 1e9); break;
	case BY_MIN_PERCENT: snprintf(num, sizeof(num), "%g", f->min_percent); break;
	default: break;
	}
	if (text)
		return pki_strbuf_adds(b, option[which]) ||
		       pki_strbuf_adds(b, "='") || pki_strbuf_adds(b, text) ||
		       pki_strbuf_adds(b, "'");
	return pki_strbuf_adds(b, option[which]) || pki_strbuf_adds(b, "=") ||
	       pki_strbuf_adds(b, num);
}

/* Nothing passed: an empty output is easy to take for a tool's fault.
 * Named: the tests that dropped samples (the first each failed). */
static void warn_empty(struct pk_context *ctx, const struct filter_tests *f,
		       const struct pk_options *opts, const size_t *dropped)
{
	struct pk_strbuf b = { 0 };
	int which, rc = 0;

	for (which = KEPT + 1; which < NDROPS && !rc; which++)
		if (dropped[which])
			rc = (b.len && pki_strbuf_adds(&b, " and ")) ||
			     describe(&b, f, opts, (enum drop)which);
	if (!rc)
		pk_warn(ctx, "no sample passed %s: the output is empty", b.s);
	free(b.s);
}

int pk_profile_filter(struct pk_context *ctx, const struct pk_profile *src,
		      const struct pk_options *opts, struct pk_profile **out)
{
	struct filter_tests tests, *f = &tests;
	struct filter_state s;
	struct pk_profile *dst = pk_profile_new(pk_profile_flags(src));
	struct pk_copy c;
	int64_t *weights = NULL, total = 0;
	size_t n = pk_profile_sample_count(src), i, dropped[NDROPS] = { 0 };
	int rc;

	/* a copy keeps its samples as the source did */
	if (dst && pki_profile_wall_clock(src))
		pki_profile_set_wall_clock(dst);
	if (!opts)
		opts = &pki_default_options;
	read_tests(opts, f);
	memset(&s, 0, sizeof(s));
	s.p = src;
	s.f = f;
	rc = dst ? setup(ctx, &s, opts) : PK_ENOMEM;
	if (!rc && (!(weights = stack_weights(&s, &total)) ||
		    pki_copy_init(&c, dst, src, 1)))
		rc = PK_ENOMEM;
	for (i = 0; !rc && i < n; i++) {
		const uint32_t *stack;
		size_t depth;
		enum drop why = sample_pass(&s, i, weights, total, &depth, &stack);

		dropped[why]++;
		if (why == KEPT)
			rc = pki_copy_sample(&c, i, stack, depth);
	}
	if (!rc && n && !dropped[KEPT])
		warn_empty(ctx, f, opts, dropped);
	if (weights) {
		if (!rc)
			pki_copy_metadata(&c);
		pki_copy_release(&c);
	}
	free(weights);
	teardown(&s);
	if (rc) {
		pk_profile_free(dst);
		return pk_context_error(ctx)->code ? pk_context_error(ctx)->code :
			pk_error_set(ctx, rc, "out of memory filtering");
	}
	*out = dst;
	return 0;
}
