/* SPDX-License-Identifier: MIT */
/* JIT code's symbols from perf-PID.map files (perf-map.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "perf-map.h"

/* "START SIZE name with spaces" in hex, as JITs write /tmp/perf-PID.map. */
static int parse_perf_map(struct symtab *t)
{
	char *p = t->text, *next;

	for (; *p; p = next) {
		uint64_t start, size;
		char *name, *end;

		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		else
			next = p + strlen(p);
		if (sym_parse_hex(&p, &start) || *p != ' ')
			continue;
		p++;
		if (sym_parse_hex(&p, &size) || *p != ' ' || !size ||
		    start + size < start)
			continue;
		name = p + 1;
		end = name + strlen(name);
		while (end > name && (end[-1] == ' ' || end[-1] == '\r'))
			*--end = '\0';
		/* a later entry for the same start wins: code was replaced */
		if (*name && symtab_push(t, start, start + size, name,
					 (unsigned)(t->n & 0x7fffffff)))
			return -1;
	}
	symtab_sort(t);
	return 0;
}

/* Where the "->" after s[from] joining an unfoldall chain is, or NULL;
 * C++'s "operator->" joins nothing. */
static const char *chain_arrow(const char *s, const char *from)
{
	static const char op[] = "operator";
	const char *a;

	for (a = from; (a = strstr(a, "->")); a += 2)
		if (a - s < (ptrdiff_t)sizeof(op) - 1 ||
		    memcmp(a - (sizeof(op) - 1), op, sizeof(op) - 1) != 0)
			return a;
	return NULL;
}

size_t sym_perf_map_frames(const char *name, struct sym_frame *frames,
			   size_t max)
{
	const char *part = name, *arrow;
	size_t n = 0, i;

	memset(&frames[0], 0, sizeof(frames[0]));
	frames[0].name = name;
	if (!chain_arrow(name, name))
		return 1;
	/* outermost first, as written; reversed below */
	for (; n < max; part = arrow + 2) {
		arrow = chain_arrow(name, part);
		memset(&frames[n], 0, sizeof(frames[n]));
		frames[n].qualified = arrow ? strndup(part, (size_t)(arrow - part)) :
			strdup(part);
		if (!frames[n++].qualified)
			goto fail;
		if (!arrow)
			break;
	}
	for (i = 0; i < n / 2; i++) {
		struct sym_frame t = frames[i];

		frames[i] = frames[n - 1 - i];
		frames[n - 1 - i] = t;
	}
	return n;
fail:
	for (i = 0; i < n; i++)
		free(frames[i].qualified);
	memset(&frames[0], 0, sizeof(frames[0]));
	frames[0].name = name;
	return 1;
}

struct map_try {
	uint64_t max;
	struct symtab *tab;
	struct sym_tried *tried;
};

static int try_map(void *arg, const char *path)
{
	struct map_try *mt = arg;

	mt->tab = symtab_load(path, mt->max, parse_perf_map);
	if (mt->tab)
		return 0;
	sym_tried_add(mt->tried, path, NULL);
	return -1;
}

struct symtab *sym_perf_map_load(struct pk_context *ctx,
				 const struct sym_finder *f, const char *file,
				 struct sym_tried *tried)
{
	struct map_try mt = { pk_context_max_memory(ctx), NULL, tried };

	/* as for ELF files: --symfs, the symbol path, the path itself */
	if (!sym_finder_by_name(f, file, try_map, &mt))
		return mt.tab;
	return NULL;
}
