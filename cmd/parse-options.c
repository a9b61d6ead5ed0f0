/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profkit/profkit.h>

#include "cmd.h"
#include "parse-options.h"

/* "  LEFT   help" in two columns; a long LEFT has a line of its own */
static void print_row(FILE *fp, const char *left, const char *help,
		      const char *flag)
{
	if (strlen(left) > 24)
		fprintf(fp, "  %s\n  %-24s  %s", left, "", help);
	else
		fprintf(fp, "  %-24s  %s", left, help);
	if (flag)
		fprintf(fp, " (--%s)", flag);
	fputc('\n', fp);
}

static void print_option(FILE *fp, const struct option *o)
{
	char left[64];
	int n = 0;

	if (o->short_name && o->long_name)
		n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name,
			     o->long_name);
	else if (o->short_name)
		n = snprintf(left, sizeof(left), "-%c", o->short_name);
	else
		n = snprintf(left, sizeof(left), "    --%s", o->long_name);
	if (o->argh && n > 0 && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n,
			 o->long_name ? "=%s" : " %s", o->argh);
	print_row(fp, left, o->help, NULL);
}

/* ---- library options by key ---- */

/* Is the key's scope one of the command's (info->key_scopes)? */
static int listed_scope(const struct command_info *info, const char *key)
{
	const char *colon = strchr(key, ':'), *s = info->key_scopes;
	size_t n = colon ? (size_t)(colon - key) : 0;

	if (!s || !n)
		return 0;
	if (strcmp(s, "*") == 0) {	/* a format's: its name is one */
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)n, key);
		return pk_reader_find(name) || pk_writer_find(name);
	}
	while (*s) {
		size_t len = strcspn(s, " ");

		if (len == n && strncmp(s, key, n) == 0)
			return 1;
		s += len + (s[len] == ' ');
	}
	return 0;
}

/* The long option of the command that sets key, or NULL. */
static const char *flag_of(const struct option *opts, const char *key)
{
	const struct option *o;

	for (o = opts; o->type != OPTION_END; o++)
		if (o->key && strcmp(o->key, key) == 0)
			return o->long_name;
	return NULL;
}

/* "pprof:labels=WHICH", "folded:pid" */
static void key_usage(const struct pk_option_info *k, char *buf, size_t size)
{
	const char *value = pk_option_value_name(k);

	if (pk_option_type_of(k) == PK_OPTION_FLAG)
		snprintf(buf, size, "%s", pk_option_key(k));
	else
		snprintf(buf, size, "%s=%s", pk_option_key(k), value ? value : "VALUE");
}

/* The scope of k as a heading, when it is not the one before it. */
static const char *new_scope(const struct pk_option_info *k,
			     const struct pk_option_info *before, size_t *len)
{
	const char *key = pk_option_key(k);

	*len = strcspn(key, ":");
	if (before && strncmp(pk_option_key(before), key, *len + 1) == 0)
		return NULL;
	return key;
}

static void print_keys(FILE *fp, const struct option *opts,
		       const struct command_info *info)
{
	const struct pk_option_info *k = NULL, *before = NULL;
	char left[96];
	size_t n;

	while ((k = pk_option_next(NULL, k))) {
		const char *scope;

		if (!listed_scope(info, pk_option_key(k)))
			continue;
		if (!before)
			fprintf(fp, "\nOptions by key (-X KEY=VALUE; a flag's -X KEY is KEY=1):\n");
		if ((scope = new_scope(k, before, &n)))
			fprintf(fp, " %.*s\n", (int)n, scope);
		key_usage(k, left, sizeof(left));
		print_row(fp, left, pk_option_help(k), flag_of(opts, pk_option_key(k)));
		before = k;
	}
}

static void usage_with_options(const struct option *opts,
			       const struct command_info *info, int to_stderr)
{
	FILE *fp = to_stderr ? stderr : stdout;
	const struct option *o;
	size_t i;

	for (i = 0; info->usage[i]; i++)
		fprintf(fp, "%s %s\n", i ? "   or:" : "usage:", info->usage[i]);
	if (to_stderr) {
		fprintf(fp, "Try '%s --help' for more.\n", info->name);
		return;
	}
	fprintf(fp, "\n%s\n", info->summary);
	for (o = opts; o->type != OPTION_END; o++) {
		if (o->type == OPTION_GROUP)
			fprintf(fp, "\n%s\n", o->help);
		else
			print_option(fp, o);
	}
	fprintf(fp, "  %-24s  %s\n  %-24s  %s\n", "-h, --help",
		"show this help and exit", "    --version",
		"show the version and exit");
	print_keys(fp, opts, info);
	if (info->examples)
		fprintf(fp, "\nExamples:\n%s", info->examples);
	fprintf(fp, "\nSee %s(1) for the whole manual.\n", info->name);
}

/* troff-escape: a backslash and a leading dot or quote would be markup */
static void troff_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '-')
			putchar('\\');
		putchar(*s);
	}
}

/* The keys --help lists, as a subsection of the man page's OPTIONS. */
static void print_troff_keys(const struct option *opts,
			     const struct command_info *info)
{
	const struct pk_option_info *k = NULL, *before = NULL;
	const char *flag;
	char left[96];
	size_t n;

	while ((k = pk_option_next(NULL, k))) {
		if (!listed_scope(info, pk_option_key(k)))
			continue;
		if (!before)
			printf(".SS Options by key\n"
			       "Set with \\fB\\-X\\fR \\fIKEY\\fR=\\fIVALUE\\fR "
			       "(a flag's \\fB\\-X\\fR \\fIKEY\\fR is "
			       "\\fIKEY\\fR=1), by the flag named, or by a "
			       "program with pk_options_set, as\n.BR libprofkit (3)\n"
			       "says.\n");
		if (new_scope(k, before, &n)) {
			snprintf(left, sizeof(left), "%.*s", (int)n, pk_option_key(k));
			printf(".PP\n.I ");
			troff_text(left);
			putchar('\n');
		}
		key_usage(k, left, sizeof(left));
		printf(".TP\n.B ");
		troff_text(left);
		putchar('\n');
		troff_text(pk_option_help(k));
		if ((flag = flag_of(opts, pk_option_key(k)))) {
			printf(" (\\-\\-");
			troff_text(flag);
			putchar(')');
		}
		printf(".\n");
		before = k;
	}
}

/*
 * The OPTIONS section of the man page, from the same table as --help
 * (as curl does), so the two never disagree. The build substitutes it
 * for @OPTIONS@ in doc/NAME.1.in.
 */
static void print_troff_options(const struct option *opts,
				const struct command_info *info)
{
	const struct option *o;

	for (o = opts; o->type != OPTION_END; o++) {
		if (o->type == OPTION_GROUP) {
			printf(".SS ");
			troff_text(o->help);
			putchar('\n');
			continue;
		}
		printf(".TP\n.B ");
		if (o->short_name)
			printf("\\-%c%s", o->short_name, o->long_name ? ", " : "");
		if (o->long_name) {
			printf("\\-\\-");
			troff_text(o->long_name);
		}
		if (o->argh) {
			printf(o->long_name ? "=\\fI" : " \\fI");
			troff_text(o->argh);
			printf("\\fR");
		}
		putchar('\n');
		troff_text(o->help);
		printf(".\n");
	}
	printf(".TP\n.B \\-h, \\-\\-help\nShow a summary of the options and exit.\n"
	       ".TP\n.B \\-\\-version\nShow the version and exit.\n");
	print_troff_keys(opts, info);
}

/*
 * The options as the bash completion offers them, in --help's order:
 * "-o --output=" ('=': takes a value). The build makes the completion's
 * lists from this, as it makes the man pages from --help-troff.
 */
static void print_option_words(const struct option *opts)
{
	const struct option *o;
	const char *sep = "";

	for (o = opts; o->type != OPTION_END; o++) {
		if (o->type == OPTION_GROUP)
			continue;
		if (o->short_name) {
			printf("%s-%c", sep, o->short_name);
			sep = " ";
		}
		if (o->long_name) {
			printf("%s--%s%s", sep, o->long_name, o->argh ? "=" : "");
			sep = " ";
		}
	}
	printf("%s-h --help --version\n", sep);
}

/*
 * Every library option, as the bash completion completes -X: a line
 * "KEY[=] FLAG CHOICE..." ('=': takes a value; FLAG "--name" or "-"
 * when it has none; the words of a choice).
 */
static void print_keys_words(void)
{
	const struct pk_option_info *k = NULL;
	const char *c;
	size_t i;

	while ((k = pk_option_next(NULL, k))) {
		printf("%s%s %s%s", pk_option_key(k),
		       pk_option_type_of(k) == PK_OPTION_FLAG ? "" : "=",
		       pk_option_flag(k) ? "--" : "-",
		       pk_option_flag(k) ? pk_option_flag(k) : "");
		for (i = 0; (c = pk_option_choice(k, i)); i++)
			printf(" %s", c);
		putchar('\n');
	}
}

__attribute__((format(printf, 3, 4)))
static void bad_usage(const struct option *opts,
		      const struct command_info *info, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", info->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_with_options(opts, info, 1);
	exit(2);
}

static int apply(const struct option *o, const char *arg, int negated)
{
	switch (o->type) {
	case OPTION_FLAG:
		*(int *)o->value = !negated;
		return 0;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTION_CALLBACK:	/* a negated callback flag gets "0" */
		return o->cb(o, negated ? "0" : arg);
	default:
		return -1;
	}
}

static const struct option *find_long(const struct option *opts,
				      const char *name, size_t len,
				      int *negated)
{
	const struct option *o;

	*negated = 0;
	for (o = opts; o->type != OPTION_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    strncmp(o->long_name, name, len) == 0)
			return o;
	if (len > 3 && strncmp(name, "no-", 3) == 0)
		for (o = opts; o->type != OPTION_END; o++)
			if ((o->type == OPTION_FLAG ||
			     (o->type == OPTION_CALLBACK && !o->argh)) &&
			    o->long_name &&
			    strlen(o->long_name) == len - 3 &&
			    strncmp(o->long_name, name + 3, len - 3) == 0) {
				*negated = 1;
				return o;
			}
	return NULL;
}

static int parse_long(int argc, char **argv, int *i,
		      const struct option *opts,
		      const struct command_info *info)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *o;
	const char *arg = NULL;
	int negated;

	if (len == 4 && strncmp(name, "help", 4) == 0) {
		usage_with_options(opts, info, 0);
		exit(0);
	}
	if (len == 10 && strncmp(name, "help-troff", 10) == 0) {
		print_troff_options(opts, info);
		exit(0);
	}
	if (len == 12 && strncmp(name, "list-options", 12) == 0) {
		print_option_words(opts);
		exit(0);
	}
	if (len == 9 && strncmp(name, "list-keys", 9) == 0) {
		print_keys_words();
		exit(0);
	}
	if (len == 7 && strncmp(name, "version", 7) == 0) {
		printf("%s (profkit) %s\n", info->name, pk_version());
		exit(0);
	}
	o = find_long(opts, name, len, &negated);
	if (!o)
		bad_usage(opts, info, "unknown option '%s'", argv[*i]);
	if (o->argh) {
		if (eq)
			arg = eq + 1;
		else if (*i + 1 < argc)
			arg = argv[++*i];
		else
			bad_usage(opts, info, "option '--%s' needs a value",
				  o->long_name);
	} else if (eq) {
		bad_usage(opts, info, "option '--%s' takes no value",
			  o->long_name);
	}
	return apply(o, arg, negated);
}

static int parse_short(int argc, char **argv, int *i,
		       const struct option *opts,
		       const struct command_info *info)
{
	const char *p;

	for (p = argv[*i] + 1; *p; p++) {
		const struct option *o;
		char flag[3] = { '-', *p, 0 };

		if (*p == 'h') {
			usage_with_options(opts, info, 0);
			exit(0);
		}
		for (o = opts; o->type != OPTION_END; o++)
			if (o->short_name == *p)
				break;
		if (o->type == OPTION_END)
			bad_usage(opts, info, "unknown option '%s'", flag);
		if (!o->argh) {
			if (apply(o, NULL, 0))
				return -1;
			continue;
		}
		if (p[1])
			return apply(o, p + 1, 0);
		if (*i + 1 >= argc)
			bad_usage(opts, info, "option '%s' needs a value", flag);
		return apply(o, argv[++*i], 0);
	}
	return 0;
}

/*
 * The table with each OPTION_KEY row made the option its declaration
 * names: a callback setting the key, as OPT_PK's rows are. Exits when a
 * key is declared without a flag (the command's table is wrong).
 */
static struct option *resolve_keys(const struct option *opts)
{
	struct option *table, *o;
	size_t n = 0;

	while (opts[n++].type != OPTION_END)
		;
	table = malloc(n * sizeof(*table));
	if (!table) {
		cmd_error("out of memory");
		exit(1);
	}
	memcpy(table, opts, n * sizeof(*table));
	for (o = table; o->type != OPTION_END; o++) {
		const struct pk_option_info *k;

		if (o->type != OPTION_KEY)
			continue;
		k = pk_option_find(o->key);
		if (!k || !pk_option_flag(k)) {
			cmd_error("no option '%s' with a flag in this library", o->key);
			exit(2);
		}
		o->type = OPTION_CALLBACK;
		o->long_name = pk_option_flag(k);
		o->help = pk_option_help(k);
		o->cb = cmd_opt_key;
		if (pk_option_type_of(k) != PK_OPTION_FLAG)
			o->argh = pk_option_value_name(k) ? pk_option_value_name(k) :
				"VALUE";
	}
	return table;
}

int parse_options(int argc, char **argv, const struct option *declared,
		  const struct command_info *info)
{
	struct option *opts = resolve_keys(declared);
	int i, n = 0, only_operands = 0;

	cmd_set_name(info->name);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (only_operands || a[0] != '-' || strcmp(a, "-") == 0) {
			argv[n++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_operands = 1;
			continue;
		}
		rc = a[1] == '-' ? parse_long(argc, argv, &i, opts, info) :
			parse_short(argc, argv, &i, opts, info);
		if (rc) {
			usage_with_options(opts, info, 1);
			exit(2);
		}
	}
	argv[n] = NULL;
	free(opts);
	return n;
}

int64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;

	if (end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || v > (unsigned long long)(INT64_MAX >> shift))
		return -1;
	return (int64_t)(v << shift);
}
