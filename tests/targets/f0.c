#include "chain.h"

__attribute__((noinline)) unsigned long f0(unsigned long x, double secs)
{
	unsigned long r = f1(x * 3 + 1, secs);

	/* Work after the call: keeps this frame on the stack during f1. */
	chain_sink ^= r;
	return r + x;
}
