/* unwind-libunwind.c - the libunwind backend: libunwind's remote unwinder
 * (unw_init_remote) with accessors of ctprof's own.
 *
 * The stock libunwind-ptrace accessors read the target one word per
 * PTRACE_PEEKDATA (~1.5 us each, thousands per unwind) and need the thread
 * stopped for the whole unwind.  Here:
 *   - stack memory comes from the capture's snapshot;
 *   - code and .eh_frame/.eh_frame_hdr come from the module files, mapped
 *     once (maps.c);
 *   - find_proc_info runs libunwind's own binary search of a module's
 *     .eh_frame_hdr table (dwarf_search_unwind_table over a
 *     UNW_INFO_FORMAT_REMOTE_TABLE description, as perf does), so no
 *     /proc/PID/maps is read and nothing is mmapped per lookup;
 *   - registers come from the capture.
 * libunwind's global cache is on, sized for large programs.
 *
 * libunwind reads only .eh_frame.  A module with CFI in .debug_frame alone
 * (Go's binaries) is stepped here by libdw's reading of that CFI, as libdw's
 * own unwinder would: libunwind's fallback steps by frame pointer, which
 * from a leaf that keeps none (Go's small functions) skips its caller.
 */
#include "unwind.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

/* libunwind's number of DWARF register N. */
#define LU_REG(n) ((unw_regnum_t)ARCH_LU_REG(n))
_Static_assert(UNW_REG_IP == LU_REG(ARCH_DWARF_PC) && UNW_REG_SP == LU_REG(ARCH_DWARF_SP),
	       "arch.h's libunwind numbering");

/* Not in libunwind's public headers, but exported by it (and used by perf). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* With caching on, libunwind 1.6 takes a lock around every cache access and
 * masks all signals while it holds it: two sigprocmask system calls per
 * unw_step, most of an unwind's time (docs/DESIGN.md, "The house").
 * libunwind
 * imports sigprocmask from the C library, so the definition below, in the
 * executable, is the one it calls.  While ctprof unwinds, it does nothing:
 * only the sampling thread unwinds (its other threads, the helpers of
 * kick.c and the live view's, never call sigprocmask), ctprof has no
 * signal handlers (signals are read from a signalfd) and never unwinds
 * from one, so there is nothing to mask against.  Outside an unwind it is
 * the real thing. */
static bool in_unwind;

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err;

	if (in_unwind) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* A module's .debug_frame, opened on first need. */
struct debug_cfi {
	bool tried;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;                 /* NULL: none */
};

struct lu_state {
	unw_addr_space_t as;
	struct maps *maps;
	struct debug_cfi *dcfi;         /* by module id */
	size_t ndcfi;
	const struct capture *cap;      /* the capture being unwound */
	struct user_regs_struct regs;   /* the registers the cursor starts from */
	bool beyond_snapshot;           /* a read fell above the stack copy */
	unw_word_t noinfo_ip;           /* the last PC find_proc_info had no CFI for */
	/* The module whose .eh_frame libunwind reads, and the load bias it
	 * reads it at: the PC's mapping's, which for text mapped again
	 * elsewhere (V8 remaps its builtins next to its JIT code) is not
	 * where the module's tables are mapped, if they are at all. */
	const struct module *cfi_mod;
	uint64_t cfi_bias;
};

static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	struct lu_state *st = arg;
	const struct mapping *mp = maps_find_code(st->maps, ip);
	struct module *mod = mp ? maps_module(st->maps, mp->module) : NULL;
	unw_dyn_info_t di;
	int ret;

	if (!mod || !mod->has_table) {
		st->noinfo_ip = ip;
		return -UNW_ENOINFO;
	}
	st->cfi_mod = mod;
	st->cfi_bias = mp->bias;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = mp->bias + mod->vaddr_lo;
	di.end_ip = mp->bias + mod->vaddr_hi;
	di.u.rti.segbase = mp->bias + mod->hdr_vaddr;
	/* The table follows the 4 encoding bytes, eh_frame_ptr and fde_count;
	 * its entries are two 4-byte values, its length counted in words. */
	di.u.rti.table_data = mp->bias + mod->hdr_vaddr + 12;
	di.u.rti.table_len = mod->fde_count * 8 / sizeof(unw_word_t);
	ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	if (ret == -UNW_ENOINFO)
		st->noinfo_ip = ip;
	return ret;
}

static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees what dwarf_search_unwind_table allocated itself. */
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;
}

/* A read at ADDR found nothing: if ADDR is stack above the copy, the
 * unwind is cut short, not wrong. */
static void note_beyond(struct lu_state *st, uint64_t addr)
{
	if (capture_beyond(st->cap, addr))
		st->beyond_snapshot = true;
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
			 int write, void *arg)
{
	struct lu_state *st = arg;
	const struct mapping *mp;
	struct module *mod;

	if (write)
		return -UNW_EINVAL;
	if (capture_read(st->cap, addr, val, sizeof(*val)))
		return 0;
	mp = maps_find_refresh(st->maps, addr);
	mod = mp ? maps_module(st->maps, mp->module) : NULL;
	if (mod && mod->image && module_read(mod, addr - mp->bias, val, sizeof(*val)) == 0)
		return 0;
	if (st->cfi_mod && module_read(st->cfi_mod, addr - st->cfi_bias, val, sizeof(*val)) == 0)
		return 0;
	note_beyond(st, addr);
	return -UNW_EINVAL;
}

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
			 int write, void *arg)
{
	const struct user_regs_struct *r = &((struct lu_state *)arg)->regs;

	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg >= ARCH_DWARF_NREGS)
		return -UNW_EBADREG;
	*val = regs_dwarf_get(r, (unsigned)reg);
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			   int write, void *arg)
{
	return -UNW_EBADREG;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

static int lu_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			    unw_word_t *off, void *arg)
{
	/* Names come from libdw (symbolize.c), after the profile is taken. */
	return -UNW_ENOINFO;
}

static unw_accessors_t lu_accessors = {
	.find_proc_info = lu_find_proc_info,
	.put_unwind_info = lu_put_unwind_info,
	.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
	.access_mem = lu_access_mem,
	.access_reg = lu_access_reg,
	.access_fpreg = lu_access_fpreg,
	.resume = lu_resume,
	.get_proc_name = lu_get_proc_name,
};

static void *lu_init(struct maps *maps)
{
	struct lu_state *st = xcalloc(1, sizeof(*st));

	st->maps = maps;
	st->as = unw_create_addr_space(&lu_accessors, 0);
	if (!st->as) {
		free(st);
		return NULL;
	}
	unw_set_caching_policy(st->as, UNW_CACHE_GLOBAL);
	/* libunwind 1.6 resets the size of a fresh address space's cache to
	 * its default on first use: set it twice.  A bigger cache took
	 * find_proc_info from 11 to 0.2 calls per sample on ~1900 IPs. */
	unw_set_cache_size(st->as, 4096, 0);
	unw_set_cache_size(st->as, 4096, 0);
	return st;
}

static void lu_fini(void *state)
{
	struct lu_state *st = state;
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->ndcfi; i++) {
		if (st->dcfi[i].dw)
			dwarf_end(st->dcfi[i].dw);
		if (st->dcfi[i].elf)
			elf_end(st->dcfi[i].elf);
	}
	free(st->dcfi);
	unw_destroy_addr_space(st->as);
	free(st);
}

static void lu_flush(void *state)
{
	struct lu_state *st = state;

	unw_flush_cache(st->as, 0, 0);
}

static bool in_anon_code(struct maps *maps, uint64_t ip)
{
	const struct mapping *mp = maps_find_code(maps, ip);

	return mp && mp->exec && !mp->module;
}

/* *OUT = the cursor's REG, where it knows it. */
static void cursor_reg(unw_cursor_t *cursor, unw_regnum_t reg, unsigned long long *out)
{
	unw_word_t v;

	if (unw_get_reg(cursor, reg, &v) == 0)
		*out = v;
}

/* The registers a step without CFI starts the cursor again from: the PC
 * and SP as found, the callee-saved ones as the cursor had them. */
static void restart_regs(struct lu_state *st, unw_cursor_t *cursor, uint64_t pc, uint64_t sp)
{
	for (size_t i = 0; i < ARCH_NCALLEE_SAVED; i++)
		cursor_reg(cursor, LU_REG(arch_dwarf_callee_saved[i]),
			   regs_dwarf(&st->regs, arch_dwarf_callee_saved[i]));
	regs_set_pc(&st->regs, pc);
	regs_set_sp(&st->regs, sp);
}

/* One step by frame pointer out of code with no CFI (a JIT's), as the
 * frame record lays it: [FP] the caller's FP, [FP+8] the return address,
 * the caller's SP FP+16.  Only from the stack copy, only
 * outward, only to code; the cursor then starts again from the caller's
 * frame, with the other callee-saved registers as the cursor had them (a
 * JIT frame that changed one unsaid leaves it wrong for its callers, as
 * it would under perf).  The saved FP is not checked: a caller built
 * without frame pointers (main, ld.so's _dl_fini) keeps data in that
 * register, and its own step goes by its CFI; a step by frame pointer
 * from it fails on an FP below SP. */
static bool fp_step(struct lu_state *st, unw_cursor_t *cursor, unw_word_t sp)
{
	unw_word_t fp;
	uint64_t frame[2];

	if (unw_get_reg(cursor, LU_REG(ARCH_DWARF_FP), &fp) < 0 || fp < sp ||
	    !capture_read(st->cap, fp, frame, sizeof(frame)))
		return false;
	if (!maps_may_be_code(st->maps, frame[1]))
		return false;
	restart_regs(st, cursor, frame[1], fp + 16);
	regs_set_fp(&st->regs, frame[0]);
	return unw_init_remote(cursor, st->as, st) >= 0;
}

/* One step to the caller whose stack pointer is CFA: its return address
 * is the word just below, taken if it is code just after a call; the
 * other registers stay as they are. */
static bool ra_step(struct lu_state *st, unw_cursor_t *cursor, uint64_t cfa)
{
	uint64_t ra;

	/* Most words there are data: maps_after_call does not reread the
	 * maps on a miss. */
	if (!capture_read(st->cap, cfa - sizeof(ra), &ra, sizeof(ra)) || !maps_after_call(st->maps, ra))
		return false;
	restart_regs(st, cursor, ra, cfa);
	return unw_init_remote(cursor, st->as, st) >= 0;
}

/* One step out of a leaf with no CFI that has no frame of its own (yet):
 * V8's small builtins, a function on its first instruction.  Its return
 * address is the word at SP, taken if it is code just after a call; the
 * other registers stay as they are. */
static bool leaf_step(struct lu_state *st, unw_cursor_t *cursor, unw_word_t sp)
{
	return ra_step(st, cursor, sp + 8);
}

/* One step out of code in a file with no CFI for it (V8's builtins,
 * hand-written assembly), where libunwind would guess by frame pointer
 * unchecked: by the word at SP for a LEAF that has no frame (yet), else by
 * the frame record, checked.  1 stepped, 0 the chain ends here (a zero
 * frame pointer, as _start leaves it), -1 no step. */
static int nocfi_step(struct lu_state *st, unw_cursor_t *cursor, unw_word_t sp, bool leaf)
{
	unw_word_t fp;

	if (leaf && leaf_step(st, cursor, sp))
		return 1;
	if (unw_get_reg(cursor, LU_REG(ARCH_DWARF_FP), &fp) == 0 && fp == 0)
		return 0;
	return fp_step(st, cursor, sp) ? 1 : -1;
}

/* One step out of _init or _fini, at the stack offset unwind_crt_cfa
 * gives for IP in MP's module (the code saves no register). */
static bool crt_step(struct lu_state *st, unw_cursor_t *cursor, const struct mapping *mp,
		     unw_word_t ip, unw_word_t sp)
{
	unsigned off = unwind_crt_cfa(maps_module(st->maps, mp->module), ip - mp->bias);

	return off && ra_step(st, cursor, sp + off);
}

/* The .debug_frame of module ID, for a module without the .eh_frame
 * table libunwind reads; NULL if it has the table or no .debug_frame. */
static const struct debug_cfi *debug_cfi(struct lu_state *st, uint32_t id)
{
	struct module *mod = maps_module(st->maps, id);
	struct debug_cfi *d;

	if (!mod || mod->has_table || mod->fd < 0)
		return NULL;
	GROW(st->dcfi, st->ndcfi, (size_t)id + 1);
	d = &st->dcfi[id];
	if (!d->tried) {
		d->tried = true;
		elf_version(EV_CURRENT);
		d->elf = elf_begin(mod->fd, ELF_C_READ_MMAP, NULL);
		d->dw = d->elf ? dwarf_begin_elf(d->elf, DWARF_C_READ, NULL) : NULL;
		d->cfi = d->dw ? dwarf_getcfi(d->dw) : NULL;
	}
	return d->cfi ? d : NULL;
}

/* The registers of one frame, by DWARF number (arch.h), and which are
 * known. */
struct dregs {
	uint64_t v[ARCH_DWARF_NREGS];
	unsigned known;                 /* bit N: v[N] */
};

/* Run a CFI rule's location or value expression (OPS, NOPS) as libdw
 * gives them: *OUT is the value (memory at the location, read from the
 * stack copy only).  NOPS 0 is "same value" (OPS NULL) or "undefined".
 * 1 done, 0 undefined, -1 not readable. */
static int cfi_eval(struct lu_state *st, const struct dregs *r, uint64_t cfa,
		    const Dwarf_Op *ops, size_t nops, int regno, uint64_t *out)
{
	uint64_t stack[4];
	unsigned depth = 0, reg;
	bool value = false;
	size_t i;

	if (nops == 0) {
		if (ops || !(r->known & 1u << regno))
			return 0;
		*out = r->v[regno];
		return 1;
	}
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];

		if (depth >= 4)
			return -1;
		switch (op->atom) {
		case DW_OP_call_frame_cfa:
			stack[depth++] = cfa;
			break;
		case DW_OP_plus_uconst:
			if (!depth)
				return -1;
			stack[depth - 1] += op->number;
			break;
		case DW_OP_regx:
			reg = (unsigned)op->number;
			if (reg > 16 || !(r->known & 1u << reg))
				return -1;
			stack[depth++] = r->v[reg];
			value = true;
			break;
		case DW_OP_bregx:
		case DW_OP_breg0 ... DW_OP_breg16:
			reg = op->atom == DW_OP_bregx ? (unsigned)op->number
						      : (unsigned)(op->atom - DW_OP_breg0);
			if (reg > 16 || !(r->known & 1u << reg))
				return -1;
			stack[depth++] = r->v[reg] +
					 (op->atom == DW_OP_bregx ? op->number2 : op->number);
			break;
		case DW_OP_stack_value:
			value = true;
			break;
		default:
			return -1;
		}
	}
	if (!depth)
		return -1;
	if (value) {
		*out = stack[depth - 1];
		return 1;
	}
	if (!capture_read(st->cap, stack[depth - 1], out, sizeof(*out))) {
		note_beyond(st, stack[depth - 1]);
		return -1;
	}
	return 1;
}

/* One step by the .debug_frame CFI D from the frame at IP (a return
 * address unless EXACT) in the mapping MP, with the cursor's registers;
 * the cursor then starts again from the caller's frame.  1 stepped, 0 the
 * stack ends here (the CFI says so, or IP is in one of Go's top frames),
 * -1 no step. */
static int cfi_step(struct lu_state *st, unw_cursor_t *cursor, const struct debug_cfi *d,
		    const struct mapping *mp, unw_word_t ip, bool exact, bool on_go_sp)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops, mem[3];
	struct dregs r = { .known = 0 };
	uint64_t cfa, ra, v;
	size_t nops, i;
	int ra_reg, ret;

	if (unwind_go_top_frame(maps_module(st->maps, mp->module), ip - mp->bias))
		return 0;
	for (i = 0; i < ARCH_DWARF_NREGS; i++) {
		unw_word_t w;

		if (unw_get_reg(cursor, LU_REG(i), &w) == 0) {
			r.v[i] = w;
			r.known |= 1u << i;
		}
	}
	/* In Go's call of the vDSO, the frame's stack pointer is in
	 * another register (unwind_go_vdso_caller()); its own may be the
	 * system stack's. */
	if (on_go_sp) {
		if (!(r.known & 1u << ARCH_DWARF_GO_VDSO_SP))
			return -1;
		r.v[ARCH_DWARF_SP] = r.v[ARCH_DWARF_GO_VDSO_SP];
	}
	if (dwarf_cfi_addrframe(d->cfi, (exact ? ip : ip - 1) - mp->bias, &frame) < 0)
		return -1;
	ret = -1;
	/* The CFA: a register plus an offset (DW_OP_bregx), as Go writes
	 * it; an expression is not followed. */
	if (dwarf_frame_cfa(frame, &ops, &nops) < 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= ARCH_DWARF_NREGS || !(r.known & 1u << ops[0].number))
		goto out;
	cfa = r.v[ops[0].number] + ops[0].number2;
	ra_reg = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (ra_reg < 0 || ra_reg >= ARCH_DWARF_NREGS || dwarf_frame_register(frame, ra_reg, mem, &ops, &nops) < 0)
		goto out;
	ret = cfi_eval(st, &r, cfa, ops, nops, ra_reg, &ra);
	if (ret <= 0)
		goto out;
	/* The callee-saved registers by their rules; one the CFI leaves
	 * undefined keeps its value, as in fp_step. */
	for (i = 0; i < ARCH_NCALLEE_SAVED; i++) {
		int reg = (int)arch_dwarf_callee_saved[i];
		unsigned long long *slot = regs_dwarf(&st->regs, (unsigned)reg);

		if (r.known & 1u << reg)
			*slot = r.v[reg];
		if (dwarf_frame_register(frame, reg, mem, &ops, &nops) == 0 &&
		    cfi_eval(st, &r, cfa, ops, nops, reg, &v) == 1)
			*slot = v;
	}
	regs_set_pc(&st->regs, ra);
	regs_set_sp(&st->regs, cfa);
	ret = unw_init_remote(cursor, st->as, st) >= 0 ? 1 : -1;
out:
	free(frame);
	return ret;
}

static enum unwind_result lu_walk(void *state, const struct capture *c,
				  uint64_t *pcs, unsigned max, unsigned *n_out, unsigned *fp)
{
	struct lu_state *st = state;
	enum unwind_result res = UNWIND_FAILED;
	unw_cursor_t cursor;
	bool exact = true;      /* the next PC is not a return address */
	unsigned n = 0;

	st->cap = c;
	st->cfi_mod = NULL;
	st->regs = c->regs;
	/* In a sigreturn trampoline: its frame is the kernel's, and the
	 * walk goes on from the registers the signal interrupted (capture.h). */
	if (c->sigret && max > 1) {
		pcs[n++] = regs_pc(&c->regs);
		st->regs = c->sigregs;
	}
	st->beyond_snapshot = false;
	*fp = 0;
	in_unwind = true;
	if (unw_init_remote(&cursor, st->as, st) < 0)
		goto out;
	for (;;) {
		const struct debug_cfi *dc;
		const struct mapping *mp;
		unw_word_t ip, sp, nsp;
		bool preempt = false, on_go_sp = false, tramp;
		int sig, ret;

		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 ||
		    unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0)
			break;
		if (n > 0 && ip == 0) {
			/* A zeroed return address ends some thread stacks. */
			res = UNWIND_COMPLETE;
			break;
		}
		/* A return address must be in code: past the end of a stack
		 * (or with CFI that does not fit, as in the two instructions
		 * of a new thread after clone3) libunwind's fallbacks read
		 * data as addresses, and would go on through the heap. */
		if (n > 0 && !maps_is_code(st->maps, ip))
			break;
		/* A signal frame's PC is the first instruction of the
		 * trampoline (__restore_rt), where the handler returns to:
		 * pc - 1 would fall before it, in another function.
		 * libunwind 1.6.2 steps through the frame correctly, but its
		 * unw_is_signal_frame() does not report it for a remote
		 * cursor, so the code is checked as well. */
		tramp = maps_is_sigreturn(st->maps, ip);
		sig = tramp || unw_is_signal_frame(&cursor) > 0;
		pcs[n++] = exact || sig ? ip : ip - 1;
		if (n >= max) {
			res = UNWIND_TRUNCATED;
			break;
		}
		/* A handler returns to the trampoline with the kernel's frame
		 * at SP, and only that frame says where the thread goes back
		 * to: Go's runtime.sigreturn has the CFI of an ordinary
		 * function.  The walk goes on from the registers it holds,
		 * the interrupted PC exact. */
		if (tramp && unwind_sigframe_regs(c, sp, &st->regs)) {
			if (unw_init_remote(&cursor, st->as, st) < 0)
				break;
			exact = true;
			continue;
		}
		/* Code outside any file (a JIT's) has no CFI: libunwind
		 * would guess by frame pointer unchecked.  A leaf may have
		 * no frame yet (see leaf_step). */
		if (in_anon_code(st->maps, ip)) {
			if (!(exact && n == 1 && leaf_step(st, &cursor, sp)) &&
			    !fp_step(st, &cursor, sp))
				break;
			++*fp;
			exact = false;
			continue;
		}
		/* CFI in .debug_frame only, which libunwind does not read;
		 * a signal frame is libunwind's to step. */
		mp = sig ? NULL : maps_find(st->maps, ip);
		dc = mp ? debug_cfi(st, mp->module) : NULL;
		if (dc) {
			struct module *mod = maps_module(st->maps, mp->module);

			preempt = unwind_go_async_preempt(mod, ip - mp->bias);
			on_go_sp = unwind_go_vdso_caller(mod, (exact ? ip : ip - 1) - mp->bias);
			ret = cfi_step(st, &cursor, dc, mp, ip, exact, on_go_sp);
		} else {
			unw_cursor_t before = cursor;

			st->noinfo_ip = 0;
			ret = unw_step(&cursor);
			/* Code in a file with no CFI for it: libunwind
			 * guessed; the cursor is plain data, and its copy
			 * from before the step is stepped again, checked. */
			if (!sig && st->noinfo_ip && (st->noinfo_ip == ip || st->noinfo_ip == ip - 1)) {
				cursor = before;
				if (mp && crt_step(st, &cursor, mp, ip, sp)) {
					exact = false;
					continue;
				}
				ret = nocfi_step(st, &cursor, sp, exact && n == 1);
				if (ret > 0) {
					++*fp;
					exact = false;
					continue;
				}
			}
		}
		if (ret == 0) {
			res = UNWIND_COMPLETE;
			break;
		}
		if (ret < 0) {
			res = st->beyond_snapshot ? UNWIND_TRUNCATED : UNWIND_FAILED;
			break;
		}
		/* Each ordinary frame's caller has a higher stack pointer; only a
		 * signal frame may move to another stack (sigaltstack), and Go's
		 * call of the vDSO back from the system stack. */
		if (unw_get_reg(&cursor, UNW_REG_SP, &nsp) < 0 || (!sig && !on_go_sp && nsp <= sp))
			break;
		/* Under a signal frame or Go's asyncPreempt (see unwind.h) is
		 * the interrupted PC, not a return address. */
		exact = sig || preempt;
	}
out:
	in_unwind = false;
	if (n == 0)
		pcs[n++] = regs_pc(&c->regs);
	*n_out = n;
	return res;
}

/* Only a module without .eh_frame's table (Go's): the CFI libunwind
 * reads is not kept where this could look it up. */
static bool lu_sp_cfa(void *state, uint64_t pc, bool exact, int64_t *off)
{
	struct lu_state *st = state;
	const struct mapping *mp = maps_find_code(st->maps, pc);
	const struct debug_cfi *d = mp ? debug_cfi(st, mp->module) : NULL;

	return d && unwind_cfi_sp_cfa(d->cfi, (exact ? pc : pc - 1) - mp->bias, off);
}

const struct unwinder_ops unwinder_libunwind = {
	.name = "libunwind",
	.init = lu_init,
	.fini = lu_fini,
	.flush = lu_flush,
	.walk = lu_walk,
	.sp_cfa = lu_sp_cfa,
};
