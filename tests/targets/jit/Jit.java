// Three phases of CPU-bound work, 2:3:5, run in rounds so that the JIT's
// warm-up and any drift spread over all three. Each call is timed by the
// program's own clock; at exit it prints each phase's share of the sum,
// "java: phaseAlpha 20.1%", to judge a profile's shares by.
//
// Each phase is a static method with its loop inside, compiled by C2 (on-
// stack replacement first, then whole); run with
// -XX:CompileCommand=dontinline,Jit::phase* so that none is inlined into
// its caller and each keeps a frame of its own.
public class Jit {
	static int phaseAlpha(int n) {
		int x = 0x12345678, s = 0;
		for (int i = 0; i < n; i++) {
			x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
			s += x * 0x9e3779b1;
		}
		return s;
	}

	static int phaseBeta(int n) {
		int x = 0x2468ace0, s = 0;
		for (int i = 0; i < n; i++) {
			x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
			s ^= x * 0x85ebca6b;
		}
		return s;
	}

	static int phaseGamma(int n) {
		int x = 0x13579bdf, s = 0;
		for (int i = 0; i < n; i++) {
			x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
			s += x * 0xc2b2ae35;
		}
		return s;
	}

	static int call(int p, int n) {
		switch (p) {
		case 0: return phaseAlpha(n);
		case 1: return phaseBeta(n);
		default: return phaseGamma(n);
		}
	}

	public static void main(String[] args) {
		// The argument scales the run time: 1 is about 3 s, in 30 rounds.
		double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1;
		String[] names = { "phaseAlpha", "phaseBeta", "phaseGamma" };
		int[] weight = { 2, 3, 5 };
		int rounds = Math.max(1, (int) Math.round(30 * scale)), unit = 5_200_000;
		long[] spent = new long[3];
		int sink = 0;
		for (int r = 0; r < rounds; r++) {
			for (int p = 0; p < 3; p++) {
				long t0 = System.nanoTime();
				sink += call(p, weight[p] * unit);
				spent[p] += System.nanoTime() - t0;
			}
		}
		double sum = spent[0] + spent[1] + spent[2];
		for (int p = 0; p < 3; p++)
			System.out.printf("java: %s %.1f%%%n", names[p], 100 * spent[p] / sum);
		System.out.printf("java: phases %.2f s, result %d%n", sum / 1e9, sink);
	}
}
