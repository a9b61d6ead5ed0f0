/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint fields: the raw data (PERF_SAMPLE_RAW) of tracepoint
 * samples, decoded with libtraceevent from the event formats and printk
 * formats of the tracing data (header.c walks that section and hands its
 * parts here, in file and in pipe mode alike).
 *
 * A decoded sample gets a "trace" label, the text `perf script` prints
 * after the event (libtraceevent's INFO, as perf's builtin-script.c asks
 * for it), and a label per field of its event, the common_ ones left
 * out: numbers as numeric labels, strings and arrays as string labels. A
 * field named like one of the sample's own labels (pid, tid, comm, cpu,
 * trace) is named after its event too: "sched_wakeup.pid".
 *
 * Formatting the trace text through libtraceevent costs ten times what
 * the rest of a sample does: tracing-text.c prints most of it without,
 * and the texts of char arrays (comms) are kept by their bytes. A
 * program switches the same ways again and again: the labels of each
 * distinct payload (the event and its fields' bytes, not the common_
 * ones, which vary and are not shown) are made once and kept.
 *
 * The tracing data and the raw data are untrusted, and libtraceevent
 * trusts both. Each event format and the printk formats are checked
 * first (tracing-format.c): an event whose name, ID or fields are not
 * what the kernel writes is left out, one whose print format is not has
 * its fields decoded and its print format left to libtraceevent's
 * "[FAILED TO PARSE]" (the raw fields, as perf prints an event it cannot
 * parse), and ftrace's own events (perf keeps them apart, and
 * libtraceevent reads them another way) are left out. The header page,
 * header event and ftrace formats, kallsyms and the saved comms never
 * reach libtraceevent (header.c skips them). A sample is decoded only
 * when each field of its event, fixed or __data_loc, lies within its
 * raw data, and what its print format reads past them (a length from the
 * sample) does too; libtraceevent gets a copy of the raw data ending in
 * zeros, so a string without its NUL ends there.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "perf-data.h"
#include "tracing-format.h"
#include "tracing-text.h"
#include "core/trace-fields.h"
#include "util/strbuf.h"

struct pd_tracing {
	struct tep_handle *tep;
	struct trace_seq seq;
	unsigned char *raw;	/* a copy of a sample's raw data */
	size_t raw_cap;
	struct pk_label *labels;
	size_t labels_cap;
	int long_size;
	unsigned char ids[65536 / 8];	/* the IDs of the events parsed */
	/* checked formats whose print formats read past their fields */
	struct pd_format *reaching;	/* by ID */
	size_t nreaching, reaching_cap;

	/* payloads decoded: their interned id -> the first label set made
	 * with them, whose labels after the sample's own are theirs */
	struct pk_profile *payloads;
	unsigned char *key;	/* a payload as it is interned */
	size_t key_cap;
	struct kept_payload {
		uint32_t set;	/* 0: not kept */
		uint32_t nbase;
	} *kept;
	size_t nkept, kept_cap;

	/* the texts of char arrays (comms) by their bytes: key id -> text */
	struct pk_profile *arrays;
	pk_str *array_text;
	size_t array_text_cap;
	struct pk_strbuf array_key;

	/* label sets made lately: a payload with the same thread labels
	 * (a thread switching out the same way) is the same set again */
	struct pd_label_cache memo;
	struct recent_payload *recent;	/* RECENT_SLOTS of them */

	/* what the samples of each event met need of its format */
	struct event_shape {
		struct tep_event *ev;
		size_t nfields;	/* in ev->format.fields */
		size_t start;	/* their least offset (SIZE_MAX: none) */
		size_t size;	/* the bytes all fields take, when fixed */
		int fixed;	/* no dynamic field: size says if they fit */
		int never;	/* a field of negative offset or size */
		pk_str *keys;	/* the fields' label keys, once made */
		struct pd_text_template *text;	/* NULL: libtraceevent's */
	} *shapes;
	size_t nshapes, shapes_cap, last_shape;
};

/* Payloads past this many, or past this many bytes kept for them, are
 * decoded each time: an event whose payloads never repeat (kmalloc's
 * pointers) must not hold one copy per sample. */
#define PAYLOADS_KEPT (1u << 20)
#define PAYLOAD_BYTES_KEPT ((size_t)64 << 20)

/*
 * The id of key in *keys (made at the first), a dictionary of what is
 * kept by its bytes (payloads, comms): interned unless full (or its
 * memory with held, what else is kept for it, past PAYLOAD_BYTES_KEPT);
 * once full, keys kept are still found, new ones are not kept: 0, as
 * when out of memory.
 */
static pk_str kept_id(struct pk_profile **keys, const char *key, size_t len,
		      int full, size_t held)
{
	if (!*keys && !(*keys = pk_profile_new(0)))
		return 0;
	if (full || pk_profile_memory(*keys) + held >= PAYLOAD_BYTES_KEPT)
		return pk_profile_lookup_len(*keys, key, len);
	return pk_profile_intern(*keys, key, len);
}

/*
 * The label sets of the last payloads met, direct-mapped by a hash of
 * their bytes and the sample's own labels: a thread that switches out
 * the same way as before finds its set here, checked byte for byte,
 * without the payload interned to find its id, its labels copied or
 * their set looked up (five times the cost of a sample without
 * tracepoint data). Payloads longer than RECENT_BYTES are not kept.
 */
#define RECENT_SLOTS 256
#define RECENT_BYTES 64

struct recent_payload {
	uint32_t set;		/* 0: empty */
	int event;
	size_t len, nbase;
	struct pk_label base[4];
	unsigned char bytes[RECENT_BYTES];
};

/* Zeros after the copy of a sample's raw data libtraceevent reads: the
 * end of a string, or of a sockaddr's family at the very end. */
#define RAW_PAD 16

void pd_tracing_free(struct pd_tracing *tr)
{
	size_t i;

	if (!tr)
		return;
	for (i = 0; i < tr->nreaching; i++)
		pd_format_release(&tr->reaching[i]);
	for (i = 0; i < tr->nshapes; i++) {
		free(tr->shapes[i].keys);
		pd_text_template_free(tr->shapes[i].text);
	}
	free(tr->shapes);
	free(tr->reaching);
	tep_free(tr->tep);
	trace_seq_destroy(&tr->seq);
	free(tr->raw);
	free(tr->labels);
	pk_profile_free(tr->payloads);
	free(tr->recent);
	free(tr->key);
	pk_profile_free(tr->arrays);
	free(tr->array_text);
	free(tr->array_key.s);
	free(tr->kept);
	free(tr);
}

static int host_is_big(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

int pd_tracing_start(struct pd_state *st, int big, int long_size,
		     uint32_t page_size)
{
	struct pd_tracing *tr;

	/* pipe mode may carry the section again: the last one counts */
	pd_tracing_free(st->tracing);
	st->tracing = NULL;
	if (long_size != 4 && long_size != 8) {
		pd_warn(st, "%s: tracing data: a long of %d bytes; tracepoint "
			"fields are not decoded", st->name, long_size);
		return 0;
	}
	st->tracing = tr = calloc(1, sizeof(*tr));
	if (!tr || !(tr->tep = tep_alloc())) {
		pd_tracing_free(tr);
		st->tracing = NULL;
		return pk_error_set(st->ctx, PK_ENOMEM, "out of memory");
	}
	trace_seq_init(&tr->seq);
	tep_set_file_bigendian(tr->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tr->tep, host_is_big() ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	tep_set_long_size(tr->tep, long_size);
	tep_set_page_size(tr->tep, (int)page_size);
	tr->long_size = long_size;
	return 0;
}

/* libtraceevent wants NUL-terminated text it may keep no pointer into. */
static char *text_copy(const char *s, size_t len)
{
	char *t = malloc(len + 1);

	if (t) {
		memcpy(t, s, len);
		t[len] = '\0';
	}
	return t;
}

/* Keep a checked format whose print format reads past its fields, in
 * order of ID; its arrays are the table's then. */
static void keep_reaching(struct pd_tracing *tr, struct pd_format *f)
{
	size_t i = tr->nreaching;

	if (!f->nreaches ||
	    pki_grow(&tr->reaching, &tr->reaching_cap, tr->nreaching + 1,
		     sizeof(*tr->reaching)) < 0)
		return;
	while (i > 0 && tr->reaching[i - 1].id > f->id) {
		tr->reaching[i] = tr->reaching[i - 1];
		i--;
	}
	tr->reaching[i] = *f;
	tr->nreaching++;
	memset(f, 0, sizeof(*f));
}

static const struct pd_format *find_reaching(const struct pd_tracing *tr,
					     unsigned id)
{
	size_t lo = 0, hi = tr->nreaching;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tr->reaching[mid].id == id)
			return &tr->reaching[mid];
		if (tr->reaching[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Parse an event format whose print format failed the check: its name,
 * ID and fields with an empty print format, and the event marked as
 * libtraceevent marks one it cannot parse, so that its trace text is
 * "[FAILED TO PARSE]" and the raw fields.
 */
static int parse_fields_only(struct pd_tracing *tr, const char *text,
			     const struct pd_format *f, const char *sys)
{
	static const char empty[] = "print fmt: \"\"\n";
	char *head = malloc(f->print_at + sizeof(empty));
	struct tep_event *ev;
	int rc;

	if (!head)
		return -1;
	memcpy(head, text, f->print_at);
	memcpy(head + f->print_at, empty, sizeof(empty));
	rc = tep_parse_event(tr->tep, head, f->print_at + sizeof(empty) - 1,
			     sys);
	free(head);
	if (rc == 0 && (ev = tep_find_event(tr->tep, (int)f->id)))
		ev->flags |= TEP_EVENT_FL_FAILED;
	return rc;
}

/* Warn of an event format left out (or in part): 0 when it may go on. */
static int format_refused(struct pd_state *st, struct pd_tracing *tr,
			  const char *sys, const struct pd_format *f)
{
	const char *name = f->name[0] ? f->name : "?";

	if (f->verdict == PD_FORMAT_BAD) {
		pd_warn(st, "%s: tracing data: event '%s:%s' has %s (at byte "
			"%zu of its format): its fields are dropped", st->name,
			sys, name, f->problem, f->bad_at);
		return 1;
	}
	if (strcmp(sys, "ftrace") == 0) {
		pd_warn(st, "%s: tracing data: event '%s:%s' is one of "
			"ftrace's own, which perf records apart: its fields "
			"are dropped", st->name, sys, name);
		return 1;
	}
	if (tr->ids[f->id / 8] & (1u << (f->id % 8))) {
		pd_warn(st, "%s: tracing data: event '%s:%s' has the ID of "
			"another event (%u): its fields are dropped", st->name,
			sys, name, f->id);
		return 1;
	}
	if (f->verdict == PD_FORMAT_BAD_PRINT)
		pd_warn(st, "%s: tracing data: event '%s:%s' has a print "
			"format profkit cannot parse safely (at byte %zu of "
			"its format: %s): its trace text is '[FAILED TO "
			"PARSE]' and the raw fields", st->name, sys, name,
			f->bad_at, f->problem);
	return 0;
}

void pd_tracing_event(struct pd_state *st, const char *sys, size_t sys_len,
		      const char *text, size_t len)
{
	struct pd_tracing *tr = st->tracing;
	struct pd_format f;
	char *name;
	int rc;

	if (!tr)
		return;
	if (!pd_format_name_ok(sys, sys_len)) {
		pd_warn(st, "%s: tracing data: a subsystem name that is not an "
			"identifier: the fields of its events are dropped",
			st->name);
		return;
	}
	if (!(name = text_copy(sys, sys_len)) ||
	    pd_format_check(text, len, tr->long_size, &f) < 0) {
		free(name);
		return;
	}
	if (!format_refused(st, tr, name, &f)) {
		rc = f.verdict == PD_FORMAT_OK ?
		     tep_parse_event(tr->tep, text, len, name) :
		     parse_fields_only(tr, text, &f, name);
		if (rc == 0) {
			tr->ids[f.id / 8] |= (unsigned char)(1u << (f.id % 8));
			keep_reaching(tr, &f);
		} else {
			pd_warn(st, "%s: tracing data: a format of '%s' does "
				"not parse; its events' fields are not decoded",
				st->name, name);
		}
	}
	pd_format_release(&f);
	free(name);
}

void pd_tracing_printk(struct pd_state *st, const char *text, size_t len)
{
	size_t dropped, first_bad = 0;
	char *copy;

	if (!st->tracing || !len || !(copy = malloc(len + 2)))
		return;
	if (pd_format_printk(copy, text, len, &dropped, &first_bad))
		tep_parse_printk_formats(st->tracing->tep, copy);
	if (dropped)
		pd_warn(st, "%s: tracing data: printk formats profkit cannot "
			"read safely left out: %zu (the first at byte %zu of "
			"them)", st->name, dropped, first_bad);
	free(copy);
}

/* A field's bytes, and a __data_loc field's data, within size bytes. */
static int field_fits(const struct tep_format_field *f,
		      const unsigned char *raw, size_t size, int big)
{
	uint32_t loc, off, len;

	if (f->offset < 0 || f->size < 0 ||
	    (uint64_t)f->offset + (uint64_t)f->size > size)
		return 0;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return 1;
	if (f->size != 4)
		return 0;
	loc = pd_u32(raw + f->offset, big);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)(f->offset + f->size);
	return (uint64_t)off + len <= size;
}

static int event_fits(const struct tep_event *ev, const unsigned char *raw,
		      size_t size, int big)
{
	const struct tep_format_field *f;

	for (f = ev->format.common_fields; f; f = f->next)
		if (!field_fits(f, raw, size, big))
			return 0;
	for (f = ev->format.fields; f; f = f->next)
		if (!field_fits(f, raw, size, big))
			return 0;
	return 1;
}

/* What the samples of ev need of its format, worked out at the first;
 * NULL when out of memory. */
static struct event_shape *event_shape(struct pd_state *st,
				       struct pd_tracing *tr,
				       struct tep_event *ev)
{
	struct event_shape *sh;
	const struct tep_format_field *f;
	size_t i;
	int common;

	if (tr->nshapes && tr->shapes[tr->last_shape].ev == ev)
		return &tr->shapes[tr->last_shape];
	for (i = 0; i < tr->nshapes; i++)
		if (tr->shapes[i].ev == ev) {
			tr->last_shape = i;
			return &tr->shapes[i];
		}
	if (pki_grow(&tr->shapes, &tr->shapes_cap, tr->nshapes + 1,
		     sizeof(*tr->shapes)) < 0)
		return NULL;
	sh = &tr->shapes[tr->nshapes++];
	memset(sh, 0, sizeof(*sh));
	sh->ev = ev;
	sh->start = SIZE_MAX;
	sh->fixed = 1;
	for (common = 1; common >= 0; common--)
		for (f = common ? ev->format.common_fields : ev->format.fields;
		     f; f = f->next) {
			if (f->offset < 0 || f->size < 0)
				sh->never = 1;
			else if (f->flags & TEP_FIELD_IS_DYNAMIC)
				sh->fixed = 0;
			else if ((size_t)f->offset + (size_t)f->size > sh->size)
				sh->size = (size_t)f->offset + (size_t)f->size;
			if (common)
				continue;
			sh->nfields++;
			if ((size_t)f->offset < sh->start)
				sh->start = (size_t)f->offset;
		}
	if (!(sh->keys = calloc(sh->nfields + 1, sizeof(*sh->keys)))) {
		tr->nshapes--;
		return NULL;
	}
	if (!sh->never)
		sh->text = pd_text_template_new(ev, st->big);
	tr->last_shape = i;
	return sh;
}

static int shape_fits(const struct event_shape *sh, const unsigned char *raw,
		      size_t size, int big)
{
	if (sh->never)
		return 0;
	return sh->fixed ? size >= sh->size : event_fits(sh->ev, raw, size, big);
}

static int is_number(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING |
			     TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static int64_t field_number(struct tep_format_field *f,
			    const unsigned char *data)
{
	unsigned long long v = 0;
	int bits = f->size * 8;

	tep_read_number_field(f, data, &v);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && bits < 64 &&
	    (v & (1ull << (bits - 1))))
		v |= ~0ull << bits;
	return (int64_t)v;
}

/* The text perf script prints for the sample, as a string id: from
 * the event's template when it can, else libtraceevent's. */
static pk_str trace_text(struct pd_state *st, struct pd_tracing *tr,
			 struct event_shape *sh, const struct pd_sample *s)
{
	struct tep_record rec;
	const char *text;
	size_t len;

	if (sh->text && pd_text_print(sh->text, tr->raw, &text, &len))
		return pk_profile_intern(st->p, text, len);
	memset(&rec, 0, sizeof(rec));
	rec.ts = s->time;
	rec.cpu = (int)s->cpu;
	rec.size = (int)s->raw_size;
	rec.data = tr->raw;
	trace_seq_reset(&tr->seq);
	tep_print_event(tr->tep, &tr->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&tr->seq);
	if (sh->text)
		pd_text_learn(sh->text, tr->raw, tr->seq.buffer, tr->seq.len);
	return pk_profile_intern(st->p, tr->seq.buffer, tr->seq.len);
}

static pk_str printed_field(struct pd_state *st, struct pd_tracing *tr,
			    struct tep_format_field *f, size_t raw_size)
{
	trace_seq_reset(&tr->seq);
	tep_print_field_content(&tr->seq, tr->raw, (int)raw_size, f);
	trace_seq_terminate(&tr->seq);
	return pk_profile_intern(st->p, tr->seq.buffer, tr->seq.len);
}

/*
 * The key of a char array field's text, into tr->array_key, or 0 when
 * it has none: libtraceevent prints a fixed array from its bytes alone
 * when they end in a NUL ("%s" of them reads no further), as a string
 * or, when not printable, as bytes, and then takes the field for no
 * string from then on: its flags are in the key.
 */
static int array_key(struct pd_tracing *tr, const struct tep_format_field *f)
{
	const unsigned char *bytes = tr->raw + f->offset;
	struct pk_strbuf *k = &tr->array_key;

	if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) !=
	    TEP_FIELD_IS_ARRAY || !memchr(bytes, 0, (size_t)f->size))
		return 0;
	k->len = 0;
	return pki_strbuf_add(k, (const char *)&f, sizeof(f)) == 0 &&
	       pki_strbuf_add(k, (const char *)&f->flags, sizeof(f->flags)) == 0 &&
	       pki_strbuf_add(k, (const char *)bytes, (size_t)f->size) == 0;
}

/* A field's text as libtraceevent prints it; the texts of char arrays
 * (a comm each switch) made once. */
static pk_str field_text(struct pd_state *st, struct pd_tracing *tr,
			 struct tep_format_field *f, size_t raw_size)
{
	pk_str key, text;

	if (!array_key(tr, f))
		return printed_field(st, tr, f, raw_size);
	key = kept_id(&tr->arrays, tr->array_key.s, tr->array_key.len, 0, 0);
	if (key && key < tr->array_text_cap && tr->array_text[key])
		return tr->array_text[key] - 1;
	text = printed_field(st, tr, f, raw_size);
	if (key && pki_grow_zeroed(&tr->array_text, &tr->array_text_cap,
				   (size_t)key + 1, sizeof(*tr->array_text)) == 0)
		tr->array_text[key] = text + 1;
	return text;
}

/* The label key of field i, f, of the shape's event: made at its first
 * sample (the profile's strings in the order they always came). */
static pk_str field_key(struct pd_state *st, struct event_shape *sh,
			size_t i, const struct tep_format_field *f)
{
	if (!sh->keys[i])
		sh->keys[i] = pki_trace_field_key(st->p, sh->ev->name,
						  strlen(sh->ev->name), f->name,
						  strlen(f->name));
	return sh->keys[i];
}

/* Labels n.. of tr->labels: the trace text and the event's fields. */
static size_t field_labels(struct pd_state *st, struct pd_tracing *tr,
			   struct event_shape *sh, const struct pd_sample *s,
			   size_t n)
{
	struct pk_label *l = tr->labels;
	struct tep_format_field *f;
	size_t i = 0;

	memset(&l[n], 0, sizeof(*l));
	l[n].key = pk_profile_intern_cstr(st->p, "trace");
	l[n++].str = trace_text(st, tr, sh, s);
	for (f = sh->ev->format.fields; f; f = f->next) {
		memset(&l[n], 0, sizeof(*l));
		l[n].key = field_key(st, sh, i++, f);
		if (is_number(f))
			l[n++].num = field_number(f, tr->raw);
		else
			l[n++].str = field_text(st, tr, f, s->raw_size);
	}
	return n;
}

static struct event_shape *sample_event(struct pd_state *st,
					struct pd_tracing *tr,
					const struct pd_sample *s,
					uint64_t offset)
{
	struct event_shape *sh;
	const struct pd_format *f;
	struct tep_event *ev;

	if (s->raw_size < 8 ||
	    !(ev = tep_find_event(tr->tep, pd_u16(s->raw, st->big))))
		return NULL;
	if (!(sh = event_shape(st, tr, ev)))
		return NULL;
	if (!shape_fits(sh, s->raw, s->raw_size, st->big)) {
		pd_warn(st, "%s: offset 0x%llx: the raw data of a '%s' sample "
			"is shorter than its fields; not decoded", st->name,
			(unsigned long long)offset, ev->name);
		return NULL;
	}
	if (tr->nreaching && (f = find_reaching(tr, (unsigned)ev->id)) &&
	    !pd_format_sample_fits(f, s->raw, s->raw_size, st->big)) {
		pd_warn(st, "%s: offset 0x%llx: the raw data of a '%s' sample "
			"does not hold what its print format reads; not "
			"decoded", st->name, (unsigned long long)offset,
			ev->name);
		return NULL;
	}
	return sh;
}

/* Where the payload starts: the bytes of the sample's raw data after
 * the common fields, which vary and are not shown. */
static size_t payload_start(const struct event_shape *sh,
			    const struct pd_sample *s)
{
	return sh->start < s->raw_size ? sh->start : s->raw_size;
}

/*
 * The labels of a payload decoded before (they depend on its bytes
 * only) after base in tr->labels, or 0 when it is new: then *id is its
 * id to keep them under, or 0 when no more are kept.
 */
static size_t kept_labels(struct pd_state *st, struct pd_tracing *tr,
			  const struct event_shape *sh,
			  const struct pd_sample *s, size_t nbase, uint32_t *id)
{
	const struct tep_event *ev = sh->ev;
	size_t n, start = payload_start(sh, s);
	const struct kept_payload *k;
	const struct pk_label *l;

	*id = 0;
	if (pki_grow(&tr->key, &tr->key_cap, sizeof(ev->id) + s->raw_size - start, 1) < 0)
		return 0;
	memcpy(tr->key, &ev->id, sizeof(ev->id));
	memcpy(tr->key + sizeof(ev->id), s->raw + start, s->raw_size - start);
	*id = kept_id(&tr->payloads, (const char *)tr->key,
		      sizeof(ev->id) + s->raw_size - start, tr->nkept >= PAYLOADS_KEPT,
		      tr->kept_cap * sizeof(*tr->kept));
	if (!*id || *id >= tr->kept_cap || !(k = &tr->kept[*id])->set)
		return 0;
	l = pk_profile_labels(st->p, k->set, &n);
	if (n < k->nbase || nbase + n - k->nbase > tr->labels_cap)
		return 0;
	memcpy(tr->labels + nbase, l + k->nbase, (n - k->nbase) * sizeof(*l));
	return nbase + n - k->nbase;
}

/* Keep set, whose labels after the first nbase are payload id's. */
static void keep_labels(struct pd_tracing *tr, uint32_t id, uint32_t set,
			size_t nbase)
{
	if (!set || pki_grow_zeroed(&tr->kept, &tr->kept_cap, (size_t)id + 1,
				    sizeof(*tr->kept)) < 0)
		return;
	tr->kept[id].set = set;
	tr->kept[id].nbase = (uint32_t)nbase;
	tr->nkept++;
}

/* The set of tr->labels (n, the first nbase the sample's own) of the
 * payload kept as id: interned once per payload and thread labels. */
static uint32_t memo_label_set(struct pd_state *st, struct pd_tracing *tr,
			       uint32_t id, size_t nbase, size_t n)
{
	return pd_label_set(st->p, &tr->memo, id, tr->labels, nbase, n);
}

/* The slot of the payload of event ev in raw[start, size) with the
 * sample's own labels base, or NULL when it cannot be kept there. */
static struct recent_payload *recent_slot(struct pd_tracing *tr,
					  const struct event_shape *sh,
					  const struct pd_sample *s,
					  const struct pk_label *base,
					  size_t nbase)
{
	size_t start = payload_start(sh, s);
	uint64_t h = (uint64_t)(unsigned)sh->ev->id;
	size_t i;

	if (s->raw_size - start > RECENT_BYTES ||
	    nbase > PK_ARRAY_SIZE(tr->recent->base) ||
	    (!tr->recent &&
	     !(tr->recent = calloc(RECENT_SLOTS, sizeof(*tr->recent)))))
		return NULL;
	for (i = 0; i < nbase; i++)
		h = h * 31 + ((uint64_t)base[i].str << 32 ^ (uint64_t)base[i].num);
	h = pd_hash_words(s->raw + start, s->raw_size - start, h);
	return &tr->recent[h & (RECENT_SLOTS - 1)];
}

static int recent_is(const struct recent_payload *r,
		     const struct event_shape *sh, const struct pd_sample *s,
		     const struct pk_label *base, size_t nbase)
{
	size_t start = payload_start(sh, s);

	return r->set && r->event == sh->ev->id && r->nbase == nbase &&
	       r->len == s->raw_size - start &&
	       memcmp(r->bytes, s->raw + start, r->len) == 0 &&
	       memcmp(r->base, base, nbase * sizeof(*base)) == 0;
}

static void remember_recent(struct recent_payload *r,
			    const struct event_shape *sh,
			    const struct pd_sample *s,
			    const struct pk_label *base, size_t nbase,
			    uint32_t set)
{
	size_t start = payload_start(sh, s);

	r->set = set;
	r->event = sh->ev->id;
	r->nbase = nbase;
	r->len = s->raw_size - start;
	memcpy(r->bytes, s->raw + start, r->len);
	memcpy(r->base, base, nbase * sizeof(*base));
}

/* The set of the labels of a payload not met lately: base and the
 * payload's, from those kept for it or decoded now; *whole is 0 when
 * memory ran out for the payload's. */
static uint32_t payload_labels(struct pd_state *st, struct pd_tracing *tr,
			       struct event_shape *sh,
			       const struct pd_sample *s,
			       const struct pk_label *base, size_t nbase,
			       int *whole)
{
	uint32_t id, set;
	size_t n = nbase + 1 + sh->nfields;

	*whole = 1;
	if (pki_grow(&tr->labels, &tr->labels_cap, n, sizeof(*tr->labels)) < 0 ||
	    pki_grow(&tr->raw, &tr->raw_cap, s->raw_size + RAW_PAD, 1) < 0) {
		*whole = 0;
		return pk_profile_intern_labels(st->p, base, nbase);
	}
	memcpy(tr->labels, base, nbase * sizeof(*base));
	n = kept_labels(st, tr, sh, s, nbase, &id);
	if (n)
		return memo_label_set(st, tr, id, nbase, n);
	memcpy(tr->raw, s->raw, s->raw_size);
	memset(tr->raw + s->raw_size, 0, RAW_PAD);
	n = field_labels(st, tr, sh, s, nbase);
	set = pk_profile_intern_labels(st->p, tr->labels, n);
	if (id)
		keep_labels(tr, id, set, nbase);
	return set;
}

uint32_t pd_tracing_labels(struct pd_state *st, const struct pd_sample *s,
			   uint64_t offset, const struct pk_label *base,
			   size_t nbase)
{
	struct pd_tracing *tr = st->tracing;
	struct event_shape *sh = NULL;
	struct recent_payload *r;
	uint32_t set;
	int whole;

	if (tr && s->raw)
		sh = sample_event(st, tr, s, offset);
	if (!sh)
		return pk_profile_intern_labels(st->p, base, nbase);
	r = recent_slot(tr, sh, s, base, nbase);
	if (r && recent_is(r, sh, s, base, nbase))
		return r->set;
	set = payload_labels(st, tr, sh, s, base, nbase, &whole);
	if (r && set && whole)
		remember_recent(r, sh, s, base, nbase, set);
	return set;
}
