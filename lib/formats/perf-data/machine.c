/* SPDX-License-Identifier: MIT */
/*
 * The machine a perf.data file describes: its threads (comm over time),
 * its processes' address spaces and the kernel's, rebuilt from MMAP,
 * MMAP2, COMM, FORK and KSYMBOL records as perf does it, so each sampled
 * address finds the file that was mapped there at that moment.
 *
 * A user address space is a sorted array of mappings that never overlap:
 * a new mapping cuts away what it covers of older ones, as mmap does.
 * The kernel's maps may overlap (the kernel map spans the modules), and
 * the latest-starting map that holds an address wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"

/* An MMAP or MMAP2 record, decoded. */
struct pd_mmap {
	int32_t pid, tid;
	uint64_t start, len, pgoff;
	const char *file;
	size_t file_len;
	int cpumode;
	int exec;		/* PROT_EXEC (always, for MMAP records) */
	int hugetlb;		/* MAP_HUGETLB */
	const unsigned char *build_id;	/* MMAP2 with a build id, or NULL */
	size_t build_id_len;
};

static int thread_match(const void *owner, uint32_t id, const void *key)
{
	const struct pd_machine *m = owner;

	return m->threads[id - 1].tid == *(const int32_t *)key;
}

static int space_match(const void *owner, uint32_t id, const void *key)
{
	const struct pd_machine *m = owner;

	return m->spaces[id - 1].key == *(const int64_t *)key;
}

static uint32_t intern(struct pd_machine *m, const char *s, size_t len)
{
	return pk_profile_intern(m->strings, s, len);
}

static uint32_t intern_tid_comm(struct pd_machine *m, int32_t tid)
{
	char buf[24];

	/* perf names a thread it has seen no COMM for ":TID" */
	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	return intern(m, buf, strlen(buf));
}

static struct pd_thread *new_thread(struct pd_machine *m, int32_t pid,
				    int32_t tid, uint64_t hash, size_t slot)
{
	struct pd_thread *t;

	if (pki_grow(&m->threads, &m->threads_cap, m->nthreads + 1,
		    sizeof(*m->threads)) < 0 ||
	    pki_idtab_insert(&m->thread_tab, slot, hash,
			    (uint32_t)m->nthreads + 1) < 0)
		return NULL;
	t = &m->threads[m->nthreads++];
	t->tid = tid;
	t->pid = pid;
	t->comm = intern_tid_comm(m, tid);
	t->comm_set = 0;
	return t;
}

int pd_machine_init(struct pd_machine *m)
{
	struct pd_thread *idle;

	memset(m, 0, sizeof(*m));
	m->kernel.key = -1;
	m->strings = pk_profile_new(0);
	if (!m->strings)
		return PK_ENOMEM;
	m->str_kernel = intern(m, "[kernel.kallsyms]", 17);
	/* perf's idle thread: pid 0 is "swapper" before any record says so */
	idle = pd_machine_thread(m, 0, 0);
	if (!idle || pk_profile_failed(m->strings))
		return PK_ENOMEM;
	idle->comm = intern(m, "swapper", 7);
	idle->comm_set = 1;
	return 0;
}

void pd_machine_release(struct pd_machine *m)
{
	size_t i;

	for (i = 0; i < m->nspaces; i++)
		free(m->spaces[i].maps);
	free(m->spaces);
	free(m->kernel.maps);
	free(m->threads);
	free(m->build_ids);
	pki_idtab_release(&m->thread_tab);
	pki_idtab_release(&m->space_tab);
	pk_profile_free(m->strings);
	memset(m, 0, sizeof(*m));
}

/* The id of thread tid (0: none yet; then *hash and *slot say where it
 * goes). A tid names one thread for the whole recording. */
static uint32_t thread_id(struct pd_machine *m, int32_t tid, uint64_t *hash,
			  size_t *slot)
{
	uint32_t *recent = &m->recent_thread[(uint32_t)tid %
					     PK_ARRAY_SIZE(m->recent_thread)];
	uint32_t id = *recent;

	if (id && m->threads[id - 1].tid == tid)
		return id;
	*hash = pki_hash_u64((uint64_t)(uint32_t)tid);
	id = pki_idtab_find(&m->thread_tab, *hash, thread_match, m, &tid, slot);
	if (id)
		*recent = id;
	return id;
}

struct pd_thread *pd_machine_thread(struct pd_machine *m, int32_t pid,
				    int32_t tid)
{
	uint64_t hash;
	size_t slot;
	uint32_t id = thread_id(m, tid, &hash, &slot);
	struct pd_thread *t;

	if (!id)
		return new_thread(m, pid, tid, hash, slot);
	t = &m->threads[id - 1];
	/* a thread first seen without its pid learns it later */
	if (t->pid == -1 && pid != -1)
		t->pid = pid;
	return t;
}

struct pd_thread *pd_machine_find_thread(struct pd_machine *m, int32_t tid)
{
	uint64_t hash;
	size_t slot;
	uint32_t id = thread_id(m, tid, &hash, &slot);

	return id ? &m->threads[id - 1] : NULL;
}

static struct pd_space *find_space(struct pd_machine *m, int64_t key,
				   int create)
{
	uint64_t hash = pki_hash_u64((uint64_t)key);
	size_t slot;
	uint32_t id = pki_idtab_find(&m->space_tab, hash, space_match, m, &key,
				    &slot);
	struct pd_space *s;

	if (id)
		return &m->spaces[id - 1];
	if (!create ||
	    pki_grow(&m->spaces, &m->spaces_cap, m->nspaces + 1,
		    sizeof(*m->spaces)) < 0 ||
	    pki_idtab_insert(&m->space_tab, slot, hash,
			    (uint32_t)m->nspaces + 1) < 0)
		return NULL;
	s = &m->spaces[m->nspaces++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	return s;
}

static int64_t space_key(const struct pd_thread *t)
{
	return pd_space_key(t);
}

/* ---- user address spaces ---- */

/* Index of the first map that ends after addr. */
static size_t first_ending_after(const struct pd_space *s, uint64_t addr)
{
	return pki_count_at_or_below(s->maps, s->nmaps, sizeof(*s->maps),
				     offsetof(struct pd_map, end), addr);
}

/*
 * Insert nm, cutting what it covers out of the maps it overlaps: the part
 * of an old map before it stays, and so does the part after it, whose file
 * offset moves on by what was cut.
 */
static int space_insert(struct pd_space *s, const struct pd_map *nm)
{
	size_t lo = first_ending_after(s, nm->start), hi = lo, n, i;
	struct pd_map pieces[3];

	while (hi < s->nmaps && s->maps[hi].start < nm->end)
		hi++;
	n = 0;
	if (lo < hi && s->maps[lo].start < nm->start) {
		pieces[n] = s->maps[lo];
		pieces[n].end = nm->start;
		pieces[n++].mapping = 0;
	}
	pieces[n++] = *nm;
	if (lo < hi && s->maps[hi - 1].end > nm->end) {
		struct pd_map *after = &pieces[n++];

		*after = s->maps[hi - 1];
		after->pgoff += nm->end - after->start;
		after->start = nm->end;
		after->mapping = 0;
	}
	if (pki_grow(&s->maps, &s->maps_cap, s->nmaps - (hi - lo) + n,
		    sizeof(*s->maps)) < 0)
		return PK_ENOMEM;
	memmove(&s->maps[lo + n], &s->maps[hi],
		(s->nmaps - hi) * sizeof(*s->maps));
	for (i = 0; i < n; i++)
		s->maps[lo + i] = pieces[i];
	s->nmaps = s->nmaps - (hi - lo) + n;
	return 0;
}

static struct pd_map *space_find(struct pd_space *s, uint64_t addr)
{
	size_t i = first_ending_after(s, addr);

	return i < s->nmaps && s->maps[i].start <= addr ? &s->maps[i] : NULL;
}

static int space_copy(struct pd_space *dst, const struct pd_space *src)
{
	if (pki_grow(&dst->maps, &dst->maps_cap, src->nmaps,
		    sizeof(*dst->maps)) < 0)
		return PK_ENOMEM;
	if (src->nmaps)
		memcpy(dst->maps, src->maps, src->nmaps * sizeof(*src->maps));
	dst->nmaps = src->nmaps;
	return 0;
}

/* ---- the kernel's maps ---- */

/* Insert by start; a map at the same start and of the same file is
 * replaced (perf re-reads the kernel map when a newer record comes). */
static int kernel_insert(struct pd_space *k, const struct pd_map *nm)
{
	size_t i = 0;

	while (i < k->nmaps && k->maps[i].start < nm->start)
		i++;
	for (size_t j = i; j < k->nmaps && k->maps[j].start == nm->start; j++) {
		if (k->maps[j].file == nm->file) {
			k->maps[j] = *nm;
			return 0;
		}
	}
	if (pki_grow(&k->maps, &k->maps_cap, k->nmaps + 1, sizeof(*k->maps)) < 0)
		return PK_ENOMEM;
	memmove(&k->maps[i + 1], &k->maps[i], (k->nmaps - i) * sizeof(*k->maps));
	k->maps[i] = *nm;
	k->nmaps++;
	return 0;
}

static void kernel_remove_file(struct pd_space *k, uint32_t file)
{
	size_t i, n = 0;

	for (i = 0; i < k->nmaps; i++)
		if (k->maps[i].file != file)
			k->maps[n++] = k->maps[i];
	k->nmaps = n;
}

/*
 * The kernel's MMAP ends at _etext, but init text and trampolines lie
 * beyond it: perf finds those through kallsyms. Short of that, code
 * above the kernel map and below the next map is the kernel's too.
 */
static struct pd_map *kernel_find(struct pd_machine *m, uint64_t addr)
{
	struct pd_space *k = &m->kernel;
	size_t lo = pki_count_at_or_below(k->maps, k->nmaps, sizeof(*k->maps),
					 offsetof(struct pd_map, start), addr);
	size_t last = lo;

	while (lo-- > 0)
		if (addr < k->maps[lo].end)
			return &k->maps[lo];
	if (last && k->maps[last - 1].file == m->str_kernel)
		return &k->maps[last - 1];
	return NULL;
}

static int equals(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(s, word, len) == 0;
}

static uint32_t intern_build_id(struct pd_machine *m,
				const unsigned char *id, size_t len)
{
	char hex[2 * 64 + 1];
	size_t i;

	if (len > 64)
		len = 64;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return len ? intern(m, hex, 2 * len) : 0;
}

static uint64_t map_end(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start ? UINT64_MAX : start + len;
}

/*
 * A kernel MMAP: "[kernel.kallsyms]_text" (or _stext) is the kernel
 * itself, a path or "[name]" is a module, anything else (PTI entry
 * trampolines) is code of the kernel image.
 */
static int kernel_mmap(struct pd_machine *m, const struct pd_mmap *e)
{
	struct pd_map nm = { 0 };
	const char *guest = "[guest.kernel.kallsyms]";

	nm.start = e->start;
	nm.end = map_end(e->start, e->len);
	nm.pgoff = e->pgoff;
	if (pki_starts_with_n(e->file, e->file_len, "[kernel.kallsyms]")) {
		nm.file = m->str_kernel;
		kernel_remove_file(&m->kernel, nm.file);
	} else if (pki_starts_with_n(e->file, e->file_len, guest)) {
		nm.file = intern(m, guest, strlen(guest));
		kernel_remove_file(&m->kernel, nm.file);
	} else if (e->file_len && (e->file[0] == '/' || e->file[0] == '[')) {
		nm.file = intern(m, e->file, e->file_len);
	} else {
		nm.file = m->str_kernel;
	}
	if (nm.start == 0 && nm.end == 0)
		nm.end = UINT64_MAX;	/* perf: an unknown extent is all */
	if (e->build_id)
		nm.build_id = intern_build_id(m, e->build_id, e->build_id_len);
	if (pk_profile_failed(m->strings))
		return PK_ENOMEM;
	return kernel_insert(&m->kernel, &nm);
}

/* Mappings without a file, which perf addresses as they are. */
static int is_anon(const char *f, size_t len, int hugetlb)
{
	return hugetlb || equals(f, len, "//anon") ||
	       pki_starts_with_n(f, len, "/dev/zero") ||
	       pki_starts_with_n(f, len, "/anon_hugepage");
}

static int is_no_dso(const char *f, size_t len)
{
	return pki_starts_with_n(f, len, "[stack") ||
	       pki_starts_with_n(f, len, "/SYSV") || equals(f, len, "[heap]");
}

static int pd_machine_mmap(struct pd_machine *m, const struct pd_mmap *e)
{
	struct pd_map nm = { 0 };
	struct pd_thread *t;
	struct pd_space *s;

	if (e->cpumode == PD_CPUMODE_KERNEL ||
	    e->cpumode == PD_CPUMODE_GUEST_KERNEL)
		return kernel_mmap(m, e);
	if (!e->len)
		return 0;
	t = pd_machine_thread(m, e->pid, e->tid);
	s = t ? find_space(m, space_key(t), 1) : NULL;
	if (!s)
		return PK_ENOMEM;
	nm.start = e->start;
	nm.end = map_end(e->start, e->len);
	nm.pgoff = e->pgoff;
	if ((is_anon(e->file, e->file_len, e->hugetlb) ||
	     is_no_dso(e->file, e->file_len)) && e->exec) {
		char jit[32];

		/* JIT code: perf looks for its symbols in /tmp/perf-PID.map */
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)t->pid);
		nm.file = intern(m, jit, strlen(jit));
	} else {
		nm.file = intern(m, e->file, e->file_len);
	}
	if (equals(e->file, e->file_len, "[vdso]"))
		nm.pgoff = 0;	/* as perf: the vdso image starts at 0 */
	if (e->build_id)
		nm.build_id = intern_build_id(m, e->build_id, e->build_id_len);
	if (pk_profile_failed(m->strings))
		return PK_ENOMEM;
	return space_insert(s, &nm);
}

static int pd_machine_ksymbol(struct pd_machine *m, uint64_t addr, uint64_t len,
		       const char *name, size_t name_len, int unregister)
{
	struct pd_map nm = { 0 };
	size_t i;

	if (unregister) {
		for (i = 0; i < m->kernel.nmaps; i++) {
			if (m->kernel.maps[i].start == addr &&
			    m->kernel.maps[i].file != m->str_kernel) {
				memmove(&m->kernel.maps[i], &m->kernel.maps[i + 1],
					(m->kernel.nmaps - i - 1) *
					sizeof(*m->kernel.maps));
				m->kernel.nmaps--;
				break;
			}
		}
		return 0;
	}
	nm.start = addr;
	nm.end = map_end(addr, len);
	nm.file = intern(m, name, name_len);
	if (pk_profile_failed(m->strings))
		return PK_ENOMEM;
	return kernel_insert(&m->kernel, &nm);
}

/* The thread tid starts over: perf drops the old one and makes it anew. */
static void restart_thread(struct pd_machine *m, struct pd_thread *t,
			   int32_t pid)
{
	t->pid = pid;
	t->comm = intern_tid_comm(m, t->tid);
	t->comm_set = 0;
}

static int pd_machine_fork(struct pd_machine *m, int32_t pid, int32_t ppid,
		    int32_t tid, int32_t ptid, int clone_maps)
{
	struct pd_thread *parent, *child;
	struct pd_space *ps, *cs;
	uint32_t comm = 0;
	int comm_set;

	if (tid == ptid)
		return 0;	/* nonsense; perf would lose the parent */
	parent = pd_machine_thread(m, ppid, ptid);
	if (!parent)
		return PK_ENOMEM;
	/* a parent known under another pid is a stale thread of that tid */
	if (parent->pid != ppid)
		restart_thread(m, parent, ppid);
	comm_set = parent->comm_set;
	if (comm_set)
		comm = parent->comm;
	child = pd_machine_thread(m, pid, tid);
	if (!child)
		return PK_ENOMEM;
	restart_thread(m, child, pid);
	if (comm_set) {
		child->comm = comm;
		child->comm_set = 1;
	}
	if (pid == ppid)
		return 0;	/* a new thread shares its process's maps */
	m->generation++;	/* the maps of pid are made anew */
	/* pointers again: creating the child may have moved the arrays */
	parent = pd_machine_thread(m, ppid, ptid);
	ps = find_space(m, space_key(parent), 0);
	cs = find_space(m, (int64_t)pid, 1);
	if (!cs)
		return PK_ENOMEM;
	if (!clone_maps || !ps) {
		cs->nmaps = 0;
		return 0;
	}
	/* find_space may have moved ps while adding cs */
	ps = find_space(m, space_key(parent), 0);
	return space_copy(cs, ps);
}

/*
 * An exec (the record's COMM_EXEC flag) keeps the old mappings, as perf
 * does: samples taken inside execve, after this record, still unwind
 * through the old program's user stack, and the new program's mmaps
 * replace whatever they overlap before it runs a single instruction.
 */
static int pd_machine_comm(struct pd_machine *m, int32_t pid, int32_t tid,
			   const char *comm, size_t len)
{
	struct pd_thread *t = pd_machine_thread(m, pid, tid);

	if (!t)
		return PK_ENOMEM;
	t->comm = intern(m, comm, len);
	t->comm_set = 1;
	return pk_profile_failed(m->strings) ? PK_ENOMEM : 0;
}

/* ---- records ---- */

static size_t string_len(const unsigned char *s, size_t max)
{
	const unsigned char *nul = memchr(s, '\0', max);

	return nul ? (size_t)(nul - s) : max;
}

static int mmap_record(struct pd_machine *m, const struct pd_rec *rec, int big)
{
	const unsigned char *d = rec->data;
	int mmap2 = rec->type == PD_RECORD_MMAP2;
	size_t name_at = mmap2 ? 72 : 40;
	struct pd_mmap e;

	if (rec->size < name_at)
		return 0;
	memset(&e, 0, sizeof(e));
	e.pid = (int32_t)pd_u32(d + 8, big);
	e.tid = (int32_t)pd_u32(d + 12, big);
	e.start = pd_u64(d + 16, big);
	e.len = pd_u64(d + 24, big);
	e.pgoff = pd_u64(d + 32, big);
	e.cpumode = rec->misc & PD_MISC_CPUMODE_MASK;
	e.exec = !(rec->misc & PD_MISC_MMAP_DATA);
	if (mmap2) {
		e.exec = (pd_u32(d + 64, big) & 4) != 0;	/* PROT_EXEC */
		e.hugetlb = (pd_u32(d + 68, big) & 0x40000) != 0;
		if (rec->misc & PD_MISC_MMAP_BUILD_ID) {
			e.build_id = d + 44;
			e.build_id_len = d[40] <= 20 ? d[40] : 20;
		}
	}
	e.file = (const char *)d + name_at;
	e.file_len = string_len(d + name_at, rec->size - name_at);
	return pd_machine_mmap(m, &e) ;
}

static int task_record(struct pd_machine *m, const struct pd_rec *rec, int big)
{
	const unsigned char *d = rec->data;
	if (rec->type == PD_RECORD_COMM) {
		if (rec->size < 16)
			return 0;
		return pd_machine_comm(m, (int32_t)pd_u32(d + 8, big),
				       (int32_t)pd_u32(d + 12, big),
				       (const char *)d + 16,
				       string_len(d + 16, rec->size - 16u)) ?
			PK_ENOMEM : 0;
	}
	if (rec->size < 24)
		return 0;
	return pd_machine_fork(m, (int32_t)pd_u32(d + 8, big),
			       (int32_t)pd_u32(d + 12, big),
			       (int32_t)pd_u32(d + 16, big),
			       (int32_t)pd_u32(d + 20, big),
			       !(rec->misc & PD_MISC_FORK_EXEC)) ;
}

static int ksymbol_record(struct pd_machine *m, const struct pd_rec *rec,
			  int big)
{
	const unsigned char *d = rec->data;

	if (rec->size < 24)
		return 0;
	return pd_machine_ksymbol(m, pd_u64(d + 8, big),
				  pd_u32(d + 16, big),
				  (const char *)d + 24,
				  string_len(d + 24, rec->size - 24u),
				  pd_u16(d + 22, big) & 1) ;
}


/*
 * MMAP, MMAP2, COMM, FORK and KSYMBOL records; others change nothing. A
 * COMM, or the FORK of a thread, changes no maps: the generation stays,
 * and so do the frames remembered, in a program that starts threads.
 */
int pd_machine_record(struct pd_machine *m, const struct pd_rec *rec, int big)
{
	switch (rec->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		m->generation++;
		return mmap_record(m, rec, big);
	case PD_RECORD_COMM:
	case PD_RECORD_FORK:
		return task_record(m, rec, big);
	case PD_RECORD_KSYMBOL:
		m->generation++;
		return ksymbol_record(m, rec, big);
	default:
		return 0;
	}
}

struct pd_map *pd_machine_find(struct pd_machine *m,
			       const struct pd_thread *t, int cpumode,
			       uint64_t addr)
{
	struct pd_space *s;

	switch (cpumode) {
	case PD_CPUMODE_KERNEL:
		return kernel_find(m, addr);
	case PD_CPUMODE_USER:
		s = find_space(m, space_key(t), 0);
		return s ? space_find(s, addr) : NULL;
	default:
		return NULL;	/* hypervisor and guests: nothing mapped */
	}
}

int pd_machine_set_build_id(struct pd_machine *m, const char *file,
			    size_t len, const unsigned char *id, size_t id_len)
{
	uint32_t f = intern(m, file, len), b = intern_build_id(m, id, id_len);

	if (pk_profile_failed(m->strings) ||
	    pki_grow_zeroed(&m->build_ids, &m->build_ids_cap, (size_t)f + 1,
			    sizeof(*m->build_ids)) < 0)
		return PK_ENOMEM;
	m->build_ids[f] = b;
	return 0;
}

uint32_t pd_machine_build_id(const struct pd_machine *m, uint32_t file)
{
	return file < m->build_ids_cap ? m->build_ids[file] : 0;
}

uint32_t pd_map_build_id(const struct pd_machine *m, const struct pd_map *map)
{
	return map->build_id ? map->build_id : pd_machine_build_id(m, map->file);
}
