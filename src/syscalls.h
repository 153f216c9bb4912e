/* syscalls.h - names of the system calls a blocked thread waits in. */
#ifndef CTPROF_SYSCALLS_H
#define CTPROF_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

/* The name of system call NR of this architecture ("epoll_wait"), or NULL. */
const char *syscall_name(long nr);

/* Would a stop asked for while a thread sleeps in system call NR, made
 * with ARGS, end the call short?  A ptrace interrupt is a pending signal
 * to the kernel: a call that sleeps with nothing done yet is restarted
 * after the stop as if nothing had happened, but one that sleeps after
 * doing part of its work (a write to a full pipe or socket, a receive
 * with MSG_WAITALL) returns what it has done, as it does for a signal:
 * a short count the program did not ask for and, without a handler,
 * never sees otherwise. */
bool syscall_ends_short(long nr, const uint64_t args[6]);

#endif
