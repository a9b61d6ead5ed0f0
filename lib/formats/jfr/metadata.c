/* SPDX-License-Identifier: MIT */
/*
 * The metadata event: a table of strings, then a tree of elements
 *
 *     root
 *       metadata
 *         class  id= name= superType= simpleType=
 *           field  name= class=(type id) constantPool=true dimension=1
 *           annotation ...
 *       region ...
 *
 * each element its name (a string index), its attributes (pairs of
 * string indexes) and its children. Every class is a type: the few the
 * JVM defines as numbers and strings by name, the others structs of
 * their fields in order. Only classes and fields matter here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr.h"

/* Elements nest four deep in what the JVM writes. */
#define MAX_ELEMENT_DEPTH 16

struct md_reader {
	struct jfr_chunk *ch;
	struct jfr_cursor c;
	struct pk_strbuf names;
	size_t *string_at;	/* offsets in names */
	uint64_t nstrings;
	/* types and fields as read, type ids still ids */
	size_t types_cap, fields_cap;
	uint64_t *field_type_ids;
	size_t field_type_ids_cap;
	int in_class;		/* the fields read are the last type's */
};

static int md_error(struct md_reader *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int md_error(struct md_reader *m, const char *fmt, ...)
{
	char why[PK_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return jfr_error_at(m->ch, m->c.fault_at ? m->c.fault_at : m->c.p,
			    "%s", why);
}

/* A string of the table by the index at the cursor ("" for a bad one:
 * the caller checks the cursor). */
static const char *table_string(struct md_reader *m, int *bad)
{
	uint64_t i = jfr_varint(&m->c);

	if (i >= m->nstrings) {
		*bad = 1;
		return "";
	}
	return m->names.s + m->string_at[i];
}

static int read_strings(struct md_reader *m)
{
	uint64_t i, missing = 0;

	m->nstrings = jfr_varint(&m->c);
	if (m->nstrings > (uint64_t)(m->c.end - m->c.p)) {
		jfr_fail(&m->c, "the metadata's string table runs past the end "
			 "of its event");
		return 0;
	}
	m->string_at = malloc((size_t)(m->nstrings + 1) * sizeof(*m->string_at));
	if (!m->string_at)
		return PK_ENOMEM;
	for (i = 0; i < m->nstrings && !m->c.fault; i++) {
		enum jfr_string_state state;

		if (m->c.p < m->c.end && *m->c.p == 2) {
			jfr_fail(&m->c, "the metadata's strings refer to the "
				 "constant pool, which needs the metadata");
			break;
		}
		m->string_at[i] = m->names.len;
		jfr_string(m->ch, &m->c, &m->names, 0, &state, &missing);
		if (pki_strbuf_add(&m->names, "", 1))
			return PK_ENOMEM;
	}
	return 0;
}

/* The value of an attribute as a number, or -1 when it is none. */
static int attribute_number(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

static int add_type(struct md_reader *m, const char **keys, const char **values,
		    uint64_t n)
{
	struct jfr_metadata *md = &m->ch->md;
	struct jfr_type *t;
	uint64_t i;

	if (pki_grow(&md->types, &m->types_cap, md->ntypes + 1, sizeof(*md->types)))
		return PK_ENOMEM;
	t = &md->types[md->ntypes];
	memset(t, 0, sizeof(*t));
	t->first_field = (uint32_t)md->nfields;
	t->id = UINT64_MAX;
	for (i = 0; i < n; i++) {
		if (strcmp(keys[i], "id") == 0 && attribute_number(values[i], &t->id))
			return md_error(m, "a class's id '%s' is not a number",
					values[i]);
		if (strcmp(keys[i], "name") == 0)
			t->name = values[i];
	}
	if (t->id == UINT64_MAX || !t->name)
		return md_error(m, "a class of the metadata has no %s",
				t->name ? "id" : "name");
	md->ntypes++;
	return 0;
}

static int add_field(struct md_reader *m, const char **keys, const char **values,
		     uint64_t n)
{
	struct jfr_metadata *md = &m->ch->md;
	struct jfr_type *t = &md->types[md->ntypes - 1];
	struct jfr_field *f;
	uint64_t i, type = UINT64_MAX, dimension = 0;

	if (pki_grow(&md->fields, &m->fields_cap, md->nfields + 1, sizeof(*md->fields)) ||
	    pki_grow(&m->field_type_ids, &m->field_type_ids_cap, md->nfields + 1,
		     sizeof(*m->field_type_ids)))
		return PK_ENOMEM;
	f = &md->fields[md->nfields];
	memset(f, 0, sizeof(*f));
	for (i = 0; i < n; i++) {
		if (strcmp(keys[i], "name") == 0)
			f->name = values[i];
		else if (strcmp(keys[i], "class") == 0 && attribute_number(values[i], &type))
			return md_error(m, "a field's type id '%s' is not a number",
					values[i]);
		else if (strcmp(keys[i], "constantPool") == 0)
			f->pooled = strcmp(values[i], "true") == 0;
		else if (strcmp(keys[i], "dimension") == 0 &&
			 (attribute_number(values[i], &dimension) || dimension > 1))
			return md_error(m, "a field of %s has %s dimensions (JFR "
					"arrays have one)", t->name, values[i]);
	}
	if (!f->name || type == UINT64_MAX)
		return md_error(m, "a field of %s has no %s", t->name,
				f->name ? "type" : "name");
	f->array = dimension == 1;
	m->field_type_ids[md->nfields++] = type;
	t->nfields++;
	return 0;
}

/* One element and its children; parent is the element's parent's name. */
static int read_element(struct md_reader *m, const char *parent, int depth)
{
	const char *keys[8], *values[8], *name;
	uint64_t nattrs, nchildren, i;
	int bad = 0, rc = 0, in_class = m->in_class;

	if (depth > MAX_ELEMENT_DEPTH)
		return md_error(m, "the metadata's elements nest deeper than "
				"%d levels", MAX_ELEMENT_DEPTH);
	name = table_string(m, &bad);
	nattrs = jfr_varint(&m->c);
	if (nattrs > (uint64_t)(m->c.end - m->c.p))
		jfr_fail(&m->c, "a metadata element's attributes run past the "
			 "end of its event");
	for (i = 0; i < nattrs && !m->c.fault; i++) {
		const char *k = table_string(m, &bad), *v = table_string(m, &bad);

		/* the attributes read are among the first few */
		if (i < PK_ARRAY_SIZE(keys)) {
			keys[i] = k;
			values[i] = v;
		}
	}
	if (bad && !m->c.fault)
		return md_error(m, "a metadata element names a string past the "
				"end of the string table");
	if (m->c.fault)
		return 0;
	if (nattrs > PK_ARRAY_SIZE(keys))
		nattrs = PK_ARRAY_SIZE(keys);
	m->in_class = 0;
	if (strcmp(name, "class") == 0 && strcmp(parent, "metadata") == 0) {
		rc = add_type(m, keys, values, nattrs);
		m->in_class = 1;
	} else if (strcmp(name, "field") == 0 && in_class) {
		rc = add_field(m, keys, values, nattrs);
	}
	nchildren = jfr_varint(&m->c);
	if (nchildren > (uint64_t)(m->c.end - m->c.p))
		jfr_fail(&m->c, "a metadata element's children run past the "
			 "end of its event");
	for (i = 0; i < nchildren && !rc && !m->c.fault; i++)
		rc = read_element(m, name, depth + 1);
	m->in_class = in_class;
	return rc;
}

static int compare_type_ids(const void *a, const void *b)
{
	const struct jfr_type *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

const struct jfr_type *jfr_type_of(const struct jfr_metadata *md, uint64_t id)
{
	size_t lo = 0, hi = md->ntypes;

	if (id < md->by_id_len)
		return md->by_id[id] ? &md->types[md->by_id[id] - 1] : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (md->types[mid].id < id)
			lo = mid + 1;
		else if (md->types[mid].id > id)
			hi = mid;
		else
			return &md->types[mid];
	}
	return NULL;
}

int jfr_type_named(const struct jfr_metadata *md, const char *name)
{
	size_t i;

	for (i = 0; i < md->ntypes; i++)
		if (strcmp(md->types[i].name, name) == 0)
			return (int)i;
	return -1;
}

int jfr_field_named(const struct jfr_metadata *md, uint32_t type,
		    const char *name)
{
	const struct jfr_type *t = &md->types[type];
	uint32_t i;

	for (i = 0; i < t->nfields && i < JFR_MAX_FIELDS; i++)
		if (strcmp(md->fields[t->first_field + i].name, name) == 0)
			return (int)i;
	return JFR_NO_FIELD;
}

int jfr_field_is_varint(const struct jfr_metadata *md,
			const struct jfr_type *t, int i)
{
	const struct jfr_field *f;

	if (i == JFR_NO_FIELD)
		return 0;
	f = jfr_field_at(md, t, i);
	return !f->array && (f->pooled || md->types[f->type].kind == JFR_VARINT);
}

static const struct {
	const char *name;
	unsigned char kind;
} simple_types[] = {
	{ "boolean", JFR_BYTE }, { "byte", JFR_BYTE },
	{ "short", JFR_VARINT }, { "char", JFR_VARINT },
	{ "int", JFR_VARINT }, { "long", JFR_VARINT },
	{ "float", JFR_FLOAT }, { "double", JFR_DOUBLE },
	{ "java.lang.String", JFR_STRING },
};

static const char *const pool_types[JFR_NPOOLS] = {
	[JFR_POOL_THREAD] = "java.lang.Thread",
	[JFR_POOL_STACK] = "jdk.types.StackTrace",
	[JFR_POOL_METHOD] = "jdk.types.Method",
	[JFR_POOL_CLASS] = "java.lang.Class",
	[JFR_POOL_SYMBOL] = "jdk.types.Symbol",
	[JFR_POOL_STRING] = "java.lang.String",
	[JFR_POOL_FRAME_TYPE] = "jdk.types.FrameType",
};

static void classify(struct jfr_type *t)
{
	size_t i;

	t->kind = JFR_STRUCT;
	for (i = 0; i < PK_ARRAY_SIZE(simple_types); i++)
		if (strcmp(t->name, simple_types[i].name) == 0)
			t->kind = simple_types[i].kind;
	for (i = 1; i < JFR_NPOOLS; i++)
		if (strcmp(t->name, pool_types[i]) == 0)
			t->pool = (unsigned char)i;
	/* numbers and strings have no fields, whatever is said */
	if (t->kind != JFR_STRUCT)
		t->nfields = 0;
}

static unsigned char field_code(const struct jfr_metadata *md,
				const struct jfr_field *f)
{
	if (f->array)
		return JFR_CODE_VALUE;
	return f->pooled ? JFR_CODE_VARINT : md->types[f->type].code;
}

/* Type ids to indexes; then which structs take no bytes (a struct of
 * such structs takes none either, even one that contains itself). */
static int resolve_types(struct md_reader *m)
{
	struct jfr_metadata *md = &m->ch->md;
	size_t i, k;
	int changed;

	/* sorting moves the types: their fields stay where they are */
	if (md->ntypes)
		qsort(md->types, md->ntypes, sizeof(*md->types), compare_type_ids);
	for (i = 1; i < md->ntypes; i++)
		if (md->types[i].id == md->types[i - 1].id)
			return md_error(m, "the metadata describes type %s twice "
					"(as %s)", md->types[i].name,
					md->types[i - 1].name);
	for (i = 0; i < md->nfields; i++) {
		const struct jfr_type *t = jfr_type_of(md, m->field_type_ids[i]);

		if (!t)
			return md_error(m, "field '%s' has a type id that no "
					"class of the metadata has",
					md->fields[i].name);
		md->fields[i].type = (uint32_t)(t - md->types);
	}
	for (i = 0; i < JFR_NPOOLS; i++)
		md->pool_type[i] = -1;
	for (i = 0; i < md->ntypes; i++) {
		classify(&md->types[i]);
		md->types[i].empty = md->types[i].kind == JFR_STRUCT;
		/* the constants of a pool are read by one type's layout */
		if (md->types[i].pool && md->pool_type[md->types[i].pool] >= 0)
			return md_error(m, "the metadata describes two types "
					"named %s (ids %llu and %llu)",
					md->types[i].name, (unsigned long long)
					md->types[md->pool_type[md->types[i].pool]].id,
					(unsigned long long)md->types[i].id);
		md->pool_type[md->types[i].pool] = (int)i;
	}
	md->pool_type[JFR_POOL_NONE] = -1;
	do {
		changed = 0;
		for (i = 0; i < md->ntypes; i++) {
			struct jfr_type *t = &md->types[i];

			for (k = 0; t->empty && k < t->nfields; k++)
				if (!jfr_field_empty(md, &md->fields[t->first_field + k])) {
					t->empty = 0;
					changed = 1;
				}
		}
	} while (changed);
	for (i = 0; i < md->ntypes; i++) {
		static const unsigned char codes[] = {
			[JFR_STRUCT] = JFR_CODE_VALUE, [JFR_VARINT] = JFR_CODE_VARINT,
			[JFR_BYTE] = JFR_CODE_BYTE, [JFR_FLOAT] = JFR_CODE_FOUR,
			[JFR_DOUBLE] = JFR_CODE_EIGHT, [JFR_STRING] = JFR_CODE_VALUE,
		};

		md->types[i].code = md->types[i].empty ? JFR_CODE_EMPTY :
			codes[md->types[i].kind];
	}
	for (i = 0; i < md->nfields; i++)
		md->fields[i].code = field_code(md, &md->fields[i]);
	for (i = 0; i < md->ntypes; i++) {
		struct jfr_type *t = &md->types[i];

		while (t->varints < t->nfields && t->varints < JFR_MAX_FIELDS &&
		       md->fields[t->first_field + t->varints].code == JFR_CODE_VARINT)
			t->varints++;
	}
	md->walk = malloc((md->nfields + 1) * sizeof(*md->walk));
	if (!md->walk)
		return PK_ENOMEM;
	for (i = k = 0; i < md->ntypes; i++) {
		struct jfr_type *t = &md->types[i];
		uint32_t f;

		t->first_walk = (uint32_t)k;
		for (f = 0; f < t->nfields; f++)
			if (!jfr_field_empty(md, &md->fields[t->first_field + f]))
				md->walk[k++] = t->first_field + f;
		t->nwalk = (uint32_t)k - t->first_walk;
	}
	return 0;
}

/* Direct lookup of the small type ids every event names. */
static int index_ids(struct jfr_metadata *md)
{
	size_t i, len = 0;

	for (i = 0; i < md->ntypes; i++)
		if (md->types[i].id < 4096 && md->types[i].id + 1 > len)
			len = (size_t)md->types[i].id + 1;
	md->by_id = calloc(len + 1, sizeof(*md->by_id));
	if (!md->by_id)
		return PK_ENOMEM;
	for (i = 0; i < md->ntypes; i++)
		if (md->types[i].id < len)
			md->by_id[md->types[i].id] = (uint32_t)i + 1;
	md->by_id_len = len;
	return 0;
}

/* A field the reader reads, when it is what the reader takes it for:
 * a number or constant key (varint), a constant of a pool, or a string. */
enum field_want { WANT_NUMBER, WANT_STRING, WANT_ARRAY };

static int wanted(const struct jfr_metadata *md, int type, const char *name,
		  enum field_want want)
{
	const struct jfr_field *f;
	unsigned char kind;
	int i;

	if (type < 0 || (i = jfr_field_named(md, (uint32_t)type, name)) == JFR_NO_FIELD)
		return JFR_NO_FIELD;
	f = jfr_field_at(md, &md->types[type], i);
	kind = md->types[f->type].kind;
	switch (want) {
	case WANT_NUMBER:
		return !f->array && (f->pooled || kind == JFR_VARINT ||
				     kind == JFR_BYTE) ? i : JFR_NO_FIELD;
	case WANT_STRING:
		/* a string, or the key of a string or symbol constant */
		return !f->array && (f->pooled ? md->types[f->type].pool == JFR_POOL_STRING ||
				     md->types[f->type].pool == JFR_POOL_SYMBOL :
				     kind == JFR_STRING) ? i : JFR_NO_FIELD;
	case WANT_ARRAY:
		return f->array && !f->pooled && kind == JFR_STRUCT ? i : JFR_NO_FIELD;
	}
	return JFR_NO_FIELD;
}

int jfr_number_field(const struct jfr_metadata *md, int type, const char *name)
{
	return wanted(md, type, name, WANT_NUMBER);
}

int jfr_string_field(const struct jfr_metadata *md, int type, const char *name)
{
	return wanted(md, type, name, WANT_STRING);
}

int jfr_pooled_field(const struct jfr_metadata *md, int type, const char *name,
		     enum jfr_pool_id pool)
{
	int i = wanted(md, type, name, WANT_NUMBER);

	return i != JFR_NO_FIELD &&
	       jfr_field_at(md, &md->types[type], i)->pooled &&
	       md->types[jfr_field_at(md, &md->types[type], i)->type].pool == pool ?
	       i : JFR_NO_FIELD;
}

/*
 * Where the fields are that make frames, methods and threads. A field
 * that is missing, or not of the type the JVM gives it, is as good as
 * missing: what it would say is left out (a frame without a line).
 */
static void find_layout(struct jfr_metadata *md)
{
	struct jfr_layout *l = &md->layout;
	/* the types of the pools: the constants are read by their layout */
	int stack = md->pool_type[JFR_POOL_STACK];
	int frame = jfr_type_named(md, "jdk.types.StackFrame");
	int method = md->pool_type[JFR_POOL_METHOD];
	int class = md->pool_type[JFR_POOL_CLASS];
	int symbol = md->pool_type[JFR_POOL_SYMBOL];
	int thread = md->pool_type[JFR_POOL_THREAD];
	int frame_type = md->pool_type[JFR_POOL_FRAME_TYPE];

	l->stack_truncated = jfr_number_field(md, stack, "truncated");
	l->stack_frames = wanted(md, stack, "frames", WANT_ARRAY);
	if (l->stack_frames != JFR_NO_FIELD)
		frame = (int)jfr_field_at(md, &md->types[stack], l->stack_frames)->type;
	l->stack_frame_type = frame < 0 ? 0 : (uint32_t)frame;
	l->frame_method = jfr_pooled_field(md, frame, "method", JFR_POOL_METHOD);
	l->frame_line = jfr_number_field(md, frame, "lineNumber");
	l->frame_type = jfr_pooled_field(md, frame, "type", JFR_POOL_FRAME_TYPE);
	l->method_class = jfr_pooled_field(md, method, "type", JFR_POOL_CLASS);
	l->method_name = jfr_string_field(md, method, "name");
	l->method_descriptor = jfr_string_field(md, method, "descriptor");
	l->class_name = jfr_string_field(md, class, "name");
	l->class_source = jfr_string_field(md, class, "sourceFile");
	l->symbol_string = jfr_string_field(md, symbol, "string");
	l->thread_os_name = jfr_string_field(md, thread, "osName");
	l->thread_os_id = jfr_number_field(md, thread, "osThreadId");
	l->thread_java_name = jfr_string_field(md, thread, "javaName");
	l->thread_java_id = jfr_number_field(md, thread, "javaThreadId");
	l->frame_type_description = jfr_string_field(md, frame_type, "description");
	/* a symbol's string is a string, not another symbol */
	if (l->symbol_string != JFR_NO_FIELD &&
	    jfr_field_at(md, &md->types[symbol], l->symbol_string)->pooled &&
	    md->types[jfr_field_at(md, &md->types[symbol],
				   l->symbol_string)->type].pool != JFR_POOL_STRING)
		l->symbol_string = JFR_NO_FIELD;
}

int jfr_metadata_read(struct jfr_chunk *ch)
{
	struct md_reader m;
	const unsigned char *start = ch->base + ch->metadata_offset;
	uint64_t size;
	int rc;

	memset(&m, 0, sizeof(m));
	m.ch = ch;
	jfr_cursor_init(&m.c, start, ch->base + ch->size);
	size = jfr_varint(&m.c);
	if (!m.c.fault && (size > (uint64_t)(m.c.end - start) ||
			   size < (uint64_t)(m.c.p - start) + 1))
		return jfr_error_at(ch, start, "the metadata event's size %llu "
				    "runs past the end of its chunk",
				    (unsigned long long)size);
	m.c.end = start + size;	/* and the chunk's end the limit */
	if (jfr_varint(&m.c) != JFR_EVENT_METADATA && !m.c.fault)
		return jfr_error_at(ch, start, "the chunk header's metadata "
				    "offset points to an event that is not the "
				    "metadata");
	jfr_varint(&m.c);	/* start time */
	jfr_varint(&m.c);	/* duration */
	jfr_varint(&m.c);	/* metadata id */
	rc = read_strings(&m);
	if (!rc && !m.c.fault)
		rc = read_element(&m, "", 0);
	if (!rc && m.c.fault)
		rc = jfr_fault(ch, &m.c);
	ch->md.names = m.names.s;
	free(m.string_at);
	if (!rc)
		rc = resolve_types(&m);
	free(m.field_type_ids);
	if (!rc)
		rc = index_ids(&ch->md);
	if (!rc)
		find_layout(&ch->md);
	if (rc == PK_ENOMEM)
		rc = pk_error_set(ch->ctx, rc, "%s: out of memory", ch->name);
	return rc;
}

void jfr_metadata_release(struct jfr_metadata *md)
{
	free(md->types);
	free(md->fields);
	free(md->walk);
	free(md->names);
	free(md->by_id);
	memset(md, 0, sizeof(*md));
}
