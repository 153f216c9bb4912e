/* kick.c - see kick.h.
 *
 * Each CPU has a slot shared by the sampler and that CPU's helper, on a
 * cache line of its own.  Its state word says which tick it is about and
 * where that tick stands:
 *
 *   HELD(n)     the helper took the CPU at tick n and spins
 *   FREE(n)     the sampler is done with the CPU for tick n (or did not
 *               need it): a helper that sees it sleeps at once
 *   GAVEUP(n)   the helper held as long as it may and left
 *
 * The helper moves a slot to HELD(n) and from HELD(n) to GAVEUP(n); the
 * sampler moves it to FREE(n).  Both use compare-and-swap where the other
 * side may move it at the same moment, so each knows what the other saw.
 *
 * The helper sleeps with FUTEX_WAIT_BITSET, whose timeout is absolute on
 * CLOCK_MONOTONIC: the timer is queued on the helper's own CPU (it is
 * pinned there), and real-time threads sleep with no timer slack, so it
 * fires at the tick on that CPU.  The same futex word wakes it early, to
 * end or to leave its park.
 *
 * Beside that timer, two timerfds that nothing reads (the shadows) are
 * set for the next two ticks, each when it has fired, two ticks ahead.
 * Setting a timer that comes before every other one on the CPU writes the
 * TSC deadline MSR, a VM exit, and so did each
 * sleep until the next tick: the interrupt of a tick programs the device
 * for the next timer queued, which was the kernel's own tick, and the
 * sleep then reprogrammed it for ours.  With the shadow of the next tick
 * queued, the interrupt programs it, and the sleep's timer, due at the
 * same nanosecond, programs nothing; both fire in one interrupt
 * (docs/DESIGN.md, "Timers on a VM").
 */
#define _GNU_SOURCE
#include "kick.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* The longest a helper keeps its CPU in one tick: KICK_HOLD_NS (from 100
 * Hz up, less above 1250 Hz: a quarter of the period), or below 100 Hz a
 * KICK_HOLD_SHARE-th of the period up to KICK_HOLD_LONG_NS (kicker_init()). */
#define KICK_HOLD_NS 200000ULL
#define KICK_HOLD_SHARE 50
#define KICK_HOLD_LONG_NS 2000000ULL
/* A helper not needed for this long parks. */
#define KICK_PARK_NS 50000000ULL

/* PH_ASKING: held, and the sampler is asking the CPU's threads to stop
 * (kicker_claim()): the helper does not give up then, unless the hold
 * has lasted KICK_ASK_MAX times hold_max_ns. */
enum { PH_NONE, PH_HELD, PH_FREE, PH_GAVEUP, PH_ASKING };
#define KICK_ASK_MAX 2
#define STATE(n, ph) (((n) << 2) | (uint64_t)(ph))

struct kick_slot {
	_Atomic uint64_t state;
	_Atomic uint64_t since_ns;      /* when the helper took the CPU */
	_Atomic uint32_t wake;          /* futex word: changed to wake the helper */
	_Atomic int parked;
	_Atomic uint64_t unneeded;      /* ticks in a row it was not needed */
	_Atomic int tid;                /* the helper's thread id, once it runs */
	int sched_fd;                   /* its /proc/self/task/TID/sched, -1 until needed */
	int shadow[2];                  /* the helper's: tick n's is shadow[n & 1] ... */
	uint64_t shadow_n[2];           /* ... set for this tick ... */
	uint64_t shadow_at[2];          /* ... at this time (0: not set) */
	struct kicker *k;
	pthread_t thread;
	int cpu;
	bool started, unusable;
} __attribute__((aligned(64)));

/* Sleep while *WORD is VAL, until the absolute CLOCK_MONOTONIC time
 * UNTIL_NS (0: no limit). */
static void futex_wait_until(_Atomic uint32_t *word, uint32_t val, uint64_t until_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(until_ns / 1000000000ULL),
		.tv_nsec = (long)(until_ns % 1000000000ULL),
	};

	syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, val, until_ns ? &ts : NULL, NULL,
		FUTEX_BITSET_MATCH_ANY);
}

/* Set the shadow of tick N to AT, unless it is so already. */
static void shadow_set(struct kick_slot *s, uint64_t n, uint64_t at)
{
	int i = (int)(n & 1);

	if (s->shadow[i] < 0 || s->shadow_at[i] == at)
		return;
	if (timerfd_set_at(s->shadow[i], at) == 0) {
		s->shadow_n[i] = n;
		s->shadow_at[i] = at;
	}
}

static void shadows_clear(struct kick_slot *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->shadow[i] >= 0 && s->shadow_at[i])
			shadow_set(s, (uint64_t)i, 0);
	}
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static uint64_t park_after(const struct kicker *k)
{
	uint64_t n = KICK_PARK_NS / k->period_ns;

	return n < 4 ? 4 : n;
}

/* Hold the CPU for tick N (woken at NOW, meant to wake at T) until the
 * sampler frees it, or until hold_max_ns after T at most, half of that
 * after NOW if that is later; KICK_ASK_MAX - 1 times hold_max_ns longer
 * if the sampler has begun to ask the CPU's threads to stop. */
static void hold(struct kick_slot *s, uint64_t n, uint64_t t, uint64_t now)
{
	uint64_t hold_max = s->k->hold_max_ns;
	uint64_t cur = atomic_load(&s->state), deadline = t + hold_max, last;

	/* Woken late: the thread it preempts ran kernel code that does not
	 * give way to a woken thread until it sleeps or returns to user
	 * space.  The sampler waits for the take until hold_max_ns after T
	 * (kicker_wait_hold()), and has at least half of that to claim it. */
	if (deadline < now + hold_max / 2)
		deadline = now + hold_max / 2;
	last = deadline + (KICK_ASK_MAX - 1) * hold_max;

	/* Not needed at this tick; or, if the sampler has not yet said,
	 * not at the last one either: no CPU is taken on a guess that the
	 * sampler will come late for. */
	if (cur == STATE(n, PH_FREE) || atomic_load(&s->unneeded))
		return;
	atomic_store(&s->since_ns, now);
	if (!atomic_compare_exchange_strong(&s->state, &cur, STATE(n, PH_HELD)))
		return;         /* freed just now */
	for (;;) {
		cur = atomic_load_explicit(&s->state, memory_order_acquire);
		if (cur != STATE(n, PH_HELD) && cur != STATE(n, PH_ASKING))
			return;
		now = now_ns();
		/* Given up only while the sampler is not asking, unless it
		 * stalls there (a stop request does not take that long). */
		if ((now > deadline && cur == STATE(n, PH_HELD)) || now > last) {
			if (atomic_compare_exchange_strong(&s->state, &cur, STATE(n, PH_GAVEUP)))
				return;
			continue;
		}
		__builtin_ia32_pause();
	}
}

static void *helper_main(void *arg)
{
	struct kick_slot *s = arg;
	struct kicker *k = s->k;
	uint64_t last = 0;
	bool served = false;
	sigset_t all;

	atomic_store(&s->tid, (int)syscall(SYS_gettid));
	/* Without them, a helper works as well, at a write more a tick. */
	for (int i = 0; i < 2; i++) {
		s->shadow[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		s->shadow_at[i] = 0;
	}
	/* Signals are ctprof's main thread's to read (signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		uint32_t w = atomic_load(&s->wake);
		uint64_t now, n, t, delay;

		if (atomic_load(&k->quit))
			break;
		if (atomic_load(&s->unneeded) >= park_after(k)) {
			/* Parked: checked again after saying so, so that a
			 * sampler that needs it now either sees it parked or
			 * is seen to need it. */
			atomic_store(&s->parked, 1);
			shadows_clear(s);
			if (atomic_load(&s->unneeded) >= park_after(k))
				futex_wait_until(&s->wake, w, 0);
			atomic_store(&s->parked, 0);
			continue;
		}
		now = now_ns();
		delay = atomic_load(&k->delay_ns);
		n = tick_next(k->start_ns, k->period_ns, now - delay);
		/* A longer delay must not bring back the tick just served. */
		if (served && n <= last)
			n = last + 1;
		if (n < atomic_load(&k->from_n))
			n = atomic_load(&k->from_n);
		t = tick_time(k->start_ns, k->period_ns, n) + delay;
		/* Set for this tick with the delay of one tick before, the
		 * shadow is not moved: it is the next timer on the CPU, and
		 * setting that one again is two writes, one to take it out
		 * and one to put it back.  The helper wakes at it instead,
		 * a delay step (a microsecond or three) off. */
		if (s->shadow_at[n & 1] && s->shadow_n[n & 1] == n && s->shadow_at[n & 1] > now)
			t = s->shadow_at[n & 1];
		else if (t > now)
			shadow_set(s, n, t);
		shadow_set(s, n + 1, tick_time(k->start_ns, k->period_ns, n + 1) + delay);
		futex_wait_until(&s->wake, w, t);
		now = now_ns();
		if (now < t || atomic_load(&k->quit))
			continue;       /* woken early: to end, or to look again */
		/* Far too late (the CPU was held by something above us): the
		 * sampler has given up on this tick already. */
		if (now - t < k->hold_max_ns && n >= atomic_load(&k->from_n))
			hold(s, n, t, now);
		last = n;
		served = true;
	}
	for (int i = 0; i < 2; i++)
		if (s->shadow[i] >= 0)
			close(s->shadow[i]);
	return NULL;
}

int kicker_init(struct kicker *k, uint64_t start_ns, uint64_t period_ns, int prio)
{
	memset(k, 0, sizeof(*k));
	k->start_ns = start_ns;
	k->period_ns = period_ns;
	/* ctprof comes later to a tick the longer it slept before it, and a
	 * helper that gives up before the stops are asked for costs the
	 * sample (the sampler's put_off()): at low rates a hold of 200 us
	 * was given up often enough to skew a profile (docs/DESIGN.md,
	 * "Waking at the tick"). */
	k->hold_max_ns = period_ns / KICK_HOLD_SHARE;
	if (k->hold_max_ns > KICK_HOLD_LONG_NS)
		k->hold_max_ns = KICK_HOLD_LONG_NS;
	if (k->hold_max_ns < KICK_HOLD_NS)
		k->hold_max_ns = KICK_HOLD_NS;
	if (k->hold_max_ns > period_ns / 4)
		k->hold_max_ns = period_ns / 4;
	k->prio = prio;
	k->ncpus = get_nprocs_conf();
	if (k->ncpus < 1)
		k->ncpus = 1;
	k->slots = aligned_alloc(64, (size_t)k->ncpus * sizeof(*k->slots));
	if (!k->slots)
		return -ENOMEM;
	memset(k->slots, 0, (size_t)k->ncpus * sizeof(*k->slots));
	for (int i = 0; i < k->ncpus; i++) {
		k->slots[i].k = k;
		k->slots[i].cpu = i;
		k->slots[i].sched_fd = -1;
	}
	atomic_store(&k->quit, false);
	return 0;
}

/* Start the helper of slot S: pinned to its CPU, SCHED_FIFO.  A CPU that
 * ctprof may not run on is marked unusable; a refused priority disables
 * the kicker (the sampler then works without holds). */
static bool start_helper(struct kicker *k, struct kick_slot *s)
{
	struct sched_param sp = { .sched_priority = k->prio };
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	err = pthread_create(&s->thread, &attr, helper_main, s);
	pthread_attr_destroy(&attr);
	if (err == EINVAL) {
		verbose_msg("no preempting helper on CPU %d: ctprof may not run there", s->cpu);
		s->unusable = true;
		return false;
	}
	if (err) {
		verbose_msg("no preempting helpers (%s): samples land where threads next leave the kernel",
			    strerror(err));
		k->disabled = true;
		return false;
	}
	s->started = true;
	k->helpers++;
	return true;
}

void kicker_set_delay(struct kicker *k, uint64_t ns)
{
	atomic_store(&k->delay_ns, ns);
}

bool kicker_want(struct kicker *k, int cpu)
{
	struct kick_slot *s;

	if (k->disabled || cpu < 0 || cpu >= k->ncpus || k->slots[cpu].unusable)
		return false;
	s = &k->slots[cpu];
	atomic_store(&s->unneeded, 0);
	if (!s->started) {
		/* It sleeps until the next tick: this one goes without. */
		start_helper(k, s);
		return false;
	}
	if (atomic_load(&s->parked)) {
		atomic_fetch_add(&s->wake, 1);
		futex_wake_all(&s->wake);
		return false;
	}
	return true;
}

void kicker_from(struct kicker *k, uint64_t n)
{
	atomic_store(&k->from_n, n);
}

void kicker_skip(struct kicker *k, int cpu, uint64_t n)
{
	struct kick_slot *s;

	if (cpu < 0 || cpu >= k->ncpus || !k->slots[cpu].started)
		return;
	s = &k->slots[cpu];
	atomic_store(&s->state, STATE(n, PH_FREE));
	atomic_fetch_add(&s->unneeded, 1);
}

bool kicker_wait_hold(struct kicker *k, int cpu, uint64_t n, uint64_t deadline_ns, uint64_t *since_ns)
{
	struct kick_slot *s = &k->slots[cpu];
	uint64_t st;

	for (;;) {
		st = atomic_load_explicit(&s->state, memory_order_acquire);
		if (st == STATE(n, PH_HELD)) {
			*since_ns = atomic_load(&s->since_ns);
			return true;
		}
		if (st == STATE(n, PH_GAVEUP))
			return false;
		/* Given up on: a helper that comes after this does not
		 * take the CPU, rather than hold it for nothing. */
		if (now_ns() > deadline_ns) {
			if (atomic_compare_exchange_strong(&s->state, &st, STATE(n, PH_FREE)))
				return false;
			continue;
		}
		__builtin_ia32_pause();
	}
}

bool kicker_claim(struct kicker *k, int cpu, uint64_t n)
{
	struct kick_slot *s = &k->slots[cpu];
	uint64_t cur = STATE(n, PH_HELD);

	return atomic_compare_exchange_strong(&s->state, &cur, STATE(n, PH_ASKING));
}

bool kicker_let_go(struct kicker *k, int cpu, uint64_t n)
{
	struct kick_slot *s = &k->slots[cpu];
	uint64_t cur = STATE(n, PH_ASKING);

	if (atomic_compare_exchange_strong(&s->state, &cur, STATE(n, PH_FREE)))
		return true;
	cur = STATE(n, PH_HELD);
	if (atomic_compare_exchange_strong(&s->state, &cur, STATE(n, PH_FREE)))
		return true;
	atomic_store(&s->state, STATE(n, PH_FREE));
	return false;
}

int kicker_exec_start(struct kicker *k, int cpu, uint64_t *ns)
{
	struct kick_slot *s = &k->slots[cpu];

	if (s->sched_fd < 0) {
		int tid = atomic_load(&s->tid);

		if (!tid)
			return -1;
		s->sched_fd = proc_open_task_sched(getpid(), tid);
	}
	return proc_exec_start(s->sched_fd, ns);
}

uint64_t kicker_cpu_ns(const struct kicker *k)
{
	uint64_t ns = 0;

	for (int i = 0; k->slots && i < k->ncpus; i++) {
		struct timespec ts;
		clockid_t id;

		if (k->slots[i].started && pthread_getcpuclockid(k->slots[i].thread, &id) == 0 &&
		    clock_gettime(id, &ts) == 0)
			ns += (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	}
	return ns;
}

void kicker_release(struct kicker *k)
{
	int i;

	if (!k->slots)
		return;
	atomic_store(&k->quit, true);
	for (i = 0; i < k->ncpus; i++) {
		struct kick_slot *s = &k->slots[i];

		if (!s->started)
			continue;
		atomic_fetch_add(&s->wake, 1);
		futex_wake_all(&s->wake);
		pthread_join(s->thread, NULL);
		s->started = false;
		if (s->sched_fd >= 0)
			close(s->sched_fd);
	}
	free(k->slots);
	k->slots = NULL;
}
