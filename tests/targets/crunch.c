/* crunch [MAX_SECONDS]: repeats one deterministic computation (integer
 * and floating-point mixing over a buffer, with a getppid() system call
 * now and then) until SIGUSR2 arrives or MAX_SECONDS (default 30) have
 * passed, then prints
 *     crunch: checksum 0123456789abcdef passes N mismatches M
 * and exits 0 if every pass gave the same result (3 otherwise).
 * crunch --once: one pass, print the checksum line, exit 0.
 *
 * A profiler that corrupts a register, a stack word or a system call's
 * result while the target is stopped shows up as a mismatch or as a
 * checksum different from the --once run. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timeutil.h"

#define WORDS 8192

static volatile sig_atomic_t done;

static void on_usr2(int sig)
{
	(void)sig;
	done = 1;
}

__attribute__((noinline)) static uint64_t crunch_pass(void)
{
	uint64_t buf[WORDS];
	uint64_t h = 0xcbf29ce484222325ULL;
	double acc = 1.0;
	uint64_t bits;
	pid_t ppid = getppid();

	for (int i = 0; i < WORDS; i++)
		buf[i] = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
	for (int round = 0; round < 64; round++) {
		for (int i = 0; i < WORDS; i++) {
			h ^= buf[(i * 7 + round) % WORDS];
			h *= 0x100000001b3ULL;
			buf[i] += h >> 17;
			acc = acc * 0.9999 + (double)(h & 0xffff) / 65536.0;
		}
		/* The parent does not change while we run: the value only
		 * moves if the syscall's return value was clobbered. */
		if (getppid() != ppid)
			h ^= 1;
	}
	memcpy(&bits, &acc, sizeof(bits));
	return h ^ bits;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long passes = 0, mismatches = 0;
	uint64_t first, r;
	double end;

	if (argc > 1 && strcmp(argv[1], "--once") == 0) {
		printf("crunch: checksum %016llx\n", (unsigned long long)crunch_pass());
		return 0;
	}
	end = now_s() + arg_s(argc, argv, 1, 30.0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);

	first = crunch_pass();
	passes = 1;
	while (!done && now_s() < end) {
		r = crunch_pass();
		passes++;
		if (r != first)
			mismatches++;
	}
	printf("crunch: checksum %016llx passes %lu mismatches %lu\n",
	       (unsigned long long)first, passes, mismatches);
	return mismatches ? 3 : 0;
}
