#!/bin/bash
# outputs: each writer on a frozen profile (exact golden files), the pprof
# writer's output decoded against profile.proto and checked for the rules
# pprof enforces, a live profile -> pprof -> 'ctprof report' round trip,
# and the pprof reader fed broken files.
. "$(dirname "$0")/lib.sh"

DATA=$(dirname "$0")/data
PROTO_DIR=${PROFILE_PROTO_DIR:-/usr/share/gocode/src/github.com/google/pprof/proto}
command -v protoc >/dev/null || skip_all "protoc (protobuf-compiler) is not installed"
[ -f "$PROTO_DIR/profile.proto" ] || skip_all "no profile.proto in $PROTO_DIR"

# run_report NAME ARGS...: 'ctprof report ARGS...' (the subcommand comes
# first, so CTPROF_ARGS is not used).
run_report() {
	local name=$1
	shift
	run_cmd "$name" "$CTPROF" report "$@"
}

encode() { protoc --encode=perftools.profiles.Profile --proto_path="$PROTO_DIR" profile.proto; }
decode() { protoc --decode=perftools.profiles.Profile --proto_path="$PROTO_DIR" profile.proto; }

# same NAME GOLDEN FILE: FILE equals GOLDEN byte for byte (diff in the log).
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | sed 's/^/# /'
	fi
}

encode <"$DATA/frozen.txtpb" >"$TMP/frozen.pb" || { echo "Bail out! protoc cannot encode frozen.txtpb"; exit 1; }

# ---- writers on the frozen profile ----
run_report text "$TMP/frozen.pb"
same "frozen: text report" "$DATA/frozen.txt" "$OUT"
run_report folded --format folded "$TMP/frozen.pb"
same "frozen: folded stacks, thread root frames, ';' in a name replaced" "$DATA/frozen.folded" "$OUT"
run_report folded-nothread --no-thread -o "$TMP/f.folded" "$TMP/frozen.pb"
same "frozen: folded stacks without thread frames (by file name)" "$DATA/frozen-nothread.folded" "$TMP/f.folded"
cd "$TMP" || exit 1
run_report stdout -o - -o "$TMP/both.folded" --format folded "$TMP/frozen.pb"
cd - >/dev/null || exit 1
same "-o -: standard output" "$DATA/frozen.folded" "$OUT"
same "-o - beside -o FILE: the file gets the same" "$DATA/frozen.folded" "$TMP/both.folded"
check "-o -: no file named '-'" test ! -e "$TMP/-"
run_report pprof -o "$TMP/re.pb.gz" "$TMP/frozen.pb"
check "frozen: pprof written" is_status 0
gzip -t "$TMP/re.pb.gz" 2>/dev/null
check "frozen: the pprof file is gzip" test $? = 0
zcat "$TMP/re.pb.gz" | decode >"$TMP/re.txtpb"
same "frozen: pprof decodes to the expected message" "$DATA/frozen-rewritten.txtpb" "$TMP/re.txtpb"
run_report reread "$TMP/re.pb.gz"
same "frozen: pprof read back gives the same report" "$DATA/frozen.txt" "$OUT"

# ---- pprof validity, on a live profile ----
# valid_pprof FILE: the rules pprof enforces on a decoded profile.
valid_pprof() {
	awk '
	function fail(m) { print "# invalid: " m; bad = 1 }
	/^string_table: / { ns++; if (ns == 1 && $0 != "string_table: \"\"") fail("string_table[0] is not empty") }
	/^(mapping|location|function|sample|sample_type) \{/ { blk = $1 }
	/^\}/ { if (blk == "sample" && nv != ntypes) fail("sample with " nv " values for " ntypes " types"); if (blk == "sample_type") ntypes++; blk = ""; nv = 0 }
	/^  id: / { if ($2 == 0) fail(blk " id 0"); if ((blk, $2) in id) fail("duplicate " blk " id " $2); id[blk, $2] = 1 }
	/^  value: / && blk == "sample" { nv++ }
	/^  location_id: / { ref["location", $2] = 1 }
	/^  mapping_id: / && $2 != 0 { ref["mapping", $2] = 1 }
	/^    function_id: / { ref["function", $2] = 1 }
	END {
		for (k in ref) if (!(k in id)) { split(k, a, SUBSEP); fail(a[1] " " a[2] " referenced, not present") }
		if (ntypes != 2) fail(ntypes " sample types")
		exit bad
	}' "$1"
}

skip_unless_ptrace
# Plain samples, so that the folded counts are the report's samples.
run_ctprof live --weight=samples -F 499 -o "$TMP/live.txt" -o "$TMP/live.pb.gz" -o "$TMP/live.folded" \
	-- "$TARGETS/chain" 0.8
check "live: ctprof exits 0 with three outputs" is_status 0
zcat "$TMP/live.pb.gz" | decode >"$TMP/live.txtpb" 2>"$TMP/decode.err"
check "live: protoc decodes the pprof file" test -s "$TMP/live.txtpb"
check "live: pprof validity rules hold" valid_pprof "$TMP/live.txtpb"
check "live: period is 1e9/F ns" grep -q '^period: 2004008$' "$TMP/live.txtpb"
check "live: sample types samples/count and cpu/nanoseconds" \
	bash -c "grep -q '^string_table: \"samples\"' '$TMP/live.txtpb' && grep -q '^string_table: \"nanoseconds\"' '$TMP/live.txtpb'"
check "live: the main executable is the first mapping, with a build id" \
	bash -c "awk '/^mapping \\{/{m++} m==1 && /filename:/{print; exit}' '$TMP/live.txtpb' | grep -q . && grep -q '^string_table: \".*/chain\"' '$TMP/live.txtpb'"
check "live: samples carry a thread label" grep -q '^  label {' "$TMP/live.txtpb"
run_report roundtrip "$TMP/live.pb.gz"
same "live: 'ctprof report' of the pprof file prints the live report" "$TMP/live.txt" "$OUT"
total=$(total_samples "$TMP/live.txt")
sum=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/live.folded")
check "live: folded counts add up to the report's $total samples" test "$sum" = "$total"
check "live: every folded line is 'frames COUNT'" \
	bash -c "! grep -vqE '^[^ ].* [0-9]+\$' '$TMP/live.folded'"
check "live: folded shows the chain root first" grep -q ';main;f0;f1;f2;f3 [0-9]*$' "$TMP/live.folded"
# At 5000 Hz ctprof leaves ticks out (the throttle) and says so in a note
# after the lost line: the pprof file keeps the notes too, for 'ctprof
# report' to print again.  Before, a run at 499 Hz that the host slowed
# enough to leave 2 ticks out failed the round trip above.
run_ctprof notes -F 5000 -o "$TMP/notes.txt" -o "$TMP/notes.pb.gz" -- "$TARGETS/chain" 0.5
if grep -q '^note: ctprof left out' "$TMP/notes.txt"; then
	run_report notes-again "$TMP/notes.pb.gz"
	same "notes: 'ctprof report' of the pprof file prints the live report's notes" "$TMP/notes.txt" "$OUT"
else
	skip "notes: 'ctprof report' of the pprof file prints the live report's notes" \
		"ctprof took every tick at 5000 Hz here: no note to keep"
fi
pprof_bin=$(ls /usr/lib/go-*/pkg/tool/linux_amd64/pprof 2>/dev/null | tail -1)
if [ -n "$pprof_bin" ]; then
	"$pprof_bin" -top "$TMP/live.pb.gz" >"$TMP/pprof-top.txt" 2>&1
	check "live: Google's pprof -top reads it and names f3" grep -q ' f3$' "$TMP/pprof-top.txt"
else
	skip "live: Google's pprof -top reads it" "no pprof binary (Debian's golang-1.19-go)"
fi

# ---- the reader on broken files: one line, exit 1, never a crash ----
bad_input() {
	local name=$1 file=$2 phrase=$3
	run_report "bad-$name" "$file"
	if [ "$RC" = 1 ] && [ "$(wc -l <"$ERR")" = 1 ] && grep -qi -- "$phrase" "$ERR"; then
		ok "bad input ($name): exit 1, one line: $(head -c 120 "$ERR")"
	else
		not_ok "bad input ($name): exit $RC, expected 1 and '$phrase'"
	fi
}
: >"$TMP/empty"
bad_input empty "$TMP/empty" "empty"
echo "hello, not a profile" >"$TMP/text"
bad_input text "$TMP/text" "not a pprof profile"
size=$(stat -c %s "$TMP/live.pb.gz")
head -c $((size / 2)) "$TMP/live.pb.gz" >"$TMP/trunc.pb.gz"
bad_input "truncated gzip" "$TMP/trunc.pb.gz" "truncated"
head -c 4096 /dev/urandom | gzip >"$TMP/random.pb.gz"
bad_input "gzip of random bytes" "$TMP/random.pb.gz" "cannot read"
{ printf '\037\213'; head -c 2000 /dev/urandom; } >"$TMP/corrupt.pb.gz"
bad_input "corrupt gzip" "$TMP/corrupt.pb.gz" "gzip"
zcat "$TMP/live.pb.gz" | head -c $(( $(zcat "$TMP/live.pb.gz" | wc -c) / 2 )) >"$TMP/trunc.pb"
bad_input "truncated protobuf" "$TMP/trunc.pb" "cannot read"
sed -e 's/string_table: "samples"/string_table: "alloc_objects"/' -e 's/string_table: "cpu"/string_table: "alloc_space"/' \
	-e 's/string_table: "nanoseconds"/string_table: "bytes"/' "$DATA/frozen.txtpb" | encode >"$TMP/heap.pb"
bad_input "a heap profile" "$TMP/heap.pb" "not a CPU profile"
sed 's/line { function_id: 1 line: 12 }/line { function_id: 99 line: 12 }/' "$DATA/frozen.txtpb" | encode >"$TMP/badfunc.pb"
bad_input "location names a missing function" "$TMP/badfunc.pb" "function that is not there"
sed 's/^sample { location_id: 2 /sample { location_id: 77 /' "$DATA/frozen.txtpb" | encode >"$TMP/badloc.pb"
bad_input "sample names a missing location" "$TMP/badloc.pb" "location that is not there"
sed 's/function { id: 1 name: 6 /function { id: 1 name: 600 /' "$DATA/frozen.txtpb" | encode >"$TMP/badstr.pb"
bad_input "string index out of range" "$TMP/badstr.pb" "out of range"
sed 's/^string_table: ""$/string_table: "x"/' "$DATA/frozen.txtpb" | encode >"$TMP/badst0.pb"
bad_input "string_table[0] not empty" "$TMP/badst0.pb" "empty string"
sed 's/function { id: 2 /function { id: 1 /' "$DATA/frozen.txtpb" | encode >"$TMP/dupid.pb"
bad_input "duplicate function ids" "$TMP/dupid.pb" "not unique"
sed 's/ value: 50 value: 505050500 / value: 50 /' "$DATA/frozen.txtpb" | encode >"$TMP/badvals.pb"
bad_input "values do not match sample types" "$TMP/badvals.pb" "do not match"
# Found by scripts/fuzz.sh: a profile without mappings sorted a NULL
# array (undefined behaviour, fatal under the sanitizer build).
run_report fuzz-no-mappings "$DATA/fuzz-no-mappings.pb"
check "fuzz case: a profile without mappings is handled (exit 0 or 1, no crash)" \
	eval '[ "$RC" = 0 ] || [ "$RC" = 1 ]'
run_report fuzz-huge-count "$DATA/fuzz-huge-count.pb"
check "fuzz case: a sample count that overflows is refused or written safely" \
	eval '[ "$RC" = 0 ] || [ "$RC" = 1 ]'
run_report missing "$TMP/no-such-file.pb.gz"
check "missing file: exit 1, says so" eval 'is_status 1 && err_says "No such file"'
finish
