/* count.c - unwinding the captures once the threads run again, and
 * counting their stacks; the rings emptied a batch at a time.
 */
#include "internal.h"

/* Every tick the threads' rings hold, into captures, unwound RING_BATCH
 * at a time: a capture holds a stack's copy, and 64 rings can hold some
 * 2000 ticks, which held at once would be ctprof's heap. */
void drain_thread(struct sampler *sp, struct thread *t, bool *epoch)
{
	while (t->kt.kr_fd >= 0) {
		unsigned room = sp->ncaps < RING_BATCH ? RING_BATCH - (unsigned)sp->ncaps : 0;

		if (room && ktrigger_drain(&sp->ktrig, t, capture_ring, sp, room) < room)
			break;
		/* The maps may have changed since the last drain (once a
		 * drain: a new epoch may read them again). */
		if (!*epoch)
			next_epoch(sp);
		*epoch = true;
		unwind_captures(sp);
	}
}

void drain_rings(struct sampler *sp)
{
	struct session *s = sp->session;
	bool epoch = false;

	if (!sp->ktrig.kernel && !sp->ktrig.user_rings)
		return;
	for (size_t i = 0; i < s->nthreads; i++)
		drain_thread(sp, &s->threads[i], &epoch);
}

/* Put KEY under the N frames in PCS as their leaf (dropping the outermost
 * frame if PCS is full). */
static void push_leaf(struct sampler *sp, unsigned *n, uint64_t key)
{
	if (*n == sp->max_frames)
		(*n)--;
	memmove(sp->pcs + 1, sp->pcs, *n * sizeof(*sp->pcs));
	sp->pcs[0] = key;
	(*n)++;
}

/* Capture C's stop was asked for with its thread's CPU held (c->held),
 * but the thread got no CPU between its state's read at the tick and its
 * stop (its CPU arrivals, c->slices then, and as it was resumed): it was
 * running all along, on another CPU than the one held, and stopped where
 * it next left the kernel.  Its CPU was read at most CPU_READ_TICKS ago
 * (see choose()), and a thread the helpers preempt, or that ptrace
 * resumes, may be moved to an idle CPU meanwhile.  Not counted: its
 * ticks and CPU time go to its next sample.  Such stops come where a
 * host takes the CPUs now and then (tests/targets/rtsteal.c;
 * docs/DESIGN.md, "The helpers"); where nothing else runs, none. */
bool not_held(struct sampler *sp, const struct capture *c)
{
	struct thread *t;

	if (!c->held || sp->wall)
		return false;
	t = session_thread(sp->session, c->tid);
	if (!t || !t->st->resumed_ns || t->st->stop_slices != c->slices)
		return false;
	t->st->carry += c->ticks;
	sp->stats.not_held++;
	/* Its CPU is read again before its next stop (see choose()). */
	t->st->moved_n = sp->tick_n + 1;
	return true;
}

/* Peeked capture C's walk did not complete (peek_wait()): its ticks go
 * back to its thread, as if it had been left alone there. */
static void unpeek(struct sampler *sp, const struct capture *c)
{
	struct thread *t = session_thread(sp->session, c->tid);

	sp->stats.peeks_failed++;
	if (!t)
		return;
	t->st->peek_nr = regs_syscall(&c->regs);
	t->st->peek_sp = regs_sp(&c->regs);
	t->st->peek_pc = regs_pc(&c->regs);
	keep_uncut(t, t->st->peek_nr, t->st->peek_sp, t->st->peek_pc, c->ticks);
}

/* Walk capture C's stack into sp->pcs (*N frames), taking frames the
 * walk could not from the kernel's chain of a ring's tick (chain.c), and
 * count the result in -v's figures. */
static void walk_capture(struct sampler *sp, struct capture *c, unsigned *np)
{
	struct sampler_stats *st = &sp->stats;
	struct target *tgt = c->target;
	uint64_t t0 = now_ns(), us = c->stall_ns / 1000;
	enum unwind_result res;
	unsigned n = 0, fp = 0;

	st->samples++;
	if (!c->in_kernel) {
		st->stall_ns += c->stall_ns;
		st->stall_hist[us < STALL_BUCKETS ? us : STALL_BUCKETS - 1]++;
	}

	if (c->cut_short) {
		sp->pcs[0] = regs_pc(&c->regs);
		n = 1;
		res = UNWIND_TRUNCATED;
	} else {
		res = sp->unwinder->walk(tgt->unwind_state, c, sp->pcs, sp->max_frames, &n, &fp);
	}
	/* A ring's tick whose frames go on on another stack, copied
	 * as the ring was read, after the thread ran on: a walk that
	 * fails past its first frame read stale words there, where
	 * nothing is wrong with the walk (sigtramp's handler on an
	 * alternate stack; docs/DESIGN.md, "Rings: samples without a
	 * stop"): cut short there, not failed. */
	if (res == UNWIND_FAILED && c->from_ring && c->stack2_len && n >= 2)
		res = UNWIND_TRUNCATED;
	if (c->nchain && (c->go_sigframe || c->go_vdso) &&
	    (c->go_sigframe ? splice_signal(sp, tgt, c, sp->pcs, &n, sp->max_frames)
			    : splice_chain(tgt, c, sp->pcs, &n, sp->max_frames))) {
		res = UNWIND_COMPLETE;
		st->spliced[c->go_sigframe]++;
	} else if (res == UNWIND_TRUNCATED && c->nchain && chain_on(tgt, c, sp->pcs, &n, sp->max_frames)) {
		res = go_top(tgt, sp->pcs[n - 1]) ? UNWIND_COMPLETE : UNWIND_TRUNCATED;
		st->chained++;
	}
	/* A new thread on its first instructions, just back from clone
	 * or clone3 with the child's 0: its stack holds nothing yet,
	 * and the CFI there is the parent's, or none (glibc ends
	 * clone3's before the system call).  Taken at its first stop,
	 * before it ran, it has -1 for the call; taken after it ran a
	 * few instructions towards the call of its start function
	 * (test, branch, align the stack: 17 bytes in glibc 2.36's
	 * clone3), it is within CLONE_CHILD_SPAN of where it started.
	 * Not a stop taken where a signal came: the registers are
	 * those of code that ran, after any call that returned 0. */
	if (res == UNWIND_FAILED && n == 1 && regs_result(&c->regs) == 0 && !c->at_handler &&
	    (regs_syscall(&c->regs) == SYS_clone || regs_syscall(&c->regs) == SYS_clone3 ||
	     (c->start_ip && regs_pc(&c->regs) - c->start_ip < CLONE_CHILD_SPAN) ||
	     (regs_syscall(&c->regs) == -1 &&
	      maps_after_syscall(&c->target->maps, regs_pc(&c->regs)))))
		res = UNWIND_COMPLETE;
	st->fp_frames += fp;
	st->unwind_ns += now_ns() - t0;
	if (res == UNWIND_COMPLETE)
		st->unwind_complete++;
	else if (res == UNWIND_TRUNCATED)
		st->unwind_truncated++;
	else
		st->unwind_failed++;
	st->frames += n;
	*np = n;
}

/* Count capture C's stack of N frames in sp->pcs: as frame keys, with the
 * leaf of a call it waits in or a kernel tick, and for --wall the place
 * it waits remembered. */
static void count_capture(struct sampler *sp, struct capture *c, unsigned n)
{
	struct sampler_stats *st = &sp->stats;
	struct target *tgt = c->target;
	uint64_t t0 = now_ns();
	struct wait_site callers;
	unsigned j;

	if ((c->blocked || c->waited) && regs_syscall(&c->regs) >= 0)
		find_callers(c, sp->pcs, n, &callers);
	for (j = 0; j < n; j++)
		sp->pcs[j] = maps_frame_key(&tgt->maps, sp->pcs[j]);
	/* A tick in the kernel: under the user frame that entered it. */
	if (c->in_kernel)
		push_leaf(sp, &n, frame_key(FRAME_MODULE_SYSCALL, FRAME_KERNEL));
	/* The leaf says which call it waits in.  A blocked thread
	 * whose stop came at the exit of a system call (regs_syscall()
	 * >= 0; after an interrupt it is negative) was in that call when its
	 * stop was asked for: the first return to user space takes
	 * the stop.  The call may have ended meanwhile: a nanosleep
	 * whose time is up when the woken thread gets a CPU returns 0
	 * rather than be restarted, and counted where it stopped, a
	 * client that sleeps between requests showed running in its
	 * sleep (wall.sh's echoserver; docs/DESIGN.md, "Wall-clock
	 * mode"). */
	if (c->blocked && regs_syscall(&c->regs) >= 0) {
		push_leaf(sp, &n, frame_key_syscall(regs_syscall(&c->regs)));
		if (c->woke)
			st->woke_stops++;
		else
			st->blocked_stops += !c->peeked;
		remember_wait(sp, c, sp->pcs, n, &callers);
	} else if (sp->wall) {
		forget_wait(sp, c->tid);
	}
	st->counted += c->ticks;
	if (c->pending)
		stacks_add_pending(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->ticks);
	else
		stacks_add(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->ticks, c->ns);
	/* --wall: the ticks it was left asleep in the call whose exit
	 * it stopped at, counted as a blocked stop there would have
	 * been, and the place remembered as such a stop's, but for a
	 * thread that runs now. */
	if (c->waited) {
		push_leaf(sp, &n, frame_key_syscall(regs_syscall(&c->regs)));
		remember_wait(sp, c, sp->pcs, n, &callers);
		forget_wait(sp, c->tid);
		stacks_add(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->waited,
			   sp->period_ns * c->waited);
		st->counted += c->waited;
		st->reused += c->waited;
	}
	st->part_ns.intern += now_ns() - t0;
	note_thread(sp, tgt->proc->pid, c->tid);
}

void unwind_captures(struct sampler *sp)
{
	struct sampler_stats *st = &sp->stats;
	size_t i;

	count_short_writes(sp);
	drop_old_image(sp);
	for (i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state && tgt->maps.layout_changed) {
			sp->unwinder->flush(tgt->unwind_state);
			tgt->maps.layout_changed = false;
		}
	}
	for (i = 0; i < sp->ncaps; i++) {
		struct capture *c = &sp->caps[i];
		unsigned n = 0, fp = 0;

		if (not_held(sp, c))
			continue;
		/* A --wall stack read without a stop (peek_wait()): counted
		 * only if its walk completes (else unpeek()). */
		if (c->peeked) {
			uint64_t t0 = now_ns();
			enum unwind_result res = sp->unwinder->walk(c->target->unwind_state, c, sp->pcs,
								    sp->max_frames, &n, &fp);

			st->unwind_ns += now_ns() - t0;
			if (res != UNWIND_COMPLETE) {
				unpeek(sp, c);
				continue;
			}
			st->peeks++;
			st->reused += c->ticks;
		} else {
			walk_capture(sp, c, &n);
		}
		count_capture(sp, c, n);
	}
	sp->ncaps = 0;
	/* A process that is gone has nothing more to unwind: its unwinder's
	 * caches and descriptors go now, not at the end of the run. */
	for (i = 1; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state && !tgt->proc->nthreads) {
			sp->unwinder->fini(tgt->unwind_state);
			tgt->unwind_state = NULL;
		}
	}
}

/* A new epoch of the maps (maps.h): once a tick, or with the perf
 * trigger once a batch of samples; a process that exec'd starts anew. */
void next_epoch(struct sampler *sp)
{
	drop_old_image(sp);
	for (size_t i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		tgt->maps.epoch++;
		if (tgt->proc->exec_seen) {
			tgt->proc->exec_seen = false;
			if (tgt->unwind_state)
				maps_exec(&tgt->maps);
		}
	}
}
