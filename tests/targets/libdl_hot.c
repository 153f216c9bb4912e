/* libdl_hot.so: loaded by shlib with dlopen() while it is being profiled,
 * so the profiler must notice a module that was not there at attach/exec. */
#include "timeutil.h"

unsigned long dl_hot(double secs);

volatile unsigned long dl_hot_sink;

/* Hot for secs seconds; the clock is read once per 64Ki rounds. */
__attribute__((noinline)) unsigned long dl_hot(double secs)
{
	double end = now_s() + secs;
	unsigned long x = 11;

	do {
		for (int i = 0; i < 65536; i++)
			x = (x ^ (x >> 7)) * 0x9E3779B97F4A7C15UL + 1;
	} while (now_s() < end);
	dl_hot_sink ^= x;
	return x;
}
