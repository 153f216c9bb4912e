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

/* Not in the uapi headers: what a thread stopped in the middle of a
 * system call has in rax, the kernel's codes for an interrupted call. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

struct target;

struct capture {
	struct target *target;          /* the sampler's process it is of */
	pid_t tid;
	struct user_regs_struct regs;
	uint64_t sp;                    /* address of stack[0]: regs.rsp, less
	                                 * the red zone below it (sampler.c) */
	unsigned char *stack;           /* copy of [sp, sp + stack_len) */
	size_t stack_len;
	uint64_t stack_top;             /* end of the mapping holding sp, 0 if unknown */
	uint64_t stall_ns;              /* PTRACE_INTERRUPT to resume */
	bool blocked;                   /* wall-clock mode: the thread was not
	                                 * running; it waits in regs.orig_rax */
	uint64_t ticks;                 /* the ticks it stands for: 1, those
	                                 * the thread ran through (in the
	                                 * kernel) with its stop asked for
	                                 * (late_tick() in sampler.c), and
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
};

/* Copy N bytes at ADDR from C's stack copy into BUF.  Returns false,
 * copying nothing, unless all N lie inside the copy. */
static inline bool capture_read(const struct capture *c, uint64_t addr, void *buf, size_t n)
{
	if (addr < c->sp || c->stack_len < n || addr - c->sp > c->stack_len - n)
		return false;
	memcpy(buf, c->stack + (addr - c->sp), n);
	return true;
}

#endif
