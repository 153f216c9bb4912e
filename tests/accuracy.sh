#!/bin/bash
# accuracy: ctprof's shares against programs that keep their own clocks.
#
# selftime loops over a few microseconds of arithmetic and one call of
# enter_kernel(), which enters the kernel once (a getppid, or the first
# touch of a fresh page), and prints the share of its on-CPU time spent in
# that call, measured with the TSC. The report's cum% of enter_kernel (the
# libc and kernel time below it counts) must be within 3 points of it,
# launched and attached. A sample must show where the thread was at the
# tick: a sampler whose stops land where the thread next returns from the
# kernel puts most of the samples on the call instead.
#
# In fault mode, selftime empties its pages with one madvise() every 64 MiB,
# a call of about 1.5 ms that does not sleep, which it times too; the
# report's share of madvise must be within 1 point of it.  With a kernel
# that does not preempt kernel code (PREEMPT_NONE), the thread stops only
# when the call returns: counted as one sample, such a call had 0.7% of
# them where it took 3.0% of the time.
#
# A thread whose code does not enter the kernel has its stops asked for
# while it runs, without a helper (src/sampler/hold.c, "Holding only where it
# counts"): selftime with a first second of such code, then its loop.  The
# loop's share of enter_kernel (its cum% over all but quiet_first's) must
# be within 3 points of its own, and -v must say that the quiet thread
# was found entering the kernel.
#
# ratio3 runs three threads with work 1:2:3 on 2 CPUs, so that one of them
# is often runnable but waiting, and prints the CPU time each thread ran.
# Each work function's self% must be within 20% (relative) of its thread's
# share of the three CPU times: a sampler that counts a runnable thread as
# running gives the short one far more than its share.  Run again with
# --weight=samples, each share of the samples must be within 12% of it.
#
# turns runs three threads that take turns at one lock, as CPython's do
# at their GIL, and prints the share of their CPU time spent taking and
# handing over the lock.  The threads move between CPUs and wait for
# them, and a stop asked for with the wrong CPU held is not counted (-v:
# held stops that found the thread running elsewhere): at most 5% of the
# samples may be lost so (19-47% of those counted before ctprof read
# such threads' CPU at every tick, four runs; 0.1-0.5% after, eight),
# and take_turn and give_turn must have their own share +-3 points.
#
# crowded runs a busy thread on every CPU and a bursty one beside the
# first, and prints the bursty one's CPU time and the process's.  Where a
# thread of the target is found on every CPU at a tick, ctprof does not
# read the threads known to be idle (none can have been on a CPU then),
# which -v counts; the bursty one must still be found at the ticks it
# runs: its share of the samples counted as samples (--weight=samples)
# must be 0.5 to 1.5 times its share of the CPU time (0.72-0.84 in six
# runs on the VM this was written on, before and after that change).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

# own_madvise FILE: selftime's share of its loop in madvise (detail line).
own_madvise() {
	sed -n 's/.* madvise [0-9]* times (\([0-9.]*\)% of the loop).*/\1/p' "$1" | head -1
}

# madvise_pct: the last report's share of madvise, under either name.
madvise_pct() {
	awk -v a="$(cum_pct __madvise)" -v b="$(cum_pct madvise)" 'BEGIN { print (a > b ? a : b) }'
}

# own_share [FILE]: P from selftime's "selftime: enter_kernel P% of S s".
own_share() {
	awk '$1 == "selftime:" && $2 == "enter_kernel" { sub(/%$/, "", $3); print $3; exit }' "${1:-$OUT}"
}

# left_out FILE: the share of its loop that selftime left out (detail line).
left_out() {
	sed -n 's/.* left out (\([0-9.]*\)% of the loop).*/\1/p' "$1" | head -1
}

# near PCT OWN POINTS: the report's PCT is within POINTS of OWN (both given).
near() {
	[ -n "$1" ] && [ -n "$2" ] &&
		awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'
}

# share_check WHAT OWN: the last report's cum% of enter_kernel is within 3
# points of OWN, the target's own share.  Not in the sanitizer build: its
# ctprof is several times slower, its stops and holds longer, and there it
# leans 1 to 4 points towards the page fault (the product's build: -1.3
# to +2.1 in seven runs, +1.1 in the bench's median; perf 0.1 to 0.7), a
# residue whose cause is not known yet.
share_check() {
	local what=$1 own=$2 cum
	cum=$(cum_pct enter_kernel)
	[ -z "${3:-}" ] || cum=$(awk -v c="$cum" -v q="$3" 'BEGIN { if (q < 100) printf "%.2f\n", 100 * c / (100 - q) }')
	diag "$what: enter_kernel $own% by its own clock, cum% $cum in the report"
	if [ -n "${CTPROF_SANITIZED:-}" ]; then
		skip "$what: enter_kernel's cum% is its own share +-3 points" \
			"shares are checked in the normal build; this one checks memory and UB"
		return
	fi
	check "$what: enter_kernel's cum% is its own share +-3 points" near "$cum" "$own" 3
}

# A run whose loop was disturbed is made again, twice at most, and the
# least disturbed of the runs is the one checked (on a busy host all three
# may be: 21 to 26% left out in one CI run, which checked the last).
# new_tries: before the first run.  try_done TRY WHAT [MAX]: after run
# TRY, whose target wrote its detail line to $DETAIL and its share to
# $TOUT; true if the run was not disturbed (less than MAX% of its loop,
# default 15, left out).  use_best WHAT: go on with the least disturbed
# run (OUT, ERR, RC, DETAIL and TOUT are set to it).
new_tries() {
	best_try= best_left=
}
try_done() {
	local left
	left=$(left_out "$DETAIL")
	if [ -n "$left" ] && { [ -z "$best_try" ] || lt "$left" "$best_left"; }; then
		best_try=$1 best_left=$left
		best_out=$OUT best_err=$ERR best_rc=$RC best_detail=$DETAIL best_tout=$TOUT
	fi
	[ -n "$left" ] && lt "$left" "${3:-15}" && return 0
	diag "$2, run $1: ${left:-?}% of its loop left out, disturbed"
	return 1
}
use_best() {
	[ -n "$best_try" ] || return 0
	OUT=$best_out ERR=$best_err RC=$best_rc DETAIL=$best_detail TOUT=$best_tout
	[ "$best_try" = "$try" ] || diag "$1: run $best_try, the least disturbed ($best_left%), is the one checked"
}

plan 40

# 5 s at 999 Hz: ~5000 samples, so that the sampling's own spread (about
# 0.6 points on a 20% share) leaves room in the band for what is not
# noise: in fault mode the report leans up to 2 points towards the fault
# (perf: 0 to 0.7), a residue whose cause is not known yet.
#
# The target's own clock also says when something outside the profile
# disturbed the run: it leaves out its iterations more than twice as long
# as usual (ctprof's stops make about 9% of the loop; a busy host
# machine, 19% in one CI run, where both figures were off; on a slower
# host, 7-8% without ctprof and 17-30% with it).  Such a run is no good
# measure of the profile (see try_done).
for mode in syscall fault; do
	new_tries
	for try in 1 2 3; do
		run_ctprof "selftime-$mode-$try" -F 999 -v -- "$TARGETS/selftime" "$mode" 5
		DETAIL=$ERR TOUT=$OUT
		try_done "$try" "selftime $mode" && break
	done
	use_best "selftime $mode"
	own=$(own_share)
	check "selftime $mode: exit 0, a report, the target's own share" \
		eval 'is_status 0 && has_report && [ -n "$own" ]'
	diag "$(grep '^selftime:' "$ERR")"
	share_check "selftime $mode" "$own"
	[ "$mode" = fault ] || continue
	madv=$(madvise_pct) own_madv=$(own_madvise "$ERR")
	diag "selftime fault: madvise $own_madv% by its own clock, $madv% in the report"
	if [ -n "${CTPROF_SANITIZED:-}" ]; then
		skip "selftime fault: madvise's share is its own +-1 point" \
			"shares are checked in the normal build; this one checks memory and UB"
	else
		check "selftime fault: madvise's share is its own +-1 point" near "$madv" "$own_madv" 1
	fi
done

# A first second that does not enter the kernel, then the loop.
for mode in syscall fault; do
	new_tries
	for try in 1 2 3; do
		run_ctprof "quiet-$mode-$try" --trigger=timer -F 999 -v -- "$TARGETS/selftime" "$mode" 3 1
		DETAIL=$ERR TOUT=$OUT
		try_done "$try" "selftime $mode after a quiet second" && break
	done
	use_best "selftime $mode after a quiet second"
	own=$(own_share)
	quiet=$(cum_pct quiet_first)
	check "selftime $mode after a quiet second: exit 0, a report, its own share" \
		eval 'is_status 0 && has_report && [ -n "$own" ] && [ -n "$quiet" ]'
	diag "$(grep '^profiler: .* samples asked for' "$OUT")"
	share_check "selftime $mode after a quiet second (its loop: all but quiet_first's $quiet%)" "$own" "$quiet"
	check "... -v: the quiet thread was found entering the kernel" \
		grep -Eq '^profiler: .* [1-9][0-9]* times it was found to after all$' "$OUT"
done

# Attached for 2 s in the middle of a 4 s run, past the target's warm-up:
# its share over the whole run and the report's over those 2 s are both of
# the same steady loop.
if ptrace_works attach; then
	new_tries
	for try in 1 2 3; do
		"$TARGETS/selftime" syscall 4 >"$TMP/attached-$try.target" 2>"$TMP/attached-$try.detail" &
		pid=$!
		bg_started "$pid"
		sleep 0.5
		run_ctprof "selftime-attached-$try" -F 999 -v -d 2 -p "$pid"
		report=$OUT ctprof_rc=$RC
		wait_child "$pid" 30
		# OUT: ctprof's report; RC: the target's exit status.
		OUT=$report RC="$ctprof_rc $RC" DETAIL=$TMP/attached-$try.detail TOUT=$TMP/attached-$try.target
		try_done "$try" "selftime syscall attached" && break
	done
	use_best "selftime syscall attached"
	ctprof_rc=${RC% *} RC=${RC#* }
	check "attached to selftime syscall: exit 0 and a report" \
		eval '[ "$ctprof_rc" = 0 ] && has_report "$OUT"'
	own=$(own_share "$TOUT")
	check "the target ran on, exit 0, and printed its share" \
		eval 'is_status 0 && [ -n "$own" ]'
	diag "$(grep '^selftime:' "$DETAIL")"
	share_check "selftime syscall, attached" "$own"
else
	skip "attached to selftime syscall: exit 0 and a report" "$PTRACE_WHY"
	skip "the target ran on, exit 0, and printed its share" "$PTRACE_WHY"
	skip "selftime syscall, attached: enter_kernel's cum% is its own share +-3 points" "$PTRACE_WHY"
fi

# At 10 Hz ctprof comes later to each tick, having slept 100 ms: with a
# helper's hold limited to 200 us as at 99 Hz, 9-50% of the holds were
# given up before the stops were asked for (three runs of 15 s), and the
# stops were then put off or asked for unheld, in the worst run with the
# call at 87.5% where its clock said 16.4%.  Held up to a 50th of the
# period now (2 ms): none given up in three runs.  80 samples: the
# share's band is 15 points (its sampling spread is about 4).
given_up() {
	sed -n 's/.* \([0-9][0-9]*\) holds given up before the stops.*/\1/p' "$OUT"
}
run_ctprof selftime-10hz -F 10 -v -- "$TARGETS/selftime" syscall 8
own=$(own_share) n=$(total_samples) gave=$(given_up)
diag "10 Hz: enter_kernel $own% by its own clock, cum% $(cum_pct enter_kernel); ${gave:-no count of} holds given up in $n samples"
check "10 Hz: at most a tenth of the holds given up (-v: ${gave:-none})" \
	eval '[ -n "$gave" ] && [ -n "$n" ] && le "$((gave * 10))" "$n"'
check "10 Hz: enter_kernel's cum% is its own share +-15 points" near "$(cum_pct enter_kernel)" "$own" 15

# pollsleep: a ppoll() of 900 descriptors that works in the kernel before
# it sleeps, pinned to one CPU, ctprof free to run on either.  A tick in
# that work finds the thread off its CPU when the helper or ctprof gets
# it: it counts only if the thread is seen to have left its CPU after
# the tick (src/sampler/attick.c, slept_after_tick()).  Its own clock gives the
# call 51-53% of its CPU time on the VM measured; ctprof gave 35-41%
# until the moment the thread left was put on ctprof's clock from the
# takes before, 44-48% since (perf: 57.6%).  The band is 12 points: the
# work after the sleep has no sample of its own where the tick's
# interrupt waits for the call's return (docs/DESIGN.md, "Known limits, measured"), and on
# an earlier VM, where it always did, ctprof was 7.3-10.8 points under
# in bench runs before that change.  The timer's path, which all this is
# about: under the perf trigger the kernel's tick in that work comes
# when the call has re-enabled interrupts, as perf's does, and the call
# had 20% against its own 41% in one CI run (perf -a in a bench run:
# 16.5% against 39.6%; ctprof 20.3%), 46-49% in others.
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	run_ctprof pollsleep --trigger=timer -F 999 -- taskset -c 1 "$TARGETS/pollsleep" 3
	own=$(awk '$1 == "pollsleep:" && $2 == "wait_a_little" { sub(/%$/, "", $3); print $3; exit }' "$OUT")
	check "pollsleep: exit 0, a report, its own share" eval 'is_status 0 && has_report && [ -n "$own" ]'
	cum=$(cum_pct wait_a_little)
	diag "pollsleep: wait_a_little $own% by its own clock, cum% $cum in the report"
	if [ -n "${CTPROF_SANITIZED:-}" ]; then
		skip "pollsleep: wait_a_little's cum% is its own share +-12 points" \
			"shares are checked in the normal build; this one checks memory and UB"
	else
		check "pollsleep: wait_a_little's cum% is its own share +-12 points" near "$cum" "$own" 12
	fi
else
	skip "pollsleep: exit 0, a report, its own share" "needs 2 CPUs and taskset"
	skip "pollsleep: wait_a_little's cum% is its own share +-12 points" "needs 2 CPUs and taskset"
fi

# pingpong: a server thread that sleeps in epoll_wait() until its client
# thread's request comes, then read()s it, works on it a few microseconds
# and write()s the reply, and times each of the three, and its
# epoll_wait(), with its task clock (perf's; its CPU clock if
# perf_event_open() is refused, and then the shares are not checked: that
# clock gives epoll_wait() the time the thread's CPU takes to switch to it
# after each wake-up, which no tick finds it running in, so that each
# other part's share by that clock is under its share of the profile:
# read()'s by 1.3-4.5 points in six runs on the VM measured, and by over
# 4 in four of eight earlier runs of this test).  Under the timer's path,
# which the figures here are of, the report's shares of the server
# thread's time (its folded stacks) must be within 4 points of its own
# for do_read and do_write, 3 for arith.  By the task clock, six
# runs: ctprof -1.3 to +0.9 points on do_read, -1.5 to -0.75 on arith,
# -0.8 to +0.2 on do_write.  By the CPU
# clock, on an earlier VM, five runs: -0.7 to +0.9, -1.0 to +0.8, +0.1 to
# +1.3; 36d66ac, whose stops landed where the thread next left the
# kernel: -12.4 and -9.1, -3.4 and -3.2, -7.9 and -7.0 (two runs).  Under
# ctprof at 999 Hz the target leaves 10-25% of its loop out (4-10%
# alone): up to 30% is not taken for a disturbed run.
# do_epoll: the kernel's work around epoll_wait()'s sleep.  By the task
# clock ctprof gave it 4.4-5.6 points less in the six runs (by the CPU
# clock, 9.1-10.0 less in six alternating with them): the clock runs on
# after the thread has left the scheduler's queue to sleep, while the
# scheduler picks what runs next on its CPU, time it charges to no
# thread and ctprof does not sample (docs/DESIGN.md, "Known limits, measured").  Shown, not
# checked.
# pp_share FILE FUNC: FUNC's share of the server thread's samples, from
# folded stacks (the server's run through main).
pp_share() {
	awk -v f="$2" 'index($0, ";main;") {
		n = $NF; t += n
		if (index($0, ";" f ";") || index($0, ";" f " ")) s += n
	} END { if (t) printf "%.2f\n", 100 * s / t }' "$1"
}
# pp_own FUNC [FILE]: FUNC's share by pingpong's own clock.
pp_own() {
	awk -v f="$1" '$1 == "pingpong:" { for (i = 2; i < NF; i++) if ($i == f) { sub(/%$/, "", $(i + 1)); print $(i + 1); exit } }' "${2:-$TOUT}"
}
# pingpong_pass TRIGGER BAND: pingpong under --trigger=TRIGGER (auto:
# the default), its shares checked with do_read's and do_write's band
# BAND points (arith's 3).
pingpong_pass() {
	local trig=$1 rw=$2 f name band own got folded
	new_tries
	for try in 1 2 3; do
		run_ctprof "pingpong-$trig-$try" --trigger="$trig" -F 999 -o "$TMP/pingpong-$trig-$try.folded" \
			-o "$TMP/pingpong-$trig-$try.txt" -- "$TARGETS/pingpong" 5
		DETAIL=$ERR TOUT=$OUT
		try_done "$try" "pingpong, $trig" 30 && break
	done
	use_best "pingpong, $trig"
	folded=$TMP/pingpong-$trig-${best_try:-$try}.folded
	check "pingpong, --trigger=$trig: exit 0, a report, its own shares" \
		eval 'is_status 0 && has_report "${folded%.folded}.txt" && [ -n "$(pp_own do_write)" ] && [ -s "$folded" ]'
	diag "$(grep '^pingpong:' "$TOUT" "$DETAIL")"
	for f in do_read:$rw arith:3 do_write:$rw; do
		name=${f%:*} band=${f#*:}
		own=$(pp_own "$name") got=$(pp_share "$folded" "$name")
		diag "pingpong, $trig: $name $own% of the server's time by its own clock, $got% of its samples"
		if [ -n "${CTPROF_SANITIZED:-}" ]; then
			skip "pingpong, --trigger=$trig: $name's share is its own +-$band points" \
				"shares are checked in the normal build; this one checks memory and UB"
		elif ! grep -q '^pingpong:.* by task-clock$' "$TOUT"; then
			skip "pingpong, --trigger=$trig: $name's share is its own +-$band points" \
				"perf_event_open() refused pingpong its task clock (see the comment above)"
		else
			check "pingpong, --trigger=$trig: $name's share is its own +-$band points" near "$got" "$own" "$band"
		fi
	done
	diag "pingpong, $trig: do_epoll $(pp_own do_epoll)% of the server's time by its own clock, $(pp_share "$folded" do_epoll)% of its samples"
}
# The timer's path, which the figures above are of.
pingpong_pass timer 4
# The default: the perf trigger, where perf events are allowed.  Each
# thread's event is timed by its CPU clock, and a sample due shortly
# before the thread goes to sleep can come only after it wakes, in the
# call it slept in: on the VM measured on 2026-12-06 (a timer's wake-up
# 99 us late at the median) the perf trigger gave do_epoll 30-37% of the
# samples where its own clock said 23-25%, and do_read 5-7 points under
# its own (the timer: 13-15% against 15%, read within 1.3 points), and
# perf record's own per-thread mode did the same in the bench (part 7 at
# 0a0cc45: do_epoll +11.5 points, do_read -5.5; ctprof +8.3, -6.0).  On
# the VM of bce225e's bench, -4.0 and +0.7 (perf -5.5, +0.3).  Its band
# for do_read and do_write is 8 points.
pingpong_pass auto 8

run_ctprof ratio3 -F 999 -- "$TARGETS/ratio3"
read -r cpu1 cpu2 cpu3 < <(awk '$1 == "ratio3:" { print $3, $6, $9; exit }' "$OUT")
check "ratio3: exit 0, a report, each thread's CPU time" \
	eval 'is_status 0 && has_report && [ -n "$cpu3" ]'
diag "ratio3: CPU time by the threads' own clocks: work1 $cpu1 s, work2 $cpu2 s, work3 $cpu3 s"
check "work1's self% is its thread's share of the CPU time +-20%" in_share "$(self_pct work1)" "$cpu1"
check "work2's self% is its thread's share of the CPU time +-20%" in_share "$(self_pct work2)" "$cpu2"
check "work3's self% is its thread's share of the CPU time +-20%" in_share "$(self_pct work3)" "$cpu3"

# Counted as samples, the shares are right only if no thread waiting for
# a CPU is stopped: ctprof then holds every CPU (src/sampler/hold.c, "Holding
# only where it counts").  Not held there, work2 had 36-39% of the samples
# in three runs (7-18% over its share), and this check failed in two of
# three more.
run_ctprof ratio3-samples -F 999 -v --weight=samples -- "$TARGETS/ratio3"
read -r cpu1 cpu2 cpu3 < <(awk '$1 == "ratio3:" { print $3, $6, $9; exit }' "$OUT")
check "ratio3 --weight=samples: exit 0, a report, each thread's CPU time" \
	eval 'is_status 0 && has_report && [ -n "$cpu3" ]'
diag "ratio3 --weight=samples: CPU time by the threads' own clocks: work1 $cpu1 s, work2 $cpu2 s, work3 $cpu3 s"
for w in 1 2 3; do
	name="ratio3 --weight=samples: work$w's share of the samples is its thread's share of the CPU time +-12%"
	cpu=cpu$w
	if grep -q '(0 helpers)' "$ERR" "$OUT"; then
		skip "$name" "no helpers (no real-time priority)"
	elif ! grep -q '^se.exec_start' /proc/self/sched 2>/dev/null; then
		skip "$name" "the kernel does not say when a thread left its CPU (docs/DESIGN.md, Known limits)"
	elif [ -n "${CTPROF_SANITIZED:-}" ]; then
		skip "$name" "shares are checked in the normal build; this one checks memory and UB"
	else
		check "$name" in_share "$(self_pct "work$w")" "${!cpu}" 0.12
	fi
done

run_ctprof turns -F 999 -v -- "$TARGETS/turns" 3
own=$(awk '$1 == "turns:" && $2 == "handover" { sub(/%$/, "", $3); print $3; exit }' "$OUT")
check "turns: exit 0, a report, its own share" eval 'is_status 0 && has_report && [ -n "$own" ]'
read -r samples lost < <(sed -n 's/^profiler: [0-9]* ticks, \([0-9]*\) samples.*/\1/p; s/.* \([0-9]*\) held stops that found the thread running elsewhere.*/\1/p' "$OUT" | paste -sd' ')
got=$(awk -v a="$(cum_pct take_turn)" -v b="$(cum_pct give_turn)" 'BEGIN { print a + b }')
diag "turns: hand-over $own% of the CPU time by its own clock, $got% of the report; $samples samples, ${lost:-?} held stops not counted"
check "turns: at most 5% of the samples lost to held stops that found the thread elsewhere" \
	awk -v s="${samples:-0}" -v l="${lost:-x}" 'BEGIN { exit !(s > 0 && l ~ /^[0-9]+$/ && l <= 0.05 * s) }'
if [ -n "${CTPROF_SANITIZED:-}" ]; then
	skip "turns: take_turn and give_turn have their own share +-3 points" \
		"shares are checked in the normal build; this one checks memory and UB"
else
	check "turns: take_turn and give_turn have their own share +-3 points" near "$got" "$own" 3
fi

run_ctprof crowded -F 999 -v --weight=samples -- "$TARGETS/crowded" 2
read -r bursty total < <(awk '$1 == "crowded:" { print $3, $6; exit }' "$OUT")
check "crowded: exit 0, a report, its CPU times" eval 'is_status 0 && has_report && [ -n "$total" ]'
left=$(sed -n 's/.* \([0-9]*\) reads of idle threads left out.*/\1/p' "$ERR" "$OUT" | head -1)
diag "crowded: the bursty thread ran $bursty s of $total s; bursty_work $(self_pct bursty_work)% of the samples; $left reads of idle threads left out"
if grep -q '(0 helpers)' "$ERR" "$OUT"; then
	skip "crowded: reads of idle threads were left out" "no helpers (no real-time priority)"
else
	check "crowded: reads of idle threads were left out" ge "${left:-0}" 1
fi
if [ -n "${CTPROF_SANITIZED:-}" ]; then
	skip "crowded: bursty_work's share of the samples is 0.5-1.5 times its share of the CPU time" \
		"shares are checked in the normal build; this one checks memory and UB"
else
	check "crowded: bursty_work's share of the samples is 0.5-1.5 times its share of the CPU time" \
		awk -v p="$(self_pct bursty_work)" -v b="$bursty" -v t="$total" 'BEGIN {
			e = 100 * b / t
			printf "# self%% %.1f, its CPU share %.1f, band %.1f..%.1f\n", p, e, e * 0.5, e * 1.5
			exit !(t > 0 && p >= e * 0.5 && p <= e * 1.5)
		}'
fi
finish
