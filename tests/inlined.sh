#!/bin/bash
# inlined: mix() is always inlined into outer().  The report shows the
# inlined function as its own row, with the self time, and its caller
# outer() with the cumulative time.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 6
run_ctprof inlined -F 199 -- "$TARGETS/inlined" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "mix self $(self_pct mix)% cum $(cum_pct mix)%; outer self $(self_pct outer)% cum $(cum_pct outer)%"
check "inlined mix has its own row with self% >= 80" ge "$(self_pct mix)" 80
check "outer, which mix is inlined into, has cum% >= 90" ge "$(cum_pct outer)" 90
check "outer's own self% is small (<= 15)" le "$(self_pct outer)" 15
check "main cum% >= 90" ge "$(cum_pct main)" 90
finish
