/* writer.h - what the output formats' writers share: the run's facts
 * they are given, the options that shape them, and the writers
 * themselves.  Nothing here is the sampler's: a writer reads the
 * sampler's figures only through run_info's pointer.
 */
#ifndef CTPROF_WRITER_H
#define CTPROF_WRITER_H

#include "profile.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct sampler_stats;

/* What the run itself knew: absent (NULL) for a profile read from a file. */
struct run_info {
	size_t threads_seen;
	unsigned long lost;             /* samples lost in the session */
	const struct sampler_stats *stats;
	const struct maps *maps;
	const char *unwinder;
	int verbose;
	int fds_after;                  /* ctprof's open fds after detaching */
	size_t distinct_stacks;
	bool wall;                      /* --wall */
	uint64_t anon_unnamed;          /* JIT code addresses with no name */
	enum perf_map_state perf_map;   /* the target's perf map */
};

/* The line that says what was lost in the run, into BUF. */
void report_lost_line(const struct run_info *ri, char *buf, size_t size);

/* That line and the notes after it (what the run did that the tables do
 * not show), without the last newline: what a pprof file keeps for
 * 'ctprof report' to print again.  The caller frees it. */
char *report_footer(const struct profile *p, const struct run_info *ri);

/* The report's first line where the run's table is wrong (a warning that
 * says why and how to mend it), or NULL. */
const char *report_header(const struct run_info *ri);

/* "file.c:LINE" of FILE's base name, "file.c" without a line, "?". */
void report_location(char *buf, size_t size, const char *file, int line);

struct output_opts {
	bool thread_frames;     /* folded, svg: a root frame per thread */
	bool no_process_frames; /* folded, svg: none per process either (a
	                         * diff: pids differ from run to run) */
	bool raw_names;         /* names as the linker sees them */
	/* The text report: */
	unsigned top;           /* rows per table, 0: all */
	enum flat_sort sort;
	bool per_thread;        /* a table per thread */
	bool lines;             /* rows by source line */
	bool callgraph;         /* callers and callees of the top functions */
};

/* The name of function F as the options want it. */
static inline const char *func_name(const struct pfunc *f, const struct output_opts *oo)
{
	return oo && oo->raw_names ? f->system_name : f->name;
}

struct writer {
	const char *name;
	/* Write P to F.  RI is NULL for a profile read from a file.
	 * 0, or -errno if writing failed. */
	int (*write)(FILE *f, const struct profile *p, const struct run_info *ri,
		     const struct output_opts *oo);
};

/* Write the report of P to F, shaped by OO.  0, or -errno if writing
 * failed. */
int report_write(FILE *f, const struct profile *p, const struct run_info *ri,
		 const struct output_opts *oo);

int folded_write(FILE *f, const struct profile *p, const struct run_info *ri,
		 const struct output_opts *oo);
int pprof_write(FILE *f, const struct profile *p, const struct run_info *ri,
		const struct output_opts *oo);
int svg_profile_write(FILE *f, const struct profile *p, const struct run_info *ri,
		      const struct output_opts *oo);

/* Folded stacks: one line per distinct text, two columns of weights (a
 * diff's base and new). */
struct folded {
	struct folded_line {
		char *text;
		double w[2];
	} *v;                   /* in order of first appearance */
	size_t n, cap;
	size_t *index;          /* open addressing into v */
	size_t icap;
};
/* Add the samples of P to column COL of LS (zeroed at first), each
 * weighing SCALE times its weight (profile_sample_weight).  0 or -ENOMEM. */
int folded_add(struct folded *ls, const struct profile *p, const struct output_opts *oo, int col,
	       double scale);
void folded_release(struct folded *ls);

struct fg_stack;
/* The flame graph's stacks of P's samples (output.c). */
void fg_stacks_add(struct fg_stack **stacks, size_t *n, size_t *cap, const struct profile *p,
		   const struct output_opts *oo, bool base, double scale);
void fg_stacks_free(struct fg_stack *stacks, size_t n);

#endif
