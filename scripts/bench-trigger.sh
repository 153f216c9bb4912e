#!/bin/bash
# What each way of timing samples costs the target and how right it is,
# beside perf, in one run: ctprof --trigger=perf and --trigger=timer, each
# as root and as an unprivileged user (nobody, through setpriv), and perf
# record --call-graph dwarf (cpu-clock).  Prints a Markdown report on
# standard output (progress on standard error), for docs/BENCHMARKS.md.
#
#     scripts/bench-trigger.sh [-n N] [-F HZ]
#
# Needs root (for the two users and perf's kernel samples), gcc, perf and
# a built tree (build/src/ctprof, build/tests/selftime).  Each figure is
# the median of N repetitions (default 3); within one, every variant runs
# once, in an order that rotates from one repetition to the next, and
# ratios are taken inside a repetition.  About 80 s a repetition.
#
# Measured, at -F HZ (default 999):
#  - loss a sample: bench/gaps.c's own count of the time it did not run
#    (gaps over 2 us between clock reads), less a bare run's, over the
#    samples taken; one thread, and two (one per CPU);
#  - slowdown: bench/workload.c's fixed work, its own wall clock against
#    a bare run's, one thread and two;
#  - ctprof's own CPU a sample (-v), on the one-thread workload;
#  - accuracy: tests/targets/selftime.c times the share of its loop spent
#    in enter_kernel() (a getppid, or a page fault); the report's share
#    (enter_kernel's cum%, plus the [kernel] row where the perf trigger
#    counts kernel time apart, less the program's own madvise share in
#    fault mode) minus the program's, in points.
set -eu
cd "$(dirname "$0")/.."

reps=3 hz=999
while [ $# -gt 0 ]; do
	case $1 in
	-n) reps=$2; shift 2 ;;
	-F) hz=$2; shift 2 ;;
	*) echo "usage: scripts/bench-trigger.sh [-n N] [-F HZ]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "scripts/bench-trigger.sh: run as root (it runs variants as root and as nobody)" >&2; exit 1; }
for c in gcc perf setpriv; do
	command -v $c >/dev/null || { echo "scripts/bench-trigger.sh: $c is not installed" >&2; exit 1; }
done
[ -x build/src/ctprof ] && [ -x build/tests/selftime ] || {
	echo "scripts/bench-trigger.sh: build first (meson setup build && ninja -C build)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/bench-trigger.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp build/src/ctprof build/tests/selftime "$tmp/"
gcc -O2 -g -pthread bench/gaps.c -o "$tmp/gaps"
gcc -O2 -g -fomit-frame-pointer -pthread bench/workload.c -o "$tmp/workload"
say() { echo "bench-trigger: $*" >&2; }
res=$tmp/res
mkdir "$res"
put() { echo "$2" >>"$res/$1"; }
med() {
	[ -s "$res/$1" ] || { echo n/a; return; }
	sort -g "$res/$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f\n", m }'
}

variants=(perf-root perf-user timer-root timer-user perf-dwarf)
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# cmd VARIANT PROGRAM...: the command line that runs PROGRAM under VARIANT,
# into $tmp/run.out (the profile) and $tmp/o, $tmp/e (the program's).
cmd() {
	local v=$1
	shift
	case $v in
	bare) echo "$@" ;;
	perf-root) echo "$tmp/ctprof --trigger=perf -F $hz -v -o $tmp/run.out -- $*" ;;
	timer-root) echo "$tmp/ctprof --trigger=timer -F $hz -v -o $tmp/run.out -- $*" ;;
	perf-user) echo "${nobody[*]} $tmp/ctprof --trigger=perf -F $hz -v -- $*" ;;
	timer-user) echo "${nobody[*]} $tmp/ctprof --trigger=timer -F $hz -v -- $*" ;;
	perf-dwarf) echo "perf record -q -e cpu-clock --call-graph dwarf -F $hz -o $tmp/perf.data -- $*" ;;
	esac
}

# go VARIANT PROGRAM...: run it; the profile ends up in $tmp/run.out
# (ctprof's report, whichever user) or $tmp/perf.data.
go() {
	local v=$1
	shift
	rm -f "$tmp/run.out" "$tmp/perf.data"
	# shellcheck disable=SC2046 # a command line of plain words
	(cd "$tmp" && timeout -k 5 120 $(cmd "$v" "$@") >"$tmp/o" 2>"$tmp/e") || {
		say "$v $*: failed"; tail -3 "$tmp/e" >&2; return 1; }
	# The unprivileged runs write the report to stdout, with the program's.
	case $v in *-user) cp "$tmp/o" "$tmp/run.out" ;; esac
}

# samples VARIANT: how many samples the last run took.
samples() {
	if [ "$1" = perf-dwarf ]; then
		perf script -i "$tmp/perf.data" -F period 2>/dev/null | wc -l
	else
		awk '/^profiler: [0-9]+ ticks,/ { print $4; exit }' "$tmp/run.out"
	fi
}

# share VARIANT MODE: the last run's share of enter_kernel, in percent.
share() {
	local mad
	mad=$(sed -n 's/.* madvise [0-9]* times (\([0-9.]*\)% of the loop).*/\1/p' "$tmp/e" | head -1)
	if [ "$1" = perf-dwarf ]; then
		perf report -i "$tmp/perf.data" --children -g none --stdio --percent-limit 0 2>/dev/null |
			awk '$NF == "enter_kernel" && $1 ~ /%$/ { sub(/%/, "", $1); print $1; exit }'
		return
	fi
	# Kernel ticks sampled under the call, or the [kernel] row beside it.
	awk -v m="${mad:-0}" -v mode="$2" '
		/under the function that entered it/ { under = 1 }
		$1 ~ /ms$/ && $5 == "enter_kernel" { sub(/%/, "", $4); e = $4 }
		$1 ~ /ms$/ && $5 == "[kernel]" { sub(/%/, "", $2); k = $2 }
		END { if (k == "" || under) { k = 0; m = 0 } printf "%.2f\n", e + k - (mode == "fault" ? m : 0) }' "$tmp/run.out"
}

for r in $(seq "$reps"); do
	say "repetition $r of $reps"
	# Rotate the order so that drift of the machine cancels out.
	order=("${variants[@]:$(( (r - 1) % ${#variants[@]} ))}" "${variants[@]:0:$(( (r - 1) % ${#variants[@]} ))}")
	for t in 1 2; do
		args=(); [ $t = 1 ] || args=(30000000 2)
		go bare "$tmp/gaps" "${args[@]}"
		bare_lost=$(awk '$1 == "gaps" { print $3 }' "$tmp/o")
		go bare "$tmp/workload" $([ $t = 1 ] || echo 2000000 2)
		bare_el=$(awk '$1 == "elapsed" { print $2 }' "$tmp/o")
		for v in "${order[@]}"; do
			go "$v" "$tmp/gaps" "${args[@]}" || continue
			n=$(samples "$v")
			lost=$(awk '$1 == "gaps" { print $3 }' "$tmp/o")
			put "$v.loss$t" "$(awk -v l="$lost" -v b="$bare_lost" -v n="$n" 'BEGIN { if (n > 0) printf "%.1f", (l - b) * 1000 / n }')"
			go "$v" "$tmp/workload" $([ $t = 1 ] || echo 2000000 2) || continue
			el=$(awk '$1 == "elapsed" { print $2 }' "$tmp/o")
			put "$v.slow$t" "$(awk -v e="$el" -v b="$bare_el" 'BEGIN { printf "%.1f", 100 * (e / b - 1) }')"
			[ $t = 1 ] && [ "$v" != perf-dwarf ] &&
				put "$v.cpu" "$(awk '/^profiler: own CPU time:/ { for (i = 1; i <= NF; i++) if ($i == "per") print $(i - 2) }' "$tmp/run.out")"
		done
	done
	for m in syscall fault; do
		for v in "${order[@]}"; do
			go "$v" "$tmp/selftime" "$m" 2 || continue
			own=$(awk '$1 == "selftime:" && $2 == "enter_kernel" { sub(/%$/, "", $3); print $3 }' "$tmp/o")
			got=$(share "$v" "$m")
			[ -n "$own" ] && [ -n "$got" ] &&
				put "$v.$m" "$(awk -v g="$got" -v o="$own" 'BEGIN { printf "%+.1f", g - o }')"
		done
	done
done

echo "Run $(date -u +%Y-%m-%d) at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, $(uname -r), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid): \`scripts/bench-trigger.sh -n $reps -F $hz\`, medians."
echo
echo "| | perf, root | perf, user | timer, root (helpers) | timer, user (plain) | perf record --call-graph dwarf |"
echo "| --- | --- | --- | --- | --- | --- |"
row() {
	local label=$1 key=$2 unit=${3:-}
	printf '| %s |' "$label"
	for v in "${variants[@]}"; do
		x=$(med "$v.$key")
		if [ "$x" = n/a ]; then printf ' n/a |'; else printf ' %s%s |' "$x" "$unit"; fi
	done
	echo
}
row "target's loss a sample, 1 thread (gaps)" loss1 " us"
row "... 2 threads" loss2 " us"
row "slowdown, 1 thread (workload)" slow1 "%"
row "... 2 threads" slow2 "%"
row "ctprof CPU a sample, 1 thread" cpu " us"
row "selftime syscall: report - own clock, points" syscall
row "selftime fault: report - own clock, points" fault
