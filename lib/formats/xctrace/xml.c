/* SPDX-License-Identifier: MIT */
/* A small XML tokenizer for xctrace's exports (xml.h). */
#include <string.h>

#include "xml.h"
#include "util/strings.h"

void pki_xml_init(struct pki_xml *x, const char *data, size_t len)
{
	memset(x, 0, sizeof(*x));
	x->start = x->at = data;
	x->end = data + len;
	/* a UTF-8 byte order mark */
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		x->at += 3;
}

static int fail(struct pki_xml *x, const char *at, const char *what)
{
	x->error = what;
	x->error_offset = (size_t)(at - x->start);
	return -1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (unsigned char)c >= 0x80;
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/* A name at s: its end, or NULL. */
static const char *name_end(const char *s, const char *end)
{
	if (s >= end || !is_name_start(*s))
		return NULL;
	while (s < end && is_name_char(*s))
		s++;
	return s;
}

/* Skip to past the terminator: 0, or -1 when it never comes. */
static int skip_past(struct pki_xml *x, const char *terminator, const char *what)
{
	size_t n = strlen(terminator);
	const char *found = memmem(x->at, (size_t)(x->end - x->at), terminator, n);

	if (!found)
		return fail(x, x->at, what);
	x->at = found + n;
	return 0;
}

/* <name attr="v" ...> or <name .../>, x->at past the '<'. */
static int start_tag(struct pki_xml *x, struct pki_xml_token *t)
{
	const char *s = x->at, *e = name_end(s, x->end);

	if (!e)
		return fail(x, s - 1, "a '<' that starts no tag");
	if (x->root_closed && !x->depth)
		return fail(x, s - 1, "a second root element");
	t->name = s;
	t->name_len = (size_t)(e - s);
	t->attrs = e;
	for (s = e;;) {
		const char *after = skip_blanks(s, x->end);
		char quote;

		if (after >= x->end)
			return fail(x, t->name - 1, "a tag that never ends");
		if (*after == '>' || (*after == '/' && after + 1 < x->end && after[1] == '>')) {
			t->attrs_len = (size_t)(after - t->attrs);
			t->kind = *after == '>' ? PKI_XML_START : PKI_XML_EMPTY;
			x->at = after + (*after == '>' ? 1 : 2);
			break;
		}
		if (after == s || !(e = name_end(after, x->end)))
			return fail(x, after, "not an attribute 'name=\"value\"'");
		s = skip_blanks(e, x->end);
		if (s >= x->end || *s != '=')
			return fail(x, after, "not an attribute 'name=\"value\"'");
		s = skip_blanks(s + 1, x->end);
		if (s >= x->end || (*s != '"' && *s != '\''))
			return fail(x, after, "an attribute value without quotes");
		quote = *s++;
		while (s < x->end && *s != quote && *s != '<')
			s++;
		if (s >= x->end || *s != quote)
			return fail(x, after, "an attribute value that never ends");
		s++;
	}
	if (t->kind == PKI_XML_START) {
		if (x->depth == PKI_XML_MAX_DEPTH)
			return fail(x, t->name - 1, "elements nested too deep");
		x->open[x->depth].name = t->name;
		x->open[x->depth++].len = t->name_len;
	} else if (!x->depth) {
		x->root_closed = 1;
	}
	return 0;
}

/* </name>, x->at past the "</". */
static int end_tag(struct pki_xml *x, struct pki_xml_token *t)
{
	const char *s = x->at, *e = name_end(s, x->end), *close;

	if (!e)
		return fail(x, s - 2, "a '</' that ends no tag");
	close = skip_blanks(e, x->end);
	if (close >= x->end || *close != '>')
		return fail(x, s - 2, "an end tag that never ends");
	if (!x->depth || x->open[x->depth - 1].len != (size_t)(e - s) ||
	    memcmp(x->open[x->depth - 1].name, s, (size_t)(e - s)))
		return fail(x, s - 2, "an end tag that matches no start tag");
	t->kind = PKI_XML_END;
	t->name = s;
	t->name_len = (size_t)(e - s);
	x->at = close + 1;
	if (!--x->depth)
		x->root_closed = 1;
	return 0;
}

int pki_xml_next(struct pki_xml *x, struct pki_xml_token *t)
{
	memset(t, 0, sizeof(*t));
	for (;;) {
		const char *s = x->at;
		size_t left = (size_t)(x->end - s);

		if (s >= x->end) {
			if (x->depth)
				return fail(x, s, "the document ends inside an element "
					    "(truncated file?)");
			if (!x->root_closed)
				return fail(x, s, "no element");
			t->kind = PKI_XML_DONE;
			return 0;
		}
		if (*s != '<') {
			const char *lt = memchr(s, '<', left), *e = lt ? lt : x->end;

			x->at = e;
			if (!x->depth) {
				if (skip_blanks(s, e) != e)
					return fail(x, s, "text outside the root element");
				continue;
			}
			t->kind = PKI_XML_TEXT;
			t->text = s;
			t->text_len = (size_t)(e - s);
			return 0;
		}
		if (pki_starts_with_n(s, left, "<!--")) {
			x->at = s + 4;
			if (skip_past(x, "-->", "a comment that never ends"))
				return -1;
		} else if (pki_starts_with_n(s, left, "<?")) {
			x->at = s + 2;
			if (skip_past(x, "?>", "a processing instruction that never ends"))
				return -1;
		} else if (pki_starts_with_n(s, left, "<![CDATA[")) {
			x->at = s + 9;
			if (!x->depth)
				return fail(x, s, "a CDATA section outside the root element");
			if (skip_past(x, "]]>", "a CDATA section that never ends"))
				return -1;
			t->kind = PKI_XML_CDATA;
			t->text = s + 9;
			t->text_len = (size_t)(x->at - 3 - t->text);
			return 0;
		} else if (pki_starts_with_n(s, left, "<!DOCTYPE")) {
			const char *gt = memchr(s, '>', left), *bracket = memchr(s, '[', left);

			if (bracket && (!gt || bracket < gt))
				return fail(x, s, "a DOCTYPE with declarations (not read)");
			if (!gt)
				return fail(x, s, "a DOCTYPE that never ends");
			x->at = gt + 1;
		} else if (pki_starts_with_n(s, left, "</")) {
			x->at = s + 2;
			return end_tag(x, t);
		} else {
			x->at = s + 1;
			return start_tag(x, t);
		}
	}
}

const char *pki_xml_attr(const struct pki_xml_token *t, const char *name,
			 size_t *len)
{
	const char *s = t->attrs, *end = t->attrs + t->attrs_len;
	size_t want = strlen(name);

	/* start_tag checked the attributes: only their parts are found */
	while ((s = skip_blanks(s, end)) < end) {
		const char *e = name_end(s, end), *v;
		char quote;

		v = skip_blanks(skip_blanks(e, end) + 1, end);
		quote = *v++;
		*len = (size_t)((const char *)memchr(v, quote, (size_t)(end - v)) - v);
		if ((size_t)(e - s) == want && memcmp(s, name, want) == 0)
			return v;
		s = v + *len + 1;
	}
	return NULL;
}

/* A character reference's code point as UTF-8 into out. */
static int add_code_point(struct pk_strbuf *out, unsigned long c)
{
	char u[4];
	size_t n;

	if (!c || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	return pki_strbuf_add(out, u, n);
}

int pki_xml_unescape(const char *s, size_t len, struct pk_strbuf *out)
{
	static const struct { const char *name; char c; } entities[] = {
		{ "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' },
		{ "quot;", '"' }, { "apos;", '\'' },
	};
	const char *end;

	if (!len)	/* s may be NULL: a text never kept */
		return 0;
	end = s + len;
	while (s < end) {
		const char *amp = memchr(s, '&', (size_t)(end - s));
		size_t i, left;

		if (pki_strbuf_add(out, s, (size_t)((amp ? amp : end) - s)))
			return -1;
		if (!amp)
			break;
		s = amp + 1;
		left = (size_t)(end - s);
		for (i = 0; i < sizeof(entities) / sizeof(entities[0]); i++)
			if (pki_starts_with_n(s, left, entities[i].name))
				break;
		if (i < sizeof(entities) / sizeof(entities[0])) {
			if (pki_strbuf_add(out, &entities[i].c, 1))
				return -1;
			s += strlen(entities[i].name);
		} else if (left > 1 && *s == '#') {
			int base = s[1] == 'x' ? 16 : 10, digits = 0;
			unsigned long c = 0;

			for (s += base == 16 ? 2 : 1; s < end && *s != ';'; s++, digits++) {
				int d = base == 16 ? pki_hexval(*s) :
					(*s >= '0' && *s <= '9' ? *s - '0' : -1);

				if (d < 0 || digits > 8)
					return -1;
				c = c * (unsigned long)base + (unsigned long)d;
			}
			if (s == end || !digits || add_code_point(out, c))
				return -1;
			s++;
		} else {
			return -1;
		}
	}
	return 0;
}
