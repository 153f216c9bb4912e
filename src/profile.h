/* profile.h - the profile model every output is written from.
 *
 * Shaped like pprof's profile.proto, so that a pprof file read back
 * (pprof-read.c) gives the same model as a live run and every writer
 * works on both: functions, source lines, locations (one per distinct
 * address, with its inline chain), mappings (one per module) and samples
 * (a thread, a count and a chain of locations).  The profile owns all its
 * strings.
 */
#ifndef CTPROF_PROFILE_H
#define CTPROF_PROFILE_H

#include "maps.h"
#include "stacks.h"
#include "strpool.h"
#include "symbolize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pfunc {
	const char *name;       /* never NULL; C++ names demangled */
	const char *system_name; /* the name as the linker sees it */
	const char *file;       /* where it is declared, or NULL */
	int line;               /* its declaration line, 0 if unknown */
	uint32_t mapping;       /* 1-based index into maps, 0: none */
};

struct pline {
	uint32_t func;          /* index into funcs */
	int line;               /* source line of the address in it, 0 if unknown */
};

struct ploc {
	uint64_t address;
	uint32_t mapping;       /* 1-based index into maps, 0: none */
	uint32_t first_line;    /* lines[first_line .. +nlines): innermost first */
	uint32_t nlines;
};

struct pmap {
	const char *file;       /* path of the ELF file */
	const char *name;       /* its base name */
	const char *build_id;   /* hex, or NULL */
	uint64_t start, limit, offset;
};

struct psample {
	uint64_t count;         /* samples */
	uint64_t ns;            /* the time they stand for */
	pid_t pid;              /* its process; 0 if unknown */
	pid_t tid;
	uint32_t first_loc;     /* sample_locs[first_loc .. +nlocs): leaf first */
	uint32_t nlocs;
};

struct pthread {
	pid_t tid;
	const char *name;
};

struct pprocess {
	pid_t pid;
	const char *comm;
};

struct profile {
	pid_t pid;              /* the target */
	const char *comm;
	unsigned frequency;     /* Hz; each sample is 1e9/frequency ns of CPU,
	                         * or of wall-clock time, unless cputime */
	bool wall;              /* a wall-clock profile: waiting counts too */
	bool cputime;           /* a thread's samples share the CPU time
	                         * it used */
	int64_t time_ns;        /* start, since the epoch */
	int64_t duration_ns;
	uint64_t total;         /* sum of sample counts */
	uint64_t kernel_cpu_ns; /* cputime: what the kernel accounted, 0 unknown */
	uint64_t timed_ns;      /* timed by each thread's CPU-time event: a
	                         * sample per this much of its user CPU
	                         * (0: by the timer) */
	uint64_t kernel_row_ns; /* ... and the rest of it in [kernel] rows */
	bool kernel_sampled;    /* ... or its kernel-mode ticks sampled */
	size_t threads_seen;    /* threads of the run, sampled or not; 0: unknown */
	const char *header;     /* the run's warning before its table, or NULL */
	const char *footer;     /* the run's "what was lost" line, or NULL */

	struct pfunc *funcs;
	size_t nfuncs, funcs_cap;
	struct pline *lines;
	size_t nlines, lines_cap;
	struct ploc *locs;
	size_t nlocs, locs_cap;
	uint32_t *sample_locs;
	size_t nsample_locs, sample_locs_cap;
	struct pmap *maps;
	size_t nmaps, maps_cap;
	struct psample *samples;
	size_t nsamples, samples_cap;
	struct pthread *threads;
	size_t nthreads, threads_cap;
	struct pprocess *procs; /* every process named by a sample */
	size_t nprocs, procs_cap;

	struct strpool strings;
	size_t *func_index;     /* hash of funcs while building */
	size_t func_index_cap;
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/* Fill P (fresh from profile_init) from the stacks of a run, symbolizing
 * each distinct frame once through SZ. */
void profile_from_stacks(struct profile *p, const struct stacks *st,
			 struct symbolizer *sz, const struct maps *maps);

/* Building blocks, also used by the pprof reader.  Each returns an index. */
uint32_t profile_add_func(struct profile *p, const char *name, const char *file, int line,
			  uint32_t mapping);
/* Demangle every function name (C++, Itanium ABI); system_name keeps the
 * raw one. */
void profile_demangle(struct profile *p);
/* Drop every sample but those of thread TID. */
void profile_keep_thread(struct profile *p, pid_t tid);
void profile_set_thread(struct profile *p, pid_t tid, const char *name);
/* The name of thread TID, or NULL. */
const char *profile_thread_name(const struct profile *p, pid_t tid);
void profile_set_process(struct profile *p, pid_t pid, const char *comm);
/* The name of process PID, or NULL. */
const char *profile_process_name(const struct profile *p, pid_t pid);
/* Not a thread id: all threads. */
#define PROFILE_ALL_TIDS ((pid_t)-1)
/* The samples summed by process, or with BY_THREAD by thread (tid
 * PROFILE_ALL_TIDS in a process's group), most time first, then by id;
 * *OUT is malloc'd.  The number of groups. */
struct pgroup {
	pid_t pid, tid;
	uint64_t count, ns;
};
size_t profile_groups(const struct profile *p, bool by_thread, struct pgroup **out);
/* What sample S weighs in folded stacks and flame graphs: its count, or
 * with CPU-time weights, microseconds. */
static inline uint64_t profile_sample_weight(const struct profile *p, const struct psample *s)
{
	return p->cputime ? (s->ns + 500) / 1000 : s->count;
}
/* Is function F a thread's wait ("[syscall: read]", "[waiting]")? */
bool profile_func_is_wait(const struct profile *p, uint32_t f);
/* The module to show for function F: its mapping's name, "kernel" for a
 * wait, "ctprof" for the time charged at a thread's exit. */
const char *profile_func_module(const struct profile *p, uint32_t f);
/* Do the samples come from more than one process? */
bool profile_multiprocess(const struct profile *p);
/* The module name of a mapping index (1-based), or "anon". */
const char *profile_map_name(const struct profile *p, uint32_t mapping);

/* ---- the flat profile: self and cumulative counts per function ---- */

enum flat_sort { SORT_SELF, SORT_CUM };

struct flat_row {
	uint32_t func;
	int line;               /* with by_line: the source line */
	uint64_t self, cum;     /* nanoseconds */
};

struct flat {
	struct flat_row *rows;
	size_t n;
	uint64_t total;         /* nanoseconds counted (after the filter) */
	uint64_t samples;       /* samples counted */
	uint64_t waiting;       /* nanoseconds whose leaf is a system call
	                         * or another wait (wall-clock profiles) */
};

/* Self and cumulative counts of every function in the samples of process
 * PID (0: all) and thread TID (PROFILE_ALL_TIDS: all; tid 0 holds the CPU
 * time of exited threads, see sampler/threads.c's thread_exits()); a function
 * counts once per sample in cum.  With BY_LINE, a row is a function's
 * source line (row.line) instead.
 * Rows sorted by SORT, then the other count, then name. */
void profile_flat(const struct profile *p, pid_t pid, pid_t tid, enum flat_sort sort,
		  bool by_line, struct flat *out);
void flat_release(struct flat *f);

/* ---- the call graph: caller -> callee edges ---- */

struct edge {
	uint32_t caller, callee;        /* function indices */
	uint64_t count;                 /* nanoseconds of the samples with
	                                 * this call, once each */
};

struct callgraph {
	struct edge *edges;
	size_t n, cap;
	size_t *index;
	size_t icap;
};

/* Every call between two functions in the samples of TID (0: all), with
 * inlined calls as calls. */
void profile_callgraph(const struct profile *p, pid_t tid, struct callgraph *cg);
void callgraph_release(struct callgraph *cg);

#endif
