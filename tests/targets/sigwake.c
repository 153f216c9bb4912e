/* sigwake: a thread alternates a short burst of work with epoll_pwait(-1)
 * on an epoll set that never becomes ready; the main thread wakes it ROUNDS
 * times with SIGUSR1 (a handler, no SA_RESTART), which must make
 * epoll_wait fail with EINTR each time.  Under a profiler the signals race
 * with its stops: a profiler that turned a real interruption into a
 * restart would leave the thread asleep.  Prints
 *     sigwake: rounds N woken W
 * and exits 0 if every signal woke the thread within a second.
 *
 * usage: sigwake ROUNDS */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "timeutil.h"

static volatile long woken, asleep;

static void on_usr1(int sig)
{
}

static void *sleeper(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;
	sigset_t block, during;

	/* SIGUSR1 is let in only inside epoll_pwait, so a signal sent just
	 * before the wait is not lost in the work, but wakes the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGUSR1);

	for (;;) {
		volatile unsigned long x = 0;

		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i;
		__atomic_store_n(&asleep, 1, __ATOMIC_SEQ_CST);
		if (epoll_pwait(ep, &ev, 1, -1, &during) < 0 && errno == EINTR)
			__atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300, i;
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, sleeper, NULL);
	/* The main thread must not take the signal meant for the sleeper. */
	{
		sigset_t block;

		sigemptyset(&block);
		sigaddset(&block, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &block, NULL);
	}
	for (i = 0; i < rounds; i++) {
		double end;

		while (!__atomic_load_n(&asleep, __ATOMIC_SEQ_CST))
			;
		/* Sometimes while it enters epoll_wait, sometimes after. */
		sleep_s((i % 4) * 0.0005);
		__atomic_store_n(&asleep, 0, __ATOMIC_SEQ_CST);
		pthread_kill(t, SIGUSR1);
		end = now_s() + 1.0;
		while (__atomic_load_n(&woken, __ATOMIC_SEQ_CST) <= i && now_s() < end)
			;
		if (__atomic_load_n(&woken, __ATOMIC_SEQ_CST) <= i)
			break;
	}
	printf("sigwake: rounds %ld woken %ld\n", rounds, woken);
	return woken >= rounds ? 0 : 1;
}
