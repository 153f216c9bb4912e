/* sigping [SECONDS]: what a profiler adds to the delivery of a signal.
 *
 * The main thread counts in a loop, on its CPU; another thread sends it
 * SIGUSR1 with tgkill(), waits (spinning) until the handler has counted
 * it, then sleeps 200 us, for SECONDS (default 3).  Under ptrace each
 * signal stops the receiver until the tracer delivers it (a
 * signal-delivery stop), and the round trip has that wait in it.  It
 * prints "signals COUNT" and "round_trip_us MEAN" (from tgkill() to the
 * handler's count seen). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long handled;
static volatile int done;
static pid_t receiver;
static double seconds = 3;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
	handled++;
}

static void *pinger(void *arg)
{
	const struct timespec gap = { 0, 200000 };
	double start = now(), sum = 0;
	unsigned long n = 0;

	while (now() - start < seconds) {
		unsigned long want = handled + 1;
		double t0 = now();

		syscall(SYS_tgkill, getpid(), receiver, SIGUSR1);
		while (handled < want)
			;
		sum += now() - t0;
		n++;
		nanosleep(&gap, NULL);
	}
	printf("signals %lu\nround_trip_us %.2f\n", n, n ? sum / (double)n * 1e6 : 0.0);
	done = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	volatile unsigned long x = 0;
	pthread_t th;

	if (argc > 1)
		seconds = atof(argv[1]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	receiver = gettid();
	if (pthread_create(&th, NULL, pinger, NULL) != 0)
		return 1;
	while (!done)
		x++;
	pthread_join(th, NULL);
	return 0;
}
