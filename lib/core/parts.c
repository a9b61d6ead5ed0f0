/* SPDX-License-Identifier: MIT */
/*
 * A text read in parts on threads (parts.h): cut, read, appended in
 * input order.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parts.h"
#include "util/grow.h"

/* Text a part at least: less costs another thread more than it saves. */
#define MIN_PART (4u << 20)

/*
 * The parts of a text, the threads taking the next one in turn, and the
 * calling thread appending them in input order as they are read.
 */
struct pki_parts {
	const struct pki_parts_reader *fmt;
	struct pk_context *ctx;
	struct pk_input *in;
	struct pki_part *part;
	size_t nparts, part_cap;
	size_t nthreads;
	size_t least;		/* text a part reads at least; 0: one a thread */
	pthread_t caller;	/* the thread that reports progress */
	atomic_size_t read_bytes;	/* of all parts, for the progress */
	uint64_t first_line;	/* of the input, before the text */
	atomic_size_t next;
	size_t absorbed;	/* parts appended and freed (the calling thread's) */
	pthread_mutex_t lock;
	pthread_cond_t part_read;
	char progress[512];	/* "reading NAME" */
	size_t size;
};

/* What the part read up to s leaves memory, counted as read by all. */
static size_t part_leave(struct pki_part *part, const char *s)
{
	struct pki_parts *w = part->parts;
	size_t n = (size_t)(s - part->read_to);

	pki_input_unmap_part(w->in, part->read_to, n);
	part->read_to = s;
	return atomic_fetch_add(&w->read_bytes, n) + n;
}

void pki_part_step_slow(struct pki_part *part, const char *s)
{
	struct pki_parts *w = part->parts;
	size_t read = part_leave(part, s);

	/* the calling thread tells how far all are: its context's own */
	if (pthread_equal(pthread_self(), w->caller))
		pk_progress(w->ctx, w->progress, read, w->size);
}

void pki_part_finish(struct pki_part *part, const char *s)
{
	part_leave(part, s);
}

uint64_t pki_part_first_line(struct pki_part *part)
{
	const char *s = part->data, *nl;
	uint64_t n = part->parts->first_line;

	if (part->first_line != UINT64_MAX)
		return part->first_line;
	while (s < part->start && (nl = memchr(s, '\n', (size_t)(part->start - s)))) {
		n++;
		s = nl + 1;
	}
	return part->first_line = n;
}

/*
 * Read the next part left, if any (0 when none was): its reader's caches
 * go as soon as it is read, its profile stays until it is appended.
 */
static int read_next_part(struct pki_parts *w)
{
	size_t k = atomic_fetch_add(&w->next, 1);
	struct pki_part *part;

	if (k >= w->nparts)
		return 0;
	part = &w->part[k];
	part->rc = w->fmt->read(part->reader, part);
	if (w->fmt->done)
		w->fmt->done(part->reader);
	pthread_mutex_lock(&w->lock);
	part->read = 1;
	pthread_cond_signal(&w->part_read);
	pthread_mutex_unlock(&w->lock);
	return 1;
}

static void *take_parts(void *arg)
{
	while (read_next_part(arg))
		;
	return NULL;
}

/* Until the part is read, read the next ones left, then wait. */
static void wait_part(struct pki_parts *w, const struct pki_part *part)
{
	pthread_mutex_lock(&w->lock);
	while (!part->read) {
		if (atomic_load(&w->next) < w->nparts) {
			pthread_mutex_unlock(&w->lock);
			read_next_part(w);
			pthread_mutex_lock(&w->lock);
		} else {
			pthread_cond_wait(&w->part_read, &w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/* The kinds of a part's held warnings: any, or one of the few. */
enum { HELD_WARNING = 1, HELD_FEW };

/* A part's warning, held until it is appended (in input order). */
static void hold_warning(struct pki_part *part, char kind, const char *message)
{
	size_t n = strlen(message) + 1;

	if (pki_grow(&part->warnings, &part->warnings_cap, part->warnings_len + 1 + n,
		     1) < 0)
		return;	/* no memory for it: the part fails soon enough */
	part->warnings[part->warnings_len++] = kind;
	memcpy(part->warnings + part->warnings_len, message, n);
	part->warnings_len += n;
}

static void keep_warning(void *arg, const char *message)
{
	hold_warning(arg, HELD_WARNING, message);
}

void pki_part_warn_few(struct pki_part *part, struct pk_context *ctx,
		       uint64_t *count, const char *fmt, ...)
{
	char message[PK_ERROR_MAX];
	va_list ap;

	if (++*count > PKI_FEW_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (part && part != part->parts->part)
		hold_warning(part, HELD_FEW, message);
	else
		pk_warn(ctx, "%s", message);
}

/* A part's held warnings given, those of the few while the whole's
 * tally is under PKI_FEW_WARNINGS, and its tally added to the whole's. */
static void give_warnings(struct pki_parts *w, void *whole, struct pki_part *part)
{
	uint64_t *tally = w->fmt->few ? w->fmt->few(whole) : NULL;
	uint64_t told = tally ? *tally : 0;
	const char *warning = part->warnings;
	/* none held: no buffer, and NULL + 0 is undefined */
	const char *end = warning ? warning + part->warnings_len : NULL;

	for (; warning && warning < end; warning += strlen(warning) + 1)
		if (*warning++ == HELD_WARNING || told++ < PKI_FEW_WARNINGS)
			pk_warn(w->ctx, "%s", warning);
	if (tally)
		*tally += *w->fmt->few(part->reader);
}

/*
 * A part's reader, into a profile of its own under the memory limit: a
 * part holds no more than the whole, so it fails only where one thread
 * would (the parts held at once may take more memory than the whole).
 */
static int part_open(struct pki_parts *w, struct pki_part *part, void *whole,
		     struct pk_profile *whole_p)
{
	part->ctx = pk_context_new();
	part->p = pk_profile_new(pk_profile_flags(whole_p));
	if (part->ctx && part->p) {
		pk_context_set_warn(part->ctx, keep_warning, part);
		pk_context_set_max_memory(part->ctx, pk_context_max_memory(w->ctx));
		pk_profile_set_memory_limit(part->p, pk_context_max_memory(w->ctx));
		if (pki_profile_max_stack(whole_p) != SIZE_MAX)
			pki_profile_set_max_stack(part->p, pki_profile_max_stack(whole_p));
		part->reader = w->fmt->open(whole, part->ctx, part->p, part);
	}
	return part->reader ? 0 : pk_error_set(w->ctx, PK_ENOMEM, "out of memory");
}

static void part_free(struct pki_parts *w, struct pki_part *part)
{
	if (part->reader) {
		if (!part->read && w->fmt->done)
			w->fmt->done(part->reader);
		w->fmt->close(part->reader);
	}
	pk_profile_free(part->p);
	pk_context_free(part->ctx);
	free(part->warnings);
}

/*
 * Where the k-th part, starting at from, would end but for the cut:
 * with one part a thread, at the next of the even shares; else after
 * half a thread's share of what is left, w->least at least: the first
 * parts large, for few of them, the last small, for the threads to
 * finish together; the last holds what is left under twice the least.
 * size: the last part's end.
 */
static size_t part_wanted_end(const struct pki_parts *w, size_t k, size_t from,
			      size_t size)
{
	size_t left = size - from, share = left / w->nthreads / 2;

	if (!w->least)
		return k + 1 >= w->nthreads ? size : size / w->nthreads * (k + 1);
	if (share < w->least)
		share = w->least;
	return share >= left || left - share < w->least ? size : from + share;
}

/* The least text of a part: the format's, but no more than a thread's
 * even share, that --threads cuts a small text as often (0: one part a
 * thread, as one thread reads best). */
static size_t least_part(const struct pki_parts_reader *fmt, size_t nthreads,
			 size_t size)
{
	size_t share = size / nthreads;

	if (!fmt->min_part || nthreads < 2)
		return 0;
	if (share > fmt->min_part)
		share = fmt->min_part;
	return share ? share : 1;
}

/* Cut the text at record starts into parts, readers for all but the
 * first (the whole's), once the parts are all cut (a reader may keep
 * its part). */
static int cut_parts(struct pki_parts *w, void *whole, struct pk_profile *p,
		     const char *data, size_t size)
{
	size_t k, from = 0;
	int rc = 0;

	do {
		struct pki_part *part;
		size_t want = part_wanted_end(w, w->nparts, from, size);
		size_t to = want == size ? size :
			w->fmt->cut(whole, data, size, want > from ? want : from);

		if (pki_grow_zeroed(&w->part, &w->part_cap, w->nparts + 1,
				    sizeof(*w->part)) < 0)
			return pk_error_set(w->ctx, PK_ENOMEM, "out of memory");
		/* the rest of what the cut looked through (pki_cut_step) */
		if (to > want)
			pki_input_unmap_part(w->in, data + want, to - want);
		part = &w->part[w->nparts++];
		part->data = data;
		part->start = part->read_to = data + from;
		part->end = data + to;
		part->parts = w;
		part->first_line = w->nparts > 1 ? UINT64_MAX : w->first_line;
		from = to;
	} while (from < size);
	for (k = 1; k < w->nparts && !rc; k++)
		rc = part_open(w, &w->part[k], whole, p);
	w->part[0].reader = whole;
	return rc;
}

/*
 * A part read, appended to the whole: its profile, then its counts and
 * notes, its warnings, and its error last, as one thread gives them.
 */
static int absorb_part(struct pki_parts *w, void *whole, struct pk_profile *p,
		       struct pki_part *part)
{
	const char *name = pk_input_name(w->in);
	int rc;

	if (w->fmt->kept && !w->fmt->kept(whole))
		return 0;
	if (pk_profile_failed(part->p))
		return pk_error_set(w->ctx, PK_ENOMEM, "%s: the profile needs more "
				    "than the memory limit of %llu MiB (see "
				    "--max-memory)", name,
				    (unsigned long long)(pk_context_max_memory(w->ctx) >> 20));
	/* what the whole reads of the part's text comes first */
	if (w->fmt->before_append && (rc = w->fmt->before_append(whole, part->reader)))
		return rc;
	if (!part->rc && (rc = w->fmt->append(p, part->p)))
		return pk_error_set(w->ctx, rc, "%s: out of memory", name);
	give_warnings(w, whole, part);
	if ((rc = w->fmt->absorb(whole, part->reader)))
		return rc;
	if (part->rc)
		return pk_error_set(w->ctx, part->rc, "%s",
				    pk_context_error(part->ctx)->message);
	return 0;
}

/* Each later part in input order, appended as soon as it is read, and
 * freed. */
static int absorb_parts(struct pki_parts *w, void *whole, struct pk_profile *p)
{
	int rc = 0;

	for (; w->absorbed < w->nparts && !rc; w->absorbed++) {
		struct pki_part *part = &w->part[w->absorbed];

		wait_part(w, part);
		rc = absorb_part(w, whole, p, part);
		part_free(w, part);
	}
	return rc;
}

size_t pki_parts_threads(const struct pk_options *opts, size_t size)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n;

	if (opts && opts->threads)
		return opts->threads < size ? opts->threads : 1;
	n = cores > 1 ? (size_t)cores : 1;
	if (n > size / MIN_PART)
		n = size / MIN_PART;
	return n ? n : 1;
}

int pki_two_threads(const struct pk_options *opts, size_t n, size_t least)
{
	return n >= least && (!opts || opts->threads != 1) &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * One part a thread, but for a format that asks for parts of
 * fmt->min_part: more would balance a machine that slows one thread
 * down, but every part learns the text's names afresh and its profile
 * is interned again when appended: with many distinct names
 * (a DTrace aggregation) eight parts on two threads took 0.26 s where
 * two take 0.11 s and one thread 0.14 s (50 MB, bench/stack-text.sh).
 */
int pki_read_parts(const struct pki_parts_reader *fmt, void *whole,
		   struct pk_context *ctx, struct pk_input *in,
		   struct pk_profile *p, const struct pk_options *opts,
		   const char *data, size_t size)
{
	size_t nthreads = pki_parts_threads(opts, size), k, started = 0;
	struct pki_parts w = { .fmt = fmt, .ctx = ctx, .in = in,
			       .nthreads = nthreads, .caller = pthread_self(),
			       .first_line = pk_input_lineno(in), .size = size,
			       .lock = PTHREAD_MUTEX_INITIALIZER,
			       .part_read = PTHREAD_COND_INITIALIZER };
	pthread_t *threads = calloc(nthreads, sizeof(*threads));
	int rc;

	if (!threads)
		return pk_error_set(ctx, PK_ENOMEM, "out of memory");
	w.least = least_part(fmt, nthreads, size);
	atomic_init(&w.next, 1);
	atomic_init(&w.read_bytes, 0);
	snprintf(w.progress, sizeof(w.progress), "reading %s", pk_input_name(in));
	rc = cut_parts(&w, whole, p, data, size);
	for (k = 1; k < nthreads && k < w.nparts && !rc; k++)
		started += pthread_create(&threads[started], NULL, take_parts, &w) == 0;
	if (!rc)
		rc = fmt->read(whole, &w.part[0]);
	if (w.nparts) {
		w.part[0].reader = NULL;	/* the whole's: not ours to free */
		part_free(&w, &w.part[0]);
		w.absorbed = 1;
	}
	if (!rc)
		rc = absorb_parts(&w, whole, p);
	atomic_store(&w.next, w.nparts);	/* after an error, no use reading on */
	for (k = 0; k < started; k++)
		pthread_join(threads[k], NULL);
	for (k = w.absorbed; k < w.nparts; k++)
		part_free(&w, &w.part[k]);
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.part_read);
	free(w.part);
	free(threads);
	pk_progress(ctx, NULL, size, size);
	return rc;
}
