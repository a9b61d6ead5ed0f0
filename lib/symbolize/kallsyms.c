/* SPDX-License-Identifier: MIT */
/* Kernel symbols from kallsyms (kallsyms.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "finder.h"
#include "internal.h"
#include "kallsyms.h"

/* The number of lines of text, to size the table once. */
static size_t count_lines(const char *text)
{
	size_t n = 1;

	while ((text = strchr(text, '\n')))
		text++, n++;
	return n;
}

/* The start of the line after p's, or the text's end. */
static char *next_line(char *p)
{
	char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

/* The end of the name at p: a blank, a line end or the text's end. */
static char *name_end(char *p)
{
	while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
		p++;
	return p;
}

/*
 * "ffffffff81000000 T _text" or "ffffffffc0a01000 t fn\t[module]".
 * kallsyms has no sizes: a symbol ends where the next one (of any type)
 * begins. Only text symbols are kept; among aliases a global one wins.
 * A large table: scanned once per line, no string functions per field.
 */
static int parse_kallsyms(struct symtab *t)
{
	size_t i, kept = 0;
	char *p = t->text, *next;
	int all_zero = 1;

	if (pki_grow(&t->v, &t->cap, count_lines(t->text), sizeof(*t->v)) < 0)
		return -1;
	for (; *p; p = next) {
		unsigned rank;
		uint64_t addr;
		char *name, *end, type;

		if (sym_parse_hex(&p, &addr) || *p != ' ' || !p[1] ||
		    p[2] != ' ') {
			next = next_line(p);
			continue;
		}
		type = p[1];
		rank = type == 'T' || type == 'W' ? 0 :
			type == 't' || type == 'w' ? 1 : 2;
		name = p + 3;
		end = name_end(name);
		next = *end == '\n' ? end + 1 : next_line(end);
		*end = '\0';
		if (!*name)
			continue;
		if (addr)
			all_zero = 0;
		if (symtab_push(t, addr, 0, name,
				(rank << 30) | (unsigned)(t->n & 0x3fffffff)))
			return -1;
	}
	t->hidden = t->n && all_zero;
	symtab_sort(t);
	for (i = 0; i < t->n; i++)
		if (!kept || t->v[kept - 1].start != t->v[i].start)
			t->v[kept++] = t->v[i];
	for (i = 0; i < kept; i++)
		t->v[i].end = i + 1 < kept ? t->v[i + 1].start :
			(t->v[i].start | 0xfff) + 0x1001;
	t->n = 0;
	for (i = 0; i < kept; i++)
		if (t->v[i].rank >> 30 != 2)
			t->v[t->n++] = t->v[i];
	return 0;
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
 * only reads and parses into a table of its own (symtab_load touches no
 * shared state); kernel_table adopts it, joining, when it gets there.
 */
static void *prefetch_main(void *arg)
{
	struct sym_kernel *k = arg;

	k->prefetch.tab = symtab_load(k->prefetch.path, k->prefetch.max,
				      parse_kallsyms);
	return NULL;
}

void sym_kernel_join(struct sym_kernel *k)
{
	if (k->prefetch.running)
		pthread_join(k->prefetch.thread, NULL);
	k->prefetch.running = 0;
}

/* The prefetched table of path, if that is what the thread read. */
static struct symtab *prefetched(struct sym_kernel *k, const char *path)
{
	struct symtab *t;

	if (!k->prefetch.path || strcmp(k->prefetch.path, path) != 0)
		return NULL;
	sym_kernel_join(k);
	t = k->prefetch.tab;
	k->prefetch.tab = NULL;
	return t;
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
	k->prefetch.max = pk_context_max_memory(k->ctx);
	if (path && access(path, R_OK) == 0 &&
	    (k->prefetch.path = strdup(path)) &&
	    pthread_create(&k->prefetch.thread, NULL, prefetch_main, k) == 0)
		k->prefetch.running = 1;
	free(cache);
}

/* The table of path, read once. */
static struct symtab *kernel_table(struct sym_kernel *k, const char *path)
{
	struct symtab *t;
	size_t i;

	for (i = 0; i < k->ntabs; i++)
		if (strcmp(k->tabs[i]->path, path) == 0)
			return k->tabs[i];
	if (access(path, R_OK) != 0)
		return NULL;
	t = prefetched(k, path);
	if (!t)
		t = symtab_load(path, pk_context_max_memory(k->ctx),
				parse_kallsyms);
	if (!t)
		return NULL;
	if (pki_grow(&k->tabs, &k->tabs_cap, k->ntabs + 1,
		    sizeof(*k->tabs)) < 0) {
		symtab_free(t);
		return NULL;
	}
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
	symtab_free(k->prefetch.tab);
	free(k->prefetch.path);
	for (i = 0; i < k->ntabs; i++)
		symtab_free(k->tabs[i]);
	free(k->tabs);
	free(k->running_build_id);
}
