// Three marker phases in rounds, 2:3:5 work, each timed by the program's
// own clock; prints each phase's share of their sum at exit.  The names
// are mangled (a namespace, a class template) so that demangling shows.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace work {
template <typename T> struct Sieve {
	T seed;
	// Inlined into each phase, so that a phase is never a tail call.
	__attribute__((always_inline)) T phase(long n, T mul);
	__attribute__((noinline)) T phase_alpha(long n) { return phase(n, 31); }
	__attribute__((noinline)) T phase_beta(long n) { return phase(n, 17); }
	__attribute__((noinline)) T phase_gamma(long n) { return phase(n, 13); }
};

template <typename T> inline T Sieve<T>::phase(long n, T mul)
{
	volatile T s = seed;

	for (long i = 0; i < n; i++)
		s = (s * mul + (T)i) % 1000003;
	return s;
}
} // namespace work

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, t[3] = { 0, 0, 0 }, start = now(), a;
	work::Sieve<unsigned long> s = { 7 };
	unsigned long x = 0;
	long unit = 100000;

	while (now() - start < secs) {
		a = now(); x += s.phase_alpha(2 * unit); t[0] += now() - a;
		a = now(); x += s.phase_beta(3 * unit); t[1] += now() - a;
		a = now(); x += s.phase_gamma(5 * unit); t[2] += now() - a;
	}
	a = t[0] + t[1] + t[2];
	printf("own: phase_alpha %.1f\nown: phase_beta %.1f\nown: phase_gamma %.1f\n(%lu)\n",
	       100 * t[0] / a, 100 * t[1] / a, 100 * t[2] / a, x);
	return 0;
}
