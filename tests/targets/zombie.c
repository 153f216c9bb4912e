/* zombie [SECONDS]: forks a child that exits at once and never reaps it,
 * prints the child's pid and sleeps SECONDS (default 10) or until killed,
 * so the child stays a zombie that long. */
#include <stdio.h>
#include <unistd.h>

#include "timeutil.h"

int main(int argc, char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(0);
	printf("%d\n", (int)pid);
	fflush(stdout);
	sleep_s(arg_s(argc, argv, 1, 10.0));
	return 0;
}
