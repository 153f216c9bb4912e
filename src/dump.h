/* dump.h - 'ctprof dump': each thread's stack at one moment, as text or
 * as JSON lines, written from a profile of one sample per thread. */
#ifndef CTPROF_DUMP_H
#define CTPROF_DUMP_H

#include "profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A thread of the process when its stacks were taken. */
struct dump_thread {
	pid_t tid;
	bool stopped;           /* in a group stop (SIGSTOP, Ctrl-Z), left so */
};

struct dump_info {
	const struct dump_thread *threads;  /* by tid */
	size_t nthreads;
	double stall_median_us, stall_max_us; /* how long a thread was stopped */
	uint64_t elapsed_ns;    /* from the stops asked for to the last one */
	bool json;              /* JSON lines rather than text */
	bool raw_names;         /* --no-demangle */
	pid_t tid;              /* --tid, 0: all */
};

/* Write the stacks of P's samples, a thread each, in DI's thread order.
 * 0 or -errno. */
int dump_write(FILE *f, const struct profile *p, const struct dump_info *di);

#endif
