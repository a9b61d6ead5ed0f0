/* SPDX-License-Identifier: MIT */
/*
 * The trace text of tracepoint samples as profkit prints it itself
 * (tracing-text.c) against libtraceevent's, sample by sample: sched_switch
 * as a 6.x kernel formats it, with comms of every kind (spaces, bytes
 * past ASCII, 15 characters and none), negative pids, and prev_state
 * values from none to all flags; a print format of another shape is
 * libtraceevent's alone, and one libtraceevent prints otherwise than
 * expected is left to it from then on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "formats/perf-data/tracing-text.h"
#include "tap.h"

/* the fields every event has first */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | "
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
	"0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & "
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", "
	"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) "
	"<< 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/* a print format with a function's address: libtraceevent's alone */
static const char timer_start[] =
	"name: timer_start\n"
	"ID: 400\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:void * function;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int cpu;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"function=%ps cpu=%d\", REC->function, REC->cpu\n";

/* a print format that is all one run: nothing printed before or after */
static const char cpu_idle[] =
	"name: cpu_idle\n"
	"ID: 401\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\", REC->state ? \"busy\" : \"idle\"\n";

static const char *const comms[] = {
	"naps", "napper-wait", "swapper/1", "kworker/u8:2 x", "fifteen-chars-x",
	"", "caf\xc3\xa9", "\xff\xfe", " lead", "ends ",
};

static const int64_t states[] = {
	0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 1 | 256, 2 | 256, 0x7f, 0xff,
	0x1ff, -1, 0x4000,
};

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* A sched_switch's raw data, its fields picked by r. */
static void make_sample(unsigned char *raw, unsigned r)
{
	const char *prev = comms[r % 10], *next = comms[r / 10 % 10];
	int64_t state = states[r / 100 % 17];
	int32_t pid = (int32_t)(r * 2654435761u) >> (r % 20);

	memset(raw, 0, 64);
	raw[0] = 372 & 0xff;
	raw[1] = 372 >> 8;
	put32(raw + 4, r);	/* common_pid varies and is not shown */
	memcpy(raw + 8, prev, strlen(prev));
	put32(raw + 24, (uint32_t)pid);
	put32(raw + 28, (uint32_t)(r % 140) - 20);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 40, next, strlen(next));
	put32(raw + 56, (uint32_t)-pid);
	put32(raw + 60, r % 7 == 0 ? (uint32_t)-1 : 120);
}

static void print_event(struct tep_handle *tep, struct trace_seq *seq,
			unsigned char *raw, int size)
{
	struct tep_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.size = size;
	rec.data = raw;
	trace_seq_reset(seq);
	tep_print_event(tep, seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(seq);
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	struct pd_text_template *t;
	struct trace_seq seq;
	unsigned char raw[64 + 16];
	unsigned r, same = 0, ours = 0;
	const char *text;
	size_t len;

	trace_seq_init(&seq);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	if (tep_parse_event(tep, sched_switch, sizeof(sched_switch) - 1, "sched") ||
	    tep_parse_event(tep, timer_start, sizeof(timer_start) - 1, "timer") ||
	    tep_parse_event(tep, cpu_idle, sizeof(cpu_idle) - 1, "power"))
		return 99;

	t = pd_text_template_new(tep_find_event(tep, 372), 0);
	ok(t != NULL, "sched_switch: profkit prints its trace text");
	for (r = 0; t && r < 20000; r++) {
		make_sample(raw, r * 7919 % 17000);
		print_event(tep, &seq, raw, 64);
		if (pd_text_print(t, raw, &text, &len)) {
			ours++;
			same += len == seq.len && memcmp(text, seq.buffer, len) == 0;
		} else {
			pd_text_learn(t, raw, seq.buffer, seq.len);
			same++;
		}
	}
	ok(same == r, "every sample as libtraceevent prints it (%u of %u)",
	   same, r);
	ok(ours > r - 100, "profkit printed all but the states met first "
	   "(%u of %u)", ours, r);

	make_sample(raw, 4242);
	print_event(tep, &seq, raw, 64);
	ok(t && pd_text_print(t, raw, &text, &len) && len == seq.len,
	   "a known state with other comms and pids: printed");
	/* libtraceevent printed otherwise than the rest of the format says */
	make_sample(raw, 4243 + 1700);
	if (t)
		pd_text_learn(t, raw, "prev_comm=?", 11);
	make_sample(raw, 4242);
	ok(t && !pd_text_print(t, raw, &text, &len),
	   "a text cut otherwise: libtraceevent's from then on");
	pd_text_template_free(t);

	t = pd_text_template_new(tep_find_event(tep, 400), 0);
	ok(t == NULL, "%%ps: libtraceevent's alone");
	pd_text_template_free(t);

	/* a state first met is cut out of libtraceevent's text */
	t = pd_text_template_new(tep_find_event(tep, 372), 0);
	make_sample(raw, 5);
	ok(t && !pd_text_print(t, raw, &text, &len),
	   "a state not met: libtraceevent prints it");
	pd_text_template_free(t);

	/* nothing before or after the run: empty texts to compare with */
	t = pd_text_template_new(tep_find_event(tep, 401), 0);
	memset(raw, 0, sizeof(raw));
	raw[0] = 401 & 0xff;
	raw[1] = 401 >> 8;
	put32(raw + 8, 3);
	print_event(tep, &seq, raw, 16);
	if (t)
		pd_text_learn(t, raw, seq.buffer, seq.len);
	put32(raw + 12, 4);	/* cpu_id is not printed */
	print_event(tep, &seq, raw, 16);
	ok(t && pd_text_print(t, raw, &text, &len) && len == seq.len &&
	   memcmp(text, seq.buffer, len) == 0,
	   "all one run: '%s'", seq.buffer);
	pd_text_template_free(t);

	trace_seq_destroy(&seq);
	tep_free(tep);
	return done_testing();
}
