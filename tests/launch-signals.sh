#!/bin/bash
# Signals around a profiled run:
# - launch mode, Ctrl-C typed at a terminal (a pty, through script(1)):
#   the command gets SIGINT as it would without ctprof, dies of it, and
#   ctprof reports and exits 130 (128 + SIGINT);
# - launch mode, SIGTERM sent to ctprof: passed on to the command, which
#   dies of it: exit 143, with a report;
# - attach mode, the target exits by itself: ctprof reports and exits 0,
#   and the target's parent gets its real exit status.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach
command -v script >/dev/null || skip_all "script (bsdutils) is not installed"

plan 9

# script(1) copies its stdin to the pty, where ^C (0x03) becomes SIGINT for
# the terminal's foreground process group: ctprof and the command.
OUT=$TMP/ctrlc.out ERR=$TMP/ctrlc.err
(sleep 1; printf '\003'; sleep 3) |
	timeout -k 5 20 script -qec "'$CTPROF' -- '$TARGETS/crunch' 15" /dev/null >"$OUT" 2>"$ERR"
RC=$?
# The terminal echoes ^C before the report: strip it and the CRs.
tr -d '\r' <"$OUT" | sed 's/^^C//' >"$OUT.txt" && mv "$OUT.txt" "$OUT"
check "Ctrl-C: ctprof exits 130, as the command died of SIGINT" is_status 130
check "Ctrl-C: a report is printed" grep -q '^total: [0-9]* samples' "$OUT"
check "Ctrl-C: the command did not finish its work (it got SIGINT)" bash -c "! grep -q '^crunch: checksum' '$OUT'"

"$CTPROF" -o "$TMP/term.out" -- "$TARGETS/crunch" 15 >/dev/null 2>"$TMP/term.err" &
ctprof=$!
bg_started "$ctprof"
sleep 1
kill -TERM "$ctprof"
wait_child "$ctprof" 10
OUT=$TMP/term.out ERR=$TMP/term.err
check "SIGTERM to ctprof: passed on; ctprof exits 143 (128 + SIGTERM)" is_status 143
check "SIGTERM to ctprof: a report is written" has_report

"$TARGETS/crunch" 1.5 >"$TMP/target.out" &
pid=$!
bg_started "$pid"
sleep 0.2
run_ctprof attach-exit -p "$pid"
check "attached target exits: ctprof exits 0" is_status 0
check "attached target exits: a report with samples" ge "$(total_samples)" 50
wait_child "$pid" 10
check "attached target exits: its parent gets status 0" is_status 0
check "attached target exits: it finished its work" grep -q '^crunch: checksum' "$TMP/target.out"
finish
