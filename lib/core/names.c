/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "names.h"

/* ---- threads ---- */

void pki_thread_keys(const struct pk_profile *p, struct pki_thread_keys *k)
{
	k->comm = pk_profile_lookup(p, "comm");
	k->pid = pk_profile_lookup(p, "pid");
	k->tid = pk_profile_lookup(p, "tid");
}

static const struct pk_label *label(const struct pk_profile *p,
				    uint32_t labels, pk_str key)
{
	return key ? pk_profile_label_find(p, labels, key) : NULL;
}

void pki_thread_of(const struct pk_profile *p, const struct pki_thread_keys *k,
		   uint32_t labels, struct pki_thread *t)
{
	const struct pk_label *comm = label(p, labels, k->comm);
	const struct pk_label *pid = label(p, labels, k->pid);
	const struct pk_label *tid = label(p, labels, k->tid);

	memset(t, 0, sizeof(*t));
	t->has_comm = comm != NULL;
	t->comm = comm ? comm->str : 0;
	t->has_pid = pid && !pid->str;
	t->pid = t->has_pid ? pid->num : 0;
	t->has_tid = tid && !tid->str;
	t->tid = t->has_tid ? tid->num : 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

const char *pki_thread_comm(const struct pk_profile *p, pk_str comm,
			    size_t *len)
{
	const char *s = pk_profile_string(p, comm);

	*len = pk_profile_string_len(p, comm);
	while (*len && is_blank(*s))
		s++, (*len)--;
	while (*len && is_blank(s[*len - 1]))
		(*len)--;
	return s;
}

enum pki_thread_style pki_stackcollapse_style(int pid, int tid)
{
	return tid ? PKI_THREAD_COMM_PID_TID : pid ? PKI_THREAD_COMM_PID :
		     PKI_THREAD_COMM;
}

/* What follows the comm (of len bytes) in a name of style, into num. */
static int thread_ids(char *num, size_t size, const struct pki_thread *t,
		      enum pki_thread_style style, size_t len)
{
	int n = 0;

	switch (style) {
	case PKI_THREAD_COMM:
		break;
	case PKI_THREAD_COMM_TID:
		if (t->has_tid || t->has_pid)
			n = snprintf(num, size, "%s%lld", len ? " " : "",
				     (long long)(t->has_tid ? t->tid : t->pid));
		break;
	case PKI_THREAD_COMM_PID:
	case PKI_THREAD_COMM_PID_TID:
		n = t->has_pid ? snprintf(num, size, "-%lld", (long long)t->pid) :
				 snprintf(num, size, "-?");
		if (style == PKI_THREAD_COMM_PID_TID)
			n += snprintf(num + n, size - (size_t)n, "/%lld",
				      (long long)(t->has_tid ? t->tid : 0));
		break;
	}
	return n;
}

int pki_thread_name(struct pk_strbuf *b, const struct pk_profile *p,
		    const struct pki_thread *t, const struct pki_thread_name *how)
{
	const char *comm = pk_profile_string(p, t->comm);
	size_t len = pk_profile_string_len(p, t->comm), start = b->len, i;
	char num[64];
	int n;

	if (how->trim)
		comm = pki_thread_comm(p, t->comm, &len);
	n = thread_ids(num, sizeof(num), t, how->style, len);
	if (pki_strbuf_add(b, comm, len) || pki_strbuf_add(b, num, (size_t)n))
		return -1;
	if (b->len == start && how->fallback && pki_strbuf_adds(b, how->fallback))
		return -1;
	for (i = start; how->underscores && i < b->len; i++)
		if (b->s[i] == ' ')
			b->s[i] = '_';
	return 0;
}

/* ---- frames without a function ---- */

int pki_is_unknown_function(const char *name)
{
	return !*name || strcmp(name, PKI_UNKNOWN) == 0;
}

const char *pki_function_name(const char *name)
{
	return *name ? name : PKI_UNKNOWN;
}

size_t pki_module_name(const char *file, const char **base)
{
	const char *slash;
	size_t len;

	if (!*file || strcmp(file, PKI_UNKNOWN) == 0)
		return 0;
	slash = strrchr(file, '/');
	*base = slash ? slash + 1 : file;
	len = strlen(*base);
	if (len > 10 && strcmp(*base + len - 10, " (deleted)") == 0)
		len -= 10;
	return len;
}

size_t pki_path_base(const char *path, const char **base)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/'; s--)
		;
	if (s == path + n && n)		/* "/" */
		s--;
	*base = s;
	return (size_t)(path + n - s);
}

int pki_unknown_name(struct pk_strbuf *b, const char *file, uint64_t address,
		     const struct pki_unknown_name *how)
{
	const char *base;
	size_t len;
	char addr[32];

	if (how->style == PKI_UNKNOWN_PPROF) {
		if (!*file)
			return pki_strbuf_adds(b, "<unknown>");
		len = pki_path_base(file, &base);
	} else if ((len = pki_module_name(file, &base)) == 0) {
		base = "unknown";
		len = strlen(base);
	} else if (how->keep_brackets && base[0] == '[' && base[len - 1] == ']') {
		return pki_strbuf_add(b, base, len);
	}
	if (pki_strbuf_add(b, "[", 1) || pki_strbuf_add(b, base, len))
		return -1;
	if (how->address) {
		snprintf(addr, sizeof(addr), " <%llx>", (unsigned long long)address);
		if (pki_strbuf_adds(b, addr))
			return -1;
	}
	return pki_strbuf_add(b, "]", 1);
}
