#!/bin/bash
# attach-signals: ctprof attaches to a busy, checksumming target four times
# (ended by -d, SIGINT, SIGTERM, SIGHUP). Each time ctprof must exit 0 with
# a report and leave the target running, never stopped; at the end the
# target must still compute exactly what it computes without ctprof.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 20
want=$("$TARGETS/crunch" --once | awk '{ print $3 }')
diag "checksum without ctprof: $want"

"$TARGETS/crunch" 60 >"$TMP/target.txt" 2>&1 &
tpid=$!
bg_started "$tpid"
sleep 0.3

run_ctprof attach-d -p "$tpid" -d 1
check "-d 1: ctprof exits 0" is_status 0
check "-d 1: a report is printed" has_report
check "-d 1: the busy target was sampled (>= 40 samples at 99 Hz)" ge "$(total_samples)" 40
check "-d 1: the target is left running, not stopped" alive_not_stopped "$tpid"
check "-d 1: the target is detached" untraced "$tpid"

for sig in INT TERM HUP; do
	OUT=$TMP/attach-$sig.out ERR=$TMP/attach-$sig.err
	"$CTPROF" -p "$tpid" >"$OUT" 2>"$ERR" &
	cpid=$!
	bg_started "$cpid"
	# Signal ctprof once it has attached and taken some samples.
	wait_for traced "$tpid" || diag "the target never became traced"
	sleep 0.5
	kill -"$sig" "$cpid"
	wait_child "$cpid"
	check "SIG$sig: ctprof exits 0" is_status 0
	check "SIG$sig: a report is printed" has_report
	check "SIG$sig: the target is left running, not stopped" alive_not_stopped "$tpid"
	check "SIG$sig: the target is detached" untraced "$tpid"
done

kill -USR2 "$tpid"
wait_child "$tpid"
trc=$RC
got=$(awk '{ print $3 }' "$TMP/target.txt")
passes=$(awk '{ print $5 }' "$TMP/target.txt")
diag "target: $(cat "$TMP/target.txt")"
check "the target exits 0 (every pass gave the same result)" [ "$trc" = 0 ]
same_checksum() {
	[ -n "$want" ] && [ "$got" = "$want" ]
}
check "the target's checksum is the one computed without ctprof" same_checksum
check "the target computed at least 2 passes" ge "${passes:-0}" 2
any_failed && diag_file "$TMP/target.txt"
finish
