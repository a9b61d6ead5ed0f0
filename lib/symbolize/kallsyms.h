/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols: kallsyms tables, from --kallsyms, perf's build-id cache
 * or /proc/kallsyms when the recording is of the running kernel, each
 * read once (the first on a thread of its own, while the libraries'
 * DWARF is read, the symbolizer scanning the rest of the file with it
 * when it gets there) and shared by the kernel and its modules. A table holds
 * only the symbols of the addresses a profile wants (sym_kernel_want),
 * and so answers only for those: another profile through the same
 * symbolizer costs one more pass over each file.
 */
#ifndef PROFKIT_SYMBOLIZE_KALLSYMS_H
#define PROFKIT_SYMBOLIZE_KALLSYMS_H

#include <pthread.h>
#include <stdint.h>

#include "symtab.h"

struct pk_context;
struct kallsyms_scan;

struct sym_kernel {
	struct pk_context *ctx;
	const char *kallsyms;	/* --kallsyms, or NULL (borrowed) */
	const char *home_debug;	/* perf's build-id cache, or NULL (borrowed) */
	int local_kernel;	/* recorded on the running kernel */
	struct symtab **tabs;	/* by path */
	size_t ntabs, tabs_cap;
	uint64_t *want;		/* the profile's kernel addresses, sorted */
	size_t nwant, want_cap;
	char *running_build_id;	/* of the running kernel, or "" */
	uint64_t warned;
	/* kallsyms read on a thread while DWARF is inflated */
	struct {
		pthread_t thread;
		int running;
		char *path;
		struct kallsyms_scan *job;	/* its scan, until adopted */
	} prefetch;
};

void sym_kernel_init(struct sym_kernel *k, struct pk_context *ctx,
		     const char *kallsyms, const char *home_debug,
		     int local_kernel);
/* The kernel addresses (of the kernel and its modules) that lookups will
 * ask for, before any (symtab_find on a table of sym_kernel_symbols
 * finds only these): 0, or -1 when out of memory. */
int sym_kernel_want(struct sym_kernel *k, const uint64_t *addrs, size_t n);
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
