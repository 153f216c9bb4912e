#!/bin/bash
# The library of ctprof's benchmark, sourced by scripts/bench.sh (all the
# parts), by each part's own script beside this file (slowdown.sh,
# floor.sh, bperf.sh, threads.sh, wall.sh, real.sh: one part alone) and
# by scripts/bench-trigger.sh.  Not run by itself.
#
# A part N is a file that defines partN_setup (optional: what it needs
# before the first repetition), partN_rep (one repetition) and report_N
# (its section of the report, which checks itself whether it is printed);
# sections 2 and 3 come of parts 1 and 2 (report_2 is in floor.sh,
# report_1 and report_3 in slowdown.sh).  bench_main NAME OPTIONS PARTS
# ARG... parses the command line (the options are scripts/bench.sh's),
# copies ctprof and builds --base into a temporary directory, runs each
# repetition's parts in the order 1, 2, 4, 5, 6, 7 (so that, run together,
# they run in the same repetition, as the ratios between them need), then
# prints the report on standard output and, with --append, adds it to
# docs/BENCHMARKS.md.  Progress goes to standard error.

# -------------------------------------------------------------- options --
bench_name=scripts/bench.sh     # the script run, from the top of the tree
bench_say=bench                 # say's prefix
bench_opts=                     # the options it takes besides -n, -a, -h
cmdline=
reps=5
parts=all
base=
trig_mode=
append=
startdir=$PWD
declare -A wanted               # want N: part N is to run.
want() { [ -n "${wanted[$1]:-}" ]; }

die() { echo "$bench_name: $*" >&2; exit 1; }
say() { echo "$bench_say: $*" >&2; }

usage() {
	local u="usage: $bench_name [-n N]"
	case $bench_opts in *" parts "*) u="$u [-p|--parts LIST]" ;; esac
	case $bench_opts in *" base "*) u="$u [-b|--base REV|BINARY]" ;; esac
	case $bench_opts in *" trigger "*) u="$u [-t|--trigger MODE]" ;; esac
	u="$u [-a|--append]    (N repetitions, default $bench_reps"
	case $bench_opts in *" parts "*) u="$u; LIST: 1,2,4,5,6,7 or names" ;; esac
	echo "$u; see --help)" >&2
	exit 2
}

# bench_help: the comment at the top of the script run, up to its first
# line of code.
bench_help() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; }

# bench_args NAME OPTIONS ARG...: the command line of NAME (the script's
# path from the top of the source tree), which takes -n, -a, -h and the
# OPTIONS among "parts base trigger"; reps is its default count.  Goes to
# the top of the source tree.
bench_args() {
	local opt
	bench_name=$1 bench_opts=" $2 " bench_reps=$reps
	shift 2
	cmdline="$bench_name${*:+ $*}"
	while [ $# -gt 0 ]; do
		case $1 in
		-p|--parts|--parts=*) opt=parts ;;
		-b|--base|--base=*) opt=base ;;
		-t|--trigger|--trigger=*) opt=trigger ;;
		*) opt= ;;
		esac
		if [ -n "$opt" ]; then case $bench_opts in *" $opt "*) ;; *) usage ;; esac; fi
		case $1 in
		-n) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
		-n*) reps=${1#-n}; shift ;;
		-p|--parts) [ $# -ge 2 ] || usage; parts=$2; shift 2 ;;
		--parts=*) parts=${1#--parts=}; shift ;;
		-b|--base) [ $# -ge 2 ] || usage; base=$2; shift 2 ;;
		--base=*) base=${1#--base=}; shift ;;
		-t|--trigger) [ $# -ge 2 ] || usage; trig_mode=$2; shift 2 ;;
		--trigger=*) trig_mode=${1#--trigger=}; shift ;;
		-a|--append) append=1; shift ;;
		-h|--help) bench_help; exit 0 ;;
		*) usage ;;
		esac
	done
	case $reps in ''|*[!0-9]*) usage ;; esac
	case $trig_mode in ''|auto|perf|timer) ;; *) usage ;; esac
	[ "$reps" -ge 1 ] || usage
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	# With --append, the commit the run measures, read before it starts.
	if [ -n "$append" ]; then
		[ -f docs/BENCHMARKS.md ] || die "--append: docs/BENCHMARKS.md is missing"
		append_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
		if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
			append_rev=$append_rev+changes
		fi
	fi
}

# bench_parts LIST: the parts in LIST (numbers or names, separated by
# commas) are wanted.
bench_parts() {
	local p
	local -a plist
	if [ "$1" = all ]; then set -- 1,2,4,5,6,7; fi
	IFS=, read -ra plist <<<"$1"
	[ ${#plist[@]} -gt 0 ] || usage
	for p in "${plist[@]}"; do
		case $p in
		1|3|slowdown|cost) wanted[1]=1 ;;
		2|floor) wanted[2]=1 ;;
		4|bperf) wanted[4]=1 ;;
		5|threads) wanted[5]=1 ;;
		6|wall) wanted[6]=1 ;;
		7|real) wanted[7]=1 ;;
		accuracy) wanted[4]=1 wanted[7]=1 ;;
		*) usage ;;
		esac
	done
}

# ---------------------------------------------------------------- setup --
# bench_tmp TEMPLATE: a new temporary directory (mktemp TEMPLATE) in tmp,
# removed at the end with the background programs in bg_pids.
bg_pids=()
bench_tmp() {
	tmp=$(mktemp -d "$1")
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
# Everything runs in the foreground and every program ends by itself
# (floor's child dies with it); on Ctrl-C the whole process group gets the
# signal.  The exceptions are part 7's redis-server and the profilers
# attached to it, in the background: they are in bg_pids, ended here by
# their pids.  Then what is left to clean is the directory.
cleanup() {
	local p i
	for p in "${bg_pids[@]}"; do
		kill "$p" 2>/dev/null || continue
		for ((i = 0; i < 50; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}

# src_rev: this tree's commit, for a report, and whether src/ has changed.
src_rev() {
	local v
	v=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	if ! git diff --quiet HEAD -- src 2>/dev/null; then v="$v + uncommitted changes in src/"; fi
	echo "$v"
}

# cc_bench SOURCE OUTPUT GCC_OPTION...: compile a bench program into tmp.
cflags=(-std=gnu11 -g -Wall -Wextra -Werror=shadow -Werror=missing-prototypes
	-Werror=strict-prototypes -Werror=implicit-function-declaration -Wno-unused-parameter)
cc_bench() {
	local src=$1 out=$2
	shift 2
	gcc "${cflags[@]}" "$@" "$src" -o "$tmp/$out"
}

# bench_setup: the tools, the temporary directory, ctprof and the base
# ctprof copied (or built) there, the unwinders, and each part's own setup.
bench_setup() {
	local c needed rc bench_p
	# A binary named from where the script was started (it runs from
	# the top of the source tree).
	if [ -n "$base" ] && [ "${base#/}" = "$base" ] && [ -f "$startdir/$base" ] && [ -x "$startdir/$base" ]; then
		base=$startdir/$base
	fi
	if [ -n "$base" ] && ! { [ -f "$base" ] && [ -x "$base" ]; } && ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
		echo "$bench_name: --base $base is neither an executable nor a git revision of this repository" >&2
		exit 2
	fi

	# A missing tool is installed if that can be done (scripts/deps.sh
	# needs root or sudo); what is still missing is dealt with below.
	needed=(timeout)
	if want 1 || want 2 || want 5; then needed+=(gcc); fi
	if want 1 || want 4 || want 6 || want 7; then needed+=(perf); fi
	if want 7; then needed+=(/usr/bin/python3 redis-server redis-benchmark redis-cli sqlite3); fi
	for c in "${needed[@]}"; do
		if ! command -v "$c" >/dev/null; then
			say "$c is missing: scripts/deps.sh --bench"
			scripts/deps.sh --bench >&2 || say "scripts/deps.sh --bench failed: going on without"
			break
		fi
	done
	if want 1 || want 2 || want 5; then
		command -v gcc >/dev/null || die "gcc is not installed (apt-get install build-essential)"
	fi
	if want 1 || want 4 || want 6 || want 7; then
		command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
	fi
	command -v timeout >/dev/null || die "timeout (coreutils) is missing"
	CTPROF=${CTPROF:-build/src/ctprof}
	[ -x "$CTPROF" ] || die "$CTPROF not found: build it first (meson setup build && ninja -C build)"

	bench_tmp "${TMPDIR:-/tmp}/ctprof-bench.XXXXXX"
	res=$tmp/res
	mkdir "$res"

	# The ctprof binary, copied at the start so a rebuild during the run
	# cannot mix two binaries; which one it is, for the report.
	cp "$CTPROF" "$tmp/ctprof"
	if [ "$CTPROF" = build/src/ctprof ]; then
		rev=$(src_rev)
	else
		rev="from $CTPROF"
	fi
	ctprof=$tmp/ctprof
	# The base ctprof, if any: copied, or built from its revision.
	base_ct= base_rev=
	if [ -z "$base" ] || ! { want 1 || want 5; }; then
		:
	elif [ -f "$base" ] && [ -x "$base" ]; then
		cp "$base" "$tmp/ctprof-base"
		base_ct=$tmp/ctprof-base base_rev="from $base"
	else
		base_rev=$(git rev-parse --short "$base^{commit}")
		say "building $base_rev into $tmp/base (--base)"
		mkdir "$tmp/base"
		git archive "$base_rev" | tar -x -C "$tmp/base"
		{ meson setup "$tmp/base/build" "$tmp/base" && ninja -C "$tmp/base/build" src/ctprof; } >"$tmp/base.log" 2>&1 ||
			{ tail -20 "$tmp/base.log" >&2; die "could not build $base_rev (--base): its log is above"; }
		cp "$tmp/base/build/src/ctprof" "$tmp/ctprof-base"
		base_ct=$tmp/ctprof-base
	fi

	# --unwinder: rejected as a usage error (exit 2) means no such option
	# or no such backend.  Without the option at all, the default
	# (libunwind) runs.
	rc=$(probe_unwinder libunwind)
	case $rc in
	0) unwopt[libunwind]=--unwinder=libunwind
	   rc=$(probe_unwinder libdw)
	   case $rc in
	   0) unwopt[libdw]=--unwinder=libdw ;;
	   2) say "ctprof refuses --unwinder=libdw: libdw rows are n/a" ;;
	   *) die "ctprof --unwinder=libdw -- true failed (exit $rc)" ;;
	   esac ;;
	2) unwopt[libunwind]=   # only one backend, the default
	   say "ctprof has no --unwinder option: libunwind is its only backend; libdw rows are n/a" ;;
	*) die "ctprof -- true failed (exit $rc): can ctprof trace here?" ;;
	esac
	# --trigger rides on the unwinder's option, which every run of ctprof
	# has.
	trigopt=${trig_mode:+--trigger=$trig_mode}
	for c in "${!unwopt[@]}"; do unwopt[$c]="${unwopt[$c]:+${unwopt[$c]} }$trigopt"; done

	say "compiling bench programs into $tmp"
	for bench_p in 1 2 4 5 6 7; do
		if want "$bench_p" && declare -F "part${bench_p}_setup" >/dev/null; then "part${bench_p}_setup"; fi
	done
}

declare -A unwopt
probe_unwinder() {
	local rc=0
	timeout --foreground -k 5 30 "$ctprof" "--unwinder=$1" -o /dev/null -- true >/dev/null 2>&1 || rc=$?
	echo "$rc"
}
has() { [ -n "${unwopt[$1]+set}" ]; }

# -------------------------------------------------------------- helpers --
# put KEY VALUE: one more measurement of KEY.
put() { echo "$2" >>"$res/$1"; }
# med KEY [FORMAT]: the median of KEY's measurements, or n/a.
med() {
	local f=$res/$1 fmt=${2:-%.1f}
	if [ ! -s "$f" ]; then echo n/a; return; fi
	sort -g "$f" | awk -v fmt="$fmt" '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf fmt "\n", m }'
}
# us KEY: the median in microseconds with its unit, or n/a.
us() { local m; m=$(med "$1"); if [ "$m" = n/a ]; then echo n/a; else echo "$m us"; fi; }
# of A B: "median A of median B", or n/a.
of() { local a b; a=$(med "$1" %.0f) b=$(med "$2" %.0f); if [ "$a" = n/a ]; then echo n/a; else echo "$a of $b"; fi; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "nan"; else printf "%.6f\n", a / b }'; }
now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }
secs() { awk -v u="$1" 'BEGIN { printf "%.0f s", u / 1e6 }'; }

# interrupted STATUS: a child killed by Ctrl-C or SIGTERM: stop here too.
interrupted() {
	case $1 in
	130) say "interrupted"; exit 130 ;;
	143) say "terminated"; exit 143 ;;
	124|137) die "a run took too long and was killed (timeout)" ;;
	esac
}

# run LIMIT_S CMD...: run CMD with a time limit; its standard output in
# $tmp/out, standard error in $tmp/err; fails the benchmark on a non-zero
# status.
run() {
	local limit=$1 rc=0
	shift
	timeout --foreground -k 10 "$limit" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	interrupted "$rc"
	if [ "$rc" -ne 0 ]; then
		echo "$bench_name: '$*' failed with status $rc" >&2
		tail -5 "$tmp/err" >&2
		exit 1
	fi
}

# ctstats PREFIX FILE: record the -v statistics of a ctprof report; each
# also in last_NAME (last_ticks, last_samples, last_missed, last_cpu_ms...).
# shellcheck disable=SC2034  # the parts' to read
last_ticks='' last_samples='' last_missed='' last_cpu_ms=''
ctstats() {
	local p=$1 k v
	[ -s "$2" ] || die "ctprof wrote no report ($2)"
	grep -q '^profiler: .*ticks missed' "$2" || die "no -v statistics in ctprof's report: has its format changed?"
	awk '
	/^profiler: [0-9]+ ticks,/ { print "ticks", $2; print "samples", $4; print "missed", $(NF - 2) }
	/^profiler: target stopped per sample:/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "median") print "stall_med", $(i + 1)
			if ($i == "p99") print "stall_p99", $(i + 1)
		}
	}
	/^profiler: own CPU time:/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "ms,") print "cpu_ms", $(i - 1)
			if ($i == "per" && $(i - 1) == "us") print "cpu_us", $(i - 2)
		}
	}
	/^profiler: per sample, us:/ {
		line = $0
		sub(/^profiler: per sample, us: /, "", line)
		n = split(line, part, / = | \+ |; |, /)
		for (i = 1; i <= n; i++) {
			m = split(part[i], w, " ")
			key = w[1]
			for (j = 2; j < m; j++) key = key "_" w[j]
			print "part_" key, w[m]
		}
	}
	/^profiler: unwind/ {
		for (i = 1; i < NF; i++) {
			if ($i == "mean" && $(i + 2) == "us") print "unwind_us", $(i + 1)
			if ($i == "mean" && $(i + 2) ~ /^frames/) print "frames", $(i + 1)
		}
	}' "$2" >"$tmp/stats"
	while read -r k v; do
		put "$p.$k" "$v"
		eval "last_$k=\$v"
	done <"$tmp/stats"
}

# ---------------------------------------------------------------- report --
# base_row ROW: a line break and ROW, a row of a table, if --base ran;
# nothing otherwise.
base_row() { if [ -n "$base_ct" ]; then printf '\n%s' "$1"; fi; }
base_cell() { if [ -n "$base_ct" ]; then printf '%s' "$1"; fi; }

# bench_report: the whole report, each wanted part's section in order.
bench_report() {
	local bench_s
	local -a took=()
	cat <<EOF
### Benchmark

$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, \`$cmdline\`
(ctprof $rev, $(perf --version 2>/dev/null || echo 'no perf')); every figure is the median of $reps runs.

EOF
	for bench_s in 1 2 3 4 5 6 7; do
		if declare -F "report_$bench_s" >/dev/null; then "report_$bench_s"; fi
	done
	if want 1; then took+=("part 1 (and the ctprof figures of 2 and 3) $(secs "${part_us[1]}")"); fi
	if want 2; then took+=("floor $(secs "${part_us[2]}")"); fi
	if want 4; then took+=("accuracy $(secs "${part_us[4]}")"); fi
	if want 5; then took+=("many threads $(secs "${part_us[5]}")"); fi
	if want 6; then took+=("wall-clock and CPU time $(secs "${part_us[6]}")"); fi
	if want 7; then took+=("real programs $(secs "${part_us[7]}")"); fi
	printf 'Time taken: %s; %s s in all.\n' "$(IFS=';'; echo "${took[*]}" | sed 's/;/, /g')" "$total_s"
}

# bench_append FILE: the report in FILE added to docs/BENCHMARKS.md as its
# newest entry (the entries are newest first: it goes before the first),
# under a heading as the others have: "## DATE HH:MM: COMMAND (COMMIT)",
# the date (UTC) the report's own, the commit append_rev.  The report's
# "### ..." title is left out: the heading says what it is.
bench_append() {
	local report=$1 doc=docs/BENCHMARKS.md when
	when=$(sed -n 's/^\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]\) UTC.*/\1/p' "$report" | head -1)
	[ -n "$when" ] || when=$(date -u '+%Y-%m-%d %H:%M')
	{
		printf '## %s: %s (%s)\n\n' "$when" "$cmdline" "$append_rev"
		awk 'NR == 1 && /^### / { title = 1; next }
			title && /^$/ { title = 0; next }
			{ title = 0; print }' "$report"
		echo
	} >"$tmp/entry.md"
	awk -v entry="$tmp/entry.md" '
		!done && /^## / { while ((getline l <entry) > 0) print l; done = 1 }
		{ print }
		END { if (!done) { print ""; while ((getline l <entry) > 0) print l } }' "$doc" >"$tmp/doc.md"
	cat "$tmp/doc.md" >"$doc"
	say "appended to $doc under: ## $when: $cmdline ($append_rev)"
}

# ------------------------------------------------------------------ run --
declare -A part_us=([1]=0 [2]=0 [4]=0 [5]=0 [6]=0 [7]=0)

# bench_main NAME OPTIONS PARTS ARG...: the benchmark NAME (see
# bench_args), running PARTS (see bench_parts; NAME's --parts instead if
# it takes that option).
bench_main() {
	# Not p, t0...: the parts' functions set some of their variables
	# without local, and would change these.
	local name=$1 opts=$2 bench_p bench_t0 bench_start
	parts=$3
	shift 3
	bench_args "$name" "$opts" "$@"
	bench_parts "$parts"
	bench_setup
	bench_start=$(now_us)
	say "$reps repetitions of parts $(printf '%s\n' "${!wanted[@]}" | sort -n | paste -sd' ')"
	for ((r = 0; r < reps; r++)); do
		say "repetition $((r + 1))/$reps"
		for bench_p in 1 2 4 5 6 7; do
			want "$bench_p" || continue
			bench_t0=$(now_us)
			"part${bench_p}_rep"
			part_us[$bench_p]=$((part_us[$bench_p] + $(now_us) - bench_t0))
		done
	done
	total_s=$(( ($(now_us) - bench_start + 500000) / 1000000 ))
	bench_report >"$tmp/report.md"
	cat "$tmp/report.md"
	if [ -n "$append" ]; then bench_append "$tmp/report.md"; fi
}
