/* ratio3 [SCALE]: three threads run fixed amounts of the same work, in
 * the ratio 1:2:3, in work1, work2 and work3, released together by a
 * barrier.  On 2 CPUs the three compete for the two while they all run,
 * so each spends time runnable but waiting; with SCALE 1 (the default) the
 * run takes about 1.4 s on the 2-vCPU VM this was written on (work1 about
 * 0.4 s of CPU, work2 0.8 s, work3 1.2 s).  SCALE multiplies all three.
 * At exit it prints each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID,
 * read by the thread when its work is done):
 *     ratio3: work1 0.400 s work2 0.800 s work3 1.200 s
 * so that a profile's shares can be judged against what each thread
 * really ran, whatever the scheduler made of the ratio. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "timeutil.h"

/* Iterations in one share of work: about 0.4 s of CPU here. */
#define UNIT 380000000UL

/* The one inner loop of all three: a chain of dependent multiplies, the
 * same cost per iteration whatever the salt.  A macro, so that it is each
 * function's own code (an inlined helper can get a row of its own in a
 * profile); the salts keep the compiler from folding the three functions
 * into one (-fipa-icf). */
#define WORK(n, salt) ({                                                 \
	unsigned long x_ = (salt);                                       \
	for (unsigned long i_ = 0; i_ < (n); i_++)                       \
		x_ = x_ * 6364136223846793005UL + (salt);                \
	x_;                                                              \
})

/* Not inlined into the thread function, not cloned (a clone of a function
 * with a constant argument would be named work1.constprop.0). */
__attribute__((noinline, noclone)) static unsigned long work1(unsigned long n)
{
	return WORK(1 * n, 11);
}

__attribute__((noinline, noclone)) static unsigned long work2(unsigned long n)
{
	return WORK(2 * n, 13);
}

__attribute__((noinline, noclone)) static unsigned long work3(unsigned long n)
{
	return WORK(3 * n, 17);
}

struct job {
	unsigned long (*fn)(unsigned long);
	unsigned long n, result;
	double cpu;
};

static pthread_barrier_t go;

static void *run(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(&go);
	j->result = j->fn(j->n);
	j->cpu = thread_cpu_s();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = (unsigned long)(UNIT * arg_s(argc, argv, 1, 1.0));
	struct job jobs[3] = { { work1, n, 0, 0 }, { work2, n, 0, 0 },
			       { work3, n, 0, 0 } };
	pthread_t t[3];
	unsigned long sum = 0;

	pthread_barrier_init(&go, NULL, 3);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, run, &jobs[i])) {
			fprintf(stderr, "ratio3: cannot create thread %d\n", i + 1);
			return 1;
		}
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		sum += jobs[i].result;
	}
	printf("ratio3: work1 %.3f s work2 %.3f s work3 %.3f s\n",
	       jobs[0].cpu, jobs[1].cpu, jobs[2].cpu);
	/* The results feed the exit status so that no loop is dead code. */
	return sum == 42 ? 3 : 0;
}
