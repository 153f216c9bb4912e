#!/bin/bash
# What each way of timing ctprof's samples (--trigger=perf, perf-stop and
# timer) costs the target and how right it is, as root and as an
# unprivileged user, beside perf record --call-graph dwarf, in one run.
# Prints a Markdown report on standard output, progress on standard error.
#
#     scripts/bench-trigger.sh [-n N] [-a|--append]
#
# Variants, each at -F 999 (and at 99 for the slowdown):
#   bare              no profiler
#   perf, root        ctprof --trigger=perf (kernel-timed task-clock events,
#                     each tick into the thread's ring, no stop)
#   perf, user        the same as nobody (setpriv --reuid=65534 ...)
#   perf-stop, root   ctprof --trigger=perf-stop: each tick a stop
#   perf-stop, user   the same as nobody
#   timer, root       ctprof --trigger=timer: real-time helper threads
#   timer, user       the same as nobody: plain stops, no real-time priority
#   perf record       perf record -e cpu-clock --call-graph dwarf, as root
# Measured:
#  1. slowdown: bench/workload.c's fixed work, its own wall clock, against
#     the two bare runs of the same repetition; 1 thread and 2 (one per
#     CPU);
#  2. loss per sample: bench/gaps.c's own count of the time it did not run
#     (gaps over 2 us between clock reads), less the two bare runs' of the
#     same repetition, over the samples taken (ctprof -v's, or those perf
#     wrote); 1 thread and 2; beside it ctprof -v's median stop;
#  3. ctprof's own CPU time per sample (-v), 1-thread workload at 999 Hz;
#  4. accuracy: build/tests/selftime times its own share in enter_kernel()
#     (a getppid, or a page fault); the report's share minus that, in
#     points.  ctprof: enter_kernel's cum%, plus the [kernel] row where
#     the perf trigger keeps kernel time apart (less selftime's own madvise
#     share in fault mode); perf: enter_kernel's children%.
#
# Each figure is the median of N repetitions (default 3).  Within one,
# every variant runs once per measurement, in an order that rotates from
# one repetition to the next, and ratios and differences are taken inside
# a repetition.  Where perf_event_open is refused (or the user cannot run
# ctprof), that variant is n/a with the reason.  Needs root, gcc, perf,
# setpriv and a built tree (build/src/ctprof, build/tests/selftime); the
# bench programs are compiled with gcc into a temporary directory, which
# with the binaries copied there is readable by nobody.  About 2.8 minutes
# a repetition on 2 CPUs (-n 3: 8.5 minutes).
#
# --append adds the report to docs/BENCHMARKS.md as its newest entry, as
# scripts/bench.sh --append does (see scripts/bench.sh --help).  The
# options, die, say, med, the temporary directory and the commit are
# scripts/bench/lib.sh's, scripts/bench.sh's library.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"

reps=3
bench_say=bench-trigger
bench_args scripts/bench-trigger.sh "" "$@"
[ "$(id -u)" = 0 ] || die "run as root: it runs ctprof as root and as nobody"
for c in gcc perf setpriv timeout; do
	command -v $c >/dev/null || die "$c is not installed"
done
[ -x build/src/ctprof ] && [ -x build/tests/selftime ] ||
	die "build/src/ctprof or build/tests/selftime is missing: meson setup build && ninja -C build"

rev=$(src_rev)
bench_tmp /tmp/ctprof-bench-trigger.XXXXXX
# Readable by nobody: the binaries, and $run, where every run starts and
# ctprof writes its report, owned by nobody.
chmod 755 "$tmp"
run=$tmp/run res=$tmp/res
mkdir "$run" "$res"
chown 65534:65534 "$run"
say "compiling bench programs into $tmp"
cp build/src/ctprof build/tests/selftime "$tmp/"
gcc -std=gnu11 -g -O2 -pthread bench/gaps.c -o "$tmp/gaps"
gcc -std=gnu11 -g -O2 -fomit-frame-pointer -pthread bench/workload.c -o "$tmp/workload"
chmod 755 "$tmp"/{ctprof,selftime,gaps,workload}

# pr: perf trigger, root; pu: as nobody; sr, su: perf-stop; tr, tu: the
# timer; pd: perf record.
profilers=(pr pu sr su tr tu pd)
declare -A label=([pr]="ctprof perf, root" [pu]="ctprof perf, user" [sr]="ctprof perf-stop, root"
	[su]="ctprof perf-stop, user" [tr]="ctprof timer, root" [tu]="ctprof timer, user"
	[pd]="perf record --call-graph dwarf")
declare -A trig=([pr]=perf [pu]=perf [sr]=perf-stop [su]=perf-stop [tr]=timer [tu]=timer)
declare -A why=()       # VARIANT -> why it is n/a
declare -A ran=()       # VARIANT -> its trigger: lines (first run)
failures=()
# The slowdown's variants, VARIANT:HZ, and the loss's: two bare runs,
# half the others apart (their mean is the bare figure: bare runs of the
# workload on this VM took 2.37-2.98 s one after the other).
slow_variants=(bare:a pr:999 pr:99 pu:999 pu:99 sr:999 sr:99 bare:b su:999 su:99 tr:999 tr:99 tu:999 tu:99
	pd:999 pd:99)
gap_variants=(bare:a pr pu sr bare:b su tr tu pd)
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if ! (cd "$run" && "${nobody[@]}" sh -c 'test -x "$1" && test -x "$2" && test -w .' sh "$tmp/ctprof" "$tmp/selftime"); then
	why[pu]="nobody cannot run $tmp/ctprof or write in $run" why[tu]=${why[pu]} why[su]=${why[pu]}
fi

# ------------------------------------------------------------- helpers --
# put KEY VALUE: one more measurement of KEY, unless VALUE is empty (a
# run that printed none; lib.sh's put keeps that as a line of its own).
# med KEY [FORMAT] (lib.sh's): the median of KEY's measurements, or n/a.
put() { [ -z "$2" ] || echo "$2" >>"$res/$1"; }
calc() { awk "BEGIN { $1 }" </dev/null; }

# rotate LIST...: LIST rotated by the repetition number r.
rotate() { local a=("$@") i n=$#; for ((i = 0; i < n; i++)); do echo "${a[(i + r) % n]}"; done; }

# go VARIANT HZ PROGRAM ARG...: run PROGRAM under VARIANT (bare or a
# profiler) at HZ, from $run: its output in $tmp/out and $tmp/err,
# ctprof's report in $run/ct.txt, perf's data in $tmp/perf.data.  Fails
# when VARIANT is n/a or the run failed; a refused perf_event_open, or a
# ctprof that ran another trigger than asked, makes VARIANT n/a from then.
go() {
	local v=$1 hz=$2 rc=0 line
	local -a cmd
	shift 2
	[ -z "${why[$v]:-}" ] || return 1
	rm -f "$run/ct.txt" "$tmp/perf.data"
	case $v in
	bare) cmd=("$@") ;;
	pr|sr|tr) cmd=("$tmp/ctprof" --trigger="${trig[$v]}" -F "$hz" -v -o "$run/ct.txt" -- "$@") ;;
	pu|su|tu) cmd=("${nobody[@]}" "$tmp/ctprof" --trigger="${trig[$v]}" -F "$hz" -v -o "$run/ct.txt" -- "$@") ;;
	pd) cmd=(perf record -q -e cpu-clock --call-graph dwarf -F "$hz" -o "$tmp/perf.data" -- "$@") ;;
	esac
	(cd "$run" && exec timeout --foreground -k 10 120 "${cmd[@]}") >"$tmp/out" 2>"$tmp/err" || rc=$?
	case $rc in 130) exit 130 ;; 143) exit 143 ;; esac
	if [ "$rc" != 0 ]; then
		line=$(grep -m1 perf_event_open "$tmp/err" || true)
		if [ -n "$line" ] && [ -n "${trig[$v]:-}" ] && { [ "$rc" = 1 ] || [ "$rc" = 125 ]; }; then
			why[$v]=$line
			say "${label[$v]}: n/a from now on: $line"
		else
			failures+=("${label[$v]:-bare}, ${*##*/} at $hz Hz: status $rc: $(tail -1 "$tmp/err")")
			say "failed: ${failures[-1]}"
		fi
		return 1
	fi
	[ -n "${trig[$v]:-}" ] || return 0
	if ! grep -q "^trigger: ${trig[$v]%-stop}" "$run/ct.txt"; then
		why[$v]="asked for --trigger=${trig[$v]}, ran: $(grep -m1 '^trigger:' "$run/ct.txt" || echo 'no trigger line')"
		say "${label[$v]}: n/a from now on: ${why[$v]}"
		return 1
	fi
	[ -n "${ran[$v]:-}" ] || ran[$v]=$(grep '^trigger:' "$run/ct.txt" |
		sed -e 's/^trigger: //' -e 's/ on [0-9]* threads.*//' -e '/^kernel-mode/s/:.*//' | paste -sd'|' | sed 's/|/; /g')
}

# out KEY: the value after KEY on the program's standard output.
out() { awk -v k="$1" '$1 == k { print $2; exit }' "$tmp/out"; }
# ctv WHAT: from the last ctprof report's -v lines: samples, cpu (own CPU
# per sample, us) or stall (median stop per sample, us).
ctv() {
	awk -v w="$1" '
	w == "samples" && /^profiler: [0-9]+ ticks,/ { print $4; exit }
	w == "cpu" && /^profiler: own CPU time:/ { for (i = 1; i <= NF; i++) if ($i == "per" && $(i - 1) == "us") print $(i - 2); exit }
	w == "stall" && /^profiler: target stopped per sample:/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1); exit }' "$run/ct.txt"
}
# samples VARIANT: how many samples the last run took.
samples() {
	if [ "$1" = pd ]; then perf script -i "$tmp/perf.data" -F period 2>/dev/null | wc -l; else ctv samples; fi
}
# share VARIANT MODE: the last run's share of selftime's enter_kernel (%).
share() {
	local mad
	if [ "$1" = pd ]; then
		perf report -i "$tmp/perf.data" --children -g none --stdio -q --percent-limit 0 2>/dev/null |
			awk '$NF == "enter_kernel" { sub(/%$/, "", $1); if ($1 + 0 > s) s = $1 + 0 } END { print s + 0 }'
		return
	fi
	mad=$(sed -n 's/.* madvise [0-9]* times (\([0-9.]*\)% of the loop).*/\1/p' "$tmp/err" | head -1)
	# The [kernel] row counts only where it is apart (the user's perf
	# trigger); as root the kernel's ticks are under enter_kernel.
	awk -v m="${mad:-0}" -v mode="$2" '
		/in the kernel as \[kernel\] under the function that entered it/ { under = 1 }
		$1 ~ /^-?[0-9]+ms$/ && $2 ~ /%$/ && $5 == "enter_kernel" { sub(/%$/, "", $4); if ($4 + 0 > e) e = $4 + 0 }
		$1 ~ /^-?[0-9]+ms$/ && $2 ~ /%$/ && $5 == "[kernel]" { sub(/%$/, "", $2); k += $2 }
		END { if (under || k == 0) k = m = 0; if (mode != "fault") m = 0; printf "%.2f\n", e + k - m }' "$run/ct.txt"
}

# bare_mean ARRAY: the mean of ARRAY's bare:a and bare:b (those that ran).
# bare_spread ARRAY: how far apart they are, in percent of their mean.
bare_mean() {
	local -n bm=$1
	calc "n = split(\"${bm[bare:a]:-} ${bm[bare:b]:-}\", x, \" \"); for (i = 1; i <= n; i++) s += x[i]; if (n) printf \"%.6f\", s / n"
}
bare_spread() {
	local -n bs=$1
	[ -n "${bs[bare:a]:-}" ] && [ -n "${bs[bare:b]:-}" ] || return 0
	calc "a = ${bs[bare:a]}; b = ${bs[bare:b]}; d = a > b ? a - b : b - a; printf \"%.3f\", 200 * d / (a + b)"
}

# ----------------------------------------------------------------- run --
start=$SECONDS
checksum=
for ((r = 0; r < reps; r++)); do
	say "repetition $((r + 1)) of $reps"
	# 1 and 3: the workload, bare and under each profiler at 99 and 999 Hz.
	for t in 1 2; do
		say "  workload, $t thread(s)"
		args=(); [ $t = 1 ] || args=(2000000 2)
		declare -A el=()
		for vh in $(rotate "${slow_variants[@]}"); do
			v=${vh%:*} hz=${vh#*:}
			[ "$v" != bare ] || hz=-
			go "$v" "$hz" "$tmp/workload" "${args[@]}" || continue
			[ -n "$checksum" ] || checksum=$(out checksum)
			[ "$(out checksum)" = "$checksum" ] || die "$vh: the workload's checksum changed: the profiler changed what it did"
			el[$vh]=$(out elapsed)
			if [ $t = 1 ] && [ "$hz" = 999 ] && [ "$v" != pd ]; then
				put "$v.cpu" "$(ctv cpu)"
			fi
		done
		b=$(bare_mean el)
		put "bare.el-$t" "$b"
		put "bare.spread-$t" "$(bare_spread el)"
		for vh in "${!el[@]}"; do
			[ "${vh%:*}" != bare ] && [ -n "$b" ] || continue
			put "${vh%:*}.slow${vh#*:}-$t" "$(calc "printf \"%.3f\", 100 * (${el[$vh]} / $b - 1)")"
		done
		unset el
	done
	# 2: gaps at 999 Hz.
	for t in 1 2; do
		say "  gaps, $t thread(s)"
		args=(); [ $t = 1 ] || args=(30000000 2)
		declare -A lost=() n=()
		for v in $(rotate "${gap_variants[@]}"); do
			go "${v%:*}" 999 "$tmp/gaps" "${args[@]}" || continue
			lost[$v]=$(awk '$1 == "gaps" { print $3 }' "$tmp/out")
			[ "${v%:*}" != bare ] || continue
			n[$v]=$(samples "$v")
			[ "$v" = pd ] || put "$v.stall-$t" "$(ctv stall)"
		done
		b=$(bare_mean lost)
		put "bare.lost-$t" "$b"
		for v in "${!n[@]}"; do
			[ -n "$b" ] && [ "${n[$v]:-0}" -gt 0 ] || continue
			put "$v.loss-$t" "$(calc "printf \"%.3f\", (${lost[$v]} - $b) * 1000 / ${n[$v]}")"
		done
		unset lost n
	done
	# 4: selftime, each profiler against the program's own share.
	for m in syscall fault; do
		say "  selftime $m"
		for v in $(rotate "${profilers[@]}"); do
			go "$v" 999 "$tmp/selftime" $m 2 || continue
			own=$(awk '$1 == "selftime:" && $2 == "enter_kernel" { sub(/%$/, "", $3); print $3; exit }' "$tmp/out")
			[ -n "$own" ] || { failures+=("${label[$v]}, selftime $m: no share of its own printed"); continue; }
			got=$(share "$v" $m)
			put "$v.$m.own" "$own"
			put "$v.$m.got" "$got"
			put "$v.$m.d" "$(calc "printf \"%.3f\", $got - $own")"
		done
	done
done
taken=$((SECONDS - start))

# -------------------------------------------------------------- report --
# cell VARIANT KEY FORMAT UNIT: the median with its unit, n/a (the
# variant refused; the reason is given below the table) or - (no figure).
cell() {
	local x
	if [ -n "${why[$1]:-}" ]; then echo "n/a"; return; fi
	x=$(med "$1.$2" "$3")
	if [ "$x" = n/a ]; then echo "-"; else echo "$x$4"; fi
}
row() {
	local title=$1 v
	shift
	printf '| %s |' "$title"
	for v in "${profilers[@]}"; do printf ' %s |' "$(cell "$v" "$@")"; done
	echo
}
acc_row() {
	local m=$1 v
	printf '| selftime %s: report - own, points (report; own) |' "$m"
	for v in "${profilers[@]}"; do
		if [ -n "${why[$v]:-}" ] || [ ! -s "$res/$v.$m.d" ]; then printf ' %s |' "$(cell "$v" "$m.d" %+.1f '')"; continue; fi
		printf ' %s (%s%%; %s%%) |' "$(med "$v.$m.d" %+.1f)" "$(med "$v.$m.got")" "$(med "$v.$m.own")"
	done
	echo
}

# trigger_report: the report.
trigger_report() {
cat <<EOF
### Triggers: cost and accuracy

$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid),
\`$cmdline\` (ctprof $rev, $(perf --version)); every figure is the median of
$reps repetitions, each variant compared with the bare runs (or selftime's own
clock) of the same repetition. The user is nobody (uid 65534, through setpriv).

|$(for v in "${profilers[@]}"; do printf ' | %s' "${label[$v]}"; done) |
| --- |$(for v in "${profilers[@]}"; do printf ' --- |'; done)
$(row "slowdown, 99 Hz, 1 thread" slow99-1 %.1f %)
$(row "slowdown, 99 Hz, 2 threads" slow99-2 %.1f %)
$(row "slowdown, 999 Hz, 1 thread" slow999-1 %.1f %)
$(row "slowdown, 999 Hz, 2 threads" slow999-2 %.1f %)
$(row "target's loss per sample, 1 thread" loss-1 %.1f " us")
$(row "target's loss per sample, 2 threads" loss-2 %.1f " us")
$(row "ctprof's median stop (-v), 1 thread" stall-1 %.1f " us")
$(row "ctprof's median stop (-v), 2 threads" stall-2 %.1f " us")
$(row "ctprof's own CPU per sample" cpu %.1f " us")
$(acc_row syscall)
$(acc_row fault)

Slowdown: bench/workload.c's fixed work by its own clock ($(med bare.el-1 %.2f) s bare;
two threads, one per CPU: $(med bare.el-2 %.2f) s), against the mean of two bare runs in
the same repetition; those two were $(med bare.spread-1)% apart (two threads: $(med bare.spread-2)%),
the machine's own noise, which a slowdown smaller than that does not rise above. Loss per sample: bench/gaps.c's time off the CPU (gaps over
2 us between its clock reads) less the bare runs' ($(med bare.lost-1 %.0f) ms with one
thread, $(med bare.lost-2 %.0f) ms with two: the machine's own), over the samples
taken, at 999 Hz; ctprof's median stop (-v) is of those runs. The CPU per sample
is on the 1-thread workload at 999 Hz. Accuracy: build/tests/selftime 2 s
at 999 Hz; ctprof's share is enter_kernel's cum%, plus the [kernel] row
where the perf trigger keeps kernel time apart (less selftime's madvise
share in fault mode); perf's is enter_kernel's children%.

EOF
echo "What ran:"
echo
for v in pr pu sr su tr tu; do
	if [ -n "${why[$v]:-}" ]; then
		echo "- ${label[$v]}: n/a, ${why[$v]}"
	else
		echo "- ${label[$v]}: ${ran[$v]:-did not run}"
	fi
done
for f in ${failures[@]+"${failures[@]}"}; do printf -- '- failed run (left out): %s\n' "$f"; done
echo
echo "Time taken: $taken s."
}

trigger_report >"$tmp/report.md"
cat "$tmp/report.md"
if [ -n "$append" ]; then bench_append "$tmp/report.md"; fi
