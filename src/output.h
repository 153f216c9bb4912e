/* output.h - the output formats: one writer each (writer.h) over the
 * profile model, chosen by name (--format) or by the output file's name;
 * and profiles read back from pprof files. */
#ifndef CTPROF_OUTPUT_H
#define CTPROF_OUTPUT_H

#include "writer.h"

#include <stdbool.h>
#include <stdint.h>

struct options;
/* The output options the command line asks for. */
struct output_opts output_opts_of(const struct options *o);

/* The writer called NAME, or NULL. */
const struct writer *writer_find(const char *name);
/* The writer a file name asks for: .pb.gz and .pb pprof, .folded folded
 * stacks, .svg a flame graph, anything else the text report. */
const struct writer *writer_for_file(const char *path);
/* Does -o PATH name standard output ("-")? */
bool output_is_stdout(const char *path);
/* The names of all writers, for messages: "text, folded, pprof, svg". */
const char *writer_names(void);

/* Read a pprof profile (gzipped or not) from PATH into P (fresh from
 * profile_init).  On failure, print one line saying what is wrong with the
 * file and return -1. */
int pprof_read(const char *path, struct profile *p);
/* The same, from LEN bytes at BUF; NAME is the file named in messages. */
int pprof_read_mem(const uint8_t *buf, size_t len, const char *name, struct profile *p);

#endif
