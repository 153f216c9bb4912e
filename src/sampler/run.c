/* run.c - the sampler's loop and its life: start the trigger, wait for
 * ticks, stops and ring wake-ups, run each in order, end cleanly.
 *
 * A timer tick: read the state of every thread from its kept-open stat
 * file (no stop), PTRACE_INTERRUPT the running ones, and as each one
 * stops, copy its registers and stack and resume it at once: resuming
 * each thread as soon as its own capture is done keeps every thread's
 * stall to its own capture instead of the slowest thread's, and a
 * profile of independent threads loses nothing by it.  Unwinding and
 * counting happen after every thread runs (docs/DESIGN.md).
 */
#include "internal.h"

int sampler_init(struct sampler *sp, struct session *s, const struct unwinder_ops *unwinder,
		 unsigned frequency, double duration, size_t stack_size, unsigned max_frames)
{
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	sp->session = s;
	sp->frequency = frequency;
	sp->duration = duration;
	sp->stack_size = stack_size;
	sp->max_frames = max_frames;
	sp->pcs = xcalloc(max_frames, sizeof(*sp->pcs));
	sp->late = xcalloc(LATE_MAX, sizeof(*sp->late));
	stacks_init(&sp->stacks);
	sp->hooks.fd = -1;
	sp->self_sched_fd = -1;
	sp->cpustat_fd = -1;
	sp->tfd[0] = sp->tfd[1] = -1;
	sp->unwinder = unwinder;
	if (!target_of(sp, s->procs[0], &ret))
		return ret < 0 ? ret : -ESRCH;
	s->on_sample = capture_thread;
	s->on_thread = sampler_on_thread;
	s->on_resumed = sampler_on_resumed;
	s->sample_arg = sp;
	for (size_t i = 0; i < s->nthreads; i++)
		sampler_on_thread(sp, &s->threads[i], THREAD_NEW);
	return 0;
}

/* The sampler must outrank its target: a woken sampler queued behind a
 * busy target samples late and wrong (docs/DESIGN.md, "Stops and
 * copies").  Not inherited by anything ctprof starts
 * (SCHED_RESET_ON_FORK).  0, or the errno of the nice value's
 * refusal. */
static int raise_priority(struct sampler *sp)
{
	struct sched_param p = { .sched_priority = SAMPLER_PRIO };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0) {
		sp->stats.realtime = true;
		return 0;
	}
	return setpriority(PRIO_PROCESS, 0, -10) < 0 ? errno : 0;
}

static void lower_priority(void)
{
	struct sched_param p = { .sched_priority = 0 };

	sched_setscheduler(0, SCHED_OTHER, &p);
}

/* The counters a run's -v figures are taken from, at its start. */
struct run_marks {
	uint64_t start, cpu, tcpu, other;
	unsigned long fds_short, other_stops, signals;
};

/* The loop's clock: tick n is at tick_time(t0, period, n); next_n is the
 * next tick to take and taken_n the last taken. */
struct run_clock {
	uint64_t t0, period, end, late_max, next_n, taken_n, next_interval, next_drain;
};

static void close_timers(struct sampler *sp)
{
	for (int i = 0; i < 2; i++) {
		if (sp->tfd[i] >= 0)
			close(sp->tfd[i]);
		sp->tfd[i] = -1;
	}
}

/* The two timerfds the ticks alternate on (set_timer()).  0 or -errno. */
static int open_timers(struct sampler *sp)
{
	for (int i = 0; i < 2; i++) {
		sp->tfd_tick[i] = UINT64_MAX;
		sp->tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (sp->tfd[i] < 0) {
			int err = -errno;

			close_timers(sp);
			return err;
		}
	}
	return 0;
}

static void mark_start(struct sampler *sp, struct run_marks *m)
{
	struct session *s = sp->session;
	struct timespec rt;

	m->cpu = cpu_time_ns();
	m->tcpu = thread_cpu_ns();
	sp->stats.fds_before = count_open_fds();
	m->fds_short = proc_fds_short;
	m->other = s->other_ns;
	m->other_stops = s->other_stops;
	m->signals = s->signals_forwarded;
	clock_gettime(CLOCK_REALTIME, &rt);
	sp->stats.start_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	/* CPU time used before profiling is not the profile's. */
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		t->st->run_known = thread_sched(t) == 0;
		t->st->run_ns = t->st->run_first = t->st->sample_run = t->st->run_known ? t->st->run_mark : 0;
	}
}

/* The trigger, the helpers and the first ticks' timers.  0, or -errno
 * with all of them undone. */
static int start(struct sampler *sp, struct run_clock *rc)
{
	int started, prio_err;

	prio_err = raise_priority(sp);
	started = start_trigger(sp);
	if (started < 0) {
		close_timers(sp);
		lower_priority();
		return started;
	}
	/* The perf trigger's samples are the kernel's: they do not wait
	 * for ctprof. */
	if (!sp->timed && prio_err)
		verbose_msg("no real-time or raised priority (%s): samples may come late when all CPUs are busy",
			    strerror(prio_err));
	if (!sp->timed) {
		start_kicking(sp, rc->t0);
		plan_first_holds(sp);
	}
	if (!sp->timed && (set_timer(sp, 0) < 0 || (!sp->once && set_timer(sp, 1) < 0))) {
		int err = -errno;

		close_timers(sp);
		kicker_release(&sp->kick);
		lower_priority();
		return err;
	}
	if (sp->timed)
		arm_for_untimed(sp, &rc->next_n, &rc->taken_n);
	return 0;
}

/* The session's signals came (stops, exits, the target's signals): reap
 * them, and unwind what stops and rings brought.  OTHERS_WOKE: whether
 * this wake-up was for stops ctprof did not ask for alone, whose CPU time
 * (from CPU_BEFORE, where known) is theirs. */
static void on_signals(struct sampler *sp, const struct pollfd *pfd, uint64_t cpu_before, bool *others_woke)
{
	struct session *s = sp->session;
	uint64_t woke = now_ns(), other = s->other_ns;
	unsigned waiting = s->waiting;

	session_read_signals(s);
	session_reap(s);
	/* A wake-up for stops ctprof did not ask for only: reading the
	 * signals is theirs too. */
	*others_woke = s->waiting == waiting && s->other_ns != other &&
		       !((pfd[1].revents | pfd[2].revents | pfd[3].revents) & (POLLIN | POLLHUP | POLLERR));
	if (*others_woke && cpu_before)
		s->other_ns = other + thread_cpu_ns() - cpu_before;
	else if (*others_woke)
		s->other_ns += now_ns() - woke - (s->other_ns - other);
	/* Stops that came after their tick stopped waiting, and the perf
	 * trigger's. */
	drain_rings(sp);
	if (sp->ncaps) {
		if (sp->timed)
			next_epoch(sp);
		unwind_captures(sp);
	}
}

/* A tick's timer fired: take the tick due (or the latest, if ctprof came
 * too late for it), then set the timers for the next one taken.  False
 * if the run's end came first. */
static bool on_timer(struct sampler *sp, struct run_clock *rc)
{
	struct session *s = sp->session;
	uint64_t woke = now_ns(), n = rc->next_n, skipped = 0, left;

	/* A timer that fired with the run's end, for a tick at or after
	 * it: not the run's. */
	if (rc->end && !sp->once && tick_time(rc->t0, rc->period, n) >= rc->end)
		return false;
	/* Too late for tick n (its helpers have let go): take the latest
	 * tick instead, and count those between as missed, unless ctprof
	 * was stopped with its command (Ctrl-Z): there was nothing to
	 * sample then. */
	if (woke > tick_time(rc->t0, rc->period, n) + rc->late_max) {
		uint64_t m = tick_next(rc->t0, rc->period, woke) - 1;

		/* ... but none from the run's end on. */
		if (rc->end && !sp->once && woke >= rc->end)
			m = tick_next(rc->t0, rc->period, rc->end - 1) - 1;

		skipped = m > n ? m - n : 0;
		n += skipped;
	}
	if (s->resumed_after_stop) {
		s->resumed_after_stop = false;
		skipped = 0;
	}
	sp->stats.ticks += 1 + skipped;
	sp->stats.missed += skipped;
	sp->stats.lead_ns += lead(sp);
	sp->stats.delay_ns += sp->delay_ns;
	/* The next tick's timer, before the tick waits for it (set
	 * already, unless ticks were skipped); the one after it once the
	 * tick's stops are taken, so as not to delay them. */
	if (!sp->once)
		set_timer(sp, n + 1);
	tick(sp, n, tick_time(rc->t0, rc->period, n), woke);
	left = throttle(sp, n);
	rc->taken_n = n;
	rc->next_n = n + 1 + left;
	if (left) {
		/* The ticks left out wake neither ctprof nor the helpers:
		 * the next tick's timer is the one taken's. */
		sp->stats.ticks += left;
		sp->stats.throttled += left;
		kicker_from(&sp->kick, rc->next_n);
		set_timer(sp, rc->next_n);
	}
	/* The helpers hold CPUs for the next tick taken only: planned for
	 * one left out, they would wake for it. */
	if (sp->at_tick) {
		plan_holds(sp, rc->next_n);
		watch_idle(sp);
	}
	if (!sp->once) {
		set_timer(sp, rc->next_n + 1);
	} else {
		/* A thread in uninterruptible sleep stops when it leaves
		 * it: not waited for longer than a second. */
		rc->end = now_ns() + 1000000000ULL;
		clear_timers(sp);
	}
	return true;
}

/* When ctprof next has something to do without a wake-up (the run's end,
 * the next interval, the next emptying of the rings, which fill without
 * waking it), emptying the rings first if that is due.  0: nothing. */
static uint64_t next_due(struct sampler *sp, struct run_clock *rc, uint64_t now)
{
	uint64_t until = rc->end;

	if (rc->next_interval && (!until || rc->next_interval < until))
		until = rc->next_interval;
	if (sp->ktrig.kernel || sp->ktrig.user_rings) {
		if (now >= rc->next_drain) {
			drain_rings(sp);
			if (sp->ncaps) {
				next_epoch(sp);
				unwind_captures(sp);
			}
			rc->next_drain = now + RING_DRAIN_NS;
		}
		if (!until || rc->next_drain < until)
			until = rc->next_drain;
	}
	return until;
}

/* Ticks left out whose time had not come when sampling ended (or came
 * with -d's end or after it) were not the run's. */
static void uncount_unreached(struct sampler *sp, const struct run_clock *rc)
{
	uint64_t over = now_ns();

	if (rc->end && !sp->once && rc->end < over)
		over = rc->end;
	for (uint64_t m = rc->next_n; m > rc->taken_n + 1 && tick_time(rc->t0, rc->period, m - 1) >= over; m--) {
		sp->stats.ticks--;
		sp->stats.throttled--;
	}
}

/* Sampling is over: the trigger stopped, the last stops unwound, the
 * threads' CPU time settled and their names read, and the unwinder done
 * (its caches and file descriptors go now, not at exit). */
static void finish(struct sampler *sp)
{
	struct session *s = sp->session;

	stop_trigger(sp);
	if (sp->ncaps)
		unwind_captures(sp);
	count_short_writes(sp);
	if (sp->cputime) {
		for (size_t i = 0; i < s->nthreads; i++) {
			struct thread *t = &s->threads[i];

			if (!t->exiting && thread_sched(t) == 0) {
				sp->stats.kernel_cpu_ns += t->st->run_mark - (t->st->run_known ? t->st->run_first : 0);
				settle(sp, t);
			}
		}
		settle_rest(sp);
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if (!s->threads[i].exiting)
			name_again(sp, s->threads[i].proc->pid, s->threads[i].tid, false);
	s->on_exit = NULL;
	for (size_t i = 0; i < sp->ntargets; i++) {
		if (sp->targets[i]->unwind_state)
			sp->unwinder->fini(sp->targets[i]->unwind_state);
		sp->targets[i]->unwind_state = NULL;
	}
}

static void mark_end(struct sampler *sp, const struct run_marks *m)
{
	struct session *s = sp->session;

	sp->stats.wall_ns = now_ns() - m->start;
	sp->stats.fds_short = proc_fds_short - m->fds_short;
	sp->stats.cpu_ns = cpu_time_ns() - m->cpu;
	sp->stats.part_ns.sampler_cpu = thread_cpu_ns() - m->tcpu;
	sp->stats.part_ns.helpers_cpu = kicker_cpu_ns(&sp->kick);
	sp->stats.part_ns.resume = s->resume_ns;
	sp->stats.part_ns.other = s->other_ns - m->other;
	sp->stats.other_stops = s->other_stops - m->other_stops;
	sp->stats.signals = s->signals_forwarded - m->signals;
	sp->stats.part_ns.wait_spin = s->spin_ns;
	sp->stats.part_ns.wait_sleep = s->sleep_ns;
	sp->stats.rss_kib = resident_kib();
	sp->stats.heap_kib = heap_kib();
	sp->stats.stacks_kib = (long)((stacks_bytes(&sp->stacks) + names_bytes(sp)) / 1024);
	sp->stats.copies_kib = (long)(capture_bytes(sp) / 1024);
	sp->stats.helpers = sp->kick.helpers;
}

/* What the run held: the helpers, ctprof's priority, its descriptors. */
static void release_run(struct sampler *sp)
{
	kicker_release(&sp->kick);
	sp->kicking = false;
	if (sp->cpustat_fd >= 0) {
		close(sp->cpustat_fd);
		sp->cpustat_fd = -1;
	}
	if (sp->self_sched_fd >= 0) {
		close(sp->self_sched_fd);
		sp->self_sched_fd = -1;
	}
	lower_priority();
	close_timers(sp);
}

int sampler_run(struct sampler *sp)
{
	struct session *s = sp->session;
	struct run_marks m = { .start = now_ns() };
	struct run_clock rc = { 0 };
	uint64_t cpu_before;
	bool others_woke = false;
	int err;

	rc.period = sp->period_ns = 1000000000ULL / sp->frequency;
	rc.t0 = sp->t0 = m.start + rc.period;
	rc.late_max = rc.period / 4;
	err = open_timers(sp);
	if (err < 0)
		return err;
	if (sp->duration > 0)
		rc.end = m.start + (uint64_t)(sp->duration * 1e9);
	if (sp->hooks.interval_ns)
		rc.next_interval = m.start + sp->hooks.interval_ns;
	mark_start(sp, &m);
	s->on_exit = thread_exits;
	err = start(sp, &rc);
	if (err < 0)
		return err;
	/* From here on, statuses are reaped after the signalfd says there
	 * are some (SIGCHLD), and only then. */
	session_reap(s);

	for (;;) {
		struct pollfd pfd[4] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = sp->hooks.fd, .events = POLLIN },
			{ .fd = sp->tfd[0], .events = POLLIN },
			{ .fd = sp->tfd[1], .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t now, until;

		if (session_done(s) || s->stop_signal || sp->stop)
			break;
		if (sp->timed)
			arm_for_untimed(sp, &rc.next_n, &rc.taken_n);
		now = now_ns();
		if (rc.end && now >= rc.end)
			break;
		/* A dump's one tick is over when every stop it asked for came. */
		if (sp->once && sp->stats.ticks && (!s->waiting || now >= rc.end))
			break;
		if (rc.next_interval && now >= rc.next_interval) {
			sp->hooks.on_interval(sp, sp->hooks.arg);
			rc.next_interval += sp->hooks.interval_ns;
			if (rc.next_interval <= now)
				rc.next_interval = now + sp->hooks.interval_ns;
			continue;
		}
		until = next_due(sp, &rc, now);
		if (until) {
			ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
			ts.tv_nsec = (long)((until - now) % 1000000000ULL);
			tsp = &ts;
		}
		/* While the target's own stops wake ctprof, the CPU time
		 * of a wake-up for them alone is timed whole (the kernel's
		 * part too); otherwise only from the wake-up on, which
		 * costs no system call. */
		cpu_before = others_woke ? thread_cpu_ns() : 0;
		/* No hook: its place is left out of the poll (fd -1). */
		if (ppoll(pfd, 4, tsp, NULL) < 0 && errno != EINTR)
			break;
		others_woke = false;
		if (sp->hooks.fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			sp->hooks.on_fd(sp, sp->hooks.arg);
		if (pfd[0].revents & POLLIN) {
			on_signals(sp, pfd, cpu_before, &others_woke);
			if (session_done(s))
				continue;
		}
		/* The timers are not read: setting one again (or disarming
		 * it) clears it, and a read cost a system call a tick. */
		if (((pfd[2].revents | pfd[3].revents) & POLLIN) && !on_timer(sp, &rc))
			break;
	}
	uncount_unreached(sp, &rc);
	finish(sp);
	mark_end(sp, &m);
	release_run(sp);
	return 0;
}

double sampler_stall_percentile(const struct sampler_stats *st, double p)
{
	uint64_t want, seen = 0;
	size_t i;

	if (!st->samples)
		return 0;
	want = (uint64_t)(p / 100.0 * (double)st->samples + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < STALL_BUCKETS; i++) {
		seen += st->stall_hist[i];
		if (seen >= want)
			return (double)i + 0.5;
	}
	return STALL_BUCKETS;
}

void sampler_release(struct sampler *sp)
{
	size_t i;

	for (i = 0; i < sp->capcap; i++) {
		free(sp->caps[i].stack);
		free(sp->caps[i].stack2);
		free(sp->caps[i].chain);
	}
	free(sp->caps);
	free(sp->shorts);
	free(sp->picks);
	free(sp->want);
	free(sp->since);
	free(sp->going);
	free(sp->crowded);
	free(sp->missed);
	free(sp->take_es);
	free(sp->take_known);
	free(sp->rq_offs);
	if (sp->self_sched_fd >= 0)
		close(sp->self_sched_fd);
	if (sp->cpustat_fd >= 0)
		close(sp->cpustat_fd);
	free(sp->idle_mark);
	free(sp->idle_now);
	free(sp->late);
	free(sp->pcs);
	free(sp->names);
	key3_release(&sp->name_index);
	for (i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state)
			sp->unwinder->fini(tgt->unwind_state);
		tgt->proc->priv = NULL;
		maps_release(&tgt->maps);
		free(tgt);
	}
	free(sp->targets);
	sp->maps = NULL;
	stacks_release(&sp->stacks);
	if (sp->session && sp->session->on_thread == sampler_on_thread) {
		for (i = 0; i < sp->session->nthreads; i++)
			sampler_on_thread(sp, &sp->session->threads[i], THREAD_GONE);
		sp->session->on_thread = NULL;
		sp->session->on_resumed = NULL;
	}
}
