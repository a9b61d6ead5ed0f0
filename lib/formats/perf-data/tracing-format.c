/* SPDX-License-Identifier: MIT */
/*
 * Event formats and printk formats checked before libtraceevent reads
 * them (see tracing-format.h for why). An event format must be what the
 * kernel's tracefs writes:
 *
 *   name: NAME
 *   ID: NUMBER
 *   format:
 *   <tab>field:TYPE NAME;<tab>offset:N;<tab>size:N;<tab>signed:N;
 *   ...the common fields, a blank line, the event's fields, a blank line
 *   print fmt: "FORMAT", ARG, ARG...
 *
 * and the print format's arguments a grammar of what the kernel emits:
 * REC->field, numbers, strings and characters, casts, unary and binary
 * operators, ?:, parentheses, an index after a field, and calls (those
 * libtraceevent knows checked argument by argument, others left for it
 * to refuse), bounded in length and depth. Tokens are cut as
 * libtraceevent cuts them, so both read the same text the same way.
 *
 * Each check below stands for a way the library (1.7) goes wrong:
 * - a field declared with a word of type before __attribute__ and the
 *   brackets: it appends to the type it has, a null one else;
 * - every REC->name a field: after __print_flags( or __print_symbolic(
 *   it marks the field it finds without looking whether it found one;
 * - a divisor a non-zero number, and no * / % right after it: it divides
 *   as it evaluates, and binds "a / b * c" as a / (b * c);
 * - the first argument of __print_hex, __print_hex_str and __print_array
 *   a field or a dynamic array: it takes anything else for a field;
 * - the field of __get_cpumask( present (it reads it before looking) and
 *   dynamic like those of __get_str( and friends;
 * - an index a small number: it multiplies it unchecked;
 * - no width taken from the sample but for %p: it allocates for it;
 * - strings of printable characters and newlines: it stops at others;
 * - lengths __print_hex and __print_array take from the sample kept as
 *   reaches (pd_format_sample_fits), as is a cpumask's length, which
 *   must not be 0: it allocates gigabytes for an empty one.
 * Constructs the kernel writes that libtraceevent cannot print (GNU
 * statement expressions, a tab in a string) fail the grammar too: such an
 * event keeps its fields, and its trace text is the raw fields, as
 * libtraceevent would print them.
 */
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"
#include "tracing-format.h"

/* Bounds several times what Linux 6.18 writes (its longest print
 * format: 4840 bytes, under 4096 tokens, nesting under 32 and at most 8
 * binary operators in a row) */
#define MAX_PRINT_LINE	32768
#define MAX_TOKENS	16384
#define MAX_DEPTH	96	/* parentheses, calls, unary operators */
#define MAX_CHAIN	128	/* binary operators in a row */
#define MAX_FIELDS	256
#define MAX_INDEX	4095
#define MAX_STEPS	3	/* a length: a number, or one operator */

/* ---- reaches: what a print format reads that fields do not bound ---- */

enum step_op { STEP_NUM, STEP_FIELD, STEP_DYN_LEN, STEP_ADD, STEP_SUB,
	       STEP_MUL, STEP_DIV, STEP_MOD };

struct pd_format_step {
	enum step_op op;
	uint64_t num;		/* STEP_NUM */
	size_t field;		/* STEP_FIELD, STEP_DYN_LEN */
};

enum reach_kind { REACH_HEX, REACH_ARRAY, REACH_CPUMASK };

struct pd_format_reach {
	enum reach_kind kind;
	size_t field;		/* the buffer read, or the cpumask */
	size_t count, ncount;	/* steps of the count */
	size_t elsize, nelsize;	/* steps of the element size (arrays) */
};

/* ---- the parser ---- */

enum tok_kind { TOK_END, TOK_ITEM, TOK_STRING, TOK_CHAR, TOK_DELIM, TOK_OP,
		TOK_BAD };

struct tok {
	enum tok_kind kind;
	size_t at, len;		/* where in the format text */
};

struct field_name {
	size_t at, len;
};

struct parser {
	const char *s;		/* the format text */
	size_t end;		/* the end of the print format */
	size_t pos;		/* past the current token */
	struct tok tok;		/* the current token */
	unsigned tokens;
	int depth;
	int long_size;
	struct pd_format *f;
	struct field_name *names;	/* of f->fields */
	size_t fields_cap, names_cap, reaches_cap, steps_cap;
	/* the value of the last primary, when a number or a known sizeof */
	int have_const;
	uint64_t const_value;
	int nomem;
};

static int fail(struct parser *p, size_t at, const char *problem)
{
	if (!p->f->problem) {
		p->f->problem = problem;
		p->f->bad_at = at;
	}
	return -1;
}

static int is_item_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int is_printable(int c)
{
	return c >= 0x20 && c <= 0x7e;
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* An operator's length, cut as libtraceevent's tokenizer cuts it. */
static size_t op_length(const char *s, size_t left)
{
	char c = s[0], next = left > 1 ? s[1] : 0;
	size_t n = 1;

	switch (c) {
	case '-':
		if (next == '>')
			return 2;
		/* fall through */
	case '+': case '|': case '&': case '>': case '<':
		if (next == c) {
			n = 2;
			if (c != '>' && c != '<')
				return 2;
		}
		break;
	case '!': case '=':
		break;
	default:
		return 1;
	}
	return n < left && s[n] == '=' ? n + 1 : n;
}

/*
 * The end of a quoted token starting at i (0 when it has none, or holds
 * what the kernel does not write in one: it writes a string's newline as
 * it is). libtraceevent ends it at a quote that does not follow a
 * backslash, even an escaped one, and joins double-quoted strings that
 * only blanks part.
 */
static size_t quoted_end(const struct parser *p, size_t i)
{
	const char *s = p->s;
	char quote = s[i];

	for (;;) {
		size_t j = i + 1;

		while (j < p->end && !(s[j] == quote && s[j - 1] != '\\')) {
			if (!is_printable(s[j]) &&
			    !(s[j] == '\n' && quote == '"'))
				return 0;
			j++;
		}
		if (j >= p->end)
			return 0;
		i = ++j;
		while (j < p->end && is_blank(s[j]))
			j++;
		if (quote != '"' || j >= p->end || s[j] != '"')
			return i;
		i = j;
	}
}

static void lex(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->pos, n = 1;
	struct tok *t = &p->tok;

	while (i < p->end && is_blank(s[i]))
		i++;
	t->at = i;
	if (i == p->end) {
		t->kind = TOK_END;
		n = 0;
	} else if (is_item_char(s[i])) {
		t->kind = TOK_ITEM;
		while (i + n < p->end && is_item_char(s[i + n]))
			n++;
	} else if (s[i] == '"' || s[i] == '\'') {
		size_t end = quoted_end(p, i);

		t->kind = !end ? TOK_BAD : s[i] == '"' ? TOK_STRING : TOK_CHAR;
		n = end ? end - i : 1;
	} else if (s[i] == '(' || s[i] == ')' || s[i] == ',') {
		t->kind = TOK_DELIM;
	} else if (is_printable(s[i])) {
		t->kind = TOK_OP;
		n = op_length(s + i, p->end - i);
	} else {
		t->kind = TOK_BAD;
	}
	t->len = n;
	p->pos = i + n;
	if (++p->tokens > MAX_TOKENS && t->kind != TOK_END) {
		fail(p, i, "a print format of too many tokens");
		t->kind = TOK_BAD;
	}
}

static int tok_is(const struct parser *p, const char *text)
{
	size_t n = strlen(text);

	return p->tok.kind != TOK_END && p->tok.len == n &&
	       memcmp(p->s + p->tok.at, text, n) == 0;
}

static int is_number(const struct parser *p)
{
	return p->tok.kind == TOK_ITEM && p->s[p->tok.at] >= '0' &&
	       p->s[p->tok.at] <= '9';
}

static int is_name(const struct parser *p)
{
	return p->tok.kind == TOK_ITEM && !is_number(p);
}

/* A number token's value as libtraceevent reads it (strtoull, base 0). */
static uint64_t number_value(const struct parser *p)
{
	char buf[32];
	size_t n = p->tok.len < sizeof(buf) - 1 ? p->tok.len : sizeof(buf) - 1;

	memcpy(buf, p->s + p->tok.at, n);
	buf[n] = '\0';
	return strtoull(buf, NULL, 0);
}

static int expect(struct parser *p, const char *text, const char *problem)
{
	if (!tok_is(p, text))
		return fail(p, p->tok.at, problem);
	lex(p);
	return 0;
}

static int enter(struct parser *p)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->tok.at, "nesting too deep");
	return 0;
}

/* ---- fields named by the print format ---- */

/* The field named by the current token, as libtraceevent finds it (the
 * common ones first unless only the event's own may be), or -1. */
static long find_field(const struct parser *p, int event_only)
{
	size_t i;
	int pass;

	for (pass = event_only; pass < 2; pass++)
		for (i = 0; i < p->f->nfields; i++)
			if (p->f->fields[i].common == !pass &&
			    p->names[i].len == p->tok.len &&
			    memcmp(p->s + p->names[i].at, p->s + p->tok.at,
				   p->tok.len) == 0)
				return (long)i;
	return -1;
}

enum { ANY_FIELD = 0, EVENT_FIELD = 1 };

/* NAME) of a dynamic field, for __get_str( and friends. */
static long dynamic_field_arg(struct parser *p, int which)
{
	long i;

	if (!is_name(p))
		return fail(p, p->tok.at, "a call without a field name");
	i = find_field(p, which);
	if (i < 0)
		return fail(p, p->tok.at, "a name that is not a field");
	if (!p->f->fields[i].dynamic)
		return fail(p, p->tok.at,
			    "a dynamic array call on a fixed field");
	lex(p);
	return expect(p, ")", "a call not closed") < 0 ? -1 : i;
}

/* REC->NAME, at REC: the field's index, or -1. */
static long rec_field(struct parser *p)
{
	long i;

	lex(p);
	if (expect(p, "->", "REC without ->") < 0 || !is_name(p))
		return fail(p, p->tok.at, "REC-> without a field");
	if ((i = find_field(p, ANY_FIELD)) < 0)
		return fail(p, p->tok.at, "a name that is not a field");
	lex(p);
	return i;
}

/* ---- reaches ---- */

static int add_step(struct parser *p, enum step_op op, uint64_t num,
		    size_t field)
{
	struct pd_format *f = p->f;

	if (pki_grow(&f->steps, &p->steps_cap, f->nsteps + 1,
		     sizeof(*f->steps)) < 0) {
		p->nomem = 1;
		return fail(p, p->tok.at, "out of memory");
	}
	f->steps[f->nsteps].op = op;
	f->steps[f->nsteps].num = num;
	f->steps[f->nsteps++].field = field;
	return 0;
}

static int add_reach(struct parser *p, const struct pd_format_reach *r)
{
	struct pd_format *f = p->f;

	if (pki_grow(&f->reaches, &p->reaches_cap, f->nreaches + 1,
		     sizeof(*f->reaches)) < 0) {
		p->nomem = 1;
		return fail(p, p->tok.at, "out of memory");
	}
	f->reaches[f->nreaches++] = *r;
	return 0;
}

static int parse_expr(struct parser *p);
static int parse_sizeof(struct parser *p);

/* One term of a length: a number, a field, a dynamic array's length or a
 * sizeof, as a step. */
static int length_term(struct parser *p)
{
	long i;

	if (is_number(p)) {
		uint64_t v = number_value(p);

		lex(p);
		return add_step(p, STEP_NUM, v, 0);
	}
	if (tok_is(p, "REC"))
		return (i = rec_field(p)) < 0 ? -1 :
		       add_step(p, STEP_FIELD, 0, (size_t)i);
	if (tok_is(p, "__get_dynamic_array_len") ||
	    tok_is(p, "__get_rel_dynamic_array_len")) {
		lex(p);
		if (expect(p, "(", "a call without (") < 0 ||
		    (i = dynamic_field_arg(p, EVENT_FIELD)) < 0)
			return -1;
		return add_step(p, STEP_DYN_LEN, 0, (size_t)i);
	}
	if (tok_is(p, "sizeof")) {
		if (parse_sizeof(p) < 0)
			return -1;
		if (!p->have_const)
			return fail(p, p->tok.at,
				    "a length of a sizeof profkit cannot size");
		return add_step(p, STEP_NUM, p->const_value, 0);
	}
	return fail(p, p->tok.at,
		    "a length other than a number, a field or a sizeof");
}

/* A length the print format takes from the sample: one term, or two and
 * an operator (no more: libtraceevent's grouping of more is its own). */
static int parse_length(struct parser *p, size_t *first, size_t *n)
{
	static const struct { const char *op; enum step_op step; } ops[] = {
		{ "+", STEP_ADD }, { "-", STEP_SUB }, { "*", STEP_MUL },
		{ "/", STEP_DIV }, { "%", STEP_MOD },
	};
	size_t i;

	*first = p->f->nsteps;
	if (length_term(p) < 0)
		return -1;
	for (i = 0; i < PK_ARRAY_SIZE(ops); i++)
		if (tok_is(p, ops[i].op))
			break;
	if (i < PK_ARRAY_SIZE(ops)) {
		size_t divisor;

		lex(p);
		divisor = p->f->nsteps;
		if (length_term(p) < 0)
			return -1;
		if (ops[i].step >= STEP_DIV &&
		    (p->f->steps[divisor].op != STEP_NUM ||
		     !p->f->steps[divisor].num))
			return fail(p, p->tok.at,
				    "a length divided by other than a number");
		if (add_step(p, ops[i].step, 0, 0) < 0)
			return -1;
	}
	*n = p->f->nsteps - *first;
	return 0;
}

/* The buffer __print_hex( and __print_array( read: REC->field or
 * __get_dynamic_array(field). */
static long parse_buffer(struct parser *p)
{
	if (tok_is(p, "REC"))
		return rec_field(p);
	if (tok_is(p, "__get_dynamic_array") ||
	    tok_is(p, "__get_rel_dynamic_array")) {
		lex(p);
		if (expect(p, "(", "a call without (") < 0)
			return -1;
		return dynamic_field_arg(p, EVENT_FIELD);
	}
	return fail(p, p->tok.at,
		    "a hex or array print of other than a field");
}

/* __print_hex(BUFFER, LENGTH), __print_hex_str(...) and
 * __print_array(BUFFER, COUNT, ELEMENT-SIZE): a reach each. */
static int parse_print_bytes(struct parser *p, enum reach_kind kind)
{
	struct pd_format_reach r = { .kind = kind };
	long buf;

	if ((buf = parse_buffer(p)) < 0 ||
	    expect(p, ",", "a hex or array print without a length") < 0 ||
	    parse_length(p, &r.count, &r.ncount) < 0)
		return -1;
	if (kind == REACH_ARRAY &&
	    (expect(p, ",", "an array print without an element size") < 0 ||
	     parse_length(p, &r.elsize, &r.nelsize) < 0))
		return -1;
	if (expect(p, ")", "a hex or array print of too many arguments") < 0)
		return -1;
	r.field = (size_t)buf;
	return add_reach(p, &r);
}

static int parse_print_hex(struct parser *p)
{
	return parse_print_bytes(p, REACH_HEX);
}

static int parse_print_array(struct parser *p)
{
	return parse_print_bytes(p, REACH_ARRAY);
}

/* { VALUE, "TEXT" }, ... ) of __print_flags( and __print_symbolic( */
static int parse_symbols(struct parser *p)
{
	do {
		if (expect(p, "{", "a symbol list without {") < 0 ||
		    parse_expr(p) < 0 ||
		    expect(p, ",", "a symbol without its text") < 0)
			return -1;
		/* a string, or NULL: ((void *)0) */
		if (parse_expr(p) < 0 ||
		    expect(p, "}", "a symbol not closed by }") < 0)
			return -1;
	} while (tok_is(p, ",") && (lex(p), 1));
	return expect(p, ")", "a symbol list not closed");
}

static int parse_print_flags(struct parser *p)
{
	if (parse_expr(p) < 0 ||
	    expect(p, ",", "__print_flags without a delimiter") < 0)
		return -1;
	if (p->tok.kind != TOK_STRING)
		return fail(p, p->tok.at,
			    "__print_flags with a delimiter not a string");
	lex(p);
	if (expect(p, ",", "__print_flags without flags") < 0)
		return -1;
	return parse_symbols(p);
}

static int parse_print_symbolic(struct parser *p)
{
	if (parse_expr(p) < 0 ||
	    expect(p, ",", "__print_symbolic without symbols") < 0)
		return -1;
	return parse_symbols(p);
}

/* __builtin_expect(EXPRESSION, NUMBER) */
static int parse_builtin_expect(struct parser *p)
{
	if (parse_expr(p) < 0 ||
	    expect(p, ",", "__builtin_expect with one argument") < 0)
		return -1;
	if (!is_number(p))
		return fail(p, p->tok.at, "__builtin_expect without a number");
	lex(p);
	return expect(p, ")", "__builtin_expect not closed");
}

static int parse_string_call(struct parser *p)
{
	return dynamic_field_arg(p, ANY_FIELD) < 0 ? -1 : 0;
}

static int parse_array_call(struct parser *p)
{
	return dynamic_field_arg(p, EVENT_FIELD) < 0 ? -1 : 0;
}

static int parse_cpumask(struct parser *p)
{
	struct pd_format_reach r = { .kind = REACH_CPUMASK };
	long i = dynamic_field_arg(p, ANY_FIELD);

	if (i < 0)
		return -1;
	r.field = (size_t)i;
	return add_reach(p, &r);
}

/* The calls libtraceevent knows, each read its own way. */
static const struct call {
	const char *name;
	int (*parse)(struct parser *p);
	int indexable;		/* may be followed by [N] */
} calls[] = {
	{ "__print_flags", parse_print_flags, 0 },
	{ "__print_symbolic", parse_print_symbolic, 0 },
	{ "__print_hex", parse_print_hex, 0 },
	{ "__print_hex_str", parse_print_hex, 0 },
	{ "__print_array", parse_print_array, 0 },
	{ "__get_str", parse_string_call, 1 },
	{ "__get_rel_str", parse_string_call, 1 },
	{ "__get_bitmask", parse_string_call, 0 },
	{ "__get_rel_bitmask", parse_string_call, 0 },
	{ "__get_cpumask", parse_cpumask, 0 },
	{ "__get_rel_cpumask", parse_cpumask, 0 },
	{ "__get_dynamic_array", parse_array_call, 0 },
	{ "__get_rel_dynamic_array", parse_array_call, 0 },
	{ "__get_sockaddr", parse_array_call, 0 },
	{ "__get_sockaddr_rel", parse_array_call, 0 },
	{ "__get_dynamic_array_len", parse_array_call, 0 },
	{ "__get_rel_dynamic_array_len", parse_array_call, 0 },
	{ "__builtin_expect", parse_builtin_expect, 0 },
};

/* Any other call: libtraceevent refuses it (it knows no other function
 * here), but its arguments must still be in the grammar. */
static int parse_other_call(struct parser *p)
{
	if (tok_is(p, ")")) {
		lex(p);
		return 0;
	}
	do {
		if (parse_expr(p) < 0)
			return -1;
	} while (tok_is(p, ",") && (lex(p), 1));
	return expect(p, ")", "a call not closed");
}

/* NAME( has been read: the call's arguments and its ). */
static int parse_call(struct parser *p, size_t name_at, size_t name_len,
		      int *indexable)
{
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(calls); i++)
		if (strlen(calls[i].name) == name_len &&
		    memcmp(calls[i].name, p->s + name_at, name_len) == 0) {
			*indexable = calls[i].indexable;
			return calls[i].parse(p);
		}
	*indexable = 0;
	return parse_other_call(p);
}

/* The size libtraceevent gives sizeof(WORDS), 0 when it knows none: its
 * rule is [unsigned] int, long, long long, or one of the kernel's u64 ...
 * s8, and a lone unsigned. */
static unsigned sizeof_words(const struct parser *p, const struct tok *w,
			     int n)
{
	static const struct { const char *name; unsigned size; } types[] = {
		{ "int", 4 }, { "__u64", 8 }, { "u64", 8 }, { "__s64", 8 },
		{ "s64", 8 }, { "__u32", 4 }, { "u32", 4 }, { "__s32", 4 },
		{ "s32", 4 }, { "__u16", 2 }, { "u16", 2 }, { "__s16", 2 },
		{ "s16", 2 }, { "__u8", 1 }, { "u8", 1 }, { "__8", 1 },
		{ "s8", 1 },
	};
	size_t i;

#define WORD_IS(k, text) (w[k].len == strlen(text) && \
			  memcmp(p->s + w[k].at, text, w[k].len) == 0)
	if (n && WORD_IS(0, "unsigned")) {
		if (n == 1)
			return 4;
		w++;
		n--;
	}
	if (n == 2 && WORD_IS(0, "long") && WORD_IS(1, "long"))
		return 8;
	if (n != 1)
		return 0;
	if (WORD_IS(0, "long"))
		return (unsigned)p->long_size;
	for (i = 0; i < PK_ARRAY_SIZE(types); i++)
		if (WORD_IS(0, types[i].name))
			return types[i].size;
#undef WORD_IS
	return 0;
}

/* sizeof(TYPE) or sizeof(REC->field); its value, when libtraceevent
 * knows one, in p->const_value. */
static int parse_sizeof(struct parser *p)
{
	struct tok words[4];
	int n = 0;

	lex(p);
	if (expect(p, "(", "sizeof without (") < 0)
		return -1;
	p->have_const = 0;
	if (tok_is(p, "REC"))
		return rec_field(p) < 0 ? -1 :
		       expect(p, ")", "sizeof not closed");
	for (; is_name(p); lex(p)) {
		if (n == (int)PK_ARRAY_SIZE(words))
			return fail(p, p->tok.at, "sizeof of too many words");
		words[n++] = p->tok;
	}
	if (!n)
		return fail(p, p->tok.at, "sizeof without a type");
	p->const_value = sizeof_words(p, words, n);
	p->have_const = p->const_value != 0;
	return expect(p, ")", "sizeof not closed");
}

/* A primary: REC->field, a number, a string or character, a name, a
 * call or a parenthesized expression. */
static int parse_primary(struct parser *p, int *indexable)
{
	size_t at = p->tok.at, len = p->tok.len;

	*indexable = 0;
	p->have_const = 0;
	switch (p->tok.kind) {
	case TOK_ITEM:
		if (is_number(p)) {
			p->const_value = number_value(p);
			p->have_const = 1;
			lex(p);
			return 0;
		}
		if (tok_is(p, "sizeof"))
			return parse_sizeof(p);
		if (tok_is(p, "REC")) {
			*indexable = 1;
			return rec_field(p) < 0 ? -1 : 0;
		}
		/* names libtraceevent replaces with text of its own */
		if (tok_is(p, "LOCAL_PR_FMT") || tok_is(p, "STA_PR_FMT") ||
		    tok_is(p, "VIF_PR_FMT"))
			return fail(p, at, "a mac80211 format name");
		lex(p);
		if (tok_is(p, "(")) {
			lex(p);
			if (enter(p) < 0 ||
			    parse_call(p, at, len, indexable) < 0)
				return -1;
			p->depth--;
			return 0;
		}
		if (p->tok.kind == TOK_ITEM)
			return fail(p, p->tok.at, "two names in a row");
		return 0;
	case TOK_STRING:
	case TOK_CHAR:
		lex(p);
		return 0;
	case TOK_DELIM:
		if (tok_is(p, "(")) {
			lex(p);
			if (parse_expr(p) < 0)
				return -1;
			p->have_const = 0;
			return expect(p, ")", "a parenthesis not closed");
		}
		break;
	case TOK_BAD:
		return fail(p, at, "text the kernel does not write");
	default:
		break;
	}
	return fail(p, at, "an argument that is not an expression");
}

/* ( TYPE ) before an operand: names and stars, the next token starting
 * an operand. Looks ahead only. */
static int at_cast(struct parser *p)
{
	struct parser save = *p;
	int words = 0, cast;

	lex(p);
	while (is_name(p) && !tok_is(p, "REC") && !tok_is(p, "sizeof")) {
		words++;
		lex(p);
	}
	while (words && tok_is(p, "*"))
		lex(p);
	cast = words && tok_is(p, ")");
	if (cast) {
		lex(p);
		cast = p->tok.kind == TOK_ITEM || p->tok.kind == TOK_STRING ||
		       p->tok.kind == TOK_CHAR || tok_is(p, "(") ||
		       tok_is(p, "-") || tok_is(p, "+") || tok_is(p, "!") ||
		       tok_is(p, "~");
	}
	save.tokens = p->tokens;
	*p = save;
	return cast;
}

/* [N] after a field: N a small number (libtraceevent multiplies it
 * unchecked). */
static int parse_index(struct parser *p, int indexable)
{
	if (!indexable)
		return fail(p, p->tok.at, "an index after other than a field");
	lex(p);
	if (!is_number(p) || number_value(p) > MAX_INDEX)
		return fail(p, p->tok.at, "an index other than a small number");
	lex(p);
	p->have_const = 0;
	return expect(p, "]", "an index not closed");
}

static int parse_unary(struct parser *p)
{
	int indexable, rc;

	if (enter(p) < 0)
		return -1;
	if (tok_is(p, "!") || tok_is(p, "~") || tok_is(p, "-") ||
	    tok_is(p, "+")) {
		lex(p);
		rc = parse_unary(p);
		p->have_const = 0;
	} else if (tok_is(p, "(") && at_cast(p)) {
		do
			lex(p);
		while (!tok_is(p, ")"));
		lex(p);
		rc = parse_unary(p);
		p->have_const = 0;
	} else {
		rc = parse_primary(p, &indexable);
		if (!rc && tok_is(p, "["))
			rc = parse_index(p, indexable);
	}
	p->depth--;
	return rc;
}

static int is_binary_op(const struct parser *p)
{
	static const char *const ops[] = {
		"||", "&&", "|", "^", "&", "==", "!=", "<", ">", "<=", ">=",
		"<<", ">>", "+", "-", "*", "/", "%",
	};
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(ops); i++)
		if (tok_is(p, ops[i]))
			return 1;
	return 0;
}

static int is_product_op(const struct parser *p)
{
	return tok_is(p, "*") || tok_is(p, "/") || tok_is(p, "%");
}

/* Operands and binary operators; a divisor a non-zero number or sizeof. */
static int parse_binary(struct parser *p)
{
	unsigned n = 0;

	if (parse_unary(p) < 0)
		return -1;
	while (is_binary_op(p)) {
		int divides = tok_is(p, "/") || tok_is(p, "%");
		size_t at;

		if (++n > MAX_CHAIN)
			return fail(p, p->tok.at, "an expression too long");
		lex(p);
		at = p->tok.at;
		if ((divides && !is_number(p) && !tok_is(p, "sizeof")) ||
		    parse_unary(p) < 0)
			return fail(p, at,
				    "a division by other than a number");
		if (divides && (!p->have_const || !p->const_value))
			return fail(p, at, "a division by zero");
		if (divides && is_product_op(p))
			return fail(p, p->tok.at,
				    "a product right after a division");
	}
	return 0;
}

static int parse_expr(struct parser *p)
{
	if (enter(p) < 0 || parse_binary(p) < 0)
		return -1;
	if (tok_is(p, "?")) {
		lex(p);
		if (parse_expr(p) < 0 ||
		    expect(p, ":", "a ? without :") < 0 ||
		    parse_expr(p) < 0)
			return -1;
	}
	p->depth--;
	return 0;
}

/* ---- the format string ---- */

static size_t digits(const char *s, size_t i, size_t n)
{
	size_t start = i;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i - start;
}

/*
 * One conversion at s[0] == '%' (n bytes left): flags, a width of three
 * digits at most (or * for %p), a precision likewise (or .*), a length;
 * its length is returned, 0 when refused.
 */
static size_t conversion(const char *s, size_t n)
{
	size_t i = 1, d;
	int star = 0;

	while (i < n && i < 6 && strchr("-+ #0", s[i]))
		i++;
	if (i < n && s[i] == '*') {
		star = 1;
		i++;
	} else if ((d = digits(s, i, n)) > 3) {
		return 0;
	} else {
		i += d;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i < n && s[i] == '*')
			i++;
		else if ((d = digits(s, i, n)) > 3)
			return 0;
		else
			i += d;
	}
	for (d = 0; i < n && strchr("hlLzZ", s[i]) && d < 2; d++)
		i++;
	if (i < n && strchr("hlLzZ0123456789.*", s[i]))
		return 0;
	if (star && (i == n || s[i] != 'p'))
		return 0;
	return i < n ? i + 1 : i;
}

/* The format string, its parts joined, checked conversion by conversion. */
static int check_format_string(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->tok.at + 1, end = p->tok.at + p->tok.len - 1, n = 0;
	char *text = malloc(p->tok.len);
	int rc = 0;

	if (!text) {
		p->nomem = 1;
		return fail(p, p->tok.at, "out of memory");
	}
	while (i < end) {
		if (s[i] == '"' && s[i - 1] != '\\') {
			/* a join: past the blanks to the next string */
			i++;
			while (s[i] != '"')
				i++;
			i++;
			continue;
		}
		text[n++] = s[i++];
	}
	for (i = 0; i < n && !rc; ) {
		size_t len;

		if (text[i] == '\\' || (text[i] == '%' && i + 1 < n &&
					text[i + 1] == '%')) {
			i += 2;
		} else if (text[i] == '%') {
			if (!(len = conversion(text + i, n - i)))
				rc = fail(p, p->tok.at,
					  "a conversion profkit does not take");
			i += len;
		} else {
			i++;
		}
	}
	free(text);
	return rc;
}

/* "FORMAT" followed by its arguments, to the end. */
static int parse_print(struct parser *p)
{
	lex(p);
	if (p->tok.kind != TOK_STRING)
		return fail(p, p->tok.at, "a print format without its string");
	if (check_format_string(p) < 0)
		return -1;
	lex(p);
	while (tok_is(p, ",")) {
		lex(p);
		if (parse_expr(p) < 0)
			return -1;
	}
	if (p->tok.kind != TOK_END)
		return fail(p, p->tok.at, p->tok.kind == TOK_BAD ?
			    "text the kernel does not write" :
			    "more after the arguments");
	return 0;
}

/* ---- name, ID and fields: line by line ---- */

struct lines {
	const char *s;
	size_t pos, len;
};

/* The next line (without its newline); 0 at the end of the text. */
static int next_line(struct lines *l, size_t *at, size_t *n)
{
	const char *nl;

	if (l->pos >= l->len)
		return 0;
	*at = l->pos;
	nl = memchr(l->s + l->pos, '\n', l->len - l->pos);
	*n = nl ? (size_t)(nl - (l->s + l->pos)) : l->len - l->pos;
	l->pos += *n + (nl != NULL);
	return 1;
}

static int has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

/* A decimal number without leading zeros, at most max; its digits. */
static size_t decimal(const char *s, size_t n, unsigned max, unsigned *value)
{
	size_t d = digits(s, 0, n), i;
	unsigned long v = 0;

	if (!d || d > 6 || (d > 1 && s[0] == '0'))
		return 0;
	for (i = 0; i < d; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	if (v > max)
		return 0;
	*value = (unsigned)v;
	return d;
}

int pd_format_name_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= sizeof(((struct pd_format *)0)->name) ||
	    (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!is_item_char(s[i]))
			return 0;
	return 1;
}

/* "KEY: VALUE" with VALUE a name or a number of at most max. */
static int header_line(struct pd_format *f, struct lines *l, const char *key,
		       unsigned max, unsigned *number)
{
	size_t at, n, k = strlen(key);

	if (!next_line(l, &at, &n) || !has_prefix(l->s + at, n, key)) {
		f->problem = max ? "no ID line" : "no name line";
		f->bad_at = l->pos;
		return -1;
	}
	if (!max && pd_format_name_ok(l->s + at + k, n - k)) {
		memcpy(f->name, l->s + at + k, n - k);
		f->name[n - k] = '\0';
		return 0;
	}
	if (max && decimal(l->s + at + k, n - k, max, number) == n - k)
		return 0;
	f->problem = max ? "an ID that is not a number of 16 bits" :
			   "a name that is not an identifier";
	f->bad_at = at + k;
	return -1;
}

/*
 * TYPE NAME, TYPE NAME[N] or TYPE[] NAME as the kernel declares a field:
 * words and stars, one pair of brackets, __attribute__((word)); the name
 * is the last word. libtraceevent needs a word of type before the name
 * and the brackets, and one before an attribute (it appends to the type
 * it has, a null one else), and takes what ends an attribute for a name
 * when no word follows it. It makes a field dynamic by the type's first
 * word.
 */
static int field_declaration(const char *s, size_t at, size_t n,
			     struct field_name *name,
			     struct pd_format_field *field)
{
	size_t i = at, end = at + n, first_len = 0;
	int words = 0, words_before = 0, brackets = 0, attribute = 0;

	while (i < end) {
		size_t w = 0;

		if (is_blank(s[i])) {
			i++;
			continue;
		}
		while (i + w < end && is_item_char(s[i + w]))
			w++;
		if (brackets && (!w || words > words_before))
			return -1;	/* after [] only the name */
		if (w == 13 && memcmp(s + i, "__attribute__", 13) == 0) {
			i += w;
			if (!words || brackets || end - i < 4 ||
			    memcmp(s + i, "((", 2))
				return -1;
			for (i += 2; i < end && is_item_char(s[i]); i++)
				;
			if (end - i < 2 || memcmp(s + i, "))", 2))
				return -1;
			i += 2;
			attribute = 1;
		} else if (w) {
			if (!words++)
				first_len = w;
			name->at = i;
			name->len = w;
			i += w;
			attribute = 0;
		} else if (s[i] == '*' && words) {
			i++;
		} else if (s[i] == '[' && words >= 2 && !brackets++) {
			words_before = words;
			for (i++; i < end && is_item_char(s[i]); i++)
				;
			if (i == end || s[i++] != ']')
				return -1;
		} else {
			return -1;
		}
	}
	if (words < 2 || attribute ||
	    (s[name->at] >= '0' && s[name->at] <= '9'))
		return -1;
	field->relative = first_len >= 9 && memcmp(s + at, "__rel_loc", 9) == 0;
	field->dynamic = field->relative || (first_len >= 10 &&
			 memcmp(s + at, "__data_loc", 10) == 0);
	return 0;
}

/* "KEY:N;" after blanks: the number. */
static size_t field_number(const char *s, size_t i, size_t end,
			   const char *key, unsigned max, unsigned *value)
{
	size_t k = strlen(key), d;

	while (i < end && is_blank(s[i]))
		i++;
	if (!has_prefix(s + i, end - i, key))
		return 0;
	i += k;
	if (!(d = decimal(s + i, end - i, max, value)) || i + d >= end ||
	    s[i + d] != ';')
		return 0;
	return i + d + 1;
}

/* <tab>field:DECLARATION;<tab>offset:N;<tab>size:N;[<tab>signed:N;] */
static int field_line(const char *s, size_t at, size_t n,
		      struct field_name *name, struct pd_format_field *field)
{
	size_t i = at, end = at + n, semi;
	unsigned offset, size, sign;

	while (i < end && is_blank(s[i]))
		i++;
	if (!has_prefix(s + i, end - i, "field:"))
		return -1;
	i += 6;
	semi = i;
	while (semi < end && s[semi] != ';')
		semi++;
	if (semi == end || semi - i > 256 ||
	    field_declaration(s, i, semi - i, name, field) < 0)
		return -1;
	i = semi + 1;
	if (!(i = field_number(s, i, end, "offset:", 65535, &offset)) ||
	    !(i = field_number(s, i, end, "size:", 65535 - offset, &size)))
		return -1;
	field->offset = (uint16_t)offset;
	field->size = (uint16_t)size;
	semi = field_number(s, i, end, "signed:", 1, &sign);
	if (semi)
		i = semi;
	while (i < end && is_blank(s[i]))
		i++;
	return i == end ? 0 : -1;
}

/* The field lines up to a blank one. */
static int field_lines(struct parser *p, struct lines *l, int common)
{
	struct pd_format *f = p->f;
	size_t at, n;

	while (next_line(l, &at, &n) && n) {
		struct pd_format_field field = { 0 };
		struct field_name name = { 0 };

		if (f->nfields == MAX_FIELDS)
			return fail(p, at, "too many fields");
		if (field_line(l->s, at, n, &name, &field) < 0)
			return fail(p, at, "a field line profkit cannot read");
		field.common = (unsigned)common;
		if (pki_grow(&f->fields, &p->fields_cap, f->nfields + 1,
			     sizeof(*f->fields)) < 0 ||
		    pki_grow(&p->names, &p->names_cap, f->nfields + 1,
			     sizeof(*p->names)) < 0) {
			p->nomem = 1;
			return fail(p, at, "out of memory");
		}
		p->names[f->nfields] = name;
		f->fields[f->nfields++] = field;
	}
	return 0;
}

/* common_type, a u16 at offset 0: libtraceevent finds a sample's event
 * by it, where the first event it has puts it. */
static int has_common_type(const struct pd_format *f, const char *s,
			   const struct field_name *names)
{
	size_t i;

	for (i = 0; i < f->nfields && f->fields[i].common; i++)
		if (names[i].len == 11 &&
		    memcmp(s + names[i].at, "common_type", 11) == 0)
			return f->fields[i].offset == 0 &&
			       f->fields[i].size == 2;
	return 0;
}

/* Name, ID and fields; the print format's line is left in *l. */
static int check_head(struct parser *p, struct lines *l)
{
	struct pd_format *f = p->f;
	size_t at = 0, n = 0;

	if (header_line(f, l, "name: ", 0, NULL) < 0 ||
	    header_line(f, l, "ID: ", 65535, &f->id) < 0)
		return -1;
	if (!next_line(l, &at, &n) || n != 7 || memcmp(l->s + at, "format:", 7))
		return fail(p, at, "no format line");
	if (field_lines(p, l, 1) < 0 || field_lines(p, l, 0) < 0)
		return -1;
	if (!has_common_type(f, l->s, p->names))
		return fail(p, at + n, "no common_type at offset 0");
	return 0;
}

/* "print fmt: " and the rest of the text but its last newlines: one line
 * but for newlines in strings. */
static int check_print(struct parser *p, struct lines *l, size_t len)
{
	size_t at = l->pos, k = strlen("print fmt: ");

	while (len > at && l->s[len - 1] == '\n')
		len--;
	if (!has_prefix(l->s + at, len - at, "print fmt: "))
		return fail(p, at, "no print format line");
	if (len - at > MAX_PRINT_LINE)
		return fail(p, at, "a print format too long");
	p->pos = at + k;
	p->end = len;
	return parse_print(p);
}

int pd_format_check(const char *text, size_t len, int long_size,
		    struct pd_format *f)
{
	struct lines l = { text, 0, len };
	struct parser p;

	memset(f, 0, sizeof(*f));
	memset(&p, 0, sizeof(p));
	p.s = text;
	p.f = f;
	p.long_size = long_size;
	f->verdict = PD_FORMAT_BAD;
	if (check_head(&p, &l) == 0) {
		f->verdict = PD_FORMAT_BAD_PRINT;
		f->print_at = l.pos;
		if (check_print(&p, &l, len) == 0)
			f->verdict = PD_FORMAT_OK;
	}
	free(p.names);
	return p.nomem ? -1 : 0;
}

void pd_format_release(struct pd_format *f)
{
	free(f->fields);
	free(f->reaches);
	free(f->steps);
	memset(f, 0, sizeof(*f));
}

/* ---- each sample ---- */

/* A number field as libtraceevent reads it (zero-extended; 0 when it has
 * another size or lies past the sample). */
static uint64_t field_value(const struct pd_format_field *fd,
			    const unsigned char *raw, size_t size, int big)
{
	const unsigned char *p = raw + fd->offset;

	if ((size_t)fd->offset + fd->size > size)
		return 0;
	switch (fd->size) {
	case 1: return p[0];
	case 2: return pd_u16(p, big);
	case 4: return pd_u32(p, big);
	case 8: return pd_u64(p, big);
	default: return 0;
	}
}

/* Where libtraceevent takes a dynamic array to start, and its length. */
static void dynamic_place(const struct pd_format_field *fd,
			  const unsigned char *raw, size_t size, int big,
			  uint64_t *start, uint64_t *len)
{
	uint64_t loc, o, l;

	*start = *len = 0;
	if ((size_t)fd->offset + fd->size > size)
		return;
	loc = field_value(fd, raw, size, big);
	o = loc & 0xffff;
	l = fd->size == 2 ? size - o : (loc >> 16) & 0xffff;
	*start = o > size ? 0 : o;
	*len = o + l > size ? 0 : l;
	if (fd->relative)
		*start += (uint64_t)fd->offset + fd->size;
}

/* A length's steps evaluated for one sample; 0 and !*ok on a division by
 * zero (which the grammar refuses: never). */
static uint64_t eval_steps(const struct pd_format *f, size_t first, size_t n,
			   const unsigned char *raw, size_t size, int big,
			   int *ok)
{
	uint64_t stack[MAX_STEPS], a, b, start;
	size_t i, depth = 0;

	for (i = first; i < first + n; i++) {
		const struct pd_format_step *st = &f->steps[i];

		if (st->op <= STEP_DYN_LEN && depth == MAX_STEPS)
			break;
		switch (st->op) {
		case STEP_NUM:
			stack[depth++] = st->num;
			continue;
		case STEP_FIELD:
			stack[depth++] = field_value(&f->fields[st->field], raw,
						     size, big);
			continue;
		case STEP_DYN_LEN:
			dynamic_place(&f->fields[st->field], raw, size, big,
				      &start, &stack[depth++]);
			continue;
		default:
			break;
		}
		if (depth < 2)
			break;
		b = stack[--depth];
		a = stack[depth - 1];
		if ((st->op == STEP_DIV || st->op == STEP_MOD) && !b)
			break;
		stack[depth - 1] = st->op == STEP_ADD ? a + b :
				   st->op == STEP_SUB ? a - b :
				   st->op == STEP_MUL ? a * b :
				   st->op == STEP_DIV ? a / b : a % b;
	}
	*ok = i == first + n && depth == 1;
	return *ok ? stack[0] : 0;
}

static int reach_fits(const struct pd_format *f,
		      const struct pd_format_reach *r,
		      const unsigned char *raw, size_t size, int big)
{
	const struct pd_format_field *fd = &f->fields[r->field];
	uint64_t start = fd->offset, len, count, bytes;
	int ok = 1, el_ok = 1, el = 1;

	if (fd->dynamic)
		dynamic_place(fd, raw, size, big, &start, &len);
	if (r->kind == REACH_CPUMASK)
		return len > 0;
	/* libtraceevent keeps the count in an unsigned int, the element size
	 * in an int, and reads one byte for an element of another size */
	count = (uint32_t)eval_steps(f, r->count, r->ncount, raw, size, big,
				     &ok);
	if (r->kind == REACH_ARRAY) {
		el = (int)eval_steps(f, r->elsize, r->nelsize, raw, size, big,
				     &el_ok);
		if (el != 1 && el != 2 && el != 4 && el != 8)
			el = 1;
	}
	bytes = count * (uint64_t)el;
	return ok && el_ok && start <= size && bytes <= size - start;
}

int pd_format_sample_fits(const struct pd_format *f, const unsigned char *raw,
			  size_t size, int big)
{
	size_t i;

	for (i = 0; i < f->nreaches; i++)
		if (!reach_fits(f, &f->reaches[i], raw, size, big))
			return 0;
	return 1;
}

/* ---- printk formats ---- */

/*
 * 0xADDR : "TEXT", as the kernel's printk_formats writes each: the text
 * at least two bytes, for libtraceevent looks two bytes before its end
 * for a \n to cut, and free of NUL bytes, at which it would stop short.
 */
static int printk_line_ok(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2 || memcmp(s, "0x", 2))
		return 0;
	while (i < n && i < 18 && ((s[i] >= '0' && s[i] <= '9') ||
				   (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i == 2 || n - i < 7 || memcmp(s + i, " : \"", 4) ||
	    s[n - 1] != '"' || memchr(s + i, '\0', n - i))
		return 0;
	return 1;
}

size_t pd_format_printk(char *dst, const char *text, size_t len,
			size_t *dropped, size_t *first_bad)
{
	struct lines l = { text, 0, len };
	size_t at, n, kept = 0;

	*dropped = 0;
	while (next_line(&l, &at, &n)) {
		if (!n)
			continue;
		if (!printk_line_ok(text + at, n)) {
			if (!(*dropped)++)
				*first_bad = at;
			continue;
		}
		memcpy(dst + kept, text + at, n);
		kept += n;
		dst[kept++] = '\n';
	}
	dst[kept] = '\0';
	return kept;
}
