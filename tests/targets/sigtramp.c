/* sigtramp: a thread that sends itself SIGUSR1 in a loop, whose handler
 * returns to a sigreturn trampoline of the program's own, with CFI of an
 * ordinary function, as Go's runtime.sigreturn has.  Such CFI says that
 * the return address is at SP; in a trampoline the kernel's signal frame
 * is there instead (its ucontext), and an unwinder that trusts it reads
 * the ucontext's flags as a return address.
 *
 * A stop seldom lands in a trampoline: its two instructions run in a few
 * nanoseconds.  Here it is made common.  After each signal the page of the
 * trampoline that the handler's return fetches first is dropped with
 * MADV_DONTNEED, so that fetch is a page fault (minor: the file's page is
 * in the page cache): some microseconds in the kernel with the thread's
 * PC on the trampoline, about a third of the loop.  The trampoline's
 * syscall instruction starts a page (MODE a: the fault is at the syscall)
 * or its first instruction does (MODE b: the fault is where the handler
 * returns to).  With alt, the handler runs on a stack of its own
 * (sigaltstack(2)), as Go's do: the stack the signal interrupted is then
 * not above the trampoline's SP.
 *
 * At exit it prints the signals handled:
 *
 *   sigtramp: 31000 signals, 31000 handled
 *
 * usage: sigtramp SECONDS [a|b [alt]] */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"

/* The kernel's struct sigaction for rt_sigaction(2): glibc's sigaction()
 * puts its own trampoline in sa_restorer. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};
#define KSA_RESTORER 0x04000000

/* tramp_a's syscall at the start of a page, tramp_b at the start of the
 * next; each a function to the assembler's CFI, with nothing saved. */
extern char tramp_a[], tramp_b[];
__asm__(".pushsection .text.sigtramp,\"ax\",@progbits\n"
	".balign 4096\n"
	".skip 4096 - 7\n"
	".type tramp_a, @function\n"
	"tramp_a:\n"
	".cfi_startproc\n"
	"movq $15, %rax\n"
	"syscall\n"
	"int3\n"
	".cfi_endproc\n"
	".size tramp_a, . - tramp_a\n"
	".balign 4096\n"
	".type tramp_b, @function\n"
	"tramp_b:\n"
	".cfi_startproc\n"
	"movq $15, %rax\n"
	"syscall\n"
	"int3\n"
	".cfi_endproc\n"
	".size tramp_b, . - tramp_b\n"
	".balign 4096\n"
	".popsection\n");

static volatile unsigned long handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

__attribute__((noinline)) static void send_one(pid_t pid, pid_t tid)
{
	syscall(SYS_tgkill, pid, tid, SIGUSR1);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, end;
	const char *tramp = argc > 2 && !strcmp(argv[2], "b") ? tramp_b : tramp_a;
	uintptr_t page = ((uintptr_t)tramp + 7) & ~(uintptr_t)4095;
	struct ksigaction ka = { on_usr1, KSA_RESTORER, (void (*)(void))tramp, 0 };
	pid_t pid = getpid(), tid = gettid();
	unsigned long n = 0;
	int i;

	if (argc < 2 || secs <= 0 || (argc > 2 && strcmp(argv[2], "a") && strcmp(argv[2], "b")) ||
	    (argc > 3 && strcmp(argv[3], "alt"))) {
		fprintf(stderr, "usage: sigtramp SECONDS [a|b [alt]]\n");
		return 2;
	}
	if (argc > 3) {
		stack_t ss = { .ss_sp = malloc(SIGSTKSZ * 4), .ss_size = SIGSTKSZ * 4 };

		if (!ss.ss_sp || sigaltstack(&ss, NULL) < 0) {
			perror("sigtramp: sigaltstack");
			return 1;
		}
		ka.flags |= SA_ONSTACK;
	}
	if (syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, sizeof(ka.mask)) < 0) {
		perror("sigtramp: rt_sigaction");
		return 1;
	}
	end = now_s() + secs;
	while (now_s() < end)
		for (i = 0; i < 100; i++, n++) {
			send_one(pid, tid);
			if (madvise((void *)page, 4096, MADV_DONTNEED) < 0) {
				perror("sigtramp: madvise");
				return 1;
			}
		}
	printf("sigtramp: %lu signals, %lu handled\n", n, handled);
	return handled == n ? 0 : 1;
}
