/* trigger.c - the choice of trigger at the start, the perf trigger's
 * end, and the threads its events do not time (the timer's, meanwhile).
 */
#include "internal.h"

static bool ev_unsampled(struct sampler *sp, struct thread *t, uint64_t now);

/* Decide what times the samples (--trigger; docs/DESIGN.md, "Choosing
 * the trigger") and, for the perf trigger, give every thread its event.
 * 0, or -errno where --trigger=perf was asked for and the kernel refuses
 * it.  --wall times blocked threads too, and a dump takes one stop of
 * each thread: both are the timer's. */
int start_trigger(struct sampler *sp)
{
	struct session *s = sp->session;
	int err;

	sp->stats.trigger = TRIGGER_TIMER;
	if (sp->trigger_opt == TRIGGER_TIMER || sp->wall || sp->once)
		return 0;
	err = s->nthreads ? ktrigger_probe(s->threads[0].tid) : -ESRCH;
	if (err < 0) {
		sp->stats.perf_error = -err;
		return sp->trigger_opt != TRIGGER_AUTO ? err : 0;
	}
	sp->timed = true;
	srandom((unsigned)(now_ns() ^ (uint64_t)getpid()));
	sp->stats.trigger = TRIGGER_PERF;
	sp->ktrig.period_ns = sp->stats.timed_period_ns = sp->period_ns;
	/* Samples from rings stop no thread (docs/DESIGN.md, "Rings: samples
	 * without a stop"). */
	sp->ktrig.user_rings = sp->trigger_opt != TRIGGER_PERF_STOP;
	/* Kernel-mode ticks into rings where the kernel allows it; else the
	 * [kernel] rows. */
	sp->ktrig.kernel = ktrigger_probe_kernel(s->threads[0].tid) == 0;
	sp->stats.kernel_rings = sp->ktrig.kernel;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		t->kt.ev_run0 = t->st->run_known ? t->st->run_first : 0;
		ktrigger_open(&sp->ktrig, t, true);
	}
	s->ktrig = &sp->ktrig;
	s->on_timed = capture_timed;
	return 0;
}

/* The perf trigger's end: no event left, none of their signals left
 * for the program, and each thread's time in the kernel in its [kernel] row. */
void stop_trigger(struct sampler *sp)
{
	struct session *s = sp->session;

	if (!sp->timed)
		return;
	/* No sample after the last read: one would be counted lost. */
	for (size_t i = 0; i < s->nthreads; i++)
		ktrigger_disable(&s->threads[i]);
	drain_rings(sp);
	for (size_t i = 0; i < s->nthreads; i++)
		sp->stats.untimed_threads += s->threads[i].kt.ev_fd < 0 && !s->threads[i].exiting;
	sp->stats.stray_left = session_close_events(s, STRAY_WAIT_NS);
	s->ktrig = NULL;
	s->on_timed = NULL;
	for (size_t i = 0; i < s->nthreads; i++)
		if (!s->threads[i].exiting)
			kernel_row(sp, &s->threads[i]);
	sp->stats.timed_threads = sp->ktrig.opened;
	sp->stats.timed_by[0] = sp->ktrig.by_signal[0];
	sp->stats.timed_by[1] = sp->ktrig.by_signal[1];
	sp->stats.events_failed = sp->ktrig.failed;
	sp->stats.rings_refused = sp->ktrig.rings_refused;
	sp->stats.ring_threads = sp->ktrig.by_ring;
	sp->stats.ring_lost = sp->ktrig.ring_lost;
	sp->stats.kernel_in_stops = sp->ktrig.in_signal;
}

/* The perf trigger: thread T's event is closed, T lives on (it blocks
 * the event's signal now, or its exec's new image does).  Its time so far
 * is its event's samples' and its [kernel] row's; what follows, the
 * timer's samples'. */
static void to_timer(struct sampler *sp, struct thread *t)
{
	/* Seen to block it (ev_unsampled()): its time since it was last
	 * seen sampled is neither its event's nor the kernel's. */
	t->kt.ev_run0 += t->kt.ev_lag;
	kernel_row(sp, t);
	run_known(t);
	if (thread_sched(t) == 0)
		t->st->run_ns = t->st->run_mark > t->kt.ev_lag ? t->st->run_mark - t->kt.ev_lag : 0;
	t->kt.ev_lag = 0;
	t->kt.ev_timed = false;
}

/* The perf trigger: thread T ran three periods without a sample since it
 * was last looked at, EV_LOOK_NS ago or more, and its event's signal is
 * pending and blocked. */
static bool ev_unsampled(struct sampler *sp, struct thread *t, uint64_t now)
{
	uint64_t count;
	bool stuck;

	if (now - t->kt.ev_look_ns < EV_LOOK_NS)
		return false;
	t->kt.ev_look_ns = now;
	count = ktrigger_count(t);
	if (count < t->kt.ev_look_count)
		t->kt.ev_look_count = t->kt.ev_sampled_count = 0;
	/* Its last sample came between the last look and this one: the
	 * middle, as its count goes. */
	if (t->kt.ev_samples != t->kt.ev_look_samples)
		t->kt.ev_sampled_count = t->kt.ev_look_count + (count - t->kt.ev_look_count) / 2;
	stuck = t->kt.ev_samples == t->kt.ev_look_samples && count > t->kt.ev_look_count + 3 * sp->ktrig.period_ns &&
		ktrigger_stuck(t);
	t->kt.ev_look_samples = t->kt.ev_samples;
	t->kt.ev_look_count = count;
	t->kt.ev_lag = stuck && count > t->kt.ev_sampled_count ? count - t->kt.ev_sampled_count : 0;
	return stuck;
}

/* The perf trigger: the timer runs only while a thread has no event (it
 * blocks every signal an event could send, or its event was refused).
 * Its ticks start again from the next one due, none counted missed. */
void arm_for_untimed(struct sampler *sp, uint64_t *next_n, uint64_t *taken_n)
{
	struct session *s = sp->session;
	bool need = false;

	uint64_t now = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (t->exiting)
			continue;
		if (t->kt.ev_fd >= 0) {
			if (!now)
				now = now_ns();
			if (t->kt.ev_check_ns) {
				/* Born with every signal blocked: does it
				 * block its event's now that it runs? */
				if (now - t->kt.ev_check_ns < EV_CHECK_NS)
					continue;
				t->kt.ev_check_ns = 0;
				t->kt.ev_look_ns = now;
			} else if (!ev_unsampled(sp, t, now)) {
				continue;
			}
			if (ktrigger_check(&sp->ktrig, t) == 0) {
				/* It keeps its event: a lag measured for a
				 * move that did not happen must not be taken
				 * off a later one. */
				t->kt.ev_lag = 0;
				continue;
			}
			t->kt.ev_retry_ns = now + EV_RETRY_FIRST_NS;
		}
		if (t->kt.ev_timed)
			to_timer(sp, t);
		/* A thread is born with every signal blocked (glibc's
		 * pthread_create unblocks them as it starts): it is looked
		 * at again, less and less often, until it takes one. */
		if (!now)
			now = now_ns();
		if (now >= t->kt.ev_retry_ns) {
			t->kt.ev_backoff_ns = t->kt.ev_backoff_ns ? t->kt.ev_backoff_ns * 2 : EV_RETRY_FIRST_NS;
			if (t->kt.ev_backoff_ns > EV_RETRY_MAX_NS)
				t->kt.ev_backoff_ns = EV_RETRY_MAX_NS;
			t->kt.ev_retry_ns = now + t->kt.ev_backoff_ns;
			if (ktrigger_open(&sp->ktrig, t, true) == 0) {
				/* The timer's samples so far share the CPU
				 * time so far; the event's each have their own. */
				if (thread_sched(t) == 0) {
					t->kt.ev_run0 = t->st->run_mark;
					if (sp->cputime && t->st->unsettled)
						settle(sp, t);
				}
				continue;
			}
		}
		need = true;
	}
	if (need == sp->timer_armed)
		return;
	sp->timer_armed = need;
	if (!need) {
		clear_timers(sp);
		return;
	}
	*next_n = tick_next(sp->t0, sp->period_ns, now_ns());
	*taken_n = *next_n ? *next_n - 1 : 0;
	set_timer(sp, *next_n);
	set_timer(sp, *next_n + 1);
}
