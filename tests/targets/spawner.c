/* spawner: starts a program with posix_spawn(), which glibc does with
 * clone(CLONE_VM | CLONE_VFORK): the parent is suspended until the child
 * execs, so a profiler following forks must follow a vfork.  Burns CPU in
 * spawner_work() while the program runs, waits for it and exits with its
 * status.
 *
 * usage: spawner SECONDS PROGRAM [ARG]... */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

#include "timeutil.h"

extern char **environ;

__attribute__((noinline)) static unsigned long spawner_work(double s)
{
	return SPIN_FOR(s, 13);
}

int main(int argc, char **argv)
{
	pid_t child;
	int err, status;

	if (argc < 3) {
		fprintf(stderr, "usage: spawner SECONDS PROGRAM [ARG]...\n");
		return 2;
	}
	err = posix_spawn(&child, argv[2], NULL, NULL, argv + 2, environ);
	if (err) {
		fprintf(stderr, "spawner: cannot run %s: error %d\n", argv[2], err);
		return 2;
	}
	spawner_work(arg_s(argc, argv, 1, 1.0));
	if (waitpid(child, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
