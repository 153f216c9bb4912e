#!/bin/sh
# Build ctprof and profile the bundled demo workload with it:
#     scripts/demo.sh [ctprof options]
set -eu
cd "$(dirname "$0")/.."

scripts/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

echo "+ build/src/ctprof $* -- build/demo/ctprof-demo" >&2
exec build/src/ctprof "$@" -- build/demo/ctprof-demo
