#!/bin/bash
# cputime: --weight=cputime shares each thread's CPU time among its
# samples, so the report's time adds up to what the kernel accounted, even
# for bursts too short for 99 Hz: 200 threads of 3 ms each, against the
# target's own getrusage().
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

# header_secs WHAT: the N of "N s WHAT" in the cputime header line.
header_secs() {
	awk -v w="$1" '/samples weighted by CPU time/ {
		n = split($0, f, /[:,;] */)
		for (i = 1; i <= n; i++) if (index(f[i], w)) { split(f[i], g, " "); print g[1]; exit } }' "$OUT"
}

plan 10
run_ctprof burst --trigger=timer --weight=cputime -F 99 -- "$TARGETS/cpuburst" 200
check "ran: exit 0" is_status 0
kernel=$(awk '$1 == "cpuburst:" { printf "%.3f", $3 / 1e9 }' "$OUT")
insamples=$(header_secs "in samples")
accounted=$(header_secs "accounted by the kernel")
bysampling=$(header_secs "by 99 Hz sampling")
total=$(awk '$1 == "total:" { for (i = 1; i < NF; i++) if ($(i + 1) == "s") { print $i; exit } }' "$OUT")
diag "getrusage $kernel s; report: $insamples s in samples ($total in the total line), $accounted s accounted, $bysampling s by sampling"
check "the header gives both figures" eval '[ -n "$insamples" ] && [ -n "$bysampling" ] && [ -n "$accounted" ]'
ratio=$(awk -v a="$insamples" -v b="$kernel" 'BEGIN { if (b > 0) printf "%.3f", a / b }')
diag "report / getrusage = $ratio"
check "the report's CPU time is the kernel's within 5%" \
	eval 'ge "$ratio" 0.95 && le "$ratio" 1.05'
check "the total line says the same time" test "$total" = "$insamples"
check "main_work is there, in [cpuburst]" test "$(module_of main_work)" = "[cpuburst]"
check "time after a thread's last sample is charged to [unsampled, to exit]" \
	grep -q '\[unsampled, to exit\] .*\[ctprof\]$' "$OUT"

# With --weight=samples: samples only, and a 99 Hz tick misses most bursts.
run_ctprof plain --trigger=timer --weight=samples -F 99 -- "$TARGETS/cpuburst" 200
check "--weight=samples: the plain on-CPU header" grep -q '^on-CPU profile over [0-9.]* s; percentages are of all' "$OUT"
# Without --weight: CPU time is the default.
run_ctprof default --trigger=timer -F 99 -- "$TARGETS/cpuburst" 20
check "without --weight: samples weighted by CPU time" grep -q 'samples weighted by CPU time' "$OUT"

# The first tick: a helper started when its CPU was first wanted, and
# slept until the tick after, so each thread's first stop was put off to
# its next.  At 1 Hz, 1.6 s has one tick, 1-1.5 s in: before, no sample
# at all (all the CPU time "[unsampled, to exit]").  The target pinned to
# CPU 1 and ctprof to CPU 0, so that the thread is not on ctprof's own
# CPU, which ctprof takes itself.  A thread that waits for its CPU at the
# tick (a busy thread of another test there) is rightly not sampled:
# up to three runs.
if [ "$(nproc)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
	for try in 1 2 3; do
		taskset -c 1 "$TARGETS/inlined" 3 >/dev/null &
		pid=$!
		bg_started "$pid"
		sleep 0.2
		run_cmd "first-$try" taskset -c 0 "$CTPROF" ${CTPROF_ARGS:-} --trigger=timer -F 1 -d 1.6 -p "$pid"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		n=$(total_samples)
		[ "${n:-0}" -ge 1 ] && break
		diag "-F 1, attached for 1.6 s, run $try: ${n:-no} samples"
	done
	check "-F 1, attached for 1.6 s: its one tick is a sample (${n:-no} samples)" ge "${n:-0}" 1
else
	skip "-F 1, attached for 1.6 s: its one tick is a sample" "needs CPUs 0 and 1"
fi

run_ctprof bad --weight=cycles -- /bin/true
check "--weight=cycles: a usage error naming the choices" \
	eval 'is_status 2 && err_says "expected samples or cputime"'
finish
