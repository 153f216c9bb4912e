#!/bin/bash
# sigframe: the hot function runs in a signal handler.  Its callers above
# the kernel's signal frame (run_in_handler, main) reaching cum% near 100
# proves the unwinder steps through signal frames.  With "alt" the
# handler runs on a stack of its own, malloc'd: the stacks go on into
# main only if the thread's stack is copied too (before: none did), also
# when ctprof attaches with the handler running, and through a second
# handler's frame below the first's on that stack.
# sigburst: a worker sent SIGUSR1 every 20 us, whose handler only counts.
# A stop that finds it at the handler's first instruction (the signal
# delivered since the tick) is taken where the signal came: the handler
# has no share to speak of.  a23e3ee gave it 4.8-4.9% (two runs of 2 s).
# sigtramp: a handler that returns to a trampoline with CFI of an
# ordinary function (as Go's runtime.sigreturn has), whose first fetch
# faults: about a third of the stops are in the trampoline, where only
# the kernel's signal frame says where the thread goes back to.  Each
# such stack goes on into main through the interrupted code, on the
# interrupted stack also when the handler ran on another (b).  76b3596
# failed to unwind 388-470 of some 1100 stacks a run (both unwinders,
# both places in the trampoline), and main had 61-66% of the time.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 42
run_ctprof sigframe -F 199 -- "$TARGETS/sigframe" 1.2
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "handler_hot self $(self_pct handler_hot)%; cum%: on_signal $(cum_pct on_signal)" \
	"run_in_handler $(cum_pct run_in_handler) main $(cum_pct main)"
check "handler_hot self% >= 80" ge "$(self_pct handler_hot)" 80
for f in on_signal run_in_handler main; do
	check "$f cum% >= 90 (unwound through the signal frame)" ge "$(cum_pct "$f")" 90
done
alt_copies() {
	sed -n 's/^profiler: unwind .*; \([0-9][0-9]*\) in another handler on a stack of its own.*/\1/p' "$OUT"
}
# alt_checks WHAT FUNC...: the last run exited 0, handler_hot has 80% or
# more self, and each FUNC 90% or more cum.
alt_checks() {
	local what=$1 f cums=
	shift
	for f in "$@"; do
		cums="$cums $f $(cum_pct "$f")"
	done
	check "$what: ctprof exits with the target's status 0" is_status 0
	diag "$what: handler_hot self $(self_pct handler_hot)%; cum%:$cums;" \
		"$(alt_copies) stops with the thread's stack copied too"
	check "$what: handler_hot self% >= 80" ge "$(self_pct handler_hot)" 80
	for f in "$@"; do
		check "$what: $f cum% >= 90 (the interrupted stack copied and unwound)" ge "$(cum_pct "$f")" 90
	done
}
run_ctprof sigframe-alt -F 199 -v -- "$TARGETS/sigframe" 1.2 alt
alt_checks alt run_in_handler main
check "alt: -v counts the stops whose interrupted stack was copied" ge "$(alt_copies)" 1

# Nested: the hot loop in SIGUSR2's handler, raised in SIGUSR1's, both
# on the signal stack.  The inner frame's interrupted stack is the signal
# stack itself; only the outer's goes on into main (before: every stack
# failed there).
run_ctprof sigframe-nested -F 199 -v -- "$TARGETS/sigframe" 1.2 alt nested
alt_checks nested on_signal main

# Attached while the thread runs in that handler: ctprof saw no signal
# delivered, yet the stacks go on into main (before: every one failed at
# the interrupted frame, raise's).  In the handler, SIGUSR1 (10) is
# blocked.
in_usr1_handler() {
	local blk
	blk=$(awk '$1 == "SigBlk:" { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$blk" ] && (((0x$blk >> 9) & 1))
}
"$TARGETS/sigframe" 4 alt &
tpid=$!
bg_started "$tpid"
if wait_for in_usr1_handler "$tpid"; then
	run_ctprof sigframe-alt-attach -F 199 -v -d 1.5 -p "$tpid"
	check "alt, attached: ctprof exits 0" is_status 0
	diag "alt, attached: main cum $(cum_pct main)%; $(alt_copies) stops with the thread's stack copied too"
	check "alt, attached: main cum% >= 90" ge "$(cum_pct main)" 90
	check "alt, attached: -v counts the stops whose interrupted stack was copied" ge "$(alt_copies)" 1
	wait_child "$tpid"
	check "alt, attached: the target exits 0 when done (status $RC)" [ "$RC" = 0 ]
else
	for _ in 1 2 3 4; do
		not_ok "alt, attached: sigframe never ran its handler"
	done
fi

# handler_entries: the stops -v says were taken where the signal came.
handler_entries() {
	sed -n 's/^profiler: unwind .*; \([0-9][0-9]*\) stops at a signal handler.*/\1/p' "$OUT"
}
run_ctprof sigburst --trigger=timer -F 999 -v -- "$TARGETS/sigburst" 2
check "sigburst: ctprof exits with the target's status 0" is_status 0
diag "on_usr1 self $(self_pct on_usr1)%, cum $(cum_pct on_usr1)%; work self $(self_pct work)%;" \
	"$(handler_entries) stops at the handler's start"
check "sigburst: stops found the worker where its handler starts" ge "$(handler_entries)" 1
check "sigburst: the handler's cum% < 1" lt "$(cum_pct on_usr1)" 1

# sigreturn_stops: the stops -v says were in a sigreturn trampoline.
sigreturn_stops() {
	sed -n 's/^profiler: unwind .*; \([0-9][0-9]*\) in a sigreturn trampoline.*/\1/p' "$OUT"
}
failed_unwinds() {
	sed -n 's/^profiler: unwind .* \([0-9][0-9]*\) failed;.*/\1/p' "$OUT"
}
# Under each trigger: the timer's stops, and the perf trigger's rings,
# whose kernel-mode ticks as root include some in rt_sigreturn itself
# (the PC past the trampoline's syscall, its frame not yet restored).
for trig in timer perf; do
for m in a b; do
	# b's handler on a stack of its own, as Go's are: the interrupted
	# stack is copied too.
	alt=
	[ "$m" = b ] && alt=alt
	if [ "$trig" = perf ] && ! "$CTPROF" --trigger=perf -d 0.1 -- true >/dev/null 2>"$TMP/probe.err"; then
		for n in 1 2 3 4 5; do
			skip "sigtramp $m, perf: check $n of 5" "perf events refused here: $(head -1 "$TMP/probe.err")"
		done
		continue
	fi
	run_ctprof "sigtramp-$m-$trig" --trigger=$trig -F 999 -v -- "$TARGETS/sigtramp" 1.5 "$m" $alt
	check "sigtramp $m, $trig: ctprof exits with the target's status 0" is_status 0
	t=$(self_pct "tramp_$m") tc=$(cum_pct "tramp_$m") stops=$(sigreturn_stops) failed=$(failed_unwinds)
	diag "$trig: tramp_$m self $t%, cum $tc%, main cum $(cum_pct main)%; $stops samples in the trampoline, ${failed:-no count of} failed unwinds"
	check "sigtramp $m, $trig: samples found the thread in the trampoline (-v: ${stops:-no count})" ge "${stops:-0}" 1
	# The timer's stops land in the trampoline as the thread returns to
	# user space: its self time (11-24%).  The rings' ticks as root
	# take its fault and rt_sigreturn in the kernel, as [kernel] under
	# it, and land where the time goes, not where the thread next
	# leaves the kernel: self 0.2-1.1%, cum 5.3-15% in six runs here.
	if [ "$trig" = timer ]; then
		check "sigtramp $m, $trig: the trampoline has samples (self% >= 5)" ge "$t" 5
	else
		check "sigtramp $m, $trig: the trampoline has samples (cum% >= 2, its kernel time under it)" ge "$tc" 2
	fi
	check "sigtramp $m, $trig: no stack failed to unwind (-v: ${failed:-no count})" [ "${failed:-x}" = 0 ]
	check "sigtramp $m, $trig: main cum% >= 95 (unwound through the signal frame)" ge "$(cum_pct main)" 95
done
done
finish
