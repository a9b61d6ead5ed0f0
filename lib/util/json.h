/* SPDX-License-Identifier: MIT */
/*
 * JSON written as it is made, for every JSON format profkit writes. The
 * text collects in a buffer that is handed to the caller's flush
 * function whenever it holds a chunk, so memory stays bounded by the
 * chunk and the longest string, whatever the size of the document.
 *
 *     struct pki_json j;
 *
 *     pki_json_init(&j, flush, out, MY_ENOMEM);
 *     pki_json_begin_object(&j);
 *     pki_json_key(&j, "samples");
 *     pki_json_begin_array(&j);
 *     pki_json_int(&j, 1);
 *     pki_json_int(&j, 2);
 *     pki_json_end_array(&j);
 *     pki_json_end_object(&j);		{"samples":[1,2]}
 *     rc = pki_json_finish(&j);
 *
 * Inside an array or object the writer puts the commas between members.
 * Outside any (depth 0) it writes each value as it comes, with nothing
 * between: a caller that lays out its own punctuation with
 * pki_json_raw uses the same calls for its strings and numbers.
 *
 * Strings are escaped by one rule (pki_strbuf_add_json); numbers never
 * depend on the locale.
 */
#ifndef PROFKIT_UTIL_JSON_H
#define PROFKIT_UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Hand over n bytes of the document; 0, or an error code to keep. */
typedef int pki_json_flush_fn(void *arg, const char *s, size_t n);

#define PKI_JSON_MAX_DEPTH 64

struct pki_json {
	struct pk_strbuf buf;
	pki_json_flush_fn *flush;
	void *arg;
	int rc;			/* the first error: flush's, or nomem */
	int nomem;		/* the code for "out of memory" */
	int spaced;		/* ", " and ": " (Python's json.dumps), not "," ":" */
	unsigned depth;		/* arrays and objects open */
	uint64_t members;	/* bit d - 1: the one at depth d has members */
	int after_key;		/* the next value is a member's */
	const char *space;	/* whitespace before the next member, or NULL */
};

/*
 * Start a document written through flush(arg, ...); nomem is the error
 * kept when memory runs out (the caller's code for it). Errors are kept,
 * not returned: after the first one nothing more is written, and
 * pki_json_finish returns it.
 */
void pki_json_init(struct pki_json *j, pki_json_flush_fn *flush, void *arg,
		   int nomem);

/* Flush what is left and free the buffer. Returns 0 or the first error. */
int pki_json_finish(struct pki_json *j);

void pki_json_begin_object(struct pki_json *j);
void pki_json_end_object(struct pki_json *j);
void pki_json_begin_array(struct pki_json *j);
void pki_json_end_array(struct pki_json *j);

/* An object member's key ("key": ); its value comes next. */
void pki_json_key(struct pki_json *j, const char *key);

/* Values. A string is len bytes, not necessarily UTF-8 or NUL-free. */
void pki_json_string(struct pki_json *j, const char *s, size_t len);
void pki_json_cstring(struct pki_json *j, const char *s);
void pki_json_int(struct pki_json *j, int64_t v);
void pki_json_uint(struct pki_json *j, uint64_t v);

/*
 * v with at most digits significant digits, as printf's "%.*g" prints it
 * in the C locale; null when it is not finite (JSON has no inf or NaN).
 */
void pki_json_double(struct pki_json *j, double v, int digits);

/* A value written as given: null, true, a number formatted elsewhere. */
void pki_json_literal(struct pki_json *j, const char *text);

/*
 * A value of n bytes already written as JSON (an array another pki_json
 * made once, to repeat it): put as it is, with the comma before it.
 */
void pki_json_verbatim(struct pki_json *j, const char *s, size_t n);

/* Hand what the buffer holds to flush now, not at a chunk's end. */
void pki_json_flush(struct pki_json *j);

/* n bytes as they are, outside the writer's structure (its commas). */
void pki_json_raw(struct pki_json *j, const char *s, size_t n);

/*
 * Whitespace to write before the next member, after its comma, in place
 * of the space a spaced writer puts there: "\n" starts it on a line of
 * its own. s must live until then.
 */
void pki_json_space(struct pki_json *j, const char *s);

/*
 * Append s (len bytes) to b as a JSON string, quotes included, by the one
 * rule every JSON format follows:
 *
 *   - '"' and '\' are escaped with a backslash;
 *   - control characters U+0000 to U+001F as \b \f \n \r \t or \u00xx,
 *     and DEL (0x7f) as \u007f;
 *   - well-formed UTF-8 is kept as it is, characters past U+FFFF too
 *     (never surrogate pairs);
 *   - every byte that is not part of well-formed UTF-8 becomes U+FFFD,
 *     written as its UTF-8 bytes EF BF BD.
 *
 * Returns 0, or -1 when out of memory.
 */
int pki_strbuf_add_json(struct pk_strbuf *b, const char *s, size_t len);

#endif
