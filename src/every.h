/* every.h - --every: a complete profile per interval, for a collector.
 *
 * Each -o is then a pattern of file names: %t the interval's start (UTC,
 * 20261123T101500Z), %n its number from 000001, %p the target's pid, %%
 * a '%'.  A file appears whole: it is written under a hidden name in the
 * same directory and renamed.  The sampler hands each interval's samples
 * over and starts the next at once, so no sample falls between two files
 * and the sampler's tables start anew each interval.
 */
#ifndef CTPROF_EVERY_H
#define CTPROF_EVERY_H

#include "cli.h"
#include "sampler.h"

struct every;

/* Can the files of O's patterns be written?  Checked before the target
 * is touched.  0, or -1 after saying why. */
int every_check(const struct options *o);

/* Start writing a profile of SP's samples every O->every seconds: sets
 * SP's interval hook.  NULL with errno set if it could not start. */
struct every *every_start(struct sampler *sp, const struct options *o);

/* After sampling (and the detach): write the last interval, which may be
 * short, and wait for every file.  0, or -1 if a file could not be
 * written (said when it happened).  Frees E; NULL is a no-op. */
int every_end(struct every *e);

#endif
