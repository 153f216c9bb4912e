/* wall.c - --wall: a blocked thread's stack counted again at each tick,
 * without a stop, while it waits in the same call.
 */
#include "internal.h"

/* --wall: the call T waits in now, if its stack is known. */
struct wait_site *wait_now(const struct thread *t)
{
	return t->st->sites && t->st->site >= 0 ? &t->st->sites[t->st->site] : NULL;
}

/* --wall: count blocked thread T's stack again, without a stop. */
void count_again(struct sampler *sp, struct thread *t)
{
	struct wait_site *w = wait_now(t);

	if (!w)
		return;
	w->used = sp->tick_n + 1;
	stacks_add(&sp->stacks, t->proc->pid, t->tid, w->frames, w->n, 1, sp->period_ns);
	sp->stats.reused++;
}

/* --wall: do the return addresses found under wait site W (find_callers())
 * still hold what they did when its stack was taken?  One call made from
 * the same SP and PC can come from two callers whose frames are the same
 * size. */
static bool same_callers(const struct thread *t, const struct wait_site *w)
{
	struct iovec local, remote[SITE_WORDS];
	uint64_t now[SITE_WORDS];
	size_t len = w->nwords * sizeof(*now);

	if (!w->nwords)
		return true;
	for (unsigned i = 0; i < w->nwords; i++) {
		remote[i].iov_base = (void *)(uintptr_t)w->addr[i];
		remote[i].iov_len = sizeof(*now);
	}
	local.iov_base = now;
	local.iov_len = len;
	return process_vm_readv(t->tid, &local, 1, remote, w->nwords, 0) == (ssize_t)len &&
	       memcmp(now, w->word, len) == 0;
}

/* --wall: take the stack of thread T, asleep in call NR (ARGS) made at
 * WSP and WPC (/proc/PID/task/TID/syscall), without a stop, into a capture
 * with those registers only: a thread asleep in a system call does not
 * touch its stack, and /proc gives where it made the call.  The walk
 * (unwind_captures()) needs no other register where each frame's CFI
 * finds its caller from the stack pointer, as in code built without
 * frame pointers; where a frame's caller is found from the frame pointer, which /proc
 * does not give, the walk fails, and the capture is not counted: its
 * ticks go back to T, which is not peeked at that call again (peek_nr).
 * The call is read again after the copy: the same, the copy is of the
 * stack the thread sleeps on.  Returns false if no capture was made.
 * No stop: no wake-up out of the call, no timeout restarted from its full
 * value, no write ended short (tests/targets/idlers.c; docs/DESIGN.md,
 * "Wall-clock mode"). */
bool peek_wait(struct sampler *sp, struct thread *t, long nr, const uint64_t args[6], uint64_t wsp,
		      uint64_t wpc)
{
	struct target *tgt = target_of(sp, t->proc, NULL);
	uint64_t args2[6], sp2, pc2;
	struct capture *c;
	long nr2;
	int fd, got;

	if (!tgt || (t->st->peek_nr == nr && t->st->peek_sp == wsp && t->st->peek_pc == wpc))
		return false;
	c = next_capture(sp, tgt, t);
	regs_set_pc(&c->regs, wpc);
	regs_set_sp(&c->regs, wsp);
	regs_set_syscall(&c->regs, nr);
	regs_set_result(&c->regs, -ERESTARTSYS);
	regs_set_args(&c->regs, args);
	c->sigret = c->at_handler = false;
	copy_stack(sp, tgt, c);
	fd = proc_open_task_syscall(t->proc->pid, t->tid);
	got = proc_read_wait_site(fd, &nr2, args2, &sp2, &pc2);
	if (fd >= 0)
		close(fd);
	/* "running" now: it woke up while its stack was copied.  One in
	 * another call now woke and slept again: blocked still. */
	t->st->woke_read = fd >= 0 && got < 0;
	if (!c->stack_len || got < 0 || nr2 != nr || sp2 != wsp || pc2 != wpc)
		return false;
	c->peeked = c->blocked = true;
	c->held = false;
	c->waited = 0;
	c->slices = t->st->slices_mark;
	c->ticks = 1 + t->st->carry + t->st->uncut;
	t->st->carry = t->st->uncut = 0;
	c->ns = sp->period_ns * c->ticks;
	c->pending = false;
	sp->ncaps++;
	return true;
}

void forget_waits(struct thread *t)
{
	struct sampler_thread *st = t->st;

	if (st->sites) {
		for (int i = 0; i < WAIT_SITES; i++)
			free(st->sites[i].frames);
		free(st->sites);
		st->sites = NULL;
	}
	st->site = -1;
	st->carry += st->uncut;
	st->uncut = 0;
}

/* --wall: thread T is asleep in call NR made at WSP and WPC: TICKS more
 * are kept for the stack of that call's exit (still_waiting()); those
 * kept for another call go to its next sample. */
void keep_uncut(struct thread *t, long nr, uint64_t wsp, uint64_t wpc, uint64_t ticks)
{
	if (t->st->uncut && (t->st->uncut_nr != nr || t->st->uncut_sp != wsp || t->st->uncut_pc != wpc)) {
		t->st->carry += t->st->uncut;
		t->st->uncut = 0;
	}
	t->st->uncut_nr = nr;
	t->st->uncut_sp = wsp;
	t->st->uncut_pc = wpc;
	t->st->uncut += ticks;
}

/* --wall: the wait site T was last counted in, -1 if none. */
static int last_wait(const struct thread *t)
{
	int last = -1;

	for (int i = 0; t->st->sites && i < WAIT_SITES; i++)
		if (t->st->sites[i].frames && (last < 0 || t->st->sites[i].used > t->st->sites[last].used))
			last = i;
	return last;
}

/* --wall: blocked thread T got a CPU since its stack was last taken or
 * counted (in slices_mark): but maybe only to come back to a call it was
 * stopped in before, from the same place, as it does after the stop
 * that took that stack, after a wakeup that changed nothing, or in the
 * next turn of a loop.  Then the stack is the one taken there.  Kept for
 * the last WAIT_SITES calls: a writer that fills a socket runs between
 * two waits, and a stop of it there, a stack of no wait, did not make it
 * forget the one it waits in.
 *
 * Otherwise its stack is taken without a stop if it can be (peek_wait(),
 * *LEFT set), and the site remembered from it, as from a stop's.  If not,
 * it is stopped (false returned), unless a stop would end its call short
 * (a write that waits for room after part of its data went:
 * syscall_ends_short()): stopped, it would return the part written
 * (tests/targets/shortio.c; docs/DESIGN.md, "Known limits, measured").
 * Then its tick is kept (t->st->uncut, and *LEFT set) for
 * the stack of that call's exit, which its next stop takes if the call is
 * still the one there (same call, SP and PC: capture_thread()), and which
 * is then remembered as a wait site.  The writer's next stop is of it
 * running, as it wakes to write more or has written all: at that exit.
 * But a thread that waits there for long
 * may not run again while it is profiled, and would not be counted at
 * all (docs/DESIGN.md, "Wall-clock mode"): after a tenth of a second
 * (UNCUT_MAX_PER_S) it is stopped, once, and its ticks go with that
 * stop's stack.
 *
 * A call that cannot be read ("running" there) is one the thread woke up
 * from since its state was read, as the writer's often is, woken as the
 * reader made room.  Stopped, it ended its write short when
 * there was not room enough to finish.  So it is not stopped if it was
 * left alone in such a call (its tick kept as above), or if the call it
 * was last counted waiting in is one (counted there again); others are,
 * and the stop takes the stack of the call's exit.  Those stops, and the
 * stops of threads that woke up while their stack was copied
 * (peek_wait()), are of threads awake by then (t->st->woke_read), and -v
 * counts them apart from the stops of blocked threads: the more often
 * the host holds ctprof up between the reads, the more there are. */
bool still_waiting(struct sampler *sp, struct thread *t, bool *left)
{
	uint64_t wsp, wpc, args[6];
	long nr;
	int fd, got;

	*left = false;
	t->st->woke_read = false;
	/* A dump stops every thread at its one tick. */
	if (sp->once)
		return false;
	/* Opened for this read only: --wall reads every blocked thread,
	 * and a file kept open for each (as on-CPU ends_short() keeps its
	 * few) would add a descriptor per thread to the two it has. */
	fd = proc_open_task_syscall(t->proc->pid, t->tid);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && wait_now(t)) {
		/* No descriptor to read it with (the hard limit is too
		 * low for the threads: the report says so): still where
		 * it was stopped last, unless that was a second ago, lest
		 * it be stopped at every tick (docs/DESIGN.md, "Stops and
		 * copies"). */
		return sp->tick_n + 1 < wait_now(t)->taken + sp->frequency;
	}
	if (fd >= 0)
		sp->stats.site_reads++;
	got = proc_read_wait_site(fd, &nr, args, &wsp, &wpc);
	if (fd >= 0)
		close(fd);
	t->st->site = -1;
	if (got < 0) {
		int last;

		if (fd < 0)
			return false;
		if (t->st->uncut) {
			t->st->uncut++;
			sp->stats.wall_uncut++;
			*left = true;
			return false;
		}
		last = last_wait(t);
		if (last < 0 || !t->st->sites[last].cuts) {
			t->st->woke_read = true;
			return false;
		}
		t->st->site = last;
		t->st->last_slices = t->st->slices_mark;
		return true;
	}
	for (int i = 0; t->st->sites && i < WAIT_SITES; i++) {
		const struct wait_site *w = &t->st->sites[i];

		if (w->frames && (w->nr == nr || (w->restarted && nr == __NR_restart_syscall)) &&
		    w->sp == wsp && w->pc == wpc && same_callers(t, w)) {
			t->st->site = i;
			t->st->last_slices = t->st->slices_mark;
			return true;
		}
	}
	/* Until its stack is taken, a tick that finds it still waiting
	 * counts nothing rather than another call's stack. */
	keep_uncut(t, nr, wsp, wpc, 0);
	if (nr >= 0 && peek_wait(sp, t, nr, args, wsp, wpc)) {
		*left = true;
		return false;
	}
	if (!syscall_ends_short(nr, args))
		return false;
	/* Asleep there this long, it may not run again while profiled:
	 * stopped once, to take the stack (its ticks counted with it). */
	if (t->st->uncut * UNCUT_MAX_PER_S >= sp->frequency)
		return false;
	t->st->uncut++;
	sp->stats.wall_uncut++;
	*left = true;
	return false;
}

/* The return addresses of a walk's PCS[1..N) (a call's less one) found in
 * C's stack copy, innermost first and at most SITE_WORDS, into W: where
 * they are and what they hold.  One not found ends the search. */
void find_callers(const struct capture *c, const uint64_t *pcs, unsigned n,
			 struct wait_site *w)
{
	size_t off = regs_sp(&c->regs) >= c->sp ? regs_sp(&c->regs) - c->sp : c->stack_len;

	w->nwords = 0;
	for (unsigned j = 1; j < n && w->nwords < SITE_WORDS; j++) {
		uint64_t v = 0;

		for (; off + sizeof(v) <= c->stack_len; off += sizeof(v)) {
			memcpy(&v, c->stack + off, sizeof(v));
			if (v == pcs[j] + 1 || v == pcs[j])
				break;
		}
		if (off + sizeof(v) > c->stack_len)
			break;
		w->addr[w->nwords] = c->sp + off;
		w->word[w->nwords++] = v;
		off += sizeof(v);
	}
}

/* --wall: the blocked thread's stack, with its system call as the leaf,
 * is kept to be counted at each tick while it waits there: in the slot of
 * the same call from the same callers, or a free one, or the one counted
 * least lately.  FOUND: its callers (find_callers()). */
void remember_wait(struct sampler *sp, const struct capture *c, const uint64_t *keys,
			  unsigned n, const struct wait_site *found)
{
	struct thread *t = session_thread(sp->session, c->tid);
	struct wait_site *w;
	long nr;
	int i, pick = -1;

	if (!t)
		return;
	nr = regs_syscall(&c->regs);
	if (!t->st->sites)
		t->st->sites = xcalloc(WAIT_SITES, sizeof(*t->st->sites));
	for (i = 0; i < WAIT_SITES; i++) {
		w = &t->st->sites[i];
		if (!w->frames) {
			if (pick < 0 || t->st->sites[pick].frames)
				pick = i;
		} else if (w->nr == nr && w->sp == regs_sp(&c->regs) && w->pc == regs_pc(&c->regs) &&
			   w->nwords == found->nwords &&
			   !memcmp(w->word, found->word, found->nwords * sizeof(*w->word)) &&
			   !memcmp(w->addr, found->addr, found->nwords * sizeof(*w->addr))) {
			pick = i;
			break;
		} else if (pick < 0 || (t->st->sites[pick].frames && w->used < t->st->sites[pick].used)) {
			pick = i;
		}
	}
	w = &t->st->sites[pick];
	free(w->frames);
	*w = *found;
	w->frames = xmalloc((n ? n : 1) * sizeof(*keys));
	memcpy(w->frames, keys, n * sizeof(*keys));
	w->n = n;
	w->nr = nr;
	/* After the stop, nanosleep and the like go on as restart_syscall:
	 * the same wait until it ends, and the next call is the call. */
	w->restarted = regs_result(&c->regs) == -ERESTART_RESTARTBLOCK;
	{
		uint64_t args[6];

		for (unsigned a = 0; a < 6; a++)
			args[a] = regs_arg(&c->regs, a);

		w->cuts = syscall_ends_short(nr, args);
	}
	w->sp = regs_sp(&c->regs);
	w->pc = regs_pc(&c->regs);
	w->used = w->taken = sp->tick_n + 1;
	t->st->site = pick;
	t->st->last_slices = c->slices;
}

/* --wall: a sample of T not blocked: it waits in none of its calls now. */
void forget_wait(struct sampler *sp, pid_t tid)
{
	struct thread *t = session_thread(sp->session, tid);

	if (t)
		t->st->site = -1;
}
