/* SPDX-License-Identifier: MIT */
/* Sorted address tables (symtab.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "util/radix.h"
#include "symtab.h"

/* Entries sorted by insertion before they are merged. */
#define SORT_RUN 16

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int sym_before(const struct sym *a, const struct sym *b)
{
	return a->start != b->start ? a->start < b->start : a->rank < b->rank;
}

static void insertion_sort(struct sym *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct sym x = v[i];

		for (j = i; j > 0 && sym_before(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The sorted a (na entries) and b (nb) into out, a's first of equals. */
static void merge(const struct sym *a, size_t na, const struct sym *b,
		  size_t nb, struct sym *out)
{
	while (na && nb) {
		if (sym_before(b, a)) {
			*out++ = *b++;
			nb--;
		} else {
			*out++ = *a++;
			na--;
		}
	}
	memcpy(out, a, na * sizeof(*a));
	memcpy(out + na, b, nb * sizeof(*b));
}

/* A stable merge sort of v, runs of SORT_RUN merged back and forth with
 * a buffer: 0, or -1 (v unchanged) when out of memory. */
static int merge_sort(struct sym *v, size_t n)
{
	struct sym *buf = malloc(n * sizeof(*buf)), *from = v, *to = buf, *t;
	size_t width, i;

	if (!buf)
		return -1;
	for (i = 0; i < n; i += SORT_RUN)
		insertion_sort(v + i, n - i < SORT_RUN ? n - i : SORT_RUN);
	for (width = SORT_RUN; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t mid = n - i < width ? n : i + width;
			size_t end = n - mid < width ? n : mid + width;

			merge(from + i, mid - i, from + mid, end - mid, to + i);
		}
		t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(buf);
	return 0;
}

/* Entry (sorted[i] & mask) of v put at i, for every i, by following
 * each cycle of the permutation (a key is set to i once its entry is
 * there). */
static void permute(struct sym *v, uint64_t *sorted, size_t n, uint64_t mask)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		struct sym first;

		if ((sorted[i] & mask) == i)
			continue;
		first = v[i];
		for (j = i;; j = k) {
			k = (size_t)(sorted[j] & mask);
			sorted[j] = j;
			if (k == i)
				break;
			v[j] = v[k];
		}
		v[j] = first;
	}
}

/*
 * Sort t stably by start, then rank: keys of each start (less the least)
 * above its index radix sorted, the entries moved in place, then each
 * run of one start (aliases, a few) put in rank order; where start and
 * index do not fit in 64 bits, a merge sort. 0, or -1 (t unchanged) when
 * out of memory. libc's symbol table (7k functions, locals before
 * globals) took qsort, calling sym_cmp through a pointer and moving
 * pointers to the entries, a tenth of a warm gperftools conversion.
 */
static int radix_sort(struct symtab *t)
{
	unsigned index_bits = pki_bit_length(t->n - 1);
	uint64_t low = UINT64_MAX, high = 0, *keys, *sorted = NULL;
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		low = t->v[i].start < low ? t->v[i].start : low;
		high = t->v[i].start > high ? t->v[i].start : high;
	}
	if (index_bits >= 64 || pki_bit_length(high - low) + index_bits > 64)
		return merge_sort(t->v, t->n);
	keys = malloc(2 * t->n * sizeof(*keys));
	for (i = 0; keys && i < t->n; i++)
		keys[i] = (t->v[i].start - low) << index_bits | i;
	if (keys)
		sorted = pki_radix_sort(keys, keys + t->n, t->n, index_bits,
					pki_bit_length(high - low));
	if (!sorted) {
		free(keys);
		return merge_sort(t->v, t->n);
	}
	permute(t->v, sorted, t->n, ((uint64_t)1 << index_bits) - 1);
	free(keys);
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->v[j].start == t->v[i].start; j++)
			;
		if (j - i <= SORT_RUN)
			insertion_sort(t->v + i, j - i);
		else if (merge_sort(t->v + i, j - i))
			qsort(t->v + i, j - i, sizeof(*t->v), sym_cmp);
	}
	return 0;
}

/* kallsyms and most symbol tables come sorted: a look is cheaper than
 * a sort (a stable one: sorted input stays as it is) */
void symtab_sort(struct symtab *t)
{
	size_t i = 1;

	while (i < t->n && sym_cmp(&t->v[i - 1], &t->v[i]) <= 0)
		i++;
	if (i < t->n && radix_sort(t))
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

	for (i = lo; i > 0 && lo - i < SYMTAB_OVERLAP_MAX; i--)
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
