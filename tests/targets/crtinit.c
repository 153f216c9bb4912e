/* crtinit: the hot loop runs before main, called from the executable's
 * _init.  glibc's crti.o calls __gmon_start__ from _init when the program
 * defines it (gprof's hook, here taken over), and neither crti.o nor
 * crtn.o gives CFI for _init: every sample's stack goes spin_in_init <-
 * __gmon_start__ <- _init <- glibc's start-up code <- _start, and only a
 * rule for _init's known shape gets the unwinder from it to its caller.
 *
 * usage: crtinit  (spins 1 s of wall-clock time, then main prints "done") */
#include <stdio.h>

#include "timeutil.h"

volatile unsigned long crtinit_sink;

__attribute__((noinline)) static unsigned long spin_in_init(void)
{
	return SPIN_FOR(1.0, 23);
}

void __gmon_start__(void);

void __gmon_start__(void)
{
	crtinit_sink = spin_in_init();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	printf("crtinit: done (%d)\n", crtinit_sink != 0);
	return 0;
}
