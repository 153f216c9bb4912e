#!/bin/bash
# ctprof's benchmark: target slowdown, stall per sample beside the ptrace
# floor, the profiler's own cost per sample for each unwinder backend,
# accuracy against perf, and many mostly-blocked threads.  Prints one
# Markdown report (to paste into README.md) on standard output, progress on
# standard error.
#
#     scripts/bench.sh [-n N] [-p|--parts LIST]
#
# --parts runs only the parts in LIST, numbers or names separated by
# commas: 1 (or slowdown; 2's ctprof figures and 3 are those runs, so 3
# means 1), 2 (floor), 4 (bperf), 5 (threads), 6 (wall).  Default: all.
#
# Each figure is the median of N repetitions (default 5).  Within a
# repetition every variant runs once, one after the other (the order
# rotates from one repetition to the next), and ratios are taken inside a
# repetition before the median is taken, so slow drift of the machine
# cancels out.
#
# The bench programs (bench/*.c) are compiled here with gcc into a temporary
# directory: no meson change is needed.  The ctprof binary is
# $CTPROF (default build/src/ctprof), copied to the temporary directory at
# the start so a rebuild during the run cannot mix two binaries.  The
# accuracy part needs build/tests/bperf (built by meson).  A missing perf
# or gcc is installed with scripts/deps.sh --bench when that can be done
# (root or sudo).
#
# Parts:
#  1. Target slowdown: bench/workload.c (fixed work, ~2 s alone, stacks up
#     to ~45 frames, through libc), its own wall clock for the work, bare
#     and under ctprof (each unwinder) and perf record (--call-graph dwarf
#     on the -fomit-frame-pointer build, -g on a -fno-omit-frame-pointer
#     build, which is compared to that build run bare), at 99 and 999 Hz.
#  2. Stall per sample: ctprof -v's median and p99 at 999 Hz on the
#     workload (the runs of part 1), beside bench/floor.c: INTERRUPT +
#     waitpid + GETREGS + CONT on a spinning child, 2000 times at 1 kHz,
#     tracer and child on different CPUs (sleeping in waitpid, and polling
#     it) and on the same CPU.
#  3. Profiler cost: ctprof -v's own CPU time per sample at 999 Hz (part 1's
#     runs), for each unwinder; 1e6 / that = samples per second one core
#     could sustain.
#  4. Accuracy: bperf under ctprof and perf record -e cpu-clock at 999 Hz,
#     self% of its four work functions and the total variation distance
#     over the function names of the two reports (bperf's functions are
#     in files of their own, noinline: a name is a symbol there).
#  6. Wall-clock and CPU time (needs build/tests/idlers and cpuburst):
#     ctprof --wall on 500 idle threads and one working a fifth of the
#     time (stops of blocked threads, samples counted without a stop, own
#     CPU per tick), beside the on-CPU mode on the same target; and the
#     CPU time of 200 threads of 3 ms against the target's getrusage, from
#     ctprof --weight=cputime, ctprof's plain samples, and perf record
#     -c 10101010 -e cpu-clock (a sample per 1/99 s of a thread's CPU; the
#     sum of its periods), all at 99 Hz.
#  5. Many threads: bench/threads64.c (4 busy, 60 blocked in futex,
#     epoll_wait, read) under ctprof -F 999 -v.
set -eu
cd "$(dirname "$0")/.."

cmdline="scripts/bench.sh${*:+ $*}"
reps=5
parts=all
usage() {
	echo "usage: scripts/bench.sh [-n N] [-p|--parts LIST]    (N repetitions, default 5; LIST: 1,2,4,5,6 or names, see --help)" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
	-n*) reps=${1#-n}; shift ;;
	-p|--parts) [ $# -ge 2 ] || usage; parts=$2; shift 2 ;;
	--parts=*) parts=${1#--parts=}; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
done
case $reps in ''|*[!0-9]*) usage ;; esac
[ "$reps" -ge 1 ] || usage

# want N: part N is to run.
declare -A wanted
if [ "$parts" = all ]; then parts=1,2,4,5,6; fi
IFS=, read -ra plist <<<"$parts"
[ ${#plist[@]} -gt 0 ] || usage
for p in "${plist[@]}"; do
	case $p in
	1|3|slowdown|cost) wanted[1]=1 ;;
	2|floor) wanted[2]=1 ;;
	4|bperf) wanted[4]=1 ;;
	5|threads) wanted[5]=1 ;;
	6|wall) wanted[6]=1 ;;
	*) usage ;;
	esac
done
want() { [ -n "${wanted[$1]:-}" ]; }

die() { echo "scripts/bench.sh: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

# A missing tool is installed if that can be done (scripts/deps.sh needs
# root or sudo); what is still missing is dealt with below.
needed=(timeout)
if want 1 || want 2 || want 5; then needed+=(gcc); fi
if want 1 || want 4 || want 6; then needed+=(perf); fi
for c in "${needed[@]}"; do
	if ! command -v "$c" >/dev/null; then
		say "$c is missing: scripts/deps.sh --bench"
		scripts/deps.sh --bench >&2 || say "scripts/deps.sh --bench failed: going on without"
		break
	fi
done
if want 1 || want 2 || want 5; then
	command -v gcc >/dev/null || die "gcc is not installed (apt-get install build-essential)"
fi
if want 1 || want 4 || want 6; then
	command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
fi
command -v timeout >/dev/null || die "timeout (coreutils) is missing"
CTPROF=${CTPROF:-build/src/ctprof}
[ -x "$CTPROF" ] || die "$CTPROF not found: build it first (meson setup build && ninja -C build)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctprof-bench.XXXXXX")
# Everything runs in the foreground and every program ends by itself
# (floor's child dies with it); on Ctrl-C the whole process group gets the
# signal.  What is left to clean is the directory.
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
res=$tmp/res
mkdir "$res"

# ---------------------------------------------------------------- build --
say "compiling bench programs into $tmp"
cflags=(-std=gnu11 -g -Wall -Wextra -Werror=shadow -Werror=missing-prototypes
	-Werror=strict-prototypes -Werror=implicit-function-declaration -Wno-unused-parameter)
if want 1; then
	gcc "${cflags[@]}" -O2 -fomit-frame-pointer bench/workload.c -o "$tmp/workload"
	gcc "${cflags[@]}" -O2 -fno-omit-frame-pointer bench/workload.c -o "$tmp/workload-fp"
fi
if want 2; then gcc "${cflags[@]}" -O2 bench/floor.c -o "$tmp/floor"; fi
if want 5; then gcc "${cflags[@]}" -O2 -pthread bench/threads64.c -o "$tmp/threads64"; fi
cp "$CTPROF" "$tmp/ctprof"
ctprof=$tmp/ctprof
bperf=
if ! want 4; then
	:
elif [ -x build/tests/bperf ]; then
	cp build/tests/bperf "$tmp/bperf"
	bperf=$tmp/bperf
else
	say "build/tests/bperf is missing: part 4 (accuracy) is skipped"
fi
idlers= cpuburst=
if ! want 6; then
	:
elif [ -x build/tests/idlers ] && [ -x build/tests/cpuburst ]; then
	cp build/tests/idlers build/tests/cpuburst "$tmp/"
	idlers=$tmp/idlers cpuburst=$tmp/cpuburst
else
	say "build/tests/idlers or cpuburst is missing: part 6 is skipped"
fi

# --unwinder: rejected as a usage error (exit 2) means no such option or no
# such backend.  Without the option at all, the default (libunwind) runs.
declare -A unwopt
probe_unwinder() {
	local rc=0
	timeout --foreground -k 5 30 "$ctprof" "--unwinder=$1" -o /dev/null -- true >/dev/null 2>&1 || rc=$?
	echo "$rc"
}
rc=$(probe_unwinder libunwind)
case $rc in
0) unwopt[libunwind]=--unwinder=libunwind
   rc=$(probe_unwinder libdw)
   case $rc in
   0) unwopt[libdw]=--unwinder=libdw ;;
   2) say "ctprof refuses --unwinder=libdw: libdw rows are n/a" ;;
   *) die "ctprof --unwinder=libdw -- true failed (exit $rc)" ;;
   esac ;;
2) unwopt[libunwind]=   # only one backend, the default
   say "ctprof has no --unwinder option: libunwind is its only backend; libdw rows are n/a" ;;
*) die "ctprof -- true failed (exit $rc): can ctprof trace here?" ;;
esac
has() { [ -n "${unwopt[$1]+set}" ]; }

# -------------------------------------------------------------- helpers --
# put KEY VALUE: one more measurement of KEY.
put() { echo "$2" >>"$res/$1"; }
# med KEY [FORMAT]: the median of KEY's measurements, or n/a.
med() {
	local f=$res/$1 fmt=${2:-%.1f}
	if [ ! -s "$f" ]; then echo n/a; return; fi
	sort -g "$f" | awk -v fmt="$fmt" '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf fmt "\n", m }'
}
# us KEY: the median in microseconds with its unit, or n/a.
us() { local m; m=$(med "$1"); if [ "$m" = n/a ]; then echo n/a; else echo "$m us"; fi; }
# of A B: "median A of median B", or n/a.
of() { local a b; a=$(med "$1" %.0f) b=$(med "$2" %.0f); if [ "$a" = n/a ]; then echo n/a; else echo "$a of $b"; fi; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "nan"; else printf "%.6f\n", a / b }'; }

# interrupted STATUS: a child killed by Ctrl-C or SIGTERM: stop here too.
interrupted() {
	case $1 in
	130) say "interrupted"; exit 130 ;;
	143) say "terminated"; exit 143 ;;
	124|137) die "a run took too long and was killed (timeout)" ;;
	esac
}

# run LIMIT_S CMD...: run CMD with a time limit; its standard output in
# $tmp/out, standard error in $tmp/err; fails the benchmark on a non-zero
# status.
run() {
	local limit=$1 rc=0
	shift
	timeout --foreground -k 10 "$limit" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	interrupted "$rc"
	if [ "$rc" -ne 0 ]; then
		echo "scripts/bench.sh: '$*' failed with status $rc" >&2
		tail -5 "$tmp/err" >&2
		exit 1
	fi
}

# Part 6, one repetition.
wallclock() {
	local kernel mode
	for mode in wall oncpu; do
		if [ $mode = wall ]; then
			run 60 "$ctprof" --wall -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		else
			run 60 "$ctprof" -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		fi
		ctstats idle.$mode "$tmp/idle.txt"
		put idle.$mode.cpu_per_tick "$(awk -v c="$(tail -1 "$res/idle.$mode.cpu_ms")" -v t="$last_ticks" 'BEGIN { printf "%.1f", c * 1000 / t }')"
		if [ $mode = wall ]; then
			awk '$2 == "wall-clock:" { print $3, $8 }' "$tmp/idle.txt" >"$tmp/w"
			put idle.stops "$(cut -d' ' -f1 "$tmp/w")"
			put idle.reused "$(cut -d' ' -f2 "$tmp/w")"
			put idle.stops_per_thread "$(div "$(cut -d' ' -f1 "$tmp/w")" 501)"
		fi
	done
	run 60 "$ctprof" --weight=cputime -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.weighted "$(div "$(awk '/samples weighted by CPU time/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s" && $(i + 2) == "in") { print $i; exit } }' "$tmp/burst.txt")" "$kernel")"
	run 60 "$ctprof" -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.plain "$(div "$(awk '$1 == "total:" { print $2 / 99; exit }' "$tmp/burst.txt")" "$kernel")"
	run 60 perf record -q -c 10101010 -e cpu-clock -o "$tmp/burst.data" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.perf "$(div "$(perf script -i "$tmp/burst.data" -F period 2>/dev/null | awk '{ s += $1 } END { print s / 1e9 }')" "$kernel")"
}

# ctstats PREFIX FILE: record the -v statistics of a ctprof report.
ctstats() {
	local p=$1 line
	[ -s "$2" ] || die "ctprof wrote no report ($2)"
	grep -q '^profiler: .*ticks missed' "$2" || die "no -v statistics in ctprof's report: has its format changed?"
	awk '
	/^profiler: [0-9]+ ticks,/ { print "ticks", $2; print "samples", $4; print "missed", $(NF - 2) }
	/^profiler: target stopped per sample:/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "median") print "stall_med", $(i + 1)
			if ($i == "p99") print "stall_p99", $(i + 1)
		}
	}
	/^profiler: own CPU time:/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "ms,") print "cpu_ms", $(i - 1)
			if ($i == "per" && $(i - 1) == "us") print "cpu_us", $(i - 2)
		}
	}
	/^profiler: unwind/ {
		for (i = 1; i < NF; i++) {
			if ($i == "mean" && $(i + 2) == "us") print "unwind_us", $(i + 1)
			if ($i == "mean" && $(i + 2) ~ /^frames/) print "frames", $(i + 1)
		}
	}' "$2" >"$tmp/stats"
	while read -r k v; do
		put "$p.$k" "$v"
		eval "last_$k=\$v"
	done <"$tmp/stats"
}

# ---------------------------------------------------- part 1 variants --
# name hz kind: ct = ctprof (libunwind), dw = ctprof (libdw), pd = perf
# --call-graph dwarf, pf = perf -g on the frame-pointer build.
variants=(bare fpbare ct99 ct999 pd99 pd999 pf99 pf999)
if has libdw; then variants+=(dw99 dw999); fi

declare -A elapsed
checksum=
run_workload() {
	local v=$1 hz=${1//[!0-9]/} kind=${1%%[0-9]*} out
	local -a cmd
	rm -f "$tmp/perf.data" "$tmp/ct.txt"
	case $kind in
	bare) cmd=("$tmp/workload") ;;
	fpbare) cmd=("$tmp/workload-fp") ;;
	ct) cmd=("$ctprof" ${unwopt[libunwind]} -F "$hz" -v -o "$tmp/ct.txt" -- "$tmp/workload") ;;
	dw) cmd=("$ctprof" ${unwopt[libdw]} -F "$hz" -v -o "$tmp/ct.txt" -- "$tmp/workload") ;;
	pd) cmd=(perf record -q -e cpu-clock --call-graph dwarf -F "$hz" -o "$tmp/perf.data" -- "$tmp/workload") ;;
	pf) cmd=(perf record -q -e cpu-clock -g -F "$hz" -o "$tmp/perf.data" -- "$tmp/workload-fp") ;;
	esac
	run 120 "${cmd[@]}"
	out=$(awk '$1 == "checksum" { print $2 }' "$tmp/out")
	[ -n "$checksum" ] || checksum=$out
	[ "$out" = "$checksum" ] || die "$v: the workload computed checksum '$out', not $checksum: the profiler changed what the target did"
	elapsed[$v]=$(awk '$1 == "elapsed" { print $2 }' "$tmp/out")
	[ -n "${elapsed[$v]}" ] || die "$v: the workload printed no elapsed time"
	put "$v.elapsed" "${elapsed[$v]}"
	case $kind in ct|dw) ctstats "$v" "$tmp/ct.txt" ;; esac
}

# -------------------------------------------------------------- part 4 --
# ctprof's flat self% against perf report's, by function name, and the
# total variation distance over all functions.
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

# ----------------------------------------------------------------- run --
declare -A part_us=([1]=0 [2]=0 [4]=0 [5]=0 [6]=0)
now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }
start_all=$(now_us)
say "$reps repetitions of parts $(printf '%s\n' "${!wanted[@]}" | sort -n | paste -sd' ')"
if want 1; then say "variants of part 1: ${variants[*]}"; fi
for ((r = 0; r < reps; r++)); do
	say "repetition $((r + 1))/$reps"
	# Part 1 (and the ctprof statistics of parts 2 and 3), rotated order.
	t0=$(now_us)
	n=${#variants[@]}
	for ((i = 0; i < n; i++)); do
		want 1 || break
		run_workload "${variants[(i + r) % n]}"
	done
	for v in "${variants[@]}"; do
		want 1 || break
		case $v in
		bare) ;;
		pf*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[fpbare]}")" ;;
		*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[bare]}")" ;;
		esac
	done
	part_us[1]=$((part_us[1] + $(now_us) - t0))

	# Part 2: the floor, in the same repetition as ctprof's stall.
	t0=$(now_us)
	for mode in cross poll same; do
		want 2 || break
		rc=0
		timeout --foreground -k 10 60 "$tmp/floor" "$mode" 2000 1000 >"$tmp/out" 2>"$tmp/err" || rc=$?
		interrupted "$rc"
		if [ "$rc" -eq 3 ]; then continue; fi   # n/a: one CPU
		[ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; die "floor $mode failed (status $rc)"; }
		read -r fmed fp99 fsched < <(awk '{ print $4, $7, $NF }' "$tmp/out")
		put "floor.$mode.med" "$fmed"
		put "floor.$mode.p99" "$fp99"
		echo "$fsched" >"$res/floor.sched"
		if [ "$mode" != same ] && want 1; then
			put "ct999.floor_$mode" "$(div "$(tail -1 "$res/ct999.stall_med")" "$fmed")"
			if has libdw; then
				put "dw999.floor_$mode" "$(div "$(tail -1 "$res/dw999.stall_med")" "$fmed")"
			fi
		fi
	done
	part_us[2]=$((part_us[2] + $(now_us) - t0))

	# Part 4.
	t0=$(now_us)
	if [ -n "$bperf" ]; then accuracy; fi
	part_us[4]=$((part_us[4] + $(now_us) - t0))

	# Part 5.
	t0=$(now_us)
	if want 5; then
		run 120 "$ctprof" ${unwopt[libunwind]} -F 999 -v -o "$tmp/t64.txt" -- "$tmp/threads64" 3
		eintr=$(awk '$1 == "eintr" { print $2 }' "$tmp/out")
		[ -n "$eintr" ] || die "threads64 printed no eintr line"
		put t64.eintr "$eintr"
		ctstats t64 "$tmp/t64.txt"
		put t64.per_tick "$(div "$last_samples" "$last_ticks")"
		put t64.per_sampled_tick "$(div "$last_samples" "$((last_ticks - last_missed))")"
	fi
	part_us[5]=$((part_us[5] + $(now_us) - t0))

	# Part 6.
	t0=$(now_us)
	if [ -n "$idlers" ]; then wallclock; fi
	part_us[6]=$((${part_us[6]:-0} + $(now_us) - t0))
done
total_s=$(( ($(now_us) - start_all) / 1000000 ))

# The marginal cost of a sample: the difference in own CPU time between the
# 999 Hz and the 99 Hz runs, per extra sample (start-up and fixed costs cancel).
for b in ct dw; do
	[ -s "$res/${b}999.cpu_ms" ] || continue
	paste "$res/${b}999.cpu_ms" "$res/${b}999.samples" "$res/${b}99.cpu_ms" "$res/${b}99.samples" |
		awk '{ if ($2 > $4) printf "%.6f\n", ($1 - $3) * 1000 / ($2 - $4) }' >"$res/$b.marginal"
done
maxrate() {
	local us; us=$(med "$1.cpu_us" %.6f)
	if [ "$us" = n/a ]; then echo n/a; else awk -v u="$us" 'BEGIN { printf "%.0f samples/s\n", 1e6 / u }'; fi
}
secs() { awk -v u="$1" 'BEGIN { printf "%.0f s", u / 1e6 }'; }

# ---------------------------------------------------------------- report --
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD -- src 2>/dev/null; then rev="$rev + uncommitted changes in src/"; fi
fsched=$(cat "$res/floor.sched" 2>/dev/null || echo n/a)
pct() { med "$1" %.1f; }

cat <<EOF
### Benchmark

$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, \`$cmdline\`
(ctprof $rev, $(perf --version 2>/dev/null || echo 'no perf')); every figure is the median of $reps runs.

EOF
if want 1; then
cat <<EOF
**1. Target slowdown.** bench/workload.c, fixed work: $(med bare.elapsed %.3f) s alone
(frame-pointer build: $(med fpbare.elapsed %.3f) s), timed by the target itself; ratio to
the same build run bare in the same repetition.

| profiler | 99 Hz | 999 Hz |
| --- | --- | --- |
| ctprof (libunwind) | $(med ct99.ratio %.3f) | $(med ct999.ratio %.3f) |
| ctprof (libdw) | $(med dw99.ratio %.3f) | $(med dw999.ratio %.3f) |
| perf record -e cpu-clock --call-graph dwarf | $(med pd99.ratio %.3f) | $(med pd999.ratio %.3f) |
| perf record -e cpu-clock -g, frame-pointer build | $(med pf99.ratio %.3f) | $(med pf999.ratio %.3f) |

The frame-pointer build itself runs $(med fpbare.ratio %.3f) times as long as the
-fomit-frame-pointer one.

EOF
fi
if want 1 || want 2; then
cat <<EOF
**2. Stall per sample** (how long a sampled thread is stopped), workload at 999 Hz.

| | median | p99 |
| --- | --- | --- |
| ctprof (libunwind) | $(us ct999.stall_med) | $(us ct999.stall_p99) |
| ctprof (libdw) | $(us dw999.stall_med) | $(us dw999.stall_p99) |
| floor, cross-CPU (tracer and target on two CPUs) | $(us floor.cross.med) | $(us floor.cross.p99) |
| floor, cross-CPU, tracer polling waitpid | $(us floor.poll.med) | $(us floor.poll.p99) |
| floor, same-CPU (both on one CPU) | $(us floor.same.med) | $(us floor.same.p99) |

ctprof's median stall is $(med ct999.floor_cross %.2f) times the cross-CPU floor,
$(med ct999.floor_poll %.2f) times the polling one (libdw: $(med dw999.floor_cross %.2f), $(med dw999.floor_poll %.2f)).
Missed ticks at 999 Hz: $(of ct999.missed ct999.ticks) (libdw: $(of dw999.missed dw999.ticks)).
The floor is INTERRUPT + waitpid + GETREGS + CONT on a spinning child,
2000 times at 1 kHz (tracer $fsched); ctprof's stall is from its
INTERRUPT to the end of its capture, and ctprof and the target are not pinned.

EOF
fi
if want 1; then
cat <<EOF
**3. Profiler cost per sample**, workload at 999 Hz: ctprof's own CPU time
(sampling loop and unwinding; symbolization at the end not included).

| unwinder | own CPU per sample | max rate on one core | marginal per sample (999 vs 99 Hz) | unwind | frames |
| --- | --- | --- | --- | --- | --- |
| libunwind | $(us ct999.cpu_us) | $(maxrate ct999) | $(us ct.marginal) | $(us ct999.unwind_us) | $(med ct999.frames) |
| libdw | $(us dw999.cpu_us) | $(maxrate dw999) | $(us dw.marginal) | $(us dw999.unwind_us) | $(med dw999.frames) |

EOF
fi
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
if want 5; then
cat <<EOF
**5. Many threads**: bench/threads64.c, 4 busy threads and 60 blocked (20 futex,
20 epoll_wait, 20 read), 3 s under ctprof -F 999 (libunwind).

| stall median | stall p99 | samples per tick | samples per sampled tick | missed ticks | EINTR in the target |
| --- | --- | --- | --- | --- | --- |
| $(us t64.stall_med) | $(us t64.stall_p99) | $(med t64.per_tick %.2f) | $(med t64.per_sampled_tick %.2f) | $(of t64.missed t64.ticks) | $(med t64.eintr %.0f) |

EOF
fi
if [ -n "$idlers" ]; then
cat <<EOF

**6. Wall-clock mode and CPU-time weights.** build/tests/idlers: 500 threads
idle in futex and one working a fifth of the time, 5 s at 99 Hz.

| mode | stops of blocked threads | per thread | samples counted without a stop | ctprof CPU per tick | missed ticks |
| --- | --- | --- | --- | --- | --- |
| --wall | $(med idle.stops %.0f) | $(med idle.stops_per_thread %.2f) | $(med idle.reused %.0f) | $(us idle.wall.cpu_per_tick) | $(of idle.wall.missed idle.wall.ticks) |
| on-CPU | 0 | 0 | 0 | $(us idle.oncpu.cpu_per_tick) | $(of idle.oncpu.missed idle.oncpu.ticks) |

build/tests/cpuburst: 200 threads of 3 ms of CPU each, one after the other,
and 3 ms of the main thread between them, at 99 Hz; the CPU time each
profile gives, as a ratio to the target's own getrusage():

| ctprof --weight=cputime | ctprof (samples / 99 Hz) | perf record -c 10101010 -e cpu-clock (sum of periods) |
| --- | --- | --- |
| $(med burst.weighted %.3f) | $(med burst.plain %.3f) | $(med burst.perf %.3f) |
EOF
fi
taken=()
if want 1; then taken+=("part 1 (and the ctprof figures of 2 and 3) $(secs "${part_us[1]}")"); fi
if want 2; then taken+=("floor $(secs "${part_us[2]}")"); fi
if want 4; then taken+=("accuracy $(secs "${part_us[4]}")"); fi
if want 5; then taken+=("many threads $(secs "${part_us[5]}")"); fi
if want 6; then taken+=("wall-clock and CPU time $(secs "${part_us[6]}")"); fi
printf '\nTime taken: %s; %s s in all.\n' "$(IFS=';'; echo "${taken[*]}" | sed 's/;/, /g')" "$total_s"
