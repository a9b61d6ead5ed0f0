/* SPDX-License-Identifier: MIT */
/*
 * Reader for Intel VTune's top-down call trees as CSV,
 *
 *     vtune -report top-down -call-stack-mode all \
 *         -column="CPU Time:Self","Module" -format csv -csv-delimiter comma
 *
 * (amplxe-cl before 2020): a header naming the columns, then a row per
 * node, the function indented one blank a level, its own CPU time in
 * seconds and its module:
 *
 *     Function Stack,CPU Time:Self,Module
 *     Total,0.0,[Unknown]
 *      main,0.0,demo
 *       "std::vector<int, std::allocator<int>>::push_back",0.016612,demo
 *
 * stackcollapse-vtune.pl does not run with perl 5.22 and later ($func is
 * undeclared under "use strict"), and its expression wants a module
 * before the time; profkit follows its logic (each row's own time, in
 * milliseconds, a sample of its path; rows without time left out; frames
 * "module!function") and finds the columns by their names in the
 * header, as inferno's collapse-vtune does.
 */
#include <stdlib.h>
#include <string.h>

#include "call-tree.h"

#define HEADER "Function Stack"
#define MAX_FIELDS 64

struct vtune_reader {
	struct pki_tree t;
	int function, self, module;	/* the columns; module -1: none */
	int need;			/* fields a row has */
	struct pk_strbuf frame;
};

static int header(struct vtune_reader *r, const char *line, size_t len)
{
	struct pki_csv_field f[MAX_FIELDS];
	int n = pki_csv_split(line, len, f, MAX_FIELDS);

	r->function = pki_csv_column(f, n, HEADER, 0);
	r->self = pki_csv_column(f, n, "CPU Time:Self", 1);
	r->module = pki_csv_column(f, n, "Module", 0);
	if (r->function < 0 || r->self < 0)
		return pki_tree_error(&r->t, "no '%s' column in the header",
				      r->function < 0 ? HEADER : "CPU Time:Self");
	r->need = 1 + (r->function > r->self ? r->function : r->self);
	if (r->module >= r->need)
		r->need = r->module + 1;
	return 0;
}

/* A row's line into row: its depth, frame and own time. */
static int read_row(struct pki_tree *t, const char *line, size_t len,
		    struct pki_tree_row *row)
{
	struct vtune_reader *r = (struct vtune_reader *)t;
	struct pki_csv_field f[MAX_FIELDS];
	int rc;

	if ((rc = pki_tree_csv_row(t, line, len, f, MAX_FIELDS, r->need)))
		return rc;
	if (pki_tree_decimal(f[r->self].s, f[r->self].len, &row->mantissa,
			     &row->decimals))
		return pki_tree_error(t, "not a time in seconds: '%.*s'",
				      (int)(f[r->self].len > 40 ? 40 : f[r->self].len),
				      f[r->self].s);
	row->factor = 1000;
	r->frame.len = 0;
	if (r->module >= 0 && f[r->module].len) {
		if ((rc = pki_tree_csv_text(t, &f[r->module])))
			return rc;
		if (pki_strbuf_add(&r->frame, t->name.s, t->name.len) ||
		    pki_strbuf_adds(&r->frame, "!"))
			return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	}
	if ((rc = pki_tree_csv_text(t, &f[r->function])))
		return rc;
	if (pki_strbuf_add(&r->frame, t->name.s, t->name.len))
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	row->location = pki_tree_frame(t, r->frame.s, r->frame.len, NULL, 0);
	if (!row->location)
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	/* a line is shorter than 4 GiB: so is its indentation */
	row->depth = (uint32_t)f[r->function].indent;
	return 0;
}

/* A root: a row without blanks (or a byte order mark) before it. */
static int is_root(const char *line, size_t len)
{
	return len && !memchr(" \t\r" PKI_UTF8_BOM, *line, 6);
}

static void copy_columns(struct pki_tree *part, const struct pki_tree *whole)
{
	struct vtune_reader *to = (struct vtune_reader *)part;
	const struct vtune_reader *from = (const struct vtune_reader *)whole;

	to->function = from->function;
	to->self = from->self;
	to->module = from->module;
	to->need = from->need;
}

static void release_frame(struct pki_tree *t)
{
	free(((struct vtune_reader *)t)->frame.s);
}

static const struct pki_tree_rows vtune_rows = {
	.size = sizeof(struct vtune_reader),
	.read = pki_tree_read_self_rows,
	.read_row = read_row,
	.is_root = is_root,
	.copy = copy_columns,
	.release = release_frame,
};

static int vtune_read(struct pk_context *ctx, struct pk_input *in,
		      struct pk_profile *p, const struct pk_options *opts)
{
	struct vtune_reader r;
	const char *line;
	size_t len;
	int rc = 0, have_header = 0;

	memset(&r, 0, sizeof(r));
	pki_tree_init(&r.t, ctx, in, p);
	r.t.column = pk_profile_add_sample_type(p, "cpu-time", "milliseconds",
						NULL, PK_VALUE_WEIGHT);
	if (r.t.column < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	while (!rc && !have_header && (line = pki_tree_line(&r.t, &len)))
		if (pki_tree_first_line_is((const unsigned char *)line, len, HEADER)) {
			have_header = 1;
			rc = header(&r, line, len);
		}
	if (!rc && have_header)
		rc = pki_tree_read_rows(&r.t, &vtune_rows, opts);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !have_header)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no header line '" HEADER
				  ",CPU Time:Self,Module'", pk_input_name(in));
	pki_tree_free(&r.t);
	release_frame(&r.t);
	return rc;
}

static int vtune_probe(const unsigned char *buf, size_t len)
{
	const unsigned char *nl = memchr(buf, '\n', len);

	return pki_tree_first_line_is(buf, len, HEADER ",") &&
	       memmem(buf, nl ? (size_t)(nl - buf) : len, "CPU Time:Self", 13) ? 90 : 0;
}

const struct pki_format pki_format_vtune = {
	.name = "vtune",
	.read_description = "Intel VTune top-down call trees, CSV (as "
			    "stackcollapse-vtune.pl and inferno read them)",
	.probe = vtune_probe,
	.read = vtune_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
