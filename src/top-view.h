/* top-view.h - what 'ctprof top' shows: the functions of each interval and
 * of the whole run, and their text, for the screen or as plain blocks.
 *
 * Used by top.c from its view thread only: nothing here is shared with the
 * sampling loop.  The modules it symbolizes with are its own copies, handed
 * over by the sampling thread into its modtab (module_stage_take), so that the sampler may
 * add modules to its table meanwhile.
 */
#ifndef CTPROF_TOP_VIEW_H
#define CTPROF_TOP_VIEW_H

#include "maps.h"
#include "stacks.h"
#include "strpool.h"
#include "symbolize.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The run as the sampling thread saw it when it handed an interval over. */
struct top_info {
	pid_t pid;
	char comm[64];
	size_t nthreads;        /* traced now */
	size_t nprocs;          /* processes with threads traced now */
	unsigned frequency;
	uint64_t missed;        /* ticks, over the run */
	unsigned long lost;     /* samples, over the run */
	uint64_t unwind_failed;
	double stop_median_us;
	uint64_t now_ns;        /* CLOCK_MONOTONIC, when it was taken */
};

struct top_func {
	const char *name, *file, *module;       /* interned in the view's pool */
	uint64_t self, cum;                     /* samples, last interval */
	uint64_t run_self, run_cum;             /* samples, whole run */
};

/* A growing text, owned by its user. */
struct buf {
	char *s;
	size_t len, cap;
};

struct top_view {
	/* Set by the user before the first call, then read only. */
	bool screen;            /* render for a terminal (else plain blocks) */
	bool keys;              /* the screen's second line names the keys */
	bool raw_names;         /* --no-demangle */
	int verbose;
	bool sort_cum;          /* the order: may change between calls */

	struct modtab modtab;   /* the copies, by module id */
	struct maps maps;       /* only .mt, for the symbolizer */
	struct symbolizer *sz;  /* made at the first interval with samples */
	struct strpool strings;
	struct top_func *funcs;
	size_t nfuncs, fcap;
	struct key3_index index; /* funcs by name, file and module */
	size_t *order;          /* funcs, in the order shown */

	uint64_t total, run_total;      /* ns the samples stand for: last
	                                 * interval, whole run */
	uint64_t samples;               /* samples in the last interval */
	uint64_t start_ns, last_ns;     /* when sampling began, last interval ended */
	uint64_t span_ns;               /* how long the last interval was */
};

/* Start a view of a run that began at START_NS, with intervals of
 * INTERVAL_NS (for the first frame); the flags above are zero. */
void view_init(struct top_view *v, uint64_t start_ns, uint64_t interval_ns);
void view_release(struct top_view *v);
/* Name JIT code from the perf map of MAPS's process, as the report does. */
void view_set_target(struct top_view *v, const struct maps *maps);

/* The samples of an interval that ended at NOW_NS (growth of each stack
 * since the last); BATCH is emptied.  Sorts the view. */
void view_take(struct top_view *v, struct stacks *batch, uint64_t now_ns);

/* Sort again, after sort_cum changed. */
void view_sort(struct top_view *v);

/* Append the whole screen for a terminal of WIDTH x HEIGHT to OUT: every
 * line placed by position, none wider than WIDTH - 1, none below HEIGHT. */
void view_screen(const struct top_view *v, const struct top_info *info, int width, int height,
		 struct buf *out);

/* Append a plain block to OUT, at most ROWS rows; LAST: the one written
 * at the end; MERGED: intervals it covers beyond one, as the output was not
 * read in time. */
void view_block(const struct top_view *v, const struct top_info *info, size_t rows, bool last,
		unsigned merged, struct buf *out);

#endif
