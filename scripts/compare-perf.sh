#!/bin/sh
# Profile one command with ctprof and with perf record, one after the
# other, and print each function's self% from both, with the total
# variation distance between the two flat profiles (half the sum of the
# absolute differences).
#     scripts/compare-perf.sh [-F HZ] -- COMMAND [ARG]...
set -eu
cd "$(dirname "$0")/.."

hz=999
if [ "${1:-}" = "-F" ]; then hz=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: scripts/compare-perf.sh [-F HZ] -- COMMAND [ARG]..." >&2; exit 2; }
command -v perf >/dev/null || { echo "scripts/compare-perf.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build/src/ctprof -F "$hz" -o "$tmp/ctprof.txt" -- "$@" >/dev/null
perf record -q -F "$hz" -e cpu-clock -o "$tmp/perf.data" -- "$@" >/dev/null 2>&1
perf report -q -i "$tmp/perf.data" --no-children --sort sym --stdio 2>/dev/null |
	awk '$1 ~ /%$/ { sub(/%$/, "", $1); print $NF, $1 }' >"$tmp/perf.txt"
awk '$1 ~ /ms$/ && $2 ~ /%$/ { sub(/%$/, "", $2); if ($2 + 0 > 0) print $5, $2 }' \
	"$tmp/ctprof.txt" >"$tmp/ctprof.flat"

awk '
	FNR == NR { c[$1] = $2; seen[$1] = 1; next }
	{ p[$1] += $2; seen[$1] = 1 }
	END {
		printf "%-32s %8s %8s\n", "function", "ctprof%", "perf%"
		for (f in seen) {
			d = c[f] - p[f]; if (d < 0) d = -d; tv += d
			if (c[f] >= 0.5 || p[f] >= 0.5)
				printf "%-32s %8.1f %8.1f\n", f, c[f], p[f]
		}
		printf "total variation distance: %.3f\n", tv / 200
	}' "$tmp/ctprof.flat" "$tmp/perf.txt"
