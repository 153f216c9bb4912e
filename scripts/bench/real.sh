#!/bin/bash
# Part 7 of ctprof's benchmark: accuracy on real programs.  Prints its
# section of the Markdown report on standard output, progress on standard
# error; scripts/bench.sh runs it with the other parts.
#
#     scripts/bench/real.sh [-n N] [-t|--trigger MODE] [-a|--append]
#
# `scripts/bench/real.sh -n 3` (what scripts/bench.sh -n 3 --parts 7 runs)
# takes about 7 minutes on 2 CPUs.  The options are scripts/bench.sh's
# (scripts/bench.sh --help); its comparisons are in real-compare.sh and
# its redis-server in real-redis.sh, beside this file.
#
#  7. Accuracy on real programs: ctprof and perf record -e cpu-clock -g,
#     both at 999 Hz, one after the other on the same workload (the order
#     alternates between repetitions), their flat self profiles compared
#     by ELF symbol with scripts/flatcmp.py (inlined code counts as the
#     function it is inlined in, aliases are one, perf's kernel samples
#     count at the user instruction that entered the kernel); the total
#     variation distance, and the top functions side by side.  Workloads:
#     redis-server on a loopback port (no persistence, in the temporary
#     directory) driven by redis-benchmark, ctprof attached with -p and
#     perf recording the whole system (-a; its samples of redis kept: -p
#     changes redis's event loop) for the benchmark's duration (and a run
#     with neither, and one with ctprof attached while perf -a records:
#     two profiles of one run; in each, redis's voluntary context
#     switches, CPU time and commands served are read before and after);
#     Debian's /usr/bin/python3 on bench/pywork.py (dicts, strings, sorting, 30
#     rounds, ~9 s); sqlite3 on bench/sqlwork.sql six times (in memory:
#     inserts, indexes, joins, GROUP BY, ~2.5 s each); both with the
#     address-space layout fixed (setarch -R), a clean environment (env
#     -i) and, for CPython, fixed string hashes (PYTHONHASHSEED=0), as
#     each of these moves their own profiles from run to run.  With build/tests/selftime (`selftime
#     syscall|fault S`, which times its own enter_kernel) the share of
#     enter_kernel on the stack, ctprof's and perf's (--call-graph dwarf), beside the target's
#     own; the same with build/tests/pollsleep pinned to CPU 1 (a ppoll()
#     that works in the kernel before it sleeps: its wait_a_little's share
#     of its thread CPU time); the same with build/tests/pingpong (a
#     server thread in epoll_wait(), read(), work, write() with its
#     client thread; the shares of do_epoll, do_read, arith and do_write
#     in the server thread's time, which it times itself with its task
#     clock, and in its samples: those with main on the stack); with build/tests/ratio3 (three threads working 1:2:3 on the
#     machine's CPUs, which print their own CPU times) the shares of
#     work1..3 and their distance to the CPU times.  redis, CPython and
#     sqlite3 run under perf twice in each repetition: one of perf's runs
#     of each, pooled, against the other, pooled, is the floor of the
#     pooled distance.  The pooled comparisons are given once more with
#     the runs the machine slowed down left out (disturbed_factor).
#     CPython and sqlite3 also run under ctprof while
#     perf record -a records the whole system (as redis does; perf at 997
#     Hz there, see same_hz):
#     ctprof against perf in the same run (measurement alone), and perf
#     there against perf alone (what ctprof's stops change).  redis runs
#     once more under perf record -p while perf -a records: perf's
#     per-thread events against its per-CPU ones on one run.  Each of these
#     is skipped, with a note, when its program is missing.
set -eu
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/bench/real-compare.sh
. "$(dirname "${BASH_SOURCE[0]}")/real-compare.sh"
# shellcheck source=scripts/bench/real-redis.sh
. "$(dirname "${BASH_SOURCE[0]}")/real-redis.sh"

# Real programs under ctprof and under perf record, compared by
# scripts/flatcmp.py.  Each workload is one "name": its comparisons are
# $res/NAME.tsv.REP (flatcmp --tsv), its distances NAME.tvd.
real_hz=999
# perf -a beside ctprof in the same run ticks at another rate: at the same
# period, perf's ticks keep one phase against ctprof's stops for the whole
# run.  Beside ctprof at 999 Hz on redis, perf at 999 Hz saw ctprof's own
# threads in 0.34% of its samples (they used 8% of the CPUs) and 9811
# samples of redis where the kernel gave redis 12.46 s of CPU; at 997 Hz,
# 5.38% and 11947 for 12.05 s.
same_hz=997
redis_args=(-q -n 160000 -c 10 -t set,get,incr,lpush,lpop)
selftime_s=3
pollsleep_s=3
pingpong_s=3
# CPython's rounds: 30 (~9 s) give ~9000 samples a run, so that pooled
# runs can show a distance of a few hundredths above sampling's own.
py_rounds=30
# sqlite3's workload sql_passes times over, each in a new database (~2.5
# s a pass).  Three passes gave ~7000 samples a run, and five runs pooled
# were 0.025 from five more of perf's alone (0.020 from sampling alone),
# so that ctprof's pooled distance to perf, 0.032-0.036, could not tell
# a bias of ctprof's from the runs' own spread.  Eight such runs of each
# tool pooled (a scratch script, 2026-11-29): ctprof to perf 0.021, perf
# to perf 0.020, ctprof to perf in the same run 0.019 (sampling 0.015);
# four runs: 0.028, 0.027 and 0.022.  Six passes a run give the five
# runs pooled more samples than those eight runs had.
sql_passes=6
sql_reads=()            # .read of the workload, sql_passes times: real_setup
ratio3_args=()          # ratio3's own defaults
# CPython and sqlite3 run the same way every time, so that what moves
# between runs is the profilers: the same address-space layout (setarch
# -R, which the profiler and so the program inherit), the same small
# environment (env -i: perf adds five variables to its command's, which
# moves the stack by 0x70 bytes), and for CPython the same string hashes
# (PYTHONHASHSEED=0; each run draws its own otherwise).  Two runs of
# sqlite3's workload under perf alone were 0.04-0.10 apart with the
# layout random (0.041 from sampling alone), 0.041-0.045 with it fixed;
# CPython's, 0.054-0.075 with the layout and environment fixed, and
# 0.027-0.036 with the hashes too (0.034 from sampling alone).
layout=()
fixed_layout=()         # setarch -R where it works: real_setup
sql_env=(env -i PATH=/usr/bin:/bin LANG=C.UTF-8)
py_env=("${sql_env[@]}" PYTHONHASHSEED=0)
real_names=()           # the workloads that ran, in report order
declare -A real_title=() real_skip=()

# real_setup: what part 7 runs, each thing checked; a missing one is a note.
real_setup() {
	local py i
	sql_reads=(".read $tmp/sqlwork.sql")
	for ((i = 1; i < sql_passes; i++)); do sql_reads+=(".open :memory:" ".read $tmp/sqlwork.sql"); done
	if setarch "$(uname -m)" -R true 2>/dev/null; then fixed_layout=(setarch "$(uname -m)" -R); fi
	py=$(command -v /usr/bin/python3 || command -v python3 || true)
	if [ -z "$py" ]; then
		real_skip[all]="no python3 for scripts/flatcmp.py"
		return
	fi
	flatcmp=("$py" "$tmp/flatcmp.py")
	cp scripts/flatcmp.py bench/pywork.py bench/sqlwork.sql "$tmp/"
	if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null &&
	   command -v redis-cli >/dev/null; then
		real_names+=(redis)
		real_title[redis]="redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') (ctprof -p, perf -a), \`redis-benchmark ${redis_args[*]}\`"
	else
		real_skip[redis]="redis-server, redis-benchmark or redis-cli is missing (apt-get install redis-server redis-tools)"
	fi
	if [ -x /usr/bin/python3 ]; then
		real_names+=(python)
		real_title[python]="CPython $(/usr/bin/python3 -c 'import platform; print(platform.python_version())') (/usr/bin/python3), bench/pywork.py"
	else
		real_skip[python]="/usr/bin/python3 is missing (apt-get install python3)"
	fi
	if command -v sqlite3 >/dev/null; then
		real_names+=(sqlite)
		real_title[sqlite]="sqlite3 $(sqlite3 --version | cut -d' ' -f1), bench/sqlwork.sql in memory, $sql_passes passes a run"
	else
		real_skip[sqlite]="sqlite3 is missing (apt-get install sqlite3)"
	fi
	if [ -x build/tests/selftime ]; then
		cp build/tests/selftime "$tmp/"
		real_names+=(selftime-syscall selftime-fault)
		real_title[selftime-syscall]="build/tests/selftime syscall $selftime_s"
		real_title[selftime-fault]="build/tests/selftime fault $selftime_s"
	else
		real_skip[selftime]="build/tests/selftime is missing"
	fi
	if [ -x build/tests/pollsleep ] && command -v taskset >/dev/null; then
		cp build/tests/pollsleep "$tmp/"
		real_names+=(pollsleep)
		real_title[pollsleep]="build/tests/pollsleep $pollsleep_s, pinned to CPU 1"
	else
		real_skip[pollsleep]="build/tests/pollsleep or taskset is missing"
	fi
	if [ -x build/tests/pingpong ]; then
		cp build/tests/pingpong "$tmp/"
		real_names+=(pingpong)
		real_title[pingpong]="build/tests/pingpong $pingpong_s"
		for fn in do_epoll do_read arith do_write; do
			real_title[pingpong-$fn]="build/tests/pingpong $pingpong_s: $fn, of the server thread"
		done
	else
		real_skip[pingpong]="build/tests/pingpong is missing"
	fi
	if [ -x build/tests/ratio3 ]; then
		cp build/tests/ratio3 "$tmp/"
		real_names+=(ratio3)
		real_title[ratio3]="build/tests/ratio3${ratio3_args[*]:+ ${ratio3_args[*]}}, 3 threads 1:2:3 on $(nproc) CPUs"
	else
		real_skip[ratio3]="build/tests/ratio3 is missing"
	fi
	local k
	for k in "${!real_skip[@]}"; do say "part 7: ${real_skip[$k]}: skipped"; done
}

# profiled NAME TOOL PERF_CALLGRAPH CMD...: CMD run by ctprof (TOOL ct) or
# perf record (TOOL perf, with the call-graph option given), the profile in
# $tmp/NAME.pb.gz or $tmp/NAME.data; the command's output in $tmp/out.
profiled() {
	local name=$1 tool=$2 cg=$3 t0
	t0=$(now_us)
	shift 3
	if [ "$tool" = ct ]; then
		rm -f "$tmp/$name.pb.gz"
		run 180 "${layout[@]}" "$ctprof" ${unwopt[libunwind]} -F "$real_hz" -o "$tmp/$name.pb.gz" -- "$@"
	else
		[ "$tool" = perf ] || name=$name.B
		rm -f "$tmp/$name.data"
		run 180 "${layout[@]}" perf record -q -e cpu-clock -F "$real_hz" $cg -o "$tmp/$name.data" -- "$@"
	fi
	note_cost "${name%.B}" "$tool" "$(($(now_us) - t0))"
}

# tools: the order of the two profilers in this repetition.
tools() { if ((r % 2)); then echo perf ct; else echo ct perf; fi; }
# tools_twice: the same with perf run twice (perf2: its second run, kept
# apart for perf_floor), the three in an order that rotates.
tools_twice() {
	case $((r % 3)) in
	0) echo ct perf perf2 ;;
	1) echo perf perf2 ct ;;
	*) echo perf2 ct perf ;;
	esac
}

# keep_twice NAME: perf's second run of this repetition, kept for
# perf_floor.
keep_twice() {
	local name=$1
	if [ -f "$tmp/$name.B.script" ]; then
		cp "$tmp/$name.B.script" "$tmp/$name.B.$r.script"
	elif [ -f "$tmp/$name.B.data" ]; then
		cp "$tmp/$name.B.data" "$tmp/$name.B.$r.data"
	fi
}

# own_share PROGRAM FUNCTION: the share of FUNCTION that selftime or
# pollsleep gave itself (%).
own_share() {
	awk -v p="$1:" -v f="$2" '$1 == p && $2 == f { sub(/%$/, "", $3); print $3; exit }' "$tmp/out"
}
# pp_own FUNCTION: the share of the server thread's time that pingpong
# gave FUNCTION (%), by its task clock.
pp_own() {
	awk -v f="$1" '$1 == "pingpong:" { for (i = 2; i < NF; i++) if ($i == f) { sub(/%$/, "", $(i + 1)); print $(i + 1); exit } }' "$tmp/out"
}
# cum NAME FUNCTION TOOL: the share of FUNCTION on the stack in this
# repetition's comparison; TOOL ct or perf.
cum() {
	awk -F'\t' -v f="$2" -v c="$([ "$3" = ct ] && echo 3 || echo 4)" \
		'$1 == "#cum" && $2 == f { print $c }' "$res/$1.tsv.$r"
}

# row_pct NAME LABEL TOOL: the flat share of the key flatcmp names LABEL
# in this repetition's comparison (0 if absent); TOOL ct or perf.
row_pct() {
	awk -F'\t' -v l="$2" -v c="$([ "$3" = ct ] && echo 1 || echo 2)" \
		'$4 == l { print $c; found = 1; exit } END { if (!found) print 0 }' "$res/$1.tsv.$r"
}

# One repetition of part 7.
real_programs() {
	local name t mode own own_ct own_perf fn prog share_ct share_perf share
	local -a cmd
	for name in "${real_names[@]}"; do
		case $name in
		redis)
			[ -n "${redis_pid:-}" ] || redis_start
			for t in bare $(tools_twice); do redis_profiled "$t"; done
			flat redis
			keep_twice redis
			redis_profiled same
			redis_profiled threads ;;
		python)
			layout=("${fixed_layout[@]}")
			for t in $(tools_twice); do profiled python "$t" -g "${py_env[@]}" /usr/bin/python3 "$tmp/pywork.py" "$py_rounds"; done
			flat python
			keep_twice python
			same_run python python3 "${py_env[@]}" /usr/bin/python3 "$tmp/pywork.py" "$py_rounds"
			layout=() ;;
		sqlite)
			layout=("${fixed_layout[@]}")
			for t in $(tools_twice); do profiled sqlite "$t" -g "${sql_env[@]}" sqlite3 :memory: "${sql_reads[@]}"; done
			flat sqlite
			keep_twice sqlite
			same_run sqlite sqlite3 "${sql_env[@]}" sqlite3 :memory: "${sql_reads[@]}"
			layout=() ;;
		selftime-*|pollsleep)
			# The callers of the leaf count: perf must unwind the whole
			# stack of a binary built without frame pointers.
			if [ "$name" = pollsleep ]; then
				fn=wait_a_little prog=pollsleep
				cmd=(taskset -c 1 "$tmp/pollsleep" "$pollsleep_s")
			else
				fn=enter_kernel prog=selftime mode=${name#selftime-}
				cmd=("$tmp/selftime" "$mode" "$selftime_s")
			fi
			for t in $(tools); do
				profiled "$name" "$t" "--call-graph dwarf" "${cmd[@]}"
				own=$(own_share "$prog" "$fn")
				[ -n "$own" ] || die "${cmd[*]} printed no share of $fn"
				put "$name.own.$t" "$own"
				if [ "$t" = ct ]; then own_ct=$own; else own_perf=$own; fi
			done
			flat "$name" --cum "$fn"
			if [ "$name" = pollsleep ]; then
				# ppoll's own share, its kernel time in it: perf's
				# DWARF unwinding out of it gave wait_a_little 0.1%
				# in some runs.
				share_ct=$(row_pct "$name" ppoll ct) share_perf=$(row_pct "$name" ppoll perf)
			else
				share_ct=$(cum "$name" "$fn" ct) share_perf=$(cum "$name" "$fn" perf)
			fi
			put "$name.ct_cum" "$share_ct"
			put "$name.perf_cum" "$share_perf"
			put "$name.ct_err" "$(awk -v a="$share_ct" -v b="$own_ct" 'BEGIN { printf "%.3f", a - b }')"
			put "$name.perf_err" "$(awk -v a="$share_perf" -v b="$own_perf" 'BEGIN { printf "%.3f", a - b }')" ;;
		pingpong)
			# Its server thread's samples are those with main on the
			# stack; the client thread's run through client().
			declare -A pp_mine=()
			for t in $(tools); do
				profiled pingpong "$t" "--call-graph dwarf" "$tmp/pingpong" "$pingpong_s"
				grep -q '^pingpong:.* by task-clock$' "$tmp/out" ||
					die "pingpong could not open its task clock (perf_event_open refused): its CPU clock's shares are not comparable (tests/targets/pingpong.c)"
				for fn in do_epoll do_read arith do_write; do
					pp_mine[$t.$fn]=$(pp_own "$fn")
					[ -n "${pp_mine[$t.$fn]}" ] || die "pingpong printed no share of $fn"
					put "pingpong-$fn.own.$t" "${pp_mine[$t.$fn]}"
				done
			done
			flat pingpong --cum main --cum do_epoll --cum do_read --cum arith --cum do_write
			for fn in do_epoll do_read arith do_write; do
				for t in ct perf; do
					share=$(awk -v a="$(cum pingpong "$fn" "$t")" -v m="$(cum pingpong main "$t")" \
						'BEGIN { if (m > 0) printf "%.3f", 100 * a / m }')
					put "pingpong-$fn.${t}_cum" "$share"
					put "pingpong-$fn.${t}_err" "$(awk -v a="$share" -v b="${pp_mine[$t.$fn]}" 'BEGIN { printf "%.3f", a - b }')"
				done
			done ;;
		ratio3)
			for t in $(tools); do
				profiled ratio3 "$t" "--call-graph dwarf" "$tmp/ratio3" ${ratio3_args[@]+"${ratio3_args[@]}"}
				awk '$1 == "ratio3:" { for (i = 2; i < NF; i++) if ($i ~ /^work[123]$/) print $i, $(i + 1) }' \
					"$tmp/out" >"$tmp/own.$t"
				[ "$(wc -l <"$tmp/own.$t")" -eq 3 ] || die "ratio3 printed no CPU times of work1..3"
			done
			flat ratio3 --cum work1 --cum work2 --cum work3
			for t in ct perf; do
				# Shares among the three, the target's (from the same run)
				# and the profiler's; their total variation distance.
				awk -F'\t' -v c="$([ $t = ct ] && echo 3 || echo 4)" \
					'$1 == "#cum" && $2 ~ /^work[123]$/ { print $2, $c }' "$res/ratio3.tsv.$r" >"$tmp/prof.$t"
				awk -v t="$t" -v res="$res" '
					FNR == NR { own[$1] = $2; so += $2; next }
					{ got[$1] = $2; sg += $2 }
					END {
						for (i = 1; i <= 3; i++) {
							w = "work" i
							o = so ? own[w] / so : 0; g = sg ? got[w] / sg : 0
							print 100 * o >>(res "/ratio3.own." w)
							print 100 * g >>(res "/ratio3." t "." w)
							d += (o > g ? o - g : g - o)
						}
						printf "%.6f\n", d / 2 >>(res "/ratio3." t ".tvd_own")
					}' "$tmp/own.$t" "$tmp/prof.$t"
			done ;;
		esac
	done
}

# The report of part 7.
real_report() {
	local name head floor
	cat <<EOF
**7. Accuracy on real programs.** ctprof and \`perf record -e cpu-clock -g\`
(\`--call-graph dwarf\` for the test targets, whose callers count), both at
$real_hz Hz, one after the other on the same workload; their flat self
profiles compared by ELF symbol (scripts/flatcmp.py: code inlined into a
function counts as that function, aliases such as malloc and __libc_malloc
are one, code of a stripped binary outside every symbol is keyed by its
unwind entry, shown as module+0xADDR, and perf's samples in the kernel
count at the user instruction that entered it, as ctprof counts them).
For redis-server, perf records the whole system (\`perf record -a\`, its
samples of redis-server's threads kept): attached to redis's threads
(\`-p\`), perf changes how often redis waits for requests (see the
table of its event loop below) and so the profile it takes.
Distance: total variation distance between the two flat profiles (0 the
same, 1 nothing in common).  From sampling alone: the distance two
profilers that both sample without bias would still have, with these
sample counts and perf's shares (each share's difference taken as normal
with variance p(1-p)(1/N1 + 1/N2)).  perf against perf: the distance
between perf's profiles of two repetitions (the median over every pair):
how far apart two runs of the workload are, sampling included, which no
profiler's distance to perf goes below.  All runs pooled: the same over
the profiles of every repetition added up, each tool's.  perf against
perf, pooled: redis, CPython and sqlite3 run under perf twice in each
repetition (the three runs in an order that rotates), and one of perf's
two runs of every repetition, added up, is compared with the other,
added up: the floor of the pooled distance, as many runs and samples on
each side.

EOF
	if [ -n "${real_skip[all]:-}" ]; then
		printf 'Skipped: %s.\n\n' "${real_skip[all]}"
		return
	fi
	printf '| workload | distance | from sampling alone | perf against perf | all runs pooled | pooled, from sampling alone | perf against perf, pooled (from sampling alone) | ctprof samples | perf samples |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
	for name in "${real_names[@]}"; do
		pooled_flat "$name" all
		pooled_flat "$name" kept
		perf_pairs "$name"
		perf_floor "$name" all
		perf_floor "$name" kept
		floor=n/a
		[ -s "$res/$name.ftvd" ] && floor="$(med "$name.ftvd" %.3f) ($(med "$name.fnoise" %.3f))"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${real_title[$name]}" "$(med "$name.tvd" %.3f)" \
			"$(med "$name.noise" %.3f)" "$(med "$name.pptvd" %.3f)" "$(med "$name.ptvd" %.3f)" \
			"$(med "$name.pnoise" %.3f)" "$floor" "$(med "$name.ct_n" %.0f)" "$(med "$name.perf_n" %.0f)"
	done
	echo
	slowed_table
	if [ -n "${real_title[redis]:-}${real_title[python]:-}${real_title[sqlite]:-}" ]; then
		printf 'The same workloads once more in each repetition, under ctprof while `perf record -a -e cpu-clock -g` (%s Hz) records the whole system, its samples of the workload kept (ctprof at %s Hz: at one rate, perf'"'"'s ticks would keep one phase against ctprof'"'"'s stops): two profiles of one run, all repetitions pooled.  ctprof against perf in the same runs is the error of measurement alone, with no difference between runs in it.  perf with ctprof attached against perf alone (its runs above) is what ctprof'"'"'s stops change in the target, with the runs'"'"' own differences.\n\n' "$same_hz" "$real_hz"
		printf '| workload | ctprof against perf, same runs | from sampling alone | perf with ctprof against perf alone | from sampling alone |\n| --- | --- | --- | --- | --- |\n'
		for name in redis python sqlite; do
			[ -n "${real_title[$name]:-}" ] || continue
			same_pooled "$name"
			printf '| %s | %s | %s | %s | %s |\n' "${real_title[$name]}" "$(med "$name.stvd" %.3f)" \
				"$(med "$name.snoise" %.3f)" "$(med "$name.mtvd" %.3f)" "$(med "$name.mnoise" %.3f)"
		done
		echo
	fi
	if [ -s "$res/redis.ttvd" ]; then
		printf 'redis-server once more in each repetition, under `perf record -p` (a cpu-clock event on each of its threads, timed by its own CPU time, as ctprof'"'"'s perf trigger times samples) while `perf record -a` records the whole system: perf against itself on one run, its two ways of timing samples.  Distance %s (from sampling alone %s), epoll_wait %s points under -p, medians of %s.\n\n' \
			"$(med redis.ttvd %.3f)" "$(med redis.tnoise %.3f)" "$(med redis.tepoll %+.1f)" "$reps"
	fi
	for name in "${real_names[@]}"; do
		printf 'Top functions, %s: self%%, median of %s.\n\n' "${real_title[$name]}" "$reps"
		printf '| function | module | ctprof | perf |\n| --- | --- | --- | --- |\n'
		top "$name" 8
		echo
	done
	if [ -n "${real_title[redis]:-}" ]; then
		printf "redis's own event loop in the same runs, and in a run with no profiler attached: how often it waited in epoll_wait per command served (its voluntary context switches, less ctprof's stops), its CPU time per command, and the commands it served a second. A profiler that changes how many requests one epoll_wait returns changes the profile it takes.\n\n"
		printf '| | no profiler | ctprof | perf record -a | both |\n| --- | --- | --- | --- | --- |\n'
		printf '| waits in epoll_wait per command | %s | %s | %s | %s |\n' "$(med redis.bare.waits %.3f)" \
			"$(med redis.ct.waits %.3f)" "$(med redis.perf.waits %.3f)" "$(med redis.same.waits %.3f)"
		printf '| CPU time per command | %s | %s | %s | %s |\n' "$(us redis.bare.cpu_req)" \
			"$(us redis.ct.cpu_req)" "$(us redis.perf.cpu_req)" "$(us redis.same.cpu_req)"
		printf '| commands a second (served over redis-benchmark'"'"'s wall time) | %s | %s | %s | %s |\n\n' \
			"$(med redis.bare.rps %.0f)" "$(med redis.ct.rps %.0f)" "$(med redis.perf.rps %.0f)" \
			"$(med redis.same.rps %.0f)"
	fi
	head=
	for name in selftime-syscall selftime-fault pollsleep pingpong-do_epoll pingpong-do_read pingpong-arith pingpong-do_write; do
		[ -n "${real_title[$name]:-}" ] || continue
		if [ -z "$head" ]; then
			head=1
			printf 'Self-timing targets: the share of time the timed function had by the target'"'"'s own clock (selftime: enter_kernel, by the TSC; pollsleep: wait_a_little, a ppoll() that works in the kernel before it sleeps, by its thread CPU clock; pingpong: each part of its server thread, by that thread'"'"'s task clock, perf'"'"'s, which runs while it is on a CPU), and of samples with that function on the stack (pollsleep: of samples in ppoll, its kernel time included, which needs no unwinding; pingpong: of its server thread'"'"'s samples, those with main on the stack).  The target measures its own share in every run, and a profiler changes it (its stops and interrupts cost the target time, more in some of its parts than in others): each profiler is compared with the target'"'"'s own share in the same run, and the medians of both are given.\n\n'
			printf '| target | own share under ctprof | ctprof | own share under perf | perf | ctprof - own | perf - own |\n| --- | --- | --- | --- | --- | --- | --- |\n'
		fi
		printf '| %s | %s%% | %s%% | %s%% | %s%% | %s | %s |\n' "${real_title[$name]}" \
			"$(med "$name.own.ct" %.1f)" "$(med "$name.ct_cum" %.1f)" \
			"$(med "$name.own.perf" %.1f)" "$(med "$name.perf_cum" %.1f)" \
			"$(med "$name.ct_err" %+.1f)" "$(med "$name.perf_err" %+.1f)"
	done
	[ -z "$head" ] || echo
	if [ -n "${real_title[ratio3]:-}" ]; then
		printf '%s: each function'"'"'s share of the three (samples with it on the stack), beside the thread CPU times the target measured.\n\n' "${real_title[ratio3]}"
		printf '| | work1 | work2 | work3 | distance to own |\n| --- | --- | --- | --- | --- |\n'
		printf '| own CPU time | %s%% | %s%% | %s%% | 0 |\n' "$(med ratio3.own.work1)" "$(med ratio3.own.work2)" "$(med ratio3.own.work3)"
		printf '| ctprof | %s%% | %s%% | %s%% | %s |\n' "$(med ratio3.ct.work1)" "$(med ratio3.ct.work2)" \
			"$(med ratio3.ct.work3)" "$(med ratio3.ct.tvd_own %.3f)"
		printf '| perf | %s%% | %s%% | %s%% | %s |\n' "$(med ratio3.perf.work1)" "$(med ratio3.perf.work2)" \
			"$(med ratio3.perf.work3)" "$(med ratio3.perf.tvd_own %.3f)"
		echo
	fi
	for name in "${!real_skip[@]}"; do
		printf 'Skipped: %s.\n' "${real_skip[$name]}"
	done
	[ ${#real_skip[@]} -eq 0 ] || echo
}

part7_setup() { real_setup; }
part7_rep() { real_programs; }
report_7() { if want 7; then real_report; fi; }

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	bench_main scripts/bench/real.sh "trigger" 7 "$@"
fi
