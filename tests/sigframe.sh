#!/bin/bash
# sigframe: the hot function runs in a signal handler.  Its callers above
# the kernel's signal frame (run_in_handler, main) reaching cum% near 100
# proves the unwinder steps through signal frames.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 6
run_ctprof sigframe -F 199 -- "$TARGETS/sigframe" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "handler_hot self $(self_pct handler_hot)%; cum%: on_signal $(cum_pct on_signal)" \
	"run_in_handler $(cum_pct run_in_handler) main $(cum_pct main)"
check "handler_hot self% >= 80" ge "$(self_pct handler_hot)" 80
for f in on_signal run_in_handler main; do
	check "$f cum% >= 90 (unwound through the signal frame)" ge "$(cum_pct "$f")" 90
done
finish
