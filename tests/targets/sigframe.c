/* sigframe: the hot loop runs inside a signal handler, so every sample's
 * stack goes handler_hot <- on_signal <- the kernel's signal frame
 * (__restore_rt) <- raise() <- run_in_handler <- main.  Built -O2
 * -fomit-frame-pointer: only DWARF CFI and the unwinder's knowledge of
 * signal frames get from the handler back up to main.
 *
 * With "alt", the handler runs on a stack of its own (sigaltstack(2),
 * SA_ONSTACK), malloc'd: the kernel's frame is at that stack's top, and
 * raise() and main are on the thread's stack, elsewhere in memory.
 *
 * With "alt nested", SIGUSR1's handler raises SIGUSR2, whose handler
 * (on the same stack, below the first's frames) runs the hot loop: two
 * kernel frames on the signal stack, the outer one's interrupted stack
 * the thread's.
 *
 * usage: sigframe SECONDS [alt [nested]] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

static double seconds;

__attribute__((noinline)) static unsigned long handler_hot(void)
{
	return SPIN_FOR(seconds, 17);
}

static int nested;

__attribute__((noinline)) static void on_inner_signal(int sig)
{
	handler_hot();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void on_signal(int sig)
{
	if (nested)
		raise(SIGUSR2);
	else
		handler_hot();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void run_in_handler(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	seconds = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	if (argc > 2) {
		stack_t ss = { .ss_sp = malloc(SIGSTKSZ * 4), .ss_size = SIGSTKSZ * 4 };

		nested = argc > 3 && !strcmp(argv[3], "nested");
		if (strcmp(argv[2], "alt") || (argc > 3 && !nested) || !ss.ss_sp || sigaltstack(&ss, NULL) < 0) {
			fprintf(stderr, "usage: sigframe SECONDS [alt [nested]]\n");
			return 2;
		}
		sa.sa_flags = SA_ONSTACK;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_inner_signal;
	sigaction(SIGUSR2, &sa, NULL);
	run_in_handler();
	return 0;
}
