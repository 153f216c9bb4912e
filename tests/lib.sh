# Sourced by every tests/*.sh script (bash). Gives TAP output, a scratch
# directory, ctprof runs with their output kept for the log, and report
# parsing by whitespace-split fields (see the report format in the spec):
#   $1 self  $2 self%  $3 cum  $4 cum%  $5 function  $6 location  $7 [module]
#
# Environment (set by tests/meson.build):
#   CTPROF   the ctprof binary under test
#   TARGETS  the build directory holding the test target programs

set -u

: "${CTPROF:?CTPROF must name the ctprof binary to test}"
: "${TARGETS:?TARGETS must name the build directory of the test targets}"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ctprof-test.XXXXXX") || exit 99
_tap_n=0
_tap_failed=0
_tap_planned=0
_bg_pids=

# Everything this script started in the background is ended on the way out,
# by its own pid (never by name), so a failed test leaves nothing behind.
_cleanup() {
	local p
	for p in $_bg_pids; do
		kill -KILL "$p" 2>/dev/null
		{ wait "$p"; } 2>/dev/null
	done
	rm -rf "$TMP"
}
trap _cleanup EXIT
trap 'exit 143' TERM INT HUP

# bg_started PID: remember PID for the cleanup above.
bg_started() {
	_bg_pids="$_bg_pids $1"
}

# ---- TAP ------------------------------------------------------------------

# plan N: announce N tests up front. A script that does not know its count
# in advance leaves it out: finish then prints the plan at the end.
plan() {
	_tap_planned=1
	echo "1..$1"
}

ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $*"
}

not_ok() {
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
	_dump_last_run
	# Meson prints only a TAP test's stderr when it fails: the failure, the
	# comments that led to it and the end of the last run's stderr go there
	# too, so that a CI log has them.
	{
		printf '%s\n' "$_recent"
		if [ -n "${ERR:-}" ] && [ -s "$ERR" ]; then
			echo "# ---- the last 20 lines of $ERR"
			tail -n 20 "$ERR" | sed 's/^/#   /'
		fi
		echo "not ok $_tap_n - $*"
	} >&2
}

# The output of the last ctprof run, as TAP comments, once per run: a
# failure's log then shows the report it was judged on.
_dumped=
_dump_last_run() {
	local f
	for f in "${OUT:-}" "${ERR:-}"; do
		[ -n "$f" ] && [ -e "$f" ] || continue
		case " $_dumped " in *" $f "*) continue ;; esac
		_dumped="$_dumped $f"
		diag_file "$f"
	done
}

# check DESCRIPTION COMMAND...: one TAP line, ok when COMMAND succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

# any_failed: some test of this script has failed so far.
any_failed() {
	[ "$_tap_failed" != 0 ]
}

# skip DESCRIPTION REASON: one TAP line that counts as skipped.
skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}

# skip_all REASON: the whole script cannot run here. Meson's TAP protocol
# treats exit 77 as an error, so the TAP way is used: a plan of 0 with a
# SKIP directive, which meson reports as SKIP (never as a pass).
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# diag TEXT...: TAP comment lines (shown in the test log), one for each
# line of TEXT; the last 12 are kept for not_ok.
_recent=
diag() {
	local lines
	lines=$(printf '%s\n' "$*" | sed 's/^/# /')
	printf '%s\n' "$lines"
	_recent=$(printf '%s\n' "$_recent" "$lines" | sed '/^$/d' | tail -n 12)
}

# diag_file FILE: FILE's contents as TAP comments.
diag_file() {
	echo "# ---- $1"
	if [ -s "$1" ]; then
		sed 's/^/#   /' "$1"
	else
		echo "#   (empty)"
	fi
}

# finish: end of a script: the plan if not given up front, and a summary
# comment. The TAP lines carry the verdict, so the exit status is 0 either
# way: meson's TAP protocol reports any other status as ERROR (the script
# itself broke) where FAIL is meant.
finish() {
	[ "$_tap_planned" = 1 ] || echo "1..$_tap_n"
	if [ "$_tap_failed" != 0 ]; then
		diag "FAILED $_tap_failed of $_tap_n"
	fi
	exit 0
}

# ---- ptrace availability ----------------------------------------------------

# ptrace_works [attach]: status 0 when this machine lets us ptrace, as
# probed by a separate tiny program (tests/targets/ptrace_probe.c), so a
# broken ctprof is never mistaken for a sandbox that refuses ptrace. With
# "attach", tracing a process that is not one's child must work too.
# Otherwise PTRACE_WHY says why (empty if the probe itself failed to run).
ptrace_works() {
	local rc
	PTRACE_WHY=$("$TARGETS/ptrace_probe")
	rc=$?
	case $rc in
	0) return 0 ;;
	2) [ "${1:-}" != attach ] && return 0 ;;
	1) ;;
	*) PTRACE_WHY= ;;
	esac
	return 1
}

# skip_unless_ptrace [attach]: skip the whole script when ptrace_works
# says no; bail out when the probe itself could not run.
skip_unless_ptrace() {
	ptrace_works "$@" && return 0
	[ -n "$PTRACE_WHY" ] && skip_all "$PTRACE_WHY"
	echo "Bail out! $TARGETS/ptrace_probe failed to run"
	exit 1
}

# ---- running ctprof -------------------------------------------------------

# run_cmd NAME COMMAND...: run COMMAND in the foreground (with a generous
# time limit), stdout to $TMP/NAME.out, stderr to $TMP/NAME.err. Sets OUT,
# ERR (the file names) and RC (the exit status; 124 if the limit ran out).
run_cmd() {
	local name=${1//[^A-Za-z0-9._-]/_}
	shift
	OUT=$TMP/$name.out
	ERR=$TMP/$name.err
	timeout -k 5 "${CTPROF_TEST_LIMIT:-30}" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	return 0
}

# run_ctprof NAME ARGS...: run_cmd NAME "$CTPROF" $CTPROF_ARGS ARGS...
# (CTPROF_ARGS, set by tests/meson.build, picks the unwinder backend.)
run_ctprof() {
	local name=$1
	shift
	# shellcheck disable=SC2086 # CTPROF_ARGS is a list of options
	run_cmd "$name" "$CTPROF" ${CTPROF_ARGS:-} "$@"
}

# ---- report fields ----------------------------------------------------------

# rows FUNC [FILE]: the report rows whose function name ($5) is FUNC.
rows() {
	awk -v f="$1" '$1 ~ /^-?[0-9]+ms$/ && $2 ~ /%$/ && $5 == f' "${2:-$OUT}"
}

# self_pct FUNC [FILE]: FUNC's self% (summed over its rows, should the same
# name appear in more than one module); 0 when absent.
self_pct() {
	rows "$@" | awk '{ sub(/%$/, "", $2); s += $2 } END { printf "%.1f\n", s + 0 }'
}

# cum_pct FUNC [FILE]: FUNC's highest cum%; 0 when absent.
cum_pct() {
	rows "$@" | awk '{ sub(/%$/, "", $4); if ($4 + 0 > m) m = $4 + 0 } END { printf "%.1f\n", m + 0 }'
}

# module_of FUNC [FILE]: the module column ($7) of FUNC's first row.
module_of() {
	rows "$@" | awk 'NR == 1 { print $7 }'
}

# total_samples [FILE]: N from the header "total: N samples, ...".
total_samples() {
	awk '$1 == "total:" { print $2; exit }' "${1:-$OUT}"
}

# header_threads [FILE]: N from the header's "N threads," field.
header_threads() {
	awk '$1 == "total:" { for (i = 2; i <= NF; i++) if ($i ~ /^threads?,?$/) { print $(i - 1); exit } }' "${1:-$OUT}"
}

# has_report [FILE]: the output holds a report header line ("1 sample" in
# the singular, as a blocked target may give).
has_report() {
	grep -Eq '^total: [0-9]+ samples?,' "${1:-$OUT}"
}

# in_share PCT CPU [BAND]: a function's self% PCT is within +-BAND (relative,
# default 0.2) of its thread's share of the three threads' CPU time, their
# times in $cpu1, $cpu2 and $cpu3 (ratio3's line, as the caller read it).
in_share() {
	[ -n "$cpu3" ] && awk -v p="$1" -v c="$2" -v b="${3:-0.2}" -v t1="$cpu1" -v t2="$cpu2" -v t3="$cpu3" 'BEGIN {
		e = 100 * c / (t1 + t2 + t3)
		printf "# self%% %.1f, expected %.1f, band %.1f..%.1f\n", p, e, e * (1 - b), e * (1 + b)
		exit !(p >= e * (1 - b) && p <= e * (1 + b))
	}'
}

# ---- numbers ----------------------------------------------------------------

# ge A B / le A B / lt A B: numeric (decimal) comparisons.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# is_status WANT: the last run_ctprof exited with status WANT.
is_status() {
	[ "$RC" = "$1" ] || { diag "exit status $RC, expected $1"; return 1; }
}

# err_says PHRASE: the last run's stderr mentions PHRASE (any case).
err_says() {
	grep -qi -- "$1" "$ERR" || { diag "stderr lacks '$1': $(head -c 300 "$ERR")"; return 1; }
}

# ---- target processes -------------------------------------------------------

# proc_state PID_OR_TID: its state letter from /proc/*/stat (empty if gone).
proc_state() {
	sed -n 's/^.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null
}

# alive_not_stopped PID: PID exists, is no zombie, and none of its threads
# is stopped (T) or in a tracing stop (t). A thread may still be on its way
# out of a stop right after ctprof detaches, so a stop has to persist for 2
# seconds to count.
alive_not_stopped() {
	local pid=$1 _ t s bad
	for _ in $(seq 40); do
		bad=
		[ -d "/proc/$pid" ] || { diag "pid $pid is gone"; return 1; }
		for t in /proc/"$pid"/task/*; do
			s=$(proc_state "$pid/task/${t##*/}")
			case $s in
			T|t|Z|X) bad="thread ${t##*/} state $s" ;;
			esac
		done
		[ -z "$bad" ] && return 0
		sleep 0.05
	done
	diag "pid $pid: $bad"
	return 1
}

# wait_for COMMAND...: poll COMMAND for up to 5 s (WAIT_SECS to change).
wait_for() {
	local _
	for _ in $(seq $((${WAIT_SECS:-5} * 20))); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# exited PID: PID (a child of this shell) has ended: it is a zombie or gone.
exited() {
	[ ! -d "/proc/$1" ] || [ "$(proc_state "$1")" = Z ]
}

# wait_child PID [SECS]: wait up to SECS (default 30) for the child PID to
# end and set RC to its status; if it does not end, kill it and set RC to
# "hung".
wait_child() {
	if WAIT_SECS=${2:-30} wait_for exited "$1"; then
		wait "$1"
		RC=$?
	else
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		RC=hung
	fi
}

# tracer_of PID: the TracerPid of PID (0: not traced; empty: no such pid).
tracer_of() {
	awk '$1 == "TracerPid:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# traced PID: PID is being traced by someone now.
traced() {
	local t
	t=$(tracer_of "$1")
	[ -n "$t" ] && [ "$t" != 0 ]
}

# not_traced PID: PID exists and nobody traces it.
not_traced() {
	[ "$(tracer_of "$1")" = 0 ]
}

# untraced PID: PID is traced by nobody (after ctprof let it go). Waits up
# to 5 s, for a tracer that is still on its way out.
untraced() {
	wait_for not_traced "$1" || { diag "pid $1 is still traced by $(tracer_of "$1")"; return 1; }
}

# free_pid: a pid that no process or thread has now.
free_pid() {
	local p
	p=$(($(cat /proc/sys/kernel/pid_max) - 1))
	while [ -e "/proc/$p" ] || kill -0 "$p" 2>/dev/null; do
		p=$((p - 1))
	done
	echo "$p"
}

# ---- several processes (--follow-forks) -------------------------------------

# process_table PID [FILE]: the table of process PID's own section of a
# report ("process PID (name): ..." up to the next blank line), to give to
# self_pct and the like as their FILE.
process_table() {
	awk -v p="$1" '$1 == "process" && $2 == p { on = 1; next } on && /^$/ { exit } on' "${2:-$OUT}"
}

# main_table [FILE]: the report's first table, over every sample.
main_table() {
	awk '$1 == "self" && $2 == "self%" { on = 1 } on && /^$/ { exit } on' "${1:-$OUT}"
}

# report_pids [FILE]: the pids of the report's process sections, in order.
report_pids() {
	awk '$1 == "process" && $3 ~ /^\(/ { print $2 }' "${1:-$OUT}"
}
