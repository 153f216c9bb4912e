#!/bin/sh
# Profile one command with ctprof and with perf record, one after the
# other, and print each function's self% from both, with the total
# variation distance between the two flat profiles (half the sum of the
# absolute differences).
#     scripts/compare-perf.sh [-F HZ] -- COMMAND [ARG]...
# The profiles are compared by ELF symbol (scripts/flatcmp.py: inlined code
# counts as the function it is inlined in, aliases such as malloc and
# __libc_malloc are one, perf's kernel samples count at the user-space
# instruction that entered the kernel, as ctprof counts them).  ctprof is
# $CTPROF (default build/src/ctprof).
set -eu
cd "$(dirname "$0")/.."

hz=999
if [ "${1:-}" = "-F" ]; then hz=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: scripts/compare-perf.sh [-F HZ] -- COMMAND [ARG]..." >&2; exit 2; }
command -v perf >/dev/null || { echo "scripts/compare-perf.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
ctprof=${CTPROF:-build/src/ctprof}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ctprof" -F "$hz" -o "$tmp/ctprof.pb.gz" -- "$@" >/dev/null
# -g: the call chain's first user-space frame is where a kernel sample is
# charged.
perf record -q -g -F "$hz" -e cpu-clock -o "$tmp/perf.data" -- "$@" >/dev/null 2>&1
scripts/flatcmp.py "$tmp/ctprof.pb.gz" "$tmp/perf.data"
