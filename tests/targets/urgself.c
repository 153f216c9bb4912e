/* urgself [SECONDS [SENT]]: a program with a handler of its own for
 * SIGURG and SIGWINCH, the perf trigger's signals, to show that ctprof's
 * never reach it.
 *
 * Three threads spin: main in main_spin(); one with every signal blocked
 * from its start in blocked_spin() (as servers start their workers); one
 * that blocks every signal in short sections, crit_spin() inside, and
 * open_spin() between them.  Main sends SENT signals (default 5), spread
 * over the run, which must all arrive: SIGURG to itself with tgkill, and
 * SIGWINCH to the process with kill, as a terminal does (a thread-directed
 * one could merge with ctprof's pending one, docs/DESIGN.md).  It runs for
 * SECONDS (default 2; 0: until SIGTERM) and then prints on stdout
 *     urgself: handler H sent S
 *     urgself: cpu main M blocked B crit C
 * H the calls of its handler, and each thread's CPU seconds. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_long handled;
static atomic_int done;
static volatile unsigned long sink;
static double cpu_of[3];

static void on_urg(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&done, 1);
}

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* About US microseconds of arithmetic. */
__attribute__((noinline)) static void spin_us(double us)
{
	double end = now_s(CLOCK_MONOTONIC) + us / 1e6;

	while (now_s(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 200; i++)
			sink += (unsigned long)i * i;
}

/* Each with a length of its own, so that no two are merged into one. */
__attribute__((noinline)) static void main_spin(void) { spin_us(100); }
__attribute__((noinline)) static void blocked_spin(void) { spin_us(101); }
__attribute__((noinline)) static void crit_spin(void) { spin_us(30); }
__attribute__((noinline)) static void open_spin(void) { spin_us(31); }

static void *blocked_worker(void *arg)
{
	while (!atomic_load(&done))
		blocked_spin();
	cpu_of[1] = now_s(CLOCK_THREAD_CPUTIME_ID);
	return arg;
}

static void *crit_worker(void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	while (!atomic_load(&done)) {
		pthread_sigmask(SIG_SETMASK, &all, &old);
		crit_spin();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		open_spin();
	}
	cpu_of[2] = now_s(CLOCK_THREAD_CPUTIME_ID);
	return arg;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, start;
	long sent = 0, want = argc > 2 ? atol(argv[2]) : 5;
	struct sigaction sa = { .sa_handler = on_urg, .sa_flags = SA_RESTART };
	sigset_t all, old;
	pthread_t a, b;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGURG, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	/* The first worker starts with every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&a, NULL, blocked_worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_create(&b, NULL, crit_worker, NULL);
	start = now_s(CLOCK_MONOTONIC);
	while (!atomic_load(&done)) {
		double t = now_s(CLOCK_MONOTONIC) - start;

		main_spin();
		/* Its own signals: one every 0.2 s while any are left. */
		if (sent < want && t >= 0.2 * (double)(sent + 1)) {
			if (sent % 2)
				kill(getpid(), SIGWINCH);
			else
				syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGURG);
			sent++;
		}
		if (secs > 0 && t >= secs && sent >= want)
			atomic_store(&done, 1);
	}
	cpu_of[0] = now_s(CLOCK_THREAD_CPUTIME_ID);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("urgself: handler %ld sent %ld\n", atomic_load(&handled), sent);
	printf("urgself: cpu main %.3f blocked %.3f crit %.3f\n", cpu_of[0], cpu_of[1], cpu_of[2]);
	return 0;
}
