#!/bin/bash
# follow-forks: with -f, the processes the target forks (fork, vfork by
# posix_spawn, a shell's children and their execs) are profiled too, each
# with its own address space and symbols, and the report has a table per
# process; every one of them is left running and untraced at the end.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

T=$TMP/tables
mkdir -p "$T"

# fork: parent_work in the parent, child_work in the child.
run_ctprof fork -f -F 199 -- "$TARGETS/forker" 0.8
check "fork: ctprof exits with the parent's status 0" is_status 0
check "fork: the child was traced and exited with its own status 5" \
	grep -Eq '^forker: child status 5 tracer [1-9][0-9]*$' "$OUT"
mapfile -t pids < <(report_pids)
diag "process sections: ${pids[*]}"
check "fork: two process sections" test "${#pids[@]}" = 2
# The parent is the pid in the header; the other one is the child.
parent=$(awk '$1 == "total:" { for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1) + 0; exit } }' "$OUT")
child=
for p in "${pids[@]}"; do [ "$p" != "$parent" ] && child=$p; done
process_table "$parent" >"$T/parent"
process_table "${child:-none}" >"$T/child"
diag "parent $parent: parent_work $(self_pct parent_work "$T/parent")%, child_work $(self_pct child_work "$T/parent")%"
diag "child $child: parent_work $(self_pct parent_work "$T/child")%, child_work $(self_pct child_work "$T/child")%"
check "fork: parent_work is the parent's (>= 35% of all)" \
	eval 'ge "$(self_pct parent_work "$T/parent")" 35 && test "$(self_pct parent_work "$T/child")" = 0.0'
check "fork: child_work is the child's (>= 35% of all)" \
	eval 'ge "$(self_pct child_work "$T/child")" 35 && test "$(self_pct child_work "$T/parent")" = 0.0'
main_table >"$T/main"
check "fork: the first table adds both up (main >= 70% cum)" ge "$(cum_pct main "$T/main")" 70

# The same with the perf trigger's rings (an ordinary user's default):
# the child's samples come from its rings, with no stop.
run_ctprof fork-rings -f -F 199 --trigger=perf -v -- "$TARGETS/forker" 0.8
mapfile -t pids < <(report_pids)
parent=$(awk '$1 == "total:" { for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1) + 0; exit } }' "$OUT")
child=
for p in "${pids[@]}"; do [ "$p" != "$parent" ] && child=$p; done
process_table "${child:-none}" >"$T/child-rings"
diag "rings: process sections ${pids[*]}; child $child: child_work $(self_pct child_work "$T/child-rings")%; $(grep '^trigger: perf' "$OUT" | head -1 | cut -c1-120)"
check "fork, rings: two process sections, child_work the child's (>= 35%)" \
	eval 'is_status 0 && test "${#pids[@]}" = 2 && ge "$(self_pct child_work "$T/child-rings")" 35 && grep -q "samples from rings" "$OUT"'

# vfork: posix_spawn's child runs chain (another program) while spawner
# burns its own CPU; spawner exits with chain's status.
run_ctprof spawn -f -F 199 -- "$TARGETS/spawner" 0.8 "$TARGETS/chain" 0.8
check "vfork: exit status 0 passed through" is_status 0
main_table >"$T/main"
diag "spawner_work $(self_pct spawner_work "$T/main")% [$(module_of spawner_work)], f3 $(self_pct f3 "$T/main")% [$(module_of f3)]"
check "vfork: spawner_work profiled in [spawner] (>= 30%)" \
	eval 'ge "$(self_pct spawner_work "$T/main")" 30 && test "$(module_of spawner_work)" = "[spawner]"'
check "vfork: the spawned program's f3 in [chain] (>= 30%)" \
	eval 'ge "$(self_pct f3 "$T/main")" 30 && test "$(module_of f3)" = "[chain]"'
check "vfork: chain's stacks unwound to its main (f0 cum >= 30%)" ge "$(cum_pct f0 "$T/main")" 30

# A shell: its children exec other programs, one after the other.
run_ctprof shell -f -F 199 -- sh -c "\"$TARGETS/forker\" 0.5 >/dev/null; \"$TARGETS/chain\" 0.5; exit 3"
check "shell: exit status 3 passed through" is_status 3
main_table >"$T/main"
diag "child_work $(self_pct child_work "$T/main")%, f3 $(self_pct f3 "$T/main")%, sections: $(report_pids | wc -l)"
check "shell: the grandchild's child_work is there" ge "$(self_pct child_work "$T/main")" 15
check "shell: the exec'd chain's f3 is there, in [chain]" \
	eval 'ge "$(self_pct f3 "$T/main")" 15 && test "$(module_of f3)" = "[chain]"'
check "shell: a section for each busy process (forker, its child, chain)" ge "$(report_pids | wc -l)" 3

# A shell that only waits for its one busy child: the samples may all be
# the child's (the shell had none in 1 of 6 runs at 999 Hz); its table is
# shown all the same, under its own pid.
run_ctprof waiter -f -F 199 -- sh -c "\"$TARGETS/chain\" 0.5; true"
check "waiter: status 0, a section for chain under its own pid" \
	eval 'is_status 0 && awk '"'"'$1 == "process" && $3 == "(chain):" { f = 1 } END { exit !f }'"'"' "$OUT"'

# Folded stacks and pprof carry the process; the pprof reads back with a
# table per process.
run_ctprof outputs -f -F 199 -o "$TMP/f.folded" -o "$TMP/f.pb.gz" -- "$TARGETS/forker" 0.5
check "outputs: status 0" is_status 0
# (then a thread frame: a thread, or [exited]-0, where the CPU time of
# exited threads after their last sample is charged)
check "folded: every line starts with a forker-PID process frame" \
	eval '[ -s "$TMP/f.folded" ] && ! grep -Ev "^forker-[0-9]+;(forker-[0-9]+|\[exited\]-0);" "$TMP/f.folded"'
check "folded: two distinct process frames" \
	test "$(cut -d';' -f1 "$TMP/f.folded" | sort -u | wc -l)" = 2
run_cmd readback "$CTPROF" report "$TMP/f.pb.gz"
check "pprof: read back with two process sections" test "$(report_pids | wc -l)" = 2

# Attached with -f to a shell that keeps forking: every process of the tree
# is untraced and running after ctprof leaves.
sh -c "while :; do \"$TARGETS/forker\" 0.2 >/dev/null; done" &
loop=$!
bg_started "$loop"
sleep 0.3
run_ctprof attach -f -F 499 -d 1.5 -p "$loop"
check "attach: status 0" is_status 0
main_table >"$T/main"
diag "attach: child_work $(self_pct child_work "$T/main")%, parent_work $(self_pct parent_work "$T/main")%"
check "attach: forked processes profiled (child_work >= 10%)" ge "$(self_pct child_work "$T/main")" 10
sleep 0.2
bad=0
for p in $loop $(pgrep -P "$loop") $(for c in $(pgrep -P "$loop"); do pgrep -P "$c"; done); do
	[ -d "/proc/$p" ] || continue
	t=$(tracer_of "$p")
	s=$(proc_state "$p")
	if [ -n "$t" ] && [ "$t" != 0 ]; then
		diag "pid $p still traced by $t"
		bad=$((bad + 1))
	fi
	case $s in T|t) diag "pid $p state $s"; bad=$((bad + 1)) ;; esac
done
check "attach: no process of the tree left traced or stopped" test "$bad" = 0
check "attach: the loop still runs" alive_not_stopped "$loop"

# tree PID: PID and its descendants.
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}

# ctprof -f killed with SIGKILL while it follows the forks: the kernel lets
# go of every process it traced, the children it was following included.
left=0
for i in $(seq 20); do
	"$CTPROF" -f -F 999 -d 0.3 -p "$loop" >/dev/null 2>&1 &
	c=$!
	sleep 0.$((RANDOM % 30 + 1))
	kill -KILL "$c" 2>/dev/null
	wait "$c" 2>/dev/null
	sleep 0.05
	for p in $(tree "$loop"); do
		case $(proc_state "$p") in
		T|t) diag "run $i: pid $p left stopped"; left=$((left + 1)) ;;
		*) t=$(tracer_of "$p")
		   if [ -n "$t" ] && [ "$t" != 0 ] && [ "$t" = "$c" ]; then
			diag "run $i: pid $p left traced"
			left=$((left + 1))
		   fi ;;
		esac
	done
done
diag "20 SIGKILLs of ctprof -f: $left processes left stopped or traced"
check "SIGKILL: no followed process left stopped or traced (20 runs)" test "$left" = 0
check "SIGKILL: the loop still runs" alive_not_stopped "$loop"
kill -KILL "$loop" 2>/dev/null
finish
