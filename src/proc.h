/* proc.h - small readers of /proc/PID files.  Nothing here stops a thread. */
#ifndef CTPROF_PROC_H
#define CTPROF_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
	char state;             /* R, S, D, T, t, Z, X, ... */
	char comm[64];
	unsigned long flags;    /* PF_* flags of the task */
	long num_threads;
	unsigned long long starttime;   /* clock ticks after boot */
	int processor;          /* CPU it last ran on */
};

/* Parse the text of /proc/PID[/task/TID]/stat.  The comm may hold spaces and
 * parentheses, so fields are found after the LAST ')'.  Returns 0 or -EINVAL. */
int proc_stat_parse(const char *buf, struct proc_stat *st);

/* Read /proc/PID/task/TID/stat (tid 0: /proc/PID/stat).  0 or -errno. */
int proc_read_stat(pid_t pid, pid_t tid, struct proc_stat *st);

/* Open /proc/PID/task/TID/stat for repeated proc_state() calls; -1 on error. */
int proc_open_task_stat(pid_t pid, pid_t tid);

/* Opens of a thread's /proc files (proc_open_task_*()) that failed for
 * want of a file descriptor (EMFILE, ENFILE), or were not tried for it. */
extern unsigned long proc_fds_short;

/* After an open ran out of descriptors, the next ones are not tried for
 * this long (they fail with EMFILE), unless proc_fd_closed() is called. */
#define FDS_RETRY_NS 100000000ULL

/* ctprof closed a descriptor: the next open is tried. */
void proc_fd_closed(void);

/* The state letter of a thread from its kept-open stat fd (one pread, no
 * allocation), or 0 if the thread is gone.  If CPU is not NULL, it gets the
 * CPU the thread last ran on (-1 if unknown); if FAULTS is not NULL, its
 * page faults so far, minor and major (unchanged if the line is short). */
char proc_state(int stat_fd, int *cpu, uint64_t *faults);
/* The parsing half of proc_state(), on the NUL-terminated text BUF. */
char proc_state_parse(const char *buf, int *cpu, uint64_t *faults);

/* Open /proc/PID/task/TID/schedstat for repeated proc_schedstat() calls. */
int proc_open_task_schedstat(pid_t pid, pid_t tid);
/* From a thread's kept-open schedstat fd: its CPU time in nanoseconds
 * (user and system, as the scheduler accounts it; for a thread on a CPU
 * now, only up to the scheduler's last update), the time it waited
 * runnable for a CPU (counted as it gets one), and how many times it has
 * been given a CPU (counted as it gets one).  0, or -1 if unreadable. */
int proc_schedstat(int schedstat_fd, uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices);
/* Open /proc/PID/task/TID/sched for repeated proc_exec_start() calls. */
int proc_open_task_sched(pid_t pid, pid_t tid);
/* From a thread's kept-open sched fd: its se.exec_start, in nanoseconds
 * of its CPU's run queue clock (not CLOCK_MONOTONIC): for a thread off
 * its CPU, when it last left one.  0, or -1 if unreadable. */
int proc_exec_start(int sched_fd, uint64_t *ns);

/* How long each CPU has been idle since boot, from /proc/stat (its idle
 * and iowait columns), in clock ticks (sysconf(_SC_CLK_TCK)): IDLE[c] for
 * c < NCPUS, left as it was for a CPU /proc/stat does not list.  FD is
 * /proc/stat kept open.  0, or -1 if unreadable. */
int proc_cpus_idle(int fd, uint64_t *idle, int ncpus);

/* Where a blocked thread waits, from its /proc/PID/task/TID/syscall
 * opened once (proc_open_task_syscall(); FD -1 if it could not be): the
 * system call number (-1: blocked, but not in a system call), its
 * arguments into ARGS if not NULL (zeros if not in a call), its stack
 * pointer and the address after the call.  0, or -1 if it is not
 * blocked (running) or cannot be read.  Kept open because a read costs
 * a fraction of an open, read and close (docs/DESIGN.md, "Wall-clock
 * mode"). */
int proc_open_task_syscall(pid_t pid, pid_t tid);
int proc_read_wait_site(int fd, long *nr, uint64_t args[6], uint64_t *sp, uint64_t *pc);

/* The open flags (O_NONBLOCK, ...) of descriptor FD of PID, from
 * /proc/PID/fdinfo/FD.  0, or -1 if it cannot be read (closed since). */
int proc_fd_flags(pid_t pid, int fd, int *flags);

/* Read an integer field ("TracerPid", "Uid", ...) of /proc/PID/status.
 * For "Uid"/"Gid" the first (real) id is returned.  0 or -errno. */
int proc_status_long(pid_t pid, const char *field, long *out);
/* The same, the field's last number ("NSpid": the pid in the process's
 * own namespace).  0 or -errno. */
int proc_status_last(pid_t pid, const char *field, long *out);

/* /proc/PID/comm into buf (without the newline); "?" if unreadable. */
void proc_comm(pid_t pid, char *buf, size_t n);

/* The thread ids of PID, as a malloc'd array owned by the caller.
 * Returns the count, or -errno. */
int proc_tasks(pid_t pid, pid_t **tids);

/* True if this process has capability CAP in its effective set. */
bool proc_self_has_cap(int cap);

#endif
