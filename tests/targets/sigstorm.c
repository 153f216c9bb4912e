/* sigstorm: a child queues N numbered real-time signals (SIGRTMIN+1,
 * sigqueue value 0..N-1) at this process while its threads spin, and the
 * main thread meanwhile calls setresuid() again and again (glibc makes
 * every thread run it through its internal SIGSETXID signal: if one were
 * lost, setresuid would never return).  Part of the time SIGRTMIN+1 is
 * blocked, so signals also arrive pending.  Prints
 *     sigstorm: sent N received R duplicates D missing M setxid K tries T failed F (ERROR)
 * (K calls of setresuid returned 0 of T made; ERROR is the first failure's
 * strerror, or none) and exits 0 if every signal arrived exactly once.
 *
 * usage: sigstorm N SECONDS (the signals are spread over SECONDS) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"

static volatile unsigned char *seen;
static volatile sig_atomic_t received, dups, done;
static long n;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	long v = si->si_value.sival_int;

	if (v < 0 || v >= n)
		return;
	if (seen[v])
		dups++;
	seen[v] = 1;
	received++;
}

static void *spinner(void *arg)
{
	volatile unsigned long x = 0;

	while (!done)
		x++;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t rt;
	pthread_t t[3];
	pid_t child;
	long i, missing = 0, setxid = 0, tries = 0, failed = 0;
	int first_errno = 0;
	int status;

	double secs = arg_s(argc, argv, 2, 1.5), end = now_s() + secs;

	n = argc > 1 ? atol(argv[1]) : 5000;
	seen = calloc((size_t)n, 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN + 1);
	/* Only the main thread takes the signal: the spinners block it. */
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	pthread_sigmask(SIG_UNBLOCK, &rt, NULL);

	child = fork();
	if (child == 0) {
		pid_t parent = getppid();

		double gap = secs / (double)n;

		for (i = 0; i < n; i++) {
			union sigval v = { .sival_int = (int)i };

			/* The queue is bounded (RLIMIT_SIGPENDING): wait. */
			while (sigqueue(parent, SIGRTMIN + 1, v) < 0)
				usleep(100);
			if (i % 16 == 15)
				sleep_s(gap * 16);
		}
		_exit(0);
	}
	/* At least one setresuid(), even if the time is up before the loop
	 * is first reached (under a tracer each signal is a stop, and the
	 * storm can take all of it): one that returns shows none hangs. */
	do {
		uid_t u = getuid();

		/* Half the time blocked: signals queue up, then all arrive. */
		if (setxid % 2)
			pthread_sigmask(SIG_BLOCK, &rt, NULL);
		tries++;
		if (setresuid(u, u, u) == 0) {
			setxid++;
		} else if (!failed++) {
			first_errno = errno;
		}
		pthread_sigmask(SIG_UNBLOCK, &rt, NULL);
		if (waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			/* Everything sent has arrived, or never will. */
			usleep(200000);
			break;
		}
	} while (received < n || now_s() < end);
	if (child)
		waitpid(child, &status, 0);
	done = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		if (!seen[i])
			missing++;
	printf("sigstorm: sent %ld received %d duplicates %d missing %ld setxid %ld tries %ld failed %ld (%s)\n",
	       n, (int)received, (int)dups, missing, setxid, tries, failed,
	       failed ? strerror(first_errno) : "none");
	return missing || dups || received != n ? 1 : 0;
}
