/* SPDX-License-Identifier: MIT */
/*
 * Reader for the Visual Studio profiler's call tree exported as CSV
 * (CallTreeSummary.csv, the sampling profiler's): a header, then a row per
 * node with its level (1: a root), its function, and its samples with its
 * callees' (inclusive) and without (exclusive); counts may be quoted with
 * thousands separators:
 *
 *     Level,Function Name,Inclusive Samples,Exclusive Samples,Inclusive Samples %,Exclusive Samples %,Module Name,
 *     1,"main","8,735",0,100.00,0.00,"demo.exe",
 *     2,"worker(int)",306,16,3.50,0.18,"demo.exe",
 *
 * Each row's exclusive samples are a sample of its path, its module the
 * frame's mapping. stackcollapse-vsprof.pl prints each leaf's inclusive
 * samples instead, which loses what a function with callees took itself,
 * and drops every blank from names; profkit keeps both. Without an
 * exclusive column a node's own samples are what its callees leave.
 * Rows of level 0 (a process) are skipped, as the perl script skips them.
 */
#include <stdlib.h>
#include <string.h>

#include "call-tree.h"

#define HEADER "Level,Function Name,"
#define MAX_FIELDS 64

struct vsprof_reader {
	struct pki_tree t;
	int level, function, inclusive, exclusive, module;	/* -1: none */
	int need;		/* fields a row has */
};

static int header(struct vsprof_reader *r, const char *line, size_t len)
{
	struct pki_csv_field f[MAX_FIELDS];
	int n = pki_csv_split(line, len, f, MAX_FIELDS), i;

	r->level = pki_csv_column(f, n, "Level", 0);
	r->function = pki_csv_column(f, n, "Function Name", 0);
	r->inclusive = pki_csv_column(f, n, "Inclusive Samples", 0);
	r->exclusive = pki_csv_column(f, n, "Exclusive Samples", 0);
	r->module = pki_csv_column(f, n, "Module Name", 0);
	if (r->level < 0 || r->function < 0 || (r->inclusive < 0 && r->exclusive < 0))
		return pki_tree_error(&r->t, "the header names no '%s' column",
				      r->level < 0 ? "Level" : r->function < 0 ?
				      "Function Name" : "Inclusive Samples");
	for (i = 0; i < n; i++)
		if (i == r->level || i == r->function || i == r->inclusive ||
		    i == r->exclusive || i == r->module)
			r->need = i + 1;
	return 0;
}

/* A count as Visual Studio writes it: "8,735", "8.735" or 8735. */
static int count(const struct pki_csv_field *f, int64_t *v)
{
	size_t i, digits = 0;

	*v = 0;
	for (i = 0; i < f->len; i++) {
		if (f->s[i] == ',' || f->s[i] == '.' || f->s[i] == ' ')
			continue;
		if (f->s[i] < '0' || f->s[i] > '9' || *v > (INT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (f->s[i] - '0');
		digits++;
	}
	return digits ? 0 : -1;
}

static int row(struct vsprof_reader *r, const char *line, size_t len)
{
	struct pki_tree *t = &r->t;
	struct pki_csv_field f[MAX_FIELDS];
	int value_column = r->exclusive >= 0 ? r->exclusive : r->inclusive, rc;
	int64_t level, value;
	uint32_t loc;

	if ((rc = pki_tree_csv_row(t, line, len, f, MAX_FIELDS, r->need)))
		return rc;
	if (count(&f[r->level], &level) || count(&f[value_column], &value) ||
	    level > INT32_MAX)
		return pki_tree_error(t, "not a level and a count of samples: '%.*s'",
				      (int)(len > 60 ? 60 : len), line);
	if (!level)
		return 0;
	if ((rc = pki_tree_csv_text(t, &f[r->function])))
		return rc;
	loc = pki_tree_frame(t, t->name.s, t->name.len,
			     r->module >= 0 ? f[r->module].s : NULL,
			     r->module >= 0 ? f[r->module].len : 0);
	if (!loc)
		return pk_error_set(t->ctx, PK_ENOMEM, "out of memory");
	if (r->exclusive >= 0)
		return pki_tree_self(t, (size_t)level - 1, loc, &value);
	return pki_tree_inclusive(t, (size_t)level - 1, loc, value, 0);
}

static int read_rows(struct pki_tree *t)
{
	const char *line;
	size_t len;
	int rc = 0;

	while (!rc && (line = pki_tree_line(t, &len))) {
		size_t i = 0;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i < len)
			rc = row((struct vsprof_reader *)t, line, len);
	}
	return rc;
}

/* Without an exclusive column the last nodes leave at the end (of a
 * part). */
static int read_end(struct pki_tree *t)
{
	return ((struct vsprof_reader *)t)->exclusive < 0 ? pki_tree_finish(t) : 0;
}

/* A root: a row "1," where the level is the first column. */
static int is_root(const char *line, size_t len)
{
	return len >= 2 && memcmp(line, "1,", 2) == 0;
}

static size_t cut_at_root(const struct pki_tree *whole, const char *data,
			  size_t size, size_t pos)
{
	if (((const struct vsprof_reader *)whole)->level != 0)
		return size;
	return pki_tree_cut_at_line(whole, data, size, pos, is_root);
}

static void copy_columns(struct pki_tree *part, const struct pki_tree *whole)
{
	struct vsprof_reader *to = (struct vsprof_reader *)part;
	const struct vsprof_reader *from = (const struct vsprof_reader *)whole;

	to->level = from->level;
	to->function = from->function;
	to->inclusive = from->inclusive;
	to->exclusive = from->exclusive;
	to->module = from->module;
	to->need = from->need;
}

static const struct pki_tree_rows vsprof_rows = {
	.size = sizeof(struct vsprof_reader),
	.read = read_rows,
	.end = read_end,
	.cut = cut_at_root,
	.copy = copy_columns,
};

static int vsprof_read(struct pk_context *ctx, struct pk_input *in,
		       struct pk_profile *p, const struct pk_options *opts)
{
	struct vsprof_reader r;
	const char *line;
	size_t len;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	pki_tree_init(&r.t, ctx, in, p);
	r.t.column = pk_profile_add_sample_type(p, "samples", "count", NULL,
						PK_VALUE_COUNT);
	if (r.t.column < 0)
		rc = pk_error_set(ctx, PK_ENOMEM, "out of memory");
	if (!rc && (line = pki_tree_line(&r.t, &len)))
		rc = header(&r, line, len);
	if (!rc)
		rc = pki_tree_read_rows(&r.t, &vsprof_rows, opts);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc && !r.t.rows)
		rc = pk_error_set(ctx, PK_EINPUT, "%s: no call tree rows",
				  pk_input_name(in));
	pki_tree_free(&r.t);
	return rc;
}

static int vsprof_probe(const unsigned char *buf, size_t len)
{
	const unsigned char *nl = memchr(buf, '\n', len);

	return pki_tree_first_line_is(buf, len, HEADER) &&
	       memmem(buf, nl ? (size_t)(nl - buf) : len, " Samples,", 9) ? 90 : 0;
}

const struct pki_format pki_format_vsprof = {
	.name = "vsprof",
	.read_description = "Visual Studio profiler call trees, CSV "
			    "(CallTreeSummary, as stackcollapse-vsprof.pl reads them)",
	.probe = vsprof_probe,
	.read = vsprof_read,
	.read_flags = PKI_READ_EMPTY_IS_NO_SAMPLES,
};
