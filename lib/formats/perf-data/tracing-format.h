/* SPDX-License-Identifier: MIT */
/*
 * The formats of a recording's tracing data checked before libtraceevent
 * reads them (tracing-format.c). libtraceevent trusts its input: a
 * damaged event format sends its parser through a null field, a print
 * format can make it divide by zero or read a sample's raw data far past
 * its end, a short printk format makes it read before its buffer. So an
 * event format reaches it only when it has the shape the kernel writes
 * (name, ID, fields, and a print format in a grammar of what the kernel
 * emits, every field it names present), and printk formats line by line
 * likewise. What a print format reads that the fields do not bound (a
 * length taken from the sample) is kept as "reaches", checked against
 * each sample before libtraceevent prints it.
 */
#ifndef PROFKIT_TRACING_FORMAT_H
#define PROFKIT_TRACING_FORMAT_H

#include <stddef.h>
#include <stdint.h>

enum pd_format_verdict {
	PD_FORMAT_OK,		/* all of it may go to libtraceevent */
	PD_FORMAT_BAD_PRINT,	/* its fields may, its print format not */
	PD_FORMAT_BAD,		/* nothing of it may */
};

struct pd_format_field {
	uint16_t offset, size;
	unsigned dynamic : 1;	/* __data_loc or __rel_loc: a u32 locator */
	unsigned relative : 1;	/* __rel_loc: from the end of the field */
	unsigned common : 1;
};

struct pd_format_step;
struct pd_format_reach;

/* What tracing-format.c found in one event format. */
struct pd_format {
	enum pd_format_verdict verdict;
	const char *problem;	/* what is wrong (static text) */
	size_t bad_at;		/* and at which byte of the format */
	char name[64];		/* the event's name (when it could be read) */
	unsigned id;
	size_t print_at;	/* where its "print fmt:" line begins */
	struct pd_format_field *fields;
	size_t nfields;
	/* reads of the print format that each sample's bytes must cover */
	struct pd_format_reach *reaches;
	size_t nreaches;
	struct pd_format_step *steps;
	size_t nsteps;
};

/*
 * Check an event format (len bytes, no NUL needed) of a recording whose
 * longs are long_size bytes; *f says what was found (release it with
 * pd_format_release). -1 when out of memory.
 */
int pd_format_check(const char *text, size_t len, int long_size,
		    struct pd_format *f);
void pd_format_release(struct pd_format *f);

/* Whether libtraceevent may print a sample of size bytes with this
 * format (each reach within the sample). */
int pd_format_sample_fits(const struct pd_format *f, const unsigned char *raw,
			  size_t size, int big);

/* A subsystem name as the kernel writes one: a C identifier. */
int pd_format_name_ok(const char *s, size_t len);

/*
 * The printk formats ("0xADDR : \"TEXT\"" lines) libtraceevent may
 * read, copied to dst (len + 1 bytes, NUL-terminated); returns their
 * length. *dropped counts the lines left out, *first_bad is the byte of
 * the first one.
 */
size_t pd_format_printk(char *dst, const char *text, size_t len,
			size_t *dropped, size_t *first_bad);

#endif
