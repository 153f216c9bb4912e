/* workload [ITERATIONS [THREADS]]: the benchmark's fixed CPU-bound target.
 *
 * Deterministic: a fixed number of iterations (default 2000000, about 2 s
 * on a 2-vCPU VM) driven by a fixed-seed generator, so every run does the
 * same work and prints the same checksum, whatever profiles it.  Each
 * iteration recurses 1 to 34 levels deep through three mutually recursive
 * functions with different frame sizes (each level does a little work of
 * its own, so self time is spread over the depths), then does one of four
 * leaves, three of which go through libc: qsort with a callback back into
 * this file, snprintf + strtol, memcpy + a hash.  With main, _start,
 * __libc_start_* and qsort's own frames the deepest stacks are ~45 frames.
 *
 * The benchmark builds it -O2 -fomit-frame-pointer (what ctprof and perf
 * --call-graph dwarf must unwind) and -O2 -fno-omit-frame-pointer (for
 * perf -g).  It prints "checksum HEX" and "elapsed SECONDS": the wall
 * clock time of the work itself, from the target's own CLOCK_MONOTONIC, so
 * the profiler's start-up and report do not count as target slowdown.
 *
 * With THREADS above 1, that many threads (main among them) each do the
 * ITERATIONS from the same seed, on state of their own, started together;
 * the elapsed time runs until the last one is done, and the checksum is
 * that of one thread's work (all must agree, or it exits 1). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))
#define MAX_DEPTH 34
#define SORT_N 48

#define SEED 0x9e3779b97f4a7c15ULL

static __thread uint64_t rng = SEED;
static __thread unsigned char src_buf[8192], dst_buf[8192];

static uint32_t next_rand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

/* A little arithmetic that the compiler cannot fold away. */
NOINLINE static uint64_t mix(uint64_t h, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 32;
	}
	return h;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

NOINLINE static uint64_t leaf_sort(uint64_t h)
{
	uint32_t v[SORT_N];

	for (int i = 0; i < SORT_N; i++)
		v[i] = next_rand();
	qsort(v, SORT_N, sizeof(v[0]), cmp_u32);
	return h ^ v[SORT_N / 2] ^ ((uint64_t)v[0] << 32);
}

NOINLINE static uint64_t leaf_format(uint64_t h)
{
	char s[96];
	char *end;
	uint64_t acc = h;

	for (int i = 0; i < 6; i++) {
		snprintf(s, sizeof(s), "%lu:%x:%d", (unsigned long)acc, (unsigned)(acc >> 40), i);
		acc += (uint64_t)strtol(s + 3, &end, 16) + (uint64_t)(end - s);
	}
	return acc;
}

NOINLINE static uint64_t leaf_copy(uint64_t h)
{
	size_t off = h % 1024, len = 1024 + h % 4096;
	uint64_t acc = h;

	memcpy(dst_buf, src_buf + off, len);
	memmove(dst_buf + 16, dst_buf, len / 2);
	for (size_t i = 0; i < len; i += 8)
		acc = (acc ^ dst_buf[i]) * 0x100000001b3ULL;
	src_buf[acc % sizeof(src_buf)] ^= (unsigned char)acc;
	return acc;
}

NOINLINE static uint64_t leaf_math(uint64_t h)
{
	return mix(h, 160);
}

static uint64_t leaf(uint64_t h)
{
	switch (next_rand() % 4) {
	case 0: return leaf_sort(h);
	case 1: return leaf_format(h);
	case 2: return leaf_copy(h);
	default: return leaf_math(h);
	}
}

static uint64_t descend_a(int depth, uint64_t h);
static uint64_t descend_b(int depth, uint64_t h);
static uint64_t descend_c(int depth, uint64_t h);

static uint64_t descend(int depth, uint64_t h)
{
	if (depth <= 0)
		return leaf(h);
	switch (next_rand() % 3) {
	case 0: return descend_a(depth - 1, h);
	case 1: return descend_b(depth - 1, h);
	default: return descend_c(depth - 1, h);
	}
}

/* Three frame sizes; none of the calls is a tail call (the result is
 * used after it returns), so every level is a real frame. */
NOINLINE static uint64_t descend_a(int depth, uint64_t h)
{
	volatile uint64_t pad[4];
	uint64_t r;

	pad[0] = h;
	r = descend(depth, mix(h, 8));
	return r ^ (pad[0] + (uint64_t)depth);
}

NOINLINE static uint64_t descend_b(int depth, uint64_t h)
{
	volatile uint64_t pad[24];
	uint64_t r;

	pad[depth % 24] = h;
	r = descend(depth, mix(h + 1, 12));
	return (r * 31) ^ pad[depth % 24];
}

NOINLINE static uint64_t descend_c(int depth, uint64_t h)
{
	volatile char pad[200];
	uint64_t r;

	pad[depth] = (char)h;
	r = descend(depth, mix(h + 2, 4));
	return r + (uint64_t)pad[depth] + 7;
}

static long iters = 2000000;
static pthread_barrier_t start;

/* One thread's share: the whole fixed work. */
static uint64_t work(void)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < sizeof(src_buf); i++)
		src_buf[i] = (unsigned char)(i * 131 + 7);
	for (long i = 0; i < iters; i++)
		sum = sum * 3 + descend(1 + (int)(next_rand() % MAX_DEPTH), sum + (uint64_t)i);
	return sum;
}

static void *worker(void *arg)
{
	uint64_t *sum = arg;

	pthread_barrier_wait(&start);
	*sum = work();
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	struct timespec t0, t1;
	uint64_t sum, other[64];
	pthread_t tids[64];

	if (argc > 1)
		iters = strtol(argv[1], NULL, 10);
	if (nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "workload: THREADS must be 1 to 64\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (long i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, &other[i]) != 0) {
			fprintf(stderr, "workload: cannot create a thread\n");
			return 1;
		}
	if (nthreads > 1)
		pthread_barrier_wait(&start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sum = work();
	for (long i = 1; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		if (other[i] != sum) {
			fprintf(stderr, "workload: thread %ld computed %016llx, not %016llx\n", i,
				(unsigned long long)other[i], (unsigned long long)sum);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("checksum %016llx\n", (unsigned long long)sum);
	printf("elapsed %.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
