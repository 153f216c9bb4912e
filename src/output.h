/* output.h - the output formats: one writer each over the profile model,
 * chosen by name (--format) or by the output file's name. */
#ifndef CTPROF_OUTPUT_H
#define CTPROF_OUTPUT_H

#include "profile.h"
#include "report.h"

#include <stdbool.h>
#include <stdio.h>

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

struct options;
/* The output options the command line asks for. */
struct output_opts output_opts_of(const struct options *o);

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

/* The writer called NAME, or NULL. */
const struct writer *writer_find(const char *name);
/* The writer a file name asks for: .pb.gz and .pb pprof, .folded folded
 * stacks, .svg a flame graph, anything else the text report. */
const struct writer *writer_for_file(const char *path);
/* Does -o PATH name standard output ("-")? */
bool output_is_stdout(const char *path);
/* The names of all writers, for messages: "text, folded, pprof, svg". */
const char *writer_names(void);

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

/* Read a pprof profile (gzipped or not) from PATH into P (fresh from
 * profile_init).  On failure, print one line saying what is wrong with the
 * file and return -1. */
int pprof_read(const char *path, struct profile *p);
/* The same, from LEN bytes at BUF; NAME is the file named in messages. */
int pprof_read_mem(const uint8_t *buf, size_t len, const char *name, struct profile *p);

#endif
