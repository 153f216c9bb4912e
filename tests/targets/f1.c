#include "chain.h"

__attribute__((noinline)) unsigned long f1(unsigned long x, double secs)
{
	unsigned long r = f2(x * 3 + 2, secs);

	/* Work after the call: keeps this frame on the stack during f2. */
	chain_sink ^= r;
	return r + x;
}
