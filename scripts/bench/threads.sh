#!/bin/bash
# Part 5 of ctprof's benchmark: many threads, most of them blocked.
# Prints section 5 of the Markdown report on standard output, progress on
# standard error; scripts/bench.sh runs it with the other parts.
#
#     scripts/bench/threads.sh [-n N] [-b|--base REV|BINARY] [-t|--trigger MODE] [-a|--append]
#
# The same as scripts/bench.sh --parts 5; about 10 seconds a repetition
# (13 with --base).  The options are scripts/bench.sh's (scripts/bench.sh
# --help): with --base, that ctprof runs beside this one.
#
#  5. Many threads: bench/threads64.c (4 busy, 60 blocked in futex,
#     epoll_wait, read) under ctprof -F 999 -v: its stalls, samples and
#     CPU time, and the busy threads' work in their 3 s against a bare
#     run's in the same repetition; with --base, that ctprof's too.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

part5_setup() { cc_bench bench/threads64.c threads64 -O2 -pthread; }

# busy_loops: the busy threads' work that threads64 printed (last run).
busy_loops() { awk '$1 == "busy" && $2 == "loops" { print $3 }' "$tmp/out"; }

# Part 5, one repetition: the busy threads' work in their 3 s, bare and
# under each ctprof (the two in an order that alternates).
part5_rep() {
	local bare_loops t64v eintr
	run 120 "$tmp/threads64" 3
	bare_loops=$(busy_loops)
	[ -n "$bare_loops" ] || die "threads64 printed no busy loops line"
	for t64v in $(if ((r % 2)) && [ -n "$base_ct" ]; then echo bs ct; else echo ct bs; fi); do
		case $t64v in
		ct) run 120 "$ctprof" ${unwopt[libunwind]} -F 999 -v -o "$tmp/t64.txt" -- "$tmp/threads64" 3 ;;
		bs) [ -n "$base_ct" ] || continue
		    run 120 "$base_ct" -F 999 -v -o "$tmp/t64.txt" -- "$tmp/threads64" 3 ;;
		esac
		eintr=$(awk '$1 == "eintr" { print $2 }' "$tmp/out")
		[ -n "$eintr" ] || die "threads64 printed no eintr line"
		put "t64$t64v.eintr" "$eintr"
		put "t64$t64v.work" "$(div "$(busy_loops)" "$bare_loops")"
		ctstats "t64$t64v" "$tmp/t64.txt"
		put "t64$t64v.per_tick" "$(div "$last_samples" "$last_ticks")"
		put "t64$t64v.per_sampled_tick" "$(div "$last_samples" "$((last_ticks - last_missed))")"
		put "t64$t64v.cpu_tick" "$(div "$(awk -v m="$last_cpu_ms" 'BEGIN { print m * 1000 }')" "$last_ticks")"
	done
}

# Section 5 of the report.
report_5() {
	want 5 || return 0
	cat <<EOF
**5. Many threads**: bench/threads64.c, 4 busy threads and 60 blocked (20 futex,
20 epoll_wait, 20 read), 3 s under ctprof -F 999 (libunwind).

| | stall median | stall p99 | samples per tick | samples per sampled tick | missed ticks | EINTR in the target | ctprof's CPU per sample | the helpers' | ctprof's CPU per tick | the busy threads' work, against bare |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| ctprof | $(us t64ct.stall_med) | $(us t64ct.stall_p99) | $(med t64ct.per_tick %.2f) | $(med t64ct.per_sampled_tick %.2f) | $(of t64ct.missed t64ct.ticks) | $(med t64ct.eintr %.0f) | $(us t64ct.cpu_us) | $(us t64ct.part_helpers) | $(us t64ct.cpu_tick) | $(med t64ct.work %.3f) |$(base_row "| ctprof $base_rev (--base) | $(us t64bs.stall_med) | $(us t64bs.stall_p99) | $(med t64bs.per_tick %.2f) | $(med t64bs.per_sampled_tick %.2f) | $(of t64bs.missed t64bs.ticks) | $(med t64bs.eintr %.0f) | $(us t64bs.cpu_us) | $(us t64bs.part_helpers) | $(us t64bs.cpu_tick) | $(med t64bs.work %.3f) |")

EOF
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/threads.sh "base trigger" 5 "$@"
fi
