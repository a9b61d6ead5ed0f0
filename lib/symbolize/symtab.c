/* SPDX-License-Identifier: MIT */
/* Sorted address tables (symtab.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "symtab.h"

/* Overlapping entries looked at below the last one starting at or
 * below an address: overlaps are rare and short. */
#define OVERLAP_MAX 16

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* kallsyms and most symbol tables come sorted: a look is cheaper than
 * qsort (which is stable here: sorted input stays as it is) */
void symtab_sort(struct symtab *t)
{
	size_t i = 1;

	while (i < t->n && sym_cmp(&t->v[i - 1], &t->v[i]) <= 0)
		i++;
	if (i < t->n)
		qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
}

void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->text);
	free(t->v);
	free(t);
}

int sym_parse_hex(char **pp, uint64_t *v)
{
	char *p = *pp;
	size_t n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (; pki_hexval(*p) >= 0; p++, n++) {
		if (n == 16)
			return -1;
		*v = (*v << 4) | (uint64_t)pki_hexval(*p);
	}
	*pp = p;
	return n ? 0 : -1;
}

int symtab_push(struct symtab *t, uint64_t start, uint64_t end,
		const char *name, uint64_t rank)
{
	if (pki_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -1;
	t->v[t->n].start = start;
	t->v[t->n].end = end;
	t->v[t->n].name = name;
	t->v[t->n].rank = rank;
	t->v[t->n].sized = end != 0;
	t->v[t->n].dwarf_names = 0;
	t->n++;
	return 0;
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = pki_count_at_or_below(t->v, t->n, sizeof(*t->v),
					 offsetof(struct sym, start), addr);
	size_t i;

	for (i = lo; i > 0 && lo - i < OVERLAP_MAX; i--)
		if (addr < t->v[i - 1].end)
			return &t->v[i - 1];
	return NULL;
}

int sym_slurp(const char *path, size_t max, char **data, size_t *size)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto fail;	/* a FIFO named as a perf map would block */
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap &&
		    (cap >= max || pki_grow(&buf, &cap, len + 65536, 1) < 0))
			goto fail;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*data = buf;
	*size = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}

struct symtab *symtab_load(const char *path, uint64_t max,
			   int (*parse)(struct symtab *))
{
	struct symtab *t = calloc(1, sizeof(*t));
	size_t size;

	if (!t)
		return NULL;
	t->path = strdup(path);
	if (!t->path ||
	    sym_slurp(path, max > SIZE_MAX ? SIZE_MAX : (size_t)max,
		      &t->text, &size) ||
	    parse(t)) {
		symtab_free(t);
		return NULL;
	}
	return t;
}
