#!/bin/bash
# jit: JIT-compiled code, named from the runtime's perf map and unwound by
# frame pointer. Run as "jit.sh node" or "jit.sh java".
#
# targets/jit/phases.js (node) and targets/jit/Jit.java (java) run three
# functions, phaseAlpha, phaseBeta and phaseGamma, with work 2:3:5 in
# rounds, time each call with their own clock and print each one's share
# of the three ("node: phaseAlpha 20.4%"). Their compiled code lives in
# anonymous memory with no symbols and no CFI: only the perf map names it
# (node --perf-basic-prof writes /tmp/perf-PID.map as it compiles; the JVM
# with -XX:+DumpPerfMapAtExit at exit), and only the frame pointers it
# keeps lead out of it (V8 always keeps them; C2 with
# -XX:+PreserveFramePointer) through the runtime's own stubs, which have no
# CFI either (node's builtins, the JVM's interpreter and call stub), to the
# C++ below with CFI. Checked:
#   - the three names are in the report and no [anon]+0x row is near the top;
#   - each phase's share of the three (by cum%) is its own share +-5 points;
#   - >= 90% of each phase's samples unwind to the runtime's entry
#     (node::Start or main; the JVM's JavaMain), from the folded stacks;
#   - -v counts frames stepped by frame pointer (libunwind: libdwfl does
#     so on its own and does not say), and at most 3% of unwinds failed;
#   - node: attached (-p) too, and without --perf-basic-prof the report
#     says that anonymous executable code was sampled with no perf map;
#     a map older than the process (its pid's earlier owner's) is not read,
#     and one that lacks the JIT code has a note saying so;
#   - java: attached (-p) too, its map written by jcmd while ctprof
#     samples; with no map, the note names jcmd with the target's pid.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/targets/jit" && pwd)
runtime=${1:?usage: jit.sh node|java}
PHASES="phaseAlpha phaseBeta phaseGamma"

case $runtime in
node)
	# scripts/deps.sh --test installs the runtimes: one missing is a failure.
	command -v node >/dev/null || { echo "Bail out! node is not installed (scripts/deps.sh --test)"; exit 1; }
	# node's main() only jumps to node::Start: either may be the root.
	ENTRY='^(main|node::Start\(.*|_ZN4node5StartEiPPc)$'
	;;
java)
	for c in java javac jcmd; do
		command -v "$c" >/dev/null || { echo "Bail out! $c is not installed (scripts/deps.sh --test)"; exit 1; }
	done
	# The launcher runs main() on a thread of its own.
	ENTRY='^(JavaMain|ThreadJavaMain)$'
	if ! javac -d "$TMP/classes" "$SRC/Jit.java"; then
		echo "Bail out! javac failed on $SRC/Jit.java"
		exit 1
	fi
	;;
*)
	echo "Bail out! unknown runtime $runtime"
	exit 1
	;;
esac
skip_unless_ptrace
# node --perf-basic-prof leaves an isolate-*-v8.log in its working directory.
cd "$TMP" || exit 1

# The maps the runtimes leave in /tmp, by the pids of the runs below, are
# removed on the way out (node's stay there after it exits).
_maps=
forget_map() {
	_maps="$_maps /tmp/perf-$1.map"
}
trap '_cleanup; rm -f $_maps' EXIT

# report_pid REPORT: the target's pid from the report header "..., pid N".
report_pid() {
	awk '$1 == "total:" { for (i = 2; i < NF; i++) if ($i == "pid") { print $(i + 1); exit } }' "$1"
}

# own_share PHASE FILE: P from the target's line "RUNTIME: PHASE P%".
own_share() {
	awk -v r="$runtime:" -v f="$1" '$1 == r && $2 == f { sub(/%$/, "", $3); print $3; exit }' "$2"
}

# phase_cum PHASE REPORT: the sum of the cum% of the flat table's rows whose
# function name contains PHASE. Names may hold spaces ("int
# Jit.phaseAlpha(int)", "JS:*phaseAlpha /path/phases.js:16:20"), so the
# name is what lies between cum% and the last two columns; one function may
# have a row per tier of code (baseline, optimized) with different names.
phase_cum() {
	main_table "$2" | awk -v f="$1" '$1 ~ /^-?[0-9]+ms$/ && $2 ~ /%$/ {
		name = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
		sub(/ +[^ ]+ +\[[^]]*\]$/, "", name)
		if (index(name, f)) { sub(/%$/, "", $4); s += $4 }
	} END { printf "%.1f\n", s + 0 }'
}

# reach PHASE FOLDED: the share (in %) of PHASE's samples in the folded
# stacks whose frames root-side of PHASE's include the runtime's entry
# (ENTRY, a regex on a whole frame); "-" if PHASE has none. The last one
# that does not is left in $TMP/unreached for the log.
reach() {
	awk -v f="$1" -v e="$ENTRY" -v bad="$TMP/unreached" '{
		n = $NF
		stack = $0
		sub(/ [^ ]+$/, "", stack)
		k = split(stack, fr, ";")
		for (i = 1; i <= k && !index(fr[i], f); i++)
			;
		if (i > k) next
		all += n
		for (j = 1; j < i; j++)
			if (fr[j] ~ e) { hit += n; next }
		print > bad
	} END { if (all) printf "%.1f\n", 100 * hit / all; else print "-" }' "$2"
}

# near PCT OWN POINTS: PCT is within POINTS of OWN (both given).
near() {
	[ -n "$1" ] && [ -n "$2" ] &&
		awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'
}

# judge NAME REPORT FOLDED TARGET_OUTPUT: the checks on one profile.
judge() {
	local name=$1 report=$2 folded=$3 out=$4 p own cum sum anon shares missing=''
	# The phases' shares of the three by the report: the rest of the
	# process (start-up, compiler threads, GC) takes a few percent that the
	# target's own clock knows nothing of.
	sum=0
	for p in $PHASES; do
		cum=$(phase_cum "$p" "$report")
		sum=$(awk -v a="$sum" -v b="$cum" 'BEGIN { print a + b }')
		[ "$cum" = 0.0 ] && missing="$missing $p"
	done
	diag "$name: the phases' cum% add up to $sum% of the profile"
	check "$name: phaseAlpha, phaseBeta and phaseGamma are in the report" \
		eval '[ -z "$missing" ] || { diag "missing:$missing"; false; }'
	for p in $PHASES; do
		own=$(own_share "$p" "$out")
		cum=$(phase_cum "$p" "$report")
		shares=$(awk -v c="$cum" -v s="$sum" 'BEGIN { if (s > 0) printf "%.1f", 100 * c / s; else print 0 }')
		diag "$name: $p: $own% by its own clock, $shares% of the phases in the report (cum% $cum)"
		check "$name: $p's share of the three phases is its own share +-5 points" \
			near "$shares" "$own" 5
	done
	for p in $PHASES; do
		rm -f "$TMP/unreached"
		shares=$(reach "$p" "$folded")
		diag "$name: $p: $shares% of its samples unwind to the entry"
		if ! { [ "$shares" != - ] && ge "$shares" 90; } && [ -s "$TMP/unreached" ]; then
			diag "a stack that does not: $(cut -c1-600 "$TMP/unreached")"
		fi
		check "$name: >= 90% of $p's samples unwind to the runtime's entry" \
			eval '[ "$shares" != - ] && ge "$shares" 90'
	done
	anon=$(main_table "$report" | awk '$1 ~ /^-?[0-9]+ms$/ && $2 ~ /%$/' | head -10 | grep -F '[anon]+0x')
	check "$name: no [anon]+0x row among the top 10" \
		eval '[ -z "$anon" ] || { diag "$anon"; false; }'
	# -v: "profiler: unwind (...): ...; N frames stepped by frame pointer
	# (code without CFI)"
	diag "$(grep '^profiler: unwind' "$report")"
	# "...; N complete, N truncated, N failed; ...": the runtimes' own
	# stubs without CFI or frame record (V8's C entry) fail a few.
	shares=$(awk '$1 == "profiler:" && $2 == "unwind" {
		for (i = 3; i <= NF; i++) if ($(i + 1) ~ /^(complete|truncated|failed)/) {
			all += $i; if ($(i + 1) ~ /^failed/) bad += $i }
	} END { if (all) printf "%.1f\n", 100 * bad / all }' "$report")
	check "$name: at most 3% of the unwinds failed (-v)" \
		eval '[ -n "$shares" ] && le "$shares" 3'
	shares=$(sed -n 's/.* \([0-9][0-9]*\) frames stepped by frame pointer.*/\1/p' "$report" | head -1)
	case " ${CTPROF_ARGS:-} " in
	*libdw*)
		skip "$name: -v counts frames stepped by frame pointer" \
			"libdwfl steps by frame pointer on its own and does not say when"
		;;
	*)
		check "$name: -v counts frames stepped by frame pointer" \
			eval '[ -n "$shares" ] && [ "$shares" -gt 0 ]'
		;;
	esac
}

# profile NAME COMMAND...: ctprof -F 999 -v on COMMAND, the report in
# $TMP/NAME.txt and the folded stacks in $TMP/NAME.folded; the target's
# own output (its shares) is in $OUT.
profile() {
	local name=$1
	shift
	run_ctprof "$name" -F 999 -v -o "$TMP/$name.txt" -o "$TMP/$name.folded" -- "$@"
	diag_file "$OUT"
}

# profiled NAME: the last profile ran: exit 0, a report, the target's shares.
profiled() {
	local name=$1
	check "$name: exit 0, a report, the target's own shares" \
		eval 'is_status 0 && has_report "$TMP/$name.txt" && [ -n "$(own_share phaseGamma "$OUT")" ]'
}

# nomap_run COMMAND...: COMMAND profiled as nomap, into $pid its pid; run
# again (under another pid) while a map that another process left in /tmp
# under that pid would be read instead.
nomap_run() {
	local try
	for try in 1 2 3; do
		profile nomap "$@"
		pid=$(report_pid "$TMP/nomap.txt")
		[ -z "$pid" ] || [ ! -e "/tmp/perf-$pid.map" ] && break
		diag "run $try: a stale /tmp/perf-$pid.map is there: run again"
	done
}

# skip_attached: the attached run's checks (its exit and judge's 10),
# where ptrace may not attach.
skip_attached() {
	for _ in $(seq 11); do
		skip "attached" "$PTRACE_WHY"
	done
}

case $runtime in
node)
	plan 31
	profile node node --perf-basic-prof "$SRC/phases.js"
	forget_map "$(report_pid "$TMP/node.txt")"
	profiled node
	target_out=$OUT
	OUT=$TMP/node.txt
	judge node "$TMP/node.txt" "$TMP/node.folded" "$target_out"

	# Attached for 3 s from 1.5 s into a 6 s run: the 0.1 s rounds make
	# the shares over the window those over the whole run.
	if ptrace_works attach; then
		node --perf-basic-prof "$SRC/phases.js" 2 >"$TMP/attached.target" 2>&1 &
		pid=$!
		bg_started "$pid"
		forget_map "$pid"
		sleep 1.5
		run_ctprof attached -F 999 -v -d 3 -p "$pid" -o "$TMP/attached.txt" -o "$TMP/attached.folded"
		ctprof_rc=$RC
		wait_child "$pid" 30
		check "attached: ctprof exits 0 with a report, node exits 0" \
			eval '[ "$ctprof_rc" = 0 ] && has_report "$TMP/attached.txt" && is_status 0'
		OUT=$TMP/attached.txt
		judge attached "$TMP/attached.txt" "$TMP/attached.folded" "$TMP/attached.target"
	else
		skip_attached
	fi

	# No perf map: the report should say why the JIT code has no names. A
	# map another process left in /tmp under the same pid would be read
	# instead: then run again (under another pid).
	nomap_run node "$SRC/phases.js" 0.3
	profiled nomap
	OUT=$TMP/nomap.txt
	diag "without a map: $(main_table "$OUT" | grep -cF '[anon]') [anon] rows"
	check "without --perf-basic-prof: the report (or stderr) mentions the missing perf map" \
		grep -Eqi 'perf map|perf-basic-prof' "$OUT" "$ERR"

	# A map left by a process that had the pid before, covering every
	# address: its names are not the target's.  The shell writes it with
	# a time in the past and execs node under the same pid.
	profile stale sh -c 'printf "0 7fffffffffff stale_from_another_process\n" >/tmp/perf-$$.map &&
		touch -d @1000000000 /tmp/perf-$$.map && exec node "$1" 0.3' sh "$SRC/phases.js"
	forget_map "$(report_pid "$TMP/stale.txt")"
	profiled stale
	OUT=$TMP/stale.txt
	check "stale map: none of its names is in the report" \
		eval '! grep -q stale_from_another_process "$OUT"'
	check "stale map: the report says the map is older than the process" \
		grep -q 'perf-[0-9]*\.map is older than the process' "$OUT"

	# A map that is the target's but lacks its code (written before the
	# code was, as jcmd's snapshot of a JVM can be): the note says so.
	profile partial sh -c 'printf "0 1 placeholder_only\n" >/tmp/perf-$$.map && exec node "$1" 0.3' \
		sh "$SRC/phases.js"
	forget_map "$(report_pid "$TMP/partial.txt")"
	diag "$(grep '^note:' "$TMP/partial.txt")"
	check "a map without the JIT code: the note says the code is not in it" \
		eval 'is_status 0 && grep -q "^note: .* not in /tmp/perf-[0-9]*\.map, written before" "$TMP/partial.txt"'

	# The live view and --every name JIT code from the map as it grows.
	run_cmd top "$CTPROF" top ${CTPROF_ARGS:-} -F 499 -d 3 -- node --perf-basic-prof "$SRC/phases.js" 1
	forget_map "$(awk '$1 == "ctprof" && $2 == "top:" { print $4; exit }' "$OUT")"
	check "top: its blocks name the JIT phases" \
		eval 'is_status 0 && grep -q "JS:\*phaseGamma" "$OUT" && grep -q "JS:\*phaseAlpha" "$OUT"'
	mkdir -p "$TMP/every"
	run_ctprof every -F 499 --every 0.5 -o "$TMP/every/p-%n-%p.folded" -- node --perf-basic-prof "$SRC/phases.js" 1
	n=$(ls "$TMP/every" | wc -l)
	named=$(grep -l 'JS:\*phaseGamma' "$TMP/every"/* 2>/dev/null | wc -l)
	forget_map "$(ls "$TMP/every" | sed -n 's/^p-000001-\([0-9]*\)\.folded$/\1/p')"
	diag "--every 0.5: $named of $n files name phaseGamma"
	check "--every: each file but the first and the last names the JIT phases" \
		eval 'is_status 0 && ge "$n" 3 && ge "$named" "$((n - 2))"'

	# -f: node started by a shell that waits for it, so that its JIT code
	# is a second process's, named from that process's own map.
	run_ctprof forked -f -F 999 -o "$TMP/forked.txt" -- \
		sh -c 'node --perf-basic-prof "$1" 1; true' sh "$SRC/phases.js"
	node_pid=$(awk '$1 == "process" && $3 == "(node):" { print $2; exit }' "$TMP/forked.txt")
	forget_map "$node_pid"
	diag "-f: node is pid ${node_pid:-?}: $(process_table "$node_pid" "$TMP/forked.txt" | grep -c 'JS:') JS rows, $(process_table "$node_pid" "$TMP/forked.txt" | grep -c '\[anon\]+0x') unnamed"
	check "-f: the child node's JIT phases are named from its own map" \
		eval 'is_status 0 && [ -n "$node_pid" ] &&
		      process_table "$node_pid" "$TMP/forked.txt" | grep -q "JS:\*phaseGamma" &&
		      ! process_table "$node_pid" "$TMP/forked.txt" | head -8 | grep -q "\[anon\]+0x"'
	;;
java)
	plan 23
	jvm=(-XX:+PreserveFramePointer -XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,Jit::phase*'
	     -cp "$TMP/classes" Jit)
	profile java java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit "${jvm[@]}"
	forget_map "$(report_pid "$TMP/java.txt")"
	profiled java
	target_out=$OUT
	OUT=$TMP/java.txt
	judge java "$TMP/java.txt" "$TMP/java.folded" "$target_out"

	# Attached for 3 s from 1.5 s into a 6-s run: a map written at exit
	# would come after ctprof is done, so jcmd has the JVM write it
	# halfway (its attach mechanism starts on a SIGQUIT, which ctprof
	# passes on), and ctprof reads it at the end.
	if ptrace_works attach; then
		java "${jvm[@]}" 2 >"$TMP/attached.target" 2>&1 &
		pid=$!
		bg_started "$pid"
		forget_map "$pid"
		sleep 1.5
		(sleep 1.5 && jcmd "$pid" Compiler.perfmap) >"$TMP/jcmd.out" 2>&1 &
		jcmd_pid=$!
		run_ctprof attached -F 999 -v -d 3 -p "$pid" -o "$TMP/attached.txt" -o "$TMP/attached.folded"
		ctprof_rc=$RC
		wait "$jcmd_pid"
		jcmd_rc=$?
		diag_file "$TMP/jcmd.out"
		wait_child "$pid" 30
		check "attached: ctprof exits 0 with a report, jcmd wrote the map, java exits 0" \
			eval '[ "$ctprof_rc" = 0 ] && has_report "$TMP/attached.txt" && [ "$jcmd_rc" = 0 ] && is_status 0'
		OUT=$TMP/attached.txt
		judge attached "$TMP/attached.txt" "$TMP/attached.folded" "$TMP/attached.target"
	else
		skip_attached
	fi

	# No map: the note names the ways a JVM writes one, jcmd's with the
	# target's pid.
	nomap_run java "${jvm[@]}" 0.3
	diag "$(grep '^note:' "$TMP/nomap.txt")"
	check "without a map: the note names DumpPerfMapAtExit and jcmd $pid Compiler.perfmap" \
		eval 'is_status 0 && [ -n "$pid" ] &&
		      grep "^note:" "$TMP/nomap.txt" | grep -F -- "-XX:+DumpPerfMapAtExit" |
		      grep -qF "jcmd $pid Compiler.perfmap"'
	;;
esac
finish
