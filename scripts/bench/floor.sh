#!/bin/bash
# Part 2 of ctprof's benchmark: the floor of a sample's stall, what
# ptrace itself takes, beside ctprof's stall per sample (part 1's runs,
# slowdown.sh).  Prints section 2 of the Markdown report on standard
# output, progress on standard error; scripts/bench.sh runs it with the
# other parts.
#
#     scripts/bench/floor.sh [-n N] [-a|--append]
#
# The same as scripts/bench.sh --parts 2: ctprof's rows are n/a then
# (scripts/bench.sh --parts 1,2 runs both, in the same repetitions, which
# the ratio of ctprof's stall to the floor needs).  About 10 seconds a
# repetition.  The options are scripts/bench.sh's (scripts/bench.sh --help).
#
#  2. Stall per sample: ctprof -v's median and p99 at 999 Hz on the
#     workload (the runs of part 1), beside bench/floor.c: INTERRUPT +
#     waitpid + GETREGS + CONT on a spinning child, 2000 times at 1 kHz,
#     tracer and child on different CPUs (sleeping in waitpid, and polling
#     it) and on the same CPU; and the tracer's own CPU time per
#     iteration of each, and of a loop that only sleeps until each tick.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

part2_setup() { cc_bench bench/floor.c floor -O2; }

# Part 2, one repetition: the floor, in the same repetition as ctprof's
# stall (part 1's runs, if it runs).
part2_rep() {
	local mode rc fmed fp99 fcpu fsched
	for mode in wake cross poll same; do
		rc=0
		timeout --foreground -k 10 60 "$tmp/floor" "$mode" 2000 1000 >"$tmp/out" 2>"$tmp/err" || rc=$?
		interrupted "$rc"
		if [ "$rc" -eq 3 ]; then continue; fi   # n/a: one CPU
		[ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; die "floor $mode failed (status $rc)"; }
		read -r fmed fp99 fcpu fsched < <(awk '{
			for (i = 1; i < NF; i++) {
				if ($i == "median") m = $(i + 1)
				if ($i == "p99") p = $(i + 1)
				if ($i == "CPU") c = $(i + 1)
			}
			print m, p, c, $NF }' "$tmp/out")
		put "floor.$mode.cpu" "$fcpu"
		[ "$mode" = wake ] && continue
		put "floor.$mode.med" "$fmed"
		put "floor.$mode.p99" "$fp99"
		echo "$fsched" >"$res/floor.sched"
		if [ "$mode" != same ] && want 1; then
			put "ct999.floor_$mode" "$(div "$(tail -1 "$res/ct999.stall_med")" "$fmed")"
			if has libdw; then
				put "dw999.floor_$mode" "$(div "$(tail -1 "$res/dw999.stall_med")" "$fmed")"
			fi
		fi
	done
}

# Section 2 of the report, with part 1 or part 2.
report_2() {
	local fsched
	want 1 || want 2 || return 0
	fsched=$(cat "$res/floor.sched" 2>/dev/null || echo n/a)
	cat <<EOF
**2. Stall per sample** (how long a sampled thread is stopped), workload at 999 Hz.

| | median | p99 |
| --- | --- | --- |
| ctprof (libunwind) | $(us ct999.stall_med) | $(us ct999.stall_p99) |
| ctprof (libdw) | $(us dw999.stall_med) | $(us dw999.stall_p99) |$(base_row "| ctprof $base_rev (--base) | $(us bs999.stall_med) | $(us bs999.stall_p99) |")$(base_row "| ctprof (libunwind), 2 threads | $(us ct999-2.stall_med) | $(us ct999-2.stall_p99) |")$(base_row "| ctprof $base_rev (--base), 2 threads | $(us bs999-2.stall_med) | $(us bs999-2.stall_p99) |")
| floor, cross-CPU (tracer and target on two CPUs) | $(us floor.cross.med) | $(us floor.cross.p99) |
| floor, cross-CPU, tracer polling waitpid | $(us floor.poll.med) | $(us floor.poll.p99) |
| floor, same-CPU (both on one CPU) | $(us floor.same.med) | $(us floor.same.p99) |

ctprof's median stall is $(med ct999.floor_cross %.2f) times the cross-CPU floor,
$(med ct999.floor_poll %.2f) times the polling one (libdw: $(med dw999.floor_cross %.2f), $(med dw999.floor_poll %.2f)).
Missed ticks at 999 Hz: $(of ct999.missed ct999.ticks) (libdw: $(of dw999.missed dw999.ticks)).
The floor is INTERRUPT + waitpid + GETREGS + CONT on a spinning child,
2000 times at 1 kHz (tracer $fsched); ctprof's stall is from its
INTERRUPT (for a thread whose CPU it took, from that moment) to its
CONT, and ctprof and the target are not pinned.

EOF
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/floor.sh "" 2 "$@"
fi
