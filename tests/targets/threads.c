/* threads [SECONDS]: two threads spin in thread_a_hot and thread_b_hot
 * from the start; a third, thread_c_hot, is created when the process gets
 * SIGUSR1, so a profiler attached before that must pick up a thread created
 * after it attached. A second SIGUSR1, or SECONDS (default 20) running
 * out, stops everything: the threads are joined and the exit status is 0
 * (1 if a thread could not be created). SIGUSR1 stays blocked in every
 * thread and is taken with sigtimedwait() by main, so no handler runs. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "timeutil.h"

static volatile int stop;
static volatile unsigned long sink;

/* A macro, not a function: an inlined helper would get its own row in the
 * report (ctprof lists inlined functions separately) and take the self
 * time away from the thread functions the test looks for. */
#define SPIN(x)                                                              \
	do {                                                                 \
		while (!stop)                                                \
			for (int i_ = 0; i_ < 4096; i_++)                    \
				x = x * 6364136223846793005UL + 1442695040888963407UL; \
	} while (0)

__attribute__((noinline)) static void *thread_a_hot(void *arg)
{
	unsigned long x = 1;

	SPIN(x);
	sink ^= x;
	return arg;
}

__attribute__((noinline)) static void *thread_b_hot(void *arg)
{
	unsigned long x = 2;

	SPIN(x);
	sink ^= x;
	return arg;
}

__attribute__((noinline)) static void *thread_c_hot(void *arg)
{
	unsigned long x = 3;

	SPIN(x);
	sink ^= x;
	return arg;
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_s(argc, argv, 1, 20.0);
	pthread_t a, b, c;
	int have_c = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&a, NULL, thread_a_hot, NULL) ||
	    pthread_create(&b, NULL, thread_b_hot, NULL))
		return 1;
	while (now_s() < end) {
		double left = end - now_s();
		struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

		if (sigtimedwait(&set, NULL, &ts) != SIGUSR1)
			continue;
		if (have_c)
			break;
		if (pthread_create(&c, NULL, thread_c_hot, NULL))
			return 1;
		have_c = 1;
	}
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (have_c)
		pthread_join(c, NULL);
	printf("threads: done, thread c %s\n", have_c ? "ran" : "never started");
	return 0;
}
