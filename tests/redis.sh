#!/bin/bash
# A real server from Debian: redis-server on loopback, driven by its own
# benchmark client (a bounded number of requests), while ctprof profiles
# it at 999 Hz.  A preloaded library (targets/eintrcount.c) counts the
# EINTRs its epoll_wait returns to redis: there must be none, and no
# request may fail; then the same in wall-clock mode (--wall), which
# stops redis's blocked threads too.  (A syscall tracer would count the EINTRs that ctprof
# hands back to the kernel to restart, which redis never sees.)
# And redis is sampled as often as it runs: its samples at 999 Hz stand
# for about the CPU time the kernel gave it.  When ctprof read the
# threads' states a little before each tick, it took a CPU from the
# benchmark then, and redis, out of requests, was asleep by the tick: a
# third to a half of its CPU time was in samples.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach
for c in redis-server redis-benchmark redis-cli; do
	command -v "$c" >/dev/null || skip_all "$c is not installed"
done
# Debian's redis-server is a link to redis-check-rdb: the module's name.
module=$(basename "$(readlink -f "$(command -v redis-server)")")

plan 15
port=$((20000 + RANDOM % 20000))
LD_PRELOAD=$TARGETS/libeintrcount.so EINTR_COUNT_FILE=$TMP/eintr \
	redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no >"$TMP/redis.log" 2>&1 &
rpid=$!
bg_started "$rpid"
WAIT_SECS=10 wait_for redis-cli -p "$port" ping >/dev/null 2>&1 ||
	{ echo "Bail out! redis-server did not start"; exit 1; }

check "the EINTR counter is loaded in redis" test "$(cat "$TMP/eintr" 2>/dev/null)" = 0

# profiled_bench REPORT CTPROF_OPTION...: ctprof attached to redis for 4 s
# at 999 Hz, writing REPORT, while redis-benchmark sends it 40000 requests.
# Sets OUT, brc and crc (the benchmark's and ctprof's status); the
# benchmark's two result lines are in $TMP/bench.txt and the log.
profiled_bench() {
	local report=$1 cpid
	shift
	"$CTPROF" "$@" -F 999 -d 4 -p "$rpid" -o "$report" 2>"$report.err" &
	cpid=$!
	bg_started "$cpid"
	sleep 0.3
	redis-benchmark -p "$port" -q -n 40000 -c 4 -t set,get >"$TMP/bench.out" 2>&1
	brc=$?
	wait_child "$cpid" 20
	crc=$RC
	OUT=$report
	tr '\r' '\n' <"$TMP/bench.out" | grep 'requests per second' | tail -2 >"$TMP/bench.txt"
	diag_file "$TMP/bench.txt"
}

# rate_of REPORT: samples / 999 Hz over the CPU time the kernel gave
# redis, from "A s in samples, B s by 999 Hz sampling, C s accounted by
# the kernel".
rate_of() {
	awk '/^on-CPU profile over/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "by" && $(i + 2) == "Hz") b = $(i - 2)
			if ($i == "accounted") c = $(i - 2)
		}
		if (c > 0) printf "%.2f", b / c }' "$1"
}
in_band() {
	awk -v r="${1:-0}" 'BEGIN { exit !(r >= 0.75 && r <= 1.3) }'
}

# The timer's path (the default where perf_event_open is refused), and
# -v: should the sampling check fail, the report it prints says how the
# sampler's stops went.
profiled_bench "$TMP/redis.txt" --trigger=timer -v
diag "EINTRs seen by redis: $(cat "$TMP/eintr")"
check "redis-benchmark completed (exit 0)" test "$brc" = 0
check "SET and GET both ran" test "$(grep -c 'requests per second' "$TMP/bench.txt")" = 2
check "ctprof exits 0 with a report" eval '[ "$crc" = 0 ] && has_report "$OUT"'
check "redis's own code is in the profile ([$module])" grep -q "\\[$module\\]" "$OUT"
ratio=$(rate_of "$OUT")
diag "redis's samples / 999 Hz over its CPU time: ${ratio:-none}"
# A host that slows down for seconds moves the rate either way: in one
# CI run whose syscalls took ten times as long as usual (ctprof's own
# CPU 626 us a sample), 0.73, and in a later run 0.61; beside a
# SCHED_FIFO thread per CPU spinning 20-100 us every 100-400 us
# (targets/rtsteal.c), 1.22-1.72 (why is not known yet: AWAKE_SLACK_NS
# at 2 us instead of 30 gave the same).
# So a rate out of the band is measured once more, and the second run
# is checked: a sampler that misses redis's ticks misses them in both.
# The sanitizer build is checked too.  It was not when, in CI's full
# sanitizer runs, redis was sampled at 0.28, 0.41 and 0.51 of its CPU
# time in three runs of three, the helpers waking 16.9 us after the tick
# where 1.8 us is usual: the same delay, where ctprof shares its CPU with
# redis-benchmark, sampled redis at 0.39-0.48 of it in the normal build,
# and there is none there now (follow_arrival() in src/sampler/interrupt.c).
if ! in_band "$ratio"; then
	diag "--- out of the band: the sampler's figures, then a second run"
	diag_file "$OUT"
	profiled_bench "$TMP/redis2.txt" -v
	ratio=$(rate_of "$OUT")
	diag "second run: redis's samples / 999 Hz over its CPU time: ${ratio:-none}"
fi
check "redis is sampled as often as it runs (samples / 999 Hz within 0.75-1.3 of its CPU time)" \
	in_band "$ratio"
check "redis's epoll_wait returned no EINTR" test "$(cat "$TMP/eintr")" = 0
check "redis is left untraced and answering" \
	eval 'untraced "$rpid" && redis-cli -p "$port" ping | grep -q PONG'

# The default trigger (the kernel's task-clock events, into rings where
# they may be had): its samples stand for the CPU time redis ran, a period
# each (-v's counts), against the kernel's count of it (/proc's utime and
# stime, at its scheduler tick).  Samples a full ring lost are not in it.
ticks_of() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
hz=$(getconf CLK_TCK)
t0=$(ticks_of "$rpid")
profiled_bench "$TMP/default.txt" -v
t1=$(ticks_of "$rpid")
diag "default trigger: $(grep -m1 '^trigger' "$OUT"); EINTRs seen by redis: $(cat "$TMP/eintr")"
check "default trigger: redis-benchmark completed, SET and GET; ctprof exits 0 with a report" \
	eval '[ "$brc" = 0 ] && [ "$(grep -c "requests per second" "$TMP/bench.txt")" = 2 ] &&
	      [ "$crc" = 0 ] && has_report "$OUT"'
if grep -q '^on-CPU profile over .* timed by the kernel' "$OUT"; then
	ratio=$(awk -v cpu="$(((t1 - t0)))" -v hz="$hz" '
		/^trigger: perf:/ { for (i = 1; i <= NF; i++) if ($i == "samples" && ($(i + 1) == "from")) n += $(i - 1) }
		/^trigger: kernel-mode ticks into rings:/ { n += $6 }
		END { if (cpu > 0) printf "%.2f", n / 999 / (cpu / hz) }' "$OUT")
	diag "default trigger: redis's samples / 999 Hz over its CPU time by /proc ($((t1 - t0)) ticks): ${ratio:-none}"
	check "default trigger: redis is sampled as often as it runs (0.75-1.3)" in_band "$ratio"
else
	skip "default trigger: redis is sampled as often as it runs (0.75-1.3)" \
		"the default here is the timer (perf_event_open refused): checked above"
fi
check "default trigger: redis's epoll_wait returned no EINTR" test "$(cat "$TMP/eintr")" = 0

# --wall: the blocked threads are stopped too, once per wait.
profiled_bench "$TMP/wall.txt" --wall -v
diag "--wall: EINTRs seen by redis: $(cat "$TMP/eintr"); $(grep 'stops of blocked' "$OUT")"
check "--wall: redis-benchmark completed, SET and GET" \
	eval '[ "$brc" = 0 ] && [ "$(grep -c "requests per second" "$TMP/bench.txt")" = 2 ]'
check "--wall: a wall-clock report that shows redis waiting in epoll_wait" \
	eval '[ "$crc" = 0 ] && grep -q "^wall-clock profile" "$OUT" && grep -q "\[syscall: epoll_wait\]" "$OUT"'
check "--wall: redis's epoll_wait returned no EINTR" test "$(cat "$TMP/eintr")" = 0
check "--wall: redis is left untraced and answering" \
	eval 'untraced "$rpid" && redis-cli -p "$port" ping | grep -q PONG'
finish
