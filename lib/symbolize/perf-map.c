/* SPDX-License-Identifier: MIT */
/* JIT code's symbols from perf-PID.map files (perf-map.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
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

struct map_try {
	uint64_t max;
	struct symtab *tab;
	struct sym_tried tried;
};

static int try_map(void *arg, const char *path)
{
	struct map_try *mt = arg;

	mt->tab = symtab_load(path, mt->max, parse_perf_map);
	if (mt->tab)
		return 0;
	sym_tried_add(&mt->tried, path, NULL);
	return -1;
}

struct symtab *sym_perf_map_load(struct pk_context *ctx,
				 const struct sym_finder *f, const char *file)
{
	struct map_try mt = { pk_context_max_memory(ctx), NULL, { .len = 0 } };

	/* as for ELF files: --symfs, the symbol path, the path itself */
	if (!sym_finder_by_name(f, file, try_map, &mt))
		return mt.tab;
	pk_warn(ctx, "symbolize: no JIT symbols for '%s': tried %s%s", file,
		mt.tried.buf, mt.tried.more ? ", ..." : "");
	return NULL;
}
