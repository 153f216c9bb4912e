#!/bin/bash
# cost: -v says where ctprof's CPU time goes per sample, and the account
# adds up: the sampling thread's parts do not exceed its CPU time, and the
# sampling thread and the helpers together are ctprof's CPU time.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

# part NAME: the value of NAME in the "per sample, us:" line.
part() {
	sed -n 's/^profiler: per sample, us: //p' "$OUT" | tr '=+;,' '\n\n\n\n' |
		awk -v n="$1" '{ v = $NF; $NF = ""; sub(/ +$/, ""); sub(/^ +/, ""); if ($0 == n) { print v; exit } }'
}

plan 4
run_ctprof busy -F 999 -d 2 -v -- "$TARGETS/crunch" 3
check "ran: exit 0" is_status 0
grep -E '^profiler: (own CPU|per sample)' "$OUT" | while read -r l; do diag "$l"; done
own=$(sed -n 's/^profiler: own CPU time: [0-9.]* ms, \([0-9.]*\) us per sample/\1/p' "$OUT")
sampler=$(part sampler) helpers=$(part helpers) rest=$(part "the rest")
parts=0
for p in choosing holds "reading at the tick" interrupts "letting go" "spinning for stops" \
	 registers "stack copy" resume unwinding interning settling "stops not asked for"; do
	v=$(part "$p")
	[ -n "$v" ] || { parts=; break; }
	parts=$(awk -v a="$parts" -v b="$v" 'BEGIN { print a + b }')
done
diag "own $own us; sampler $sampler = parts $parts + rest $rest; helpers $helpers"
check "every part of a sample is in the line" \
	eval '[ -n "$own" ] && [ -n "$sampler" ] && [ -n "$helpers" ] && [ -n "$rest" ] && [ -n "$parts" ]'
check "the parts timed inside the sampler do not exceed its CPU time (5% slack)" \
	eval 'le "$parts" "$(awk -v s="$sampler" "BEGIN { print s * 1.05 }")"'
check "sampler and helpers are ctprof's own CPU time, within 10%" \
	eval 'awk -v o="$own" -v s="$sampler" -v h="$helpers" "BEGIN { d = s + h - o; if (d < 0) d = -d; exit !(d <= 0.1 * o) }"'
