/* execer: burns CPU in before_exec() for SECONDS, then execs itself (or
 * the program named by argv[3]) with "after", which burns CPU in
 * after_exec() for SECONDS and exits 7.  A profiler must go on profiling
 * the new image, with the new image's symbols.
 *
 * usage: execer SECONDS [after|before] [PROGRAM] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timeutil.h"

__attribute__((noinline)) static unsigned long before_exec(double seconds)
{
	return SPIN_FOR(seconds, 3);
}

__attribute__((noinline)) static unsigned long after_exec(double seconds)
{
	return SPIN_FOR(seconds, 5);
}

int main(int argc, char **argv)
{
	double s = arg_s(argc, argv, 1, 0.7);
	char secs[32];

	if (argc > 2 && !strcmp(argv[2], "after")) {
		after_exec(s);
		return 7;
	}
	before_exec(s);
	snprintf(secs, sizeof(secs), "%g", s);
	execl(argc > 3 ? argv[3] : "/proc/self/exe", argv[0], secs, "after", (char *)NULL);
	perror("execl");
	return 1;
}
