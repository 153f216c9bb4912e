/* ktrigger.h - the kernel-timed trigger: each traced thread gets a
 * task-clock perf event whose overflow, in user mode, sends the thread a
 * signal of ctprof's choosing; the thread takes a signal-delivery stop
 * exactly where the timer interrupt found it, and the session hands that
 * stop to the sampler as a sample (docs/DESIGN.md, "The kernel-timed
 * trigger").
 *
 * The signal is one whose default action is to ignore it (SIGWINCH, else
 * SIGURG), routed to the thread by fasync (F_SETOWN_EX F_OWNER_TID,
 * F_SETSIG), never attr.sigtrap: if ctprof dies with one queued, the
 * target gets a signal it ignores rather than one that kills it.  SIGWINCH
 * first: a program's own signal of that number sent to the same thread
 * while ctprof's is pending is merged into it and lost, and Go sends
 * SIGURG to its threads thousands of times a second (docs/DESIGN.md,
 * "The signal").
 */
#ifndef CTPROF_KTRIGGER_H
#define CTPROF_KTRIGGER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct thread;

struct ktrigger {
	uint64_t period_ns;     /* a sample per this much of a thread's CPU */
	int error;              /* errno of the first refused open, 0 none */
	unsigned long opened;   /* events opened */
	unsigned long by_signal[2]; /* ... routed to each of KTRIGGER_SIGNALS */
	unsigned long unroutable; /* threads that block both: not opened */
	unsigned long failed;   /* opens refused for other reasons */
	unsigned long late;     /* stops that came a period or more after
	                         * their overflow (the signal was blocked) */
};

/* The signals tried, in order (see above). */
#define KTRIGGER_SIGNALS { SIGWINCH, SIGURG }

/* Can a task-clock event be opened on thread TID of PID at all?  0, or
 * -errno from perf_event_open (EACCES/EPERM: perf_event_paranoid or
 * capabilities; ENOSYS: a seccomp filter or no perf events). */
int ktrigger_probe(pid_t tid);

/* Give thread T (traced, of process PID) an event that stops it every
 * K->period_ns of its user CPU time: T->ev_fd and T->ev_sig are set.
 * 0; -EAGAIN if T blocks every signal tried (T is then left to the
 * timer); or -errno if the event could not be opened. */
int ktrigger_open(struct ktrigger *k, struct thread *t);

/* Close T's event, if any.  A signal it raised before may still be
 * pending in T (ktrigger_pending()). */
void ktrigger_close(struct thread *t);

/* Is the stop of T for signal SIG one of its event's?  Reads the
 * stop's siginfo: the event's signal comes with si_code POLL_* and si_fd
 * the event; a SIGURG the program sends itself has si_code <= 0. */
bool ktrigger_is_ours(const struct thread *t, int sig);

/* Has T a signal of its event pending (queued, not yet delivered)? */
bool ktrigger_pending(const struct thread *t);

#endif
