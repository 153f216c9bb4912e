/* diff.h - 'ctprof diff BASE NEW': did a change help?
 *
 * Two saved profiles (ctprof's, Go's, any pprof CPU profile) compared
 * function by function: each one's self and cumulative share in both and
 * the change, largest change first; or their stacks, as folded lines with
 * two counts (flamegraph.pl's differential input) or a differential flame
 * graph.  Functions are matched by name, declaration file and module, not
 * by address, so two builds of a program line up.
 */
#ifndef CTPROF_DIFF_H
#define CTPROF_DIFF_H

#include "cli.h"

/* The exit status: 0, or 1 if a profile could not be read or the output
 * written (said on standard error). */
int diff_main(const struct options *o);

#endif
