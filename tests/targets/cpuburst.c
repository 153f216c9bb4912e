/* cpuburst: CPU time that sampling at a low rate misses: BURSTS short
 * threads, one after another, each burning about 3 ms in burst_work()
 * and exiting, while the main thread burns as much again in main_work()
 * between them.  At the end it prints the CPU time the kernel accounted
 * to the whole process (getrusage, user + system, every thread):
 *     cpuburst: cpu_ns N
 *
 * usage: cpuburst BURSTS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "timeutil.h"

__attribute__((noinline)) static unsigned long burst_work(double s)
{
	return SPIN_ON(thread_cpu_s, s, 19);
}

__attribute__((noinline)) static unsigned long main_work(double s)
{
	return SPIN_ON(thread_cpu_s, s, 23);
}

static void *burst(void *arg)
{
	burst_work(0.003);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, i;
	struct rusage ru;
	pthread_t t;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, burst, NULL)) {
			fprintf(stderr, "cpuburst: cannot create thread %d\n", i);
			return 1;
		}
		pthread_join(t, NULL);
		main_work(0.003);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("cpuburst: cpu_ns %lld\n",
	       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
