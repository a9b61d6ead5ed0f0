/* SPDX-License-Identifier: MIT */
/*
 * The trace text of tracepoint samples printed by profkit where it
 * prints as libtraceevent does (tracing-text.c), for tracing.c.
 */
#ifndef PROFKIT_TRACING_TEXT_H
#define PROFKIT_TRACING_TEXT_H

#include <stddef.h>

struct tep_event;
struct pd_text_template;

/*
 * What of ev's trace text profkit prints itself, for the samples of a
 * recording of that byte order; NULL when none of it (a print format of
 * another shape) or out of memory.
 */
struct pd_text_template *pd_text_template_new(struct tep_event *ev, int big);
void pd_text_template_free(struct pd_text_template *t);

/*
 * The trace text of raw, a sample of the template's event whose fields
 * lie within it, into *text and *len (valid until the next call): 1;
 * or 0 when libtraceevent must print it, and then pd_text_learn what it
 * printed.
 */
int pd_text_print(struct pd_text_template *t, const unsigned char *raw,
		  const char **text, size_t *len);
void pd_text_learn(struct pd_text_template *t, const unsigned char *raw,
		   const char *text, size_t len);

#endif
