/* syscalls.h - names of the system calls a blocked thread waits in. */
#ifndef CTPROF_SYSCALLS_H
#define CTPROF_SYSCALLS_H

/* The name of system call NR of this architecture ("epoll_wait"), or NULL. */
const char *syscall_name(long nr);

#endif
