/* syscalls.c - see syscalls.h.  The table is generated at build time from
 * the kernel headers the compiler sees (gen-syscalls.sh), so it matches
 * the architecture ctprof is built for. */
#include "syscalls.h"

#include <stddef.h>

static const char *const names[] = {
#include "syscall-names.h"
};

const char *syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[nr];
}
