/* SPDX-License-Identifier: MIT */
/*
 * The binary sink: ProfilesData in protobuf, gzipped when the output's
 * name ends in ".gz". A message's bytes are its fields' one after the
 * other, each a tag, a length and the bytes for a message, so the parts
 * are packed apart and framed here: a resource's Profiles are packed as
 * they come and go out behind its ResourceProfiles and ScopeProfiles
 * heads once all are there (a head holds the length of what follows);
 * the dictionary goes out a slice of a table at a time. A gzip output
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
 * The parts of a resource: [0] the head of ResourceProfiles, [1-2] its
 * resource, [3] the head of its ScopeProfiles, [4-5] the scope, then
 * the Profiles; the heads get their lengths at the end.
 */
static int resource(struct otlp_sink *s, const otlp_resource *res,
		    const otlp_scope *scope)
{
	struct binary_sink *b = (struct binary_sink *)s;
	int rc = b->started ? 0 : start(b);

	if (!rc)
		rc = add_head(b, 1, 0);
	if (!rc)
		rc = add_message(b, 1, &res->base);
	if (!rc)
		rc = add_head(b, 2, 0);
	if (!rc)
		rc = add_message(b, 1, &scope->base);
	return rc;
}

static int profile(struct otlp_sink *s, const otlp_profile *prof)
{
	return add_message((struct binary_sink *)s, 2, &prof->base);
}

/* Head i again, now that the length of what follows it is known. */
static int reframe(struct binary_sink *b, size_t i, int field, size_t len)
{
	uint8_t *data = realloc(b->parts[i].data, 1 + varint_size(len));

	if (!data)
		return oom(b);
	data[0] = TAG(field);
	b->parts[i].data = data;
	b->parts[i].len = (size_t)(put_varint(data + 1, len) - data);
	return 0;
}

static int resource_end(struct otlp_sink *s)
{
	struct binary_sink *b = (struct binary_sink *)s;
	size_t scope_len = 0, resource_len, i;
	int rc;

	for (i = 4; i < b->nparts; i++)
		scope_len += b->parts[i].len;
	resource_len = b->parts[1].len + b->parts[2].len + field_size(scope_len);
	rc = reframe(b, 0, 1, resource_len);
	if (!rc)
		rc = reframe(b, 3, 2, scope_len);
	return rc ? rc : give_parts(b);
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
	resource, profile, resource_end, dictionary, finish, release,
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
