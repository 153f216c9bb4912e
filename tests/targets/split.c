/* split A B [SECONDS]: CPU time split between two functions, alpha A% and
 * beta B% of about SECONDS (default 1) of CPU, in rounds of 13.7 ms so that
 * any stretch of the run has the same split (a round length no sampling
 * period divides, so that ticks do not keep falling in one phase: at 99 Hz,
 * rounds of 10 ms put 80% in a function that had 50%); both called from main through
 * work(), which has no time of its own.  At exit it prints the split its
 * own clock (the thread's CPU time) measured:
 *     split: alpha 30.0% beta 70.0%
 * Two runs with different splits are the base and the new profile of a
 * diff whose changes are known. */
#include <stdio.h>
#include <stdlib.h>

#include "timeutil.h"

#define OWN_FUNCTION __attribute__((noinline, noclone))
#define ROUND 0.0137

static volatile unsigned long sink;

OWN_FUNCTION static void alpha(double secs)
{
	sink += SPIN_ON(thread_cpu_s, secs, 17);
}

OWN_FUNCTION static void beta(double secs)
{
	sink += SPIN_ON(thread_cpu_s, secs, 29);
}

OWN_FUNCTION static void work(double a, double b, double *ta, double *tb)
{
	double t0 = thread_cpu_s(), t1;

	alpha(a);
	t1 = thread_cpu_s();
	beta(b);
	*ta += t1 - t0;
	*tb += thread_cpu_s() - t1;
}

int main(int argc, char **argv)
{
	double a = argc > 1 ? atof(argv[1]) / 100 : 0.5, b = argc > 2 ? atof(argv[2]) / 100 : 0.5;
	double secs = arg_s(argc, argv, 3, 1.0), ta = 0, tb = 0;
	int rounds = (int)(secs / ROUND + 0.5), i;

	for (i = 0; i < rounds; i++)
		work(ROUND * a, ROUND * b, &ta, &tb);
	printf("split: alpha %.1f%% beta %.1f%%\n", 100 * ta / (ta + tb), 100 * tb / (ta + tb));
	return 0;
}
