/* SPDX-License-Identifier: MIT */
/*
 * profkit: "profkit convert ..." runs profkit-convert, as git does;
 * "profkit help convert" is "profkit-convert --help".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profkit/profkit.h>

/* name and summary, from the one list of commands (cmd/commands.am) */
static const char *const commands[][2] = {
#include "cmd/command-list.h"
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: profkit COMMAND [ARGS...]\n"
		"       profkit help [COMMAND]\n"
		"       profkit --help | --version\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-12s %s\n", commands[i][0], commands[i][1]);
	fprintf(fp, "\n'profkit COMMAND --help' or 'man profkit-COMMAND' tells more.\n");
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 256], name[128];
	char *help_argv[] = { NULL, NULL, (char *)"--help", NULL };
	ssize_t n;
	char *slash;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("profkit %s\n", pk_version());
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		argv = help_argv;
	}
	snprintf(name, sizeof(name), "profkit-%s", argv[1]);
	argv[1] = name;
	/* the commands installed beside this one first, then PATH */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s", self, name);
			execv(path, argv + 1);
		}
	}
	execvp(name, argv + 1);
	fprintf(stderr, "profkit: '%s' is not a profkit command (%s); "
		"see 'profkit --help'\n", argv[1] + strlen("profkit-"), strerror(errno));
	return 2;
}
