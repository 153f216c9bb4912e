#!/bin/bash
# leaderexit: attach to a process whose main thread has exited while a
# worker thread runs on (its leader is a zombie).
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 6
"$TARGETS/leaderexit" 3 &
pid=$!
bg_started "$pid"
leader_is_zombie() { [ "$(proc_state "$pid")" = Z ]; }
wait_for leader_is_zombie || diag "leader of $pid never became a zombie"

run_ctprof attach -d 0.7 -p "$pid"
check "ctprof exits 0" is_status 0
check "a report is printed" has_report
diag "worker_hot self $(self_pct worker_hot)%, module $(module_of worker_hot)"
check "worker_hot self% >= 80" ge "$(self_pct worker_hot)" 80
check "worker_hot is in [leaderexit]" test "$(module_of worker_hot)" = "[leaderexit]"
# The leader is a zombie by design; every other thread must run, untraced.
workers_running() {
	local t s ok=1
	for t in /proc/"$pid"/task/*; do
		[ "${t##*/}" = "$pid" ] && continue
		s=$(proc_state "$pid/task/${t##*/}")
		case $s in R|S|D) ;; *) diag "thread ${t##*/} state '$s'"; ok= ;; esac
		[ "$(awk '$1 == "TracerPid:" { print $2 }' "$t/status")" = 0 ] || { diag "thread ${t##*/} traced"; ok=; }
	done
	[ -n "$ok" ]
}
check "the worker is left running, untraced" workers_running
wait_child "$pid" 10
check "the target exits 0 by itself" is_status 0
finish
