/* starved: a thread that ctprof asks to stop but that cannot run to its
 * stop for 300 ms at a time, longer than ctprof's 100 ms watchdog.
 *
 * The thread runs starved_work() pinned to one CPU.  A forked child, the
 * hog, is pinned to the same CPU at SCHED_FIFO priority 50 and alternates
 * 300 ms of hog_work() with 200 ms of sleep: while it spins, the starved
 * thread is runnable (state R, so ctprof interrupts it) but gets no CPU to
 * stop on.  The hog must be another process: ctprof does not trace it, so
 * it is never stopped to be sampled.  A hog thread in this process would
 * be, and each of its sample stops would hand the CPU to the starved
 * thread, which would then reach its stop within the tick.
 *
 * Prints "starved: done N" (N rounds of starved_work) and exits 0 after
 * SECONDS.  Exits 3, after saying why, when this machine cannot set the
 * stage: no second CPU, or no permission for SCHED_FIFO (EPERM).
 *
 * usage: starved SECONDS */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"

#define CANNOT_STARVE 3

static double end;
static unsigned long rounds;
/* Keeps the work's results live, so that the compiler neither drops the
 * loops nor renames the functions (.isra). */
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long starved_work(void)
{
	return SPIN_FOR(0.01, 17);
}

__attribute__((noinline)) static unsigned long hog_work(void)
{
	return SPIN_FOR(0.3, 19);
}

static void *starved(void *arg)
{
	while (now_s() < end) {
		sink += starved_work();
		rounds++;
	}
	return NULL;
}

/* The child: report through FD whether it got the CPU and the priority
 * (0 or an errno), then hog the CPU until END. */
static void hog(int cpu, int fd)
{
	struct sched_param p = { .sched_priority = 50 };
	pid_t parent = getppid();
	cpu_set_t set;
	int err = 0;

	/* A SCHED_FIFO spinner must not outlive the test that started it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &p) < 0)
		err = errno;
	if (write(fd, &err, sizeof(err)) != sizeof(err) || err)
		_exit(1);
	close(fd);
	while (now_s() < end) {
		sink += hog_work();
		sleep_s(0.2);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int cpu = -1, ncpus, err = 0, status, pipefd[2];
	pthread_attr_t attr;
	cpu_set_t set;
	pthread_t t;
	pid_t child;

	end = now_s() + arg_s(argc, argv, 1, 2.0);
	/* The last CPU we may use; ctprof and this main thread need another. */
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	ncpus = CPU_COUNT(&set);
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	if (ncpus < 2) {
		printf("starved: cannot starve: needs 2 CPUs, has %d\n", ncpus);
		return CANNOT_STARVE;
	}

	if (pipe(pipefd) < 0)
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(pipefd[0]);
		hog(cpu, pipefd[1]);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(pipefd[0]);
	if (err) {
		waitpid(child, &status, 0);
		/* Only a refusal is the machine's doing; anything else is ours. */
		printf("starved: %s: SCHED_FIFO on CPU %d: %s\n",
		       err == EPERM ? "cannot starve" : "the hog failed", cpu,
		       err > 0 ? strerror(err) : "it died");
		return err == EPERM ? CANNOT_STARVE : 1;
	}

	/* Started only once the hog holds the CPU at its priority. */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ||
	    pthread_create(&t, &attr, starved, NULL))
		return 1;
	pthread_join(t, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("starved: the hog failed (status %#x)\n", status);
		return 1;
	}
	printf("starved: done %lu\n", rounds);
	return 0;
}
