/* rtsteal: a host that now and then takes every CPU from everything else,
 * as a busy hypervisor does, for a profiler's helpers to come late to.
 *
 * One thread per CPU, pinned there at SCHED_FIFO priority 99, sleeps a
 * random 100-400 us, then spins a random 20-100 us, over and over: about
 * a fifth of each CPU, in spells that no thread of a lower priority can
 * cut short, ctprof's helpers included.  It runs as a process of its own,
 * which ctprof does not trace.
 *
 * Says "rtsteal: running" once every thread has its priority, then runs
 * for SECONDS and exits 0.  Exits 3, after saying why, when this machine
 * cannot set the stage (no permission for SCHED_FIFO).
 *
 * usage: rtsteal SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CANNOT_STEAL 3

static double end;
static atomic_int ready, failed;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *steal(void *arg)
{
	int cpu = (int)(intptr_t)arg, err;
	struct sched_param prio = { .sched_priority = 99 };
	unsigned seed = (unsigned)cpu * 7919u + 1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &prio);
	if (err) {
		fprintf(stderr, "rtsteal: cannot steal: SCHED_FIFO: %s\n", strerror(err));
		atomic_fetch_add(&failed, 1);
		return NULL;
	}
	atomic_fetch_add(&ready, 1);
	while ((double)mono_ns() / 1e9 < end) {
		struct timespec nap = { 0, (long)(100000 + rand_r(&seed) % 300000) };
		uint64_t until;

		nanosleep(&nap, NULL);
		until = mono_ns() + 20000 + rand_r(&seed) % 80000;
		while (mono_ns() < until)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), i;
	pthread_t *th;

	if (argc != 2 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: rtsteal SECONDS\n");
		return 2;
	}
	if (n < 1)
		n = 1;
	end = (double)mono_ns() / 1e9 + atof(argv[1]);
	th = calloc((size_t)n, sizeof(*th));
	if (!th)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, steal, (void *)(intptr_t)i) != 0)
			return 1;
	while (atomic_load(&ready) + atomic_load(&failed) < n)
		usleep(1000);
	/* Returning ends the threads that did get their priority. */
	if (atomic_load(&failed))
		return CANNOT_STEAL;
	printf("rtsteal: running\n");
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	return 0;
}
