/* kick.h - real-time helpers that take each CPU from the target at the
 * tick, so that a thread is asked to stop while it is preempted.
 *
 * Why: PTRACE_INTERRUPT marks a stop pending and then sends an IPI to the
 * thread's CPU; the first return to user space after the mark takes the
 * stop.  On a VM the IPI takes tens of microseconds, so a thread that
 * enters the kernel more often than that (a system call, a page fault) is
 * sampled at its kernel exits.  A thread that is already off its CPU when
 * the stop is asked for stops exactly where it was preempted, and a
 * preemption caused by a timer interrupt on the thread's own CPU lands
 * wherever the thread happens to be.  The sampler moving itself onto the
 * thread's CPU first does not help: the move too reaches that CPU by an
 * IPI, after any system call exit that comes first (docs/DESIGN.md,
 * "Stops and copies").
 *
 * So each CPU a target thread runs on gets a helper thread, pinned there,
 * SCHED_FIFO one step below the sampler, that sleeps until the tick on its
 * own CPU's timer.  Waking, it preempts whatever runs there and holds the
 * CPU (a bounded spin) until the sampler has asked that CPU's threads to
 * stop and releases it; then it sleeps again and the threads run into
 * their stops.  The sampler wakes at the tick too and reads which threads
 * were running once the helpers hold the CPUs (see ready_at_tick() in
 * sampler/interrupt.c); it has the helpers wake a little after the tick, when it
 * is about to come (follow_arrival() there, kicker_set_delay()).  Where
 * the kernel cannot tell it that, it wakes a little before the tick (the
 * lead) to read them, and is ready when the helpers hold their CPUs.
 *
 * Helpers, and not the sampler itself on the thread's CPU (ptrace
 * requests must come from the one tracing thread, so it would have to
 * keep to that CPU, with the unwinding on a thread of its own elsewhere):
 * a thread that ptrace resumes while its tracer runs on its CPU is woken
 * onto an idle CPU if there is one, so the target moves and the sampler
 * follows, and every system call of the sampler's tick runs on the
 * target's CPU (docs/DESIGN.md, "The helpers").
 *
 * A thread's CPU is held only while its code may enter the kernel
 * ("Holding only where it counts" in sampler/hold.c): a hold costs the
 * thread's CPU its helper's wake-up, two switches and the hold.
 *
 * Not kept either: the helper keeping its CPU busy through the stop, so
 * that the resume need not wake a halted vCPU (docs/DESIGN.md, "The
 * helpers": no faster on every host, and dearer in the helper's CPU);
 * and no helper at all, a task-clock perf event per thread that signals
 * the thread itself, which is now the kernel-timed trigger, ktrigger.h
 * (docs/DESIGN.md, "Cost").
 *
 * Bounds: a helper holds its CPU at most KICK_HOLD_NS per tick (less
 * at high rates: a quarter of the period; more below 100 Hz, a
 * KICK_HOLD_SHARE-th of it up to KICK_HOLD_LONG_NS), whether or not the
 * sampler comes, and twice that if the sampler has claimed the hold
 * (kicker_claim()) and not yet let go; a helper that is not needed for a
 * while parks on a futex and costs nothing; helpers are threads of
 * ctprof, so they die with it, SIGKILL included.
 */
#ifndef CTPROF_KICK_H
#define CTPROF_KICK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct kick_slot;

struct kicker {
	uint64_t start_ns;              /* tick n is at tick_time(start_ns, period_ns, n) */
	uint64_t period_ns;             /* (CLOCK_MONOTONIC) */
	uint64_t hold_max_ns;           /* a helper holds its CPU this long at most */
	int prio;                       /* the helpers' SCHED_FIFO priority */
	int ncpus;
	struct kick_slot *slots;        /* [cpu], helpers started on demand */
	bool disabled;                  /* a helper could not be started */
	_Atomic bool quit;              /* helpers: end */
	_Atomic uint64_t delay_ns;      /* helpers wake this long after the tick */
	_Atomic uint64_t from_n;        /* ... and hold for no tick before this */
	unsigned helpers;               /* helper threads started, for -v */
};

/* Set up for ticks at START_NS + n * PERIOD_NS, helpers at SCHED_FIFO
 * priority PRIO; no thread starts yet.  0 or -errno. */
int kicker_init(struct kicker *k, uint64_t start_ns, uint64_t period_ns, int prio);

/* The coming tick will stop a thread on CPU: make sure its helper holds
 * it at the tick.  Returns true if the helper is ready to; false if it
 * has just been started or woken from its park (it holds from the next
 * tick on) or cannot be (this tick's stop is then asked for without a
 * hold). */
bool kicker_want(struct kicker *k, int cpu);

/* From now on the helpers take their CPUs NS after each tick (see
 * follow_arrival() in sampler/interrupt.c). */
void kicker_set_delay(struct kicker *k, uint64_t ns);

/* The ticks before N are left out (the sampler's throttle): no helper
 * holds its CPU for them, nor wakes up for them once it has seen this. */
void kicker_from(struct kicker *k, uint64_t n);

/* The se.exec_start of CPU's helper (proc_exec_start()), into *NS: 0, or
 * -1 if not known (the helper has not started yet). */
int kicker_exec_start(struct kicker *k, int cpu, uint64_t *ns);

/* Nothing on CPU needs holding at tick N: its helper, if any, goes back to
 * sleep as soon as it wakes (or parks, if this goes on). */
void kicker_skip(struct kicker *k, int cpu, uint64_t n);

/* Wait until the helper of CPU holds it for tick N, at most until
 * DEADLINE_NS (CLOCK_MONOTONIC).  Returns true, with *SINCE_NS the time it
 * took the CPU, or false: the helper has given up, or if it comes later,
 * it does not take the CPU. */
bool kicker_wait_hold(struct kicker *k, int cpu, uint64_t n, uint64_t deadline_ns, uint64_t *since_ns);

/* CPU's helper holds it for tick N: keep it so, past its own limit if
 * need be, until kicker_let_go(), while its threads are asked to stop.
 * False if the helper has given up (its threads run). */
bool kicker_claim(struct kicker *k, int cpu, uint64_t n);
/* Let CPU go after tick N's stops were asked for.  Returns true if the
 * helper still held it then (the stops land where the threads were
 * preempted), false if it had given up (held longer than allowed). */
bool kicker_let_go(struct kicker *k, int cpu, uint64_t n);

/* The CPU time the helpers used so far, in nanoseconds. */
uint64_t kicker_cpu_ns(const struct kicker *k);
/* Stop and join every helper.  Safe on a kicker that started none. */
void kicker_release(struct kicker *k);

#endif
