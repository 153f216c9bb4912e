/* syscalls.c - see syscalls.h.  The table is generated at build time from
 * the kernel headers the compiler sees (gen-syscalls.sh), so it matches
 * the architecture ctprof is built for. */
#include "syscalls.h"

#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static const char *const names[] = {
#include "syscall-names.h"
};

const char *syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[nr];
}

bool syscall_ends_short(long nr, const uint64_t args[6])
{
	switch (nr) {
	/* Writes: to a pipe, a socket or a terminal, they sleep for room
	 * after part of the data went. */
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
#ifdef SYS_pwritev2
	case SYS_pwritev2:
#endif
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendmmsg:
	case SYS_sendfile:
	case SYS_splice:
	case SYS_tee:
	case SYS_vmsplice:
#ifdef SYS_copy_file_range
	case SYS_copy_file_range:
#endif
	/* The messages received so far. */
	case SYS_recvmmsg:
		return true;
	/* A receive sleeps with data in hand only when asked to wait for
	 * all of it; a read returns what has come. */
	case SYS_recvfrom:
		return args[3] & MSG_WAITALL;
	case SYS_recvmsg:
		return args[2] & MSG_WAITALL;
	default:
		return false;
	}
}
