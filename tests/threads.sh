#!/bin/bash
# threads (attach mode): two busy threads exist when ctprof attaches, a
# third is created after it attached (on SIGUSR1). All three must be
# sampled, and the target must be left running, not stopped, afterwards.
#
# renamer: a thread that names itself again half-way through its run,
# after its first samples, must be reported under its last name, launched
# (read again at its exit) and attached (at the end of the run).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 12
"$TARGETS/threads" 20 >"$TMP/target.txt" 2>&1 &
tpid=$!
bg_started "$tpid"
sleep 0.3

# shellcheck disable=SC2086 # CTPROF_ARGS is a list of options
"$CTPROF" ${CTPROF_ARGS:-} -p "$tpid" -d 2 >"$TMP/threads.out" 2>"$TMP/threads.err" &
cpid=$!
bg_started "$cpid"
OUT=$TMP/threads.out ERR=$TMP/threads.err
# The third thread must be created after ctprof attached: wait until the
# target is traced, then a little longer for a few samples of the first two.
wait_for traced "$tpid" || diag "the target never became traced"
sleep 0.3
kill -USR1 "$tpid"
wait_child "$cpid"

check "ctprof -p exits 0" is_status 0
check "a report is printed" has_report
diag "self%: thread_a_hot $(self_pct thread_a_hot) thread_b_hot $(self_pct thread_b_hot)" \
	"thread_c_hot $(self_pct thread_c_hot); header threads: $(header_threads)"
check "thread_a_hot self% >= 5" ge "$(self_pct thread_a_hot)" 5
check "thread_b_hot self% >= 5" ge "$(self_pct thread_b_hot)" 5
check "thread_c_hot (created after attach) self% >= 5" ge "$(self_pct thread_c_hot)" 5
check "the header counts at least 3 threads" ge "$(header_threads)" 3
check "the target is left running, no thread stopped" alive_not_stopped "$tpid"
check "the target is detached" untraced "$tpid"

# Second SIGUSR1: the target stops its threads and exits by itself.
kill -USR1 "$tpid"
wait_child "$tpid" 10
check "the target still takes signals after detach and exits 0" [ "$RC" = 0 ]
check "the target ran thread c" grep -q "thread c ran" "$TMP/target.txt"
any_failed && diag_file "$TMP/target.txt"

run_ctprof renamer-launched --per-thread -F 999 -- "$TARGETS/renamer" 1
diag "$(grep '^thread' "$OUT")"
check "launched: the thread named again is reported under its last name" \
	eval 'is_status 0 && grep -Eq "^thread [0-9]+ \(after\):" "$OUT" && ! grep -q "(before)" "$OUT"'
"$TARGETS/renamer" 4 >/dev/null 2>&1 &
rpid=$!
bg_started "$rpid"
sleep 0.3
run_ctprof renamer-attached --per-thread -d 2.5 -p "$rpid"
diag "$(grep '^thread' "$OUT")"
check "attached: the thread named again is reported under its last name" \
	eval 'is_status 0 && grep -Eq "^thread [0-9]+ \(after\):" "$OUT" && ! grep -q "(before)" "$OUT"'
wait_child "$rpid" 10
finish
