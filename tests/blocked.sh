#!/bin/bash
# blocked: a program that spends 1.5 s in nanosleep() and in read() on a
# pipe nobody writes is off-CPU all that time, so on-CPU sampling must give
# it almost nothing (a few samples at most, for process start-up).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 5
run_ctprof blocked -F 99 -- "$TARGETS/blocked" 1.5
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
n=$(total_samples)
diag "total samples: $n (a busy program would have about 150)"
check "the header has a sample count" [ -n "$n" ]
check "at most 5 samples" le "${n:-999}" 5
# The few samples must come from a profiler that was there all along, not
# from one that quit early: the profile covers the target's 1.5 s.
span=$(awk '$1 == "on-CPU" && $3 == "over" { print $4; exit }' "$OUT")
check "the profile spans the run (>= 1.2 s, got '$span')" ge "${span:-0}" 1.2
finish
