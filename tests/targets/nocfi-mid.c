/* Built with frame pointers and no unwind tables (see nocfi.c). */
#include "nocfi.h"

__attribute__((noinline)) unsigned long nocfi_mid(double secs)
{
	unsigned long r = nocfi_hot(secs);

	/* Work after the call: this frame stays on the stack during it. */
	nocfi_sink ^= r;
	return r + 1;
}
