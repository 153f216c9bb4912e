#!/bin/bash
# sigframe: the hot function runs in a signal handler.  Its callers above
# the kernel's signal frame (run_in_handler, main) reaching cum% near 100
# proves the unwinder steps through signal frames.
# sigburst: a worker sent SIGUSR1 every 20 us, whose handler only counts.
# A stop that finds it at the handler's first instruction (the signal
# delivered since the tick) is taken where the signal came: the handler
# has no share to speak of.  a23e3ee gave it 4.8-4.9% (two runs of 2 s).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 9
run_ctprof sigframe -F 199 -- "$TARGETS/sigframe" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "handler_hot self $(self_pct handler_hot)%; cum%: on_signal $(cum_pct on_signal)" \
	"run_in_handler $(cum_pct run_in_handler) main $(cum_pct main)"
check "handler_hot self% >= 80" ge "$(self_pct handler_hot)" 80
for f in on_signal run_in_handler main; do
	check "$f cum% >= 90 (unwound through the signal frame)" ge "$(cum_pct "$f")" 90
done

# handler_entries: the stops -v says were taken where the signal came.
handler_entries() {
	sed -n 's/^profiler: unwind .*; \([0-9][0-9]*\) stops at a signal handler.*/\1/p' "$OUT"
}
run_ctprof sigburst -F 999 -v -- "$TARGETS/sigburst" 2
check "sigburst: ctprof exits with the target's status 0" is_status 0
diag "on_usr1 self $(self_pct on_usr1)%, cum $(cum_pct on_usr1)%; work self $(self_pct work)%;" \
	"$(handler_entries) stops at the handler's start"
check "sigburst: stops found the worker where its handler starts" ge "$(handler_entries)" 1
check "sigburst: the handler's cum% < 1" lt "$(cum_pct on_usr1)" 1
finish
