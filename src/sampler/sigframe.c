/* sigframe.c - stops in signal handlers: at a handler's first
 * instruction, in a sigreturn trampoline, on a stack of the handler's
 * own, whose interrupted stack is copied too.
 */
#include "internal.h"

/* Is C's thread stopped where a signal handler starts, the kernel having
 * just set up its frame: the return address at SP is a sigreturn
 * trampoline (__restore_rt, Go's runtime.sigreturn) and the handler has
 * not run an instruction?  If so, C's registers become those the signal
 * interrupted, from the frame's ucontext (the kernel's struct rt_sigframe:
 * the trampoline's address, then the ucontext), and true is returned.
 *
 * Such a stop is not where the thread was at the tick but where it next
 * left the kernel: the signal was delivered between.  Under ptrace it is
 * common, not rare: each signal stops the thread (signal-delivery stop)
 * until ctprof delivers it, and the thread then sets up the frame on its
 * way back to user space, which is where an asked-for stop finds it;
 * counted there, a program that takes many signals shows its handlers
 * far above perf's share (docs/DESIGN.md, "Signal handlers").  Go runs
 * handlers on a stack of their own: the stack is copied again from the
 * interrupted SP (capture_thread).
 *
 * A handler that keeps no frame at all (a leaf that pushes nothing) has
 * the trampoline at SP throughout, and a stop anywhere in it is taken
 * so too: such a handler is a few instructions, and its time goes to the
 * code it interrupted. */
bool handler_entry(struct sampler *sp, struct target *tgt, struct capture *c)
{
	struct user_regs_struct r = c->regs;
	const struct mapping *mp;
	uint64_t ret;

	/* The word at SP is most often no code address: looked up as one,
	 * it would have the maps read again, in the stop, at every sample
	 * (docs/DESIGN.md, "Signal handlers").  Only code already mapped
	 * is checked. */
	if (!capture_read(c, regs_sp(&r), &ret, sizeof(ret)) || !(mp = maps_find(&tgt->maps, ret)) ||
	    !mp->exec || !unwind_sigframe_regs(c, regs_sp(&r) + sizeof(ret), &r) ||
	    !maps_is_sigreturn(&tgt->maps, ret))
		return false;
	c->regs = r;
	c->at_handler = true;
	sp->stats.handler_entries++;
	return true;
}

/* Is C's thread stopped in a sigreturn trampoline, its handler returned:
 * on the trampoline's first instruction or on its system call
 * instruction (arch_sigreturn_code), or (a kernel-mode tick from a ring) in that call, before it
 * restored the registers?  The kernel's frame is then at SP, the
 * trampoline's address popped: its ucontext first.  If so, C's sigregs
 * become the registers the signal interrupted, which the walk goes on
 * from, with the trampoline as the leaf (the time is the signal's return,
 * which the interrupted code pays for), and true is returned.
 *
 * Only the kernel's frame says where the thread goes back to.  glibc's
 * __restore_rt has CFI that says so, but Go's runtime.sigreturn has CFI
 * of an ordinary function (return address at SP): a walk by it reads
 * the ucontext's flags as a return address and fails.  Such a stop is
 * rare (an interrupt or a fault on those two instructions: a page of
 * code faulted in, a tick; docs/DESIGN.md, "Signal handlers");
 * tests/targets/sigtramp.c makes them common.  Go's handlers run on a
 * stack of their own, so the interrupted stack is copied as well if it
 * is not in the copy. */
bool in_sigreturn(struct sampler *sp, struct target *tgt, struct capture *c)
{
	uint64_t pc = regs_pc(&c->regs);
	const struct mapping *mp = maps_find(&tgt->maps, pc);
	uint64_t head[2], w;

	/* The kernel writes uc_flags (a few bits) and a null uc_link:
	 * most stacks fail this before the code is looked at. */
	if (!mp || !mp->exec || !capture_read(c, regs_sp(&c->regs), head, sizeof(head)) ||
	    head[0] > 0xff || head[1] != 0)
		return false;
	if (!maps_is_sigreturn(&tgt->maps, pc) &&
	    !(pc - mp->start >= ARCH_SIGRETURN_SYSCALL &&
	      maps_is_sigreturn(&tgt->maps, pc - ARCH_SIGRETURN_SYSCALL)) &&
	    !(c->in_kernel && pc - mp->start >= ARCH_SIGRETURN_LEN &&
	      maps_is_sigreturn(&tgt->maps, pc - ARCH_SIGRETURN_LEN)))
		return false;
	c->sigregs = c->regs;
	if (!unwind_sigframe_regs(c, regs_sp(&c->regs), &c->sigregs))
		return false;
	/* A ring's tick there after Go's preemption signal, whose handler
	 * made the interrupted code seem to call asyncPreempt, its PC
	 * pushed on the goroutine's stack: that stack is read only now,
	 * after the thread ran on and past that word, and a walk from it
	 * would go on from whatever is there now.  Cut short at the
	 * trampoline instead, as perf's walk from the signal stack is
	 * (docs/DESIGN.md, "Rings: samples without a stop"). */
	if (c->from_ring && !capture_read(c, regs_sp(&c->sigregs), &w, sizeof(w)) &&
	    (mp = maps_find(&tgt->maps, regs_pc(&c->sigregs))) && mp->exec &&
	    unwind_go_async_preempt(maps_module(&tgt->maps, mp->module), regs_pc(&c->sigregs) - mp->bias)) {
		c->cut_short = true;
		return true;
	}
	c->sigret = true;
	if (!capture_read(c, regs_sp(&c->sigregs), &w, sizeof(w)) && copy_stack2(sp, c, regs_sp(&c->sigregs)) &&
	    c->from_ring) {
		c->go_sigframe = true;
		c->go_sigregs = c->sigregs;
	}
	sp->stats.sigreturn_stops++;
	return true;
}

/* Where a search of C's copy for a signal frame, from OFF, ends: LIMIT
 * bytes on, or the copy's end. */
size_t scan_end(const struct capture *c, size_t off, size_t limit)
{
	return c->stack_len - off > limit ? off + limit : c->stack_len;
}

/* A handler of another program (C's, C++'s, Rust's) that runs on a stack
 * of its own (sigaltstack(2) and SA_ONSTACK) has, as Go's, the kernel's
 * frame at that stack's top and the interrupted frames on the thread's
 * stack, not copied: tests/targets/sigframe.c run so had its stacks end
 * at __restore_rt, counted failed (libunwind) or cut short.  Its
 * trampoline's address is not known beforehand (glibc's __restore_rt is
 * not in its dynamic symbols), but the frame says what it is: after the
 * trampoline's address, a ucontext whose uc_flags are a few bits, whose
 * uc_link is null, and whose uc_stack, the signal stack the kernel had
 * for the thread, holds the frame itself.  Words of the first
 * ALT_SIGFRAME_SCAN bytes of the copy that fit are checked for a
 * trampoline's code; where one is, and the interrupted SP is outside the
 * copy, the stack there is copied too (copy_stack2()).  Not in Go's code
 * (copy_go_interrupted()), and only in a thread that ctprof has seen a
 * signal delivered to, since the search costs something at every sample
 * (docs/DESIGN.md, "Signal handlers").  A handler
 * runs in no other thread, but in one that ran it as ctprof attached: a
 * thread found running then is looked through at its first sample, and
 * at every one after if that found a handler's frame.  A frame whose
 * interrupted SP
 * is in the copy, above it, is of a signal that came in a handler on the
 * same stack: the search goes on from there for the outer handler's. */
void copy_alt_interrupted(struct sampler *sp, struct target *tgt, struct thread *t,
				 struct capture *c)
{
	uint64_t w[6], at, ret;
	struct user_regs_struct r;
	const struct mapping *mp;
	size_t off, end;
	bool first = t->seized_running;

	t->seized_running = false;
	if (!(t->signaled || first) || c->stack2_len || regs_sp(&c->regs) < c->sp ||
	    regs_sp(&c->regs) - c->sp >= c->stack_len)
		return;
	off = (size_t)(regs_sp(&c->regs) - c->sp);
	for (end = scan_end(c, off, ALT_SIGFRAME_SCAN); off + sizeof(w) <= end; off += sizeof(w[0])) {
		/* w: the trampoline's address, uc_flags, uc_link, then
		 * uc_stack's ss_sp, ss_flags and ss_size. */
		memcpy(&w[2], c->stack + off + 2 * sizeof(w[0]), sizeof(w[2]));
		if (w[2] != 0)
			continue;
		memcpy(w, c->stack + off, sizeof(w));
		at = c->sp + off;
		if (w[1] > 0xff || w[5] < ALT_STACK_MIN || w[5] > ALT_STACK_MAX || at < w[3] ||
		    at - w[3] >= w[5])
			continue;
		/* A frame that fits so far is seldom anything else: its
		 * code may be looked for in maps read again, in the stop
		 * (libc, for a program started by ctprof, at its first
		 * sample). */
		ret = w[0];
		mp = maps_find_code(&tgt->maps, ret);
		if (!mp || !mp->exec || !maps_is_sigreturn(&tgt->maps, ret))
			continue;
		t->signaled = true;
		r = c->regs;
		if (!unwind_sigframe_regs(c, at + sizeof(ret), &r))
			return;
		if (!capture_read(c, regs_sp(&r), &ret, sizeof(ret))) {
			if (copy_stack2(sp, c, regs_sp(&r)))
				sp->stats.alt_handler_copies++;
			return;
		}
		/* The signal came in a handler on the same stack: its frame
		 * is higher up, above the SP this one interrupted
		 * (tests/targets/sigframe.c, "alt nested"). */
		if (regs_sp(&r) <= at + sizeof(ret))
			return;
		off = (size_t)(regs_sp(&r) - c->sp) - sizeof(w[0]);
		end = scan_end(c, off, ALT_SIGFRAME_SCAN);
	}
}
