/* pollsleep [SECONDS [FDS]]: a thread whose system call works in the
 * kernel before it sleeps, and which knows its own share of that work.
 *
 * For SECONDS (default 3) it loops over a burst of arithmetic in
 * arith_burst() (about 150 us of its CPU time) and one call of
 * wait_a_little(): a ppoll() of FDS (default 900) eventfds that are never
 * ready, with a timeout of 200 us.  The kernel visits every descriptor and
 * queues the thread on each one's wait queue (tens to hundreds of
 * microseconds of CPU, here), sleeps until the timeout, and then takes it
 * off them all again: CPU time in the call both before and after the
 * sleep.
 *
 * It measures its own CPU time (CLOCK_THREAD_CPUTIME_ID) around each call
 * and at exit prints, on stdout, the share of the loop's CPU time spent
 * inside wait_a_little() and how many seconds of CPU that is of:
 *     pollsleep: wait_a_little 41.2% of 1.21 s
 * Time asleep is no CPU time: it is in neither part.
 *
 * A kernel that does not preempt its own code (preempt=none) lets the
 * thread run on in the call, at a tick that finds it there, until it
 * sleeps: a sampler that takes only threads still on a CPU (or running)
 * when it reads them misses every tick of the work before the sleep.
 * perf's tick counts it in the call.  scripts/bench.sh runs it pinned to
 * one CPU under ctprof and perf, beside its own share (README's
 * Limitations, "A tick in kernel code"). */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "timeutil.h"

#define OWN_FUNCTION __attribute__((noinline, noclone))

static volatile unsigned long sink;

/* A chain of dependent multiplies, for SECS seconds of the thread's CPU
 * time. */
OWN_FUNCTION static void arith_burst(double secs)
{
	sink = SPIN_ON(thread_cpu_s, secs, 13);
}

/* One poll of descriptors that are never ready, until its timeout. */
OWN_FUNCTION static void wait_a_little(struct pollfd *fds, int n)
{
	struct timespec ts = { 0, 200000 };

	sink += (unsigned long)ppoll(fds, (nfds_t)n, &ts, NULL);
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 3.0), s0, c0, c1, c2, in_call = 0, all = 0;
	int n = argc > 2 ? atoi(argv[2]) : 900;
	unsigned long calls = 0;
	struct pollfd *fds;
	struct rlimit rl;

	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: pollsleep [SECONDS [FDS]]\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 16) {
		rl.rlim_cur = (rlim_t)n + 16 < rl.rlim_max ? (rlim_t)n + 16 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Its sleeps end at their own time, not at the next timer of
	 * another thread's that falls within the default 50 us of slack
	 * (a profiler's tick would be one). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	fds = calloc((size_t)n, sizeof(*fds));
	if (!fds)
		return 1;
	for (int i = 0; i < n; i++) {
		fds[i].fd = eventfd(0, EFD_CLOEXEC);
		fds[i].events = POLLIN;
		if (fds[i].fd < 0) {
			perror("pollsleep: eventfd (raise ulimit -n)");
			return 1;
		}
	}
	/* Warm-up: the loop's code and the kernel's paths are brought in. */
	for (int i = 0; i < 20; i++) {
		arith_burst(0.0001);
		wait_a_little(fds, n);
	}
	s0 = now_s();
	c0 = thread_cpu_s();
	while (now_s() - s0 < secs) {
		arith_burst(0.00015);
		c1 = thread_cpu_s();
		wait_a_little(fds, n);
		c2 = thread_cpu_s();
		in_call += c2 - c1;
		calls++;
	}
	all = thread_cpu_s() - c0;
	printf("pollsleep: wait_a_little %.2f%% of %.2f s\n", all > 0 ? 100 * in_call / all : 0.0, all);
	fprintf(stderr, "pollsleep: %lu calls of %d descriptors, %.1f us of CPU each, %.2f s of CPU in %.2f s\n",
		calls, n, calls ? in_call / calls * 1e6 : 0.0, all, now_s() - s0);
	return 0;
}
