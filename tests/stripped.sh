#!/bin/bash
# stripped: the same hot chain with its debug info removed (names from the
# symbol table, no file:line), and with every symbol removed (frames shown
# as module+0xOFFSET, never as bare addresses).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace
command -v strip >/dev/null || skip_all "strip (binutils) is not installed"

plan 8
strip --strip-debug -o "$TMP/chain-nodebug" "$TARGETS/chain"
strip --strip-all -o "$TMP/chain-nosyms" "$TARGETS/chain"

run_ctprof nodebug -F 199 -- "$TMP/chain-nodebug" 1
check "no debug info: ctprof exits 0" is_status 0
diag "f3 self $(self_pct f3)%; main cum $(cum_pct main)%"
check "no debug info: f3 named from the symbol table, self% >= 80" ge "$(self_pct f3)" 80
check "no debug info: main cum% >= 90 (CFI is in .eh_frame, not in debug info)" \
	ge "$(cum_pct main)" 90
check "no debug info: f3's location is '?'" \
	test "$(rows f3 | awk 'NR == 1 { print $6 }')" = "?"

run_ctprof nosyms -F 199 -- "$TMP/chain-nosyms" 1
check "no symbols: ctprof exits 0" is_status 0
top=$(awk '$1 ~ /ms$/ && $2 ~ /%$/ { print $5; exit }' "$OUT")
diag "hottest row: $top"
check "no symbols: the hottest frame is shown as chain-nosyms+0xOFFSET" \
	grep -Eq '^chain-nosyms\+0x[0-9a-f]+$' <<<"$top"
check "no symbols: its module column is [chain-nosyms]" \
	test "$(rows "$top" | awk 'NR == 1 { print $7 }')" = "[chain-nosyms]"
check "no row is a bare address without a module" \
	bash -c "! awk '\$1 ~ /ms\$/ && \$2 ~ /%\$/ && \$5 ~ /^0x/' '$OUT' | grep -q ."
finish
