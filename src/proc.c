/* proc.c - see proc.h. */
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int proc_stat_parse(const char *buf, struct proc_stat *st)
{
	const char *open = strchr(buf, '(');
	const char *close = strrchr(buf, ')');
	unsigned long flags;
	long num_threads;
	unsigned long long starttime;
	int processor, n;
	size_t len;
	char state;

	if (!open || !close || close < open)
		return -EINVAL;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(st->comm))
		len = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, len);
	st->comm[len] = '\0';

	/* After the comm: state(3) ppid pgrp session tty_nr tpgid flags(9) minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * num_threads(20) itrealvalue starttime vsize rss rsslim startcode
	 * endcode startstack kstkesp kstkeip signal blocked sigignore sigcatch
	 * wchan nswap cnswap exit_signal processor(39). */
	n = sscanf(close + 1,
		   " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld"
		   " %*d %llu %*u %*d %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*d %d",
		   &state, &flags, &num_threads, &starttime, &processor);
	if (n < 1)
		return -EINVAL;
	st->state = state;
	st->flags = n >= 2 ? flags : 0;
	st->num_threads = n >= 3 ? num_threads : 0;
	st->starttime = n >= 4 ? starttime : 0;
	st->processor = n >= 5 ? processor : -1;
	return 0;
}

int proc_read_stat(pid_t pid, pid_t tid, struct proc_stat *st)
{
	char path[64], *buf;
	int ret;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf = read_file(path, NULL);
	if (!buf)
		return -errno;
	ret = proc_stat_parse(buf, st);
	free(buf);
	return ret;
}

unsigned long proc_fds_short;

/* Until when opens are not tried again after one ran out of descriptors
 * (CLOCK_MONOTONIC, ns; 0: they are tried). */
static uint64_t fds_retry_ns;

/* Open /proc/PID/task/TID/NAME, read-only; -1 on error (EMFILE and
 * ENFILE counted in proc_fds_short).
 *
 * Once an open has run out of descriptors, the next ones fail at once,
 * without the system call, for FDS_RETRY_NS or until ctprof closes one
 * of its own (proc_fd_closed()): tried again at every tick, the failed
 * opens of threads whose files could not be kept open kept ctprof busy
 * (docs/DESIGN.md, "Stops and copies"). */
static int open_task_file(pid_t pid, pid_t tid, const char *name)
{
	char path[64];
	int fd;

	if (fds_retry_ns && now_ns() < fds_retry_ns) {
		proc_fds_short++;
		errno = EMFILE;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		proc_fds_short++;
		fds_retry_ns = now_ns() + FDS_RETRY_NS;
	}
	return fd;
}

void proc_fd_closed(void)
{
	fds_retry_ns = 0;
}

int proc_open_task_stat(pid_t pid, pid_t tid)
{
	return open_task_file(pid, tid, "stat");
}

/* Read a kept-open /proc file from its start into BUF (SIZE bytes), as a
 * NUL-terminated text.  False if nothing could be read. */
static bool pread_text(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, size - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

char proc_state(int fd, int *cpu, uint64_t *faults)
{
	char buf[512];

	if (!pread_text(fd, buf, sizeof(buf)))
		return 0;
	/* The comm is at most 16 bytes, so the last ')' is in the first 512. */
	return proc_state_parse(buf, cpu, faults);
}

char proc_state_parse(const char *buf, int *cpu, uint64_t *faults)
{
	uint64_t minflt = 0;
	const char *p;
	char state;
	int field;

	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return 0;
	state = p[2];
	if (!cpu && !faults)
		return state;
	if (cpu)
		*cpu = -1;
	/* The state is field 3; minflt field 10, majflt 12; "processor" 39. */
	for (field = 3, p += 2; *p && field < 39; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 10)
			minflt = strtoull(p + 1, NULL, 10);
		if (field == 12 && faults)
			*faults = minflt + strtoull(p + 1, NULL, 10);
		if (field == 12 && !cpu)
			return state;
	}
	if (field == 39 && cpu)
		*cpu = atoi(p);
	return state;
}

/* The first, or with LAST the last, number of FIELD's line. */
static int status_number(pid_t pid, const char *field, bool last, long *out)
{
	char path[64], *buf, *line;
	size_t flen = strlen(field);
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf = read_file(path, NULL);
	if (!buf)
		return -errno;
	for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *p, *end;

		if (strncmp(line, field, flen) || line[flen] != ':')
			continue;
		for (p = line + flen + 1;; p = end) {
			long v;

			/* Not strtol's blanks: they include the newline. */
			while (*p == ' ' || *p == '\t')
				p++;
			v = strtol(p, &end, 10);
			if (*p == '\n' || end == p)
				break;
			*out = v;
			ret = 0;
			if (!last)
				break;
		}
		break;
	}
	free(buf);
	return ret;
}

int proc_fd_flags(pid_t pid, int fd, int *flags)
{
	char path[64], *buf, *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	/* "pos:\t0\nflags:\t02004002\n...", the flags in octal. */
	f = strstr(buf, "\nflags:");
	if (f && sscanf(f + 7, "%o", (unsigned *)flags) == 1)
		ret = 0;
	free(buf);
	return ret;
}

int proc_status_long(pid_t pid, const char *field, long *out)
{
	return status_number(pid, field, false, out);
}

int proc_status_last(pid_t pid, const char *field, long *out)
{
	return status_number(pid, field, true, out);
}

void proc_comm(pid_t pid, char *buf, size_t n)
{
	char path[64], *s, *nl;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	s = read_file(path, NULL);
	if (!s) {
		snprintf(buf, n, "?");
		return;
	}
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, n, "%s", s);
	free(s);
}

int proc_tasks(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *de;
	size_t n = 0, cap = 0;
	pid_t *v = NULL;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long t = strtol(de->d_name, NULL, 10);

		if (t <= 0)
			continue;
		GROW(v, cap, n + 1);
		v[n++] = (pid_t)t;
	}
	closedir(d);
	*tids = v;
	return (int)n;
}

bool proc_self_has_cap(int cap)
{
	char *buf = read_file("/proc/thread-self/status", NULL);
	unsigned long long eff = 0;
	char *p;

	if (!buf)
		return false;
	p = strstr(buf, "\nCapEff:");
	if (p)
		eff = strtoull(p + 8, NULL, 16);
	free(buf);
	return (eff >> cap) & 1;
}

int proc_open_task_schedstat(pid_t pid, pid_t tid)
{
	return open_task_file(pid, tid, "schedstat");
}

int proc_schedstat(int fd, uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices)
{
	char buf[128], *p, *end;

	if (!pread_text(fd, buf, sizeof(buf)))
		return -1;
	/* "run_ns wait_ns timeslices"; read every tick for idle threads */
	*run_ns = strtoull(buf, &end, 10);
	if (end == buf)
		return -1;
	*wait_ns = strtoull(end, &p, 10);
	*slices = strtoull(p, &end, 10);
	return end == p ? -1 : 0;
}

int proc_open_task_sched(pid_t pid, pid_t tid)
{
	return open_task_file(pid, tid, "sched");
}

int proc_exec_start(int fd, uint64_t *ns)
{
	char buf[512], *p, *end;      /* the field is on the third line */
	uint64_t ms, frac = 0;
	int digits = 0;

	if (!pread_text(fd, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "se.exec_start");
	if (!p || !(p = strchr(p, ':')))
		return -1;
	ms = strtoull(p + 1, &end, 10);
	if (end == p + 1 || *end != '.')
		return -1;
	for (p = end + 1; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	for (; digits < 6; digits++)
		frac *= 10;
	*ns = ms * 1000000ULL + frac;
	return 0;
}

int proc_cpus_idle(int fd, uint64_t *idle, int ncpus)
{
	/* The "cpuN" lines come first; the rest (the long "intr" line)
	 * need not fit. */
	size_t size = (size_t)ncpus * 128 + 256;
	char *buf = xmalloc(size), *p, *nl, *end;
	int ret = -1;

	if (!pread_text(fd, buf, size))
		goto out;
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
		unsigned long long v[5];
		long c;
		int i;

		if (strncmp(p, "cpu", 3) != 0)
			break;
		ret = 0;
		if (p[3] < '0' || p[3] > '9')
			continue;       /* the line of all CPUs */
		c = strtol(p + 3, &end, 10);
		for (i = 0; i < 5 && end < nl; i++)
			v[i] = strtoull(end, &end, 10);
		/* user nice system idle iowait */
		if (i == 5 && c >= 0 && c < ncpus)
			idle[c] = v[3] + v[4];
	}
out:
	free(buf);
	return ret;
}

int proc_open_task_syscall(pid_t pid, pid_t tid)
{
	return open_task_file(pid, tid, "syscall");
}

int proc_read_wait_site(int fd, long *nr, uint64_t args[6], uint64_t *sp, uint64_t *pc)
{
	unsigned long long v[8];
	char buf[256];
	ssize_t n;
	int k;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "running", "-1 SP PC", or "NR A1 .. A6 SP PC" (hex after NR). */
	if (sscanf(buf, "%ld", nr) != 1)
		return -1;
	k = sscanf(buf, "%*d %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (k == 2) {
		*sp = v[0];
		*pc = v[1];
		if (args)
			memset(args, 0, 6 * sizeof(*args));
	} else if (k == 8) {
		*sp = v[6];
		*pc = v[7];
		for (int i = 0; args && i < 6; i++)
			args[i] = v[i];
	} else {
		return -1;
	}
	return 0;
}
