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
 * It times epoll_wait(), read(), arith() and write() with its thread's
 * clock, read between them, so that the time the client runs on the same
 * CPU (woken by the server's write(), it may preempt the server there) is
 * in none of them; read() and write() do not block (epoll_wait() said a
 * request is there, and the socket's buffer holds many replies), and
 * epoll_wait()'s sleep is no CPU time: its share is the kernel's work
 * around the sleep.  A span from one clock read to the next also holds
 * part of the two reads' system calls, which a profile gives to their
 * function: that much, measured back to back before the loop, is taken
 * off each span and left to the rest.  The rest of the CPU time is the
 * clock reads' and the loop's.
 *
 * The clock is perf's task clock of the thread (perf_event_open(),
 * PERF_COUNT_SW_TASK_CLOCK, counted for this thread alone), which runs
 * while the thread is on its CPU, from its switch-in to its switch-out.
 * Its CPU clock (CLOCK_THREAD_CPUTIME_ID) runs from the moment the
 * scheduler charges it from, and on a wake-up that asked for a switch the
 * scheduler charges it from the wake-up: the time its CPU takes to come
 * out of idle and switch to it is the thread's by that clock, and no
 * sampler finds it running then.  Traced on the VM measured (tracefs, 3 s
 * alone), the server thread's CPU clock counted 1.602 s where it was on
 * its CPU for 1.398 s; by that clock epoll_wait() had 34-38% of the
 * thread's time alone and 20-22% under ctprof at 999 Hz, by the task
 * clock 19% and 19-20%, and ctprof's read() was 1.3-4.5 points over its
 * CPU-clock share, -1.3 to +0.9 over its task-clock share (six runs of
 * each, alternating).  Where perf_event_open() is refused, it falls back
 * to the CPU clock, and says so.
 *
 * At exit it prints on stdout the share of the server thread's time in
 * each of the four, each function's callees (libc, the kernel) included,
 * and the clock's name:
 *     pingpong: do_epoll 16.5% do_read 28.5% arith 6.2% do_write 26.1% of 1.88 s by task-clock
 * and on stderr a line of detail, ending "left out (P% of the loop)".
 *
 * An iteration where any of the four took more than three times its
 * median over the last WARMUP iterations, or that took more than one and
 * a half times the median CPU time of an iteration there, holds a gap (an interrupt, or the
 * CPU time the kernel charges a thread for a profiler's stop and its
 * resume) and is left out whole, its CPU time too, as selftime does: the
 * shares are those of the iterations kept. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"

#define WARMUP 2000
#define MSG 64
/* arith()'s iterations: a few microseconds. */
#define WORK 1500
#define CLIENT_WORK 300

#define OWN_FUNCTION __attribute__((noinline, noclone))

enum { EPOLL, READ, ARITH, WRITE, NPARTS };

static volatile unsigned long sink;
static int sv[2];
static volatile int done;
static uint64_t warm[NPARTS][WARMUP], warm_cpu[WARMUP];
/* The server thread's task clock, -1 if perf_event_open() refused it. */
static int task_clock = -1;

/* Open the calling thread's task clock.  Asked to leave the kernel out,
 * it counts the kernel's time all the same (a clock, not a sampler), and
 * needs no privilege where perf_event_paranoid is 2. */
static int open_task_clock(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The server thread's clock, in nanoseconds. */
static uint64_t thread_clock_ns(void)
{
	struct timespec ts;
	uint64_t ns;

	if (task_clock >= 0) {
		if (read(task_clock, &ns, sizeof(ns)) != sizeof(ns)) {
			perror("pingpong: reading its task clock");
			exit(1);
		}
		return ns;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The server's work on a request, and the client's between two. */
OWN_FUNCTION static void arith(unsigned long n)
{
	LCG_STEPS(sink, n, 6364136223846793005UL);
}

OWN_FUNCTION static void client_work(unsigned long n)
{
	LCG_STEPS(sink, n, 2862933555777941757UL);
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

/* The CPU time from clock read A to clock read B, less READ_NS of the
 * reads themselves. */
static uint64_t span(uint64_t a, uint64_t b, uint64_t read_ns)
{
	return b - a > read_ns ? b - a - read_ns : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[NPARTS] = { "do_epoll", "do_read", "arith", "do_write" };
	double secs = arg_s(argc, argv, 1, 3.0), s0;
	uint64_t part[NPARTS], sum[NPARTS] = { 0 }, limit[NPARTS] = { 0 };
	uint64_t c0, c1, kept_ns = 0, all_ns = 0, cpu_limit = 0, read_ns = 0;
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
	task_clock = open_task_clock();
	/* What a span holds of the clock reads around it: the least of
	 * many back-to-back pairs. */
	for (int i = 0; i < WARMUP; i++) {
		c0 = thread_clock_ns();
		c1 = thread_clock_ns();
		if (!i || c1 - c0 < read_ns)
			read_ns = c1 - c0;
	}
	if (pthread_create(&tid, NULL, client, NULL) != 0) {
		fprintf(stderr, "pingpong: cannot create the client thread\n");
		return 1;
	}
	s0 = now_s();
	c0 = thread_clock_ns();
	while (now_s() - s0 < secs) {
		uint64_t s0c, s1, s2, s3;
		int gap = 0;

		s0c = thread_clock_ns();
		if (do_epoll(ep) != 1)
			break;
		s1 = thread_clock_ns();
		if (do_read(buf) != MSG)
			break;
		s2 = thread_clock_ns();
		arith(WORK);
		s3 = thread_clock_ns();
		if (do_write(buf) != MSG)
			break;
		c1 = thread_clock_ns();
		part[EPOLL] = span(s0c, s1, read_ns);
		part[READ] = span(s1, s2, read_ns);
		part[ARITH] = span(s2, s3, read_ns);
		part[WRITE] = span(s3, c1, read_ns);
		/* The limits follow the last WARMUP iterations, set again
		 * every 4 * WARMUP (the four sorts take 0.8 ms here): where the
		 * scheduler puts the two threads, on one CPU or on two,
		 * changes what an iteration costs (14 against 28-32 us
		 * here). */
		for (int p = 0; p < NPARTS; p++)
			warm[p][iters % WARMUP] = part[p];
		warm_cpu[iters % WARMUP] = c1 - c0;
		if (++iters % (4 * WARMUP) == 0 || iters == WARMUP) {
			for (int p = 0; p < NPARTS; p++) {
				qsort(warm[p], WARMUP, sizeof(warm[p][0]), cmp_u64);
				limit[p] = 3 * warm[p][WARMUP / 2];
			}
			qsort(warm_cpu, WARMUP, sizeof(warm_cpu[0]), cmp_u64);
			cpu_limit = warm_cpu[WARMUP / 2] * 3 / 2;
		}
		if (iters <= WARMUP) {
			c0 = c1;
			continue;
		}
		all_ns += c1 - c0;
		/* A gap in a timed part; or, anywhere, the CPU time the
		 * kernel charges a thread for being stopped and resumed, or
		 * an interrupt: one that came between the parts would stay
		 * in the rest, where one in a timed part leaves the iteration
		 * out.  Left in, the stops of a profiler at 999 Hz gave the
		 * rest 5-7 points more than the profile did (the parts timed
		 * with the TSC then, and epoll_wait() in the rest). */
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
		printf(" %s %.2f%%", names[p], 100.0 * (double)sum[p] / (double)kept_ns);
	printf(" of %.2f s by %s\n", (double)kept_ns / 1e9, task_clock >= 0 ? "task-clock" : "thread-cputime");
	fprintf(stderr, "pingpong: %lu iterations after %d of warm-up, CPU %.1f us each, %lu left out (%.1f%% of the loop)\n",
		iters - WARMUP, WARMUP, (double)all_ns / 1e3 / (double)(iters - WARMUP), iters - WARMUP - kept,
		100.0 * (double)(all_ns - kept_ns) / (double)all_ns);
	return 0;
}
