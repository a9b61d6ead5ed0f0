/* SPDX-License-Identifier: MIT */
/*
 * A chunk: its header, its events one after another, and the constant
 * pools of its checkpoint events.
 *
 * The header (big-endian):
 *
 *     0  "FLR\0"           32  start, ns since 1970
 *     4  major, minor u16  40  duration, ns
 *     8  chunk size        48  start, in ticks
 *    16  last checkpoint   56  ticks per second
 *    24  metadata event    64  state, 2 bytes unused, flags
 *
 * A checkpoint event holds constant pools: for each, a type id, then
 * keys and values of that type. The JVM writes one at the end of the
 * chunk and, while streaming, more on the way (each with what is new
 * since the last, a delta); each points back to the one before it. The
 * first pass reads every checkpoint event where it is rather than
 * following those pointers, so no pointer can send it round in a cycle,
 * and every constant of the chunk is known before any event is read.
 */
#include <stdlib.h>
#include <string.h>

#include "jfr.h"

int jfr_chunk_header(struct jfr_chunk *ch, const unsigned char *base,
		     uint64_t avail)
{
	uint64_t size;

	ch->base = base;
	if (avail < JFR_HEADER_SIZE)
		return jfr_error_at(ch, base, "the chunk header is cut short "
				    "at %llu of its 68 bytes (truncated file?)",
				    (unsigned long long)avail);
	if (memcmp(base, "FLR", 4) != 0)
		return jfr_error_at(ch, base, "no chunk starts here (no "
				    "\"FLR\\0\" magic): the bytes after the "
				    "last chunk are not JFR");
	ch->major = (uint16_t)(base[4] << 8 | base[5]);
	ch->minor = (uint16_t)(base[6] << 8 | base[7]);
	if (ch->major != 2)
		return jfr_error_at(ch, base + 4, "JFR version %u.%u is not "
				    "supported (JDK 11 and later write 2.x)",
				    ch->major, ch->minor);
	size = jfr_be64(base + 8);
	ch->metadata_offset = jfr_be64(base + 24);
	ch->start_nanos = (int64_t)jfr_be64(base + 32);
	ch->duration_nanos = (int64_t)jfr_be64(base + 40);
	ch->start_ticks = (int64_t)jfr_be64(base + 48);
	ch->ticks_per_second = (int64_t)jfr_be64(base + 56);
	if (size == 0)
		return jfr_error_at(ch, base + 8, "the chunk's size is 0: the "
				    "JVM was still writing it (dump the recording "
				    "with jcmd PID JFR.dump)");
	if (size < JFR_HEADER_SIZE || size > avail)
		return jfr_error_at(ch, base + 8, "the chunk's size %llu runs "
				    "past the end of the file (%llu bytes are "
				    "left; truncated file?)",
				    (unsigned long long)size,
				    (unsigned long long)avail);
	ch->size = size;
	if (ch->metadata_offset < JFR_HEADER_SIZE || ch->metadata_offset >= size)
		return jfr_error_at(ch, base + 24, "the metadata offset %llu is "
				    "not inside the chunk (%llu bytes)",
				    (unsigned long long)ch->metadata_offset,
				    (unsigned long long)size);
	if (ch->start_nanos < 0 || ch->duration_nanos < 0 ||
	    ch->duration_nanos > INT64_MAX - ch->start_nanos)
		return jfr_error_at(ch, base + 32, "the chunk's start (%lld ns "
				    "since 1970) and duration (%lld ns) are no time",
				    (long long)ch->start_nanos,
				    (long long)ch->duration_nanos);
	if (ch->ticks_per_second <= 0)
		return jfr_error_at(ch, base + 56, "%lld ticks per second: "
				    "times cannot be read",
				    (long long)ch->ticks_per_second);
	return 0;
}

/* ---- constant pools ---- */

static size_t slot_of(uint64_t key, size_t mask)
{
	return (size_t)pki_hash_u64(key) & mask;
}

ptrdiff_t jfr_pool_find(const struct jfr_pool *pool, uint64_t key)
{
	size_t i;

	if (!pool->count)
		return -1;
	for (i = slot_of(key, pool->mask); pool->at[i]; i = (i + 1) & pool->mask)
		if (pool->keys[i] == key)
			return (ptrdiff_t)i;
	return -1;
}

static int pool_grow(struct jfr_chunk *ch, struct jfr_pool *pool)
{
	size_t cap = pool->mask ? (pool->mask + 1) * 2 : 64, i;
	struct jfr_pool bigger = { 0 };
	const size_t slot_bytes = sizeof(*bigger.keys) + sizeof(*bigger.at) +
				  sizeof(*bigger.memo);
	size_t more = (cap - (pool->mask ? pool->mask + 1 : 0)) * slot_bytes;
	uint64_t limit = pk_context_max_memory(ch->ctx);

	if (ch->pool_bytes + more > limit)
		return pk_error_set(ch->ctx, PK_ENOMEM, "%s: the constant "
				    "pools of chunk %u need more than the "
				    "memory limit of %llu KiB (see --max-memory)",
				    ch->name, ch->index + 1,
				    (unsigned long long)(limit >> 10));
	bigger.keys = malloc(cap * sizeof(*bigger.keys));
	bigger.at = calloc(cap, sizeof(*bigger.at));
	bigger.memo = calloc(cap, sizeof(*bigger.memo));
	if (!bigger.keys || !bigger.at || !bigger.memo) {
		free(bigger.keys);
		free(bigger.at);
		free(bigger.memo);
		return pk_error_set(ch->ctx, PK_ENOMEM, "%s: out of memory", ch->name);
	}
	bigger.mask = cap - 1;
	for (i = 0; pool->mask && i <= pool->mask; i++) {
		size_t k;

		if (!pool->at[i])
			continue;
		for (k = slot_of(pool->keys[i], bigger.mask); bigger.at[k];
		     k = (k + 1) & bigger.mask)
			;
		bigger.keys[k] = pool->keys[i];
		bigger.at[k] = pool->at[i];
	}
	bigger.count = pool->count;
	ch->pool_bytes += more;
	free(pool->keys);
	free(pool->at);
	free(pool->memo);
	*pool = bigger;
	return 0;
}

/* A constant again replaces the one before, as the JVM's parser has it. */
static int pool_put(struct jfr_chunk *ch, struct jfr_pool *pool, uint64_t key,
		    size_t at)
{
	size_t i;
	int rc;

	if ((pool->count + 1) * 2 > (pool->mask ? pool->mask + 1 : 0) &&
	    (rc = pool_grow(ch, pool)))
		return rc;
	for (i = slot_of(key, pool->mask); pool->at[i]; i = (i + 1) & pool->mask)
		if (pool->keys[i] == key)
			break;
	if (!pool->at[i])
		pool->count++;
	pool->keys[i] = key;
	pool->at[i] = at;
	return 0;
}

int jfr_pool_value(const struct jfr_chunk *ch, enum jfr_pool_id id,
		   uint64_t key, struct jfr_cursor *c, ptrdiff_t *slot)
{
	const struct jfr_pool *pool = &ch->pools[id];

	*slot = jfr_pool_find(pool, key);
	if (*slot < 0)
		return 0;
	jfr_cursor_init(c, ch->base + pool->at[*slot], ch->base + ch->size);
	return 1;
}

void jfr_pools_release(struct jfr_chunk *ch)
{
	int i;

	for (i = 0; i < JFR_NPOOLS; i++) {
		free(ch->pools[i].keys);
		free(ch->pools[i].at);
		free(ch->pools[i].memo);
		memset(&ch->pools[i], 0, sizeof(ch->pools[i]));
	}
	ch->pool_bytes = 0;
}

/* The constant pools of one checkpoint event, c after its type id. */
static int read_checkpoint(struct jfr_chunk *ch, struct jfr_cursor *c)
{
	const struct jfr_metadata *md = &ch->md;
	uint64_t npools, i;
	int rc;

	jfr_varint(c);		/* start time */
	jfr_varint(c);		/* duration */
	jfr_varint(c);		/* to the checkpoint before, in bytes */
	jfr_byte(c);		/* flush or chunk-header flags */
	npools = jfr_varint(c);
	for (i = 0; i < npools && !c->fault; i++) {
		const unsigned char *at = c->p;
		uint64_t id = jfr_varint(c), count = jfr_varint(c), k;
		const struct jfr_type *t = jfr_type_of(md, id);
		struct jfr_pool *pool;

		if (c->fault)
			break;
		if (!t)
			return jfr_error_at(ch, at, "a constant pool of type "
					    "id %llu, which the metadata does "
					    "not describe",
					    (unsigned long long)id);
		if (count > (uint64_t)(c->end - c->p))
			jfr_fail(c, "a constant pool's size runs past the end "
				 "of its checkpoint event");
		pool = t->pool ? &ch->pools[t->pool] : NULL;
		for (k = 0; k < count && !c->fault; k++) {
			uint64_t key = jfr_varint(c);

			if (pool && !c->fault &&
			    (rc = pool_put(ch, pool, key, (size_t)(c->p - ch->base))))
				return rc;
			jfr_skip_value(md, (uint32_t)(t - md->types), c, 0);
		}
	}
	return c->fault ? jfr_fault(ch, c) : 0;
}

/*
 * Each event of the chunk in order, to visit with a cursor after its
 * type id and bounded by its size; checkpoint events go to the constant
 * pools instead when pools is set, metadata events nowhere.
 */
int jfr_chunk_walk(struct jfr_chunk *ch, int pools, jfr_visit_fn visit,
		   void *arg)
{
	const unsigned char *p = ch->base + JFR_HEADER_SIZE;
	const unsigned char *end = ch->base + ch->size;
	int rc = 0;

	while (p < end && !rc) {
		struct jfr_cursor c;
		uint64_t size, type;

		jfr_cursor_init(&c, p, end);
		size = jfr_varint(&c);
		if (c.fault)
			return jfr_error_at(ch, p, "the chunk ends inside an "
					    "event's size (truncated chunk?)");
		if (size > (uint64_t)(end - p))
			return jfr_error_at(ch, p, "an event's size %llu runs "
					    "past the end of its chunk (%llu "
					    "bytes are left)",
					    (unsigned long long)size,
					    (unsigned long long)(end - p));
		if (size <= (uint64_t)(c.p - p))
			return jfr_error_at(ch, p, "an event's size %llu is "
					    "smaller than its own header",
					    (unsigned long long)size);
		c.end = p + size;	/* the chunk's end stays the limit */
		type = jfr_varint(&c);
		if (c.fault)
			return jfr_fault(ch, &c);
		if (type == JFR_EVENT_CHECKPOINT) {
			if (pools)
				rc = read_checkpoint(ch, &c);
		} else if (type != JFR_EVENT_METADATA) {
			rc = visit(arg, type, &c, p);
		}
		p += size;
	}
	return rc;
}
