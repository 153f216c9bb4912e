/* top.h - 'ctprof top': a live view of the hottest functions while the
 * sampler runs, refreshed every --interval.
 *
 * It lives in the sampler's hooks (sampler.h): at each interval it hands
 * the samples counted since the last one to the view (top-view.h), which
 * turns them into functions and renders them with the whole run's shares
 * beside them.  On a terminal it takes the screen (alternate screen, keys
 * s, c and q) and gives it back as it was on every way out; otherwise it
 * prints a plain block per interval.  Names are looked up and frames
 * written by a thread of its own, so that neither slow symbolization nor
 * an output that stops draining holds up the sampling loop, on which every
 * traced thread waits at each of its ptrace events.
 */
#ifndef CTPROF_TOP_H
#define CTPROF_TOP_H

#include "cli.h"
#include "sampler.h"

struct top;

/* Install the view in SP's hooks, after sampler_init() and before
 * sampler_run(), as the options O ask (interval, frequency, sort, names);
 * on a terminal, take it over now.  SP must outlive the view.  Returns the
 * view, or NULL with errno set (nothing is changed then). */
struct top *top_start(struct sampler *sp, const struct options *o);

/* After sampling: off a terminal, print a last block for the time since
 * the last refresh; give the terminal back as it was, with any message
 * written to standard error meanwhile; free T.  Call it after detaching,
 * so that an output that does not drain cannot hold up the target.
 * Returns 0 (also for T NULL, and when the reader of a pipe went away),
 * or -1 after saying why if the view could not be written. */
int top_end(struct top *t);

#endif
