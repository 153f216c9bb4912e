/* attick.c - reading after the tick: whether a thread read late was on
 * its CPU at the moment the tick meant (the run queue's clock, the
 * helpers' takes, its CPU arrivals).
 */
#include "internal.h"

static bool rq_offset(const struct sampler *sp, int c, int64_t *ns);

void add_pick(struct sampler *sp, struct thread *t, int cpu)
{
	GROW(sp->picks, sp->pickcap, sp->npicks + 1);
	sp->picks[sp->npicks].t = t;
	sp->picks[sp->npicks].cpu = cpu;
	sp->picks[sp->npicks].was_running = true;
	sp->npicks++;
}

/* Has thread T been seen both blocked and running within the last
 * RECENT_TICKS ticks?  Such a thread runs in bursts: its state before the
 * tick says little of its state at the tick. */
bool bursty(const struct sampler *sp, const struct thread *t)
{
	return t->st->blocked_n && sp->tick_n + 1 - t->st->blocked_n <= RECENT_TICKS &&
	       t->st->ran_n && sp->tick_n + 1 - t->st->ran_n <= RECENT_TICKS;
}

/* Read T again at the tick (late_picks), if there is room. */
bool add_late(struct sampler *sp, struct thread *t, int cpu, bool running)
{
	if (sp->nlate == LATE_MAX)
		return false;
	sp->late[sp->nlate].t = t;
	sp->late[sp->nlate].cpu = cpu;
	sp->late[sp->nlate].was_running = running;
	sp->nlate++;
	return true;
}

/* When CPU was meant to be taken at this tick (ctprof's clock): ctprof's
 * own at the tick, a helper's its delay after it. */
static uint64_t meant_at(const struct sampler *sp, int cpu)
{
	return sp->tick_ns + (cpu == sp->here ? 0 : sp->tick_delay_ns);
}

/* When CPU was taken at this tick (ctprof's clock), 0 if it was not. */
uint64_t taken_at(const struct sampler *sp, int cpu)
{
	if (cpu < 0 || cpu >= sp->kick.ncpus)
		return 0;
	if (cpu == sp->here)
		return sp->since[cpu] ? sp->since[cpu] : sp->woke_ns;
	return sp->want[cpu] == WANT_HELD ? sp->since[cpu] : 0;
}

/* CPU C was taken at this tick: note the difference of ctprof's clock
 * to its run queue's, between two bounds.  The taker came onto the CPU
 * (take_es, in the run queue's clock) after the moment it was meant to
 * (its timer's) and before it read ctprof's clock (taken_at()).  One
 * take's bounds are not enough: on a VM the taker's way from one to the
 * other varies from take to take (a return to user space goes through
 * the hypervisor), and the two clocks drift apart (docs/DESIGN.md,
 * "Where a stop lands"). */
static void note_rq_offset(struct sampler *sp, int c)
{
	struct rq_offset *o = &sp->rq_offs[(size_t)c * RQ_OFFS];
	size_t i, old = 0;

	for (i = 1; i < RQ_OFFS; i++)
		if (o[i].tick < o[old].tick)
			old = i;
	o[old].lo = (int64_t)meant_at(sp, c) - (int64_t)sp->take_es[c];
	o[old].hi = (int64_t)taken_at(sp, c) - (int64_t)sp->take_es[c];
	o[old].tick = sp->tick_n + 1;
}

/* The difference of ctprof's clock to CPU C's run queue clock, from its
 * takes in the last RQ_OFFS_TICKS ticks, if there are three: at least
 * the second largest lower bound, at most the second smallest upper
 * bound (the second: a taker whose se.exec_start the scheduler's tick
 * moved on before it was read gives an upper bound too low, a helper
 * that went to sleep before its delay grew a lower bound too high), and
 * taken halfway between them (docs/DESIGN.md, "Where a stop lands"). */
static bool rq_offset(const struct sampler *sp, int c, int64_t *ns)
{
	const struct rq_offset *o = &sp->rq_offs[(size_t)c * RQ_OFFS];
	int64_t lo = INT64_MIN, lo2 = INT64_MIN, hi = INT64_MAX, hi2 = INT64_MAX;
	size_t i, n = 0;

	for (i = 0; i < RQ_OFFS; i++) {
		if (!o[i].tick || o[i].tick + RQ_OFFS_TICKS <= sp->tick_n + 1)
			continue;
		n++;
		if (o[i].hi < hi) {
			hi2 = hi;
			hi = o[i].hi;
		} else if (o[i].hi < hi2) {
			hi2 = o[i].hi;
		}
		if (o[i].lo > lo) {
			lo2 = lo;
			lo = o[i].lo;
		} else if (o[i].lo > lo2) {
			lo2 = o[i].lo;
		}
	}
	if (n < 3)
		return false;
	*ns = lo2 + (hi2 - lo2) / 2;
	return true;
}

/* When CPU C was taken at this tick, in its run queue's clock, which a
 * thread's se.exec_start is in: when its helper took it, or ctprof woke
 * there.  A helper's exec_start is the moment it came onto its CPU,
 * which is the moment the thread it preempted left it (the scheduler
 * reads its clock once for both).  False if not known. */
static bool take_time(struct sampler *sp, int c, uint64_t *es)
{
	if (!sp->take_known[c]) {
		sp->take_known[c] = 2;
		if (c == sp->here) {
			/* ctprof's exec_start is the moment it came onto
			 * its CPU until something updates its run time: a
			 * read of its CPU time, or the kernel's own tick
			 * there.  Read when first needed, not as ctprof
			 * wakes: the read holds every CPU and stops every
			 * thread that much longer at every tick, two busy
			 * threads on 2 CPUs need none, and read late it
			 * seldom has moved (docs/DESIGN.md, "Where a stop
			 * lands").  Its helper may have held it before
			 * ctprof woke there and preempted the helper in
			 * turn. */
			uint64_t back = sp->since[c] && sp->since[c] < sp->woke_ns ? sp->woke_ns - sp->since[c] : 0;
			uint64_t self_es;

			if (proc_exec_start(sp->self_sched_fd, &self_es) == 0 && self_es > back) {
				sp->take_es[c] = self_es - back;
				sp->take_known[c] = 1;
			}
		} else if (sp->want[c] == WANT_HELD && kicker_exec_start(&sp->kick, c, &sp->take_es[c]) == 0) {
			sp->take_known[c] = 1;
		}
		if (sp->take_known[c] == 1)
			note_rq_offset(sp, c);
	}
	*es = sp->take_es[c];
	return sp->take_known[c] == 1;
}

/* Did thread T not sleep between its last sample's resume and SINCE?  Its
 * CPU time and its time waiting for a CPU since then (run_mark and
 * wait_mark, read now) fill that time, but for what they leave out: the
 * wake-up of the thread's CPU after the resume, and a little more the
 * longer the time.  So the slack grows with the span: a fixed one large
 * enough for 99 Hz sent half the reads there the slow way in
 * choose_thread() while a helper held a CPU (docs/DESIGN.md, "Waking at
 * the tick"). */
bool awake_since_resume(const struct thread *t, uint64_t since)
{
	uint64_t span;

	if (!t->st->resumed_ns || t->st->resumed_ns >= since || t->st->run_mark < t->st->stop_run || t->st->wait_mark < t->st->stop_wait)
		return false;
	span = since - t->st->resumed_ns;
	return t->st->run_mark - t->st->stop_run + t->st->wait_mark - t->st->stop_wait + AWAKE_SLACK_NS + (span >> AWAKE_SLACK_SHIFT) >=
	       span;
}

/* When thread T last left a CPU (its se.exec_start, in the run queue's
 * clock), into *ES; false if not known. */
static bool left_cpu_at(struct thread *t, uint64_t *es)
{
	if (t->st->sched_fd < 0)
		t->st->sched_fd = proc_open_task_sched(t->proc->pid, t->tid);
	return proc_exec_start(t->st->sched_fd, es) == 0;
}

/* Did thread T last leave CPU at or after the moment that CPU was taken
 * at this tick, less SLACK_NS (its se.exec_start, in the run queue's
 * clock)?  1 yes, 0 no, -1 not known. */
static int left_after_take(struct sampler *sp, struct thread *t, int cpu, uint64_t slack_ns)
{
	uint64_t take, es;

	if (!taken_at(sp, cpu) || !take_time(sp, cpu, &take))
		return -1;
	if (!left_cpu_at(t, &es))
		return -1;
	return es + slack_ns >= take;
}

/* Reading after the tick: was thread T, runnable on CPU now, running
 * when that CPU was taken at the tick, or was it woken up since (or
 * waiting for a CPU)?  Both read as runnable, and a server thread woken
 * while its CPU is held would be sampled at the end of the call it
 * waited in.  1 running, 0 not, -1 not known (its CPU was not taken).
 *
 * A thread that has not slept since its last sample (its CPU time and
 * its time waiting for a CPU since then, read from schedstat as it was
 * resumed and now, fill the time) ran up to the moment its CPU was
 * taken: that costs no more reading.  Otherwise its se.exec_start, the
 * moment it last left a CPU, says whether that was when its CPU was
 * taken. */
int ran_at_tick(struct sampler *sp, struct thread *t, int cpu)
{
	uint64_t since = taken_at(sp, cpu);

	/* Its CPU was let go: the thread on it at the take was another. */
	if (cpu >= 0 && cpu < sp->kick.ncpus && sp->want[cpu] == WANT_GONE)
		return 0;
	if (!since)
		return -1;
	if (awake_since_resume(t, since))
		return 1;
	return left_after_take(sp, t, cpu, AT_TICK_SLACK_NS);
}

/* Reading after the tick: did thread T, asleep on CPU now, go to sleep
 * only after that CPU was taken at the tick?  Then it was on the CPU at
 * the tick, in the kernel on its way into the call it sleeps in: a kernel
 * that does not preempt its own code (preempt=none, as here) lets it run
 * on until it sleeps, or returns to user space, before the helper or
 * ctprof gets the CPU.  Where it returns to user space, the stop lands at
 * the call's exit and is counted there; where it sleeps, it is as much a
 * sample of that call, and perf's tick counts it so.  It is stopped in
 * the call (which the kernel, or undo_eintr() in session.c, restarts).
 * Left out, such ticks went uncounted and their CPU time to the thread's
 * next samples.  Its se.exec_start, the moment it left the CPU, tells
 * (read only for a thread not known to be idle, see choose()).
 *
 * Not the moment the CPU was taken, though: the moment it was meant to be
 * (the tick, or the helpers' delay after it).  Where the tick's interrupt
 * reaches a CPU busy in kernel code only once that code sleeps or returns
 * to user space, the CPU is taken after the thread has left it, and
 * compared with the take those ticks were lost.  The moment the thread
 * left is put on ctprof's clock with the difference that the takes
 * before give (rq_offset()) and compared with the moment meant; until
 * there are takes enough, with a margin of SLEPT_MARGIN_NS: the taker's
 * lateness is read on ctprof's clock after it runs, later than the
 * switch-in that se.exec_start is compared with, and with no margin a
 * thread that slept through the tick counted.  A thread woken just after
 * the tick that runs before its CPU is taken still counts as running at
 * the tick: /proc does not say when a thread came onto its CPU.
 *
 * Not one that left its CPU later after that moment than a take may come
 * (hold_max_ns, the longest the sampler waits for a helper's): the CPU
 * was then taken late (mostly ctprof's own, its tick late), and the
 * thread may have run on in its own code before it slept, so that its
 * sample would be of the call it sleeps in, not of where it was.  Like a
 * hold given up, the tick goes to the thread's next sample.
 *
 * Nor one that left its CPU long before the taker came onto it (both in
 * the run queue's clock, which needs no offset, so the bound holds at a
 * CPU's first takes too): a take held back by the thread's kernel code
 * comes as soon as the thread has left, even from idle, and one that came
 * later was late for another reason, which says nothing of where the
 * thread was at the tick.
 *
 * Nor one asleep in a call that the stop would end short
 * (syscall_ends_short(): a write that waits for room after part of its
 * data went), read from /proc/PID/task/TID/syscall (kept open, for such
 * threads only, while the CPUs are held), or whose call cannot be read
 * there: it has woken up since.  The stop would wake it with a signal
 * pending, and the call would return the part written
 * (tests/targets/shortio.c).
 *
 * All measured, on redis-server, tests/targets/pollsleep.c, node and
 * shortio: docs/DESIGN.md, "Where a stop lands". */
bool ends_short(struct thread *t)
{
	uint64_t args[6], wsp, wpc;
	long nr;

	if (t->st->syscall_fd < 0)
		t->st->syscall_fd = proc_open_task_syscall(t->proc->pid, t->tid);
	return proc_read_wait_site(t->st->syscall_fd, &nr, args, &wsp, &wpc) < 0 || syscall_ends_short(nr, args);
}

bool slept_after_tick(struct sampler *sp, struct thread *t, int cpu)
{
	uint64_t since = taken_at(sp, cpu), back = AT_TICK_SLACK_NS, take, es;
	uint64_t meant = meant_at(sp, cpu);
	int64_t off;

	if (!sp->at_tick || !since || !take_time(sp, cpu, &take) || !left_cpu_at(t, &es))
		return false;
	if (rq_offset(sp, cpu, &off)) {
		int64_t left = (int64_t)es + off - (int64_t)meant;

		if (left < 0)
			return false;
		if ((uint64_t)left > sp->kick.hold_max_ns)
			goto late;
	} else {
		if (since > meant + SLEPT_MARGIN_NS + back)
			back = since - meant - SLEPT_MARGIN_NS;
		if (es + back < take)
			return false;
	}
	if (take > es + SLEPT_FOLLOW_NS)
		goto late;
	if (!target_of(sp, t->proc, NULL))
		return false;
	if (ends_short(t)) {
		sp->stats.slept_short++;
		return false;
	}
	return true;
late:
	sp->stats.slept_late++;
	return false;
}

/* A thread of the target was found waiting for CPU C at this tick. */
void waits_for(struct sampler *sp, int cpu)
{
	if (sp->crowded && cpu >= 0 && cpu < sp->kick.ncpus)
		sp->crowded[cpu] = true;
	sp->crowd_n = sp->tick_n + 1;
}

/* Did a tick lately, up to tick N, find the target's threads competing
 * for the CPUs? */
bool competing(const struct sampler *sp, uint64_t n)
{
	return sp->crowd_n && n <= sp->crowd_n + RECENT_TICKS;
}

/* Thread T, about to be stopped, was just read: did it wait for a CPU
 * for long since it was last read so?  Then the target's threads compete
 * for the CPUs (competing()).  Not asked of a thread on ctprof's own CPU,
 * where it waits for ctprof too, and would have every CPU held for
 * nothing (docs/DESIGN.md, "The helpers"). */
void note_wait(struct sampler *sp, struct thread *t)
{
	uint64_t run, wait;

	if (t->st->seen_run && t->st->last_cpu != sp->here && t->st->run_mark >= t->st->seen_run && t->st->wait_mark >= t->st->seen_wait) {
		run = t->st->run_mark - t->st->seen_run;
		wait = t->st->wait_mark - t->st->seen_wait;
		if (wait >= CROWD_WAIT_NS && 4 * wait > run)
			sp->crowd_n = sp->tick_n + 1;
	}
	t->st->seen_run = t->st->run_mark;
	t->st->seen_wait = t->st->wait_mark;
}

/* ... so a thread asked to stop there may wait a scheduler slice for it
 * after its helper lets go. */
bool crowded(const struct sampler *sp, int cpu)
{
	return sp->crowded && cpu >= 0 && cpu < sp->kick.ncpus && sp->crowded[cpu];
}
