/* report.h - the terminal report, in the lineage of Plan 9's tprof: a
 * header with the totals, one row per function with self and cumulative
 * time, and a line that says what was lost. */
#ifndef CTPROF_REPORT_H
#define CTPROF_REPORT_H

#include "profile.h"
#include "sampler.h"

#include <stdio.h>
#include <sys/types.h>

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

struct output_opts;

/* Write the report of P to F, shaped by OO.  0, or -errno if writing
 * failed. */
int report_write(FILE *f, const struct profile *p, const struct run_info *ri,
		 const struct output_opts *oo);

#endif
