/* hold.c - whose stops want their CPU held by a helper at the tick: a
 * thread that enters the kernel, where a stop asked of it while it runs
 * lands when it leaves.
 */
#include "internal.h"

/* Holding only where it counts.  A helper's hold costs the target's CPU
 * a timer interrupt, two switches and the hold itself at every tick, and
 * buys accuracy only for a thread that enters the kernel (a system call,
 * a page fault) in the tens of microseconds that a stop asked for while
 * the thread runs takes to land (kick.h): one that does not stops where
 * it was at the tick either way.  So a thread's stops are held until
 * probes show that it stays out of the kernel.  After PROBE_EVERY held
 * samples in a row that found it outside system calls, while its page
 * faults are rare, one stop is asked for while it runs (its CPU not held
 * for it at that tick) and is not counted: its tick goes to its next
 * sample.  A probe whose registers show a system call's exit
 * (regs_syscall() >= 0; at an interrupt's it is negative) found the thread entering the
 * kernel, and so does a page-fault rate of more than one in FAULT_GAP_NS
 * of its CPU time (a fault leaves no mark in the registers: its exit
 * shows no call, as an interrupt's does).  A thread that is often in
 * system calls, or faults often, is thus rarely probed: a probe is a stop
 * asked for while it runs, and probes of a server moved its profile
 * toward its calls.  After CLEAN_FIRST clean
 * probes in a row the thread is quiet: its stops are asked for while it
 * runs, and its CPU is held only if another thread there needs it.  A
 * quiet thread's stop that lands at a system call's exit, or a rise in
 * its faults, ends that: the stop is not counted (it may be the bias
 * itself), the thread is held again, and it needs twice as many clean
 * probes the next time, so that a thread that enters the kernel now and
 * then stays held rather than swing.
 *
 * Until a stop first finds it in the kernel (or its faults come too
 * often), a thread is probed after PROBE_FIRST held samples, not
 * PROBE_EVERY, so that one that never enters it is quiet soon: at 99 Hz
 * the longer way was a quarter of a short run's samples held, and a held
 * sample costs more there.  A thread that is found in the kernel goes on
 * with PROBE_EVERY.  A quiet thread loses about half as much of its time
 * a sample as a held one (bench/gaps.c, bench/workload.c; all measured in
 * docs/DESIGN.md, "The helpers").
 *
 * Where a thread of the target ran lately on the sampler's own CPU and
 * the target's threads compete for the CPUs (one waited for a CPU a
 * fifth of its time between two ticks that read it, or was found waiting
 * at a tick: competing()), every CPU a thread ran on is held
 * (plan_holds()).  Then the threads found at the take are those that ran
 * at the tick, and no thread that waits for a CPU is stopped: unheld
 * there, busy threads that compete got sample counts off their CPU
 * shares (tests/targets/ratio3.c).  Where the threads do not compete,
 * holding every CPU only costs (docs/DESIGN.md, "The helpers"). */

/* Is thread T's CPU to be held for its stop at the next tick? */
bool wants_hold(const struct thread *t)
{
	return !t->st->quiet &&
	       (t->st->held_since < (t->st->entered ? PROBE_EVERY : PROBE_FIRST) || t->st->faulting);
}

/* T is not quiet after all. */
static void not_quiet(struct sampler *sp, struct thread *t)
{
	t->st->quiet = false;
	t->st->entered = true;
	t->st->clean = 0;
	t->st->held_since = 0;
	if (!t->st->clean_need)
		t->st->clean_need = CLEAN_FIRST;
	t->st->clean_need = t->st->clean_need * 2 < CLEAN_MAX ? t->st->clean_need * 2 : CLEAN_MAX;
	sp->stats.loud++;
}

/* T's page faults so far (FAULTS, read with its CPU time in run_mark):
 * over each FAULT_WINDOW_NS of its CPU time, do they come too often for
 * it to be quiet? */
void note_faults(struct sampler *sp, struct thread *t, uint64_t faults)
{
	if (!t->st->flt_known || faults < t->st->flt_mark || t->st->run_mark < t->st->flt_run) {
		t->st->flt_known = true;
		t->st->flt_mark = faults;
		t->st->flt_run = t->st->run_mark;
		return;
	}
	if (t->st->run_mark - t->st->flt_run < FAULT_WINDOW_NS)
		return;
	t->st->faulting = (faults - t->st->flt_mark) * FAULT_GAP_NS > t->st->run_mark - t->st->flt_run;
	t->st->entered |= t->st->faulting;
	if (t->st->faulting && t->st->quiet)
		not_quiet(sp, t);
	t->st->flt_mark = faults;
	t->st->flt_run = t->st->run_mark;
}

/* A stop of T asked for while it ran, as a probe or because T is quiet,
 * has registers R.  Returns true if the sample is not to be counted. */
bool judge_unheld(struct sampler *sp, struct thread *t, const struct user_regs_struct *r)
{
	bool entered = regs_syscall(r) >= 0 || t->st->faulting;

	if (t->st->probe) {
		t->st->probe = false;
		t->st->held_since = 0;
		sp->stats.probes++;
		if (entered) {
			t->st->clean = 0;
			t->st->entered = true;
		} else if (++t->st->clean >= (t->st->clean_need ? t->st->clean_need : CLEAN_FIRST)) {
			t->st->quiet = true;
			t->st->clean = 0;
		}
		return true;
	}
	if (!entered)
		return false;
	not_quiet(sp, t);
	return true;
}

/* Is a CPU held at this tick? */
bool holding(const struct sampler *sp)
{
	for (int c = 0; c < sp->kick.ncpus; c++)
		if (sp->want[c] == WANT_HELD)
			return true;
	return false;
}

/* T's stop is asked for while it runs: a quiet thread's, a probe (see
 * judge_unheld()), or one that would have been held. */
void count_unheld(struct sampler *sp, struct thread *t)
{
	t->st->asked_held = false;
	t->st->probe = sp->kicking && !wants_hold(t) && !t->st->quiet;
	if (sp->kicking && t->st->quiet)
		sp->stats.quiet++;
	else if (!t->st->probe)
		sp->stats.unheld++;
}

/* T's stop wants its CPU held (wants_hold()), and its helper did not take
 * it at this tick: it woke too late, on a host slower than usual, or a
 * thread of a higher priority held the CPU.  Asked for now, the stop
 * would land where T next leaves the kernel, which is no sample of where
 * it ran (tests/targets/rtsteal.c; docs/DESIGN.md, "The helpers").  So it
 * is not asked for: T's CPU time and its tick go to its next sample.
 * After PUT_OFF_MAX times in a row, no
 * more until a helper holds T's CPU again: a thread of the target with a
 * real-time priority, which no helper preempts, is sampled as before, and
 * so is any thread where no helper can be had at all. */
bool put_off(struct sampler *sp, struct thread *t)
{
	if (sp->wall || sp->kick.disabled || !wants_hold(t) || t->st->put_off >= PUT_OFF_MAX)
		return false;
	t->st->put_off++;
	t->st->carry++;
	sp->stats.put_off++;
	return true;
}

/* Reading after the tick: the CPUs the helpers take at tick N, which
 * must be known before it.  Every CPU a thread of a target ran on
 * lately (one that runs in bursts may wake up on any of them) and that
 * wants holding; every such CPU if one of them is the sampler's own
 * (see "Holding only where it counts"), which the sampler takes itself. */
void plan_holds(struct sampler *sp, uint64_t n)
{
	struct kicker *k = &sp->kick;
	bool shared = false;
	size_t i;
	int c;

	memset(sp->want, 0, (size_t)k->ncpus);
	if (!k->disabled && competing(sp, n))
		for (i = 0; i < sp->session->nthreads && !shared; i++) {
			const struct thread *t = &sp->session->threads[i];

			shared = t->st->last_cpu == sp->here && !t->exiting && t->st->ran_n && n <= t->st->ran_n + RECENT_TICKS;
		}
	if (!k->disabled)
		for (i = 0; i < sp->session->nthreads; i++) {
			const struct thread *t = &sp->session->threads[i];

			c = t->st->last_cpu;
			if (!(c >= 0 && c < k->ncpus && !sp->want[c] && !t->exiting && t->st->ran_n &&
			      n <= t->st->ran_n + RECENT_TICKS && (shared || wants_hold(t)) &&
			      target_of(sp, t->proc, NULL)))
				continue;
			/* ctprof wakes up on its own CPU (a real-time thread
			 * goes back to the CPU it left, where nothing runs
			 * above it) and takes it there before a helper
			 * could, so that helper would only cost the thread
			 * there its wake-up at every tick (docs/DESIGN.md,
			 * "The helpers"). */
			sp->want[c] = c == sp->here ? WANT_SELF : kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
		}
	for (c = 0; c < k->ncpus; c++)
		if (sp->want[c] != WANT_READY)
			kicker_skip(k, c, n);
}

/* The first tick's holds.  A helper starts when its CPU is first wanted
 * (kicker_want()) and sleeps until the tick after, so every thread's first
 * stop was put off (put_off()), its CPU time left to its next sample, and
 * a short run at a low rate had no sample at all (docs/DESIGN.md, "Waking
 * at the tick").  The helpers of the CPUs that the target's threads run on
 * now start a period before the first tick, which holds those CPUs as the
 * ticks after it do (plan_holds()). */
void plan_first_holds(struct sampler *sp)
{
	struct session *s = sp->session;
	int cpu;

	if (!sp->kicking || sp->once)
		return;
	sp->here = sched_getcpu();
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (proc_state(t->stat_fd, &cpu, NULL) != 'R')
			continue;
		/* Seen running at tick 0, as choose_thread() notes it
		 * (tick_n + 1): plan_holds() holds the CPUs of threads
		 * seen running in the last RECENT_TICKS. */
		t->st->last_cpu = cpu;
		t->st->ran_n = 1;
		if (cpu != sp->here)
			kicker_want(&sp->kick, cpu);
	}
	if (sp->at_tick)
		plan_holds(sp, 0);
}
