#!/bin/sh
# Fuzz the pprof reader (with every writer on what it accepts) and the
# /proc stat parsers with libFuzzer, SECONDS each (default 60):
#     scripts/fuzz.sh [SECONDS]
# The corpora live in tests/fuzz/corpus/ and grow with what the fuzzer
# finds; a crash leaves its input in build-fuzz/ and fails the script:
# add it to tests/data as a regression test.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}

scripts/deps.sh
for p in clang libclang-rt-14-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || {
		echo "scripts/fuzz.sh: installing $p" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null
	}
done
# meson generates profile.pb-c.[ch] from profile.proto, and the table of
# system call names.
[ -d build ] || meson setup build >/dev/null
ninja -C build src/profile.pb-c.c src/syscall-names.h >/dev/null

out=build-fuzz
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc -Ibuild/src -Ibuild -I/usr/include/x86_64-linux-gnu"
libs="$(pkg-config --libs libdw libelf libunwind-generic libprotobuf-c zlib) -lstdc++ -lm"
src=$(ls src/*.c | grep -v -e '/main.c$')
# shellcheck disable=SC2086 # word lists
clang $flags -o "$out/fuzz-pprof" tests/fuzz/fuzz-pprof.c $src build/src/profile.pb-c.c $libs
# shellcheck disable=SC2086
clang $flags -o "$out/fuzz-proc" tests/fuzz/fuzz-proc.c src/proc.c src/util.c $libs

status=0
for t in pprof proc; do
	echo "scripts/fuzz.sh: fuzz-$t for $secs s" >&2
	(cd "$out" && ASAN_OPTIONS=detect_leaks=1 ./"fuzz-$t" -max_total_time="$secs" \
		-max_len=65536 -print_final_stats=1 "../tests/fuzz/corpus/$t" 2>"fuzz-$t.log") || {
		status=1
		echo "scripts/fuzz.sh: fuzz-$t found a crash; see $out/fuzz-$t.log and $out/crash-*" >&2
	}
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/fuzz-$t.log" | sed "s/^/fuzz-$t: /" >&2
done
exit $status
