/* SPDX-License-Identifier: MIT */
/*
 * The binary sink: ProfilesData in protobuf, gzipped when the output's
 * name ends in ".gz". A message's bytes are its fields' one after the
 * other, each a tag, a length and the bytes for a message, so the parts
 * are packed apart and framed here: a resource's ResourceProfiles and
 * ScopeProfiles heads go out first, their lengths from the sizes of the
 * Profiles the writer measured, then each Profile as it is packed; the
 * dictionary goes out a slice of a table at a time. A gzip output
 * compresses each part on its thread while the next is packed.
 */
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

/* Field 1 or 2 of a message, length-delimited: ProfilesData's
 * resource_profiles and dictionary, ResourceProfiles' resource and
 * scope_profiles, ScopeProfiles' scope and profiles. */
#define TAG(field) ((uint8_t)((field) << 3 | 2))

struct part {
	uint8_t *data;
	size_t len;
};

struct binary_sink {
	struct otlp_sink sink;
	struct pk_context *ctx;
	struct pk_output *out;
	int started;
	/* the resource being written: its head's parts and its Profiles */
	struct part *parts;
	size_t nparts, parts_cap;
};

static int oom(struct binary_sink *b)
{
	return pk_error_set(b->ctx, PK_ENOMEM, "otlp: out of memory");
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

static uint8_t *put_varint(uint8_t *out, uint64_t v)
{
	for (; v > 0x7f; v >>= 7)
		*out++ = (uint8_t)(v | 0x80);
	*out++ = (uint8_t)v;
	return out;
}

/* The size of a length-delimited field of len bytes. */
static size_t field_size(size_t len)
{
	return 1 + varint_size(len) + len;
}

static struct part *new_part(struct binary_sink *b, size_t len)
{
	struct part *part;

	if (pki_grow(&b->parts, &b->parts_cap, b->nparts + 1, sizeof(*b->parts)) < 0)
		return NULL;
	part = &b->parts[b->nparts];
	if (!(part->data = malloc(len ? len : 1)))
		return NULL;
	part->len = len;
	b->nparts++;
	return part;
}

/* A tag and a length, the head of a field, as a part of its own. */
static int add_head(struct binary_sink *b, int field, size_t len)
{
	struct part *part = new_part(b, 1 + varint_size(len));

	if (!part)
		return oom(b);
	part->data[0] = TAG(field);
	put_varint(part->data + 1, len);
	return 0;
}

/* A message's bytes as a part. */
static int add_packed(struct binary_sink *b, const ProtobufCMessage *m)
{
	struct part *part = new_part(b, protobuf_c_message_get_packed_size(m));

	if (!part)
		return oom(b);
	protobuf_c_message_pack(m, part->data);
	return 0;
}

/* A message as a field of its parent: head and bytes. */
static int add_message(struct binary_sink *b, int field, const ProtobufCMessage *m)
{
	int rc = add_head(b, field, protobuf_c_message_get_packed_size(m));

	return rc ? rc : add_packed(b, m);
}

/* Give the parts to the output, which frees them. */
static int give_parts(struct binary_sink *b)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < b->nparts; i++) {
		if (!rc)
			rc = pki_output_give(b->out, b->parts[i].data, b->parts[i].len);
		else
			free(b->parts[i].data);
	}
	b->nparts = 0;
	return rc;
}

static int start(struct binary_sink *b)
{
	b->started = 1;
	return pki_output_gzip_if_named(b->out);
}

/*
 * A resource's head: ResourceProfiles' tag and length, its resource,
 * the head of its one ScopeProfiles and the scope, the lengths from the
 * sizes of the Profiles to come.
 */
static int resource(struct otlp_sink *s, const otlp_resource *res,
		    const otlp_scope *scope, const size_t *sizes, size_t n)
{
	struct binary_sink *b = (struct binary_sink *)s;
	size_t res_size = protobuf_c_message_get_packed_size(&res->base);
	size_t scope_len = field_size(protobuf_c_message_get_packed_size(&scope->base)), i;
	int rc = b->started ? 0 : start(b);

	for (i = 0; i < n; i++)
		scope_len += field_size(sizes[i]);
	if (!rc)
		rc = add_head(b, 1, field_size(res_size) + field_size(scope_len));
	if (!rc)
		rc = add_message(b, 1, &res->base);
	if (!rc)
		rc = add_head(b, 2, scope_len);
	if (!rc)
		rc = add_message(b, 1, &scope->base);
	return rc ? rc : give_parts(b);
}

static int profile(struct otlp_sink *s, const otlp_profile *prof)
{
	struct binary_sink *b = (struct binary_sink *)s;
	int rc = add_message(b, 2, &prof->base);

	return rc ? rc : give_parts(b);
}

static int resource_end(struct otlp_sink *s)
{
	(void)s;
	return 0;
}

/*
 * The dictionary: its head, then each table a slice at a time (a slice
 * of a repeated field alone packs to those elements' bytes).
 */
#define SLICE 8192

struct table {
	size_t count_at, array_at;	/* offsets of n_X and X in the message */
};

static const struct table tables[] = {
#define TABLE(name) { offsetof(otlp_dictionary, n_##name), offsetof(otlp_dictionary, name) }
	TABLE(mapping_table), TABLE(location_table), TABLE(function_table),
	TABLE(link_table), TABLE(string_table), TABLE(attribute_table),
	TABLE(stack_table),
#undef TABLE
};

static size_t *count_of(const otlp_dictionary *d, size_t t)
{
	return (size_t *)((char *)d + tables[t].count_at);
}

static void **array_of(const otlp_dictionary *d, size_t t)
{
	return *(void ***)((char *)d + tables[t].array_at);
}

static int dictionary(struct otlp_sink *s, const otlp_dictionary *dict)
{
	struct binary_sink *b = (struct binary_sink *)s;
	otlp_dictionary slice;
	size_t t, first, n;
	int rc = b->started ? 0 : start(b);

	if (!rc)
		rc = add_head(b, 2, protobuf_c_message_get_packed_size(&dict->base));
	for (t = 0; !rc && t < PK_ARRAY_SIZE(tables); t++) {
		size_t count = *count_of(dict, t);

		for (first = 0; !rc && first < count; first += n) {
			n = count - first < SLICE ? count - first : SLICE;
			opentelemetry__proto__profiles__v1development__profiles_dictionary__init(&slice);
			*count_of(&slice, t) = n;
			*(void ***)((char *)&slice + tables[t].array_at) =
				array_of(dict, t) + first;
			rc = add_packed(b, &slice.base);
			if (!rc)
				rc = give_parts(b);
		}
	}
	return rc ? rc : give_parts(b);
}

static int finish(struct otlp_sink *s)
{
	return pki_output_wait_given(((struct binary_sink *)s)->out);
}

static void release(struct otlp_sink *s)
{
	struct binary_sink *b = (struct binary_sink *)s;
	size_t i;

	pki_output_wait_given(b->out);
	for (i = 0; i < b->nparts; i++)
		free(b->parts[i].data);
	free(b->parts);
	free(b);
}

static const struct otlp_sink_ops ops = {
	1, resource, profile, resource_end, dictionary, finish, release,
};

struct otlp_sink *otlp_binary_sink(struct pk_context *ctx, struct pk_output *out)
{
	struct binary_sink *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->sink.ops = &ops;
	b->ctx = ctx;
	b->out = out;
	return &b->sink;
}
