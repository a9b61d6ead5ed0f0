/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols: kallsyms tables, from --kallsyms, perf's build-id cache
 * or /proc/kallsyms when the recording is of the running kernel, each
 * read once (the first on a thread of its own, while the libraries'
 * DWARF is read) and shared by the kernel and its modules.
 */
#ifndef PROFKIT_SYMBOLIZE_KALLSYMS_H
#define PROFKIT_SYMBOLIZE_KALLSYMS_H

#include <pthread.h>
#include <stdint.h>

#include "symtab.h"

struct pk_context;

struct sym_kernel {
	struct pk_context *ctx;
	const char *kallsyms;	/* --kallsyms, or NULL (borrowed) */
	const char *home_debug;	/* perf's build-id cache, or NULL (borrowed) */
	int local_kernel;	/* recorded on the running kernel */
	struct symtab **tabs;	/* by path */
	size_t ntabs, tabs_cap;
	char *running_build_id;	/* of the running kernel, or "" */
	uint64_t warned;
	/* kallsyms read on a thread while DWARF is inflated */
	struct {
		pthread_t thread;
		int running;
		char *path;
		uint64_t max;
		struct symtab *tab;
	} prefetch;
};

void sym_kernel_init(struct sym_kernel *k, struct pk_context *ctx,
		     const char *kallsyms, const char *home_debug,
		     int local_kernel);
/* Start reading the kallsyms that sym_kernel_symbols will want first. */
void sym_kernel_prefetch(struct sym_kernel *k, const char *build_id);
/* Wait for the thread, if one runs. */
void sym_kernel_join(struct sym_kernel *k);
/* The symbols of the kernel mapping file (a table k owns), or NULL after
 * a warning (given once). */
const struct symtab *sym_kernel_symbols(struct sym_kernel *k,
					const char *file,
					const char *build_id);
void sym_kernel_release(struct sym_kernel *k);

#endif
