/* capture.h - what is taken from a thread while it is stopped: its registers
 * and one copy of its live stack.  Everything else happens after it runs. */
#ifndef CTPROF_CAPTURE_H
#define CTPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/user.h>

#include "arch.h"

/* Not in the uapi headers: what a thread stopped in the middle of a
 * system call has as its result (regs_result()), the kernel's codes for an interrupted call. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

struct target;

struct capture {
	struct target *target;          /* the sampler's process it is of */
	pid_t tid;
	struct user_regs_struct regs;
	uint64_t sp;                    /* address of stack[0]: its SP, less
	                                 * the red zone below it (sampler/capture.c) */
	unsigned char *stack;           /* copy of [sp, sp + stack_len) */
	size_t stack_len;
	uint64_t stack_top;             /* end of the mapping holding sp, 0 if unknown */
	/* A second copy, of another stack the thread's frames go on on:
	 * a goroutine's, under Go's call of the vDSO on the system stack
	 * (unwind_go_vdso_caller()).  stack2_len 0: none. */
	uint64_t sp2;
	unsigned char *stack2;          /* copy of [sp2, sp2 + stack2_len) */
	size_t stack2_len;
	uint64_t stack2_top;            /* where the memory after sp2 ends, 0
	                                 * if the copy was cut short first */
	bool at_handler;                /* stopped where a handler starts,
	                                 * taken where its signal came
	                                 * (sampler/sigframe.c, handler_entry()) */
	/* Stopped in a sigreturn trampoline, its handler returned
	 * (sampler/sigframe.c, in_sigreturn()): the trampoline's frame is the
	 * kernel's, and the walk goes on from the registers the signal
	 * interrupted, which its ucontext holds. */
	bool sigret;
	struct user_regs_struct sigregs;
	uint64_t stall_ns;              /* PTRACE_INTERRUPT to resume */
	bool blocked;                   /* wall-clock mode: the thread was not
	                                 * running; it waits in regs_syscall() */
	bool woke;                      /* ... and woke up as its wait was
	                                 * read: stopped as it ran on */
	bool peeked;                    /* wall-clock mode: taken without a
	                                 * stop, the thread asleep in a call
	                                 * (sampler/wall.c, peek_wait()); regs has
	                                 * only the PC, SP and the call's */
	uint64_t waited;                /* wall-clock mode: ticks it was left
	                                 * asleep in the call it stopped at the
	                                 * exit of (sampler/wall.c, still_waiting()) */
	uint64_t ticks;                 /* the ticks it stands for: 1, those
	                                 * the thread ran through (in the
	                                 * kernel) with its stop asked for
	                                 * (late_tick() in sampler/cputime.c), and
	                                 * those of its stops since its last
	                                 * sample that were not counted
	                                 * (judge_unheld() there) */
	uint64_t ns;                    /* the time the sample stands for... */
	bool pending;                   /* ... unless it is given when its
	                                 * thread is settled */
	uint64_t slices;                /* times it got a CPU, read before the stop */
	bool held;                      /* its stop was asked for with its CPU
	                                 * held (by a helper, or the sampler) */
	uint64_t start_ip;              /* its thread's start_ip (session.h) */
	bool from_ring;                 /* a tick from a ring: no stop, any
	                                 * other stack read after the thread
	                                 * ran on */
	bool in_kernel;                 /* ... a kernel-mode one: the thread
	                                 * was in the kernel, entered from
	                                 * these user registers */
	/* A ring's tick: the user call chain by frame pointer the kernel
	 * read at the tick (the PC first), for frames on a stack copied only
	 * as the ring was read, or beyond the copy (sampler/chain.c,
	 * splice_chain(), splice_signal(), chain_on()).  nchain 0: none. */
	uint64_t *chain;
	unsigned nchain;
	bool go_vdso;                   /* in Go's call of the vDSO */
	/* Of a tick in a Go signal handler on its own stack, or in a
	 * sigreturn trampoline, where the code the signal interrupted had
	 * its stack copied only as the ring was read (sampler/go.c,
	 * copy_go_interrupted(); sampler/sigframe.c, in_sigreturn()): the registers the signal
	 * interrupted, from the kernel's frame, copied at the tick.  The
	 * chain goes on from them (splice_signal()). */
	bool go_sigframe;
	struct user_regs_struct go_sigregs;
	/* Its frames go on from memory copied only after the thread ran
	 * on, where nothing can check them: its PC alone, cut short
	 * (sampler/sigframe.c, in_sigreturn()). */
	bool cut_short;
};

/* Copy N bytes at ADDR from C's stack copies into BUF.  Returns false,
 * copying nothing, unless all N lie inside one of them. */
static inline bool capture_read(const struct capture *c, uint64_t addr, void *buf, size_t n)
{
	if (addr >= c->sp && c->stack_len >= n && addr - c->sp <= c->stack_len - n) {
		memcpy(buf, c->stack + (addr - c->sp), n);
		return true;
	}
	if (addr >= c->sp2 && c->stack2_len >= n && addr - c->sp2 <= c->stack2_len - n) {
		memcpy(buf, c->stack2 + (addr - c->sp2), n);
		return true;
	}
	return false;
}

/* Is ADDR on a stack copied in C, above its copy: a read there found
 * nothing because the copy stops short (the unwind is cut short, not
 * wrong)? */
static inline bool capture_beyond(const struct capture *c, uint64_t addr)
{
	return (addr >= c->sp + c->stack_len && (!c->stack_top || addr < c->stack_top)) ||
	       (c->stack2_len && addr >= c->sp2 + c->stack2_len && (!c->stack2_top || addr < c->stack2_top));
}

#endif
