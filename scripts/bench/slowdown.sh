#!/bin/bash
# Parts 1 and 3 of ctprof's benchmark: the target's slowdown, and the
# profiler's own cost per sample; and, from the same runs, ctprof's side of
# part 2 (its stall per sample; the floor beside it is floor.sh's).  Prints
# sections 1, 2 and 3 of the Markdown report on standard output, progress
# on standard error; scripts/bench.sh runs it with the other parts.
#
#     scripts/bench/slowdown.sh [-n N] [-b|--base REV|BINARY] [-t|--trigger MODE] [-a|--append]
#
# The same as scripts/bench.sh --parts 1 (part 2's floor rows are n/a
# then: scripts/bench.sh --parts 1,2 has both, in the same repetitions).
# About 1.5 minutes a repetition on 2 CPUs.  The options are
# scripts/bench.sh's (scripts/bench.sh --help): with --base, that ctprof
# runs beside this one.
#
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
#  3. Profiler cost: ctprof -v's own CPU time per sample at 999 Hz (part 1's
#     runs), for each unwinder and for two threads; 1e6 / that = samples
#     per second one core could sustain; beside it, part 2's floors of CPU
#     time per sample.  And at 99 Hz, ctprof's default rate (part 1's runs
#     too), its median stall and own CPU per sample, one thread and two,
#     with --base that ctprof's beside.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/bench/floor.sh
. "$(dirname "${BASH_SOURCE[0]}")/floor.sh"

# KIND[HZ][-2]: ct = ctprof (libunwind), dw = ctprof (libdw), bs = the
# base ctprof (--base, its default unwinder), pd = perf --call-graph
# dwarf, pf = perf -g on the frame-pointer build; -2: the workload with
# two busy threads (one per CPU), compared to bare-2.
variants=()             # part1_setup

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
gap_variants=()         # part1_setup
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
ping_variants=()        # part1_setup
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

part1_setup() {
	cc_bench bench/gaps.c gaps -O2 -pthread
	cc_bench bench/sigping.c sigping -O2 -pthread
	cc_bench bench/workload.c workload -O2 -fomit-frame-pointer -pthread
	cc_bench bench/workload.c workload-fp -O2 -fno-omit-frame-pointer -pthread
	variants=(bare fpbare ct99 ct999 pd99 pd999 pf99 pf999 bare-2 ct99-2 ct999-2 pd99-2 pd999-2)
	if has libdw; then variants+=(dw99 dw999); fi
	if [ -n "$base_ct" ]; then variants+=(bs99 bs999 bs99-2 bs999-2); fi
	gap_variants=(bare ct pd bare-2 ct999-2 pd999-2)
	if [ -n "$base_ct" ]; then gap_variants+=(bs bs999-2); fi
	ping_variants=(bare ct99 ct999 pd999)
	if [ -n "$base_ct" ]; then ping_variants+=(bs999); fi
	say "variants of part 1: ${variants[*]}"
}

# Part 1, one repetition (and the ctprof statistics of parts 2 and 3),
# in an order that rotates.
part1_rep() {
	local i n v b threads hz
	n=${#variants[@]}
	for ((i = 0; i < n; i++)); do
		run_workload "${variants[(i + r) % n]}"
	done
	for v in "${variants[@]}"; do
		case $v in
		bare|bare-2) ;;
		*-2) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[bare-2]}")" ;;
		pf*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[fpbare]}")" ;;
		*) put "$v.ratio" "$(div "${elapsed[$v]}" "${elapsed[bare]}")" ;;
		esac
	done
	for ((i = 0; i < ${#gap_variants[@]}; i++)); do
		run_gaps "${gap_variants[(i + r) % ${#gap_variants[@]}]}"
	done
	for v in "${gap_variants[@]}"; do
		case $v in bare|bare-2) continue ;; esac
		# Per sample: per tick of the rate, and per thread.
		b=bare threads=1 hz=${v%-2}
		hz=${hz##*[!0-9]} hz=${hz:-999}
		if [ "$v" != "${v%-2}" ]; then b=bare-2 threads=2; fi
		put "gaps.$v.per_tick" "$(awk -v l="${gap_lost[$v]}" -v b="${gap_lost[$b]}" -v e="${gap_el[$v]}" \
			-v hz="$hz" -v n="$threads" 'BEGIN { printf "%.2f\n", (l - b) * 1000 / (e * hz * n) }')"
	done
	for ((i = 0; i < ${#ping_variants[@]}; i++)); do
		run_ping "${ping_variants[(i + r) % ${#ping_variants[@]}]}"
	done
}

# marginal: the marginal cost of a sample: the difference in own CPU time
# between the 999 Hz and the 99 Hz runs, per extra sample (start-up and
# fixed costs cancel).
marginal() {
	local b x
	for b in ct dw ct-2 bs bs-2; do
		x=${b#??}
		b=${b%-2}
		[ -s "$res/${b}999$x.cpu_ms" ] || continue
		paste "$res/${b}999$x.cpu_ms" "$res/${b}999$x.samples" "$res/${b}99$x.cpu_ms" "$res/${b}99$x.samples" |
			awk '{ if ($2 > $4) printf "%.6f\n", ($1 - $3) * 1000 / ($2 - $4) }' >"$res/$b$x.marginal"
	done
}
maxrate() {
	local us; us=$(med "$1.cpu_us" %.6f)
	if [ "$us" = n/a ]; then echo n/a; else awk -v u="$us" 'BEGIN { printf "%.0f samples/s\n", 1e6 / u }'; fi
}

# Section 1 of the report.
report_1() {
	want 1 || return 0
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
}

# Section 3 of the report.
report_3() {
	want 1 || return 0
	marginal
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
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/slowdown.sh "base trigger" 1 "$@"
fi
