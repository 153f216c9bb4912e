/* arch.h - x86-64's registers as ctprof reads them: the PC, the stack and
 * frame pointers, a system call's number, result and arguments in a
 * stopped thread's user_regs_struct; their DWARF numbers (which both
 * unwinders use); and the layouts the kernel hands them over in, a signal
 * frame's ucontext and a perf sample's registers.  Generic code reaches
 * registers only through this header (docs/DESIGN.md, "The house"). */
#ifndef CTPROF_ARCH_H
#define CTPROF_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>
#include <sys/ucontext.h>        /* greg_t */
#include <linux/perf_event.h>
#include <asm/perf_regs.h>

static inline uint64_t regs_pc(const struct user_regs_struct *r) { return r->rip; }
static inline uint64_t regs_sp(const struct user_regs_struct *r) { return r->rsp; }
static inline uint64_t regs_fp(const struct user_regs_struct *r) { return r->rbp; }
static inline void regs_set_pc(struct user_regs_struct *r, uint64_t v) { r->rip = v; }
static inline void regs_set_sp(struct user_regs_struct *r, uint64_t v) { r->rsp = v; }
static inline void regs_set_fp(struct user_regs_struct *r, uint64_t v) { r->rbp = v; }

/* The system call a thread stopped in or at the exit of (orig_rax), < 0
 * if none: a stop by interrupt or fault. */
static inline long regs_syscall(const struct user_regs_struct *r) { return (long)r->orig_rax; }
static inline void regs_set_syscall(struct user_regs_struct *r, long nr)
{
	r->orig_rax = (unsigned long long)nr;
}

/* A system call's result, or -errno (the kernel's -ERESTART* too). */
static inline long regs_result(const struct user_regs_struct *r) { return (long)r->rax; }
static inline void regs_set_result(struct user_regs_struct *r, long v)
{
	r->rax = (unsigned long long)v;
}

/* A system call's argument I (0-5), in the order of syscall(2). */
static inline uint64_t regs_arg(const struct user_regs_struct *r, unsigned i)
{
	switch (i) {
	case 0: return r->rdi;
	case 1: return r->rsi;
	case 2: return r->rdx;
	case 3: return r->r10;
	case 4: return r->r8;
	default: return r->r9;
	}
}

/* The PC's offset for PTRACE_PEEKUSER. */
#define ARCH_PEEKUSER_PC offsetof(struct user_regs_struct, rip)

/* Sets all six arguments, and the register the syscall instruction
 * leaves the return address in (rcx) to the PC, as a thread stopped at
 * a call's exit has them. */
static inline void regs_set_args(struct user_regs_struct *r, const uint64_t args[6])
{
	r->rdi = args[0];
	r->rsi = args[1];
	r->rdx = args[2];
	r->r10 = args[3];
	r->r8 = args[4];
	r->r9 = args[5];
	r->rcx = r->rip;
}

/* Where Go keeps the goroutine's stack pointer while its time.now and
 * runtime.nanotime1 call the vDSO on the thread's system stack
 * (runtime/sys_linux_amd64.s): R12. */
static inline uint64_t regs_go_vdso_sp(const struct user_regs_struct *r) { return r->r12; }

/* DWARF's numbering of the registers (the x86-64 psABI), which
 * libunwind's UNW_X86_64_* follow too: 0-15 the general registers, 16
 * the return address column, the PC. */
#define ARCH_DWARF_NREGS 17
#define ARCH_DWARF_FP 6
#define ARCH_DWARF_SP 7
#define ARCH_DWARF_PC 16
#define ARCH_DWARF_GO_VDSO_SP 12        /* regs_go_vdso_sp()'s */

/* libunwind's number of DWARF register N: the same (UNW_X86_64_*). */
#define ARCH_LU_REG(n) ((int)(n))

/* The registers a called function must keep (rbx, rbp, r12-r15): a walk
 * that restarts at a caller's frame carries them over. */
static const unsigned arch_dwarf_callee_saved[] = { 3, 6, 12, 13, 14, 15 };
#define ARCH_NCALLEE_SAVED (sizeof(arch_dwarf_callee_saved) / sizeof(arch_dwarf_callee_saved[0]))

/* The field of R that holds DWARF register N, NULL if none. */
static inline unsigned long long *regs_dwarf(struct user_regs_struct *r, unsigned n)
{
#define O(f) offsetof(struct user_regs_struct, f)
	static const unsigned short off[ARCH_DWARF_NREGS] = {
		O(rax), O(rdx), O(rcx), O(rbx), O(rsi), O(rdi), O(rbp), O(rsp),
		O(r8), O(r9), O(r10), O(r11), O(r12), O(r13), O(r14), O(r15), O(rip),
	};
#undef O
	return n < ARCH_DWARF_NREGS ? (unsigned long long *)((char *)r + off[n]) : NULL;
}

static inline uint64_t regs_dwarf_get(const struct user_regs_struct *r, unsigned n)
{
	return *regs_dwarf((struct user_regs_struct *)r, n);
}

/* R from the general registers GREGS of a signal frame's ucontext, as
 * the signal interrupted them; not in a system call (arch.c). */
void regs_from_gregs(struct user_regs_struct *r, const greg_t *gregs);

/* The user registers a perf sample carries (sample_regs_user), and how
 * many: the general ones, the PC and the flags. */
#define ARCH_PERF_REGS ((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) | \
			(1ULL << PERF_REG_X86_CX) | (1ULL << PERF_REG_X86_DX) | \
			(1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI) | \
			(1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | \
			(1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_FLAGS) | \
			(0xffULL << PERF_REG_X86_R8))
#define ARCH_PERF_NREGS 18
_Static_assert(__builtin_popcountll(ARCH_PERF_REGS) == ARCH_PERF_NREGS, "ARCH_PERF_NREGS");

/* R from a perf sample's ARCH_PERF_REGS V, which come in the order of
 * their bits; not in a system call. */
static inline void regs_from_perf(struct user_regs_struct *r, const uint64_t v[ARCH_PERF_NREGS])
{
	r->rax = v[0]; r->rbx = v[1]; r->rcx = v[2]; r->rdx = v[3];
	r->rsi = v[4]; r->rdi = v[5]; r->rbp = v[6]; r->rsp = v[7];
	r->rip = v[8]; r->eflags = v[9];
	r->r8 = v[10]; r->r9 = v[11]; r->r10 = v[12]; r->r11 = v[13];
	r->r12 = v[14]; r->r13 = v[15]; r->r14 = v[16]; r->r15 = v[17];
	r->orig_rax = (unsigned long long)-1;
}

/* Instructions, checked in code read from a module's file (arch.c). */

/* The rt_sigreturn trampoline a signal handler returns to (glibc's
 * __restore_rt, Go's runtime.sigreturn): mov $15,%rax; syscall.  Its
 * system call instruction starts ARCH_SIGRETURN_SYSCALL bytes in; a
 * kernel-mode tick in that call has the PC at its end. */
#define ARCH_SIGRETURN_LEN 9
#define ARCH_SIGRETURN_SYSCALL 7
extern const unsigned char arch_sigreturn_code[ARCH_SIGRETURN_LEN];

/* The system call instruction, which a PC after a call's return follows. */
#define ARCH_SYSCALL_LEN 2
extern const unsigned char arch_syscall_code[ARCH_SYSCALL_LEN];

/* Does a call instruction end at the end of CODE's ARCH_CALL_WINDOW
 * bytes: is the address after them a return address? */
#define ARCH_CALL_WINDOW 8
bool arch_call_ends(const unsigned char code[ARCH_CALL_WINDOW]);

/* Are the N bytes of CODE _init or _fini as crti.o and crtn.o make them,
 * which have no CFI: an optional landing pad, a stack adjustment, the
 * body, the adjustment undone, ret?  If so, *BODY is where the body
 * starts (the CFA is SP + ARCH_CRT_BODY_CFA from there to the ret, SP +
 * the return address's size elsewhere) and the ret is the last byte. */
#define ARCH_CRT_BODY_CFA 16
bool arch_crt_shape(const unsigned char *code, size_t n, size_t *body);

/* In the N bytes of CODE of a Go function that calls the vDSO on the
 * system stack: where the goroutine's SP is kept in regs_go_vdso_sp()'s
 * register, from just after the instruction that saves it there to just
 * after the one that moves it back, as offsets into CODE. */
bool arch_go_sp_kept(const unsigned char *code, size_t n, size_t range[2]);

/* The loader's page: the low bits of an address within one. */
#define ARCH_PAGE_LOW 0xfffULL

/* The stack the ABI lets a leaf use below SP without moving it: a copy
 * of a stack starts this far below SP. */
#define ARCH_RED_ZONE 128

#endif
