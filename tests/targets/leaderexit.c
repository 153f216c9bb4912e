/* leaderexit: main() starts a worker and calls pthread_exit(), so the
 * thread group leader is a zombie while the worker runs on.  /proc/PID/maps
 * of such a process is empty and its leader cannot be traced: ctprof must
 * still attach to the worker, read the address space through it, and name
 * worker_hot.
 *
 * usage: leaderexit SECONDS */
#include <pthread.h>
#include <stdlib.h>

#include "timeutil.h"

static double seconds;

__attribute__((noinline)) static unsigned long worker_hot(void)
{
	return SPIN_FOR(seconds, 13);
}

static void *worker(void *arg)
{
	worker_hot();
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t t;

	seconds = argc > 1 ? strtod(argv[1], NULL) : 2.0;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_exit(NULL);
}
