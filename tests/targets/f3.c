#include "chain.h"
#include "timeutil.h"

/* The hot leaf: integer mixing for secs seconds. The clock is read once
 * per 64Ki rounds so almost every sample lands in this function itself. */
__attribute__((noinline)) unsigned long f3(unsigned long x, double secs)
{
	double end = now_s() + secs;

	do {
		for (int i = 0; i < 65536; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	} while (now_s() < end);
	chain_sink ^= x;
	return x;
}
