/* SPDX-License-Identifier: MIT */
/*
 * What the model leaves unnamed, named as people read it: a thread,
 * from its comm, pid and tid labels, and a frame without a function.
 * Each reference tool has its own way; each way is a choice here that
 * its writer names, not a copy in the writer.
 */
#ifndef PROFKIT_CORE_NAMES_H
#define PROFKIT_CORE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include <profkit/profkit.h>

#include "util/strbuf.h"

/* perf's word for what it cannot name: a function, or a mapping's file. */
#define PKI_UNKNOWN "[unknown]"

/* ---- threads ---- */

/* The label keys of threads, looked up once per profile (0: none). */
struct pki_thread_keys {
	pk_str comm, pid, tid;
};

/* A sample's thread, as its labels give it. */
struct pki_thread {
	int has_comm, has_pid, has_tid;	/* which labels the sample has */
	pk_str comm;			/* 0 unless comm is a string */
	int64_t pid, tid;		/* numbers: a string is no pid */
};

void pki_thread_keys(const struct pk_profile *p, struct pki_thread_keys *k);
void pki_thread_of(const struct pk_profile *p, const struct pki_thread_keys *k,
		   uint32_t labels, struct pki_thread *t);

/*
 * A comm without the blanks around it: perf script pads comms to 16
 * columns, which perf.data's do not have. *len bytes at the result.
 */
const char *pki_thread_comm(const struct pk_profile *p, pk_str comm,
			    size_t *len);

/* What follows the comm in a thread's name. */
enum pki_thread_style {
	PKI_THREAD_COMM,	 /* "app" */
	PKI_THREAD_COMM_TID,	 /* "app 43", the pid without a tid: speedscope */
	PKI_THREAD_COMM_PID,	 /* "app-42", "app-?": stackcollapse-perf.pl --pid */
	PKI_THREAD_COMM_PID_TID, /* "app-42/43", a tid of 0 without one: --tid */
};

/* The style of stackcollapse-perf.pl's --pid and --tid (0 or 1 each). */
enum pki_thread_style pki_stackcollapse_style(int pid, int tid);

struct pki_thread_name {
	enum pki_thread_style style;
	int trim;		/* the comm as pki_thread_comm gives it */
	int underscores;	/* blanks as '_', as stackcollapse-perf.pl */
	const char *fallback;	/* for a name that would be empty, or NULL */
};

/* Append t's name to b. Returns 0, or -1 when out of memory. */
int pki_thread_name(struct pk_strbuf *b, const struct pk_profile *p,
		    const struct pki_thread *t, const struct pki_thread_name *how);

/* ---- frames without a function ---- */

/* Whether a function name names nothing: empty, or perf's "[unknown]". */
int pki_is_unknown_function(const char *name);

/* name, or "[unknown]" for none: as perf script prints a frame. */
const char *pki_function_name(const char *name);

/*
 * A mapping's file as a frame's module: without directories or perf's
 * " (deleted)". Returns its length at *base, 0 for none (no file, or
 * perf's "[unknown]").
 */
size_t pki_module_name(const char *file, const char **base);

/*
 * A file's name as pprof prints it (Go's filepath.Base): the last element
 * of path, trailing slashes dropped, "/" for "/". Returns its length at
 * *base.
 */
size_t pki_path_base(const char *path, const char **base);

enum pki_unknown_style {
	/* "[libc.so.6]" (pki_module_name's), "[unknown]" without a
	 * module: stackcollapse-perf.pl */
	PKI_UNKNOWN_STACKCOLLAPSE,
	/* "[libc.so.6]" (filepath.Base's), "<unknown>" without a file:
	 * pprof -top */
	PKI_UNKNOWN_PPROF,
};

struct pki_unknown_name {
	enum pki_unknown_style style;
	/* a module bracketed already ("[kernel.kallsyms]") stays as it is,
	 * not "[[kernel.kallsyms]]" as stackcollapse-perf.pl has it */
	int keep_brackets;
	/* the address too: "[libc.so.6 <7f01>]", as stackcollapse-perf.pl
	 * --addrs (a bracketed module kept as it is has none) */
	int address;
};

/*
 * Append the name of a frame at address in file (the mapping's, "" for
 * none) that has no function to b. Returns 0, or -1 when out of memory.
 */
int pki_unknown_name(struct pk_strbuf *b, const char *file, uint64_t address,
		     const struct pki_unknown_name *how);

#endif
