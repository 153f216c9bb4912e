/* chain [SECONDS]: spends SECONDS (default 1) in f3, four calls
 * below main. */
#include <stdio.h>

#include "chain.h"
#include "timeutil.h"

volatile unsigned long chain_sink;

int main(int argc, char **argv)
{
	unsigned long r = f0(1, arg_s(argc, argv, 1, 1.0));

	chain_sink ^= r;
	return 0;
}
