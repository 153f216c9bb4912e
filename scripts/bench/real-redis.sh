#!/bin/bash
# Part 7 of the benchmark, its redis-server: started on a loopback port,
# profiled while redis-benchmark drives it (ctprof -p, perf record -a, both,
# perf -p beside perf -a, or nothing attached), its own event loop read
# around each run.  Not run by itself: scripts/bench/real.sh sources it
# (scripts/bench/real.sh -n 3 runs part 7 alone).
#
# shellcheck disable=SC2154  # flatcmp, redis_args, ...: real.sh's; r, res, tmp: lib.sh's

# redis_start: redis-server on a free loopback port, no persistence, its
# files in the temporary directory.  Sets redis_pid and redis_port.
redis_start() {
	local i
	mkdir -p "$tmp/redis"
	for _ in 1 2 3; do
		redis_port=$((20000 + RANDOM % 20000))
		redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
			--daemonize no --dir "$tmp/redis" >"$tmp/redis/log" 2>&1 &
		redis_pid=$!
		bg_pids+=("$redis_pid")
		for ((i = 0; i < 100; i++)); do
			if redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG; then return 0; fi
			kill -0 "$redis_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	done
	tail -5 "$tmp/redis/log" >&2
	die "redis-server did not start"
}

# redis_loop: redis-server's voluntary context switches, CPU time (ns)
# and commands served so far, on one line.
redis_loop() {
	local v r c
	v=$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$redis_pid/status" 2>/dev/null)
	r=$(awk '{ print $1 }' "/proc/$redis_pid/schedstat" 2>/dev/null)
	c=$(redis-cli -h 127.0.0.1 -p "$redis_port" info stats 2>/dev/null |
		tr -d '\r' | awk -F: '$1 == "total_commands_processed" { print $2 }')
	echo "${v:-} ${r:-} ${c:-}"
}

# redis_profiled TOOL: TOOL attached to redis-server from just before
# redis-benchmark starts until it ends (SIGINT then, as Ctrl-C would); TOOL
# perf2: perf again, its profile kept as redis.B.*; TOOL bare: nothing
# attached; TOOL same: ctprof attached while perf -a
# records, their profiles kept as redis.same.R.pb.gz and .script for
# same_pooled; TOOL threads: perf -p while perf -a records, compared.  Around the benchmark, redis's voluntary context
# switches (each a wait in epoll_wait, or a stop of ctprof's), its CPU time
# and the commands it served are read, for how the profiler changed
# redis's own event loop.  Nothing else is attached: perf stat counting
# its system calls (tracepoints at every entry) made ctprof's profile of
# it 0.33 from perf's in a run where 0.10 was usual.
redis_profiled() {
	local tool=$1 pid= ppid= rc=0 prc=0 pprc=0 v0 v1 r0 r1 c0 c1 w0 w1 stops=0 pf=
	if [ "$tool" = bare ]; then
		:
	elif [ "$tool" = threads ]; then
		# perf's own per-thread mode (-p: a cpu-clock event on each of
		# redis's threads, as ctprof's perf trigger has) while perf -a
		# records: how far the two ways of timing samples are apart on
		# one run.
		rm -f "$tmp/redis.ta.data" "$tmp/redis.tp.data"
		perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/redis.ta.data" \
			>"$tmp/perf.out" 2>"$tmp/perf.err" &
		ppid=$!
		bg_pids+=("$ppid")
		sleep 0.5
		perf record -q -p "$redis_pid" -e cpu-clock -F "$real_hz" -g -o "$tmp/redis.tp.data" \
			>"$tmp/prof.out" 2>"$tmp/prof.err" &
	elif [ "$tool" = ct ] || [ "$tool" = same ]; then
		if [ "$tool" = same ]; then
			# Both at once: perf -a started first, so that it records
			# all of ctprof's time attached.
			rm -f "$tmp/redis.same.data"
			perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/redis.same.data" \
				>"$tmp/perf.out" 2>"$tmp/perf.err" &
			ppid=$!
			bg_pids+=("$ppid")
			sleep 0.5
		fi
		rm -f "$tmp/redis.pb.gz" "$tmp/redis.txt"
		"$ctprof" ${unwopt[libunwind]} -F "$real_hz" -p "$redis_pid" -v -o "$tmp/redis.pb.gz" \
			-o "$tmp/redis.txt" >"$tmp/prof.out" 2>"$tmp/prof.err" &
	else
		# System-wide, its samples of redis's threads kept: attached
		# to redis's threads (-p), perf made redis wait in epoll_wait
		# a third less often per command (0.11 at 999 Hz, 0.13 at 99
		# Hz, against 0.16-0.165 with nothing attached and 0.165-0.17
		# under perf -a), and its profile was 0.075-0.10 from perf's
		# system-wide one.
		pf=redis
		[ "$tool" = perf ] || pf=redis.B
		rm -f "$tmp/$pf.data" "$tmp/$pf.script"
		perf record -q -a -e cpu-clock -F "$real_hz" -g -o "$tmp/$pf.data" \
			>"$tmp/prof.out" 2>"$tmp/prof.err" &
	fi
	if [ "$tool" != bare ]; then
		pid=$!
		bg_pids+=("$pid")
	fi
	sleep 0.5       # attached before the first request
	read -r v0 r0 c0 < <(redis_loop)
	w0=$(date +%s%N)
	timeout --foreground -k 10 180 redis-benchmark -h 127.0.0.1 -p "$redis_port" "${redis_args[@]}" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	w1=$(date +%s%N)
	interrupted "$rc"
	read -r v1 r1 c1 < <(redis_loop)
	case $tool in
	ct|perf|perf2) [ -z "$r0" ] || [ -z "$r1" ] || note_cost redis "$tool" "$((r1 - r0))" ;;
	esac
	if [ -n "$pid" ]; then
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" || prc=$?
	fi
	if [ -n "$ppid" ]; then
		kill -INT "$ppid" 2>/dev/null || true
		wait "$ppid" || pprc=$?
		case $pprc in
		0|130) ;;
		*) tail -5 "$tmp/perf.err" >&2; die "perf record -a beside ctprof failed with status $pprc" ;;
		esac
	fi
	[ "$rc" -eq 0 ] || { tail -5 "$tmp/err" >&2; die "redis-benchmark failed with status $rc"; }
	if [ "${tool#perf}" != "$tool" ] && [ "$prc" -eq 0 -o "$prc" -eq 130 ]; then
		perf script -i "$tmp/$pf.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/$pf.script" 2>/dev/null ||
			die "perf script failed on the system-wide profile of redis-server"
	fi
	if [ "$tool" = threads ] && [ "$prc" -eq 0 -o "$prc" -eq 130 ]; then
		perf script -i "$tmp/redis.ta.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.ta.script" 2>/dev/null &&
		perf script -i "$tmp/redis.tp.data" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.tp.script" 2>/dev/null ||
			die "perf script failed on perf -p and perf -a's profiles of one run of redis-server"
		"${flatcmp[@]}" --tsv "$tmp/redis.tp.script" --perf-script "$tmp/redis.ta.script" \
			>"$res/redis.tsv.threads" 2>/dev/null || die "flatcmp failed on perf -p against perf -a"
		put redis.ttvd "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$res/redis.tsv.threads")"
		put redis.tnoise "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$res/redis.tsv.threads")"
		put redis.tepoll "$(awk -F'\t' '$4 == "epoll_wait" { print $1 - $2; exit }' "$res/redis.tsv.threads")"
	fi
	if [ "$tool" = same ] && [ "$prc" -eq 0 ]; then
		perf script -i "$tmp/redis.same.data" --pid "$redis_pid" -F tid,period,ip,sym,symoff,dso \
			--no-inline --no-demangle >"$tmp/redis.same.$r.script" 2>/dev/null ||
			die "perf script failed on the system-wide profile of redis-server under ctprof"
		cp "$tmp/redis.pb.gz" "$tmp/redis.same.$r.pb.gz"
	fi
	# ctprof's stops are voluntary switches too: its -v lines count them.
	if [ "$tool" = ct -o "$tool" = same ] && [ -s "$tmp/redis.txt" ]; then
		stops=$(awk '/^profiler: / {
			for (i = 2; i <= NF; i++) {
				if ($i == "samples" && $(i + 1) == "asked") n += $(i - 1)
				if ($i == "while" && $(i + 1) == "it") n += $(i - 1)
				if ($i == "probe" && $(i + 1) == "stops") n += $(i - 1)
				if ($i == "stops" && $(i + 1) == "found") n += $(i - 1)
			}
		} END { print n + 0 }' "$tmp/redis.txt")
	fi
	# Per command served: redis's waits, and its CPU time in us.
	if [ -n "$v0" ] && [ -n "$v1" ] && [ -n "$c0" ] && [ -n "$c1" ] && [ "$c1" -gt "$c0" ]; then
		put "redis.$tool.waits" "$(awk -v v="$((v1 - v0 - ${stops:-0}))" -v c="$((c1 - c0))" 'BEGIN { printf "%.4f", v / c }')"
		put "redis.$tool.cpu_req" "$(awk -v r="$((r1 - r0))" -v c="$((c1 - c0))" 'BEGIN { printf "%.3f", r / 1000 / c }')"
		put "redis.$tool.rps" "$(awk -v w="$((w1 - w0))" -v c="$((c1 - c0))" 'BEGIN { printf "%.0f", c * 1e9 / w }')"
	fi
	[ "$tool" != bare ] || return 0
	# perf ends by raising SIGINT again once its file is written (130).
	case $tool:$prc in
	ct:0|same:0|perf:0|perf:130|perf2:0|perf2:130|threads:0|threads:130) ;;
	*) tail -5 "$tmp/prof.err" >&2; die "$tool attached to redis-server failed with status $prc" ;;
	esac
}
