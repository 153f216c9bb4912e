#!/bin/bash
# errors: every bad input in the spec gets its exit status (2 for usage
# errors, 1 when there is nothing ctprof may profile) and its one-line
# "ctprof: ..." message, and a process named by -p is left alive and
# running whatever went wrong.
. "$(dirname "$0")/lib.sh"

# expect NAME WANT_RC PHRASE ARGS...: ctprof ARGS... exits WANT_RC and its
# stderr has a "ctprof: " line mentioning PHRASE (case-insensitive).
expect() {
	local name=$1 want=$2 phrase=$3
	shift 3
	run_ctprof "$name" "$@"
	check "$name: exit $want, says '$phrase'" says "$want" "$phrase"
}

# expect_top NAME WANT_RC PHRASE ARGS...: the same for 'ctprof top ARGS...'
# (the subcommand must come first, before CTPROF_ARGS).
expect_top() {
	local name=$1 want=$2 phrase=$3
	shift 3
	# shellcheck disable=SC2086 # CTPROF_ARGS is a list of options
	run_cmd "$name" "$CTPROF" top ${CTPROF_ARGS:-} "$@"
	check "$name: exit $want, says '$phrase'" says "$want" "$phrase"
}

# says WANT_RC PHRASE: judge the last run as described for expect.
says() {
	is_status "$1" || return 1
	grep -qi -- "^ctprof: .*$2" "$ERR" && return 0
	diag "stderr has no 'ctprof: ...$2' line: $(head -c 300 "$ERR")"
	return 1
}

# A plain process, owned by root if we are root, for the -p cases.
sleep 60 &
spid=$!
bg_started "$spid"

# ---- usage errors: exit 2 ----
expect "-F abc" 2 "invalid frequency" -F abc -- true
expect "-F 0" 2 "invalid frequency" -F 0 -- true
expect "-F 99999" 2 "invalid frequency" -F 99999 -- true
expect "-d 0" 2 "invalid duration" -d 0 -- true
expect "-o - twice" 2 "given twice" -o - -o - -- true
expect "--every with -o -" 2 "file per interval" --every 1 -o - -- true
expect "-d -1" 2 "invalid duration" -d -1 -- true
expect "-d x" 2 "invalid duration" -d x -- true
expect "-p 0" 2 "invalid pid" -p 0
expect "-p abc" 2 "invalid pid" -p abc
expect "--stack-size 100" 2 "invalid stack size" --stack-size 100 -- true
expect "--max-frames 1" 2 "invalid frame limit" --max-frames 1 -- true
expect "--unwinder bogus" 2 "invalid unwinder" --unwinder bogus -- true
expect "--trigger bogus" 2 "invalid trigger" --trigger bogus -- true
expect "--wall --trigger=perf" 2 "give --trigger=timer" --wall --trigger=perf -- true
expect "no arguments" 2 "nothing to profile"
expect "-p and a command" 2 "not both" -p "$spid" -- true
check "-p and a command: pid $spid left alive, not stopped" alive_not_stopped "$spid"
expect_top "top --top 5" 2 "--top is not an option of the live view" --top 5 -p "$spid"
expect_top "top --tid 1" 2 "--tid is not an option of the live view" --tid 1 -p "$spid"
expect_top "top -o -" 2 "view is on standard output" -o - -p "$spid"
expect_top "top --format without -o" 2 "format applies to the files of -o" --format text -p "$spid"
expect_top "top --interval 0" 2 "invalid interval" --interval 0 -p "$spid"
expect_top "top --interval 61" 2 "invalid interval" --interval 61 -p "$spid"
expect "--interval without top" 2 "interval is for the live view" --interval 2 -p "$spid"
expect_top "top with nothing to profile" 2 "nothing to profile"
# getopt's own message comes first and names argv[0] as it was given, so
# only the hint line is matched here.
run_ctprof unknown-option --no-such-option -- true
check "unknown option: exit 2, points to --help" \
	eval 'is_status 2 && err_says "Try .ctprof --help. for more information"'

# ---- unwritable output: exit 1 before anything runs ----
t0=$(date +%s%N)
run_ctprof output -o /nonexistent-dir/x -- sh -c ": >'$TMP/ran'"
t1=$(date +%s%N)
check "-o /nonexistent-dir/x: exit 1, says 'cannot open output'" says 1 "cannot open output"
check "-o /nonexistent-dir/x: fails at once (< 3 s)" lt $(((t1 - t0) / 1000000)) 3000
check "-o /nonexistent-dir/x: the command never ran" [ ! -e "$TMP/ran" ]

# ---- processes that cannot be profiled: exit 1 ----
nopid=$(free_pid)
expect "no such pid ($nopid)" 1 "no process with pid $nopid" -p "$nopid"

# ctprof's own pid: a shell that execs ctprof with its own $$.
run_cmd self sh -c 'exec "$0" -p $$' "$CTPROF"
check "pid of ctprof itself: exit 1, says 'ctprof itself'" says 1 "ctprof itself"

"$TARGETS/zombie" 30 >"$TMP/zombie.txt" &
zparent=$!
bg_started "$zparent"
wait_for grep -qs "^[0-9]" "$TMP/zombie.txt"
zpid=$(head -n 1 "$TMP/zombie.txt")
if [ -n "$zpid" ] && wait_for eval '[ "$(proc_state "$zpid")" = Z ]'; then
	expect "zombie ($zpid)" 1 "zombie" -p "$zpid"
	check "zombie: its parent is left alive, not stopped" alive_not_stopped "$zparent"
else
	not_ok "zombie: could not make a zombie (pid '$zpid')"
fi
kill "$zparent" 2>/dev/null

if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
	expect "kernel thread (pid 2, kthreadd)" 1 "kernel thread" -p 2
else
	skip "kernel thread" "pid 2 is not kthreadd here (a pid namespace?)"
fi

# ---- a process that is already traced ----
if ! command -v strace >/dev/null; then
	skip "already traced" "strace is not installed"
elif ! ptrace_works attach; then
	skip "already traced" "$PTRACE_WHY"
else
	strace -f -o /dev/null -p "$spid" 2>/dev/null &
	stpid=$!
	bg_started "$stpid"
	if wait_for traced "$spid"; then
		expect "already traced (by strace)" 1 "traced by" -p "$spid"
		check "already traced: strace still traces it" [ "$(tracer_of "$spid")" = "$stpid" ]
		check "already traced: pid $spid left alive, not stopped" alive_not_stopped "$spid"
	else
		not_ok "already traced: strace never attached to pid $spid"
	fi
	kill "$stpid" 2>/dev/null
	wait "$stpid" 2>/dev/null
	check "after strace detached: pid $spid alive, not stopped" alive_not_stopped "$spid"
fi

# ---- permission denied: an unprivileged ctprof and a root process ----
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" != 0 ]; then
	skip "permission denied" "needs root, to run ctprof as another user"
elif ! command -v setpriv >/dev/null; then
	skip "permission denied" "setpriv is not installed"
elif ! "${nobody[@]}" test -x "$CTPROF"; then
	skip "permission denied" "uid 65534 cannot execute $CTPROF"
else
	run_cmd permission "${nobody[@]}" "$CTPROF" -p "$spid" -d 0.5
	check "not allowed to trace: exit 1, says 'permission denied'" says 1 "permission denied"
	check "not allowed to trace: pid $spid left alive, not stopped" alive_not_stopped "$spid"
fi

finish
