#!/bin/bash
# demo: the bundled ctprof-demo (README's first example) profiles the way
# its comment promises: every named function shows up, each caller's cum%
# covers its callee, and the worker thread is sampled too.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace
: "${DEMO:?DEMO must name the ctprof-demo binary}"

plan 9
run_ctprof demo -- "$DEMO" 1.5
check "ctprof exits with the demo's status 0" is_status 0
check "a report is printed" has_report
for f in tokenize hash_mix compress_block; do
	check "$f self% >= 5" ge "$(self_pct "$f")" 5
done
# nests CALLER CALLEE: CALLER's cum% is its own self% plus CALLEE's self%
# (CALLEE is its only callee), give or take rounding: CALLEE's samples were
# unwound through CALLER.
nests() {
	awk -v c="$(cum_pct "$1")" -v s="$(self_pct "$1")" -v k="$(self_pct "$2")" \
		'BEGIN { exit !(c >= s + k - 1) }'
}
check "parse_input -> tokenize: parse_input cum% = its self% + tokenize's" nests parse_input tokenize
check "compute -> hash_mix: compute cum% = its self% + hash_mix's" nests compute hash_mix
check "compress_worker -> compress_block: compress_worker cum% = its self% + compress_block's" \
	nests compress_worker compress_block
check "main cum% >= 20 (the main thread is unwound to main)" ge "$(cum_pct main)" 20
finish
