#!/bin/bash
# nocfi: main -> rbp_call -> nocfi_mid -> nocfi_hot (tests/targets/nocfi.c).
# nocfi_mid has a frame record but no CFI, as crtstuff's destructors and
# hand-written assembly do; its caller keeps a small number in rbp, as code
# built without frame pointers does.  The walk must step out of nocfi_mid
# by its frame record, without taking the saved rbp for a frame pointer,
# and go on by CFI to main: every frame near 100% cum, no unwind failed.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 7
run_ctprof nocfi -F 499 -v -- "$TARGETS/nocfi" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "nocfi_hot self $(self_pct nocfi_hot)%; cum%: main $(cum_pct main)" \
	"rbp_call $(cum_pct rbp_call) nocfi_mid $(cum_pct nocfi_mid)"
diag "$(grep '^profiler: unwind' "$OUT")"
check "nocfi_hot self% >= 90" ge "$(self_pct nocfi_hot)" 90
for f in nocfi_mid rbp_call main; do
	check "$f cum% >= 95" ge "$(cum_pct "$f")" 95
done
check "no unwind failed" grep -Eq '^profiler: unwind .* 0 failed' "$OUT"
finish
