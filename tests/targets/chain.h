/* main -> f0 -> f1 -> f2 -> f3, one function per
 * file, built with -fomit-frame-pointer: only DWARF CFI can walk it. Each
 * caller uses the callee's result after the call, so no call is a tail
 * call (the build also passes -fno-optimize-sibling-calls). */
#ifndef CTPROF_TEST_CHAIN_H
#define CTPROF_TEST_CHAIN_H

extern volatile unsigned long chain_sink;

unsigned long f0(unsigned long x, double secs);
unsigned long f1(unsigned long x, double secs);
unsigned long f2(unsigned long x, double secs);
unsigned long f3(unsigned long x, double secs);

#endif
