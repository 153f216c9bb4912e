#include "chain.h"

__attribute__((noinline)) unsigned long f2(unsigned long x, double secs)
{
	unsigned long r = f3(x * 3 + 3, secs);

	/* Work after the call: keeps this frame on the stack during f3. */
	chain_sink ^= r;
	return r + x;
}
