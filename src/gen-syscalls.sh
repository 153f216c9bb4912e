#!/bin/sh
# gen-syscalls.sh OUTPUT CC [CC ARGS]...: write the table of system call
# names by number, as the C compiler's <asm/unistd.h> defines them
# (__NR_read 0, ...), to OUTPUT: a list of [nr] = "name", initializers.
set -eu
out=$1
shift
echo '#include <asm/unistd.h>' | "$@" -E -dM -x c - |
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$/\t[\2] = "\1",/p' |
	sort -t'[' -k2 -n >"$out.tmp"
[ -s "$out.tmp" ] || { echo "gen-syscalls.sh: no __NR_ definitions found" >&2; exit 1; }
mv "$out.tmp" "$out"
