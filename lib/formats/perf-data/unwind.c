/* SPDX-License-Identifier: MIT */
/*
 * The user part of `perf record --call-graph dwarf` samples: the kernel
 * records no user callchain, only the user registers and a copy of the
 * user stack from the stack pointer up. elfutils' unwinder turns them
 * into frames, with the CFI (.eh_frame) of the files mapped where the
 * frames are, as perf and hotspot's perfparser do:
 *
 *   - one Dwfl per process, its modules reported lazily at the address
 *     range the process maps each file to (a frame's pc with no module
 *     yet reports one, before libdwfl looks for its CFI);
 *   - the registers of the sample are the thread's initial state;
 *   - memory reads come from the stack copy, else from the mapped file.
 *
 * libdwfl keeps each module's CFI, so a file is read once per process,
 * never once per sample. Files come from the context's file finder
 * (lib/symbolize/finder.h), the symbolizer's, so --symfs and build ids
 * hold for both, and each file is opened once per run: every process's
 * module shares the finder's open Elf.
 *
 * A process whose address space changed under its Dwfl (an exec, a
 * library unmapped and another mapped there) gets a fresh Dwfl. At most
 * MAX_PROCESSES Dwfls stay open, the least recently used is dropped.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "perf-data.h"
#include "symbolize/finder.h"
#include "symbolize/mapping.h"

#define MAX_PROCESSES 32
/* perf script's default --max-stack, which its unwinders obey */
#define MAX_FRAMES 127
#define MAX_DWARF_REGS 33
#define PERF_REGS_ABI_64 2

/*
 * Per architecture: which perf register (PERF_REG_<ARCH>_*) holds each
 * DWARF register, and the perf numbers of the pc and stack pointer.
 */
struct unwind_arch {
	const char *names[3];	/* uname -m of the recording machine */
	unsigned ndwarf;
	int8_t perf_reg[MAX_DWARF_REGS];	/* by DWARF number; -1: none */
	int pc, sp;
};

static const struct unwind_arch arches[] = {
	{ { "x86_64", "amd64", NULL }, 17,
	  /* rax rdx rcx rbx rsi rdi rbp rsp r8..r15, return address (ip) */
	  { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 },
	  8, 7 },
	{ { "aarch64", "arm64", NULL }, 32,
	  /* x0..x30, sp; the pc is no DWARF register */
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
	    18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
	  32, 31 },
};

struct unwind_process {
	struct pd_unwinder *u;
	int32_t pid;
	Dwfl *dwfl;		/* NULL: slot free */
	int attached;
	uint64_t last_used;
};

struct pd_unwinder {
	struct pd_state *st;
	struct sym_finder *finder;	/* the context's file finder */
	const struct unwind_arch *arch;
	Dwfl_Callbacks callbacks;
	struct unwind_process procs[MAX_PROCESSES];
	uint64_t clock;
	int has_binary;		/* --binary given */
	uint32_t binary_file;	/* the file it stands for, once seen */

	/* the sample being unwound */
	const struct pd_thread *t;
	const struct pd_sample *s;
	uint64_t sp;
	pd_unwind_push_fn push;
	void *push_arg;
	unsigned depth;
	int push_rc, stale, too_deep;

	struct pd_unwind_counts counts;
};

static const struct unwind_arch *arch_for(const char *name)
{
	struct utsname un;
	size_t i, j;

	if (!*name && uname(&un) == 0)
		name = un.machine;	/* no ARCH feature: assume this one */
	for (i = 0; i < PK_ARRAY_SIZE(arches); i++)
		for (j = 0; arches[i].names[j]; j++)
			if (strcmp(name, arches[i].names[j]) == 0)
				return &arches[i];
	return NULL;
}

/* ---- libdwfl's callbacks ---- */

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;	/* .eh_frame is in the file itself */
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0;	/* threads are only ever asked for by tid */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

/* A word of a mapped file, at a run-time address inside a module. */
static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   int big)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	const unsigned char *raw;
	GElf_Addr bias;
	size_t nphdr, i, size;
	Elf *elf;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) ||
	    elf_getphdrnum(elf, &nphdr) < 0 ||
	    !(raw = (const unsigned char *)elf_rawfile(elf, &size)))
		return false;
	addr -= bias;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || ph.p_filesz < 8 ||
		    addr - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		if (ph.p_offset > size || size - ph.p_offset < 8 ||
		    addr - ph.p_vaddr > size - ph.p_offset - 8)
			return false;
		*result = pd_u64(raw + ph.p_offset + (addr - ph.p_vaddr), big);
		return true;
	}
	return false;
}

static bool read_memory(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct unwind_process *pr = arg;
	struct pd_unwinder *u = pr->u;
	uint64_t size = u->s->user_stack_size;

	if (addr >= u->sp && size >= 8 && addr - u->sp <= size - 8) {
		*result = pd_u64(u->s->user_stack + (addr - u->sp), u->st->big);
		return true;
	}
	return read_file_word(dwfl, addr, result, u->st->big);
}

static bool set_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_process *pr = arg;
	struct pd_unwinder *u = pr->u;
	const struct unwind_arch *a = u->arch;
	uint64_t v;
	unsigned i;

	for (i = 0; i < a->ndwarf; i++) {
		Dwarf_Word w;

		if (!pd_sample_user_reg(u->s, a->perf_reg[i], u->st->big, &v))
			continue;	/* unknown; CFI may not need it */
		w = v;
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	if (!pd_sample_user_reg(u->s, a->pc, u->st->big, &v))
		return false;
	dwfl_thread_state_register_pc(thread, v);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = read_memory,
	.set_initial_registers = set_registers,
};

/* ---- processes ---- */

static void process_drop(struct unwind_process *pr)
{
	if (pr->dwfl)
		dwfl_end(pr->dwfl);
	pr->dwfl = NULL;
	pr->attached = 0;
}

/* The process's slot, made (evicting the least recently used) if new. */
static struct unwind_process *process_get(struct pd_unwinder *u, int32_t pid)
{
	struct unwind_process *pr, *oldest = &u->procs[0];
	size_t i;

	for (i = 0; i < MAX_PROCESSES; i++) {
		pr = &u->procs[i];
		if (pr->dwfl && pr->pid == pid)
			goto found;
		if (!pr->dwfl || (oldest->dwfl &&
				  pr->last_used < oldest->last_used))
			oldest = pr;
	}
	pr = oldest;
	process_drop(pr);
	pr->u = u;
	pr->pid = pid;
	pr->dwfl = dwfl_begin(&u->callbacks);
	if (!pr->dwfl)
		return NULL;
found:
	pr->last_used = ++u->clock;
	return pr;
}

/* The finder's file for a map, or NULL when it has none (an anonymous,
 * kernel or JIT mapping); 0, or PK_ENOMEM. */
static int map_file(struct pd_unwinder *u, const struct pd_map *map,
		    const struct sym_file **sf)
{
	const struct pk_profile *strings = u->st->m.strings;
	const char *file = pk_profile_string(strings, map->file);
	uint32_t bid = pd_map_build_id(&u->st->m, map);
	int is_binary;

	if (u->has_binary && !u->binary_file && sym_is_program(file))
		u->binary_file = map->file;
	is_binary = map->file == u->binary_file;
	*sf = NULL;
	if (!is_binary && sym_map_kind(file) != SYM_MAP_FILE)
		return 0;
	*sf = sym_finder_elf(u->finder, file,
			     bid ? pk_profile_string(strings, bid) : "",
			     is_binary);
	return *sf ? 0 : PK_ENOMEM;
}

/* Report the module of the file mapped at pc (0), or say why not (-1). */
static int report_map(struct unwind_process *pr, struct pd_map *map,
		      uint64_t pc)
{
	struct pd_unwinder *u = pr->u;
	struct pk_mapping m = { .start = map->start, .limit = map->end,
				.offset = map->pgoff };
	const struct sym_file *sf;
	Dwfl_Module *mod = NULL;

	if (map_file(u, map, &sf))
		return u->push_rc = PK_ENOMEM;
	if (sf)
		mod = sym_file_report(sf, pr->dwfl,
				      pk_profile_string(u->st->m.strings,
							map->file),
				      pc - sym_file_address(sf, &m, pc),
				      (void *)(uintptr_t)map->file);
	if (!mod) {
		map->no_unwind = 1;	/* don't ask again */
		return -1;
	}
	return 0;
}

/*
 * Make sure libdwfl knows the file mapped at pc before it unwinds from
 * there. A module for another file at pc means the process mapped
 * something new over it: the whole Dwfl is stale.
 */
static int report_module(struct unwind_process *pr, uint64_t pc)
{
	struct pd_unwinder *u = pr->u;
	struct pd_map *map = pd_machine_find(&u->st->m, u->t, PD_CPUMODE_USER,
					     pc);
	Dwfl_Module *mod = dwfl_addrmodule(pr->dwfl, pc);
	void **userdata;

	if (mod) {
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL,
				 NULL);
		if (map && (uintptr_t)*userdata != map->file) {
			u->stale = 1;
			return -1;
		}
		return 0;
	}
	if (!map || map->no_unwind)
		return -1;
	return report_map(pr, map, pc);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind_process *pr = arg;
	struct pd_unwinder *u = pr->u;
	Dwarf_Addr pc;
	bool activation;
	int no_file;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* before libdwfl looks at the module, for activation and CFI */
	no_file = report_module(pr, pc) < 0;
	if (no_file && (u->stale || u->push_rc))
		return DWARF_CB_ABORT;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a return address: the call is the instruction before it */
	if (!activation)
		pc--;
	u->push_rc = u->push(u->push_arg, pc);
	if (u->push_rc)
		return DWARF_CB_ABORT;
	/*
	 * Code in no file we have ends the stack, as in perf: libdwfl would
	 * guess the caller from the frame pointer, which code built
	 * without one leaves holding anything.
	 */
	if (no_file) {
		u->depth++;
		return DWARF_CB_ABORT;
	}
	if (++u->depth >= MAX_FRAMES) {
		u->too_deep = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* One try at the sample's frames: 0 complete, 1 partial, 2 stale. */
static int unwind_once(struct pd_unwinder *u, struct unwind_process *pr,
		       uint64_t pc, int32_t tid)
{
	int rc;

	u->depth = 0;
	u->stale = u->too_deep = 0;
	if (report_module(pr, pc) < 0 && (u->stale || u->push_rc))
		return u->stale ? 2 : 1;
	/* libdwfl learns the machine from the first module's ELF */
	if (!pr->attached && !dwfl_attach_state(pr->dwfl, NULL, pr->pid,
						&thread_callbacks, pr))
		return 1;
	pr->attached = 1;
	rc = dwfl_getthread_frames(pr->dwfl, tid > 0 ? tid : pr->pid, on_frame,
				   pr);
	if (u->stale)
		return 2;
	/* 0: libdwfl found the outermost frame (its return address is
	 * undefined, as _start and clone say in their CFI) */
	return rc == 0 && !u->too_deep ? 0 : 1;
}

int pd_unwind(struct pd_unwinder *u, const struct pd_thread *t,
	      const struct pd_sample *s, pd_unwind_push_fn push, void *arg)
{
	struct unwind_process *pr;
	uint64_t pc;
	int rc;

	if (s->user_abi != PERF_REGS_ABI_64 || !s->user_stack_size ||
	    !u->arch || !pd_sample_user_reg(s, u->arch->pc, u->st->big, &pc) ||
	    !pd_sample_user_reg(s, u->arch->sp, u->st->big, &u->sp)) {
		u->counts.not_unwound++;
		return 0;
	}
	u->t = t;
	u->s = s;
	u->push = push;
	u->push_arg = arg;
	u->push_rc = 0;
	pr = process_get(u, t->pid);
	if (!pr)
		return PK_ENOMEM;
	rc = unwind_once(u, pr, pc, s->tid);
	if (rc == 2) {
		/* the process changed its mappings: start afresh (and this
		 * sample again, unless frames went out already) */
		process_drop(pr);
		if (!u->depth) {
			pr = process_get(u, t->pid);
			if (!pr)
				return PK_ENOMEM;
			rc = unwind_once(u, pr, pc, s->tid);
		}
	}
	if (u->push_rc)
		return u->push_rc;
	if (!u->depth)
		u->counts.not_unwound++;
	else if (rc == 0)
		u->counts.complete++;
	else
		u->counts.partial++;
	return (int)u->depth;
}

void pd_unwinder_forget(struct pd_unwinder *u, int32_t pid)
{
	size_t i;

	for (i = 0; u && i < MAX_PROCESSES; i++)
		if (u->procs[i].dwfl && u->procs[i].pid == pid)
			process_drop(&u->procs[i]);
}

const struct pd_unwind_counts *pd_unwinder_counts(const struct pd_unwinder *u)
{
	return &u->counts;
}

struct pd_unwinder *pd_unwinder_new(struct pd_state *st,
				    const struct pk_options *opts)
{
	struct pd_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->st = st;
	u->arch = arch_for(st->arch);
	u->has_binary = opts && opts->binary;
	u->finder = sym_finder_get(st->ctx, opts ? opts->binary : NULL,
				  opts ? opts->symfs : NULL,
				  opts ? opts->symbol_path : NULL);
	if (!u->finder) {
		free(u);
		return NULL;
	}
	/* unwound stacks are symbolized with their inlined frames: the
	 * debug files of the files found here are read */
	sym_finder_want_dwarf(u->finder);
	u->callbacks.find_elf = sym_file_find_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	u->callbacks.section_address = dwfl_offline_section_address;
	return u;
}

void pd_unwinder_free(struct pd_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < MAX_PROCESSES; i++)
		process_drop(&u->procs[i]);
	free(u);
}
