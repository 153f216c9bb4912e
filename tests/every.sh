#!/bin/bash
# every: --every writes one complete profile per interval, for a collector.
# Files appear whole (written aside, renamed), even when ctprof is killed
# with SIGKILL while writing; no sample falls between two files (their
# times join up, their samples add up to what was taken); the last, short
# interval is written at the end, on Ctrl-C too; memory stays bounded when
# the target starts thousands of threads.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

# pprof_field FILE N: top-level varint field N of a pprof file (9 is
# time_nanos, 10 duration_nanos), as protoc decodes it raw.
pprof_field() {
	gzip -dc "$1" | protoc --decode_raw | awk -v f="$2: " 'index($0, f) == 1 { print $2; exit }'
}

# rss_kib PID: resident anonymous memory of PID in KiB.
rss_kib() {
	awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status"
}

# ---- launch: files, names, completeness, continuity ------------------------

mkdir -p "$TMP/a"
t0=$(date +%s)
ms0=$(date +%s%3N)
run_ctprof launch -F 999 -v --every 0.3 -o "$TMP/a/p-%n.pb.gz" -o "$TMP/a/f-%n-%p.folded" \
	-- "$TARGETS/bperf" 2
ms=$(($(date +%s%3N) - ms0))
check "launched: exit 0" is_status 0
npb=$(ls "$TMP/a"/p-*.pb.gz 2>/dev/null | wc -l)
nfo=$(ls "$TMP/a"/f-*.folded 2>/dev/null | wc -l)
intervals=$(sed -n 's/^ctprof: \([0-9]*\) intervals, .*/\1/p' "$ERR")
diag "$npb pprof files, $nfo folded files, $intervals intervals, in $ms ms"
check "a file per interval for each -o, as many as 0.3 s intervals in the run" \
	eval '[ "$npb" = "$intervals" ] && [ "$nfo" = "$intervals" ] && ge "$npb" "$((ms / 300 - 1))" && le "$npb" "$((ms / 300 + 1))"'
check "%n numbers from 000001, in order" \
	eval '[ -e "$TMP/a/p-000001.pb.gz" ] && [ -e "$TMP/a/p-$(printf %06d "$npb").pb.gz" ]'
pid=$(awk '$1 == "total:" { for (i = 1; i < NF; i++) if ($i == "pid") print $(i + 1); exit }' \
	<("$CTPROF" report "$TMP/a/p-000001.pb.gz"))
check "%p is the target's pid ($pid)" test -e "$TMP/a/f-000001-$pid.folded"
check "no file left half-written under its hidden name" \
	eval '[ -z "$(ls -A "$TMP/a" | grep "^\.")" ]'

sum=0 bad=0
for f in "$TMP/a"/p-*.pb.gz; do
	if "$CTPROF" report "$f" >"$TMP/r.out" 2>"$TMP/r.err"; then
		sum=$((sum + $(total_samples "$TMP/r.out")))
	else
		bad=$((bad + 1))
		diag_file "$TMP/r.err"
	fi
done
taken=$(sed -n 's/.* samples in them, of \([0-9]*\) taken$/\1/p' "$ERR")
diag "samples: $sum in the files, $taken taken"
check "every pprof file is whole (ctprof report reads each)" test "$bad" = 0
check "the files hold every sample taken, each once" test "$sum" = "$taken"

# The whole run's shares, from the files together, are a single run's.
run_ctprof single -F 999 -o "$TMP/single.pb.gz" -- "$TARGETS/bperf" 2
cat "$TMP/a"/f-*.folded >"$TMP/all.folded"
mostwork=$(awk '/;mostwork /{ m += $NF } { t += $NF } END { printf "%.1f\n", 100 * m / t }' "$TMP/all.folded")
"$CTPROF" report -o "$TMP/single.folded" "$TMP/single.pb.gz"
mostwork1=$(awk '/;mostwork /{ m += $NF } { t += $NF } END { printf "%.1f\n", 100 * m / t }' "$TMP/single.folded")
diag "mostwork: $mostwork% over the interval files, $mostwork1% in a single run"
check "mostwork's share over the files is a single run's (within 5 points)" \
	eval 'le "$(awk -v a="$mostwork" -v b="$mostwork1" "BEGIN { d = a - b; print d < 0 ? -d : d }")" 5'

# CPU time: the files together hold what the kernel accounted to the
# target (cpuburst prints it), as a single run does: within 5% under, 8%
# over, for the perf trigger's known excess on threads shorter than a
# ring's first read (docs/DESIGN.md, "Known limits, measured": 1.2-5.5%
# over on this target).
mkdir -p "$TMP/c"
run_ctprof cpu -F 499 --every 0.3 -o "$TMP/c/p-%n.folded" -- "$TARGETS/cpuburst" 200
own=$(awk '$1 == "cpuburst:" { print $3 }' "$OUT")
files_ns=$(cat "$TMP/c"/p-*.folded | awk '{ t += $NF } END { printf "%.0f\n", t * 1000 }')
diag "cpuburst: $own ns by its own clock, $files_ns ns in $(ls "$TMP/c" | wc -l) files"
check "the files' CPU time adds up to the target's own (-5% to +8%)" \
	eval '[ -n "$own" ] && ge "$files_ns" "$((own * 95 / 100))" && le "$files_ns" "$((own * 108 / 100))"'

if command -v protoc >/dev/null; then
	gaps=0 prev_end= durs=
	for f in "$TMP/a"/p-*.pb.gz; do
		t=$(pprof_field "$f" 9)
		d=$(pprof_field "$f" 10)
		[ -n "$prev_end" ] && [ "$t" != "$prev_end" ] && gaps=$((gaps + 1))
		prev_end=$((t + d))
		durs="$durs $((d / 1000000))"
	done
	first=$(pprof_field "$TMP/a/p-000001.pb.gz" 9)
	diag "durations (ms):$durs"
	check "each file starts where the last ended (pprof time_nanos + duration_nanos)" test "$gaps" = 0
	check "the first starts with the run" \
		eval 'ge "$((first / 1000000000))" "$t0" && le "$((first / 1000000000))" "$((t0 + 2))"'
	check "each full interval lasts 0.3 s (+-50 ms), the last no longer" \
		eval 'echo "$durs" | awk "{ for (i = 1; i < NF; i++) if (\$i < 250 || \$i > 350) exit 1; exit \$NF > 350 }"'
else
	skip "each file starts where the last ended" "protoc is not installed"
	skip "the first starts with the run" "protoc is not installed"
	skip "each full interval lasts 0.3 s" "protoc is not installed"
fi

# ---- attached, ended by Ctrl-C: the last, short interval is written --------

mkdir -p "$TMP/b"
"$TARGETS/crunch" 30 >"$TMP/crunch.out" &
tpid=$!
bg_started "$tpid"
sleep 0.2
"$CTPROF" ${CTPROF_ARGS:-} -p "$tpid" --every 0.5 -o "$TMP/b/p-%t-%n.pb.gz" >"$TMP/att.out" 2>"$TMP/att.err" &
c=$!
sleep 1.3
kill -INT "$c"
wait "$c"
rc=$?
OUT=$TMP/att.out ERR=$TMP/att.err
check "attached, Ctrl-C: exit 0" test "$rc" = 0
n=$(ls "$TMP/b" | wc -l)
check "three files: two full intervals and the last one, cut short ($n)" test "$n" = 3
check "%t is the interval's start, UTC" \
	eval 'ls "$TMP/b" | grep -Eq "^p-$(date -u +%Y%m%d)T[0-9]{6}Z-000001\.pb\.gz$"'
check "the target runs on, untraced" eval 'alive_not_stopped "$tpid" && not_traced "$tpid"'

# ---- SIGKILL while writing: no file ever seen half-written ----------------

mkdir -p "$TMP/k"
kills=0
for i in $(seq 15); do
	"$CTPROF" ${CTPROF_ARGS:-} -F 999 -p "$tpid" --every 0.1 -o "$TMP/k/p-$i-%n.pb.gz" \
		-o "$TMP/k/s-$i-%n.svg" >/dev/null 2>&1 &
	c=$!
	sleep "0.$((RANDOM % 50 + 15))"
	kill -KILL "$c" 2>/dev/null && kills=$((kills + 1))
	wait "$c" 2>/dev/null
done
torn=0 files=0
for f in "$TMP/k"/p-*.pb.gz; do
	[ -e "$f" ] || continue
	files=$((files + 1))
	"$CTPROF" report "$f" >/dev/null 2>&1 || { torn=$((torn + 1)); diag "torn: $f"; }
done
for f in "$TMP/k"/s-*.svg; do
	[ -e "$f" ] || continue
	files=$((files + 1))
	tail -c 16 "$f" | grep -q '</svg>' || { torn=$((torn + 1)); diag "torn: $f"; }
done
diag "$kills SIGKILLs, $files files, $(ls -A "$TMP/k" | grep -c '^\.') hidden leftovers"
check "SIGKILL of ctprof at any moment: every file under its own name is whole ($files files)" \
	eval '[ "$torn" = 0 ] && ge "$files" 15'
check "the target still runs, untraced" eval 'alive_not_stopped "$tpid" && not_traced "$tpid"'
kill -USR2 "$tpid"
wait_child "$tpid" 20
check "the target's work is correct" grep -q 'mismatches 0' "$TMP/crunch.out"

# ---- memory over many intervals --------------------------------------------

# churn starts and ends thousands of threads a second: every sample is of a
# new thread, so tables kept for the whole run grow without end (with the
# samples of each interval copied out rather than moved: +5.6 MiB from 7 s
# to 24 s).  Anonymous memory only: the debug info ctprof maps is read in
# as it is used.  A leak grows in both halves of 7-24 s; what does not
# grow in both is a one-time step: the first time a sample lands in a
# module with no debug info on disk (here the vDSO, whenever churn is
# first caught in clock_gettime), libdw dlopens libdebuginfod and with it
# 28 libraries (libcurl, gnutls, libcrypto...), whose relocated data is
# about 1 MiB of anonymous memory, even with DEBUGINFOD_URLS unset; the
# rest creeps as malloc's arenas settle (19.2 MiB at 2 minutes, 19.3 at
# 10 in README's long run).  Seen over 7-24 s: +48 to +1372 KiB, once
# +3076 (a bound of 3 MiB on it failed).
if [ -n "${CTPROF_SANITIZED:-}" ]; then
	skip "churn, 25 s in 0.1 s intervals" "memory is not measured in the sanitizer build"
	skip "memory stays bounded" "AddressSanitizer's quarantine holds freed memory; LeakSanitizer checks leaks there"
else
	mkdir -p "$TMP/m"
	"$CTPROF" ${CTPROF_ARGS:-} -F 999 --every 0.1 -o "$TMP/m/p-%n.pb.gz" -v \
		-- "$TARGETS/churn" 25 >"$TMP/mem.out" 2>"$TMP/mem.err" &
	c=$!
	sleep 7
	r1=$(rss_kib "$c")
	sleep 8.5
	r2=$(rss_kib "$c")
	sleep 8.5
	r3=$(rss_kib "$c")
	wait "$c"
	rc=$?
	OUT=$TMP/mem.out ERR=$TMP/mem.err
	n=$(ls "$TMP/m" | wc -l)
	diag "ctprof anonymous memory ${r1} KiB at 7 s, ${r2} KiB at 15.5 s, ${r3} KiB at 24 s; $n files"
	check "churn, 25 s in 0.1 s intervals: exit 0, about 250 files" eval '[ "$rc" = 0 ] && ge "$n" 240 && le "$n" 252'
	check "memory stays bounded: at most 1 MiB more in one of 7-15.5 s and 15.5-24 s" \
		eval '[ -n "$r1" ] && [ -n "$r2" ] && [ -n "$r3" ] &&
			{ le "$((r2 - r1))" 1024 || le "$((r3 - r2))" 1024; }'
fi

# ---- bad input -------------------------------------------------------------

run_ctprof nooutput --every 1 -- "$TARGETS/bperf" 0.1
check "--every without -o: exit 2, says to give a pattern" eval 'is_status 2 && err_says "give -o with a pattern"'
run_ctprof badpat --every 1 -o "$TMP/x-%q.pb.gz" -- "$TARGETS/bperf" 0.1
check "an unknown %-escape: exit 2" eval 'is_status 2 && err_says "%q is none of"'
run_ctprof subsecond --every 0.5 -o "$TMP/x-%t.pb.gz" -- "$TARGETS/bperf" 0.1
check "under a second, %t alone: exit 2, says to add %n" eval 'is_status 2 && err_says "add %n"'
run_ctprof zero --every 0 -o "$TMP/x-%n.pb.gz" -- "$TARGETS/bperf" 0.1
check "--every 0: exit 2" is_status 2
run_cmd topevery "$CTPROF" top --every 1 -o "$TMP/x-%n.pb.gz" -- "$TARGETS/bperf" 0.1
check "top --every: exit 2" is_status 2
run_ctprof nodir --every 1 -o "$TMP/no/such/dir/x-%n.pb.gz" -- "$TARGETS/bperf" 0.1
check "a directory that does not exist: exit 1 before the command runs" \
	eval 'is_status 1 && err_says "cannot write the files of" && ! grep -q . "$OUT"'
finish
