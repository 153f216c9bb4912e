/* threads64 [SECONDS]: 64 threads, few of them running, for an on-CPU
 * sampler.
 *
 * 4 busy threads spin through a few function calls (and memcpy); 60 are
 * blocked for the whole run: 20 in pthread_cond_wait (futex), 20 in
 * epoll_wait on an epoll set with nothing ready, 20 in read() on a pipe
 * nobody writes.  After SECONDS (default 3) everything is woken and
 * joined.  With the main thread (in nanosleep), 65 threads.
 *
 * A ptrace stop makes epoll_wait return -1/EINTR (read and futex restart
 * transparently, but are counted too should that change).  A sampler that
 * stops only running threads never stops a blocked one, so the count must
 * be 0.  Prints, last:
 *     eintr N (epoll A, read B, cond wakeups without cause C)
 *     busy loops L */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NBUSY 4
#define NEACH 20

static atomic_int stop;
static atomic_long eintr_epoll, eintr_read, cond_spurious, busy_loops;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cond_stop;
static int epfd, evfd, pipefd[2];

NOINLINE static uint64_t crunch(uint64_t h, int n)
{
	for (int i = 0; i < n; i++)
		h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL;
	return h;
}

NOINLINE static uint64_t shuffle(uint64_t h)
{
	char a[512], b[512];

	memset(a, (int)(h & 0xff), sizeof(a));
	a[h % sizeof(a)] = 1;
	memcpy(b, a, sizeof(b));
	return crunch(h + (uint64_t)b[h % 256], 200);
}

static void *busy(void *arg)
{
	uint64_t h = (uintptr_t)arg;
	long loops = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		h = shuffle(crunch(h, 300));
		loops++;
	}
	atomic_fetch_add(&busy_loops, loops);
	return (void *)(uintptr_t)(h & 1);
}

static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!cond_stop) {
		pthread_cond_wait(&cond, &lock);
		if (!cond_stop)
			atomic_fetch_add(&cond_spurious, 1);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *epoll_waiter(void *arg)
{
	struct epoll_event ev;

	for (;;) {
		int r = epoll_wait(epfd, &ev, 1, -1);

		if (r < 0 && errno == EINTR) {
			atomic_fetch_add(&eintr_epoll, 1);
			continue;
		}
		if (r < 0) {
			perror("epoll_wait");
			exit(1);
		}
		if (atomic_load(&stop))
			return NULL;
	}
}

static void *pipe_reader(void *arg)
{
	char c;

	for (;;) {
		ssize_t r = read(pipefd[0], &c, 1);

		if (r < 0 && errno == EINTR) {
			atomic_fetch_add(&eintr_read, 1);
			continue;
		}
		if (r <= 0 || atomic_load(&stop))
			return NULL;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 3.0;
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	struct epoll_event ev = { .events = EPOLLIN };
	pthread_t th[NBUSY + 3 * NEACH];
	int k = 0;
	uint64_t one = 1;
	long e, r;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	evfd = eventfd(0, EFD_CLOEXEC);
	if (epfd < 0 || evfd < 0 || pipe(pipefd) < 0) {
		perror("threads64: setup");
		return 1;
	}
	/* Registered now, written only at the end: nothing is ready before. */
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, evfd, &ev) < 0) {
		perror("threads64: epoll_ctl");
		return 1;
	}
	for (int i = 0; i < NBUSY + 3 * NEACH; i++) {
		void *(*fn)(void *) = i < NBUSY ? busy
				      : (i - NBUSY) % 3 == 0 ? cond_waiter
				      : (i - NBUSY) % 3 == 1 ? epoll_waiter : pipe_reader;
		int err = pthread_create(&th[k], NULL, fn, (void *)(uintptr_t)(i + 1));

		if (err) {
			fprintf(stderr, "threads64: pthread_create: %s\n", strerror(err));
			return 1;
		}
		k++;
	}

	while (nanosleep(&ts, &ts) != 0)
		;

	atomic_store(&stop, 1);
	pthread_mutex_lock(&lock);
	cond_stop = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (write(evfd, &one, sizeof(one)) != sizeof(one))
		perror("threads64: eventfd write");
	close(pipefd[1]);
	for (int i = 0; i < k; i++)
		pthread_join(th[i], NULL);

	e = atomic_load(&eintr_epoll);
	r = atomic_load(&eintr_read);
	printf("busy loops %ld\n", atomic_load(&busy_loops));
	printf("eintr %ld (epoll %ld, read %ld, cond wakeups without cause %ld)\n", e + r, e, r,
	       atomic_load(&cond_spurious));
	return 0;
}
