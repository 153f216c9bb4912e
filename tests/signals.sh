#!/bin/bash
# signals: a target gets 20000 queued real-time signals (some while it has
# them blocked) and runs setresuid() repeatedly, which glibc carries out in
# every thread through its internal SIGSETXID, all while ctprof samples it
# at 999 Hz.  Every signal must arrive exactly once (real-time signals
# queue, so they can be counted), and setresuid must never hang.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 6
run_cmd bare "$TARGETS/sigstorm" 2000 0.3
check "without ctprof the target passes its own check" is_status 0
run_ctprof storm -F 999 -o "$TMP/storm.txt" -- "$TARGETS/sigstorm" 20000 1.5
diag "$(cat "$OUT")"
check "under ctprof: every signal arrived exactly once (target exit 0)" is_status 0
check "under ctprof: 20000 received, none missing or twice" \
	grep -q '^sigstorm: sent 20000 received 20000 duplicates 0 missing 0 setxid [1-9]' "$OUT"
check "a report was written" has_report "$TMP/storm.txt"
# Each signal stops its thread under ptrace: a target that takes this
# many (over 10000 a second) is told what they cost, one that takes
# none is not.
check "the report says how many signals the target took" \
	grep -Eq '^note: the target took (2[0-9]{4}|[3-9][0-9]{4}) signals \([0-9]+ a second\): under ptrace each one stops its thread' "$TMP/storm.txt"
run_ctprof quiet -F 999 -d 1 -o "$TMP/quiet.txt" -- "$TARGETS/crunch" 2
check "no such note where the target took no signal" \
	eval 'is_status 0 && has_report "$TMP/quiet.txt" && ! grep -q "^note: the target took" "$TMP/quiet.txt"'
finish
