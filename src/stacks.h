/* stacks.h - interned call chains and their sample counts.
 *
 * A stack is a process and thread id and an array of frame keys (maps.h), innermost
 * first.  Equal stacks share one entry, so memory grows with the number of
 * distinct stacks, not with time.
 */
#ifndef CTPROF_STACKS_H
#define CTPROF_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stack {
	uint64_t hash;
	uint64_t count;
	uint64_t ns;            /* the time its samples stand for */
	uint64_t *frames;       /* owned by the table */
	uint32_t nframes;
	pid_t pid, tid;
	uint64_t mark, mark_ns; /* free for the table's users (0 when added) */
	uint64_t pending;       /* of count: samples whose ns is still to be
	                         * given (stacks_settle) */
};

struct stacks {
	struct stack *tab;      /* open addressing; frames == NULL: empty */
	size_t cap, n;
	uint64_t total;         /* sum of counts */
	uint64_t total_ns;      /* sum of ns */
};

void stacks_init(struct stacks *st);
void stacks_release(struct stacks *st);
/* Count COUNT more samples of FRAMES[0..N) in thread TID of process PID,
 * standing for NS nanoseconds (of CPU or of wall-clock time). */
void stacks_add(struct stacks *st, pid_t pid, pid_t tid, const uint64_t *frames, unsigned n,
		uint64_t count, uint64_t ns);
/* The same for COUNT samples whose time is given later, by stacks_settle. */
void stacks_add_pending(struct stacks *st, pid_t pid, pid_t tid, const uint64_t *frames, unsigned n,
			uint64_t count);
/* The number of pending samples of thread TID of process PID. */
uint64_t stacks_pending(const struct stacks *st, pid_t pid, pid_t tid);
/* Give the pending samples of thread TID of process PID the NS
 * nanoseconds they stand for, shared equally (to the nanosecond, the sum
 * is NS).  Returns their number: if 0, NS was given to none. */
uint64_t stacks_settle(struct stacks *st, pid_t pid, pid_t tid, uint64_t ns);

/* The heap memory the table holds, in bytes. */
size_t stacks_bytes(const struct stacks *st);

/* Move every sample of ST into OUT (not initialized), but for the pending
 * ones, which stay in ST to be settled: OUT then holds what was counted
 * so far, complete, and ST starts anew.  Entries of OUT may be left with
 * no samples and no time. */
void stacks_take(struct stacks *st, struct stacks *out);

#define stacks_for_each(st, s) \
	for ((s) = (st)->tab; (s) < (st)->tab + (st)->cap; (s)++) if ((s)->frames)

#endif
