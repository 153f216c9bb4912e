/* session-start.c - attaching to a running process (PTRACE_SEIZE of
 * each of its threads, and why a refusal was) and launching a command
 * under ctprof; see session.h.  The ptrace facts it relies on are
 * session.c's. */
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

/* A kernel thread, in /proc/PID/stat's flags (linux/sched.h). */
#define PF_KTHREAD 0x00200000

/* ---- attach ---- */

static void explain_eperm(pid_t pid, const char *comm)
{
	long tracer = 0, uid = -1;
	char *yama;
	int scope = -1;
	bool cap = proc_self_has_cap(CAP_SYS_PTRACE);

	if (proc_status_long(pid, "TracerPid", &tracer) == 0 && tracer > 0) {
		char tcomm[64];

		proc_comm((pid_t)tracer, tcomm, sizeof(tcomm));
		error_msg("cannot attach to pid %d (%s): it is already traced by pid %ld (%s); detach that tracer first",
			  pid, comm, tracer, tcomm);
		return;
	}
	yama = read_file("/proc/sys/kernel/yama/ptrace_scope", NULL);
	if (yama) {
		scope = atoi(yama);
		free(yama);
	}
	if (scope == 3) {
		error_msg("cannot attach to pid %d (%s): permission denied: kernel.yama.ptrace_scope is 3, which forbids attaching until reboot; start the program under ctprof instead (ctprof -- COMMAND)",
			  pid, comm);
		return;
	}
	if (scope == 2 && !cap) {
		error_msg("cannot attach to pid %d (%s): permission denied: kernel.yama.ptrace_scope is 2, which lets only root (CAP_SYS_PTRACE) attach; run ctprof as root",
			  pid, comm);
		return;
	}
	proc_status_long(pid, "Uid", &uid);
	if (!cap && uid >= 0 && (uid_t)uid != getuid()) {
		error_msg("cannot attach to pid %d (%s): permission denied: it belongs to uid %ld and ctprof runs as uid %u without CAP_SYS_PTRACE; run ctprof as that user or as root",
			  pid, comm, uid, (unsigned)getuid());
		return;
	}
	if (scope == 1 && !cap) {
		error_msg("cannot attach to pid %d (%s): permission denied: kernel.yama.ptrace_scope is 1, which lets only a parent trace its child; run ctprof as root, start the program under ctprof (ctprof -- COMMAND), or set kernel.yama.ptrace_scope to 0",
			  pid, comm);
		return;
	}
	error_msg("cannot attach to pid %d (%s): permission denied: the kernel refused to trace it (a setuid or non-dumpable program, or a security module); run ctprof as root",
		  pid, comm);
}

/* Seize TID; a thread that exited meanwhile is not an error.  A thread
 * already traced by us was seized through a clone event.  0, 1 if gone,
 * or -1 after explaining a refusal. */
static int seize_thread(struct session *s, pid_t tid)
{
	long tracer = 0;

	if (thread_find(s, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0, seize_options(s)) == 0) {
		thread_add(s, s->procs[0], tid)->seized_running = true;
		return 0;
	}
	if (errno == ESRCH)
		return 1;
	if (errno == EPERM) {
		struct proc_stat st;
		int e = errno;

		if (proc_status_long(tid, "TracerPid", &tracer) == 0 && tracer == s->tracer) {
			thread_add(s, s->procs[0], tid);
			return 0;
		}
		/* A thread that has exited cannot be traced (the kernel says
		 * EPERM); a leader that called pthread_exit() stays a zombie
		 * while the other threads run on. */
		if (proc_read_stat(s->pid, tid, &st) < 0 || st.state == 'Z' || st.state == 'X')
			return 1;
		errno = e;
	}
	if (errno == EPERM)
		explain_eperm(s->pid, s->comm);
	else
		error_msg("cannot attach to pid %d (%s): %s", s->pid, s->comm, strerror(errno));
	return -1;
}

int session_attach(struct session *s, pid_t pid)
{
	struct proc_stat st;
	long tgid = 0, tracer = 0;
	pid_t *tids = NULL;
	bool added;
	int i, n, ret;

	if (pid == getpid()) {
		error_msg("pid %d is ctprof itself; give the pid of the program to profile", pid);
		return -1;
	}
	/* TracerPid, in /proc, is the tracing thread's id. */
	s->tracer = (pid_t)syscall(SYS_gettid);
	ret = proc_read_stat(pid, 0, &st);
	if (ret < 0) {
		if (ret == -ENOENT || ret == -ESRCH)
			error_msg("no process with pid %d (see ps or pgrep for the right one)", pid);
		else
			error_msg("cannot read /proc/%d: %s", pid, strerror(-ret));
		return -1;
	}
	if (proc_status_long(pid, "Tgid", &tgid) == 0 && tgid > 0 && tgid != pid) {
		error_msg("note: %d is a thread of process %ld; profiling the whole process", pid, tgid);
		pid = (pid_t)tgid;
		if (pid == getpid()) {
			error_msg("pid %d is ctprof itself; give the pid of the program to profile", pid);
			return -1;
		}
		if (proc_read_stat(pid, 0, &st) < 0) {
			error_msg("no process with pid %d (see ps or pgrep for the right one)", pid);
			return -1;
		}
	}
	s->pid = pid;
	proc_comm(pid, s->comm, sizeof(s->comm));
	process_add(s, pid);
	if (st.flags & PF_KTHREAD) {
		error_msg("pid %d (%s) is a kernel thread; ctprof profiles user-space programs", pid, s->comm);
		return -1;
	}
	if ((st.state == 'Z' || st.state == 'X') && st.num_threads <= 1) {
		error_msg("pid %d (%s) is a zombie: it has exited and waits for its parent to reap it",
			  pid, s->comm);
		return -1;
	}
	if (proc_status_long(pid, "TracerPid", &tracer) == 0 && tracer > 0) {
		explain_eperm(pid, s->comm);
		return -1;
	}

	/* Threads created while we list and seize are seized by the clone
	 * events of seized threads, or found by listing again. */
	do {
		added = false;
		session_reap(s);
		n = proc_tasks(pid, &tids);
		if (n < 0) {
			error_msg("no process with pid %d (see ps or pgrep for the right one)", pid);
			goto fail;
		}
		for (i = 0; i < n; i++) {
			size_t before = s->nthreads;

			ret = seize_thread(s, tids[i]);
			if (ret < 0)
				goto fail;
			if (s->nthreads > before)
				added = true;
		}
		free(tids);
		tids = NULL;
	} while (added);
	if (!s->nthreads) {
		error_msg("no process with pid %d (see ps or pgrep for the right one)", pid);
		return -1;
	}
	return 0;
fail:
	free(tids);
	session_detach(s);
	return -1;
}

/* ---- launch ---- */

int session_launch(struct session *s, char **argv, int *status)
{
	int sync[2], errp[2], st, child_errno = 0;
	pid_t pid;
	char c = 'g';

	*status = 125;
	s->tracer = (pid_t)syscall(SYS_gettid);
	if (pipe2(sync, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		error_msg("cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		error_msg("cannot run '%s': fork: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int e;

		close(sync[1]);
		close(errp[0]);
		/* The command gets the signal mask ctprof started with. */
		pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
		if (s->nofile_raised)
			setrlimit(RLIMIT_NOFILE, &s->old_nofile);
		/* Wait until the parent has seized us, so that nothing of the
		 * command runs untraced.  EOF: the parent gave up. */
		while (read(sync[0], &c, 1) < 0 && errno == EINTR)
			;
		if (c != 'g')
			_exit(125);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(sync[0]);
	close(errp[1]);
	s->pid = pid;
	s->launched = true;
	/* Ctrl-Z stops the job: ctprof with its command, as a shell's job.
	 * The command's own SIGTSTP waits in its signal-delivery stop while
	 * ctprof is stopped; after 'fg' ctprof passes it on, and the kernel
	 * drops a stop signal that a SIGCONT has overtaken (it clears
	 * JOBCTL_STOP_DEQUEUED), so the command runs on. */
	{
		sigset_t stops;

		sigemptyset(&stops);
		sigaddset(&stops, SIGTSTP);
		sigaddset(&stops, SIGTTIN);
		sigaddset(&stops, SIGTTOU);
		pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, seize_options(s)) < 0) {
		error_msg("cannot trace '%s': %s", argv[0], strerror(errno));
		c = 'x';
		close(sync[1]);
		close(errp[0]);
		waitpid(pid, &st, 0);
		return -1;
	}
	if (write(sync[1], &c, 1) != 1) {
		error_msg("cannot run '%s': %s", argv[0], strerror(errno));
		kill(pid, SIGKILL);
	}
	close(sync[1]);

	/* The first stop of interest is the exec: nothing of the command has
	 * run yet.  Until then, pass on any signal. */
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			error_msg("cannot run '%s': waitpid: %s", argv[0], strerror(errno));
			close(errp[0]);
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if ((st >> 16) == PTRACE_EVENT_EXEC)
			break;
		if ((st >> 16) == 0)
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
		else
			ptrace(PTRACE_CONT, pid, 0, 0);
	}
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (read(errp[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
			if (child_errno == ENOENT && !strchr(argv[0], '/'))
				error_msg("cannot run '%s': command not found", argv[0]);
			else
				error_msg("cannot run '%s': %s", argv[0], strerror(child_errno));
			*status = child_errno == ENOENT ? 127 : 126;
		} else {
			error_msg("'%s' ended before it could run", argv[0]);
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		close(errp[0]);
		return -1;
	}
	close(errp[0]);
	proc_comm(pid, s->comm, sizeof(s->comm));
	thread_add(s, process_add(s, pid), pid);
	if (ptrace(PTRACE_CONT, pid, 0, 0) < 0) {
		error_msg("cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	return 0;
}

