/* interrupt.c - asking for the stops: PTRACE_INTERRUPT at the tick, on
 * CPUs the helpers hold (kick.h) or on ctprof's own, and ctprof dump's
 * batches.
 */
#include "internal.h"

static bool every_cpu_found(const struct sampler *sp);

int ask_stop(struct sampler *sp, struct thread *t)
{
	if (session_interrupt(sp->session, t) < 0)
		return -1;
	/* For the count of the ticks it may run through before it stops. */
	t->st->ask_run = t->st->run_mark;
	t->st->late_passed = t->st->late_ticks = 0;
	return 0;
}

/* Ask picked thread T to stop.  SINCE_NS, if not 0, is when its CPU was
 * taken from it: its stall starts there. */
static void interrupt_one(struct sampler *sp, struct thread *t, uint64_t since_ns, bool preempted)
{
	if (ask_stop(sp, t) < 0)
		return;
	if (since_ns && since_ns < t->interrupt_ns)
		t->interrupt_ns = since_ns;
	if (preempted) {
		t->st->put_off = 0;
		t->st->asked_held = true;
		t->st->probe = false;
		sp->stats.preempted++;
	} else {
		count_unheld(sp, t);
	}
}

/* The threads that run in bursts (sp->late, see bursty()): read again
 * once their CPUs are held, so that each is sampled if it runs at the
 * tick, and only then.  Read only before the tick, as the others are,
 * a server between two epoll_wait calls would be sampled only in bursts
 * that began before that read, never in their first part (where it reads
 * its requests), too often in the rest, and it would be woken out of
 * epoll_wait to stop when it had blocked meanwhile. */
void late_picks(struct sampler *sp, int here, bool slept)
{
	size_t i;

	for (i = 0; i < sp->nlate; i++) {
		struct thread *t = sp->late[i].t;
		uint64_t before = t->st->run_mark;
		int cpu = -1;
		char state = proc_state(t->stat_fd, &cpu, NULL);

		if (state == 'S' || state == 'D')
			t->st->blocked_n = sp->tick_n + 1;
		if (state != 'R' || !target_of(sp, t->proc, NULL))
			continue;
		/* Runnable at the tick, but did it run?  One woken up just
		 * before, that waits for a CPU, would stop at the end of the
		 * call it waited in, with the CPU time of its earlier bursts.
		 * A thread that ran up to the tick was taken off its CPU
		 * there, which brought its run time up to date.  So was one
		 * on ctprof's own CPU, if ctprof slept there until the tick
		 * (SLEPT).  If it did not, the tick there was ctprof's waking
		 * up for the first read: the thread that ran then was seen
		 * runnable by it. */
		if (cpu == here && !slept ? !sp->late[i].was_running
				: thread_sched(t) == 0 && t->st->run_mark == before) {
			sp->stats.not_run++;
			continue;
		}
		t->st->last_cpu = cpu;
		t->st->idle_known = false;
		t->st->blocked_sample = false;
		sp->stats.late++;
		add_pick(sp, t, cpu);
	}
}

/* Has a pick from FIRST on CPU C? */
static bool picked_on(const struct sampler *sp, int c, size_t first)
{
	size_t i;

	for (i = first; i < sp->npicks; i++)
		if (sp->picks[i].cpu == c)
			return true;
	return false;
}

/* Ask the picked threads from FIRST on to stop, timed from when their
 * CPUs were taken (ctprof's own CPU, HERE: at HERE_SINCE), and let the
 * held CPUs go: all of them if ALL, else those that one of these picks
 * ran on at the take (WANT_GONE from then on).  A CPU ran one thread
 * then: what is left to read cannot have been on it. */
void ask_stops(struct sampler *sp, uint64_t n, int here, uint64_t here_since, size_t first, bool all)
{
	struct kicker *k = &sp->kick;
	uint64_t t0 = now_ns(), t1;
	size_t i;
	int c;

	/* A helper that gave up before its CPU's stops were asked for let
	 * its threads run on, and their stops land where they next leave
	 * the kernel: claimed first, a helper holds on until
	 * kicker_let_go(), and one that gave up is known not to hold (its
	 * CPU's stops are put off).  With selftime pinned to one CPU and
	 * ctprof to the other, and a SCHED_FIFO thread on each spinning
	 * 20-100 us every 100-400 us, 200-245 of 3000 stops were asked for
	 * after the helper gave up, and the call's share was 13.8 points
	 * above its own clock's in one run; once claimed, -1.0 to +6.1 in
	 * four. */
	for (c = 0; c < k->ncpus; c++) {
		sp->going[c] = sp->want[c] == WANT_HELD && (all || picked_on(sp, c, first));
		if (sp->going[c] && !kicker_claim(k, c, n)) {
			kicker_let_go(k, c, n);
			sp->want[c] = WANT_NONE;
			sp->going[c] = false;
			sp->stats.gave_up++;
		}
	}
	for (i = first; i < sp->npicks; i++) {
		struct pick *pk = &sp->picks[i];

		if (pk->cpu == here)
			interrupt_one(sp, pk->t, here_since, true);
		else if (pk->cpu >= 0 && pk->cpu < k->ncpus && sp->going[pk->cpu])
			interrupt_one(sp, pk->t, sp->since[pk->cpu], true);
		else if (!put_off(sp, pk->t))
			interrupt_one(sp, pk->t, 0, false);
	}
	t1 = now_ns();
	sp->stats.part_ns.interrupt += t1 - t0;
	for (c = 0; c < k->ncpus; c++) {
		if (!sp->going[c])
			continue;
		sp->want[c] = WANT_GONE;
		if (kicker_let_go(k, c, n))
			continue;
		/* It left before the stops were asked for. */
		for (i = first; i < sp->npicks; i++)
			if (sp->picks[i].cpu == c && sp->picks[i].t->sample_wanted) {
				sp->stats.preempted--;
				count_unheld(sp, sp->picks[i].t);
			}
	}
	sp->stats.part_ns.letgo += now_ns() - t1;
}

/* Wait for CPU C's helper to take it at tick N, which it was to at T_NS:
 * true, with sp->since[c] the moment it did, or false.
 *
 * Until hold_max_ns after T_NS, the last moment the helper takes it
 * (kick.c), where ctprof used to wait half of that.  A thread in kernel
 * code when its CPU's helper wakes goes on until it sleeps or returns to
 * user space, on a kernel that does not preempt its own code, and the
 * helper takes the CPU then: a stop asked for after that lands in the
 * call it was in, and a thread found asleep is counted in the call it
 * sleeps in (slept_after_tick()).  tests/targets/pollsleep (a ppoll()
 * that works 85 us in the kernel before it sleeps) pinned to CPU 0,
 * ctprof to CPU 1, with the switches and system calls traced (tracefs):
 * of the 360-370 ticks of a run that came in that work, 82-101 went
 * uncounted with the shorter wait (the helper took the CPU 100-130 us
 * after the tick, as the thread went to sleep, and the stop was put off),
 * 16-29 with this one.  Untraced, six alternating runs each: the call had
 * 41.8-47.4% of ctprof's reports (median 44.6%), 37-100 stops put off;
 * now 44.8-47.9% (46.8%), 17-21; 51.6-51.9% by its own clock.
 *
 * But a CPU whose helper came too late at the last MISSED_MAX ticks (a
 * thread of a higher real-time priority holds it) is waited for half of
 * that, as before: with a busy SCHED_FIFO target thread on one CPU and
 * ctprof on the other, ctprof spent 155 us a sample in this wait when it
 * waited the whole time at every tick; so, 48-61 us (40-61 under the
 * commit before, three alternating runs).  Not less: a quarter cut that
 * to 7-14 us, but where a helper takes 50 us or more to wake (a slower
 * host), a CPU in that state would give up on every helper, never see
 * one in time again, and stay so. */
static bool wait_take(struct sampler *sp, int c, uint64_t n, uint64_t t_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t wait = sp->missed[c] < MISSED_MAX ? k->hold_max_ns : k->hold_max_ns / 2;

	if (kicker_wait_hold(k, c, n, t_ns + wait, &sp->since[c])) {
		sp->missed[c] = 0;
		return true;
	}
	if (sp->missed[c] < MISSED_MAX)
		sp->missed[c]++;
	return false;
}

/* Stop the picked threads where they were at tick N (at T_NS), not where
 * they next leave the kernel: those on ctprof's own CPU (HERE) are off it
 * already, since ctprof woke at WOKE_NS; every other CPU that runs one,
 * or may by the tick, is held by its helper.  With the CPUs held, the
 * late candidates are read again, the threads are asked to stop, and the
 * CPUs let go.  See kick.h for why. */
void interrupt_picks(struct sampler *sp, uint64_t n, uint64_t t_ns, int here, uint64_t woke_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t t0 = now_ns(), t1, slept0 = sp->stats.part_ns.tick_sleep;
	bool slept = false, shared = false;
	size_t i;
	int c;

	if (!sp->kicking) {
		late_picks(sp, here, false);
		t1 = now_ns();
		sp->stats.part_ns.late += t1 - t0;
		for (i = 0; i < sp->npicks; i++)
			interrupt_one(sp, sp->picks[i].t, 0, false);
		sp->stats.part_ns.interrupt += now_ns() - t1;
		return;
	}
	memset(sp->want, 0, (size_t)k->ncpus);
	/* Holding only where it counts, unless a thread shares ctprof's CPU
	 * and the threads compete for the CPUs. */
	for (i = 0; i < sp->npicks + sp->nlate && !shared && competing(sp, n); i++)
		shared = (i < sp->npicks ? sp->picks[i].cpu : sp->late[i - sp->npicks].cpu) == here;
	for (i = 0; i < sp->npicks + sp->nlate; i++) {
		const struct pick *pk = i < sp->npicks ? &sp->picks[i] : &sp->late[i - sp->npicks];

		c = pk->cpu;
		if (c >= 0 && c < k->ncpus && c != here && !sp->want[c] && (shared || wants_hold(pk->t)))
			sp->want[c] = kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
	}
	/* A thread read again at the tick may have woken up on another CPU
	 * than it was last seen on, and one that then runs unheld has no
	 * up-to-date run time to tell: hold every CPU that a thread of the
	 * target ran on lately, and no other. */
	if (sp->nlate)
		for (i = 0; i < sp->session->nthreads; i++) {
			const struct thread *t = &sp->session->threads[i];

			c = t->st->last_cpu;
			if (c >= 0 && c < k->ncpus && c != here && !sp->want[c] && t->st->ran_n &&
			    sp->tick_n + 1 - t->st->ran_n <= RECENT_TICKS && (shared || wants_hold(t)))
				sp->want[c] = kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
		}
	/* Helpers with nothing to hold go back to sleep as they wake. */
	for (c = 0; c < k->ncpus; c++)
		if (sp->want[c] != WANT_READY)
			kicker_skip(k, c, n);
	/* Early: sleep until the tick rather than spin until the helpers
	 * hold their CPUs (they wake at the tick, a wake-up's latency as
	 * late as ctprof).  What runs on ctprof's own CPU meanwhile runs
	 * until ctprof wakes, as a helper would take it. */
	if (t_ns > now_ns() + SLEEP_MIN_NS) {
		struct timespec ts = {
			.tv_sec = (time_t)(t_ns / 1000000000ULL),
			.tv_nsec = (long)(t_ns % 1000000000ULL),
		};

		uint64_t s0 = now_ns();

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		woke_ns = now_ns();
		sp->stats.part_ns.tick_sleep += woke_ns - s0;
		slept = true;
		if (sched_getcpu() != here)
			here = -2;      /* moved: nothing of the target's is held here */
	}
	for (c = 0; c < k->ncpus; c++) {
		sp->since[c] = 0;
		if (sp->want[c] == WANT_READY && wait_take(sp, c, n, t_ns))
			sp->want[c] = WANT_HELD;
	}
	t1 = now_ns();
	sp->stats.part_ns.holds += t1 - t0 - (sp->stats.part_ns.tick_sleep - slept0);
	late_picks(sp, here, slept);
	t0 = now_ns();
	sp->stats.part_ns.late += t0 - t1;
	ask_stops(sp, n, here, woke_ns, 0, true);
	/* Helpers cannot run here (no real-time priority for them after
	 * all): no lead, no holds from now on. */
	if (k->disabled)
		sp->kicking = false;
}

/* How long before tick n ctprof wakes up. */
uint64_t lead(const struct sampler *sp)
{
	if (!sp->kicking || sp->at_tick)
		return 0;
	return sp->need_ns < sp->period_ns / 2 ? sp->need_ns : sp->period_ns / 2;
}

/* ctprof dump: the threads chosen are asked to stop DUMP_BATCH at a time,
 * and each batch is waited for (at most DUMP_BATCH_WAIT_NS) before the
 * next.  Asked all at once, the threads stop together and each waits,
 * stopped, for its turn to be copied: on 1004 threads each stop lasted
 * over 10 ms and they spread over 60 to 140 ms.  A thread that does not
 * stop within its batch's wait (in uninterruptible sleep) is taken when it
 * does, within the dump's second. */
void interrupt_in_batches(struct sampler *sp)
{
	struct session *s = sp->session;
	size_t i, n = sp->npicks;
	pid_t *tids = xmalloc((n + 1) * sizeof(*tids));
	unsigned carried = s->waiting;
	uint64_t t0;

	/* Reaping may grow the thread table and move the threads. */
	for (i = 0; i < n; i++)
		tids[i] = sp->picks[i].t->tid;
	sp->npicks = 0;
	for (i = 0; i < n; i++) {
		struct thread *t = session_thread(s, tids[i]);

		t0 = now_ns();
		if (t && ask_stop(sp, t) == 0)
			sp->stats.unheld++;
		sp->stats.part_ns.interrupt += now_ns() - t0;
		if ((i + 1) % DUMP_BATCH && i + 1 < n)
			continue;
		session_wait_samples(s, 0, DUMP_BATCH_WAIT_NS, -1, carried);
		carried = s->waiting;
	}
	free(tids);
}

/* Reading after the tick: the helpers take their CPUs sp->delay_ns after
 * the tick, so as to hold them from about when the sampler (woken at
 * WOKE_NS) comes to read the threads, not from the tick: what a helper
 * holds before that is stall and CPU the target loses.  The sampler is
 * as late as its wake-up, which is slower on an idle CPU than the
 * helper's on a busy one (28 against 14 us, median, here).  On a busy
 * thread at 999 Hz, with no delay, its helper used 37 us of CPU per
 * sample and the median stall was 43.5 us, against 14.5 and 22.5 us
 * when ctprof woke before the tick; with the delay (about 10 us) and
 * choose() reading schedstat alone, 20 and 26.5 us, and 27 and 34.5 us
 * with the same reads but no delay.  Where the sampler's
 * CPU is busy, its wake-up is as fast as the helpers' and the delay
 * falls to nothing (0.7 us on average, attached to redis-server under
 * redis-benchmark): it never comes early to take a CPU from another
 * program.  The delay follows the sampler's arrival minus the helper's
 * take (TAKE_NS) so that the sampler comes first about a quarter of the
 * time (and waits, on its own CPU) and later the rest (and the helper
 * waits, on the target's).
 *
 * That is only while the sampler's CPU is idle, though (watch_idle()).
 * Where it runs another program, the sampler that comes before the take
 * preempts that program first, and the take finds the target as that
 * left it: a client held up, a server out of requests.  The sampler's
 * wake-up is then no faster whenever that program is in the kernel (the
 * interrupt reaches it only when it leaves), and the delay climbed all
 * the same: attached to redis-server under redis-benchmark, 7 of 28 runs
 * had a delay of 10.6-20.4 us on average, and in all seven redis was
 * sampled at 0.44-0.88 of its CPU time's ticks, with epoll_wait at
 * 27.9-46.1% of its profile against perf's 22.7-26.3%; perf -a showed
 * redis alone on one CPU, the sampler sharing the other with
 * redis-benchmark.  Placed so (taskset) with the delay held fixed, two
 * runs each: 0 us, distance to perf's profile 0.037 and 0.044, samples
 * 1.11 and 1.08 of the ticks; 5 us, 0.049 and 0.046; 10 us, 0.103 and
 * 0.078; 18 us, 0.259 and 0.181 (0.39 and 0.48 of the ticks).  With
 * redis and redis-benchmark both on the other CPU, the sampler's own
 * idle, 18 us and 0 us made no difference (0.079 and 0.108 against
 * 0.084 and 0.137).  Where the sampler's CPU is idle, the delay is what
 * it saves: a busy thread that enters the kernel between bursts of
 * work (tests/targets/selftime.c syscall, held at every sample), four
 * alternating runs at 999 Hz, was stopped for 29.5-54.5 us (median of
 * each run) with the delay as it follows the arrivals (11-30 us), and
 * 48.5-85.5 us with none; its helper used 26-43 us of CPU a sample
 * against 42-75.  (Where the delay settles moves from run to run: 2-38
 * us in eight later runs, the stall 35.5 us at 2 us and 58.5 at 35.)
 * Attached to redis as placed by the scheduler, ten alternating runs
 * each: distance 0.032-0.052 (median 0.040) and samples 1.06-1.15 of the
 * ticks with this rule, delay 0.0-0.4 us; 0.029-0.089 (0.045) and
 * 0.80-1.11 without, two runs with the delay at 10.2 and 11.6 us, sampled
 * at 0.80 and 0.98. */
static void follow_arrival(struct sampler *sp, uint64_t woke_ns, uint64_t take_ns)
{
	uint64_t max = sp->period_ns / 8 < DELAY_MAX_NS ? sp->period_ns / 8 : DELAY_MAX_NS;

	if (!sp->delay_ok)
		max = 0;
	else if (woke_ns > take_ns + DELAY_STEP_NS)
		sp->delay_ns += DELAY_STEP_NS;
	else if (take_ns > woke_ns)
		sp->delay_ns -= sp->delay_ns < 3 * DELAY_STEP_NS ? sp->delay_ns : 3 * DELAY_STEP_NS;
	if (sp->delay_ns > max)
		sp->delay_ns = max;
	kicker_set_delay(&sp->kick, sp->delay_ns);
}

/* /proc/stat cannot be read (WHY): the helpers are never delayed, which
 * is the accurate side (see follow_arrival()), at the cost of longer
 * stops where ctprof's CPU is idle. */
static void no_cpustat(struct sampler *sp, const char *why)
{
	verbose_msg("/proc/stat: %s: the helpers take their CPUs at the tick, not when ctprof comes (longer stops where its CPU is idle)",
		    why);
	sp->delay_ok = false;
	sp->delay_ns = 0;
	kicker_set_delay(&sp->kick, 0);
}

/* Reading after the tick: did other programs run on the sampler's CPU at
 * most a fifth of the time (the rest idle, or the sampler)?  Then the
 * helpers may wait for it (follow_arrival()): a sampler that comes early
 * seldom preempts one.  Its idle time is read from /proc/stat (8-11 us a
 * read here, the machine busy) once in IDLE_WINDOW_NS, after the tick's
 * samples are taken, in clock ticks (10 ms): over 200 ms, that tells an
 * idle CPU (85-95% idle, the sampler 6-7% of it, with selftime on the
 * other CPU) from a busy one (0-5% idle, attached to redis).  A CPU the
 * sampler left between two reads is seen as it was at the second. */
void watch_idle(struct sampler *sp)
{
	uint64_t now = now_ns(), own, *swap;
	int c = sp->here;

	/* For every_cpu_found(), as often. */
	if (now - sp->online_read_ns >= IDLE_WINDOW_NS) {
		sp->online = get_nprocs();
		sp->online_read_ns = now;
	}
	if (sp->cpustat_fd < 0 || sp->clock_tick <= 0 || now - sp->idle_read_ns < IDLE_WINDOW_NS)
		return;
	own = thread_cpu_ns();
	memcpy(sp->idle_now, sp->idle_mark, (size_t)sp->kick.ncpus * sizeof(*sp->idle_now));
	if (proc_cpus_idle(sp->cpustat_fd, sp->idle_now, sp->kick.ncpus) < 0) {
		close(sp->cpustat_fd);
		sp->cpustat_fd = -1;
		no_cpustat(sp, "no cpuN lines read");
		return;
	}
	if (sp->idle_read_ns && c >= 0 && c < sp->kick.ncpus) {
		uint64_t ticks = sp->idle_now[c] > sp->idle_mark[c] ? sp->idle_now[c] - sp->idle_mark[c] : 0;
		uint64_t free_ns = ticks * (1000000000ULL / (uint64_t)sp->clock_tick) + own - sp->own_mark;
		uint64_t window = now - sp->idle_read_ns;

		sp->delay_ok = free_ns >= window || 5 * (window - free_ns) <= window;
		if (!sp->delay_ok && sp->delay_ns) {
			sp->delay_ns = 0;
			kicker_set_delay(&sp->kick, 0);
		}
	}
	swap = sp->idle_mark;
	sp->idle_mark = sp->idle_now;
	sp->idle_now = swap;
	sp->idle_read_ns = now;
	sp->own_mark = own;
}

/* Reading after the tick: ctprof woke up for tick N at T_NS.  It wakes
 * no earlier: whatever it does before the tick changes what the target
 * does at the tick.  Woken a lead before it, to read which threads run
 * where (the other way, below), ctprof took a CPU from redis-benchmark
 * for tens of microseconds before each tick, and redis-server, out of
 * requests, had gone to sleep by the tick: it ran at 12% of the ticks
 * where it ran 55-60% of the time, and its profile was far from perf's
 * (0.16, where 0.02 is sampling's own).  Even waking 27 us before the
 * tick only to be there at it (a wake-up is that late here), spinning
 * or sleeping again until the tick, cut redis's samples to a quarter of
 * what it got waking at the tick.  So the helpers take the CPUs at the
 * tick (or the delay after it that follow_arrival sets), ctprof comes
 * when it wakes and waits until the helpers hold the CPUs planned for
 * this tick (plan_holds). */
void ready_at_tick(struct sampler *sp, uint64_t n, uint64_t t_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t t0;
	int c;

	t0 = now_ns();
	memset(sp->take_known, 0, (size_t)k->ncpus);
	for (c = 0; c < k->ncpus; c++) {
		sp->since[c] = 0;
		if (sp->want[c] != WANT_READY)
			continue;
		if (c == sp->here) {
			/* ctprof woke on another CPU than it slept on, one
			 * planned for a helper: ctprof took it itself,
			 * unless that helper did first. */
			if (kicker_wait_hold(k, c, n, 0, &sp->since[c]))
				sp->want[c] = WANT_HELD;
			else {
				kicker_skip(k, c, n);
				sp->want[c] = WANT_NONE;
			}
		} else if (wait_take(sp, c, n, t_ns + sp->delay_ns)) {
			sp->want[c] = WANT_HELD;
			follow_arrival(sp, sp->woke_ns, sp->since[c]);
		}
	}
	sp->stats.part_ns.holds += now_ns() - t0;
}

/* Was a thread of the target found on every CPU online at the take:
 * ctprof's own, or one held and let go (ask_stops())?  Then no other
 * was on a CPU at the tick. */
static bool every_cpu_found(const struct sampler *sp)
{
	int c, found = 0;

	for (c = 0; c < sp->kick.ncpus; c++)
		found += c == sp->here ? picked_on(sp, c, 0) : sp->want[c] == WANT_GONE;
	return sp->online > 0 && found >= sp->online;
}

/* Reading after the tick: ask the threads chosen to stop, and let the
 * CPUs go; with DEFERRED threads left to read (choose()), first those
 * CPUs whose threads were found, then, having read the rest, the others.
 * The rest are not read at all where a thread of the target was found
 * on every CPU: none of them can have been on one at the tick, and one
 * that ran since its last read is read in full at the next tick that
 * reads it.  With bench/threads64.c (4 busy threads, 60 idle ones, on 2
 * CPUs, so that nearly every tick finds one on each) at 999 Hz, ctprof
 * spent 24 us a sample choosing, most of it reading the idle ones, and 9
 * without; five alternating runs each: ctprof's CPU 72-77 us a sample
 * against 87-91, the busy threads' work 6.21-6.34 million loops against
 * 6.05-6.14.  Returns false if waiting for the stops must not spin. */
bool interrupt_at_tick(struct sampler *sp, uint64_t n, size_t deferred)
{
	struct session *s = sp->session;
	uint64_t since = taken_at(sp, sp->here), t0;
	size_t first = 0, i;
	bool spin = true;

	if (deferred) {
		ask_stops(sp, n, sp->here, since, 0, false);
		first = sp->npicks;
		t0 = now_ns();
		if (every_cpu_found(sp)) {
			for (i = 0; i < s->nthreads; i++)
				s->threads[i].st->deferred = false;
			sp->stats.idle_unread += deferred;
		} else {
			spin = choose(sp, true, &deferred);
		}
		sp->stats.part_ns.choose += now_ns() - t0;
	}
	ask_stops(sp, n, sp->here, since, first, true);
	return spin;
}

/* Start the helpers that take CPUs from the target at each tick, on
 * the grid that starts at T0; only with a real-time priority, which
 * they need as much as the sampler does.  Not with --wall: it reads
 * every thread at every tick, so its lead would grow with the threads
 * (300 idle ones: ~0.7 ms), and threads read running that long before
 * the tick and blocked by their stop were stopped again at the next
 * tick: 445-745 stops of 300 idle threads where 385-625 were before.
 * A wall-clock profile is about where threads wait. */
void start_kicking(struct sampler *sp, uint64_t t0)
{
	if (sp->wall || !sp->stats.realtime ||
	    kicker_init(&sp->kick, t0, sp->period_ns, HELPER_PRIO) < 0)
		return;
	sp->want = xcalloc((size_t)sp->kick.ncpus, 1);
	sp->since = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->since));
	sp->going = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->going));
	sp->crowded = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->crowded));
	sp->missed = xcalloc((size_t)sp->kick.ncpus, 1);
	sp->kicking = true;
	sp->need_ns = LEAD_FIRST_NS;
	/* Threads are read once their CPUs are taken if ctprof can tell a
	 * thread taken off its CPU then from one woken up since: by the
	 * moment each last left a CPU, in /proc/PID/task/TID/sched (always
	 * there since Linux 6.15; before, with CONFIG_SCHED_DEBUG).
	 * Otherwise they are read before the tick. */
	if (!sp->once) {
		uint64_t es;

		sp->self_sched_fd = proc_open_task_sched(getpid(), (pid_t)syscall(SYS_gettid));
		if (proc_exec_start(sp->self_sched_fd, &es) == 0) {
			sp->take_es = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->take_es));
			sp->take_known = xcalloc((size_t)sp->kick.ncpus, 1);
			sp->rq_offs = xcalloc((size_t)sp->kick.ncpus * RQ_OFFS, sizeof(*sp->rq_offs));
			sp->at_tick = true;
			sp->cpustat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
			if (sp->cpustat_fd < 0)
				no_cpustat(sp, strerror(errno));
			sp->idle_mark = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->idle_mark));
			sp->idle_now = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->idle_now));
			sp->clock_tick = sysconf(_SC_CLK_TCK);
		}
	}
}
