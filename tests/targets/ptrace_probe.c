/* ptrace_probe: can this process ptrace at all? Tests use it to tell "the
 * sandbox refuses ptrace" (skip) from "ctprof is broken" (fail).
 *
 * It forks a sleeping child A and a second child B that tries to
 * PTRACE_SEIZE A: that is attach mode (a tracer that is not the target's
 * ancestor). If that fails, the parent tries to seize A itself (enough
 * for launch mode under kernel.yama.ptrace_scope=1).
 * Exit 0: both work. Exit 2: only a parent may trace its child (reason on
 * stdout). Exit 1: no ptrace at all (reason on stdout). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int seize(pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0)
		return -errno;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int main(void)
{
	pid_t a, b;
	int status, err;

	a = fork();
	if (a < 0)
		return 1;
	if (a == 0) {
		pause();
		_exit(0);
	}
	b = fork();
	if (b == 0)
		_exit(seize(a) == 0 ? 0 : 1);
	waitpid(b, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
		return 0;
	}
	err = seize(a);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	if (err == 0) {
		printf("ptrace of a process that is not one's child is refused"
		       " (kernel.yama.ptrace_scope?)\n");
		return 2;
	}
	printf("ptrace is refused here: PTRACE_SEIZE: %s\n", strerror(-err));
	return 1;
}
