/* libhot.so: linked into shlib at build time (found through the rpath). */
#include "timeutil.h"

unsigned long lib_hot(double secs);

volatile unsigned long lib_hot_sink;

/* Hot for secs seconds; the clock is read once per 64Ki rounds. */
__attribute__((noinline)) unsigned long lib_hot(double secs)
{
	double end = now_s() + secs;
	unsigned long x = 7;

	do {
		for (int i = 0; i < 65536; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
	} while (now_s() < end);
	lib_hot_sink ^= x;
	return x;
}
