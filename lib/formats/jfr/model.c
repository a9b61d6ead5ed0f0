/* SPDX-License-Identifier: MIT */
/*
 * What the model gets of a recording.
 *
 * A frame is a location of one line: its method named as jfr print
 * names it, "package.Class.method" (the class's '/' made '.'), and its
 * line number; the function's system name is the JVM's own,
 * "package/Class.method(descriptor)". The location's mapping is named
 * after the frame's type ("Interpreted", "JIT compiled", "Inlined",
 * "Native"; async-profiler adds "C++", "Kernel", "C1 compiled"), so the
 * type goes with the frame into every output; with --jit (--kernel for
 * kernel frames) names end in async-profiler's marks for it.
 *
 * A thread is labels: comm, its name (the root frame of folded stacks,
 * as perf's comm is), tid and java-tid, its OS and Java thread ids, and
 * pid, the JVM's, when the recording says it (jdk.JVMInformation). A
 * stack the JVM cut at its depth limit has the label truncated=true.
 *
 * Each constant is made into the model once a chunk: the pools keep
 * what was made of it (memo).
 */
#include <stdlib.h>
#include <string.h>

#include "jfr.h"


static const struct frame_kind {
	const char *description;
	const char *mark;	/* with --jit, as async-profiler marks it */
} frame_kinds[] = {
	{ "Interpreted", "_[0]" }, { "JIT compiled", "_[j]" },
	{ "Inlined", "_[i]" }, { "Native", "" }, { "C++", "" },
	{ "Kernel", "_[k]" }, { "C1 compiled", "_[1]" },
};
#define KIND_KERNEL 5

int jfr_nomem(const struct jfr_reader *r)
{
	return pk_error_set(r->ctx, PK_ENOMEM, "%s: out of memory", r->name);
}

int jfr_model_init(struct jfr_reader *r)
{
	struct pk_profile *p = r->p;

	r->key_comm = pk_profile_intern_cstr(p, "comm");
	r->key_tid = pk_profile_intern_cstr(p, "tid");
	r->key_java_tid = pk_profile_intern_cstr(p, "java-tid");
	r->key_pid = pk_profile_intern_cstr(p, "pid");
	r->key_truncated = pk_profile_intern_cstr(p, "truncated");
	r->str_true = pk_profile_intern_cstr(p, "true");
	return pk_profile_failed(p) ? PK_ENOMEM : 0;
}

void jfr_model_release(struct jfr_reader *r)
{
	free(r->stack);
	free(r->values);
	free(r->text.s);
	free(r->class_name.s);
	free(r->name_buf.s);
	free(r->system_buf.s);
}

/* The slot of the constant of key in a pool, or -1 when the pool has
 * none: key 0 is null, any other is counted as missing. */
static ptrdiff_t find_constant(struct jfr_reader *r, enum jfr_pool_id pool,
			       uint64_t key)
{
	ptrdiff_t slot = r->ch.md.pool_type[pool] < 0 ? -1 :
		jfr_pool_find(&r->ch.pools[pool], key);

	r->missing += slot < 0 && key;
	return slot;
}

/* Where the first n fields (at most JFR_MAX_FIELDS) of the constant at
 * slot start. */
static void constant_fields(struct jfr_reader *r, enum jfr_pool_id pool,
			    ptrdiff_t slot, const unsigned char **at, int n)
{
	const struct jfr_metadata *md = &r->ch.md;
	struct jfr_cursor c;

	/* decoded once already, in the first pass: it decodes */
	jfr_cursor_init(&c, r->ch.base + r->ch.pools[pool].at[slot],
			r->ch.base + r->ch.size);
	jfr_field_starts(md, &md->types[md->pool_type[pool]], &c, at, n);
}

/* Both: 1 and the fields, or 0 when the pool has no such constant. */
static int constant(struct jfr_reader *r, enum jfr_pool_id pool, uint64_t key,
		    int n, const unsigned char **at, ptrdiff_t *slot)
{
	*slot = find_constant(r, pool, key);
	if (*slot >= 0)
		constant_fields(r, pool, *slot, at, n);
	return *slot >= 0;
}

static int field_count(int a, int b, int c)
{
	int n = a > b ? a : b;

	n = n > c ? n : c;
	return n + 1;
}

int jfr_field_text(struct jfr_reader *r, const struct jfr_type *t, int field,
		   const unsigned char *const *at, struct pk_strbuf *out,
		   int dots, enum jfr_string_state *state)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_field *f;
	const unsigned char *sym[JFR_MAX_FIELDS];
	struct jfr_cursor c;
	ptrdiff_t slot;
	uint64_t key;

	*state = JFR_STRING_NULL;
	if (field == JFR_NO_FIELD)
		return 0;
	f = jfr_field_at(md, t, field);
	jfr_cursor_init(&c, at[field], r->ch.base + r->ch.size);
	if (!f->pooled) {
		jfr_string(&r->ch, &c, out, dots, state, &r->missing);
		return c.fault ? jfr_fault(&r->ch, &c) : 0;
	}
	key = jfr_varint(&c);
	if (md->types[f->type].pool == JFR_POOL_STRING) {
		if (!jfr_pool_value(&r->ch, JFR_POOL_STRING, key, &c, &slot)) {
			r->missing += key != 0;
			return 0;
		}
		jfr_string(&r->ch, &c, out, dots, state, &r->missing);
		return c.fault ? jfr_fault(&r->ch, &c) : 0;
	}
	/* a symbol: its string (metadata.c saw it is no symbol again) */
	if (!constant(r, JFR_POOL_SYMBOL, key, md->layout.symbol_string + 1, sym, &slot))
		return 0;
	return jfr_field_text(r, &md->types[md->pool_type[JFR_POOL_SYMBOL]],
			      md->layout.symbol_string, sym, out, dots, state);
}

/* ---- methods and frames ---- */

/* The class of a method appended to out as the JVM writes it
 * (java/lang/Thread), and its source file's name if the recording has
 * it (JDK 17's does not). */
static int class_of(struct jfr_reader *r, uint64_t key, struct pk_strbuf *out,
		    pk_str *file)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const struct jfr_type *t;
	const unsigned char *at[JFR_MAX_FIELDS];
	enum jfr_string_state state;
	ptrdiff_t slot;
	int rc;

	*file = 0;
	if (!constant(r, JFR_POOL_CLASS, key, field_count(l->class_name,
			l->class_source, -1), at, &slot))
		return pki_strbuf_adds(out, "[missing class]") ? jfr_nomem(r) : 0;
	t = &md->types[md->pool_type[JFR_POOL_CLASS]];
	rc = jfr_field_text(r, t, l->class_name, at, out, 0, &state);
	if (rc || l->class_source == JFR_NO_FIELD)
		return rc;
	r->text.len = 0;
	rc = jfr_field_text(r, t, l->class_source, at, &r->text, 0, &state);
	if (!rc && r->text.len && !(*file = pk_profile_intern(r->p, r->text.s, r->text.len)))
		rc = jfr_nomem(r);
	return rc;
}

/*
 * The function of a method: named "pkg.Class.method" (with
 * --jfr-signatures its descriptor too), its system name the JVM's,
 * "pkg/Class.method(descriptor)". async-profiler's native frames have no
 * class: their name is the symbol alone.
 */
static int method_function(struct jfr_reader *r, uint64_t key, uint32_t *fn)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const unsigned char *at[JFR_MAX_FIELDS];
	struct pk_strbuf *sys = &r->system_buf, *name = &r->name_buf;
	enum jfr_string_state state;
	struct pk_function f = { 0 };
	const struct jfr_type *t;
	size_t class_len, method_end, i;
	ptrdiff_t slot;
	int rc = 0;

	if ((slot = find_constant(r, JFR_POOL_METHOD, key)) < 0) {
		f.name = pk_profile_intern_cstr(r->p, "[missing method]");
		*fn = pk_profile_intern_function(r->p, &f);
		return *fn ? 0 : jfr_nomem(r);
	}
	if (r->ch.pools[JFR_POOL_METHOD].memo[slot]) {
		*fn = (uint32_t)r->ch.pools[JFR_POOL_METHOD].memo[slot];
		return 0;
	}
	constant_fields(r, JFR_POOL_METHOD, slot, at, field_count(l->method_class,
			l->method_name, l->method_descriptor));
	t = &md->types[md->pool_type[JFR_POOL_METHOD]];
	sys->len = 0;
	if (l->method_class != JFR_NO_FIELD)
		rc = class_of(r, jfr_number_at(md, jfr_field_at(md, t, l->method_class),
					       at[l->method_class],
					       r->ch.base + r->ch.size),
			      sys, &f.filename);
	class_len = sys->len;
	if (!rc && class_len && pki_strbuf_adds(sys, "."))
		rc = jfr_nomem(r);
	if (!rc)
		rc = jfr_field_text(r, t, l->method_name, at, sys, 0, &state);
	method_end = sys->len;
	if (!rc)
		rc = jfr_field_text(r, t, l->method_descriptor, at, sys, 0, &state);
	if (rc)
		return rc;
	name->len = 0;
	if (pki_strbuf_add(name, sys->s ? sys->s : "",
			   r->opts.signatures ? sys->len : method_end))
		return jfr_nomem(r);
	for (i = 0; i < class_len; i++)
		if (name->s[i] == '/')
			name->s[i] = '.';
	f.name = pk_profile_intern(r->p, name->s, name->len);
	f.system_name = pk_profile_intern(r->p, sys->s ? sys->s : "", sys->len);
	*fn = pk_profile_intern_function(r->p, &f);
	if (!*fn)
		return jfr_nomem(r);
	r->ch.pools[JFR_POOL_METHOD].memo[slot] = *fn;
	return 0;
}

/* The frame type's mapping, and the index of its kind in frame_kinds
 * (PK_ARRAY_SIZE(frame_kinds) for another, or none). */
static int frame_type(struct jfr_reader *r, uint64_t key, uint32_t *mapping,
		      size_t *kind)
{
	const struct jfr_metadata *md = &r->ch.md;
	const unsigned char *at[JFR_MAX_FIELDS];
	enum jfr_string_state state;
	struct pk_mapping m = { 0 };
	ptrdiff_t slot;
	int rc;

	*mapping = 0;
	*kind = PK_ARRAY_SIZE(frame_kinds);
	if ((slot = find_constant(r, JFR_POOL_FRAME_TYPE, key)) < 0)
		return 0;
	if (r->ch.pools[JFR_POOL_FRAME_TYPE].memo[slot]) {
		uint64_t memo = r->ch.pools[JFR_POOL_FRAME_TYPE].memo[slot];

		*mapping = (uint32_t)(memo >> 8);
		*kind = (size_t)(memo & 0xff) - 1;
		return 0;
	}
	constant_fields(r, JFR_POOL_FRAME_TYPE, slot, at,
			md->layout.frame_type_description + 1);
	r->text.len = 0;
	rc = jfr_field_text(r, &md->types[md->pool_type[JFR_POOL_FRAME_TYPE]],
			    md->layout.frame_type_description, at, &r->text, 0, &state);
	if (rc)
		return rc;
	for (*kind = 0; *kind < PK_ARRAY_SIZE(frame_kinds); ++*kind)
		if (r->text.len == strlen(frame_kinds[*kind].description) &&
		    memcmp(r->text.s, frame_kinds[*kind].description, r->text.len) == 0)
			break;
	if (r->text.len) {
		m.file = pk_profile_intern(r->p, r->text.s, r->text.len);
		m.has_functions = m.has_line_numbers = 1;
		if (!(*mapping = pk_profile_intern_mapping(r->p, &m)))
			return jfr_nomem(r);
	}
	r->ch.pools[JFR_POOL_FRAME_TYPE].memo[slot] = (uint64_t)*mapping << 8 | (*kind + 1);
	return 0;
}

/* The function named with its frame type's mark: at the end, or before
 * the descriptor (--jfr-signatures), which folded stacks cut. */
static int marked(struct jfr_reader *r, uint32_t *fn, const char *mark)
{
	struct pk_function f = *pk_profile_function(r->p, *fn);
	const char *name = pk_profile_string(r->p, f.name);
	size_t len = r->opts.signatures ? strcspn(name, "(") : strlen(name);

	r->text.len = 0;
	if (pki_strbuf_add(&r->text, name, len) || pki_strbuf_adds(&r->text, mark) ||
	    pki_strbuf_adds(&r->text, name + len))
		return jfr_nomem(r);
	f.name = pk_profile_intern(r->p, r->text.s, r->text.len);
	*fn = pk_profile_intern_function(r->p, &f);
	return *fn ? 0 : jfr_nomem(r);
}

/* One frame of a stack trace, its fields at at[], as a location. */
static int frame_location(struct jfr_reader *r, const struct jfr_type *ft,
			  const unsigned char *const *at, uint32_t *loc)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const unsigned char *end = r->ch.base + r->ch.size;
	struct pk_line line = { 0, 0 };
	uint32_t mapping = 0;
	size_t kind = PK_ARRAY_SIZE(frame_kinds);
	int rc = 0;

	if (l->frame_method != JFR_NO_FIELD)
		rc = method_function(r, jfr_number_at(md, jfr_field_at(md, ft, l->frame_method),
						      at[l->frame_method], end), &line.function);
	if (!rc && l->frame_type != JFR_NO_FIELD)
		rc = frame_type(r, jfr_number_at(md, jfr_field_at(md, ft, l->frame_type),
						 at[l->frame_type], end), &mapping, &kind);
	if (rc)
		return rc;
	if (l->frame_line != JFR_NO_FIELD) {
		/* an int: -1 (no line) written as 32 bits or as 64 */
		int32_t n = (int32_t)jfr_number_at(md, jfr_field_at(md, ft, l->frame_line),
						   at[l->frame_line], end);

		line.line = n > 0 ? n : 0;
	}
	if (kind < PK_ARRAY_SIZE(frame_kinds) && *frame_kinds[kind].mark &&
	    line.function && (kind == KIND_KERNEL ? r->opts.mark_kernel : r->opts.mark_jit) &&
	    (rc = marked(r, &line.function, frame_kinds[kind].mark)))
		return rc;
	*loc = pk_profile_intern_location(r->p, mapping, 0, &line, line.function ? 1 : 0);
	return *loc ? 0 : jfr_nomem(r);
}

/* The frames of a stack trace at c, leaf first, into r->stack. */
static int read_frames(struct jfr_reader *r, struct jfr_cursor *c, size_t *depth)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const struct jfr_type *ft = &md->types[l->stack_frame_type];
	int nf = field_count(l->frame_method, l->frame_line, l->frame_type);
	size_t max = pki_profile_max_stack(r->p);
	uint64_t n = jfr_varint(c), k;
	int rc = 0;

	/* one frame more than the profile keeps: it counts the stacks cut */
	if (max < SIZE_MAX && n > (uint64_t)max + 1)
		n = (uint64_t)max + 1;
	if (n > (uint64_t)(c->end - c->p))
		jfr_fail(c, "a stack trace's frames run past the end of its event");
	if (!c->fault && pki_grow(&r->stack, &r->stack_cap, (size_t)n + 1, sizeof(*r->stack)))
		return jfr_nomem(r);
	for (k = 0; k < n && !c->fault && !rc; k++) {
		const unsigned char *at[JFR_MAX_FIELDS];

		jfr_field_starts(md, ft, c, at, nf);
		jfr_skip_fields_from(md, ft, c, nf);
		if (!c->fault)
			rc = frame_location(r, ft, at, &r->stack[k]);
	}
	*depth = (size_t)k;
	return rc ? rc : c->fault ? jfr_fault(&r->ch, c) : 0;
}

static int stack_of(struct jfr_reader *r, uint64_t key, uint32_t *stack,
		    int *truncated);

int jfr_model_stack(struct jfr_reader *r, uint64_t key, uint32_t *stack,
		    int *truncated)
{
	int rc;

	/* the events of one thread come together, often of one stack */
	if (r->last_stack_key == key && r->last_stack) {
		*stack = r->last_stack;
		*truncated = r->last_truncated;
		return 0;
	}
	rc = stack_of(r, key, stack, truncated);
	if (!rc) {
		r->last_stack_key = key;
		r->last_stack = *stack;
		r->last_truncated = *truncated;
	}
	return rc;
}

static int stack_of(struct jfr_reader *r, uint64_t key, uint32_t *stack,
		    int *truncated)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const unsigned char *at[JFR_MAX_FIELDS];
	struct jfr_pool *pool = &r->ch.pools[JFR_POOL_STACK];
	const struct jfr_type *t;
	size_t depth = 0;
	ptrdiff_t slot;
	int rc;

	*truncated = 0;
	/* key 0 is null: an event without a stack trace */
	if (!key || (slot = find_constant(r, JFR_POOL_STACK, key)) < 0) {
		*stack = pk_profile_intern_stack(r->p, NULL, 0);
		return *stack ? 0 : jfr_nomem(r);
	}
	if (pool->memo[slot]) {
		*stack = (uint32_t)(pool->memo[slot] >> 1);
		*truncated = (int)(pool->memo[slot] & 1);
		return 0;
	}
	constant_fields(r, JFR_POOL_STACK, slot, at,
			field_count(l->stack_truncated, l->stack_frames, -1));
	t = &md->types[md->pool_type[JFR_POOL_STACK]];
	if (l->stack_truncated != JFR_NO_FIELD)
		*truncated = jfr_number_at(md, jfr_field_at(md, t, l->stack_truncated),
					   at[l->stack_truncated], r->ch.base + r->ch.size) != 0;
	if (l->stack_frames != JFR_NO_FIELD) {
		struct jfr_cursor c;

		jfr_cursor_init(&c, at[l->stack_frames], r->ch.base + r->ch.size);
		if ((rc = read_frames(r, &c, &depth)))
			return rc;
	}
	*stack = pk_profile_intern_stack(r->p, r->stack, depth);
	if (!*stack)
		return jfr_nomem(r);
	pool->memo[slot] = (uint64_t)*stack << 1 | (unsigned)*truncated;
	return 0;
}

/* ---- threads ---- */

static int thread_labels(struct jfr_reader *r, uint64_t key, int truncated,
			 uint32_t *labels)
{
	const struct jfr_metadata *md = &r->ch.md;
	const struct jfr_layout *l = &md->layout;
	const unsigned char *end = r->ch.base + r->ch.size;
	const unsigned char *at[JFR_MAX_FIELDS];
	struct pk_label set[5];
	enum jfr_string_state state = JFR_STRING_NULL;
	const struct jfr_type *t;
	size_t n = 0;
	ptrdiff_t slot;
	int rc = 0;

	memset(set, 0, sizeof(set));
	int nf = field_count(l->thread_os_name, l->thread_os_id, l->thread_java_name);

	if (nf < l->thread_java_id + 1)
		nf = l->thread_java_id + 1;
	if (key && constant(r, JFR_POOL_THREAD, key, nf, at, &slot)) {
		t = &md->types[md->pool_type[JFR_POOL_THREAD]];
		r->text.len = 0;
		/* the Java name, as jfr print shows; a thread of the JVM's
		 * own has only its OS name */
		rc = jfr_field_text(r, t, l->thread_java_name, at, &r->text, 0, &state);
		if (!rc && state == JFR_STRING_NULL)
			rc = jfr_field_text(r, t, l->thread_os_name, at, &r->text, 0, &state);
		if (rc)
			return rc;
		set[n].key = r->key_comm;
		set[n++].str = pk_profile_intern(r->p, r->text.s ? r->text.s : "", r->text.len);
		if (l->thread_os_id != JFR_NO_FIELD) {
			set[n].key = r->key_tid;
			set[n++].num = (int64_t)jfr_number_at(md, jfr_field_at(md, t, l->thread_os_id),
							      at[l->thread_os_id], end);
		}
		if (l->thread_java_id != JFR_NO_FIELD) {
			set[n].key = r->key_java_tid;
			set[n].num = (int64_t)jfr_number_at(md, jfr_field_at(md, t, l->thread_java_id),
							    at[l->thread_java_id], end);
			n += set[n].num != 0;
		}
	}
	if (r->pid >= 0) {
		set[n].key = r->key_pid;
		set[n++].num = r->pid;
	}
	if (truncated) {
		set[n].key = r->key_truncated;
		set[n++].str = r->str_true;
	}
	*labels = pk_profile_intern_labels(r->p, set, n);
	return *labels || !n ? 0 : jfr_nomem(r);
}

int jfr_model_thread(struct jfr_reader *r, uint64_t key, int truncated,
		     uint32_t *labels)
{
	struct jfr_pool *pool = &r->ch.pools[JFR_POOL_THREAD];
	ptrdiff_t slot;
	int shift = truncated ? 32 : 0, rc;

	if (r->last_thread_key == key && r->last_labels[truncated]) {
		*labels = r->last_labels[truncated];
		return 0;
	}
	if (r->last_thread_key != key) {
		r->last_thread_key = key;
		r->last_labels[0] = r->last_labels[1] = 0;
	}
	slot = key ? jfr_pool_find(pool, key) : -1;
	if (slot >= 0 && (pool->memo[slot] >> shift & 0xffffffffu)) {
		*labels = (uint32_t)(pool->memo[slot] >> shift);
	} else {
		rc = thread_labels(r, key, truncated, labels);
		if (rc)
			return rc;
		if (slot >= 0)
			pool->memo[slot] |= (uint64_t)*labels << shift;
	}
	r->last_labels[truncated] = *labels;
	return 0;
}

/* ---- columns and samples ---- */

/* The column of an event's sample type, made if no input made it yet. */
static int column(struct jfr_reader *r, const char *event, const char *type,
		  const char *unit, enum pk_value_kind kind)
{
	pk_str e = pk_profile_lookup(r->p, event), ty = pk_profile_lookup(r->p, type);
	size_t i;

	for (i = 0; e && ty && i < pk_profile_sample_type_count(r->p); i++) {
		const struct pk_value_type *v = pk_profile_sample_type(r->p, i);

		if (v->event == e && v->type == ty)
			return (int)i;
	}
	return pk_profile_add_sample_type(r->p, type, unit, event, kind);
}

static int make_columns(struct jfr_reader *r, struct jfr_event *ev)
{
	const struct jfr_event_spec *spec = ev->spec;
	int i;

	ev->columns[0] = column(r, spec->name, "samples", "count", PK_VALUE_COUNT);
	if (spec->sampled)
		ev->columns[1] = column(r, spec->name, spec->sampled, "nanoseconds",
					PK_VALUE_WEIGHT);
	for (i = 0; i < 2 && spec->fields[i]; i++)
		ev->columns[1 + i] = column(r, spec->name, spec->fields[i],
					    strcmp(spec->fields[i], "duration") ?
					    "bytes" : "nanoseconds", PK_VALUE_WEIGHT);
	return ev->columns[0] < 0 || pk_profile_failed(r->p) ? jfr_nomem(r) : 0;
}

/* One sample of the values at r->values, at time. */
static int add_values(struct jfr_reader *r, uint32_t stack, uint32_t labels,
		      uint64_t time, const uint64_t *sums, const int *columns)
{
	size_t ntypes = pk_profile_sample_type_count(r->p);
	int i;

	if (pki_grow(&r->values, &r->values_cap, ntypes, sizeof(*r->values)))
		return jfr_nomem(r);
	memset(r->values, 0, ntypes * sizeof(*r->values));
	for (i = 0; i < 3; i++)
		if (columns[i] >= 0)
			r->values[columns[i]] = (int64_t)sums[i];
	return pk_profile_add_sample(r->p, stack, labels, time, r->values, ntypes) ?
		jfr_nomem(r) : 0;
}

/* The run of samples alike so far into the model, its span of time too. */
static int flush_run(struct jfr_reader *r)
{
	struct jfr_run *run = &r->run;
	int rc;

	if (!run->ev)
		return 0;
	rc = add_values(r, run->stack, run->labels, run->first, run->sums,
			run->ev->columns);
	/* nothing more, but the time it was last seen */
	if (!rc && run->last != run->first &&
	    pk_profile_add_sample(r->p, run->stack, run->labels, run->last, r->values, 0))
		rc = jfr_nomem(r);
	run->ev = NULL;
	return rc;
}

/*
 * A thread's events come together in the JVM's buffers, many of one
 * stack: such a run is summed here and added to the model once, so the
 * model's hash of the sample is made once a run, not once an event. A
 * profile that keeps every sample's time gets each.
 */
int jfr_model_add(struct jfr_reader *r, struct jfr_event *ev, uint32_t stack,
		  uint32_t labels, uint64_t time, const int64_t *weights)
{
	struct jfr_run *run = &r->run;
	uint64_t one[3] = { 1, (uint64_t)weights[0], (uint64_t)weights[1] };
	int i, rc;

	if (ev->columns[0] < 0 && (rc = make_columns(r, ev)))
		return rc;
	ev->samples++;
	if (pk_profile_flags(r->p) & PK_PROFILE_KEEP_ORDER)
		return add_values(r, stack, labels, time, one, ev->columns);
	if (run->ev != ev || run->stack != stack || run->labels != labels) {
		if ((rc = flush_run(r)))
			return rc;
		run->ev = ev;
		run->stack = stack;
		run->labels = labels;
		run->first = run->last = time;
		memset(run->sums, 0, sizeof(run->sums));
	}
	for (i = 0; i < 3; i++)
		run->sums[i] += one[i];		/* unsigned: wraps as the model's sums */
	run->first = time < run->first ? time : run->first;
	run->last = time > run->last ? time : run->last;
	return 0;
}

/* The last run into the model, then the CPU samples first: what a
 * writer shows when no --event says. */
int jfr_model_finish(struct jfr_reader *r)
{
	pk_str cpu = pk_profile_lookup(r->p, "jdk.ExecutionSample");
	size_t n = pk_profile_sample_type_count(r->p), i, k = 0;
	size_t *order;
	int rc = flush_run(r), moved = 0;

	if (rc || !cpu || !n)
		return rc;
	order = malloc(n * sizeof(*order));
	if (!order)
		return jfr_nomem(r);
	for (i = 0; i < n; i++)
		if (pk_profile_sample_type(r->p, i)->event == cpu) {
			moved |= k != i;
			order[k++] = i;
		}
	for (i = 0; i < n; i++)
		if (pk_profile_sample_type(r->p, i)->event != cpu)
			order[k++] = i;
	rc = moved ? pki_profile_order_columns(r->p, order) : 0;
	free(order);
	return rc ? jfr_nomem(r) : 0;
}
