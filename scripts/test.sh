#!/bin/sh
# Build ctprof and run the whole test suite (what CI runs, via .ci/run).
set -eu
cd "$(dirname "$0")/.."

scripts/deps.sh --test
[ -d build ] || meson setup build >/dev/null
ninja -C build
meson test -C build --print-errorlogs
