/* capture.c - a sample's capture: the registers, a copy of the stack and
 * what else its unwinding will need, taken while the thread is stopped,
 * or from its ring's record.
 */
#include "internal.h"

/* Copy C's stack from its SP up to the end of its mapping (the stack's
 * top), at most stack_size bytes, in one system call; and the red zone
 * below SP, where a leaf function may have saved registers its CFI then
 * finds there (OpenSSL's, for one). */
void copy_stack(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp;
	struct iovec local, remote;
	uint64_t t0;
	ssize_t n;
	size_t len;

	c->sp = regs_sp(&c->regs);
	mp = maps_find(&tgt->maps, c->sp);
	if (mp && c->sp - mp->start >= ARCH_RED_ZONE && sp->stack_size > 2 * ARCH_RED_ZONE)
		c->sp -= ARCH_RED_ZONE;
	c->stack_top = mp ? mp->end : 0;
	len = sp->stack_size;
	if (c->stack_top && c->stack_top - c->sp < len)
		len = (size_t)(c->stack_top - c->sp);
	local.iov_base = c->stack;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)c->sp;
	remote.iov_len = len;
	/* By the thread's own id: a leader that called pthread_exit() is
	 * a zombie without memory, while its threads share the same. */
	t0 = now_ns();
	n = process_vm_readv(c->tid, &local, 1, &remote, 1, 0);
	sp->stats.part_ns.copy += now_ns() - t0;
	c->stack_len = n > 0 ? (size_t)n : 0;
}

/* Copy C's second stack (capture.h) from FROM, at most stack_size bytes,
 * a page an iovec: the copy ends at the first page not mapped, with no
 * lookup of FROM's mapping, which may be heap mapped since the maps were
 * read (reading them again here would be in the stop).  False if nothing
 * could be read. */
bool copy_stack2(struct sampler *sp, struct capture *c, uint64_t from)
{
	struct iovec local, remote[CTPROF_STACK_MAX / GO_STACK_PAGE + 1];
	uint64_t end = from + sp->stack_size, at, next;
	size_t nv = 0;
	ssize_t n;

	if (end < from)
		return false;
	if (!c->stack2)
		c->stack2 = xmalloc(sp->stack_size);
	for (at = from; at < end; at = next) {
		next = (at | (GO_STACK_PAGE - 1)) + 1;
		if (next > end)
			next = end;
		remote[nv].iov_base = (void *)(uintptr_t)at;
		remote[nv++].iov_len = (size_t)(next - at);
	}
	local.iov_base = c->stack2;
	local.iov_len = (size_t)(end - from);
	n = process_vm_readv(c->tid, &local, 1, remote, nv, 0);
	if (n <= 0)
		return false;
	c->sp2 = from;
	c->stack2_len = (size_t)n;
	/* A full copy may stop short of the stack's top; a short one ended
	 * at memory not mapped. */
	c->stack2_top = (size_t)n < local.iov_len ? from + (uint64_t)n : 0;
	return true;
}

/* Copy the stack(s) of stopped thread T into C, whose registers are
 * read: the live stack, and where a signal handler or Go's system stack
 * runs on a stack of its own, the one the walk goes on to. */
static void copy_stacks(struct sampler *sp, struct target *tgt, struct thread *t, struct capture *c)
{
	uint64_t w;

	/* No second stack yet: capture_read() must not find the words of
	 * an earlier sample's in this capture. */
	c->stack2_len = 0;
	c->sigret = c->at_handler = false;
	copy_stack(sp, tgt, c);
	if (handler_entry(sp, tgt, c) && !capture_read(c, regs_sp(&c->regs), &w, sizeof(w)))
		copy_stack(sp, tgt, c);
	if (!in_sigreturn(sp, tgt, c)) {
		copy_go_stack(sp, tgt, c);
		if (!copy_go_interrupted(sp, tgt, c))
			copy_alt_interrupted(sp, tgt, t, c);
	}
}

/* The next free capture, for thread T of TGT: what a use before left in
 * it is cleared, but for its stack buffer. */
struct capture *next_capture(struct sampler *sp, struct target *tgt, struct thread *t)
{
	struct capture *c;

	GROW(sp->caps, sp->capcap, sp->ncaps + 1);
	c = &sp->caps[sp->ncaps];
	if (!c->stack)
		c->stack = xmalloc(sp->stack_size);
	memset(&c->regs, 0, sizeof(c->regs));
	c->target = tgt;
	c->tid = t->tid;
	c->start_ip = t->start_ip;
	c->stall_ns = 0;
	c->stack2_len = 0;
	c->nchain = 0;
	c->peeked = c->in_kernel = c->from_ring = c->go_sigframe = c->cut_short = c->go_vdso = false;
	return c;
}

/* The session's callback: the thread is stopped; take only what must be
 * taken while it is. */
struct capture *capture_thread(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv;
	struct capture *c;
	uint64_t t0, t1;

	GROW(sp->caps, sp->capcap, sp->ncaps + 1);
	c = &sp->caps[sp->ncaps];
	if (!c->stack)
		c->stack = xmalloc(sp->stack_size);
	if (!tgt)
		return NULL;
	c->target = tgt;
	c->tid = t->tid;
	c->start_ip = t->start_ip;
	c->stall_ns = 0;
	c->nchain = 0;
	c->peeked = c->in_kernel = c->from_ring = c->go_sigframe = c->cut_short = c->go_vdso = false;
	t0 = now_ns();
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &c->regs) < 0)
		return NULL;
	t1 = now_ns();
	sp->stats.part_ns.regs += t1 - t0;
	note_short_write(sp, t, &c->regs);
	/* Not counted, unless the thread had blocked (below): its ticks go
	 * to its next sample. */
	if (sp->kicking && !sp->wall && !t->st->asked_held && (t->st->quiet || t->st->probe) &&
	    judge_unheld(sp, t, &c->regs) && !regs_in_syscall(&c->regs)) {
		t->st->carry += 1 + t->st->late_ticks;
		t->st->late_ticks = t->st->late_passed = 0;
		return NULL;
	}
	/* A held stop in a system call says that a probe would find one:
	 * probes come after PROBE_EVERY held samples in a row without. */
	if (t->st->asked_held && !t->st->quiet) {
		t->st->held_since = regs_syscall(&c->regs) >= 0 ? 0 : t->st->held_since + 1;
		t->st->entered |= !t->st->held_since;
	}
	/* On-CPU: a thread that was running when its state was read, but
	 * had blocked in a system call by the time its stop came, was not on
	 * a CPU at the tick.  This is no sample of where it runs: its CPU
	 * time stays for its next sample.  But one seen on its CPU when the
	 * CPU was taken at the tick, and held off it since, was in that
	 * call at the tick: in the kernel, preempted where it lets itself
	 * be (cond_resched()) or gone to sleep since (slept_after_tick()),
	 * and the stop broke the call there.  That is a sample of the call.
	 * Not one picked by the fast path in choose(), which does not read
	 * its state: it may be asleep, having slept up to AWAKE_SLACK_NS
	 * and a little more (awake_since_resume()) since its last resume,
	 * and counted too, such stops oversampled a server
	 * (docs/DESIGN.md, "Where a stop lands"). */
	if (!sp->wall && regs_in_syscall(&c->regs) && !(t->st->at_take && t->st->asked_held)) {
		sp->stats.blocked_at_tick++;
		t->st->blocked_n = sp->tick_n + 1;
		return NULL;
	}
	c->blocked = t->st->blocked_sample;
	c->woke = t->st->blocked_sample && t->st->woke_read;
	c->slices = t->st->slices_mark;
	c->held = t->st->asked_held;
	c->ticks = 1 + t->st->late_ticks + t->st->carry;
	sp->stats.late_ticks += t->st->late_ticks;
	t->st->late_ticks = t->st->late_passed = t->st->carry = 0;
	/* --wall: the ticks it was left asleep in a call that a stop
	 * would end short (still_waiting()) are that call's if this stop
	 * is at its exit, and its next sample's otherwise. */
	c->waited = 0;
	if (t->st->uncut) {
		if (!t->st->blocked_sample && regs_syscall(&c->regs) == t->st->uncut_nr &&
		    regs_sp(&c->regs) == t->st->uncut_sp && regs_pc(&c->regs) == t->st->uncut_pc)
			c->waited = t->st->uncut;
		else
			c->ticks += t->st->uncut;
		t->st->uncut = 0;
	}
	/* Its CPU time and time waiting for one are read as it is resumed
	 * (resume_sampled), for the next tick to tell whether it slept
	 * meanwhile (ran_at_tick), which only a CPU taken at the tick asks:
	 * not read for a stop asked for while the thread ran, whose next
	 * one most likely is too. */
	t->st->resumed_ns = sp->at_tick && t->st->asked_held;
	/* CPU-time weights are given when the thread is settled. */
	c->ns = sp->cputime ? 0 : sp->period_ns * c->ticks;
	c->pending = sp->cputime;
	t->st->unsettled += sp->cputime;
	run_known(t);
	t->st->sample_run = t->st->run_mark;
	copy_stacks(sp, tgt, t, c);
	sp->ncaps++;
	return c;
}

/* The kernel-timed trigger's sample (ktrigger.h): T stopped exactly where
 * its event's tick found it in user mode, for one period of its CPU
 * time.  Nothing here guesses where the thread was at a tick: the
 * kernel's timer interrupt was in the thread's own context. */
struct capture *capture_timed(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv ? t->proc->priv : target_of(sp, t->proc, NULL);
	struct capture *c;
	uint64_t t0;

	if (!tgt)
		return NULL;
	c = next_capture(sp, tgt, t);
	c->blocked = c->woke = c->held = c->pending = false;
	c->waited = c->slices = 0;
	c->ticks = 1;
	c->ns = sp->ktrig.period_ns;
	t0 = now_ns();
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &c->regs) < 0)
		return NULL;
	sp->stats.part_ns.regs += now_ns() - t0;
	/* A tick in user mode stops the thread on the way back from the
	 * interrupt, outside any system call.  A stop at a call's exit
	 * came where the thread unblocked the signal (sigprocmask,
	 * sigreturn): late, at the end of the section that blocked it. */
	if (regs_syscall(&c->regs) >= 0)
		sp->stats.timed_late++;
	sp->stats.timed_samples++;
	t->kt.ev_samples++;
	t->kt.ev_user_ns += c->ns;
	if (!t->kt.ev_full) {
		ktrigger_full_period(&sp->ktrig, t->kt.ev_fd);
		t->kt.ev_full = true;
	}
	copy_stacks(sp, tgt, t, c);
	sp->ncaps++;
	return c;
}

/* A tick from thread T's ring (ktrigger_drain()): a sample of the CPU
 * time NS it stands for, with no stop; where the thread was in user mode,
 * or for a KERNEL-mode tick where it entered the kernel. */
void capture_ring(void *arg, struct thread *t, const struct ktrigger_sample *s)
{
	const struct user_regs_struct *r = &s->regs;
	size_t len = s->len;
	uint64_t ns = s->ns;
	bool kernel = s->kernel;
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv ? t->proc->priv : target_of(sp, t->proc, NULL);
	const struct mapping *mp;
	struct capture *c;
	uint64_t w;

	/* A user-mode sample's time is its, not the [kernel] row's, even
	 * one that cannot be unwound. */
	if (!kernel) {
		t->kt.ev_samples++;
		t->kt.ev_user_ns += s->ran_ns;
	}
	if (!tgt || !len)
		return;
	c = next_capture(sp, tgt, t);
	c->regs = *r;
	c->from_ring = true;
	c->in_kernel = kernel;
	c->blocked = c->woke = c->held = c->pending = c->sigret = c->at_handler = false;
	c->waited = c->slices = 0;
	c->ticks = 1;
	c->ns = ns;
	if (len > sp->stack_size)
		len = sp->stack_size;
	memcpy(c->stack, s->stack, len);
	c->sp = regs_sp(r);
	c->stack_len = len;
	mp = maps_find(&tgt->maps, c->sp);
	c->stack_top = mp ? mp->end : 0;
	/* In a sigreturn trampoline's system call: on from the registers
	 * its frame saved, as for a stop there.  Else, where the frames go
	 * on on another stack (Go's system stack, a signal handler's
	 * alternate one), that one is read now, after the thread has run
	 * on: most often it has not left the code that was sampled.  A
	 * kernel-mode tick is taken so too, at the user registers that
	 * entered the kernel. */
	if (handler_entry(sp, tgt, c) && !capture_read(c, regs_sp(&c->regs), &w, sizeof(w)) &&
	    copy_stack2(sp, c, regs_sp(&c->regs))) {
		c->go_sigframe = true;
		c->go_sigregs = c->regs;
	}
	if (!in_sigreturn(sp, tgt, c)) {
		c->go_vdso = copy_go_stack(sp, tgt, c);
		if (!copy_go_interrupted(sp, tgt, c))
			copy_alt_interrupted(sp, tgt, t, c);
		c->go_sigframe &= !c->go_vdso;
	}
	if (s->nchain > 1) {
		if (!c->chain)
			c->chain = xmalloc(KTRIGGER_USER_CHAIN * sizeof(*c->chain));
		memcpy(c->chain, s->chain, s->nchain * sizeof(*c->chain));
		c->nchain = s->nchain;
	}
	if (kernel)
		sp->stats.kernel_samples++;
	else
		sp->stats.ring_samples++;
	sp->ncaps++;
}

/* Has T a sample taken at this tick, not yet unwound? */
bool capture_pending(const struct sampler *sp, const struct thread *t)
{
	for (size_t i = 0; i < sp->ncaps; i++)
		if (sp->caps[i].tid == t->tid && sp->caps[i].target->proc == t->proc)
			return true;
	return false;
}

/* The captures' buffers held for reuse: stack copies and chains. */
size_t capture_bytes(const struct sampler *sp)
{
	size_t i, n = 0;

	for (i = 0; i < sp->capcap; i++)
		n += (sp->caps[i].stack ? sp->stack_size : 0) +
		     (sp->caps[i].stack2 ? sp->stack_size : 0) +
		     (sp->caps[i].chain ? KTRIGGER_USER_CHAIN * sizeof(*sp->caps[i].chain) : 0);
	return n;
}
