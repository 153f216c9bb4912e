/* choose.c - which threads a timer tick stops: those that ran since their
 * last sample, as their stat files say without a stop.
 */
#include "internal.h"

/* Thread T of tick N is runnable on CPU (sched: thread_sched()'s result,
 * 1 if not read; FAULTS: its page faults): stop it, read it again at the
 * tick, or leave it, where it has not run since its last sample. */
static void choose_runnable(struct sampler *sp, struct thread *t, int cpu, int sched, uint64_t faults)
{
	t->st->ran_n = sp->tick_n + 1;
	/* Runnable is not running: a thread that has not run
	 * since its last sample (it waits for a CPU) has no
	 * CPU time to account for, and its stack is the one
	 * it had. */
	if (sched == 0) {
		if (sp->kicking)
			note_faults(sp, t, faults);
		if (t->st->run_known && t->st->run_mark <= t->st->sample_run) {
			sp->stats.not_run++;
			waits_for(sp, cpu);
			return;
		}
	}
	if (sp->at_tick) {
		int ran = ran_at_tick(sp, t, cpu);

		if (ran == 0) {
			sp->stats.not_run++;
			waits_for(sp, cpu);
			return;
		}
		t->st->at_take = ran > 0;
		note_wait(sp, t);
		add_pick(sp, t, cpu);
		return;
	}
	/* One that blocks often may have blocked by the tick:
	 * read again then, rather than wake it up to stop. */
	note_wait(sp, t);
	if (sp->wall || !bursty(sp, t) || !add_late(sp, t, cpu, true))
		add_pick(sp, t, cpu);
}

/* What tick N chooses for thread T without reading its stat: 1 or 0,
 * choose_thread()'s result, or -1 where its stat is to be read.  *SCHED:
 * thread_sched()'s result where it was read. */
static int choose_unread(struct sampler *sp, struct thread *t, int *sched)
{
	/* Timed by its own event (ktrigger.h), or by one closed at the end:
	 * never the timer's. */
	if (t->exiting || t->kt.ev_fd >= 0 || t->kt.ev_timed)
		return 1;
	if (t->listening) {
		/* In a group stop: taken (and left stopped) only for
		 * a dump; the interrupt brings it to report again. */
		if (sp->once && target_of(sp, t->proc, NULL)) {
			t->st->blocked_sample = false;
			add_pick(sp, t, -1);
			return 0;
		}
		return 1;
	}
	if (t->sample_wanted) {
		/* Its stop is late: it waits where it did, or runs
		 * in the kernel. */
		if (sp->wall)
			count_again(sp, t);
		else
			late_tick(sp, t);
		return 1;
	}
	t->st->at_take = false;
	if (sp->wall) {
		/* A thread that has not been given a CPU since its
		 * stack was taken waits where it did: one small read,
		 * no stop. */
		if (thread_sched(t) == 0 && wait_now(t) && t->st->slices_mark == t->st->last_slices) {
			count_again(sp, t);
			return 1;
		}
	} else if (t->st->idle_known) {
		/* Nor is there anything to sample in a thread that was
		 * blocked and has not been given a CPU since: a read of
		 * schedstat is cheaper than one of stat. */
		if ((*sched = thread_sched(t)) == 0 && t->st->slices_mark == t->st->idle_slices) {
			/* Unless it may wake up by the tick. */
			if (!sp->at_tick && bursty(sp, t))
				add_late(sp, t, t->st->last_cpu, false);
			return 1;
		}
		t->st->idle_known = false;
		t->st->ran_n = sp->tick_n + 1;
	}
	/* Reading after the tick, a thread that has not slept since
	 * its last sample, on a CPU taken at this tick, ran up to
	 * then: its schedstat says so, its stat (read in the stall of
	 * every thread sampled) need not be read.  Where it
	 * runs is the CPU it was last seen on; read again every few
	 * ticks, in case it moved, and at every tick for a thread seen
	 * to move lately.  Nor where the target's threads compete for
	 * the CPUs: one that waits for its CPU, woken or preempted just
	 * before the take, reads as awake too (its wait is counted only
	 * when it gets the CPU), and is stopped where it was preempted.
	 * Threads taking turns at a lock do both (Python's at its GIL;
	 * docs/DESIGN.md, "Waking at the tick"). */
	if (sp->at_tick && !sp->wall && t->st->cpu_read_n && sp->tick_n + 1 - t->st->cpu_read_n < CPU_READ_TICKS &&
	    (!t->st->moved_n || sp->tick_n + 1 - t->st->moved_n > RECENT_TICKS) && !competing(sp, sp->tick_n) &&
	    taken_at(sp, t->st->last_cpu) && (*sched == 0 || (*sched = thread_sched(t)) == 0) && t->st->run_known &&
	    t->st->run_mark > t->st->sample_run && awake_since_resume(t, taken_at(sp, t->st->last_cpu)) &&
	    target_of(sp, t->proc, NULL)) {
		t->st->ran_n = sp->tick_n + 1;
		t->st->blocked_sample = false;
		note_wait(sp, t);
		add_pick(sp, t, t->st->last_cpu);
		return 1;
	}
	return -1;
}

/* Choose whether tick N stops thread T (into sp->picks) or reads it
 * again at the tick (into sp->late); a thread blocked in --wall mode is
 * asked to stop at once (no CPU to take from it).  Returns false if one
 * was, or may wake up on ctprof's CPU to stop, so that waiting for the
 * stops must not spin. */
bool choose_thread(struct sampler *sp, struct thread *t)
{
	uint64_t faults = 0;
	int cpu = -1, sched = 1;        /* thread_sched()'s result once read
	                                 * in this call; 1 until then */
	bool left;
	char state;
	int r;

	r = choose_unread(sp, t, &sched);
	if (r >= 0)
		return r;
	/* Any other thread, a quiet one included, has its stat read: its
	 * schedstat alone cannot say that it runs now.  The CPU time there
	 * (se.sum_exec_runtime) moves for a running thread only when the
	 * scheduler updates it (its tick, or a switch), so a slack large
	 * enough to pick a quiet thread without its stat would also pick a
	 * thread asleep for that long, and wake it to stop (docs/DESIGN.md,
	 * "Waking at the tick"). */
	/* Not opened when the thread was found, for want of a descriptor:
	 * tried again (at most every FDS_RETRY_NS while they are short). */
	if (t->stat_fd < 0)
		t->stat_fd = proc_open_task_stat(t->proc->pid, t->tid);
	/* Its CPU time and CPU arrivals before its state, so that a
	 * thread found blocked is known idle from one read of each: an
	 * arrival after the schedstat read shows in the next one (the
	 * idle_known test above), and one before it was followed by the
	 * block that the state, read after, shows.  Read the other way
	 * round, the state had to be read again after the arrivals
	 * (docs/DESIGN.md, "Known limits, measured": threads that take
	 * turns at a lock). */
	if (!sp->wall && sched > 0)
		sched = thread_sched(t);
	state = proc_state(t->stat_fd, &cpu, &faults);
	if (!state)
		return true;
	if (t->st->cpu_read_n && cpu != t->st->last_cpu)
		t->st->moved_n = sp->tick_n + 1;
	t->st->last_cpu = cpu;
	t->st->cpu_read_n = sp->tick_n + 1;
	if (state == 'S' && !sp->wall && slept_after_tick(sp, t, cpu)) {
		/* It wakes up to stop, maybe on ctprof's CPU. */
		t->st->ran_n = sp->tick_n + 1;
		t->st->blocked_sample = false;
		t->st->at_take = true;
		sp->stats.slept++;
		add_pick(sp, t, cpu);
		return false;
	}
	if (state != 'R' && !sp->wall) {
		/* Blocked: idle until its CPU arrivals, read before
		 * its state, move on. */
		if (sched == 0) {
			t->st->idle_known = true;
			t->st->idle_slices = t->st->slices_mark;
		}
		/* It ran lately, so it may run again by the tick:
		 * read again then (see late_picks). */
		if (state == 'S' || state == 'D') {
			t->st->blocked_n = sp->tick_n + 1;
			if (!sp->at_tick)
				add_late(sp, t, cpu, false);
		}
		return true;
	}
	if (!target_of(sp, t->proc, NULL))
		return true;
	t->st->blocked_sample = false;
	if (state == 'R') {
		choose_runnable(sp, t, cpu, sched, faults);
		return true;
	}
	if (state == 'T' || state == 't' || state == 'Z' || state == 'X' || still_waiting(sp, t, &left)) {
		/* Stopped, on its way out, or back where it waited:
		 * counted as it was, if that is known. */
		count_again(sp, t);
		return true;
	}
	if (left)
		return true;
	/* Blocked, in --wall mode: it wakes up to stop, maybe on our
	 * CPU. */
	t->st->blocked_sample = true;
	if (sp->once)
		add_pick(sp, t, -1);
	else
		ask_stop(sp, t);
	return false;
}

/* Choose the threads tick N stops, into sp->picks, and those to read
 * again at the tick, into sp->late (choose_thread()).  Returns false if
 * waiting for the stops must not spin.
 *
 * Reading after the tick, with CPUs held, the threads known to be idle
 * are left for the IDLE pass, after ask_stops() has let go of the CPUs
 * whose threads were found (*DEFERRED: how many were left).  Each takes
 * a schedstat read to see that it has not run since, and a held CPU is
 * the target's time lost and the helper's CPU time spent: with many idle
 * threads those reads were most of a hold (bench/threads64.c;
 * docs/DESIGN.md, "Waking at the tick").
 * One that has run since is read in full then; it was not on a CPU let
 * go at the take (that CPU's thread was found, see ran_at_tick()), and
 * any other held CPU is still held. */
bool choose(struct sampler *sp, bool idle, size_t *deferred)
{
	struct session *s = sp->session;
	bool spin = true, defer = !idle && sp->at_tick && !sp->wall && !sp->once && holding(sp);
	size_t i;

	if (!idle) {
		sp->npicks = sp->nlate = 0;
		if (sp->crowded)
			memset(sp->crowded, 0, (size_t)sp->kick.ncpus * sizeof(*sp->crowded));
	}
	*deferred = 0;
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (idle) {
			if (!t->st->deferred)
				continue;
			t->st->deferred = false;
		} else if (defer && t->st->idle_known && !t->exiting && !t->listening && !t->sample_wanted) {
			t->st->deferred = true;
			++*deferred;
			continue;
		}
		if (!choose_thread(sp, t))
			spin = false;
	}
	return spin;
}
