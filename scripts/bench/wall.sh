#!/bin/bash
# Part 6 of ctprof's benchmark: the wall-clock mode, and CPU-time weights.
# Prints section 6 of the Markdown report on standard output, progress on
# standard error; scripts/bench.sh runs it with the other parts.
#
#     scripts/bench/wall.sh [-n N] [-t|--trigger MODE] [-a|--append]
#
# The same as scripts/bench.sh --parts 6; about 15 seconds a repetition.
# Needs build/tests/idlers and cpuburst (meson builds them).  The options
# are scripts/bench.sh's (scripts/bench.sh --help).
#
#  6. Wall-clock and CPU time (needs build/tests/idlers and cpuburst):
#     ctprof --wall on 500 idle threads and one working a fifth of the
#     time (stops of blocked threads, their stacks taken without a stop,
#     samples counted without a stop, own CPU per tick), beside the
#     on-CPU mode on the same target; and the
#     CPU time of 200 threads of 3 ms against the target's getrusage, from
#     ctprof --weight=cputime, ctprof's plain samples, and perf record
#     -c 10101010 -e cpu-clock (a sample per 1/99 s of a thread's CPU; the
#     sum of its periods), all at 99 Hz.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

idlers= cpuburst=
part6_setup() {
	if [ -x build/tests/idlers ] && [ -x build/tests/cpuburst ]; then
		cp build/tests/idlers build/tests/cpuburst "$tmp/"
		idlers=$tmp/idlers cpuburst=$tmp/cpuburst
	else
		say "build/tests/idlers or cpuburst is missing: part 6 is skipped"
	fi
}

# Part 6, one repetition.
wallclock() {
	local kernel mode
	for mode in wall oncpu; do
		if [ $mode = wall ]; then
			run 60 "$ctprof" $trigopt --wall -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		else
			run 60 "$ctprof" $trigopt -F 99 -v -o "$tmp/idle.txt" -- "$idlers" 500 5
		fi
		ctstats idle.$mode "$tmp/idle.txt"
		put idle.$mode.cpu_per_tick "$(awk -v c="$(tail -1 "$res/idle.$mode.cpu_ms")" -v t="$last_ticks" 'BEGIN { printf "%.1f", c * 1000 / t }')"
		if [ $mode = wall ]; then
			awk '$2 == "wall-clock:" { print $3, $8, $21 }' "$tmp/idle.txt" >"$tmp/w"
			put idle.stops "$(cut -d' ' -f1 "$tmp/w")"
			put idle.reused "$(cut -d' ' -f2 "$tmp/w")"
			put idle.peeks "$(cut -d' ' -f3 "$tmp/w")"
			put idle.stops_per_thread "$(div "$(cut -d' ' -f1 "$tmp/w")" 501)"
		fi
	done
	run 60 "$ctprof" $trigopt --weight=cputime -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.weighted "$(div "$(awk '/samples weighted by CPU time/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s" && $(i + 2) == "in") { print $i; exit } }' "$tmp/burst.txt")" "$kernel")"
	run 60 "$ctprof" $trigopt --weight=samples -F 99 -o "$tmp/burst.txt" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.plain "$(div "$(awk '$1 == "total:" { print $2 / 99; exit }' "$tmp/burst.txt")" "$kernel")"
	run 60 perf record -q -c 10101010 -e cpu-clock -o "$tmp/burst.data" -- "$cpuburst" 200
	kernel=$(awk '$1 == "cpuburst:" { print $3 / 1e9 }' "$tmp/out")
	put burst.perf "$(div "$(perf script -i "$tmp/burst.data" -F period 2>/dev/null | awk '{ s += $1 } END { print s / 1e9 }')" "$kernel")"
}

part6_rep() { if [ -n "$idlers" ]; then wallclock; fi; }

# Section 6 of the report.
report_6() {
	[ -n "$idlers" ] || return 0
	cat <<EOF

**6. Wall-clock mode and CPU-time weights.** build/tests/idlers: 500 threads
idle in futex and one working a fifth of the time, 5 s at 99 Hz.

| mode | stops of blocked threads | per thread | stacks of blocked threads taken without a stop | samples counted without a stop | ctprof CPU per tick | missed ticks |
| --- | --- | --- | --- | --- | --- | --- |
| --wall | $(med idle.stops %.0f) | $(med idle.stops_per_thread %.2f) | $(med idle.peeks %.0f) | $(med idle.reused %.0f) | $(us idle.wall.cpu_per_tick) | $(of idle.wall.missed idle.wall.ticks) |
| on-CPU | 0 | 0 | 0 | 0 | $(us idle.oncpu.cpu_per_tick) | $(of idle.oncpu.missed idle.oncpu.ticks) |

build/tests/cpuburst: 200 threads of 3 ms of CPU each, one after the other,
and 3 ms of the main thread between them, at 99 Hz; the CPU time each
profile gives, as a ratio to the target's own getrusage():

| ctprof --weight=cputime | ctprof (samples / 99 Hz) | perf record -c 10101010 -e cpu-clock (sum of periods) |
| --- | --- | --- |
| $(med burst.weighted %.3f) | $(med burst.plain %.3f) | $(med burst.perf %.3f) |

EOF
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/wall.sh "trigger" 6 "$@"
fi
