#!/bin/bash
# Job control while profiled:
# - attached: 'kill -STOP' keeps the target stopped until 'kill -CONT'
#   (ctprof must not resume it); if ctprof ends while the target is
#   stopped, the target stays stopped, and continues correctly later;
# - launched from an interactive shell on a pty: Ctrl-Z stops the job
#   (ctprof and the command), 'fg' continues both, and the command
#   finishes its work with ctprof's report and status.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach
command -v script >/dev/null || skip_all "script (bsdutils) is not installed"

plan 11
# state PID: T, t (stopped) or R/S/D (running).
stopped() { case $(proc_state "$1") in T|t) return 0 ;; *) return 1 ;; esac; }
running() { ! stopped "$1" && [ -d "/proc/$1" ]; }

"$TARGETS/crunch" 8 >"$TMP/crunch.out" &
pid=$!
bg_started "$pid"
"$CTPROF" -p "$pid" -d 4 >"$TMP/attach.out" 2>"$TMP/attach.err" &
cpid=$!
bg_started "$cpid"
wait_for traced "$pid"
kill -STOP "$pid"
sleep 1
check "attached, SIGSTOP: the target stays stopped" stopped "$pid"
kill -CONT "$pid"
sleep 0.5
check "attached, SIGCONT: the target runs again" running "$pid"
kill -STOP "$pid"
wait_child "$cpid" 10
OUT=$TMP/attach.out ERR=$TMP/attach.err
check "ctprof ends while the target is stopped: exit 0, a report" eval 'is_status 0 && has_report'
sleep 0.3
check "the target is left stopped, as it was" stopped "$pid"
check "... and untraced" untraced "$pid"
kill -CONT "$pid"
kill -USR2 "$pid"
wait_child "$pid" 20
check "continued, the target finishes correctly" \
	eval 'is_status 0 && grep -q "mismatches 0" "$TMP/crunch.out"'

# Ctrl-Z (0x1a) and fg, typed into an interactive bash on a pty.
{
	sleep 0.5
	printf '%s -o %s -- %s 3 >%s; echo rc=$? >%s\n' "$CTPROF" "$TMP/jc.txt" "$TARGETS/crunch" \
		"$TMP/jc.out" "$TMP/jc.rc1"
	sleep 1.2
	printf '\032'
	sleep 1.5
	c=$(pgrep -f "$TMP/jc.txt" | head -1)
	for p in $c $(pgrep -P "$c"); do proc_state "$p"; done | sort | tr -d '\n' >"$TMP/jc.states"
	printf 'fg\n'
	sleep 4
	printf 'echo rc=$? >%s\n' "$TMP/jc.rc2"
	sleep 0.3
	printf 'exit\n'
} | timeout -k 5 30 script -qec "bash --norc --noprofile -i" /dev/null >"$TMP/jc.log" 2>&1
diag "states while stopped: $(cat "$TMP/jc.states" 2>/dev/null); shell: $(tr -d '\r' <"$TMP/jc.log" | grep -o 'Stopped.*' | head -1 | cut -c1-40)"
check "Ctrl-Z: the shell reports the job stopped" bash -c "tr -d '\\r' <'$TMP/jc.log' | grep -q Stopped"
check "Ctrl-Z: ctprof and the command are both stopped (T, t)" grep -qx 'Tt' "$TMP/jc.states"
check "fg: ctprof exits 0 when the command has finished" grep -qx 'rc=0' "$TMP/jc.rc2"
check "fg: the command finished its work, and the report was written" \
	eval 'grep -q "mismatches 0" "$TMP/jc.out" && has_report "$TMP/jc.txt"'
check "fg: the time stopped is not counted as missed ticks" \
	grep -Eq '^no ticks missed|^lost: [0-3] ticks? missed' "$TMP/jc.txt"
finish
