/* urgcount [SECONDS [SENT]]: a program with a SIGURG handler of its own
 * that counts its calls, to show that no SIGURG of a profiler's reaches it
 * and that none of its own is lost.
 *
 * Three threads stay busy:
 *   main     in main_work(), which also sends SENT (default 5) SIGURGs to
 *            the main thread itself with tgkill, spread over the run (one
 *            every SECONDS / (SENT + 1) s; every 0.1 s with SECONDS 0);
 *   blocked  in blocked_work(), with every signal blocked (SIG_SETMASK
 *            with a full set) before it starts working, as servers start
 *            their workers;
 *   crit     in crit_work(), which blocks every signal around short
 *            critical sections: 20-50 us of work in crit_inside(), then
 *            100-200 us in crit_outside() with its signals open again.
 * It runs for SECONDS (default 2; 0: until SIGTERM, which it catches to
 * end as it would at the end of its time) and then prints on stdout
 *     urgcount: handler H sent S winch W
 *     urgcount: cpu main M blocked B crit C
 * H the calls of its SIGURG handler (any thread's), S the SIGURGs it sent
 * itself, W the calls of a SIGWINCH handler (it sends itself none: a
 * profiler's signals may be either), and M, B, C each thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, in seconds, read by the thread when its work
 * is done), so that a profile's shares can be judged against what each
 * thread really ran. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"

/* Not inlined, not cloned (a clone would be named crit_inside.constprop.0
 * or the like in a profile): each part is a symbol of its own. */
#define OWN_FUNCTION __attribute__((noinline, noclone))

/* Arithmetic for US microseconds by the monotonic clock (read through the
 * vDSO: no kernel entry), in the calling function.  A macro, so that the
 * time is the caller's own (see SPIN_ON in timeutil.h, whose rounds are
 * too long for sections of 20 us); the salts keep the compiler from
 * folding two callers into one (-fipa-icf). */
#define SPIN_US(us, salt) do {                                       \
	double spin_end_ = now_s() + (us) / 1e6;                     \
	do {                                                         \
		for (int spin_i_ = 0; spin_i_ < 200; spin_i_++)     \
			sink += (unsigned long)spin_i_ * (salt);     \
	} while (now_s() < spin_end_);                               \
} while (0)

static atomic_long handled, winched;
static atomic_int done;
static volatile unsigned long sink;
static double cpu_blocked, cpu_crit;

static void on_urg(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

static void on_winch(int sig)
{
	(void)sig;
	atomic_fetch_add(&winched, 1);
}

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&done, 1);
}

/* Main's work: rounds of 100 us, its own signals between them, until its
 * time is over (and all its signals sent) or SIGTERM came.  The count of
 * SIGURGs sent is returned. */
OWN_FUNCTION static long main_work(double secs, long want)
{
	double start = now_s(), every = secs > 0 ? secs / (double)(want + 1) : 0.1;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	long sent = 0;

	while (!atomic_load(&done)) {
		double t;

		SPIN_US(100, 3);
		t = now_s() - start;
		if (sent < want && t >= every * (double)(sent + 1)) {
			syscall(SYS_tgkill, pid, tid, SIGURG);
			sent++;
		}
		if (secs > 0 && t >= secs && sent >= want)
			atomic_store(&done, 1);
	}
	return sent;
}

OWN_FUNCTION static void blocked_work(void)
{
	while (!atomic_load(&done))
		SPIN_US(100, 5);
}

OWN_FUNCTION static void crit_inside(double us)
{
	SPIN_US(us, 7);
}

OWN_FUNCTION static void crit_outside(double us)
{
	SPIN_US(us, 11);
}

/* Sections of 20-50 us with every signal blocked, 100-200 us between
 * them, their lengths from a small xorshift generator. */
OWN_FUNCTION static void crit_work(void)
{
	unsigned int r = 2463534242u;
	sigset_t all, open;

	sigfillset(&all);
	while (!atomic_load(&done)) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		pthread_sigmask(SIG_SETMASK, &all, &open);
		crit_inside(20 + r % 31);
		pthread_sigmask(SIG_SETMASK, &open, NULL);
		crit_outside(100 + (r >> 8) % 101);
	}
}

static void *blocked_thread(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	blocked_work();
	cpu_blocked = thread_cpu_s();
	return arg;
}

static void *crit_thread(void *arg)
{
	crit_work();
	cpu_crit = thread_cpu_s();
	return arg;
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 2.0), cpu_main;
	long want = argc > 2 ? atol(argv[2]) : 5, sent;
	struct sigaction sa = { .sa_handler = on_urg, .sa_flags = SA_RESTART };
	pthread_t a, b;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGURG, &sa, NULL)) {
		perror("urgcount: sigaction");
		return 1;
	}
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (pthread_create(&a, NULL, blocked_thread, NULL) ||
	    pthread_create(&b, NULL, crit_thread, NULL)) {
		fprintf(stderr, "urgcount: cannot create its threads\n");
		return 1;
	}
	sent = main_work(secs, want);
	cpu_main = thread_cpu_s();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("urgcount: handler %ld sent %ld winch %ld\n", atomic_load(&handled),
	       sent, atomic_load(&winched));
	printf("urgcount: cpu main %.3f blocked %.3f crit %.3f\n",
	       cpu_main, cpu_blocked, cpu_crit);
	return 0;
}
