#!/bin/bash
# fork: children of a profiled program are not profiled: never traced,
# they run untouched and exit with their own status, and none of their
# time is in the report.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 4
run_ctprof fork -F 199 -- "$TARGETS/forker" 0.8
check "ctprof exits with the parent's status 0" is_status 0
check "the child was never traced and exited with its own status 5" \
	grep -q '^forker: child status 5 tracer 0$' "$OUT"
diag "parent_work $(self_pct parent_work)%, child_work $(self_pct child_work)%"
check "the parent's work is profiled" ge "$(self_pct parent_work)" 80
check "the child's is not" test "$(self_pct child_work)" = 0.0
finish
