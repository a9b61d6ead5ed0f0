/* SPDX-License-Identifier: MIT */
/*
 * Reader for the Time Profiler tables Xcode's xctrace exports,
 *
 *     xctrace export --input run.trace \
 *         --xpath '/trace-toc/run[@number="1"]/data/table[@schema="time-profile"]'
 *
 * XML of rows, each a sample: its time, thread, weight and backtrace.
 * Every value is written once with an id and later named by it
 * (<backtrace ref="20"/>):
 *
 *     <trace-query-result><node xpath="..."><schema name="time-profile">...</schema>
 *     <row><sample-time id="1" fmt="00:00.057.246">57246708</sample-time>
 *      <thread id="2" fmt="main  0x8480c1 (demo, pid: 4242)"><tid id="3">8683713</tid>
 *       <process id="4" fmt="demo (4242)"><pid id="5">4242</pid></process></thread>
 *      <weight id="9" fmt="1.00 ms">1000000</weight>
 *      <backtrace id="10"><frame id="11" name="work" addr="0x100003f40">
 *       <binary id="12" name="demo" UUID="..." load-addr="0x100000000" path="/tmp/demo"/>
 *       <source line="7"><path id="13">/tmp/demo.c</path></source></frame>
 *       <frame ref="11"/></backtrace></row>
 *
 * As inferno's collapse-xctrace reads it: a row is a sample of its
 * backtrace, leaf first, frames named as written; rows without one (a
 * <sentinel/>) are left out. Beyond inferno: the weight is a second
 * sample type (nanoseconds, shown by default), the time is the sample's,
 * the thread its labels (comm the process's name, pid, tid), and a frame
 * keeps its address, binary, file and line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xml.h"
#include "core/internal.h"
#include "formats/registry.h"

enum kind {
	K_OTHER, K_ROW, K_SAMPLE_TIME, K_THREAD, K_TID, K_PROCESS, K_PID,
	K_WEIGHT, K_BACKTRACE, K_FRAME, K_BINARY, K_SOURCE, K_PATH,
};

static const char *const kind_names[] = {
	[K_ROW] = "row", [K_SAMPLE_TIME] = "sample-time", [K_THREAD] = "thread",
	[K_TID] = "tid", [K_PROCESS] = "process", [K_PID] = "pid",
	[K_WEIGHT] = "weight", [K_BACKTRACE] = "backtrace", [K_FRAME] = "frame",
	[K_BINARY] = "binary", [K_SOURCE] = "source", [K_PATH] = "path",
};

/* Elements whose value is their text: a number, or a path. */
static int has_text(enum kind k)
{
	return k == K_SAMPLE_TIME || k == K_TID || k == K_PID || k == K_WEIGHT ||
	       k == K_PATH;
}

/* What an element stands for, kept by its id for the refs to it. */
struct value {
	enum kind kind;
	uint32_t a;		/* location, stack, label set, mapping, string */
	int64_t n;		/* a number; a process's pid, a source's line */
};

struct id_slot {
	uint64_t id;		/* 0: empty */
	struct value v;
};

struct open_element {
	enum kind kind;
	struct pki_xml_token start;
};

struct xctrace_reader {
	struct pk_context *ctx;
	struct pk_input *in;
	struct pk_profile *p;
	struct pki_xml xml;
	struct open_element open[PKI_XML_MAX_DEPTH];
	size_t depth;
	struct id_slot *ids;	/* open addressing by id */
	size_t ids_mask, nids;
	struct pk_strbuf text, scratch;
	pk_str key_comm, key_pid, key_tid;
	int weight_column;	/* -1 until a row has a weight */
	/* what the open elements have gathered: one of each at a time */
	struct { int64_t time, weight; uint32_t labels, stack; int has_weight; } row;
	struct { int64_t tid, pid; pk_str comm; int has_tid, has_pid; } thread;
	struct { int64_t pid; int has_pid; } process;
	struct { uint32_t mapping; pk_str file; int64_t line; } frame;
	pk_str source_path;
	uint32_t *frames;
	size_t nframes, frames_cap;
	uint64_t rows;
};

/* PK_EINPUT: "INPUT: offset N: WHAT", of the tag at at (or the fault
 * the tokenizer found there). */
static int error_at(struct xctrace_reader *r, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int error_at(struct xctrace_reader *r, const char *at, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pk_error_set(r->ctx, PK_EINPUT, "%s: offset %zu: %s",
			    pk_input_name(r->in), (size_t)(at - r->xml.start), what);
}

static int no_memory(struct xctrace_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "out of memory");
}

/* ---- ids ---- */

/* xctrace numbers its elements 1, 2, 3...: eight ids in a row share a
 * hash and take eight slots in a row, so that the ids defined one after
 * the other are stored side by side, not each a cache miss of its own
 * in a table that outgrows the caches. */
static struct id_slot *slot_of(const struct xctrace_reader *r, uint64_t id)
{
	size_t i = (size_t)(pki_hash_u64(id >> 3) << 3 | (id & 7)) & r->ids_mask;

	while (r->ids[i].id && r->ids[i].id != id)
		i = (i + 1) & r->ids_mask;
	return &r->ids[i];
}

static int remember(struct xctrace_reader *r, uint64_t id, const struct value *v)
{
	struct id_slot *s;

	if (2 * (r->nids + 1) > r->ids_mask + 1 || !r->ids) {
		size_t cap = r->ids ? 2 * (r->ids_mask + 1) : 1024, i;
		struct id_slot *old = r->ids;
		size_t old_cap = r->ids ? r->ids_mask + 1 : 0;

		r->ids = calloc(cap, sizeof(*r->ids));
		if (!r->ids) {
			r->ids = old;
			return no_memory(r);
		}
		r->ids_mask = cap - 1;
		for (i = 0; i < old_cap; i++)
			if (old[i].id)
				*slot_of(r, old[i].id) = old[i];
		free(old);
	}
	s = slot_of(r, id);
	if (s->id)
		return 1;	/* defined twice */
	s->id = id;
	s->v = *v;
	r->nids++;
	return 0;
}

/* An attribute that is a decimal number, or 0x hex with hex set. */
static int number_attr(const struct pki_xml_token *t, const char *name, int hex,
		       uint64_t *v)
{
	size_t len, i = 0;
	const char *s = pki_xml_attr(t, name, &len);
	int base = 10;

	if (!s || !len)
		return -1;
	if (hex && len > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		i = 2;
	}
	for (*v = 0; i < len; i++) {
		int d = base == 16 ? pki_hexval(s[i]) : s[i] >= '0' && s[i] <= '9' ?
			s[i] - '0' : -1;

		if (d < 0 || *v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		*v = *v * (uint64_t)base + (uint64_t)d;
	}
	return 0;
}

/* An attribute's text, unescaped, as a string of the profile (0: none). */
static int string_attr(struct xctrace_reader *r, const struct pki_xml_token *t,
		       const char *name, pk_str *out)
{
	size_t len;
	const char *s = pki_xml_attr(t, name, &len);

	*out = 0;
	if (!s)
		return 0;
	r->scratch.len = 0;
	if (pki_xml_unescape(s, len, &r->scratch))
		return error_at(r, t->name, "a bad entity in the attribute %s", name);
	*out = pk_profile_intern(r->p, r->scratch.s, r->scratch.len);
	return *out ? 0 : no_memory(r);
}

/* ---- what each element stands for, at its end ---- */

static int text_number(struct xctrace_reader *r, const struct pki_xml_token *t,
		       int64_t *v)
{
	/* s is NULL where no text was ever kept */
	const char *s = r->text.s, *end = s ? s + r->text.len : s;
	uint64_t u = 0;

	while (s < end && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	if (s == end)
		return error_at(r, t->name, "no number in <%.*s>", (int)t->name_len, t->name);
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || u > (uint64_t)INT64_MAX / 10)
			return error_at(r, t->name, "not a number in <%.*s>", (int)t->name_len, t->name);
		u = u * 10 + (uint64_t)(*s - '0');
	}
	if (u > (uint64_t)INT64_MAX)
		return error_at(r, t->name, "a number too large in <%.*s>", (int)t->name_len, t->name);
	*v = (int64_t)u;
	return 0;
}

/* "demo (4242)": the name. */
static int process_name(struct xctrace_reader *r, const struct pki_xml_token *t,
			pk_str *name)
{
	size_t len;
	const char *s = pki_xml_attr(t, "fmt", &len), *paren;

	*name = 0;
	if (!s)
		return 0;
	r->scratch.len = 0;
	if (pki_xml_unescape(s, len, &r->scratch))
		return error_at(r, t->name, "a bad entity in the attribute fmt");
	paren = r->scratch.len ? memrchr(r->scratch.s, '(', r->scratch.len) : NULL;
	len = paren && paren > r->scratch.s && paren[-1] == ' ' ?
	      (size_t)(paren - 1 - r->scratch.s) : r->scratch.len;
	*name = pk_profile_intern(r->p, r->scratch.s, len);
	return *name ? 0 : no_memory(r);
}

static int thread_value(struct xctrace_reader *r, struct value *v)
{
	struct pk_label l[3];
	size_t n = 0;

	memset(l, 0, sizeof(l));
	if (r->thread.comm) {
		l[n].key = r->key_comm;
		l[n++].str = r->thread.comm;
	}
	if (r->thread.has_pid) {
		l[n].key = r->key_pid;
		l[n++].num = r->thread.pid;
	}
	if (r->thread.has_tid) {
		l[n].key = r->key_tid;
		l[n++].num = r->thread.tid;
	}
	v->a = pk_profile_intern_labels(r->p, l, n);
	return v->a || !n ? 0 : no_memory(r);
}

static int binary_value(struct xctrace_reader *r, const struct pki_xml_token *t,
			struct value *v)
{
	struct pk_mapping m = { 0 };
	int rc = string_attr(r, t, "path", &m.file);

	if (!rc && !m.file)
		rc = string_attr(r, t, "name", &m.file);
	if (!rc)
		rc = string_attr(r, t, "UUID", &m.build_id);
	if (rc)
		return rc;
	number_attr(t, "load-addr", 1, &m.start);
	m.has_functions = 1;
	v->a = pk_profile_intern_mapping(r->p, &m);
	return v->a ? 0 : no_memory(r);
}

static int frame_value(struct xctrace_reader *r, const struct pki_xml_token *t,
		       struct value *v)
{
	struct pk_function f = { 0 };
	struct pk_line line = { 0 };
	uint64_t addr = 0;
	size_t len;
	int rc = string_attr(r, t, "name", &f.name);

	if (rc)
		return rc;
	if (pki_xml_attr(t, "addr", &len) && number_attr(t, "addr", 1, &addr))
		return error_at(r, t->name, "a frame's addr is no address");
	if (!f.name && (rc = string_attr(r, t, "addr", &f.name)))
		return rc;
	f.system_name = f.name;
	f.filename = r->frame.file;
	line.function = pk_profile_intern_function(r->p, &f);
	line.line = r->frame.line;
	v->a = pk_profile_intern_location(r->p, r->frame.mapping, addr, &line, 1);
	return v->a ? 0 : no_memory(r);
}

static int row_end(struct xctrace_reader *r)
{
	int64_t values[2] = { 1, r->row.weight };

	r->rows++;
	if (!r->row.stack)
		return 0;	/* a <sentinel/>: no backtrace */
	if (r->row.has_weight && r->weight_column < 0) {
		r->weight_column = pk_profile_add_sample_type(r->p, "weight",
							      "nanoseconds", NULL,
							      PK_VALUE_WEIGHT);
		if (r->weight_column != 1)
			return no_memory(r);
	}
	return pk_profile_add_sample(r->p, r->row.stack, r->row.labels,
				     (uint64_t)r->row.time, values,
				     r->weight_column < 0 ? 1 : 2) ? no_memory(r) : 0;
}

/* The value of an element that ends, from what it gathered. */
static int value_of(struct xctrace_reader *r, const struct open_element *e,
		    struct value *v)
{
	const struct pki_xml_token *t = &e->start;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->kind = e->kind;
	switch (e->kind) {
	case K_SAMPLE_TIME:
	case K_TID:
	case K_PID:
	case K_WEIGHT:
		return text_number(r, t, &v->n);
	case K_PATH:
		r->scratch.len = 0;
		if (pki_xml_unescape(r->text.s, r->text.len, &r->scratch))
			return error_at(r, t->name, "a bad entity in a path");
		v->a = pk_profile_intern(r->p, r->scratch.s, r->scratch.len);
		return v->a || !r->scratch.len ? 0 : no_memory(r);
	case K_PROCESS:
		v->n = r->process.has_pid ? r->process.pid : -1;
		return process_name(r, t, &v->a);
	case K_THREAD:
		return thread_value(r, v);
	case K_BINARY:
		return binary_value(r, t, v);
	case K_SOURCE: {
		uint64_t line = 0;

		number_attr(t, "line", 0, &line);
		v->a = r->source_path;
		v->n = line <= INT32_MAX ? (int64_t)line : 0;
		return 0;
	}
	case K_FRAME:
		return frame_value(r, t, v);
	case K_BACKTRACE:
		v->a = pk_profile_intern_stack(r->p, r->frames, r->nframes);
		return v->a ? 0 : no_memory(r);
	case K_ROW:
		return row_end(r);
	case K_OTHER:
		break;
	}
	return rc;
}

/* A child's value to the element it is in. */
static int deliver(struct xctrace_reader *r, enum kind parent, const struct value *v)
{
	switch (parent) {
	case K_ROW:
		if (v->kind == K_SAMPLE_TIME)
			r->row.time = v->n;
		else if (v->kind == K_WEIGHT) {
			r->row.weight = v->n;
			r->row.has_weight = 1;
		} else if (v->kind == K_THREAD)
			r->row.labels = v->a;
		else if (v->kind == K_BACKTRACE)
			r->row.stack = v->a;
		break;
	case K_THREAD:
		if (v->kind == K_TID) {
			r->thread.tid = v->n;
			r->thread.has_tid = 1;
		} else if (v->kind == K_PROCESS) {
			r->thread.comm = v->a;
			r->thread.pid = v->n;
			r->thread.has_pid = v->n >= 0;
		}
		break;
	case K_PROCESS:
		if (v->kind == K_PID) {
			r->process.pid = v->n;
			r->process.has_pid = 1;
		}
		break;
	case K_BACKTRACE:
		if (v->kind == K_FRAME) {
			/* the leaf side stays; the profile cuts one past it */
			if (r->nframes > pki_profile_max_stack(r->p))
				break;
			if (pki_grow(&r->frames, &r->frames_cap, r->nframes + 1,
				     sizeof(*r->frames)) < 0)
				return no_memory(r);
			r->frames[r->nframes++] = v->a;
		}
		break;
	case K_FRAME:
		if (v->kind == K_BINARY)
			r->frame.mapping = v->a;
		else if (v->kind == K_SOURCE) {
			r->frame.file = v->a;
			r->frame.line = v->n;
		}
		break;
	case K_SOURCE:
		if (v->kind == K_PATH)
			r->source_path = v->a;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- the document ---- */

static enum kind kind_of(const struct pki_xml_token *t)
{
	size_t k;

	for (k = 1; k < PK_ARRAY_SIZE(kind_names); k++)
		if (strlen(kind_names[k]) == t->name_len &&
		    memcmp(kind_names[k], t->name, t->name_len) == 0)
			return (enum kind)k;
	return K_OTHER;
}

/* What an element gathers starts empty. */
static void start(struct xctrace_reader *r, enum kind k)
{
	switch (k) {
	case K_ROW:
		memset(&r->row, 0, sizeof(r->row));
		break;
	case K_THREAD:
		memset(&r->thread, 0, sizeof(r->thread));
		break;
	case K_PROCESS:
		memset(&r->process, 0, sizeof(r->process));
		break;
	case K_BACKTRACE:
		r->nframes = 0;
		break;
	case K_FRAME:
		memset(&r->frame, 0, sizeof(r->frame));
		break;
	case K_SOURCE:
		r->source_path = 0;
		break;
	default:
		break;
	}
	if (has_text(k))
		r->text.len = 0;
}

/* An element ends: its value is its ref's, or what it gathered. */
static int end(struct xctrace_reader *r, const struct open_element *e)
{
	const struct pki_xml_token *t = &e->start;
	struct value v;
	uint64_t id;
	int rc;

	if (e->kind == K_OTHER)
		return 0;
	if (!number_attr(t, "ref", 0, &id)) {
		const struct id_slot *s = r->ids ? slot_of(r, id) : NULL;

		if (!s || !s->id)
			return error_at(r, t->name, "<%s ref=\"%llu\"/> names no "
					"earlier element", kind_names[e->kind],
					(unsigned long long)id);
		if (s->v.kind != e->kind)
			return error_at(r, t->name, "<%s ref=\"%llu\"/> names a <%s>",
					kind_names[e->kind], (unsigned long long)id,
					kind_names[s->v.kind]);
		v = s->v;
	} else if ((rc = value_of(r, e, &v))) {
		return rc;
	} else if (!number_attr(t, "id", 0, &id) && id && (rc = remember(r, id, &v))) {
		return rc < 0 ? rc : error_at(r, t->name, "id %llu given twice "
					      "(here to a <%s>)", (unsigned long long)id,
					      kind_names[e->kind]);
	}
	return r->depth ? deliver(r, r->open[r->depth - 1].kind, &v) : 0;
}

static int xctrace_parse(struct xctrace_reader *r)
{
	struct pki_xml_token t;
	int rc = 0;

	for (;;) {
		if (pki_xml_next(&r->xml, &t))
			return error_at(r, r->xml.start + r->xml.error_offset,
					"%s", r->xml.error);
		switch (t.kind) {
		case PKI_XML_START:
		case PKI_XML_EMPTY: {
			struct open_element e = { kind_of(&t), t };

			start(r, e.kind);
			if (t.kind == PKI_XML_EMPTY) {
				rc = end(r, &e);
				break;
			}
			r->open[r->depth++] = e;
			break;
		}
		case PKI_XML_END:
			rc = end(r, &r->open[--r->depth]);
			break;
		case PKI_XML_TEXT:
		case PKI_XML_CDATA:
			if (r->depth && has_text(r->open[r->depth - 1].kind) &&
			    pki_strbuf_add(&r->text, t.text, t.text_len))
				rc = no_memory(r);
			break;
		case PKI_XML_DONE:
			return 0;
		}
		if (rc)
			return rc;
	}
}

static int xctrace_read(struct pk_context *ctx, struct pk_input *in,
			struct pk_profile *p, const struct pk_options *opts)
{
	struct xctrace_reader r;
	unsigned char *copy = NULL;
	const unsigned char *data;
	size_t size;
	int rc = 0;

	(void)opts;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.in = in;
	r.p = p;
	r.weight_column = -1;
	r.key_comm = pk_profile_intern_cstr(p, "comm");
	r.key_pid = pk_profile_intern_cstr(p, "pid");
	r.key_tid = pk_profile_intern_cstr(p, "tid");
	pk_profile_set_meta(p, PKI_META_VERBATIM_NAMES, "yes");
	if (pk_profile_add_sample_type(p, "samples", "count", NULL, PK_VALUE_COUNT) != 0)
		return no_memory(&r);
	data = pki_input_map(in, &size);
	if (!data) {
		rc = pk_input_slurp(in, (size_t)pk_context_max_memory(ctx) / 4, &copy, &size);
		data = copy;
	}
	if (!rc) {
		pki_xml_init(&r.xml, (const char *)data, data ? size : 0);
		rc = xctrace_parse(&r);
	}
	if (!rc && !r.rows)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no rows (an export of a "
				  "time-profile table holds <row> elements)",
				  pk_input_name(in));
	free(copy);
	free(r.ids);
	free(r.text.s);
	free(r.scratch.s);
	free(r.frames);
	return rc;
}

/* The XML declaration, then xctrace's root element. */
static int xctrace_probe(const unsigned char *buf, size_t len)
{
	const char *s = (const char *)buf;

	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		len -= 3;
	}
	return pki_starts_with_n(s, len, "<?xml") &&
	       memmem(s, len, "<trace-query-result", 19) ? 95 : 0;
}

const struct pki_format pki_format_xctrace = {
	.name = "xctrace",
	.read_description = "Xcode 'xctrace export' of a Time Profiler table, "
			    "XML (as inferno reads it)",
	.probe = xctrace_probe,
	.read = xctrace_read,
};
