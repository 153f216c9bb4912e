/* twowaits [SECONDS]: one call that waits, made from two callers whose
 * frames are the same size, so that it waits with the same stack pointer
 * and program counter from either.  The main thread reads a byte from a
 * pipe that a second thread writes every 2 ms: one read in four through
 * wait_a(), three in four through wait_b(), timing each wait by its own
 * clock.  For SECONDS (default 2); at exit it prints, on stdout:
 *     twowaits: 980 waits, wait_a 24.9%, wait_b 74.8%
 * the time in each as a share of the main thread's, and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "timeutil.h"

static int fds[2];
static volatile int done;
static volatile unsigned long na, nb;

static void *feeder(void *arg)
{
	(void)arg;
	while (!done) {
		sleep_s(0.002);
		if (write(fds[1], "x", 1) != 1)
			exit(1);
	}
	return NULL;
}

__attribute__((noinline)) static void wait_byte(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(1);
}

/* The same frame each, and not a tail call: each is on the stack while
 * wait_byte() waits. */
__attribute__((noinline)) static void wait_a(void)
{
	wait_byte();
	na++;
}

__attribute__((noinline)) static void wait_b(void)
{
	wait_byte();
	nb++;
}

int main(int argc, char **argv)
{
	double start = now_s(), end = start + arg_s(argc, argv, 1, 2.0), ta = 0, tb = 0, now;
	unsigned long i;
	pthread_t th;

	if (pipe(fds) < 0 || pthread_create(&th, NULL, feeder, NULL) != 0) {
		perror("twowaits");
		return 1;
	}
	for (i = 0; (now = now_s()) < end; i++) {
		if (i % 4 == 0) {
			wait_a();
			ta += now_s() - now;
		} else {
			wait_b();
			tb += now_s() - now;
		}
	}
	done = 1;
	now = now_s() - start;
	printf("twowaits: %lu waits, wait_a %.1f%%, wait_b %.1f%%\n", i, 100 * ta / now, 100 * tb / now);
	fflush(stdout);
	pthread_join(th, NULL);
	return 0;
}
