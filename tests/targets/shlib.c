/* shlib LIBDL_HOT_SO [SECONDS]: for SECONDS (default 1.5) alternate 10 ms
 * slices of lib_hot() (libhot.so, linked) and, from 0.3 s on, dl_hot()
 * (LIBDL_HOT_SO, opened with dlopen() at that point). */
#include <dlfcn.h>
#include <stdio.h>

#include "timeutil.h"

unsigned long lib_hot(double secs);

int main(int argc, char **argv)
{
	unsigned long (*dl_hot)(double) = NULL;
	double start = now_s();
	double secs = arg_s(argc, argv, 2, 1.5);
	unsigned long sum = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: shlib LIBDL_HOT_SO [SECONDS]\n");
		return 2;
	}
	while (now_s() - start < secs) {
		sum += lib_hot(0.01);
		if (!dl_hot && now_s() - start >= 0.3) {
			void *h = dlopen(argv[1], RTLD_NOW);

			if (!h || !(*(void **)&dl_hot = dlsym(h, "dl_hot"))) {
				fprintf(stderr, "shlib: %s\n", dlerror());
				return 1;
			}
		}
		if (dl_hot)
			sum += dl_hot(0.01);
	}
	printf("shlib: %lu\n", sum & 0xff);
	return 0;
}
