/* SPDX-License-Identifier: MIT */
/*
 * What a mapping's file name says it is, before any file is looked at:
 * anonymous memory (nothing to look up), the kernel or a module (kallsyms),
 * a JIT's /tmp/perf-PID.map, or a file (ELF), and of files, whether one
 * is the main program that --binary stands for.
 */
#ifndef PROFKIT_SYMBOLIZE_MAPPING_H
#define PROFKIT_SYMBOLIZE_MAPPING_H

enum sym_map_kind {
	SYM_MAP_ANON,		/* no file: //anon, [heap], [stack] ... */
	SYM_MAP_KERNEL,		/* [kernel.kallsyms], modules */
	SYM_MAP_JIT,		/* /tmp/perf-PID.map */
	SYM_MAP_FILE,		/* an ELF file, or [vdso] */
};

/* The kind of a mapping of file (" (deleted)" after it or not). */
enum sym_map_kind sym_map_kind(const char *file);

/* A mapped file that can be the main program --binary stands for: not
 * a library, the kernel, JIT code or anonymous memory. */
int sym_is_program(const char *file);

/* " (deleted)" cut off, as /proc/PID/maps says after the file was
 * replaced (malloc'd). */
char *sym_strip_deleted(const char *file);

#endif
