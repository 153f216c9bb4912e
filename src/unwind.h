/* unwind.h - turning a capture into a call chain, behind one interface.
 *
 * A backend unwinds a struct capture (registers + stack snapshot) with code
 * and unwind tables read from the module files (maps.h).  It never reads the
 * target's memory: the thread is running again by the time it unwinds.
 */
#ifndef CTPROF_UNWIND_H
#define CTPROF_UNWIND_H

#include "capture.h"
#include "maps.h"

enum unwind_result {
	UNWIND_COMPLETE,        /* reached the outermost frame */
	UNWIND_TRUNCATED,       /* ran past the stack copy or the frame limit */
	UNWIND_FAILED,          /* no unwind info, bad data, or no progress */
};

struct unwinder_ops {
	const char *name;
	/* Per-target state for MAPS (which must outlive it); NULL on error. */
	void *(*init)(struct maps *maps);
	void (*fini)(void *state);
	/* Code was unmapped or the target exec'd: drop cached unwind data. */
	void (*flush)(void *state);
	/* Unwind C into at most MAX addresses, innermost first, stored in PCS
	 * with their count in *N.  PCS[0] is the exact PC; later entries are
	 * call sites (return address - 1), except right after a signal frame
	 * where the interrupted PC is exact.  *N >= 1 whatever the result.
	 * *FP is the number of frames stepped by frame pointer (code with
	 * no CFI: JIT code). */
	enum unwind_result (*walk)(void *state, const struct capture *c,
				   uint64_t *pcs, unsigned max, unsigned *n, unsigned *fp);
	/* By its CFI, the offset from the stack pointer to the CFA of the
	 * frame at PC (EXACT: not a return address, looked up at PC rather
	 * than a byte before), into *OFF.  False without CFI there, or
	 * where the CFA is not the stack pointer plus an offset.  Reads no
	 * memory. */
	bool (*sp_cfa)(void *state, uint64_t pc, bool exact, int64_t *off);
};

struct Dwarf_CFI_s;
/* The offset from the stack pointer to the CFA by CFI's rule at ELF
 * address VADDR, into *OFF: as sp_cfa above, for the backends. */
bool unwind_cfi_sp_cfa(struct Dwarf_CFI_s *cfi, uint64_t vaddr, int64_t *off);

extern const struct unwinder_ops unwinder_libunwind;
extern const struct unwinder_ops unwinder_libdw;

/* Is ELF address VADDR of MOD in one of Go's functions that start a stack
 * (a goroutine's, a thread's, or a switch to the system stack), above
 * which the stack holds nothing of the thread's?  Only a module without
 * .eh_frame is looked at (Go's own linker writes .debug_frame only); its
 * symbol table is read once. */
bool unwind_go_top_frame(struct module *mod, uint64_t vaddr);

/* Is ELF address VADDR of MOD in Go's runtime.asyncPreempt?  Go preempts
 * a goroutine with a signal whose handler makes the interrupted code look
 * as if it had called asyncPreempt: it pushes the interrupted PC as the
 * return address.  That PC is exact, not after a call: the caller's CFI
 * is looked up at it, not a byte before (which may be another function's,
 * at the first instruction of a leaf).  Go's own traceback does the same.
 * Looked at as unwind_go_top_frame does. */
bool unwind_go_async_preempt(struct module *mod, uint64_t vaddr);

/* Is ELF address VADDR of MOD in one of Go's functions that call the vDSO
 * (time.now, runtime.nanotime1), where another register holds its stack
 * pointer?  They move to the thread's system stack to call it, the
 * goroutine's stack pointer kept in a register the vDSO's code preserves
 * (regs_go_vdso_sp()): from their saving of it there to its restoring,
 * their frame and their callers' are found from that register, not from
 * the stack pointer their CFI is written for, and are
 * on another stack than the vDSO's (the sampler copies it too: struct
 * capture).  VADDR is the exact PC of a leaf, a call's last byte for a
 * caller.  Looked at as unwind_go_top_frame does. */
bool unwind_go_vdso_caller(struct module *mod, uint64_t vaddr);

/* The registers a signal interrupted, from the ucontext at UC in C's
 * stack copies (the kernel's frame for a handler: its rt_sigframe holds
 * the trampoline's address, then the ucontext), into *R; false if C
 * does not hold it.  R shows no system call (regs_syscall() -1): one the signal came
 * in has returned or been set to restart. */
bool unwind_sigframe_regs(const struct capture *c, uint64_t uc, struct user_regs_struct *r);

/* The ELF address of Go's runtime.sigreturn in MOD (the trampoline its
 * signal handlers return to), or 0.  Go runs its handlers on a stack of
 * their own.  Only once MOD's symbols are read (unwind_go_top_frame()
 * reads them), which this does not do. */
uint64_t unwind_go_sigreturn(const struct module *mod);

/* Is ELF address VADDR of MOD in its _init or _fini, which have no CFI
 * (glibc's crti.o and crtn.o write none)?  0 if not; else the offset from
 * the stack pointer to the caller's: 8 before the prologue's adjustment
 * and at the final ret, 16 in between.  VADDR is the exact PC of a leaf,
 * the return address of a caller.  The section headers are read once. */
unsigned unwind_crt_cfa(struct module *mod, uint64_t vaddr);

/* The backend called NAME, or NULL. */
const struct unwinder_ops *unwinder_find(const char *name);
/* The backend used when none is named. */
extern const struct unwinder_ops *const unwinder_default;

#endif
