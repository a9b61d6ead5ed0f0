/* SPDX-License-Identifier: MIT */
/* Kernel symbols from kallsyms (kallsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "finder.h"
#include "core/internal.h"
#include "kallsyms.h"
#include "util/strbuf.h"

/* The end of the name at p: a blank, a line end or the text's end. */
static const char *name_end(const char *p)
{
	while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
		p++;
	return p;
}

/* ---- only the symbols that wanted addresses fall in ---- */

/*
 * kallsyms has no sizes: a symbol ends where the next one (of any type)
 * begins; only text symbols are kept, and among aliases a global one
 * wins, then the first. /proc/kallsyms has 100k+ lines, sorted only in
 * parts, while a profile hits a few hundred kernel addresses: rather
 * than sort them all, one pass keeps, per wanted address, the greatest
 * start at or below it and the least above it. Each line lands in the
 * slot of the first wanted address at or above its start (a candidate
 * start there, and the following start of the slot before); a prefix
 * maximum and a suffix minimum then give every address its symbol.
 * Which line is first is said by its offset in the file, so that a file
 * scanned in parts, each into slots of its own, merges into the slots
 * one pass would have made (see "two hands" below).
 */
struct slot {
	uint64_t start;		/* the greatest start in this slot */
	uint64_t after;		/* the least start above this slot's address */
	uint64_t rank;		/* the start's: class << 62 | line offset */
	size_t name;		/* into the scan's names */
	const char *pending;	/* or its name, still in the read buffer */
	int has_start, has_after;
};

struct scan {
	const uint64_t *want;	/* sorted, distinct */
	size_t nwant;
	struct slot *slots;
	size_t *pending;	/* slots with a pending name */
	size_t npending;
	struct pk_strbuf names;	/* NUL-terminated */
	size_t lines;		/* symbol lines */
	size_t hint;		/* the last line's slot: sorted runs stay in it */
	uint64_t hi_text;	/* the last fast-read address's first digits */
	int64_t hi;		/* and their value, or -1 */
	int all_zero;
};

#define RANK_CLASS(rank) ((rank) >> 62)

/*
 * Eight lowercase hex digits at p as a number, or -1 for any other byte:
 * all eight at once, a byte per digit in a 64-bit word (kallsyms has a
 * hundred thousand lines to go through). Each byte's value is its low
 * nibble, plus 9 for a letter; a byte is a digit when that value is
 * below 16 and writes back as the byte itself. Then the nibbles pair up.
 */
static inline int64_t hex8(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t x, v;

	memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);	/* p[0] the low byte, on any host */
#endif
	v = (x & 0x0f * ones) + (x >> 6 & ones) * 9;
	if ((v + 0x70 * ones) & 0x80 * ones ||
	    v + 0x30 * ones + ((v + 0x06 * ones) >> 4 & ones) * 39 != x)
		return -1;
	v = (v & 0x00ff00ff00ff00ffULL) << 4 | (v >> 8 & 0x00ff00ff00ff00ffULL);
	v = (v & 0x0000ffff0000ffffULL) << 8 | (v >> 16 & 0x0000ffff0000ffffULL);
	return (int64_t)((v & 0xffff) << 16 | (v >> 32 & 0xffff));
}

/* The address a line of len bytes starts with, as sym_parse_hex reads
 * it; moves *pp. Mostly 16 lowercase digits and a blank, the first
 * eight those of the line before ("ffffffff"): their value is kept. */
static inline int scan_hex(struct scan *sc, char **pp, size_t len,
			   uint64_t *v)
{
	const unsigned char *p = (const unsigned char *)*pp;
	int64_t hi, lo;
	uint64_t text;

	if (len > 16 && p[16] == ' ') {
		memcpy(&text, p, 8);
		if (text != sc->hi_text) {
			sc->hi_text = text;
			sc->hi = hex8(p);
		}
		if ((hi = sc->hi) >= 0 && (lo = hex8(p + 8)) >= 0) {
			*v = (uint64_t)hi << 32 | (uint64_t)lo;
			*pp += 16;
			return 0;
		}
	}
	return sym_parse_hex(pp, v);
}

/* Copy the names still in the read buffer, before it moves on. */
static int keep_pending(struct scan *sc)
{
	size_t i;

	for (i = 0; i < sc->npending; i++) {
		struct slot *s = &sc->slots[sc->pending[i]];
		const char *name = s->pending;

		s->name = sc->names.len;
		s->pending = NULL;
		if (pki_strbuf_add(&sc->names, name,
				   (size_t)(name_end(name) - name)) ||
		    pki_strbuf_add(&sc->names, "", 1))
			return -1;
	}
	sc->npending = 0;
	return 0;
}

/* The slot of addr: that of the first wanted address at or above it. */
static size_t slot_of(struct scan *sc, uint64_t addr)
{
	size_t k = sc->hint, hi = sc->nwant;

	if ((k == 0 || sc->want[k - 1] < addr) &&
	    (k == sc->nwant || addr <= sc->want[k]))
		return k;
	k = 0;
	while (k < hi) {
		size_t mid = k + (hi - k) / 2;

		if (sc->want[mid] < addr)
			k = mid + 1;
		else
			hi = mid;
	}
	return sc->hint = k;
}

/* Offer slot s a start of the given rank: the greatest start wins, and
 * among equal ones the least rank. Whether it was taken. */
static int offer_start(struct slot *s, uint64_t start, uint64_t rank)
{
	if (s->has_start && (start < s->start ||
			     (start == s->start && rank >= s->rank)))
		return 0;
	s->start = start;
	s->rank = rank;
	s->has_start = 1;
	return 1;
}

static void offer_after(struct slot *s, uint64_t after)
{
	if (!s->has_after || after < s->after) {
		s->after = after;
		s->has_after = 1;
	}
}

/* "ffffffff81000000 T _text" or "ffffffffc0a01000 t fn\t[module]" at
 * offset pos of the file, NUL-terminated, its name left in place until
 * keep_pending. */
static void scan_line(struct scan *sc, char *p, size_t len, uint64_t pos)
{
	uint64_t addr, rank;
	size_t k;

	if (scan_hex(sc, &p, len, &addr) || *p != ' ' || !p[1] || p[2] != ' ' ||
	    !p[3] || p[3] == ' ' || p[3] == '\t' || p[3] == '\r')
		return;		/* not a symbol, or no name */
	rank = p[1] == 'T' || p[1] == 'W' ? 0 :
		p[1] == 't' || p[1] == 'w' ? 1 : 2;
	rank = rank << 62 | pos;
	sc->lines++;
	if (addr)
		sc->all_zero = 0;
	k = slot_of(sc, addr);
	if (k > 0)
		offer_after(&sc->slots[k - 1], addr);
	if (k == sc->nwant || !offer_start(&sc->slots[k], addr, rank))
		return;
	if (!sc->slots[k].pending)
		sc->pending[sc->npending++] = k;
	sc->slots[k].pending = p + 3;
}

/* The longest line read: no kallsyms line comes near it, longer ones
 * are skipped. A buffer of LINE_MAX + 1 bytes holds it. */
enum { LINE_MAX_BYTES = (1 << 16) - 1 };

/*
 * Feed the lines that begin in [from, to) of the file at fd to
 * scan_line, a buffer at a time (/proc/kallsyms is not mmap'able, and a
 * copy would be megabytes): with pread, or with read from the start
 * when seq (/proc/kallsyms has no offsets to read at). buf has
 * LINE_MAX_BYTES + 2 bytes. 0, or -1 on a read error or no memory.
 */
static int scan_range(struct scan *sc, int fd, int seq, uint64_t from,
		      uint64_t to, char *buf)
{
	enum { BUF = LINE_MAX_BYTES + 1 };
	uint64_t off = from ? from - 1 : 0;	/* of buf[0] */
	size_t len = 0;
	int skipping = 0, at_line = from == 0;
	char *p, *nl;

	for (;;) {
		ssize_t n = seq ? read(fd, buf + len, BUF - len) :
			pread(fd, buf + len, BUF - len, (off_t)(off + len));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		p = buf;
		if (!at_line) {	/* the byte before from, or a line across it */
			if (!(nl = memchr(buf, '\n', len))) {
				if (n == 0)
					return 0;
				off += len;
				len = 0;
				continue;
			}
			p = nl + 1;
			at_line = 1;
		}
		while (off + (uint64_t)(p - buf) < to &&
		       (nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
			*nl = '\0';
			if (!skipping)
				scan_line(sc, p, (size_t)(nl - p),
					  off + (uint64_t)(p - buf));
			skipping = 0;
			p = nl + 1;
		}
		if (n == 0 && !skipping && p < buf + len &&
		    off + (uint64_t)(p - buf) < to)
			scan_line(sc, p, len - (size_t)(p - buf),
				  off + (uint64_t)(p - buf));
		if (keep_pending(sc) < 0)
			return -1;
		if (n == 0 || off + (uint64_t)(p - buf) >= to)
			return 0;
		if (p == buf && len == BUF) {	/* a line too long to be one */
			skipping = 1;
			off += len;
			len = 0;
			continue;
		}
		off += (uint64_t)(p - buf);
		len -= (size_t)(p - buf);
		memmove(buf, p, len);
	}
}

/*
 * Two hands: a regular file is scanned in parts of PART bytes, by the
 * prefetch thread from the front and, once the symbolizer gets to
 * waiting for the table, by it from the back, until they meet. Each hand
 * has slots of its own; the back's then merge into the front's, the line
 * offsets in the ranks settling ties as one pass would. /proc/kallsyms,
 * read only from its start, is one part.
 */
enum { PART = 1 << 18 };

struct kallsyms_scan {
	struct symtab *tab;	/* the result, its path set */
	int fd, seq;
	size_t nparts;
	pthread_mutex_t lock;
	size_t front, back;	/* parts not yet taken: [front, back) */
	struct scan hand[2];
	int failed;		/* a hand could not read or allocate */
};

static int scan_init(struct scan *sc, const uint64_t *want, size_t n)
{
	memset(sc, 0, sizeof(*sc));
	sc->want = want;
	sc->nwant = n;
	sc->all_zero = 1;
	sc->hi = -1;	/* of hi_text 0: no line's digits */
	sc->slots = calloc(n ? n : 1, sizeof(*sc->slots));
	sc->pending = malloc((n ? n : 1) * sizeof(*sc->pending));
	return sc->slots && sc->pending ? 0 : -1;
}

static void scan_free(struct scan *sc)
{
	free(sc->slots);
	free(sc->pending);
	free(sc->names.s);
}

/* Hand 0 (the front) or 1 (the back) scans parts until none is left,
 * into buf of LINE_MAX_BYTES + 2 bytes, or fails the job without one. */
static void job_work(struct kallsyms_scan *j, int hand, char *buf)
{
	int failed = !buf;

	for (;;) {
		size_t part;
		uint64_t from, to;

		pthread_mutex_lock(&j->lock);
		if (failed)
			j->failed = 1;
		if (j->failed || j->front == j->back) {
			pthread_mutex_unlock(&j->lock);
			break;
		}
		part = hand ? --j->back : j->front++;
		pthread_mutex_unlock(&j->lock);
		from = (uint64_t)part * PART;
		to = part + 1 == j->nparts ? UINT64_MAX : from + PART;
		failed = scan_range(&j->hand[hand], j->fd, j->seq, from, to,
				    buf) < 0;
	}
}

/* job_work with a buffer from the heap. */
static void job_work_heap(struct kallsyms_scan *j, int hand)
{
	char *buf = malloc(LINE_MAX_BYTES + 2);

	job_work(j, hand, buf);
	free(buf);
}

/* The back hand's slots into the front's: 0, or -1 when out of memory. */
static int merge_hands(struct scan *front, const struct scan *back)
{
	size_t k;

	for (k = 0; k < front->nwant; k++) {
		const struct slot *b = &back->slots[k];
		struct slot *f = &front->slots[k];

		if (b->has_after)
			offer_after(f, b->after);
		if (!b->has_start || !offer_start(f, b->start, b->rank))
			continue;
		f->name = front->names.len;
		if (pki_strbuf_adds(&front->names, back->names.s + b->name) ||
		    pki_strbuf_add(&front->names, "", 1))
			return -1;
	}
	front->lines += back->lines;
	front->all_zero &= back->all_zero;
	return 0;
}

/* The table of the scanned symbols holding the wanted addresses. */
static int scan_table(struct scan *sc, struct symtab *t)
{
	size_t j, at = SIZE_MAX, *name = malloc((sc->nwant + 1) * sizeof(*name));

	if (!name)
		return -1;
	for (j = sc->nwant; j-- > 1;)	/* the suffix minimum */
		if (sc->slots[j].has_after)
			offer_after(&sc->slots[j - 1], sc->slots[j].after);
	for (j = 0; j < sc->nwant; j++) {
		const struct slot *s;
		uint64_t end;

		if (sc->slots[j].has_start)
			at = j;	/* its starts are above all earlier slots' */
		if (at == SIZE_MAX || RANK_CLASS(sc->slots[at].rank) == 2)
			continue;
		s = &sc->slots[at];
		end = sc->slots[j].has_after ? sc->slots[j].after :
			(s->start | 0xfff) + 0x1001;
		if (sc->want[j] >= end ||
		    (t->n && t->v[t->n - 1].start == s->start))
			continue;
		name[t->n] = s->name;
		if (symtab_push(t, s->start, end, NULL, s->rank)) {
			free(name);
			return -1;
		}
		t->v[t->n - 1].sized = 0;
	}
	t->text = sc->names.s;	/* the names, now that they stay put */
	sc->names.s = NULL;
	for (j = 0; j < t->n; j++)
		t->v[j].name = t->text + name[j];
	t->hidden = sc->lines && sc->all_zero;
	free(name);
	return 0;
}

static void job_free(struct kallsyms_scan *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	scan_free(&j->hand[0]);
	scan_free(&j->hand[1]);
	symtab_free(j->tab);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

/* A scan of kallsyms file path for the n sorted distinct addresses
 * want, no part taken yet; NULL when it cannot be read. */
static struct kallsyms_scan *job_new(const char *path, const uint64_t *want, size_t n)
{
	struct kallsyms_scan *j = calloc(1, sizeof(*j));
	struct stat st;

	if (!j)
		return NULL;
	j->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (pthread_mutex_init(&j->lock, NULL)) {
		if (j->fd >= 0)
			close(j->fd);
		free(j);
		return NULL;
	}
	if (j->fd < 0 || fstat(j->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !(j->tab = calloc(1, sizeof(*j->tab))) ||
	    !(j->tab->path = strdup(path)) ||
	    scan_init(&j->hand[0], want, n) || scan_init(&j->hand[1], want, n)) {
		job_free(j);
		return NULL;
	}
	/* /proc files are regular, of size 0, and read only in order */
	j->seq = st.st_size == 0;
	j->nparts = j->seq ? 1 : ((uint64_t)st.st_size + PART - 1) / PART;
	j->back = j->nparts;
	return j;
}

/* The table the job's hands made (the job freed), or NULL. */
static struct symtab *job_finish(struct kallsyms_scan *j)
{
	struct symtab *t = NULL;

	if (!j->failed && !merge_hands(&j->hand[0], &j->hand[1]) &&
	    !scan_table(&j->hand[0], j->tab)) {
		t = j->tab;
		j->tab = NULL;
	}
	job_free(j);
	return t;
}

/* The symbols of kallsyms file path that hold any of the n sorted
 * distinct addresses want, or NULL when it cannot be read. */
static struct symtab *scan_kallsyms(const char *path, const uint64_t *want,
				    size_t n)
{
	struct kallsyms_scan *j = job_new(path, want, n);

	if (!j)
		return NULL;
	job_work_heap(j, 0);
	return job_finish(j);
}

/* The running kernel's build id, from its ELF notes, or "". */
static char *running_kernel_build_id(void)
{
	char *data, *out = NULL;
	size_t size, off = 0;

	if (sym_slurp("/sys/kernel/notes", 1 << 20, &data, &size))
		return strdup("");
	while (!out && size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, data + off, 4);
		memcpy(&descsz, data + off + 4, 4);
		memcpy(&type, data + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > size || descsz > size || desc_off > size ||
		    descsz > size - desc_off)
			break;
		if (type == 3 && namesz == 4 &&
		    memcmp(data + name_off, "GNU", 4) == 0 && descsz <= 64 &&
		    (out = malloc(2 * descsz + 1)))
			sym_build_id_hex((unsigned char *)data + desc_off,
					 descsz, out);
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	free(data);
	return out ? out : strdup("");
}

/* perf record's copy of kallsyms in its build-id cache (malloc'd), or NULL. */
static char *cached_kallsyms(const struct sym_kernel *k, const char *bid)
{
	char sub[160];
	size_t size;
	char *path;

	sym_build_id_subpath(bid, sub, sizeof(sub));
	if (!*sub || !k->home_debug)
		return NULL;
	size = strlen(k->home_debug) + strlen(sub) + sizeof("/kallsyms");
	path = malloc(size);
	if (path)
		snprintf(path, size, "%s%s/kallsyms", k->home_debug, sub);
	return path;
}

/* Was the recording made on the running kernel? Its build id says
 * better than the caller (local_kernel). */
static int kernel_is_running(struct sym_kernel *k, const char *bid)
{
	if (*bid) {
		if (!k->running_build_id)
			k->running_build_id = running_kernel_build_id();
		if (k->running_build_id && *k->running_build_id)
			return sym_build_id_matches(bid, k->running_build_id);
	}
	return k->local_kernel;
}

/* ---- kallsyms on a thread ---- */

/*
 * Reading /proc/kallsyms is mostly the kernel's time writing it, and
 * inflating a library's compressed debug sections is mostly ours: the
 * symbolizer does the one on a thread while doing the other. The thread
 * only reads and scans into a job of its own (k->want stays as it is
 * until the join); kernel_table adopts it when it gets there, lending a
 * hand with what is left of a regular file before it joins.
 */
static void *prefetch_main(void *arg)
{
	/* on the thread's stack, which goes when the thread does: from
	 * malloc, it would stay in the thread's arena to the end */
	char buf[LINE_MAX_BYTES + 2];

	job_work(arg, 0, buf);
	return NULL;
}

void sym_kernel_join(struct sym_kernel *k)
{
	if (k->prefetch.running)
		pthread_join(k->prefetch.thread, NULL);
	k->prefetch.running = 0;
}

/* The prefetched table of path, if that is what the thread reads. */
static struct symtab *prefetched(struct sym_kernel *k, const char *path)
{
	struct kallsyms_scan *j = k->prefetch.job;

	if (!j || !k->prefetch.path || strcmp(k->prefetch.path, path) != 0)
		return NULL;
	job_work_heap(j, 1);
	sym_kernel_join(k);
	k->prefetch.job = NULL;
	return job_finish(j);
}

void sym_kernel_prefetch(struct sym_kernel *k, const char *bid)
{
	const char *path = k->kallsyms;
	char *cache = NULL;

	if (k->prefetch.path)
		return;
	if (!path && (cache = cached_kallsyms(k, bid)) &&
	    access(cache, R_OK) == 0)
		path = cache;
	if (!path && kernel_is_running(k, bid))
		path = "/proc/kallsyms";
	if (path && access(path, R_OK) == 0 &&
	    (k->prefetch.path = strdup(path)) &&
	    (k->prefetch.job = job_new(path, k->want, k->nwant))) {
		if (pthread_create(&k->prefetch.thread, NULL, prefetch_main,
				   k->prefetch.job) == 0)
			k->prefetch.running = 1;
	}
	free(cache);
}

/* ---- tables, each answering for the addresses it was scanned for ---- */

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sort and drop repeats; the new count. */
static size_t sort_distinct(uint64_t *v, size_t n)
{
	size_t i, kept = 0;

	qsort(v, n, sizeof(*v), compare_u64);
	for (i = 0; i < n; i++)
		if (!kept || v[kept - 1] != v[i])
			v[kept++] = v[i];
	return kept;
}

/*
 * t scanned again, for the addresses now wanted, in place: the objects of
 * an earlier profile hold it. When it cannot be, it stays as it was (the
 * new addresses are then not found).
 */
static void rescan(struct sym_kernel *k, struct symtab *t)
{
	struct symtab *fresh = scan_kallsyms(t->path, k->want, k->nwant), old;

	if (!fresh)
		return;
	old = *t;
	*t = *fresh;
	*fresh = old;
	symtab_free(fresh);
}

int sym_kernel_want(struct sym_kernel *k, const uint64_t *addrs, size_t n)
{
	size_t i;

	sym_kernel_join(k);
	job_free(k->prefetch.job);	/* not adopted: for other addresses */
	k->prefetch.job = NULL;
	k->nwant = 0;
	if (!n)	/* addrs may be NULL: memcpy and qsort must not see it */
		return 0;
	if (pki_grow(&k->want, &k->want_cap, n, sizeof(*k->want)) < 0)
		return -1;
	memcpy(k->want, addrs, n * sizeof(*addrs));
	k->nwant = sort_distinct(k->want, n);
	/* a symbolizer used again: its tables hold another profile's symbols */
	for (i = 0; i < k->ntabs; i++)
		rescan(k, k->tabs[i]);
	return 0;
}

/* The table of path, answering for the wanted addresses. */
static struct symtab *kernel_table(struct sym_kernel *k, const char *path)
{
	struct symtab *t;
	size_t i;

	for (i = 0; i < k->ntabs; i++)
		if (strcmp(k->tabs[i]->path, path) == 0)
			return k->tabs[i];
	if (access(path, R_OK) != 0 ||
	    pki_grow(&k->tabs, &k->tabs_cap, k->ntabs + 1,
		     sizeof(*k->tabs)) < 0)
		return NULL;
	t = prefetched(k, path);
	if (!t)
		t = scan_kallsyms(path, k->want, k->nwant);
	if (t)
		k->tabs[k->ntabs++] = t;
	return t;
}

/*
 * Kernel symbols, best source first: --kallsyms, perf's build-id cache
 * (a copy of kallsyms made at record time), then /proc/kallsyms when the
 * recording is of the running kernel.
 */
static struct symtab *find_table(struct sym_kernel *k, const char *bid,
				 struct sym_tried *tried)
{
	struct symtab *t = NULL;
	char *path, why[128];

	if (k->kallsyms && !(t = kernel_table(k, k->kallsyms)))
		sym_tried_add(tried, k->kallsyms, "unreadable");
	if (!t && (path = cached_kallsyms(k, bid))) {
		t = kernel_table(k, path);
		if (!t)
			sym_tried_add(tried, path, NULL);
		free(path);
	}
	if (t)
		return t;
	if (kernel_is_running(k, bid))
		return kernel_table(k, "/proc/kallsyms");
	if (*bid && k->running_build_id && *k->running_build_id) {
		snprintf(why, sizeof(why), "of build id %s",
			 k->running_build_id);
		sym_tried_add(tried, "/proc/kallsyms", why);
	}
	return NULL;
}

const struct symtab *sym_kernel_symbols(struct sym_kernel *k,
					const char *file, const char *bid)
{
	struct sym_tried tried = { .len = 0 };
	struct symtab *t = find_table(k, bid, &tried);

	if (t && t->hidden) {
		PK_WARN_AT_MOST(k->ctx, &k->warned, 1, "symbolize: every "
				"address in '%s' is 0 (kernel.kptr_restrict): "
				"kernel frames stay unsymbolized", t->path);
		return NULL;
	}
	if (t)
		return t;
	PK_WARN_AT_MOST(k->ctx, &k->warned, 1, "symbolize: no kernel symbols "
			"for '%s'%s%s%s: give --kallsyms=FILE (a copy of the "
			"recording machine's /proc/kallsyms)%s%s", file,
			*bid ? " (build id " : "", bid, *bid ? ")" : "",
			tried.len ? "; tried " : "", tried.buf);
	return NULL;
}

void sym_kernel_init(struct sym_kernel *k, struct pk_context *ctx,
		     const char *kallsyms, const char *home_debug,
		     int local_kernel)
{
	memset(k, 0, sizeof(*k));
	k->ctx = ctx;
	k->kallsyms = kallsyms;
	k->home_debug = home_debug;
	k->local_kernel = local_kernel;
}

void sym_kernel_release(struct sym_kernel *k)
{
	size_t i;

	sym_kernel_join(k);
	job_free(k->prefetch.job);
	free(k->prefetch.path);
	for (i = 0; i < k->ntabs; i++)
		symtab_free(k->tabs[i]);
	free(k->tabs);
	free(k->want);
	free(k->running_build_id);
}
