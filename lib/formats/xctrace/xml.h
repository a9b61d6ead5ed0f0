/* SPDX-License-Identifier: MIT */
/*
 * The XML that `xctrace export` writes, read from memory: elements,
 * attributes, character data and the five predefined entities with
 * character references. Comments, processing instructions, CDATA
 * sections and a DOCTYPE without declarations are skipped; a DOCTYPE
 * that declares (entities among them) is refused, so nothing is fetched
 * and nothing expands into more than it replaces. Nesting is bounded
 * and tags must match: the first fault is an error naming its offset.
 * Internal to the xctrace reader.
 */
#ifndef PROFKIT_XCTRACE_XML_H
#define PROFKIT_XCTRACE_XML_H

#include <stddef.h>

#include "util/strbuf.h"

#define PKI_XML_MAX_DEPTH 256

enum pki_xml_kind {
	PKI_XML_START,		/* <name attrs> */
	PKI_XML_END,		/* </name> */
	PKI_XML_EMPTY,		/* <name attrs/>: a start and its end */
	PKI_XML_TEXT,		/* character data, entities still escaped */
	PKI_XML_CDATA,		/* a CDATA section's text, as it is */
	PKI_XML_DONE,		/* the end of the document */
};

struct pki_xml_token {
	enum pki_xml_kind kind;
	const char *name;	/* START, END, EMPTY */
	size_t name_len;
	const char *attrs;	/* START, EMPTY: checked, unescaped on demand */
	size_t attrs_len;
	const char *text;	/* TEXT, CDATA */
	size_t text_len;
};

struct pki_xml {
	const char *start, *at, *end;
	struct { const char *name; size_t len; } open[PKI_XML_MAX_DEPTH];
	size_t depth;
	int root_closed;
	const char *error;	/* what is wrong, at error_offset */
	size_t error_offset;
};

void pki_xml_init(struct pki_xml *x, const char *data, size_t len);
/* The next token: 0, or -1 with x->error and x->error_offset set. */
int pki_xml_next(struct pki_xml *x, struct pki_xml_token *t);
/* The raw (escaped) value of attribute name of t, or NULL. */
const char *pki_xml_attr(const struct pki_xml_token *t, const char *name,
			 size_t *len);
/* s with its entities and character references replaced, appended to
 * out: 0, or -1 for an unknown entity or one malformed, or no memory. */
int pki_xml_unescape(const char *s, size_t len, struct pk_strbuf *out);

#endif
