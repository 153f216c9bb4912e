/* shortio MODE [SECONDS]: a writer that counts the writes that come back
 * short.  For SECONDS (default 3) the main thread writes blocks to a
 * blocking descriptor that a second thread reads 4 KiB at a time, with a
 * little arithmetic after each read, so that the writer waits for room
 * in most of its writes:
 *   socket  1 MiB blocks to an AF_UNIX stream socket (socketpair());
 *   pipe    256 KiB blocks to a pipe;
 *   nonblock  as socket, the writer's end O_NONBLOCK: a write returns
 *           what fits, short most of the time, and the writer waits in
 *           poll() for room when none does;
 *   stall   as socket, but the reader sleeps through the first half of
 *           SECONDS before it reads: the writer waits that long in its
 *           first write.
 * A write to a blocking socket or pipe returns short only when a signal
 * comes while it waits for room after part of the block went (signal(7));
 * this program has no handler and expects none.  A ptrace stop is such a
 * signal to the kernel.  At exit it prints, on stdout:
 *     shortio: 2036 writes, 0 short
 * and exits 0; a write that fails exits 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static volatile unsigned long sink;
static int rfd;
static double stall_s;

/* Reads until end of file, a little arithmetic after each read. */
static void *reader(void *arg)
{
	char buf[4096];

	(void)arg;
	if (stall_s > 0) {
		struct timespec ts = { .tv_sec = (time_t)stall_s,
				       .tv_nsec = (long)((stall_s - (double)(time_t)stall_s) * 1e9) };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	for (;;) {
		ssize_t n = read(rfd, buf, sizeof(buf));

		if (n <= 0)
			break;
		LCG_STEPS(sink, 2000, 6364136223846793005UL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "socket";
	double secs = arg_s(argc, argv, 2, 3.0), end = now_s() + secs;
	unsigned long writes = 0, shorts = 0;
	size_t size;
	pthread_t th;
	int fds[2];
	char *block;

	if (!strcmp(mode, "stall"))
		stall_s = secs / 2;
	if (!strcmp(mode, "socket") || !strcmp(mode, "nonblock") || !strcmp(mode, "stall")) {
		size = 1 << 20;
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0) {
			perror("shortio: socketpair");
			return 1;
		}
	} else if (!strcmp(mode, "pipe")) {
		size = 256 << 10;
		if (pipe(fds) < 0) {
			perror("shortio: pipe");
			return 1;
		}
	} else {
		fprintf(stderr, "usage: shortio socket|pipe|nonblock|stall [SECONDS]\n");
		return 2;
	}
	if (!strcmp(mode, "nonblock") && fcntl(fds[1], F_SETFL, O_NONBLOCK) < 0) {
		perror("shortio: fcntl");
		return 1;
	}
	block = malloc(size);
	if (!block)
		return 1;
	memset(block, 'x', size);
	rfd = fds[0];
	if (pthread_create(&th, NULL, reader, NULL) != 0)
		return 1;
	while (now_s() < end) {
		ssize_t n = write(fds[1], block, size);

		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fds[1], .events = POLLOUT };

			poll(&pfd, 1, -1);
			continue;
		}
		if (n < 0) {
			perror("shortio: write");
			return 1;
		}
		writes++;
		shorts += (size_t)n < size;
	}
	close(fds[1]);
	pthread_join(th, NULL);
	printf("shortio: %lu writes, %lu short\n", writes, shorts);
	free(block);
	return 0;
}
