/* SPDX-License-Identifier: MIT */
/* Plain copies of compressed debug files (debug-cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include <zlib.h>

#include "debug-cache.h"
#include "debug-units.h"
#include "elf-symbols.h"
#include "finder.h"
#include "core/internal.h"

/* Debug files whose DWARF inflates to more than this are not copied. */
#define PLAIN_MAX ((uint64_t)1 << 30)

/*
 * The section headers of a file in the layout this machine reads
 * natively, ELF64 in its byte order (they are patched as plain structs):
 * a malloc'd copy and their number, or NULL.
 */
static Elf64_Shdr *native_sections(Elf *elf, const unsigned char *image,
				   size_t size, size_t *nsec)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	size_t n;

	if (!image || size < sizeof(eh) || gelf_getclass(elf) != ELFCLASS64)
		return NULL;
	memcpy(&eh, image, sizeof(eh));
	if (eh.e_ident[EI_DATA] != HOST_ELFDATA ||
	    elf_getshdrnum(elf, &n) < 0 || n == 0 || eh.e_shnum != n ||
	    eh.e_shentsize != sizeof(*sh) || eh.e_shoff > size ||
	    n > (size - eh.e_shoff) / sizeof(*sh) ||
	    !(sh = malloc(n * sizeof(*sh))))
		return NULL;
	memcpy(sh, image + eh.e_shoff, n * sizeof(*sh));
	*nsec = n;
	return sh;
}

/* Whether sh is a zlib-compressed (ELFCOMPRESS_ZLIB) section; its
 * header in *ch. */
static int zlib_section(const unsigned char *image, size_t size,
			const Elf64_Shdr *sh, Elf64_Chdr *ch)
{
	if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS ||
	    sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
	    sh->sh_size < sizeof(*ch))
		return 0;
	memcpy(ch, image + sh->sh_offset, sizeof(*ch));
	return ch->ch_type == ELFCOMPRESS_ZLIB;
}

/*
 * Whether a plain copy can be made and then used: some section
 * zlib-compressed, every compressed one zlib (one left compressed, as a
 * zstd one would be, makes a copy plain_and_whole refuses), each small
 * enough to inflate in one go and no more than PLAIN_MAX in all. Decided
 * before a byte is written, not found out after the copy is made.
 */
static int worth_a_copy(const unsigned char *image, size_t size,
			const Elf64_Shdr *sh, size_t nsec)
{
	uint64_t inflated = 0;
	Elf64_Chdr ch;
	size_t i;
	int any = 0;

	for (i = 0; i < nsec; i++) {
		if (!(sh[i].sh_flags & SHF_COMPRESSED))
			continue;
		if (!zlib_section(image, size, &sh[i], &ch) ||
		    sh[i].sh_size > UINT32_MAX || ch.ch_addralign > 4096 ||
		    ch.ch_size > PLAIN_MAX - inflated)
			return 0;
		inflated += ch.ch_size;
		any = 1;
	}
	return any;
}

/* What a copy leaves out of the file's sections. */
enum leave_out {
	KEEP_ALL,		/* a copy in the cache, for any later use */
	LEAVE_UNREAD,		/* in memory: what nothing here reads */
	LEAVE_UNREAD_LINES,	/* the same, names alone being wanted */
};

/*
 * Sections nothing here reads (location lists and macros are for
 * debuggers), and with names_only the line programs (libc's 1.3 MB,
 * half of what its copy inflates besides .debug_info): a copy kept in
 * memory leaves them out, as SHT_NOBITS, which libdw passes over. One
 * in the cache keeps them.
 */
static int unread_section(const char *name, enum leave_out leave)
{
	static const char *const unread[] = {
		".debug_loc", ".debug_loclists", ".debug_macro", ".debug_macinfo",
	};
	size_t i;

	if (!name)
		return 0;
	if (leave == LEAVE_UNREAD_LINES && strcmp(name, ".debug_line") == 0)
		return 1;
	for (i = 0; i < sizeof(unread) / sizeof(unread[0]); i++)
		if (strcmp(name, unread[i]) == 0)
			return 1;
	return 0;
}

/* One stretch of the copy: bytes of the file, or a section's stream
 * inflated there. */
struct plain_part {
	uint64_t from, size;	/* in the file: the bytes, or the stream */
	uint64_t to, to_size;	/* in the copy */
	int inflate;
};

/* The bytes of a compressed section: what the copy leaves out. */
struct byte_range {
	uint64_t from, to;
};

static int range_cmp(const void *a, const void *b)
{
	const struct byte_range *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Largest first, so that the two workers finish near each other. */
static int part_cmp(const void *a, const void *b)
{
	const struct plain_part *x = a, *y = b;

	return x->to_size > y->to_size ? -1 : x->to_size < y->to_size;
}

#ifdef HAVE_LIBDEFLATE
/* A zlib stream into exactly out_size bytes at out: 0 or -1. */
static int inflate_into(const unsigned char *in, size_t in_size,
			unsigned char *out, size_t out_size)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t got = 0;
	int rc = -1;

	if (d && libdeflate_zlib_decompress(d, in, in_size, out, out_size,
					    &got) == LIBDEFLATE_SUCCESS &&
	    got == out_size)
		rc = 0;
	libdeflate_free_decompressor(d);
	return rc;
}
#else
static int inflate_into(const unsigned char *in, size_t in_size,
			unsigned char *out, size_t out_size)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (in_size > UINT_MAX || out_size > UINT_MAX || inflateInit(&z) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)in_size;
	z.next_out = out;
	z.avail_out = (uInt)out_size;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	return rc == Z_STREAM_END && z.avail_out == 0 ? 0 : -1;
}
#endif

struct info_cut;

/* The parts of a copy being made, shared by the threads making it. */
struct plain_work {
	const unsigned char *image;
	int fd;			/* the copy's */
	int in_memory;		/* fd is no file on disk */
	unsigned char *map;	/* its mapping */
	size_t size;		/* the file's */
	const Elf64_Shdr *file_sh;	/* its section headers */
	struct plain_part *parts;
	size_t nparts, next;
	struct info_cut *cut;	/* .debug_info, made as far as asked, or NULL */
	int failed;
	pthread_mutex_t lock;
};

/* On disk, the blocks of n bytes at offset at of the copy taken now: not
 * a SIGBUS from a full disk while writing through the mapping. */
static int make_room(const struct plain_work *w, uint64_t at, uint64_t n)
{
	if (w->in_memory || n == 0)
		return 0;
	return posix_fallocate(w->fd, (off_t)at, (off_t)n) != 0 ? -1 : 0;
}

/* ---- .debug_info cut after the units asked for (in memory) ---- */

/* The addresses a job's copy is asked about (sym_debug_plain_ask), all
 * of them once asked_all is set (sym_debug_plain_finish). */
struct sym_debug_job {
	const char *cache_dir;
	int in_memory, names_only, fd, plain, cut;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t asked;	/* signalled when asked_all is set */
	uint64_t *addrs;
	size_t naddrs, addrs_cap;
	int asked_all, ask_failed;
};

/*
 * A copy in memory whose addresses are asked for makes its .debug_info
 * (libc's is 5.8 MB, one zlib stream, mostly not read) on one worker
 * once they are all asked: with zlib only as far as the last unit they
 * need (debug-units.h), or whole with libdeflate, twice zlib's speed but
 * for whole streams only, where they need most of it.
 */
struct info_cut {
	struct sym_debug_job *job;
	const struct plain_part *part;	/* the section's stream */
	size_t info_sec, aranges_sec, abbrev_sec;
	unsigned char *aranges;	/* the file's .debug_aranges, plain */
	size_t aranges_size;
	z_stream z;
	int z_live;
	uint64_t end;		/* the copy's .debug_info: its size, or less */
	struct sym_units units;
	int others_made;	/* the copy's other parts (job->lock) */
};


static uint64_t info_made(const struct info_cut *c)
{
	return c->z_live ? (uint64_t)c->z.total_out : 0;
}

/* The section's stream inflated with zlib as far as to: 0, or -1. */
static int info_inflate_to(const struct plain_work *w, struct info_cut *c,
			   uint64_t to)
{
	z_stream *z = &c->z;
	int rc;

	if (!c->z_live) {
		memset(z, 0, sizeof(*z));
		if (inflateInit(z) != Z_OK)
			return -1;
		c->z_live = 1;
		z->next_in = (unsigned char *)w->image + c->part->from;
		z->avail_in = (uInt)c->part->size;
	}
	if (to > c->part->to_size)
		to = c->part->to_size;
	while (z->total_out < to) {
		z->next_out = w->map + c->part->to + z->total_out;
		z->avail_out = (uInt)(to - z->total_out);
		rc = inflate(z, Z_SYNC_FLUSH);
		if (rc == Z_STREAM_END)
			return z->total_out == c->part->to_size ? 0 : -1;
		if (rc != Z_OK)
			return -1;
	}
	return 0;
}

static int info_whole(const struct plain_work *w, struct info_cut *c)
{
	c->end = c->part->to_size;
#ifdef HAVE_LIBDEFLATE
	if (2 * info_made(c) < c->part->to_size)
		return inflate_into(w->image + c->part->from, c->part->size,
				    w->map + c->part->to, c->part->to_size);
#endif
	return info_inflate_to(w, c, c->part->to_size);
}

/* Whether the zlib stream should go on to the byte at, rather than
 * the whole be inflated again by something faster. */
static int worth_going_on(const struct info_cut *c, uint64_t at)
{
#ifdef HAVE_LIBDEFLATE
	return at <= info_made(c) || 2 * (at - info_made(c)) < c->part->to_size;
#else
	(void)c;
	(void)at;
	return 1;
#endif
}

/* Bytes of .debug_info inflated at a time before the addresses are
 * all asked. */
#define AHEAD_STEP ((uint64_t)256 << 10)

/*
 * Once every address is asked (sym_debug_plain_finish): meanwhile, once
 * the copy's other parts are made, the stream's first half inflated
 * with zlib a step at a time, on a core that would idle while the
 * perf.data reader unwinds. The units the addresses need lie in it or
 * after it (libc's, at half its 5.8 MB, were all the inflating left
 * after the last address); beyond it libdeflate's whole would be as
 * quick. 0, or -1.
 */
static int inflate_until_asked(const struct plain_work *w, struct info_cut *c)
{
	struct sym_debug_job *job = c->job;
	int ahead;

	for (;;) {
		pthread_mutex_lock(&job->lock);
		while (!job->asked_all && !c->others_made)
			pthread_cond_wait(&job->asked, &job->lock);
		ahead = !job->asked_all;
		pthread_mutex_unlock(&job->lock);
		if (!ahead || 2 * info_made(c) >= c->part->to_size)
			break;
		if (info_inflate_to(w, c, info_made(c) + AHEAD_STEP))
			return -1;
	}
	pthread_mutex_lock(&job->lock);
	while (!job->asked_all)
		pthread_cond_wait(&job->asked, &job->lock);
	pthread_mutex_unlock(&job->lock);
	return 0;
}

/* The copy's parts other than .debug_info made: say so to the thread
 * waiting with it for the addresses. */
static void others_made(struct info_cut *c)
{
	pthread_mutex_lock(&c->job->lock);
	c->others_made = 1;
	pthread_cond_broadcast(&c->job->asked);
	pthread_mutex_unlock(&c->job->lock);
}

/* The units the asked addresses are in, from the file's .debug_aranges
 * (sec, inflated here when compressed): 0, or -1. */
static int units_asked(const struct plain_work *w, struct info_cut *c,
		       const Elf64_Shdr *sec, size_t size)
{
	const struct sym_debug_job *job = c->job;
	Elf64_Chdr ch;

	if (!job->naddrs || job->ask_failed)
		return -1;
	if (zlib_section(w->image, size, sec, &ch)) {
		c->aranges = malloc(ch.ch_size ? ch.ch_size : 1);
		if (!c->aranges ||
		    inflate_into(w->image + sec->sh_offset + sizeof(ch),
				 sec->sh_size - sizeof(ch), c->aranges,
				 ch.ch_size))
			return -1;
		c->aranges_size = ch.ch_size;
	} else if (!(sec->sh_flags & SHF_COMPRESSED) && sec->sh_offset <= size &&
		   sec->sh_size <= size - sec->sh_offset &&
		   (c->aranges = malloc(sec->sh_size ? sec->sh_size : 1))) {
		memcpy(c->aranges, w->image + sec->sh_offset, sec->sh_size);
		c->aranges_size = sec->sh_size;
	} else {
		return -1;
	}
	return sym_units_asked(&c->units, c->aranges, c->aranges_size,
			       job->addrs, job->naddrs);
}

/*
 * Make .debug_info, as far as the units asked for (c->end) when that is
 * known to answer them as the whole would: 0, or -1. file_sh: the file's
 * section headers, size its size.
 */
static int make_info(const struct plain_work *w, struct info_cut *c,
		     const Elf64_Shdr *file_sh, size_t size)
{
	const struct sym_debug_job *job = c->job;
	uint64_t last;
	int64_t end;

	/*
	 * Nothing is made ahead while the copy's other parts are: on two
	 * cores, beside the perf.data reader's unwinding, that slowed the
	 * unwinding more than it saved later.
	 */
	if (inflate_until_asked(w, c))
		return -1;
	if (units_asked(w, c, &file_sh[c->aranges_sec], size))
		return info_whole(w, c);
	last = c->units.units[c->units.nunits - 1];
	if (!worth_going_on(c, last + 12))
		return info_whole(w, c);
	if (info_inflate_to(w, c, last + 12))
		return -1;
	end = sym_unit_end(w->map + c->part->to, info_made(c), last);
	if (end <= 0 || (uint64_t)end > c->part->to_size ||
	    !worth_going_on(c, (uint64_t)end) ||
	    !sym_units_cut_answers(&c->units, (uint64_t)end, job->addrs,
				   job->naddrs))
		return info_whole(w, c);
	c->end = (uint64_t)end;
	return info_inflate_to(w, c, c->end);
}

/*
 * After every part is made: a cut .debug_info whose units point nowhere
 * else is kept, its .debug_aranges left with the units it holds (sh:
 * the copy's section headers, patched); else it is made whole. 0 or -1.
 */
static int finish_info(const struct plain_work *w, struct info_cut *c,
		       Elf64_Shdr *sh)
{
	const Elf64_Shdr *abbrev = &sh[c->abbrev_sec];
	Elf64_Shdr *aranges = &sh[c->aranges_sec];

	if (c->end == c->part->to_size)
		return 0;
	if (!sym_units_self_contained(&c->units, w->map + c->part->to, c->end,
				      w->map + abbrev->sh_offset,
				      abbrev->sh_size))
		return info_whole(w, c);
	aranges->sh_size = sym_aranges_cut(w->map + aranges->sh_offset,
					   aranges->sh_size, c->end);
	sh[c->info_sec].sh_size = c->end;
	return 0;
}

/* A section by name: its index, or 0. */
static size_t section_named(Elf *elf, const Elf64_Shdr *sh, size_t nsec,
			    const char *name)
{
	size_t shstrndx, i;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	for (i = 1; i < nsec; i++) {
		const char *n = elf_strptr(elf, shstrndx, sh[i].sh_name);

		if (n && strcmp(n, name) == 0)
			return sh[i].sh_type == SHT_NOBITS ? 0 : i;
	}
	return 0;
}

/* Set up c for a copy in memory asked about by job, whose .debug_info
 * is compressed and whose aranges and abbreviations are there: 0, or -1
 * (made as any other copy). */
static int plan_cut(struct info_cut *c, struct sym_debug_job *job, Elf *elf,
		    const unsigned char *image, size_t size,
		    const Elf64_Shdr *file_sh, size_t nsec)
{
	Elf64_Chdr ch;

	memset(c, 0, sizeof(*c));
	c->job = job;
	c->info_sec = section_named(elf, file_sh, nsec, ".debug_info");
	c->aranges_sec = section_named(elf, file_sh, nsec, ".debug_aranges");
	c->abbrev_sec = section_named(elf, file_sh, nsec, ".debug_abbrev");
	return job && c->info_sec && c->aranges_sec && c->abbrev_sec &&
	       zlib_section(image, size, &file_sh[c->info_sec], &ch) ? 0 : -1;
}

static void release_cut(struct info_cut *c)
{
	if (c->z_live)
		inflateEnd(&c->z);
	free(c->aranges);
	sym_units_release(&c->units);
}

/* ---- making the copy ---- */

static int make_part(const struct plain_work *w, const struct plain_part *p)
{
	if (make_room(w, p->to, p->to_size))
		return -1;
	if (w->cut && p == w->cut->part)
		return make_info(w, w->cut, w->file_sh, w->size);
	if (p->inflate)
		return inflate_into(w->image + p->from, p->size,
				    w->map + p->to, p->to_size);
	memcpy(w->map + p->to, w->image + p->from, p->size);
	return 0;
}

/* Make parts until none is left: NULL (a thread's start routine). */
static void *make_parts(void *arg)
{
	struct plain_work *w = arg;

	for (;;) {
		struct plain_part *p;

		pthread_mutex_lock(&w->lock);
		p = w->next < w->nparts && !w->failed ? &w->parts[w->next++] : NULL;
		pthread_mutex_unlock(&w->lock);
		if (!p) {
			if (w->cut)
				others_made(w->cut);
			return NULL;
		}
		if (make_part(w, p)) {
			pthread_mutex_lock(&w->lock);
			w->failed = 1;
			pthread_mutex_unlock(&w->lock);
		}
	}
}

/*
 * The parts of the copy: each compressed section inflated after the
 * file's end (its header patched in sh), the file's other bytes where
 * they were (the compressed ones left as a hole). nparts returned, or
 * -1; *end is where the section headers go.
 */
static ssize_t plan_parts(Elf *elf, const unsigned char *image, size_t size,
			  Elf64_Shdr *sh, size_t nsec, enum leave_out leave,
			  struct plain_part *parts, uint64_t *end)
{
	struct byte_range *holes = malloc((nsec + 1) * sizeof(*holes));
	uint64_t at = size, kept = 0;
	size_t i, nholes = 0, shstrndx = 0, n = 0;
	Elf64_Chdr ch;

	if (!holes || (leave != KEEP_ALL && elf_getshdrstrndx(elf, &shstrndx) < 0)) {
		free(holes);
		return -1;
	}
	for (i = 0; i < nsec; i++) {
		if (!zlib_section(image, size, &sh[i], &ch))
			continue;
		holes[nholes].from = sh[i].sh_offset;
		holes[nholes++].to = sh[i].sh_offset + sh[i].sh_size;
		if (leave != KEEP_ALL &&
		    unread_section(elf_strptr(elf, shstrndx, sh[i].sh_name),
				   leave)) {
			sh[i].sh_type = SHT_NOBITS;
		} else {
			if (ch.ch_addralign > 1 && at % ch.ch_addralign)
				at += ch.ch_addralign - at % ch.ch_addralign;
			parts[n++] = (struct plain_part){
				sh[i].sh_offset + sizeof(ch),
				sh[i].sh_size - sizeof(ch), at, ch.ch_size, 1 };
			sh[i].sh_offset = at;
			at += ch.ch_size;
		}
		sh[i].sh_size = ch.ch_size;
		sh[i].sh_addralign = ch.ch_addralign;
		sh[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
	}
	holes[nholes].from = holes[nholes].to = size;
	qsort(holes, nholes + 1, sizeof(*holes), range_cmp);
	for (i = 0; i <= nholes; i++) {
		if (holes[i].from > kept)
			parts[n++] = (struct plain_part){
				kept, holes[i].from - kept, kept,
				holes[i].from - kept, 0 };
		if (holes[i].to > kept)
			kept = holes[i].to;
	}
	free(holes);
	*end = at + (8 - at % 8) % 8;
	return (ssize_t)n;
}

/*
 * The copy in out (an empty file): the file's bytes, each compressed
 * section inflated after them, then the section headers pointing there
 * instead; program headers, notes and symbols stay where they were.
 * Written through a mapping, by two threads: inflating libc's DWARF
 * was most of what a first conversion cost. In memory, the sections
 * nothing reads are left out. The file is one worth_a_copy accepts.
 */
static int write_plain(int out, Elf *elf, const unsigned char *image,
		       size_t size, const Elf64_Shdr *file_sh, size_t nsec,
		       int in_memory, struct sym_debug_job *job)
{
	struct plain_work w = { image, out, in_memory, MAP_FAILED, size, file_sh,
				NULL, 0, 0, NULL, 0, PTHREAD_MUTEX_INITIALIZER };
	enum leave_out leave = !in_memory ? KEEP_ALL :
			       job && job->names_only ? LEAVE_UNREAD_LINES :
			       LEAVE_UNREAD;
	uint64_t shoff = 0, total = 0;
	ssize_t n;
	Elf64_Shdr *sh = malloc(nsec * sizeof(*sh));
	struct info_cut cut;
	pthread_t helper;
	int helping;
	size_t i;

	w.parts = malloc((2 * nsec + 1) * sizeof(*w.parts));
	if (sh)
		memcpy(sh, file_sh, nsec * sizeof(*sh));
	n = w.parts && sh ? plan_parts(elf, image, size, sh, nsec, leave,
				 w.parts, &shoff) : -1;
	total = shoff + nsec * sizeof(*sh);
	if (n < 0 || total > SIZE_MAX || ftruncate(out, (off_t)total) < 0 ||
	    (w.map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED,
			  out, 0)) == MAP_FAILED ||
	    make_room(&w, shoff, total - shoff)) {
		w.failed = 1;
		goto done;
	}
	w.nparts = (size_t)n;
	qsort(w.parts, w.nparts, sizeof(*w.parts), part_cmp);
	if (in_memory && !plan_cut(&cut, job, elf, image, size, file_sh, nsec))
		for (i = 0; i < w.nparts; i++)
			if (w.parts[i].to == sh[cut.info_sec].sh_offset &&
			    w.parts[i].inflate) {
				cut.part = &w.parts[i];
				w.cut = &cut;
			}
	helping = pthread_create(&helper, NULL, make_parts, &w) == 0;
	make_parts(&w);
	if (helping)
		pthread_join(helper, NULL);
	if (w.cut && !w.failed && finish_info(&w, w.cut, sh))
		w.failed = 1;
	memcpy(w.map + shoff, sh, nsec * sizeof(*sh));
	memcpy(w.map + offsetof(Elf64_Ehdr, e_shoff), &shoff, sizeof(shoff));
done:
	if (w.cut)
		release_cut(w.cut);
	if (job && !w.failed)
		job->cut = (w.cut && w.cut->end < w.cut->part->to_size ?
			    SYM_DEBUG_CUT_UNITS : 0) |
			   (leave == LEAVE_UNREAD_LINES ? SYM_DEBUG_CUT_LINES : 0);
	if (w.map != MAP_FAILED)
		munmap(w.map, total);
	free(w.parts);
	free(sh);
	return w.failed ? -1 : 0;
}

/* A whole plain copy: its sections all inside it, none compressed
 * (a copy cut short by a crash is made again). */
static int plain_and_whole(Elf *elf)
{
	const unsigned char *image;
	size_t size = 0, nsec = 0, i;
	Elf64_Shdr *sh;
	int ok;

	image = elf ? (const unsigned char *)elf_rawfile(elf, &size) : NULL;
	sh = native_sections(elf, image, size, &nsec);
	ok = sh != NULL;
	for (i = 0; ok && i < nsec; i++)
		ok = !(sh[i].sh_flags & SHF_COMPRESSED) &&
		     (sh[i].sh_type == SHT_NOBITS ||
		      (sh[i].sh_offset <= size &&
		       sh[i].sh_size <= size - sh[i].sh_offset));
	free(sh);
	return ok;
}

/* A file in the cache of build id bid, if it is one: its fd, or -1. */
static int open_cached(const char *path, const char *bid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char hex[81];
	Elf *elf;
	int ok;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	sym_elf_build_id(elf, hex);
	ok = strcmp(hex, bid) == 0 && plain_and_whole(elf);
	elf_end(elf);
	if (ok)
		return fd;
	close(fd);
	return -1;
}

/* mkdir -p of dir's parent and dir; 0 or -1. */
static int make_dirs(char *dir)
{
	char *slash = strrchr(dir, '/');
	int rc;

	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT || !slash || slash == dir)
		return -1;
	*slash = '\0';
	rc = make_dirs(dir);
	*slash = '/';
	return rc || (mkdir(dir, 0700) < 0 && errno != EEXIST) ? -1 : 0;
}

/* Write the plain copy of image as path, atomically: 0 or -1. */
static int store_plain(const char *path, Elf *elf, const unsigned char *image,
		       size_t size, const Elf64_Shdr *sh, size_t nsec)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".XXXXXX")), *dir = strdup(path);
	int out = -1, rc = -1;

	if (!tmp || !dir)
		goto done;
	*strrchr(dir, '/') = '\0';
	snprintf(tmp, len + sizeof(".XXXXXX"), "%s.XXXXXX", path);
	if (make_dirs(dir) || (out = mkstemp(tmp)) < 0)
		goto done;
	rc = write_plain(out, elf, image, size, sh, nsec, 0, NULL);
	if (close(out) < 0 || (!rc && rename(tmp, path) < 0))
		rc = -1;
	if (rc)
		unlink(tmp);
done:
	free(tmp);
	free(dir);
	return rc;
}

/* A file only this process sees, gone when closed: its fd, or -1. */
static int anonymous_file(void)
{
#ifdef HAVE_MEMFD_CREATE
	return memfd_create("profkit-debug", MFD_CLOEXEC);
#else
	const char *dir = getenv("TMPDIR");
	char *path = malloc(strlen(dir && *dir ? dir : "/tmp") + 24);
	int fd = -1;

	if (path) {
		sprintf(path, "%s/profkit-debug.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	free(path);
	return fd;
#endif
}

/* The plain copy of image in memory, without the sections nothing
 * reads (and with job, of .debug_info what its addresses need): its
 * fd, or -1. */
static int plain_in_memory(Elf *elf, const unsigned char *image, size_t size,
			   const Elf64_Shdr *sh, size_t nsec,
			   struct sym_debug_job *job)
{
	int fd = anonymous_file();

	if (fd >= 0 && write_plain(fd, elf, image, size, sh, nsec, 1, job)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int make_plain(const char *cache_dir, int in_memory, int fd,
		      struct sym_debug_job *job)
{
	Elf *elf;
	const unsigned char *image;
	Elf64_Shdr *sh = NULL;
	char bid[81] = "", *path = NULL;
	size_t size = 0, nsec = 0;
	int plain = -1;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	image = elf ? (const unsigned char *)elf_rawfile(elf, &size) : NULL;
	if (image && (sh = native_sections(elf, image, size, &nsec)))
		sym_elf_build_id(elf, bid);
	if (sh && worth_a_copy(image, size, sh, nsec)) {
		if (cache_dir && *bid &&
		    (path = malloc(strlen(cache_dir) + strlen(bid) + 16))) {
			sprintf(path, "%s/debug/%s.debug", cache_dir, bid);
			plain = open_cached(path, bid);
			if (plain < 0 &&
			    !store_plain(path, elf, image, size, sh, nsec))
				plain = open_cached(path, bid);
		}
		if (plain < 0 && in_memory)
			plain = plain_in_memory(elf, image, size, sh, nsec, job);
	}
	elf_end(elf);
	free(sh);
	free(path);
	return plain;
}

int sym_debug_plain(const char *cache_dir, int in_memory, int fd)
{
	return make_plain(cache_dir, in_memory, fd, NULL);
}

static void *run_job(void *arg)
{
	struct sym_debug_job *job = arg;

	job->plain = make_plain(job->cache_dir, job->in_memory, job->fd, job);
	close(job->fd);
	return NULL;
}

struct sym_debug_job *sym_debug_plain_start(const char *cache_dir,
					     int in_memory, int names_only,
					     int fd)
{
	struct sym_debug_job *job = calloc(1, sizeof(*job));

	if (job) {
		job->cache_dir = cache_dir;
		job->in_memory = in_memory;
		job->names_only = names_only;
		job->fd = fd;
		job->plain = -1;
		pthread_mutex_init(&job->lock, NULL);
		pthread_cond_init(&job->asked, NULL);
		if (pthread_create(&job->thread, NULL, run_job, job) == 0)
			return job;
		pthread_cond_destroy(&job->asked);
		pthread_mutex_destroy(&job->lock);
		free(job);
	}
	close(fd);
	return NULL;
}

void sym_debug_plain_ask(struct sym_debug_job *job, const uint64_t *addrs,
			 size_t n)
{
	if (!job)
		return;
	pthread_mutex_lock(&job->lock);
	if (!job->asked_all && !job->ask_failed &&
	    pki_grow(&job->addrs, &job->addrs_cap, job->naddrs + n,
		     sizeof(*job->addrs)) == 0) {
		memcpy(job->addrs + job->naddrs, addrs, n * sizeof(*addrs));
		job->naddrs += n;
	} else {
		job->ask_failed = 1;
	}
	pthread_mutex_unlock(&job->lock);
}

int sym_debug_plain_finish(struct sym_debug_job *job, int *cut)
{
	int plain;

	if (cut)
		*cut = 0;
	if (!job)
		return -1;
	pthread_mutex_lock(&job->lock);
	job->asked_all = 1;
	pthread_cond_broadcast(&job->asked);
	pthread_mutex_unlock(&job->lock);
	pthread_join(job->thread, NULL);
	plain = job->plain;
	if (cut && plain >= 0)
		*cut = job->cut;
	pthread_cond_destroy(&job->asked);
	pthread_mutex_destroy(&job->lock);
	free(job->addrs);
	free(job);
	return plain;
}
