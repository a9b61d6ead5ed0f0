/* SPDX-License-Identifier: MIT */
/* Libraries opened when first needed (dl.h). */
#include <dlfcn.h>
#include <string.h>

#include "dl.h"

int sym_dl_function(const char *soname, const char *name, void *fn)
{
	void *so = dlopen(soname, RTLD_LAZY);
	void *sym = so ? dlsym(so, name) : NULL;

	memcpy(fn, &sym, sizeof(sym));	/* POSIX: data and code pointers agree */
	return sym ? 0 : -1;
}
