/* unwind-libdw.c - the libdw backend: libdwfl's unwinder (dwfl_attach_state,
 * dwfl_getthread_frames) over the same captures as the libunwind backend.
 *
 * One Dwfl stands for the target's address space: every module with code
 * is reported at its load bias from the file ctprof opened (maps.c), so
 * libdwfl reads CFI from .eh_frame/.debug_frame on disk.  The thread
 * callbacks serve the initial registers from the capture and memory from
 * the stack snapshot or the module files; nothing reads the target.
 * dwfl_attach_state is never given a live pid to attach to (it would
 * ptrace by itself): the "process" here is only our callbacks.
 */
#include "unwind.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct reported {
	uint32_t module;
	uint64_t bias;
};

struct ld_state {
	struct maps *maps;
	Dwfl *dwfl;
	bool attached;
	Elf *elf;                       /* what the attached state's backend
	                                 * was opened from, until dwfl_end */
	struct reported *rep;           /* modules reported to dwfl */
	size_t nrep, repcap;
	unsigned long synced;           /* maps->refreshes at the last sync */

	/* The walk in progress. */
	const struct capture *cap;
	struct user_regs_struct regs;   /* where it starts: the capture's */
	uint64_t *pcs;
	unsigned max, n;
	bool beyond_snapshot;
	bool truncated;
	bool bad_sp;
	bool go_top;                    /* stopped at one of Go's top frames */
	bool again;                     /* stopped past _init or _fini, or
	                                 * under Go's asyncPreempt: go on
	                                 * from the registers in regs */
	bool preempt;                   /* the last frame was asyncPreempt */
	bool lost_read;                 /* a read of memory failed since the
	                                 * last frame was given (ld_walk) */
	uint64_t last_sp;
};

static char *debuginfo_path;

static const Dwfl_Callbacks ld_dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t ld_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	/* Threads are only ever asked for by id (get_thread). */
	return 0;
}

static bool ld_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool ld_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ld_state *st = arg;
	const struct capture *c = st->cap;
	const struct mapping *mp;
	struct module *mod;

	if (capture_read(c, addr, result, sizeof(*result)))
		return true;
	mp = maps_find_refresh(st->maps, addr);
	mod = mp ? maps_module(st->maps, mp->module) : NULL;
	if (mod && mod->image && module_read(mod, addr - mp->bias, result, sizeof(*result)) == 0)
		return true;
	if (capture_beyond(c, addr))
		st->beyond_snapshot = true;
	st->lost_read = true;
	return false;
}

static bool ld_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct user_regs_struct *r = &((struct ld_state *)arg)->regs;
	Dwarf_Word regs[ARCH_DWARF_NREGS];

	for (unsigned i = 0; i < ARCH_DWARF_NREGS; i++)
		regs[i] = regs_dwarf_get(r, i);
	return dwfl_thread_state_registers(thread, 0, ARCH_DWARF_NREGS, regs);
}

static const Dwfl_Thread_Callbacks ld_thread_callbacks = {
	.next_thread = ld_next_thread,
	.get_thread = ld_get_thread,
	.memory_read = ld_memory_read,
	.set_initial_registers = ld_set_initial_registers,
};

static bool is_reported(struct ld_state *st, uint32_t module, uint64_t bias)
{
	size_t i;

	for (i = 0; i < st->nrep; i++)
		if (st->rep[i].module == module && st->rep[i].bias == bias)
			return true;
	return false;
}

/* Report every module with code that dwfl does not know yet. */
static void sync_modules(struct ld_state *st)
{
	struct maps *m = st->maps;
	bool began = false;
	size_t i;

	if (st->dwfl && st->synced == m->refreshes)
		return;
	st->synced = m->refreshes;
	for (i = 0; i < m->nmap; i++) {
		const struct mapping *mp = &m->map[i];
		struct module *mod = maps_module(m, mp->module);
		int fd;

		if (!mp->exec || !mod || !mod->image || !mod->phdr || is_reported(st, mp->module, mp->bias))
			continue;
		fd = dup(mod->fd);
		if (fd < 0)
			continue;
		if (!began) {
			dwfl_report_begin_add(st->dwfl);
			began = true;
		}
		/* For ET_DYN, with add_p_vaddr the module starts at BASE plus
		 * its first p_vaddr: BASE is the load bias. */
		if (!dwfl_report_elf(st->dwfl, mod->name, mod->path, fd, mp->bias, true)) {
			close(fd);
			continue;
		}
		GROW(st->rep, st->repcap, st->nrep + 1);
		st->rep[st->nrep].module = mp->module;
		st->rep[st->nrep].bias = mp->bias;
		st->nrep++;
	}
	if (began)
		dwfl_report_end(st->dwfl, NULL, NULL);
	if (!st->attached && st->nrep) {
		/* Given no ELF, dwfl_attach_state borrows the backend of the
		 * first module it can open; with node, a walk then aborted
		 * about once in 40 runs in libdwfl's state_alloc (an
		 * impossible register count).  The state gets a backend of
		 * its own, from a module's image (the same machine as all). */
		struct module *mod = maps_module(st->maps, st->rep[0].module);

		if (!st->elf && mod)
			st->elf = elf_memory((char *)mod->image, mod->image_size);
		if (st->elf)
			st->attached = dwfl_attach_state(st->dwfl, st->elf, st->maps->pid,
							 &ld_thread_callbacks, st);
	}
}

static void ld_reset(struct ld_state *st)
{
	if (st->dwfl)
		dwfl_end(st->dwfl);
	if (st->elf)
		elf_end(st->elf);
	st->elf = NULL;
	st->dwfl = dwfl_begin(&ld_dwfl_callbacks);
	st->attached = false;
	st->nrep = 0;
	st->synced = 0;
}

static void *ld_init(struct maps *maps)
{
	struct ld_state *st = xcalloc(1, sizeof(*st));

	st->maps = maps;
	ld_reset(st);
	if (!st->dwfl) {
		free(st);
		return NULL;
	}
	return st;
}

static void ld_fini(void *state)
{
	struct ld_state *st = state;

	if (!st)
		return;
	if (st->dwfl)
		dwfl_end(st->dwfl);
	if (st->elf)
		elf_end(st->elf);
	free(st->rep);
	free(st);
}

static void ld_flush(void *state)
{
	/* Modules may have been unmapped, and others put in their place:
	 * a Dwfl cannot forget a module, so start a new one. */
	ld_reset(state);
}

/* The return address just below CFA in the stack copy, if it is code
 * (the maps reread if need be) where a call ends just before it. */
static bool caller_ra(struct ld_state *st, uint64_t cfa, uint64_t *ra)
{
	return capture_read(st->cap, cfa - sizeof(*ra), ra, sizeof(*ra)) &&
	       maps_is_code(st->maps, *ra) && maps_after_call(st->maps, *ra);
}

/* The walk is to go on (ld_walk) from a frame with PC and SP, taken as
 * an activation: its PC is looked up as it is.  Its callee-saved
 * registers are FRAME's, as far as libdwfl knows them. */
static void go_on_from(struct ld_state *st, Dwfl_Frame *frame, uint64_t pc, uint64_t sp)
{
	Dwarf_Word v;
	size_t i;

	for (i = 0; i < ARCH_NCALLEE_SAVED; i++)
		if (dwfl_frame_reg(frame, arch_dwarf_callee_saved[i], &v) == 0)
			*regs_dwarf(&st->regs, arch_dwarf_callee_saved[i]) = v;
	regs_set_pc(&st->regs, pc);
	regs_set_sp(&st->regs, sp);
	st->again = true;
}

/* Is the frame at VADDR of MOD (the ELF address of its PC: exact for a
 * leaf, the return address for a caller) in _init or _fini, which have no
 * CFI?  libdwfl would step out of them by
 * frame pointer, which they do not keep.  If so, and the return address
 * at unwind_crt_cfa's offset is code just after a call, the walk goes on
 * from the caller's frame: the code saves no register, so the
 * callee-saved ones are this frame's. */
static bool crt_frame(struct ld_state *st, Dwfl_Frame *frame, struct module *mod, uint64_t vaddr)
{
	unsigned off = unwind_crt_cfa(mod, vaddr);
	Dwarf_Word sp;
	uint64_t ra;

	if (!off || dwfl_frame_reg(frame, 7, &sp) != 0 || !caller_ra(st, sp + off, &ra))
		return false;
	/* The caller's PC as the call's last byte, looked up as it is. */
	go_on_from(st, frame, ra - 1, sp + off);
	return true;
}

static int ld_frame(Dwfl_Frame *frame, void *arg)
{
	struct ld_state *st = arg;
	const struct mapping *mp;
	struct module *mod;
	Dwarf_Addr pc;
	Dwarf_Word sp, gsp;
	bool activation = false, tramp;

	st->lost_read = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (st->n > 0 && pc == 0)
		return DWARF_CB_ABORT;
	/* A return address must be in code (see unwind-libunwind.c). */
	if (st->n > 0 && !maps_is_code(st->maps, pc))
		return DWARF_CB_ABORT;
	/* An ordinary caller's frame has a higher stack pointer; the frame
	 * after a signal frame (an activation) may be on another stack. */
	if (dwfl_frame_reg(frame, 7, &sp) == 0) {
		if (st->n > 0 && !activation && sp <= st->last_sp) {
			st->bad_sp = true;
			return DWARF_CB_ABORT;
		}
		st->last_sp = sp;
		/* Under Go's asyncPreempt: the interrupted PC, which libdwfl
		 * would look up a byte before (unwind.h). */
		if (st->preempt && !activation) {
			go_on_from(st, frame, pc, sp);
			return DWARF_CB_ABORT;
		}
	}
	/* libdw calls the trampoline a handler returns to a plain caller
	 * frame; its PC is the trampoline's first instruction (see
	 * unwind-libunwind.c). */
	tramp = maps_is_sigreturn(st->maps, pc);
	st->pcs[st->n++] = activation || tramp ? pc : pc - 1;
	if (st->n >= st->max) {
		st->truncated = true;
		return DWARF_CB_ABORT;
	}
	/* The kernel's frame is at SP (see unwind-libunwind.c): the walk
	 * goes on from the registers it holds. */
	if (tramp && dwfl_frame_reg(frame, 7, &sp) == 0 && unwind_sigframe_regs(st->cap, sp, &st->regs)) {
		st->again = true;
		return DWARF_CB_ABORT;
	}
	/* The frame's module, by the PC looked up (its call's last byte). */
	mp = maps_find(st->maps, st->pcs[st->n - 1]);
	mod = mp ? maps_module(st->maps, mp->module) : NULL;
	if (mod && crt_frame(st, frame, mod, pc - mp->bias))
		return DWARF_CB_ABORT;
	/* In Go's call of the vDSO, where another register holds the stack
	 * pointer of the frame (unwind_go_vdso_caller()): libdwfl has it
	 * from the system stack, the vDSO's.  The walk goes on from this
	 * frame again, from that register. */
	if (mod && unwind_go_vdso_caller(mod, st->pcs[st->n - 1] - mp->bias) &&
	    dwfl_frame_reg(frame, ARCH_DWARF_GO_VDSO_SP, &gsp) == 0 &&
	    dwfl_frame_reg(frame, ARCH_DWARF_SP, &sp) == 0 && gsp != sp) {
		st->n--;
		go_on_from(st, frame, st->pcs[st->n], gsp);
		return DWARF_CB_ABORT;
	}
	/* libdwfl would go on past Go's first frame of a stack, into
	 * whatever the words above it were. */
	if (mod && unwind_go_top_frame(mod, st->pcs[st->n - 1] - mp->bias)) {
		st->go_top = true;
		return DWARF_CB_ABORT;
	}
	st->preempt = mod && unwind_go_async_preempt(mod, st->pcs[st->n - 1] - mp->bias);
	return DWARF_CB_OK;
}

/* Walk on from the caller's frame in st->regs (leaf_walk, go_on_from).
 * It is taken as an activation: its PC is looked up as it is, so it is
 * given as the call's last byte. */
static int walk_on(struct ld_state *st, const struct capture *c)
{
	st->last_sp = 0;
	st->beyond_snapshot = st->bad_sp = st->preempt = st->lost_read = false;
	return dwfl_getthread_frames(st->dwfl, c->tid, ld_frame, st);
}

/* The walk stopped at the leaf: one with no CFI that has not set up a
 * frame (glibc's clone3 just after its system call, where a parent stops
 * at its clone event), as unwind-libunwind.c's leaf_step takes it.  Go on
 * from the return address at SP, if a call ends just before it; RET, or
 * what the walk from there returns. */
static int leaf_walk(struct ld_state *st, const struct capture *c, int ret)
{
	uint64_t ra;

	if (!st->attached || !caller_ra(st, regs_sp(&c->regs) + sizeof(ra), &ra))
		return ret;
	regs_set_pc(&st->regs, ra - 1);
	regs_set_sp(&st->regs, regs_sp(&c->regs) + sizeof(ra));
	return walk_on(st, c);
}

static enum unwind_result ld_walk(void *state, const struct capture *c,
				  uint64_t *pcs, unsigned max, unsigned *n_out, unsigned *fp)
{
	struct ld_state *st = state;
	enum unwind_result res;
	int ret = -1, tries;

	/* libdwfl steps by frame pointer where it has no CFI, and does not
	 * say when. */
	*fp = 0;
	for (tries = 0; tries < 2; tries++) {
		/* The leaf may be in code loaded since the maps were read. */
		maps_find_code(st->maps, regs_pc(&c->regs));
		if (c->sigret)
			maps_find_code(st->maps, regs_pc(&c->sigregs));
		sync_modules(st);
		st->cap = c;
		st->regs = c->regs;
		st->pcs = pcs;
		st->max = max;
		st->n = 0;
		/* In a sigreturn trampoline (see unwind-libunwind.c). */
		if (c->sigret && max > 1) {
			pcs[st->n++] = regs_pc(&c->regs);
			st->regs = c->sigregs;
		}
		st->beyond_snapshot = st->truncated = st->bad_sp = st->go_top = false;
		st->again = st->preempt = st->lost_read = false;
		st->last_sp = 0;
		ret = st->attached ? dwfl_getthread_frames(st->dwfl, c->tid, ld_frame, st) : -1;
		if (ret == 0 || st->truncated || st->n == 0)
			break;
		/* Stuck at a PC dwfl has no module for: if the maps were reread
		 * during the walk (code loaded since the last sync, such as libc
		 * right after an exec), report the new modules and go again. */
		if (st->synced == st->maps->refreshes)
			break;
	}
	/* Out of _init or _fini (crt_frame), under Go's asyncPreempt or
	 * Go's call of the vDSO (ld_frame); each walk on starts from a
	 * caller, so this ends, but is bounded all the same. */
	for (tries = 0; st->again && !st->truncated && tries < 8; tries++) {
		st->again = false;
		ret = walk_on(st, c);
	}
	if (st->n == 0)
		pcs[st->n++] = regs_pc(&c->regs);
	if (ret != 0 && st->n == 1 && !st->truncated && !st->go_top && !c->sigret)
		ret = leaf_walk(st, c, ret);
	/* libdwfl takes a frame whose return address it cannot read for
	 * the outermost, and ends the walk as complete: a stack cut short by
	 * the end of its copy (all of bench/workload.c's with --stack-size=1k,
	 * where libunwind said truncated), or one that goes on where nothing
	 * was copied (a handler's on a stack of its own, where that stack is
	 * not copied).
	 * The outermost frames (_start, a thread's start in clone) say so in
	 * their CFI, with no read. */
	if (st->truncated)
		res = UNWIND_TRUNCATED;
	else if ((ret == 0 && !st->lost_read) || st->go_top)
		res = UNWIND_COMPLETE;
	/* _start is the outermost frame: an executable whose _start has no
	 * CFI saying so (node's, for one) leaves libdwfl looking for a
	 * caller it does not have. */
	else if (!st->bad_sp && maps_is_entry_code(st->maps, pcs[st->n - 1]))
		res = UNWIND_COMPLETE;
	else if (st->beyond_snapshot)
		res = UNWIND_TRUNCATED;
	else
		res = UNWIND_FAILED;
	*n_out = st->n;
	return res;
}

static bool ld_sp_cfa(void *state, uint64_t pc, bool exact, int64_t *off)
{
	struct ld_state *st = state;
	uint64_t at = exact ? pc : pc - 1;
	Dwfl_Module *m;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	sync_modules(st);
	m = dwfl_addrmodule(st->dwfl, at);
	if (!m)
		return false;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (cfi && unwind_cfi_sp_cfa(cfi, at - bias, off))
		return true;
	cfi = dwfl_module_dwarf_cfi(m, &bias);
	return cfi && unwind_cfi_sp_cfa(cfi, at - bias, off);
}

const struct unwinder_ops unwinder_libdw = {
	.name = "libdw",
	.init = ld_init,
	.fini = ld_fini,
	.flush = ld_flush,
	.walk = ld_walk,
	.sp_cfa = ld_sp_cfa,
};
