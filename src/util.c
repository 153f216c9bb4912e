/* util.c - see util.h. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int verbose_level;

static void vmsg(const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "ctprof: %s\n", buf);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void verbose_msg(const char *fmt, ...)
{
	va_list ap;

	if (verbose_level <= 0)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "ctprof: BUG at %s:%d: %s\n", file, line, what);
	abort();
}

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "ctprof: out of memory (allocating %zu bytes)\n", n);
	exit(125);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

void grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;

	if (need <= *cap)
		return;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	*p = xrealloc(*p, ncap * elem);
	memset((char *)*p + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int timerfd_set_at(int fd, uint64_t when)
{
	struct itimerspec its = {
		.it_value = {
			.tv_sec = (time_t)(when / 1000000000ULL),
			.tv_nsec = (long)(when % 1000000000ULL),
		},
	};

	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Why ticks do not come at fixed intervals: a stop at every tick delays
 * the thread it samples by the same amount at the same point of each
 * period, and a thread whose work repeats in less than a period or two
 * falls into step with the ticks, so that they find it at the same point
 * of its cycle, tick after tick (tests/targets/pollsleep.c;
 * docs/DESIGN.md, "Where a stop lands").  perf's tick delays
 * nothing and needs no jitter.  A tick placed at a random point of the
 * first half of its period keeps one tick a period and at least half a
 * period between two, which the sampler needs for its work, and no
 * phase for a thread to keep.  The points come from a hash (SplitMix64)
 * of T0 and N, so that the sampler and the helpers, which wake up on
 * their own at each tick (kick.c), agree on them without a word. */
uint64_t tick_time(uint64_t t0, uint64_t period, uint64_t n)
{
	uint64_t z = t0 + (n + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return t0 + n * period + (period / 2 ? z % (period / 2) : 0);
}

uint64_t tick_next(uint64_t t0, uint64_t period, uint64_t after)
{
	uint64_t n;

	if (after < t0 || !period)
		return 0;
	/* Tick n is in [t0 + n * period, t0 + (n + 1) * period). */
	n = (after - t0) / period;
	return tick_time(t0, period, n) > after ? n : n + 1;
}

char *read_file(const char *path, size_t *len_out)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int count_open_fds(void)
{
	/* thread-self: /proc/self is the main thread's, gone once a
	 * finisher writes the report (main()). */
	DIR *d = opendir("/proc/thread-self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	/* Less the one opendir used. */
	return n - 1;
}

long heap_kib(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (long)((mi.uordblks + mi.hblkhd) / 1024);
}

long resident_kib(void)
{
	char *buf = read_file("/proc/thread-self/statm", NULL);
	long size = 0, resident = 0;

	if (buf && sscanf(buf, "%ld %ld", &size, &resident) == 2)
		resident *= sysconf(_SC_PAGESIZE) / 1024;
	free(buf);
	return resident;
}

static size_t key3_slot_of(const struct key3_slot *slots, size_t cap, const void *const k[3])
{
	size_t j = fnv1a(FNV_OFFSET, k, 3 * sizeof(k[0])) & (cap - 1);

	while (slots[j].idx != SIZE_MAX &&
	       (slots[j].k[0] != k[0] || slots[j].k[1] != k[1] || slots[j].k[2] != k[2]))
		j = (j + 1) & (cap - 1);
	return j;
}

size_t key3_get(struct key3_index *ix, const void *k0, const void *k1, const void *k2, size_t next)
{
	const void *k[3] = { k0, k1, k2 };
	size_t j;

	if ((ix->n + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 1024, i;
		struct key3_slot *slots = xmalloc(cap * sizeof(*slots));

		for (i = 0; i < cap; i++)
			slots[i].idx = SIZE_MAX;
		for (i = 0; i < ix->cap; i++)
			if (ix->slots[i].idx != SIZE_MAX)
				slots[key3_slot_of(slots, cap, ix->slots[i].k)] = ix->slots[i];
		free(ix->slots);
		ix->slots = slots;
		ix->cap = cap;
	}
	j = key3_slot_of(ix->slots, ix->cap, k);
	if (ix->slots[j].idx == SIZE_MAX) {
		memcpy(ix->slots[j].k, k, sizeof(k));
		ix->slots[j].idx = next;
		ix->n++;
	}
	return ix->slots[j].idx;
}

size_t key3_find(const struct key3_index *ix, const void *k0, const void *k1, const void *k2)
{
	const void *k[3] = { k0, k1, k2 };

	return ix->cap ? ix->slots[key3_slot_of(ix->slots, ix->cap, k)].idx : SIZE_MAX;
}

void key3_release(struct key3_index *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}
