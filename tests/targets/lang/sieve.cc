/* sieve [SECONDS]: three marker phases in rounds, with work 2:3:5, for
 * SECONDS (default 3) of CPU time.  Each phase is timed by the thread's
 * CPU clock, and at exit one line per phase gives its share of the three,
 * for tests/lang-compiled.sh to hold the profile against:
 *     sieve: phase_alpha 20.1%
 *
 * The phases are members of a class template in a namespace, so that
 * their names are mangled with a template argument and a parameter list.
 * Their work is done in one worker, so that a phase is on the stack as a
 * caller only, found by unwinding. */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace work {

/* Sieve of Eratosthenes over a table small enough to stay in L1. */
template <typename Flag> class Sieve {
public:
	explicit Sieve(size_t n) : composite(n) {}

	/* Each phase adds after each call, so that no call is a tail call
	 * that would take the phase off the stack. */
	__attribute__((noinline)) long phase_alpha(int k)
	{
		long sum = 0;

		for (int i = 0; i < 2 * k; i++)
			sum += sift();
		return sum;
	}

	__attribute__((noinline)) long phase_beta(int k)
	{
		long sum = 0;

		for (int i = 0; i < 3 * k; i++)
			sum += sift();
		return sum;
	}

	__attribute__((noinline)) long phase_gamma(int k)
	{
		long sum = 0;

		for (int i = 0; i < 5 * k; i++)
			sum += sift();
		return sum;
	}

private:
	std::vector<Flag> composite;

	/* The primes below the table's size. */
	__attribute__((noinline)) long sift()
	{
		size_t n = composite.size();
		long primes = 0;

		for (size_t i = 0; i < n; i++)
			composite[i] = 0;
		for (size_t i = 2; i < n; i++) {
			if (composite[i])
				continue;
			primes++;
			for (size_t j = i * i; j < n; j += i)
				composite[j] = 1;
		}
		return primes;
	}
};

} // namespace work

static double cpu_now()
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0, t[3] = { 0, 0, 0 };
	const char *names[3] = { "phase_alpha", "phase_beta", "phase_gamma" };
	work::Sieve<unsigned char> sieve(16384);
	long sum = 0, rounds = 0;
	double start = cpu_now(), a, b, c, d, all;

	/* Rounds of a few ms: a drift in the machine's speed is shared out. */
	while (cpu_now() - start < secs) {
		a = cpu_now();
		sum += sieve.phase_alpha(10);
		b = cpu_now();
		sum += sieve.phase_beta(10);
		c = cpu_now();
		sum += sieve.phase_gamma(10);
		d = cpu_now();
		t[0] += b - a;
		t[1] += c - b;
		t[2] += d - c;
		rounds++;
	}
	all = t[0] + t[1] + t[2];
	for (int i = 0; i < 3; i++)
		printf("sieve: %s %.1f%%\n", names[i], 100 * t[i] / all);
	fprintf(stderr, "sieve: %ld rounds, %ld primes\n", rounds, sum);
	return 0;
}
