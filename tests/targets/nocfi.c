/* nocfi [SECONDS]: main -> rbp_call -> nocfi_mid -> nocfi_hot, where
 * nocfi_hot spins for SECONDS (default 1).  nocfi_mid (nocfi-mid.c) is
 * built with frame pointers and without CFI, as hand-written assembly,
 * crtstuff's __do_global_dtors_aux and some runtimes' stubs are: only its
 * frame record leads out of it.  Its caller, rbp_call, has CFI and keeps
 * data in rbp (a small number), as code built without frame pointers
 * does (ld.so's _dl_fini, main itself at -O2): the saved rbp in the
 * frame record is not a frame pointer, and the step must not need one. */
#include "nocfi.h"
#include "timeutil.h"

volatile unsigned long nocfi_sink;

/* rbp_call(FN, ARG, JUNK): FN(ARG) with rbp holding JUNK, saved and
 * restored around the call, with the CFI that says so. */
unsigned long rbp_call(unsigned long (*fn)(double), double arg, unsigned long junk);
__asm__(".text\n"
	".globl rbp_call\n"
	".type rbp_call, @function\n"
	"rbp_call:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tmovq %rsi, %rbp\n"
	"\tcall *%rdi\n"
	"\tpopq %rbp\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	".size rbp_call, .-rbp_call\n");

__attribute__((noinline)) unsigned long nocfi_hot(double secs)
{
	return SPIN_FOR(secs, 0x51);
}

int main(int argc, char **argv)
{
	nocfi_sink ^= rbp_call(nocfi_mid, arg_s(argc, argv, 1, 1.0), 1);
	return 0;
}
