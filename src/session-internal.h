/* session-internal.h - what the files of the session (session.c, its
 * stops; session-start.c, attaching and launching) share. */
#ifndef CTPROF_SESSION_INTERNAL_H
#define CTPROF_SESSION_INTERNAL_H

#include "session.h"

/* The ptrace options a seize sets: those of every tracee, and with
 * follow_forks the fork events' too (as PTRACE_SEIZE's data). */
void *seize_options(const struct session *s);
/* The process or thread of that id, added if new (a thread of P). */
struct process *process_add(struct session *s, pid_t pid);
struct thread *thread_add(struct session *s, struct process *p, pid_t tid);
/* The thread of that id, NULL if not traced. */
struct thread *thread_find(struct session *s, pid_t tid);
/* T's sample stop asked for will not be one: counted as lost. */
void drop_sample(struct session *s, struct thread *t);

#endif
