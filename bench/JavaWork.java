// JavaWork [SECONDS]: a HotSpot workload to hold ctprof's JIT names and
// shares against perf's (README, Languages and runtimes).
//
// Rounds of StringBuilder and split, HashMap inserts and a walk, boxing
// and a sort, and a floating-point loop, until SECONDS (8 by default) have
// passed: C2-compiled methods, the JVM's stubs and interpreter, and G1's
// threads collecting beside them.  Run with -XX:+UnlockDiagnosticVMOptions
// -XX:+DumpPerfMapAtExit, which names the JIT code in /tmp/perf-PID.map.
// Prints "JavaWork: CHECKSUM ROUNDS".
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;

public class JavaWork {
	static long strwork(int n) {
		StringBuilder b = new StringBuilder();
		for (int i = 0; i < n; i++)
			b.append(i % 97).append(',');
		return b.toString().split(",").length;
	}

	static long mapwork(int n) {
		HashMap<String, Integer> m = new HashMap<>();
		long t = 0;
		for (int i = 0; i < n; i++)
			m.put("k" + i, i);
		for (int v : m.values())
			t += v;
		return t;
	}

	static long sortwork(int n) {
		ArrayList<Integer> a = new ArrayList<>();
		for (int i = 0; i < n; i++)
			a.add((int) ((i * 2654435761L) % 1000003));
		Collections.sort(a);
		return a.get(0);
	}

	static long mathwork(int n) {
		double s = 0;
		for (int i = 1; i < n; i++)
			s += Math.sqrt(i) * Math.sin(i);
		return (long) s;
	}

	public static void main(String[] args) {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 8;
		long end = System.nanoTime() + (long) (seconds * 1e9), sum = 0, rounds = 0;
		while (System.nanoTime() < end) {
			sum += strwork(50000) + mapwork(50000) + sortwork(50000) + mathwork(200000);
			rounds++;
		}
		System.out.println("JavaWork: " + sum + " " + rounds);
	}
}
