/* SPDX-License-Identifier: MIT */
/*
 * Reader for perf.data, as `perf record` writes it, in both layouts:
 *
 *   file mode  header (magic "PERFILE2", size 104), the attributes and
 *              their ids, the data section of records, then the feature
 *              sections (build ids, host, event names ...) at the end;
 *   pipe mode  (perf record -o -) a 16-byte header, then records only:
 *              attributes, features and tracing data come as records.
 *
 * A file written on a machine of the other byte order starts "2ELIFREP";
 * every field is decoded in the file's order (see perf-data/perf-data.h).
 *
 * Records are handled as perf's session code does: records perf wrote
 * itself at once, kernel records in time order, sorted a round at a
 * time (a round ends at each FINISHED_ROUND), so memory holds one round.
 * The machine model (perf-data/machine.c) maps each sampled address to
 * the file mapped there for that process at that moment; samples go to
 * the model as locations of (mapping, address) without symbols, for a
 * symbolizer to resolve later from the mappings' files and build ids.
 *
 * File mode needs the feature sections before the data. A regular file
 * is mapped and its records taken where they lie (queued by address,
 * its pages given back round by round), or read with pread when it
 * cannot be mapped; stdin or gzip input is read into memory, within the
 * memory limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "formats/registry.h"
#include "perf-data.h"

#define CHUNK (1u << 20)
#define MAX_WARNINGS 5
/* A round bigger than this is sorted and half of it processed early. */
#define QUEUE_MAX ((size_t)256 << 20)
/* Bounds for payloads perf keeps beside records. */
#define PAYLOAD_MAX ((uint64_t)256 << 20)

struct queued {
	uint64_t time, seq, offset;
	const unsigned char *data;	/* in the file in memory, or NULL */
	size_t at;		/* else in the arena */
	uint32_t size;
	uint32_t attr;
};

/* A round the scout found (see "the next rounds ..." below), sorted. */
struct scout_round {
	struct queued *queue;
	size_t n;
	uint64_t records;	/* the records it is made of, FINISHED_ROUND too */
	size_t end;		/* the stream position after them */
	struct scout_round *next;
};

struct pd_scout {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct scout_round *first, *last;	/* found, not taken */
	size_t nrounds;
	size_t from;		/* where it starts */
	int done;		/* it stopped: no more rounds */
	int stop;		/* it is asked to */
	int wanted;		/* a round ended: one may be sent again */
	unsigned runs;
};

struct pd_reader {
	struct pd_state st;
	struct pk_input *in;
	int pipe;

	/* file mode: the file itself (fd) or all of it in memory, mapped
	 * (the input's) or read whole (slurped, ours to free) */
	int fd;
	const unsigned char *mem;
	size_t mem_size;
	unsigned char *slurped;
	uint64_t file_size;
	size_t released;	/* mapped bytes before this given back */

	/* the record stream: bytes [pos, end) of data precede offset next;
	 * data is buf, or the file in memory itself (in_place) */
	const unsigned char *data;
	unsigned char *buf;
	size_t cap, pos, end;
	uint64_t next, limit;
	int eof, in_place;

	/* the current round, waiting to be sorted by time: its records
	 * in memory where they lie, the others copied to the arena */
	unsigned char *arena;
	size_t arena_len, arena_cap;
	size_t queued_bytes;	/* of all its records */
	struct queued *queue;
	size_t nqueue, queue_cap;
	uint64_t seq;

	/* records from COMPRESSED records, maybe cut between two */
	void *zstd;
	unsigned char *dbuf;
	size_t dlen, dcap;
	int in_decomp;

	struct pd_model mo;
	struct pd_scout scout;

	uint64_t records, unknown_id, lost, lost_samples;
	int truncated;
	uint64_t truncated_at;	/* where the whole records end */
};

void pd_warn(struct pd_state *st, const char *fmt, ...)
{
	char msg[PK_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	PK_WARN_AT_MOST(st->ctx, &st->warnings, MAX_WARNINGS, "%s", msg);
}

static int nomem(struct pd_reader *r)
{
	return pk_error_set(r->st.ctx, PK_ENOMEM, "%s: out of memory",
			    r->st.name);
}

/* ---- reading bytes ---- */

static ssize_t file_read_at(struct pd_reader *r, uint64_t off, void *dst,
			    size_t n)
{
	size_t done = 0;

	if (r->mem) {
		if (off >= r->mem_size)
			return 0;
		if (n > r->mem_size - off)
			n = r->mem_size - (size_t)off;
		memcpy(dst, r->mem + off, n);
		return (ssize_t)n;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)dst + done, n - done,
				    (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return pk_error_set(r->st.ctx, PK_EIO,
					    "%s: read failed: %s", r->st.name,
					    strerror(errno));
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/*
 * A whole section of the file. When it is not all there, or larger than
 * we take, NULL: an error if the section is required, else a warning.
 */
static unsigned char *read_section(struct pd_reader *r, uint64_t off,
				   uint64_t size, int required,
				   const char *what)
{
	unsigned char *data;

	if (off > r->file_size || size > r->file_size - off ||
	    size > PAYLOAD_MAX) {
		if (required)
			pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x%llx: "
				     "the %s (%llu bytes) runs past the end of "
				     "the file (%llu bytes; truncated?)",
				     r->st.name, (unsigned long long)off, what,
				     (unsigned long long)size,
				     (unsigned long long)r->file_size);
		else
			pd_warn(&r->st, "%s: offset 0x%llx: the %s (%llu "
				"bytes) runs past the end of the file "
				"(truncated?); ignored", r->st.name,
				(unsigned long long)off, what,
				(unsigned long long)size);
		return NULL;
	}
	data = malloc(size ? (size_t)size : 1);
	if (!data) {
		nomem(r);
		return NULL;
	}
	if (file_read_at(r, off, data, (size_t)size) != (ssize_t)size) {
		pk_error_set(r->st.ctx, PK_EIO, "%s: offset 0x%llx: cannot "
			     "read the %s", r->st.name,
			     (unsigned long long)off, what);
		free(data);
		return NULL;
	}
	return data;
}

static ssize_t stream_read(struct pd_reader *r, unsigned char *dst, size_t n)
{
	ssize_t got;

	if (r->pipe)
		got = pk_input_read(r->in, dst, n);
	else {
		if (n > r->limit - r->next)
			n = (size_t)(r->limit - r->next);
		got = n ? file_read_at(r, r->next, dst, n) : 0;
	}
	if (got > 0)
		r->next += (uint64_t)got;
	return got;
}

/* Make n bytes available at buf + pos: 0, 1 when the stream ends first,
 * or a negative pk_err. */
static int stream_need(struct pd_reader *r, size_t n)
{
	while (r->end - r->pos < n) {
		ssize_t got;

		if (r->eof)
			return 1;
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->end - r->pos);
			r->end -= r->pos;
			r->pos = 0;
		}
		if (r->cap < n || r->cap - r->end < CHUNK / 4) {
			size_t cap = r->cap ? r->cap : CHUNK;

			while (cap < n || cap - r->end < CHUNK / 4)
				cap *= 2;
			if (pki_grow(&r->buf, &r->cap, cap, 1) < 0)
				return nomem(r);
		}
		r->data = r->buf;
		got = stream_read(r, r->buf + r->end, r->cap - r->end);
		if (got < 0)
			return (int)got;
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
	}
	return 0;
}

static uint64_t stream_offset(const struct pd_reader *r)
{
	return r->next - (r->end - r->pos);
}

/* Step over n bytes: 0, or 1 when the stream ends first. */
static int stream_skip(struct pd_reader *r, uint64_t n)
{
	size_t avail = r->end - r->pos;

	if (n <= avail) {
		r->pos += (size_t)n;
		return 0;
	}
	n -= avail;
	r->pos = r->end = 0;
	if (!r->pipe) {
		if (n > r->limit - r->next)
			return 1;
		r->next += n;
		return 0;
	}
	while (n) {
		ssize_t got = stream_read(r, r->buf,
					  n < r->cap ? (size_t)n : r->cap);

		if (got <= 0)
			return got < 0 ? (int)got : 1;
		n -= (uint64_t)got;
	}
	return 0;
}

/* A kernel record, in time order. */
static int deliver(struct pd_reader *r, const struct pd_rec *rec,
		   uint32_t attr)
{
	switch (rec->type) {
	case PD_RECORD_SAMPLE:
		return pd_model_sample(&r->mo, rec, attr);
	case PD_RECORD_LOST:
		if (rec->size >= 24)
			r->lost += pd_u64(rec->data + 16, r->st.big);
		return 0;
	case PD_RECORD_LOST_SAMPLES:
		if (rec->size >= 16)
			r->lost_samples += pd_u64(rec->data + 8, r->st.big);
		return 0;
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE:
		return pd_model_switch(&r->mo, rec, attr);
	case PD_RECORD_EXIT:
		/* the process is gone when its main thread is */
		if (rec->size >= 24 && pd_u32(rec->data + 8, r->st.big) ==
		    pd_u32(rec->data + 16, r->st.big))
			pd_model_exit(&r->mo, (int32_t)pd_u32(rec->data + 8,
							       r->st.big));
		return 0;
	default:
		/* THROTTLE ... change nothing */
		return pd_machine_record(&r->st.m, rec, r->st.big) ?
			nomem(r) : 0;
	}
}

/* ---- ordering: a round at a time ---- */

static int queued_before(const struct queued *x, const struct queued *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

/* The end of the ascending run of q that begins at from. */
static size_t run_end(const struct queued *q, size_t from, size_t n)
{
	while (++from < n && queued_before(&q[from - 1], &q[from]))
		;
	return from;
}

/*
 * Sort the round by (time, seq), a total order. A round is the CPUs'
 * buffers one after the other, each in time order already: merging its
 * runs pass by pass takes a few passes where a general sort took log n.
 * 0, or -1 when out of memory.
 */
static int sort_queue(struct queued *queue, size_t n)
{
	struct queued *from = queue, *to, *swap, *spare;
	size_t a, b, c, i, j, k;

	/* a scout's round may be empty (FINISHED_ROUND after another) */
	if (n < 2 || run_end(from, 0, n) == n)
		return 0;
	if (!(spare = malloc(n * sizeof(*spare))))
		return -1;
	to = spare;
	do {
		for (a = 0; a < n; a = c) {
			b = run_end(from, a, n);
			c = b < n ? run_end(from, b, n) : n;
			for (i = a, j = b, k = a; i < b && j < c;)
				to[k++] = queued_before(&from[j], &from[i]) ?
					  from[j++] : from[i++];
			memcpy(to + k, from + i, (b - i) * sizeof(*to));
			k += b - i;
			memcpy(to + k, from + j, (c - j) * sizeof(*to));
		}
		swap = from;
		from = to;
		to = swap;
	} while (run_end(from, 0, n) < n);
	if (from == spare)
		memcpy(queue, spare, n * sizeof(*spare));
	free(spare);
	return 0;
}

static const unsigned char *queued_data(const struct pd_reader *r,
				       const struct queued *q)
{
	return q->data ? q->data : r->arena + q->at;
}

/*
 * Give back the mapped pages of the records before the one at pos, all
 * delivered or copied: memory follows the round, not the file. In steps
 * of 1 MiB from the map's start, whole pages, so that no page is left
 * between two, and few calls.
 */
static void release_delivered(struct pd_reader *r)
{
	static const size_t step = (size_t)1 << 20;
	size_t upto;

	if (!r->in_place || r->pos < r->released + step)
		return;
	upto = (r->pos - r->released) / step * step + r->released;
	pki_input_unmap_part(r->in, r->mem + r->released, upto - r->released);
	r->released = upto;
}

/* Keep the queued records from n on, copied to the start of a new
 * arena: then no record waits in memory that is given back. 0, or -1
 * without memory. */
static int keep_queued(struct pd_reader *r, size_t n)
{
	size_t i, len = 0, keep = r->nqueue - n;
	unsigned char *packed;

	if (!keep) {
		r->arena_len = r->queued_bytes = r->nqueue = 0;
		return 0;
	}
	if (!(packed = malloc(r->queued_bytes)))
		return -1;
	for (i = 0; i < keep; i++) {
		struct queued *q = &r->queue[n + i];

		memcpy(packed + len, queued_data(r, q), q->size);
		q->data = NULL;
		q->at = len;
		len += q->size;
		r->queue[i] = *q;
	}
	free(r->arena);
	r->arena = packed;
	r->arena_cap = r->queued_bytes;
	r->arena_len = r->queued_bytes = len;
	r->nqueue = keep;
	return 0;
}

/* Deliver the n records of a sorted queue: 0 or a pk_err. */
static int deliver_queued(struct pd_reader *r, const struct queued *queue,
			  size_t n)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		const struct queued *q = &queue[i];
		struct pd_rec rec;

		rec.data = queued_data(r, q);
		rec.type = pd_u32(rec.data, r->st.big);
		rec.misc = pd_u16(rec.data + 4, r->st.big);
		rec.size = (uint16_t)q->size;
		rec.offset = q->offset;
		rc = deliver(r, &rec, q->attr);
	}
	return rc;
}

/* Sort the round and deliver its oldest n records. */
static int flush_queue(struct pd_reader *r, size_t n)
{
	int rc;

	if (!r->nqueue)
		return 0;
	if (sort_queue(r->queue, r->nqueue) < 0)
		return nomem(r);
	if ((rc = deliver_queued(r, r->queue, n)))
		return rc;
	if (keep_queued(r, n) < 0)
		return nomem(r);
	release_delivered(r);
	return 0;
}

/* Rounds are small (perf ends one each time it empties its buffers),
 * but a file without FINISHED_ROUND is one round: keep it bounded. */
static size_t queue_limit(const struct pd_reader *r)
{
	uint64_t quarter = pk_context_max_memory(r->st.ctx) / 4;

	return quarter < QUEUE_MAX ? (size_t)quarter : QUEUE_MAX;
}

static int enqueue(struct pd_reader *r, const struct pd_rec *rec,
		   uint32_t attr, uint64_t time)
{
	struct queued *q;
	int rc;

	/* a record of the file in memory stays there, till the round's end */
	int in_place = r->in_place && !r->in_decomp;

	if (r->queued_bytes + rec->size > queue_limit(r) &&
	    (rc = flush_queue(r, r->nqueue / 2 + 1)))
		return rc;
	if ((!in_place && pki_grow(&r->arena, &r->arena_cap,
				   r->arena_len + rec->size, 1) < 0) ||
	    pki_grow(&r->queue, &r->queue_cap, r->nqueue + 1,
		    sizeof(*r->queue)) < 0)
		return nomem(r);
	q = &r->queue[r->nqueue++];
	q->time = time;
	q->seq = r->seq++;
	q->offset = rec->offset;
	q->data = in_place ? rec->data : NULL;
	q->at = r->arena_len;
	q->size = rec->size;
	q->attr = attr;
	if (!in_place) {
		memcpy(r->arena + r->arena_len, rec->data, rec->size);
		r->arena_len += rec->size;
	}
	r->queued_bytes += rec->size;
	return 0;
}

/* A kernel record: queued when it has a time, else handled at once. */
static int kernel_record(struct pd_reader *r, const struct pd_rec *rec)
{
	int attr = pd_evlist_find(&r->st, rec->data, rec->size, rec->type);
	uint64_t time;

	if (!r->st.ev.nattrs) {
		pd_warn(&r->st, "%s: offset 0x%llx: a record before any event "
			"attributes; skipped", r->st.name,
			(unsigned long long)rec->offset);
		return 0;
	}
	if (attr < 0) {
		if (rec->type == PD_RECORD_SAMPLE) {
			r->unknown_id++;
			pd_warn(&r->st, "%s: offset 0x%llx: a sample of no known "
				"event (unknown id); skipped", r->st.name,
				(unsigned long long)rec->offset);
			return 0;
		}
		attr = 0;
	}
	if (pd_record_time(&r->st.ev.attrs[attr], rec->data, rec->size,
			   rec->type, r->st.big, &time) == 0)
		return enqueue(r, rec, (uint32_t)attr, time);
	return deliver(r, rec, (uint32_t)attr);
}

/* ---- the next rounds found on a second thread ---- */

/*
 * In a file read in place, a second thread (the scout) finds the next
 * rounds while this one delivers the last: finding a record's event and
 * time, queueing and sorting a round took a fifth of a large
 * recording's time. The scout changes nothing but its own rounds, and
 * stops where a record asks for more (one perf wrote other than
 * FINISHED_ROUND, one without a time or of no known event, a round past
 * the queue's limit, the end): this thread goes on from there as
 * without it, so every record is handled, and every warning given, in
 * the same order. A FINISHED_ROUND so handled sends it out again (the
 * first sends it first: what perf writes before is not rounds).
 */
#define SCOUT_MIN_DATA ((uint64_t)4 << 20)	/* less is read alone */
#define SCOUT_AHEAD 4		/* rounds found and not yet taken */
#define SCOUT_RUNS 16		/* times it is sent out, at most */

/* A round of records from *at to a FINISHED_ROUND, sorted, and *at past
 * it; NULL when the scout must stop before its end. */
static struct scout_round *scout_round(struct pd_reader *r, size_t *at)
{
	struct scout_round *round = calloc(1, sizeof(*round));
	size_t pos = *at, cap = 0, bytes = 0;
	int big = r->st.big;

	while (round && r->end - pos >= 8) {
		const unsigned char *d = r->mem + pos;
		uint32_t type = pd_u32(d, big);
		uint16_t size = pd_u16(d + 6, big);
		uint64_t time;
		int attr;

		if (size < 8 || size > r->end - pos)
			break;
		round->records++;
		if (type == PD_RECORD_FINISHED_ROUND) {
			if (sort_queue(round->queue, round->n) < 0)
				break;
			*at = round->end = pos + size;
			return round;
		}
		if (type >= PD_RECORD_USER_START || !r->st.ev.nattrs ||
		    (attr = pd_evlist_find(&r->st, d, size, type)) < 0 ||
		    pd_record_time(&r->st.ev.attrs[attr], d, size, type, big,
				   &time) < 0 ||
		    (bytes += size) > queue_limit(r) ||
		    pki_grow(&round->queue, &cap, round->n + 1,
			     sizeof(*round->queue)) < 0)
			break;
		round->queue[round->n] = (struct queued){
			time, round->n, pos, d, 0, size, (uint32_t)attr
		};
		round->n++;
		pos += size;
	}
	if (round)
		free(round->queue);
	free(round);
	return NULL;
}

/* Hand a round over, waiting while SCOUT_AHEAD wait: 0 when asked to
 * stop (the round is freed). */
static int scout_hand(struct pd_scout *sc, struct scout_round *round)
{
	int taken = 0;

	pthread_mutex_lock(&sc->lock);
	while (sc->nrounds >= SCOUT_AHEAD && !sc->stop)
		pthread_cond_wait(&sc->changed, &sc->lock);
	if (!sc->stop) {
		if (sc->last)
			sc->last->next = round;
		else
			sc->first = round;
		sc->last = round;
		sc->nrounds++;
		taken = 1;
		pthread_cond_broadcast(&sc->changed);
	}
	pthread_mutex_unlock(&sc->lock);
	if (!taken) {
		free(round->queue);
		free(round);
	}
	return taken;
}

static void *scout_main(void *arg)
{
	struct pd_reader *r = arg;
	struct pd_scout *sc = &r->scout;
	struct scout_round *round;
	size_t at = sc->from;

	while ((round = scout_round(r, &at)) && scout_hand(sc, round))
		;
	pthread_mutex_lock(&sc->lock);
	sc->done = 1;
	pthread_cond_broadcast(&sc->changed);
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* The next round found, or NULL once the scout stopped. */
static struct scout_round *scout_take(struct pd_scout *sc)
{
	struct scout_round *round;

	pthread_mutex_lock(&sc->lock);
	while (!sc->first && !sc->done)
		pthread_cond_wait(&sc->changed, &sc->lock);
	if ((round = sc->first)) {
		if (!(sc->first = round->next))
			sc->last = NULL;
		sc->nrounds--;
		pthread_cond_broadcast(&sc->changed);
	}
	pthread_mutex_unlock(&sc->lock);
	return round;
}

/* Stop the scout, and free what it found that was not taken. */
static void scout_end(struct pd_scout *sc)
{
	struct scout_round *round;

	pthread_mutex_lock(&sc->lock);
	sc->stop = 1;
	pthread_cond_broadcast(&sc->changed);
	pthread_mutex_unlock(&sc->lock);
	pthread_join(sc->thread, NULL);
	while ((round = sc->first)) {
		sc->first = round->next;
		free(round->queue);
		free(round);
	}
	pthread_cond_destroy(&sc->changed);
	pthread_mutex_destroy(&sc->lock);
}

/* Is the scout to be sent from here? With --threads=N, unless N is 1;
 * else for a large file on more than one core. */
static int scout_wanted(const struct pd_reader *r)
{
	const struct pd_scout *sc = &r->scout;
	unsigned threads = r->st.opts ? r->st.opts->threads : 0;

	if (!r->in_place || !sc->wanted || r->nqueue ||
	    sc->runs >= SCOUT_RUNS || threads == 1)
		return 0;
	return threads || (r->end - r->pos >= SCOUT_MIN_DATA &&
			   sysconf(_SC_NPROCESSORS_ONLN) > 1);
}

/* Deliver the rounds a scout finds from pos on; pos is where it stopped
 * then. 0 (also when no thread could be made) or a pk_err. */
static int scouted_rounds(struct pd_reader *r)
{
	struct pd_scout *sc = &r->scout;
	struct scout_round *round;
	size_t rounds = 0;
	int rc = 0;

	*sc = (struct pd_scout){ .from = r->pos, .runs = sc->runs + 1 };
	if (pthread_mutex_init(&sc->lock, NULL))
		return 0;
	if (pthread_cond_init(&sc->changed, NULL)) {
		pthread_mutex_destroy(&sc->lock);
		return 0;
	}
	if (pthread_create(&sc->thread, NULL, scout_main, r)) {
		pthread_cond_destroy(&sc->changed);
		pthread_mutex_destroy(&sc->lock);
		return 0;
	}
	while (!rc && (round = scout_take(sc))) {
		rc = deliver_queued(r, round->queue, round->n);
		r->records += round->records;
		r->pos = round->end;
		release_delivered(r);
		free(round->queue);
		free(round);
		rounds++;
	}
	scout_end(sc);
	/* one that found nothing (compressed records, say) counts for half */
	if (!rounds)
		sc->runs += SCOUT_RUNS / 2;
	return rc;
}

/* ---- records perf writes itself ---- */

static int header_attr(struct pd_reader *r, const struct pd_rec *rec)
{
	uint32_t size, index, i, nids;
	int rc;

	if (rec->size < 8 + PD_ATTR_SIZE_VER0)
		goto bad;
	size = pd_u32(rec->data + 8 + 4, r->st.big);
	if (!size)
		size = PD_ATTR_SIZE_VER0;
	if (size < PD_ATTR_SIZE_VER0 || size > rec->size - 8u)
		goto bad;
	if ((rc = pd_evlist_add(&r->st, rec->data + 8, size, &index)))
		return rc;
	nids = (rec->size - 8u - size) / 8;
	for (i = 0; i < nids; i++)
		if ((rc = pd_evlist_add_id(&r->st, index,
					   pd_u64(rec->data + 8 + size + 8 * i,
						  r->st.big))))
			return rc;
	return 0;
bad:
	return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x%llx: event "
			    "attribute record of %u bytes is malformed",
			    r->st.name, (unsigned long long)rec->offset,
			    rec->size);
}

static int id_index(struct pd_reader *r, const struct pd_rec *rec)
{
	uint64_t nr, i;
	int rc;

	if (rec->size < 16)
		return 0;
	nr = pd_u64(rec->data + 8, r->st.big);
	if (nr > (rec->size - 16u) / 32u)
		nr = (rec->size - 16u) / 32u;
	for (i = 0; i < nr; i++) {
		const unsigned char *e = rec->data + 16 + 32 * i;
		uint64_t idx = pd_u64(e + 8, r->st.big);

		if (idx < r->st.ev.nattrs &&
		    (rc = pd_evlist_add_id(&r->st, (uint32_t)idx,
					   pd_u64(e, r->st.big))))
			return rc;
	}
	return 0;
}

static int handle_record(struct pd_reader *r, const struct pd_rec *rec,
			 uint64_t *payload);

#ifdef HAVE_ZSTD
/* Records decompressed so far; a record cut at the end waits for the
 * next COMPRESSED record. */
static int decompressed_records(struct pd_reader *r, uint64_t offset)
{
	size_t off = 0;
	int rc = 0;

	while (!rc && r->dlen - off >= 8) {
		struct pd_rec rec;
		uint64_t payload = 0;

		rec.data = r->dbuf + off;
		rec.type = pd_u32(rec.data, r->st.big);
		rec.misc = pd_u16(rec.data + 4, r->st.big);
		rec.size = pd_u16(rec.data + 6, r->st.big);
		rec.offset = offset;
		if (rec.size < 8)
			return pk_error_set(r->st.ctx, PK_EINPUT,
					    "%s: offset 0x%llx: a compressed "
					    "record holds a record of size %u "
					    "(corrupt file?)", r->st.name,
					    (unsigned long long)offset, rec.size);
		if (rec.size > r->dlen - off)
			break;
		rc = handle_record(r, &rec, &payload);
		off += rec.size;
		if (payload)
			off += payload < r->dlen - off ? (size_t)payload :
				r->dlen - off;
	}
	if (r->dlen > off)
		memmove(r->dbuf, r->dbuf + off, r->dlen - off);
	r->dlen -= off;
	return rc;
}

static int decompress(struct pd_reader *r, const struct pd_rec *rec)
{
	ZSTD_inBuffer in;
	int rc;

	in.src = rec->data + 8;
	in.size = rec->size - 8u;
	in.pos = 0;
	if (rec->type == PD_RECORD_COMPRESSED2) {
		uint64_t n = rec->size >= 16 ? pd_u64(rec->data + 8, r->st.big) : 0;

		in.src = rec->data + 16;
		in.size = n <= rec->size - 16u ? (size_t)n : 0;
	}
	if (!r->zstd && !(r->zstd = ZSTD_createDStream()))
		return nomem(r);
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t ret;

		if (r->dcap - r->dlen < CHUNK / 4 &&
		    (r->dcap > PAYLOAD_MAX ||
		     pki_grow(&r->dbuf, &r->dcap, r->dlen + CHUNK, 1) < 0))
			return nomem(r);
		out.dst = r->dbuf + r->dlen;
		out.size = r->dcap - r->dlen;
		out.pos = 0;
		ret = ZSTD_decompressStream(r->zstd, &out, &in);
		if (ZSTD_isError(ret))
			return pk_error_set(r->st.ctx, PK_EINPUT,
					    "%s: offset 0x%llx: compressed "
					    "record is corrupt (%s)", r->st.name,
					    (unsigned long long)rec->offset,
					    ZSTD_getErrorName(ret));
		r->dlen += out.pos;
	}
	r->in_decomp = 1;
	rc = decompressed_records(r, rec->offset);
	r->in_decomp = 0;
	return rc;
}
#else
static int decompress(struct pd_reader *r, const struct pd_rec *rec)
{
	return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x%llx: "
			    "compressed data: recorded with perf record -z; "
			    "rebuild profkit with libzstd", r->st.name,
			    (unsigned long long)rec->offset);
}
#endif

static int user_record(struct pd_reader *r, const struct pd_rec *rec,
		       uint64_t *payload)
{
	const unsigned char *d = rec->data;
	int big = r->st.big;

	switch (rec->type) {
	case PD_RECORD_HEADER_ATTR:
		return header_attr(r, rec);
	case PD_RECORD_HEADER_EVENT_TYPE:
		if (rec->size >= 8 + 72)
			pd_read_event_type(&r->st, d + 8);
		return 0;
	case PD_RECORD_HEADER_TRACING_DATA:
		/* the tracing data follows the record */
		if (rec->size >= 12)
			*payload = pd_u32(d + 8, big);
		return 0;
	case PD_RECORD_HEADER_BUILD_ID:
		return pd_read_build_ids(&r->st, d, rec->size);
	case PD_RECORD_FINISHED_ROUND:
		r->scout.wanted = 1;
		return flush_queue(r, r->nqueue);
	case PD_RECORD_ID_INDEX:
		return id_index(r, rec);
	case PD_RECORD_AUXTRACE:
		/* AUX area data (Intel PT ...) follows the record */
		if (rec->size >= 16)
			*payload = pd_u64(d + 8, big);
		return 0;
	case PD_RECORD_EVENT_UPDATE:
		pd_read_event_update(&r->st, d, rec->size);
		return 0;
	case PD_RECORD_HEADER_FEATURE:
		if (rec->size < 16 || pd_u64(d + 8, big) > 255)
			return 0;
		return pd_read_feature(&r->st, (unsigned)pd_u64(d + 8, big),
				       d + 16, rec->size - 16u);
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		if (r->in_decomp)
			return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset "
					    "0x%llx: compressed record inside "
					    "compressed data", r->st.name,
					    (unsigned long long)rec->offset);
		return decompress(r, rec);
	default:
		return 0;
	}
}

/* *payload: bytes perf stored after the record, which are not records. */
static int handle_record(struct pd_reader *r, const struct pd_rec *rec,
			 uint64_t *payload)
{
	r->records++;
	if (rec->type >= PD_RECORD_USER_START)
		return user_record(r, rec, payload);
	return kernel_record(r, rec);
}

/* ---- the stream of records ---- */

static void warn_truncated(struct pd_reader *r, const char *what)
{
	if (r->truncated)
		return;
	r->truncated = 1;
	r->truncated_at = stream_offset(r);
	pd_warn(&r->st, "%s: offset 0x%llx: %s is cut short (truncated "
		"file?); converted what came before", r->st.name,
		(unsigned long long)r->truncated_at, what);
}

static int tracing_payload(struct pd_reader *r, uint64_t size)
{
	int rc;

	if (size > PAYLOAD_MAX || size > pk_context_max_memory(r->st.ctx))
		return stream_skip(r, size);
	rc = stream_need(r, (size_t)size);
	if (rc)
		return rc;
	rc = pd_read_tracing_data(&r->st, r->data + r->pos, (size_t)size);
	r->pos += (size_t)size;
	return rc;
}

static int read_records(struct pd_reader *r)
{
	for (;;) {
		struct pd_rec rec;
		uint64_t payload = 0;
		int rc;

		if (scout_wanted(r) && (rc = scouted_rounds(r)))
			return rc;
		if ((rc = stream_need(r, 8)) < 0)
			return rc;
		if (rc > 0) {
			if (r->end > r->pos)
				warn_truncated(r, "the last record");
			return 0;
		}
		rec.data = r->data + r->pos;
		rec.type = pd_u32(rec.data, r->st.big);
		rec.misc = pd_u16(rec.data + 4, r->st.big);
		rec.size = pd_u16(rec.data + 6, r->st.big);
		rec.offset = stream_offset(r);
		if (rec.size < 8)
			return pk_error_set(r->st.ctx, PK_EINPUT,
					    "%s: offset 0x%llx: record of type "
					    "%u has size %u (corrupt file?)",
					    r->st.name,
					    (unsigned long long)rec.offset,
					    rec.type, rec.size);
		rc = stream_need(r, rec.size);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			warn_truncated(r, "the last record");
			return 0;
		}
		rec.data = r->data + r->pos;
		if ((rc = handle_record(r, &rec, &payload)))
			return rc;
		r->pos += rec.size;
		if (!payload)
			continue;
		rc = rec.type == PD_RECORD_HEADER_TRACING_DATA ?
			tracing_payload(r, payload) : stream_skip(r, payload);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			warn_truncated(r, "data stored after a record");
			return 0;
		}
	}
}

/* ---- file mode ---- */

/* The input mapped, when it is the file fd has open, whole (only the
 * 16 bytes at head peeked at): then it is read in memory. */
static void map_file(struct pd_reader *r, const unsigned char *head)
{
	const unsigned char *map;
	size_t size;

	map = pki_input_map(r->in, &size);
	if (!map || size != r->file_size || memcmp(map, head, 16) != 0)
		return;
	r->mem = map;
	r->mem_size = size;
	close(r->fd);
	r->fd = -1;
}

/*
 * A regular file is read where it lies, mapped: its records are taken
 * there, not copied; when it cannot be mapped, with pread. Anything else
 * is read into memory.
 */
static int open_file(struct pd_reader *r, const unsigned char *head)
{
	int64_t size = pk_input_file_size(r->in);
	unsigned char check[16];
	struct stat st;
	size_t got;

	if (size >= 0 && !pk_input_is_compressed(r->in)) {
		r->fd = open(r->st.name, O_RDONLY | O_CLOEXEC);
		if (r->fd >= 0 && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == size &&
		    pread(r->fd, check, sizeof(check), 0) == sizeof(check) &&
		    memcmp(check, head, sizeof(check)) == 0) {
			r->file_size = (uint64_t)size;
			r->st.file_mtime_ns = (int64_t)st.st_mtim.tv_sec *
					      1000000000 + st.st_mtim.tv_nsec;
			map_file(r, head);
			return 0;
		}
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
	}
	if (pk_input_slurp(r->in, (size_t)pk_context_max_memory(r->st.ctx),
			   &r->slurped, &got))
		return pk_context_error(r->st.ctx)->code;
	r->mem = r->slurped;
	r->mem_size = got;
	r->file_size = got;
	return 0;
}

static int read_attrs(struct pd_reader *r, const unsigned char *h)
{
	int big = r->st.big;
	uint64_t attr_size = pd_u64(h + 16, big);
	uint64_t off = pd_u64(h + 24, big), size = pd_u64(h + 32, big), i;
	unsigned char *attrs;
	int rc = 0;

	if (attr_size < 16 + PD_ATTR_SIZE_VER0 || attr_size > 4096)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x10: "
				    "attribute size %llu is implausible "
				    "(corrupt file?)", r->st.name,
				    (unsigned long long)attr_size);
	if (size / attr_size > 65536)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x20: "
				    "%llu bytes of attributes are implausible",
				    r->st.name, (unsigned long long)size);
	attrs = read_section(r, off, size, 1, "attribute section");
	if (!attrs)
		return pk_context_error(r->st.ctx)->code;
	for (i = 0; i + attr_size <= size && !rc; i += attr_size) {
		const unsigned char *a = attrs + i;
		uint64_t ids_off = pd_u64(a + attr_size - 16, big);
		uint64_t ids_size = pd_u64(a + attr_size - 8, big), j;
		unsigned char *ids;
		uint32_t index;

		rc = pd_evlist_add(&r->st, a, attr_size - 16, &index);
		if (rc || !ids_size)
			continue;
		ids = read_section(r, ids_off, ids_size, 0, "id list");
		for (j = 0; ids && j + 8 <= ids_size && !rc; j += 8)
			rc = pd_evlist_add_id(&r->st, index, pd_u64(ids + j, big));
		free(ids);
	}
	free(attrs);
	return rc ? rc : pk_context_error(r->st.ctx)->code;
}

/* The old event_types section: config and name, 72 bytes each. */
static void read_event_types(struct pd_reader *r, const unsigned char *h)
{
	uint64_t off = pd_u64(h + 56, r->st.big), size = pd_u64(h + 64, r->st.big);
	unsigned char *types;
	uint64_t i;

	if (!size || size > 72 * 65536)
		return;
	types = read_section(r, off, size, 0, "event types");
	for (i = 0; types && i + 72 <= size; i += 72)
		pd_read_event_type(&r->st, types + i);
	free(types);
}

static int feature_bit(const struct pd_reader *r, const unsigned char *h,
		       unsigned bit)
{
	return (pd_u64(h + 72 + 8 * (bit / 64), r->st.big) >> (bit % 64)) & 1;
}

/* Feature sections: a table of (offset, size) after the data, one per
 * bit set in the header's bitmap, in bit order. */
static int read_features(struct pd_reader *r, const unsigned char *h,
			 uint64_t feat_off)
{
	unsigned nfeat = 0, bit, k = 0;
	unsigned char *table;
	int rc = 0;

	for (bit = 0; bit < 256; bit++)
		nfeat += feature_bit(r, h, bit);
	if (!nfeat)
		return 0;
	table = read_section(r, feat_off, 16ull * nfeat, 0, "feature table");
	for (bit = 0; table && bit < 256 && !rc; bit++) {
		const unsigned char *sec = table + 16 * k;
		unsigned char *data;
		char what[48];

		if (!feature_bit(r, h, bit))
			continue;
		k++;
		snprintf(what, sizeof(what), "feature section %u", bit);
		data = read_section(r, pd_u64(sec, r->st.big),
				    pd_u64(sec + 8, r->st.big), 0, what);
		if (data)
			rc = pd_read_feature(&r->st, bit, data,
					     (size_t)pd_u64(sec + 8, r->st.big));
		free(data);
	}
	free(table);
	return rc ? rc : pk_context_error(r->st.ctx)->code;
}

static int read_file_mode(struct pd_reader *r, const unsigned char *head)
{
	unsigned char h[PD_FILE_HEADER_SIZE];
	uint64_t hsize = pd_u64(head + 8, r->st.big), data_off, data_size;
	int rc;

	if ((rc = open_file(r, head)))
		return rc;
	memset(h, 0, sizeof(h));
	if (file_read_at(r, 0, h, (size_t)hsize) != (ssize_t)hsize)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x%llx: "
				    "the file ends inside its %llu-byte header",
				    r->st.name,
				    (unsigned long long)r->file_size,
				    (unsigned long long)hsize);
	data_off = pd_u64(h + 40, r->st.big);
	data_size = pd_u64(h + 48, r->st.big);
	if ((rc = read_attrs(r, h)))
		return rc;
	read_event_types(r, h);
	if (!data_size) {
		pd_warn(&r->st, "%s: the header gives no data size: perf "
			"record did not finish (killed?); reading to the end",
			r->st.name);
		data_size = r->file_size > data_off ? r->file_size - data_off : 0;
	} else if (data_off > r->file_size ||
		   data_size > r->file_size - data_off) {
		/* the features were to follow the data: they are lost too */
		r->truncated = 1;
		r->truncated_at = r->file_size;
		pd_warn(&r->st, "%s: offset 0x%llx: the data section (%llu "
			"bytes) is cut short at %llu bytes (truncated file?); "
			"converting what is whole", r->st.name,
			(unsigned long long)data_off,
			(unsigned long long)data_size,
			(unsigned long long)r->file_size);
		data_off = data_off < r->file_size ? data_off : r->file_size;
		data_size = r->file_size - data_off;
	} else if (hsize == PD_FILE_HEADER_SIZE &&
		   (rc = read_features(r, h, data_off + data_size))) {
		return rc;
	}
	r->next = data_off;
	r->limit = data_off + data_size;
	if (r->mem) {
		/* the stream is the data section where it lies */
		r->in_place = 1;
		r->data = r->mem;
		r->pos = (size_t)data_off;
		r->end = (size_t)r->limit;
		r->next = r->limit;
		r->eof = 1;
	}
	/* set_times (model.c) puts the samples on the wall clock */
	if (r->st.file_mtime_ns || r->st.has_clock_data)
		pki_profile_set_wall_clock(r->st.p);
	return read_records(r);
}

/* ---- the reader ---- */

static int finish(struct pd_reader *r)
{
	int rc = flush_queue(r, r->nqueue);
	size_t i;

	if (rc || (rc = pd_model_finish(&r->mo)))
		return rc;
	if (r->lost)
		pd_warn(&r->st, "%s: perf lost %llu events while recording "
			"(its buffers overflowed)", r->st.name,
			(unsigned long long)r->lost);
	if (r->lost_samples)
		pd_warn(&r->st, "%s: the kernel dropped %llu samples while "
			"recording", r->st.name,
			(unsigned long long)r->lost_samples);
	if (r->mo.guest)
		pd_warn(&r->st, "%s: %llu samples of guest machines left out, "
			"as perf does", r->st.name,
			(unsigned long long)r->mo.guest);
	if (r->st.warnings > MAX_WARNINGS)
		pk_warn(r->st.ctx, "%s: %llu warnings in all", r->st.name,
			(unsigned long long)r->st.warnings);
	if (r->mo.samples || r->mo.bad_samples || r->mo.guest || r->unknown_id)
		return 0;
	if (r->truncated)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x%llx: "
				    "the file ends before any whole sample "
				    "(truncated?)", r->st.name,
				    (unsigned long long)r->truncated_at);
	if (!r->st.ev.nattrs)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: no events and no "
				    "samples: the recording is empty or cut "
				    "short", r->st.name);
	if (pk_profile_flags(r->st.p) & PK_PROFILE_KEEP_EMPTY)
		return 0;
	for (i = 0; i < r->st.ev.nattrs; i++) {
		const struct pd_attr *a = &r->st.ev.attrs[i];

		if (a->sample_period || (a->flags & PD_ATTR_FREQ))
			return pk_error_set(r->st.ctx, PK_EINPUT, "%s: no "
					    "samples: the recording is empty "
					    "(the program ended at once, or perf "
					    "record was stopped?); record again, "
					    "longer or with a higher -F",
					    r->st.name);
	}
	return pk_error_set(r->st.ctx, PK_EINPUT, "%s: no samples: the events "
			    "were counted, not sampled (perf stat record?); "
			    "record with perf record to get a profile",
			    r->st.name);
}

static void reader_release(struct pd_reader *r)
{
	pd_evlist_release(&r->st.ev);
	pd_machine_release(&r->st.m);
	pd_tracing_free(r->st.tracing);
	if (r->fd >= 0)
		close(r->fd);
#ifdef HAVE_ZSTD
	ZSTD_freeDStream(r->zstd);
#endif
	free(r->slurped);
	free(r->buf);
	free(r->arena);
	free(r->queue);
	free(r->dbuf);
	pd_model_release(&r->mo);
}

static int start(struct pd_reader *r, const unsigned char *head, size_t got)
{
	uint64_t hsize;

	if (got < 16 || (memcmp(head, "PERFILE2", 8) != 0 &&
			 memcmp(head, "2ELIFREP", 8) != 0)) {
		if (got >= 8 && memcmp(head, "PERFFILE", 8) == 0)
			return pk_error_set(r->st.ctx, PK_EINPUT, "%s: perf.data "
					    "of the first version (Linux before "
					    "2.6.37) is not supported",
					    r->st.name);
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: not a perf.data "
				    "file (no PERFILE2 magic)", r->st.name);
	}
	r->st.big = head[0] == '2';
	hsize = pd_u64(head + 8, r->st.big);
	if (hsize == PD_PIPE_HEADER_SIZE) {
		unsigned char skip[PD_PIPE_HEADER_SIZE];

		r->pipe = 1;
		if (pk_input_read(r->in, skip, sizeof(skip)) != sizeof(skip))
			return pk_context_error(r->st.ctx)->code;
		r->next = PD_PIPE_HEADER_SIZE;
		return read_records(r);
	}
	if (hsize != PD_FILE_HEADER_SIZE && hsize != PD_FILE_HEADER_V1_SIZE)
		return pk_error_set(r->st.ctx, PK_EINPUT, "%s: offset 0x8: "
				    "header size %llu is neither 16 (pipe) nor "
				    "104 (file)", r->st.name,
				    (unsigned long long)hsize);
	return read_file_mode(r, head);
}

static int perf_data_read(struct pk_context *ctx, struct pk_input *in,
			  struct pk_profile *p, const struct pk_options *opts)
{
	struct pd_reader r;
	const unsigned char *head;
	unsigned char copy[16];
	size_t got;
	int rc;

	memset(&r, 0, sizeof(r));
	r.st.ctx = ctx;
	r.st.opts = opts;
	r.st.p = p;
	r.st.name = pk_input_name(in);
	r.in = in;
	r.fd = -1;
	if (pd_machine_init(&r.st.m)) {
		reader_release(&r);
		return nomem(&r);
	}
	pd_model_init(&r.mo, &r.st);
	head = pk_input_peek(in, sizeof(copy), &got);
	memcpy(copy, head, got);
	rc = pk_context_error(ctx)->code;
	if (!rc)
		rc = start(&r, copy, got);
	if (!rc)
		rc = pk_context_error(ctx)->code;
	if (!rc)
		rc = finish(&r);
	reader_release(&r);
	return rc;
}

static int perf_data_probe(const unsigned char *buf, size_t len)
{
	if (len < 8)
		return 0;
	return memcmp(buf, "PERFILE2", 8) == 0 ||
	       memcmp(buf, "2ELIFREP", 8) == 0 ? 100 : 0;
}

const struct pki_format pki_format_perf_data = {
	.name = "perf-data",
	.read_description = "perf.data as perf record writes it (file or pipe "
			    "mode, any byte order)",
	.probe = perf_data_probe,
	.read_flags = PKI_READ_NO_INLINE,
	.read = perf_data_read,
};
