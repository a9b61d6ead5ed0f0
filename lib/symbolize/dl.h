/* SPDX-License-Identifier: MIT */
/*
 * Libraries opened when first needed instead of linked: every linked
 * library is mapped and relocated at each start, --version included,
 * for features most runs never use (libdebuginfod, libstdc++).
 */
#ifndef PROFKIT_SYMBOLIZE_DL_H
#define PROFKIT_SYMBOLIZE_DL_H

/* Sets the function pointer at fn to the function name of the library
 * soname (opened RTLD_LAZY; callers do it once): 0, or -1 with *fn
 * NULL when the library or the function is missing. */
int sym_dl_function(const char *soname, const char *name, void *fn);

#endif
