/* churn: creates and joins short-lived threads for SECONDS, each doing a
 * little work, so that samples land in new threads' first instructions
 * (right after clone3, where the CFI describes the parent's stack).
 *
 * usage: churn SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "timeutil.h"

__attribute__((noinline)) static void *short_work(void *arg)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 20000; i++)
		x += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	double end = now_s() + (argc > 1 ? strtod(argv[1], NULL) : 1.0);
	unsigned long n = 0;

	while (now_s() < end) {
		pthread_t t[4];

		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, short_work, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		n += 4;
	}
	printf("churn: %lu threads\n", n);
	return 0;
}
