/* Small helpers shared by the test targets. */
#ifndef CTPROF_TEST_TIMEUTIL_H
#define CTPROF_TEST_TIMEUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Monotonic time in seconds. */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep for secs seconds (restarted if a signal cuts it short). */
static inline void sleep_s(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* argv[i] as seconds, or def when absent. */
static inline double arg_s(int argc, char **argv, int i, double def)
{
	return argc > i ? strtod(argv[i], NULL) : def;
}

/* CPU time of the calling thread in seconds. */
static inline double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burn CPU until CLOCK() has advanced by SECS seconds, in the calling
 * function, and evaluate to a value to return.  A macro, not an inline
 * function: DWARF would make an inlined helper a function of its own in
 * the profile, and the time must be the caller's self time.  Callers pass
 * different SALTs so that the compiler cannot fold two of them into one
 * (-fipa-icf). */
#define SPIN_ON(clock, secs, salt) ({                                \
	volatile unsigned long spin_x_ = (salt);                     \
	double spin_end_ = clock() + (secs);                         \
	while (clock() < spin_end_)                                  \
		for (int spin_i_ = 0; spin_i_ < 20000; spin_i_++)   \
			spin_x_ += (unsigned long)spin_i_ * (salt);  \
	spin_x_;                                                     \
})
/* For SECS seconds of wall-clock time. */
#define SPIN_FOR(secs, salt) SPIN_ON(now_s, secs, salt)

/* N dependent multiplies by MULT on SINK (a volatile unsigned long): no
 * memory but the sink, no system call.  A macro, for the caller's self
 * time; callers that must stay apart pass different MULTs, or the
 * compiler makes them one function (-fipa-icf). */
#define LCG_STEPS(sink, n, mult) do {                                \
	unsigned long lcg_x_ = (sink);                               \
	for (unsigned long lcg_i_ = 0; lcg_i_ < (n); lcg_i_++)       \
		lcg_x_ = lcg_x_ * (mult) + lcg_i_;                   \
	(sink) = lcg_x_;                                             \
} while (0)

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

/* The TSC, with an lfence on either side, so that a reading neither runs
 * ahead of the code before it nor lets the code after it start early. */
static inline uint64_t tsc_stamp(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}
#endif

/* For qsort() of uint64_t. */
static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
