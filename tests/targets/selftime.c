/* selftime MODE [SECONDS [QUIET]]: a program that knows where its own time goes,
 * to check a profiler's shares against.  For SECONDS (default 3) it loops
 * over a burst of pure arithmetic in arith_burst() and one call of
 * enter_kernel(), which enters the kernel exactly once:
 *   syscall  one getppid system call, through syscall() so that it is a
 *            real kernel entry whatever libc caches; bursts of 5 us;
 *   fault    one write to an anonymous page never touched before: a minor
 *            page fault that allocates and maps a zeroed page; bursts of
 *            7 us.
 * On the 2-vCPU VM this was written on, a getppid costs about 0.19 us and
 * such a fault about 1.8 us: the call takes a few percent of the time in
 * syscall mode and about 20% in fault mode.
 *
 * With QUIET, it first spends QUIET seconds (by the clock) in quiet_first(),
 * arithmetic that never enters the kernel (the clock is read through the
 * vDSO): a profiler that samples such code differently from code that
 * enters the kernel (ctprof, see "Holding only where it counts" in
 * src/sampler/hold.c) must see the change when the loop starts.  That time is
 * in none of the loop's figures.
 *
 * It times both parts with the TSC and at exit prints, on stdout, the share
 * of its on-CPU time spent inside enter_kernel() (its callees, in user
 * space and in the kernel, included) and how many seconds that is of:
 *     selftime: enter_kernel 3.52% of 2.98 s
 * and on stderr one line of detail: iterations, the length of each part,
 * the cost of a TSC reading, what was left out, the share with nothing
 * left out, and the minor faults taken in the loop (getrusage), as a check
 * that in syscall mode the loop takes none and in fault mode one each.
 *
 * Time the thread spends off the CPU belongs to neither part: a
 * profiler's stop (which a ptrace-based one may well take at the exit of
 * the kernel entry, inflating the call) or another program's turn on the
 * CPU.  Every iteration is about as long as the others, so one that takes
 * more than twice the warm-up's median is taken to hold such a gap and is
 * left out whole, from both the share's numerator and its denominator.
 * Which iteration a gap falls in does not depend on how that iteration's
 * time is split, so the share of the iterations kept is the share of all
 * of them without the gaps.  The seconds printed are the time counted.
 *
 * In fault mode the pages come from a 64 MiB region (MAP_NORESERVE, no
 * huge pages, so that every page faults on its own); at its end the region
 * is emptied with MADV_DONTNEED and walked again.  That madvise is kernel
 * time in main, in neither part, so it stays in the denominator, as it
 * does in a profile.
 *
 * The TSC is read with an lfence on either side, so that a reading neither
 * runs ahead of the arithmetic before it nor lets the kernel entry after it
 * start early.  A reading costs some tens of nanoseconds (printed), about a
 * tenth of a getppid here: the span of a call, from one reading to the
 * next, holds one reading's worth of main's own code, so that much, timed
 * back to back before the loop, is taken off each call and left to main
 * (in the denominator only), where a profiler puts it too. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"

/* The warm-up's length in iterations (about 20 ms: short next to the timed
 * loop, which a profiler sees too), and fault mode's region. */
#define WARMUP 2000
#define REGION (64UL << 20)

/* Not inlined, not cloned (a clone would be named arith_burst.constprop.0
 * or the like in a profile): each part is a symbol of its own. */
#define OWN_FUNCTION __attribute__((noinline, noclone))

static volatile unsigned long sink;
static uint64_t warm_ticks[WARMUP];

/* A chain of dependent multiplies: no memory but the volatile sink, no
 * system call, no fault once its code page is in. */
OWN_FUNCTION static void arith_burst(unsigned long n)
{
	LCG_STEPS(sink, n, 6364136223846793005UL);
}

/* Arithmetic and vDSO clock reads for SECS seconds: no kernel entry. */
OWN_FUNCTION static void quiet_first(double secs)
{
	sink = SPIN_FOR(secs, 7);
}

/* One kernel entry: a first write to page if there is one, else getppid.
 * The call's result goes to the sink so that syscall() is not a tail call:
 * enter_kernel stays on the stack under it. */
OWN_FUNCTION static void enter_kernel(char *page)
{
	if (page)
		*(volatile char *)page = 1;
	else
		sink = syscall(SYS_getppid);
}

/* Fault mode's fresh pages, one per call; NULL in syscall mode. */
struct pages {
	char *base, *next;
	long size;
};

static char *next_page(struct pages *p)
{
	char *page = p->next;

	if (page)
		p->next += p->size;
	return page;
}

/* At the region's end its pages are given back so that the next walk
 * faults again; 1 if that was done. */
static int region_done(struct pages *p)
{
	if (!p->base || p->next < p->base + REGION)
		return 0;
	if (madvise(p->base, REGION, MADV_DONTNEED)) {
		perror("selftime: madvise");
		exit(1);
	}
	p->next = p->base;
	return 1;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* The TSC's rate, from the monotonic clock over 5 ms, meanwhile bringing
 * arith_burst's code in and timing it: *per_us is the number of its
 * iterations per microsecond (the fastest of 200 short runs). */
static double calibrate(double *per_us)
{
	double s0 = now_s(), hz;
	uint64_t t0 = tsc_stamp(), t1, t2, fastest = UINT64_MAX;

	arith_burst(1000);
	for (int i = 0; i < 200; i++) {
		t1 = tsc_stamp();
		arith_burst(1000);
		t2 = tsc_stamp();
		if (t2 - t1 < fastest)
			fastest = t2 - t1;
	}
	while (now_s() - s0 < 0.005)
		;
	hz = (tsc_stamp() - t0) / (now_s() - s0);
	*per_us = 1000 / (fastest / hz * 1e6);
	return hz;
}

int main(int argc, char **argv)
{
	struct pages pages = { NULL, NULL, sysconf(_SC_PAGESIZE) };
	unsigned long burst, iters = 0, kept = 0, madvises = 0;
	uint64_t t0, t1, t2, start, end, limit, reading, call;
	uint64_t kern = 0, kern_all = 0, dropped = 0, in_madvise = 0;
	double secs, per_us, tsc_hz, s0, counted;
	long faults;
	int fault;

	if (argc < 2 || (strcmp(argv[1], "syscall") && strcmp(argv[1], "fault"))) {
		fprintf(stderr, "usage: selftime syscall|fault [SECONDS [QUIET]]\n");
		return 2;
	}
	fault = !strcmp(argv[1], "fault");
	secs = arg_s(argc, argv, 2, 3.0);
	if (argc > 3)
		quiet_first(arg_s(argc, argv, 3, 0));
	if (fault) {
		pages.base = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (pages.base == MAP_FAILED) {
			perror("selftime: mmap");
			return 1;
		}
		/* A huge page would make one fault of 512 first touches. */
		madvise(pages.base, REGION, MADV_NOHUGEPAGE);
		pages.next = pages.base;
	}

	/* The cost of one TSC reading: the fastest of 200 batches of 20 back
	 * to back, since a tick or a preemption inside one batch would price
	 * a reading at microseconds and leave every call at 0. */
	reading = UINT64_MAX;
	for (int b = 0; b < 200; b++) {
		t0 = tsc_stamp();
		for (int i = 0; i < 20; i++)
			t1 = tsc_stamp();
		if ((t1 - t0) / 20 < reading)
			reading = (t1 - t0) / 20;
	}

	tsc_hz = calibrate(&per_us);
	burst = (unsigned long)((fault ? 7.0 : 5.0) * per_us);

	/* Warm-up: the loop itself, to bring in every page it runs on and to
	 * learn how long an iteration takes when nothing cuts in. */
	t0 = tsc_stamp();
	for (int i = 0; i < WARMUP; i++) {
		arith_burst(burst);
		enter_kernel(next_page(&pages));
		t2 = tsc_stamp();
		warm_ticks[i] = t2 - t0;
		t0 = t2;
	}
	qsort(warm_ticks, WARMUP, sizeof(warm_ticks[0]), cmp_u64);
	limit = 2 * warm_ticks[WARMUP / 2];
	if (fault) {
		pages.next = pages.base + REGION;
		region_done(&pages);
	}

	/* The timed loop: each iteration from the end of the previous one
	 * (t0) through its burst (t1) and its call (t2). */
	faults = minor_faults();
	s0 = now_s();
	start = t0 = tsc_stamp();
	while (t0 - start < (uint64_t)(secs * tsc_hz)) {
		arith_burst(burst);
		t1 = tsc_stamp();
		enter_kernel(next_page(&pages));
		t2 = tsc_stamp();
		/* From t1 to t2 runs one TSC reading's worth of main's own
		 * code (the end of t1's, the start of t2's): not the call's. */
		call = t2 - t1 > reading ? t2 - t1 - reading : 0;
		iters++;
		kern_all += call;
		if (t2 - t0 > limit) {
			dropped += t2 - t0;
		} else {
			kept++;
			kern += call;
		}
		if (region_done(&pages)) {
			uint64_t t3 = tsc_stamp();

			madvises++;
			in_madvise += t3 - t2;
			t2 = t3;
		}
		t0 = t2;
	}
	end = t0;
	/* The seconds come from the TSC's rate over the whole loop. */
	tsc_hz = (end - start) / (now_s() - s0);
	faults = minor_faults() - faults;

	counted = end - start - dropped;
	printf("selftime: enter_kernel %.2f%% of %.2f s\n",
	       100.0 * kern / counted, counted / tsc_hz);
	fprintf(stderr, "selftime: %s mode: %lu iterations of %.2f us, "
		"the call %.3f us, a TSC reading %.1f ns; "
		"%lu iterations over %.1f us left out (%.2f%% of the loop), "
		"%.2f%% with them; madvise %lu times (%.2f%% of the loop); "
		"%ld minor faults in the loop\n",
		argv[1], iters, (end - start - in_madvise) / tsc_hz * 1e6 / iters,
		kept ? kern / tsc_hz * 1e6 / kept : 0, reading / tsc_hz * 1e9,
		iters - kept, limit / tsc_hz * 1e6, 100.0 * dropped / (end - start),
		100.0 * kern_all / (end - start), madvises,
		100.0 * in_madvise / (end - start), faults);
	return 0;
}
