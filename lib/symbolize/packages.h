/* SPDX-License-Identifier: MIT */
/*
 * Which Debian package holds the debug symbols of a file: the package
 * that ships the file on this machine, as `dpkg -S` answers from dpkg's
 * lists of installed files ($DPKG_ADMINDIR, else /var/lib/dpkg), and
 * the name of its debug package. Where this machine does not have the
 * file, only glibc's libraries are known by name.
 */
#ifndef PROFKIT_SYMBOLIZE_PACKAGES_H
#define PROFKIT_SYMBOLIZE_PACKAGES_H

#include <stddef.h>

/*
 * For each of n recorded paths, the name of the Debian package with its
 * debug symbols (malloc'd) into debug[i], or NULL when unknown: libc6-dbg
 * for glibc's libraries, else the owning package's automatic debug
 * package, PACKAGE-dbgsym. One pass over dpkg's lists for all of them.
 */
void sym_debug_packages(const char *const *paths, size_t n, char **debug);

#endif
