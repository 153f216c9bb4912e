/* cputime.c - CPU-time weights: each thread's CPU time from its
 * schedstat, settled over its samples; the ticks a late stop ran through.
 */
#include "internal.h"

/* The thread's CPU time and CPU arrivals now, into run_mark and
 * slices_mark; its schedstat file is opened on first use.  0 or -1. */
int thread_sched(struct thread *t)
{
	if (t->st->schedstat_fd < 0)
		t->st->schedstat_fd = proc_open_task_schedstat(t->proc->pid, t->tid);
	return proc_schedstat(t->st->schedstat_fd, &t->st->run_mark, &t->st->wait_mark, &t->st->slices_mark);
}

/* A thread born while profiled: all its CPU time is the profile's. */
void run_known(struct thread *t)
{
	if (!t->st->run_known) {
		t->st->run_ns = t->st->run_first = t->st->sample_run = 0;
		t->st->run_known = true;
	}
}

/* CPU-time weights: the CPU time thread T used since it was last settled
 * (up to the time read in T->run_mark), shared equally among its samples
 * since then; if it has none, the time waits for its next ones.  Returns
 * the time given, 0 if none. */
uint64_t settle(struct sampler *sp, struct thread *t)
{
	uint64_t w, end = t->st->run_mark;

	run_known(t);
	/* Timed by its event again (the perf trigger): the timer's samples,
	 * one that landed late included, stand for its time up to then, the
	 * event's for the rest. */
	if (t->kt.ev_timed && t->kt.ev_run0 < end)
		end = t->kt.ev_run0;
	if (!t->st->unsettled || (end <= t->st->run_ns && !t->kt.ev_timed))
		return 0;
	w = end > t->st->run_ns ? end - t->st->run_ns : 0;
	if (!stacks_settle(&sp->stacks, t->proc->pid, t->tid, w))
		return 0;
	if (end > t->st->run_ns)
		t->st->run_ns = end;
	t->st->unsettled = 0;
	return w;
}

/* Settle every thread that has samples to settle. */
void settle_all(struct sampler *sp)
{
	struct session *s = sp->session;
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (t->st->unsettled && !t->exiting && thread_sched(t) == 0)
			settle(sp, t);
	}
}

/* settle() for thread T at its exit, which may come before its last
 * samples were unwound: those are given their share now.  Returns
 * non-zero if T had samples to take its time (even none). */
uint64_t settle_exiting(struct sampler *sp, struct thread *t)
{
	uint64_t p, ncaps = 0, w, given = 0, i;
	struct capture *c;

	for (i = 0; i < sp->ncaps; i++) {
		c = &sp->caps[i];
		ncaps += c->pending && c->tid == t->tid && c->target->proc == t->proc ? c->ticks : 0;
	}
	if (!ncaps)
		return settle(sp, t);
	run_known(t);
	w = t->st->run_mark > t->st->run_ns ? t->st->run_mark - t->st->run_ns : 0;
	p = stacks_pending(&sp->stacks, t->proc->pid, t->tid);
	for (i = 0; i < sp->ncaps; i++) {
		c = &sp->caps[i];
		if (!c->pending || c->tid != t->tid || c->target->proc != t->proc)
			continue;
		c->ns = (uint64_t)((unsigned __int128)w * c->ticks / (p + ncaps));
		c->pending = false;
		given += c->ns;
	}
	stacks_settle(&sp->stacks, t->proc->pid, t->tid, w - given);
	t->st->run_ns = t->st->run_mark;
	t->st->unsettled = 0;
	return w ? w : 1;
}

/* The pending samples no thread will settle: a period each. */
void settle_rest(struct sampler *sp)
{
	struct stack *st;

	stacks_for_each(&sp->stacks, st)
		if (st->pending) {
			st->ns += st->pending * sp->period_ns;
			sp->stacks.total_ns += st->pending * sp->period_ns;
			st->pending = 0;
		}
}

/* On-CPU: a tick passed while thread T's stop, asked for at an earlier
 * one, had not come.  A thread in the kernel stops when it leaves it,
 * and where the kernel does not preempt kernel code (PREEMPT_NONE) a
 * long call that does not sleep runs on to its end first, with one
 * sample for all the ticks it ran through: counted once, such a call
 * shows at a fraction of its time (docs/DESIGN.md, "Known limits,
 * measured": selftime's madvise()).  The ticks it ran through are its
 * sample's too: as many as the CPU time it used since its stop was
 * asked for makes periods (to the nearest), no more than have passed;
 * a thread that waited for a CPU meanwhile ran through none. */
void late_tick(struct sampler *sp, struct thread *t)
{
	uint64_t n;

	t->st->late_passed++;
	if (thread_sched(t) < 0 || t->st->run_mark <= t->st->ask_run)
		return;
	n = (t->st->run_mark - t->st->ask_run + sp->period_ns / 2) / sp->period_ns;
	t->st->late_ticks = n < t->st->late_passed ? n : t->st->late_passed;
}

void sampler_settle(struct sampler *sp)
{
	if (sp->cputime)
		settle_all(sp);
}

/* The calling thread's CPU time, in nanoseconds. */
uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ctprof's CPU time (user + system), in nanoseconds. */
uint64_t cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
