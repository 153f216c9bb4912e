/* floor cross|same|poll|wake [ITERATIONS [HZ]]: the least a ptrace sampler
 * can stop a busy thread for, on this machine, now, and the least CPU time
 * it spends to do so.
 *
 * Forks a child that spins in user space, PTRACE_SEIZEs it, and ITERATIONS
 * times (default 2000), HZ times a second (default 1000), times
 *     PTRACE_INTERRUPT + waitpid + PTRACE_GETREGS + PTRACE_CONT
 * which is a sample with nothing captured but the registers.  "cross" pins
 * the tracer on CPU 0 and the child on CPU 1 (the first two CPUs it may
 * use: every step is a cross-CPU wakeup); "same" pins both on CPU 0; "poll" is "cross" with the tracer
 * polling waitpid(WNOHANG) instead of sleeping in it (no wakeup of the
 * tracer: the floor of a sampler that spins for the stop).  "wake" is
 * "cross" without the ptrace requests: the tracer only sleeps until each
 * tick, which is what waking up costs it.  The tracer asks for SCHED_FIFO
 * priority 1, as ctprof does, and says whether it got it.  The first 50
 * iterations are a warm-up and are not counted.
 *
 * Prints one line:
 *     floor MODE: median X us, p99 Y us, own CPU Z us per iteration, N iterations, CPUs T/C, SCHED_FIFO|SCHED_OTHER
 * where Z is the tracer's CPU time (CLOCK_THREAD_CPUTIME_ID) over the
 * counted iterations, sleeps and wake-ups included, divided by N; for
 * "wake" the median and p99 are n/a.
 * or "floor MODE: n/a (...)" and exit status 3 when the mode cannot be
 * set up (one CPU only).
 *
 * It leaves nothing behind: the child is SIGKILLed and reaped at the end or
 * on SIGINT/SIGTERM/SIGHUP, dies with the tracer in any case
 * (PR_SET_PDEATHSIG and PTRACE_O_EXITKILL) and gives up by itself after
 * 120 s. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 50

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void die(const char *what, pid_t child)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, __WALL);
	}
	exit(1);
}

static void spin(pid_t parent)
{
	volatile uint64_t x = 1;
	uint64_t start = now_ns();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;) {
		for (int i = 0; i < 1000000; i++)
			x = x * 2862933555777941757ULL + 3037000493ULL;
		if (now_ns() - start > 120ULL * 1000000000ULL)
			_exit(0);
	}
}

int main(int argc, char **argv)
{
	int same, poll, wake, n, hz, status, fifo, cpus[2] = { 0, 0 };
	pid_t w;
	struct sched_param sp = { .sched_priority = 1 };
	struct user_regs_struct regs;
	struct timespec next;
	uint64_t *t, period, cpu0 = 0, cpu_ns;
	pid_t parent = getpid(), child;

	if (argc < 2 || (strcmp(argv[1], "cross") && strcmp(argv[1], "same") && strcmp(argv[1], "poll") &&
			 strcmp(argv[1], "wake"))) {
		fprintf(stderr, "usage: floor cross|same|poll|wake [ITERATIONS [HZ]]\n");
		return 2;
	}
	same = !strcmp(argv[1], "same");
	poll = !strcmp(argv[1], "poll");
	wake = !strcmp(argv[1], "wake");
	n = argc > 2 ? atoi(argv[2]) : 2000;
	hz = argc > 3 ? atoi(argv[3]) : 1000;
	if (n < 1 || hz < 1 || hz > 100000) {
		fprintf(stderr, "floor: bad ITERATIONS or HZ\n");
		return 2;
	}
	/* The first two CPUs this process may run on (0 and 1 usually). */
	{
		cpu_set_t set;
		int found = 0;

		if (sched_getaffinity(0, sizeof(set), &set) < 0)
			die("sched_getaffinity", 0);
		for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
			if (CPU_ISSET(c, &set))
				cpus[found++] = c;
		if (found < 2 && !same) {
			printf("floor %s: n/a (one CPU)\n", argv[1]);
			return 3;
		}
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		die("calloc", 0);
	if (pin(cpus[0]) < 0)
		die("sched_setaffinity (tracer)", 0);

	child = fork();
	if (child < 0)
		die("fork", 0);
	if (child == 0) {
		if (pin(same ? cpus[0] : cpus[1]) < 0)
			_exit(1);
		spin(parent);
	}
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	if (!wake && ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_EXITKILL) < 0)
		die("PTRACE_SEIZE", child);
	/* After the fork, and not inherited by anything else. */
	fifo = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
	/* Let the child reach its loop. */
	usleep(20000);

	period = 1000000000ULL / (uint64_t)hz;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = -WARMUP; i < n && !got_signal; i++) {
		uint64_t t0, t1;

		if (i == 0)
			cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

		next.tv_nsec += (long)period;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !got_signal)
			;
		if (wake)
			continue;
		t0 = now_ns();
		if (ptrace(PTRACE_INTERRUPT, child, 0, 0) < 0)
			die("PTRACE_INTERRUPT", child);
		while ((w = waitpid(child, &status, __WALL | (poll ? WNOHANG : 0))) == 0)
			;
		if (w != child) {
			if (got_signal)
				break;
			die("waitpid", child);
		}
		if (!WIFSTOPPED(status)) {
			errno = ESRCH;
			die("child not stopped", 0);
		}
		if (ptrace(PTRACE_GETREGS, child, 0, &regs) < 0)
			die("PTRACE_GETREGS", child);
		if (ptrace(PTRACE_CONT, child, 0, 0) < 0)
			die("PTRACE_CONT", child);
		t1 = now_ns();
		if (i >= 0)
			t[i] = t1 - t0;
	}
	cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	kill(child, SIGKILL);
	waitpid(child, NULL, __WALL);
	if (got_signal) {
		signal(got_signal, SIG_DFL);
		raise(got_signal);
		return 1;
	}

	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	{
		double med = n % 2 ? t[n / 2] / 1e3 : (t[n / 2 - 1] + t[n / 2]) / 2e3;
		size_t k = (size_t)(0.99 * n + 0.999999);

		if (k < 1)
			k = 1;
		if (wake)
			printf("floor %s: median n/a us, p99 n/a us", argv[1]);
		else
			printf("floor %s: median %.1f us, p99 %.1f us", argv[1], med, t[k - 1] / 1e3);
		printf(", own CPU %.1f us per iteration, %d iterations, CPUs %d/%d, %s\n",
		       (double)cpu_ns / 1e3 / n, n, cpus[0], same ? cpus[0] : cpus[1],
		       fifo ? "SCHED_FIFO" : "SCHED_OTHER");
	}
	free(t);
	return 0;
}
