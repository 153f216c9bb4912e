"""pywork.py [ROUNDS]: the benchmark's CPython workload (part 7).

Deterministic work on dicts, strings and sorting: each round builds
200000 formatted keys, counts them in a dict, builds a list of derived
strings, sorts both with key functions and joins a sample of them; about
0.3 s a round on a 2-vCPU VM, 11 rounds (~3 s) by default.  No I/O but the
last line, "pywork: CHECKSUM SECONDS s", so that a profile of it is the
interpreter's own work: the evaluation loop, object allocation, str and
dict operations, the sort.
"""
import sys
import time


def one_round(n, salt):
    counts = {}
    words = []
    for i in range(n):
        k = "k%d_%s" % (i % 5003, str((i * 7919 + salt) % 1000))
        counts[k] = counts.get(k, 0) + 1
        words.append(k.upper() + k[::-1])
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    joined = ",".join(w for w in sorted(words)[::97])
    return len(ranked) + len(joined) + ranked[0][1]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    start = time.monotonic()
    total = 0
    for r in range(rounds):
        total += one_round(200000, r)
    print("pywork: %d %.2f s" % (total, time.monotonic() - start))


main()
