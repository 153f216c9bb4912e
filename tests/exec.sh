#!/bin/bash
# exec: the target execs mid-profile, itself and then another program; the
# profile goes on in the new image, with the new image's symbols, and the
# exit status is the new program's.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 8
run_ctprof self -F 199 -- "$TARGETS/execer" 0.7
check "exec of itself: exit status 7 from the new image" is_status 7
diag "before_exec $(self_pct before_exec)%, after_exec $(self_pct after_exec)%"
check "exec of itself: before_exec sampled (>= 30%)" ge "$(self_pct before_exec)" 30
check "exec of itself: after_exec sampled (>= 30%)" ge "$(self_pct after_exec)" 30
# A tick may be missed, and a sample caught by the exec itself is dropped
# (counted as lost); what must not happen is an unwind failing in either
# image, as with a library not yet known right after the exec.
check "exec of itself: no unwind failed" grep -Eq '^no ticks missed|, 0 unwinds failed,' "$OUT"

run_ctprof other -F 199 -- "$TARGETS/execer" 0.7 before "$TARGETS/chain"
check "exec of another program: its status 0" is_status 0
diag "before_exec $(self_pct before_exec)% [$(module_of before_exec)], f3 $(self_pct f3)% [$(module_of f3)]"
check "exec of another program: before_exec in [execer]" test "$(module_of before_exec)" = "[execer]"
check "exec of another program: f3 in [chain] (>= 30%)" \
	eval 'ge "$(self_pct f3)" 30 && test "$(module_of f3)" = "[chain]"'
check "exec of another program: main of chain unwound (f0 cum >= 30%)" ge "$(cum_pct f0)" 30
finish
