#!/bin/bash
# crtinit: the hot function runs from the executable's _init, which has no
# CFI (glibc's crti.o and crtn.o write none).  _init's callers reaching
# cum% near 100, with no stack failed, proves the unwinder steps out of it
# by its known shape.  A C++ program is sampled there too, for a moment,
# in libstdc++'s _init at start-up.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 6
run_ctprof crtinit -F 199 -v -o "$TMP/report.txt" -- "$TARGETS/crtinit"
cat "$TMP/report.txt" >>"$OUT" 2>/dev/null
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "spin_in_init self $(self_pct spin_in_init)%; cum%: __gmon_start__" \
	"$(cum_pct __gmon_start__) _init $(cum_pct _init) _start $(cum_pct _start)"
check "spin_in_init self% >= 80" ge "$(self_pct spin_in_init)" 80
check "_init cum% >= 90" ge "$(cum_pct _init)" 90
check "_start cum% >= 90 (unwound out of _init)" ge "$(cum_pct _start)" 90
failed=$(sed -n 's/^profiler: unwind .* \([0-9][0-9]*\) failed.*/\1/p' "$OUT")
grep '^profiler: unwind' "$OUT" | sed 's/^/# /'
check "no stack failed to unwind (-v: ${failed:-no count})" [ "${failed:-x}" = 0 ]
finish
