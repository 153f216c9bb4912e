/* turns [SECONDS] [THREADS]: THREADS threads (default 3) take turns at one
 * lock for SECONDS (default 3), as CPython's threads do at their GIL: the
 * holder runs work() until another thread has waited for the lock for
 * SWITCH_US, then hands it over and waits until someone else has taken it
 * before it asks for it again.  So one thread runs at a time, the others
 * wait in the kernel or for a CPU, and the scheduler moves them between
 * CPUs as they wake each other up.
 *
 * Each thread times, by its own CPU clock, what it spends taking and
 * handing over the lock (take_turn() and give_turn(), which enter the
 * kernel), and at exit the program prints their share of the threads'
 * CPU time and that CPU time:
 *     turns: handover 0.84% of 2.961 s
 * A sampler that stops a thread where it next leaves the kernel, or that
 * takes a thread waiting for its CPU for the one running there, puts far
 * more samples in the hand-over than that. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timeutil.h"

#define SWITCH_US 5000
#define MAX_THREADS 16

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t free_cv, taken_cv;
static int holder = -1;                 /* the thread that has the turn */
static int waiting;                     /* threads that want it */
static unsigned long turns;             /* hand-overs so far */
static atomic_int drop_request;         /* a waiter has waited too long */
static atomic_int stop;

static double handover_cpu[MAX_THREADS], total_cpu[MAX_THREADS];
static volatile unsigned long sink;

/* Not inlined, not cloned: each is its own row in a profile. */
__attribute__((noinline, noclone)) static unsigned long work(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline, noclone)) static void take_turn(int id)
{
	pthread_mutex_lock(&mu);
	waiting++;
	while (holder != -1) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += SWITCH_US * 1000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&free_cv, &mu, &ts) == ETIMEDOUT && holder != -1)
			atomic_store(&drop_request, 1);
	}
	waiting--;
	holder = id;
	turns++;
	atomic_store(&drop_request, 0);
	pthread_cond_broadcast(&taken_cv);
	pthread_mutex_unlock(&mu);
}

__attribute__((noinline, noclone)) static void give_turn(void)
{
	unsigned long t;

	pthread_mutex_lock(&mu);
	holder = -1;
	t = turns;
	pthread_cond_signal(&free_cv);
	/* Forced switching: not back until another thread has had it. */
	while (waiting && turns == t && !atomic_load(&stop))
		pthread_cond_wait(&taken_cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *thread_main(void *arg)
{
	int id = (int)(long)arg;
	unsigned long x = (unsigned long)id;
	double t0 = thread_cpu_s(), a, b;

	while (!atomic_load(&stop)) {
		a = thread_cpu_s();
		take_turn(id);
		b = thread_cpu_s();
		handover_cpu[id] += b - a;
		while (!atomic_load(&drop_request) && !atomic_load(&stop))
			x = work(x);
		a = thread_cpu_s();
		give_turn();
		b = thread_cpu_s();
		handover_cpu[id] += b - a;
	}
	sink = x;
	total_cpu[id] = thread_cpu_s() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 3.0), hand = 0, total = 0;
	int n = argc > 2 ? atoi(argv[2]) : 3;
	pthread_condattr_t ca;
	pthread_t th[MAX_THREADS];

	if (n < 2 || n > MAX_THREADS) {
		fprintf(stderr, "turns: THREADS must be 2 to %d\n", MAX_THREADS);
		return 2;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&free_cv, &ca);
	pthread_cond_init(&taken_cv, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(long)i);
	sleep_s(secs);
	atomic_store(&stop, 1);
	pthread_mutex_lock(&mu);
	pthread_cond_broadcast(&free_cv);
	pthread_cond_broadcast(&taken_cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		hand += handover_cpu[i];
		total += total_cpu[i];
	}
	printf("turns: handover %.2f%% of %.3f s, %lu turns\n", total > 0 ? 100 * hand / total : 0, total, turns);
	return 0;
}
