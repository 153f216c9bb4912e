/* internal.h - what the files of the sampler (src/sampler/) share: their
 * functions, each file's under a line that says its job, and the system
 * headers they use.  The sampler's interface to the rest of ctprof is
 * ../sampler.h; its constants are in tunables.h.
 */
#ifndef CTPROF_SAMPLER_INTERNAL_H
#define CTPROF_SAMPLER_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../sampler.h"
#include "../cli.h"
#include "../proc.h"
#include "../syscalls.h"
#include "../util.h"
#include "tunables.h"

#include <asm/unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* --wall: a system call a thread was stopped blocked in, with its stack,
 * counted again without a stop while the thread waits there (sampler/wall.c,
 * still_waiting()). */
#define WAIT_SITES 4
#define SITE_WORDS 16
struct wait_site {
	uint64_t *frames;       /* the stack, the call its leaf; NULL: free */
	unsigned n;
	long nr;                /* the call (regs_syscall()) */
	bool restarted;         /* ... to go on as restart_syscall */
	bool cuts;              /* ... one that a stop would end short */
	uint64_t sp, pc;        /* ... and where it was made */
	unsigned nwords;        /* return addresses found in the stack copy, */
	uint64_t addr[SITE_WORDS]; /* ... where they were */
	uint64_t word[SITE_WORDS]; /* ... and what */
	uint64_t used;          /* the tick it was last counted at */
	uint64_t taken;         /* ... and its stack taken at */
};

/* The sampler's state of a thread (struct thread's st), for choosing,
 * holding, CPU-time weighting and wall-clock mode. */
struct sampler_thread {
	int schedstat_fd;       /* /proc/PID/task/TID/schedstat, -1 until needed */
	int sched_fd;           /* /proc/PID/task/TID/sched, -1 until needed */
	int syscall_fd;         /* /proc/PID/task/TID/syscall, the same */
	bool blocked_sample;    /* the sample asked for is of a blocked thread */
	bool woke_read;         /* --wall: ... that woke up as its wait was read */
	bool at_take;           /* ... of one seen on its CPU when the CPU was
	                         * taken at the tick (reading after it) */
	uint64_t unsettled;     /* samples taken since it was last settled */
	uint64_t run_mark;      /* its CPU time (schedstat) read for this sample */
	uint64_t run_ns;        /* its CPU time already in samples' weights */
	uint64_t sample_run;    /* its CPU time at its last sample */
	uint64_t run_first;     /* its CPU time when first seen */
	bool run_known;         /* run_ns and run_first are set */
	struct wait_site *sites; /* --wall: WAIT_SITES, NULL until the first */
	int site;               /* ... the one it waits in now, -1: none known */
	uint64_t uncut;         /* --wall: ticks it was left asleep in a call
	                         * that a stop would end short, for the
	                         * stack of that call's exit (sampler/wall.c) */
	long uncut_nr;          /* ... the call, */
	uint64_t uncut_sp, uncut_pc; /* ... and where it was made */
	long peek_nr;           /* --wall: the call whose stack could not be
	                         * walked without a stop (sampler/wall.c, */
	uint64_t peek_sp, peek_pc; /* peek_wait()), and where it was made */
	uint64_t slices_mark;   /* times it got a CPU, read with run_mark */
	uint64_t wait_mark;     /* time it waited for a CPU, read with run_mark */
	uint64_t stop_run;      /* its CPU time and time waiting for a CPU */
	uint64_t stop_wait;     /* ... as its last sample's stop ended, and */
	uint64_t resumed_ns;    /* ... when: all three 0 if not read */
	uint64_t stop_slices;   /* ... and the times it got a CPU then */
	uint64_t seen_run;      /* run_mark and wait_mark as the sampler */
	uint64_t seen_wait;     /* ... last looked at its waits */
	uint64_t last_slices;   /* ... unchanged while it waits */
	bool short_noted;       /* a stop found it at the exit of a write */
	uint64_t short_ip, short_sp, short_ret; /* ... that came back short: */
	uint64_t short_slices;  /* ... where, what, and slices_mark then */
	bool idle_known;        /* on-CPU: seen blocked, with idle_slices */
	uint64_t idle_slices;   /* ... it has not run while these stay */
	bool deferred;          /* ... read after the CPUs held at this
	                         * tick for the others were let go */
	uint64_t blocked_n;     /* on-CPU: 1 + the last tick it was seen
	                         * blocked at, 0 if never */
	uint64_t ran_n;         /* ... seen running, or to have run */
	uint64_t ask_run;       /* on-CPU: its CPU time (run_mark) when its
	                         * stop was asked for */
	uint64_t late_passed;   /* ... ticks passed since, the stop not taken */
	uint64_t late_ticks;    /* ... of which it ran through (see
	                         * late_tick() in sampler/cputime.c) */
	int last_cpu;           /* the CPU it was last seen on */
	uint64_t cpu_read_n;    /* ... 1 + the tick it was read at, 0 if never */
	uint64_t moved_n;       /* ... 1 + the last tick it was seen to have
	                         * moved to another CPU at, 0 if never */
	/* On-CPU with helpers: whether its stops need its CPU held (see
	 * "Holding only where it counts" in sampler/hold.c). */
	bool quiet;             /* seen to enter the kernel seldom: its stops
	                         * are asked for while it runs */
	bool asked_held;        /* the stop asked for found it off its CPU */
	bool probe;             /* ... is a probe: taken while it runs, to see
	                         * whether it is quiet, and not counted */
	unsigned held_since;    /* samples with its CPU held since its last probe */
	bool entered;           /* a stop found it entering the kernel, or its
	                         * page faults came too often, at least once */
	unsigned clean;         /* probes in a row that found no kernel entry */
	unsigned clean_need;    /* ... needed to call it quiet (0: the first) */
	uint64_t carry;         /* ticks of its stops not counted, for its
	                         * next sample */
	unsigned put_off;       /* ticks in a row its stop was put off, its
	                         * CPU not held, since its last held stop
	                         * (put_off() in sampler/hold.c) */
	bool faulting;          /* its page faults come too often */
	bool flt_known;         /* flt_mark and flt_run are set */
	uint64_t flt_mark;      /* its page faults (minor and major) ... */
	uint64_t flt_run;       /* ... and CPU time at the window's start */
};

/* sp->want[cpu]: its helper was asked to hold it, is holding it, held
 * it and let it go (WANT_GONE: its thread at the take was found); or it
 * is ctprof's own, which ctprof takes by waking there (WANT_SELF). */
enum { WANT_NONE, WANT_READY, WANT_UNREADY, WANT_HELD, WANT_SELF, WANT_GONE };

/* cputime.c: CPU-time weights: each thread's CPU time from its schedstat,
 * settled over its samples; the ticks a late stop ran through. */
int thread_sched(struct thread *t);
void run_known(struct thread *t);
uint64_t settle(struct sampler *sp, struct thread *t);
void settle_all(struct sampler *sp);
uint64_t settle_exiting(struct sampler *sp, struct thread *t);
void settle_rest(struct sampler *sp);
void late_tick(struct sampler *sp, struct thread *t);
uint64_t thread_cpu_ns(void);
uint64_t cpu_time_ns(void);

/* shortwrite.c: writes that a stop ended short: seen at the stop, counted for
 * the report. */
bool regs_in_syscall(const struct user_regs_struct *r);
void note_short_write(struct sampler *sp, struct thread *t, const struct user_regs_struct *r);
void count_short_writes(struct sampler *sp);

/* hold.c: whose stops want their CPU held by a helper at the tick: a thread
 * that enters the kernel, where a stop asked of it while it runs lands when
 * it leaves. */
bool wants_hold(const struct thread *t);
void note_faults(struct sampler *sp, struct thread *t, uint64_t faults);
bool judge_unheld(struct sampler *sp, struct thread *t, const struct user_regs_struct *r);
bool holding(const struct sampler *sp);
void count_unheld(struct sampler *sp, struct thread *t);
bool put_off(struct sampler *sp, struct thread *t);
void plan_holds(struct sampler *sp, uint64_t n);
void plan_first_holds(struct sampler *sp);

/* capture.c: a sample's capture: the registers, a copy of the stack and what
 * else its unwinding will need, taken while the thread is stopped, or from
 * its ring's record. */
void copy_stack(struct sampler *sp, struct target *tgt, struct capture *c);
bool copy_stack2(struct sampler *sp, struct capture *c, uint64_t from);
struct capture *next_capture(struct sampler *sp, struct target *tgt, struct thread *t);
struct capture *capture_thread(void *arg, struct thread *t);
struct capture *capture_timed(void *arg, struct thread *t);
void capture_ring(void *arg, struct thread *t, const struct ktrigger_sample *s);
bool capture_pending(const struct sampler *sp, const struct thread *t);
size_t capture_bytes(const struct sampler *sp);

/* go.c: Go's stacks: a goroutine's stack apart from the system stack that its
 * vDSO calls and signal handlers run on, and Go's first frames. */
bool copy_go_stack(struct sampler *sp, struct target *tgt, struct capture *c);
bool copy_go_interrupted(struct sampler *sp, struct target *tgt, struct capture *c);
bool go_top(struct target *tgt, uint64_t pc);

/* sigframe.c: stops in signal handlers: at a handler's first instruction, in
 * a sigreturn trampoline, on a stack of the handler's own, whose interrupted
 * stack is copied too. */
bool handler_entry(struct sampler *sp, struct target *tgt, struct capture *c);
bool in_sigreturn(struct sampler *sp, struct target *tgt, struct capture *c);
size_t scan_end(const struct capture *c, size_t off, size_t limit);
void copy_alt_interrupted(struct sampler *sp, struct target *tgt, struct thread *t, struct capture *c);

/* chain.c: a ring's tick's frames from the kernel's frame-pointer chain of
 * that moment, where the stack copied later no longer holds them. */
bool splice_chain(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max);
bool splice_signal(struct sampler *sp, struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max);
bool chain_on(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max);

/* count.c: unwinding the captures once the threads run again, and counting
 * their stacks; the rings emptied a batch at a time. */
void drain_thread(struct sampler *sp, struct thread *t, bool *epoch);
void drain_rings(struct sampler *sp);
bool not_held(struct sampler *sp, const struct capture *c);
void unwind_captures(struct sampler *sp);
void next_epoch(struct sampler *sp);

/* threads.c: the sampler's view of processes and threads: their unwinding
 * state, each thread's struct sampler_thread, names, kernel rows and
 * exits. */
struct target *target_of(struct sampler *sp, struct process *p, int *err);
void sampler_on_thread(void *arg, struct thread *t, enum thread_event ev);
void sampler_on_resumed(void *arg, struct thread *t, uint64_t ns);
void note_thread(struct sampler *sp, pid_t pid, pid_t tid);
size_t names_bytes(const struct sampler *sp);
void name_again(struct sampler *sp, pid_t pid, pid_t tid, bool add);
void kernel_row(struct sampler *sp, struct thread *t);
void thread_exits(void *arg, struct thread *t);
void drop_old_image(struct sampler *sp);

/* wall.c: --wall: a blocked thread's stack counted again at each tick,
 * without a stop, while it waits in the same call. */
struct wait_site *wait_now(const struct thread *t);
void count_again(struct sampler *sp, struct thread *t);
bool peek_wait(struct sampler *sp, struct thread *t, long nr, const uint64_t args[6], uint64_t wsp, uint64_t wpc);
void keep_uncut(struct thread *t, long nr, uint64_t wsp, uint64_t wpc, uint64_t ticks);
bool still_waiting(struct sampler *sp, struct thread *t, bool *left);
void find_callers(const struct capture *c, const uint64_t *pcs, unsigned n, struct wait_site *w);
void remember_wait(struct sampler *sp, const struct capture *c, const uint64_t *keys, unsigned n, const struct wait_site *found);
void forget_wait(struct sampler *sp, pid_t tid);
/* The stacks of the calls T waited in: none known.  Ticks kept for one
 * (still_waiting()) go to its next sample. */
void forget_waits(struct thread *t);

/* attick.c: reading after the tick: whether a thread read late was on its CPU
 * at the moment the tick meant (the run queue's clock, the helpers' takes,
 * its CPU arrivals). */
void add_pick(struct sampler *sp, struct thread *t, int cpu);
bool bursty(const struct sampler *sp, const struct thread *t);
bool add_late(struct sampler *sp, struct thread *t, int cpu, bool running);
uint64_t taken_at(const struct sampler *sp, int cpu);
bool awake_since_resume(const struct thread *t, uint64_t since);
int ran_at_tick(struct sampler *sp, struct thread *t, int cpu);
bool ends_short(struct thread *t);
bool slept_after_tick(struct sampler *sp, struct thread *t, int cpu);
void waits_for(struct sampler *sp, int cpu);
bool competing(const struct sampler *sp, uint64_t n);
void note_wait(struct sampler *sp, struct thread *t);
bool crowded(const struct sampler *sp, int cpu);

/* choose.c: which threads a timer tick stops: those that ran since their last
 * sample, as their stat files say without a stop. */
bool choose_thread(struct sampler *sp, struct thread *t);
bool choose(struct sampler *sp, bool idle, size_t *deferred);

/* interrupt.c: asking for the stops: PTRACE_INTERRUPT at the tick, on CPUs
 * the helpers hold (kick.h) or on ctprof's own, and ctprof dump's batches. */
/* Ask thread T to stop (session_interrupt()), noting its CPU time then:
 * 0, or -1 if it is gone. */
int ask_stop(struct sampler *sp, struct thread *t);
void late_picks(struct sampler *sp, int here, bool slept);
void ask_stops(struct sampler *sp, uint64_t n, int here, uint64_t here_since, size_t first, bool all);
void interrupt_picks(struct sampler *sp, uint64_t n, uint64_t t_ns, int here, uint64_t woke_ns);
uint64_t lead(const struct sampler *sp);
void interrupt_in_batches(struct sampler *sp);
void watch_idle(struct sampler *sp);
void ready_at_tick(struct sampler *sp, uint64_t n, uint64_t t_ns);
bool interrupt_at_tick(struct sampler *sp, uint64_t n, size_t deferred);
void start_kicking(struct sampler *sp, uint64_t t0);

/* tick.c: a timer tick's steps in order (choose, interrupt, capture, unwind
 * and count), and their pacing: the timerfds and the throttle. */
void tick(struct sampler *sp, uint64_t n, uint64_t t_ns, uint64_t woke_ns);
uint64_t throttle(struct sampler *sp, uint64_t n);
int set_timer(struct sampler *sp, uint64_t n);
void clear_timers(struct sampler *sp);

/* trigger.c: the choice of trigger at the start, the perf trigger's end, and
 * the threads its events do not time (the timer's, meanwhile). */
int start_trigger(struct sampler *sp);
void stop_trigger(struct sampler *sp);
void arm_for_untimed(struct sampler *sp, uint64_t *next_n, uint64_t *taken_n);

#endif
