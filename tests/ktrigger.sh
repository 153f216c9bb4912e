#!/bin/bash
# ktrigger: the kernel-timed trigger, both ways: --trigger=perf (each
# thread's samples into a ring, no stops) and --trigger=perf-stop (each
# sample a stop by the event's signal), as root and as an unprivileged
# user (nobody, through setpriv, when run as root).
#
# urgself has a handler of its own for SIGWINCH and SIGURG, the signals
# perf-stop's events send, and sends itself a few of each.  Launched and
# attached, the handler must run exactly as often as it sent one: every
# signal of ctprof's is taken, none of the program's.  Under perf-stop its
# worker that blocks every signal is sampled by the timer (-v counts it),
# the one that blocks them in short sections by its event, late; under
# perf every thread has a ring and none is late.  All must have samples.
# (trigger.sh SIGKILLs ctprof at random moments.)
#
# selftime (see accuracy.sh) enters the kernel between bursts of
# arithmetic and times itself: its call's share must be within 3 points of
# its own clock's.  As root the kernel's ticks are sampled under the call
# (enter_kernel's cum%); unprivileged they are a [kernel] row, added to
# the call's cum%, less selftime's own madvise share (kernel time outside
# the call).  That is
# what the timer's plain stops get wrong: they land at the call's exit.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

# The users to run as: root as CI runs, and nobody where root can drop.
users=(root)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	users+=(nobody)
fi
# run_as USER: the command prefix that runs as USER (none for root).
run_as() {
	if [ "$1" = nobody ]; then
		AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		AS=(env)
	fi
}

# own_share FILE: P from selftime's "selftime: enter_kernel P% of S s".
own_share() {
	awk '$1 == "selftime:" && $2 == "enter_kernel" { sub(/%$/, "", $3); print $3; exit }' "$1"
}
# own_madvise FILE: selftime's share of its loop in madvise (detail line).
own_madvise() {
	sed -n 's/.* madvise [0-9]* times (\([0-9.]*\)% of the loop).*/\1/p' "$1" | head -1
}
# left_out FILE: the share of its loop selftime left out as disturbed.
left_out() {
	sed -n 's/.* left out (\([0-9.]*\)% of the loop).*/\1/p' "$1" | head -1
}
handler_ok() {
	awk '$1 == "urgself:" && $2 == "handler" { seen = 1; ok = $3 == $5 } END { exit !(seen && ok) }' "$1"
}

# Can this user have the perf trigger here at all?
perf_ok() {
	"${AS[@]}" "$CTPROF" --trigger=perf -d 0.1 -- true >/dev/null 2>"$TMP/probe.err"
}

for u in "${users[@]}"; do
	run_as "$u"
	if ! perf_ok "$u"; then
		skip "$u: the perf trigger" "perf events refused here: $(head -1 "$TMP/probe.err")"
		continue
	fi

	for trig in perf perf-stop; do
	# ---- launched ----
	run_cmd "launch-$u-$trig" "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger=$trig -F 999 -v -- "$TARGETS/urgself" 2 5
	diag "$u $trig launched: $(grep '^urgself: handler' "$OUT"); $(grep '^trigger:' "$OUT" | cut -c1-200)"
	check "$u $trig launched: exit 0, the perf trigger ran" eval 'is_status 0 && grep -q "^trigger: perf" "$OUT"'
	check "$u $trig launched: the program's handler ran once per signal it sent, none of ctprof's" handler_ok "$OUT"
	for f in main_spin blocked_spin open_spin; do
		check "$u $trig launched: $f has samples" ge "$(cum_pct $f)" 1
	done
	late=$(sed -n 's/^trigger: perf: .* samples from stops, \([0-9]*\) of them late.*/\1/p' "$OUT")
	if [ $trig = perf-stop ]; then
		check "$u $trig launched: the thread that blocks every signal went to the timer" \
			grep -q "^trigger: perf: .* 1 threads that block both by the timer" "$OUT"
		# Inside its sections the worker's signal waits: its stops come
		# where it unblocks, late, and -v says how many.
		check "$u $trig launched: the worker that blocks signals at times has samples, some late (${late:-?})" \
			eval 'ge "$(cum_pct crit_worker)" 10 && ge "${late:-0}" 1'
	else
		check "$u $trig launched: every thread into a ring, none late, none to the timer" \
			eval 'grep -q "^trigger: perf: task-clock events on 3 threads (3 into rings, .* 0 threads that block both by the timer" "$OUT" && [ "${late:-x}" = 0 ]'
		check "$u $trig launched: the worker that blocks signals at times has samples" \
			ge "$(cum_pct crit_worker)" 10
	fi

	# ---- attached ----
	"${AS[@]}" "$TARGETS/urgself" 0 5 >"$TMP/att-$u-$trig.out" 2>&1 &
	pid=$!
	bg_started "$pid"
	sleep 0.3
	run_cmd "attach-$u-$trig" "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger=$trig -F 999 -v -p "$pid" -d 1.5
	check "$u $trig attached: exit 0, a report" eval 'is_status 0 && has_report'
	check "$u $trig attached: the program runs on, untraced, not stopped" eval 'untraced "$pid" && alive_not_stopped "$pid"'
	sleep 0.8
	kill -TERM "$pid"
	wait_child "$pid"
	check "$u $trig attached: its handler ran once per signal it sent ($(grep '^urgself: handler' "$TMP/att-$u-$trig.out"))" \
		eval '[ "$RC" = 0 ] && handler_ok "$TMP/att-$u-$trig.out"'
	done

	# ---- accuracy against the program's own clock ----
	for mt in syscall:perf fault:perf syscall:perf-stop fault:perf-stop; do
		m=${mt%%:*} trig=${mt#*:}
		if [ -n "${CTPROF_SANITIZED:-}" ]; then
			skip "$u $trig selftime $m: enter_kernel + [kernel] within 3-4 points of its own share" \
				"shares are checked in the normal build; this one checks memory and UB"
			continue
		fi
		# 4 s of loop: about 4000 ticks, so that the sampling's own
		# spread (binomial, some 0.8 points here) stays well inside the
		# band.  A run the host disturbed is made again, twice at most;
		# perf-stop's stops alone leave out 16-21% of the loop here, so
		# a run is disturbed from 25%.  Of the runs, the least
		# disturbed is checked.
		best= best_left=
		for try in 1 2 3; do
			run_cmd "selftime-$m-$u-$trig-$try" "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger=$trig -F 999 -- "$TARGETS/selftime" "$m" 4
			left=$(left_out "$ERR")
			if [ -n "$left" ] && { [ -z "$best" ] || lt "$left" "$best_left"; }; then
				best=$try best_left=$left best_rc=$RC
			fi
			[ -n "$left" ] && lt "$left" 25 && break
			diag "$u $trig selftime $m, run $try: ${left:-?}% of its loop left out, disturbed"
		done
		if [ -n "$best" ] && [ "$best" != "$try" ]; then
			OUT=$TMP/selftime-$m-$u-$trig-$best.out ERR=$TMP/selftime-$m-$u-$trig-$best.err RC=$best_rc
			diag "$u $trig selftime $m: run $best, the least disturbed ($best_left%), is the one checked"
		fi
		own=$(own_share "$OUT") mad=$(own_madvise "$ERR")
		# Kernel time sampled (root): under enter_kernel already.
		if grep -q "under the function that entered it" "$OUT"; then
			got=$(cum_pct enter_kernel)
			diag "$u $trig selftime $m: own ${own:-?}%, report enter_kernel $got (kernel ticks sampled)"
		else
			got=$(awk -v e="$(cum_pct enter_kernel)" -v k="$(self_pct '[kernel]')" -v m="${mad:-0}" \
				'BEGIN { printf "%.1f\n", e + k - m }')
			diag "$u $trig selftime $m: own ${own:-?}%, report enter_kernel $(cum_pct enter_kernel) + [kernel] $(self_pct '[kernel]') - madvise ${mad:-0} = $got"
		fi
		# perf-stop (no default) under page faults falls short of the
		# program's clock: -0.8 to -2.9 points in eight runs (91fa549's
		# binary and 6e88252's alike), -3.8 once in CI
		# (docs/DESIGN.md, "Known limits, measured"): 4 points below.
		lo=3
		[ "$trig" = perf-stop ] && [ "$m" = fault ] && lo=4
		check "$u $trig selftime $m: enter_kernel + [kernel] within $lo points under, 3 over its own share" \
			eval '[ -n "$own" ] && ge "$got" "$(awk -v o="$own" -v l="$lo" "BEGIN { print o - l }")" && le "$got" "$(awk -v o="$own" "BEGIN { print o + 3 }")"'
	done
done

# ---- what the stops must not do, and the weights (as root) ----
if perf_ok root; then
	if [ -x /usr/lib/go-1.19/bin/go ]; then
		GO=/usr/lib/go-1.19/bin/go
		HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS= "$GO" build -o "$TMP/preempt" \
			"$(dirname "$0")/targets/lang/preempt.go" >"$TMP/gobuild.log" 2>&1
		run_cmd go-bare "$TMP/preempt" 2
		bare=$(awk '$1 == "preempt:" { print $2 }' "$OUT")
	fi
	for trig in perf perf-stop; do
	# Ticks in kernel mode raise no signal: a call that goes to sleep
	# is not cut short (docs/DESIGN.md, Kernel time).
	run_ctprof echo-$trig --trigger=$trig -F 999 -o /dev/null -- "$TARGETS/echoserver" 3000
	diag "echoserver: $(cat "$OUT")"
	check "$trig: echoserver's 3000 requests, none failed, no EINTR" \
		eval 'is_status 0 && grep -q " failed 0 eintr 0$" "$OUT"'
	run_ctprof sigwake-$trig --trigger=$trig -F 999 -o /dev/null -- "$TARGETS/sigwake" 500
	check "$trig: the program's own signals still interrupt epoll_pwait: 500 of 500" \
		eval 'is_status 0 && grep -q "^sigwake: rounds 500 woken 500$" "$OUT"'
	# Three threads 1:2:3 on 2 CPUs: each sample is a period of its own
	# thread's CPU, whoever waits for a CPU.
	run_ctprof ratio3-$trig --trigger=$trig -F 999 -- "$TARGETS/ratio3"
	read -r cpu1 cpu2 cpu3 < <(awk '$1 == "ratio3:" { print $3, $6, $9; exit }' "$OUT")
	diag "$trig ratio3: CPU time by the threads' own clocks: $cpu1 $cpu2 $cpu3 s"
	for w in 1 2 3; do
		c=cpu$w
		check "$trig: ratio3's work$w has its thread's share of the CPU time +-20%" in_share "$(self_pct work$w)" "${!c}"
	done
	# Go preempts goroutines by sending SIGURG to their threads: they must
	# still arrive (with SIGURG as the trigger's signal, most were merged
	# into ctprof's and lost, and Go then preempts that thread no more).
	if [ -n "${GO:-}" ]; then
		run_ctprof go-$trig --trigger=$trig -F 999 -v -- "$TMP/preempt" 2
		gcs=$(awk '$1 == "preempt:" { print $2 }' "$OUT")
		sigs=$(sed -n 's/^profiler: \([0-9]*\) stops ctprof did not ask for.*/\1/p' "$OUT")
		diag "go: ${bare:-?} collections bare, ${gcs:-?} under $trig, ${sigs:-?} stops of its own signals and events; $(grep '^trigger:' "$OUT" | cut -c1-100)"
		check "$trig: a Go program's own preemption works on (runtime.asyncPreempt in its stacks, collections at least a fifth of bare)" \
			eval 'is_status 0 && grep -q "^trigger: perf" "$OUT" && [ "$(cum_pct runtime.asyncPreempt)" != 0.0 ] && [ -n "$bare" ] && [ -n "$gcs" ] && ge "$((gcs * 5))" "$bare"'
	else
		skip "$trig: a Go program's own preemption works on" "no Go toolchain at /usr/lib/go-1.19/bin/go"
	fi
	done
fi

# The timer, forced, keeps the program's signals as they were too.
run_ctprof launch-timer --trigger=timer -F 999 -v -- "$TARGETS/urgself" 1.5 5
check "--trigger=timer: exit 0, the timer ran, the handler once per SIGURG sent" \
	eval 'is_status 0 && grep -q "^trigger: timer" "$OUT" && handler_ok "$OUT"'
finish
