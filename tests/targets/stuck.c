/* stuck [N]: threads whose stacks are known, for tests/dump.sh.
 *
 *   main       spins in main_spin_outer -> main_spin_inner
 *   "reader"   blocks in read() on a pipe nobody writes, from reader_wait
 *   "sleeper"  sleeps in nanosleep(), from sleeper_wait
 *   "spinner"  spins in spin_a -> spin_b -> spin_c
 *   N idle threads more (default 0), "idle", blocked in pause()
 *
 * It prints "ready" once every thread is in place, then runs until killed,
 * or ends by itself after 60 s.  The chains are noinline and called through
 * volatile function pointers, so that no compiler folds them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int started;
static int pipefd[2];

#define NOINLINE __attribute__((noinline))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

NOINLINE static void spin_c(double until)
{
	while (now() < until)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

NOINLINE static void spin_b(double until)
{
	spin_c(until);
	sink++;
}

NOINLINE static void spin_a(double until)
{
	spin_b(until);
	sink++;
}

NOINLINE static void main_spin_inner(double until)
{
	while (now() < until)
		for (int i = 0; i < 1000; i++)
			sink ^= i;
}

NOINLINE static void main_spin_outer(double until)
{
	main_spin_inner(until);
	sink++;
}

NOINLINE static void reader_wait(void)
{
	char c;

	if (read(pipefd[0], &c, 1) < 0)
		perror("read");
	sink++;
}

NOINLINE static void sleeper_wait(void)
{
	struct timespec ts = { 120, 0 };

	nanosleep(&ts, NULL);
	sink++;
}

static void *reader(void *arg)
{
	pthread_setname_np(pthread_self(), "reader");
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	reader_wait();
	return arg;
}

static void *sleeper(void *arg)
{
	pthread_setname_np(pthread_self(), "sleeper");
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	sleeper_wait();
	return arg;
}

static void *spinner(void *arg)
{
	void (*volatile f)(double) = spin_a;

	pthread_setname_np(pthread_self(), "spinner");
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	f(now() + 60);
	return arg;
}

static void *idler(void *arg)
{
	pthread_setname_np(pthread_self(), "idle");
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	pause();
	return arg;
}

int main(int argc, char **argv)
{
	void (*volatile f)(double) = main_spin_outer;
	int idle = argc > 1 ? atoi(argv[1]) : 0, want = 3 + idle;
	pthread_attr_t attr;
	pthread_t t;

	if (pipe(pipefd) < 0) {
		perror("pipe");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	if (pthread_create(&t, NULL, reader, NULL) || pthread_create(&t, NULL, sleeper, NULL) ||
	    pthread_create(&t, NULL, spinner, NULL)) {
		fprintf(stderr, "stuck: pthread_create failed\n");
		return 1;
	}
	for (int i = 0; i < idle; i++)
		if (pthread_create(&t, &attr, idler, NULL)) {
			fprintf(stderr, "stuck: pthread_create failed at idle thread %d\n", i);
			return 1;
		}
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < want)
		usleep(1000);
	/* Each blocked thread is in its call a moment after it counted. */
	usleep(50000);
	printf("ready\n");
	fflush(stdout);
	f(now() + 60);
	return 0;
}
