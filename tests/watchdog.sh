#!/bin/bash
# watchdog: a thread that ctprof interrupts but that cannot run to its stop
# for 300 ms at a time (tests/targets/starved.c: a SCHED_FIFO process hogs
# its CPU) hangs neither ctprof nor the target, and the samples that the
# 100 ms watchdog gives up on show in the report's last line as lost.
# Without the watchdog the stop is taken whenever it comes, and nothing is
# lost but a sample pending at a thread's exit or at detach.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

# lost_samples: N from the report's last line, "lost: ..., N samples lost,
# ..." (0 from "no ticks missed, no samples lost, ..."); empty when there is
# no such line.
lost_samples() {
	awk '/^no ticks missed, no samples lost/ { n = 0 }
	     /^lost: / { for (i = 3; i < NF; i++) if ($i ~ /^samples?$/ && $(i + 1) ~ /^lost/) n = $(i - 1) }
	     END { print n }' "$OUT"
}

# ticks: N from -v's "profiler: N ticks, ...".
ticks() {
	awk '$1 == "profiler:" && $3 == "ticks," { print $2; exit }' "$OUT"
}

# figures NAME: the run's numbers, as a TAP comment.
figures() {
	diag "$1: $(lost_samples) samples lost, $(ticks) ticks, $(total_samples) samples," \
		"starved_work $(self_pct starved_work)%, ctprof ran ${elapsed}s"
}

# Launch mode: the target's 2 s hold 4 starved spells of 300 ms, in each
# of which the watchdog gives up a sample at 100 ms and at 200 ms.
t0=$(date +%s.%N)
run_ctprof launch --trigger=timer -F 999 -v -- "$TARGETS/starved" 2
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
if [ "$RC" = 3 ] && grep -q '^starved: cannot starve' "$OUT"; then
	skip_all "$(sed -n 's/^starved: cannot starve: //p' "$OUT")"
fi
plan 13
figures launch
check "ctprof exits with the target's status 0" is_status 0
check "ctprof ends within 10 s of a 2 s target (no hang)" le "$elapsed" 10
check "the target finished its work" grep -q '^starved: done [1-9][0-9]*$' "$OUT"
# A thread's exit with a sample pending loses one too: ask for one per spell.
check "samples given up by the watchdog are counted as lost (>= 4)" ge "$(lost_samples)" 4
check "starved_work is sampled when it runs" ge "$(self_pct starved_work)" 50
# The premise: were the hog traced, each of its sample stops would let the
# starved thread run to its own, and nothing would be for the watchdog.
check "the hog, another process, is not profiled" test "$(self_pct hog_work)" = 0.0

# Attach mode: ctprof attaches and detaches while the thread is starved
# for part of the time, and leaves the target running on its own.
"$TARGETS/starved" 5 >"$TMP/target.out" &
pid=$!
bg_started "$pid"
two_threads() { [ "$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l)" -ge 2 ]; }
wait_for two_threads || diag "pid $pid never had its starved thread"
t0=$(date +%s.%N)
run_ctprof attach --trigger=timer -F 999 -v -d 1.5 -p "$pid"
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
figures attach
check "attached, ctprof exits 0" is_status 0
check "attached, ctprof ends within 10 s (no hang at detach)" le "$elapsed" 10
# Detaching from the thread while its stop is pending loses one sample
# without any watchdog: ask for more.
check "attached, samples given up by the watchdog are counted as lost (>= 2)" ge "$(lost_samples)" 2
check "the target is left running, no thread stopped" alive_not_stopped "$pid"
none_traced() {
	local t
	for t in /proc/"$pid"/task/*/status; do
		[ "$(awk '$1 == "TracerPid:" { print $2 }' "$t")" = 0 ] || return 1
	done
}
check "no thread of the target is left traced" wait_for none_traced
wait_child "$pid" 15
check "the target exits 0 by itself" is_status 0
check "the target finished its work" grep -q '^starved: done [1-9][0-9]*$' "$TMP/target.out"
finish
