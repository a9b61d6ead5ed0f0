/* SPDX-License-Identifier: MIT */
/*
 * The options of folding, as stackcollapse-perf.pl takes them. They are
 * declared under the folded format's name ("folded:pid"): the folded
 * format lists them as its own, and every writer that folds stacks
 * (flame graphs too) reads them from there.
 */
#ifndef PROFKIT_TRANSFORMS_FOLD_H
#define PROFKIT_TRANSFORMS_FOLD_H

#include "core/options.h"

extern const struct pki_option pki_fold_options[];

struct pki_fold_settings {
	unsigned include_pid : 1;	/* root frame "comm-PID" */
	unsigned include_tid : 1;	/* root frame "comm-PID/TID" */
	unsigned annotate_kernel : 1;	/* kernel frames end in "_[k]" */
	unsigned annotate_jit : 1;	/* JIT frames end in "_[j]" */
	unsigned show_addrs : 1;	/* "[dso <addr>]" for unknown frames */
	unsigned no_comm : 1;		/* no root frame for the thread */
};

/* The settings of folding that opts (NULL: the defaults) give. */
void pki_fold_settings(const struct pk_options *opts,
		       struct pki_fold_settings *s);

#endif
