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
	s->sample_arg = sp;
	return 0;
}

/* The sampler must outrank its target: on 2 vCPUs, a woken sampler queued
 * behind a busy target sampled late (626 missed ticks) and wrong (28% where
 * the target was busy 53% of the time); with SCHED_FIFO, 8 and 54%.  Not
 * inherited by anything ctprof starts (SCHED_RESET_ON_FORK).  0, or the
 * errno of the nice value's refusal. */
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

int sampler_run(struct sampler *sp)
{
	struct session *s = sp->session;
	uint64_t period = sp->period_ns = 1000000000ULL / sp->frequency;
	uint64_t start = now_ns(), end = 0, cpu0, tcpu0, next_interval = 0;
	unsigned long fds_short0;
	unsigned long other_stops0, signals0;
	uint64_t other0, cpu_before, next_drain = 0;
	bool others_woke = false;
	int started, prio_err;
	/* Tick n is at tick_time(t0, period, n). */
	uint64_t t0 = sp->t0 = start + period, next_n = 0, taken_n = 0, late_max = period / 4;

	for (int i = 0; i < 2; i++) {
		sp->tfd_tick[i] = UINT64_MAX;
		sp->tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (sp->tfd[i] < 0) {
			int err = -errno;

			if (i)
				close(sp->tfd[0]);
			sp->tfd[0] = -1;
			return err;
		}
	}
	if (sp->duration > 0)
		end = start + (uint64_t)(sp->duration * 1e9);
	if (sp->hooks.interval_ns)
		next_interval = start + sp->hooks.interval_ns;
	cpu0 = cpu_time_ns();
	tcpu0 = thread_cpu_ns();
	sp->stats.fds_before = count_open_fds();
	fds_short0 = proc_fds_short;
	other0 = s->other_ns;
	other_stops0 = s->other_stops;
	signals0 = s->signals_forwarded;
	{
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		sp->stats.start_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	}
	/* CPU time used before profiling is not the profile's. */
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		t->run_known = thread_sched(t) == 0;
		t->run_ns = t->run_first = t->sample_run = t->run_known ? t->run_mark : 0;
	}
	s->on_exit = thread_exits;
	prio_err = raise_priority(sp);
	started = start_trigger(sp);
	if (started < 0) {
		for (int i = 0; i < 2; i++) {
			close(sp->tfd[i]);
			sp->tfd[i] = -1;
		}
		lower_priority();
		return started;
	}
	/* The perf trigger's samples are the kernel's: they do not wait
	 * for ctprof. */
	if (!sp->timed && prio_err)
		verbose_msg("no real-time or raised priority (%s): samples may come late when all CPUs are busy",
			    strerror(prio_err));
	if (!sp->timed) {
		start_kicking(sp, t0);
		plan_first_holds(sp);
	}
	if (!sp->timed && (set_timer(sp, 0) < 0 || (!sp->once && set_timer(sp, 1) < 0))) {
		int err = -errno;

		for (int i = 0; i < 2; i++) {
			close(sp->tfd[i]);
			sp->tfd[i] = -1;
		}
		kicker_release(&sp->kick);
		lower_priority();
		return err;
	}
	if (sp->timed)
		arm_for_untimed(sp, &next_n, &taken_n);
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
			arm_for_untimed(sp, &next_n, &taken_n);
		now = now_ns();
		if (end && now >= end)
			break;
		/* A dump's one tick is over when every stop it asked for came. */
		if (sp->once && sp->stats.ticks && (!s->waiting || now >= end))
			break;
		if (next_interval && now >= next_interval) {
			sp->hooks.on_interval(sp, sp->hooks.arg);
			next_interval += sp->hooks.interval_ns;
			if (next_interval <= now)
				next_interval = now + sp->hooks.interval_ns;
			continue;
		}
		until = end;
		if (next_interval && (!until || next_interval < until))
			until = next_interval;
		/* Rings fill without waking ctprof: emptied at least this often. */
		if (sp->ktrig.kernel || sp->ktrig.user_rings) {
			if (now >= next_drain) {
				drain_rings(sp);
				if (sp->ncaps) {
					next_epoch(sp);
					unwind_captures(sp);
				}
				next_drain = now + RING_DRAIN_NS;
			}
			if (!until || next_drain < until)
				until = next_drain;
		}
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
			uint64_t woke = now_ns(), other = s->other_ns;
			unsigned waiting = s->waiting;

			session_read_signals(s);
			session_reap(s);
			/* A wake-up for stops ctprof did not ask for
			 * only: reading the signals is theirs too. */
			others_woke = s->waiting == waiting && s->other_ns != other &&
				      !((pfd[1].revents | pfd[2].revents | pfd[3].revents) & (POLLIN | POLLHUP | POLLERR));
			if (others_woke && cpu_before)
				s->other_ns = other + thread_cpu_ns() - cpu_before;
			else if (others_woke)
				s->other_ns += now_ns() - woke - (s->other_ns - other);
			/* Stops that came after their tick stopped waiting,
			 * and the perf trigger's. */
			drain_rings(sp);
			if (sp->ncaps) {
				if (sp->timed)
					next_epoch(sp);
				unwind_captures(sp);
			}
			if (session_done(s))
				continue;
		}
		/* The timers are not read: setting one again (or disarming
		 * it) clears it, and a read cost a system call a tick. */
		if ((pfd[2].revents | pfd[3].revents) & POLLIN) {
			uint64_t woke = now_ns(), n = next_n, skipped = 0, left;

			/* A timer that fired with the run's end, for a
			 * tick at or after it: not the run's. */
			if (end && !sp->once && tick_time(t0, period, n) >= end)
				break;
			/* Too late for tick n (its helpers have let go):
			 * take the latest tick instead, and count those
			 * between as missed, unless ctprof was stopped
			 * with its command (Ctrl-Z): there was nothing
			 * to sample then. */
			if (woke > tick_time(t0, period, n) + late_max) {
				uint64_t m = tick_next(t0, period, woke) - 1;

				/* ... but none from the run's end on. */
				if (end && !sp->once && woke >= end)
					m = tick_next(t0, period, end - 1) - 1;

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
			/* The next tick's timer, before the tick waits for
			 * it (set already, unless ticks were skipped); the
			 * one after it once the tick's stops are taken, so
			 * as not to delay them. */
			if (!sp->once)
				set_timer(sp, n + 1);
			tick(sp, n, tick_time(t0, period, n), woke);
			left = throttle(sp, n);
			taken_n = n;
			next_n = n + 1 + left;
			if (left) {
				/* The ticks left out wake neither ctprof nor
				 * the helpers: the next tick's timer is the
				 * one taken's. */
				sp->stats.ticks += left;
				sp->stats.throttled += left;
				kicker_from(&sp->kick, next_n);
				set_timer(sp, next_n);
			}
			/* The helpers hold CPUs for the next tick taken
			 * only: planned for one left out, they would wake
			 * for it. */
			if (sp->at_tick) {
				plan_holds(sp, next_n);
				watch_idle(sp);
			}
			if (!sp->once) {
				set_timer(sp, next_n + 1);
			} else {
				/* A thread in uninterruptible sleep
				 * stops when it leaves it: not waited
				 * for longer than a second. */
				end = now_ns() + 1000000000ULL;
				clear_timers(sp);
			}
		}
	}
	/* Ticks left out whose time had not come when sampling ended (or
	 * came with -d's end or after it) were not the run's. */
	{
		uint64_t over = now_ns();

		if (end && !sp->once && end < over)
			over = end;
		for (uint64_t m = next_n; m > taken_n + 1 && tick_time(t0, period, m - 1) >= over; m--) {
			sp->stats.ticks--;
			sp->stats.throttled--;
		}
	}
	stop_trigger(sp);
	/* Stops that came in the last tick, then the unwinder is done: its
	 * caches and file descriptors go now, not at exit. */
	if (sp->ncaps)
		unwind_captures(sp);
	count_short_writes(sp);
	if (sp->cputime) {
		for (size_t i = 0; i < s->nthreads; i++) {
			struct thread *t = &s->threads[i];

			if (!t->exiting && thread_sched(t) == 0) {
				sp->stats.kernel_cpu_ns += t->run_mark - (t->run_known ? t->run_first : 0);
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
	sp->stats.wall_ns = now_ns() - start;
	sp->stats.fds_short = proc_fds_short - fds_short0;
	sp->stats.cpu_ns = cpu_time_ns() - cpu0;
	sp->stats.part_ns.sampler_cpu = thread_cpu_ns() - tcpu0;
	sp->stats.part_ns.helpers_cpu = kicker_cpu_ns(&sp->kick);
	sp->stats.part_ns.resume = s->resume_ns;
	sp->stats.part_ns.other = s->other_ns - other0;
	sp->stats.other_stops = s->other_stops - other_stops0;
	sp->stats.signals = s->signals_forwarded - signals0;
	sp->stats.part_ns.wait_spin = s->spin_ns;
	sp->stats.part_ns.wait_sleep = s->sleep_ns;
	sp->stats.rss_kib = resident_kib();
	sp->stats.heap_kib = heap_kib();
	sp->stats.stacks_kib = (long)((stacks_bytes(&sp->stacks) + names_bytes(sp)) / 1024);
	sp->stats.copies_kib = (long)(capture_bytes(sp) / 1024);
	sp->stats.helpers = sp->kick.helpers;
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
	for (int i = 0; i < 2; i++) {
		close(sp->tfd[i]);
		sp->tfd[i] = -1;
	}
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
}
