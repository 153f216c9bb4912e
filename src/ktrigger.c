/* ktrigger.c - see ktrigger.h. */
#define _GNU_SOURCE
#include "ktrigger.h"
#include "proc.h"
#include "session.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef POLL_HUP
#define POLL_HUP 6
#endif

/* The event: the thread's own CPU clock, sampled in user mode only.  A
 * tick in kernel mode would raise the signal while the thread is inside
 * a system call, and a call that then goes to sleep ends at once with
 * EINTR, suppressed signal or not (docs/DESIGN.md, "Kernel time").  No
 * inherit: each thread gets its own at its clone event, routed to it;
 * remove_on_exec: a new image gets a new one at the exec event. */
static int open_event(pid_t tid, uint64_t period_ns)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.remove_on_exec = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int ktrigger_probe(pid_t tid)
{
	int fd = open_event(tid, 1000000);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Bit SIG of the signal mask FIELD ("SigBlk", "SigPnd") of thread T,
 * from its status file: 1 set, 0 clear, -1 unreadable. */
static int mask_has(const struct thread *t, const char *field, int sig)
{
	char path[64], *buf, *line;
	size_t flen = strlen(field);
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", t->proc->pid, t->tid);
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			unsigned long long m = strtoull(line + flen + 1, NULL, 16);

			ret = (int)((m >> (sig - 1)) & 1);
			break;
		}
	free(buf);
	return ret;
}

int ktrigger_open(struct ktrigger *k, struct thread *t)
{
	static const int sigs[] = KTRIGGER_SIGNALS;
	struct f_owner_ex own = { F_OWNER_TID, t->tid };
	int fd, i;

	if (t->ev_fd >= 0)
		return 0;
	/* A blocked signal is not delivered: the thread would stop only
	 * where it unblocks it, late, or never. */
	for (i = 0; i < (int)ARRAY_SIZE(sigs); i++)
		if (mask_has(t, "SigBlk", sigs[i]) != 1)
			break;
	if (i == (int)ARRAY_SIZE(sigs)) {
		k->unroutable++;
		return -EAGAIN;
	}
	fd = open_event(t->tid, k->period_ns);
	if (fd < 0) {
		int err = errno;

		if (!k->error)
			k->error = err;
		k->failed++;
		return -err;
	}
	if (fcntl(fd, F_SETOWN_EX, &own) < 0 || fcntl(fd, F_SETSIG, sigs[i]) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0) {
		int err = errno;

		close(fd);
		k->failed++;
		return -err;
	}
	t->ev_fd = t->ev_num = fd;
	t->ev_sig = sigs[i];
	k->opened++;
	k->by_signal[i]++;
	return 0;
}

void ktrigger_close(struct thread *t)
{
	if (t->ev_fd < 0)
		return;
	close(t->ev_fd);
	t->ev_fd = -1;
}

bool ktrigger_is_ours(const struct thread *t, int sig)
{
	siginfo_t si;

	if (!t->ev_sig || sig != t->ev_sig)
		return false;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return false;
	return si.si_code >= POLL_IN && si.si_code <= POLL_HUP && si.si_fd == t->ev_num;
}

bool ktrigger_pending(const struct thread *t)
{
	return t->ev_sig && mask_has(t, "SigPnd", t->ev_sig) == 1;
}
