#!/bin/bash
# diff: 'ctprof diff BASE NEW' on two profiles whose shares are known:
# split runs alpha and beta 30:70, then 70:30, by its own clock.  The
# report gives each function's share in both and the change, largest
# first; folded output has two counts a line; the flame graph is red where
# a share grew, blue where it shrank.  Go's own CPU profiles are read too.
. "$(dirname "$0")/lib.sh"

GO=/usr/lib/go-1.19/bin/go

# row FUNC [FILE]: FUNC's row of a diff report, by its fields:
#   $1 base self%  $2 new self%  $3 change  $4 base cum%  $5 new cum%
#   $6 change  $7 function  $8 location  $9 [module]
row() {
	awk -v f="$1" '$7 == f && $1 ~ /%$/ { gsub(/%/, ""); print; exit }' "${2:-$OUT}"
}

# field FUNC N [FILE]: field N of FUNC's row.
field() {
	row "$1" "${3:-$OUT}" | awk -v n="$2" '{ print $n }'
}

# near A B BAND: |A - B| <= BAND.
near() {
	awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; exit !(x <= d && -x <= d) }'
}

# own SHARE FILE: split's own share of alpha (SHARE alpha) or beta.
own() {
	awk -v f="$1" '$1 == "split:" { for (i = 2; i < NF; i++) if ($i == f) { sub(/%/, "", $(i + 1)); print $(i + 1) } }' "$2"
}

have_profiles=
if ptrace_works; then
	run_ctprof base -F 499 -o "$TMP/base.pb.gz" -- "$TARGETS/split" 30 70
	cp "$OUT" "$TMP/base.own"
	run_ctprof new -F 499 -o "$TMP/new.pb.gz" -- "$TARGETS/split" 70 30
	cp "$OUT" "$TMP/new.own"
	[ -s "$TMP/base.pb.gz" ] && [ -s "$TMP/new.pb.gz" ] && have_profiles=1
else
	diag "ptrace refused ($PTRACE_WHY): only Go's profiles and the errors"
fi

if [ -n "$have_profiles" ]; then
	run_cmd text "$CTPROF" diff "$TMP/base.pb.gz" "$TMP/new.pb.gz"
	check "diff: exit 0, both profiles named in the header" \
		eval 'is_status 0 && grep -q "^base: .*base.pb.gz: [0-9]* samples" "$OUT" &&
		      grep -q "^new: .*new.pb.gz: [0-9]* samples" "$OUT"'
	a_own=$(( $(own alpha "$TMP/new.own" | cut -d. -f1) - $(own alpha "$TMP/base.own" | cut -d. -f1) ))
	diag "alpha by its own clock: $(own alpha "$TMP/base.own")% -> $(own alpha "$TMP/new.own")%"
	diag "alpha: $(row alpha)"
	diag "beta:  $(row beta)"
	check "alpha's cum share grew as its own clock says (+$a_own, within 6 points)" \
		eval 'near "$(field alpha 6)" "$a_own" 6 && near "$(field alpha 4)" "$(own alpha "$TMP/base.own")" 6 &&
		      near "$(field alpha 5)" "$(own alpha "$TMP/new.own")" 6'
	check "beta's shrank as much" \
		eval 'near "$(field beta 6)" "-$a_own" 6'
	check "the change is new share less base share" \
		eval 'near "$(field alpha 3)" "$(awk -v a="$(field alpha 1)" -v b="$(field alpha 2)" "BEGIN { print b - a }")" 0.11'
	check "largest change first: alpha and beta are the first two rows" \
		eval 'awk "\$1 ~ /%\$/ { print \$7 }" "$OUT" | head -2 | sort | tr "\n" " " | grep -qx "alpha beta "'
	# main is under every sample of split's rounds in both profiles; only
	# the few ticks that fall in the loader or in exit are not, so its
	# share moves by a fraction of a point at most.
	diag "main:  $(row main)"
	check "a function whose share did not change is listed, its change under a point (main)" \
		eval 'near "$(field main 6)" 0 1 && near "$(field main 5)" 100 1'

	run_cmd self "$CTPROF" diff "$TMP/base.pb.gz" "$TMP/base.pb.gz"
	check "a profile against itself: every change is 0" \
		eval 'is_status 0 && [ -z "$(awk "\$1 ~ /%\$/ && (\$3 !~ /^[-+]0\.0\$/ || \$6 !~ /^[-+]0\.0\$/)" "$OUT")" ]'

	run_cmd top "$CTPROF" diff --top 2 --sort cum --absolute "$TMP/base.pb.gz" "$TMP/new.pb.gz"
	check "--absolute --top 2 --sort cum: times in ms, two rows, then how many more" \
		eval 'is_status 0 && [ "$(grep -c "ms .*\[split\]" "$OUT")" = 2 ] && grep -q "more rows; see --top" "$OUT" &&
		      grep -q "largest change of cumulative time first" "$OUT"'

	run_cmd folded "$CTPROF" diff -o "$TMP/d.folded" "$TMP/base.pb.gz" "$TMP/new.pb.gz"
	check "folded: every line is a stack and two counts, no thread frame" \
		eval 'is_status 0 && [ -s "$TMP/d.folded" ] &&
		      [ -z "$(awk "NF != 2 || \$1 !~ /^[0-9]+\$/ || \$2 !~ /^[0-9]+\$/" <(sed "s/^.* \([0-9]*\) \([0-9]*\)\$/\1 \2/" "$TMP/d.folded"))" ] &&
		      ! grep -q "^split-" "$TMP/d.folded"'
	check "folded: the base is scaled to the new total (sums within 0.1%)" \
		eval 'awk "{ b += \$(NF - 1); n += \$NF } END { d = b - n; exit !(n > 0 && d * d <= (n / 1000) ^ 2) }" "$TMP/d.folded"'
	check "folded: alpha's stacks grew, beta's shrank" \
		eval 'awk "/;alpha( |;)/ { ab += \$(NF - 1); an += \$NF } /;beta( |;)/ { bb += \$(NF - 1); bn += \$NF }
		      END { exit !(an > ab * 1.5 && bn * 1.5 < bb) }" "$TMP/d.folded"'

	run_cmd svg "$CTPROF" diff -o "$TMP/d.svg" "$TMP/base.pb.gz" "$TMP/new.pb.gz"
	# fill_of NAME: the fill of NAME's frame as r g b in decimal.
	fill_of() {
		tr '\n' ' ' <"$TMP/d.svg" |
			grep -o "data-n=\"$1\"[^>]*><title>[^<]*</title><rect [^>]*fill=\"#[0-9a-f]*\"" |
			head -1 | sed 's/.*fill="#\(..\)\(..\)\(..\)"/\1 \2 \3/' |
			while read -r r g b; do echo "$((16#$r)) $((16#$g)) $((16#$b))"; done
	}
	diag "fills: alpha $(fill_of alpha), beta $(fill_of beta), main $(fill_of main)"
	if command -v xmllint >/dev/null; then
		check "svg: exit 0, well-formed" eval 'is_status 0 && xmllint --noout "$TMP/d.svg"'
	else
		check "svg: exit 0, ends as an SVG" eval 'is_status 0 && tail -c 16 "$TMP/d.svg" | grep -q "</svg>"'
	fi
	check "svg: alpha's frame is red (grew), beta's blue (shrank), main's pale" \
		eval 'echo "$(fill_of alpha)" | awk "{ exit !(\$1 > \$3 + 80) }" &&
		      echo "$(fill_of beta)" | awk "{ exit !(\$3 > \$1 + 80) }" &&
		      echo "$(fill_of main)" | awk "{ d = \$1 - \$3; exit !(d < 20 && d > -20 && \$2 > 200) }"'
	check "svg: a frame's title gives both shares and the change" \
		eval 'tr "\n" " " <"$TMP/d.svg" | grep -q "<title>alpha [^<]*% (base [0-9.]*%, +[0-9.]* points)</title>"'
else
	for _ in $(seq 14); do
		skip "diff of two ctprof profiles" "no profiles: ptrace refused"
	done
fi

# Go's runtime/pprof profiles: the same split, timed by the program.
if [ -x "$GO" ]; then
	mkdir -p "$TMP/go"
	cat >"$TMP/go/split.go" <<'GOEOF'
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

var sink uint64

//go:noinline
func alpha(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := uint64(0); i < 2000; i++ {
			sink += i * 17
		}
	}
}

//go:noinline
func beta(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := uint64(0); i < 2000; i++ {
			sink += i * 29
		}
	}
}

func main() {
	a, _ := strconv.Atoi(os.Args[2])
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	// Rounds of 1.3 ms: the profiler's 10 ms ticks fall at every
	// point of a round in turn, not always in the same phase.
	for r := 0; r < 1150; r++ {
		alpha(time.Duration(a) * 13 * time.Microsecond)
		beta(time.Duration(100-a) * 13 * time.Microsecond)
	}
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println("done")
}
GOEOF
	if (cd "$TMP/go" && HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS= GO111MODULE=off "$GO" build -o split split.go) \
		>"$TMP/go/build.log" 2>&1 &&
	   "$TMP/go/split" "$TMP/go/base.pprof" 30 >/dev/null && "$TMP/go/split" "$TMP/go/new.pprof" 70 >/dev/null; then
		# What Go's own profiler makes of the split is Go's: on one
		# VM it gave main.alpha 15% and 65% (and once 27% and 95%, and
		# once 25.5% and 38.8%) for 30% and 70% of the time.  What is
		# diff's is that each function's shares are the ones its
		# profiles have alone, and the change their difference.
		run_cmd gobase "$CTPROF" report "$TMP/go/base.pprof"
		a0=$(self_pct main.alpha) b0=$(self_pct main.beta)
		run_cmd gonew "$CTPROF" report "$TMP/go/new.pprof"
		a1=$(self_pct main.alpha) b1=$(self_pct main.beta)
		run_cmd go "$CTPROF" diff "$TMP/go/base.pprof" "$TMP/go/new.pprof"
		# as_alone FUNC BASE NEW: FUNC's row in the diff has the shares
		# BASE and NEW of the profiles alone, and their difference.
		as_alone() {
			near "$(field "$1" 1)" "$2" 0.15 && near "$(field "$1" 2)" "$3" 0.15 &&
				near "$(field "$1" 3)" "$(awk -v a="$2" -v b="$3" 'BEGIN { print b - a }')" 0.25
		}
		diag "Go alpha: $(row main.alpha); in each profile alone: $a0% and $a1%"
		diag "Go beta: $(row main.beta); in each profile alone: $b0% and $b1%"
		check "Go's profiles: read, main.alpha's shares are each profile's own and its change their difference" \
			eval 'is_status 0 && as_alone main.alpha "$a0" "$a1"'
		check "... and main.beta's" as_alone main.beta "$b0" "$b1"
	else
		diag_file "$TMP/go/build.log"
		not_ok "Go's profiles: the Go program did not build or run"
		not_ok "... and main.beta's"
	fi
else
	skip "Go's profiles" "Go is not installed (scripts/deps.sh --test installs it)"
	skip "... and main.beta's" "Go is not installed (scripts/deps.sh --test installs it)"
fi

# ---- bad input ---------------------------------------------------------------

run_cmd one "$CTPROF" diff "$TMP/x.pb.gz"
check "one profile: exit 2, says to give two" eval 'is_status 2 && err_says "give two profiles"'
run_cmd pprof_out "$CTPROF" diff -o "$TMP/d.pb.gz" a b
check "-o FILE.pb.gz: exit 2, says which formats" eval 'is_status 2 && err_says "not pprof"'
run_cmd pid "$CTPROF" diff -p 1 a b
check "-p: exit 2" eval 'is_status 2 && err_says "-p does not apply"'
run_cmd missing "$CTPROF" diff "$TMP/none.pb.gz" "$TMP/none2.pb.gz"
check "a missing file: exit 1, one line naming it" \
	eval 'is_status 1 && [ "$(wc -l <"$ERR")" = 1 ] && err_says "none.pb.gz"'
printf 'not a profile' >"$TMP/junk.pb.gz"
run_cmd junk "$CTPROF" diff "$TMP/junk.pb.gz" "$TMP/junk.pb.gz"
check "a file that is no profile: exit 1" is_status 1
run_cmd absolute "$CTPROF" --absolute -- true
check "--absolute outside diff: exit 2" is_status 2
finish
