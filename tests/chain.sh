#!/bin/bash
# chain: main -> f0 -> f1 -> f2 -> f3, built -O2 -fomit-frame-pointer, one
# function per file. f3 is hot. Without frame pointers only DWARF CFI
# unwinding gets from f3 back up to main, so every frame's cum% being near
# 100% proves the unwinder walks the whole chain.
# deep: a stack of over 4 KiB from its leaf to main.  With 1 KiB copied
# (--stack-size=1k) each walk runs off the copy: -v counts it truncated,
# with both unwinders (libdw called all of them complete: libdwfl ends
# a walk at a return address it cannot read as at the outermost frame).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 14
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

# unwind_counts: "COMPLETE TRUNCATED FAILED" from -v.  Held against the
# walks made, their sum: the report's total also counts the ticks of
# stops put off to a later sample (14 of 118 in one CI run, with 100
# walks, all complete).
unwind_counts() {
	sed -n 's/^profiler: unwind .*; \([0-9]*\) complete, \([0-9]*\) truncated, \([0-9]*\) failed;.*/\1 \2 \3/p' "$OUT"
}
run_ctprof deep -F 199 -v -- "$TARGETS/deep" 0.6
read -r comp trunc failed < <(unwind_counts)
diag "deep, 64 KiB copied: main cum $(cum_pct main)%; $comp complete, $trunc truncated, $failed failed"
check "deep: main cum% >= 90 with the whole stack copied" ge "$(cum_pct main)" 90
walks=$((${comp:-0} + ${trunc:-0} + ${failed:-0}))
check "deep: its walks complete (-v: ${comp:-none} of $walks)" \
	eval '[ -n "$comp" ] && [ "$walks" -ge 50 ] && [ "$comp" -ge $((walks * 9 / 10)) ]'
run_ctprof deep-1k -F 199 -v --stack-size=1k -- "$TARGETS/deep" 0.6
read -r comp trunc failed < <(unwind_counts)
diag "deep, 1 KiB copied: main cum $(cum_pct main)%; $comp complete, $trunc truncated, $failed failed"
check "deep 1k: exits 0" is_status 0
check "deep 1k: main is out of reach (cum% < 10)" lt "$(cum_pct main)" 10
walks=$((${comp:-0} + ${trunc:-0} + ${failed:-0}))
check "deep 1k: -v counts the walks truncated, not complete ($comp complete, $trunc truncated, $failed failed)" \
	eval '[ -n "$trunc" ] && [ "$walks" -ge 50 ] && [ "$trunc" -ge $((walks * 9 / 10)) ]'
finish
