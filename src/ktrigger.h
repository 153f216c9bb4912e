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
#include <sys/user.h>

struct thread;

/* A thread's part of the kernel-timed trigger: its event and ring, opened
 * as the thread appears and closed at its exit or exec (session.c), and
 * what the sampler learns of its signals. */
struct ktrigger_thread {
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
	uint64_t ev_run0;       /* ... its CPU time as its event started */
	uint64_t ev_samples;    /* ... the samples it gave since */
	uint64_t ev_user_ns;    /* ... the CPU time in user mode they stand
	                         * for (lost ones too): not the [kernel] row's */
	uint64_t ev_retry_ns;   /* ... blocked them all: when to look again */
	uint64_t ev_backoff_ns; /* ... and the wait after that */
};

#define KTRIGGER_STOP_CODE 4

struct ktrigger {
	uint64_t period_ns;     /* a sample per this much of a thread's CPU */
	int error;              /* errno of the first refused open, 0 none */
	unsigned long opened;   /* events opened */
	unsigned long by_signal[2]; /* ... routed to each of KTRIGGER_SIGNALS */
	unsigned long unroutable; /* threads that block both: not opened */
	unsigned long failed;   /* opens refused for other reasons */
	unsigned long late;     /* stops that came a period or more after
	                         * their overflow (the signal was blocked) */
	/* Kernel-mode ticks, where the kernel lets ctprof sample the kernel
	 * (root, CAP_PERFMON, perf_event_paranoid <= 1): a second event per
	 * thread writes each one into a ring buffer with the user registers
	 * and stack of that moment, with no stop (docs/DESIGN.md, "Kernel
	 * time"). */
	bool kernel;            /* open them */
	/* User-mode ticks into rings too (user_rings): each thread's one
	 * event writes its samples, user and (with kernel) kernel mode, to
	 * its ring, and no thread stops for a sample.  A thread whose ring
	 * cannot be had (KTRIGGER_RINGS_MAX, locked memory) gets the
	 * signal and its stops. */
	bool user_rings;
	unsigned long by_ring;  /* events opened with a ring, no signal */
	unsigned long rings;    /* rings open now */
	unsigned long rings_refused; /* ... not opened (the limit, memory) */
	uint64_t ring_lost;     /* samples the kernel lost: a ring was full */
	uint64_t stop_code[KTRIGGER_STOP_CODE][2]; /* where the kernel takes */
	unsigned nstop_code;    /* ... ptrace stops (ktrigger_find_stop_code()) */
	bool stop_code_read;    /* ... looked up (threads with rings alone
	                         * stop for no sample: not needed for them) */
	uint64_t in_signal;     /* ticks in there: ctprof's, not the program's */
};

/* The most threads given a ring at once, and each ring's data pages and
 * user stack bytes a sample. */
#define KTRIGGER_RINGS_MAX 64
#define KTRIGGER_RING_PAGES 128
#define KTRIGGER_RING_STACK 16384

/* The signals tried, in order (see above). */
#define KTRIGGER_SIGNALS { SIGWINCH, SIGURG }

/* Can a task-clock event be opened on thread TID of PID at all?  0, or
 * -errno from perf_event_open (EACCES/EPERM: perf_event_paranoid or
 * capabilities; ENOSYS: a seccomp filter or no perf events). */
int ktrigger_probe(pid_t tid);

/* Give thread T (traced, of process PID) an event that samples it every
 * K->period_ns of its CPU time: T->ev_fd is set.  With K->user_rings,
 * into a ring (T->kr_fd, the same event) where one can be had; else it
 * stops T in user mode with a signal (T->ev_sig).  0; -EAGAIN if it
 * needs a signal and T blocks every one tried (T is then left to the
 * timer); or -errno if the event could not be opened. */
int ktrigger_open(struct ktrigger *k, struct thread *t, bool check_mask);

/* A thread born with every signal blocked (glibc's pthread_create blocks
 * them until the thread starts) gets its event without a look at its
 * mask; a moment later, this looks: if T blocks its event's signal now,
 * the event is routed to the other one, or closed if it blocks both (T is
 * left to the timer).  0, or -EAGAIN if closed. */
int ktrigger_check(struct ktrigger *k, struct thread *t);

/* T's event's count: its CPU time since the event opened, 0 if unread. */
uint64_t ktrigger_count(const struct thread *t);

/* Does T hold a signal of its event that it blocks (pending, and queued
 * for T alone)?  Taking it needs its mask changed (session.c). */
bool ktrigger_stuck(const struct thread *t);

/* Can kernel-mode ticks of thread TID be sampled into a ring?  0 or
 * -errno (EACCES: not at this perf_event_paranoid without CAP_PERFMON). */
int ktrigger_probe_kernel(pid_t tid);

/* Find in /proc/kallsyms the kernel code where a traced thread is stopped
 * and its event's signal sent, for telling the ticks in ctprof's own stops
 * from the program's own kernel time.  0, or -1 if it cannot be known
 * (addresses hidden by kptr_restrict). */
int ktrigger_find_stop_code(struct ktrigger *k);

/* The user call chain a ring sample keeps at most: the return addresses
 * the kernel found by frame pointer at the tick. */
#define KTRIGGER_USER_CHAIN 127

/* A tick read from a ring, of one thread. */
struct ktrigger_sample {
	struct user_regs_struct regs;   /* the user registers at the tick */
	const unsigned char *stack;     /* ... the user stack from regs' SP */
	size_t len;
	uint64_t ns;                    /* the CPU time it stands for */
	uint64_t ran_ns;                /* ... of which its thread ran since
	                                 * the last (less, of one that stands
	                                 * for others left out too) */
	bool kernel;                    /* the tick found it in kernel mode */
	/* The user call chain by frame pointer, the PC first: exact where
	 * the code keeps frame pointers (Go's does), and read at the tick,
	 * where the stack copy holds only what is above regs' SP. */
	const uint64_t *chain;
	unsigned nchain;
};

typedef void (*ktrigger_sample_fn)(void *arg, struct thread *t, const struct ktrigger_sample *s);

/* Hand the samples in T's ring to FN, MAX at most (0: all), and free
 * their room.  Returns how many.  (ktrigger_close() counts those still
 * there as lost.) */
unsigned ktrigger_drain(struct ktrigger *k, struct thread *t, ktrigger_sample_fn fn, void *arg, unsigned max);

/* After an event's first sample: its period is the whole one from now on
 * (the first was a random part of it, to sample short-lived threads
 * right). */
void ktrigger_full_period(struct ktrigger *k, int fd);

/* Close T's event and ring, if any.  A signal it raised before may still be
 * pending in T (ktrigger_pending()). */
void ktrigger_close(struct ktrigger *k, struct thread *t);

/* Stop T's events from counting and sampling (at the end: its rings are
 * then emptied before they close). */
void ktrigger_disable(const struct thread *t);

/* Is the stop of T for signal SIG one of its event's?  Reads the
 * stop's siginfo: the event's signal comes with si_code POLL_* and si_fd
 * the event; a SIGURG the program sends itself has si_code <= 0. */
bool ktrigger_is_ours(const struct thread *t, int sig);

/* Has T a signal of its event pending (queued for it, not delivered)? */
bool ktrigger_pending(const struct thread *t);

#endif
