/* SPDX-License-Identifier: MIT */
/* Unit tests of the perf script reader on small inputs written here. */
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "tap.h"

static struct pk_context *ctx;

static struct pk_profile *read_text(const char *text, int *rc)
{
	struct pk_profile *p = pk_profile_new(PK_PROFILE_KEEP_ORDER);
	struct pk_options *opts = pk_options_new();
	struct pk_input *in;

	pk_context_clear_error(ctx);
	*rc = pk_input_open_memory(ctx, "test", text, strlen(text), &in);
	if (!*rc) {
		*rc = pk_read(ctx, in, pk_reader_find("perf-script"), p, opts);
		pk_input_close(in);
	}
	pk_options_free(opts);
	return p;
}

static const char *label_str(struct pk_profile *p, size_t i, const char *key)
{
	const struct pk_label *l = pk_profile_label_find(p, pk_profile_sample(p, i)->labels,
							 pk_profile_lookup(p, key));

	return l ? pk_profile_string(p, l->str) : "(none)";
}

static long long label_num(struct pk_profile *p, size_t i, const char *key)
{
	const struct pk_label *l = pk_profile_label_find(p, pk_profile_sample(p, i)->labels,
							 pk_profile_lookup(p, key));

	return l ? l->num : -1;
}

/* Name of line j of frame k (leaf first) of sample i. */
static const char *frame_fn(struct pk_profile *p, size_t i, size_t k, size_t j)
{
	size_t depth;
	const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
	const struct pk_location *loc;

	if (k >= depth)
		return "(no frame)";
	loc = pk_profile_location(p, stack[k]);
	if (j >= loc->nlines)
		return "(no line)";
	return pk_profile_string(p, pk_profile_function(p,
		pk_profile_location_lines(p, loc)[j].function)->name);
}

static void test_header_fields(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"work er 0  5958 [003]  2542.560001:     250000 cpu-clock:pppH: \n"
		"\t    55d0c2a1b139 hot+0x19 (/tmp/prog)\n"
		"\t    55d0c2a1b200 main+0x20 (/tmp/prog)\n"
		"\n"
		"x  12/13 2542.560251:     250000 cpu-clock:pppH: \n"
		"\t    55d0c2a1b139 hot+0x19 (/tmp/prog)\n", &rc);

	is_int(rc, 0, "two records read");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	is_str(label_str(p, 0, "comm"), "work er 0", "comm keeps spaces and trailing digits");
	is_int(label_num(p, 0, "tid"), 5958, "the number after the comm is the tid");
	is_int(label_num(p, 0, "pid"), -1, "no pid label when perf printed only the tid");
	is_int(label_num(p, 0, "cpu"), 3, "cpu from [003]");
	is_int(pk_profile_sample(p, 0)->time, 2542560001000ULL, "time in nanoseconds");
	is_str(label_str(p, 1, "comm"), "x", "a one-character comm");
	ok(label_num(p, 1, "pid") == 12 && label_num(p, 1, "tid") == 13, "pid/tid pair");
	is_int(pk_profile_sample_values(p, 1)[1], 250000, "period in the weight column");
	is_str(pk_profile_string(p, pk_profile_event(p, 0)), "cpu-clock",
	       "event name without the :pppH modifiers");
	is_str(pk_profile_string(p, pk_profile_sample_type(p, 1)->unit), "nanoseconds",
	       "cpu-clock periods are nanoseconds");
	is_str(frame_fn(p, 0, 0, 0), "hot", "leaf frame first, offset stripped");
	is_str(frame_fn(p, 1, 0, 0), "hot", "the last record needs no blank line");
	pk_profile_free(p);
}

static void test_inlined_frames(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"prog  7 12.5: 1 cpu-clock: \n"
		"\t1613 std::map<int, long>::find+0xf3 (inlined)\n"
		"\t1613 map_work+0xf3 (/tmp/prog)\n"
		"\t1700 main+0x10 (/tmp/prog)\n\n", &rc);
	size_t depth;

	is_int(rc, 0, "a record with an inlined frame");
	pk_profile_stack(p, pk_profile_sample(p, 0)->stack, &depth);
	is_int(depth, 2, "the inlined frame joins its caller's location");
	is_str(frame_fn(p, 0, 0, 0), "std::map<int, long>::find", "innermost line first");
	is_str(frame_fn(p, 0, 0, 1), "map_work", "then the function it was inlined into");
	pk_profile_free(p);
}

static void test_odd_layouts(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"# hostname : build-box\r\n"
		"java 19983 cycles: \r\n"
		"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\r\n"
		"7f1e2215d058  (/lib/libc.so.6)\r\n"
		"7f7241fbe6d8 std::function<void (int)>::operator()(int) const (/my dir/libx.so)\r\n"
		"\r\n"
		"perf  4355 [000]  2474.616170: sched:sched_switch: prev_comm=perf prev_pid=4355 ==> next_comm=x\n"
		"\tffffffff82265488 __schedule+0x628 ([kernel.kallsyms])\n\n", &rc);
	const struct pk_location *loc;
	size_t depth;
	const uint32_t *stack;

	is_int(rc, 0, "CRLF, unindented frames, tracepoint fields");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	stack = pk_profile_stack(p, pk_profile_sample(p, 0)->stack, &depth);
	is_int(depth, 3, "three frames, the one without a symbol included");
	is_str(frame_fn(p, 0, 2, 0), "std::function<void (int)>::operator()(int) const",
	       "a symbol with spaces and parens is whole");
	loc = pk_profile_location(p, stack[2]);
	is_str(pk_profile_string(p, pk_profile_mapping(p, loc->mapping)->file), "/my dir/libx.so",
	       "a dso path with a space");
	is_int(loc->address, 0x7f7241fbe6d8ULL, "the frame address");
	is_str(pk_profile_meta(p, "hostname"), "build-box", "perf script --header facts kept");
	is_int(pk_profile_event_count(p), 2, "two events");
	is_str(pk_profile_string(p, pk_profile_event(p, 1)), "sched:sched_switch",
	       "a tracepoint keeps its full name");
	is_str(pk_profile_string(p, pk_profile_sample_type(p, 0)->type), "cycles_samples",
	       "with several events the count columns are named per event");
	pk_profile_free(p);
}

static void test_no_callchain(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"            prog  1234 [000] 100.000001:     250000 cpu-clock:  55d0 main+0x10 (/tmp/prog)\n"
		"              dd  1235 [001] 100.000002:     250000 cpu-clock:  55d4 work+0x4 (/tmp/prog)\n",
		&rc);

	is_int(rc, 0, "records without callchains");
	is_int(pk_profile_sample_count(p), 2, "one sample per line");
	is_str(label_str(p, 1, "comm"), "dd", "a padded comm that looks like hex");
	is_str(frame_fn(p, 1, 0, 0), "work", "the frame on the header line");
	pk_profile_free(p);
}

static void test_garbage(void)
{
	int rc;
	struct pk_profile *p = read_text("this is not\nperf script output\n", &rc);

	is_int(rc, PK_EINPUT, "garbage is an error");
	ok(strstr(pk_context_error(ctx)->message, "test: no perf script samples") != NULL,
	   "naming the input: %s", pk_context_error(ctx)->message);
	pk_profile_free(p);
}

static const char *mapping_file(struct pk_profile *p, size_t i, size_t k)
{
	size_t depth;
	const uint32_t *stack = pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
	const struct pk_mapping *m;

	if (k >= depth)
		return "(no frame)";
	m = pk_profile_mapping(p, pk_profile_location(p, stack[k])->mapping);
	return m ? pk_profile_string(p, m->file) : "(none)";
}

static size_t stack_depth(struct pk_profile *p, size_t i)
{
	size_t depth;

	pk_profile_stack(p, pk_profile_sample(p, i)->stack, &depth);
	return depth;
}

/* Field sets other than the default, as perf 6.1 prints them. */
static void test_callchain_field_sets(void)
{
	int rc;
	struct pk_profile *p;

	/* -F ip,sym: an empty header line, frames without dso or offset */
	p = read_text("\n"
		      "\t           15c1a init_cpu_features.constprop.0\n"
		      "\t               0 [unknown]\n"
		      "\n"
		      "\n"
		      "\t    561235326169 hot_loop\n"
		      "\t    561235326200 (anonymous namespace)::run()\n"
		      "\n", &rc);
	is_int(rc, 0, "-F ip,sym read");
	is_int(pk_profile_sample_count(p), 2, "a sample per callchain under an empty header");
	is_str(frame_fn(p, 0, 0, 0), "init_cpu_features.constprop.0", "a frame without dso");
	is_str(mapping_file(p, 0, 0), "(none)", "and without a mapping");
	is_str(label_str(p, 1, "comm"), "(none)", "no comm label without comm");
	is_int(label_num(p, 1, "tid"), -1, "no tid label without tid");
	is_str(frame_fn(p, 1, 1, 0), "(anonymous namespace)::run()",
	       "a name in parentheses without a dso is a name");
	pk_profile_free(p);

	/* -F comm,tid,ip,sym,srcline: srclines skipped, "(inlined)" there too */
	p = read_text("work er 0  5958 \n"
		      "\t            e2bc elf_machine_rela_relative\n"
		      "  dl-machine.h:483 (inlined)\n"
		      "\t            e2bc _dl_relocate_object\n"
		      "  dl-reloc.c:301\n"
		      "\t           1ab77 _start\n"
		      "  :0\n"
		      "\n"
		      "worker 0 \n"
		      "\t            1196 [unknown]\n"
		      "  cxx-dwarf[1196]\n"
		      "\n", &rc);
	is_int(rc, 0, "-F comm,tid,ip,sym,srcline read");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	is_int(stack_depth(p, 0), 3, "srcline lines are no frames");
	is_str(label_str(p, 0, "comm"), "work er 0", "comm ending in digits, then the tid");
	is_int(label_num(p, 0, "tid"), 5958, "the tid");
	is_str(label_str(p, 1, "comm"), "worker 0", "a number not padded as a tid ends the comm");
	is_int(label_num(p, 1, "tid"), -1, "so there is no tid");
	pk_profile_free(p);

	/* headers without comm: tid, time, period, event alone */
	p = read_text(" 4011 \n\t 1613 hot\n\n"
		      " 2421.514369: \n\t 1613 hot (/x)\n\n"
		      "    500000 \n\t 1613 hot\n\n"
		      "cpu-clock: \n\t 1613 hot\n\n", &rc);
	is_int(rc, 0, "headers of one field read");
	is_int(pk_profile_sample_count(p), 4, "four samples");
	is_int(label_num(p, 0, "tid"), 4011, "-F tid: the tid");
	is_int(pk_profile_sample(p, 1)->time, 2421514369000ULL, "-F time: the time");
	is_int(label_num(p, 2, "tid"), -1, "-F period: a number padded as a period is no tid");
	is_int(pk_profile_event_count(p), 1, "no event is named by the samples without one");
	pk_profile_free(p);

	/* -F ...,brstack: branch entries end the callchain, no blank line */
	p = read_text("c-fp \n"
		      "\t            1613 hot (/x)\n"
		      " 0x4005b0/0x400590/P/-/-/0  0x4005c0(/x)/0x4005a0(/x)/M/-/-/12/COND/- \n"
		      "c-fp \n"
		      "\t            1700 main (/x)\n"
		      " main+0x10/hot+0x0/P/-/-/0 \n", &rc);
	is_int(rc, 0, "branch stacks after callchains read");
	is_int(pk_profile_sample_count(p), 2, "two samples");
	is_str(frame_fn(p, 1, 0, 0), "main", "the second one's frame");
	pk_profile_free(p);
}

/*
 * Callchains known whole, one guessed from its leaf's line: a chain
 * that goes on past the guessed one's text is not it, nor one that the
 * text ends in, and an empty line of "\r\n" ends one as "\n" does.
 */
static void test_known_chains(void)
{
	static const char header[] = "c-fp  4011  2421.514369:     500000 cpu-clock: \n";
	static const char leaf[] = "\t            1169 hot_loop+0x20 (/tmp/rec/c-fp)\n"
				   "\t            1278 driver+0x9 (/tmp/rec/c-fp)\n";
	static const char root[] = "\t            128f main+0x15 (/tmp/rec/c-fp)\n";
	static const size_t depth[] = { 2, 3, 2, 2, 3, 3, 2 };
	char text[2048];
	size_t i;
	int rc;
	struct pk_profile *p;

	snprintf(text, sizeof(text),
		 "%s%s\n%s%s%s\n%s%s\n%s%s\r\n%s%s%s\n%s%s%s\n%s%s",
		 header, leaf, header, leaf, root, header, leaf, header, leaf,
		 header, leaf, root, header, leaf, root, header, leaf);
	p = read_text(text, &rc);
	is_int(rc, 0, "chains known whole read");
	is_int(pk_profile_sample_count(p), 7, "seven samples");
	for (i = 0; i < 7 && i < pk_profile_sample_count(p); i++)
		is_int(stack_depth(p, i), depth[i], "sample %zu: %zu frames", i, depth[i]);
	is_str(frame_fn(p, 4, 2, 0), "main", "the longer chain's root");
	pk_profile_free(p);
}

/* Without callchains (perf script -G, or a recording without -g). */
static void test_single_line_field_sets(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"     7f5754e95c1a init_cpu_features.constprop.0\n"
		" 4011      561235326169 hot_loop\n"
		"  main.c:12\n"
		"              dd      561235326169 hot_loop (/tmp/rec/c-fp)\n"
		"            c-fp      561235326169\n"
		" 2421.515863:      561235326169 hot_loop+0x20 (/tmp/rec/c-fp)  0x4005b0/0x400590/P/-/-/0 \n"
		"            c-fp  4011  2421.515863:     500000      561235326169 hot_loop\n",
		&rc);

	is_int(rc, 0, "single-line field sets read");
	is_int(pk_profile_sample_count(p), 6, "one sample per line, the srcline skipped");
	is_str(frame_fn(p, 0, 0, 0), "init_cpu_features.constprop.0", "-F ip,sym");
	is_int(label_num(p, 1, "tid"), 4011, "-F tid,ip,sym: the tid");
	is_str(frame_fn(p, 1, 0, 0), "hot_loop", "and the frame");
	is_str(label_str(p, 2, "comm"), "dd", "a padded comm that looks like hex, before an address");
	is_str(mapping_file(p, 2, 0), "/tmp/rec/c-fp", "the dso");
	is_str(frame_fn(p, 3, 0, 0), "", "-F comm,ip: an address alone");
	is_int(pk_profile_location(p, pk_profile_stack(p, pk_profile_sample(p, 3)->stack,
						       &(size_t){ 0 })[0])->address,
	       0x561235326169ULL, "its address");
	is_str(mapping_file(p, 4, 0), "/tmp/rec/c-fp", "branch entries after the frame are dropped");
	is_int(pk_profile_sample_values(p, 5)[1], 500000, "a period without event, by its padding");
	pk_profile_free(p);
}

static void test_mostly_bad(void)
{
	int rc;
	struct pk_profile *p = read_text(
		"c-fp  4011  2421.514369: cpu-clock: \n"
		"\t 15c1a main (/x)\n"
		"\n"
		"hello\n"
		"world\n"
		"foo bar\n", &rc);

	is_int(rc, PK_EINPUT, "mostly other lines: an error");
	ok(strstr(pk_context_error(ctx)->message,
		  "test: line 4: not a perf script line: 'hello' (3 of 5 lines are not") != NULL,
	   "naming the first bad line: %s", pk_context_error(ctx)->message);
	pk_profile_free(p);

	p = read_text("hello\n", &rc);
	is_int(rc, PK_EINPUT, "a lone comm with no frames is no sample");
	pk_profile_free(p);
}

static void test_detects(const char *text, const char *what)
{
	const struct pk_reader *r = NULL;
	struct pk_input *in;
	int rc;

	pk_context_clear_error(ctx);
	rc = pk_input_open_memory(ctx, "sample", text, strlen(text), &in);
	if (!rc)
		rc = pk_reader_detect(ctx, in, &r);
	ok(rc == 0 && r && strcmp(pk_reader_name(r), "perf-script") == 0, "found without --from: %s", what);
	if (!rc)
		pk_input_close(in);
}

static void test_probe(void)
{
	test_detects("\n\t           15c1a init\n\t               0 [unknown]\n\n"
		     "\n\t           13608 _dl_load_cache_lookup\n\t            81e3 _dl_map_object\n\n",
		     "-F ip,sym");
	test_detects("c-fp \n\t           15c1a init (/x)\n\t               0 [unknown] ([unknown])\n\n"
		     "c-fp \n\t           13608 lookup (/x)\n\t            81e3 map (/x)\n\n",
		     "-F comm,ip,sym,dso");
	test_detects("c-fp  4011 \n\t           15c1a init\n  cpu-features.c:303\n"
		     "\t               0 [unknown]\n\nc-fp  4011 \n\t           13608 lookup\n"
		     "  dl-cache.c:430\n\t            81e3 map\n  dl-load.c:2139\n\n",
		     "-F comm,tid,ip,sym,srcline");
	test_detects("     7f5754e95c1a init\n     7f5754e93608 lookup\n"
		     "     7f5754d39a60 ifunc\n     561235326169 hot_loop\n",
		     "-F ip,sym without callchains");
	test_detects(" 2421.514369: \n\t           15c1a init (/x)\n\n"
		     " 2421.514870: \n\t           13608 lookup (/x)\n\t            81e3 map (/x)\n\n"
		     " 2421.515376: \n\t           b0a60 ifunc (/x)\n\n",
		     "-F time,ip,sym,dso");
}

int main(void)
{
	ctx = pk_context_new();
	test_header_fields();
	test_inlined_frames();
	test_odd_layouts();
	test_no_callchain();
	test_garbage();
	test_callchain_field_sets();
	test_known_chains();
	test_single_line_field_sets();
	test_mostly_bad();
	test_probe();
	pk_context_free(ctx);
	return done_testing();
}
