/* session.c - see session.h.
 *
 * ptrace facts this file relies on (ptrace(2), kernel/signal.c):
 * - PTRACE_SEIZE, not ATTACH: no SIGSTOP is sent, and PTRACE_INTERRUPT and
 *   PTRACE_LISTEN become available.  PTRACE_TRACEME cannot be used in launch
 *   mode (PTRACE_INTERRUPT then fails with EIO), so the child waits on a pipe
 *   until the parent has seized it, then execs.
 * - status>>16 == PTRACE_EVENT_STOP: with SIGTRAP an interrupt stop or a new
 *   thread's first stop (resume with PTRACE_CONT); with SIGSTOP, SIGTSTP,
 *   SIGTTIN or SIGTTOU a group-stop (resume with PTRACE_LISTEN: CONT would
 *   run a process that someone stopped).
 * - status>>16 == 0: signal-delivery stop; PTRACE_CONT with the signal
 *   delivers it, with 0 it would be lost.
 * - After PTRACE_INTERRUPT the thread's next stop may be another one (a
 *   signal, a clone or exit event): it is taken as the sample stop, and the
 *   interrupt stop that may follow later is simply resumed.
 * - With PTRACE_O_TRACEEXIT even a SIGKILLed thread stops at
 *   PTRACE_EVENT_EXIT until resumed.
 * - ctprof never sets PTRACE_O_EXITKILL: if ctprof dies, the kernel detaches
 *   its tracees and they run on.
 */
#define _GNU_SOURCE
#include "session-internal.h"
#include "ktrigger.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEIZE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
/* Inherited by the processes traced from a fork; with these set, a fork
 * (and vfork, and a clone that makes a process) reports its child. */
#define FORK_OPTIONS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

void *seize_options(const struct session *s)
{
	return (void *)(long)(SEIZE_OPTIONS | (s->follow_forks ? FORK_OPTIONS : 0));
}

static struct process *process_find(struct session *s, pid_t pid)
{
	size_t i;

	for (i = s->nprocs; i-- > 0;)
		if (s->procs[i]->pid == pid && !s->procs[i]->exited)
			return s->procs[i];
	return NULL;
}

struct process *process_add(struct session *s, pid_t pid)
{
	struct process *p = process_find(s, pid);

	if (p)
		return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	proc_comm(pid, p->comm, sizeof(p->comm));
	GROW(s->procs, s->proccap, s->nprocs + 1);
	s->procs[s->nprocs++] = p;
	return p;
}

struct thread *thread_find(struct session *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

struct thread *thread_add(struct session *s, struct process *p, pid_t tid)
{
	struct thread *t = thread_find(s, tid);

	if (t)
		return t;
	GROW(s->threads, s->cap, s->nthreads + 1);
	t = &s->threads[s->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->proc = p;
	t->stat_fd = proc_open_task_stat(p->pid, tid);
	t->kt.ev_fd = t->kt.ev_num = t->kt.kr_fd = -1;
	p->nthreads++;
	s->threads_seen++;
	if (s->on_thread)
		s->on_thread(s->sample_arg, t, THREAD_NEW);
	/* Before it runs, where a clone reports it: none of its CPU time
	 * goes untimed.  Its mask is the one glibc gives a thread until it
	 * starts (all blocked): the sampler looks at it again a moment
	 * later (ktrigger_check()). */
	if (s->ktrig && ktrigger_open(s->ktrig, t, false) == 0)
		t->kt.ev_check_ns = now_ns();
	return t;
}

/* Forget T; pointers to other threads stay valid only until the next add. */
static void thread_remove(struct session *s, struct thread *t)
{
	if (t->sample_wanted) {
		s->waiting--;
		s->lost++;
	}
	ktrigger_close(s->ktrig, t);
	if (s->on_thread)
		s->on_thread(s->sample_arg, t, THREAD_GONE);
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	proc_fd_closed();
	t->proc->nthreads--;
	*t = s->threads[--s->nthreads];
}

static bool in_thread_group(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
	return access(path, F_OK) == 0;
}

/* The traced process that TID, a thread we have not seen, belongs to: a
 * new thread of one of them, or with follow_forks a new process.  NULL if
 * it is neither (then it is not ours to profile). */
static struct process *process_of_new(struct session *s, pid_t tid)
{
	long tgid = 0;
	struct process *p;

	if (proc_status_long(tid, "Tgid", &tgid) < 0 || tgid <= 0)
		return NULL;
	p = process_find(s, (pid_t)tgid);
	if (p)
		return p;
	if (s->follow_forks && tgid == tid)
		return process_add(s, tid);
	return NULL;
}

struct thread *session_thread(struct session *s, pid_t tid)
{
	return thread_find(s, tid);
}

bool session_done(const struct session *s)
{
	if (!s->nthreads)
		return true;
	return s->exited && !s->follow_forks;
}

int session_init(struct session *s, bool follow_forks)
{
	sigset_t set;
	int err;

	memset(s, 0, sizeof(*s));
	s->sigfd = -1;
	s->follow_forks = follow_forks;
	/* Each thread sampled keeps two to four /proc files open (stat,
	 * schedstat, and sched or syscall for some): the usual soft limit
	 * of 1024 runs out at a few hundred threads, and a thread whose
	 * files cannot be opened is sampled less well (docs/DESIGN.md,
	 * "Stops and copies"; tests/fdlimit.sh).  The soft limit goes up to
	 * the hard one, as perf does on EMFILE; a command ctprof runs gets
	 * the limit back. */
	if (getrlimit(RLIMIT_NOFILE, &s->old_nofile) == 0 && s->old_nofile.rlim_cur < s->old_nofile.rlim_max) {
		struct rlimit up = { s->old_nofile.rlim_max, s->old_nofile.rlim_max };

		s->nofile_raised = setrlimit(RLIMIT_NOFILE, &up) == 0;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	/* Terminal stops, and SIGCONT, which continues ctprof even blocked
	 * and is read only to know that it was stopped (session_launch lets
	 * the terminal stops through in launch mode). */
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGTTIN);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGCONT);
	err = pthread_sigmask(SIG_BLOCK, &set, &s->old_mask);
	if (err)
		return -err;
	s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->sigfd < 0 ? -errno : 0;
}

/* ---- stops ---- */

static void resume(struct session *s, struct thread *t, int sig)
{
	if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)sig) < 0 && errno != ESRCH)
		verbose_msg("PTRACE_CONT %d: %s", t->tid, strerror(errno));
	t->listening = false;
}

/* T stopped where its user registers are valid: if a sample was asked for,
 * capture it now, before the resume that follows. */
static struct capture *take_sample(struct session *s, struct thread *t)
{
	struct capture *c;
	uint64_t t0;

	if (!t->sample_wanted)
		return NULL;
	t->sample_wanted = false;
	s->waiting--;
	if (!s->on_sample)
		return NULL;
	t0 = now_ns();
	c = s->on_sample(s->sample_arg, t);
	s->sample_ns += now_ns() - t0;
	return c;
}

/* The stop of sample C (NULL: none) ends now: T's stall is from its
 * stop request (or the moment its CPU was taken) to here. */
static void finish_sample(struct capture *c, struct thread *t, uint64_t end_ns)
{
	if (c)
		c->stall_ns = end_ns - t->interrupt_ns;
}

/* resume() after a sample C (NULL: none), timed: its stall ends as the
 * resume returns, before anything read after it. */
static void resume_sampled(struct session *s, struct thread *t, int sig, struct capture *c)
{
	uint64_t t0 = c ? now_ns() : 0;

	resume(s, t, sig);
	if (c) {
		uint64_t t1 = now_ns();

		s->resume_ns += t1 - t0;
		finish_sample(c, t, t1);
		if (s->on_resumed)
			s->on_resumed(s->sample_arg, t, t1);
	}
}

void drop_sample(struct session *s, struct thread *t)
{
	if (t->sample_wanted) {
		t->sample_wanted = false;
		s->waiting--;
		s->lost++;
	}
}

/* At an interrupt stop of ours (PTRACE_EVENT_STOP with SIGTRAP), T may be
 * on its way out of a system call that the stop itself broke with EINTR:
 * epoll_wait, sigtimedwait, semtimedop and a few others are not restarted
 * by the kernel after a ptrace stop.  Rewriting the result to
 * -ERESTARTNOHAND hands the choice back to the kernel, which, after we
 * resume T, turns it into EINTR if a signal handler runs (so a real signal
 * still interrupts the call, as the program expects), and otherwise
 * restarts the call as if the stop had not happened.  REGS are T's
 * registers if already read, or NULL. */
static void undo_eintr(pid_t tid, const struct user_regs_struct *regs)
{
	struct user_regs_struct r;

	if (!regs) {
		if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
			return;
		regs = &r;
	}
	if (regs_syscall(regs) < 0 || regs_result(regs) != -EINTR)
		return;
	r = *regs;
	regs_set_result(&r, -ERESTARTNOHAND);
	ptrace(PTRACE_SETREGS, tid, 0, &r);
}

static void handle_exec(struct session *s, struct thread *t)
{
	struct process *p = t->proc;
	size_t i;

	/* Every other thread of the process is gone; the exec'ing one now has
	 * the leader's tid (ptrace(2), "execve(2) under ptrace"). */
	for (i = s->nthreads; i-- > 0;)
		if (s->threads[i].proc == p && s->threads[i].tid != p->pid)
			thread_remove(s, &s->threads[i]);
	t = thread_find(s, p->pid);
	if (t && t->stat_fd >= 0) {
		close(t->stat_fd);
		proc_fd_closed();
		t->stat_fd = proc_open_task_stat(p->pid, p->pid);
	}
	if (t && s->on_thread)
		s->on_thread(s->sample_arg, t, THREAD_EXEC);
	/* The exec removed its event (remove_on_exec): the new image gets
	 * a new one, routed by its mask now. */
	if (t && s->ktrig) {
		ktrigger_close(s->ktrig, t);
		ktrigger_open(s->ktrig, t, true);
	}
	proc_comm(p->pid, p->comm, sizeof(p->comm));
	if (p == s->procs[0])
		memcpy(s->comm, p->comm, sizeof(s->comm));
	p->exec_seen = true;
}

/* While detaching: whatever stop it is, let go, delivering its signal.  A
 * thread or process created meanwhile is traced already: wait for its first
 * stop to let it go too, rather than leave it stopped until ctprof exits. */
static void detach_stopped(struct session *s, pid_t tid, int status)
{
	int sig = 0, event = status >> 16;
	unsigned long msg = 0;
	struct thread *t;

	if ((event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) &&
	    ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg > 0 && !thread_find(s, (pid_t)msg)) {
		struct process *p = process_of_new(s, (pid_t)msg);
		long tracer = 0;

		/* Unless its first stop came first and was let go already. */
		if (p && proc_status_long((pid_t)msg, "TracerPid", &tracer) == 0 && tracer == s->tracer)
			thread_add(s, p, (pid_t)msg);
	}
	if ((status >> 16) == 0)
		sig = WSTOPSIG(status);
	/* Caught between opening its mask and taking the signal: its own
	 * mask back first. */
	if ((t = thread_find(s, tid)) && t->unstick == 2)
		ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(t->saved_mask), &t->saved_mask);
	/* A signal of ctprof's own event goes no further. */
	if (sig && (t = thread_find(s, tid)) && ktrigger_is_ours(t, sig))
		sig = 0;
	else if ((status >> 16) == PTRACE_EVENT_STOP && WSTOPSIG(status) == SIGTRAP)
		undo_eintr(tid, NULL);
	if (ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig) < 0 && errno != ESRCH)
		verbose_msg("PTRACE_DETACH %d: %s", tid, strerror(errno));
	t = thread_find(s, tid);
	if (t)
		thread_remove(s, t);
}

/* At the end of the perf trigger (session_close_events()): T, which
 * blocks a signal its event queued, is in its interrupt stop.  Open its
 * mask to the signals of its event and resume it: it stops for the one
 * pending at once, where unstick_taken() puts the mask back. */
static void unstick_begin(struct session *s, struct thread *t)
{
	uint64_t m;

	t->unstick = 0;
	if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &t->saved_mask) == 0) {
		m = t->saved_mask & ~((uint64_t)t->kt.ev_sigs >> 1);
		if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m) == 0)
			t->unstick = 2;
	}
	undo_eintr(t->tid, NULL);
	resume(s, t, 0);
}

/* ... and T stopped for SIG, one of its event's signals: ctprof's is
 * suppressed; one of the program's own (it sent it to this thread while
 * blocking it) is queued again after the mask is back.  The mask goes
 * back once none of the event's signals is pending. */
static void unstick_taken(struct session *s, struct thread *t, int sig)
{
	bool ours = ktrigger_is_ours(t, sig);

	if (ours)
		s->timed_stops++;
	if (!ours || !ktrigger_pending(t)) {
		ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(t->saved_mask), &t->saved_mask);
		t->unstick = 0;
	}
	resume(s, t, 0);
	if (!ours)
		syscall(SYS_tgkill, t->proc->pid, t->tid, sig);
}

/* TID exited or was killed: forget its thread; a process's or the
 * target's end is noted. */
static void handle_gone(struct session *s, struct thread *t, pid_t tid, int status)
{
	struct process *p = t ? t->proc : process_find(s, tid);

	if (t)
		thread_remove(s, t);
	if (p && tid == p->pid)
		p->exited = true;
	if (tid == s->pid) {
		s->exited = true;
		s->exit_status = status;
	}
}

/* The thread of TID, stopped and not known yet, or NULL once it is let go. */
static struct thread *adopt_stopped(struct session *s, pid_t tid)
{
	/* A new thread or process may report its first stop before its
	 * creator reports the clone or fork event.  A process made by
	 * a clone is traced too; unless we follow forks it is not
	 * ours to profile. */
	struct process *p = process_of_new(s, tid);

	if (!p) {
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return NULL;
	}
	return thread_add(s, p, tid);
}

/* T stopped for SIG: ctprof's tick, or a signal to deliver. */
static void handle_signal_stop(struct session *s, struct thread *t, int sig)
{
	struct capture *c;

	if (t->unstick == 2 && sig > 0 && sig < 32 && (t->kt.ev_sigs & (1U << sig))) {
		unstick_taken(s, t, sig);
		return;
	}
	/* The kernel-timed trigger's stop: where the thread was at
	 * its tick.  The signal was ctprof's: not delivered. */
	if (ktrigger_is_ours(t, sig)) {
		s->timed_stops++;
		t->interrupt_ns = now_ns();
		c = NULL;
		if (s->on_timed && t->kt.ev_fd >= 0) {
			c = s->on_timed(s->sample_arg, t);
			s->sample_ns += now_ns() - t->interrupt_ns;
		}
		resume_sampled(s, t, 0, c);
		return;
	}
	/* Signal-delivery stop: sample if asked, deliver the signal. */
	t->signaled = true;
	c = take_sample(s, t);
	resume_sampled(s, t, sig, c);
	if (sig != SIGTRAP)
		s->signals_forwarded++;
}

/* T in a PTRACE_EVENT_STOP with SIG: a group-stop, or our interrupt. */
static void handle_event_stop(struct session *s, struct thread *t, pid_t tid, int sig)
{
	struct capture *c;

	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		/* Group-stop: someone stopped the process.  Stay
		 * stopped, but keep reporting (LISTEN), so SIGCONT
		 * and our interrupts are seen.  A dump takes the
		 * stack of a stopped thread too. */
		c = s->sample_group_stops ? take_sample(s, t) : NULL;
		finish_sample(c, t, now_ns());
		if (!c)
			drop_sample(s, t);
		if (ptrace(PTRACE_LISTEN, tid, 0, 0) == 0)
			t->listening = true;
		return;
	}
	if (t->unstick == 1) {
		unstick_begin(s, t);
		return;
	}
	c = take_sample(s, t);
	undo_eintr(tid, c ? &c->regs : NULL);
	resume_sampled(s, t, 0, c);
}

/* T made a thread or a process (EVENT). */
static void handle_clone(struct session *s, struct thread *t, pid_t tid, int event)
{
	/* The new thread, or with follow_forks the new process, is
	 * traced already; its first stop may come before or after
	 * this one.  A clone that made a process is left to that
	 * first stop (process_of_new). */
	unsigned long msg = 0;
	struct thread *child;
	struct capture *c;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg > 0 &&
	    !thread_find(s, (pid_t)msg)) {
		struct process *p = event != PTRACE_EVENT_CLONE ? process_add(s, (pid_t)msg)
				    : in_thread_group(t->proc->pid, (pid_t)msg) ? t->proc : NULL;

		if (p) {
			thread_add(s, p, (pid_t)msg);
			t = thread_find(s, tid);
		}
	}
	c = take_sample(s, t);
	/* A new thread runs on from where its creator's clone
	 * returns, with no stack and often no CFI until it calls its
	 * start function (see unwind_captures() in sampler/count.c): that
	 * is the creator's PC now, in its sample's registers if this
	 * stop took one. */
	child = msg > 0 && event == PTRACE_EVENT_CLONE ? thread_find(s, (pid_t)msg) : NULL;
	if (child && child->proc == t->proc && !child->start_ip) {
		long ip;

		errno = 0;
		ip = c ? (long)regs_pc(&c->regs) : ptrace(PTRACE_PEEKUSER, tid, ARCH_PEEKUSER_PC, 0);
		if (errno == 0)
			child->start_ip = (uint64_t)ip;
	}
	resume_sampled(s, t, 0, c);
}

static void handle_status(struct session *s, pid_t tid, int status)
{
	struct thread *t = thread_find(s, tid);
	int event = status >> 16, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		handle_gone(s, t, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (s->detaching) {
		detach_stopped(s, tid, status);
		return;
	}
	if (!t && !(t = adopt_stopped(s, tid)))
		return;

	sig = WSTOPSIG(status);
	switch (event) {
	case 0:
		handle_signal_stop(s, t, sig);
		break;
	case PTRACE_EVENT_STOP:
		handle_event_stop(s, t, tid, sig);
		break;
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		handle_clone(s, t, tid, event);
		break;
	case PTRACE_EVENT_EXEC:
		drop_sample(s, t);
		handle_exec(s, t);
		t = thread_find(s, tid);
		if (t)
			resume(s, t, 0);
		else
			ptrace(PTRACE_CONT, tid, 0, 0);
		break;
	case PTRACE_EVENT_EXIT:
		drop_sample(s, t);
		if (s->on_exit)
			s->on_exit(s->sample_arg, t);
		ktrigger_close(s->ktrig, t);
		t->exiting = true;
		resume(s, t, 0);
		break;
	default:
		drop_sample(s, t);
		resume(s, t, 0);
		break;
	}
}

/* Reap statuses until none is left, or, with UPTO >= 0, until no more
 * than UPTO stops are awaited. */
static int reap(struct session *s, long upto)
{
	int n = 0, status;
	uint64_t t0 = now_ns(), t1;
	pid_t tid;

	while ((upto < 0 || s->waiting > (unsigned long)upto) &&
	       (tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		unsigned waiting = s->waiting;
		unsigned long timed = s->timed_stops;

		handle_status(s, tid, status);
		n++;
		t1 = now_ns();
		if (s->waiting == waiting && s->timed_stops == timed) {
			s->other_stops++;
			s->other_ns += t1 - t0;
		}
		t0 = t1;
	}
	return n;
}

int session_reap(struct session *s)
{
	return reap(s, -1);
}

/* One signal read from the signalfd. */
static void take_signal(struct session *s, int sig)
{
	if (sig == SIGCHLD)
		return;
	/* Attached, ctprof does not obey a terminal stop: stopped, it would
	 * hold up every signal of its target. */
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		return;
	if (sig == SIGCONT) {
		s->resumed_after_stop = true;
		return;
	}
	if (s->launched) {
		/* Like a shell waiting for its foreground job: Ctrl-C and
		 * Ctrl-\ at the terminal reach the command from the terminal
		 * itself.  A request to terminate ctprof is passed on to the
		 * command, whose exit ends the run. */
		if ((sig == SIGTERM || sig == SIGHUP) && !s->exited)
			kill(s->pid, sig);
		return;
	}
	if (!s->stop_signal)
		s->stop_signal = sig;
}

bool session_read_signals(struct session *s)
{
	struct signalfd_siginfo sis[8];
	ssize_t len = sizeof(sis);
	bool child = false;

	/* A read short of the buffer took all there was. */
	while (len == sizeof(sis) && (len = read(s->sigfd, sis, sizeof(sis))) > 0)
		for (size_t i = 0; i < (size_t)len / sizeof(sis[0]); i++) {
			child = child || sis[i].ssi_signo == SIGCHLD;
			take_signal(s, (int)sis[i].ssi_signo);
		}
	return child;
}

int session_interrupt(struct session *s, struct thread *t)
{
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return -1;
	t->sample_wanted = true;
	t->interrupt_ns = now_ns();
	s->waiting++;
	return 0;
}

/* Sleep until the signalfd or UNTIL_FD is readable, or DEADLINE.  Returns
 * false if UNTIL_FD is. */
static bool wait_sigfd(struct session *s, uint64_t deadline, int until_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = s->sigfd, .events = POLLIN },
		{ .fd = until_fd, .events = POLLIN },
	};
	uint64_t now = now_ns();
	struct timespec ts;

	if (now >= deadline)
		return true;
	ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
	ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
	ppoll(pfd, 2, &ts, NULL);
	return !(pfd[1].revents & POLLIN);
}

void session_wait_samples(struct session *s, uint64_t spin_ns, uint64_t wait_ns, int until_fd,
			  unsigned upto)
{
	uint64_t start = now_ns(), deadline = start + wait_ns;
	uint64_t inside = s->resume_ns + s->sample_ns + s->other_ns;

	/* Waking up costs more than the wait on a VM (tens of microseconds,
	 * in the stall and in ctprof's CPU time): poll a little first.  The
	 * SIGCHLD these stops raised stays pending and is read later, and
	 * so does any other status: the reaping ends at the last stop
	 * awaited, with no empty waitpid() after it. */
	while (s->waiting > upto && spin_ns && now_ns() - start < spin_ns)
		reap(s, upto);
	inside = s->resume_ns + s->sample_ns + s->other_ns - inside;
	s->spin_ns += now_ns() - start - inside;
	start = now_ns();
	inside = s->resume_ns + s->sample_ns + s->other_ns;

	/* Every stop raises SIGCHLD after its status can be waited for, so
	 * sleeping on the signalfd, draining it, then reaping until nothing is
	 * left loses no wakeup: four system calls per stop, none wasted on an
	 * empty waitpid before the stop can have come. */
	while (s->waiting > upto) {
		bool more;

		if (now_ns() >= deadline)
			break;
		more = wait_sigfd(s, deadline, until_fd);
		session_read_signals(s);
		session_reap(s);
		if (!more)
			break;
	}
	/* The SIGCHLDs of the stops reaped above would wake the sampling
	 * loop once more for nothing: read them now, then, if there were
	 * any, reap once more, so that a status whose SIGCHLD this read
	 * took still gets reaped.  Where there were none (the stops were
	 * reaped after their SIGCHLDs were read, in the loop above), a
	 * status still to come raises a SIGCHLD of its own, and the empty
	 * waitpid() is saved (docs/DESIGN.md, "Stops and copies"). */
	if (s->waiting <= upto && session_read_signals(s))
		session_reap(s);
	s->sleep_ns += now_ns() - start - (s->resume_ns + s->sample_ns + s->other_ns - inside);
}

unsigned session_close_events(struct session *s, uint64_t wait_ns)
{
	uint64_t deadline = now_ns() + wait_ns;
	bool unsticking = false;

	for (size_t i = 0; i < s->nthreads; i++)
		ktrigger_close(s->ktrig, &s->threads[i]);
	/* A signal raised before the close is pending in its thread, which
	 * stops for it on its next return to user space: it is taken there
	 * (handle_status) and suppressed.  One the thread blocks stays
	 * pending: the thread is interrupted, its mask opened to it, and the
	 * stop it then takes suppressed, its mask put back (unstick_*()). */
	for (;;) {
		unsigned left = 0, stuck = 0;
		uint64_t now;

		session_read_signals(s);
		session_reap(s);
		for (size_t i = 0; i < s->nthreads; i++) {
			struct thread *t = &s->threads[i];

			if (t->exiting || !ktrigger_pending(t))
				continue;
			left++;
			if (!unsticking && !t->unstick && ktrigger_stuck(t) &&
			    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0) {
				t->unstick = 1;
				stuck++;
			}
		}
		now = now_ns();
		if (!left || now >= deadline)
			return left;
		/* The first pass lets the unblocked ones come by themselves. */
		unsticking = unsticking || stuck;
		wait_sigfd(s, now + 1000000 < deadline ? now + 1000000 : deadline, -1);
	}
}

void session_drop_stale(struct session *s, uint64_t age_ns)
{
	uint64_t now = now_ns();
	size_t i;

	for (i = 0; i < s->nthreads && s->waiting; i++)
		if (s->threads[i].sample_wanted && now - s->threads[i].interrupt_ns > age_ns)
			drop_sample(s, &s->threads[i]);
}

/* ---- detach ---- */

/* Detach each thread at the stop it reports, for at most 3 s: every
 * thread (ALL), or those whose stop was asked for. */
static void detach_at_stops(struct session *s, bool all)
{
	uint64_t deadline = now_ns() + 3000000000ULL;

	s->detaching = true;
	while (s->nthreads && (all || s->waiting)) {
		if (session_reap(s) > 0)
			continue;
		session_read_signals(s);
		if (session_reap(s) > 0)
			continue;
		if (now_ns() >= deadline)
			break;
		wait_sigfd(s, deadline, -1);
	}
	s->detaching = false;
}

void session_detach(struct session *s)
{
	/* Every thread is running or listening: interrupt it, and detach at
	 * whatever stop it reports (a pending signal goes with the detach). */
	for (size_t i = 0; i < s->nthreads; i++)
		if (ptrace(PTRACE_INTERRUPT, s->threads[i].tid, 0, 0) < 0 && errno == ESRCH)
			s->threads[i].exiting = true;
	detach_at_stops(s, true);
	if (s->nthreads)
		verbose_msg("%zu thread(s) did not stop to be detached; the kernel lets them go when ctprof exits",
			    s->nthreads);
}

void session_let_go(struct session *s)
{
	detach_at_stops(s, false);
	if (s->waiting)
		verbose_msg("%u thread(s) did not come to a stop asked for; the kernel lets them go as the tracer exits",
			    s->waiting);
}

int session_wait_child(struct session *s)
{
	int st;

	while (!s->exited) {
		struct pollfd pfd = { .fd = s->sigfd, .events = POLLIN };
		pid_t r = waitpid(s->pid, &st, WNOHANG);

		if (r == s->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			s->exited = true;
			s->exit_status = st;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;
		poll(&pfd, 1, -1);
		session_read_signals(s);
	}
	return s->exit_status;
}

void session_release(struct session *s)
{
	size_t i;

	while (s->nthreads)
		thread_remove(s, &s->threads[s->nthreads - 1]);
	free(s->threads);
	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i]);
	free(s->procs);
	if (s->sigfd >= 0)
		close(s->sigfd);
	pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
	s->sigfd = -1;
}
