/* SPDX-License-Identifier: MIT */
/*
 * What a load left without names, said once at its end: the share of
 * samples with frames no file here could name, the files that weigh
 * most, and what would name them (the recording machine's files by
 * --symfs or `perf archive`, a Debian debug package, a debuginfod
 * server). The kernel is not among them: kallsyms says what it lacks.
 */
#ifndef PROFKIT_SYMBOLIZE_UNNAMED_H
#define PROFKIT_SYMBOLIZE_UNNAMED_H

#include <stddef.h>
#include <stdint.h>

struct pk_context;

/* One recorded file with frames left without names. */
struct sym_unnamed {
	const char *file;	/* as recorded */
	const char *build_id;	/* as recorded, "" when none */
	const char *found;	/* the file opened, which names none of them,
				 * or NULL: nothing found */
	const char *other_build;	/* a file by its name, of another build */
	int jit;		/* a JIT's /tmp/perf-PID.map */
	int64_t weight;		/* samples with such a frame of it */
};

/*
 * One warning for the n files (sorted here, heaviest first): unnamed is
 * the weight of the samples with any frame of them, total that of all
 * samples (0: no samples, no shares); debuginfod: servers were asked.
 */
void sym_warn_unnamed(struct pk_context *ctx, struct sym_unnamed *files,
		      size_t n, int64_t unnamed, int64_t total, int debuginfod);

#endif
