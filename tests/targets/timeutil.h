/* Small helpers shared by the test targets. */
#ifndef CTPROF_TEST_TIMEUTIL_H
#define CTPROF_TEST_TIMEUTIL_H

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

#endif
