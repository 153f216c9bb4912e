/* deep [SECONDS]: spends SECONDS in leaf(), DEPTH calls of down() below
 * main, each keeping a 256-byte array in its frame: from the leaf to
 * main the stack holds over 4 KiB, more than a copy of 1 KiB
 * (--stack-size=1k), whose walks end short of main.  Built -O2
 * -fomit-frame-pointer: only CFI unwinds it. */
#include "timeutil.h"

#define DEPTH 16
#define PAD 256

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(double secs)
{
	return SPIN_FOR(secs, 29);
}

__attribute__((noinline)) static unsigned long down(int n, double secs)
{
	volatile unsigned char pad[PAD];
	unsigned long r;

	pad[n % PAD] = (unsigned char)n;
	r = n ? down(n - 1, secs) : leaf(secs);
	return r + pad[n % PAD];
}

int main(int argc, char **argv)
{
	sink = down(DEPTH, arg_s(argc, argv, 1, 1.0));
	return 0;
}
