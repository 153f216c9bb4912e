/* util.h - error reporting, allocation and time helpers shared by every stage.
 *
 * Conventions (see HOUSE.md): fallible functions return 0 or -errno, or NULL
 * with errno set; only main() decides the exit code.  Allocation failure is
 * the one error ctprof does not recover from: x*alloc() print a message and
 * exit, after which the kernel detaches every seized thread and lets it run.
 */
#ifndef CTPROF_UTIL_H
#define CTPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Print "ctprof: MESSAGE\n" on stderr. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like error_msg, but only when verbose messages were asked for. */
void verbose_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int verbose_level;

/* Abort on a broken invariant: a bug in ctprof, never bad input. */
#define BUG_ON(cond) do { if (cond) bug(__FILE__, __LINE__, #cond); } while (0)
_Noreturn void bug(const char *file, int line, const char *what);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grow *p (an array of *cap elements of size elem) to hold at least need. */
void grow_array(void **p, size_t *cap, size_t need, size_t elem);
#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* This process's resident memory now, in KiB (0 if unknown). */
long resident_kib(void);
/* Bytes malloc holds in use (all arenas, mmapped blocks included), in KiB:
 * unlike the resident size, not what freed memory kept it. */
long heap_kib(void);

/* How many file descriptors this process has open. */
int count_open_fds(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

/* Set timerfd FD to fire once at WHEN (CLOCK_MONOTONIC, absolute); 0
 * disarms it.  timerfd_settime()'s result. */
int timerfd_set_at(int fd, uint64_t when);

/* Sampling ticks, from T0 (CLOCK_MONOTONIC) every PERIOD nanoseconds on
 * average: tick N at a point of [T0 + N * PERIOD, T0 + (N + 1/2) * PERIOD)
 * that a hash of T0 and N picks (see util.c).  tick_time() is when tick N
 * is; tick_next() the first tick after AFTER. */
uint64_t tick_time(uint64_t t0, uint64_t period, uint64_t n);
uint64_t tick_next(uint64_t t0, uint64_t period, uint64_t after);

/* Read a whole small file (a /proc file) into a NUL-terminated malloc'd
 * buffer owned by the caller.  Returns NULL with errno set on failure. */
char *read_file(const char *path, size_t *len_out);

/* 64-bit FNV-1a over n bytes, continued from h (start with FNV_OFFSET). */
#define FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t fnv1a(uint64_t h, const void *data, size_t n);

/* An index of a table's entries by three pointers (interned strings, so
 * that equal means the same pointer, or integers cast to pointers), for
 * tables that keep the entries themselves in an array. */
struct key3_index {
	struct key3_slot {
		const void *k[3];
		size_t idx;             /* SIZE_MAX: empty */
	} *slots;
	size_t cap, n;
};
/* The index of the entry keyed K0, K1, K2; if there is none yet, NEXT is
 * recorded as its index and returned: the caller then adds it there. */
size_t key3_get(struct key3_index *ix, const void *k0, const void *k1, const void *k2, size_t next);
/* The index of the entry keyed K0, K1, K2, or SIZE_MAX if there is none. */
size_t key3_find(const struct key3_index *ix, const void *k0, const void *k1, const void *k2);
void key3_release(struct key3_index *ix);

#endif
