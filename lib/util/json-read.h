/* SPDX-License-Identifier: MIT */
/*
 * JSON read as a stream, for every JSON format profkit reads. yajl
 * (Debian's libyajl-dev, 2.1) does the parsing, but for what profiles
 * are mostly made of (objects, arrays, keys, numbers, literals and
 * strings without escapes), which yajl reads at about 100 MB/s: a
 * scanner of those tokens reads them several times faster, and gives
 * anything else (an escape, bad JSON) back to yajl to judge. This layer
 * keeps where the parser is, so a reader says which paths it cares
 * about and gets their values one by one, never a tree of the document:
 *
 *     enum { NODE = 1, NODE_ID, URL, SAMPLE };
 *     static const struct pki_json_path paths[] = {
 *             { "$.nodes[]", NODE },            an object: begin and end
 *             { "$.nodes[].id", NODE_ID },
 *             { "$.nodes[].callFrame.url", URL },
 *             { "$.samples[]", SAMPLE },        each element of an array
 *             { NULL, 0 },
 *     };
 *
 *     static int on_value(void *arg, struct pki_json_reader *jr, int id,
 *                         const struct pki_json_value *v)
 *     {
 *             int64_t n;
 *
 *             switch (id) {
 *             case NODE_ID:
 *                     if (pki_json_expect_int(jr, v, 1, INT32_MAX, &n))
 *                             return pki_json_reader_code(jr);
 *                     ...
 *             }
 *             return 0;
 *     }
 *
 *     const struct pki_json_read_spec spec = {
 *             .paths = paths, .value = on_value, .arg = &state,
 *             .einput = PK_EINPUT, .enomem = PK_ENOMEM,
 *     };
 *     struct pki_json_reader *jr = pki_json_reader_new(&spec);
 *
 *     rc = pki_json_reader_feed(jr, bytes, n);     as often as needed
 *     rc = pki_json_reader_finish(jr);             at the end of input
 *     pki_json_reader_error(jr)    "offset 812 ($.nodes[3].id): expected
 *                                   a whole number from 1 to 2147483647"
 *     pki_json_reader_free(jr);
 *
 * A format's reader calls lib/core's pki_input_read_json(in, paths,
 * on_value, &state) instead, which makes the reader, feeds it the input
 * and turns its message into the context's error, "FILE: offset 812
 * ($.nodes[3].id): ...".
 *
 * Paths. "$" is the document; ".key" a member of an object, "[]" any
 * element of an array, ".*" any member of an object (an exact key in
 * the same object wins over it). A path names a value of any kind: for
 * a scalar the callback gets the value, for an object or an array it
 * gets PKI_JSON_BEGIN_* before its contents and PKI_JSON_END_* after
 * them. Nothing outside the paths and their ancestors reaches the
 * reader, and costs only the parsing. The table must outlive the reader.
 *
 * Bounds, so that memory does not depend on the input: objects and
 * arrays nest at most max_depth deep; a string, a number, or white
 * space between two values is at most max_string bytes (yajl keeps a
 * token that spans two feeds whole, so this bounds its memory too).
 * Beyond them the document is refused with a message, as for bad JSON.
 *
 * Numbers keep their text and are given as an int64 where the value is
 * a whole number that fits (1000, 1e3 and 1000.0 alike), and as a
 * double always (correctly rounded in the C locale, whatever the
 * caller's; HUGE_VAL for one too large). Strings are the decoded bytes,
 * not checked for UTF-8 (the model keeps bytes; the JSON writer makes
 * them valid), and not NUL-terminated. A UTF-8 byte order mark before
 * the document is skipped.
 */
#ifndef PROFKIT_UTIL_JSON_READ_H
#define PROFKIT_UTIL_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

#define PKI_JSON_READ_MAX_DEPTH 128
#define PKI_JSON_READ_MAX_STRING (16u << 20)

enum pki_json_type {
	PKI_JSON_NULL,
	PKI_JSON_BOOL,
	PKI_JSON_NUMBER,
	PKI_JSON_STRING,
	PKI_JSON_BEGIN_OBJECT,
	PKI_JSON_END_OBJECT,
	PKI_JSON_BEGIN_ARRAY,
	PKI_JSON_END_ARRAY,
};

struct pki_json_value {
	enum pki_json_type type;
	/* a string's bytes, or a number as written; valid during the call */
	const char *text;
	size_t len;
	int is_int;		/* a number whose value int holds exactly */
	int64_t i;
	double d;		/* a number, rounded as strtod rounds */
	int truth;		/* a boolean */
};

struct pki_json_path {
	const char *path;	/* "$.nodes[].id"; NULL ends the table */
	int id;			/* non-zero: what the callback is told */
};

struct pki_json_reader;

/*
 * A value on one of the reader's paths: id is the path's. Return 0 to go
 * on; anything else stops the parse, and feed or finish returns it.
 */
typedef int pki_json_value_fn(void *arg, struct pki_json_reader *jr, int id,
			      const struct pki_json_value *v);

struct pki_json_read_spec {
	const struct pki_json_path *paths;
	pki_json_value_fn *value;
	void *arg;
	/* what feed and finish return for a document refused (bad JSON,
	 * a bound passed, pki_json_reader_fail) and for want of memory:
	 * the caller's codes for them */
	int einput, enomem;
	unsigned max_depth;	/* 0: PKI_JSON_READ_MAX_DEPTH */
	size_t max_string;	/* 0: PKI_JSON_READ_MAX_STRING */
	/* every byte through yajl, none through the fast path (the tests
	 * compare the two) */
	int no_fast_path;
};

/* NULL when out of memory or when a path does not parse (a bug). */
struct pki_json_reader *pki_json_reader_new(const struct pki_json_read_spec *spec);
void pki_json_reader_free(struct pki_json_reader *jr);

/*
 * The next n bytes of the document. Returns 0, spec->einput with
 * pki_json_reader_error set, spec->enomem, or what the callback returned.
 * After an error the reader takes nothing more.
 */
int pki_json_reader_feed(struct pki_json_reader *jr, const void *data, size_t n);
/* The end of the document: an input that stops inside it is refused. */
int pki_json_reader_finish(struct pki_json_reader *jr);

/*
 * Why the document was refused: "offset N ($.path): what was expected",
 * N being where the value in question starts in the bytes fed (for bad
 * JSON, where the parser stopped). "" when it was not.
 */
const char *pki_json_reader_error(const struct pki_json_reader *jr);
/* Bytes fed so far. */
uint64_t pki_json_reader_offset(const struct pki_json_reader *jr);

/* ---- for the callback ---- */

/*
 * Refuse the document at the current value: the message is what was
 * expected ("expected a node id"), after its offset and path. Returns
 * spec->einput, for the callback to return.
 */
int pki_json_reader_fail(struct pki_json_reader *jr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The code a failed pki_json_expect_* leaves for the callback to return. */
int pki_json_reader_code(const struct pki_json_reader *jr);

/* Where the current value is in its array (0 for the first), or in its
 * object (its key, len bytes; keys past 256 bytes are cut there). The
 * index is 0 and the key "" where the value is not in one. */
uint64_t pki_json_reader_index(const struct pki_json_reader *jr);
const char *pki_json_reader_key(const struct pki_json_reader *jr, size_t *len);

/* Where the current value starts. */
uint64_t pki_json_reader_value_offset(const struct pki_json_reader *jr);

/* "offset N ($.path)" of the current value, for a message given later
 * (a frame index found out of range once the frames are known). */
void pki_json_reader_where(struct pki_json_reader *jr, char *buf, size_t size);

/*
 * Checks with the reader's message for what they expect: each returns 0
 * (with the value at *out), or fails as pki_json_reader_fail does.
 * An object or an array passes at its beginning and at its end.
 */
int pki_json_expect_object(struct pki_json_reader *jr,
			   const struct pki_json_value *v);
int pki_json_expect_array(struct pki_json_reader *jr,
			  const struct pki_json_value *v);
int pki_json_expect_string(struct pki_json_reader *jr,
			   const struct pki_json_value *v);
int pki_json_expect_int(struct pki_json_reader *jr, const struct pki_json_value *v,
			int64_t min, int64_t max, int64_t *out);
/* A finite number. */
int pki_json_expect_number(struct pki_json_reader *jr,
			   const struct pki_json_value *v, double *out);
/*
 * A number times 10^decimals as an int64, exact from its decimal text
 * (rounded half away from zero past its last digit): microseconds "12.5"
 * with decimals 3 are 12500 nanoseconds. Fails for a result outside
 * [min, max].
 */
int pki_json_expect_scaled(struct pki_json_reader *jr,
			   const struct pki_json_value *v, int decimals,
			   int64_t min, int64_t max, int64_t *out);

/* The decimals a number's value has ("2.50" has 1, "1e-3" 3, "12" 0),
 * at most 18: the power of ten a fixed-point column needs for it. */
int pki_json_decimals(const struct pki_json_value *v);

#endif
