#!/bin/sh
# A long profile: ctprof attached at 999 Hz for SECONDS (default 600) to
# the demo workload, its resident memory read every 30 s.  Memory may grow
# with the number of distinct stacks, never with time:
#     scripts/longrun.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}

scripts/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

out=$(mktemp -d)
trap 'kill "$demo" 2>/dev/null; rm -rf "$out"' EXIT
build/demo/ctprof-demo $((secs + 30)) >/dev/null &
demo=$!
sleep 1
build/src/ctprof -F 999 -v -d "$secs" -p "$demo" >"$out/report.txt" 2>&1 &
prof=$!
echo "| seconds | ctprof RSS (KiB) |"
echo "| --- | --- |"
t=0
while kill -0 "$prof" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$prof/status" 2>/dev/null || true)
	[ -n "$rss" ] && echo "| $t | $rss |"
	sleep 30
	t=$((t + 30))
done
wait "$prof" || { echo "scripts/longrun.sh: ctprof failed" >&2; cat "$out/report.txt" >&2; exit 1; }
grep -E '^(total|lost|no ticks|profiler: [0-9]+ ticks|profiler: fds)' "$out/report.txt"
