#!/bin/bash
# A second tracer: while ctprof profiles a process, strace (and gdb, if
# installed) trying to attach to it fail at once with a clear refusal, and
# neither ctprof nor the target is disturbed.  (A process that another
# tracer already holds is refused by ctprof: errors.sh.)
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach
command -v strace >/dev/null || skip_all "strace is not installed"

plan 6
"$TARGETS/crunch" 6 >"$TMP/crunch.out" &
pid=$!
bg_started "$pid"
"$CTPROF" -p "$pid" -d 2 >"$TMP/ctprof.out" 2>"$TMP/ctprof.err" &
cpid=$!
bg_started "$cpid"
wait_for traced "$pid"
t0=$(date +%s%N)
timeout 10 strace -p "$pid" -o /dev/null >"$TMP/strace.out" 2>&1
rc=$?
t1=$(date +%s%N)
diag "strace: exit $rc after $(( (t1 - t0) / 1000000 )) ms: $(head -c 200 "$TMP/strace.out")"
check "strace -p on a profiled process fails at once" \
	eval '[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ $(( (t1 - t0) / 1000000 )) -lt 3000 ]'
check "... saying why (not permitted)" grep -qi "not permitted" "$TMP/strace.out"
if command -v gdb >/dev/null; then
	timeout 20 gdb -q -batch -p "$pid" -ex detach >"$TMP/gdb.out" 2>&1
	diag "gdb: $(grep -i -m1 'ptrace\|not permitted' "$TMP/gdb.out")"
	check "gdb -p on a profiled process is refused too" grep -qi "not permitted" "$TMP/gdb.out"
else
	skip "gdb -p on a profiled process is refused too" "gdb is not installed"
fi
wait_child "$cpid" 15
OUT=$TMP/ctprof.out ERR=$TMP/ctprof.err
check "ctprof carries on and reports (exit 0)" eval 'is_status 0 && has_report'
check "the target is untraced afterwards" untraced "$pid"
kill -USR2 "$pid"
wait_child "$pid" 20
check "the target finishes correctly" eval 'is_status 0 && grep -q "mismatches 0" "$TMP/crunch.out"'
finish
