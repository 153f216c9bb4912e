/* bperf [SECONDS]: the classic tprof/gprof fairness check. Rounds of
 * tinywork, leastwork, middlework and mostwork (loops of 1:8:16:32 times
 * the same length) run for about SECONDS (default 1.5), at least 10
 * rounds, so their self times must come out near 1:8:16:32. The number of
 * rounds is set from the time of the first one, so a faster or slower CPU
 * changes only the number of rounds, never the ratio. */
#include "bperf.h"
#include "timeutil.h"

static void round_of_work(void)
{
	tinywork();
	leastwork();
	middlework();
	mostwork();
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 1.5);
	double start = now_s(), first;
	int rounds;

	round_of_work();
	first = now_s() - start;
	rounds = first > 0 ? (int)(secs / first) : 10;
	if (rounds < 10)
		rounds = 10;
	for (int i = 1; i < rounds; i++)
		round_of_work();
	return 0;
}
