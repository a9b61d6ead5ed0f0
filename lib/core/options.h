/* SPDX-License-Identifier: MIT */
/*
 * The options behind the opaque struct pk_options: readers, writers and
 * the load pipeline read these fields; callers set them by key with
 * pk_options_set (options.c holds the table of keys).
 */
#ifndef PROFKIT_OPTIONS_H
#define PROFKIT_OPTIONS_H

#include <profkit/format.h>

enum pk_value_choice {
	PK_VALUE_AUTO,		/* period when the input has one */
	PK_VALUE_SAMPLES,
	PK_VALUE_PERIOD,
};

struct pk_options {
	/* reading */
	const char *from;	/* a reader's name; NULL: detect */
	enum pk_value_choice value;
	const char *event;	/* keep this event only; NULL: the first */
	const char *sample_type;	/* show this sample type (by name) */
	unsigned threads;	/* threads reading one large text input;
				 * 0: one per core */
	unsigned max_stack;	/* frames kept per stack, leaf side;
				 * 0: PK_DEFAULT_MAX_STACK */

	/* folded */
	unsigned include_pid : 1;
	unsigned include_tid : 1;
	unsigned annotate_kernel : 1;
	unsigned annotate_jit : 1;
	unsigned show_addrs : 1;
	unsigned no_comm : 1;

	/* pprof */
	unsigned no_gzip : 1;
	unsigned no_labels : 1;

	/* speedscope */
	unsigned speedscope_evented : 1;

	/* perf script: -F comm,pid,tid,time,event,ip,dso (no symbols) */
	unsigned addresses_only : 1;

	/* flamegraph */
	const char *title;	/* NULL: "Flame Graph" or "Icicle Graph" */
	const char *colors;	/* palette "hot" (NULL), "mem" or "io" */
	unsigned width;		/* image width in pixels; 0: 1200 */
	unsigned icicle : 1;	/* root at the top */
	unsigned diff : 1;	/* require "base" and "new" counts */

	/* dot: prune nodes and edges under these percentages of the total */
	double node_thres, edge_thres;

	/* filter: keep samples with this tracepoint field, "NAME=VALUE" */
	const char *field;

	/* symbolization */
	unsigned no_symbolize : 1;
	unsigned inline_frames : 1;	/* inlined functions as frames always */
	int demangle;		/* enum pk_demangle; -1: the input's tool's */
	const char *binary;	/* the main program */
	const char *symbol_path;	/* DIR[:DIR...] searched for binaries */
	const char *symfs;	/* root of another machine's files */
	const char *kallsyms;	/* kernel symbols */
	unsigned no_unwind : 1;	/* perf.data: leave --call-graph dwarf
				 * user stacks at the sampled frame */

	/* jfr: method names end in their descriptor */
	unsigned jfr_signatures : 1;
};

/* The defaults, for calls given no options; they own no strings. */
extern const struct pk_options pki_default_options;

#endif
