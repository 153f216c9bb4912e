#!/bin/bash
# The text report's options on frozen profiles (exact golden files):
# --top, --sort, --per-thread, --tid, --lines, --callgraph, demangling and
# --no-demangle; and --tid on a live run.
. "$(dirname "$0")/lib.sh"

DATA=$(dirname "$0")/data
PROTO_DIR=${PROFILE_PROTO_DIR:-/usr/share/gocode/src/github.com/google/pprof/proto}
command -v protoc >/dev/null || skip_all "protoc (protobuf-compiler) is not installed"
[ -f "$PROTO_DIR/profile.proto" ] || skip_all "no profile.proto in $PROTO_DIR"
encode() { protoc --encode=perftools.profiles.Profile --proto_path="$PROTO_DIR" profile.proto; }
encode <"$DATA/frozen.txtpb" >"$TMP/frozen.pb"
encode <"$DATA/cxx.txtpb" >"$TMP/cxx.pb"

# golden NAME GOLDEN ARGS...: 'ctprof report ARGS' prints GOLDEN exactly.
golden() {
	local name=$1 gold=$DATA/$2
	shift 2
	run_cmd "$name" "$CTPROF" report "$@"
	if [ "$RC" = 0 ] && cmp -s "$gold" "$OUT"; then
		ok "$name"
	else
		not_ok "$name (exit $RC)"
		diff -u "$gold" "$OUT" | sed 's/^/# /'
	fi
}

golden "--top 2 --sort cum" frozen-top2-cum.txt --top 2 --sort cum "$TMP/frozen.pb"
golden "--per-thread" frozen-per-thread.txt --per-thread "$TMP/frozen.pb"
golden "--tid 4243" frozen-tid.txt --tid 4243 "$TMP/frozen.pb"
golden "--lines" frozen-lines.txt --lines "$TMP/frozen.pb"
golden "--callgraph --top 3" frozen-callgraph.txt --callgraph --top 3 "$TMP/frozen.pb"
golden "C++ names demangled" cxx.txt "$TMP/cxx.pb"
golden "--no-demangle" cxx-raw.txt --no-demangle "$TMP/cxx.pb"
golden "--tid in folded output" frozen-tid.folded --tid 4242 --format folded "$TMP/frozen.pb"

skip_unless_ptrace attach
"$TARGETS/threads" 3 >"$TMP/threads.out" 2>&1 &
tpid=$!
bg_started "$tpid"
sleep 0.4
tid=$(ls "/proc/$tpid/task" | sort -n | sed -n 2p)
run_ctprof live-tid -d 0.6 --tid "$tid" --per-thread -p "$tpid"
check "live --tid: exit 0" is_status 0
check "live --tid: one thread's table only" test "$(grep -c '^thread ' "$OUT")" = 1
check "live --tid: it is thread $tid" grep -q "^thread $tid " "$OUT"
finish
