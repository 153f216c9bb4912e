/* idlers: N threads that wait on a condition variable for the whole run
 * (blocked in futex, never running), and a main thread that works in
 * busy_work() for a fifth of each 50 ms and sleeps the rest, for SECONDS.
 * A wall-clock profile of it should stop each idle thread about once.
 * Prints "idlers: N threads, done" and exits 0.
 *
 * usage: idlers N SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "timeutil.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

__attribute__((noinline)) static void *idle_thread(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

__attribute__((noinline)) static unsigned long busy_work(double s)
{
	return SPIN_FOR(s, 17);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i;
	double secs = arg_s(argc, argv, 2, 2.0), end;
	pthread_t *tids = calloc((size_t)(n > 0 ? n : 1), sizeof(*tids));
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&tids[i], &attr, idle_thread, NULL)) {
			fprintf(stderr, "idlers: cannot create thread %d\n", i);
			return 1;
		}
	end = now_s() + secs;
	while (now_s() < end) {
		busy_work(0.010);
		sleep_s(0.040);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	printf("idlers: %d threads, done\n", n);
	return 0;
}
