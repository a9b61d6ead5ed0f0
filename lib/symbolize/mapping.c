/* SPDX-License-Identifier: MIT */
/* What a mapping's file name says it is (mapping.h). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "mapping.h"

/* what /proc/PID/maps says of a file replaced since it was mapped */
#define DELETED " (deleted)"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Mappings of no file: nothing to look up and nothing to warn about. */
static int is_anonymous(const char *file)
{
	static const char *const prefixes[] = {
		"//anon", "/anon_hugepage", "/dev/zero", "/memfd:", "/SYSV",
		"[anon", "[heap]", "[stack", "[vvar", "[vsyscall]",
		"[uprobes]", "[unknown]", "[vectors]", "[sigpage]",
	};
	size_t i;

	if (!*file)
		return 1;
	for (i = 0; i < PK_ARRAY_SIZE(prefixes); i++)
		if (pki_starts_with(file, prefixes[i]))
			return 1;
	return 0;
}

/* The kernel, a module ("/lib/modules/.../x.ko.xz", "[nf_tables]"), or
 * BPF and trampoline code ("[bpf_prog]"); not [vdso], a file. */
static int is_kernel(const char *file)
{
	static const char *const modules[] = {
		".ko", ".ko.xz", ".ko.gz", ".ko.zst",
	};
	size_t i;

	if (pki_starts_with(file, "[kernel.kallsyms]") ||
	    pki_starts_with(file, "[guest.kernel.kallsyms"))
		return 1;
	for (i = 0; i < PK_ARRAY_SIZE(modules); i++)
		if (pki_ends_with(file, modules[i]))
			return 1;
	return file[0] == '[' && pki_ends_with(file, "]") &&
	       strcmp(file, "[vdso]") != 0;
}

/* "/tmp/perf-1234.map": symbols that a JIT wrote for its code. */
static int is_perf_map(const char *file)
{
	const char *b = base_name(file), *p;

	if (!pki_starts_with(b, "perf-") || !pki_ends_with(b, ".map"))
		return 0;
	for (p = b + 5; *p >= '0' && *p <= '9'; p++)
		;
	return p > b + 5 && strcmp(p, ".map") == 0;
}

static enum sym_map_kind kind_of(const char *file)
{
	if (is_anonymous(file))
		return SYM_MAP_ANON;
	if (is_kernel(file))
		return SYM_MAP_KERNEL;
	if (is_perf_map(file))
		return SYM_MAP_JIT;
	return SYM_MAP_FILE;
}

enum sym_map_kind sym_map_kind(const char *file)
{
	char name[4096];
	size_t len = strlen(file);

	if (!pki_ends_with(file, DELETED) || len >= sizeof(name))
		return kind_of(file);
	len -= strlen(DELETED);
	memcpy(name, file, len);
	name[len] = '\0';
	return kind_of(name);
}

/* "libc.so.6", "ld-linux-x86-64.so.2", "libfoo.so": not the program. */
static int is_shared_library(const char *file)
{
	const char *so = strstr(base_name(file), ".so");

	return so && (so[3] == '\0' || so[3] == '.');
}

int sym_is_program(const char *file)
{
	return sym_map_kind(file) == SYM_MAP_FILE &&
	       !is_shared_library(file) && file[0] != '[';
}

char *sym_strip_deleted(const char *file)
{
	size_t len = strlen(file);

	if (pki_ends_with(file, DELETED))
		len -= strlen(DELETED);
	return strndup(file, len);
}
