/* sampler.h - the timerfd tick: choose the running threads, stop each one
 * just long enough to capture its registers and stack, resume it, then
 * unwind the captures and count the stacks.
 */
#ifndef CTPROF_SAMPLER_H
#define CTPROF_SAMPLER_H

#include "capture.h"
#include "kick.h"
#include "ktrigger.h"
#include "maps.h"
#include "session.h"
#include "stacks.h"
#include "unwind.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>

#define STALL_BUCKETS 10000     /* 1 us each; the last one is "or more" */

/* What times the samples (--trigger). */
enum trigger {
	TRIGGER_AUTO,           /* perf where ctprof has no real-time
	                         * priority, else the timer */
	TRIGGER_PERF,           /* each thread's task-clock event (ktrigger.h),
	                         * into a ring where it can have one */
	TRIGGER_PERF_STOP,      /* ... every sample a stop, no rings of
	                         * user-mode ticks */
	TRIGGER_TIMER,          /* the timerfd tick: choose, interrupt */
};

struct sampler_stats {
	uint64_t ticks;                 /* timer expirations */
	uint64_t missed;                /* expirations that came too late to use */
	uint64_t samples;               /* captures taken */
	uint64_t counted;               /* ... and the ticks they count for
	                                 * (late ticks, ticks of stops not
	                                 * counted, carried: see capture.h) */
	uint64_t preempted;             /* ... of threads asked to stop while off
	                                 * their CPU: held by a helper, or by
	                                 * the sampler on its own CPU */
	uint64_t unheld;                /* ... asked to stop while running,
	                                 * where a helper was wanted */
	uint64_t quiet;                 /* ... asked to stop while running, of
	                                 * threads seen not to enter the
	                                 * kernel (judge_unheld() in sampler/hold.c) */
	uint64_t put_off;               /* stops not asked for: a helper was
	                                 * wanted and did not hold the CPU */
	uint64_t gave_up;               /* holds a helper gave up before the
	                                 * sampler came to ask for the stops */
	uint64_t not_held;              /* stops asked for as held that found
	                                 * the thread running (not counted) */
	uint64_t probes;                /* stops to see whether a thread is
	                                 * quiet: not counted as samples */
	uint64_t loud;                  /* quiet threads found entering the
	                                 * kernel after all (their stop, if
	                                 * that is how, not counted) */
	uint64_t not_run;               /* runnable threads not stopped: they
	                                 * had not run since their last sample */
	uint64_t idle_unread;           /* idle threads not read at a tick
	                                 * that found one on every CPU */
	uint64_t late;                  /* samples of threads seen blocked
	                                 * before the tick, running at it */
	uint64_t late_ticks;            /* ticks counted in a sample whose stop
	                                 * was asked for at an earlier one */
	uint64_t slept;                 /* samples of threads that ran at the
	                                 * tick and were asleep when read */
	uint64_t slept_late;            /* ... and not, having left their CPU
	                                 * too long after the tick or before
	                                 * it was taken */
	uint64_t slept_short;           /* ... and not, asleep in a call that
	                                 * a stop would end short */
	uint64_t short_writes;          /* writes to a blocking descriptor
	                                 * that a stop ended short */
	uint64_t short_blocked;         /* ... at stops of threads found
	                                 * blocked (--wall) */
	uint64_t fds_short;             /* opens of threads' /proc files that
	                                 * failed for want of a descriptor, or
	                                 * were put off for it */
	uint64_t throttled;             /* ticks left out to keep ctprof's
	                                 * CPU time under a THROTTLE_SHARE-th
	                                 * of the time (throttle()) */
	uint64_t taken, taken_cpu_ns;   /* ticks taken after the first, and
	                                 * ctprof's CPU time from each tick
	                                 * taken to the next */
	uint64_t signals;               /* signals passed on to the target */
	uint64_t other_stops;           /* stops ctprof did not ask for: the
	                                 * target's signals, clones, exits */
	uint64_t blocked_at_tick;       /* stops that found the thread blocked
	                                 * in a system call: not samples */
	uint64_t lead_ns;               /* sum over ticks of the sampler's lead */
	uint64_t delay_ns;              /* ... and of the helpers' delay */
	unsigned helpers;               /* preempting helpers started */
	uint64_t blocked_stops;         /* --wall: captures of blocked threads */
	uint64_t woke_stops;            /* ... of threads that woke up as their
	                                 * wait was read: not blocked by then */
	uint64_t reused;                /* --wall: samples of blocked threads
	                                 * counted again without a stop */
	uint64_t site_reads;            /* --wall: wait sites read to tell */
	uint64_t peeks;                 /* --wall: stacks of blocked threads
	                                 * taken without a stop */
	uint64_t peeks_failed;          /* ... that could not be walked so */
	uint64_t wall_uncut;            /* --wall: ticks of blocked threads
	                                 * left alone, their call to be ended
	                                 * short by a stop */
	uint64_t kernel_cpu_ns;         /* --weight=cputime: the CPU time the
	                                 * kernel accounted to the threads
	                                 * while they were profiled */
	uint64_t unwind_complete, unwind_truncated, unwind_failed;
	uint64_t handler_entries;       /* stops where a signal handler starts,
	                                 * taken where the signal came */
	uint64_t sigreturn_stops;       /* stops in a sigreturn trampoline,
	                                 * unwound through its signal frame */
	uint64_t go_handler_copies;     /* stops in a Go signal handler, whose
	                                 * interrupted stack was copied too */
	uint64_t alt_handler_copies;    /* stops in another handler on a stack
	                                 * of its own, whose interrupted stack
	                                 * was copied too */
	uint64_t go_vdso_copies;        /* stops in the vDSO under Go, whose
	                                 * goroutine's stack was copied too */
	uint64_t chained;               /* ring ticks whose walk ran past the
	                                 * stack copy, gone on by the chain */
	uint64_t spliced[2];            /* ring ticks in Go's vDSO call, and
	                                 * in its signal handler, whose frames
	                                 * on another stack came from the
	                                 * kernel's chain */
	uint64_t frames;                /* sum of frames over samples */
	uint64_t fp_frames;             /* of which stepped by frame pointer */
	uint64_t unwind_ns;             /* time spent unwinding */
	/* Where ctprof's time goes, in nanoseconds (see -v): the sampler
	 * thread's time in each part of a tick, its CPU time in all, and
	 * the helpers' CPU time.  The parts are wall-clock time of a thread
	 * that does not sleep in them, but for tick_sleep and wait_sleep. */
	struct {
		uint64_t choose, holds, late, interrupt, letgo;
		uint64_t tick_sleep;             /* until the tick, after the reads */
		uint64_t wait_spin, wait_sleep;  /* for the stops, less what
						  * is counted below */
		uint64_t regs, copy, resume, intern, settle;
		uint64_t other;                  /* stops not asked for */
		uint64_t sampler_cpu, helpers_cpu;
	} part_ns;
	uint64_t stall_ns;              /* sum of target stop time */
	uint32_t stall_hist[STALL_BUCKETS];
	uint64_t wall_ns;               /* from start to end of sampling */
	int64_t start_realtime_ns;      /* when sampling started, since the epoch */
	uint64_t cpu_ns;                /* ctprof's own CPU time while sampling */
	int fds_before;                 /* ctprof's open fds when sampling began */
	long rss_kib;                   /* ctprof's resident memory when it ended */
	long heap_kib;                  /* its heap in use then */
	long stacks_kib;                /* of which the table of call chains and
	                                 * the names of the threads sampled */
	long copies_kib;                /* and the captures' buffers, kept for
	                                 * reuse: as many as were in flight at once */
	bool realtime;                  /* ran with SCHED_FIFO */
	int trigger;                    /* TRIGGER_PERF or TRIGGER_TIMER: ran */
	int perf_error;                 /* errno of perf_event_open where the
	                                 * perf trigger was refused, else 0 */
	uint64_t timed_samples;         /* samples the events' stops gave */
	uint64_t timed_late;            /* ... that came where the thread
	                                 * unblocked the signal, late */
	unsigned long timed_threads;    /* threads given an event */
	unsigned long timed_by[2];      /* ... routed to SIGWINCH, SIGURG */
	unsigned long untimed_threads;  /* threads that blocked both: timer */
	unsigned long events_failed;    /* events refused for other reasons */
	unsigned long stray_left;       /* threads that kept a signal of an
	                                 * event pending at the end */
	uint64_t kernel_row_ns;         /* the threads' CPU time their events'
	                                 * samples do not stand for: [kernel] */
	uint64_t timed_period_ns;       /* a timed sample's CPU time */
	bool kernel_rings;              /* kernel-mode ticks sampled into rings */
	uint64_t kernel_samples;        /* ... the samples they gave */
	uint64_t kernel_in_stops;       /* ... ticks in ctprof's own stops,
	                                 * not counted */
	unsigned long rings_refused;    /* threads given no ring (the limit) */
	unsigned long ring_threads;     /* threads sampled by their ring alone */
	uint64_t ring_samples;          /* ... its user-mode samples */
	uint64_t ring_lost;             /* samples lost to a full ring */
};

/* One traced process, as the sampler knows it (its session process's priv). */
struct target {
	struct process *proc;
	struct maps maps;               /* modules shared by every target */
	void *unwind_state;             /* NULL once the process is gone */
};

struct sampler;

/* For a live view: called from the sampling loop between ticks, in
 * ctprof's own time, every INTERVAL_NS and whenever FD is readable.  Either
 * may set the sampler's stop flag to end sampling. */
struct sampler_hooks {
	uint64_t interval_ns;           /* 0: no interval calls */
	void (*on_interval)(struct sampler *sp, void *arg);
	int fd;                         /* -1: none */
	void (*on_fd)(struct sampler *sp, void *arg);
	void *arg;
};

struct sampler {
	struct session *session;
	struct sampler_hooks hooks;     /* all unset after sampler_init */
	bool stop;                      /* a hook asked to stop sampling */
	bool wall;                      /* every thread counts at every tick */
	bool once;                      /* ctprof dump: one tick, with --wall's
	                                 * choice plus the threads of a group
	                                 * stop, then wait for every stop asked
	                                 * for (at most a second) and end */
	bool cputime;                   /* a thread's samples share its CPU
	                                 * time, settled about once a second */
	int trigger_opt;                /* --trigger: enum trigger */
	bool timed;                     /* the perf trigger runs */
	struct ktrigger ktrig;          /* ... its events */
	bool timer_armed;               /* ... and the timer for the threads
	                                 * it cannot time */
	uint64_t settle_n;              /* the tick to settle them at */
	uint64_t busy_avg_ns;           /* ctprof's CPU time from a tick taken
	                                 * to the next, per CPU the target ran
	                                 * on (a moving mean) */
	uint64_t throttle_n;            /* 1 + the last tick taken, 0: none */
	uint64_t throttle_cpu;          /* ctprof's CPU time then */
	uint64_t throttle_other;        /* ... and its session's other_ns */
	uint64_t throttle_samples;      /* ... and its samples */
	uint64_t throttle_cpus;         /* CPUs online */
	struct target **targets;        /* [0] is the session's target */
	size_t ntargets, tcap;
	struct maps *maps;              /* the first target's */
	const struct unwinder_ops *unwinder;
	struct stacks stacks;           /* of every process */
	struct sampler_stats stats;
	unsigned frequency;
	uint64_t period_ns;
	uint64_t t0;                    /* tick n is at tick_time(t0, period_ns, n) */
	int tfd[2];                     /* tick n wakes ctprof by tfd[n & 1] ... */
	uint64_t tfd_tick[2];           /* ... set for this tick (UINT64_MAX: none) */
	double duration;
	size_t stack_size;
	unsigned max_frames;

	struct kicker kick;             /* the helpers that preempt first */
	bool kicking;                   /* ... in use (real-time priority) */
	uint64_t need_ns;               /* decaying max of what the lead must cover */
	struct pick {
		struct thread *t;
		int cpu;
		bool was_running;       /* runnable when first read */
	} *picks;                       /* this tick's threads to stop */
	size_t npicks, pickcap;
	unsigned char *want;            /* [cpu]: picks there, and its helper
	                                 * is ready to hold it, or holds it */
	uint64_t *since;                /* [cpu]: when its helper took it */
	bool *going;                    /* [cpu]: let go in ask_stops() */
	bool *crowded;                  /* [cpu]: a thread of the target
	                                 * waits for it at this tick */
	uint64_t crowd_n;               /* 1 + the last tick that found a
	                                 * thread of the target waiting for a
	                                 * CPU (waits_for(), note_wait()),
	                                 * 0 if none */
	unsigned char *missed;          /* [cpu]: ticks in a row its helper
	                                 * came too late for (wait_take()) */
	bool at_tick;                   /* threads are read once their CPUs
	                                 * are taken (see tick()) */
	int self_sched_fd;              /* the sampler's /proc sched file, for
	                                 * its se.exec_start (take_time()) */
	int here;                       /* this tick: the sampler's CPU */
	uint64_t woke_ns;               /* ... and when it woke there */
	uint64_t tick_ns;               /* ... the tick's time */
	uint64_t tick_delay_ns;         /* ... and the helpers' delay then */
	uint64_t delay_ns;              /* the helpers take their CPUs this
	                                 * long after the tick */
	bool delay_ok;                  /* ... if other programs took at most
	                                 * a fifth of the sampler's CPU
	                                 * lately (watch_idle()) */
	int cpustat_fd;                 /* /proc/stat */
	uint64_t *idle_mark, *idle_now; /* [cpu]: idle clock ticks, as read
	                                 * at idle_read_ns and now */
	uint64_t idle_read_ns, own_mark;
	int online;                     /* CPUs online (get_nprocs()), read */
	uint64_t online_read_ns;        /* ... at this time */
	long clock_tick;                /* sysconf(_SC_CLK_TCK) */
	uint64_t *take_es;              /* [cpu]: when it was taken at this
	                                 * tick, in its run queue's clock */
	unsigned char *take_known;      /* [cpu]: 0 not yet read, 1 known,
	                                 * 2 not known */
	struct rq_offset {
		int64_t lo, hi;         /* CLOCK_MONOTONIC less the run
		                         * queue's clock at one take: at
		                         * least, and at most */
		uint64_t tick;          /* ... the tick's number + 1 */
	} *rq_offs;                     /* [cpu * RQ_OFFS]: the last ones */
	uint64_t tick_n;                /* the tick being served */
	struct pick *late;              /* threads read again at the tick */
	size_t nlate;

	struct capture *caps;           /* this tick's captures */
	size_t ncaps, capcap;
	struct short_write {
		pid_t pid;
		int fd;
		bool blocked;           /* the thread was found blocked */
	} *shorts;                      /* writes seen to return short at
	                                 * stops, to be told apart after */
	size_t nshorts, shortcap;
	uint64_t *pcs;                  /* max_frames scratch */
	struct tname {
		pid_t tid;
		char name[16];
	} *names;                       /* each sampled thread's name */
	size_t nnames, namecap;
	struct key3_index name_index;   /* names by tid (NAME_KEY) */
};

/* Set up for the session's process, which must be attached; the processes
 * it forks (--follow-forks) are set up when they are first sampled.
 * 0 or -errno. */
int sampler_init(struct sampler *sp, struct session *s, const struct unwinder_ops *unwinder,
		 unsigned frequency, double duration, size_t stack_size, unsigned max_frames);

/* Sample until the duration is over, the target exits, or a signal asks
 * to stop.  Leaves the threads seized: the caller detaches.  0 or -errno. */
int sampler_run(struct sampler *sp);

/* Give the samples taken so far the CPU time they stand for now, rather
 * than at the next settling (about once a second): for a reader of
 * sp->stacks between ticks, such as the live view.  Only from the
 * sampling loop (a hook). */
void sampler_settle(struct sampler *sp);

/* Stall percentile P (0..100) in microseconds. */
double sampler_stall_percentile(const struct sampler_stats *st, double p);

void sampler_release(struct sampler *sp);

#endif
