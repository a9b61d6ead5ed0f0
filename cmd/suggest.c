/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean ...?": the known name nearest to a mistyped one, as git
 * suggests a command. Case is ignored. A name found inside what was typed
 * ("flamegraph.svg"), or holding it ("flame", "chrome"), is meant; else
 * the nearest by edit distance (a swap of neighbours is one edit), when
 * at most about a third of the name is wrong; else the other names
 * people give a format ("svg" for a flame graph).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* What people call formats that profkit names otherwise. */
static const struct {
	const char *typed, *meant;
} other_names[] = {
	{ "svg", "flamegraph" },
	{ "perfetto", "chrome-trace" },
	{ "graphviz", "dot" },
	{ "kcachegrind", "callgrind" },
	{ "qcachegrind", "callgrind" },
	{ "collapsed", "folded" },
	{ "stackcollapse", "folded" },
	{ "gecko", "firefox" },
	{ "proto", "pprof" },
};

#define NAME_MAX_LEN 64

static void lower(const char *s, char *out)
{
	size_t i;

	for (i = 0; s[i] && i < NAME_MAX_LEN - 1; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

/* Damerau-Levenshtein distance (optimal string alignment) of a and b. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], best;

			best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *cmd_closest_name(const char *typed, const char *const *names,
			     size_t n)
{
	char t[NAME_MAX_LEN], name[NAME_MAX_LEN];
	const char *best = NULL, *inside = NULL;
	size_t best_dist = (size_t)-1, i, j;

	lower(typed, t);
	if (strlen(typed) >= NAME_MAX_LEN || !*t)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t dist;

		lower(names[i], name);
		if (strlen(t) >= 3 && (strstr(name, t) || strstr(t, name)) &&
		    (!inside || strlen(names[i]) < strlen(inside)))
			inside = names[i];
		dist = edit_distance(t, name);
		if (dist < best_dist) {
			best_dist = dist;
			best = names[i];
		}
	}
	if (inside)
		return inside;
	if (best && best_dist <= 1 + strlen(t) / 3)
		return best;
	for (j = 0; j < sizeof(other_names) / sizeof(other_names[0]); j++)
		for (i = 0; strcmp(t, other_names[j].typed) == 0 && i < n; i++)
			if (strcmp(names[i], other_names[j].meant) == 0)
				return names[i];
	return NULL;
}
