#!/bin/bash
# langs: programs from the compilers people use, built here from
# tests/targets/native with Debian's clang, rustc, lld and Go.
#
# Each program runs three marker phases (work 2:3:5) in rounds and prints
# each phase's share of its own clock.  The report must give each phase
# (the samples whose stack holds it, from the folded output) within 5
# points of that, name the phases demangled with file:line, show no raw
# mangled name and no module+0x row of the program, and fail no unwind.
# The lld-linked ones lay their text at an address a page off its file
# offset; for the C++ one, pprof, symbolizing ctprof's profile from the
# binary alone, must find the same phases.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

SRC=$(cd "$(dirname "$0")/targets/native" && pwd)
GO=/usr/lib/go-1.19/bin/go
RUSTC=/usr/bin/rustc
export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath

# share FOLDED NAME: the % of the weight of the stacks holding a frame
# whose function ends in NAME (before its parameters).
share() {
	awk -v name="$2" '
	{
		w = $NF; total += w
		n = split(substr($0, 1, length($0) - length($NF) - 1), f, ";")
		for (i = 2; i <= n; i++) {
			g = f[i]; sub(/\(.*$/, "", g)
			if (g ~ ("(^|[.:])" name "$")) { hit += w; break }
		}
	}
	END { printf "%.1f\n", total ? 100 * hit / total : 0 }' "$1"
}

own() {
	awk -v name="$2" '$1 == "own:" && $2 == name { print $3 }' "$1"
}

near() {
	[ -n "$1" ] && [ -n "$2" ] &&
		awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'
}

# one NAME PHASES... -- BUILD COMMAND...: build, run under ctprof, check.
one() {
	local name=$1 phases=() p bin=$TMP/$1 txt=$TMP/$1.txt got want loc
	shift
	while [ "$1" != -- ]; do phases+=("$1"); shift; done
	shift
	if ! "$@" -o "$bin" >"$TMP/$name.build" 2>&1; then
		diag_file "$TMP/$name.build"
		not_ok "$name: built"
		return
	fi
	ok "$name: built"
	run_ctprof "$name" -F 999 -v -o "$txt" -o "$TMP/$name.folded" -o "$TMP/$name.pb.gz" -- "$bin" 2
	check "$name: ran to the end" is_status 0
	for p in "${phases[@]}"; do
		got=$(share "$TMP/$name.folded" "$p")
		want=$(own "$OUT" "$p")
		diag "$name: $p $got% of the samples, $want% by its own clock"
		check "$name: $p's share is its own +-5 points" near "$got" "$want" 5
		loc=$(grep -E "[.:]$p(\(| )" "$txt" | head -1)
		diag "$name: $loc"
		check "$name: $p is named, demangled, with its file:line" \
			grep -qE "(Sieve.*::|main\.)$p(\(.*\))? +phases\.(cc|rs|go):[0-9]+ " <<<"$loc"
	done
	check "$name: no raw mangled name" \
		bash -c '! grep -E "(^| )(_Z|_R)[A-Za-z0-9_$]{6,}|::h[0-9a-f]{16}( |$)" "$1"' _ "$txt"
	check "$name: no $name+0x row" bash -c '! grep -q " $1+0x" "$2"' _ "$name" "$txt"
	got=$(sed -n 's/.*complete, [0-9]* truncated, \([0-9]*\) failed.*/\1/p' "$txt")
	check "$name: no unwind failed ($got)" [ "$got" = 0 ]
}

# pprof NAME PHASES...: Google's pprof, symbolizing from the binary alone
# (local, forced), names the phases of the profile.
pprof_check() {
	local name=$1 p top
	shift
	top=$("$GO" tool pprof -symbolize=local:force -top "$TMP/$name.pb.gz" 2>&1)
	for p in "$@"; do
		check "$name: pprof finds $p in the binary at ctprof's addresses" \
			grep -qE "[.:]$p( |\(|$)" <<<"$top" || diag "$top"
	done
}

P3="phase_alpha phase_beta phase_gamma"

one clang-cxx $P3 -- clang++ -O2 -g "$SRC/phases.cc"
one clang-cxx-lld $P3 -- clang++ -O2 -g -fuse-ld=lld "$SRC/phases.cc"
diag "$(readelf -lW "$TMP/clang-cxx-lld" | grep -E 'LOAD.*R E')"
pprof_check clang-cxx-lld $P3
one rust $P3 -- "$RUSTC" -C opt-level=2 -g "$SRC/phases.rs"
one rust-lld $P3 -- "$RUSTC" -C opt-level=2 -g -C link-arg=-fuse-ld=lld "$SRC/phases.rs"
diag "$(readelf -lW "$TMP/rust-lld" | grep -E 'LOAD.*R E')"
# Not pprof on rust-lld: Go 1.19's pprof names this binary's frames after
# other functions (dec2flt, contains) even where its mappings are right
# (the same mapping arithmetic names clang-cxx-lld's right, and rust's).
one rust-v0 $P3 -- "$RUSTC" -C opt-level=2 -g -C symbol-mangling-version=v0 "$SRC/phases.rs"
# Go writes .debug_frame only: the default unwinder walks it by frame
# pointer, which is complete here (no frameless leaf on these stacks).
gobuild() {
	local src=$1
	shift
	"$GO" build "$@" "$src"
}
one go phaseAlpha phaseBeta phaseGamma -- gobuild "$SRC/phases.go"
finish
