#!/bin/bash
# nothread: ctprof lets go of the target when its tracing thread exits,
# once a thread of its own is there to write the report (main() in
# src/main.c).  Where no thread can be started (RLIMIT_NPROC reached), it
# stops each of the target's threads to detach it instead: attached, the
# target runs on, untraced and not stopped; launched, ctprof exits with
# the command's status.  Run as nobody: root is exempt from the limit.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null ||
	skip_all "needs root, setpriv and prlimit: the limit binds only an unprivileged user"
AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# LeakSanitizer checks at exit from a task of its own, which the limit
# refuses too ("LeakSanitizer has encountered a fatal error"): the
# sanitized build checks memory here without it.
[ -n "${CTPROF_SANITIZED:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

plan 5
# Attached: the target and ctprof are nobody's two tasks, so ctprof's
# thread would be the third.
"${AS[@]}" "$TARGETS/crunch" 10 >"$TMP/crunch.out" 2>&1 &
pid=$!
bg_started "$pid"
sleep 0.2
run_cmd attach prlimit --nproc=2 "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} -v -d 0.5 -p "$pid"
check "attached, no thread to start: exit 0, a report" eval 'is_status 0 && has_report'
check "... -v says the threads were stopped to be detached" \
	grep -q "cannot start a thread to write the report .*stopped to be detached" "$ERR"
check "... the target runs on, untraced, not stopped" eval 'untraced "$pid" && alive_not_stopped "$pid"'
kill -USR2 "$pid"
wait_child "$pid"
check "... and finishes correctly" eval '[ "$RC" = 0 ] && grep -q "mismatches 0" "$TMP/crunch.out"'

# Launched: ctprof and crunch are the two tasks.
run_cmd launch prlimit --nproc=2 "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} -v -d 0.5 -- "$TARGETS/crunch" 1
check "launched, no thread to start: the command's exit status, a report, -v's line" \
	eval 'is_status 0 && has_report && grep -q "stopped to be detached" "$ERR"'
finish
