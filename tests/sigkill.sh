#!/bin/bash
# sigkill: ctprof killed with SIGKILL at random moments, 60 times, against
# one running target: while it attaches, while it samples at 999 Hz, while
# it detaches (-d about when the kill comes).  The kernel detaches a dead
# tracer's tracees; the target must never be left stopped or traced, and
# it finishes its work correctly.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 4
"$TARGETS/crunch" 30 >"$TMP/crunch.out" &
pid=$!
bg_started "$pid"
sleep 0.2
left_stopped=0 left_traced=0 runs=0
for i in $(seq 60); do
	case $((i % 3)) in
	0) delay=0.00$((RANDOM % 9 + 1)) ;;          # attaching
	1) delay=0.0$((RANDOM % 60 + 10)) ;;         # sampling
	2) delay=0.0$((RANDOM % 20 + 40)) ;;         # around the end of -d 0.05
	esac
	"$CTPROF" -F 999 -d 0.05 -p "$pid" >/dev/null 2>&1 &
	c=$!
	sleep "$delay"
	kill -KILL "$c" 2>/dev/null
	wait "$c" 2>/dev/null
	runs=$((runs + 1))
	# The kernel lets go of the tracees as the tracer dies: give the
	# threads a moment to get out of their stop.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		stopped=
		for t in /proc/"$pid"/task/*; do
			case $(proc_state "$pid/task/${t##*/}") in T|t) stopped=1 ;; esac
		done
		[ -z "$stopped" ] && [ "$(tracer_of "$pid")" = 0 ] && break
		sleep 0.02
	done
	[ -n "$stopped" ] && left_stopped=$((left_stopped + 1))
	[ "$(tracer_of "$pid")" != 0 ] && left_traced=$((left_traced + 1))
done
diag "$runs runs: target left stopped $left_stopped times, traced $left_traced times"
check "60 SIGKILLs of ctprof: the target was never left stopped" test "$left_stopped" = 0
check "... and never left traced" test "$left_traced" = 0
kill -USR2 "$pid"
wait_child "$pid" 20
check "the target finishes: exit 0" is_status 0
check "the target's work is correct (every pass the same checksum)" grep -q 'mismatches 0' "$TMP/crunch.out"
finish
