/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint fields read back from the text perf script prints after
 * the event. Three layouts cover the tracepoints perf users record:
 *
 *     prev_comm=work er 0 prev_pid=7 prev_state=S ==> next_comm=x ...
 *     fd: 0x00000001, buf: 0x55d3e16a0840, count: 0x00000013
 *     0x13                                  (syscalls' sys_exit_*: ret)
 *
 * A value runs to the next " NAME=" (", NAME: "), or to the " ==> "
 * sched_switch prints, so comms keep their spaces. The text holds what
 * the event's print format made of the raw values: decimal and 0x-hex
 * numbers become numeric labels as on the perf.data side; words (S for
 * prev_state, GFP_KERNEL for gfp_flags) stay strings, as do comms.
 */
#include <stdio.h>
#include <string.h>

#include "trace-fields.h"

static const char *const own_labels[] = { "pid", "tid", "comm", "cpu", "trace" };

pk_str pki_trace_field_key(struct pk_profile *p, const char *event,
			   size_t event_len, const char *name, size_t len)
{
	char buf[256];
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(own_labels); i++)
		if (strlen(own_labels[i]) == len &&
		    memcmp(own_labels[i], name, len) == 0) {
			snprintf(buf, sizeof(buf), "%.*s.%.*s", (int)event_len,
				 event, (int)len, name);
			return pk_profile_intern_cstr(p, buf);
		}
	return pk_profile_intern(p, name, len);
}

/* How fields are laid out: NAME SEP VALUE, GAP between them. */
struct layout {
	const char *sep, *gap;
};

static const struct layout named_eq = { "=", " " };
static const struct layout named_colon = { ": ", ", " };

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_name_char(char c)
{
	return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* The length of a field name that starts s and ends at the separator. */
static size_t name_len(const char *s, size_t len, const struct layout *lo)
{
	size_t k = 0, seplen = strlen(lo->sep);

	while (k < len && is_name_char(s[k]))
		k++;
	if (!k || is_digit(s[0]) || len - k < seplen ||
	    memcmp(s + k, lo->sep, seplen) != 0)
		return 0;
	return k;
}

/* Where the next field's name starts if a gap at s[e] leads to one, else 0. */
static size_t next_field(const char *s, size_t len, size_t e,
			 const struct layout *lo)
{
	static const char arrow[] = " ==> ";
	size_t g = strlen(lo->gap);

	if (len - e > g && memcmp(s + e, lo->gap, g) == 0 &&
	    name_len(s + e + g, len - e - g, lo))
		return e + g;
	g = sizeof(arrow) - 1;
	if (lo == &named_eq && len - e > g && memcmp(s + e, arrow, g) == 0 &&
	    name_len(s + e + g, len - e - g, lo))
		return e + g;
	return 0;
}

/* "123", "-1", "0x1f", "2400 [ns]" (sched_stat_runtime): a number. */
static int parse_number(const char *s, size_t len, int64_t *num)
{
	uint64_t v = 0;
	size_t i = 0, digits;
	int neg = len && s[0] == '-', hex;

	i = (size_t)neg;
	hex = len - i > 2 && s[i] == '0' && s[i + 1] == 'x';
	if (hex)
		i += 2;
	for (digits = 0; i < len; i++, digits++) {
		int d = hex ? pki_hexval(s[i]) : is_digit(s[i]) ? s[i] - '0' : -1;

		if (d < 0)
			break;
		v = hex ? v << 4 | (uint64_t)d : v * 10 + (uint64_t)d;
	}
	if (!digits || digits > (hex ? 16 : 19))
		return 0;
	if (i < len && !(len - i >= 4 && s[i] == ' ' && s[i + 1] == '[' &&
			 s[len - 1] == ']' && !memchr(s + i + 2, ' ', len - i - 2)))
		return 0;
	*num = neg ? -(int64_t)v : (int64_t)v;
	return 1;
}

static int add_label(struct pk_profile *p, struct pk_label **labels,
		     size_t *cap, size_t n, pk_str key, const char *value,
		     size_t len, int is_string)
{
	struct pk_label *l;

	if (!key || pki_grow(labels, cap, n + 1, sizeof(**labels)) < 0)
		return -1;
	l = &(*labels)[n];
	memset(l, 0, sizeof(*l));
	l->key = key;
	/* an empty value is no string: 0, as the perf.data side has it */
	if ((is_string || !parse_number(value, len, &l->num)) &&
	    !(l->str = pk_profile_intern(p, value, len)) && len)
		return -1;
	return 0;
}

static int is_comm(const char *name, size_t len)
{
	return len >= 4 && memcmp(name + len - 4, "comm", 4) == 0;
}

ssize_t pki_trace_text_labels(struct pk_profile *p, const char *event,
			      size_t event_len, const char *text, size_t len,
			      struct pk_label **labels, size_t *cap, size_t n)
{
	const char *colon = memchr(event, ':', event_len);
	const struct layout *lo = name_len(text, len, &named_eq) ? &named_eq :
		name_len(text, len, &named_colon) ? &named_colon : NULL;
	size_t pos = 0;

	if (colon) {
		event_len -= (size_t)(colon + 1 - event);
		event = colon + 1;
	}
	if (add_label(p, labels, cap, n++, pk_profile_intern_cstr(p, "trace"),
		      text, len, 1) < 0)
		return -1;
	if (!lo) {
		int64_t ret;

		/* the kernel's sys_exit_* print their return value alone */
		if (event_len > 8 && memcmp(event, "sys_exit", 8) == 0 &&
		    parse_number(text, len, &ret) &&
		    add_label(p, labels, cap, n++, pk_profile_intern_cstr(p, "ret"),
			      text, len, 0) < 0)
			return -1;
		return (ssize_t)n;
	}
	while (pos < len) {
		size_t nlen = name_len(text + pos, len - pos, lo);
		size_t v = pos + nlen + strlen(lo->sep), e, next = 0;

		for (e = v; e < len && !(next = next_field(text, len, e, lo)); e++)
			;
		if (add_label(p, labels, cap, n++,
			      pki_trace_field_key(p, event, event_len, text + pos, nlen),
			      text + v, e - v, is_comm(text + pos, nlen)) < 0)
			return -1;
		pos = e < len ? next : len;
	}
	return (ssize_t)n;
}
