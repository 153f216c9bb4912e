/* eintrcount: an LD_PRELOAD library for a real server under test.  It
 * wraps epoll_wait and epoll_pwait and counts the calls that return EINTR
 * to the program, writing the count to the file named by
 * $EINTR_COUNT_FILE ("0" at start, then each time it changes).  Unlike a
 * syscall tracer, it sees only what the program sees: a call that the
 * kernel restarted by itself is not an EINTR here. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

static long count;

static void record(void)
{
	const char *path = getenv("EINTR_COUNT_FILE");
	char buf[32];
	int fd, n, e = errno;

	if (!path)
		return;
	n = snprintf(buf, sizeof(buf), "%ld\n", count);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, (size_t)n) < 0)
			n = 0;
		close(fd);
	}
	errno = e;
}

__attribute__((constructor)) static void start(void)
{
	record();
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	static int (*real)(int, struct epoll_event *, int, int);
	int r;

	if (!real)
		real = (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
	r = real(epfd, ev, max, timeout);
	if (r < 0 && errno == EINTR) {
		__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
		record();
	}
	return r;
}

int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	static int (*real)(int, struct epoll_event *, int, int, const sigset_t *);
	int r;

	if (!real)
		real = (int (*)(int, struct epoll_event *, int, int, const sigset_t *))dlsym(RTLD_NEXT, "epoll_pwait");
	r = real(epfd, ev, max, timeout, mask);
	if (r < 0 && errno == EINTR) {
		__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
		record();
	}
	return r;
}
