/* shortwrite.c - writes that a stop ended short: seen at the stop,
 * counted for the report.
 */
#include "internal.h"

/* Was a thread with registers R stopped in the middle of a system call
 * (one that slept until the stop broke it), which it returns to after the
 * stop? */
bool regs_in_syscall(const struct user_regs_struct *r)
{
	long res = regs_result(r);

	return regs_syscall(r) >= 0 &&
	       (res == -EINTR || res == -ERESTARTSYS || res == -ERESTARTNOINTR ||
		res == -ERESTARTNOHAND || res == -ERESTART_RESTARTBLOCK);
}

/* Did the stop of thread T, with registers R, end a write short?  A stop
 * is a pending signal to the kernel, and a write to a blocking pipe,
 * socket or terminal that waits for room returns then with the part
 * already written (signal(7): "interrupted after transferring some
 * data").  ctprof leaves a thread asleep in such a call alone
 * (syscall_ends_short()), but a thread that was running or runnable in
 * it at the tick, in the kernel where /proc does not say which call it
 * is in, is stopped, and may be cut short.  What cannot be helped is
 * counted, for the report to say: the stop comes at the exit of the call
 * it ended, so the call, its arguments and what it returned are in the
 * registers.  write, pwrite64 and sendto (send) are seen; a short count
 * on a descriptor opened O_NONBLOCK, or sent with MSG_DONTWAIT, is the
 * program's own.  The descriptor's flags are read from /proc after the
 * thread runs again (count_short_writes()), not in its stop; checked
 * against tests/targets/shortio.c (docs/DESIGN.md, "Known limits,
 * measured").  A
 * thread stopped again at the same exit before it got a CPU (one
 * resumed that waits for a CPU across a tick, under --wall on a busy
 * host) is the same write, counted once: its count of CPU arrivals read
 * before the stop has not moved.  One that got a CPU and was preempted
 * again before it left the kernel is counted twice: nothing in its
 * registers or schedstat tells it from a new write that came back as
 * short from the same place (same section). */
void note_short_write(struct sampler *sp, struct thread *t, const struct user_regs_struct *r)
{
	long long ret = regs_result(r);

	if (ret < 0 || (uint64_t)ret >= regs_arg(r, 2))
		return;
	switch (regs_syscall(r)) {
	case SYS_write:
	case SYS_pwrite64:
		break;
	case SYS_sendto:
		if (regs_arg(r, 3) & MSG_DONTWAIT)
			return;
		break;
	default:
		return;
	}
	if (t->st->short_noted && t->st->short_slices == t->st->slices_mark && t->st->short_ip == regs_pc(r) &&
	    t->st->short_sp == regs_sp(r) && t->st->short_ret == (uint64_t)ret)
		return;
	t->st->short_noted = true;
	t->st->short_ip = regs_pc(r);
	t->st->short_sp = regs_sp(r);
	t->st->short_ret = (uint64_t)ret;
	t->st->short_slices = t->st->slices_mark;
	GROW(sp->shorts, sp->shortcap, sp->nshorts + 1);
	sp->shorts[sp->nshorts].pid = t->proc->pid;
	sp->shorts[sp->nshorts].blocked = t->st->blocked_sample;
	sp->shorts[sp->nshorts++].fd = (int)regs_arg(r, 0);
}

/* The writes note_short_write() saw, their threads resumed: those on a
 * blocking descriptor are the stops'. */
void count_short_writes(struct sampler *sp)
{
	for (size_t i = 0; i < sp->nshorts; i++) {
		int flags;

		if (proc_fd_flags(sp->shorts[i].pid, sp->shorts[i].fd, &flags) == 0 && !(flags & O_NONBLOCK)) {
			sp->stats.short_writes++;
			sp->stats.short_blocked += sp->shorts[i].blocked;
		}
	}
	sp->nshorts = 0;
}
