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
#include "ktrigger.h"

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

struct sampler_thread;

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
	int unstick;            /* at the end: taking a signal of its event
	                         * that it blocked; 1 interrupted, 2 resumed
	                         * with the signal unblocked */
	uint64_t saved_mask;    /* ... its own mask meanwhile */
	struct ktrigger_thread kt; /* the kernel-timed trigger's (ktrigger.h) */
	struct sampler_thread *st; /* the sampler's, NULL outside its run
	                         * (sampler_init() to sampler_release()) */
};

/* Called while thread T is stopped for a sample; it captures registers and
 * stack and nothing else.  Returns the capture (its stall_ns is filled in
 * once T runs again), or NULL if nothing was captured. */
typedef struct capture *(*sample_fn)(void *arg, struct thread *t);
/* Called while thread T is stopped at its exit (PTRACE_EVENT_EXIT). */
typedef void (*exit_fn)(void *arg, struct thread *t);
/* What became of thread T: it appeared (before it runs), is forgotten
 * (gone, or the session ends), or took over its process with an exec
 * (now the leader: what was known of the thread that had its tid, and
 * of its old image, is stale). */
enum thread_event { THREAD_NEW, THREAD_GONE, THREAD_EXEC };
typedef void (*thread_fn)(void *arg, struct thread *t, enum thread_event ev);
/* Called as thread T's sample stop ended, at NS, T running again. */
typedef void (*resumed_fn)(void *arg, struct thread *t, uint64_t ns);

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
	thread_fn on_thread;    /* NULL: nothing kept for threads */
	resumed_fn on_resumed;  /* NULL: nothing to read after a resume */
	void *sample_arg;       /* what the callbacks above are given */
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
