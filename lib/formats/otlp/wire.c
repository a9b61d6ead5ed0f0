/* SPDX-License-Identifier: MIT */
/*
 * Protobuf's wire format walked by the schema (the protobuf-c
 * descriptors), before anything is unpacked: protobuf-c unpacks nested
 * messages by recursion and trusts their depth, and an attribute's value
 * may hold values that hold values, so hostile input could nest deeper
 * than the stack. The walk checks every field's tag, varint and length
 * and the depth of every message, and says where the first fault is. The
 * probe walks an input's first bytes the same way.
 */
#include <stdio.h>

#include "otlp.h"

/* ProfilesData's messages nest 5 deep (a Sample); attribute values'
 * arrays and lists a few more at most in any producer's output. */
#define MAX_DEPTH 24

struct walk {
	const uint8_t *start, *end;
	char *why;		/* the first fault: where and what (or NULL) */
	size_t why_size;
	/* a probe's: the bytes may end in mid-field, and every field is
	 * one of the schema's */
	int probe;
	int fields, later_fields;	/* fields seen, and those not first
					 * (number > 1), at every depth */
};

/* 0 and the value; -1 past 10 bytes; 1 when the bytes end first. */
static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		if (*p == end)
			return 1;
		b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 0);
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Whether a known field comes in the wire type its type has. */
static int wire_ok(const ProtobufCFieldDescriptor *f, unsigned wire)
{
	unsigned want;

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return wire == 2;
	case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		want = 1;
		break;
	case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		want = 5;
		break;
	default:
		want = 0;
		break;
	}
	/* a repeated number may be packed */
	return wire == want || (wire == 2 && f->label == PROTOBUF_C_LABEL_REPEATED);
}

/* What is wrong with the field at field, of desc's message ending at
 * end: one of len bytes that runs past it, or (len 0) one that is not
 * protobuf, or not of its field's type. */
static void describe(struct walk *w, const uint8_t *field,
		     const ProtobufCMessageDescriptor *desc,
		     const ProtobufCFieldDescriptor *f, uint64_t tag,
		     uint64_t len, const uint8_t *end)
{
	size_t at = (size_t)(field - w->start);
	char name[96];

	if (!w->why)
		return;
	if (f)
		snprintf(name, sizeof(name), "%s.%s", desc->short_name, f->name);
	else
		snprintf(name, sizeof(name), "%s's field %llu", desc->short_name,
			 (unsigned long long)(tag >> 3));
	if (len && end == w->end)
		snprintf(w->why, w->why_size, "offset 0x%zx: %s (%llu bytes) runs "
			 "past the end of the file (truncated file?)", at, name,
			 (unsigned long long)len);
	else if (len)
		snprintf(w->why, w->why_size, "offset 0x%zx: %s (%llu bytes) runs "
			 "past the end of its %s", at, name, (unsigned long long)len,
			 desc->short_name);
	else
		snprintf(w->why, w->why_size, "offset 0x%zx: %s is not protobuf of "
			 "its type", at, name);
}

/*
 * The message desc in [p, end), and its message fields in theirs. A
 * field that runs past end is a fault, unless the walk is a probe's and
 * end is its window's: the window cut it.
 */
static int walk_message(struct walk *w, const uint8_t *p, const uint8_t *end,
			const ProtobufCMessageDescriptor *desc, int depth)
{
	if (depth > MAX_DEPTH) {
		if (w->why)
			snprintf(w->why, w->why_size, "offset 0x%zx: %s nests deeper "
				 "than the schema allows", (size_t)(p - w->start),
				 desc->short_name);
		return -1;
	}
	while (p < end) {
		const uint8_t *field = p;
		const ProtobufCFieldDescriptor *f = NULL;
		uint64_t tag = 0, len = 0;
		unsigned wire;
		int rc = read_varint(&p, end, &tag);

		if (rc || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
			goto fault;
		wire = tag & 7;
		f = protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
		/* groups (3, 4) are no part of OTLP */
		if ((f ? !wire_ok(f, wire) : w->probe) || wire == 3 || wire == 4 || wire > 5)
			goto fault;
		if (wire == 0 || wire == 2)
			rc = read_varint(&p, end, &len);
		else
			len = wire == 1 ? 8 : 4;
		if (rc)
			goto fault;
		if (wire != 0 && len > (uint64_t)(end - p)) {
			rc = 1;
			if (wire != 2 || !w->probe || end != w->end)
				goto fault;
			len = (uint64_t)(end - p);	/* cut by the window */
		}
		if (wire == 2 && f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
		    walk_message(w, p, p + len, f->descriptor, depth + 1) < 0)
			return -1;
		if (wire != 0)
			p += len;
		w->fields++;
		w->later_fields += (tag >> 3) > 1;
		continue;
fault:
		if (rc > 0 && w->probe && end == w->end)
			return 0;
		describe(w, field, desc, f, tag, rc > 0 ? (len ? len : 1) : 0, end);
		return -1;
	}
	return 0;
}

int otlp_wire_check(const uint8_t *data, size_t size,
		    const ProtobufCMessageDescriptor *desc, char *why, size_t why_size)
{
	struct walk w = { data, data + size, why, why_size, 0, 0, 0 };

	return walk_message(&w, data, data + size, desc, 0);
}

int otlp_wire_probe(const uint8_t *buf, size_t len,
		    const ProtobufCMessageDescriptor *desc)
{
	struct walk w = { buf, buf + len, NULL, 0, 1, 0, 0 };

	if (walk_message(&w, buf, buf + len, desc, 0) < 0)
		return -1;
	/* a run of one byte (newlines) nests field 1 in field 1 ... */
	return w.later_fields ? w.fields : 0;
}
