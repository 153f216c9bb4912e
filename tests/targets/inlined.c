/* inlined: the hot loop is in mix(), which is always inlined into
 * outer(); outer() is called from main.  With DWARF, the report must show
 * mix as a function of its own (self time) inside outer (cumulative time).
 *
 * usage: inlined SECONDS */
#include <stdlib.h>

#include "timeutil.h"

static inline __attribute__((always_inline)) unsigned long mix(unsigned long h, int n)
{
	for (int i = 0; i < n; i++) {
		h ^= h >> 13;
		h *= 0x9e3779b97f4a7c15UL;
		h += (unsigned long)i;
	}
	return h;
}

__attribute__((noinline)) static unsigned long outer(double seconds)
{
	unsigned long h = 1;
	double end = now_s() + seconds;

	while (now_s() < end)
		h = mix(h, 200000);
	return h;
}

int main(int argc, char **argv)
{
	volatile unsigned long sink = outer(argc > 1 ? strtod(argv[1], NULL) : 1.0);

	(void)sink;
	return 0;
}
