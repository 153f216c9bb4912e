/* tunables.h - the sampler's constants: limits, waits and thresholds.
 *
 * Grouped by the docs/DESIGN.md section that gives their reasons; each
 * says what it bounds and the function that uses it.
 */
#ifndef CTPROF_SAMPLER_TUNABLES_H
#define CTPROF_SAMPLER_TUNABLES_H

/* ---- "The kernel-timed trigger" ---- */

/* The perf trigger's end: how long it waits for the signals its events
 * queued before they closed (a thread that blocks one takes it only
 * where it unblocks). */
#define STRAY_WAIT_NS 200000000ULL
/* ... and rings are emptied at least this often: a thread in the kernel
 * the whole time fills its ring (KTRIGGER_RING_PAGES) in some 30 ms at
 * 999 Hz. */
#define RING_DRAIN_NS 10000000ULL
/* ... and a thread that blocks every signal its event could send is
 * looked at again after this, then twice as long each time, up to
 * EV_RETRY_MAX_NS (arm_for_untimed()). */
#define EV_RETRY_FIRST_NS 1000000ULL
/* ... and a thread born with every signal blocked gets its event at once,
 * its mask looked at this long after its birth (glibc unblocks them as
 * the thread starts, within microseconds). */
#define EV_CHECK_NS 2000000ULL
/* ... and one that blocks it later (a worker in a long section) is seen
 * to: no sample in this long, its event's count past three periods, its
 * signal pending and blocked.  A read of each thread's count, a look at
 * its mask only for one that ran unsampled. */
#define EV_LOOK_NS 100000000ULL
#define EV_RETRY_MAX_NS 1000000000ULL
/* ---- "Stops and copies", "The helpers" ---- */

/* How long a tick waits for an interrupted thread to stop. */
#define STOP_TIMEOUT_NS 100000000ULL
/* How long it polls for the stops before it sleeps. */
#define SPIN_NS 200000ULL
/* How long, with a thread to stop on ctprof's own CPU, it polls for those
 * on held CPUs first. */
#define SPIN_HELD_NS 50000ULL
/* ---- "Signal handlers", "Unwinding without the usual CFI" ---- */

/* How far above SP a thread stopped in the vDSO is looked at for a return
 * address into Go's caller of it (copy_go_stack()): the vDSO's frames are
 * a few words. */
#define VDSO_SCAN 256
/* How far above SP a stop in Go's code is looked at for the kernel's
 * frame of a signal handler (copy_go_interrupted()). */
#define GO_SIGFRAME_SCAN 4096
/* How far above SP a stop in other code is looked at for the kernel's
 * frame of a handler that runs on a stack of its own (copy_alt_interrupted()):
 * such a stack is SIGSTKSZ (8192) to a few times that, the frame at its
 * top, and the handler's frames below it. */
#define ALT_SIGFRAME_SCAN 8192
/* The sizes of such a stack taken for one (MINSIGSTKSZ is 2048). */
#define ALT_STACK_MIN 2048
#define ALT_STACK_MAX (1ULL << 30)
/* The most captures from rings held before they are unwound. */
#define RING_BATCH 8
/* The unit in which a goroutine's stack is copied (copy_go_stack()). */
#define GO_STACK_PAGE 4096ULL
/* A new thread's first instructions, from where clone returns to the call
 * of its start function, lie within this many bytes (unwind_captures). */
#define CLONE_CHILD_SPAN 32
/* ---- ctprof dump ---- */

/* ctprof dump: threads asked to stop at a time, and the longest wait for
 * a batch (see interrupt_in_batches). */
#define DUMP_BATCH 4
#define DUMP_BATCH_WAIT_NS 20000000ULL
/* ---- "The helpers", "Waking at the tick" ---- */

/* Real-time priorities: the sampler outranks the helpers that take CPUs
 * from the target (kick.h), so that it can run on a CPU one of them
 * holds. */
#define SAMPLER_PRIO 2
#define HELPER_PRIO 1
/* The lead follows what ctprof's lateness and its reads before a tick
 * took lately, in steps of this. */
#define LEAD_STEP_NS 2000ULL
#define LEAD_FIRST_NS 50000ULL
/* ---- "CPU-time weights" ---- */

/* The thread id under which the CPU time of exited threads after their
 * last sample is counted (thread_exits). */
#define EXITED_TID 0
/* ---- "Where a stop lands", "Waking at the tick" ---- */

/* At most this many threads seen blocked before a tick are read again
 * at the tick (late_picks). */
#define LATE_MAX 16
/* A thread seen blocked within this many ticks runs in bursts. */
#define RECENT_TICKS 16
/* The throttle (throttle()): ticks are left out while ctprof's CPU time
 * per CPU the target runs on is more than a THROTTLE_SHARE-th of the
 * period, at most THROTTLE_MAX in a row (a thread seen running at a tick
 * taken is still recent, RECENT_TICKS, at the next one). */
#define THROTTLE_SHARE 4
#define THROTTLE_MAX 7
/* A thread that waited for a CPU at least this long, and a fifth of its
 * time, between two reads of it competes for CPUs (note_wait()). */
#define CROWD_WAIT_NS 100000ULL
/* ctprof sleeps until the tick, rather than spin, if it is this early. */
#define SLEEP_MIN_NS 10000ULL
/* Reading after the tick: a thread that last left a CPU this close
 * before the CPU was taken counts as taken off it then. */
#define AT_TICK_SLACK_NS 5000ULL
/* ... and one found asleep that left its CPU later than this after the
 * moment its CPU was meant to be taken was on it then, where the
 * difference of the run queue's clock to ctprof's is known from this
 * take alone (slept_after_tick()). */
#define SLEPT_MARGIN_NS 20000ULL
/* ... and one whose CPU's taker came onto it more than this after the
 * thread left it is not counted so (slept_after_tick()). */
#define SLEPT_FOLLOW_NS 150000ULL
/* The takes kept for rq_offset(), per CPU, and for how many ticks. */
#define RQ_OFFS 8
#define RQ_OFFS_TICKS 64
/* ... and one whose time since its last sample's resume is all CPU time
 * or waiting for one, but for this much and a 2^AWAKE_SLACK_SHIFT-th of
 * that time, did not sleep (awake_since_resume()). */
#define AWAKE_SLACK_NS 30000ULL
#define AWAKE_SLACK_SHIFT 8
/* Reading after the tick: a thread's CPU is read from its stat at least
 * once in this many ticks (see choose()). */
#define CPU_READ_TICKS 8
/* Reading after the tick: the helpers' delay (follow_arrival) moves in
 * steps of this, up to this much (and an eighth of the period). */
#define DELAY_STEP_NS 1000ULL
#define DELAY_MAX_NS 40000ULL
/* ... and there is a delay only while other programs ran on the
 * sampler's CPU at most a fifth of the last IDLE_WINDOW_NS (watch_idle()). */
#define IDLE_WINDOW_NS 200000000ULL
/* ---- "The helpers": holding only where it counts ---- */

/* Holding only where it counts (see judge_unheld()): a thread's stops
 * are held until CLEAN_FIRST probes in a row, each after PROBE_EVERY held
 * samples in a row outside system calls, found it outside the kernel;
 * the count doubles, up to CLEAN_MAX, each time such a thread is found
 * entering it after all. */
#define PROBE_EVERY 16
/* ... or PROBE_FIRST, before any stop found the thread in the kernel. */
#define PROBE_FIRST 4
#define CLEAN_FIRST 4
#define CLEAN_MAX 64
/* ... and a thread whose page faults come more often than once in
 * FAULT_GAP_NS of its CPU time, counted over FAULT_WINDOW_NS of it, is
 * held. */
#define FAULT_GAP_NS 4000000ULL
#define FAULT_WINDOW_NS 16000000ULL
/* ... and a stop that wants its CPU held, whose helper did not take it
 * at the tick, is put off this many times in a row at most (put_off()). */
#define PUT_OFF_MAX 4
/* ---- "Wall-clock mode" ---- */

/* --wall: a thread asleep in a write that a stop would end short, whose
 * stack cannot be taken without a stop, is left alone there for at most
 * 1/UNCUT_MAX_PER_S of a second (still_waiting()). */
#define UNCUT_MAX_PER_S 10
/* ---- "The helpers" ---- */

/* A CPU whose helper came too late this many ticks in a row is waited
 * for less long (wait_take()). */
#define MISSED_MAX 2

#endif
