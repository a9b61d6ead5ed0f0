/* SPDX-License-Identifier: MIT */
/*
 * OpenTelemetry profiles (OTLP, opentelemetry.proto.profiles.v1development)
 * in protobuf and in OTLP's JSON, shared by the files of this folder:
 *
 *   write.c   the model as a ProfilesData message, given one Profile at a
 *             time to a sink: binary (encode.c) or JSON (json.c)
 *   read.c    a ProfilesData message, binary or JSON, into the model; the
 *             descriptors of the formats otlp and otlp-json
 *   wire.c    the checks of binary input before protobuf-c unpacks it
 *   json.c    any protobuf-c message as OTLP JSON, from its descriptor
 *
 * The messages are protobuf-c's, from proto/otlp-*.proto.
 */
#ifndef PROFKIT_FORMATS_OTLP_H
#define PROFKIT_FORMATS_OTLP_H

#include "core/internal.h"
#include "util/idtab.h"
#include "util/json.h"
#include "proto/otlp-profiles.pb-c.h"

typedef Opentelemetry__Proto__Profiles__V1development__ProfilesData otlp_data;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary otlp_dictionary;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles otlp_resource_profiles;
typedef Opentelemetry__Proto__Profiles__V1development__ScopeProfiles otlp_scope_profiles;
typedef Opentelemetry__Proto__Profiles__V1development__Profile otlp_profile;
typedef Opentelemetry__Proto__Profiles__V1development__Sample otlp_sample;
typedef Opentelemetry__Proto__Profiles__V1development__ValueType otlp_value_type;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping otlp_mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Location otlp_location;
typedef Opentelemetry__Proto__Profiles__V1development__Line otlp_line;
typedef Opentelemetry__Proto__Profiles__V1development__Function otlp_function;
typedef Opentelemetry__Proto__Profiles__V1development__Stack otlp_stack;
typedef Opentelemetry__Proto__Profiles__V1development__Link otlp_link;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit otlp_attribute;
typedef Opentelemetry__Proto__Resource__V1__Resource otlp_resource;
typedef Opentelemetry__Proto__Common__V1__InstrumentationScope otlp_scope;
typedef Opentelemetry__Proto__Common__V1__KeyValue otlp_key_value;
typedef Opentelemetry__Proto__Common__V1__AnyValue otlp_any_value;
#define otlp_data_descriptor \
	opentelemetry__proto__profiles__v1development__profiles_data__descriptor

/*
 * Attribute keys of OpenTelemetry's semantic conventions, and the model's
 * label keys written under a convention's name (the others keep theirs).
 */
#define OTLP_PROCESS_PID "process.pid"
#define OTLP_EXECUTABLE_NAME "process.executable.name"
#define OTLP_EXECUTABLE_PATH "process.executable.path"
#define OTLP_HOST_NAME "host.name"
#define OTLP_SERVICE_NAME "service.name"
#define OTLP_BUILD_ID_GNU "process.executable.build_id.gnu"
#define OTLP_BUILD_ID_GO "process.executable.build_id.go"
#define OTLP_FRAME_TYPE "profile.frame.type"
#define OTLP_DROP_FRAMES "pprof.profile.drop_frames"
#define OTLP_KEEP_FRAMES "pprof.profile.keep_frames"
/* a Profile's event (perf's, JFR's): no convention names one, so profkit's */
#define OTLP_PROFKIT_EVENT "profkit.event"

struct otlp_label_key {
	const char *label, *attribute;
};
/* pid, which names the resource, is no sample attribute. */
extern const struct otlp_label_key otlp_label_keys[3];

/* pprof's has_* bits of a mapping (pprof.mapping.has_functions ...). */
extern const char *const otlp_mapping_flags[4];

/* The scope: what made the profiles. */
#define OTLP_SCOPE_NAME "profkit"

/* ---- writing ---- */

/*
 * Where write.c gives the message, a piece at a time, in this order: per
 * resource its head, its Profiles and its end; then the dictionary, and
 * finish. A sink that is sized gets the packed size of each Profile of
 * the resource with its head (n of them); release frees the sink,
 * finished or not.
 */
struct otlp_sink;
struct otlp_sink_ops {
	int sized;
	int (*resource)(struct otlp_sink *s, const otlp_resource *res,
			const otlp_scope *scope, const size_t *sizes, size_t n);
	int (*profile)(struct otlp_sink *s, const otlp_profile *prof);
	int (*resource_end)(struct otlp_sink *s);
	int (*dictionary)(struct otlp_sink *s, const otlp_dictionary *dict);
	int (*finish)(struct otlp_sink *s);
	void (*release)(struct otlp_sink *s);
};
struct otlp_sink {
	const struct otlp_sink_ops *ops;
};

/* The options of both writers, declared in write.c. */
extern const struct pki_option pki_otlp_write_options[];
int pki_otlp_write_with(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct otlp_sink *sink);

/* The binary sink (encode.c) and the JSON one (json.c); NULL when out of
 * memory. */
struct otlp_sink *otlp_binary_sink(struct pk_context *ctx,
				   struct pk_output *out);
struct otlp_sink *otlp_json_sink(struct pk_context *ctx, struct pk_output *out);

/* The writers of the two formats (write.c). */
int pki_otlp_write(struct pk_context *ctx, const struct pk_profile *p,
		   const struct pk_options *opts, struct pk_output *out);
int pki_otlp_json_write(struct pk_context *ctx, const struct pk_profile *p,
			const struct pk_options *opts, struct pk_output *out);

/*
 * Any message as OTLP JSON (json.c): fields by their lowerCamelCase
 * names, default values left out, 64-bit integers as strings, bytes in
 * base64 but trace and span ids in hex, enums as numbers.
 */
void otlp_json_message(struct pki_json *j, const ProtobufCMessage *m);
/* A field's JSON name: "time_unix_nano" is "timeUnixNano" (protobuf's
 * json_name), cut to size. */
void otlp_json_name(const char *name, char *out, size_t size);
/* The bytes of one value of a field of this type in a protobuf-c
 * message (an element of a repeated field). */
size_t otlp_value_size(ProtobufCType type);

/* ---- reading ---- */

/*
 * Whether binary input is protobuf of desc's schema whose messages nest
 * no deeper than the schema allows (attribute values hold values: depth
 * is bounded) (wire.c): 0, or -1 with where and what is wrong in why
 * ("offset 0x1f: Sample.values (40 bytes) runs past ...").
 */
int otlp_wire_check(const uint8_t *data, size_t size,
		    const ProtobufCMessageDescriptor *desc, char *why, size_t why_size);

/*
 * OTLP JSON in data into messages of desc, one a document (parse.c):
 * message(arg, m) is called with each, which is freed after it. What is
 * allocated comes from alloc. 0, an error in the context, or what
 * message returned.
 */
int otlp_json_parse(struct pk_context *ctx, const char *name, const char *data,
		    size_t size, ProtobufCAllocator *alloc,
		    int (*message)(void *arg, const ProtobufCMessage *m), void *arg,
		    const ProtobufCMessageDescriptor *desc);

/*
 * How much of buf, the start of an input, reads as desc's message: the
 * number of fields, every one of the schema's, nested ones too (0 when
 * all are each message's first, as in a run of one byte); -1 at the
 * first that is not protobuf or not the schema's.
 */
int otlp_wire_probe(const uint8_t *buf, size_t len,
		    const ProtobufCMessageDescriptor *desc);

#endif
