/* loadwin SECONDS: a library's text that was not executable when the
 * profiler read the maps, and is when its code runs.
 *
 * The dynamic loader maps a library's whole span read-only from its first
 * page, then each segment over it with its own permissions; V8 and other
 * JITs flip code between writable and executable.  A profiler that reads
 * the maps in between holds a mapping of the text without execute
 * permission.  Here the window is held open: libcallback.so's text is made
 * read-only, "ready" is printed, and the text is made executable again
 * 0.3 s after a tracer has attached.  Then for SECONDS the program spins
 * in spin(), called back from the library's lib_call(): every stack holds
 * a return address into the text the profiler first saw as data. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "timeutil.h"

void lib_call(void (*fn)(double), double secs);

static uintptr_t text_lo, text_hi;

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	if (!strstr(info->dlpi_name, "libcallback.so"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
			text_hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 4095) & ~(uintptr_t)4095;
			return 1;
		}
	}
	return 0;
}

static int traced(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int pid = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid != 0;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(double secs)
{
	sink += SPIN_ON(thread_cpu_s, secs, 13);
}

int main(int argc, char **argv)
{
	double secs = arg_s(argc, argv, 1, 1.0), t0;

	if (!dl_iterate_phdr(find_text, NULL)) {
		fprintf(stderr, "loadwin: libcallback.so's text not found\n");
		return 1;
	}
	if (mprotect((void *)text_lo, text_hi - text_lo, PROT_READ) < 0) {
		perror("loadwin: mprotect");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	t0 = now_s();
	while (!traced()) {
		if (now_s() - t0 > 30) {
			fprintf(stderr, "loadwin: no tracer came\n");
			return 1;
		}
		sleep_s(0.01);
	}
	sleep_s(0.3);
	if (mprotect((void *)text_lo, text_hi - text_lo, PROT_READ | PROT_EXEC) < 0) {
		perror("loadwin: mprotect");
		return 1;
	}
	lib_call(spin, secs);
	printf("loadwin: done\n");
	return 0;
}
