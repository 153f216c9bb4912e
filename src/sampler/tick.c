/* tick.c - a timer tick's steps in order (choose, interrupt, capture,
 * unwind and count), and their pacing: the timerfds and the throttle.
 */
#include "internal.h"

/* Tick N, at T_NS: ctprof woke at WOKE_NS, the lead before it. */
void tick(struct sampler *sp, uint64_t n, uint64_t t_ns, uint64_t woke_ns)
{
	struct session *s = sp->session;
	int here = sched_getcpu();
	uint64_t t0;
	unsigned nhere = 0, nheld = 0;
	bool spin, crowd = false, slow = !sp->at_tick || s->waiting;
	size_t i, deferred;

	/* Both ways of reading: note_wait() leaves out this CPU's threads. */
	sp->here = here;
	if (sp->at_tick) {
		sp->woke_ns = woke_ns;
		sp->tick_ns = t_ns;
		sp->tick_delay_ns = sp->delay_ns;
		ready_at_tick(sp, n, t_ns);
	}

	next_epoch(sp);
	/* The watchdog: a thread that never stops is given up. */
	session_drop_stale(s, STOP_TIMEOUT_NS);
	sp->tick_n = n;
	t0 = now_ns();
	spin = choose(sp, false, &deferred);
	sp->stats.part_ns.choose += now_ns() - t0;
	if (sp->once) {
		interrupt_in_batches(sp);
		unwind_captures(sp);
		return;
	}
	if (sp->at_tick) {
		spin = interrupt_at_tick(sp, n, deferred) && spin;
	} else if (sp->kicking) {
		/* What the lead must cover: ctprof's lateness in waking up,
		 * and the reads above.  The lead follows its 75th
		 * percentile: later, the helpers hold a little longer;
		 * earlier, ctprof spins until the tick. */
		uint64_t need = now_ns() - (t_ns - lead(sp));

		if (need > sp->need_ns)
			sp->need_ns += LEAD_STEP_NS * 3 / 4;
		else if (sp->need_ns > LEAD_STEP_NS)
			sp->need_ns -= LEAD_STEP_NS / 4;
	}
	if (!sp->at_tick)
		interrupt_picks(sp, n, t_ns, here, woke_ns);
	for (i = 0; i < sp->npicks; i++) {
		const struct pick *pk = &sp->picks[i];

		if (!pk->t->sample_wanted)
			continue;
		if (pk->cpu < 0 || pk->cpu == here) {
			nhere++;
			slow = slow || crowded(sp, here);
		} else if (crowded(sp, pk->cpu)) {
			crowd = slow = true;
		} else if (pk->t->st->asked_held) {
			nheld++;
		}
	}
	/* A thread on ctprof's own CPU runs to its stop only once ctprof
	 * sleeps, and its stop wakes ctprof up again; the threads whose
	 * CPUs were held stop as soon as their helpers let go.  Taken
	 * first, spinning, they are stopped for that long and not also for
	 * the other's way to its stop and ctprof's wake-up, and the thread
	 * that shares ctprof's CPU waits as it did, behind ctprof
	 * (docs/DESIGN.md, "The helpers"). */
	if (spin && nhere && nheld && s->waiting >= nheld && sp->stats.realtime)
		session_wait_samples(s, SPIN_HELD_NS, 0, -1, s->waiting - nheld);
	if (nhere || crowd)
		spin = false;
	/* Spin for the stops only if no thread to stop shares our CPU: it
	 * could not run to its stop while ctprof (SCHED_FIFO) spins.  A
	 * thread that is runnable but waiting for a CPU stops only when it
	 * gets one, which can take a scheduler slice: wait at most half a
	 * period, then take its stop whenever it comes.  Its PC is the same:
	 * it has not run meanwhile.  So is one whose CPU is let go where
	 * another thread of the target waits for it (crowded()): the
	 * scheduler may give it to that one first, and no spin is worth
	 * that wait (docs/DESIGN.md, "The helpers").
	 *
	 * Where no thread of the target was found waiting for the CPU of a
	 * stop asked for, at the tick, and no stop of an earlier tick is
	 * still to come (its thread waits for a CPU too), the stops come
	 * within microseconds, and the wait has no timer of its own: it ends
	 * at the latest when the next tick's fires (set_timer(); the two
	 * periods only bound a timer that could not be set).  A timer of its
	 * own, set and taken back at every tick, was two writes to the CPU's
	 * timer device (see set_timer()).  Otherwise the half-period timer
	 * stays: its wake-up is a point where the scheduler may let the
	 * thread whose stop is waited for run, and without it the stalls were
	 * longer (docs/DESIGN.md, "Timers on a VM"). */
	if (s->waiting && slow)
		session_wait_samples(s, spin && sp->stats.realtime ? SPIN_NS : 0, sp->period_ns / 2, -1, 0);
	else if (s->waiting)
		session_wait_samples(s, spin && sp->stats.realtime ? SPIN_NS : 0, 2 * sp->period_ns,
				     sp->tfd[(n + 1) & 1], 0);
	unwind_captures(sp);
	if (sp->cputime && n >= sp->settle_n) {
		t0 = now_ns();
		settle_all(sp);
		sp->settle_n = n + sp->frequency;
		sp->stats.part_ns.settle += now_ns() - t0;
	}
}

/* The throttle, after tick N is taken: how many ticks to leave out.
 *
 * ctprof's CPU time since the last tick taken (the sampler's, the
 * helpers', the stops' and their unwinding) is time it kept from the
 * target, whose threads also wait in their stops meanwhile.  Where
 * ctprof's CPU time per CPU that the target ran on (the
 * samples of a tick, up to the CPUs online; a mean over the last ticks
 * taken) is more than a THROTTLE_SHARE-th of the period, as many ticks
 * as bring it under are left out after each one taken.  So a target
 * with a thread busy on each of 64 CPUs may cost ctprof a whole CPU at
 * each tick and not be throttled: it loses a 64th of its time, as it
 * would to perf, which the kernel holds to a share of each CPU's time.
 * Samples weigh the CPU time since the thread's last one, so the shares
 * do not change; fewer ticks take them.  A tick's time counts up to what
 * passed since the last one taken: the first ticks, which load the
 * unwinder's tables, do not set it off.  The stops ctprof did not ask
 * for are left out of it (session other_ns): the target's signals, its
 * clones and exits stop it under ptrace at any rate, and leaving ticks
 * out would not save them (docs/DESIGN.md, "The throttle"). */
uint64_t throttle(struct sampler *sp, uint64_t n)
{
	uint64_t cpu = cpu_time_ns(), samples = sp->stats.samples, used, span, d, k, other;
	uint64_t budget = sp->period_ns / THROTTLE_SHARE;

	if (!sp->throttle_n) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		sp->throttle_cpus = online > 1 ? (uint64_t)online : 1;
		sp->throttle_n = n + 1;
		sp->throttle_cpu = cpu;
		sp->throttle_other = sp->session->other_ns;
		sp->throttle_samples = samples;
		return 0;
	}
	used = cpu - sp->throttle_cpu;
	other = sp->session->other_ns - sp->throttle_other;
	used = used > other ? used - other : 0;
	span = (n + 1 - sp->throttle_n) * sp->period_ns;
	sp->stats.taken_cpu_ns += used;
	sp->stats.taken++;
	if (used > span)
		used = span;
	d = samples - sp->throttle_samples;
	if (d > sp->throttle_cpus)
		d = sp->throttle_cpus;
	if (d > 1)
		used /= d;
	sp->throttle_n = n + 1;
	sp->throttle_cpu = cpu;
	sp->throttle_other = sp->session->other_ns;
	sp->throttle_samples = samples;
	sp->busy_avg_ns += used / 8 - sp->busy_avg_ns / 8;
	if (sp->once || sp->busy_avg_ns <= budget)
		return 0;
	k = (sp->busy_avg_ns + budget - 1) / budget - 1;
	return k < THROTTLE_MAX ? k : THROTTLE_MAX;
}

/* Set the timer of tick N (tfd[N & 1]), unless it is set for it already.
 *
 * Two timers, each set two ticks ahead, because setting a timer that
 * comes before every other one on the CPU reprograms the CPU's timer
 * device, and on a VM that write (to the TSC deadline MSR) costs as
 * much as the work of a helper's tick.  The
 * interrupt of tick N programs the device for the next timer queued on
 * the CPU anyway: with the timer of tick N + 1 queued by then, it is
 * that one, and setting tick N + 2's after it programs nothing.  Nor
 * does the wait for the stops where it ends at the next tick's timer
 * rather than at a timeout of its own, which was a write to program it
 * and another to take it back (tick(); docs/DESIGN.md, "Timers on a
 * VM"). */
int set_timer(struct sampler *sp, uint64_t n)
{
	int i = (int)(n & 1);

	if (sp->tfd_tick[i] == n)
		return 0;
	sp->tfd_tick[i] = n;
	return timerfd_set_at(sp->tfd[i], tick_time(sp->t0, sp->period_ns, n) - lead(sp));
}

void clear_timers(struct sampler *sp)
{
	for (int i = 0; i < 2; i++) {
		timerfd_set_at(sp->tfd[i], 0);
		sp->tfd_tick[i] = UINT64_MAX;
	}
}
