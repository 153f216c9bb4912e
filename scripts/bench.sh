#!/bin/bash
# ctprof's benchmark: target slowdown, stall per sample beside the ptrace
# floor, the profiler's own cost per sample for each unwinder backend,
# accuracy against perf, many mostly-blocked threads, and accuracy on real
# programs.  Prints one Markdown report (to paste into README.md) on
# standard output, progress on standard error.
#
#     scripts/bench.sh [-n N] [-p|--parts LIST] [-b|--base REV|BINARY] [-t|--trigger MODE] [-a|--append]
#
# --parts runs only the parts in LIST, numbers or names separated by
# commas: 1 (or slowdown; 2's ctprof figures and 3 are those runs, so 3
# means 1), 2 (floor), 4 (bperf), 5 (threads), 6 (wall), 7 (real);
# accuracy is 4 and 7.  `scripts/bench.sh -n 3 --parts 7` runs the accuracy
# on real programs alone, in about 7 minutes.  Default: all.
#
# Each part is also a script of its own in scripts/bench/, which runs it
# alone and prints its section of the report (its header says what it
# measures; `scripts/bench/real.sh -n 3` is `--parts 7`):
#
#     part 1 and 3   scripts/bench/slowdown.sh   target slowdown, profiler cost
#     part 2         scripts/bench/floor.sh      stall per sample, ptrace floor
#     part 4         scripts/bench/bperf.sh      accuracy on build/tests/bperf
#     part 5         scripts/bench/threads.sh    many threads
#     part 6         scripts/bench/wall.sh       wall-clock mode, CPU-time weights
#     part 7         scripts/bench/real.sh       accuracy on real programs
#
# They share scripts/bench/lib.sh.  Run together here, the parts run in
# the same repetitions (part 2's ratios to ctprof's stall need part 1's
# runs of the same repetition).
#
# --base runs a second ctprof beside the first in part 1 (slowdown at 99
# and 999 Hz, one thread and two, and bench/gaps.c), and so in parts 2 and
# 3, and in part 5: a binary, or a git revision of this repository, which
# is then built
# into the temporary directory (git archive, meson, ninja; about a
# minute).  `scripts/bench.sh -n 5 --parts 1 --base 36d66ac` compares the
# cost of a sample with 36d66ac's in one run, each beside perf.
#
# --trigger gives every run of ctprof (not the base's) --trigger=MODE
# (auto, perf or timer): `scripts/bench.sh -n 3 --parts 7 --trigger perf`
# measures the kernel-timed trigger's accuracy where the default, as root,
# is the timer's.
#
# --append adds the report to docs/BENCHMARKS.md as its newest entry (the
# entries are newest first), under a heading such as the others have:
# "## 2026-12-06 02:15: scripts/bench.sh -n 3 --parts 7 -a (0a0cc45)", the
# date (UTC) of the report, the command, and the commit (git rev-parse
# --short HEAD, "+changes" after it if the tracked files differ from it).
# The report still goes to standard output.  Each part's script and
# scripts/bench-trigger.sh take --append too.
#
# Each figure is the median of N repetitions (default 5).  Within a
# repetition every variant runs once, one after the other (the order
# rotates from one repetition to the next), and ratios are taken inside a
# repetition before the median is taken, so slow drift of the machine
# cancels out.
#
# The bench programs (bench/*.c) are compiled here with gcc into a temporary
# directory: no meson change is needed.  The ctprof binary is
# $CTPROF (default build/src/ctprof), copied to the temporary directory at
# the start so a rebuild during the run cannot mix two binaries.  The
# accuracy part needs build/tests/bperf (built by meson).  A missing perf,
# python3, redis-server, redis-benchmark or sqlite3 is installed with
# scripts/deps.sh --bench when that can be done (root or sudo); what is
# still missing then skips what needs it, with a note in the report.
set -eu
here=$(dirname "${BASH_SOURCE[0]}")/bench
# shellcheck source=scripts/bench/lib.sh
. "$here/lib.sh"
# shellcheck source=scripts/bench/slowdown.sh
. "$here/slowdown.sh"
# shellcheck source=scripts/bench/floor.sh
. "$here/floor.sh"
# shellcheck source=scripts/bench/bperf.sh
. "$here/bperf.sh"
# shellcheck source=scripts/bench/threads.sh
. "$here/threads.sh"
# shellcheck source=scripts/bench/wall.sh
. "$here/wall.sh"
# shellcheck source=scripts/bench/real.sh
. "$here/real.sh"

bench_main scripts/bench.sh "parts base trigger" all "$@"
