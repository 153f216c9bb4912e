#!/bin/bash
# bperf: four functions with the same loop run 1:8:16:32 times as long
# (tinywork, leastwork, middlework, mostwork, in rounds for 1.5 s). A fair
# sampler gives each of them that share of their combined self time.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 8
run_ctprof bperf -F 999 -- "$TARGETS/bperf" 1.5
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report

tiny=$(self_pct tinywork)
least=$(self_pct leastwork)
middle=$(self_pct middlework)
most=$(self_pct mostwork)
sum=$(awk -v a="$tiny" -v b="$least" -v c="$middle" -v d="$most" 'BEGIN { print a + b + c + d }')
diag "self%: tinywork $tiny leastwork $least middlework $middle mostwork $most (sum $sum)"

check "the four work functions hold most of the samples (>= 80%)" ge "$sum" 80
check "self% order: tinywork < leastwork < middlework < mostwork" \
	eval 'lt "$tiny" "$least" && lt "$least" "$middle" && lt "$middle" "$most"'

# in_band PCT N: a function's self% PCT, as a share of the four functions'
# total, is within +-25% (relative) of its expected share N/57.
in_band() {
	awk -v p="$1" -v s="$sum" -v n="$2" 'BEGIN {
		e = n / 57
		share = s > 0 ? p / s : 0
		printf "# share %.4f, expected %.4f, band %.4f..%.4f\n", share, e, e * 0.75, e * 1.25
		exit !(share >= e * 0.75 && share <= e * 1.25)
	}'
}
check "leastwork's share is 8/57 +-25%" in_band "$least" 8
check "middlework's share is 16/57 +-25%" in_band "$middle" 16
check "mostwork's share is 32/57 +-25%" in_band "$most" 32
# tinywork expects 1/57 of the time: about 25 samples in a 1.5 s run at
# 999 Hz, where Poisson noise alone is +-20% and one missed tick or a few
# samples of startup move it further, so a +-25% band would flake. It is
# only required to be there (at least one sample) and below half of
# leastwork's share (it expects an eighth).
check "tinywork is present and small" \
	eval 'ge "$tiny" 0.1 && lt "$tiny" "$(awk -v l="$least" "BEGIN { print l / 2 }")"'
finish
