/* forker: forks a child that checks it is not traced, burns CPU in
 * child_work() and exits 5; the parent burns CPU in parent_work()
 * meanwhile, then reaps the child and prints
 *     forker: child status 5 tracer 0
 *
 * usage: forker SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"

__attribute__((noinline)) static unsigned long parent_work(double s)
{
	return SPIN_FOR(s, 7);
}

__attribute__((noinline)) static unsigned long child_work(double s)
{
	return SPIN_FOR(s, 11);
}

static long tracer_pid(void)
{
	char line[256];
	long t = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			t = atol(line + 10);
	if (f)
		fclose(f);
	return t;
}

int main(int argc, char **argv)
{
	double s = arg_s(argc, argv, 1, 1.0);
	int pipefd[2], status = 0;
	long tracer = -1;
	pid_t child;

	if (pipe(pipefd) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		long t = tracer_pid();

		if (write(pipefd[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		child_work(s);
		_exit(5);
	}
	parent_work(s);
	if (read(pipefd[0], &tracer, sizeof(tracer)) != sizeof(tracer))
		return 1;
	waitpid(child, &status, 0);
	printf("forker: child status %d tracer %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, tracer);
	return 0;
}
