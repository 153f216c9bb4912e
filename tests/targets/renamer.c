/* renamer [SECONDS]: a thread that names itself after it has run for a
 * while, as a profiler has already sampled it.  The thread spins as
 * "before" for the first half of SECONDS (default 2), then names itself
 * "after" and spins for the rest; main waits for it and exits 0 (1 if the
 * thread could not be started). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "timeutil.h"

static double secs;

__attribute__((noinline)) static void *renamed_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "before");
	(void)SPIN_FOR(secs / 2, 3);
	pthread_setname_np(pthread_self(), "after");
	(void)SPIN_FOR(secs / 2, 5);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	secs = arg_s(argc, argv, 1, 2.0);
	if (pthread_create(&t, NULL, renamed_thread, NULL) != 0) {
		fprintf(stderr, "renamer: cannot start the thread\n");
		return 1;
	}
	pthread_join(t, NULL);
	return 0;
}
