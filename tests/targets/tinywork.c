#include "bperf.h"

/* Own file and noinline so the loop is attributed to tinywork itself; the
 * volatile counter keeps -O2 from folding the loop away. */
__attribute__((noinline)) void tinywork(void)
{
	for (volatile unsigned long i = 0; i < (1UL << 20); i++)
		;
}
