#!/bin/bash
# fdlimit: ctprof keeps two to four /proc files open for each thread it
# samples.  Under the usual soft limit of 1024 descriptors it raises its
# own to the hard limit, and a command it runs gets the limit it had;
# where the hard limit is too low, the report says so.  Before, 600 idle
# threads under --wall at a soft limit of 1024 were stopped at every tick
# (18646 stops of blocked threads in 2 s, against about 1200).  Where
# the hard limit is too low, the threads without their files are not
# stopped at every tick either.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace launch

# limited LIMIT-OPTION NAME ARGS...: run_ctprof NAME ARGS... under ulimit
# LIMIT-OPTION (e.g. -Sn 1024).
limited() {
	local lim=$1 n=$2 l=$3
	shift 3
	# shellcheck disable=SC2086 # CTPROF_ARGS is a list of options
	run_cmd "$l" bash -c 'ulimit '"$lim"' "$0" && exec "$@"' "$n" "$CTPROF" ${CTPROF_ARGS:-} "$@"
}

hard=$(ulimit -Hn)
limited -Sn 1024 command -o /dev/null -- sh -c 'echo "soft $(ulimit -Sn) hard $(ulimit -Hn)"'
diag "the command saw: $(cat "$OUT")"
check "the command gets ctprof's soft limit of descriptors, not the raised one" \
	eval 'is_status 0 && grep -qx "soft 1024 hard $hard" "$OUT"'

if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
	limited -Sn 1024 idle --wall -v -F 99 -o "$TMP/idle.txt" -- "$TARGETS/idlers" 600 2
	stops=$(awk '$1 == "profiler:" && $2 == "wall-clock:" { print $3 }' "$TMP/idle.txt")
	diag "600 idle threads, soft limit 1024: ${stops:-?} stops of blocked threads"
	check "600 threads under a soft limit of 1024: ran, no descriptor ran out" \
		eval 'is_status 0 && grep -q "^idlers: 600 threads, done$" "$OUT" && ! grep -q "ran out of file descriptors" "$TMP/idle.txt"'
	check "600 threads under a soft limit of 1024: blocked ones stopped a few times each (<= 3)" \
		eval '[ -n "$stops" ] && [ "$stops" -le 1800 ]'
else
	skip "600 threads under a soft limit of 1024" "the hard limit here is $hard"
	skip "600 threads under a soft limit of 1024: stopped a few times each" "the hard limit here is $hard"
fi

# Each thread keeps its stat file open, and the 40 descriptors left are
# not enough for the others' schedstat files: those threads cannot be
# seen not to have run since their stop.  Before, they were stopped at
# every tick (30311 stops in 2 s, ctprof busy 1.08 s of them); now each
# is counted where it was last stopped, and stopped again once a second.
limited -n 256 low --wall -v -F 99 -o "$TMP/low.txt" -- "$TARGETS/idlers" 200 2
diag "$(grep '^note: ctprof ran out' "$TMP/low.txt")"
stops=$(awk '$1 == "profiler:" && $2 == "wall-clock:" { print $3 }' "$TMP/low.txt")
diag "200 idle threads, hard limit 256: ${stops:-?} stops of blocked threads"
check "a hard limit of 256 for 200 threads: the target runs to its end, the report says what to raise" \
	eval 'is_status 0 && grep -q "^idlers: 200 threads, done$" "$OUT" && grep -q "^note: ctprof ran out of file descriptors (limit 256): .*ulimit -Hn" "$TMP/low.txt"'
check "a hard limit of 256 for 200 threads: blocked ones stopped a few times each (<= 3), not at every tick" \
	eval '[ -n "$stops" ] && [ "$stops" -le 600 ]'
finish
