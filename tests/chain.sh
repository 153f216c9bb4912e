#!/bin/bash
# chain: main -> f0 -> f1 -> f2 -> f3, built -O2 -fomit-frame-pointer, one
# function per file. f3 is hot. Without frame pointers only DWARF CFI
# unwinding gets from f3 back up to main, so every frame's cum% being near
# 100% proves the unwinder walks the whole chain.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 9
run_ctprof chain -F 199 -- "$TARGETS/chain" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "f3 self $(self_pct f3)%; cum%: main $(cum_pct main) f0 $(cum_pct f0)" \
	"f1 $(cum_pct f1) f2 $(cum_pct f2) f3 $(cum_pct f3)"
check "at least 100 samples" ge "$(total_samples)" 100
check "f3 self% >= 80" ge "$(self_pct f3)" 80
for f in f3 f2 f1 f0 main; do
	check "$f cum% >= 90" ge "$(cum_pct "$f")" 90
done
finish
