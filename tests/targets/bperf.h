/* Four functions with the same loop body and 1:8:16:32 iteration counts:
 * a profiler that samples fairly sees their self time in that ratio. */
#ifndef CTPROF_TEST_BPERF_H
#define CTPROF_TEST_BPERF_H

void tinywork(void);
void leastwork(void);
void middlework(void);
void mostwork(void);

#endif
