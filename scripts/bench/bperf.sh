#!/bin/bash
# Part 4 of ctprof's benchmark: accuracy on build/tests/bperf, against
# perf.  Prints section 4 of the Markdown report on standard output,
# progress on standard error; scripts/bench.sh runs it with the other parts.
#
#     scripts/bench/bperf.sh [-n N] [-t|--trigger MODE] [-a|--append]
#
# The same as scripts/bench.sh --parts 4; about 4 seconds a repetition.
# Needs build/tests/bperf (meson builds it).  The options are
# scripts/bench.sh's (scripts/bench.sh --help).
#
#  4. Accuracy: bperf under ctprof and perf record -e cpu-clock at 999 Hz,
#     self% of its four work functions and the total variation distance
#     over the function names of the two reports (bperf's functions are
#     in files of their own, noinline: a name is a symbol there).
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bperf=
part4_setup() {
	if [ -x build/tests/bperf ]; then
		cp build/tests/bperf "$tmp/bperf"
		bperf=$tmp/bperf
	else
		say "build/tests/bperf is missing: part 4 (accuracy) is skipped"
	fi
}

# ctprof's flat self% against perf report's, by function name, and the
# total variation distance over all functions (part 7 compares by ELF
# symbol, with scripts/flatcmp.py, what names alone cannot).
accuracy() {
	run 120 "$ctprof" ${unwopt[libunwind]} -F 999 -o "$tmp/acc.txt" -- "$bperf"
	run 120 perf record -q -F 999 -e cpu-clock -o "$tmp/acc.data" -- "$bperf"
	perf report -q -i "$tmp/acc.data" --no-children --sort sym --stdio 2>/dev/null |
		awk '$1 ~ /%$/ { sub(/%$/, "", $1); print $NF, $1 }' >"$tmp/acc.perf"
	awk '$1 ~ /ms$/ && $2 ~ /%$/ { sub(/%$/, "", $2); if ($2 + 0 > 0) print $5, $2 }' \
		"$tmp/acc.txt" >"$tmp/acc.ctprof"
	[ -s "$tmp/acc.perf" ] || die "perf report gave no profile of bperf"
	[ -s "$tmp/acc.ctprof" ] || die "ctprof gave no profile of bperf"
	awk '
		FNR == NR { c[$1] += $2; seen[$1] = 1; next }
		{ p[$1] += $2; seen[$1] = 1 }
		END {
			for (f in seen) { d = c[f] - p[f]; if (d < 0) d = -d; tv += d }
			n = split("tinywork leastwork middlework mostwork", fn, " ")
			for (i = 1; i <= n; i++) printf "%s %s %s\n", fn[i], c[fn[i]] + 0, p[fn[i]] + 0
			printf "tvd %.6f\n", tv / 200
		}' "$tmp/acc.ctprof" "$tmp/acc.perf" >"$tmp/acc.cmp"
	while read -r f c p; do
		if [ "$f" = tvd ]; then put acc.tvd "$c"; else put "acc.ct.$f" "$c"; put "acc.perf.$f" "$p"; fi
	done <"$tmp/acc.cmp"
}

part4_rep() { if [ -n "$bperf" ]; then accuracy; fi; }

pct() { med "$1" %.1f; }
# Section 4 of the report.
report_4() {
	if ! want 4; then
		:
	elif [ -n "$bperf" ]; then
		cat <<EOF
**4. Accuracy**: build/tests/bperf at 999 Hz, self% (expected shares of the
four: 1.8 / 14.0 / 28.1 / 56.1%).

| function | ctprof | perf record -e cpu-clock |
| --- | --- | --- |
| tinywork | $(pct acc.ct.tinywork)% | $(pct acc.perf.tinywork)% |
| leastwork | $(pct acc.ct.leastwork)% | $(pct acc.perf.leastwork)% |
| middlework | $(pct acc.ct.middlework)% | $(pct acc.perf.middlework)% |
| mostwork | $(pct acc.ct.mostwork)% | $(pct acc.perf.mostwork)% |

Total variation distance between the two flat profiles: $(med acc.tvd %.3f).

EOF
	else
		printf '**4. Accuracy**: n/a, build/tests/bperf is missing (build the tests with meson).\n\n'
	fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/bperf.sh "trigger" 4 "$@"
fi
