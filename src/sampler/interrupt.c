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
	 * CPU's stops are put off).  Unclaimed, a host that takes the CPUs
	 * now and then moved a call's share well off its own clock's
	 * (tests/targets/rtsteal.c; docs/DESIGN.md, "The helpers"). */
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
 * (kick.c).  A thread in kernel code when its CPU's helper wakes goes on
 * until it sleeps or returns to user space, on a kernel that does not
 * preempt its own code, and the helper takes the CPU then: a stop asked
 * for after that lands in the call it was in, and a thread found asleep
 * is counted in the call it sleeps in (slept_after_tick()).  A shorter
 * wait put those stops off and left the call's ticks uncounted
 * (tests/targets/pollsleep; docs/DESIGN.md, "The helpers").
 *
 * But a CPU whose helper came too late at the last MISSED_MAX ticks (a
 * thread of a higher real-time priority holds it) is waited for half of
 * that: waiting it all out at every tick costs ctprof that whole wait a
 * sample.  Not less: where a helper takes 50 us or more to wake (a slower
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
 * next: asked all at once, the threads stop together and each waits,
 * stopped, for its turn to be copied (docs/DESIGN.md, "Stops and
 * copies").  A thread that does not stop within its batch's wait (in
 * uninterruptible sleep) is taken when it does, within the dump's
 * second. */
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
 * holds before that is stall and CPU the target loses, and the sampler's
 * wake-up on an idle CPU is slower than a helper's on a busy one.  The
 * delay follows the sampler's arrival minus the helper's take (TAKE_NS)
 * so that the sampler comes first about a quarter of the time (and
 * waits, on its own CPU) and later the rest (and the helper waits, on
 * the target's).  Where the sampler's CPU is busy, its wake-up is as fast
 * as the helpers' and the delay falls to nothing: it never comes early to
 * take a CPU from another program.
 *
 * That is only while the sampler's CPU is idle, though (watch_idle()).
 * Where it runs another program, the sampler that comes before the take
 * preempts that program first, and the take finds the target as that
 * left it: a client held up, a server out of requests.  And the delay
 * climbs there all the same, the sampler's wake-up being late whenever
 * that program is in the kernel.  Both sides are measured in
 * docs/DESIGN.md, "Waking at the tick" (redis-server beside
 * redis-benchmark; tests/targets/selftime.c syscall). */
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
 * seldom preempts one.  Its idle time is read from /proc/stat once in
 * IDLE_WINDOW_NS, after the tick's samples are taken, in clock ticks
 * (10 ms): a window that long tells an idle CPU from a busy one
 * (docs/DESIGN.md, "Waking at the tick").  A CPU the sampler left
 * between two reads is seen as it was at the second. */
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
 * does at the tick, even if it only spins or sleeps again until the tick
 * (docs/DESIGN.md, "Waking at the tick").  So the helpers take the CPUs
 * at the tick (or the delay after it that follow_arrival sets), ctprof
 * comes when it wakes and waits until the helpers hold the CPUs planned
 * for this tick (plan_holds). */
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
 * reads it.  Reading idle threads was most of the choosing where many
 * are (bench/threads64.c; docs/DESIGN.md, "Waking at the tick").
 * Returns false if waiting for the stops must not spin. */
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
 * every thread at every tick, so its lead would grow with the threads,
 * and threads read running that long before the tick and blocked by
 * their stop were stopped again at the next (docs/DESIGN.md, "Wall-clock
 * mode").  A wall-clock profile is about where threads wait. */
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
