/* main -> rbp_call -> nocfi_mid (no CFI) -> nocfi_hot; see nocfi.c. */
#ifndef CTPROF_TEST_NOCFI_H
#define CTPROF_TEST_NOCFI_H

extern volatile unsigned long nocfi_sink;

unsigned long nocfi_mid(double secs);
unsigned long nocfi_hot(double secs);

#endif
