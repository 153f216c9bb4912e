/* session.h - the ptrace relationship with the target: launch or attach,
 * threads, every ptrace event, signals to ctprof, and detach.
 *
 * One owner of waitpid(-1, __WALL): every stop of every thread goes through
 * session_reap(), which re-injects each signal exactly once, honours
 * group-stops with PTRACE_LISTEN, seizes new threads, lets go of threads
 * that exit, and hands a thread that was interrupted for a sample to the
 * sampler's capture callback before resuming it.
 */
#ifndef CTPROF_SESSION_H
#define CTPROF_SESSION_H

#include "capture.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* A traced process: the target, and with --follow-forks every process
 * forked from it.  Kept until session_release, even after it exits. */
struct process {
	pid_t pid;
	char comm[64];
	size_t nthreads;        /* its threads now traced */
	bool exec_seen;         /* it exec'd: new address space; the sampler
	                         * clears this once it has taken note */
	bool exited;            /* its leader's exit status has been reaped */
	void *priv;             /* the sampler's per-process state */
};

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

struct thread {
	pid_t tid;
	struct process *proc;
	int stat_fd;            /* /proc/PID/task/TID/stat, kept open */
	bool listening;         /* in a group-stop, resumed with PTRACE_LISTEN */
	bool sample_wanted;     /* interrupted for a sample: its next stop is one */
	bool exiting;           /* reported PTRACE_EVENT_EXIT */
	uint64_t interrupt_ns;
	uint64_t start_ip;      /* a thread made by clone: the PC it starts
	                         * at, its creator's at the clone (0: unknown) */
	bool signaled;          /* a signal was delivered to it: it may be
	                         * in a handler */
	bool seized_running;    /* found running when ctprof attached: it
	                         * may have been in a handler already */
	/* The kernel-timed trigger (ktrigger.h). */
	int ev_fd;              /* its event, -1: none (timer path) */
	int ev_num;             /* ... the event's descriptor number, kept
	                         * after it is closed to know its signals */
	int ev_sig;             /* ... the signal it sends, 0: never had one */
	bool ev_timed;          /* its CPU time is its event's samples' and
	                         * its [kernel] row's, not the timer's */
	int kr_fd;              /* its kernel-mode ring's event, -1: none */
	unsigned char *kr_map;  /* ... the ring, kr_len bytes mapped */
	size_t kr_len;
	bool kr_used;           /* ... it had one: its kernel time is sampled */
	bool kr_refused;        /* ... it was refused one */
	bool ev_full, kr_full;  /* its event's and ring's period is whole */
	uint64_t kr_first_ns;   /* its ring's first period */
	uint64_t kr_short_end;  /* ... the ring's records before this offset
	                         * came at that period (kr_full set since) */
	uint64_t kr_thin;       /* ... of which one is kept a whole period of
	                         * their time (ktrigger_drain()) */
	unsigned ev_sigs;       /* ... every signal its event was routed to,
	                         * as bits 1 << sig */
	uint64_t ev_check_ns;   /* ... when to see if it blocks the signal
	                         * (born with all blocked), 0: done */
	uint64_t ev_look_ns;    /* ... when it was last seen to take it */
	uint64_t ev_look_count; /* ... its event's count then */
	uint64_t ev_look_samples; /* ... and its samples */
	uint64_t ev_sampled_count; /* ... its count when last seen sampled */
	uint64_t ev_lag;        /* ... its CPU time since then, once it is
	                         * seen to block the signal: the timer's */
	int unstick;            /* at the end: taking a signal of its event
	                         * that it blocked; 1 interrupted, 2 resumed
	                         * with the signal unblocked */
	uint64_t saved_mask;    /* ... its own mask meanwhile */
	uint64_t ev_run0;       /* ... its CPU time as its event started */
	uint64_t ev_samples;    /* ... the samples it gave since */
	uint64_t ev_user_ns;    /* ... the CPU time in user mode they stand
	                         * for (lost ones too): not the [kernel] row's */
	uint64_t ev_retry_ns;   /* ... blocked them all: when to look again */
	uint64_t ev_backoff_ns; /* ... and the wait after that */

	/* The sampler's, for wall-clock mode and CPU-time weighting. */
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

/* Called while thread T is stopped for a sample; it captures registers and
 * stack and nothing else.  Returns the capture (its stall_ns is filled in
 * once T runs again), or NULL if nothing was captured. */
typedef struct capture *(*sample_fn)(void *arg, struct thread *t);
/* Called while thread T is stopped at its exit (PTRACE_EVENT_EXIT). */
typedef void (*exit_fn)(void *arg, struct thread *t);

struct session {
	pid_t pid;              /* the target's thread group id */
	bool launched;          /* we started it: it is our child */
	bool follow_forks;      /* trace the processes it forks */
	char comm[64];
	struct process **procs; /* [0] is the target */
	size_t nprocs, proccap;
	struct thread *threads; /* of every process */
	size_t nthreads, cap;
	size_t threads_seen;
	int sigfd;              /* SIGCHLD and the stop signals, read here */
	uint64_t resume_ns;     /* time in PTRACE_CONT after a sample */
	uint64_t sample_ns;     /* ... and in the on_sample callback */
	uint64_t spin_ns, sleep_ns; /* session_wait_samples(), less those
	                             * and other_ns */
	sigset_t old_mask;
	struct rlimit old_nofile; /* RLIMIT_NOFILE as ctprof started */
	bool nofile_raised;     /* ... and raised since, not for a command */

	sample_fn on_sample;
	/* The kernel-timed trigger, NULL if not in use: each thread's
	 * event is opened as it is added and closed as it goes, and a stop
	 * for its signal is a sample, taken by ON_TIMED (same contract as
	 * on_sample) and resumed with the signal suppressed. */
	struct ktrigger *ktrig;
	sample_fn on_timed;
	unsigned long timed_stops;
	exit_fn on_exit;        /* NULL: nothing to do at a thread's exit */
	void *sample_arg;
	unsigned waiting;       /* threads interrupted whose stop has not come */
	pid_t tracer;           /* the thread of ctprof that traces them */
	bool detaching;
	bool sample_group_stops; /* a sample asked of a thread in a group stop
	                          * is taken before it listens again (dump) */

	/* What happened, for the sampler and main. */
	bool exited;            /* the target has exited */
	int exit_status;        /* its wait status */
	int stop_signal;        /* SIGINT/SIGTERM/SIGHUP/SIGQUIT asked us to stop */
	unsigned long lost;     /* interrupted threads that could not be sampled */
	bool resumed_after_stop; /* SIGCONT: ctprof had been stopped; the ticks
	                         * of that time are not missed ones */
	unsigned long signals_forwarded;
	/* Stops ctprof did not ask for (the target's signals, clones, execs
	 * and exits): how many, and the time from the wait that returned
	 * each to its resume.  ptrace costs that at any rate: the throttle
	 * leaves it out. */
	unsigned long other_stops;
	uint64_t other_ns;
};

/* Block the signals ctprof reads from its signalfd.  Call first. 0 or -errno.
 * With FOLLOW_FORKS, the processes the target forks from now on are traced
 * and profiled too; otherwise they run untraced. */
int session_init(struct session *s, bool follow_forks);

/* Is sampling over: the target exited (and, following forks, every
 * process forked from it too), or nothing is left to trace? */
bool session_done(const struct session *s);

/* Seize every thread of PID.  On failure, print why (one line) and return
 * -1 with nothing left attached. */
int session_attach(struct session *s, pid_t pid);

/* Start ARGV traced from its exec.  On failure, print why and return -1
 * with *status set to the exit status to use (125, 126 or 127). */
int session_launch(struct session *s, char **argv, int *status);

/* The traced thread TID, or NULL. */
struct thread *session_thread(struct session *s, pid_t tid);

/* Handle every wait status that is ready, without blocking.  Returns the
 * number handled. */
int session_reap(struct session *s);

/* Read what is pending on the signalfd and act on it.  Returns true if
 * a SIGCHLD was among it. */
bool session_read_signals(struct session *s);

/* Ask running thread T to stop for a sample (PTRACE_INTERRUPT); its stop
 * is handled by session_wait_samples().  0, or -1 if the thread is gone. */
int session_interrupt(struct session *s, struct thread *t);

/* Wait until every interrupted thread but UPTO has stopped and been
 * sampled, or WAIT_NS passed, or UNTIL_FD (if not -1: a timer) became
 * readable; a stop that comes later is sampled when it is reaped.  First
 * poll for up to SPIN_NS without sleeping: only when no interrupted thread
 * needs ctprof's CPU to get to its stop. */
void session_wait_samples(struct session *s, uint64_t spin_ns, uint64_t wait_ns, int until_fd,
			  unsigned upto);

/* Give up the samples asked for more than AGE_NS ago (a thread stuck in
 * the kernel): counted as lost; their stops are just resumed. */
void session_drop_stale(struct session *s, uint64_t age_ns);

/* The kernel-timed trigger's end: close every thread's event, then take
 * the signals those events queued before they closed, so that none
 * reaches the program.  Waits at most WAIT_NS for threads that have one
 * pending (blocked, it comes when they unblock).  Returns the threads
 * still holding one. */
unsigned session_close_events(struct session *s, uint64_t wait_ns);

/* Let go of every thread and leave the process running (or stopped, if it
 * was group-stopped), with any pending signal delivered.  Then unblock the
 * signals ctprof was reading. */
void session_detach(struct session *s);

/* Let go of every thread without a stop, and leave the process as
 * session_detach() does: the stops asked for already are waited for, and
 * their threads detached there; the calling thread, the tracer (ctprof's
 * main thread), must then exit, and the kernel lets go of the others as
 * they are (exit_ptrace()): a thread that was group-stopped stays so, one
 * in a signal-delivery stop gets its signal.  A stop asked for only to detach ends a write that waits
 * for room short, as any stop does. */
void session_let_go(struct session *s);

/* Launch mode, after detach: wait for the command to exit and return its
 * wait status; SIGTERM and SIGHUP are passed on meanwhile. */
int session_wait_child(struct session *s);

void session_release(struct session *s);

#endif
