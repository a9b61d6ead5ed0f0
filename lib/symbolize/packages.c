/* SPDX-License-Identifier: MIT */
/*
 * Debug packages of files (packages.h), from dpkg's database: each
 * installed package's info/PACKAGE[:ARCH].list names its files, one a
 * line, as dpkg put them on the disk.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packages.h"
#include "util/strings.h"

#define MAX_PATHS 16

/*
 * The other name of a path under a merged /usr (Debian 12: /lib is
 * /usr/lib): dpkg lists a file by the name its package installed it
 * under, perf records the name the kernel resolved. "" when none.
 */
static void usrmerge_alias(const char *path, char *out, size_t size)
{
	static const char *const merged[] = {
		"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
	};
	const char *rest = pki_starts_with(path, "/usr/") ? path + 4 : path;
	size_t i;

	out[0] = '\0';
	for (i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		if (!pki_starts_with(rest, merged[i]))
			continue;
		if (rest == path)
			snprintf(out, size, "/usr%s", path);
		else
			snprintf(out, size, "%s", rest);
		return;
	}
}

/* glibc's libraries: their debug symbols are libc6-dbg, not -dbgsym */
static int is_glibc_library(const char *path)
{
	static const char *const names[] = {
		"ld-linux", "ld64.so.", "libc.so.", "libm.so.", "libmvec.so.",
		"libpthread.so.", "libdl.so.", "librt.so.", "libresolv.so.",
		"libanl.so.", "libutil.so.", "libnss_", "libthread_db.so.",
		"libBrokenLocale.so.", "libc_malloc_debug.so.",
	};
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (pki_starts_with(base, names[i]))
			return 1;
	return 0;
}

static char *debug_package(const char *package)
{
	size_t n = strlen(package);
	char *name = malloc(n + sizeof("-dbgsym"));

	if (name)
		snprintf(name, n + sizeof("-dbgsym"), "%s%s", package,
			 strcmp(package, "libc6") == 0 ? "-dbg" : "-dbgsym");
	return name;
}

/* The owners among one package's files: debug[i] for each path it lists. */
static void scan_list(const char *list, const char *package,
		      char (*names)[2][512], size_t n, char **debug)
{
	FILE *f = fopen(list, "re");
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t len;

	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		for (i = 0; i < n; i++)
			if (!debug[i] && (strcmp(line, names[i][0]) == 0 ||
					  (names[i][1][0] &&
					   strcmp(line, names[i][1]) == 0)))
				debug[i] = debug_package(package);
	}
	free(line);
	fclose(f);
}

/* The packages that ship the paths here, as dpkg -S says. */
static void dpkg_owners(char (*names)[2][512], size_t n, char **debug)
{
	const char *admin = getenv("DPKG_ADMINDIR");
	char dir[512], list[1024], package[256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/info",
		 admin && *admin ? admin : "/var/lib/dpkg");
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *arch;

		if (!pki_ends_with(de->d_name, ".list") ||
		    len - 5 >= sizeof(package))
			continue;
		memcpy(package, de->d_name, len - 5);
		package[len - 5] = '\0';
		arch = strchr(package, ':');
		if (arch)
			*arch = '\0';
		snprintf(list, sizeof(list), "%s/%s", dir, de->d_name);
		scan_list(list, package, names, n, debug);
	}
	closedir(d);
}

void sym_debug_packages(const char *const *paths, size_t n, char **debug)
{
	char names[MAX_PATHS][2][512];
	size_t i;

	for (i = MAX_PATHS; i < n; i++)
		debug[i] = NULL;	/* more than a summary shows */
	if (n > MAX_PATHS)
		n = MAX_PATHS;
	for (i = 0; i < n; i++) {
		debug[i] = NULL;
		snprintf(names[i][0], sizeof(names[i][0]), "%s", paths[i]);
		usrmerge_alias(paths[i], names[i][1], sizeof(names[i][1]));
	}
	dpkg_owners(names, n, debug);
	for (i = 0; i < n; i++)
		if (!debug[i] && is_glibc_library(paths[i]))
			debug[i] = strdup("libc6-dbg");
}
