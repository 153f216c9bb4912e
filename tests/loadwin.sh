#!/bin/bash
# loadwin: code whose mapping was not executable when ctprof read the maps.
# The loader maps a library read-only before it maps the text over it, and
# JITs flip code between writable and executable: maps read in between
# call the text data.  loadwin holds that window open (its library's text
# read-only until 0.3 s after ctprof attaches), then runs 1.5 s in spin(),
# called back from the library's lib_call().  Every stack must unwind
# through the library's frame: none may fail at its return address.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 5
"$TARGETS/loadwin" 1.5 >"$TMP/target.txt" 2>&1 &
pid=$!
bg_started "$pid"
wait_for grep -q '^ready' "$TMP/target.txt" || diag "loadwin is not ready: $(cat "$TMP/target.txt")"
run_ctprof loadwin -p "$pid" -F 499 -v
crc=$RC
wait_child "$pid" 20
diag "loadwin: exit $RC, $(tail -1 "$TMP/target.txt")"
check "loadwin ran to its end" eval '[ "$RC" = 0 ] && grep -q "^loadwin: done" "$TMP/target.txt"'
RC=$crc
check "ctprof exits 0 with a report" eval 'is_status 0 && has_report'
diag "spin self $(self_pct spin)%, lib_call cum $(cum_pct lib_call)%, main cum $(cum_pct main)%," \
	"lib_call in $(module_of lib_call)"
check "spin() has most of the samples (self% >= 70)" ge "$(self_pct spin)" 70
check "they unwind through lib_call() into main (cum% of both >= spin's self%)" \
	eval 'ge "$(cum_pct lib_call)" "$(self_pct spin)" && ge "$(cum_pct main)" "$(self_pct spin)" &&
	      [ "$(module_of lib_call)" = "[libcallback.so]" ]'
failed=$(sed -n 's/^profiler: unwind .* \([0-9][0-9]*\) failed.*/\1/p' "$OUT")
grep '^profiler: \(unwind\|priority\)' "$OUT" | sed 's/^/# /'
check "no stack failed to unwind (-v: ${failed:-no count})" [ "${failed:-x}" = 0 ]
finish
