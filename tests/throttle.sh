#!/bin/bash
# throttle: where ctprof's CPU time per CPU the target runs on would be
# more than a quarter of the time between ticks, it leaves ticks out, and
# says so; the shares hold.  At 5000 Hz, before, ctprof kept a busy thread
# of deep stacks from its CPU for 0.24-0.31 of the run (a CPU of its own
# for a 2.5x slowdown of four busy threads on 2 CPUs, where perf's kernel
# side holds its sampling to a quarter of each CPU).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace launch

# throttle_line FILE: the ticks left out, the ticks and the mean CPU time
# from a tick taken to the next, from FILE's -v throttle line.
throttle_line() {
	sed -n 's/^profiler: throttle: \([0-9]*\) of \([0-9]*\) ticks left out; .* mean \([0-9.]*\) us$/\1 \2 \3/p' "$1"
}

# A run the host held up is made again, twice at most: one CI run on a
# new VM missed 3917 of its 7499 ticks, PTRACE_GETREGS took 731 us a
# sample (5 us as a rule) and ctprof's CPU came to 0.37 of the run's;
# a guest charges what its host takes to the task it was running.  Each
# run's missed ticks say so (0-53 in runs here): a tenth of the ticks is
# a run disturbed, and the least disturbed of the runs is checked.
best=
for try in 1 2 3; do
	run_ctprof "deep-$try" --trigger=timer -F 5000 -d 1.5 -v -- "$TARGETS/deep" 3
	missed=$(awk '$1 == "profiler:" && $3 == "ticks," && $NF == "missed" { print $(NF - 2) }' "$OUT")
	ticks=$(awk '$1 == "profiler:" && $3 == "ticks," && $NF == "missed" { print $2 }' "$OUT")
	if [ -n "$missed" ] && { [ -z "$best" ] || [ "$missed" -lt "$best_missed" ]; }; then
		best=$try best_missed=$missed best_out=$OUT best_err=$ERR best_rc=$RC
	fi
	[ -n "$missed" ] && [ -n "$ticks" ] && [ $((missed * 10)) -lt "$ticks" ] && break
	diag "deep at 5000 Hz, run $try: ${missed:-?} of ${ticks:-?} ticks missed, disturbed"
done
if [ -n "$best" ]; then
	OUT=$best_out ERR=$best_err RC=$best_rc
	[ "$best" = "$try" ] || diag "deep at 5000 Hz: run $best, the least disturbed ($best_missed ticks missed), is the one checked"
fi
read -r left ticks mean < <(throttle_line "$OUT")
dur=$(awk '/^on-CPU profile over/ { print $4; exit }' "$OUT")
own=$(sed -n 's/^profiler: own CPU time: \([0-9.]*\) ms,.*/\1/p' "$OUT")
diag "deep at 5000 Hz: ${left:-?} of ${ticks:-?} ticks left out, ${mean:-?} us of ctprof's CPU from a tick taken to the next; ${own:-?} ms of CPU in ${dur:-?} s"
check "deep at 5000 Hz: ran, -v says how many ticks it left out" \
	eval 'is_status 0 && has_report && [ -n "$mean" ] && [ -n "$own" ] && [ -n "$dur" ]'
# Ticks left out at the end of the run, whose time had not come, are not
# the run's: tick n comes n + 1 periods and a random part of half of one
# after the start, so 1.5 s has at most 7499 (83b4745 counted up to 7
# more: 7500 in 1 run of 3).
check "deep at 5000 Hz: at most the 7499 ticks of 1.5 s" \
	eval '[ -n "$ticks" ] && [ "$ticks" -le 7499 ]'
# One thread on one CPU: a quarter of the period, with room for the
# ticks before the mean caught up and for the rounding of the ticks left.
check "deep at 5000 Hz: ctprof's CPU time is at most 0.3 of the run's" \
	eval '[ -n "$own" ] && awk -v c="$own" -v d="$dur" "BEGIN { exit !(c / 1000 / d <= 0.3) }"'
# A tick that costs more than a quarter of the period is followed by
# ticks left out: taken back to back, ticks cost under that.
check "deep at 5000 Hz: ticks left out, or a tick costs under a quarter of the 200 us period" \
	eval '[ -n "$mean" ] && { [ "$left" -gt 0 ] || le "$mean" 60; }'
if [ "${left:-0}" -gt 0 ]; then
	check "deep at 5000 Hz: the report and stderr say how many ticks were left out" \
		eval 'grep -q "^note: ctprof left out $left of $ticks ticks" "$OUT" && grep -q "warning: $left of $ticks ticks left out" "$ERR"'
else
	skip "deep at 5000 Hz: the report and stderr say how many ticks were left out" "a sample costs under 50 us here: no tick was left out"
fi

# The default rate: a sample's cost is far under a quarter of 10 ms.
run_ctprof deep99 --trigger=timer -d 1 -v -- "$TARGETS/deep" 2
read -r left ticks mean < <(throttle_line "$OUT")
check "deep at 99 Hz: no tick left out, no note" \
	eval 'is_status 0 && [ "$left" = 0 ] && [ "$ticks" -gt 0 ] && ! grep -q "^note: ctprof left out" "$OUT" && ! grep -q "ticks left out" "$ERR"'

# Three threads with work 1:2:3 on 2 CPUs: each function's share is its
# thread's share of the CPU time by the threads' own clocks, +-20%, with
# ticks left out.
run_ctprof ratio3 --trigger=timer -F 5000 -v -- "$TARGETS/ratio3"
read -r cpu1 cpu2 cpu3 < <(awk '$1 == "ratio3:" { print $3, $6, $9; exit }' "$OUT")
read -r left ticks mean < <(throttle_line "$OUT")
diag "ratio3 at 5000 Hz: ${left:-?} of ${ticks:-?} ticks left out; CPU time by the threads' own clocks: $cpu1, $cpu2, $cpu3 s"
check "ratio3 at 5000 Hz: exit 0, a report, each thread's CPU time" \
	eval 'is_status 0 && has_report && [ -n "$cpu3" ] && [ -n "$left" ]'
for w in 1 2 3; do
	cpu=cpu$w
	check "ratio3 at 5000 Hz: work$w's self% is its thread's share of the CPU time +-20%" \
		in_share "$(self_pct "work$w")" "${!cpu}"
done
finish
