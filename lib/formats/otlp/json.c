/* SPDX-License-Identifier: MIT */
/*
 * OTLP's JSON encoding of protobuf-c messages, from their descriptors:
 * protobuf's JSON mapping with OTLP's rules (the specification's
 * "JSON Protobuf Encoding"): keys are the fields' lowerCamelCase names,
 * fields at their default value are left out (a member of a oneof that
 * is set never is), 64-bit integers are decimal strings, bytes are
 * base64 but trace and span ids hex, enums are numbers.
 *
 * And the JSON sink: {"resourceProfiles":[...],"dictionary":{...}} and
 * a newline, one line as the collector's file exporter writes each
 * batch, gzipped when the output's name ends in ".gz".
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

void otlp_json_name(const char *name, char *out, size_t size)
{
	size_t n = 0;
	int upper = 0;

	for (; *name && n + 1 < size; name++) {
		if (*name == '_') {
			upper = 1;
			continue;
		}
		out[n++] = upper && *name >= 'a' && *name <= 'z' ?
			(char)(*name - 'a' + 'A') : *name;
		upper = 0;
	}
	out[n] = '\0';
}

static void bytes_value(struct pki_json *j, const ProtobufCFieldDescriptor *f,
			const ProtobufCBinaryData *b)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char hex[] = "0123456789abcdef";
	int ids = strcmp(f->name, "trace_id") == 0 || strcmp(f->name, "span_id") == 0;
	size_t size = ids ? 2 * b->len : 4 * ((b->len + 2) / 3), i, n = 0;
	char *s = malloc(size + 1);

	if (!s) {
		j->rc = j->rc ? j->rc : j->nomem;
		return;
	}
	for (i = 0; ids && i < b->len; i++) {
		s[n++] = hex[b->data[i] >> 4];
		s[n++] = hex[b->data[i] & 15];
	}
	for (i = 0; !ids && i < b->len; i += 3) {
		uint32_t v = (uint32_t)b->data[i] << 16 |
			(i + 1 < b->len ? (uint32_t)b->data[i + 1] << 8 : 0) |
			(i + 2 < b->len ? b->data[i + 2] : 0);

		s[n++] = b64[v >> 18];
		s[n++] = b64[(v >> 12) & 63];
		s[n++] = i + 1 < b->len ? b64[(v >> 6) & 63] : '=';
		s[n++] = i + 2 < b->len ? b64[v & 63] : '=';
	}
	pki_json_string(j, s, n);
	free(s);
}

static void double_value(struct pki_json *j, double v)
{
	if (isnan(v))
		pki_json_cstring(j, "NaN");
	else if (isinf(v))
		pki_json_cstring(j, v > 0 ? "Infinity" : "-Infinity");
	else
		pki_json_double(j, v, 17);
}

/* A 64-bit integer: a string, as JavaScript's numbers cannot hold it. */
static void int64_value(struct pki_json *j, int is_signed, uint64_t v)
{
	char s[24];

	if (is_signed)
		snprintf(s, sizeof(s), "%" PRId64, (int64_t)v);
	else
		snprintf(s, sizeof(s), "%" PRIu64, v);
	pki_json_cstring(j, s);
}

/* One value of field f at p (an element of a repeated field). */
static void field_value(struct pki_json *j, const ProtobufCFieldDescriptor *f,
			const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_ENUM:
		pki_json_int(j, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
		pki_json_uint(j, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		int64_value(j, 1, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
		int64_value(j, 0, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		double_value(j, *(const float *)p);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		double_value(j, *(const double *)p);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		pki_json_literal(j, *(const protobuf_c_boolean *)p ? "true" : "false");
		break;
	case PROTOBUF_C_TYPE_STRING:
		pki_json_cstring(j, *(char *const *)p ? *(char *const *)p : "");
		break;
	case PROTOBUF_C_TYPE_BYTES:
		bytes_value(j, f, p);
		break;
	case PROTOBUF_C_TYPE_MESSAGE:
		otlp_json_message(j, *(ProtobufCMessage *const *)p);
		break;
	}
}

size_t otlp_value_size(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

/* Whether a singular field holds its default (and so is left out). */
static int is_default(const ProtobufCFieldDescriptor *f, const void *p)
{
	static const uint8_t zeros[8];

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING:
		return !*(char *const *)p || !**(char *const *)p;
	case PROTOBUF_C_TYPE_MESSAGE:
		return !*(void *const *)p;
	case PROTOBUF_C_TYPE_BYTES:
		return ((const ProtobufCBinaryData *)p)->len == 0;
	default:
		return memcmp(p, zeros, otlp_value_size(f->type)) == 0;
	}
}

void otlp_json_message(struct pki_json *j, const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	unsigned i;

	pki_json_begin_object(j);
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const char *p = (const char *)m + f->offset;
		size_t n = 1, k;
		char key[64];

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(const size_t *)((const char *)m + f->quantifier_offset);
			p = *(const char *const *)p;
		} else if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (*(const uint32_t *)((const char *)m + f->quantifier_offset) != f->id)
				continue;
		} else if (is_default(f, p)) {
			continue;
		}
		if (!n)
			continue;
		otlp_json_name(f->name, key, sizeof(key));
		pki_json_key(j, key);
		if (f->label != PROTOBUF_C_LABEL_REPEATED) {
			field_value(j, f, p);
			continue;
		}
		pki_json_begin_array(j);
		for (k = 0; k < n; k++)
			field_value(j, f, p + k * otlp_value_size(f->type));
		pki_json_end_array(j);
	}
	pki_json_end_object(j);
}

/* ---- the sink ---- */

struct json_sink {
	struct otlp_sink sink;
	struct pk_context *ctx;
	struct pk_output *out;
	struct pki_json j;
	int started, resources;
};

static int start(struct json_sink *js)
{
	int rc = pki_output_gzip_if_named(js->out);

	js->started = 1;
	pki_output_json(&js->j, js->out);
	pki_json_begin_object(&js->j);
	return rc;
}

static int resource(struct otlp_sink *s, const otlp_resource *res,
		    const otlp_scope *scope, const size_t *sizes, size_t n)
{
	struct json_sink *js = (struct json_sink *)s;
	struct pki_json *j = &js->j;
	int rc = js->started ? 0 : start(js);

	(void)sizes, (void)n;
	if (!js->resources++) {
		pki_json_key(j, "resourceProfiles");
		pki_json_begin_array(j);
	}
	pki_json_begin_object(j);
	pki_json_key(j, "resource");
	otlp_json_message(j, &res->base);
	pki_json_key(j, "scopeProfiles");
	pki_json_begin_array(j);
	pki_json_begin_object(j);
	pki_json_key(j, "scope");
	otlp_json_message(j, &scope->base);
	pki_json_key(j, "profiles");
	pki_json_begin_array(j);
	return rc ? rc : j->rc;
}

static int profile(struct otlp_sink *s, const otlp_profile *prof)
{
	struct json_sink *js = (struct json_sink *)s;

	otlp_json_message(&js->j, &prof->base);
	return js->j.rc;
}

static int resource_end(struct otlp_sink *s)
{
	struct json_sink *js = (struct json_sink *)s;

	pki_json_end_array(&js->j);
	pki_json_end_object(&js->j);
	pki_json_end_array(&js->j);
	pki_json_end_object(&js->j);
	return js->j.rc;
}

static int dictionary(struct otlp_sink *s, const otlp_dictionary *dict)
{
	struct json_sink *js = (struct json_sink *)s;
	int rc = js->started ? 0 : start(js);

	if (js->resources)
		pki_json_end_array(&js->j);
	pki_json_key(&js->j, "dictionary");
	otlp_json_message(&js->j, &dict->base);
	pki_json_end_object(&js->j);
	pki_json_raw(&js->j, "\n", 1);
	return rc ? rc : js->j.rc;
}

static int finish(struct otlp_sink *s)
{
	struct json_sink *js = (struct json_sink *)s;

	js->started = 0;
	return pki_json_finish(&js->j);
}

static void release(struct otlp_sink *s)
{
	struct json_sink *js = (struct json_sink *)s;

	if (js->started)
		pki_json_finish(&js->j);
	free(js);
}

static const struct otlp_sink_ops ops = {
	0, resource, profile, resource_end, dictionary, finish, release,
};

struct otlp_sink *otlp_json_sink(struct pk_context *ctx, struct pk_output *out)
{
	struct json_sink *js = calloc(1, sizeof(*js));

	if (!js)
		return NULL;
	js->sink.ops = &ops;
	js->ctx = ctx;
	js->out = out;
	return &js->sink;
}
