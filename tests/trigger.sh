#!/bin/bash
# trigger: --trigger=perf (rings), perf-stop (a stop each sample) and
# timer, each as root (as CI runs)
# and as an unprivileged user (ctprof-test, created with useradd if it is
# missing, ctprof run through setpriv), each check in each mode the
# machine allows.  Where perf_event_open is refused, ctprof --trigger=perf
# (or perf-stop) exits 1 (attached) or 125 (launched) saying so: those
# modes' checks are skipped with its reason, not failed.
#
# urgcount has a SIGURG handler of its own that counts its calls, sends
# itself a few SIGURGs, and runs three busy threads: main_work, a worker
# that blocks every signal once it has started (blocked_work: perf-stop
# must leave it to the timer; rings need no signal) and one that blocks
# them in short sections (crit_work).  Launched and attached, its handler must have run
# exactly once per SIGURG it sent: a signal of ctprof's that reached it
# counts one too many, one of its own that ctprof took for its event's
# one too few.  It counts SIGWINCH too, which it never sends itself: the
# events may stop a thread with either signal, and none may reach it.
# Launched, -v's "trigger:" line must name the trigger asked for, and
# each thread's function must have the thread's share of the three
# threads' CPU times (urgcount's own clocks) within 8 points: a thread
# whose stops never come (its signal blocked), whose time is counted
# twice, or that is counted as running while it waits for a CPU (three
# threads on 2 CPUs) is off by more.  The function's cum% is taken, as its
# thread's time includes the clock reads and signal-mask calls below it.
# In crit_work, samples asked for inside a section land where it unblocks
# the signals (late), so crit_inside's own share is only shown.
# Attached, the target must be left running, not stopped and not traced.
#
# With perf and perf-stop: ctprof SIGKILLed at a random moment 20-300 ms
# after it was started to attach to urgcount, $ROUNDS times: after each
# the target must be alive, not stopped and untraced; at the end, with
# SIGTERM, it must exit 0 with its SIGURG handler run no less often than
# it sent itself one, and the strays (SIGURGs beyond those and
# SIGWINCHes) at most 3 (its threads) per kill.  ktrigger.sh has the
# perf trigger's accuracy, EINTR and late-stop checks.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

ROUNDS=${TRIGGER_ROUNDS:-50}
TUSER=ctprof-test
# The band of a thread's share, in points (see above).
BAND=8

# The user's runs need paths that do not depend on this shell's
# directory, and a directory of their own they may write in: the whole
# script runs in $TMP/user.  The user, once created, is left on the
# machine for the next run.
CTPROF=$(readlink -f "$CTPROF")
TARGETS=$(readlink -f "$TARGETS")

# The privileges to run as: this shell's own, and where it is root an
# unprivileged user too.
self=$(id -un)
privs=("$self")
user_why=
if [ "$(id -u)" != 0 ]; then
	user_why="not root: cannot run ctprof as another user"
elif ! command -v setpriv >/dev/null; then
	user_why="no setpriv to run ctprof as $TUSER"
elif ! id -u "$TUSER" >/dev/null 2>&1; then
	if ! command -v useradd >/dev/null; then
		user_why="no user $TUSER and no useradd to create it"
	elif ! useradd --system --no-create-home --shell /usr/sbin/nologin "$TUSER" 2>"$TMP/useradd.err"; then
		user_why="useradd $TUSER failed: $(head -1 "$TMP/useradd.err")"
	fi
fi
if [ -z "$user_why" ]; then
	chmod 711 "$TMP"
	mkdir "$TMP/user" && chown "$TUSER:" "$TMP/user"
	cd "$TMP/user" || exit 99
	if ! setpriv --reuid="$TUSER" --regid="$(id -g "$TUSER")" --init-groups \
		sh -c 'test -x "$1" && test -x "$2" && test -w .' sh "$CTPROF" "$TARGETS/urgcount"; then
		user_why="$TUSER cannot run $CTPROF and the test targets, or write in $TMP/user"
	else
		privs+=("$TUSER")
	fi
fi

# as_priv P: AS, the command prefix that runs as P (env for this shell's
# own); WHY_ALL and WHY_ATTACH, why nothing or nothing attached can run
# as P (empty: it can), from ptrace_probe run as P.
as_priv() {
	local rc
	if [ "$1" = "$self" ]; then
		AS=(env)
	else
		AS=(setpriv --reuid="$TUSER" --regid="$(id -g "$TUSER")" --init-groups)
	fi
	WHY_ALL= WHY_ATTACH=
	WHY_ATTACH=$("${AS[@]}" "$TARGETS/ptrace_probe")
	rc=$?
	case $rc in
	0) WHY_ATTACH= ;;
	2) ;;
	*) WHY_ALL=${WHY_ATTACH:-ptrace_probe failed to run as $1} ;;
	esac
}

# perf_refused MODE: the last run, of MODE, ended as ctprof ends where
# perf_event_open is refused (status 1 or 125, stderr naming it); then
# PERF_WHY says so, and the user's later perf runs are skipped.
perf_refused() {
	[ "${1%-stop}" = perf ] && { [ "$RC" = 1 ] || [ "$RC" = 125 ]; } &&
		grep -q perf_event_open "$ERR" || return 1
	PERF_WHY=$(grep -m1 perf_event_open "$ERR")
}

# skips REASON DESC...: a skip for each DESC.
skips() {
	local why=$1 d
	shift
	for d in "$@"; do
		skip "$d" "$why"
	done
}

# trigger_ran MODE [FILE]: -v's trigger line names MODE (perf: with
# samples from rings; perf-stop: from stops).
trigger_ran() {
	case $1 in
	perf) grep -Eq '^trigger: perf.* [1-9][0-9]* samples from rings' "${2:-$OUT}" ;;
	perf-stop) grep -Eq '^trigger: perf.* [1-9][0-9]* samples from stops' "${2:-$OUT}" ;;
	*) grep -q "^trigger: $1" "${2:-$OUT}" ;;
	esac || { diag "no 'trigger: $1' line: $(grep '^trigger:' "${2:-$OUT}" | cut -c1-200)"; return 1; }
}

# handler_sent FILE: "H S W" from urgcount's "urgcount: handler H sent S
# winch W".
handler_sent() {
	awk '$1 == "urgcount:" && $2 == "handler" { print $3, $5, $7; exit }' "$1"
}

# handler_ok FILE: urgcount's SIGURG handler ran once per SIGURG it sent,
# its SIGWINCH handler never.
handler_ok() {
	local h s w
	read -r h s w < <(handler_sent "$1")
	[ -n "$w" ] && [ "$h" = "$s" ] && [ "$w" = 0 ] ||
		{ diag "urgcount: handler ${h:-?} sent ${s:-?} winch ${w:-?}"; return 1; }
}

# thread_share PCT CPU: a function's cum% PCT is within BAND points of its
# thread's share of urgcount's three CPU times ($cm, $cb, $cc).
thread_share() {
	[ -n "$cc" ] && awk -v p="$1" -v c="$2" -v n="$BAND" -v a="$cm" -v b="$cb" -v d="$cc" 'BEGIN {
		e = 100 * c / (a + b + d)
		printf "# cum%% %.1f, the thread'\''s share %.1f, band %.1f..%.1f\n", p, e, e - n, e + n
		exit !(p >= e - n && p <= e + n)
	}'
}

# ---- urgcount launched ----
launched() {
	local p=$1 mode=$2 what="$1 $2 launched"
	local d=("$what: exit 0, a report, -v's trigger line names $mode"
		"$what: the handler ran once per SIGURG urgcount sent, never for SIGWINCH"
		"$what: main_work's cum% is its thread's share of the CPU time +-$BAND points"
		"$what: blocked_work's cum% is its thread's share of the CPU time +-$BAND points"
		"$what: crit_work's cum% is its thread's share of the CPU time +-$BAND points"
		"$what: main_work, blocked_work and crit_outside have samples")
	run_cmd "launch-$p-$mode" "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger="$mode" -F 999 -v -- \
		"$TARGETS/urgcount" 2
	if perf_refused "$mode"; then
		skips "$PERF_WHY" "${d[@]}"
		return
	fi
	read -r cm cb cc < <(awk '$1 == "urgcount:" && $2 == "cpu" { print $4, $6, $8; exit }' "$OUT")
	diag "$what: $(grep '^urgcount:' "$OUT" | paste -sd';'); $(grep '^trigger:' "$OUT" | head -1 | cut -c1-200)"
	diag "$what: crit_inside (its samples land where it unblocks) cum% $(cum_pct crit_inside)"
	check "${d[0]}" eval 'is_status 0 && has_report && trigger_ran "$mode"'
	check "${d[1]}" handler_ok "$OUT"
	check "${d[2]}" thread_share "$(cum_pct main_work)" "$cm"
	check "${d[3]}" thread_share "$(cum_pct blocked_work)" "$cb"
	check "${d[4]}" thread_share "$(cum_pct crit_work)" "$cc"
	check "${d[5]}" eval 'ge "$(cum_pct main_work)" 1 && ge "$(cum_pct blocked_work)" 1 && ge "$(cum_pct crit_outside)" 1'
}

# ---- urgcount attached ----
attached() {
	local p=$1 mode=$2 what="$1 $2 attached" pid report
	local d=("$what: exit 0, a report, -v's trigger line names $mode"
		"$what: urgcount left running, not stopped, not traced"
		"$what: urgcount exits 0 on SIGTERM, its handler run once per SIGURG it sent, never for SIGWINCH")
	# 30 SIGURGs, one every 0.1 s: most of them while ctprof is there.
	"${AS[@]}" "$TARGETS/urgcount" 0 30 >"$TMP/attached-$p-$mode.target" 2>&1 &
	pid=$!
	bg_started "$pid"
	sleep 0.3
	run_cmd "attach-$p-$mode" "${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger="$mode" -F 999 -v -d 2 -p "$pid"
	if perf_refused "$mode"; then
		skips "$PERF_WHY" "${d[@]}"
		kill -TERM "$pid" 2>/dev/null
		wait_child "$pid" 10
		return
	fi
	check "${d[0]}" eval 'is_status 0 && has_report && trigger_ran "$mode"'
	check "${d[1]}" eval 'alive_not_stopped "$pid" && untraced "$pid"'
	kill -TERM "$pid" 2>/dev/null
	wait_child "$pid" 10
	report=$OUT
	OUT=$TMP/attached-$p-$mode.target
	diag "$what: $(grep '^urgcount:' "$OUT" | paste -sd';')"
	check "${d[2]}" eval 'is_status 0 && handler_ok "$OUT"'
	OUT=$report
}

# ---- ctprof SIGKILLed ----
sigkills() {
	local p=$1 mode=$2 what="$1 $2" pid r ct bad=0 h s w
	local d=("$what: $ROUNDS SIGKILLs of ctprof, urgcount alive, not stopped and untraced after each"
		"$what: urgcount exits 0 on SIGTERM, no SIGURG of its own lost, at most 3 strays a kill")
	"${AS[@]}" "$TARGETS/urgcount" 0 5 >"$TMP/killed-$p.target" 2>&1 &
	pid=$!
	bg_started "$pid"
	sleep 0.2
	for r in $(seq "$ROUNDS"); do
		"${AS[@]}" "$CTPROF" ${CTPROF_ARGS:-} --trigger="$mode" -F 999 -p "$pid" >"$TMP/killed-$p.out" 2>"$TMP/killed-$p.err" &
		ct=$!
		sleep "0.$(printf '%03d' $((20 + RANDOM % 281)))"
		kill -KILL "$ct" 2>/dev/null
		wait "$ct" 2>/dev/null
		RC=$?
		if [ "$r" = 1 ] && OUT=$TMP/killed-$p.out ERR=$TMP/killed-$p.err perf_refused "$mode"; then
			skips "$PERF_WHY" "${d[@]}"
			kill -TERM "$pid" 2>/dev/null
			wait_child "$pid" 10
			return
		fi
		if ! alive_not_stopped "$pid" || ! untraced "$pid"; then
			bad=$((bad + 1))
			diag "$what: after kill $r: urgcount $(proc_state "$pid"), traced by $(tracer_of "$pid")"
			[ -d "/proc/$pid" ] || break
		fi
	done
	# A failure shows the last ctprof's output, then the target's.
	OUT=$TMP/killed-$p.out ERR=$TMP/killed-$p.err
	check "${d[0]}" [ "$bad" = 0 ]
	kill -TERM "$pid" 2>/dev/null
	wait_child "$pid" 10
	OUT=$TMP/killed-$p.target ERR=
	read -r h s w < <(handler_sent "$TMP/killed-$p.target")
	diag "$what: after $r kills: urgcount exit ${RC}, handler ${h:-?} sent ${s:-?} winch ${w:-?}"
	check "${d[1]}" eval '[ "$RC" = 0 ] && [ -n "$w" ] && [ "$h" -ge "$s" ] && [ "$((h - s + w))" -le $((3 * ROUNDS)) ]'
}

for p in "${privs[@]}"; do
	as_priv "$p"
	PERF_WHY=
	if [ -n "$WHY_ALL" ]; then
		skip "$p: every check" "$WHY_ALL"
		continue
	fi
	for mode in perf perf-stop timer; do
		launched "$p" "$mode"
		if [ "$mode" != timer ] && [ -n "$PERF_WHY" ]; then
			skip "$p $mode attached: every check" "$PERF_WHY"
		elif [ -n "$WHY_ATTACH" ]; then
			skip "$p $mode attached: every check" "$WHY_ATTACH"
		else
			attached "$p" "$mode"
		fi
	done
	for mode in perf perf-stop; do
		if [ -n "$PERF_WHY" ]; then
			skip "$p $mode: SIGKILLs of ctprof attached" "$PERF_WHY"
		elif [ -n "$WHY_ATTACH" ]; then
			skip "$p $mode: SIGKILLs of ctprof attached" "$WHY_ATTACH"
		else
			sigkills "$p" "$mode"
		fi
	done
done
[ -n "$user_why" ] && skip "unprivileged user $TUSER: every check" "$user_why"
finish
