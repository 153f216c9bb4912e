/* report.h - the terminal report, in the lineage of Plan 9's tprof: a
 * header with the totals, one row per function with self and cumulative
 * time, and a line that says what was lost. */
#ifndef CTPROF_REPORT_H
#define CTPROF_REPORT_H

#include "maps.h"
#include "profile.h"
#include "sampler.h"

#include <stdio.h>
#include <sys/types.h>

struct report_info {
	pid_t pid;
	const char *comm;
	unsigned frequency;
	size_t threads_seen;
	unsigned long lost;             /* samples lost in the session */
	int verbose;
	const char *unwinder;           /* backend name */
};

/* Write the report to F.  0, or -errno if writing failed. */
int report_write(FILE *f, const struct report_info *ri, const struct profile *p,
		 const struct sampler_stats *st, const struct maps *maps);

#endif
