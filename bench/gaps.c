/* gaps [ROUNDS [THREADS]]: what a profiler takes from its target, by the
 * target's own clock.
 *
 * A fixed number of rounds (default 15000000, about 1 s on a 2-vCPU VM)
 * of a few dozen multiplications each, with CLOCK_MONOTONIC read (vDSO, no
 * system call) after every round, ~70 ns apart.  Any longer gap than
 * GAP_NS between two reads is time the thread did not run: an interrupt,
 * a preemption, a ptrace stop and the wake-up after it.  It prints
 * "elapsed SECONDS" and "gaps COUNT LOST_MS": the benchmark subtracts a
 * bare run's gaps (the machine's own interrupts) from a profiled run's and
 * divides by the samples, which gives the time each sample took from the
 * thread, all of it: the profiler's own count of its stall starts only
 * where the profiler itself knows the thread stopped running, and misses
 * the profiler's own CPU time on a CPU it shares with the thread.  What
 * the gaps do not hold is the slower code after a stop (caches, TLB):
 * part 1's slowdown has that.
 *
 * With THREADS above 1, that many threads (main among them) each do the
 * ROUNDS, started together; the elapsed time runs until the last one is
 * done, and the gaps are those of all the threads. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_NS 2000ULL
#define ROUND_MULS 64
#define MAX_THREADS 64

struct worker {
	pthread_t tid;
	uint64_t lost, gaps;
};

static long rounds;
static pthread_barrier_t start;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	volatile uint64_t x = 1;
	uint64_t last;

	pthread_barrier_wait(&start);
	last = now_ns();
	for (long i = 0; i < rounds; i++) {
		uint64_t t;

		for (int j = 0; j < ROUND_MULS; j++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		t = now_ns();
		if (t - last > GAP_NS) {
			w->lost += t - last;
			w->gaps++;
		}
		last = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	long nthreads = argc > 2 ? atol(argv[2]) : 1;
	uint64_t start_ns, lost = 0, gaps = 0;

	rounds = argc > 1 ? atol(argv[1]) : 15000000;
	if (rounds <= 0 || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: gaps [ROUNDS [THREADS (1-%d)]]\n", MAX_THREADS);
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (long i = 1; i < nthreads; i++) {
		if (pthread_create(&workers[i].tid, NULL, work, &workers[i]) != 0) {
			fprintf(stderr, "gaps: cannot create thread %ld\n", i);
			return 1;
		}
	}
	start_ns = now_ns();
	work(&workers[0]);
	for (long i = 1; i < nthreads; i++)
		pthread_join(workers[i].tid, NULL);
	for (long i = 0; i < nthreads; i++) {
		lost += workers[i].lost;
		gaps += workers[i].gaps;
	}
	printf("elapsed %.6f\n", (double)(now_ns() - start_ns) / 1e9);
	printf("gaps %llu %.3f\n", (unsigned long long)gaps, (double)lost / 1e6);
	return 0;
}
