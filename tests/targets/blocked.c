/* blocked [SECONDS]: spends SECONDS (default 1.5) off-CPU: the first half
 * in nanosleep(), the second half in read() on a pipe that nobody ever
 * writes to. The only other holder of the write end is a child process
 * that sleeps for the second half and then exits, which closes it and
 * ends the read() with end-of-file. Exits 0 when read() saw EOF. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 1.5);
	int fd[2];
	char c;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) != 0)
		return 1;
	sleep_s(secs / 2);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fd[0]);
		sleep_s(secs / 2);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], &c, 1);
	waitpid(pid, NULL, 0);
	if (n != 0) {
		fprintf(stderr, "blocked: read returned %zd, expected EOF\n", n);
		return 1;
	}
	return 0;
}
