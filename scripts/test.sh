#!/bin/sh
# Build ctprof and run the whole test suite (what CI runs, via .ci/run):
# once in a normal build, once in a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (leaks included).  The test targets are never
# instrumented (see tests/meson.build).
set -eu
cd "$(dirname "$0")/.."

scripts/deps.sh --test
[ -d build ] || meson setup build >/dev/null
ninja -C build
meson test -C build --print-errorlogs

[ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C build-asan
CTPROF_SANITIZED=1 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	meson test -C build-asan --print-errorlogs
