/* echoserver: a server thread in epoll_wait on loopback TCP, a thread
 * blocked in read() on a pipe nobody writes until the end, and a client
 * thread sending REQUESTS numbered requests with a short pause between
 * them (so the server is blocked most of the time), checking each echo.
 * Counts every EINTR returned to any of them and prints
 *     echoserver: requests N ok K failed F eintr E
 * exiting 0 if all requests succeeded.
 *
 * usage: echoserver REQUESTS */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "timeutil.h"

static int lfd, pipefd[2];
static long requests;
static volatile long eintr;

static void *server(void *arg)
{
	int ep = epoll_create1(0), cfd = -1;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd }, out;
	char buf[64];

	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, &out, 1, -1);

		if (n < 0) {
			if (errno == EINTR)
				__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (out.data.fd == lfd) {
			cfd = accept(lfd, NULL, NULL);
			ev.data.fd = cfd;
			epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
			continue;
		}
		n = (int)read(cfd, buf, sizeof(buf));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);
			if (n == 0)
				return NULL;
			continue;
		}
		if (write(cfd, buf, (size_t)n) != n)
			return NULL;
	}
}

static void *reader(void *arg)
{
	char c;

	for (;;) {
		ssize_t n = read(pipefd[0], &c, 1);

		if (n < 0 && errno == EINTR) {
			__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);
			continue;
		}
		return NULL;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	pthread_t ts, tr;
	long i, ok = 0, failed = 0;
	int fd;

	requests = argc > 1 ? atol(argv[1]) : 2000;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0 || pipe(pipefd) < 0)
		return 2;
	pthread_create(&ts, NULL, server, NULL);
	pthread_create(&tr, NULL, reader, NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 2;
	for (i = 0; i < requests; i++) {
		char req[32], rsp[32];
		int n = snprintf(req, sizeof(req), "request %ld", i);
		ssize_t got = 0, r;

		if (write(fd, req, (size_t)n) != n) {
			failed++;
			continue;
		}
		while (got < n) {
			r = read(fd, rsp + got, (size_t)(n - got));
			if (r < 0 && errno == EINTR) {
				__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);
				continue;
			}
			if (r <= 0)
				break;
			got += r;
		}
		if (got == n && !memcmp(req, rsp, (size_t)n))
			ok++;
		else
			failed++;
		/* Mostly idle, like a real server between requests. */
		sleep_s(0.0005);
	}
	close(fd);
	if (write(pipefd[1], "x", 1) != 1)
		return 2;
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	printf("echoserver: requests %ld ok %ld failed %ld eintr %ld\n", requests, ok, failed, eintr);
	return failed ? 1 : 0;
}
