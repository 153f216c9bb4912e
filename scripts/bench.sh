#!/bin/bash
# ctprof's benchmark: target slowdown, stall per sample beside the ptrace
# floor, the profiler's own cost per sample for each unwinder backend,
# accuracy against perf, many mostly-blocked threads, and accuracy on real
# programs.  Prints one Markdown report (to paste into README.md) on
# standard output, progress on standard error.
#
#     scripts/bench.sh [-n N] [-p|--parts LIST] [-b|--base REV|BINARY] [-t|--trigger MODE]
#
# --parts runs only the parts in LIST, numbers or names separated by
# commas: 1 (or slowdown; 2's ctprof figures and 3 are those runs, so 3
# means 1), 2 (floor), 4 (bperf), 5 (threads), 6 (wall), 7 (real);
# accuracy is 4 and 7.  `scripts/bench.sh -n 3 --parts 7` runs the accuracy
# on real programs alone, in about 7 minutes.  Default: all.
#
# --base runs a second ctprof beside the first in part 1 (slowdown at 99
# and 999 Hz, one thread and two, and bench/gaps.c), and so in parts 2 and
# 3, and in part 5: a binary, or a git revision of this repository, which
# is then built
# into the temporary directory (git archive, meson, ninja; about a
# minute).  `scripts/bench.sh -n 5 --parts 1 --base 36d66ac` compares the
# cost of a sample with 36d66ac's in one run, each beside perf.
#
# --trigger gives every run of ctprof (not the base's) --trigger=MODE
# (auto, perf or timer): `scripts/bench.sh -n 3 --parts 7 --trigger perf`
# measures the kernel-timed trigger's accuracy where the default, as root,
# is the timer's.
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
# accuracy part needs build/tests/bperf (built by meson).  A missing perf,
# python3, redis-server, redis-benchmark or sqlite3 is installed with
# scripts/deps.sh --bench when that can be done (root or sudo); what is
# still missing then skips what needs it, with a note in the report.
#
# Parts:
#  1. Target slowdown: bench/workload.c (fixed work, ~2 s alone, stacks up
#     to ~45 frames, through libc), its own wall clock for the work, bare
#     and under ctprof (each unwinder) and perf record (--call-graph dwarf
#     on the -fomit-frame-pointer build, -g on a -fno-omit-frame-pointer
#     build, which is compared to that build run bare), at 99 and 999 Hz;
#     and with two threads each doing that work (ctprof's default unwinder
#     and perf --call-graph dwarf, against two threads bare).  And the
#     time a sample takes from the target by its own clock: bench/gaps.c
#     bare, under ctprof and under perf --call-graph dwarf at 999 Hz, one
#     thread and two.
#     And what each adds to a signal's delivery: bench/sigping.c's round
#     trip, bare, under ctprof at 99 and 999 Hz, under perf at 999 Hz.
#  2. Stall per sample: ctprof -v's median and p99 at 999 Hz on the
#     workload (the runs of part 1), beside bench/floor.c: INTERRUPT +
#     waitpid + GETREGS + CONT on a spinning child, 2000 times at 1 kHz,
#     tracer and child on different CPUs (sleeping in waitpid, and polling
#     it) and on the same CPU; and the tracer's own CPU time per
#     iteration of each, and of a loop that only sleeps until each tick.
#  3. Profiler cost: ctprof -v's own CPU time per sample at 999 Hz (part 1's
#     runs), for each unwinder and for two threads; 1e6 / that = samples
#     per second one core could sustain; beside it, part 2's floors of CPU
#     time per sample.  And at 99 Hz, ctprof's default rate (part 1's runs
#     too), its median stall and own CPU per sample, one thread and two,
#     with --base that ctprof's beside.
#  4. Accuracy: bperf under ctprof and perf record -e cpu-clock at 999 Hz,
#     self% of its four work functions and the total variation distance
#     over the function names of the two reports (bperf's functions are
#     in files of their own, noinline: a name is a symbol there).
#  6. Wall-clock and CPU time (needs build/tests/idlers and cpuburst):
#     ctprof --wall on 500 idle threads and one working a fifth of the
#     time (stops of blocked threads, their stacks taken without a stop,
#     samples counted without a stop, own CPU per tick), beside the
#     on-CPU mode on the same target; and the
#     CPU time of 200 threads of 3 ms against the target's getrusage, from
#     ctprof --weight=cputime, ctprof's plain samples, and perf record
#     -c 10101010 -e cpu-clock (a sample per 1/99 s of a thread's CPU; the
#     sum of its periods), all at 99 Hz.
#  5. Many threads: bench/threads64.c (4 busy, 60 blocked in futex,
#     epoll_wait, read) under ctprof -F 999 -v: its stalls, samples and
#     CPU time, and the busy threads' work in their 3 s against a bare
#     run's in the same repetition; with --base, that ctprof's too.
#  7. Accuracy on real programs: ctprof and perf record -e cpu-clock -g,
#     both at 999 Hz, one after the other on the same workload (the order
#     alternates between repetitions), their flat self profiles compared
#     by ELF symbol with scripts/flatcmp.py (inlined code counts as the
#     function it is inlined in, aliases are one, perf's kernel samples
#     count at the user instruction that entered the kernel); the total
#     variation distance, and the top functions side by side.  Workloads:
#     redis-server on a loopback port (no persistence, in the temporary
#     directory) driven by redis-benchmark, ctprof attached with -p and
#     perf recording the whole system (-a; its samples of redis kept: -p
#     changes redis's event loop) for the benchmark's duration (and a run
#     with neither, and one with ctprof attached while perf -a records:
#     two profiles of one run; in each, redis's voluntary context
#     switches, CPU time and commands served are read before and after);
#     Debian's /usr/bin/python3 on bench/pywork.py (dicts, strings, sorting, 30
#     rounds, ~9 s); sqlite3 on bench/sqlwork.sql six times (in memory:
#     inserts, indexes, joins, GROUP BY, ~2.5 s each); both with the
#     address-space layout fixed (setarch -R), a clean environment (env
#     -i) and, for CPython, fixed string hashes (PYTHONHASHSEED=0), as
#     each of these moves their own profiles from run to run.  With build/tests/selftime (`selftime
#     syscall|fault S`, which times its own enter_kernel) the share of
#     enter_kernel on the stack, ctprof's and perf's (--call-graph dwarf), beside the target's
#     own; the same with build/tests/pollsleep pinned to CPU 1 (a ppoll()
#     that works in the kernel before it sleeps: its wait_a_little's share
#     of its thread CPU time); the same with build/tests/pingpong (a
#     server thread in epoll_wait(), read(), work, write() with its
#     client thread; the shares of do_epoll, do_read, arith and do_write
#     in the server thread's time, which it times itself with its task
#     clock, and in its samples: those with main on the stack); with build/tests/ratio3 (three threads working 1:2:3 on the
#     machine's CPUs, which print their own CPU times) the shares of
#     work1..3 and their distance to the CPU times.  redis, CPython and
#     sqlite3 run under perf twice in each repetition: one of perf's runs
#     of each, pooled, against the other, pooled, is the floor of the
#     pooled distance.  The pooled comparisons are given once more with
#     the runs the machine slowed down left out (disturbed_factor).
#     CPython and sqlite3 also run under ctprof while
#     perf record -a records the whole system (as redis does; perf at 997
#     Hz there, see same_hz):
#     ctprof against perf in the same run (measurement alone), and perf
#     there against perf alone (what ctprof's stops change).  redis runs
#     once more under perf record -p while perf -a records: perf's
#     per-thread events against its per-CPU ones on one run.  Each of these
#     is skipped, with a note, when its program is missing.
set -eu
cd "$(dirname "$0")/.."

cmdline="scripts/bench.sh${*:+ $*}"
reps=5
parts=all
base=
trig=
usage() {
	echo "usage: scripts/bench.sh [-n N] [-p|--parts LIST] [-b|--base REV|BINARY] [-t|--trigger MODE]    (N repetitions, default 5; LIST: 1,2,4,5,6,7 or names; see --help)" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
	-n*) reps=${1#-n}; shift ;;
	-p|--parts) [ $# -ge 2 ] || usage; parts=$2; shift 2 ;;
	--parts=*) parts=${1#--parts=}; shift ;;
	-b|--base) [ $# -ge 2 ] || usage; base=$2; shift 2 ;;
	--base=*) base=${1#--base=}; shift ;;
	-t|--trigger) [ $# -ge 2 ] || usage; trig=$2; shift 2 ;;
	--trigger=*) trig=${1#--trigger=}; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
done
case $reps in ''|*[!0-9]*) usage ;; esac
case $trig in ''|auto|perf|timer) ;; *) usage ;; esac
[ "$reps" -ge 1 ] || usage
# A binary named from where the script was started (it runs from the top
# of the source tree).
if [ -n "$base" ] && [ "${base#/}" = "$base" ] && [ -f "$OLDPWD/$base" ] && [ -x "$OLDPWD/$base" ]; then
	base=$OLDPWD/$base
fi
if [ -n "$base" ] && ! { [ -f "$base" ] && [ -x "$base" ]; } && ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
	echo "scripts/bench.sh: --base $base is neither an executable nor a git revision of this repository" >&2
	exit 2
fi

# want N: part N is to run.
declare -A wanted
if [ "$parts" = all ]; then parts=1,2,4,5,6,7; fi
IFS=, read -ra plist <<<"$parts"
[ ${#plist[@]} -gt 0 ] || usage
for p in "${plist[@]}"; do
	case $p in
	1|3|slowdown|cost) wanted[1]=1 ;;
	2|floor) wanted[2]=1 ;;
	4|bperf) wanted[4]=1 ;;
	5|threads) wanted[5]=1 ;;
	6|wall) wanted[6]=1 ;;
	7|real) wanted[7]=1 ;;
	accuracy) wanted[4]=1 wanted[7]=1 ;;
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
if want 1 || want 4 || want 6 || want 7; then needed+=(perf); fi
if want 7; then needed+=(/usr/bin/python3 redis-server redis-benchmark redis-cli sqlite3); fi
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
if want 1 || want 4 || want 6 || want 7; then
	command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
fi
command -v timeout >/dev/null || die "timeout (coreutils) is missing"
CTPROF=${CTPROF:-build/src/ctprof}
[ -x "$CTPROF" ] || die "$CTPROF not found: build it first (meson setup build && ninja -C build)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctprof-bench.XXXXXX")
# Everything runs in the foreground and every program ends by itself
# (floor's child dies with it); on Ctrl-C the whole process group gets the
# signal.  The exceptions are part 7's redis-server and the profilers
# attached to it, in the background: they are in bg_pids, ended here by
# their pids.  Then what is left to clean is the directory.
bg_pids=()
cleanup() {
	local p i
	for p in "${bg_pids[@]}"; do
		kill "$p" 2>/dev/null || continue
		for ((i = 0; i < 50; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
res=$tmp/res
mkdir "$res"

# ---------------------------------------------------------------- build --
say "compiling bench programs into $tmp"
cflags=(-std=gnu11 -g -Wall -Wextra -Werror=shadow -Werror=missing-prototypes
	-Werror=strict-prototypes -Werror=implicit-function-declaration -Wno-unused-parameter)
if want 1; then
	gcc "${cflags[@]}" -O2 -pthread bench/gaps.c -o "$tmp/gaps"
	gcc "${cflags[@]}" -O2 -pthread bench/sigping.c -o "$tmp/sigping"
	gcc "${cflags[@]}" -O2 -fomit-frame-pointer -pthread bench/workload.c -o "$tmp/workload"
	gcc "${cflags[@]}" -O2 -fno-omit-frame-pointer -pthread bench/workload.c -o "$tmp/workload-fp"
fi
if want 2; then gcc "${cflags[@]}" -O2 bench/floor.c -o "$tmp/floor"; fi
if want 5; then gcc "${cflags[@]}" -O2 -pthread bench/threads64.c -o "$tmp/threads64"; fi
cp "$CTPROF" "$tmp/ctprof"
# Which ctprof this is, for the report: read now, as it was copied.
if [ "$CTPROF" = build/src/ctprof ]; then
	rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	if ! git diff --quiet HEAD -- src 2>/dev/null; then rev="$rev + uncommitted changes in src/"; fi
else
	rev="from $CTPROF"
fi
ctprof=$tmp/ctprof
# The base ctprof, if any: copied, or built from its revision.
base_ct= base_rev=
if [ -z "$base" ] || ! { want 1 || want 5; }; then
	:
elif [ -f "$base" ] && [ -x "$base" ]; then
	cp "$base" "$tmp/ctprof-base"
	base_ct=$tmp/ctprof-base base_rev="from $base"
else
	base_rev=$(git rev-parse --short "$base^{commit}")
	say "building $base_rev into $tmp/base (--base)"
	mkdir "$tmp/base"
	git archive "$base_rev" | tar -x -C "$tmp/base"
	{ meson setup "$tmp/base/build" "$tmp/base" && ninja -C "$tmp/base/build" src/ctprof; } >"$tmp/base.log" 2>&1 ||
		{ tail -20 "$tmp/base.log" >&2; die "could not build $base_rev (--base): its log is above"; }
	cp "$tmp/base/build/src/ctprof" "$tmp/ctprof-base"
	base_ct=$tmp/ctprof-base
fi
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
# --trigger rides on the unwinder's option, which every run of ctprof has.
trigopt=${trig:+--trigger=$trig}
for k in "${!unwopt[@]}"; do unwopt[$k]="${unwopt[$k]:+${unwopt[$k]} }$trigopt"; done
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
			run 60 "$ctprof" $trigopt --wall -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		else
			run 60 "$ctprof" $trigopt -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		fi
		ctstats idle.$mode "$tmp/idle.txt"
		put idle.$mode.cpu_per_tick "$(awk -v c="$(tail -1 "$res/idle.$mode.cpu_ms")" -v t="$last_ticks" 'BEGIN { printf "%.1f", c * 1000 / t }')"
		if [ $mode = wall ]; then
			awk '$2 == "wall-clock:" { print $3, $8, $21 }' "$tmp/idle.txt" >"$tmp/w"
			put idle.stops "$(cut -d' ' -f1 "$tmp/w")"
			put idle.reused "$(cut -d' ' -f2 "$tmp/w")"
			put idle.peeks "$(cut -d' ' -f3 "$tmp/w")"
			put idle.stops_per_thread "$(div "$(cut -d' ' -f1 "$tmp/w")" 501)"
		fi
	done
	run 60 "$ctprof" $trigopt --weight=cputime -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.weighted "$(div "$(awk '/samples weighted by CPU time/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s" && $(i + 2) == "in") { print $i; exit } }' "$tmp/burst.txt")" "$kernel")"
	run 60 "$ctprof" $trigopt --weight=samples -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.plain "$(div "$(awk '$1 == "total:" { print $2 / 99; exit }' "$tmp/burst.txt")" "$kernel")"
	run 60 perf record -q -c 10101010 -e cpu-clock -o "$tmp/burst.data" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.perf "$(div "$(perf script -i "$tmp/burst.data" -F period 2>/dev/null | awk '{ s += $1 } END { print s / 1e9 }')" "$kernel")"
}

# busy_loops: the busy threads' work that threads64 printed (last run).
busy_loops() { awk '$1 == "busy" && $2 == "loops" { print $3 }' "$tmp/out"; }

# ctstats PREFIX FILE: record the -v statistics of a ctprof report.
ctstats() {
	local p=$1 line k v
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
	/^profiler: per sample, us:/ {
		line = $0
		sub(/^profiler: per sample, us: /, "", line)
		n = split(line, part, / = | \+ |; |, /)
		for (i = 1; i <= n; i++) {
			m = split(part[i], w, " ")
			key = w[1]
			for (j = 2; j < m; j++) key = key "_" w[j]
			print "part_" key, w[m]
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
# KIND[HZ][-2]: ct = ctprof (libunwind), dw = ctprof (libdw), bs = the
# base ctprof (--base, its default unwinder), pd = perf --call-graph
# dwarf, pf = perf -g on the frame-pointer build; -2: the workload with
# two busy threads (one per CPU), compared to bare-2.
variants=(bare fpbare ct99 ct999 pd99 pd999 pf99 pf999 bare-2 ct99-2 ct999-2 pd99-2 pd999-2)
if has libdw; then variants+=(dw99 dw999); fi
if [ -n "$base_ct" ]; then variants+=(bs99 bs999 bs99-2 bs999-2); fi

declare -A elapsed
checksum=
run_workload() {
	local v=$1 base=${1%-2} kind hz out
	local -a cmd wl=("$tmp/workload") fp=("$tmp/workload-fp")
	kind=${base%%[0-9]*} hz=${base#"$kind"}
	[ "$base" = "$v" ] || wl+=(2000000 2) fp+=(2000000 2)
	rm -f "$tmp/perf.data" "$tmp/ct.txt"
	case $kind in
	bare) cmd=("${wl[@]}") ;;
	fpbare) cmd=("${fp[@]}") ;;
	ct) cmd=("$ctprof" ${unwopt[libunwind]} -F "$hz" -v -o "$tmp/ct.txt" -- "${wl[@]}") ;;
	dw) cmd=("$ctprof" ${unwopt[libdw]} -F "$hz" -v -o "$tmp/ct.txt" -- "${wl[@]}") ;;
	bs) cmd=("$base_ct" -F "$hz" -v -o "$tmp/ct.txt" -- "${wl[@]}") ;;
	pd) cmd=(perf record -q -e cpu-clock --call-graph dwarf -F "$hz" -o "$tmp/perf.data" -- "${wl[@]}") ;;
	pf) cmd=(perf record -q -e cpu-clock -g -F "$hz" -o "$tmp/perf.data" -- "${fp[@]}") ;;
	esac
	run 120 "${cmd[@]}"
	out=$(awk '$1 == "checksum" { print $2 }' "$tmp/out")
	[ -n "$checksum" ] || checksum=$out
	[ "$out" = "$checksum" ] || die "$v: the workload computed checksum '$out', not $checksum: the profiler changed what the target did"
	elapsed[$v]=$(awk '$1 == "elapsed" { print $2 }' "$tmp/out")
	[ -n "${elapsed[$v]}" ] || die "$v: the workload printed no elapsed time"
	put "$v.elapsed" "${elapsed[$v]}"
	case $kind in ct|dw|bs) ctstats "$v" "$tmp/ct.txt" ;; esac
}

# Part 1's time lost per sample: bench/gaps.c bare, under ctprof and
# under perf record --call-graph dwarf.  KIND[HZ][-2], as above (HZ 999
# if not given); -2: two threads of GAPS2_ROUNDS rounds each (~3 s, one
# per CPU), compared to bare-2.  Not at 99 Hz: its 550 samples take at
# most some 80 ms from the two threads (a 60-us stall and 87 us of
# ctprof's CPU each), and the bare runs' gaps on the slower VM went from
# 290 to 490 ms from one run to the next.
GAPS2_ROUNDS=30000000
gap_variants=(bare ct pd bare-2 ct999-2 pd999-2)
if [ -n "$base_ct" ]; then gap_variants+=(bs bs999-2); fi
declare -A gap_el gap_lost
run_gaps() {
	local v=$1 base=${1%-2} kind hz el lost
	local -a gaps=("$tmp/gaps") cmd
	kind=${base%%[0-9]*} hz=${base#"$kind"}
	hz=${hz:-999}
	[ "$base" = "$v" ] || gaps+=("$GAPS2_ROUNDS" 2)
	case $kind in
	bare) cmd=("${gaps[@]}") ;;
	ct) cmd=("$ctprof" ${unwopt[libunwind]} -F "$hz" -v -o "$tmp/ct.txt" -- "${gaps[@]}") ;;
	bs) cmd=("$base_ct" -F "$hz" -v -o "$tmp/ct.txt" -- "${gaps[@]}") ;;
	pd) cmd=(perf record -q -e cpu-clock --call-graph dwarf -F "$hz" -o "$tmp/perf.data" -- "${gaps[@]}") ;;
	esac
	run 120 "${cmd[@]}"
	read -r el lost < <(awk '$1 == "elapsed" { e = $2 } $1 == "gaps" { l = $3 } END { print e, l }' "$tmp/out")
	[ -n "$lost" ] || die "gaps ($v) printed no lost time"
	gap_el[$v]=$el gap_lost[$v]=$lost
	put "gaps.$v.lost_ms" "$lost"
	case $kind in ct|bs) ctstats "gaps.$v" "$tmp/ct.txt" ;; esac
}

# Part 1's signal round trip: bench/sigping.c bare, under ctprof at 99
# and 999 Hz and under perf record --call-graph dwarf at 999 Hz.
ping_variants=(bare ct99 ct999 pd999)
if [ -n "$base_ct" ]; then ping_variants+=(bs999); fi
run_ping() {
	local v=$1 rt
	local -a cmd=("$tmp/sigping" 2)
	case $v in
	ct*) cmd=("$ctprof" ${unwopt[libunwind]} -F "${v#ct}" -o "$tmp/ct.txt" -- "$tmp/sigping" 2) ;;
	bs*) cmd=("$base_ct" -F "${v#bs}" -o "$tmp/ct.txt" -- "$tmp/sigping" 2) ;;
	pd*) cmd=(perf record -q -e cpu-clock --call-graph dwarf -F "${v#pd}" -o "$tmp/perf.data" -- "$tmp/sigping" 2) ;;
	esac
	run 120 "${cmd[@]}"
	rt=$(awk '$1 == "round_trip_us" { print $2 }' "$tmp/out")
	[ -n "$rt" ] || die "sigping ($v) printed no round trip"
	put "ping.$v" "$rt"
}

# -------------------------------------------------------------- part 4 --
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

# -------------------------------------------------------------- part 7 --
# Real programs under ctprof and under perf record, compared by
# scripts/flatcmp.py.  Each workload is one "name": its comparisons are
# $res/NAME.tsv.REP (flatcmp --tsv), its distances NAME.tvd.
real_hz=999
# perf -a beside ctprof in the same run ticks at another rate: at the same
# period, perf's ticks keep one phase against ctprof's stops for the whole
# run.  Beside ctprof at 999 Hz on redis, perf at 999 Hz saw ctprof's own
# threads in 0.34% of its samples (they used 8% of the CPUs) and 9811
# samples of redis where the kernel gave redis 12.46 s of CPU; at 997 Hz,
# 5.38% and 11947 for 12.05 s.
same_hz=997
redis_args=(-q -n 160000 -c 10 -t set,get,incr,lpush,lpop)
selftime_s=3
pollsleep_s=3
pingpong_s=3
# CPython's rounds: 30 (~9 s) give ~9000 samples a run, so that pooled
# runs can show a distance of a few hundredths above sampling's own.
py_rounds=30
# sqlite3's workload sql_passes times over, each in a new database (~2.5
# s a pass).  Three passes gave ~7000 samples a run, and five runs pooled
# were 0.025 from five more of perf's alone (0.020 from sampling alone),
# so that ctprof's pooled distance to perf, 0.032-0.036, could not tell
# a bias of ctprof's from the runs' own spread.  Eight such runs of each
# tool pooled (a scratch script, 2026-11-29): ctprof to perf 0.021, perf
# to perf 0.020, ctprof to perf in the same run 0.019 (sampling 0.015);
# four runs: 0.028, 0.027 and 0.022.  Six passes a run give the five
# runs pooled more samples than those eight runs had.
sql_passes=6
sql_reads=(".read $tmp/sqlwork.sql")
for ((i = 1; i < sql_passes; i++)); do sql_reads+=(".open :memory:" ".read $tmp/sqlwork.sql"); done
ratio3_args=()          # ratio3's own defaults
# CPython and sqlite3 run the same way every time, so that what moves
# between runs is the profilers: the same address-space layout (setarch
# -R, which the profiler and so the program inherit), the same small
# environment (env -i: perf adds five variables to its command's, which
# moves the stack by 0x70 bytes), and for CPython the same string hashes
# (PYTHONHASHSEED=0; each run draws its own otherwise).  Two runs of
# sqlite3's workload under perf alone were 0.04-0.10 apart with the
# layout random (0.041 from sampling alone), 0.041-0.045 with it fixed;
# CPython's, 0.054-0.075 with the layout and environment fixed, and
# 0.027-0.036 with the hashes too (0.034 from sampling alone).
layout=()
fixed_layout=()
if setarch "$(uname -m)" -R true 2>/dev/null; then fixed_layout=(setarch "$(uname -m)" -R); fi
sql_env=(env -i PATH=/usr/bin:/bin LANG=C.UTF-8)
py_env=("${sql_env[@]}" PYTHONHASHSEED=0)
real_names=()           # the workloads that ran, in report order
declare -A real_title=() real_skip=()

# real_setup: what part 7 runs, each thing checked; a missing one is a note.
real_setup() {
	local py
	py=$(command -v /usr/bin/python3 || command -v python3 || true)
	if [ -z "$py" ]; then
		real_skip[all]="no python3 for scripts/flatcmp.py"
		return
	fi
	flatcmp=("$py" "$tmp/flatcmp.py")
	cp scripts/flatcmp.py bench/pywork.py bench/sqlwork.sql "$tmp/"
	if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null &&
	   command -v redis-cli >/dev/null; then
		real_names+=(redis)
		real_title[redis]="redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') (ctprof -p, perf -a), \`redis-benchmark ${redis_args[*]}\`"
	else
		real_skip[redis]="redis-server, redis-benchmark or redis-cli is missing (apt-get install redis-server redis-tools)"
	fi
	if [ -x /usr/bin/python3 ]; then
		real_names+=(python)
		real_title[python]="CPython $(/usr/bin/python3 -c 'import platform; print(platform.python_version())') (/usr/bin/python3), bench/pywork.py"
	else
		real_skip[python]="/usr/bin/python3 is missing (apt-get install python3)"
	fi
	if command -v sqlite3 >/dev/null; then
		real_names+=(sqlite)
		real_title[sqlite]="sqlite3 $(sqlite3 --version | cut -d' ' -f1), bench/sqlwork.sql in memory, $sql_passes passes a run"
	else
		real_skip[sqlite]="sqlite3 is missing (apt-get install sqlite3)"
	fi
	if [ -x build/tests/selftime ]; then
		cp build/tests/selftime "$tmp/"
		real_names+=(selftime-syscall selftime-fault)
		real_title[selftime-syscall]="build/tests/selftime syscall $selftime_s"
		real_title[selftime-fault]="build/tests/selftime fault $selftime_s"
	else
		real_skip[selftime]="build/tests/selftime is missing"
	fi
	if [ -x build/tests/pollsleep ] && command -v taskset >/dev/null; then
		cp build/tests/pollsleep "$tmp/"
		real_names+=(pollsleep)
		real_title[pollsleep]="build/tests/pollsleep $pollsleep_s, pinned to CPU 1"
	else
		real_skip[pollsleep]="build/tests/pollsleep or taskset is missing"
	fi
	if [ -x build/tests/pingpong ]; then
		cp build/tests/pingpong "$tmp/"
		real_names+=(pingpong)
		real_title[pingpong]="build/tests/pingpong $pingpong_s"
		for fn in do_epoll do_read arith do_write; do
			real_title[pingpong-$fn]="build/tests/pingpong $pingpong_s: $fn, of the server thread"
		done
	else
		real_skip[pingpong]="build/tests/pingpong is missing"
	fi
	if [ -x build/tests/ratio3 ]; then
		cp build/tests/ratio3 "$tmp/"
		real_names+=(ratio3)
		real_title[ratio3]="build/tests/ratio3${ratio3_args[*]:+ ${ratio3_args[*]}}, 3 threads 1:2:3 on $(nproc) CPUs"
	else
		real_skip[ratio3]="build/tests/ratio3 is missing"
	fi
	local k
	for k in "${!real_skip[@]}"; do say "part 7: ${real_skip[$k]}: skipped"; done
}

# flat NAME [flatcmp option]...: compare $tmp/NAME.pb.gz with $tmp/NAME.data
# (this repetition's runs).
flat() {
	local name=$1 f=$res/$1.tsv.$r c p
	shift
	if [ -f "$tmp/$name.script" ]; then
		"${flatcmp[@]}" --tsv "$@" "$tmp/$name.pb.gz" --perf-script "$tmp/$name.script"
	else
		"${flatcmp[@]}" --tsv "$@" "$tmp/$name.pb.gz" "$tmp/$name.data"
	fi >"$f" 2>"$tmp/flat.err" || { cat "$tmp/flat.err" >&2; die "scripts/flatcmp.py failed on $name"; }
	if [ -s "$tmp/flat.err" ]; then say "$name: $(cat "$tmp/flat.err")"; fi
	put "$name.tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
	read -r c p < <(awk -F'\t' '$1 == "#samples" { print $2, $3 }' "$f")
	put "$name.ct_n" "$c"
	put "$name.perf_n" "$p"
	# Kept for the comparison of all repetitions pooled (pooled_flat).
	cp "$tmp/$name.pb.gz" "$tmp/$name.$r.pb.gz"
	if [ -f "$tmp/$name.script" ]; then
		cp "$tmp/$name.script" "$tmp/$name.$r.script"
	else
		cp "$tmp/$name.data" "$tmp/$name.$r.data"
	fi
}

# Runs the machine slowed down.  This VM's host at times takes a CPU away
# for seconds, with no steal time in /proc/stat to show for it, and code
# that waits on memory then takes a larger share of the run: of six runs
# of sqlite3's workload under perf alone (pinned, three on each CPU), one
# took 12.0 s where the others took 5.7-6.4, and sqlite3BtreeTableMoveto
# had 30.7% of it against 24.7%.  Its profile was 0.11-0.15 from the
# others', which were 0.055-0.081 apart (0.055-0.059 from sampling
# alone); three of the five pooled against the other two were 0.045 apart
# (0.038 from sampling), and 0.086 (0.032) with the slow run in.  A run
# of redis, CPython or sqlite3 is taken as slowed down when its cost
# (note_cost: the workload's wall time; redis's, the CPU time of its
# main thread for the fixed requests) is over disturbed_factor times the
# median of that tool's runs of it.  The pooled comparisons are given
# both with such runs left out and with all runs.
disturbed_factor=1.25

# note_cost NAME TOOL VALUE: this repetition's cost of NAME under TOOL
# (ct, perf or perf2).
note_cost() { put "$1.cost.$2" "$r $3"; }

# disturbed NAME TOOL I: was repetition I's run of NAME under TOOL slowed
# down (see disturbed_factor)?
disturbed() {
	local f=$res/$1.cost.$2 x m
	[ -s "$f" ] || return 1
	x=$(awk -v i="$3" '$1 == i { print $2 }' "$f")
	[ -n "$x" ] || return 1
	m=$(cut -d' ' -f2 "$f" | sort -g | awk '{ v[NR] = $1 }
		END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	awk -v x="$x" -v m="$m" -v k="$disturbed_factor" 'BEGIN { exit !(x > k * m) }'
}

# left_out NAME TOOL: how many of TOOL's runs of NAME were slowed down.
left_out() {
	local i n=0
	for ((i = 0; i < reps; i++)); do
		if disturbed "$1" "$2" "$i"; then n=$((n + 1)); fi
	done
	echo "$n"
}

# pooled_flat NAME MODE: compare the profiles of every repetition added up,
# ctprof's against perf's: with N times the samples, the distance that
# sampling alone gives is sqrt(N) times smaller, and what remains shows.
# MODE all: every run (NAME.ptvd); kept: the runs not slowed down
# (NAME.ktvd).
pooled_flat() {
	local name=$1 mode=$2 ct="" pf="" i key=p s=$tmp/$1.pooled.$2.script f=$res/$1.tsv.pooled.$2
	[ "$mode" = all ] || key=k
	rm -f "$s"
	for ((i = 0; i < reps; i++)); do
		[ -f "$tmp/$name.$i.pb.gz" ] || continue
		if [ "$mode" = all ] || ! disturbed "$name" ct "$i"; then
			ct=$ct${ct:+,}$tmp/$name.$i.pb.gz
		fi
		if [ "$mode" != all ] && disturbed "$name" perf "$i"; then
			continue
		elif [ -f "$tmp/$name.$i.script" ]; then
			cat "$tmp/$name.$i.script" >>"$s"
		else
			pf=$pf${pf:+,}$tmp/$name.$i.data
		fi
	done
	[ -n "$ct" ] && [ -n "$pf" -o -f "$s" ] || return 0
	if [ -f "$s" ]; then
		"${flatcmp[@]}" --tsv "$ct" --perf-script "$s"
	else
		"${flatcmp[@]}" --tsv "$ct" "$pf"
	fi >"$f" 2>/dev/null || return 0
	put "$name.${key}tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.${key}noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# perf_pairs NAME: perf's profile of each repetition against that of every
# later one: how far apart two runs of the workload are, sampling and all
# (CPython seeds its string hashes anew in each run, for one), which a
# profiler's distance to perf cannot go below.
perf_pairs() {
	local name=$1 i j a d
	local -a b
	for ((i = 0; i < reps; i++)); do
		for ((j = i + 1; j < reps; j++)); do
			a=$tmp/$name.$i.script b=(--perf-script "$tmp/$name.$j.script")
			[ -f "$a" ] || a=$tmp/$name.$i.data b=("$tmp/$name.$j.data")
			[ -f "$a" ] && [ -f "${b[-1]}" ] || continue
			d=$("${flatcmp[@]}" --tsv "$a" "${b[@]}" 2>/dev/null | awk -F'\t' '$1 == "#distance" { print $2 }')
			[ -z "$d" ] || put "$name.pptvd" "$d"
		done
	done
}

# perf_floor NAME MODE: perf's runs compared with ctprof's (NAME.R.*), added
# up, against its other runs (perf2 in tools_twice, NAME.B.R.*), added
# up: how far apart two pooled profiles of the workload are when both
# are perf's, the runs' own differences and sampling's, which the pooled
# distance of ctprof to perf (pooled_flat, as many runs) is to be read
# against.  MODE as for pooled_flat (NAME.ftvd, NAME.kftvd).
perf_floor() {
	local name=$1 mode=$2 a="" b="" i key=f
	local sa=$tmp/$1.A.floor.$2.script sb=$tmp/$1.B.floor.$2.script f=$res/$1.tsv.floor.$2
	[ "$mode" = all ] || key=kf
	rm -f "$sa" "$sb"
	for ((i = 0; i < reps; i++)); do
		if [ -f "$tmp/$name.B.$i.script" ] && [ -f "$tmp/$name.$i.script" ]; then
			[ "$mode" != all ] && disturbed "$name" perf "$i" || cat "$tmp/$name.$i.script" >>"$sa"
			[ "$mode" != all ] && disturbed "$name" perf2 "$i" || cat "$tmp/$name.B.$i.script" >>"$sb"
		elif [ -f "$tmp/$name.B.$i.data" ] && [ -f "$tmp/$name.$i.data" ]; then
			[ "$mode" != all ] && disturbed "$name" perf "$i" || a=$a${a:+,}$tmp/$name.$i.data
			[ "$mode" != all ] && disturbed "$name" perf2 "$i" || b=$b${b:+,}$tmp/$name.B.$i.data
		fi
	done
	if [ -f "$sa" ] && [ -f "$sb" ]; then
		"${flatcmp[@]}" --tsv "$sa" --perf-script "$sb"
	elif [ -n "$a" ] && [ -n "$b" ]; then
		"${flatcmp[@]}" --tsv "$a" "$b"
	else
		return 0
	fi >"$f" 2>/dev/null || return 0
	put "$name.${key}tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.${key}noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# same_run NAME COMM CMD...: CMD under ctprof while perf record -a records
# the whole system, its samples of the processes named COMM kept: two
# profiles of one run.  Their distance is ctprof's error of measurement
# alone, with no difference between runs in it.  And perf's profile of
# that run against perf's of the repetition's own run (perf alone, NAME.R.*
# from flat) is what ctprof's stops changed in the target.
same_run() {
	local name=$1 comm=$2
	shift 2
	rm -f "$tmp/$name.same.pb.gz" "$tmp/$name.same.data"
	run 180 "${layout[@]}" perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/$name.same.data" -- \
		"$ctprof" ${unwopt[libunwind]} -F "$real_hz" -o "$tmp/$name.same.pb.gz" -- "$@"
	perf script -i "$tmp/$name.same.data" --comm "$comm" -F tid,period,ip,sym,symoff,dso \
		--no-inline --no-demangle >"$tmp/$name.same.$r.script" 2>/dev/null ||
		die "perf script failed on the system-wide profile of $comm under ctprof"
	cp "$tmp/$name.same.pb.gz" "$tmp/$name.same.$r.pb.gz"
}

# same_pooled NAME: same_run's two comparisons, every repetition pooled.
same_pooled() {
	local name=$1 ct="" same="" alone="" i f
	local -a b
	rm -f "$tmp/$name.same.pooled.script" "$tmp/$name.alone.pooled.script"
	for ((i = 0; i < reps; i++)); do
		[ -f "$tmp/$name.same.$i.pb.gz" ] || continue
		if [ -f "$tmp/$name.$i.script" ]; then    # perf alone recorded -a
			cat "$tmp/$name.$i.script" >>"$tmp/$name.alone.pooled.script"
		elif [ -f "$tmp/$name.$i.data" ]; then
			alone=$alone${alone:+,}$tmp/$name.$i.data
		else
			continue
		fi
		ct=$ct${ct:+,}$tmp/$name.same.$i.pb.gz
		same=$same${same:+,}$tmp/$name.same.$i.script
		cat "$tmp/$name.same.$i.script" >>"$tmp/$name.same.pooled.script"
	done
	[ -n "$ct" ] || return 0
	f=$res/$name.tsv.same
	"${flatcmp[@]}" --tsv "$ct" --perf-script "$tmp/$name.same.pooled.script" >"$f" 2>/dev/null || return 0
	put "$name.stvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.snoise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
	f=$res/$name.tsv.moved
	if [ -n "$alone" ]; then b=("$alone"); else b=(--perf-script "$tmp/$name.alone.pooled.script"); fi
	"${flatcmp[@]}" --tsv "$same" "${b[@]}" >"$f" 2>/dev/null || return 0
	put "$name.mtvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.mnoise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# profiled NAME TOOL PERF_CALLGRAPH CMD...: CMD run by ctprof (TOOL ct) or
# perf record (TOOL perf, with the call-graph option given), the profile in
# $tmp/NAME.pb.gz or $tmp/NAME.data; the command's output in $tmp/out.
profiled() {
	local name=$1 tool=$2 cg=$3 t0
	t0=$(now_us)
	shift 3
	if [ "$tool" = ct ]; then
		rm -f "$tmp/$name.pb.gz"
		run 180 "${layout[@]}" "$ctprof" ${unwopt[libunwind]} -F "$real_hz" -o "$tmp/$name.pb.gz" -- "$@"
	else
		[ "$tool" = perf ] || name=$name.B
		rm -f "$tmp/$name.data"
		run 180 "${layout[@]}" perf record -q -e cpu-clock -F "$real_hz" $cg -o "$tmp/$name.data" -- "$@"
	fi
	note_cost "${name%.B}" "$tool" "$(($(now_us) - t0))"
}

# tools: the order of the two profilers in this repetition.
tools() { if ((r % 2)); then echo perf ct; else echo ct perf; fi; }
# tools_twice: the same with perf run twice (perf2: its second run, kept
# apart for perf_floor), the three in an order that rotates.
tools_twice() {
	case $((r % 3)) in
	0) echo ct perf perf2 ;;
	1) echo perf perf2 ct ;;
	*) echo perf2 ct perf ;;
	esac
}

# keep_twice NAME: perf's second run of this repetition, kept for
# perf_floor.
keep_twice() {
	local name=$1
	if [ -f "$tmp/$name.B.script" ]; then
		cp "$tmp/$name.B.script" "$tmp/$name.B.$r.script"
	elif [ -f "$tmp/$name.B.data" ]; then
		cp "$tmp/$name.B.data" "$tmp/$name.B.$r.data"
	fi
}

# redis_start: redis-server on a free loopback port, no persistence, its
# files in the temporary directory.  Sets redis_pid and redis_port.
redis_start() {
	local i
	mkdir -p "$tmp/redis"
	for _ in 1 2 3; do
		redis_port=$((20000 + RANDOM % 20000))
		redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
			--daemonize no --dir "$tmp/redis" >"$tmp/redis/log" 2>&1 &
		redis_pid=$!
		bg_pids+=("$redis_pid")
		for ((i = 0; i < 100; i++)); do
			if redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG; then return 0; fi
			kill -0 "$redis_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	done
	tail -5 "$tmp/redis/log" >&2
	die "redis-server did not start"
}

# redis_loop: redis-server's voluntary context switches, CPU time (ns)
# and commands served so far, on one line.
redis_loop() {
	local v r c
	v=$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$redis_pid/status" 2>/dev/null)
	r=$(awk '{ print $1 }' "/proc/$redis_pid/schedstat" 2>/dev/null)
	c=$(redis-cli -h 127.0.0.1 -p "$redis_port" info stats 2>/dev/null |
		tr -d '\r' | awk -F: '$1 == "total_commands_processed" { print $2 }')
	echo "${v:-} ${r:-} ${c:-}"
}

# redis_profiled TOOL: TOOL attached to redis-server from just before
# redis-benchmark starts until it ends (SIGINT then, as Ctrl-C would); TOOL
# perf2: perf again, its profile kept as redis.B.*; TOOL bare: nothing
# attached; TOOL same: ctprof attached while perf -a
# records, their profiles kept as redis.same.R.pb.gz and .script for
# same_pooled; TOOL threads: perf -p while perf -a records, compared.  Around the benchmark, redis's voluntary context
# switches (each a wait in epoll_wait, or a stop of ctprof's), its CPU time
# and the commands it served are read, for how the profiler changed
# redis's own event loop.  Nothing else is attached: perf stat counting
# its system calls (tracepoints at every entry) made ctprof's profile of
# it 0.33 from perf's in a run where 0.10 was usual.
redis_profiled() {
	local tool=$1 pid= ppid= rc=0 prc=0 pprc=0 v0 v1 r0 r1 c0 c1 w0 w1 stops=0 pf=
	if [ "$tool" = bare ]; then
		:
	elif [ "$tool" = threads ]; then
		# perf's own per-thread mode (-p: a cpu-clock event on each of
		# redis's threads, as ctprof's perf trigger has) while perf -a
		# records: how far the two ways of timing samples are apart on
		# one run.
		rm -f "$tmp/redis.ta.data" "$tmp/redis.tp.data"
		perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/redis.ta.data" \
			>"$tmp/perf.out" 2>"$tmp/perf.err" &
		ppid=$!
		bg_pids+=("$ppid")
		sleep 0.5
		perf record -q -p "$redis_pid" -e cpu-clock -F "$real_hz" -g -o "$tmp/redis.tp.data" \
			>"$tmp/prof.out" 2>"$tmp/prof.err" &
	elif [ "$tool" = ct ] || [ "$tool" = same ]; then
		if [ "$tool" = same ]; then
			# Both at once: perf -a started first, so that it records
			# all of ctprof's time attached.
			rm -f "$tmp/redis.same.data"
			perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/redis.same.data" \
				>"$tmp/perf.out" 2>"$tmp/perf.err" &
			ppid=$!
			bg_pids+=("$ppid")
			sleep 0.5
		fi
		rm -f "$tmp/redis.pb.gz" "$tmp/redis.txt"
		"$ctprof" ${unwopt[libunwind]} -F "$real_hz" -p "$redis_pid" -v -o "$tmp/redis.pb.gz" \
			-o "$tmp/redis.txt" >"$tmp/prof.out" 2>"$tmp/prof.err" &
	else
		# System-wide, its samples of redis's threads kept: attached
		# to redis's threads (-p), perf made redis wait in epoll_wait
		# a third less often per command (0.11 at 999 Hz, 0.13 at 99
		# Hz, against 0.16-0.165 with nothing attached and 0.165-0.17
		# under perf -a), and its profile was 0.075-0.10 from perf's
		# system-wide one.
		pf=redis
		[ "$tool" = perf ] || pf=redis.B
		rm -f "$tmp/$pf.data" "$tmp/$pf.script"
		perf record -q -a -e cpu-clock -F "$real_hz" -g -o "$tmp/$pf.data" \
			>"$tmp/prof.out" 2>"$tmp/prof.err" &
	fi
	if [ "$tool" != bare ]; then
		pid=$!
		bg_pids+=("$pid")
	fi
	sleep 0.5       # attached before the first request
	read -r v0 r0 c0 < <(redis_loop)
	w0=$(date +%s%N)
	timeout --foreground -k 10 180 redis-benchmark -h 127.0.0.1 -p "$redis_port" "${redis_args[@]}" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	w1=$(date +%s%N)
	interrupted "$rc"
	read -r v1 r1 c1 < <(redis_loop)
	case $tool in
	ct|perf|perf2) [ -z "$r0" ] || [ -z "$r1" ] || note_cost redis "$tool" "$((r1 - r0))" ;;
	esac
	if [ -n "$pid" ]; then
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" || prc=$?
	fi
	if [ -n "$ppid" ]; then
		kill -INT "$ppid" 2>/dev/null || true
		wait "$ppid" || pprc=$?
		case $pprc in
		0|130) ;;
		*) tail -5 "$tmp/perf.err" >&2; die "perf record -a beside ctprof failed with status $pprc" ;;
		esac
	fi
	[ "$rc" -eq 0 ] || { tail -5 "$tmp/err" >&2; die "redis-benchmark failed with status $rc"; }
	if [ "${tool#perf}" != "$tool" ] && [ "$prc" -eq 0 -o "$prc" -eq 130 ]; then
		perf script -i "$tmp/$pf.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/$pf.script" 2>/dev/null ||
			die "perf script failed on the system-wide profile of redis-server"
	fi
	if [ "$tool" = threads ] && [ "$prc" -eq 0 -o "$prc" -eq 130 ]; then
		perf script -i "$tmp/redis.ta.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.ta.script" 2>/dev/null &&
		perf script -i "$tmp/redis.tp.data" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.tp.script" 2>/dev/null ||
			die "perf script failed on perf -p and perf -a's profiles of one run of redis-server"
		"${flatcmp[@]}" --tsv "$tmp/redis.tp.script" --perf-script "$tmp/redis.ta.script" \
			>"$res/redis.tsv.threads" 2>/dev/null || die "flatcmp failed on perf -p against perf -a"
		put redis.ttvd "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$res/redis.tsv.threads")"
		put redis.tnoise "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$res/redis.tsv.threads")"
		put redis.tepoll "$(awk -F'\t' '$4 == "epoll_wait" { print $1 - $2; exit }' "$res/redis.tsv.threads")"
	fi
	if [ "$tool" = same ] && [ "$prc" -eq 0 ]; then
		perf script -i "$tmp/redis.same.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.same.$r.script" 2>/dev/null ||
			die "perf script failed on the system-wide profile of redis-server under ctprof"
		cp "$tmp/redis.pb.gz" "$tmp/redis.same.$r.pb.gz"
	fi
	# ctprof's stops are voluntary switches too: its -v lines count them.
	if [ "$tool" = ct -o "$tool" = same ] && [ -s "$tmp/redis.txt" ]; then
		stops=$(awk '/^profiler: / {
			for (i = 2; i <= NF; i++) {
				if ($i == "samples" && $(i + 1) == "asked") n += $(i - 1)
				if ($i == "while" && $(i + 1) == "it") n += $(i - 1)
				if ($i == "probe" && $(i + 1) == "stops") n += $(i - 1)
				if ($i == "stops" && $(i + 1) == "found") n += $(i - 1)
			}
		} END { print n + 0 }' "$tmp/redis.txt")
	fi
	# Per command served: redis's waits, and its CPU time in us.
	if [ -n "$v0" ] && [ -n "$v1" ] && [ -n "$c0" ] && [ -n "$c1" ] && [ "$c1" -gt "$c0" ]; then
		put "redis.$tool.waits" "$(awk -v v="$((v1 - v0 - ${stops:-0}))" -v c="$((c1 - c0))" 'BEGIN { printf "%.4f", v / c }')"
		put "redis.$tool.cpu_req" "$(awk -v r="$((r1 - r0))" -v c="$((c1 - c0))" 'BEGIN { printf "%.3f", r / 1000 / c }')"
		put "redis.$tool.rps" "$(awk -v w="$((w1 - w0))" -v c="$((c1 - c0))" 'BEGIN { printf "%.0f", c * 1e9 / w }')"
	fi
	[ "$tool" != bare ] || return 0
	# perf ends by raising SIGINT again once its file is written (130).
	case $tool:$prc in
	ct:0|same:0|perf:0|perf:130|perf2:0|perf2:130|threads:0|threads:130) ;;
	*) tail -5 "$tmp/prof.err" >&2; die "$tool attached to redis-server failed with status $prc" ;;
	esac
}

# own_share PROGRAM FUNCTION: the share of FUNCTION that selftime or
# pollsleep gave itself (%).
own_share() {
	awk -v p="$1:" -v f="$2" '$1 == p && $2 == f { sub(/%$/, "", $3); print $3; exit }' "$tmp/out"
}
# pp_own FUNCTION: the share of the server thread's time that pingpong
# gave FUNCTION (%), by its task clock.
pp_own() {
	awk -v f="$1" '$1 == "pingpong:" { for (i = 2; i < NF; i++) if ($i == f) { sub(/%$/, "", $(i + 1)); print $(i + 1); exit } }' "$tmp/out"
}
# cum NAME FUNCTION TOOL: the share of FUNCTION on the stack in this
# repetition's comparison; TOOL ct or perf.
cum() {
	awk -F'\t' -v f="$2" -v c="$([ "$3" = ct ] && echo 3 || echo 4)" \
		'$1 == "#cum" && $2 == f { print $c }' "$res/$1.tsv.$r"
}

# row_pct NAME LABEL TOOL: the flat share of the key flatcmp names LABEL
# in this repetition's comparison (0 if absent); TOOL ct or perf.
row_pct() {
	awk -F'\t' -v l="$2" -v c="$([ "$3" = ct ] && echo 1 || echo 2)" \
		'$4 == l { print $c; found = 1; exit } END { if (!found) print 0 }' "$res/$1.tsv.$r"
}

# One repetition of part 7.
real_programs() {
	local name t mode own own_ct own_perf fn prog share_ct share_perf share
	local -a cmd
	for name in "${real_names[@]}"; do
		case $name in
		redis)
			[ -n "${redis_pid:-}" ] || redis_start
			for t in bare $(tools_twice); do redis_profiled "$t"; done
			flat redis
			keep_twice redis
			redis_profiled same
			redis_profiled threads ;;
		python)
			layout=("${fixed_layout[@]}")
			for t in $(tools_twice); do profiled python "$t" -g "${py_env[@]}" /usr/bin/python3 "$tmp/pywork.py" "$py_rounds"; done
			flat python
			keep_twice python
			same_run python python3 "${py_env[@]}" /usr/bin/python3 "$tmp/pywork.py" "$py_rounds"
			layout=() ;;
		sqlite)
			layout=("${fixed_layout[@]}")
			for t in $(tools_twice); do profiled sqlite "$t" -g "${sql_env[@]}" sqlite3 :memory: "${sql_reads[@]}"; done
			flat sqlite
			keep_twice sqlite
			same_run sqlite sqlite3 "${sql_env[@]}" sqlite3 :memory: "${sql_reads[@]}"
			layout=() ;;
		selftime-*|pollsleep)
			# The callers of the leaf count: perf must unwind the whole
			# stack of a binary built without frame pointers.
			if [ "$name" = pollsleep ]; then
				fn=wait_a_little prog=pollsleep
				cmd=(taskset -c 1 "$tmp/pollsleep" "$pollsleep_s")
			else
				fn=enter_kernel prog=selftime mode=${name#selftime-}
				cmd=("$tmp/selftime" "$mode" "$selftime_s")
			fi
			for t in $(tools); do
				profiled "$name" "$t" "--call-graph dwarf" "${cmd[@]}"
				own=$(own_share "$prog" "$fn")
				[ -n "$own" ] || die "${cmd[*]} printed no share of $fn"
				put "$name.own.$t" "$own"
				if [ "$t" = ct ]; then own_ct=$own; else own_perf=$own; fi
			done
			flat "$name" --cum "$fn"
			if [ "$name" = pollsleep ]; then
				# ppoll's own share, its kernel time in it: perf's
				# DWARF unwinding out of it gave wait_a_little 0.1%
				# in some runs.
				share_ct=$(row_pct "$name" ppoll ct) share_perf=$(row_pct "$name" ppoll perf)
			else
				share_ct=$(cum "$name" "$fn" ct) share_perf=$(cum "$name" "$fn" perf)
			fi
			put "$name.ct_cum" "$share_ct"
			put "$name.perf_cum" "$share_perf"
			put "$name.ct_err" "$(awk -v a="$share_ct" -v b="$own_ct" 'BEGIN { printf "%.3f", a - b }')"
			put "$name.perf_err" "$(awk -v a="$share_perf" -v b="$own_perf" 'BEGIN { printf "%.3f", a - b }')" ;;
		pingpong)
			# Its server thread's samples are those with main on the
			# stack; the client thread's run through client().
			declare -A pp_mine=()
			for t in $(tools); do
				profiled pingpong "$t" "--call-graph dwarf" "$tmp/pingpong" "$pingpong_s"
				grep -q '^pingpong:.* by task-clock$' "$tmp/out" ||
					die "pingpong could not open its task clock (perf_event_open refused): its CPU clock's shares are not comparable (tests/targets/pingpong.c)"
				for fn in do_epoll do_read arith do_write; do
					pp_mine[$t.$fn]=$(pp_own "$fn")
					[ -n "${pp_mine[$t.$fn]}" ] || die "pingpong printed no share of $fn"
					put "pingpong-$fn.own.$t" "${pp_mine[$t.$fn]}"
				done
			done
			flat pingpong --cum main --cum do_epoll --cum do_read --cum arith --cum do_write
			for fn in do_epoll do_read arith do_write; do
				for t in ct perf; do
					share=$(awk -v a="$(cum pingpong "$fn" "$t")" -v m="$(cum pingpong main "$t")" \
						'BEGIN { if (m > 0) printf "%.3f", 100 * a / m }')
					put "pingpong-$fn.${t}_cum" "$share"
					put "pingpong-$fn.${t}_err" "$(awk -v a="$share" -v b="${pp_mine[$t.$fn]}" 'BEGIN { printf "%.3f", a - b }')"
				done
			done ;;
		ratio3)
			for t in $(tools); do
				profiled ratio3 "$t" "--call-graph dwarf" "$tmp/ratio3" ${ratio3_args[@]+"${ratio3_args[@]}"}
				awk '$1 == "ratio3:" { for (i = 2; i < NF; i++) if ($i ~ /^work[123]$/) print $i, $(i + 1) }' \
					"$tmp/out" >"$tmp/own.$t"
				[ "$(wc -l <"$tmp/own.$t")" -eq 3 ] || die "ratio3 printed no CPU times of work1..3"
			done
			flat ratio3 --cum work1 --cum work2 --cum work3
			for t in ct perf; do
				# Shares among the three, the target's (from the same run)
				# and the profiler's; their total variation distance.
				awk -F'\t' -v c="$([ $t = ct ] && echo 3 || echo 4)" \
					'$1 == "#cum" && $2 ~ /^work[123]$/ { print $2, $c }' "$res/ratio3.tsv.$r" >"$tmp/prof.$t"
				awk -v t="$t" -v res="$res" '
					FNR == NR { own[$1] = $2; so += $2; next }
					{ got[$1] = $2; sg += $2 }
					END {
						for (i = 1; i <= 3; i++) {
							w = "work" i
							o = so ? own[w] / so : 0; g = sg ? got[w] / sg : 0
							print 100 * o >>(res "/ratio3.own." w)
							print 100 * g >>(res "/ratio3." t "." w)
							d += (o > g ? o - g : g - o)
						}
						printf "%.6f\n", d / 2 >>(res "/ratio3." t ".tvd_own")
					}' "$tmp/own.$t" "$tmp/prof.$t"
			done ;;
		esac
	done
}

# top NAME N: the N functions with the highest median self% on either side
# over the repetitions (a repetition without a function counts 0), as rows
# of a Markdown table.
top() {
	awk -F'\t' -v n="$2" '
		function median(k, tool,   i, j, m, v, x) {
			for (i = 1; i <= files; i++) v[i] = val[tool, k, i] + 0
			for (i = 2; i <= files; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
			m = files % 2 ? v[(files + 1) / 2] : (v[files / 2] + v[files / 2 + 1]) / 2
			return m
		}
		FNR == 1 { files++ }
		$1 !~ /^#/ { k = $4 "\t" $3; keys[k] = 1; val["c", k, files] = $1; val["p", k, files] = $2 }
		END {
			for (k in keys) {
				c = median(k, "c"); p = median(k, "p")
				split(k, kp, "\t")
				gsub(/\|/, "\\|", kp[1])
				printf "%.3f\t| %s | %s | %.1f%% | %.1f%% |\n", (c > p ? c : p), kp[1], kp[2], c, p
			}
		}' "$res/$1".tsv.[0-9]* | sort -t"$(printf '\t')" -k1,1gr | head -n "$2" | cut -f2-
}

# The report of part 7.
# slowed_table: the pooled comparisons again, with the runs the machine
# slowed down left out (disturbed_factor).
slowed_table() {
	local name cost floor
	printf 'The same pooled, with the runs the machine slowed down left out: a run whose cost (the wall time of CPython'"'"'s and sqlite3'"'"'s; for redis, the CPU time of its main thread over the fixed requests) is over %s times the median of the same tool'"'"'s runs of it.  This VM'"'"'s host at times takes a CPU away for seconds with no steal time to show for it, and memory-bound code then takes more of the run (bench.sh, disturbed_factor).\n\n' "$disturbed_factor"
	printf '| workload | runs left out: ctprof, perf, perf'"'"'s second | pooled | from sampling alone | perf against perf, pooled (from sampling alone) | median cost: ctprof, perf |\n| --- | --- | --- | --- | --- | --- |\n'
	for name in redis python sqlite; do
		[ -n "${real_title[$name]:-}" ] || continue
		floor=n/a
		[ -s "$res/$name.kftvd" ] && floor="$(med "$name.kftvd" %.3f) ($(med "$name.kfnoise" %.3f))"
		cost="$(cost_med "$name" ct), $(cost_med "$name" perf)"
		printf '| %s | %s, %s, %s | %s | %s | %s | %s |\n' "${real_title[$name]}" \
			"$(left_out "$name" ct)" "$(left_out "$name" perf)" "$(left_out "$name" perf2)" \
			"$(med "$name.ktvd" %.3f)" "$(med "$name.knoise" %.3f)" "$floor" "$cost"
	done
	echo
}

# cost_med NAME TOOL: the median cost of TOOL's runs of NAME, in seconds.
cost_med() {
	local f=$res/$1.cost.$2
	if [ ! -s "$f" ]; then echo n/a; return; fi
	cut -d' ' -f2 "$f" | sort -g | awk -v redis="$([ "$1" = redis ] && echo 1e9 || echo 1e6)" '{ v[NR] = $1 }
		END { printf "%.2f s\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / redis }'
}

real_report() {
	local name head floor
	cat <<EOF
**7. Accuracy on real programs.** ctprof and \`perf record -e cpu-clock -g\`
(\`--call-graph dwarf\` for the test targets, whose callers count), both at
$real_hz Hz, one after the other on the same workload; their flat self
profiles compared by ELF symbol (scripts/flatcmp.py: code inlined into a
function counts as that function, aliases such as malloc and __libc_malloc
are one, code of a stripped binary outside every symbol is keyed by its
unwind entry, shown as module+0xADDR, and perf's samples in the kernel
count at the user instruction that entered it, as ctprof counts them).
For redis-server, perf records the whole system (\`perf record -a\`, its
samples of redis-server's threads kept): attached to redis's threads
(\`-p\`), perf changes how often redis waits for requests (see the
table of its event loop below) and so the profile it takes.
Distance: total variation distance between the two flat profiles (0 the
same, 1 nothing in common).  From sampling alone: the distance two
profilers that both sample without bias would still have, with these
sample counts and perf's shares (each share's difference taken as normal
with variance p(1-p)(1/N1 + 1/N2)).  perf against perf: the distance
between perf's profiles of two repetitions (the median over every pair):
how far apart two runs of the workload are, sampling included, which no
profiler's distance to perf goes below.  All runs pooled: the same over
the profiles of every repetition added up, each tool's.  perf against
perf, pooled: redis, CPython and sqlite3 run under perf twice in each
repetition (the three runs in an order that rotates), and one of perf's
two runs of every repetition, added up, is compared with the other,
added up: the floor of the pooled distance, as many runs and samples on
each side.

EOF
	if [ -n "${real_skip[all]:-}" ]; then
		printf 'Skipped: %s.\n\n' "${real_skip[all]}"
		return
	fi
	printf '| workload | distance | from sampling alone | perf against perf | all runs pooled | pooled, from sampling alone | perf against perf, pooled (from sampling alone) | ctprof samples | perf samples |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
	for name in "${real_names[@]}"; do
		pooled_flat "$name" all
		pooled_flat "$name" kept
		perf_pairs "$name"
		perf_floor "$name" all
		perf_floor "$name" kept
		floor=n/a
		[ -s "$res/$name.ftvd" ] && floor="$(med "$name.ftvd" %.3f) ($(med "$name.fnoise" %.3f))"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${real_title[$name]}" "$(med "$name.tvd" %.3f)" \
			"$(med "$name.noise" %.3f)" "$(med "$name.pptvd" %.3f)" "$(med "$name.ptvd" %.3f)" \
			"$(med "$name.pnoise" %.3f)" "$floor" "$(med "$name.ct_n" %.0f)" "$(med "$name.perf_n" %.0f)"
	done
	echo
	slowed_table
	if [ -n "${real_title[redis]:-}${real_title[python]:-}${real_title[sqlite]:-}" ]; then
		printf 'The same workloads once more in each repetition, under ctprof while `perf record -a -e cpu-clock -g` (%s Hz) records the whole system, its samples of the workload kept (ctprof at %s Hz: at one rate, perf'"'"'s ticks would keep one phase against ctprof'"'"'s stops): two profiles of one run, all repetitions pooled.  ctprof against perf in the same runs is the error of measurement alone, with no difference between runs in it.  perf with ctprof attached against perf alone (its runs above) is what ctprof'"'"'s stops change in the target, with the runs'"'"' own differences.\n\n' "$same_hz" "$real_hz"
		printf '| workload | ctprof against perf, same runs | from sampling alone | perf with ctprof against perf alone | from sampling alone |\n| --- | --- | --- | --- | --- |\n'
		for name in redis python sqlite; do
			[ -n "${real_title[$name]:-}" ] || continue
			same_pooled "$name"
			printf '| %s | %s | %s | %s | %s |\n' "${real_title[$name]}" "$(med "$name.stvd" %.3f)" \
				"$(med "$name.snoise" %.3f)" "$(med "$name.mtvd" %.3f)" "$(med "$name.mnoise" %.3f)"
		done
		echo
	fi
	if [ -s "$res/redis.ttvd" ]; then
		printf 'redis-server once more in each repetition, under `perf record -p` (a cpu-clock event on each of its threads, timed by its own CPU time, as ctprof'"'"'s perf trigger times samples) while `perf record -a` records the whole system: perf against itself on one run, its two ways of timing samples.  Distance %s (from sampling alone %s), epoll_wait %s points under -p, medians of %s.\n\n' \
			"$(med redis.ttvd %.3f)" "$(med redis.tnoise %.3f)" "$(med redis.tepoll %+.1f)" "$reps"
	fi
	for name in "${real_names[@]}"; do
		printf 'Top functions, %s: self%%, median of %s.\n\n' "${real_title[$name]}" "$reps"
		printf '| function | module | ctprof | perf |\n| --- | --- | --- | --- |\n'
		top "$name" 8
		echo
	done
	if [ -n "${real_title[redis]:-}" ]; then
		printf "redis's own event loop in the same runs, and in a run with no profiler attached: how often it waited in epoll_wait per command served (its voluntary context switches, less ctprof's stops), its CPU time per command, and the commands it served a second. A profiler that changes how many requests one epoll_wait returns changes the profile it takes.\n\n"
		printf '| | no profiler | ctprof | perf record -a | both |\n| --- | --- | --- | --- | --- |\n'
		printf '| waits in epoll_wait per command | %s | %s | %s | %s |\n' "$(med redis.bare.waits %.3f)" \
			"$(med redis.ct.waits %.3f)" "$(med redis.perf.waits %.3f)" "$(med redis.same.waits %.3f)"
		printf '| CPU time per command | %s | %s | %s | %s |\n' "$(us redis.bare.cpu_req)" \
			"$(us redis.ct.cpu_req)" "$(us redis.perf.cpu_req)" "$(us redis.same.cpu_req)"
		printf '| commands a second (served over redis-benchmark'"'"'s wall time) | %s | %s | %s | %s |\n\n' \
			"$(med redis.bare.rps %.0f)" "$(med redis.ct.rps %.0f)" "$(med redis.perf.rps %.0f)" \
			"$(med redis.same.rps %.0f)"
	fi
	head=
	for name in selftime-syscall selftime-fault pollsleep pingpong-do_epoll pingpong-do_read pingpong-arith pingpong-do_write; do
		[ -n "${real_title[$name]:-}" ] || continue
		if [ -z "$head" ]; then
			head=1
			printf 'Self-timing targets: the share of time the timed function had by the target'"'"'s own clock (selftime: enter_kernel, by the TSC; pollsleep: wait_a_little, a ppoll() that works in the kernel before it sleeps, by its thread CPU clock; pingpong: each part of its server thread, by that thread'"'"'s task clock, perf'"'"'s, which runs while it is on a CPU), and of samples with that function on the stack (pollsleep: of samples in ppoll, its kernel time included, which needs no unwinding; pingpong: of its server thread'"'"'s samples, those with main on the stack).  The target measures its own share in every run, and a profiler changes it (its stops and interrupts cost the target time, more in some of its parts than in others): each profiler is compared with the target'"'"'s own share in the same run, and the medians of both are given.\n\n'
			printf '| target | own share under ctprof | ctprof | own share under perf | perf | ctprof - own | perf - own |\n| --- | --- | --- | --- | --- | --- | --- |\n'
		fi
		printf '| %s | %s%% | %s%% | %s%% | %s%% | %s | %s |\n' "${real_title[$name]}" \
			"$(med "$name.own.ct" %.1f)" "$(med "$name.ct_cum" %.1f)" \
			"$(med "$name.own.perf" %.1f)" "$(med "$name.perf_cum" %.1f)" \
			"$(med "$name.ct_err" %+.1f)" "$(med "$name.perf_err" %+.1f)"
	done
	[ -z "$head" ] || echo
	if [ -n "${real_title[ratio3]:-}" ]; then
		printf '%s: each function'"'"'s share of the three (samples with it on the stack), beside the thread CPU times the target measured.\n\n' "${real_title[ratio3]}"
		printf '| | work1 | work2 | work3 | distance to own |\n| --- | --- | --- | --- | --- |\n'
		printf '| own CPU time | %s%% | %s%% | %s%% | 0 |\n' "$(med ratio3.own.work1)" "$(med ratio3.own.work2)" "$(med ratio3.own.work3)"
		printf '| ctprof | %s%% | %s%% | %s%% | %s |\n' "$(med ratio3.ct.work1)" "$(med ratio3.ct.work2)" \
			"$(med ratio3.ct.work3)" "$(med ratio3.ct.tvd_own %.3f)"
		printf '| perf | %s%% | %s%% | %s%% | %s |\n' "$(med ratio3.perf.work1)" "$(med ratio3.perf.work2)" \
			"$(med ratio3.perf.work3)" "$(med ratio3.perf.tvd_own %.3f)"
		echo
	fi
	for name in "${!real_skip[@]}"; do
		printf 'Skipped: %s.\n' "${real_skip[$name]}"
	done
	[ ${#real_skip[@]} -eq 0 ] || echo
}

# ----------------------------------------------------------------- run --
declare -A part_us=([1]=0 [2]=0 [4]=0 [5]=0 [6]=0 [7]=0)
now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }
if want 7; then real_setup; fi
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
		bare|bare-2) ;;
		*-2) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[bare-2]}")" ;;
		pf*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[fpbare]}")" ;;
		*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[bare]}")" ;;
		esac
	done
	for ((i = 0; i < ${#gap_variants[@]}; i++)); do
		want 1 || break
		run_gaps "${gap_variants[(i + r) % ${#gap_variants[@]}]}"
	done
	for v in "${gap_variants[@]}"; do
		want 1 || break
		case $v in bare|bare-2) continue ;; esac
		# Per sample: per tick of the rate, and per thread.
		b=bare threads=1 hz=${v%-2}
		hz=${hz##*[!0-9]} hz=${hz:-999}
		if [ "$v" != "${v%-2}" ]; then b=bare-2 threads=2; fi
		put "gaps.$v.per_tick" "$(awk -v l="${gap_lost[$v]}" -v b="${gap_lost[$b]}" -v e="${gap_el[$v]}" \
			-v hz="$hz" -v n="$threads" 'BEGIN { printf "%.2f\n", (l - b) * 1000 / (e * hz * n) }')"
	done
	for ((i = 0; i < ${#ping_variants[@]}; i++)); do
		want 1 || break
		run_ping "${ping_variants[(i + r) % ${#ping_variants[@]}]}"
	done
	part_us[1]=$((part_us[1] + $(now_us) - t0))

	# Part 2: the floor, in the same repetition as ctprof's stall.
	t0=$(now_us)
	for mode in wake cross poll same; do
		want 2 || break
		rc=0
		timeout --foreground -k 10 60 "$tmp/floor" "$mode" 2000 1000 >"$tmp/out" 2>"$tmp/err" || rc=$?
		interrupted "$rc"
		if [ "$rc" -eq 3 ]; then continue; fi   # n/a: one CPU
		[ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; die "floor $mode failed (status $rc)"; }
		read -r fmed fp99 fcpu fsched < <(awk '{
			for (i = 1; i < NF; i++) {
				if ($i == "median") m = $(i + 1)
				if ($i == "p99") p = $(i + 1)
				if ($i == "CPU") c = $(i + 1)
			}
			print m, p, c, $NF }' "$tmp/out")
		put "floor.$mode.cpu" "$fcpu"
		[ "$mode" = wake ] && continue
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
		# The busy threads' work in their 3 s, bare and under each
		# ctprof (the two in an order that alternates).
		run 120 "$tmp/threads64" 3
		bare_loops=$(busy_loops)
		[ -n "$bare_loops" ] || die "threads64 printed no busy loops line"
		for t64v in $(if ((r % 2)) && [ -n "$base_ct" ]; then echo bs ct; else echo ct bs; fi); do
			case $t64v in
			ct) run 120 "$ctprof" ${unwopt[libunwind]} -F 999 -v -o "$tmp/t64.txt" -- "$tmp/threads64" 3 ;;
			bs) [ -n "$base_ct" ] || continue
			    run 120 "$base_ct" -F 999 -v -o "$tmp/t64.txt" -- "$tmp/threads64" 3 ;;
			esac
			eintr=$(awk '$1 == "eintr" { print $2 }' "$tmp/out")
			[ -n "$eintr" ] || die "threads64 printed no eintr line"
			put "t64$t64v.eintr" "$eintr"
			put "t64$t64v.work" "$(div "$(busy_loops)" "$bare_loops")"
			ctstats "t64$t64v" "$tmp/t64.txt"
			put "t64$t64v.per_tick" "$(div "$last_samples" "$last_ticks")"
			put "t64$t64v.per_sampled_tick" "$(div "$last_samples" "$((last_ticks - last_missed))")"
			put "t64$t64v.cpu_tick" "$(div "$(awk -v m="$last_cpu_ms" 'BEGIN { print m * 1000 }')" "$last_ticks")"
		done
	fi
	part_us[5]=$((part_us[5] + $(now_us) - t0))

	# Part 6.
	t0=$(now_us)
	if [ -n "$idlers" ]; then wallclock; fi
	part_us[6]=$((${part_us[6]:-0} + $(now_us) - t0))

	# Part 7.
	t0=$(now_us)
	if want 7; then real_programs; fi
	part_us[7]=$((part_us[7] + $(now_us) - t0))
done
total_s=$(( ($(now_us) - start_all + 500000) / 1000000 ))

# The marginal cost of a sample: the difference in own CPU time between the
# 999 Hz and the 99 Hz runs, per extra sample (start-up and fixed costs cancel).
for b in ct dw ct-2 bs bs-2; do
	x=${b#??}
	b=${b%-2}
	[ -s "$res/${b}999$x.cpu_ms" ] || continue
	paste "$res/${b}999$x.cpu_ms" "$res/${b}999$x.samples" "$res/${b}99$x.cpu_ms" "$res/${b}99$x.samples" |
		awk '{ if ($2 > $4) printf "%.6f\n", ($1 - $3) * 1000 / ($2 - $4) }' >"$res/$b$x.marginal"
done
maxrate() {
	local us; us=$(med "$1.cpu_us" %.6f)
	if [ "$us" = n/a ]; then echo n/a; else awk -v u="$us" 'BEGIN { printf "%.0f samples/s\n", 1e6 / u }'; fi
}
secs() { awk -v u="$1" 'BEGIN { printf "%.0f s", u / 1e6 }'; }

# ---------------------------------------------------------------- report --
# base_row ROW: a line break and ROW, a row of a table, if --base ran;
# nothing otherwise.
base_row() { if [ -n "$base_ct" ]; then printf '\n%s' "$1"; fi; }
base_cell() { if [ -n "$base_ct" ]; then printf '%s' "$1"; fi; }
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
(frame-pointer build: $(med fpbare.elapsed %.3f) s; two threads each doing it, one per
CPU: $(med bare-2.elapsed %.3f) s), timed by the target itself; ratio to the same build,
and the same threads, run bare in the same repetition.

| profiler | 99 Hz | 999 Hz | 99 Hz, 2 threads | 999 Hz, 2 threads |
| --- | --- | --- | --- | --- |
| ctprof (libunwind) | $(med ct99.ratio %.3f) | $(med ct999.ratio %.3f) | $(med ct99-2.ratio %.3f) | $(med ct999-2.ratio %.3f) |
| ctprof (libdw) | $(med dw99.ratio %.3f) | $(med dw999.ratio %.3f) | | |$(base_row "| ctprof $base_rev (--base) | $(med bs99.ratio %.3f) | $(med bs999.ratio %.3f) | $(med bs99-2.ratio %.3f) | $(med bs999-2.ratio %.3f) |")
| perf record -e cpu-clock --call-graph dwarf | $(med pd99.ratio %.3f) | $(med pd999.ratio %.3f) | $(med pd99-2.ratio %.3f) | $(med pd999-2.ratio %.3f) |
| perf record -e cpu-clock -g, frame-pointer build | $(med pf99.ratio %.3f) | $(med pf999.ratio %.3f) | | |

The frame-pointer build itself runs $(med fpbare.ratio %.3f) times as long as the
-fomit-frame-pointer one.

Time the target loses per sample, by its own clock: bench/gaps.c reads
CLOCK_MONOTONIC every ~0.1 us of arithmetic and adds up the gaps over
2 us; a bare run's gaps in the same repetition ($(med gaps.bare.lost_ms) ms in ~1 s with one
thread, $(med gaps.bare-2.lost_ms) ms in ~2.7 s with two: the machine's own interrupts) are
taken off, and the rest is divided by the run's ticks at the rate, and
by the threads. This is every microsecond a thread did not run because
of the profiler: ctprof's median stall beside it starts where ctprof
knows the thread stopped running (its request, or its own wake-up on
the thread's CPU), and leaves out ctprof's own CPU time on a CPU it
shares with a thread. The slower code after a stop is not in it.

| at 999 Hz: lost per sample (median stall) | 1 thread | 2 threads |
| --- | --- | --- |
| ctprof (libunwind) | $(us gaps.ct.per_tick) ($(us gaps.ct.stall_med)) | $(us gaps.ct999-2.per_tick) ($(us gaps.ct999-2.stall_med)) |$(base_row "| ctprof $base_rev (--base) | $(us gaps.bs.per_tick) ($(us gaps.bs.stall_med)) | $(us gaps.bs999-2.per_tick) ($(us gaps.bs999-2.stall_med)) |")
| perf record -e cpu-clock --call-graph dwarf | $(us gaps.pd.per_tick) | $(us gaps.pd999-2.per_tick) |

A signal's delivery, by the target's own clock: bench/sigping.c sends
SIGUSR1 to a thread busy on its CPU and waits until the handler has run,
every 200 us for 2 s; mean round trip. Under ptrace each signal stops
the thread until the profiler delivers it.

| bare | ctprof 99 Hz | ctprof 999 Hz |$(base_cell " ctprof $base_rev 999 Hz |") perf --call-graph dwarf 999 Hz |
| --- | --- | --- |$(base_cell " --- |") --- |
| $(us ping.bare) | $(us ping.ct99) | $(us ping.ct999) |$(base_cell " $(us ping.bs999) |") $(us ping.pd999) |

EOF
fi
if want 1 || want 2; then
cat <<EOF
**2. Stall per sample** (how long a sampled thread is stopped), workload at 999 Hz.

| | median | p99 |
| --- | --- | --- |
| ctprof (libunwind) | $(us ct999.stall_med) | $(us ct999.stall_p99) |
| ctprof (libdw) | $(us dw999.stall_med) | $(us dw999.stall_p99) |$(base_row "| ctprof $base_rev (--base) | $(us bs999.stall_med) | $(us bs999.stall_p99) |")$(base_row "| ctprof (libunwind), 2 threads | $(us ct999-2.stall_med) | $(us ct999-2.stall_p99) |")$(base_row "| ctprof $base_rev (--base), 2 threads | $(us bs999-2.stall_med) | $(us bs999-2.stall_p99) |")
| floor, cross-CPU (tracer and target on two CPUs) | $(us floor.cross.med) | $(us floor.cross.p99) |
| floor, cross-CPU, tracer polling waitpid | $(us floor.poll.med) | $(us floor.poll.p99) |
| floor, same-CPU (both on one CPU) | $(us floor.same.med) | $(us floor.same.p99) |

ctprof's median stall is $(med ct999.floor_cross %.2f) times the cross-CPU floor,
$(med ct999.floor_poll %.2f) times the polling one (libdw: $(med dw999.floor_cross %.2f), $(med dw999.floor_poll %.2f)).
Missed ticks at 999 Hz: $(of ct999.missed ct999.ticks) (libdw: $(of dw999.missed dw999.ticks)).
The floor is INTERRUPT + waitpid + GETREGS + CONT on a spinning child,
2000 times at 1 kHz (tracer $fsched); ctprof's stall is from its
INTERRUPT (for a thread whose CPU it took, from that moment) to its
CONT, and ctprof and the target are not pinned.

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
| libunwind, 2 threads | $(us ct999-2.cpu_us) | $(maxrate ct999-2) | $(us ct-2.marginal) | $(us ct999-2.unwind_us) | $(med ct999-2.frames) |$(base_row "| ctprof $base_rev (--base) | $(us bs999.cpu_us) | $(maxrate bs999) | $(us bs.marginal) | $(us bs999.unwind_us) | $(med bs999.frames) |")$(base_row "| ctprof $base_rev (--base), 2 threads | $(us bs999-2.cpu_us) | $(maxrate bs999-2) | $(us bs-2.marginal) | $(us bs999-2.unwind_us) | $(med bs999-2.frames) |")

At 99 Hz, ctprof's default rate (part 1's runs). A sample costs more
there than at 999 Hz: on this VM whatever a thread does first after
10 ms asleep is slow. A thread that sleeps on a timer used 56-69 us of
its CPU time for each wake-up 10 ms apart, 25-34 us 1 ms apart (its CPU
clock around the sleep); a read of a busy thread's \`stat\` took 21-31 us
after 10 ms asleep against 2.9 us back to back, of its \`schedstat\`
8.5-15 against 0.9 us, of its \`sched\` 17-27 against 5.0 us (10th to
90th percentile of 200 reads): the first call of a kind after a sleep
pays most of it, the next ones less (a \`stat\` read just after a
\`schedstat\` one, 15 us).

| | median stall | own CPU per sample | median stall, 2 threads | own CPU per sample, 2 threads |
| --- | --- | --- | --- | --- |
| ctprof (libunwind) | $(us ct99.stall_med) | $(us ct99.cpu_us) | $(us ct99-2.stall_med) | $(us ct99-2.cpu_us) |$(base_row "| ctprof $base_rev (--base) | $(us bs99.stall_med) | $(us bs99.cpu_us) | $(us bs99-2.stall_med) | $(us bs99-2.cpu_us) |")

What a sample costs at the least here (part 2's bench/floor.c, the tracer
SCHED_FIFO on one CPU, a busy child on the other, 2000 times at 1 kHz;
the tracer's own CPU time per iteration): only sleeping until each tick,
$(us floor.wake.cpu); with INTERRUPT + waitpid + GETREGS + CONT of the child,
$(us floor.cross.cpu), or $(us floor.poll.cpu) polling waitpid; both on one CPU,
$(us floor.same.cpu).

Where it goes (libunwind, 999 Hz; ctprof -v): the sampling thread's CPU
time per sample, in parts timed inside it, the rest (waking up, the
timer, the system calls between ticks) being what the parts leave; then
the helpers' CPU time, and time the sampling thread slept (not CPU).

| part | us per sample |
| --- | --- |
| sampling thread, in all | $(us ct999.part_sampler) |
| choosing (reading threads' state and CPU time) | $(us ct999.part_choosing) |
| waiting for the helpers to hold | $(us ct999.part_holds) |
| reading bursty threads again at the tick | $(us ct999.part_reading_at_the_tick) |
| PTRACE_INTERRUPT | $(us ct999.part_interrupts) |
| letting the CPUs go | $(us ct999.part_letting_go) |
| polling for the stops | $(us ct999.part_spinning_for_stops) |
| PTRACE_GETREGS | $(us ct999.part_registers) |
| stack copy | $(us ct999.part_stack_copy) |
| PTRACE_CONT | $(us ct999.part_resume) |
| unwinding | $(us ct999.part_unwinding) |
| interning the call chain | $(us ct999.part_interning) |
| sharing CPU time among samples | $(us ct999.part_settling) |
| stops ctprof did not ask for (the target's signals, clones, exits) | $(us ct999.part_stops_not_asked_for) |
| the rest | $(us ct999.part_the_rest) |
| helpers (their CPU time) | $(us ct999.part_helpers) |
| asleep until the tick (not CPU) | $(us ct999.part_asleep_until_the_tick) |
| asleep for the stops (not CPU) | $(us ct999.part_for_stops) |

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

| | stall median | stall p99 | samples per tick | samples per sampled tick | missed ticks | EINTR in the target | ctprof's CPU per sample | the helpers' | ctprof's CPU per tick | the busy threads' work, against bare |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| ctprof | $(us t64ct.stall_med) | $(us t64ct.stall_p99) | $(med t64ct.per_tick %.2f) | $(med t64ct.per_sampled_tick %.2f) | $(of t64ct.missed t64ct.ticks) | $(med t64ct.eintr %.0f) | $(us t64ct.cpu_us) | $(us t64ct.part_helpers) | $(us t64ct.cpu_tick) | $(med t64ct.work %.3f) |$(base_row "| ctprof $base_rev (--base) | $(us t64bs.stall_med) | $(us t64bs.stall_p99) | $(med t64bs.per_tick %.2f) | $(med t64bs.per_sampled_tick %.2f) | $(of t64bs.missed t64bs.ticks) | $(med t64bs.eintr %.0f) | $(us t64bs.cpu_us) | $(us t64bs.part_helpers) | $(us t64bs.cpu_tick) | $(med t64bs.work %.3f) |")

EOF
fi
if [ -n "$idlers" ]; then
cat <<EOF

**6. Wall-clock mode and CPU-time weights.** build/tests/idlers: 500 threads
idle in futex and one working a fifth of the time, 5 s at 99 Hz.

| mode | stops of blocked threads | per thread | stacks of blocked threads taken without a stop | samples counted without a stop | ctprof CPU per tick | missed ticks |
| --- | --- | --- | --- | --- | --- | --- |
| --wall | $(med idle.stops %.0f) | $(med idle.stops_per_thread %.2f) | $(med idle.peeks %.0f) | $(med idle.reused %.0f) | $(us idle.wall.cpu_per_tick) | $(of idle.wall.missed idle.wall.ticks) |
| on-CPU | 0 | 0 | 0 | 0 | $(us idle.oncpu.cpu_per_tick) | $(of idle.oncpu.missed idle.oncpu.ticks) |

build/tests/cpuburst: 200 threads of 3 ms of CPU each, one after the other,
and 3 ms of the main thread between them, at 99 Hz; the CPU time each
profile gives, as a ratio to the target's own getrusage():

| ctprof --weight=cputime | ctprof (samples / 99 Hz) | perf record -c 10101010 -e cpu-clock (sum of periods) |
| --- | --- | --- |
| $(med burst.weighted %.3f) | $(med burst.plain %.3f) | $(med burst.perf %.3f) |

EOF
fi
if want 7; then real_report; fi
taken=()
if want 1; then taken+=("part 1 (and the ctprof figures of 2 and 3) $(secs "${part_us[1]}")"); fi
if want 2; then taken+=("floor $(secs "${part_us[2]}")"); fi
if want 4; then taken+=("accuracy $(secs "${part_us[4]}")"); fi
if want 5; then taken+=("many threads $(secs "${part_us[5]}")"); fi
if want 6; then taken+=("wall-clock and CPU time $(secs "${part_us[6]}")"); fi
if want 7; then taken+=("real programs $(secs "${part_us[7]}")"); fi
printf 'Time taken: %s; %s s in all.\n' "$(IFS=';'; echo "${taken[*]}" | sed 's/;/, /g')" "$total_s"
