/* SPDX-License-Identifier: MIT */
/* libm opened when first needed (libm.h). */
#include "util/libm.h"

#ifdef HAVE_GNU_LIB_NAMES_H
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double (*libm_sqrt)(double);
static double (*libm_exp)(double);
static pthread_once_t libm_once = PTHREAD_ONCE_INIT;

/* POSIX: data and function pointers agree, copied as bytes. */
static int resolve(void *so, const char *name, double (**fn)(double))
{
	void *sym = so ? dlsym(so, name) : NULL;

	memcpy(fn, &sym, sizeof(sym));
	return sym ? 0 : -1;
}

/* libm is part of glibc itself: without it the C library is broken,
 * and no answer would be right. */
static void open_libm(void)
{
	void *so = dlopen(LIBM_SO, RTLD_LAZY);

	if (resolve(so, "sqrt", &libm_sqrt) || resolve(so, "exp", &libm_exp)) {
		fprintf(stderr, "profkit: cannot open %s: %s\n", LIBM_SO,
			dlerror());
		abort();
	}
}

double pki_sqrt(double x)
{
	pthread_once(&libm_once, open_libm);
	return libm_sqrt(x);
}

double pki_exp(double x)
{
	pthread_once(&libm_once, open_libm);
	return libm_exp(x);
}

#else	/* libm linked, as elsewhere it costs nothing (musl: in libc) */
#include <math.h>

double pki_sqrt(double x)
{
	return sqrt(x);
}

double pki_exp(double x)
{
	return exp(x);
}
#endif
