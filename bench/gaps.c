/* gaps [ROUNDS]: what a profiler takes from its target, by the target's
 * own clock.
 *
 * A fixed number of rounds (default 15000000, about 1 s on a 2-vCPU VM)
 * of a few dozen multiplications each, with CLOCK_MONOTONIC read (vDSO, no
 * system call) after every round, ~70 ns apart.  Any longer gap than
 * GAP_NS between two reads is time the thread did not run: an interrupt,
 * a preemption, a ptrace stop and the wake-up after it.  It prints
 * "elapsed SECONDS" and "gaps COUNT LOST_MS": the benchmark subtracts a
 * bare run's gaps (the machine's own interrupts) from a profiled run's and
 * divides by the samples, which gives the time each sample took from the
 * thread, all of it, where the profiler's own count of its stall sees only
 * the part between its stop request and its resume.  What the gaps do not
 * hold is the slower code after a stop (caches, TLB): part 1's slowdown
 * has that. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_NS 2000ULL
#define ROUND_MULS 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 15000000;
	volatile uint64_t x = 1;
	uint64_t start, last, lost = 0, gaps = 0;

	if (rounds <= 0) {
		fprintf(stderr, "usage: gaps [ROUNDS]\n");
		return 2;
	}
	start = last = now_ns();
	for (long i = 0; i < rounds; i++) {
		uint64_t t;

		for (int j = 0; j < ROUND_MULS; j++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		t = now_ns();
		if (t - last > GAP_NS) {
			lost += t - last;
			gaps++;
		}
		last = t;
	}
	printf("elapsed %.6f\n", (double)(now_ns() - start) / 1e9);
	printf("gaps %llu %.3f\n", (unsigned long long)gaps, (double)lost / 1e6);
	return 0;
}
