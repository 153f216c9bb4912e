/* sigburst: one thread works for SECONDS of wall time while another sends
 * it SIGUSR1 every GAP microseconds (default 20); the handler only counts,
 * a few nanoseconds a signal.  Under ptrace each signal stops the worker
 * until the tracer delivers it, and a sample stop asked for then finds the
 * worker at the handler's first instruction, where it was not at the tick
 * (tests/sigframe.sh).  At exit it prints the signals handled:
 *
 *   sigburst: 25000 signals
 *
 * usage: sigburst SECONDS [GAP] */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"

static volatile sig_atomic_t done;
static volatile unsigned long handled;
static pid_t worker;

__attribute__((noinline)) static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

__attribute__((noinline)) static unsigned long work(unsigned long x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static void *sender(void *arg)
{
	long gap_us = (long)arg;

	while (!done) {
		syscall(SYS_tgkill, getpid(), worker, SIGUSR1);
		sleep_s(gap_us / 1e6);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 3), end;
	long gap = argc > 2 ? atol(argv[2]) : 20;
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	unsigned long x = 1;
	pthread_t th;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	worker = gettid();
	if (pthread_create(&th, NULL, sender, (void *)gap) != 0)
		return 1;
	end = now_s() + secs;
	while (now_s() < end)
		x = work(x);
	done = 1;
	pthread_join(th, NULL);
	printf("sigburst: %lu signals (%lu)\n", handled, x & 1);
	return 0;
}
