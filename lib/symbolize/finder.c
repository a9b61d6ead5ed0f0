/* SPDX-License-Identifier: MIT */
/*
 * The file finder (finder.h): the rules that say which file on this
 * machine holds a mapping's code and debug information, and the files
 * found by them, each opened once.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#include <pthread.h>
#endif

#include "debug-cache.h"
#include "dl.h"
#include "finder.h"
#include "core/internal.h"
#include "mapping.h"

struct sym_finder {
	char *binary, *symfs;
	char **dirs;		/* the symbol path, absolute */
	size_t ndirs;
	char *home_debug;	/* $HOME/.debug, perf's build-id cache */
	char *system_debug;	/* /usr/lib/debug, under --symfs as perf has it */
	char *debuginfo_path;
	char *cache_dir;	/* plain copies of debug files, or NULL */
	int dwarf_wanted;	/* sym_finder_want_dwarf was called */
	int symbols_first;	/* sym_finder_symbols_first was called */
	int names_only;		/* sym_finder_names_only's last word */
	int use_debuginfod;	/* $DEBUGINFOD_URLS names servers */
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *debuginfod;	/* made when first needed */
#endif
	Dwfl_Callbacks callbacks;

	struct sym_file **files;
	size_t nfiles, files_cap;
	struct sym_finder *next;	/* the context's next finder */
};

/* The file being looked for, and what the finder knows of it (pub
 * first: a struct sym_file * of the cache is its struct found). */
struct found {
	struct sym_file pub;
	struct sym_finder *finder;
	/* the file's extent as libdwfl lays it out (sym_file_report): the
	 * first load segment's aligned vaddr, the last one's end */
	GElf_Addr dwfl_start, dwfl_end;
	/* the plain copy of its debug file being made (start_plain_copy),
	 * and that file's path */
	struct sym_debug_job *plain_job;
	char *plain_of;
	/* what the copy in use lacks (SYM_DEBUG_CUT_*: the units a pass
	 * did not ask for, the line programs); a later pass reports the
	 * file anew, the Dwfls before kept here */
	int cut;
	Dwfl **retired;
	size_t nretired, retired_cap;
};

/* ---- small helpers ---- */

void sym_tried_add(struct sym_tried *t, const char *path, const char *why)
{
	int n;

	if (t->len >= SYM_TRIED_MAX) {
		t->more = 1;
		return;
	}
	n = snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s%s%s%s%s",
		     t->len ? ", " : "", path, why ? " (" : "", why ? why : "",
		     why ? ")" : "");
	if (n < 0 || (size_t)n >= sizeof(t->buf) - t->len) {
		t->buf[t->len] = '\0';
		t->more = 1;
		return;
	}
	t->len += (size_t)n;
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *s = malloc(la + lb + lc + 1);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c ? c : "", lc + 1);
	return s;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void sym_build_id_hex(const unsigned char *bits, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[bits[i] >> 4];
		out[2 * i + 1] = digits[bits[i] & 15];
	}
	out[2 * n] = '\0';
}

void sym_elf_build_id(Elf *elf, char *out)
{
	const void *bits;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;

	out[0] = '\0';
	if (n > 0 && n <= 40)
		sym_build_id_hex(bits, (size_t)n, out);
}

/*
 * Older perf.data files pad build ids to 20 bytes with zeros, so
 * trailing zeros in the recorded id do not count.
 */
int sym_build_id_matches(const char *recorded, const char *file)
{
	size_t n = strlen(file), i;

	if (strncasecmp(recorded, file, n) != 0)
		return 0;
	for (i = n; recorded[i]; i++)
		if (recorded[i] != '0')
			return 0;
	return 1;
}

void sym_build_id_subpath(const char *bid, char *out, size_t size)
{
	char *c;

	if (strlen(bid) <= 2 || strlen(bid) >= 128) {
		out[0] = '\0';
		return;
	}
	snprintf(out, size, "/.build-id/%.2s/%s", bid, bid + 2);
	for (c = out; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
}

/*
 * Recordings name the files to open, and a hostile one may name a FIFO,
 * a device or /proc/kmsg: only a regular file with room for an ELF
 * header is opened, never anything a read could block on.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	if (pki_starts_with(path, "/proc/") || pki_starts_with(path, "/sys/") ||
	    pki_starts_with(path, "/dev/")) {
		errno = EPERM;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 52) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* ---- ELF files ---- */

/* Keep the load segments: where file offsets are in the address space. */
static const char *read_segments(struct found *fo, Elf *elf)
{
	struct sym_file *sf = &fo->pub;
	size_t nph, i;

	if (elf_getphdrnum(elf, &nph))
		return "no program headers";
	free(sf->segs);
	sf->segs = calloc(nph ? nph : 1, sizeof(*sf->segs));
	if (!sf->segs)
		return "out of memory";
	sf->nsegs = 0;
	sf->debug_only = 0;
	fo->dwfl_start = fo->dwfl_end = 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!sf->nsegs) {
			sf->link_base = ph.p_vaddr &
				~(ph.p_align > 1 ? ph.p_align - 1 : 0);
			fo->dwfl_start = ph.p_vaddr & -ph.p_align;
		}
		if (ph.p_vaddr + ph.p_memsz > 0)
			fo->dwfl_end = ph.p_vaddr + ph.p_memsz;
		/* separate debug files keep the headers, not the bytes */
		if ((ph.p_flags & PF_X) && ph.p_filesz == 0 && ph.p_memsz)
			sf->debug_only = 1;
		sf->segs[sf->nsegs].offset = ph.p_offset;
		sf->segs[sf->nsegs].vaddr = ph.p_vaddr;
		sf->segs[sf->nsegs].filesz = ph.p_filesz;
		sf->nsegs++;
	}
	return NULL;
}

/* Read the load segments and check the build id; NULL, or why not
 * (*other_build set when only the build id was wrong). */
static const char *check_elf(struct found *fo, Elf *elf, int check_id,
			     char *why, size_t why_size, int *other_build)
{
	struct sym_file *sf = &fo->pub;
	GElf_Ehdr ehdr;
	const char *bad;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return "not ELF";
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		return "not an executable or shared object";
	sym_elf_build_id(elf, sf->file_id);
	if (check_id && *sf->build_id && *sf->file_id &&
	    !sym_build_id_matches(sf->build_id, sf->file_id)) {
		snprintf(why, why_size, "build id %s", sf->file_id);
		*other_build = 1;
		return why;
	}
	bad = read_segments(fo, elf);
	if (bad)
		return bad;
	sf->e_type = ehdr.e_type;
	return NULL;
}

/* Report the file open at fd to a Dwfl of its own (consuming fd). */
static int report_file(struct found *fo, const char *path, int fd,
		       struct sym_tried *tried)
{
	struct sym_file *sf = &fo->pub;
	void **userdata;

	sf->dwfl = dwfl_begin(&fo->finder->callbacks);
	if (sf->dwfl) {
		dwfl_report_begin(sf->dwfl);
		/* ET_DYN at bias 0: Dwfl addresses are the file's vaddrs */
		sf->mod = dwfl_report_elf(sf->dwfl, base_name(path), path, fd,
					  0, true);
		dwfl_report_end(sf->dwfl, NULL, NULL);
	}
	if (!sf->mod) {
		sym_tried_add(tried, path, dwfl_errmsg(-1));
		if (sf->dwfl)
			dwfl_end(sf->dwfl);
		sf->dwfl = NULL;
		close(fd);	/* not consumed on failure */
		return -1;
	}
	dwfl_module_info(sf->mod, &userdata, NULL, NULL, NULL, NULL, NULL,
			 NULL);
	*userdata = fo;
	if (!dwfl_module_getelf(sf->mod, &sf->bias))
		sf->bias = 0;
	return 0;
}

/* Take path, open at fd (consumed), as the file; 0 on success, else
 * why is noted. */
static int try_elf_fd(struct found *fo, const char *path, int fd,
		      int check_id, struct sym_tried *tried)
{
	struct sym_file *sf = &fo->pub;
	char why_buf[128];
	const char *why;
	int other_build = 0;
	Elf *elf;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	why = elf ? check_elf(fo, elf, check_id, why_buf, sizeof(why_buf),
			      &other_build) : "not ELF";
	elf_end(elf);
	if (other_build && !sf->other_build)
		sf->other_build = strdup(path);	/* none when out of memory */
	if (why) {
		sym_tried_add(tried, path, why);
		close(fd);
		return -1;
	}
	if (report_file(fo, path, fd, tried))
		return -1;
	sf->path = strdup(path);
	return 0;
}

/* Open path as the file; 0 on success, else why is noted. */
static int try_elf(struct found *fo, const char *path, int check_id,
		   struct sym_tried *tried)
{
	int fd = open_regular(path);

	if (fd < 0) {
		sym_tried_add(tried, path,
			      errno == ENOENT ? NULL : strerror(errno));
		return -1;
	}
	return try_elf_fd(fo, path, fd, check_id, tried);
}

/* Try DIR + sub + tail; 0 when it was the one. */
static int try_elf3(struct found *fo, const char *dir, const char *sub,
		    const char *tail, struct sym_tried *tried)
{
	char *path = join(dir, sub, tail);
	int rc;

	if (!path)
		return -1;
	rc = try_elf(fo, path, 1, tried);
	free(path);
	return rc;
}

/* By build id: perf's cache (the file, or a vdso image), the symbol path. */
static int by_build_id(struct found *fo, const char *sub, struct sym_tried *tried)
{
	const struct sym_finder *f = fo->finder;
	size_t i;

	if (!*sub)
		return -1;
	if (f->home_debug &&
	    (!try_elf3(fo, f->home_debug, sub, "/elf", tried) ||
	     !try_elf3(fo, f->home_debug, sub, "/vdso", tried)))
		return 0;
	for (i = 0; i < f->ndirs; i++)
		if (!try_elf3(fo, f->dirs[i], sub, NULL, tried) ||
		    !try_elf3(fo, f->dirs[i], sub, "/elf", tried))
			return 0;
	return -1;
}

struct name_try {
	struct found *fo;
	struct sym_tried *tried;
};

static int try_by_name(void *arg, const char *path)
{
	struct name_try *nt = arg;

	return try_elf(nt->fo, path, 1, nt->tried);
}

/* A separate debug file by build id: its symbols and lines are right,
 * its file offsets are not. */
static int debug_by_build_id(struct found *fo, const char *sub,
			     struct sym_tried *tried)
{
	const struct sym_finder *f = fo->finder;
	size_t i;

	if (!*sub)
		return -1;
	if (!try_elf3(fo, f->system_debug, sub, ".debug", tried) ||
	    (f->home_debug &&
	     !try_elf3(fo, f->home_debug, sub, "/debug", tried)))
		return 0;
	for (i = 0; i < f->ndirs; i++)
		if (!try_elf3(fo, f->dirs[i], sub, ".debug", tried))
			return 0;
	return -1;
}

/* ---- debuginfod ---- */

enum { FETCH_EXECUTABLE, FETCH_DEBUGINFO };

#ifdef HAVE_DEBUGINFOD
/* libdebuginfod, opened at the first fetch (dl.h): it brings libcurl
 * with its TLS, Kerberos and LDAP libraries */
static struct {
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *,
			       int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *,
			      int, char **);
	void (*end)(debuginfod_client *);
} dbgd;
static pthread_once_t dbgd_once = PTHREAD_ONCE_INIT;

static void dbgd_open(void)
{
	if (sym_dl_function(DEBUGINFOD_SONAME, "debuginfod_begin", &dbgd.begin) ||
	    sym_dl_function(DEBUGINFOD_SONAME, "debuginfod_find_executable",
			    &dbgd.find_executable) ||
	    sym_dl_function(DEBUGINFOD_SONAME, "debuginfod_find_debuginfo",
			    &dbgd.find_debuginfo) ||
	    sym_dl_function(DEBUGINFOD_SONAME, "debuginfod_end", &dbgd.end))
		dbgd.begin = NULL;
}
#endif

/*
 * The file of a build id from the servers of $DEBUGINFOD_URLS, through
 * libdebuginfod and its cache ($DEBUGINFOD_CACHE_PATH): its descriptor
 * and *path (malloc'd), or -1, noted in tried if given.
 */
static int debuginfod_fetch(struct sym_finder *f, const char *build_id,
			    int what, char **path, struct sym_tried *tried)
{
#ifdef HAVE_DEBUGINFOD
	char id[129], where[64];
	size_t len = strlen(build_id), i;
	int fd;

	if (!f->use_debuginfod || len < 2 || len % 2 || len >= sizeof(id))
		return -1;
	for (i = 0; i <= len; i++)	/* lower case, as it asks for */
		id[i] = (char)(build_id[i] >= 'A' && build_id[i] <= 'F' ?
			       build_id[i] - 'A' + 'a' : build_id[i]);
	pthread_once(&dbgd_once, dbgd_open);
	if (!dbgd.begin)
		return -1;
	if (!f->debuginfod && !(f->debuginfod = dbgd.begin()))
		return -1;
	fd = what == FETCH_EXECUTABLE ?
		dbgd.find_executable(f->debuginfod,
				     (const unsigned char *)id, 0, path) :
		dbgd.find_debuginfo(f->debuginfod,
				    (const unsigned char *)id, 0, path);
	if (fd >= 0)
		return fd;
	snprintf(where, sizeof(where), "debuginfod's %s",
		 what == FETCH_EXECUTABLE ? "executable" : "debuginfo");
	if (tried)
		sym_tried_add(tried, where, strerror(-fd));
	return -1;
#else
	(void)f, (void)build_id, (void)what, (void)path, (void)tried;
	return -1;
#endif
}

/* The last resort: the binary from a debuginfod server, else its debug
 * file (symbols and lines, as a local debug file found by build id). */
static int by_debuginfod(struct found *fo, struct sym_tried *tried)
{
	static const int what[] = { FETCH_EXECUTABLE, FETCH_DEBUGINFO };
	size_t i;

	for (i = 0; i < PK_ARRAY_SIZE(what); i++) {
		char *path = NULL;
		int fd = debuginfod_fetch(fo->finder, fo->pub.build_id,
					  what[i], &path, tried);
		int rc = fd < 0 ? -1 : try_elf_fd(fo, path, fd, 1, tried);

		free(path);
		if (!rc)
			return 0;
	}
	return -1;
}

/*
 * The ELF file for a mapping, most reliable first: by build id (perf's
 * cache, the symbol path), by name (under --symfs, by base name in the
 * symbol path, the recorded path itself), then a separate debug file
 * found by build id (the address is then translated as if vaddr ==
 * offset), and last what a debuginfod server has for the build id.
 * --binary replaces all of it for the main program.
 */
static void look_for_elf(struct found *fo, const char *file,
			 struct sym_tried *tried)
{
	struct sym_file *sf = &fo->pub;
	struct name_try nt = { fo, tried };
	char sub[160];

	if (sf->is_binary) {
		try_elf(fo, fo->finder->binary, 0, tried);
		return;
	}
	sym_build_id_subpath(sf->build_id, sub, sizeof(sub));
	if (!by_build_id(fo, sub, tried))
		return;
	/* [vdso]: there is no file by that name */
	if (file[0] != '[' &&
	    !sym_finder_by_name(fo->finder, file, try_by_name, &nt))
		return;
	if (!debug_by_build_id(fo, sub, tried))
		return;
	by_debuginfod(fo, tried);
}

int sym_finder_by_name(const struct sym_finder *f, const char *file,
		       int (*try)(void *arg, const char *path), void *arg)
{
	char *path;
	size_t i;
	int rc;

	if (f->symfs) {
		path = join(f->symfs, file[0] == '/' ? "" : "/", file);
		rc = path ? try(arg, path) : -1;
		free(path);
		if (!rc)
			return 0;
	}
	for (i = 0; i < f->ndirs; i++) {
		path = join(f->dirs[i], "/", base_name(file));
		rc = path ? try(arg, path) : -1;
		free(path);
		if (!rc)
			return 0;
	}
	return f->symfs ? -1 : try(arg, file);
}

/* ---- separate debug files (libdwfl's find_debuginfo) ---- */

/* A debug file found by name is only used when its build id agrees. */
static int debug_file_matches(const struct sym_file *sf, int fd)
{
	/* read, not mapped: a map's faults bring in pages around each */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	char hex[81];
	int ok = 0;

	if (elf && elf_kind(elf) == ELF_K_ELF) {
		sym_elf_build_id(elf, hex);
		ok = !*hex || !*sf->file_id || strcmp(hex, sf->file_id) == 0;
	}
	elf_end(elf);
	return ok;
}

/* Open path (malloc'd, taken) as the debug file: its fd, or -1. */
static int open_debug_candidate(const struct sym_file *sf, char *path,
				const char *main_file, char **found)
{
	int fd;

	if (!path)
		return -1;
	if (main_file && strcmp(path, main_file) == 0) {
		free(path);
		return -1;
	}
	fd = open_regular(path);
	if (fd >= 0 && debug_file_matches(sf, fd)) {
		*found = path;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return -1;
}

/* By .gnu_debuglink (else the file's own name): beside the file, in
 * .debug/ there, under /usr/lib/debug, in the symbol path. */
static int debug_by_link(const struct found *fo, const char *file_name,
			 const char *debuglink, char **found)
{
	const struct sym_finder *f = fo->finder;
	const char *link = debuglink ? debuglink : base_name(file_name);
	char *dir = strdup(file_name);
	size_t i;
	int fd;

	if (!dir)
		return -1;
	dir[base_name(file_name) - file_name] = '\0';	/* keeps the '/' */
	fd = open_debug_candidate(&fo->pub, join(dir, link, NULL), file_name,
				  found);
	if (fd < 0)
		fd = open_debug_candidate(&fo->pub, join(dir, ".debug/", link),
					  file_name, found);
	if (fd < 0 && dir[0] == '/') {
		char *sys = join(f->system_debug, dir, NULL);

		if (sys)
			fd = open_debug_candidate(&fo->pub, join(sys, link, NULL),
						  file_name, found);
		free(sys);
	}
	for (i = 0; fd < 0 && i < f->ndirs; i++)
		fd = open_debug_candidate(&fo->pub, join(f->dirs[i], "/", link),
					  file_name, found);
	free(dir);
	return fd;
}

/* fd, or in its place (closing it) the plain copy of its compressed
 * DWARF (debug-cache.h). */
static int prefer_plain(const struct sym_finder *f, int fd)
{
	int plain = sym_debug_plain(f->cache_dir, f->dwarf_wanted, fd);

	if (plain < 0)
		return fd;
	close(fd);
	return plain;
}

/* The debug file of fo by build id under /usr/lib/debug and the symbol
 * path, as libdwfl's dwfl_build_id_find_debuginfo looks: its fd and
 * *found, or -1. */
static int debug_by_build_id_only(const struct found *fo, char **found)
{
	const struct sym_finder *f = fo->finder;
	char sub[160];
	size_t i;
	int fd;

	sym_build_id_subpath(fo->pub.file_id, sub, sizeof(sub));
	for (i = 0; *sub && i <= f->ndirs; i++) {
		const char *dir = i ? f->dirs[i - 1] : f->system_debug;

		fd = open_debug_candidate(&fo->pub, join(dir, sub, ".debug"),
					  NULL, found);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * For a file a plain copy stands for, that copy, found as
 * debug_by_build_id_only finds the debug file (libdwfl would open the
 * compressed file itself, beyond reach): made now, or taken from the
 * thread start_plain_copy began. Only the copy's fd, else -1 (and
 * libdwfl looks as before).
 */
static int plain_by_build_id(struct found *fo, char **found)
{
	const struct sym_finder *f = fo->finder;
	int fd, plain;

	if (fo->plain_job) {
		plain = sym_debug_plain_finish(fo->plain_job, &fo->cut);
		fo->plain_job = NULL;
		*found = plain >= 0 ? fo->plain_of : NULL;
		if (plain < 0)
			free(fo->plain_of);
		fo->plain_of = NULL;
		return plain;
	}
	if (!f->cache_dir && !f->dwarf_wanted)
		return -1;
	fd = debug_by_build_id_only(fo, found);
	if (fd < 0)
		return -1;
	plain = sym_debug_plain(f->cache_dir, f->dwarf_wanted, fd);
	close(fd);
	if (plain < 0) {
		free(*found);
		*found = NULL;
	}
	return plain;
}

/*
 * The file libdwfl reads the module's symbols from, open for pread: the
 * file itself when it has .symtab, else its debug file by build id (a
 * plain copy keeps .symtab as it is). -1 when neither: libdwfl's own
 * search decides then.
 */
int sym_file_symtab_fd(const struct sym_file *sf, int *is_debug)
{
	GElf_Addr bias;
	Elf *elf = sf->mod ? dwfl_module_getelf(sf->mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	char *path = NULL;
	int fd;

	if (!elf || !sf->path)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB &&
		    shdr.sh_entsize) {
			*is_debug = 0;
			return open(sf->path, O_RDONLY | O_CLOEXEC);
		}
	}
	*is_debug = 1;
	fd = debug_by_build_id_only((const struct found *)sf, &path);
	free(path);
	return fd;
}

/* Whether the file has DWARF of its own (libdwfl then asks for none). */
static int has_own_dwarf(const struct sym_file *sf)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(sf->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 1;	/* nothing to begin */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name = gelf_getshdr(scn, &shdr) ?
				   elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;

		if (name && (strcmp(name, ".debug_info") == 0 ||
			     strcmp(name, ".zdebug_info") == 0))
			return 1;
	}
	return 0;
}

/*
 * The plain copy of a file's compressed debug file begun on a thread as
 * soon as the file is found: the perf.data reader finds files while it
 * unwinds, and the copy is made meanwhile, on the second core, by the
 * time the symbolizer asks for it.
 */
static void start_plain_copy(struct found *fo)
{
	const struct sym_finder *f = fo->finder;
	int fd;

	if ((!f->cache_dir && !f->dwarf_wanted) ||
	    (f->symbols_first && !f->dwarf_wanted) || !fo->pub.mod ||
	    has_own_dwarf(&fo->pub) ||
	    (fd = debug_by_build_id_only(fo, &fo->plain_of)) < 0)
		return;
	fo->plain_job = sym_debug_plain_start(f->cache_dir, f->dwarf_wanted,
					      f->names_only, fd);
	if (!fo->plain_job) {
		free(fo->plain_of);
		fo->plain_of = NULL;
	}
}

/*
 * libdwfl asks this for the DWARF of a file that has none of its own
 * (and for a dwz file's, debuglink then being its path). Not libdwfl's
 * dwfl_standard_find_debuginfo: the places are ours, as for the files
 * themselves: by build id (/usr/lib/debug and the symbol path), perf's
 * cache, by the .gnu_debuglink name, and last a debuginfod server.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	struct found *fo = *userdata;
	char sub[160];
	int fd;

	if (fo && !(debuglink && strchr(debuglink, '/')) &&
	    (fd = plain_by_build_id(fo, debuginfo_file_name)) >= 0)
		return fd;
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink, crc,
					  debuginfo_file_name);
	if (fd >= 0 || !fo)
		return fd;
	sym_build_id_subpath(fo->pub.file_id, sub, sizeof(sub));
	if (*sub && fo->finder->home_debug) {
		fd = open_debug_candidate(&fo->pub,
					  join(fo->finder->home_debug, sub,
					       "/debug"),
					  file_name, debuginfo_file_name);
		if (fd >= 0)
			return prefer_plain(fo->finder, fd);
	}
	if (file_name &&
	    (fd = debug_by_link(fo, file_name, debuglink,
				debuginfo_file_name)) >= 0)
		return prefer_plain(fo->finder, fd);
	/* a dwz file is asked for by its own build id, which is not ours */
	if (debuglink && strchr(debuglink, '/'))
		return -1;
	return prefer_plain(fo->finder,
			    debuginfod_fetch(fo->finder, fo->pub.file_id,
					     FETCH_DEBUGINFO,
					     debuginfo_file_name, NULL));
}

static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr base, char **file_name, Elf **elf)
{
	(void)mod;
	(void)userdata;
	(void)name;
	(void)base;
	(void)file_name;
	(void)elf;
	return -1;	/* every module is reported with its file open */
}

/* ---- the cache ---- */

static void file_free(struct sym_file *sf)
{
	struct found *fo = (struct found *)sf;
	size_t i;
	int plain;

	if (!sf)
		return;
	plain = sym_debug_plain_finish(fo->plain_job, NULL);
	if (plain >= 0)
		close(plain);
	free(fo->plain_of);
	if (sf->dwfl)
		dwfl_end(sf->dwfl);
	for (i = 0; i < fo->nretired; i++)
		dwfl_end(fo->retired[i]);
	free(fo->retired);
	free(sf->segs);
	free(sf->file);
	free(sf->build_id);
	free(sf->path);
	free(sf->tried);
	free(sf->other_build);
	free(sf);
}

/* Look for the file and note what was tried. */
static int find_file(struct found *fo)
{
	struct sym_file *sf = &fo->pub;
	struct sym_tried tried = { .len = 0 };
	char *name = sym_strip_deleted(sf->file);
	size_t size;

	if (!name)
		return -1;
	look_for_elf(fo, name, &tried);
	free(name);
	size = tried.len + sizeof("nothing, ...");
	sf->tried = malloc(size);
	if (!sf->tried)
		return -1;
	snprintf(sf->tried, size, "%s%s", tried.len ? tried.buf : "nothing",
		 tried.more ? ", ..." : "");
	return 0;
}

const struct sym_file *sym_finder_elf(struct sym_finder *f, const char *file,
				      const char *build_id, int is_binary)
{
	struct sym_file *sf;
	struct found *fo;
	size_t i;

	for (i = 0; i < f->nfiles; i++) {
		sf = f->files[i];
		if (sf->is_binary == is_binary && strcmp(sf->file, file) == 0 &&
		    strcmp(sf->build_id, build_id) == 0)
			return sf;
	}
	if (pki_grow(&f->files, &f->files_cap, f->nfiles + 1,
		    sizeof(*f->files)) < 0)
		return NULL;
	fo = calloc(1, sizeof(*fo));
	if (!fo)
		return NULL;
	fo->finder = f;
	sf = &fo->pub;
	sf->is_binary = is_binary;
	sf->file = strdup(file);
	sf->build_id = strdup(build_id);
	if (!sf->file || !sf->build_id || find_file(fo)) {
		file_free(sf);
		return NULL;
	}
	f->files[f->nfiles++] = sf;
	start_plain_copy(fo);
	return sf;
}

/*
 * A runtime address in the file's own terms. For an ELF shared object
 * or PIE the address becomes a file offset through the mapping, then a
 * link-time address through the load segment holding that offset (as
 * perf and pprof do: vaddr and offset may differ by any amount). So do
 * executables (ET_EXEC): node maps its own file a second time for V8's
 * builtins, away from the link-time addresses. A mapping with no range
 * (start = limit = 0) already holds file addresses.
 */
uint64_t sym_file_address(const struct sym_file *sf, const struct pk_mapping *m,
			  uint64_t addr)
{
	uint64_t fileoff;
	size_t i;

	if (m->start == 0 && m->limit == 0)
		return addr;
	fileoff = addr - m->start + m->offset;
	for (i = 0; !sf->debug_only && i < sf->nsegs; i++) {
		const struct sym_load_segment *seg = &sf->segs[i];

		if (fileoff >= seg->offset && fileoff - seg->offset < seg->filesz)
			return fileoff - seg->offset + seg->vaddr;
	}
	/*
	 * No segment holds it, or a separate debug file's offsets are made
	 * up: an executable's address is its own, and anything else is
	 * taken as laid out as linkers do, offset 0 at the first segment's
	 * page.
	 */
	return sf->e_type == ET_EXEC ? addr : fileoff + sf->link_base;
}

/* ---- the same file in other Dwfls ---- */

/*
 * An unwinder's Dwfl (one per process) gets the module of a file at the
 * address the process maps it to; libdwfl asks find_elf for its ELF, and
 * is handed the finder's open Elf (a reference: libelf counts them), so
 * the file is neither opened nor parsed again.
 */
int sym_file_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct sym_file *sf = *userdata;
	GElf_Addr bias;
	Elf *elf;

	(void)mod;
	(void)name;
	(void)base;
	if (!sf || !(elf = dwfl_module_getelf(sf->mod, &bias)))
		return -1;
	/* libdw opened it ELF_C_READ_MMAP_PRIVATE; a reference must match */
	*elfp = elf_begin(-1, ELF_C_READ_MMAP_PRIVATE, elf);
	if (*elfp && sf->path)
		*file_name = strdup(sf->path);
	return -1;	/* no descriptor of its own */
}

Dwfl_Module *sym_file_report(const struct sym_file *sf, Dwfl *dwfl,
			     const char *name, GElf_Addr bias, void *userdata)
{
	const struct found *fo = (const struct found *)sf;
	Dwfl_Module *mod;
	GElf_Addr got;
	void **slot;

	if (!sf->mod || sf->debug_only)
		return NULL;
	/* as dwfl_report_elf has it: an executable's addresses are its own */
	if (sf->e_type == ET_EXEC)
		bias = 0;
	mod = dwfl_report_module(dwfl, name, fo->dwfl_start + bias,
				 fo->dwfl_end + bias);
	if (!mod)
		return NULL;
	dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
	*slot = (void *)sf;	/* for sym_file_find_elf, called right now */
	if (!dwfl_module_getelf(mod, &got))
		mod = NULL;
	*slot = userdata;
	return mod;
}

/* ---- the finder ---- */

const char *sym_finder_home_debug(const struct sym_finder *f)
{
	return f->home_debug;
}

int sym_finder_uses_debuginfod(const struct sym_finder *f)
{
	return f->use_debuginfod;
}

const char *sym_finder_binary(const struct sym_finder *f)
{
	return f->binary;
}

void sym_finder_want_dwarf(struct sym_finder *f)
{
	f->dwarf_wanted = 1;
}

void sym_finder_symbols_first(struct sym_finder *f)
{
	f->symbols_first = 1;
}

void sym_finder_names_only(struct sym_finder *f, int names_only)
{
	f->names_only = names_only;
}

/*
 * A file whose copy holds only the units an earlier pass asked for,
 * asked about again: reported anew to a Dwfl of its own, whose debug
 * file is then copied whole. The Dwfl before stays until the file is
 * freed: unwinders were handed its Elf. 1 when the module changed.
 */
static int report_whole(struct found *fo)
{
	struct sym_file *sf = &fo->pub;
	struct sym_tried tried = { .len = 0 };
	Dwfl *dwfl = sf->dwfl;
	Dwfl_Module *mod = sf->mod;
	GElf_Addr bias = sf->bias;
	int fd;

	if (pki_grow(&fo->retired, &fo->retired_cap, fo->nretired + 1,
		     sizeof(*fo->retired)) < 0 ||
	    (fd = open(sf->path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (report_file(fo, sf->path, fd, &tried)) {
		sf->dwfl = dwfl;
		sf->mod = mod;
		sf->bias = bias;
		return 0;
	}
	fo->retired[fo->nretired++] = dwfl;
	fo->cut = 0;
	return 1;
}

int sym_file_dwarf_cut(const struct sym_file *sf)
{
	return (((const struct found *)sf)->cut & SYM_DEBUG_CUT_UNITS) != 0;
}

int sym_finder_will_ask(struct sym_finder *f, const struct sym_file *sf,
			const uint64_t *addrs, size_t n)
{
	struct found *fo = (struct found *)sf;
	int lacking = fo->cut & (f->names_only ? SYM_DEBUG_CUT_UNITS : ~0);

	if (fo->plain_job)
		sym_debug_plain_ask(fo->plain_job, addrs, n);
	else if (lacking && n)
		return report_whole(fo);
	return 0;
}

static int add_dirs(struct sym_finder *f, const char *list, size_t *cap)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ":");
		char *dir = NULL;

		if (len) {
			char *rel = strndup(p, len);
			char cwd[4096];

			if (rel && rel[0] != '/' && getcwd(cwd, sizeof(cwd)))
				dir = join(cwd, "/", rel);
			else if (rel)
				dir = strdup(rel);
			free(rel);
			if (!dir || pki_grow(&f->dirs, cap, f->ndirs + 1,
					    sizeof(*f->dirs)) < 0) {
				free(dir);
				return -1;
			}
			f->dirs[f->ndirs++] = dir;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* libdwfl's path: the usual ":.debug:/usr/lib/debug", then ours. */
static char *make_debuginfo_path(const struct sym_finder *f)
{
	size_t len = sizeof(":.debug:") + strlen(f->system_debug), i;
	char *path;

	for (i = 0; i < f->ndirs; i++)
		len += strlen(f->dirs[i]) + 1;
	path = malloc(len);
	if (!path)
		return NULL;
	strcpy(path, ":.debug:");
	strcat(path, f->system_debug);
	for (i = 0; i < f->ndirs; i++) {
		strcat(path, ":");
		strcat(path, f->dirs[i]);
	}
	return path;
}

static char *dup_or_null(const char *s, int *failed)
{
	char *d;

	if (!s || !*s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

static void finder_free(struct sym_finder *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nfiles; i++)
		file_free(f->files[i]);
	free(f->files);
	for (i = 0; i < f->ndirs; i++)
		free(f->dirs[i]);
	free(f->dirs);
	free(f->binary);
	free(f->symfs);
	free(f->home_debug);
	free(f->system_debug);
	free(f->debuginfo_path);
	free(f->cache_dir);
#ifdef HAVE_DEBUGINFOD
	if (f->debuginfod)
		dbgd.end(f->debuginfod);
#endif
	free(f);
}

/* $PROFKIT_CACHE_DIR (empty: none), else $XDG_CACHE_HOME/profkit, else
 * $HOME/.cache/profkit, into *dir (NULL: none); -1 when out of memory. */
static int cache_dir(const char *home, char **dir)
{
	const char *env = getenv("PROFKIT_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");

	if (env)
		*dir = *env ? strdup(env) : NULL;
	else if (xdg && *xdg == '/')
		*dir = join(xdg, "/profkit", NULL);
	else if (home && *home)
		*dir = join(home, "/.cache/profkit", NULL);
	else
		return 0;
	return env && !*env ? 0 : *dir ? 0 : -1;
}

static struct sym_finder *finder_new(const char *binary, const char *symfs,
				     const char *symbol_path)
{
	struct sym_finder *f = calloc(1, sizeof(*f));
	const char *home = getenv("HOME");
	size_t dirs_cap = 0;
	int failed = 0;

	if (!f)
		return NULL;
	f->binary = dup_or_null(binary, &failed);
	f->symfs = dup_or_null(symfs, &failed);
	f->use_debuginfod = getenv("DEBUGINFOD_URLS") &&
			    *getenv("DEBUGINFOD_URLS");
	if (home && *home && !(f->home_debug = join(home, "/.debug", NULL)))
		failed = 1;
	if (!failed && cache_dir(home, &f->cache_dir))
		failed = 1;
	f->system_debug = join(f->symfs ? f->symfs : "", "/usr/lib/debug",
			       NULL);
	if (failed || !f->system_debug ||
	    add_dirs(f, symbol_path, &dirs_cap) ||
	    add_dirs(f, getenv("PROFKIT_SYMBOL_PATH"), &dirs_cap) ||
	    !(f->debuginfo_path = make_debuginfo_path(f))) {
		finder_free(f);
		return NULL;
	}
	f->callbacks.find_elf = no_find_elf;
	f->callbacks.find_debuginfo = find_debuginfo;
	f->callbacks.section_address = dwfl_offline_section_address;
	f->callbacks.debuginfo_path = &f->debuginfo_path;
	elf_version(EV_CURRENT);
	return f;
}

static int same_string(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Whether two finders follow the same rules. */
static int same_rules(const struct sym_finder *a, const struct sym_finder *b)
{
	size_t i;

	if (!same_string(a->binary, b->binary) ||
	    !same_string(a->symfs, b->symfs) ||
	    !same_string(a->home_debug, b->home_debug) ||
	    !same_string(a->cache_dir, b->cache_dir) ||
	    a->use_debuginfod != b->use_debuginfod ||
	    a->ndirs != b->ndirs)
		return 0;
	for (i = 0; i < a->ndirs; i++)
		if (strcmp(a->dirs[i], b->dirs[i]) != 0)
			return 0;
	return 1;
}

/* The context keeps the finders (each opens its files once) until it is
 * freed; this is the key of their list in it. */
static const char finders_key;

static void finders_free(void *list)
{
	struct sym_finder *f = list;

	while (f) {
		struct sym_finder *next = f->next;

		finder_free(f);
		f = next;
	}
}

struct sym_finder *sym_finder_get(struct pk_context *ctx, const char *binary,
				  const char *symfs, const char *symbol_path)
{
	struct sym_finder **list = (struct sym_finder **)
		pki_context_slot(ctx, &finders_key, finders_free);
	struct sym_finder *f, *old;

	if (!list)
		return NULL;
	f = finder_new(binary, symfs, symbol_path);
	if (!f)
		return NULL;
	for (old = *list; old; old = old->next) {
		if (same_rules(old, f)) {
			finder_free(f);
			return old;
		}
	}
	f->next = *list;
	*list = f;
	return f;
}
