/* crowded [SECONDS]: a busy thread pinned to each online CPU, in
 * busy_work, and one more thread pinned to CPU 0 that runs short bursts
 * of bursty_work (about 100-200 us each) between sleeps of 0.3-1.1 ms
 * (random, so that its bursts keep no phase with a profiler's ticks),
 * for SECONDS (default 2).  The main thread waits.  At exit it prints
 * the bursty thread's CPU time and the process's, each by its own clock:
 *     crowded: bursty 0.250 s of 4.010 s
 * A sampler that takes a thread found on every CPU at a tick to mean that
 * no other thread ran then must still find the bursty one at the ticks it
 * runs, on the CPU it shares with a busy one. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static atomic_int stop;
static double bursty_cpu;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* CPU time of the whole process in seconds (thread_cpu_s() is the
 * calling thread's). */
static double process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not inlined, not cloned: each is its own row in a profile. */
__attribute__((noinline, noclone)) static unsigned long busy_work(unsigned long x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005UL + 17;
	return x;
}

__attribute__((noinline, noclone)) static unsigned long bursty_work(unsigned long x)
{
	for (int i = 0; i < 150000; i++)
		x = x * 6364136223846793005UL + 23;
	return x;
}

static void *busy(void *arg)
{
	volatile unsigned long sink = 0;

	pin((int)(long)arg);
	while (!atomic_load(&stop))
		sink = busy_work(sink);
	return NULL;
}

static void *bursty(void *arg)
{
	volatile unsigned long sink = 0;
	unsigned seed = 1;

	(void)arg;
	pin(0);
	while (!atomic_load(&stop)) {
		sink = bursty_work(sink);
		sleep_s((300 + rand_r(&seed) % 800) / 1e6);
	}
	bursty_cpu = thread_cpu_s();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 2.0);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t *t;

	if (n < 1)
		n = 1;
	t = calloc((size_t)n + 1, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, busy, (void *)i);
	pthread_create(&t[n], NULL, bursty, NULL);
	sleep_s(secs);
	atomic_store(&stop, 1);
	for (long i = 0; i <= n; i++)
		pthread_join(t[i], NULL);
	printf("crowded: bursty %.3f s of %.3f s\n", bursty_cpu, process_cpu_s());
	free(t);
	return 0;
}
