#!/bin/bash
# Part 7 of the benchmark, its comparisons: ctprof's profiles of a real
# program against perf's, by scripts/flatcmp.py, one repetition's (flat),
# every repetition's pooled (pooled_flat, perf_floor, same_pooled), perf's
# against perf's (perf_pairs), and the tables that come of them (top,
# slowed_table).  Not run by itself: scripts/bench/real.sh sources it
# (scripts/bench/real.sh -n 3 runs part 7 alone).
#
# shellcheck disable=SC2154  # flatcmp, real_title, ...: real.sh's; r, reps, res, tmp: lib.sh's

# flat NAME [flatcmp option]...: compare $tmp/NAME.pb.gz with $tmp/NAME.data
# (this repetition's runs).
flat() {
	local name=$1 f=$res/$1.tsv.$r c p
	shift
	if [ -f "$tmp/$name.script" ]; then
		"${flatcmp[@]}" --tsv "$@" "$tmp/$name.pb.gz" --perf-script "$tmp/$name.script"
	else
		"${flatcmp[@]}" --tsv "$@" "$tmp/$name.pb.gz" "$tmp/$name.data"
	fi >"$f" 2>"$tmp/flat.err" || { cat "$tmp/flat.err" >&2; die "scripts/flatcmp.py failed on $name"; }
	if [ -s "$tmp/flat.err" ]; then say "$name: $(cat "$tmp/flat.err")"; fi
	put "$name.tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
	read -r c p < <(awk -F'\t' '$1 == "#samples" { print $2, $3 }' "$f")
	put "$name.ct_n" "$c"
	put "$name.perf_n" "$p"
	# Kept for the comparison of all repetitions pooled (pooled_flat).
	cp "$tmp/$name.pb.gz" "$tmp/$name.$r.pb.gz"
	if [ -f "$tmp/$name.script" ]; then
		cp "$tmp/$name.script" "$tmp/$name.$r.script"
	else
		cp "$tmp/$name.data" "$tmp/$name.$r.data"
	fi
}

# Runs the machine slowed down.  This VM's host at times takes a CPU away
# for seconds, with no steal time in /proc/stat to show for it, and code
# that waits on memory then takes a larger share of the run: of six runs
# of sqlite3's workload under perf alone (pinned, three on each CPU), one
# took 12.0 s where the others took 5.7-6.4, and sqlite3BtreeTableMoveto
# had 30.7% of it against 24.7%.  Its profile was 0.11-0.15 from the
# others', which were 0.055-0.081 apart (0.055-0.059 from sampling
# alone); three of the five pooled against the other two were 0.045 apart
# (0.038 from sampling), and 0.086 (0.032) with the slow run in.  A run
# of redis, CPython or sqlite3 is taken as slowed down when its cost
# (note_cost: the workload's wall time; redis's, the CPU time of its
# main thread for the fixed requests) is over disturbed_factor times the
# median of that tool's runs of it.  The pooled comparisons are given
# both with such runs left out and with all runs.
disturbed_factor=1.25

# note_cost NAME TOOL VALUE: this repetition's cost of NAME under TOOL
# (ct, perf or perf2).
note_cost() { put "$1.cost.$2" "$r $3"; }

# disturbed NAME TOOL I: was repetition I's run of NAME under TOOL slowed
# down (see disturbed_factor)?
disturbed() {
	local f=$res/$1.cost.$2 x m
	[ -s "$f" ] || return 1
	x=$(awk -v i="$3" '$1 == i { print $2 }' "$f")
	[ -n "$x" ] || return 1
	m=$(cut -d' ' -f2 "$f" | sort -g | awk '{ v[NR] = $1 }
		END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	awk -v x="$x" -v m="$m" -v k="$disturbed_factor" 'BEGIN { exit !(x > k * m) }'
}

# left_out NAME TOOL: how many of TOOL's runs of NAME were slowed down.
left_out() {
	local i n=0
	for ((i = 0; i < reps; i++)); do
		if disturbed "$1" "$2" "$i"; then n=$((n + 1)); fi
	done
	echo "$n"
}

# pooled_flat NAME MODE: compare the profiles of every repetition added up,
# ctprof's against perf's: with N times the samples, the distance that
# sampling alone gives is sqrt(N) times smaller, and what remains shows.
# MODE all: every run (NAME.ptvd); kept: the runs not slowed down
# (NAME.ktvd).
pooled_flat() {
	local name=$1 mode=$2 ct="" pf="" i key=p s=$tmp/$1.pooled.$2.script f=$res/$1.tsv.pooled.$2
	[ "$mode" = all ] || key=k
	rm -f "$s"
	for ((i = 0; i < reps; i++)); do
		[ -f "$tmp/$name.$i.pb.gz" ] || continue
		if [ "$mode" = all ] || ! disturbed "$name" ct "$i"; then
			ct=$ct${ct:+,}$tmp/$name.$i.pb.gz
		fi
		if [ "$mode" != all ] && disturbed "$name" perf "$i"; then
			continue
		elif [ -f "$tmp/$name.$i.script" ]; then
			cat "$tmp/$name.$i.script" >>"$s"
		else
			pf=$pf${pf:+,}$tmp/$name.$i.data
		fi
	done
	[ -n "$ct" ] && [ -n "$pf" -o -f "$s" ] || return 0
	if [ -f "$s" ]; then
		"${flatcmp[@]}" --tsv "$ct" --perf-script "$s"
	else
		"${flatcmp[@]}" --tsv "$ct" "$pf"
	fi >"$f" 2>/dev/null || return 0
	put "$name.${key}tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.${key}noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# perf_pairs NAME: perf's profile of each repetition against that of every
# later one: how far apart two runs of the workload are, sampling and all
# (CPython seeds its string hashes anew in each run, for one), which a
# profiler's distance to perf cannot go below.
perf_pairs() {
	local name=$1 i j a d
	local -a b
	for ((i = 0; i < reps; i++)); do
		for ((j = i + 1; j < reps; j++)); do
			a=$tmp/$name.$i.script b=(--perf-script "$tmp/$name.$j.script")
			[ -f "$a" ] || a=$tmp/$name.$i.data b=("$tmp/$name.$j.data")
			[ -f "$a" ] && [ -f "${b[-1]}" ] || continue
			d=$("${flatcmp[@]}" --tsv "$a" "${b[@]}" 2>/dev/null | awk -F'\t' '$1 == "#distance" { print $2 }')
			[ -z "$d" ] || put "$name.pptvd" "$d"
		done
	done
}

# perf_floor NAME MODE: perf's runs compared with ctprof's (NAME.R.*), added
# up, against its other runs (perf2 in tools_twice, NAME.B.R.*), added
# up: how far apart two pooled profiles of the workload are when both
# are perf's, the runs' own differences and sampling's, which the pooled
# distance of ctprof to perf (pooled_flat, as many runs) is to be read
# against.  MODE as for pooled_flat (NAME.ftvd, NAME.kftvd).
perf_floor() {
	local name=$1 mode=$2 a="" b="" i key=f
	local sa=$tmp/$1.A.floor.$2.script sb=$tmp/$1.B.floor.$2.script f=$res/$1.tsv.floor.$2
	[ "$mode" = all ] || key=kf
	rm -f "$sa" "$sb"
	for ((i = 0; i < reps; i++)); do
		if [ -f "$tmp/$name.B.$i.script" ] && [ -f "$tmp/$name.$i.script" ]; then
			[ "$mode" != all ] && disturbed "$name" perf "$i" || cat "$tmp/$name.$i.script" >>"$sa"
			[ "$mode" != all ] && disturbed "$name" perf2 "$i" || cat "$tmp/$name.B.$i.script" >>"$sb"
		elif [ -f "$tmp/$name.B.$i.data" ] && [ -f "$tmp/$name.$i.data" ]; then
			[ "$mode" != all ] && disturbed "$name" perf "$i" || a=$a${a:+,}$tmp/$name.$i.data
			[ "$mode" != all ] && disturbed "$name" perf2 "$i" || b=$b${b:+,}$tmp/$name.B.$i.data
		fi
	done
	if [ -f "$sa" ] && [ -f "$sb" ]; then
		"${flatcmp[@]}" --tsv "$sa" --perf-script "$sb"
	elif [ -n "$a" ] && [ -n "$b" ]; then
		"${flatcmp[@]}" --tsv "$a" "$b"
	else
		return 0
	fi >"$f" 2>/dev/null || return 0
	put "$name.${key}tvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.${key}noise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# same_run NAME COMM CMD...: CMD under ctprof while perf record -a records
# the whole system, its samples of the processes named COMM kept: two
# profiles of one run.  Their distance is ctprof's error of measurement
# alone, with no difference between runs in it.  And perf's profile of
# that run against perf's of the repetition's own run (perf alone, NAME.R.*
# from flat) is what ctprof's stops changed in the target.
same_run() {
	local name=$1 comm=$2
	shift 2
	rm -f "$tmp/$name.same.pb.gz" "$tmp/$name.same.data"
	run 180 "${layout[@]}" perf record -q -a -e cpu-clock -F "$same_hz" -g -o "$tmp/$name.same.data" -- \
		"$ctprof" ${unwopt[libunwind]} -F "$real_hz" -o "$tmp/$name.same.pb.gz" -- "$@"
	perf script -i "$tmp/$name.same.data" --comm "$comm" -F tid,period,ip,sym,symoff,dso \
		--no-inline --no-demangle >"$tmp/$name.same.$r.script" 2>/dev/null ||
		die "perf script failed on the system-wide profile of $comm under ctprof"
	cp "$tmp/$name.same.pb.gz" "$tmp/$name.same.$r.pb.gz"
}

# same_pooled NAME: same_run's two comparisons, every repetition pooled.
same_pooled() {
	local name=$1 ct="" same="" alone="" i f
	local -a b
	rm -f "$tmp/$name.same.pooled.script" "$tmp/$name.alone.pooled.script"
	for ((i = 0; i < reps; i++)); do
		[ -f "$tmp/$name.same.$i.pb.gz" ] || continue
		if [ -f "$tmp/$name.$i.script" ]; then    # perf alone recorded -a
			cat "$tmp/$name.$i.script" >>"$tmp/$name.alone.pooled.script"
		elif [ -f "$tmp/$name.$i.data" ]; then
			alone=$alone${alone:+,}$tmp/$name.$i.data
		else
			continue
		fi
		ct=$ct${ct:+,}$tmp/$name.same.$i.pb.gz
		same=$same${same:+,}$tmp/$name.same.$i.script
		cat "$tmp/$name.same.$i.script" >>"$tmp/$name.same.pooled.script"
	done
	[ -n "$ct" ] || return 0
	f=$res/$name.tsv.same
	"${flatcmp[@]}" --tsv "$ct" --perf-script "$tmp/$name.same.pooled.script" >"$f" 2>/dev/null || return 0
	put "$name.stvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.snoise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
	f=$res/$name.tsv.moved
	if [ -n "$alone" ]; then b=("$alone"); else b=(--perf-script "$tmp/$name.alone.pooled.script"); fi
	"${flatcmp[@]}" --tsv "$same" "${b[@]}" >"$f" 2>/dev/null || return 0
	put "$name.mtvd" "$(awk -F'\t' '$1 == "#distance" { print $2 }' "$f")"
	put "$name.mnoise" "$(awk -F'\t' '$1 == "#noise" { print $2 }' "$f")"
}

# top NAME N: the N functions with the highest median self% on either side
# over the repetitions (a repetition without a function counts 0), as rows
# of a Markdown table.
top() {
	awk -F'\t' -v n="$2" '
		function median(k, tool,   i, j, m, v, x) {
			for (i = 1; i <= files; i++) v[i] = val[tool, k, i] + 0
			for (i = 2; i <= files; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
			m = files % 2 ? v[(files + 1) / 2] : (v[files / 2] + v[files / 2 + 1]) / 2
			return m
		}
		FNR == 1 { files++ }
		$1 !~ /^#/ { k = $4 "\t" $3; keys[k] = 1; val["c", k, files] = $1; val["p", k, files] = $2 }
		END {
			for (k in keys) {
				c = median(k, "c"); p = median(k, "p")
				split(k, kp, "\t")
				gsub(/\|/, "\\|", kp[1])
				printf "%.3f\t| %s | %s | %.1f%% | %.1f%% |\n", (c > p ? c : p), kp[1], kp[2], c, p
			}
		}' "$res/$1".tsv.[0-9]* | sort -t"$(printf '\t')" -k1,1gr | head -n "$2" | cut -f2-
}

# slowed_table: the pooled comparisons again, with the runs the machine
# slowed down left out (disturbed_factor).
slowed_table() {
	local name cost floor
	printf 'The same pooled, with the runs the machine slowed down left out: a run whose cost (the wall time of CPython'"'"'s and sqlite3'"'"'s; for redis, the CPU time of its main thread over the fixed requests) is over %s times the median of the same tool'"'"'s runs of it.  This VM'"'"'s host at times takes a CPU away for seconds with no steal time to show for it, and memory-bound code then takes more of the run (bench.sh, disturbed_factor).\n\n' "$disturbed_factor"
	printf '| workload | runs left out: ctprof, perf, perf'"'"'s second | pooled | from sampling alone | perf against perf, pooled (from sampling alone) | median cost: ctprof, perf |\n| --- | --- | --- | --- | --- | --- |\n'
	for name in redis python sqlite; do
		[ -n "${real_title[$name]:-}" ] || continue
		floor=n/a
		[ -s "$res/$name.kftvd" ] && floor="$(med "$name.kftvd" %.3f) ($(med "$name.kfnoise" %.3f))"
		cost="$(cost_med "$name" ct), $(cost_med "$name" perf)"
		printf '| %s | %s, %s, %s | %s | %s | %s | %s |\n' "${real_title[$name]}" \
			"$(left_out "$name" ct)" "$(left_out "$name" perf)" "$(left_out "$name" perf2)" \
			"$(med "$name.ktvd" %.3f)" "$(med "$name.knoise" %.3f)" "$floor" "$cost"
	done
	echo
}

# cost_med NAME TOOL: the median cost of TOOL's runs of NAME, in seconds.
cost_med() {
	local f=$res/$1.cost.$2
	if [ ! -s "$f" ]; then echo n/a; return; fi
	cut -d' ' -f2 "$f" | sort -g | awk -v redis="$([ "$1" = redis ] && echo 1e9 || echo 1e6)" '{ v[NR] = $1 }
		END { printf "%.2f s\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / redis }'
}

