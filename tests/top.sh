#!/bin/bash
# ctprof top, used as a person would: typed into an interactive shell in a
# tmux pane of 80x24, read back with capture-pane, driven with keys.
# - attached to bperf (mostwork holds 32/57 of its time): the header names
#   the pid, 1 thread, 99 Hz and a sample rate near 99/s; mostwork heads
#   the rows with a plausible share; no line is wider than the pane and
#   the header is on its first line; 'c' sorts by cum, 's' back by self;
#   'q' ends ctprof at once with status 0, the alternate screen is gone,
#   the cursor shows, the terminal modes are those from before, the shell
#   prompt is back, and the target runs on, untraced;
# - the pane shrunk to 60x15: the view fits the new size; Ctrl-C ends it
#   with the terminal given back;
# - a command (chain, hot in f3): 'q' gives the terminal back at once,
#   the command runs on untraced, and ctprof exits with its status after;
#   and a command that ends by itself, and -d, end the view the same way;
# - off a terminal: a plain block per interval and a last one, no escape
#   sequences; '| head' ends ctprof promptly; an output left unread does
#   not hold up sampling; -o still writes a report.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach
command -v tmux >/dev/null ||
	skip_all "tmux is not installed (scripts/deps.sh --test installs it)"

# shellcheck disable=SC2086 # CTPROF_ARGS is a list of options
CT="$CTPROF top ${CTPROF_ARGS:-}"
SOCK=$TMP/tmux.sock
PROMPT='top-test$'

tm() { tmux -S "$SOCK" -f /dev/null "$@"; }

# poll SECS COMMAND...: COMMAND succeeds within SECS seconds.
poll() {
	local secs=$1 _
	shift
	for _ in $(seq $((secs * 20))); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# screen FILE: what the pane shows now (wrapped lines joined, so that a
# line wider than the pane shows as one).
screen() { tm capture-pane -p -J -t t >"$1"; }
# shows PATTERN: the pane shows a line matching the extended regex.
shows() { screen "$TMP/poll.txt" && grep -Eq -- "$1" "$TMP/poll.txt"; }
# pane FORMAT: a tmux format of the pane, e.g. #{alternate_on}.
pane() { tm display -p -t t "$1"; }
# screen_given_back: off the alternate screen, the cursor showing.
screen_given_back() { [ "$(pane '#{alternate_on}#{cursor_flag}')" = 01 ]; }
# type LINE: type LINE into the shell, then Enter.
type_line() { tm send-keys -t t -l "$1" && tm send-keys -t t Enter; }
# prompt_back: the shell's prompt is the last line shown.
prompt_back() {
	screen "$TMP/poll.txt" &&
		[ "$(grep -v '^ *$' "$TMP/poll.txt" | tail -1 | sed 's/ *$//')" = "$PROMPT" ]
}
# stty_saved NAME: the terminal's settings (stty -g) into $TMP/NAME.stty.
stty_saved() {
	rm -f "$TMP/$1.stty"
	type_line "stty -g >$TMP/$1.stty.tmp && mv $TMP/$1.stty.tmp $TMP/$1.stty"
	poll 5 test -s "$TMP/$1.stty"
}

# The view's rows: four percentages, then function and [module].
view_rows() {
	awk '$1 ~ /^[0-9]+\.[0-9]$/ && $2 ~ /^[0-9]+\.[0-9]$/ && $3 ~ /^[0-9]+\.[0-9]$/ &&
	     $4 ~ /^[0-9]+\.[0-9]$/ && $NF ~ /^\[.*\]$/' "$1"
}
# col FUNC N FILE: column N of FUNC's row (1 self%, 2 cum%: last interval;
# 3 self%, 4 cum%: whole run); empty when absent.
col() { view_rows "$3" | awk -v f="$1" -v n="$2" '$5 == f { print $n; exit }'; }
first_func() { view_rows "$1" | awk 'NR == 1 { print $5 }'; }
# ordered_by N FILE: the rows' column N never increases downwards.
ordered_by() {
	view_rows "$2" | awk -v n="$1" 'NR > 1 && $n + 0 > prev + 0 { bad = 1 } { prev = $n } END { exit bad }'
}
# fits W H FILE: at most H lines, none wider than W, the header first.
fits() {
	local w=$1 h=$2 f=$3 lines wide
	lines=$(wc -l <"$f")
	wide=$(awk -v w="$w" 'length($0) > w' "$f" | wc -l)
	[ "$lines" -le "$h" ] && [ "$wide" = 0 ] && head -1 "$f" | grep -q '^ctprof top: pid ' ||
		{ diag "$lines lines, $wide wider than $w, first: $(head -1 "$f")"; return 1; }
}
in_band() { ge "$1" "$2" && le "$1" "$3"; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

"$TARGETS/bperf" 300 >/dev/null &
bpid=$!
bg_started "$bpid"

# A shell with a known prompt in an 80x24 pane; the tmux server is ended
# by its pid on the way out, with everything else this script started.
tm new-session -d -x 80 -y 24 -s t "env -u TMUX HISTFILE=/dev/null PS1='$PROMPT ' bash --norc --noprofile" ||
	skip_all "tmux cannot start a session here"
bg_started "$(tm display -p '#{pid}')"
poll 10 prompt_back || { echo "Bail out! the shell in tmux shows no prompt"; exit 1; }
stty_saved before

# ---- attached: the view, c, s, q -----------------------------------------
type_line "$CT -p $bpid; echo rc=\$? >$TMP/rc1"
poll 10 shows ' mostwork \[bperf\]$'
screen "$TMP/view1.txt"
OUT=$TMP/view1.txt ERR=/dev/null
diag_file "$TMP/view1.txt"
rate=$(head -1 "$TMP/view1.txt" | sed -n 's/.*, \([0-9]*\) samples\/s.*/\1/p')
check "the view is on the alternate screen, cursor hidden" \
	test "$(pane '#{alternate_on}#{cursor_flag}')" = 10
check "header: pid $bpid (bperf), 1 thread, 99 Hz" \
	grep -Eq "^ctprof top: pid $bpid \\(bperf\\), 1 thread, 99 Hz, [0-9]+ samples/s" "$TMP/view1.txt"
check "header: $rate samples/s over the last interval, near 99 (40..110)" in_band "${rate:-0}" 40 110
check "second line: sort by self, the keys" grep -q 'sort: self; keys: s self, c cum, q quit' "$TMP/view1.txt"
check "the target is traced while the view is up" traced "$bpid"
most=$(col mostwork 1 "$TMP/view1.txt")
mostrun=$(col mostwork 3 "$TMP/view1.txt")
diag "mostwork self%: last interval $most, whole run $mostrun (expected about 56)"
check "mostwork heads the rows" test "$(first_func "$TMP/view1.txt")" = mostwork
check "mostwork's self% is plausible: last interval 30..85, whole run 30..85" \
	eval 'in_band "${most:-0}" 30 85 && in_band "${mostrun:-0}" 30 85'
check "rows ordered by self% of the last interval" ordered_by 1 "$TMP/view1.txt"
check "main is there with cum% >= 90" ge "$(col main 2 "$TMP/view1.txt")" 90
check "it fits 80x24: no line wider, the header on the first line" fits 80 24 "$TMP/view1.txt"

tm send-keys -t t c
poll 5 shows 'sort: cum;'
screen "$TMP/view2.txt"
OUT=$TMP/view2.txt
check "c: the view says sort: cum" grep -q 'sort: cum; keys' "$TMP/view2.txt"
check "c: rows ordered by cum% of the last interval" ordered_by 2 "$TMP/view2.txt"
check "c: a function with cum% >= 90 heads the rows, not mostwork" \
	eval 'ge "$(view_rows "$TMP/view2.txt" | awk "NR == 1 { print \$2 }")" 90 &&
	      test "$(first_func "$TMP/view2.txt")" != mostwork'
tm send-keys -t t s
check "s: sorted by self again" poll 5 shows 'sort: self;'

t0=$(date +%s%N)
tm send-keys -t t q
poll 10 test -s "$TMP/rc1"
quit_ms=$(ms_since "$t0")
diag "q to exit: $quit_ms ms"
check "q: ctprof exits 0" grep -qx 'rc=0' "$TMP/rc1"
check "q: it exits promptly (< 2 s)" lt "$quit_ms" 2000
check "q: the alternate screen is gone and the cursor shows" screen_given_back
check "q: the shell's prompt is back, under the command typed" \
	eval 'poll 5 prompt_back && grep -q "top .*-p $bpid; echo rc=" "$TMP/poll.txt"'
stty_saved after1
check "q: the terminal's modes are as before (stty -g)" cmp -s "$TMP/before.stty" "$TMP/after1.stty"
check "q: the target runs on, not stopped" alive_not_stopped "$bpid"
check "q: the target is no longer traced" untraced "$bpid"

# ---- a smaller pane, and Ctrl-C ----------------------------------------
type_line "clear; $CT -p $bpid; echo rc=\$? >$TMP/rc2"
poll 10 shows ' mostwork \[bperf\]$'
tm resize-window -t t -x 60 -y 15
# Until the next refresh, tmux shows the old frame cut to the new size.
fits_small() { screen "$TMP/small.txt" && fits 60 15 "$TMP/small.txt" 2>/dev/null >/dev/null &&
	grep -q mostwork "$TMP/small.txt"; }
poll 5 fits_small
OUT=$TMP/small.txt
check "60x15: the view fits, the header on its first line" fits 60 15 "$TMP/small.txt"
check "60x15: mostwork still heads the rows" test "$(first_func "$TMP/small.txt")" = mostwork
tm send-keys -t t C-c
poll 10 test -s "$TMP/rc2"
check "Ctrl-C: ctprof exits 0" grep -qx 'rc=0' "$TMP/rc2"
check "Ctrl-C: the alternate screen is gone and the cursor shows" screen_given_back
stty_saved after2
check "Ctrl-C: the terminal's modes are as before" cmp -s "$TMP/before.stty" "$TMP/after2.stty"
check "Ctrl-C: the target runs on, untraced" eval 'alive_not_stopped "$bpid" && untraced "$bpid"'
tm resize-window -t t -x 80 -y 24

# ---- a command: q, then ctprof waits for it ------------------------------
type_line "clear; $CT -- $TARGETS/chain 6; echo rc=\$? >$TMP/rc3"
poll 10 shows ' f3 \[chain\]$'
screen "$TMP/chain.txt"
OUT=$TMP/chain.txt
check "command: f3 heads the rows with self% >= 60" \
	eval 'test "$(first_func "$TMP/chain.txt")" = f3 && ge "$(col f3 1 "$TMP/chain.txt")" 60'
shell=$(pane '#{pane_pid}')
cpid=$(pgrep -P "$shell" | head -1)
chpid=$(pgrep -P "${cpid:-0}" | head -1)
tm send-keys -t t q
check "command, q: the terminal is given back at once (< 3 s)" poll 3 screen_given_back
check "command, q: the command runs on, untraced, while ctprof waits" \
	eval '[ -n "$chpid" ] && [ ! -s "$TMP/rc3" ] && alive_not_stopped "$chpid" && untraced "$chpid"'
poll 15 test -s "$TMP/rc3"
check "command, q: ctprof exits with the command's status 0 once it ends" grep -qx 'rc=0' "$TMP/rc3"

type_line "clear; $CT -- $TARGETS/chain 1.5; echo rc=\$? >$TMP/rc4"
poll 15 test -s "$TMP/rc4"
check "command that ends by itself: status 0, the terminal given back" \
	eval 'grep -qx "rc=0" "$TMP/rc4" && screen_given_back'
type_line "clear; $CT -d 1.5 -p $bpid; echo rc=\$? >$TMP/rc5"
poll 15 test -s "$TMP/rc5"
stty_saved after5
check "-d 1.5: status 0, the terminal given back as it was" \
	eval 'grep -qx "rc=0" "$TMP/rc5" && screen_given_back && cmp -s "$TMP/before.stty" "$TMP/after5.stty"'

# ---- off a terminal --------------------------------------------------------
run_cmd plain $CT -d 2.5 -p "$bpid"
blocks=$(grep -c '^ctprof top: pid ' "$OUT")
diag "plain: $blocks blocks; last block:"
awk '/^ctprof top: pid /{ n++ } n == 3' "$OUT" | sed 's/^/#   /'
check "plain: exit 0" is_status 0
check "plain: a block at 1 s, 2 s and a last one (3)" test "$blocks" = 3
check "plain: the last block says end" grep -q 'sort: self, end$' "$OUT"
check "plain: no escape sequence or other control character" \
	eval '! LC_ALL=C grep -q "[[:cntrl:]]" "$OUT"'
last=$TMP/last-block.txt
awk '/^ctprof top: pid /{ n++ } n == 3' "$OUT" >"$last"
check "plain: mostwork heads the last block, whole run self% 30..85" \
	eval 'test "$(first_func "$last")" = mostwork && in_band "$(col mostwork 3 "$last")" 30 85'
check "plain: the target runs on, untraced" eval 'alive_not_stopped "$bpid" && untraced "$bpid"'

t0=$(date +%s%N)
# shellcheck disable=SC2086
timeout -k 5 30 $CT -p "$bpid" 2>"$TMP/head.err" | head -n 3 >"$TMP/head.out"
rc=${PIPESTATUS[0]}
head_ms=$(ms_since "$t0")
diag "| head -n 3: ctprof ended after $head_ms ms"
check "| head: ctprof exits 0 once the reader has gone, within 3 s" \
	eval 'test "$rc" = 0 && lt "$head_ms" 3000'
check "| head: the target runs on, untraced" eval 'alive_not_stopped "$bpid" && untraced "$bpid"'

# An output nobody reads: a pipe of 4 KiB (F_SETPIPE_SZ) left unread for
# 5 s while ctprof samples for 4 s, refreshing every 0.1 s.  Sampling must
# not wait for the view: the report of -o has the samples of the full rate.
if command -v python3 >/dev/null; then
	python3 - "$bpid" "$TMP" $CT --interval 0.1 -d 4 -o "$TMP/stalled.txt" >"$TMP/stalled.log" 2>&1 <<-'EOF'
	import fcntl, os, subprocess, sys, time
	pid, tmp, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
	r, w = os.pipe()
	fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ
	p = subprocess.Popen(cmd + ["-p", pid], stdout=w)
	os.close(w)
	time.sleep(5)
	with open(tmp + "/stalled.out", "wb") as f:
	    while True:
	        b = os.read(r, 65536)
	        if not b:
	            break
	        f.write(b)
	print("rc=%d" % p.wait())
	EOF
	OUT=$TMP/stalled.txt ERR=$TMP/stalled.log
	n=$(total_samples)
	diag "output unread for 5 s: $n samples in 4 s at 99 Hz; $(grep -o '[0-9]* intervals in one' "$TMP/stalled.out" | tail -1)"
	check "output unread: ctprof exits 0 once it is read" grep -qx 'rc=0' "$TMP/stalled.log"
	check "output unread: sampling went on (>= 300 samples of 396)" ge "${n:-0}" 300
	check "output unread: a block says intervals were merged" grep -q 'intervals in one' "$TMP/stalled.out"
else
	skip "output unread: sampling goes on" "python3 is not installed"
fi

run_cmd with-o $CT -d 1.2 -o "$TMP/report.txt" -p "$bpid"
check "-o: the view, and a report in the file at the end" \
	eval 'is_status 0 && grep -q "^ctprof top: pid " "$OUT" && has_report "$TMP/report.txt"'
finish
