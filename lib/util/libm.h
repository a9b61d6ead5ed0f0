/* SPDX-License-Identifier: MIT */
/*
 * The two libm functions profkit calls, sqrt (the DOT writer's arrow
 * sizes) and exp (unsampling gperftools heap profiles), with glibc's
 * libm opened when one is first called: linked, libm is mapped at every
 * start and its IFUNC resolvers fault in a quarter of a megabyte, for
 * two formats most runs never touch. The functions are libm's own, so
 * every result is the one the linked call gave.
 */
#ifndef PROFKIT_UTIL_LIBM_H
#define PROFKIT_UTIL_LIBM_H

double pki_sqrt(double x);
double pki_exp(double x);

#endif
