/* pingpong [SECONDS]: a server loop that knows where its own time goes.
 *
 * The main thread serves requests as a server does: epoll_wait() until one
 * comes, read() it, work on it a few microseconds (arith()), write() the
 * reply.  A client thread ("pingclient") sends a 64-byte request over a
 * Unix socket pair, waits for the reply, works a little itself
 * (client_work()) and sends the next, for SECONDS (default 3).  So the
 * server goes to sleep in epoll_wait() and is woken there by the client
 * thousands of times a second, and enters the kernel three times a
 * request: a profiler that takes a sample where the thread next leaves
 * the kernel, or that charges the CPU time of a wake-up to the wrong
 * call, puts the samples on the wrong one of the three.
 *
 * It times read(), arith() and write() with the TSC (the calls do not
 * block: epoll_wait() said a request is there, and the socket's buffer
 * holds many replies) and each iteration's CPU time with its thread CPU
 * clock, read once an iteration; the rest of the CPU time is
 * epoll_wait()'s, the loop's and that clock read's.  At exit it prints
 * on stdout the share of the server thread's CPU time in each of the
 * three, each function's callees (libc, the kernel) included:
 *     pingpong: do_read 36.6% arith 7.9% do_write 34.2% of 1.83 s
 * and on stderr a line of detail, ending "left out (P% of the loop)".
 *
 * An iteration where any of the three took more than three times its
 * median over the warm-up, or that took more than one and a half times
 * the median CPU time of an iteration, holds a gap (an interrupt, a
 * preemption, a profiler's stop) and is left out whole, its CPU time
 * too, as selftime does: the shares are those of the iterations kept. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <x86intrin.h>

#include "timeutil.h"

#define WARMUP 2000
#define MSG 64
/* arith()'s iterations: a few microseconds. */
#define WORK 1500
#define CLIENT_WORK 300

#define OWN_FUNCTION __attribute__((noinline, noclone))

enum { READ, ARITH, WRITE, NPARTS };

static volatile unsigned long sink;
static int sv[2];
static volatile int done;
static uint64_t warm[NPARTS][WARMUP], warm_cpu[WARMUP];

static inline uint64_t stamp(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

OWN_FUNCTION static void arith(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	sink = x;
}

OWN_FUNCTION static void client_work(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + i;
	sink = x;
}

/* The calls' results go to the sink, so that none is a tail call: each
 * function stays on the stack under its call. */
OWN_FUNCTION static int do_epoll(int ep)
{
	struct epoll_event ev;
	int n = epoll_wait(ep, &ev, 1, -1);

	sink += (unsigned long)n;
	return n;
}

OWN_FUNCTION static ssize_t do_read(char *buf)
{
	ssize_t n = read(sv[1], buf, MSG);

	sink += (unsigned long)n;
	return n;
}

OWN_FUNCTION static ssize_t do_write(const char *buf)
{
	ssize_t n = write(sv[1], buf, MSG);

	sink += (unsigned long)n;
	return n;
}

static void *client(void *arg)
{
	char buf[MSG] = { 0 };

	(void)arg;
	pthread_setname_np(pthread_self(), "pingclient");
	while (!done) {
		if (write(sv[0], buf, MSG) != MSG || read(sv[0], buf, MSG) != MSG)
			break;
		client_work(CLIENT_WORK);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const char *const names[NPARTS] = { "do_read", "arith", "do_write" };
	double secs = arg_s(argc, argv, 1, 3.0), s0, tsc_hz;
	uint64_t part[NPARTS], sum[NPARTS] = { 0 }, limit[NPARTS] = { 0 };
	uint64_t c0, c1, t0, kept_ns = 0, all_ns = 0, cpu_limit = 0;
	unsigned long iters = 0, kept = 0;
	struct epoll_event ev = { .events = EPOLLIN };
	char buf[MSG];
	pthread_t tid;
	int ep;

	if (secs <= 0) {
		fprintf(stderr, "usage: pingpong [SECONDS]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || (ep = epoll_create1(0)) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], &ev) < 0) {
		perror("pingpong: socketpair or epoll");
		return 1;
	}
	/* The TSC's rate, from the monotonic clock over 10 ms. */
	s0 = now_s();
	t0 = stamp();
	while (now_s() - s0 < 0.01)
		;
	tsc_hz = (double)(stamp() - t0) / (now_s() - s0);
	if (pthread_create(&tid, NULL, client, NULL) != 0) {
		fprintf(stderr, "pingpong: cannot create the client thread\n");
		return 1;
	}
	s0 = now_s();
	c0 = thread_cpu_ns();
	while (now_s() - s0 < secs) {
		uint64_t s1, s2, s3, s4;
		int gap = 0;

		if (do_epoll(ep) != 1)
			break;
		s1 = stamp();
		if (do_read(buf) != MSG)
			break;
		s2 = stamp();
		arith(WORK);
		s3 = stamp();
		if (do_write(buf) != MSG)
			break;
		s4 = stamp();
		c1 = thread_cpu_ns();
		part[READ] = s2 - s1;
		part[ARITH] = s3 - s2;
		part[WRITE] = s4 - s3;
		if (iters < WARMUP) {
			for (int p = 0; p < NPARTS; p++)
				warm[p][iters] = part[p];
			warm_cpu[iters] = c1 - c0;
			if (++iters == WARMUP) {
				for (int p = 0; p < NPARTS; p++) {
					qsort(warm[p], WARMUP, sizeof(warm[p][0]), cmp_u64);
					limit[p] = 3 * warm[p][WARMUP / 2];
				}
				qsort(warm_cpu, WARMUP, sizeof(warm_cpu[0]), cmp_u64);
				cpu_limit = warm_cpu[WARMUP / 2] * 3 / 2;
			}
			c0 = c1;
			continue;
		}
		iters++;
		all_ns += c1 - c0;
		/* A gap in a timed part; or, anywhere, the CPU time the
		 * kernel charges a thread for being stopped and resumed, or
		 * an interrupt: one that came in epoll_wait() would stay in
		 * the rest, where one in a timed part leaves the iteration
		 * out.  Left in, the stops of a profiler at 999 Hz gave the
		 * rest 5-7 points more than the profile did. */
		gap = c1 - c0 > cpu_limit;
		for (int p = 0; p < NPARTS; p++)
			gap |= part[p] > limit[p];
		if (!gap) {
			kept++;
			kept_ns += c1 - c0;
			for (int p = 0; p < NPARTS; p++)
				sum[p] += part[p];
		}
		c0 = c1;
	}
	done = 1;
	shutdown(sv[1], SHUT_RDWR);
	pthread_join(tid, NULL);
	if (!kept || !kept_ns) {
		fprintf(stderr, "pingpong: no iteration to count\n");
		return 1;
	}
	printf("pingpong:");
	for (int p = 0; p < NPARTS; p++)
		printf(" %s %.2f%%", names[p], 100.0 * (double)sum[p] / tsc_hz * 1e9 / (double)kept_ns);
	printf(" of %.2f s\n", (double)kept_ns / 1e9);
	fprintf(stderr, "pingpong: %lu iterations after %d of warm-up, CPU %.1f us each, %lu left out (%.1f%% of the loop)\n",
		iters - WARMUP, WARMUP, (double)all_ns / 1e3 / (double)(iters - WARMUP), iters - WARMUP - kept,
		100.0 * (double)(all_ns - kept_ns) / (double)all_ns);
	return 0;
}
