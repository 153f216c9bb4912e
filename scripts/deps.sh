#!/bin/sh
# Install the Debian packages ctprof needs to build (and, with --test, to
# run its test suite; with --bench, to run scripts/bench.sh).  Does nothing
# when they are all there already.
set -eu

pkgs="gcc libc6-dev meson ninja-build pkg-config libdw-dev libelf-dev libunwind-dev
      libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libiberty-dev
      golang-github-google-pprof-dev"
case "${1:-}" in
--test)
	pkgs="$pkgs strace procps util-linux bsdutils protobuf-compiler libxml2-utils chromium
	      golang-1.19-go redis-server redis-tools tmux
	      clang lld rustc binutils
	      nodejs openjdk-17-jdk-headless elfutils" ;;
--bench)
	# perf beside ctprof, and the real programs of part 7.
	pkgs="$pkgs linux-perf python3 redis-server redis-tools sqlite3" ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "scripts/deps.sh: need root to install:$missing" >&2
	exit 1
fi
echo "scripts/deps.sh: installing:$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
