/* SPDX-License-Identifier: MIT */
/*
 * OTLP JSON into protobuf-c messages, by their descriptors, through the
 * streaming JSON reader (util/json-read.h): the reader is given a path
 * for every field of the schema, under its lowerCamelCase name and its
 * proto name, and each value becomes its field's as protobuf's JSON
 * mapping and OTLP's rules have it (64-bit integers as strings or
 * numbers, bytes in base64, trace and span ids in hex, "NaN" and
 * "Infinity" for doubles). Keys the schema has not are skipped, and so
 * are attribute values nested deeper than MAX_NESTING (no model label
 * holds them). What is allocated counts against the caller's allocator.
 *
 * A file may hold several documents one after another, as the
 * collector's file exporter writes a line per batch: each is a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "util/json-read.h"
#include "util/strbuf.h"

/* Attribute values hold values: how deep the paths follow them. */
#define MAX_NESTING 3

/* What a path names. */
enum target { ROOT, FIELD, ELEMENT };

struct path {
	const ProtobufCFieldDescriptor *field;	/* NULL for the root */
	enum target target;
};

/* The paths of a schema, for a reader per document. */
struct schema {
	struct pki_json_path *paths;	/* the reader's table, NULL-ended */
	struct path *targets;		/* by path id - 1 */
	size_t n, cap;
	struct pk_strbuf text;		/* every path's text, NUL after each */
	size_t *text_at;
};

struct parse {
	ProtobufCAllocator *alloc;
	const struct schema *schema;
	ProtobufCMessage **stack;	/* the messages open, root first */
	size_t depth, stack_cap;
	int nomem;		/* the allocator refused */
};

/* ---- the paths of a schema ---- */

static int add_path(struct schema *s, const char *text, size_t len,
		    const ProtobufCFieldDescriptor *f, enum target target)
{
	if (pki_grow(&s->targets, &s->cap, s->n + 1, sizeof(*s->targets)) < 0 ||
	    !(s->text_at = realloc(s->text_at, s->cap * sizeof(*s->text_at))) ||
	    pki_strbuf_add(&s->text, text, len) < 0 ||
	    pki_strbuf_add(&s->text, "", 1) < 0)
		return -1;
	s->text_at[s->n] = s->text.len - len - 1;
	s->targets[s->n].field = f;
	s->targets[s->n++].target = target;
	return 0;
}

static int add_fields(struct schema *s, struct pk_strbuf *prefix,
		      const ProtobufCMessageDescriptor *desc, int nesting);

/* A field's paths under one of its names, and its message's below. */
static int add_field(struct schema *s, struct pk_strbuf *prefix,
		     const ProtobufCFieldDescriptor *f, const char *name, int nesting)
{
	size_t len = prefix->len;
	int repeated = f->label == PROTOBUF_C_LABEL_REPEATED, rc;

	if (pki_strbuf_add(prefix, ".", 1) || pki_strbuf_adds(prefix, name) ||
	    add_path(s, prefix->s, prefix->len, f, FIELD) ||
	    (repeated && (pki_strbuf_add(prefix, "[]", 2) ||
			  add_path(s, prefix->s, prefix->len, f, ELEMENT))))
		return -1;
	rc = f->type == PROTOBUF_C_TYPE_MESSAGE ?
		add_fields(s, prefix, f->descriptor, nesting) : 0;
	prefix->len = len;
	prefix->s[len] = '\0';
	return rc;
}

/* Recursive messages (AnyValue holds arrays of AnyValue) stop after
 * MAX_NESTING of themselves. */
static int add_fields(struct schema *s, struct pk_strbuf *prefix,
		      const ProtobufCMessageDescriptor *desc, int nesting)
{
	char camel[64];
	unsigned i;

	if (desc == &opentelemetry__proto__common__v1__any_value__descriptor &&
	    ++nesting > MAX_NESTING)
		return 0;
	for (i = 0; i < desc->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &desc->fields[i];

		otlp_json_name(f->name, camel, sizeof(camel));
		if (add_field(s, prefix, f, camel, nesting) ||
		    (strcmp(camel, f->name) != 0 &&
		     add_field(s, prefix, f, f->name, nesting)))
			return -1;
	}
	return 0;
}

static void schema_release(struct schema *s)
{
	free(s->paths);
	free(s->targets);
	free(s->text.s);
	free(s->text_at);
}

static int schema_init(struct schema *s, const ProtobufCMessageDescriptor *desc)
{
	struct pk_strbuf prefix = { 0 };
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = pki_strbuf_adds(&prefix, "$") || add_path(s, "$", 1, NULL, ROOT) ||
	     add_fields(s, &prefix, desc, 0) ||
	     !(s->paths = calloc(s->n + 1, sizeof(*s->paths))) ? -1 : 0;
	free(prefix.s);
	for (i = 0; !rc && i < s->n; i++) {
		s->paths[i].path = s->text.s + s->text_at[i];
		s->paths[i].id = (int)i + 1;
	}
	return rc;
}

/* ---- values into fields ---- */

static void *field_at(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
	return (char *)m + f->offset;
}

static size_t *count_at(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
	return (size_t *)((char *)m + f->quantifier_offset);
}

/*
 * Room for one more element of a repeated field, whose array is always
 * of a power of two elements (so its size need not be kept): where it
 * goes, or NULL when out of memory.
 */
static void *append(struct parse *ps, ProtobufCMessage *m,
		    const ProtobufCFieldDescriptor *f)
{
	size_t *n = count_at(m, f), size = otlp_value_size(f->type);
	void **array = field_at(m, f);
	char *grown;

	if (*n == 0 || (*n & (*n - 1)) == 0) {
		if (*n > SIZE_MAX / 2 / size ||
		    !(grown = ps->alloc->alloc(ps->alloc->allocator_data,
					       (*n ? 2 * *n : 1) * size)))
			return NULL;
		if (*n) {
			memcpy(grown, *array, *n * size);
			ps->alloc->free(ps->alloc->allocator_data, *array);
		}
		*array = grown;
	}
	memset((char *)*array + *n * size, 0, size);
	return (char *)*array + (*n)++ * size;
}

/* Free what a singular field or the set member of a oneof holds, before
 * a value (given again, or another member) takes its place. */
static void clear(struct parse *ps, ProtobufCMessage *m,
		  const ProtobufCFieldDescriptor *f)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	uint32_t set = f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF ?
		*(uint32_t *)count_at(m, f) : f->id;
	const ProtobufCFieldDescriptor *old = protobuf_c_message_descriptor_get_field(d, set);
	void **p;

	if (!old)
		return;
	p = field_at(m, old);
	switch (old->type) {
	case PROTOBUF_C_TYPE_STRING:
		if (*p && *p != old->default_value)
			ps->alloc->free(ps->alloc->allocator_data, *p);
		*p = (void *)old->default_value;
		break;
	case PROTOBUF_C_TYPE_BYTES:
		ps->alloc->free(ps->alloc->allocator_data,
				((ProtobufCBinaryData *)(void *)p)->data);
		memset(p, 0, sizeof(ProtobufCBinaryData));
		break;
	case PROTOBUF_C_TYPE_MESSAGE:
		if (*p)
			protobuf_c_message_free_unpacked(*p, ps->alloc);
		*p = NULL;
		break;
	default:
		break;
	}
}

/* Where a value of field f goes in the message open: a new element, or
 * the field (a oneof's case set to it). */
static void *slot(struct parse *ps, struct pki_json_reader *jr,
		  const struct path *path)
{
	ProtobufCMessage *m = ps->stack[ps->depth - 1];
	const ProtobufCFieldDescriptor *f = path->field;
	void *p;

	if (path->target == ELEMENT) {
		if (!(p = append(ps, m, f)))
			ps->nomem = 1;
		return p;
	}
	if (f->label == PROTOBUF_C_LABEL_REPEATED) {
		pki_json_reader_fail(jr, "expected an array");
		return NULL;
	}
	clear(ps, m, f);
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		*(uint32_t *)count_at(m, f) = f->id;
	return field_at(m, f);
}

/* A whole number in JSON: a number, or a string of digits (protobuf's
 * JSON has 64-bit integers as strings). */
static int whole_number(struct pki_json_reader *jr, const struct pki_json_value *v,
			int is_signed, uint64_t *out)
{
	const char *s = v->text;
	size_t len = v->len, i = 0;
	int negative = 0;
	uint64_t n = 0;

	if (v->type == PKI_JSON_NUMBER && v->is_int) {
		if (!is_signed && v->i < 0)
			goto bad;
		*out = (uint64_t)v->i;
		return 0;
	}
	if (v->type != PKI_JSON_NUMBER && v->type != PKI_JSON_STRING)
		goto bad;
	if (is_signed && len && s[0] == '-')
		negative = 1, i = 1;
	if (i == len)
		goto bad;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || n > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			goto bad;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	if (is_signed && n > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		goto bad;
	*out = negative ? -n : n;
	return 0;
bad:
	return pki_json_reader_fail(jr, "expected a whole number%s",
				    is_signed ? "" : " from 0");
}

static int double_number(struct pki_json_reader *jr, const struct pki_json_value *v,
			 double *out)
{
	static const struct { const char *text; double value; } special[] = {
		{ "NaN", NAN }, { "Infinity", INFINITY }, { "-Infinity", -INFINITY },
	};
	size_t i;

	if (v->type == PKI_JSON_NUMBER) {
		*out = v->d;
		return 0;
	}
	for (i = 0; v->type == PKI_JSON_STRING && i < PK_ARRAY_SIZE(special); i++)
		if (v->len == strlen(special[i].text) &&
		    memcmp(v->text, special[i].text, v->len) == 0) {
			*out = special[i].value;
			return 0;
		}
	return pki_json_reader_fail(jr, "expected a number");
}

/* A 32-bit field's number in its range. */
static int number32(struct pki_json_reader *jr, const struct pki_json_value *v,
		    int is_signed, void *out)
{
	uint64_t n;
	int rc = whole_number(jr, v, is_signed, &n);

	if (rc)
		return rc;
	if (is_signed ? (int64_t)n < INT32_MIN || (int64_t)n > INT32_MAX : n > UINT32_MAX)
		return pki_json_reader_fail(jr, "expected a 32-bit number");
	if (is_signed)
		*(int32_t *)out = (int32_t)(int64_t)n;
	else
		*(uint32_t *)out = (uint32_t)n;
	return 0;
}

static int base64_digit(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Base64 (standard or URL-safe, padded or not), or for trace and span
 * ids hex, into out (len / 2 + len bytes are room enough). */
static int decode_bytes(const ProtobufCFieldDescriptor *f, const char *s,
			size_t len, uint8_t *out, size_t *n)
{
	uint32_t bits = 0;
	int nbits = 0;
	size_t i;

	*n = 0;
	if (strcmp(f->name, "trace_id") == 0 || strcmp(f->name, "span_id") == 0) {
		for (i = 0; i < len; i += 2) {
			if (i + 1 == len || pki_hexval(s[i]) < 0 || pki_hexval(s[i + 1]) < 0)
				return -1;
			out[(*n)++] = (uint8_t)(pki_hexval(s[i]) << 4 | pki_hexval(s[i + 1]));
		}
		return 0;
	}
	while (len && s[len - 1] == '=')
		len--;
	for (i = 0; i < len; i++) {
		int d = base64_digit((unsigned char)s[i]);

		if (d < 0)
			return -1;
		bits = bits << 6 | (uint32_t)d;
		if ((nbits += 6) >= 8) {
			nbits -= 8;
			out[(*n)++] = (uint8_t)(bits >> nbits);
		}
	}
	/* what is left over must be the padding's zero bits */
	return nbits >= 6 || (bits & ((1u << nbits) - 1)) ? -1 : 0;
}

static int bytes_value(struct parse *ps, struct pki_json_reader *jr,
		       const ProtobufCFieldDescriptor *f,
		       const struct pki_json_value *v, ProtobufCBinaryData *out)
{
	if (v->type != PKI_JSON_STRING)
		return pki_json_reader_fail(jr, "expected bytes as a string");
	if (!(out->data = ps->alloc->alloc(ps->alloc->allocator_data, v->len + 1))) {
		ps->nomem = 1;
		return PK_ENOMEM;
	}
	if (decode_bytes(f, v->text, v->len, out->data, &out->len) < 0 && !(out->len = 0))
		return pki_json_reader_fail(jr, "expected %s", f->name[0] == 't' ||
					    f->name[0] == 's' ? "hex digits" : "base64");
	return 0;
}

static int string_value(struct parse *ps, struct pki_json_reader *jr,
			const struct pki_json_value *v, char **out)
{
	if (v->type != PKI_JSON_STRING)
		return pki_json_reader_fail(jr, "expected a string");
	if (!(*out = ps->alloc->alloc(ps->alloc->allocator_data, v->len + 1))) {
		ps->nomem = 1;
		return PK_ENOMEM;
	}
	memcpy(*out, v->text, v->len);
	(*out)[v->len] = '\0';
	return 0;
}

/* A scalar value into p, a field or an element of type f->type. */
static int scalar(struct parse *ps, struct pki_json_reader *jr,
		  const ProtobufCFieldDescriptor *f, const struct pki_json_value *v,
		  void *p)
{
	double d = 0;
	int rc;

	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_ENUM:
		return number32(jr, v, 1, p);
	case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
		return number32(jr, v, 0, p);
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return whole_number(jr, v, 1, p);
	case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
		return whole_number(jr, v, 0, p);
	case PROTOBUF_C_TYPE_BOOL:
		if (v->type != PKI_JSON_BOOL)
			return pki_json_reader_fail(jr, "expected true or false");
		*(protobuf_c_boolean *)p = v->truth != 0;
		return 0;
	case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE:
		if ((rc = double_number(jr, v, &d)))
			return rc;
		if (f->type == PROTOBUF_C_TYPE_FLOAT)
			*(float *)p = (float)d;
		else
			*(double *)p = d;
		return 0;
	case PROTOBUF_C_TYPE_STRING:
		return string_value(ps, jr, v, p);
	case PROTOBUF_C_TYPE_BYTES:
		return bytes_value(ps, jr, f, v, p);
	default:
		return pki_json_reader_fail(jr, "expected an object");
	}
}

/* A message begins: a new one in its field, open until it ends. */
static int open_message(struct parse *ps, struct pki_json_reader *jr,
			const struct path *path)
{
	const ProtobufCMessageDescriptor *d = path->field->descriptor;
	ProtobufCMessage **p, *m;

	if (pki_grow(&ps->stack, &ps->stack_cap, ps->depth + 1, sizeof(*ps->stack)) < 0 ||
	    !(p = slot(ps, jr, path)) ||
	    !(m = ps->alloc->alloc(ps->alloc->allocator_data, d->sizeof_message))) {
		if (!pki_json_reader_code(jr))
			ps->nomem = 1;
		return ps->nomem ? PK_ENOMEM : pki_json_reader_code(jr);
	}
	d->message_init(m);
	*p = m;
	ps->stack[ps->depth++] = m;
	return 0;
}

static int on_value(void *arg, struct pki_json_reader *jr, int id,
		    const struct pki_json_value *v)
{
	struct parse *ps = arg;
	const struct path *path = &ps->schema->targets[id - 1];
	const ProtobufCFieldDescriptor *f = path->field;
	int message = f && f->type == PROTOBUF_C_TYPE_MESSAGE;
	int repeated = f && f->label == PROTOBUF_C_LABEL_REPEATED;
	void *p;
	int rc;

	if (path->target == ROOT)
		return v->type == PKI_JSON_BEGIN_OBJECT || v->type == PKI_JSON_END_OBJECT ?
			0 : pki_json_reader_fail(jr, "expected an object");
	if (v->type == PKI_JSON_NULL)
		return 0;	/* a field at its default */
	if (path->target == FIELD && repeated)
		return v->type == PKI_JSON_BEGIN_ARRAY || v->type == PKI_JSON_END_ARRAY ?
			0 : pki_json_reader_fail(jr, "expected an array");
	if (message && v->type == PKI_JSON_END_OBJECT) {
		ps->depth--;
		return 0;
	}
	if (message)
		return v->type == PKI_JSON_BEGIN_OBJECT ? open_message(ps, jr, path) :
			pki_json_reader_fail(jr, "expected an object");
	if (!(p = slot(ps, jr, path)))
		return ps->nomem ? PK_ENOMEM : pki_json_reader_code(jr);
	rc = scalar(ps, jr, f, v, p);
	return ps->nomem ? PK_ENOMEM : rc;
}

/* ---- documents ---- */

/* Where a document ends: a scan of its braces outside strings, which
 * the parser checks at leisure. */
struct splitter {
	int depth, in_string, escaped;
};

/* The length of data that ends the document begun (all of it when it
 * does not end there). */
static size_t document_end(struct splitter *sp, const char *data, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = data[i];

		if (sp->in_string) {
			if (sp->escaped)
				sp->escaped = 0;
			else if (c == '\\')
				sp->escaped = 1;
			else if (c == '"')
				sp->in_string = 0;
		} else if (c == '"') {
			sp->in_string = 1;
		} else if (c == '{' || c == '[') {
			sp->depth++;
		} else if ((c == '}' || c == ']') && --sp->depth == 0) {
			return i + 1;
		}
	}
	return n;
}

/* The reader's message about a document at start of the file, its
 * offset ("offset 131 ($.path): ...", from the document's start) made the
 * file's. */
static void refused(struct pk_context *ctx, const char *name, size_t start,
		    const char *why)
{
	unsigned long long at;
	int n = 0;

	if (start && sscanf(why, "offset %llu%n", &at, &n) == 1 && n > 0)
		pk_error_set(ctx, PK_EINPUT, "%s: offset %llu%s", name, at + start,
			     why + n);
	else
		pk_error_set(ctx, PK_EINPUT, "%s: %s", name, why);
}

int otlp_json_parse(struct pk_context *ctx, const char *name, const char *data,
		    size_t size, ProtobufCAllocator *alloc,
		    int (*message)(void *arg, const ProtobufCMessage *m), void *arg,
		    const ProtobufCMessageDescriptor *desc)
{
	struct schema schema;
	struct parse ps = { alloc, &schema, NULL, 0, 0, 0 };
	struct pki_json_read_spec spec = { NULL, on_value, &ps, PK_EINPUT, PK_ENOMEM,
					   0, 0, 0 };
	size_t at = 0;
	int rc = schema_init(&schema, desc) ? PK_ENOMEM : 0;

	spec.paths = schema.paths;
	while (!rc && at < size) {
		struct splitter sp = { 0, 0, 0 };
		struct pki_json_reader *jr;
		ProtobufCMessage *root = NULL;
		size_t start = at, n;

		while (at < size && strchr(" \t\r\n", data[at]))
			at++;
		if (at == size)
			break;
		start = at;
		n = document_end(&sp, data + at, size - at);
		at += n;
		if (!(jr = pki_json_reader_new(&spec)) ||
		    pki_grow(&ps.stack, &ps.stack_cap, 1, sizeof(*ps.stack)) < 0 ||
		    !(root = alloc->alloc(alloc->allocator_data, desc->sizeof_message))) {
			pki_json_reader_free(jr);
			rc = PK_ENOMEM;
			break;
		}
		desc->message_init(root);
		ps.stack[0] = root;
		ps.depth = 1;
		rc = pki_json_reader_feed(jr, data + start, n);
		if (!rc)
			rc = pki_json_reader_finish(jr);
		if (rc == PK_EINPUT)
			refused(ctx, name, start, pki_json_reader_error(jr));
		else if (!rc)
			rc = message(arg, root);
		pki_json_reader_free(jr);
		protobuf_c_message_free_unpacked(root, alloc);
	}
	if (rc == PK_ENOMEM || ps.nomem)
		rc = pk_error_set(ctx, PK_ENOMEM, "%s: out of memory, or its messages "
				  "take more than the memory limit", name);
	schema_release(&schema);
	free(ps.stack);
	return rc;
}
