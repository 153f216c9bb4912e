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

#endif
