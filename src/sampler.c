/* sampler.c - see sampler.h.
 *
 * A tick: read the state of every thread from its kept-open stat file (no
 * stop), PTRACE_INTERRUPT the running ones, and as each one stops, copy its
 * registers and stack and resume it at once.  DESIGN.md sketches "stop all,
 * then capture all, then resume all"; resuming each thread as soon as its
 * own capture is done keeps every thread's stall to its own capture instead
 * of the slowest thread's, and a profile of independent threads loses
 * nothing by it.  Unwinding and counting happen after every thread runs.
 */
#define _GNU_SOURCE
#include "sampler.h"
#include "cli.h"
#include "proc.h"
#include "syscalls.h"
#include "util.h"

#include <asm/unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* The perf trigger's end: how long it waits for the signals its events
 * queued before they closed (a thread that blocks one takes it only
 * where it unblocks). */
#define STRAY_WAIT_NS 200000000ULL
/* ... and a thread that blocks every signal its event could send is
 * looked at again after this, then twice as long each time, up to the
 * last (arm_for_untimed()). */
/* ... and kernel-mode rings are emptied at least this often: a thread in
 * the kernel the whole time fills its ring (KTRIGGER_RING_PAGES) in some
 * 30 ms at 999 Hz. */
#define RING_DRAIN_NS 10000000ULL
#define EV_RETRY_FIRST_NS 1000000ULL
/* ... and a thread born with every signal blocked gets its event at once,
 * its mask looked at this long after its birth (glibc unblocks them as
 * the thread starts, within microseconds). */
#define EV_CHECK_NS 2000000ULL
/* ... and one that blocks it later (a worker in a long section) is seen
 * to: no sample in this long, its event's count past three periods, its
 * signal pending and blocked.  A read of each thread's count, a look at
 * its mask only for one that ran unsampled. */
#define EV_LOOK_NS 100000000ULL
#define EV_RETRY_MAX_NS 1000000000ULL
/* How long a tick waits for an interrupted thread to stop. */
#define STOP_TIMEOUT_NS 100000000ULL
/* How long it polls for the stops before it sleeps. */
#define SPIN_NS 200000ULL
/* How long, with a thread to stop on ctprof's own CPU, it polls for those
 * on held CPUs first (they came in 26-33 us on average, two busy threads
 * on 2 CPUs at 999 Hz). */
#define SPIN_HELD_NS 50000ULL
/* How far above SP a thread stopped in the vDSO is looked at for a return
 * address into Go's caller of it (copy_go_stack()): the vDSO's frames are
 * a few words. */
#define VDSO_SCAN 256
/* How far above SP a stop in Go's code is looked at for the kernel's
 * frame of a signal handler (copy_go_interrupted()).  Stops in Go 1.19's
 * handlers found it 48-544 bytes up under its preemption signal, 1240
 * under SIGPROF (its profiler's traceback); looking through 4096 bytes
 * where it is not costs some 0.2 us a sample here. */
#define GO_SIGFRAME_SCAN 4096
/* How far above SP a stop in other code is looked at for the kernel's
 * frame of a handler that runs on a stack of its own (copy_alt_interrupted()):
 * such a stack is SIGSTKSZ (8192) to a few times that, the frame at its
 * top, and the handler's frames below it. */
#define ALT_SIGFRAME_SCAN 8192
/* The sizes of such a stack taken for one (MINSIGSTKSZ is 2048). */
#define ALT_STACK_MIN 2048
#define ALT_STACK_MAX (1ULL << 30)
/* The most captures from rings held before they are unwound. */
#define RING_BATCH 8
/* The unit in which a goroutine's stack is copied (copy_go_stack()). */
#define GO_STACK_PAGE 4096ULL
/* Bytes below the stack pointer a function may use without moving it (the
 * x86-64 ABI's red zone). */
#define RED_ZONE 128
/* A new thread's first instructions, from where clone returns to the call
 * of its start function, lie within this many bytes (unwind_captures). */
#define CLONE_CHILD_SPAN 32
/* ctprof dump: threads asked to stop at a time, and the longest wait for
 * a batch (see interrupt_in_batches). */
#define DUMP_BATCH 4
#define DUMP_BATCH_WAIT_NS 20000000ULL
/* Real-time priorities: the sampler outranks the helpers that take CPUs
 * from the target (kick.h), so that it can run on a CPU one of them
 * holds. */
#define SAMPLER_PRIO 2
#define HELPER_PRIO 1
/* The lead follows what ctprof's lateness and its reads before a tick
 * took lately, in steps of this. */
#define LEAD_STEP_NS 2000ULL
#define LEAD_FIRST_NS 50000ULL
/* The thread id under which the CPU time of exited threads after their
 * last sample is counted (thread_exits). */
#define EXITED_TID 0
/* At most this many threads seen blocked before a tick are read again
 * at the tick (late_picks). */
#define LATE_MAX 16
/* A thread seen blocked within this many ticks runs in bursts. */
#define RECENT_TICKS 16
/* The throttle (throttle()): ticks are left out while ctprof's CPU time
 * per CPU the target runs on is more than a THROTTLE_SHARE-th of the
 * period, at most THROTTLE_MAX in a row (a thread seen running at a tick
 * taken is still recent, RECENT_TICKS, at the next one). */
#define THROTTLE_SHARE 4
#define THROTTLE_MAX 7
/* A thread that waited for a CPU at least this long, and a fifth of its
 * time, between two reads of it competes for CPUs (note_wait()). */
#define CROWD_WAIT_NS 100000ULL
/* ctprof sleeps until the tick, rather than spin, if it is this early. */
#define SLEEP_MIN_NS 10000ULL
/* Reading after the tick: a thread that last left a CPU this close
 * before the CPU was taken counts as taken off it then. */
#define AT_TICK_SLACK_NS 5000ULL
/* ... and one found asleep that left its CPU later than this after the
 * moment its CPU was meant to be taken was on it then, where the
 * difference of the run queue's clock to ctprof's is known from this
 * take alone (slept_after_tick()). */
#define SLEPT_MARGIN_NS 20000ULL
/* ... and one whose CPU's taker came onto it more than this after the
 * thread left it is not counted so (slept_after_tick()). */
#define SLEPT_FOLLOW_NS 150000ULL
/* The takes kept for rq_offset(), per CPU, and for how many ticks. */
#define RQ_OFFS 8
#define RQ_OFFS_TICKS 64
/* ... and one whose time since its last sample's resume is all CPU time
 * or waiting for one, but for this much and a 2^AWAKE_SLACK_SHIFT-th of
 * that time, did not sleep (awake_since_resume()). */
#define AWAKE_SLACK_NS 30000ULL
#define AWAKE_SLACK_SHIFT 8
/* Reading after the tick: a thread's CPU is read from its stat at least
 * once in this many ticks (see choose()). */
#define CPU_READ_TICKS 8
/* Reading after the tick: the helpers' delay (follow_arrival) moves in
 * steps of this, up to this much (and an eighth of the period). */
#define DELAY_STEP_NS 1000ULL
#define DELAY_MAX_NS 40000ULL
/* ... and there is a delay only while other programs ran on the
 * sampler's CPU at most a fifth of the last IDLE_WINDOW_NS (watch_idle()). */
#define IDLE_WINDOW_NS 200000000ULL
/* Holding only where it counts (see judge_unheld()): a thread's stops
 * are held until CLEAN_FIRST probes in a row, each after PROBE_EVERY held
 * samples in a row outside system calls, found it outside the kernel;
 * the count doubles, up to CLEAN_MAX, each time such a thread is found
 * entering it after all. */
#define PROBE_EVERY 16
/* ... or PROBE_FIRST, before any stop found the thread in the kernel. */
#define PROBE_FIRST 4
#define CLEAN_FIRST 4
#define CLEAN_MAX 64
/* ... and a thread whose page faults come more often than once in
 * FAULT_GAP_NS of its CPU time, counted over FAULT_WINDOW_NS of it, is
 * held. */
#define FAULT_GAP_NS 4000000ULL
#define FAULT_WINDOW_NS 16000000ULL
/* ... and a stop that wants its CPU held, whose helper did not take it
 * at the tick, is put off this many times in a row at most (put_off()). */
#define PUT_OFF_MAX 4
/* --wall: a thread asleep in a write that a stop would end short, whose
 * stack cannot be taken without a stop, is left alone there for at most
 * 1/UNCUT_MAX_PER_S of a second (still_waiting()). */
#define UNCUT_MAX_PER_S 10
/* A CPU whose helper came too late this many ticks in a row is waited
 * for less long (wait_take()). */
#define MISSED_MAX 2
/* sp->want[cpu]: its helper was asked to hold it, is holding it, held
 * it and let it go (WANT_GONE: its thread at the take was found); or it
 * is ctprof's own, which ctprof takes by waking there (WANT_SELF). */
enum { WANT_NONE, WANT_READY, WANT_UNREADY, WANT_HELD, WANT_SELF, WANT_GONE };

static uint64_t thread_cpu_ns(void);
static uint64_t cpu_time_ns(void);

/* The thread's CPU time and CPU arrivals now, into run_mark and
 * slices_mark; its schedstat file is opened on first use.  0 or -1. */
static int thread_sched(struct thread *t)
{
	if (t->schedstat_fd < 0)
		t->schedstat_fd = proc_open_task_schedstat(t->proc->pid, t->tid);
	return proc_schedstat(t->schedstat_fd, &t->run_mark, &t->wait_mark, &t->slices_mark);
}

/* A thread born while profiled: all its CPU time is the profile's. */
static void run_known(struct thread *t)
{
	if (!t->run_known) {
		t->run_ns = t->run_first = t->sample_run = 0;
		t->run_known = true;
	}
}

/* CPU-time weights: the CPU time thread T used since it was last settled
 * (up to the time read in T->run_mark), shared equally among its samples
 * since then; if it has none, the time waits for its next ones.  Returns
 * the time given, 0 if none. */
static uint64_t settle(struct sampler *sp, struct thread *t)
{
	uint64_t w, end = t->run_mark;

	run_known(t);
	/* Timed by its event again (the perf trigger): the timer's samples,
	 * one that landed late included, stand for its time up to then, the
	 * event's for the rest. */
	if (t->ev_timed && t->ev_run0 < end)
		end = t->ev_run0;
	if (!t->unsettled || (end <= t->run_ns && !t->ev_timed))
		return 0;
	w = end > t->run_ns ? end - t->run_ns : 0;
	if (!stacks_settle(&sp->stacks, t->proc->pid, t->tid, w))
		return 0;
	if (end > t->run_ns)
		t->run_ns = end;
	t->unsettled = 0;
	return w;
}

/* Settle every thread that has samples to settle. */
static void settle_all(struct sampler *sp)
{
	struct session *s = sp->session;
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (t->unsettled && !t->exiting && thread_sched(t) == 0)
			settle(sp, t);
	}
}

/* settle() for thread T at its exit, which may come before its last
 * samples were unwound: those are given their share now.  Returns
 * non-zero if T had samples to take its time (even none). */
static uint64_t settle_exiting(struct sampler *sp, struct thread *t)
{
	uint64_t p, ncaps = 0, w, given = 0, i;
	struct capture *c;

	for (i = 0; i < sp->ncaps; i++) {
		c = &sp->caps[i];
		ncaps += c->pending && c->tid == t->tid && c->target->proc == t->proc ? c->ticks : 0;
	}
	if (!ncaps)
		return settle(sp, t);
	run_known(t);
	w = t->run_mark > t->run_ns ? t->run_mark - t->run_ns : 0;
	p = stacks_pending(&sp->stacks, t->proc->pid, t->tid);
	for (i = 0; i < sp->ncaps; i++) {
		c = &sp->caps[i];
		if (!c->pending || c->tid != t->tid || c->target->proc != t->proc)
			continue;
		c->ns = (uint64_t)((unsigned __int128)w * c->ticks / (p + ncaps));
		c->pending = false;
		given += c->ns;
	}
	stacks_settle(&sp->stacks, t->proc->pid, t->tid, w - given);
	t->run_ns = t->run_mark;
	t->unsettled = 0;
	return w ? w : 1;
}

/* The pending samples no thread will settle: a period each. */
static void settle_rest(struct sampler *sp)
{
	struct stack *st;

	stacks_for_each(&sp->stacks, st)
		if (st->pending) {
			st->ns += st->pending * sp->period_ns;
			sp->stacks.total_ns += st->pending * sp->period_ns;
			st->pending = 0;
		}
}

/* Was a thread with registers R stopped in the middle of a system call
 * (one that slept until the stop broke it), which it returns to after the
 * stop? */
static bool regs_in_syscall(const struct user_regs_struct *r)
{
	long long rax = (long long)r->rax;

	return (long long)r->orig_rax >= 0 &&
	       (rax == -EINTR || rax == -ERESTARTSYS || rax == -ERESTARTNOINTR ||
		rax == -ERESTARTNOHAND || rax == -ERESTART_RESTARTBLOCK);
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
 * thread runs again (count_short_writes()), not in its stop.
 * tests/targets/shortio.c, 999 Hz, a writer of 1 MiB blocks to a socket
 * another thread reads (256 KiB to a pipe): the count matched the
 * writes the target saw come back short in nine runs.  A
 * thread stopped again at the same exit before it got a CPU (one
 * resumed that waits for a CPU across a tick, under --wall on a busy
 * host) is the same write, counted once: its count of CPU arrivals read
 * before the stop has not moved.  One that got a CPU and was preempted
 * again before it left the kernel is counted twice: nothing in its
 * registers or schedstat tells it from a new write that came back as
 * short from the same place (under --wall beside two busy loops, 66
 * notes of 65 short writes; in a CI run on a slow host, 289 of 277). */
static void note_short_write(struct sampler *sp, struct thread *t, const struct user_regs_struct *r)
{
	long long ret = (long long)r->rax;

	if (ret < 0 || (uint64_t)ret >= r->rdx)
		return;
	switch ((long)r->orig_rax) {
	case SYS_write:
	case SYS_pwrite64:
		break;
	case SYS_sendto:
		if (r->r10 & MSG_DONTWAIT)
			return;
		break;
	default:
		return;
	}
	if (t->short_noted && t->short_slices == t->slices_mark && t->short_ip == r->rip &&
	    t->short_sp == r->rsp && t->short_ret == (uint64_t)ret)
		return;
	t->short_noted = true;
	t->short_ip = r->rip;
	t->short_sp = r->rsp;
	t->short_ret = (uint64_t)ret;
	t->short_slices = t->slices_mark;
	GROW(sp->shorts, sp->shortcap, sp->nshorts + 1);
	sp->shorts[sp->nshorts].pid = t->proc->pid;
	sp->shorts[sp->nshorts].blocked = t->blocked_sample;
	sp->shorts[sp->nshorts++].fd = (int)r->rdi;
}

/* The writes note_short_write() saw, their threads resumed: those on a
 * blocking descriptor are the stops'. */
static void count_short_writes(struct sampler *sp)
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

/* Holding only where it counts.  A helper's hold costs the target's CPU
 * a timer interrupt, two switches and the hold itself at every tick, and
 * buys accuracy only for a thread that enters the kernel (a system call,
 * a page fault) in the tens of microseconds that a stop asked for while
 * the thread runs takes to land (kick.h): one that does not stops where
 * it was at the tick either way.  So a thread's stops are held until
 * probes show that it stays out of the kernel.  After PROBE_EVERY held
 * samples in a row that found it outside system calls, while its page
 * faults are rare, one stop is asked for while it runs (its CPU not held
 * for it at that tick) and is not counted: its tick goes to its next
 * sample.  A probe whose registers show a system call's exit (orig_rax
 * >= 0; at an interrupt's it is negative) found the thread entering the
 * kernel, and so does a page-fault rate of more than one in FAULT_GAP_NS
 * of its CPU time (a fault leaves no mark in the registers: its exit
 * shows orig_rax -1, as an interrupt's does).  A thread that is often in
 * system calls, or faults often, is thus rarely probed: attached to
 * redis-server under redis-benchmark, probes every 16 held samples (6% of
 * its stops, asked for while it ran) raised epoll_wait's share from a
 * median of 22.6% to 28% over six runs each.  After CLEAN_FIRST clean
 * probes in a row the thread is quiet: its stops are asked for while it
 * runs, and its CPU is held only if another thread there needs it.  A
 * quiet thread's stop that lands at a system call's exit, or a rise in
 * its faults, ends that: the stop is not counted (it may be the bias
 * itself), the thread is held again, and it needs twice as many clean
 * probes the next time, so that a thread that enters the kernel now and
 * then stays held rather than swing.
 *
 * Until a stop first finds it in the kernel (or its faults come too
 * often), a thread is probed after PROBE_FIRST held samples, not
 * PROBE_EVERY: one that never enters it is quiet after 20 samples, not
 * 68.  At 99 Hz those were 0.65 s of holds, a quarter of a 2.5-s run's
 * samples, and a held sample cost more there: bench/workload.c for
 * 2.3 s at 99 Hz, six alternating runs each, 16 held samples against 64,
 * the helper's CPU 9.2-11.6 us a sample (averaged over all of them)
 * against 24.8-35.1, ctprof's own CPU the same (medians 220.5 and 217.2
 * us: a quiet stop's PTRACE_INTERRUPT sends an interrupt to the thread's
 * CPU, a held one's does not), the mean stall 52.6-67.2 us against
 * 61.7-82.0 (five runs each).  A thread that is found in the kernel goes
 * on with PROBE_EVERY.
 *
 * Measured on bench/gaps.c at 999 Hz (a loop that times its own gaps),
 * seven alternating runs: the thread lost 50.5 us per sample (median)
 * quiet, 100.4 us held, and 60.1 us under perf --call-graph dwarf; the
 * workload (bench/workload.c) ran 1.072 times as long as bare, 1.111
 * held, 1.064 under perf.
 *
 * Where a thread of the target ran lately on the sampler's own CPU and
 * the target's threads compete for the CPUs (one waited for a CPU a
 * fifth of its time between two ticks that read it, or was found waiting
 * at a tick: competing()), every CPU a thread ran on is held
 * (plan_holds()).  Then the threads found at the take are those that ran
 * at the tick, and no thread that waits for a CPU is stopped: three busy
 * threads 1:2:3 on 2 CPUs (tests/targets/ratio3.c) at 999 Hz had
 * 15/39/46% of the samples (--weight=samples; three runs,
 * 20.7/36.2/43.1 in the worst) with quiet threads not held there,
 * 16-17.5/33-34/49-50% held, against their own clocks' 17/33/50 (with
 * CPU-time weights, both within 0.3 points).  Where the threads do not
 * compete, holding every CPU only cost: two busy threads on 2 CPUs, six
 * alternating runs each, ctprof used 42 us of CPU a sample (medians of
 * the runs) against 59 held at 999 Hz, and 63 against 78 at 99 Hz; the
 * median stall was 30.5 against 41 us, and 48.5 against 49.5; the
 * workload ran 1.07 against 1.11 times as long as bare at 999 Hz, 1.02
 * against 1.00 at 99 Hz (runs 0.96-1.14).  Before ctprof's timers
 * stopped reprogramming the CPU's timer device at each tick
 * (set_timer()), holding had made such threads faster: 1.27 times as
 * long as bare against 1.39 (nine runs), 1.119 against 1.140 on a later
 * VM (15). */

/* Is thread T's CPU to be held for its stop at the next tick? */
static bool wants_hold(const struct thread *t)
{
	return !t->quiet &&
	       (t->held_since < (t->entered ? PROBE_EVERY : PROBE_FIRST) || t->faulting);
}

/* T is not quiet after all. */
static void not_quiet(struct sampler *sp, struct thread *t)
{
	t->quiet = false;
	t->entered = true;
	t->clean = 0;
	t->held_since = 0;
	if (!t->clean_need)
		t->clean_need = CLEAN_FIRST;
	t->clean_need = t->clean_need * 2 < CLEAN_MAX ? t->clean_need * 2 : CLEAN_MAX;
	sp->stats.loud++;
}

/* T's page faults so far (FAULTS, read with its CPU time in run_mark):
 * over each FAULT_WINDOW_NS of its CPU time, do they come too often for
 * it to be quiet? */
static void note_faults(struct sampler *sp, struct thread *t, uint64_t faults)
{
	if (!t->flt_known || faults < t->flt_mark || t->run_mark < t->flt_run) {
		t->flt_known = true;
		t->flt_mark = faults;
		t->flt_run = t->run_mark;
		return;
	}
	if (t->run_mark - t->flt_run < FAULT_WINDOW_NS)
		return;
	t->faulting = (faults - t->flt_mark) * FAULT_GAP_NS > t->run_mark - t->flt_run;
	t->entered |= t->faulting;
	if (t->faulting && t->quiet)
		not_quiet(sp, t);
	t->flt_mark = faults;
	t->flt_run = t->run_mark;
}

/* A stop of T asked for while it ran, as a probe or because T is quiet,
 * has registers R.  Returns true if the sample is not to be counted. */
static bool judge_unheld(struct sampler *sp, struct thread *t, const struct user_regs_struct *r)
{
	bool entered = (long long)r->orig_rax >= 0 || t->faulting;

	if (t->probe) {
		t->probe = false;
		t->held_since = 0;
		sp->stats.probes++;
		if (entered) {
			t->clean = 0;
			t->entered = true;
		} else if (++t->clean >= (t->clean_need ? t->clean_need : CLEAN_FIRST)) {
			t->quiet = true;
			t->clean = 0;
		}
		return true;
	}
	if (!entered)
		return false;
	not_quiet(sp, t);
	return true;
}

/* Copy C's stack from its SP up to the end of its mapping (the stack's
 * top), at most stack_size bytes, in one system call; and the red zone
 * below SP, where a leaf function may have saved registers its CFI then
 * finds there (OpenSSL's, for one). */
static void copy_stack(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp;
	struct iovec local, remote;
	uint64_t t0;
	ssize_t n;
	size_t len;

	c->sp = c->regs.rsp;
	mp = maps_find(&tgt->maps, c->sp);
	if (mp && c->sp - mp->start >= RED_ZONE && sp->stack_size > 2 * RED_ZONE)
		c->sp -= RED_ZONE;
	c->stack_top = mp ? mp->end : 0;
	len = sp->stack_size;
	if (c->stack_top && c->stack_top - c->sp < len)
		len = (size_t)(c->stack_top - c->sp);
	local.iov_base = c->stack;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)c->sp;
	remote.iov_len = len;
	/* By the thread's own id: a leader that called pthread_exit() is
	 * a zombie without memory, while its threads share the same. */
	t0 = now_ns();
	n = process_vm_readv(c->tid, &local, 1, &remote, 1, 0);
	sp->stats.part_ns.copy += now_ns() - t0;
	c->stack_len = n > 0 ? (size_t)n : 0;
}

/* Is ADDR, in mapping MP, code in Go's call of the vDSO, where R12 holds
 * the frame's stack pointer (unwind_go_vdso_caller())?  EXACT: ADDR is a
 * PC, not a return address.  Only a module whose symbols the unwinder has read
 * already, after a stop: read here, a large Go binary's would be tens of
 * milliseconds of the thread's stop. */
static bool go_vdso_call_in(struct target *tgt, const struct mapping *mp, uint64_t addr, bool exact)
{
	struct module *mod = mp && mp->exec ? maps_module(&tgt->maps, mp->module) : NULL;

	return mod && mod->go_top_read && unwind_go_vdso_caller(mod, (exact ? addr : addr - 1) - mp->bias);
}

/* The same, ADDR's mapping looked up. */
static bool in_go_vdso_call(struct target *tgt, uint64_t addr, bool exact)
{
	return go_vdso_call_in(tgt, maps_find(&tgt->maps, addr), addr, exact);
}

/* Copy C's second stack (capture.h) from FROM, at most stack_size bytes,
 * a page an iovec: the copy ends at the first page not mapped, with no
 * lookup of FROM's mapping, which may be heap mapped since the maps were
 * read (reading them again here would be in the stop).  False if nothing
 * could be read. */
static bool copy_stack2(struct sampler *sp, struct capture *c, uint64_t from)
{
	struct iovec local, remote[CTPROF_STACK_MAX / GO_STACK_PAGE + 1];
	uint64_t end = from + sp->stack_size, at, next;
	size_t nv = 0;
	ssize_t n;

	if (end < from)
		return false;
	if (!c->stack2)
		c->stack2 = xmalloc(sp->stack_size);
	for (at = from; at < end; at = next) {
		next = (at | (GO_STACK_PAGE - 1)) + 1;
		if (next > end)
			next = end;
		remote[nv].iov_base = (void *)(uintptr_t)at;
		remote[nv++].iov_len = (size_t)(next - at);
	}
	local.iov_base = c->stack2;
	local.iov_len = (size_t)(end - from);
	n = process_vm_readv(c->tid, &local, 1, remote, nv, 0);
	if (n <= 0)
		return false;
	c->sp2 = from;
	c->stack2_len = (size_t)n;
	/* A full copy may stop short of the stack's top; a short one ended
	 * at memory not mapped. */
	c->stack2_top = (size_t)n < local.iov_len ? from + (uint64_t)n : 0;
	return true;
}

/* Go calls the vDSO on the thread's system stack, with the goroutine's
 * stack pointer in R12 (unwind_go_vdso_caller()): a thread stopped there,
 * in the vDSO or in the Go function around the call, has its Go frames on
 * another stack than the one copied.  If so (for the vDSO, a return
 * address into such a call lies in the first words copied), and R12 is
 * outside the copy, the stack at R12 is copied too (copy_stack2()).
 * Without it, a loop reading the clock (tests/targets/lang/clock.go) had
 * 73-80% of its stacks end at time.now or runtime.nanotime1, counted
 * failed (both unwinders).  True if it was copied. */
static bool copy_go_stack(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp = maps_find(&tgt->maps, c->regs.rip);
	const struct module *mod = mp ? maps_module(&tgt->maps, mp->module) : NULL;
	uint64_t r12 = c->regs.r12, w, at;
	bool found;

	if (!mod || !r12 || (r12 >= c->sp && r12 - c->sp < c->stack_len))
		return false;
	found = go_vdso_call_in(tgt, mp, c->regs.rip, true);
	if (!found && mod->path && !strcmp(mod->path, "[vdso]"))
		for (at = c->regs.rsp; !found && at < c->regs.rsp + VDSO_SCAN; at += sizeof(w)) {
			if (!capture_read(c, at, &w, sizeof(w)))
				break;
			found = in_go_vdso_call(tgt, w, false);
		}
	if (!found || !copy_stack2(sp, c, r12))
		return false;
	sp->stats.go_vdso_copies++;
	return true;
}

/* Is C's thread stopped where a signal handler starts, the kernel having
 * just set up its frame: the return address at SP is a sigreturn
 * trampoline (__restore_rt, Go's runtime.sigreturn) and the handler has
 * not run an instruction?  If so, C's registers become those the signal
 * interrupted, from the frame's ucontext (the kernel's struct rt_sigframe:
 * the trampoline's address, then the ucontext), and true is returned.
 *
 * Such a stop is not where the thread was at the tick but where it next
 * left the kernel: the signal was delivered between.  Under ptrace it is
 * common, not rare: each signal stops the thread (signal-delivery stop)
 * until ctprof delivers it, and the thread then sets up the frame on its
 * way back to user space, which is where an asked-for stop finds it.
 * Recorded by perf -a in the same runs, a C program sent SIGUSR1 every
 * 20 us had 22.0% of its samples at its handler's first instruction,
 * perf 0.5% in the handler (24% of the stops were such); a Go program
 * whose runtime preempted goroutines some 4000 times a second
 * (tests/targets/lang/preempt.go) had 9.6-11.7% in runtime.sigtramp,
 * perf 0.3-0.5%.  Go runs handlers on a stack of their own: the stack
 * is copied again from the interrupted SP (capture_thread).
 *
 * A handler that keeps no frame at all (a leaf that pushes nothing) has
 * the trampoline at SP throughout, and a stop anywhere in it is taken
 * so too: such a handler is a few instructions, and its time goes to the
 * code it interrupted. */
static bool handler_entry(struct sampler *sp, struct target *tgt, struct capture *c)
{
	struct user_regs_struct r = c->regs;
	const struct mapping *mp;
	uint64_t ret;

	/* The word at SP is most often no code address: looked up as one,
	 * it would have the maps read again, in the stop (33 us a sample
	 * more at 999 Hz on bench/workload.c).  Only code already mapped is
	 * checked. */
	if (!capture_read(c, r.rsp, &ret, sizeof(ret)) || !(mp = maps_find(&tgt->maps, ret)) ||
	    !mp->exec || !unwind_sigframe_regs(c, r.rsp + sizeof(ret), &r) ||
	    !maps_is_sigreturn(&tgt->maps, ret))
		return false;
	c->regs = r;
	c->at_handler = true;
	sp->stats.handler_entries++;
	return true;
}

/* Is C's thread stopped in a sigreturn trampoline, its handler returned:
 * on the trampoline's first instruction (mov $15,%rax) or on its
 * syscall, or (a kernel-mode tick from a ring) in that call, before it
 * restored the registers?  The kernel's frame is then at SP, the
 * trampoline's address popped: its ucontext first.  If so, C's sigregs
 * become the registers the signal interrupted, which the walk goes on
 * from, with the trampoline as the leaf (the time is the signal's return,
 * which the interrupted code pays for), and true is returned.
 *
 * Only the kernel's frame says where the thread goes back to.  glibc's
 * __restore_rt has CFI that says so, but Go's runtime.sigreturn has CFI
 * of an ordinary function (return address at SP): a walk by it reads
 * the ucontext's flags as a return address and fails.  Such a stop is
 * rare (an interrupt or a fault on those two instructions: a page of
 * code faulted in, a tick); one failed stack in 2028 samples of
 * tests/targets/lang/sieve.go in CI was one.
 * tests/targets/sigtramp.c makes them common.  Go's handlers run on a
 * stack of their own, so the interrupted stack is copied as well if it
 * is not in the copy. */
static bool in_sigreturn(struct sampler *sp, struct target *tgt, struct capture *c)
{
	uint64_t rip = c->regs.rip;
	const struct mapping *mp = maps_find(&tgt->maps, rip);
	uint64_t head[2], w;

	/* The kernel writes uc_flags (a few bits) and a null uc_link:
	 * most stacks fail this before the code is looked at. */
	if (!mp || !mp->exec || !capture_read(c, c->regs.rsp, head, sizeof(head)) ||
	    head[0] > 0xff || head[1] != 0)
		return false;
	if (!maps_is_sigreturn(&tgt->maps, rip) &&
	    !(rip - mp->start >= SIGRETURN_SYSCALL && maps_is_sigreturn(&tgt->maps, rip - SIGRETURN_SYSCALL)) &&
	    !(c->in_kernel && rip - mp->start >= SIGRETURN_END && maps_is_sigreturn(&tgt->maps, rip - SIGRETURN_END)))
		return false;
	c->sigregs = c->regs;
	if (!unwind_sigframe_regs(c, c->regs.rsp, &c->sigregs))
		return false;
	/* A ring's tick there after Go's preemption signal, whose handler
	 * made the interrupted code seem to call asyncPreempt, its PC
	 * pushed on the goroutine's stack: that stack is read only now,
	 * after the thread ran on and past that word, and a walk from it
	 * would go on from whatever is there now.  Cut short at the
	 * trampoline instead, as perf's walk from the signal stack is (it
	 * failed, 1 stack in 6 runs of sieve.go's 2000). */
	if (c->from_ring && !capture_read(c, c->sigregs.rsp, &w, sizeof(w)) &&
	    (mp = maps_find(&tgt->maps, c->sigregs.rip)) && mp->exec &&
	    unwind_go_async_preempt(maps_module(&tgt->maps, mp->module), c->sigregs.rip - mp->bias)) {
		c->cut_short = true;
		return true;
	}
	c->sigret = true;
	if (!capture_read(c, c->sigregs.rsp, &w, sizeof(w)) && copy_stack2(sp, c, c->sigregs.rsp) &&
	    c->from_ring) {
		c->go_sigframe = true;
		c->go_sigregs = c->sigregs;
	}
	sp->stats.sigreturn_stops++;
	return true;
}

/* Where a search of C's copy for a signal frame, from OFF, ends: LIMIT
 * bytes on, or the copy's end. */
static size_t scan_end(const struct capture *c, size_t off, size_t limit)
{
	return c->stack_len - off > limit ? off + limit : c->stack_len;
}

/* Go runs a signal handler on a stack of its own (the thread's gsignal),
 * and the kernel's frame for it is at that stack's top, above the
 * handler's frames: runtime.sigreturn's address (where the handler
 * returns to), then the ucontext.  A stop in a handler (Go's preemption
 * signal, some thousands a second in a busy program; SIGPROF under Go's
 * own profiler) had the interrupted goroutine's frames on a stack not
 * copied, and its stack ended at runtime.sigreturn: 0.37% of
 * tests/targets/lang/preempt.go's time.  So in a Go module's code whose
 * runtime.sigreturn is known (its symbols read by the unwinder, outside
 * any stop), the first GO_SIGFRAME_SCAN bytes of the copy are looked
 * through for that address; where it is, and the interrupted SP is
 * outside the copy, the stack there is copied too (copy_stack2()).  The
 * unwinders step through the frame (unwind_sigframe_regs()).  True if
 * the code is Go's, looked through or not. */
static bool copy_go_interrupted(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp = maps_find(&tgt->maps, c->regs.rip);
	const struct module *mod = mp && mp->exec ? maps_module(&tgt->maps, mp->module) : NULL;
	uint64_t ret = unwind_go_sigreturn(mod), w;
	struct user_regs_struct r;
	size_t off, end;

	if (!ret)
		return false;
	if (c->stack2_len || c->regs.rsp < c->sp || c->regs.rsp - c->sp >= c->stack_len)
		return true;
	ret += mp->bias;
	off = (size_t)(c->regs.rsp - c->sp);
	for (end = scan_end(c, off, GO_SIGFRAME_SCAN); off + sizeof(w) <= end; off += sizeof(w)) {
		memcpy(&w, c->stack + off, sizeof(w));
		if (w != ret)
			continue;
		r = c->regs;
		if (!unwind_sigframe_regs(c, c->sp + off + sizeof(w), &r))
			break;
		c->go_sigframe = true;
		c->go_sigregs = r;
		if (!capture_read(c, r.rsp, &w, sizeof(w)) && copy_stack2(sp, c, r.rsp))
			sp->stats.go_handler_copies++;
		break;
	}
	return true;
}

/* A handler of another program (C's, C++'s, Rust's) that runs on a stack
 * of its own (sigaltstack(2) and SA_ONSTACK) has, as Go's, the kernel's
 * frame at that stack's top and the interrupted frames on the thread's
 * stack, not copied: tests/targets/sigframe.c run so had its stacks end
 * at __restore_rt, counted failed (libunwind) or cut short.  Its
 * trampoline's address is not known beforehand (glibc's __restore_rt is
 * not in its dynamic symbols), but the frame says what it is: after the
 * trampoline's address, a ucontext whose uc_flags are a few bits, whose
 * uc_link is null, and whose uc_stack, the signal stack the kernel had
 * for the thread, holds the frame itself.  Words of the first
 * ALT_SIGFRAME_SCAN bytes of the copy that fit are checked for a
 * trampoline's code; where one is, and the interrupted SP is outside the
 * copy, the stack there is copied too (copy_stack2()).  Not in Go's code
 * (copy_go_interrupted()), and only in a thread that ctprof has seen a
 * signal delivered to: the search costs 0.4-0.6 us a sample.  A handler
 * runs in no other thread, but in one that ran it as ctprof attached: a
 * thread found running then is looked through at its first sample, and
 * at every one after if that found a handler's frame.  Before, attached
 * to tests/targets/sigframe.c in the handler, every stack failed at the
 * interrupted frame, under both unwinders.  A frame whose interrupted SP
 * is in the copy, above it, is of a signal that came in a handler on the
 * same stack: the search goes on from there for the outer handler's. */
static void copy_alt_interrupted(struct sampler *sp, struct target *tgt, struct thread *t,
				 struct capture *c)
{
	uint64_t w[6], at, ret;
	struct user_regs_struct r;
	const struct mapping *mp;
	size_t off, end;
	bool first = t->seized_running;

	t->seized_running = false;
	if (!(t->signaled || first) || c->stack2_len || c->regs.rsp < c->sp ||
	    c->regs.rsp - c->sp >= c->stack_len)
		return;
	off = (size_t)(c->regs.rsp - c->sp);
	for (end = scan_end(c, off, ALT_SIGFRAME_SCAN); off + sizeof(w) <= end; off += sizeof(w[0])) {
		/* w: the trampoline's address, uc_flags, uc_link, then
		 * uc_stack's ss_sp, ss_flags and ss_size. */
		memcpy(&w[2], c->stack + off + 2 * sizeof(w[0]), sizeof(w[2]));
		if (w[2] != 0)
			continue;
		memcpy(w, c->stack + off, sizeof(w));
		at = c->sp + off;
		if (w[1] > 0xff || w[5] < ALT_STACK_MIN || w[5] > ALT_STACK_MAX || at < w[3] ||
		    at - w[3] >= w[5])
			continue;
		/* A frame that fits so far is seldom anything else: its
		 * code may be looked for in maps read again, in the stop
		 * (libc, for a program started by ctprof, at its first
		 * sample). */
		ret = w[0];
		mp = maps_find_code(&tgt->maps, ret);
		if (!mp || !mp->exec || !maps_is_sigreturn(&tgt->maps, ret))
			continue;
		t->signaled = true;
		r = c->regs;
		if (!unwind_sigframe_regs(c, at + sizeof(ret), &r))
			return;
		if (!capture_read(c, r.rsp, &ret, sizeof(ret))) {
			if (copy_stack2(sp, c, r.rsp))
				sp->stats.alt_handler_copies++;
			return;
		}
		/* The signal came in a handler on the same stack: its frame
		 * is higher up, above the SP this one interrupted
		 * (tests/targets/sigframe.c, "alt nested"). */
		if (r.rsp <= at + sizeof(ret))
			return;
		off = (size_t)(r.rsp - c->sp) - sizeof(w[0]);
		end = scan_end(c, off, ALT_SIGFRAME_SCAN);
	}
}

/* The session's callback: the thread is stopped; take only what must be
 * taken while it is. */
/* Copy the stack(s) of stopped thread T into C, whose registers are
 * read: the live stack, and where a signal handler or Go's system stack
 * runs on a stack of its own, the one the walk goes on to. */
static void copy_stacks(struct sampler *sp, struct target *tgt, struct thread *t, struct capture *c)
{
	uint64_t w;

	/* No second stack yet: capture_read() must not find the words of
	 * an earlier sample's in this capture. */
	c->stack2_len = 0;
	c->sigret = c->at_handler = false;
	copy_stack(sp, tgt, c);
	if (handler_entry(sp, tgt, c) && !capture_read(c, c->regs.rsp, &w, sizeof(w)))
		copy_stack(sp, tgt, c);
	if (!in_sigreturn(sp, tgt, c)) {
		copy_go_stack(sp, tgt, c);
		if (!copy_go_interrupted(sp, tgt, c))
			copy_alt_interrupted(sp, tgt, t, c);
	}
}

static struct target *target_of(struct sampler *sp, struct process *p, int *err);

/* The next free capture, for thread T of TGT: what a use before left in
 * it is cleared, but for its stack buffer. */
static struct capture *next_capture(struct sampler *sp, struct target *tgt, struct thread *t)
{
	struct capture *c;

	GROW(sp->caps, sp->capcap, sp->ncaps + 1);
	c = &sp->caps[sp->ncaps];
	if (!c->stack)
		c->stack = xmalloc(sp->stack_size);
	memset(&c->regs, 0, sizeof(c->regs));
	c->target = tgt;
	c->tid = t->tid;
	c->start_ip = t->start_ip;
	c->stall_ns = 0;
	c->stack2_len = 0;
	c->nchain = 0;
	c->peeked = c->in_kernel = c->from_ring = c->go_sigframe = c->cut_short = c->go_vdso = false;
	return c;
}

static struct capture *capture_thread(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv;
	struct capture *c;
	uint64_t t0, t1;

	GROW(sp->caps, sp->capcap, sp->ncaps + 1);
	c = &sp->caps[sp->ncaps];
	if (!c->stack)
		c->stack = xmalloc(sp->stack_size);
	if (!tgt)
		return NULL;
	c->target = tgt;
	c->tid = t->tid;
	c->start_ip = t->start_ip;
	c->stall_ns = 0;
	c->nchain = 0;
	c->peeked = c->in_kernel = c->from_ring = c->go_sigframe = c->cut_short = c->go_vdso = false;
	t0 = now_ns();
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &c->regs) < 0)
		return NULL;
	t1 = now_ns();
	sp->stats.part_ns.regs += t1 - t0;
	note_short_write(sp, t, &c->regs);
	/* Not counted, unless the thread had blocked (below): its ticks go
	 * to its next sample. */
	if (sp->kicking && !sp->wall && !t->asked_held && (t->quiet || t->probe) &&
	    judge_unheld(sp, t, &c->regs) && !regs_in_syscall(&c->regs)) {
		t->carry += 1 + t->late_ticks;
		t->late_ticks = t->late_passed = 0;
		return NULL;
	}
	/* A held stop in a system call says that a probe would find one:
	 * probes come after PROBE_EVERY held samples in a row without. */
	if (t->asked_held && !t->quiet) {
		t->held_since = (long long)c->regs.orig_rax >= 0 ? 0 : t->held_since + 1;
		t->entered |= !t->held_since;
	}
	/* On-CPU: a thread that was running when its state was read, but
	 * had blocked in a system call by the time its stop came, was not on
	 * a CPU at the tick.  This is no sample of where it runs: its CPU
	 * time stays for its next sample.  But one seen on its CPU when the
	 * CPU was taken at the tick, and held off it since, was in that
	 * call at the tick: in the kernel, preempted where it lets itself
	 * be (cond_resched()) or gone to sleep since (slept_after_tick()),
	 * and the stop broke the call there.  That is a sample of the call.
	 * Not one picked by the fast path in choose(), which does not read
	 * its state: it may be asleep, having slept up to AWAKE_SLACK_NS
	 * and a little more (awake_since_resume()) since its last resume
	 * (with those counted too, six runs attached to redis-server had 3-9%
	 * more samples than ticks of its CPU time; without, -12% to +7%).
	 * tests/targets/pollsleep.c (a ppoll() of 900 descriptors, ~100 us
	 * of CPU before it sleeps), pinned to one CPU at 999 Hz, had 61-238
	 * stops a run not counted so (three runs), 0-1 with them counted. */
	if (!sp->wall && regs_in_syscall(&c->regs) && !(t->at_take && t->asked_held)) {
		sp->stats.blocked_at_tick++;
		t->blocked_n = sp->tick_n + 1;
		return NULL;
	}
	c->blocked = t->blocked_sample;
	c->woke = t->blocked_sample && t->woke_read;
	c->slices = t->slices_mark;
	c->held = t->asked_held;
	c->ticks = 1 + t->late_ticks + t->carry;
	sp->stats.late_ticks += t->late_ticks;
	t->late_ticks = t->late_passed = t->carry = 0;
	/* --wall: the ticks it was left asleep in a call that a stop
	 * would end short (still_waiting()) are that call's if this stop
	 * is at its exit, and its next sample's otherwise. */
	c->waited = 0;
	if (t->uncut) {
		if (!t->blocked_sample && (long long)c->regs.orig_rax == t->uncut_nr &&
		    c->regs.rsp == t->uncut_sp && c->regs.rip == t->uncut_pc)
			c->waited = t->uncut;
		else
			c->ticks += t->uncut;
		t->uncut = 0;
	}
	/* Its CPU time and time waiting for one are read as it is resumed
	 * (resume_sampled), for the next tick to tell whether it slept
	 * meanwhile (ran_at_tick), which only a CPU taken at the tick asks:
	 * not read for a stop asked for while the thread ran, whose next
	 * one most likely is too. */
	t->resumed_ns = sp->at_tick && t->asked_held;
	/* CPU-time weights are given when the thread is settled. */
	c->ns = sp->cputime ? 0 : sp->period_ns * c->ticks;
	c->pending = sp->cputime;
	t->unsettled += sp->cputime;
	run_known(t);
	t->sample_run = t->run_mark;
	copy_stacks(sp, tgt, t, c);
	sp->ncaps++;
	return c;
}

/* The kernel-timed trigger's sample (ktrigger.h): T stopped exactly where
 * its event's tick found it in user mode, for one period of its CPU
 * time.  Nothing here guesses where the thread was at a tick: the
 * kernel's timer interrupt was in the thread's own context. */
static struct capture *capture_timed(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv ? t->proc->priv : target_of(sp, t->proc, NULL);
	struct capture *c;
	uint64_t t0;

	if (!tgt)
		return NULL;
	c = next_capture(sp, tgt, t);
	c->blocked = c->woke = c->held = c->pending = false;
	c->waited = c->slices = 0;
	c->ticks = 1;
	c->ns = sp->ktrig.period_ns;
	t0 = now_ns();
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &c->regs) < 0)
		return NULL;
	sp->stats.part_ns.regs += now_ns() - t0;
	/* A tick in user mode stops the thread on the way back from the
	 * interrupt, outside any system call.  A stop at a call's exit
	 * came where the thread unblocked the signal (sigprocmask,
	 * sigreturn): late, at the end of the section that blocked it. */
	if ((long long)c->regs.orig_rax >= 0)
		sp->stats.timed_late++;
	sp->stats.timed_samples++;
	t->ev_samples++;
	t->ev_user_ns += c->ns;
	if (!t->ev_full) {
		ktrigger_full_period(&sp->ktrig, t->ev_fd);
		t->ev_full = true;
	}
	copy_stacks(sp, tgt, t, c);
	sp->ncaps++;
	return c;
}

/* A tick from thread T's ring (ktrigger_drain()): a sample of the CPU
 * time NS it stands for, with no stop; where the thread was in user mode,
 * or for a KERNEL-mode tick where it entered the kernel. */
static void capture_ring(void *arg, struct thread *t, const struct ktrigger_sample *s)
{
	const struct user_regs_struct *r = &s->regs;
	size_t len = s->len;
	uint64_t ns = s->ns;
	bool kernel = s->kernel;
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv ? t->proc->priv : target_of(sp, t->proc, NULL);
	const struct mapping *mp;
	struct capture *c;
	uint64_t w;

	/* A user-mode sample's time is its, not the [kernel] row's, even
	 * one that cannot be unwound. */
	if (!kernel) {
		t->ev_samples++;
		t->ev_user_ns += s->ran_ns;
	}
	if (!tgt || !len)
		return;
	c = next_capture(sp, tgt, t);
	c->regs = *r;
	c->from_ring = true;
	c->in_kernel = kernel;
	c->blocked = c->woke = c->held = c->pending = c->sigret = c->at_handler = false;
	c->waited = c->slices = 0;
	c->ticks = 1;
	c->ns = ns;
	if (len > sp->stack_size)
		len = sp->stack_size;
	memcpy(c->stack, s->stack, len);
	c->sp = r->rsp;
	c->stack_len = len;
	mp = maps_find(&tgt->maps, c->sp);
	c->stack_top = mp ? mp->end : 0;
	/* In a sigreturn trampoline's system call: on from the registers
	 * its frame saved, as for a stop there.  Else, where the frames go
	 * on on another stack (Go's system stack, a signal handler's
	 * alternate one), that one is read now, after the thread has run
	 * on: most often it has not left the code that was sampled.  A
	 * kernel-mode tick is taken so too, at the user registers that
	 * entered the kernel. */
	if (handler_entry(sp, tgt, c) && !capture_read(c, c->regs.rsp, &w, sizeof(w)) &&
	    copy_stack2(sp, c, c->regs.rsp)) {
		c->go_sigframe = true;
		c->go_sigregs = c->regs;
	}
	if (!in_sigreturn(sp, tgt, c)) {
		c->go_vdso = copy_go_stack(sp, tgt, c);
		if (!copy_go_interrupted(sp, tgt, c))
			copy_alt_interrupted(sp, tgt, t, c);
		c->go_sigframe &= !c->go_vdso;
	}
	if (s->nchain > 1) {
		if (!c->chain)
			c->chain = xmalloc(KTRIGGER_USER_CHAIN * sizeof(*c->chain));
		memcpy(c->chain, s->chain, s->nchain * sizeof(*c->chain));
		c->nchain = s->nchain;
	}
	if (kernel)
		sp->stats.kernel_samples++;
	else
		sp->stats.ring_samples++;
	sp->ncaps++;
}

/* Is PC in the vDSO's code? */
static bool in_vdso(struct target *tgt, uint64_t pc)
{
	const struct mapping *mp = maps_find(&tgt->maps, pc);
	const struct module *mod = mp ? maps_module(&tgt->maps, mp->module) : NULL;

	return mod && mod->path && !strcmp(mod->path, "[vdso]");
}

/* The kernel's frame-pointer chain of C's tick from its entry FROM on,
 * as return addresses less one (as a walk leaves them), after the first
 * K frames of PCS: *N becomes their count, at most MAX. */
static void append_chain(const struct capture *c, unsigned from, uint64_t *pcs, unsigned k, unsigned *n,
			 unsigned max)
{
	for (; from < c->nchain && k < max; from++)
		pcs[k++] = c->chain[from] - 1;
	*n = k;
}

/* A ring's tick in Go's call of the vDSO (C's chain, capture.h): the
 * walk's frames up to the first Go one (the vDSO's, and the Go function
 * that called it: read from the system stack the tick copied) are right;
 * those above it came from the goroutine's stack read later, after the
 * thread ran on (time.now's frame already gone: 23% of clock.go's
 * samples ended there).  They are taken from the chain the kernel read
 * by frame pointer at the tick instead, which Go keeps: after that Go
 * frame's return address in it, or, where the vDSO had not yet pushed a
 * frame pointer of its own and the chain skips that frame, after the
 * vDSO's addresses.  The N frames in PCS (return addresses less one, as
 * the walk leaves them) become at most MAX.  True if any were taken. */
static bool splice_chain(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max)
{
	unsigned g = 0, j, from = 0;

	while (g < *n && in_vdso(tgt, pcs[g]))
		g++;
	if (g < *n)
		for (j = 1; j < c->nchain && !from; j++)
			if (c->chain[j] - (g ? 1 : 0) == pcs[g])
				from = j + 1;
	if (!from)
		for (from = 1; from < c->nchain && in_vdso(tgt, c->chain[from]); from++)
			;
	if (from >= c->nchain)
		return false;
	append_chain(c, from, pcs, g < *n ? g + 1 : *n, n, max);
	return true;
}

/* A ring's tick in a Go signal handler on its own stack, at its first
 * instruction, or in a sigreturn trampoline (C's go_sigframe): the
 * walk's frames up to the code the signal interrupted are right, those
 * after its PC came from its stack read later.  They are taken from the
 * chain the kernel read by frame pointer at the tick instead.  That
 * chain goes from the handler's frames (if it has set one up) to the
 * interrupted frame pointer's, and holds the interrupted function's
 * return address only if its frame was set up (the frame pointer 16
 * bytes under its CFA, as Go keeps it): where it was not (a leaf without
 * a frame, or in its prologue), the return address at the CFA, read
 * late, is taken if its caller's CFA is where the frame pointer says,
 * and the chain goes on after it.  Else the walk is left as it was.
 * True if spliced. */
static bool splice_signal(struct sampler *sp, struct target *tgt, const struct capture *c, uint64_t *pcs,
			  unsigned *n, unsigned max)
{
	const struct user_regs_struct *r = &c->go_sigregs;
	unsigned k, i, j, from = 0;
	int64_t off, off2;
	uint64_t cfa, ra;

	/* Taken where a handler starts (c->at_handler), the walk starts
	 * at the interrupted code. */
	for (k = c->at_handler ? 0 : 1; k < *n && pcs[k] != r->rip; k++)
		;
	if (k >= *n)
		return false;
	/* The chain's entry for the kernel's frame (the trampoline's
	 * address, exact in the walk), or the last one before it. */
	for (i = k ? k - 1 : 0; i > 0 && !from; i--)
		for (j = 1; j < c->nchain; j++)
			if (c->chain[j] - (i == k - 1 ? 0 : 1) == pcs[i]) {
				from = j + 1;
				break;
			}
	/* None where the handler has not yet set up a frame: its frame
	 * pointer is still the interrupted one, where the chain starts. */
	if (!from && c->regs.rbp == r->rbp)
		from = 1;
	if (!from || from >= c->nchain || !maps_is_code(&tgt->maps, c->chain[from]) ||
	    !sp->unwinder->sp_cfa(tgt->unwind_state, r->rip, true, &off))
		return false;
	cfa = r->rsp + (uint64_t)off;
	k++;
	if (r->rbp != cfa - 16) {
		if (!capture_read(c, cfa - sizeof(ra), &ra, sizeof(ra)) || !maps_is_code(&tgt->maps, ra) ||
		    !sp->unwinder->sp_cfa(tgt->unwind_state, ra, false, &off2) ||
		    r->rbp != cfa + (uint64_t)off2 - 16)
			return false;
		if (k < max)
			pcs[k++] = ra - 1;
	}
	append_chain(c, from, pcs, k, n, max);
	return true;
}

/* A ring's tick whose walk ran past the 16 KiB its stack copy holds: the
 * frames beyond, where the kernel's frame-pointer chain of the tick has
 * the walk's last return address (code that keeps frame pointers, as
 * Go's does: a chain without them has no such entry).  The N frames in
 * PCS become at most MAX.  True if any were added. */
static bool chain_on(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max)
{
	unsigned j;

	if (*n < 2)
		return false;
	for (j = 1; j < c->nchain; j++)
		if (c->chain[j] - 1 == pcs[*n - 1])
			break;
	if (j + 1 >= c->nchain || !maps_is_code(&tgt->maps, c->chain[j + 1]))
		return false;
	append_chain(c, j + 1, pcs, *n, n, max);
	return true;
}

/* Is PC in one of Go's first frames of a stack (unwind_go_top_frame())? */
static bool go_top(struct target *tgt, uint64_t pc)
{
	const struct mapping *mp = maps_find(&tgt->maps, pc);

	return mp && mp->exec && unwind_go_top_frame(maps_module(&tgt->maps, mp->module), pc - mp->bias);
}

static void next_epoch(struct sampler *sp);
static void unwind_captures(struct sampler *sp);

/* Every tick the threads' rings hold, into captures, unwound RING_BATCH
 * at a time: a capture holds a stack's copy, and 64 rings can hold some
 * 2000 ticks, which held at once would be ctprof's heap. */
static void drain_thread(struct sampler *sp, struct thread *t, bool *epoch)
{
	while (t->kr_fd >= 0) {
		unsigned room = sp->ncaps < RING_BATCH ? RING_BATCH - (unsigned)sp->ncaps : 0;

		if (room && ktrigger_drain(&sp->ktrig, t, capture_ring, sp, room) < room)
			break;
		/* The maps may have changed since the last drain (once a
		 * drain: a new epoch may read them again). */
		if (!*epoch)
			next_epoch(sp);
		*epoch = true;
		unwind_captures(sp);
	}
}

static void drain_rings(struct sampler *sp)
{
	struct session *s = sp->session;
	bool epoch = false;

	if (!sp->ktrig.kernel && !sp->ktrig.user_rings)
		return;
	for (size_t i = 0; i < s->nthreads; i++)
		drain_thread(sp, &s->threads[i], &epoch);
}

/* The sampler's state for process P, set up when first needed: the maps
 * are read and the unwinder started outside any stop.  NULL if P is gone
 * or cannot be read (its threads are then not sampled). */
static struct target *target_of(struct sampler *sp, struct process *p, int *err)
{
	struct target *tgt = p->priv;
	int ret;

	if (tgt)
		return tgt->unwind_state ? tgt : NULL;
	tgt = xcalloc(1, sizeof(*tgt));
	tgt->proc = p;
	ret = maps_init_shared(&tgt->maps, p->pid, sp->ntargets ? sp->maps : NULL);
	if (ret == 0) {
		tgt->unwind_state = sp->unwinder->init(&tgt->maps);
		if (!tgt->unwind_state)
			ret = -ENOMEM;
	}
	if (err)
		*err = ret;
	if (ret < 0 && !sp->ntargets) {
		maps_release(&tgt->maps);
		free(tgt);
		return NULL;
	}
	/* Kept even if it failed, so that it is not tried again every tick. */
	GROW(sp->targets, sp->tcap, sp->ntargets + 1);
	sp->targets[sp->ntargets++] = tgt;
	if (sp->ntargets == 1)
		sp->maps = &tgt->maps;
	p->priv = tgt;
	return tgt->unwind_state ? tgt : NULL;
}

/* Thread TID's name now, into BUF; false if it cannot be read. */
static bool read_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* sp->names is indexed by tid: a run that samples many threads looks a
 * name up at every sample, and at every thread's exit stop. */
#define NAME_KEY(tid) ((const void *)(uintptr_t)(tid))

/* Remember the name of thread TID when it is first sampled: once the
 * thread has exited it can no longer be read. */
static void note_thread(struct sampler *sp, pid_t pid, pid_t tid)
{
	if (key3_get(&sp->name_index, NAME_KEY(tid), NULL, NULL, sp->nnames) != sp->nnames)
		return;
	GROW(sp->names, sp->namecap, sp->nnames + 1);
	sp->names[sp->nnames].tid = tid;
	if (tid == EXITED_TID || !read_comm(pid, tid, sp->names[sp->nnames].name, sizeof(sp->names[0].name)))
		snprintf(sp->names[sp->nnames].name, sizeof(sp->names[0].name),
			 tid == EXITED_TID ? "[exited]" : "?");
	sp->nnames++;
}

/* The heap memory of the names, as stacks_bytes counts it. */
static size_t names_bytes(const struct sampler *sp)
{
	size_t b = 0;

	if (sp->names)
		b += malloc_usable_size(sp->names) + sizeof(size_t);
	if (sp->name_index.slots)
		b += malloc_usable_size(sp->name_index.slots) + sizeof(size_t);
	return b;
}

/* A thread is named when it is first sampled, but it may be named (again)
 * after that: a new thread often names itself, or is named by the one
 * that started it, a little after it starts, and a first tick can come
 * before.  So a thread sampled before is named once more as it exits,
 * and at the end, and its last name is the one given.  ADD: name it even
 * if it was not sampled before, for a sample of it taken but not yet
 * unwound (named then, it would have exited). */
static void name_again(struct sampler *sp, pid_t pid, pid_t tid, bool add)
{
	char name[sizeof(sp->names[0].name)];
	size_t i = key3_find(&sp->name_index, NAME_KEY(tid), NULL, NULL);

	if (i != SIZE_MAX) {
		if (read_comm(pid, tid, name, sizeof(name)))
			memcpy(sp->names[i].name, name, sizeof(name));
		return;
	}
	if (add)
		note_thread(sp, pid, tid);
}

/* Has T a sample taken at this tick, not yet unwound? */
static bool capture_pending(const struct sampler *sp, const struct thread *t)
{
	for (size_t i = 0; i < sp->ncaps; i++)
		if (sp->caps[i].tid == t->tid && sp->caps[i].target->proc == t->proc)
			return true;
	return false;
}

/* At a thread's exit (it is stopped there): its name is read once more
 * (name_again()), and, with CPU-time weights, its CPU
 * time goes to its samples not yet settled.  If it has none, the time
 * would be in no sample: it is charged to [unsampled, to exit], in one
 * entry per process for all the threads that exited: where that time
 * went is not known (at its exit stop a thread has left the code it ran),
 * and an entry per thread would grow with every thread a server ever
 * starts. */
/* The perf trigger: thread T's CPU time since its event started that its
 * samples do not stand for, as a [kernel] row of its own: its events
 * count user mode only (docs/DESIGN.md, "Kernel time").  Not the kernel's
 * system time (/proc stat's stime): that is counted by the scheduler's
 * tick, 250 Hz here, and was 3-5 points off selftime's own clock in one
 * run of four. */
static void kernel_row(struct sampler *sp, struct thread *t)
{
	uint64_t key = frame_key(FRAME_MODULE_SYSCALL, FRAME_KERNEL), ns, user;

	if (!sp->timed || !t->ev_timed || t->kr_used || thread_sched(t) < 0)
		return;
	user = t->ev_user_ns;
	if (t->run_mark <= t->ev_run0 + user)
		return;
	ns = t->run_mark - t->ev_run0 - user;
	t->ev_run0 = t->run_mark;
	t->ev_samples = 0;
	t->ev_user_ns = 0;
	stacks_add(&sp->stacks, t->proc->pid, t->tid, &key, 1, 0, ns);
	sp->stats.kernel_row_ns += ns;
	note_thread(sp, t->proc->pid, t->tid);
}

static void thread_exits(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	uint64_t key = frame_key(FRAME_MODULE_SYSCALL, FRAME_UNSAMPLED), w;

	/* Its ring's last ticks, RING_BATCH at a time as at any drain: a
	 * server whose threads come and go would otherwise hold a capture
	 * a tick of each one exiting. */
	if (t->kr_fd >= 0) {
		bool epoch = false;

		drain_thread(sp, t, &epoch);
	}
	name_again(sp, t->proc->pid, t->tid, capture_pending(sp, t));
	kernel_row(sp, t);
	sp->stats.untimed_threads += sp->timed && t->ev_fd < 0;
	/* A thread timed by its event has each sample's time exact: none
	 * of its CPU time is left over. */
	if (!sp->cputime || t->ev_timed || thread_sched(t) < 0)
		return;
	sp->stats.kernel_cpu_ns += t->run_mark - (t->run_known ? t->run_first : 0);
	if (settle_exiting(sp, t) || t->run_mark <= t->run_ns)
		return;
	w = t->run_mark - t->run_ns;
	t->run_ns = t->run_mark;
	stacks_add(&sp->stacks, t->proc->pid, EXITED_TID, &key, 1, 0, w);
	note_thread(sp, t->proc->pid, EXITED_TID);
}

/* --wall: the call T waits in now, if its stack is known. */
static struct wait_site *wait_now(const struct thread *t)
{
	return t->sites && t->site >= 0 ? &t->sites[t->site] : NULL;
}

/* --wall: count blocked thread T's stack again, without a stop. */
static void count_again(struct sampler *sp, struct thread *t)
{
	struct wait_site *w = wait_now(t);

	if (!w)
		return;
	w->used = sp->tick_n + 1;
	stacks_add(&sp->stacks, t->proc->pid, t->tid, w->frames, w->n, 1, sp->period_ns);
	sp->stats.reused++;
}

/* On-CPU: a tick passed while thread T's stop, asked for at an earlier
 * one, had not come.  A thread in the kernel stops when it leaves it,
 * and where the kernel does not preempt kernel code (PREEMPT_NONE) a
 * long call that does not sleep runs on to its end first: selftime's
 * madvise(MADV_DONTNEED) of 64 MiB, 1.5 ms a call and 3.0% of its time
 * by its own clock, had one sample a call and 0.7% of them (perf, which
 * samples the kernel too, 3.0%).  The ticks it ran through are its
 * sample's too: as many as the CPU time it used since its stop was
 * asked for makes periods (to the nearest), no more than have passed;
 * a thread that waited for a CPU meanwhile ran through none. */
static void late_tick(struct sampler *sp, struct thread *t)
{
	uint64_t n;

	t->late_passed++;
	if (thread_sched(t) < 0 || t->run_mark <= t->ask_run)
		return;
	n = (t->run_mark - t->ask_run + sp->period_ns / 2) / sp->period_ns;
	t->late_ticks = n < t->late_passed ? n : t->late_passed;
}

/* --wall: do the return addresses found under wait site W (find_callers())
 * still hold what they did when its stack was taken?  One call made from
 * the same SP and PC can come from two callers whose frames are the same
 * size. */
static bool same_callers(const struct thread *t, const struct wait_site *w)
{
	struct iovec local, remote[SITE_WORDS];
	uint64_t now[SITE_WORDS];
	size_t len = w->nwords * sizeof(*now);

	if (!w->nwords)
		return true;
	for (unsigned i = 0; i < w->nwords; i++) {
		remote[i].iov_base = (void *)(uintptr_t)w->addr[i];
		remote[i].iov_len = sizeof(*now);
	}
	local.iov_base = now;
	local.iov_len = len;
	return process_vm_readv(t->tid, &local, 1, remote, w->nwords, 0) == (ssize_t)len &&
	       memcmp(now, w->word, len) == 0;
}

/* --wall: take the stack of thread T, asleep in call NR (ARGS) made at
 * WSP and WPC (/proc/PID/task/TID/syscall), without a stop, into a capture
 * with those registers only: a thread asleep in a system call does not
 * touch its stack, and /proc gives where it made the call.  The walk
 * (unwind_captures()) needs no other register where each frame's CFI
 * finds its caller from the stack pointer, as in code built without
 * frame pointers; where a frame's caller is found from rbp, which /proc
 * does not give, the walk fails, and the capture is not counted: its
 * ticks go back to T, which is not peeked at that call again (peek_nr).
 * The call is read again after the copy: the same, the copy is of the
 * stack the thread sleeps on.  Returns false if no capture was made.
 * No stop: no wake-up out of the call, no timeout restarted from its full
 * value, no write ended short.  tests/targets/idlers.c, 500 threads idle
 * in futex, at 99 Hz for 5 s (three runs each, alternating): 0-1 stops of
 * blocked threads where there were 830-974 (each wait stopped once), and
 * ctprof's CPU 1097-1218 us a tick against 1153-1242. */
static bool peek_wait(struct sampler *sp, struct thread *t, long nr, const uint64_t args[6], uint64_t wsp,
		      uint64_t wpc)
{
	struct target *tgt = target_of(sp, t->proc, NULL);
	uint64_t args2[6], sp2, pc2;
	struct capture *c;
	long nr2;
	int fd, got;

	if (!tgt || (t->peek_nr == nr && t->peek_sp == wsp && t->peek_pc == wpc))
		return false;
	c = next_capture(sp, tgt, t);
	c->regs.rip = c->regs.rcx = wpc;
	c->regs.rsp = wsp;
	c->regs.orig_rax = (unsigned long long)nr;
	c->regs.rax = (unsigned long long)-ERESTARTSYS;
	c->regs.rdi = args[0];
	c->regs.rsi = args[1];
	c->regs.rdx = args[2];
	c->regs.r10 = args[3];
	c->regs.r8 = args[4];
	c->regs.r9 = args[5];
	c->sigret = c->at_handler = false;
	copy_stack(sp, tgt, c);
	fd = proc_open_task_syscall(t->proc->pid, t->tid);
	got = proc_read_wait_site(fd, &nr2, args2, &sp2, &pc2);
	if (fd >= 0)
		close(fd);
	/* "running" now: it woke up while its stack was copied.  One in
	 * another call now woke and slept again: blocked still. */
	t->woke_read = fd >= 0 && got < 0;
	if (!c->stack_len || got < 0 || nr2 != nr || sp2 != wsp || pc2 != wpc)
		return false;
	c->peeked = c->blocked = true;
	c->held = false;
	c->waited = 0;
	c->slices = t->slices_mark;
	c->ticks = 1 + t->carry + t->uncut;
	t->carry = t->uncut = 0;
	c->ns = sp->period_ns * c->ticks;
	c->pending = false;
	sp->ncaps++;
	return true;
}

/* --wall: thread T is asleep in call NR made at WSP and WPC: TICKS more
 * are kept for the stack of that call's exit (still_waiting()); those
 * kept for another call go to its next sample. */
static void keep_uncut(struct thread *t, long nr, uint64_t wsp, uint64_t wpc, uint64_t ticks)
{
	if (t->uncut && (t->uncut_nr != nr || t->uncut_sp != wsp || t->uncut_pc != wpc)) {
		t->carry += t->uncut;
		t->uncut = 0;
	}
	t->uncut_nr = nr;
	t->uncut_sp = wsp;
	t->uncut_pc = wpc;
	t->uncut += ticks;
}

/* --wall: the wait site T was last counted in, -1 if none. */
static int last_wait(const struct thread *t)
{
	int last = -1;

	for (int i = 0; t->sites && i < WAIT_SITES; i++)
		if (t->sites[i].frames && (last < 0 || t->sites[i].used > t->sites[last].used))
			last = i;
	return last;
}

/* --wall: blocked thread T got a CPU since its stack was last taken or
 * counted (in slices_mark): but maybe only to come back to a call it was
 * stopped in before, from the same place, as it does after the stop
 * that took that stack, after a wakeup that changed nothing, or in the
 * next turn of a loop.  Then the stack is the one taken there.  Kept for
 * the last WAIT_SITES calls: a writer that fills a socket runs between
 * two waits, and a stop of it there, a stack of no wait, did not make it
 * forget the one it waits in.
 *
 * Otherwise its stack is taken without a stop if it can be (peek_wait(),
 * *LEFT set), and the site remembered from it, as from a stop's.  If not,
 * it is stopped (false returned), unless a stop would end its call short
 * (a write that waits for room after part of its data went:
 * syscall_ends_short()): stopped, it would return the part written.
 * tests/targets/shortio.c's socket writer at 999 Hz had 101-114 of its
 * ~2500 writes a run ended short at such stops, 381-425 more at stops of
 * the writer found running (in the kernel, where /proc does not say which
 * call it is in).  Then its tick is kept (t->uncut, and *LEFT set) for
 * the stack of that call's exit, which its next stop takes if the call is
 * still the one there (same call, SP and PC: capture_thread()), and which
 * is then remembered as a wait site.  The writer's next stop is of it
 * running, as it wakes to write more or has written all: at that exit.
 * But a thread that waits there for long
 * may not run again while it is profiled, and would not be counted at
 * all (a writer whose reader slept through a 1 s attachment: 0% where it
 * was 50%): after a tenth of a second (UNCUT_MAX_PER_S) it is stopped,
 * once, and its ticks go with that stop's stack.
 *
 * A call that cannot be read ("running" there) is one the thread woke up
 * from since its state was read: the writer's, woken as the reader made
 * room, at 2-6% of its ticks.  Stopped, it ended its write short when
 * there was not room enough to finish.  So it is not stopped if it was
 * left alone in such a call (its tick kept as above), or if the call it
 * was last counted waiting in is one (counted there again); others are,
 * and the stop takes the stack of the call's exit.  Those stops, and the
 * stops of threads that woke up while their stack was copied
 * (peek_wait()), are of threads awake by then (t->woke_read), and -v
 * counts them apart from the stops of blocked threads: the more often
 * the host holds ctprof up between the reads, the more there are (0-1
 * in 4 s of tests/targets/idlers.c's 1000 threads at 99 Hz, another
 * program taking both CPUs at real-time priority a third of the time). */
static bool still_waiting(struct sampler *sp, struct thread *t, bool *left)
{
	uint64_t wsp, wpc, args[6];
	long nr;
	int fd, got;

	*left = false;
	t->woke_read = false;
	/* A dump stops every thread at its one tick. */
	if (sp->once)
		return false;
	/* Opened for this read only: --wall reads every blocked thread,
	 * and a file kept open for each (as on-CPU ends_short() keeps its
	 * few) would add a descriptor per thread to the two it has. */
	fd = proc_open_task_syscall(t->proc->pid, t->tid);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && wait_now(t)) {
		/* No descriptor to read it with (the hard limit is too
		 * low for the threads: the report says so): still where
		 * it was stopped last, unless that was a second ago.  It
		 * was stopped at every tick: 200 idle threads under a
		 * hard limit of 256, 999 Hz for 2 s, 62233 stops. */
		return sp->tick_n + 1 < wait_now(t)->taken + sp->frequency;
	}
	if (fd >= 0)
		sp->stats.site_reads++;
	got = proc_read_wait_site(fd, &nr, args, &wsp, &wpc);
	if (fd >= 0)
		close(fd);
	t->site = -1;
	if (got < 0) {
		int last;

		if (fd < 0)
			return false;
		if (t->uncut) {
			t->uncut++;
			sp->stats.wall_uncut++;
			*left = true;
			return false;
		}
		last = last_wait(t);
		if (last < 0 || !t->sites[last].cuts) {
			t->woke_read = true;
			return false;
		}
		t->site = last;
		t->last_slices = t->slices_mark;
		return true;
	}
	for (int i = 0; t->sites && i < WAIT_SITES; i++) {
		const struct wait_site *w = &t->sites[i];

		if (w->frames && (w->nr == nr || (w->restarted && nr == __NR_restart_syscall)) &&
		    w->sp == wsp && w->pc == wpc && same_callers(t, w)) {
			t->site = i;
			t->last_slices = t->slices_mark;
			return true;
		}
	}
	/* Until its stack is taken, a tick that finds it still waiting
	 * counts nothing rather than another call's stack. */
	keep_uncut(t, nr, wsp, wpc, 0);
	if (nr >= 0 && peek_wait(sp, t, nr, args, wsp, wpc)) {
		*left = true;
		return false;
	}
	if (!syscall_ends_short(nr, args))
		return false;
	/* Asleep there this long, it may not run again while profiled:
	 * stopped once, to take the stack (its ticks counted with it). */
	if (t->uncut * UNCUT_MAX_PER_S >= sp->frequency)
		return false;
	t->uncut++;
	sp->stats.wall_uncut++;
	*left = true;
	return false;
}

/* The return addresses of a walk's PCS[1..N) (a call's less one) found in
 * C's stack copy, innermost first and at most SITE_WORDS, into W: where
 * they are and what they hold.  One not found ends the search. */
static void find_callers(const struct capture *c, const uint64_t *pcs, unsigned n,
			 struct wait_site *w)
{
	size_t off = c->regs.rsp >= c->sp ? c->regs.rsp - c->sp : c->stack_len;

	w->nwords = 0;
	for (unsigned j = 1; j < n && w->nwords < SITE_WORDS; j++) {
		uint64_t v = 0;

		for (; off + sizeof(v) <= c->stack_len; off += sizeof(v)) {
			memcpy(&v, c->stack + off, sizeof(v));
			if (v == pcs[j] + 1 || v == pcs[j])
				break;
		}
		if (off + sizeof(v) > c->stack_len)
			break;
		w->addr[w->nwords] = c->sp + off;
		w->word[w->nwords++] = v;
		off += sizeof(v);
	}
}

/* --wall: the blocked thread's stack, with its system call as the leaf,
 * is kept to be counted at each tick while it waits there: in the slot of
 * the same call from the same callers, or a free one, or the one counted
 * least lately.  FOUND: its callers (find_callers()). */
static void remember_wait(struct sampler *sp, const struct capture *c, const uint64_t *keys,
			  unsigned n, const struct wait_site *found)
{
	struct thread *t = session_thread(sp->session, c->tid);
	struct wait_site *w;
	long nr;
	int i, pick = -1;

	if (!t)
		return;
	nr = (long)c->regs.orig_rax;
	if (!t->sites)
		t->sites = xcalloc(WAIT_SITES, sizeof(*t->sites));
	for (i = 0; i < WAIT_SITES; i++) {
		w = &t->sites[i];
		if (!w->frames) {
			if (pick < 0 || t->sites[pick].frames)
				pick = i;
		} else if (w->nr == nr && w->sp == c->regs.rsp && w->pc == c->regs.rip &&
			   w->nwords == found->nwords &&
			   !memcmp(w->word, found->word, found->nwords * sizeof(*w->word)) &&
			   !memcmp(w->addr, found->addr, found->nwords * sizeof(*w->addr))) {
			pick = i;
			break;
		} else if (pick < 0 || (t->sites[pick].frames && w->used < t->sites[pick].used)) {
			pick = i;
		}
	}
	w = &t->sites[pick];
	free(w->frames);
	*w = *found;
	w->frames = xmalloc((n ? n : 1) * sizeof(*keys));
	memcpy(w->frames, keys, n * sizeof(*keys));
	w->n = n;
	w->nr = nr;
	/* After the stop, nanosleep and the like go on as restart_syscall:
	 * the same wait until it ends, and the next call is the call. */
	w->restarted = (long long)c->regs.rax == -ERESTART_RESTARTBLOCK;
	{
		uint64_t args[6] = { c->regs.rdi, c->regs.rsi, c->regs.rdx, c->regs.r10, c->regs.r8, c->regs.r9 };

		w->cuts = syscall_ends_short(nr, args);
	}
	w->sp = c->regs.rsp;
	w->pc = c->regs.rip;
	w->used = w->taken = sp->tick_n + 1;
	t->site = pick;
	t->last_slices = c->slices;
}

/* --wall: a sample of T not blocked: it waits in none of its calls now. */
static void forget_wait(struct sampler *sp, pid_t tid)
{
	struct thread *t = session_thread(sp->session, tid);

	if (t)
		t->site = -1;
}

int sampler_init(struct sampler *sp, struct session *s, const struct unwinder_ops *unwinder,
		 unsigned frequency, double duration, size_t stack_size, unsigned max_frames)
{
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	sp->session = s;
	sp->frequency = frequency;
	sp->duration = duration;
	sp->stack_size = stack_size;
	sp->max_frames = max_frames;
	sp->pcs = xcalloc(max_frames, sizeof(*sp->pcs));
	sp->late = xcalloc(LATE_MAX, sizeof(*sp->late));
	stacks_init(&sp->stacks);
	sp->hooks.fd = -1;
	sp->self_sched_fd = -1;
	sp->cpustat_fd = -1;
	sp->tfd[0] = sp->tfd[1] = -1;
	sp->unwinder = unwinder;
	if (!target_of(sp, s->procs[0], &ret))
		return ret < 0 ? ret : -ESRCH;
	s->on_sample = capture_thread;
	s->sample_arg = sp;
	return 0;
}

/* Captures taken in a process before it exec'd: their addresses mean
 * nothing in the new image. */
static void drop_old_image(struct sampler *sp)
{
	size_t i, n = 0;

	for (i = 0; i < sp->ncaps; i++) {
		if (sp->caps[i].target->proc->exec_seen) {
			sp->session->lost++;
			continue;
		}
		if (i != n) {
			struct capture tmp = sp->caps[n];

			sp->caps[n] = sp->caps[i];
			sp->caps[i] = tmp;
		}
		n++;
	}
	sp->ncaps = n;
}

/* Put KEY under the N frames in PCS as their leaf (dropping the outermost
 * frame if PCS is full). */
static void push_leaf(struct sampler *sp, unsigned *n, uint64_t key)
{
	if (*n == sp->max_frames)
		(*n)--;
	memmove(sp->pcs + 1, sp->pcs, *n * sizeof(*sp->pcs));
	sp->pcs[0] = key;
	(*n)++;
}

/* Capture C's stop was asked for with its thread's CPU held (c->held),
 * but the thread got no CPU between its state's read at the tick and its
 * stop (its CPU arrivals, c->slices then, and as it was resumed): it was
 * running all along, on another CPU than the one held, and stopped where
 * it next left the kernel.  Its CPU was read at most CPU_READ_TICKS ago
 * (see choose()), and a thread the helpers preempt, or that ptrace
 * resumes, may be moved to an idle CPU meanwhile.  Not counted: its
 * ticks and CPU time go to its next sample.  With a SCHED_FIFO thread per
 * CPU that took it for 20-100 us every 100-400 us (tests/targets/
 * rtsteal.c), 92-109 of selftime syscall's 1600 held stops were such,
 * and its share of the call was 3.7-6.1 points above its own clock's;
 * 1.0-3.4 without them.  Where nothing else runs, none. */
static bool not_held(struct sampler *sp, const struct capture *c)
{
	struct thread *t;

	if (!c->held || sp->wall)
		return false;
	t = session_thread(sp->session, c->tid);
	if (!t || !t->resumed_ns || t->stop_slices != c->slices)
		return false;
	t->carry += c->ticks;
	sp->stats.not_held++;
	/* Its CPU is read again before its next stop (see choose()). */
	t->moved_n = sp->tick_n + 1;
	return true;
}

/* Peeked capture C's walk did not complete (peek_wait()): its ticks go
 * back to its thread, as if it had been left alone there. */
static void unpeek(struct sampler *sp, const struct capture *c)
{
	struct thread *t = session_thread(sp->session, c->tid);

	sp->stats.peeks_failed++;
	if (!t)
		return;
	t->peek_nr = (long)c->regs.orig_rax;
	t->peek_sp = c->regs.rsp;
	t->peek_pc = c->regs.rip;
	keep_uncut(t, t->peek_nr, t->peek_sp, t->peek_pc, c->ticks);
}

static void unwind_captures(struct sampler *sp)
{
	struct sampler_stats *st = &sp->stats;
	size_t i;

	count_short_writes(sp);
	drop_old_image(sp);
	for (i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state && tgt->maps.layout_changed) {
			sp->unwinder->flush(tgt->unwind_state);
			tgt->maps.layout_changed = false;
		}
	}
	for (i = 0; i < sp->ncaps; i++) {
		struct capture *c = &sp->caps[i];
		struct target *tgt = c->target;
		uint64_t t0 = now_ns(), t1, us = c->stall_ns / 1000;
		struct wait_site callers;
		enum unwind_result res;
		unsigned n = 0, j, fp = 0;

		if (not_held(sp, c))
			continue;
		if (c->peeked) {
			res = sp->unwinder->walk(tgt->unwind_state, c, sp->pcs, sp->max_frames, &n, &fp);
			t1 = now_ns();
			st->unwind_ns += t1 - t0;
			if (res != UNWIND_COMPLETE) {
				unpeek(sp, c);
				continue;
			}
			st->peeks++;
			st->reused += c->ticks;
			goto walked;
		}
		st->samples++;
		if (!c->in_kernel) {
			st->stall_ns += c->stall_ns;
			st->stall_hist[us < STALL_BUCKETS ? us : STALL_BUCKETS - 1]++;
		}

		if (c->cut_short) {
			sp->pcs[0] = c->regs.rip;
			n = 1;
			res = UNWIND_TRUNCATED;
		} else {
			res = sp->unwinder->walk(tgt->unwind_state, c, sp->pcs, sp->max_frames, &n, &fp);
		}
		/* A ring's tick whose frames go on on another stack, copied
		 * as the ring was read, after the thread ran on: a walk that
		 * fails past its first frame read stale words there (1 stack
		 * in 12 runs of sigtramp's 900 samples, its handler on an
		 * alternate stack), where nothing is wrong with the walk: cut
		 * short there, not failed. */
		if (res == UNWIND_FAILED && c->from_ring && c->stack2_len && n >= 2)
			res = UNWIND_TRUNCATED;
		if (c->nchain && (c->go_sigframe || c->go_vdso) &&
		    (c->go_sigframe ? splice_signal(sp, tgt, c, sp->pcs, &n, sp->max_frames)
				    : splice_chain(tgt, c, sp->pcs, &n, sp->max_frames))) {
			res = UNWIND_COMPLETE;
			st->spliced[c->go_sigframe]++;
		} else if (res == UNWIND_TRUNCATED && c->nchain && chain_on(tgt, c, sp->pcs, &n, sp->max_frames)) {
			res = go_top(tgt, sp->pcs[n - 1]) ? UNWIND_COMPLETE : UNWIND_TRUNCATED;
			st->chained++;
		}
		/* A new thread on its first instructions, just back from clone
		 * or clone3 with the child's 0: its stack holds nothing yet,
		 * and the CFI there is the parent's, or none (glibc ends
		 * clone3's before the system call).  Taken at its first stop,
		 * before it ran, it has -1 for the call; taken after it ran a
		 * few instructions towards the call of its start function
		 * (test, branch, align the stack: 17 bytes in glibc 2.36's
		 * clone3), it is within CLONE_CHILD_SPAN of where it started.
		 * Not a stop taken where a signal came: the registers are
		 * those of code that ran, after any call that returned 0. */
		if (res == UNWIND_FAILED && n == 1 && c->regs.rax == 0 && !c->at_handler &&
		    (c->regs.orig_rax == SYS_clone || c->regs.orig_rax == SYS_clone3 ||
		     (c->start_ip && c->regs.rip - c->start_ip < CLONE_CHILD_SPAN) ||
		     (c->regs.orig_rax == (unsigned long long)-1 &&
		      maps_after_syscall(&c->target->maps, c->regs.rip))))
			res = UNWIND_COMPLETE;
		t1 = now_ns();
		st->fp_frames += fp;
		st->unwind_ns += t1 - t0;
		if (res == UNWIND_COMPLETE)
			st->unwind_complete++;
		else if (res == UNWIND_TRUNCATED)
			st->unwind_truncated++;
		else
			st->unwind_failed++;
		st->frames += n;
walked:
		if ((c->blocked || c->waited) && (long long)c->regs.orig_rax >= 0)
			find_callers(c, sp->pcs, n, &callers);
		for (j = 0; j < n; j++)
			sp->pcs[j] = maps_frame_key(&tgt->maps, sp->pcs[j]);
		/* A tick in the kernel: under the user frame that entered it. */
		if (c->in_kernel)
			push_leaf(sp, &n, frame_key(FRAME_MODULE_SYSCALL, FRAME_KERNEL));
		/* The leaf says which call it waits in.  A blocked thread
		 * whose stop came at the exit of a system call (orig_rax >= 0;
		 * after an interrupt it is negative) was in that call when its
		 * stop was asked for: the first return to user space takes
		 * the stop.  The call may have ended meanwhile: a nanosleep
		 * whose time is up when the woken thread gets a CPU returns 0
		 * rather than be restarted.  Counted where it stopped, such a
		 * thread ran in __clock_nanosleep for 15-20% of the samples of
		 * a client that sleeps 0.5 ms between requests, with stops of
		 * 230 us (wall.sh's echoserver). */
		if (c->blocked && (long long)c->regs.orig_rax >= 0) {
			push_leaf(sp, &n, frame_key_syscall((long)c->regs.orig_rax));
			if (c->woke)
				st->woke_stops++;
			else
				st->blocked_stops += !c->peeked;
			remember_wait(sp, c, sp->pcs, n, &callers);
		} else if (sp->wall) {
			forget_wait(sp, c->tid);
		}
		st->counted += c->ticks;
		if (c->pending)
			stacks_add_pending(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->ticks);
		else
			stacks_add(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->ticks, c->ns);
		/* --wall: the ticks it was left asleep in the call whose exit
		 * it stopped at, counted as a blocked stop there would have
		 * been, and the place remembered as such a stop's, but for a
		 * thread that runs now. */
		if (c->waited) {
			push_leaf(sp, &n, frame_key_syscall((long)c->regs.orig_rax));
			remember_wait(sp, c, sp->pcs, n, &callers);
			forget_wait(sp, c->tid);
			stacks_add(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n, c->waited,
				   sp->period_ns * c->waited);
			st->counted += c->waited;
			st->reused += c->waited;
		}
		st->part_ns.intern += now_ns() - t1;
		note_thread(sp, tgt->proc->pid, c->tid);
	}
	sp->ncaps = 0;
	/* A process that is gone has nothing more to unwind: its unwinder's
	 * caches and descriptors go now, not at the end of the run. */
	for (i = 1; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state && !tgt->proc->nthreads) {
			sp->unwinder->fini(tgt->unwind_state);
			tgt->unwind_state = NULL;
		}
	}
}

static void add_pick(struct sampler *sp, struct thread *t, int cpu)
{
	GROW(sp->picks, sp->pickcap, sp->npicks + 1);
	sp->picks[sp->npicks].t = t;
	sp->picks[sp->npicks].cpu = cpu;
	sp->picks[sp->npicks].was_running = true;
	sp->npicks++;
}

/* Has thread T been seen both blocked and running within the last
 * RECENT_TICKS ticks?  Such a thread runs in bursts: its state before the
 * tick says little of its state at the tick. */
static bool bursty(const struct sampler *sp, const struct thread *t)
{
	return t->blocked_n && sp->tick_n + 1 - t->blocked_n <= RECENT_TICKS &&
	       t->ran_n && sp->tick_n + 1 - t->ran_n <= RECENT_TICKS;
}

/* Read T again at the tick (late_picks), if there is room. */
static bool add_late(struct sampler *sp, struct thread *t, int cpu, bool running)
{
	if (sp->nlate == LATE_MAX)
		return false;
	sp->late[sp->nlate].t = t;
	sp->late[sp->nlate].cpu = cpu;
	sp->late[sp->nlate].was_running = running;
	sp->nlate++;
	return true;
}

/* When CPU was meant to be taken at this tick (ctprof's clock): ctprof's
 * own at the tick, a helper's its delay after it. */
static uint64_t meant_at(const struct sampler *sp, int cpu)
{
	return sp->tick_ns + (cpu == sp->here ? 0 : sp->tick_delay_ns);
}

/* When CPU was taken at this tick (ctprof's clock), 0 if it was not. */
static uint64_t taken_at(const struct sampler *sp, int cpu)
{
	if (cpu < 0 || cpu >= sp->kick.ncpus)
		return 0;
	if (cpu == sp->here)
		return sp->since[cpu] ? sp->since[cpu] : sp->woke_ns;
	return sp->want[cpu] == WANT_HELD ? sp->since[cpu] : 0;
}

/* CPU C was taken at this tick: note the difference of ctprof's clock
 * to its run queue's, between two bounds.  The taker came onto the CPU
 * (take_es, in the run queue's clock) after the moment it was meant to
 * (its timer's) and before it read ctprof's clock (taken_at()).  On the
 * VM measured, its way from one to the other varied by 0-100 us from
 * take to take (a return to user space there goes through the
 * hypervisor), and the two clocks drift apart, by 0.3-0.5 ms at a time
 * every few hundred milliseconds. */
static void note_rq_offset(struct sampler *sp, int c)
{
	struct rq_offset *o = &sp->rq_offs[(size_t)c * RQ_OFFS];
	size_t i, old = 0;

	for (i = 1; i < RQ_OFFS; i++)
		if (o[i].tick < o[old].tick)
			old = i;
	o[old].lo = (int64_t)meant_at(sp, c) - (int64_t)sp->take_es[c];
	o[old].hi = (int64_t)taken_at(sp, c) - (int64_t)sp->take_es[c];
	o[old].tick = sp->tick_n + 1;
}

/* The difference of ctprof's clock to CPU C's run queue clock, from its
 * takes in the last RQ_OFFS_TICKS ticks, if there are three: at least
 * the second largest lower bound, at most the second smallest upper
 * bound (the second: a taker whose se.exec_start the scheduler's tick
 * moved on before it was read gives an upper bound too low, a helper
 * that went to sleep before its delay grew a lower bound too high), and
 * taken halfway between them.  On the VM measured the two were 11-22 us
 * apart (10th to 90th percentile). */
static bool rq_offset(const struct sampler *sp, int c, int64_t *ns)
{
	const struct rq_offset *o = &sp->rq_offs[(size_t)c * RQ_OFFS];
	int64_t lo = INT64_MIN, lo2 = INT64_MIN, hi = INT64_MAX, hi2 = INT64_MAX;
	size_t i, n = 0;

	for (i = 0; i < RQ_OFFS; i++) {
		if (!o[i].tick || o[i].tick + RQ_OFFS_TICKS <= sp->tick_n + 1)
			continue;
		n++;
		if (o[i].hi < hi) {
			hi2 = hi;
			hi = o[i].hi;
		} else if (o[i].hi < hi2) {
			hi2 = o[i].hi;
		}
		if (o[i].lo > lo) {
			lo2 = lo;
			lo = o[i].lo;
		} else if (o[i].lo > lo2) {
			lo2 = o[i].lo;
		}
	}
	if (n < 3)
		return false;
	*ns = lo2 + (hi2 - lo2) / 2;
	return true;
}

/* When CPU C was taken at this tick, in its run queue's clock, which a
 * thread's se.exec_start is in: when its helper took it, or ctprof woke
 * there.  A helper's exec_start is the moment it came onto its CPU,
 * which is the moment the thread it preempted left it (the scheduler
 * reads its clock once for both).  False if not known. */
static bool take_time(struct sampler *sp, int c, uint64_t *es)
{
	if (!sp->take_known[c]) {
		sp->take_known[c] = 2;
		if (c == sp->here) {
			/* ctprof's exec_start is the moment it came onto
			 * its CPU until something updates its run time: a
			 * read of its CPU time, or the kernel's own tick
			 * there.  Read when first needed, not as ctprof
			 * wakes (4.2-5.5 us a read here, 10th to 90th
			 * percentile, which held every CPU and stopped
			 * every thread that much longer at every tick; two
			 * busy threads on 2 CPUs need none).  With
			 * tests/targets/pollsleep on ctprof's CPU at 999 Hz,
			 * read as ctprof woke and again when needed (10 us
			 * later, median), 4-5 of 3000 had moved (three
			 * runs), by at most 56 us.  Its helper may have held
			 * it before ctprof woke there and preempted the
			 * helper in turn. */
			uint64_t back = sp->since[c] && sp->since[c] < sp->woke_ns ? sp->woke_ns - sp->since[c] : 0;
			uint64_t self_es;

			if (proc_exec_start(sp->self_sched_fd, &self_es) == 0 && self_es > back) {
				sp->take_es[c] = self_es - back;
				sp->take_known[c] = 1;
			}
		} else if (sp->want[c] == WANT_HELD && kicker_exec_start(&sp->kick, c, &sp->take_es[c]) == 0) {
			sp->take_known[c] = 1;
		}
		if (sp->take_known[c] == 1)
			note_rq_offset(sp, c);
	}
	*es = sp->take_es[c];
	return sp->take_known[c] == 1;
}

/* Did thread T not sleep between its last sample's resume and SINCE?  Its
 * CPU time and its time waiting for a CPU since then (run_mark and
 * wait_mark, read now) fill that time, but for what they leave out: the
 * wake-up of the thread's CPU after the resume, and a little more the
 * longer the time.  Two busy threads on 2 CPUs (bench/workload.c): 14 us
 * left out (median; p90 35) between samples 1 ms apart, 30 us (p90 41)
 * 10 ms apart.  With a slack of 30 us at any rate, half of the threads'
 * reads at 99 Hz took the slow way in choose_thread() (a stat read and a
 * second schedstat read, 10 and 4 us each there, against 0.5-2 us at
 * 999 Hz), while a helper held a CPU: the helper held it 84 us a tick
 * (median), against 9 at 999 Hz. */
static bool awake_since_resume(const struct thread *t, uint64_t since)
{
	uint64_t span;

	if (!t->resumed_ns || t->resumed_ns >= since || t->run_mark < t->stop_run || t->wait_mark < t->stop_wait)
		return false;
	span = since - t->resumed_ns;
	return t->run_mark - t->stop_run + t->wait_mark - t->stop_wait + AWAKE_SLACK_NS + (span >> AWAKE_SLACK_SHIFT) >=
	       span;
}

/* When thread T last left a CPU (its se.exec_start, in the run queue's
 * clock), into *ES; false if not known. */
static bool left_cpu_at(struct thread *t, uint64_t *es)
{
	if (t->sched_fd < 0)
		t->sched_fd = proc_open_task_sched(t->proc->pid, t->tid);
	return proc_exec_start(t->sched_fd, es) == 0;
}

/* Did thread T last leave CPU at or after the moment that CPU was taken
 * at this tick, less SLACK_NS (its se.exec_start, in the run queue's
 * clock)?  1 yes, 0 no, -1 not known. */
static int left_after_take(struct sampler *sp, struct thread *t, int cpu, uint64_t slack_ns)
{
	uint64_t take, es;

	if (!taken_at(sp, cpu) || !take_time(sp, cpu, &take))
		return -1;
	if (!left_cpu_at(t, &es))
		return -1;
	return es + slack_ns >= take;
}

/* Reading after the tick: was thread T, runnable on CPU now, running
 * when that CPU was taken at the tick, or was it woken up since (or
 * waiting for a CPU)?  Both read as runnable, and a server thread woken
 * while its CPU is held would be sampled at the end of the call it
 * waited in.  1 running, 0 not, -1 not known (its CPU was not taken).
 *
 * A thread that has not slept since its last sample (its CPU time and
 * its time waiting for a CPU since then, read from schedstat as it was
 * resumed and now, fill the time) ran up to the moment its CPU was
 * taken: that costs no more reading.  Otherwise its se.exec_start, the
 * moment it last left a CPU, says whether that was when its CPU was
 * taken. */
static int ran_at_tick(struct sampler *sp, struct thread *t, int cpu)
{
	uint64_t since = taken_at(sp, cpu);

	/* Its CPU was let go: the thread on it at the take was another. */
	if (cpu >= 0 && cpu < sp->kick.ncpus && sp->want[cpu] == WANT_GONE)
		return 0;
	if (!since)
		return -1;
	if (awake_since_resume(t, since))
		return 1;
	return left_after_take(sp, t, cpu, AT_TICK_SLACK_NS);
}

/* Reading after the tick: did thread T, asleep on CPU now, go to sleep
 * only after that CPU was taken at the tick?  Then it was on the CPU at
 * the tick, in the kernel on its way into the call it sleeps in: a kernel
 * that does not preempt its own code (preempt=none, as here) lets it run
 * on until it sleeps, or returns to user space, before the helper or
 * ctprof gets the CPU.  Where it returns to user space, the stop lands at
 * the call's exit and is counted there; where it sleeps, it is as much a
 * sample of that call, and perf's tick counts it so.  It is stopped in
 * the call (which the kernel, or undo_eintr() in session.c, restarts).
 * Left out, attached to redis-server under redis-benchmark, 1-2.5% of
 * its ticks went uncounted, their CPU time to its next samples (mostly
 * in write).  Six alternating runs each, recorded by perf -a (997 Hz)
 * at the same time: ctprof's profile was 0.034-0.064 from perf's
 * (median 0.058) without them and the random tick points (util.c),
 * 0.029-0.059 (0.046) with both; epoll_wait -4.1 to +3.2 points from
 * perf's, and -3.5 to +2.5.
 * Its se.exec_start, the moment it left the CPU, tells (read only for a
 * thread not known to be idle, see choose()).
 *
 * Not the moment the CPU was taken, though: the moment it was meant to be
 * (the tick, or the helpers' delay after it), less SLEPT_MARGIN_NS.  On
 * the VM measured here, the tick's interrupt reaches a CPU busy in kernel
 * code only once that code sleeps or returns to user space, so the CPU
 * is taken after the thread has left it.  tests/targets/pollsleep.c (a
 * ppoll() that works ~60 us in the kernel before it sleeps), pinned to
 * one CPU at 999 Hz, with the switches of that CPU traced by perf and the
 * call's times by the target: of the ticks that came in that work, 289
 * of 293 (ctprof on the thread's CPU) and 126 of 126 (on the other, with
 * a helper) were not sampled, the thread having left its CPU 20-54 us
 * (10th to 90th percentile) before the take.  The take's lateness after
 * the moment meant is read on ctprof's clock after the taker is running,
 * which is later than its switch-in, in the run queue's clock, that the
 * thread's se.exec_start is compared with: with no margin, 112 of the 558
 * ticks that came while the thread slept counted it (41 of 244 with the
 * helper), which is how an earlier try at this sampled redis-server 12-16%
 * more often than its CPU time's ticks.  A margin of 20 us: 293 of 313
 * and 106 of 118 ticks in the work counted, 4 of 558 and 0 of 244 in the
 * sleep.  The call went from 19.7-22.5% of ctprof's reports to 33.3-36.4%
 * (four runs, ctprof on either CPU), where its own clock said 41.0-42.6%;
 * the rest is the work after the sleep, whose ticks reach the thread only
 * after the call returned, in the code after it.  Attached to redis under
 * redis-benchmark (four alternating pairs, perf -a beside), redis was
 * sampled at 1.02-1.08 of its CPU time's ticks (0.99-1.03 before), and
 * epoll_wait was -2.7 to +1.1 points from perf's (-3.0 to -1.0).
 *
 * That margin is the taker's own lateness from its switch-in to its clock
 * read, which on a later host (a VM of the same kind, where the tick's
 * interrupt does reach kernel code, so that perf's ticks land in
 * pollsleep's call) was 0-100 us from one take to the next.  There
 * pollsleep's call had 35-41% of ctprof's reports against 51-53% by its
 * own clock and 57.6% by perf's, and ctprof sampled it at 0.82 of its CPU
 * time's ticks: the margin lost most of the ticks in the work before the
 * sleep.  So where the takes before give the two clocks' difference
 * (rq_offset(): between bounds 11-22 us apart there), the moment the
 * thread left is put on ctprof's clock with it and compared with the
 * moment meant.  pollsleep's call: 44.9-47.6% in four runs, ctprof on
 * either CPU, at 0.95-0.97 of its CPU time's ticks.  Taken at one of the
 * bounds instead: at the upper one (the takers' shortest way) with 10 us
 * of margin, 44-48%, but redis-server sharing one CPU with
 * redis-benchmark (ctprof on the other) was sampled at 1.03-1.09 of its
 * CPU time's ticks, epoll_wait 19.6-22.9% where perf gave 16.6-20.3%;
 * with the lower one, pollsleep 40-42% at 0.86-0.89; halfway, redis so
 * placed at 0.97-1.01 and 17.6-18.8% (perf 17.6-19.5%), and placed by the
 * scheduler at 1.05, 13.9-15.2% (perf 15.1%, the margin of 20 us
 * 14.3-14.9%).  A thread woken just after the tick that runs before
 * its CPU is taken still counts as running at the tick: /proc does not
 * say when a thread came onto its CPU.
 *
 * Not one that left its CPU later after that moment than a take may come
 * (hold_max_ns, the longest the sampler waits for a helper's): the CPU
 * was then taken late, and the thread may have run on in its own code
 * for as long before it slept, so that its sample would be of the call
 * it sleeps in, not of where it was.  That CPU is ctprof's own, mostly:
 * under node at 999 Hz (bench/jswork.js, 7 threads on 2 CPUs) ctprof
 * woke there over 200 us late at 2% of the ticks, up to 1 ms, half of
 * them because the tick before had not ended (its wait for the stops of
 * threads waiting for a CPU).  Those samples put the V8 workers' futex
 * waits at 0.85-1.23% of node's profile, where perf -a, recording the
 * same runs, had 0.10-0.30% (six runs); with this bound, 0.35-0.52%
 * against 0.14-0.21% (three).  Like a hold given up, the tick goes to the
 * thread's next sample.
 *
 * Nor one that left its CPU long before the taker came onto it (both in
 * the run queue's clock, which needs no offset, so the bound holds at a
 * CPU's first takes too): a take held back by the thread's kernel code
 * comes as soon as the thread has left, and one that came later was late
 * for another reason, which says nothing of where the thread was at the
 * tick.  The taker came onto the CPU 0-5 us after the thread left
 * (10th to 99th percentile) with redis-server, where another task was
 * ready to run, and 18-119 us with pollsleep, whose CPU went idle in
 * between: its wake-up from idle on this VM (644 samples in two runs,
 * at most 130 us).  Under node (as above, two runs), 8 of 24 and 3 of
 * 14 such samples within the bound above had their taker, ctprof on its
 * own CPU in all, come 162-766 us after the thread had gone.
 *
 * Nor one asleep in a call that the stop would end short
 * (syscall_ends_short(): a write that waits for room after part of its
 * data went), read from /proc/PID/task/TID/syscall (kept open: 2.8 us
 * a read here, for such threads only, while the CPUs are held), or
 * whose call cannot be read there: it has woken up since.  The stop
 * would wake it with a signal pending, and the call would return the
 * part written.  tests/targets/shortio.c, a thread
 * writing 1 MiB at a time to a blocking socket that another reads, at
 * 999 Hz: 185-301 of ~2000 writes a run came back short (none without
 * ctprof), 195 of them at stops of such samples; with this, 2-9, all at
 * stops of threads running or runnable in the kernel (note_short_write()). */
static bool ends_short(struct thread *t)
{
	uint64_t args[6], wsp, wpc;
	long nr;

	if (t->syscall_fd < 0)
		t->syscall_fd = proc_open_task_syscall(t->proc->pid, t->tid);
	return proc_read_wait_site(t->syscall_fd, &nr, args, &wsp, &wpc) < 0 || syscall_ends_short(nr, args);
}

static bool slept_after_tick(struct sampler *sp, struct thread *t, int cpu)
{
	uint64_t since = taken_at(sp, cpu), back = AT_TICK_SLACK_NS, take, es;
	uint64_t meant = meant_at(sp, cpu);
	int64_t off;

	if (!sp->at_tick || !since || !take_time(sp, cpu, &take) || !left_cpu_at(t, &es))
		return false;
	if (rq_offset(sp, cpu, &off)) {
		int64_t left = (int64_t)es + off - (int64_t)meant;

		if (left < 0)
			return false;
		if ((uint64_t)left > sp->kick.hold_max_ns)
			goto late;
	} else {
		if (since > meant + SLEPT_MARGIN_NS + back)
			back = since - meant - SLEPT_MARGIN_NS;
		if (es + back < take)
			return false;
	}
	if (take > es + SLEPT_FOLLOW_NS)
		goto late;
	if (!target_of(sp, t->proc, NULL))
		return false;
	if (ends_short(t)) {
		sp->stats.slept_short++;
		return false;
	}
	return true;
late:
	sp->stats.slept_late++;
	return false;
}

/* A thread of the target was found waiting for CPU C at this tick. */
static void waits_for(struct sampler *sp, int cpu)
{
	if (sp->crowded && cpu >= 0 && cpu < sp->kick.ncpus)
		sp->crowded[cpu] = true;
	sp->crowd_n = sp->tick_n + 1;
}

/* Did a tick lately, up to tick N, find the target's threads competing
 * for the CPUs? */
static bool competing(const struct sampler *sp, uint64_t n)
{
	return sp->crowd_n && n <= sp->crowd_n + RECENT_TICKS;
}

/* Thread T, about to be stopped, was just read: did it wait for a CPU
 * for long since it was last read so?  Then the target's threads compete
 * for the CPUs (competing()).  Not asked of a thread on ctprof's own CPU,
 * where it waits for ctprof too: with two busy threads on 2 CPUs at 999
 * Hz, asked of it, the other CPU was held at one tick in five or six
 * (three runs), against one in 25 (the probes, and the first ticks). */
static void note_wait(struct sampler *sp, struct thread *t)
{
	uint64_t run, wait;

	if (t->seen_run && t->last_cpu != sp->here && t->run_mark >= t->seen_run && t->wait_mark >= t->seen_wait) {
		run = t->run_mark - t->seen_run;
		wait = t->wait_mark - t->seen_wait;
		if (wait >= CROWD_WAIT_NS && 4 * wait > run)
			sp->crowd_n = sp->tick_n + 1;
	}
	t->seen_run = t->run_mark;
	t->seen_wait = t->wait_mark;
}

/* ... so a thread asked to stop there may wait a scheduler slice for it
 * after its helper lets go. */
static bool crowded(const struct sampler *sp, int cpu)
{
	return sp->crowded && cpu >= 0 && cpu < sp->kick.ncpus && sp->crowded[cpu];
}

/* Choose whether tick N stops thread T (into sp->picks) or reads it
 * again at the tick (into sp->late); a thread blocked in --wall mode is
 * asked to stop at once (no CPU to take from it).  Returns false if one
 * was, or may wake up on ctprof's CPU to stop, so that waiting for the
 * stops must not spin. */
static bool choose_thread(struct sampler *sp, struct thread *t)
{
	struct session *s = sp->session;
	uint64_t faults = 0;
	int cpu = -1, sched = 1;        /* thread_sched()'s result once read
	                                 * in this call; 1 until then */
	bool left;
	char state;

	/* Timed by its own event (ktrigger.h), or by one closed at the end:
	 * never the timer's. */
	if (t->exiting || t->ev_fd >= 0 || t->ev_timed)
		return true;
	if (t->listening) {
		/* In a group stop: taken (and left stopped) only for
		 * a dump; the interrupt brings it to report again. */
		if (sp->once && target_of(sp, t->proc, NULL)) {
			t->blocked_sample = false;
			add_pick(sp, t, -1);
			return false;
		}
		return true;
	}
	if (t->sample_wanted) {
		/* Its stop is late: it waits where it did, or runs
		 * in the kernel. */
		if (sp->wall)
			count_again(sp, t);
		else
			late_tick(sp, t);
		return true;
	}
	t->at_take = false;
	if (sp->wall) {
		/* A thread that has not been given a CPU since its
		 * stack was taken waits where it did: one small read,
		 * no stop. */
		if (thread_sched(t) == 0 && wait_now(t) && t->slices_mark == t->last_slices) {
			count_again(sp, t);
			return true;
		}
	} else if (t->idle_known) {
		/* Nor is there anything to sample in a thread that was
		 * blocked and has not been given a CPU since: a read of
		 * schedstat is cheaper than one of stat. */
		if ((sched = thread_sched(t)) == 0 && t->slices_mark == t->idle_slices) {
			/* Unless it may wake up by the tick. */
			if (!sp->at_tick && bursty(sp, t))
				add_late(sp, t, t->last_cpu, false);
			return true;
		}
		t->idle_known = false;
		t->ran_n = sp->tick_n + 1;
	}
	/* Reading after the tick, a thread that has not slept since
	 * its last sample, on a CPU taken at this tick, ran up to
	 * then: its schedstat says so, its stat (3 us more, in the
	 * stall of every thread sampled) need not be read.  Where it
	 * runs is the CPU it was last seen on; read again every few
	 * ticks, in case it moved, and at every tick for a thread seen
	 * to move lately.  Nor where the target's threads compete for
	 * the CPUs: one that waits for its CPU, woken or preempted just
	 * before the take, reads as awake too (its wait is counted only
	 * when it gets the CPU), and is stopped where it was preempted.
	 * Threads taking turns at a lock do both: three Python threads
	 * of a CPU-bound loop on 2 CPUs, attached at 999 Hz for 4 s
	 * (four runs each, alternating, perf -g between them), with this
	 * path as it was, had 639-1369 of ~3995 ticks taken by stops
	 * asked for with the wrong CPU held (not counted, see
	 * not_held()), the GIL's futex wait at 2.9-3.4% of the profile
	 * against perf's 0.6-0.8%, and a distance to perf's of
	 * 0.052-0.078 (perf's own runs: 0.029-0.032); as it is now, 6-13
	 * such ticks, 0.2-0.5% and 0.029-0.052; with this path never
	 * taken, none, 0.3-0.4% and 0.030-0.041. */
	if (sp->at_tick && !sp->wall && t->cpu_read_n && sp->tick_n + 1 - t->cpu_read_n < CPU_READ_TICKS &&
	    (!t->moved_n || sp->tick_n + 1 - t->moved_n > RECENT_TICKS) && !competing(sp, sp->tick_n) &&
	    taken_at(sp, t->last_cpu) && (sched == 0 || (sched = thread_sched(t)) == 0) && t->run_known &&
	    t->run_mark > t->sample_run && awake_since_resume(t, taken_at(sp, t->last_cpu)) &&
	    target_of(sp, t->proc, NULL)) {
		t->ran_n = sp->tick_n + 1;
		t->blocked_sample = false;
		note_wait(sp, t);
		add_pick(sp, t, t->last_cpu);
		return true;
	}
	/* Any other thread, a quiet one included, has its stat read: its
	 * schedstat alone cannot say that it runs now.  The CPU time there
	 * (se.sum_exec_runtime) moves for a running thread only when the
	 * scheduler updates it (its tick, 4 ms at HZ=250 here, or a
	 * switch).  Tried for a quiet thread at 99 Hz (bench/workload.c,
	 * 200 reads): its CPU time since its last resume, from two
	 * schedstat reads, differed from the time since by -2.3 to +2.3 ms
	 * (10th to 90th percentile), so a slack large enough to pick it
	 * without its stat would also pick a thread asleep for that long,
	 * and wake it to stop. */
	/* Not opened when the thread was found, for want of a descriptor:
	 * tried again (at most every FDS_RETRY_NS while they are short). */
	if (t->stat_fd < 0)
		t->stat_fd = proc_open_task_stat(t->proc->pid, t->tid);
	/* Its CPU time and CPU arrivals before its state, so that a
	 * thread found blocked is known idle from one read of each: an
	 * arrival after the schedstat read shows in the next one (the
	 * idle_known test above), and one before it was followed by the
	 * block that the state, read after, shows.  Read the other way
	 * round, the state had to be read again after the arrivals.
	 * Three Python threads taking turns at the GIL, attached at 99
	 * Hz: 4.9 stat reads a tick before, 3.0 now; five alternating
	 * runs each, a median stall of 106.5-138.5 us before, 92.5-113.5
	 * now. */
	if (!sp->wall && sched > 0)
		sched = thread_sched(t);
	state = proc_state(t->stat_fd, &cpu, &faults);
	if (!state)
		return true;
	if (t->cpu_read_n && cpu != t->last_cpu)
		t->moved_n = sp->tick_n + 1;
	t->last_cpu = cpu;
	t->cpu_read_n = sp->tick_n + 1;
	if (state == 'S' && !sp->wall && slept_after_tick(sp, t, cpu)) {
		/* It wakes up to stop, maybe on ctprof's CPU. */
		t->ran_n = sp->tick_n + 1;
		t->blocked_sample = false;
		t->at_take = true;
		sp->stats.slept++;
		add_pick(sp, t, cpu);
		return false;
	}
	if (state != 'R' && !sp->wall) {
		/* Blocked: idle until its CPU arrivals, read before
		 * its state, move on. */
		if (sched == 0) {
			t->idle_known = true;
			t->idle_slices = t->slices_mark;
		}
		/* It ran lately, so it may run again by the tick:
		 * read again then (see late_picks). */
		if (state == 'S' || state == 'D') {
			t->blocked_n = sp->tick_n + 1;
			if (!sp->at_tick)
				add_late(sp, t, cpu, false);
		}
		return true;
	}
	if (!target_of(sp, t->proc, NULL))
		return true;
	t->blocked_sample = false;
	if (state == 'R') {
		t->ran_n = sp->tick_n + 1;
		/* Runnable is not running: a thread that has not run
		 * since its last sample (it waits for a CPU) has no
		 * CPU time to account for, and its stack is the one
		 * it had. */
		if (sched == 0) {
			if (sp->kicking)
				note_faults(sp, t, faults);
			if (t->run_known && t->run_mark <= t->sample_run) {
				sp->stats.not_run++;
				waits_for(sp, cpu);
				return true;
			}
		}
		if (sp->at_tick) {
			int ran = ran_at_tick(sp, t, cpu);

			if (ran == 0) {
				sp->stats.not_run++;
				waits_for(sp, cpu);
				return true;
			}
			t->at_take = ran > 0;
			note_wait(sp, t);
			add_pick(sp, t, cpu);
			return true;
		}
		/* One that blocks often may have blocked by the tick:
		 * read again then, rather than wake it up to stop. */
		note_wait(sp, t);
		if (sp->wall || !bursty(sp, t) || !add_late(sp, t, cpu, true))
			add_pick(sp, t, cpu);
		return true;
	}
	if (state == 'T' || state == 't' || state == 'Z' || state == 'X' || still_waiting(sp, t, &left)) {
		/* Stopped, on its way out, or back where it waited:
		 * counted as it was, if that is known. */
		count_again(sp, t);
		return true;
	}
	if (left)
		return true;
	/* Blocked, in --wall mode: it wakes up to stop, maybe on our
	 * CPU. */
	t->blocked_sample = true;
	if (sp->once)
		add_pick(sp, t, -1);
	else
		session_interrupt(s, t);
	return false;
}

/* Is a CPU held at this tick? */
static bool holding(const struct sampler *sp)
{
	for (int c = 0; c < sp->kick.ncpus; c++)
		if (sp->want[c] == WANT_HELD)
			return true;
	return false;
}

/* Choose the threads tick N stops, into sp->picks, and those to read
 * again at the tick, into sp->late (choose_thread()).  Returns false if
 * waiting for the stops must not spin.
 *
 * Reading after the tick, with CPUs held, the threads known to be idle
 * are left for the IDLE pass, after ask_stops() has let go of the CPUs
 * whose threads were found (*DEFERRED: how many were left).  Each takes
 * a schedstat read to see that it has not run since (0.6 us here), and a
 * held CPU is the target's time lost and the helper's CPU time spent:
 * with bench/threads64.c (4 busy threads and 60 idle ones on 2 CPUs) at
 * 999 Hz, the helper held its CPU 57 us a tick, most of it for those
 * reads.  Read after, six alternating runs each: the helper's CPU time
 * 23-35 us a sample (median 27.5) against 39-63 (51.6), ctprof's in all
 * 112-154 (119) against 126-185 (158), and the busy threads' work in
 * their 3 s 5.41-5.87 million loops (5.80) against 5.41-5.98 (5.50).
 * One that has run since is read in full then; it was not on a CPU let
 * go at the take (that CPU's thread was found, see ran_at_tick()), and
 * any other held CPU is still held. */
static bool choose(struct sampler *sp, bool idle, size_t *deferred)
{
	struct session *s = sp->session;
	bool spin = true, defer = !idle && sp->at_tick && !sp->wall && !sp->once && holding(sp);
	size_t i;

	if (!idle) {
		sp->npicks = sp->nlate = 0;
		if (sp->crowded)
			memset(sp->crowded, 0, (size_t)sp->kick.ncpus * sizeof(*sp->crowded));
	}
	*deferred = 0;
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (idle) {
			if (!t->deferred)
				continue;
			t->deferred = false;
		} else if (defer && t->idle_known && !t->exiting && !t->listening && !t->sample_wanted) {
			t->deferred = true;
			++*deferred;
			continue;
		}
		if (!choose_thread(sp, t))
			spin = false;
	}
	return spin;
}

/* T's stop is asked for while it runs: a quiet thread's, a probe (see
 * judge_unheld()), or one that would have been held. */
static void count_unheld(struct sampler *sp, struct thread *t)
{
	t->asked_held = false;
	t->probe = sp->kicking && !wants_hold(t) && !t->quiet;
	if (sp->kicking && t->quiet)
		sp->stats.quiet++;
	else if (!t->probe)
		sp->stats.unheld++;
}

/* T's stop wants its CPU held (wants_hold()), and its helper did not take
 * it at this tick: it woke too late, on a host slower than usual, or a
 * thread of a higher priority held the CPU.  Asked for now, the stop
 * would land where T next leaves the kernel, which is no sample of where
 * it ran.  With the helpers kept off the CPUs by a SCHED_FIFO thread per
 * CPU that spun 20-100 us every 100-400 us (tests/targets/rtsteal.c),
 * 691-844 of selftime syscall's 2500 stops were asked for so, and its
 * share of the call was 10-15 points above its own clock's; 4.6-9 with
 * them put off (and, with kicker_claim() and not_held() too, 1-3.4;
 * perf, 1-2).  So it is not asked for: T's CPU time and its tick go to
 * its next sample.  After PUT_OFF_MAX times in a row, no
 * more until a helper holds T's CPU again: a thread of the target with a
 * real-time priority, which no helper preempts, is sampled as before, and
 * so is any thread where no helper can be had at all. */
static bool put_off(struct sampler *sp, struct thread *t)
{
	if (sp->wall || sp->kick.disabled || !wants_hold(t) || t->put_off >= PUT_OFF_MAX)
		return false;
	t->put_off++;
	t->carry++;
	sp->stats.put_off++;
	return true;
}

/* Ask picked thread T to stop.  SINCE_NS, if not 0, is when its CPU was
 * taken from it: its stall starts there. */
static void interrupt_one(struct sampler *sp, struct thread *t, uint64_t since_ns, bool preempted)
{
	if (session_interrupt(sp->session, t) < 0)
		return;
	if (since_ns && since_ns < t->interrupt_ns)
		t->interrupt_ns = since_ns;
	if (preempted) {
		t->put_off = 0;
		t->asked_held = true;
		t->probe = false;
		sp->stats.preempted++;
	} else {
		count_unheld(sp, t);
	}
}

/* The threads that run in bursts (sp->late, see bursty()): read again
 * once their CPUs are held, so that each is sampled if it runs at the
 * tick, and only then.  Read only before the tick, as the others are,
 * a server between two epoll_wait calls would be sampled only in bursts
 * that began before that read, never in their first part (where it reads
 * its requests), too often in the rest, and it would be woken out of
 * epoll_wait to stop when it had blocked meanwhile. */
static void late_picks(struct sampler *sp, int here, bool slept)
{
	size_t i;

	for (i = 0; i < sp->nlate; i++) {
		struct thread *t = sp->late[i].t;
		uint64_t before = t->run_mark;
		int cpu = -1;
		char state = proc_state(t->stat_fd, &cpu, NULL);

		if (state == 'S' || state == 'D')
			t->blocked_n = sp->tick_n + 1;
		if (state != 'R' || !target_of(sp, t->proc, NULL))
			continue;
		/* Runnable at the tick, but did it run?  One woken up just
		 * before, that waits for a CPU, would stop at the end of the
		 * call it waited in, with the CPU time of its earlier bursts.
		 * A thread that ran up to the tick was taken off its CPU
		 * there, which brought its run time up to date.  So was one
		 * on ctprof's own CPU, if ctprof slept there until the tick
		 * (SLEPT).  If it did not, the tick there was ctprof's waking
		 * up for the first read: the thread that ran then was seen
		 * runnable by it. */
		if (cpu == here && !slept ? !sp->late[i].was_running
				: thread_sched(t) == 0 && t->run_mark == before) {
			sp->stats.not_run++;
			continue;
		}
		t->last_cpu = cpu;
		t->idle_known = false;
		t->blocked_sample = false;
		sp->stats.late++;
		add_pick(sp, t, cpu);
	}
}

/* Has a pick from FIRST on CPU C? */
static bool picked_on(const struct sampler *sp, int c, size_t first)
{
	size_t i;

	for (i = first; i < sp->npicks; i++)
		if (sp->picks[i].cpu == c)
			return true;
	return false;
}

/* Ask the picked threads from FIRST on to stop, timed from when their
 * CPUs were taken (ctprof's own CPU, HERE: at HERE_SINCE), and let the
 * held CPUs go: all of them if ALL, else those that one of these picks
 * ran on at the take (WANT_GONE from then on).  A CPU ran one thread
 * then: what is left to read cannot have been on it. */
static void ask_stops(struct sampler *sp, uint64_t n, int here, uint64_t here_since, size_t first, bool all)
{
	struct kicker *k = &sp->kick;
	uint64_t t0 = now_ns(), t1;
	size_t i;
	int c;

	/* A helper that gave up before its CPU's stops were asked for let
	 * its threads run on, and their stops land where they next leave
	 * the kernel: claimed first, a helper holds on until
	 * kicker_let_go(), and one that gave up is known not to hold (its
	 * CPU's stops are put off).  With selftime pinned to one CPU and
	 * ctprof to the other, and a SCHED_FIFO thread on each spinning
	 * 20-100 us every 100-400 us, 200-245 of 3000 stops were asked for
	 * after the helper gave up, and the call's share was 13.8 points
	 * above its own clock's in one run; once claimed, -1.0 to +6.1 in
	 * four. */
	for (c = 0; c < k->ncpus; c++) {
		sp->going[c] = sp->want[c] == WANT_HELD && (all || picked_on(sp, c, first));
		if (sp->going[c] && !kicker_claim(k, c, n)) {
			kicker_let_go(k, c, n);
			sp->want[c] = WANT_NONE;
			sp->going[c] = false;
			sp->stats.gave_up++;
		}
	}
	for (i = first; i < sp->npicks; i++) {
		struct pick *pk = &sp->picks[i];

		if (pk->cpu == here)
			interrupt_one(sp, pk->t, here_since, true);
		else if (pk->cpu >= 0 && pk->cpu < k->ncpus && sp->going[pk->cpu])
			interrupt_one(sp, pk->t, sp->since[pk->cpu], true);
		else if (!put_off(sp, pk->t))
			interrupt_one(sp, pk->t, 0, false);
	}
	t1 = now_ns();
	sp->stats.part_ns.interrupt += t1 - t0;
	for (c = 0; c < k->ncpus; c++) {
		if (!sp->going[c])
			continue;
		sp->want[c] = WANT_GONE;
		if (kicker_let_go(k, c, n))
			continue;
		/* It left before the stops were asked for. */
		for (i = first; i < sp->npicks; i++)
			if (sp->picks[i].cpu == c && sp->picks[i].t->sample_wanted) {
				sp->stats.preempted--;
				count_unheld(sp, sp->picks[i].t);
			}
	}
	sp->stats.part_ns.letgo += now_ns() - t1;
}

/* Wait for CPU C's helper to take it at tick N, which it was to at T_NS:
 * true, with sp->since[c] the moment it did, or false.
 *
 * Until hold_max_ns after T_NS, the last moment the helper takes it
 * (kick.c), where ctprof used to wait half of that.  A thread in kernel
 * code when its CPU's helper wakes goes on until it sleeps or returns to
 * user space, on a kernel that does not preempt its own code, and the
 * helper takes the CPU then: a stop asked for after that lands in the
 * call it was in, and a thread found asleep is counted in the call it
 * sleeps in (slept_after_tick()).  tests/targets/pollsleep (a ppoll()
 * that works 85 us in the kernel before it sleeps) pinned to CPU 0,
 * ctprof to CPU 1, with the switches and system calls traced (tracefs):
 * of the 360-370 ticks of a run that came in that work, 82-101 went
 * uncounted with the shorter wait (the helper took the CPU 100-130 us
 * after the tick, as the thread went to sleep, and the stop was put off),
 * 16-29 with this one.  Untraced, six alternating runs each: the call had
 * 41.8-47.4% of ctprof's reports (median 44.6%), 37-100 stops put off;
 * now 44.8-47.9% (46.8%), 17-21; 51.6-51.9% by its own clock.
 *
 * But a CPU whose helper came too late at the last MISSED_MAX ticks (a
 * thread of a higher real-time priority holds it) is waited for half of
 * that, as before: with a busy SCHED_FIFO target thread on one CPU and
 * ctprof on the other, ctprof spent 155 us a sample in this wait when it
 * waited the whole time at every tick; so, 48-61 us (40-61 under the
 * commit before, three alternating runs).  Not less: a quarter cut that
 * to 7-14 us, but where a helper takes 50 us or more to wake (a slower
 * host), a CPU in that state would give up on every helper, never see
 * one in time again, and stay so. */
static bool wait_take(struct sampler *sp, int c, uint64_t n, uint64_t t_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t wait = sp->missed[c] < MISSED_MAX ? k->hold_max_ns : k->hold_max_ns / 2;

	if (kicker_wait_hold(k, c, n, t_ns + wait, &sp->since[c])) {
		sp->missed[c] = 0;
		return true;
	}
	if (sp->missed[c] < MISSED_MAX)
		sp->missed[c]++;
	return false;
}

/* Stop the picked threads where they were at tick N (at T_NS), not where
 * they next leave the kernel: those on ctprof's own CPU (HERE) are off it
 * already, since ctprof woke at WOKE_NS; every other CPU that runs one,
 * or may by the tick, is held by its helper.  With the CPUs held, the
 * late candidates are read again, the threads are asked to stop, and the
 * CPUs let go.  See kick.h for why. */
static void interrupt_picks(struct sampler *sp, uint64_t n, uint64_t t_ns, int here, uint64_t woke_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t t0 = now_ns(), t1, slept0 = sp->stats.part_ns.tick_sleep;
	bool slept = false, shared = false;
	size_t i;
	int c;

	if (!sp->kicking) {
		late_picks(sp, here, false);
		t1 = now_ns();
		sp->stats.part_ns.late += t1 - t0;
		for (i = 0; i < sp->npicks; i++)
			interrupt_one(sp, sp->picks[i].t, 0, false);
		sp->stats.part_ns.interrupt += now_ns() - t1;
		return;
	}
	memset(sp->want, 0, (size_t)k->ncpus);
	/* Holding only where it counts, unless a thread shares ctprof's CPU
	 * and the threads compete for the CPUs. */
	for (i = 0; i < sp->npicks + sp->nlate && !shared && competing(sp, n); i++)
		shared = (i < sp->npicks ? sp->picks[i].cpu : sp->late[i - sp->npicks].cpu) == here;
	for (i = 0; i < sp->npicks + sp->nlate; i++) {
		const struct pick *pk = i < sp->npicks ? &sp->picks[i] : &sp->late[i - sp->npicks];

		c = pk->cpu;
		if (c >= 0 && c < k->ncpus && c != here && !sp->want[c] && (shared || wants_hold(pk->t)))
			sp->want[c] = kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
	}
	/* A thread read again at the tick may have woken up on another CPU
	 * than it was last seen on, and one that then runs unheld has no
	 * up-to-date run time to tell: hold every CPU that a thread of the
	 * target ran on lately, and no other. */
	if (sp->nlate)
		for (i = 0; i < sp->session->nthreads; i++) {
			const struct thread *t = &sp->session->threads[i];

			c = t->last_cpu;
			if (c >= 0 && c < k->ncpus && c != here && !sp->want[c] && t->ran_n &&
			    sp->tick_n + 1 - t->ran_n <= RECENT_TICKS && (shared || wants_hold(t)))
				sp->want[c] = kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
		}
	/* Helpers with nothing to hold go back to sleep as they wake. */
	for (c = 0; c < k->ncpus; c++)
		if (sp->want[c] != WANT_READY)
			kicker_skip(k, c, n);
	/* Early: sleep until the tick rather than spin until the helpers
	 * hold their CPUs (they wake at the tick, a wake-up's latency as
	 * late as ctprof).  What runs on ctprof's own CPU meanwhile runs
	 * until ctprof wakes, as a helper would take it. */
	if (t_ns > now_ns() + SLEEP_MIN_NS) {
		struct timespec ts = {
			.tv_sec = (time_t)(t_ns / 1000000000ULL),
			.tv_nsec = (long)(t_ns % 1000000000ULL),
		};

		uint64_t s0 = now_ns();

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		woke_ns = now_ns();
		sp->stats.part_ns.tick_sleep += woke_ns - s0;
		slept = true;
		if (sched_getcpu() != here)
			here = -2;      /* moved: nothing of the target's is held here */
	}
	for (c = 0; c < k->ncpus; c++) {
		sp->since[c] = 0;
		if (sp->want[c] == WANT_READY && wait_take(sp, c, n, t_ns))
			sp->want[c] = WANT_HELD;
	}
	t1 = now_ns();
	sp->stats.part_ns.holds += t1 - t0 - (sp->stats.part_ns.tick_sleep - slept0);
	late_picks(sp, here, slept);
	t0 = now_ns();
	sp->stats.part_ns.late += t0 - t1;
	ask_stops(sp, n, here, woke_ns, 0, true);
	/* Helpers cannot run here (no real-time priority for them after
	 * all): no lead, no holds from now on. */
	if (k->disabled)
		sp->kicking = false;
}

/* How long before tick n ctprof wakes up. */
static uint64_t lead(const struct sampler *sp)
{
	if (!sp->kicking || sp->at_tick)
		return 0;
	return sp->need_ns < sp->period_ns / 2 ? sp->need_ns : sp->period_ns / 2;
}

/* Tick N, at T_NS: ctprof woke at WOKE_NS, the lead before it. */
/* ctprof dump: the threads chosen are asked to stop DUMP_BATCH at a time,
 * and each batch is waited for (at most DUMP_BATCH_WAIT_NS) before the
 * next.  Asked all at once, the threads stop together and each waits,
 * stopped, for its turn to be copied: on 1004 threads each stop lasted
 * over 10 ms and they spread over 60 to 140 ms.  A thread that does not
 * stop within its batch's wait (in uninterruptible sleep) is taken when it
 * does, within the dump's second. */
static void interrupt_in_batches(struct sampler *sp)
{
	struct session *s = sp->session;
	size_t i, n = sp->npicks;
	pid_t *tids = xmalloc((n + 1) * sizeof(*tids));
	unsigned carried = s->waiting;
	uint64_t t0;

	/* Reaping may grow the thread table and move the threads. */
	for (i = 0; i < n; i++)
		tids[i] = sp->picks[i].t->tid;
	sp->npicks = 0;
	for (i = 0; i < n; i++) {
		struct thread *t = session_thread(s, tids[i]);

		t0 = now_ns();
		if (t && session_interrupt(s, t) == 0)
			sp->stats.unheld++;
		sp->stats.part_ns.interrupt += now_ns() - t0;
		if ((i + 1) % DUMP_BATCH && i + 1 < n)
			continue;
		session_wait_samples(s, 0, DUMP_BATCH_WAIT_NS, -1, carried);
		carried = s->waiting;
	}
	free(tids);
}

/* Reading after the tick: the helpers take their CPUs sp->delay_ns after
 * the tick, so as to hold them from about when the sampler (woken at
 * WOKE_NS) comes to read the threads, not from the tick: what a helper
 * holds before that is stall and CPU the target loses.  The sampler is
 * as late as its wake-up, which is slower on an idle CPU than the
 * helper's on a busy one (28 against 14 us, median, here).  On a busy
 * thread at 999 Hz, with no delay, its helper used 37 us of CPU per
 * sample and the median stall was 43.5 us, against 14.5 and 22.5 us
 * when ctprof woke before the tick; with the delay (about 10 us) and
 * choose() reading schedstat alone, 20 and 26.5 us, and 27 and 34.5 us
 * with the same reads but no delay.  Where the sampler's
 * CPU is busy, its wake-up is as fast as the helpers' and the delay
 * falls to nothing (0.7 us on average, attached to redis-server under
 * redis-benchmark): it never comes early to take a CPU from another
 * program.  The delay follows the sampler's arrival minus the helper's
 * take (TAKE_NS) so that the sampler comes first about a quarter of the
 * time (and waits, on its own CPU) and later the rest (and the helper
 * waits, on the target's).
 *
 * That is only while the sampler's CPU is idle, though (watch_idle()).
 * Where it runs another program, the sampler that comes before the take
 * preempts that program first, and the take finds the target as that
 * left it: a client held up, a server out of requests.  The sampler's
 * wake-up is then no faster whenever that program is in the kernel (the
 * interrupt reaches it only when it leaves), and the delay climbed all
 * the same: attached to redis-server under redis-benchmark, 7 of 28 runs
 * had a delay of 10.6-20.4 us on average, and in all seven redis was
 * sampled at 0.44-0.88 of its CPU time's ticks, with epoll_wait at
 * 27.9-46.1% of its profile against perf's 22.7-26.3%; perf -a showed
 * redis alone on one CPU, the sampler sharing the other with
 * redis-benchmark.  Placed so (taskset) with the delay held fixed, two
 * runs each: 0 us, distance to perf's profile 0.037 and 0.044, samples
 * 1.11 and 1.08 of the ticks; 5 us, 0.049 and 0.046; 10 us, 0.103 and
 * 0.078; 18 us, 0.259 and 0.181 (0.39 and 0.48 of the ticks).  With
 * redis and redis-benchmark both on the other CPU, the sampler's own
 * idle, 18 us and 0 us made no difference (0.079 and 0.108 against
 * 0.084 and 0.137).  Where the sampler's CPU is idle, the delay is what
 * it saves: a busy thread that enters the kernel between bursts of
 * work (tests/targets/selftime.c syscall, held at every sample), four
 * alternating runs at 999 Hz, was stopped for 29.5-54.5 us (median of
 * each run) with the delay as it follows the arrivals (11-30 us), and
 * 48.5-85.5 us with none; its helper used 26-43 us of CPU a sample
 * against 42-75.  (Where the delay settles moves from run to run: 2-38
 * us in eight later runs, the stall 35.5 us at 2 us and 58.5 at 35.)
 * Attached to redis as placed by the scheduler, ten alternating runs
 * each: distance 0.032-0.052 (median 0.040) and samples 1.06-1.15 of the
 * ticks with this rule, delay 0.0-0.4 us; 0.029-0.089 (0.045) and
 * 0.80-1.11 without, two runs with the delay at 10.2 and 11.6 us, sampled
 * at 0.80 and 0.98. */
static void follow_arrival(struct sampler *sp, uint64_t woke_ns, uint64_t take_ns)
{
	uint64_t max = sp->period_ns / 8 < DELAY_MAX_NS ? sp->period_ns / 8 : DELAY_MAX_NS;

	if (!sp->delay_ok)
		max = 0;
	else if (woke_ns > take_ns + DELAY_STEP_NS)
		sp->delay_ns += DELAY_STEP_NS;
	else if (take_ns > woke_ns)
		sp->delay_ns -= sp->delay_ns < 3 * DELAY_STEP_NS ? sp->delay_ns : 3 * DELAY_STEP_NS;
	if (sp->delay_ns > max)
		sp->delay_ns = max;
	kicker_set_delay(&sp->kick, sp->delay_ns);
}

/* /proc/stat cannot be read (WHY): the helpers are never delayed, which
 * is the accurate side (see follow_arrival()), at the cost of longer
 * stops where ctprof's CPU is idle. */
static void no_cpustat(struct sampler *sp, const char *why)
{
	verbose_msg("/proc/stat: %s: the helpers take their CPUs at the tick, not when ctprof comes (longer stops where its CPU is idle)",
		    why);
	sp->delay_ok = false;
	sp->delay_ns = 0;
	kicker_set_delay(&sp->kick, 0);
}

/* Reading after the tick: did other programs run on the sampler's CPU at
 * most a fifth of the time (the rest idle, or the sampler)?  Then the
 * helpers may wait for it (follow_arrival()): a sampler that comes early
 * seldom preempts one.  Its idle time is read from /proc/stat (8-11 us a
 * read here, the machine busy) once in IDLE_WINDOW_NS, after the tick's
 * samples are taken, in clock ticks (10 ms): over 200 ms, that tells an
 * idle CPU (85-95% idle, the sampler 6-7% of it, with selftime on the
 * other CPU) from a busy one (0-5% idle, attached to redis).  A CPU the
 * sampler left between two reads is seen as it was at the second. */
static void watch_idle(struct sampler *sp)
{
	uint64_t now = now_ns(), own, *swap;
	int c = sp->here;

	/* For every_cpu_found(), as often. */
	if (now - sp->online_read_ns >= IDLE_WINDOW_NS) {
		sp->online = get_nprocs();
		sp->online_read_ns = now;
	}
	if (sp->cpustat_fd < 0 || sp->clock_tick <= 0 || now - sp->idle_read_ns < IDLE_WINDOW_NS)
		return;
	own = thread_cpu_ns();
	memcpy(sp->idle_now, sp->idle_mark, (size_t)sp->kick.ncpus * sizeof(*sp->idle_now));
	if (proc_cpus_idle(sp->cpustat_fd, sp->idle_now, sp->kick.ncpus) < 0) {
		close(sp->cpustat_fd);
		sp->cpustat_fd = -1;
		no_cpustat(sp, "no cpuN lines read");
		return;
	}
	if (sp->idle_read_ns && c >= 0 && c < sp->kick.ncpus) {
		uint64_t ticks = sp->idle_now[c] > sp->idle_mark[c] ? sp->idle_now[c] - sp->idle_mark[c] : 0;
		uint64_t free_ns = ticks * (1000000000ULL / (uint64_t)sp->clock_tick) + own - sp->own_mark;
		uint64_t window = now - sp->idle_read_ns;

		sp->delay_ok = free_ns >= window || 5 * (window - free_ns) <= window;
		if (!sp->delay_ok && sp->delay_ns) {
			sp->delay_ns = 0;
			kicker_set_delay(&sp->kick, 0);
		}
	}
	swap = sp->idle_mark;
	sp->idle_mark = sp->idle_now;
	sp->idle_now = swap;
	sp->idle_read_ns = now;
	sp->own_mark = own;
}

/* Reading after the tick: ctprof woke up for tick N at T_NS.  It wakes
 * no earlier: whatever it does before the tick changes what the target
 * does at the tick.  Woken a lead before it, to read which threads run
 * where (the other way, below), ctprof took a CPU from redis-benchmark
 * for tens of microseconds before each tick, and redis-server, out of
 * requests, had gone to sleep by the tick: it ran at 12% of the ticks
 * where it ran 55-60% of the time, and its profile was far from perf's
 * (0.16, where 0.02 is sampling's own).  Even waking 27 us before the
 * tick only to be there at it (a wake-up is that late here), spinning
 * or sleeping again until the tick, cut redis's samples to a quarter of
 * what it got waking at the tick.  So the helpers take the CPUs at the
 * tick (or the delay after it that follow_arrival sets), ctprof comes
 * when it wakes and waits until the helpers hold the CPUs planned for
 * this tick (plan_holds). */
static void ready_at_tick(struct sampler *sp, uint64_t n, uint64_t t_ns)
{
	struct kicker *k = &sp->kick;
	uint64_t t0;
	int c;

	t0 = now_ns();
	memset(sp->take_known, 0, (size_t)k->ncpus);
	for (c = 0; c < k->ncpus; c++) {
		sp->since[c] = 0;
		if (sp->want[c] != WANT_READY)
			continue;
		if (c == sp->here) {
			/* ctprof woke on another CPU than it slept on, one
			 * planned for a helper: ctprof took it itself,
			 * unless that helper did first. */
			if (kicker_wait_hold(k, c, n, 0, &sp->since[c]))
				sp->want[c] = WANT_HELD;
			else {
				kicker_skip(k, c, n);
				sp->want[c] = WANT_NONE;
			}
		} else if (wait_take(sp, c, n, t_ns + sp->delay_ns)) {
			sp->want[c] = WANT_HELD;
			follow_arrival(sp, sp->woke_ns, sp->since[c]);
		}
	}
	sp->stats.part_ns.holds += now_ns() - t0;
}

/* Was a thread of the target found on every CPU online at the take:
 * ctprof's own, or one held and let go (ask_stops())?  Then no other
 * was on a CPU at the tick. */
static bool every_cpu_found(const struct sampler *sp)
{
	int c, found = 0;

	for (c = 0; c < sp->kick.ncpus; c++)
		found += c == sp->here ? picked_on(sp, c, 0) : sp->want[c] == WANT_GONE;
	return sp->online > 0 && found >= sp->online;
}

/* Reading after the tick: ask the threads chosen to stop, and let the
 * CPUs go; with DEFERRED threads left to read (choose()), first those
 * CPUs whose threads were found, then, having read the rest, the others.
 * The rest are not read at all where a thread of the target was found
 * on every CPU: none of them can have been on one at the tick, and one
 * that ran since its last read is read in full at the next tick that
 * reads it.  With bench/threads64.c (4 busy threads, 60 idle ones, on 2
 * CPUs, so that nearly every tick finds one on each) at 999 Hz, ctprof
 * spent 24 us a sample choosing, most of it reading the idle ones, and 9
 * without; five alternating runs each: ctprof's CPU 72-77 us a sample
 * against 87-91, the busy threads' work 6.21-6.34 million loops against
 * 6.05-6.14.  Returns false if waiting for the stops must not spin. */
static bool interrupt_at_tick(struct sampler *sp, uint64_t n, size_t deferred)
{
	struct session *s = sp->session;
	uint64_t since = taken_at(sp, sp->here), t0;
	size_t first = 0, i;
	bool spin = true;

	if (deferred) {
		ask_stops(sp, n, sp->here, since, 0, false);
		first = sp->npicks;
		t0 = now_ns();
		if (every_cpu_found(sp)) {
			for (i = 0; i < s->nthreads; i++)
				s->threads[i].deferred = false;
			sp->stats.idle_unread += deferred;
		} else {
			spin = choose(sp, true, &deferred);
		}
		sp->stats.part_ns.choose += now_ns() - t0;
	}
	ask_stops(sp, n, sp->here, since, first, true);
	return spin;
}

/* Reading after the tick: the CPUs the helpers take at tick N, which
 * must be known before it.  Every CPU a thread of a target ran on
 * lately (one that runs in bursts may wake up on any of them) and that
 * wants holding; every such CPU if one of them is the sampler's own
 * (see "Holding only where it counts"), which the sampler takes itself. */
static void plan_holds(struct sampler *sp, uint64_t n)
{
	struct kicker *k = &sp->kick;
	bool shared = false;
	size_t i;
	int c;

	memset(sp->want, 0, (size_t)k->ncpus);
	if (!k->disabled && competing(sp, n))
		for (i = 0; i < sp->session->nthreads && !shared; i++) {
			const struct thread *t = &sp->session->threads[i];

			shared = t->last_cpu == sp->here && !t->exiting && t->ran_n && n <= t->ran_n + RECENT_TICKS;
		}
	if (!k->disabled)
		for (i = 0; i < sp->session->nthreads; i++) {
			const struct thread *t = &sp->session->threads[i];

			c = t->last_cpu;
			if (!(c >= 0 && c < k->ncpus && !sp->want[c] && !t->exiting && t->ran_n &&
			      n <= t->ran_n + RECENT_TICKS && (shared || wants_hold(t)) &&
			      target_of(sp, t->proc, NULL)))
				continue;
			/* ctprof wakes up on its own CPU (a real-time thread
			 * goes back to the CPU it left, where nothing runs
			 * above it) and takes it there before a helper
			 * could: with two busy threads on 2 CPUs at 999 Hz,
			 * that helper came first at none of 3541 ticks, and
			 * only cost the thread there its wake-up at every
			 * tick.  Without it (8 alternating runs each), the
			 * helpers used 21.4 us of CPU a sample instead of
			 * 24.0 (medians); the threads' slowdown, 1.17
			 * against 1.18, moved less than the runs did. */
			sp->want[c] = c == sp->here ? WANT_SELF : kicker_want(k, c) ? WANT_READY : WANT_UNREADY;
		}
	for (c = 0; c < k->ncpus; c++)
		if (sp->want[c] != WANT_READY)
			kicker_skip(k, c, n);
}

/* A new epoch of the maps (maps.h): once a tick, or with the perf
 * trigger once a batch of samples; a process that exec'd starts anew. */
static void next_epoch(struct sampler *sp)
{
	drop_old_image(sp);
	for (size_t i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		tgt->maps.epoch++;
		if (tgt->proc->exec_seen) {
			tgt->proc->exec_seen = false;
			if (tgt->unwind_state)
				maps_exec(&tgt->maps);
		}
	}
}

static void tick(struct sampler *sp, uint64_t n, uint64_t t_ns, uint64_t woke_ns)
{
	struct session *s = sp->session;
	int here = sched_getcpu();
	uint64_t t0;
	unsigned nhere = 0, nheld = 0;
	bool spin, crowd = false, slow = !sp->at_tick || s->waiting;
	size_t i, deferred;

	/* Both ways of reading: note_wait() leaves out this CPU's threads. */
	sp->here = here;
	if (sp->at_tick) {
		sp->woke_ns = woke_ns;
		sp->tick_ns = t_ns;
		sp->tick_delay_ns = sp->delay_ns;
		ready_at_tick(sp, n, t_ns);
	}

	next_epoch(sp);
	/* The watchdog: a thread that never stops is given up. */
	session_drop_stale(s, STOP_TIMEOUT_NS);
	sp->tick_n = n;
	t0 = now_ns();
	spin = choose(sp, false, &deferred);
	sp->stats.part_ns.choose += now_ns() - t0;
	if (sp->once) {
		interrupt_in_batches(sp);
		unwind_captures(sp);
		return;
	}
	if (sp->at_tick) {
		spin = interrupt_at_tick(sp, n, deferred) && spin;
	} else if (sp->kicking) {
		/* What the lead must cover: ctprof's lateness in waking up,
		 * and the reads above.  The lead follows its 75th
		 * percentile: later, the helpers hold a little longer;
		 * earlier, ctprof spins until the tick. */
		uint64_t need = now_ns() - (t_ns - lead(sp));

		if (need > sp->need_ns)
			sp->need_ns += LEAD_STEP_NS * 3 / 4;
		else if (sp->need_ns > LEAD_STEP_NS)
			sp->need_ns -= LEAD_STEP_NS / 4;
	}
	if (!sp->at_tick)
		interrupt_picks(sp, n, t_ns, here, woke_ns);
	for (i = 0; i < sp->npicks; i++) {
		const struct pick *pk = &sp->picks[i];

		if (!pk->t->sample_wanted)
			continue;
		if (pk->cpu < 0 || pk->cpu == here) {
			nhere++;
			slow = slow || crowded(sp, here);
		} else if (crowded(sp, pk->cpu)) {
			crowd = slow = true;
		} else if (pk->t->asked_held) {
			nheld++;
		}
	}
	/* A thread on ctprof's own CPU runs to its stop only once ctprof
	 * sleeps, and its stop wakes ctprof up again; the threads whose
	 * CPUs were held stop as soon as their helpers let go.  Taken
	 * first, spinning, they are stopped for that long and not also for
	 * the other's way to its stop and ctprof's wake-up: with two busy
	 * threads on 2 CPUs at 999 Hz, the median stall went from 110 to 70
	 * us (eight alternating runs each), and the thread that shares
	 * ctprof's CPU waits as it did, behind ctprof. */
	if (spin && nhere && nheld && s->waiting >= nheld && sp->stats.realtime)
		session_wait_samples(s, SPIN_HELD_NS, 0, -1, s->waiting - nheld);
	if (nhere || crowd)
		spin = false;
	/* Spin for the stops only if no thread to stop shares our CPU: it
	 * could not run to its stop while ctprof (SCHED_FIFO) spins.  A
	 * thread that is runnable but waiting for a CPU stops only when it
	 * gets one, which can take a scheduler slice: wait at most half a
	 * period, then take its stop whenever it comes.  Its PC is the same:
	 * it has not run meanwhile.  So is one whose CPU is let go where
	 * another thread of the target waits for it (crowded()): the
	 * scheduler may give it to that one first, and no spin is worth
	 * that wait.  bench/threads64.c (4 busy threads on 2 CPUs) at 999
	 * Hz spun 14.6 us a sample for such stops, and ctprof used 114 us
	 * of CPU a sample (median of six alternating runs, 103-126) against
	 * 106 (91-111) without that spin; the busy threads' work and their
	 * stalls did not move beyond the runs' own.
	 *
	 * Where no thread of the target was found waiting for the CPU of a
	 * stop asked for, at the tick, and no stop of an earlier tick is
	 * still to come (its thread waits for a CPU too), the stops come
	 * within microseconds, and the wait has no timer of its own: it ends
	 * at the latest when the next tick's fires (set_timer(); the two
	 * periods only bound a timer that could not be set).  A timer of its
	 * own, set and taken back at every tick, was two writes to the CPU's
	 * timer device (see set_timer()).  Otherwise the half-period timer
	 * stays: its wake-up is a point where the scheduler may let the
	 * thread whose stop is waited for run.  On bench/threads64.c without
	 * it, the mean stall was 615-661 us against 538-555 (four runs
	 * each); without it only where a stop of an earlier tick was still to
	 * come, 616-643 against 545-551. */
	if (s->waiting && slow)
		session_wait_samples(s, spin && sp->stats.realtime ? SPIN_NS : 0, sp->period_ns / 2, -1, 0);
	else if (s->waiting)
		session_wait_samples(s, spin && sp->stats.realtime ? SPIN_NS : 0, 2 * sp->period_ns,
				     sp->tfd[(n + 1) & 1], 0);
	unwind_captures(sp);
	if (sp->cputime && n >= sp->settle_n) {
		t0 = now_ns();
		settle_all(sp);
		sp->settle_n = n + sp->frequency;
		sp->stats.part_ns.settle += now_ns() - t0;
	}
}

/* The throttle, after tick N is taken: how many ticks to leave out.
 *
 * ctprof's CPU time since the last tick taken (the sampler's, the
 * helpers', the stops' and their unwinding) is time it kept from the
 * target, whose threads also wait in their stops meanwhile.  At 5000 Hz,
 * four busy threads of bench/workload.c on 2 CPUs ran 2.52 times as
 * long as alone (5.61 s against 2.23), ctprof using half a CPU, where
 * perf record --call-graph dwarf, which the kernel holds to a quarter of
 * each CPU's time (perf_cpu_time_max_percent), had them take 1.15 times
 * as long.  Where ctprof's CPU time per CPU that the target ran on (the
 * samples of a tick, up to the CPUs online; a mean over the last ticks
 * taken) is more than a THROTTLE_SHARE-th of the period, as many ticks
 * as bring it under are left out after each one taken.  So a target
 * with a thread busy on each of 64 CPUs may cost ctprof a whole CPU at
 * each tick and not be throttled: it loses a 64th of its time, as it
 * would to perf.  By the time per sample instead, whatever the CPUs,
 * the four threads took 4.69 s at 5000 Hz: ctprof's 36 us a sample
 * under a quarter of the period, at 2.5 samples a tick on 2 CPUs.
 * Samples weigh the CPU time since the thread's last one, so the shares
 * do not change; fewer ticks take them.  A tick's time counts up to what
 * passed since the last one taken: the first ticks, which load the
 * unwinder's tables, do not set it off.  The stops ctprof did not ask
 * for are left out of it (session other_ns): the target's signals, its
 * clones and exits stop it under ptrace at any rate, and leaving ticks
 * out would not save them.  tests/targets/lang/preempt.go, whose garbage
 * collections send 4000-7000 signals a second, 16-27 us of ctprof's CPU
 * each, had 61-69% of its ticks left out at 999 Hz; 0-42% without them
 * (18 runs; its collections vary from run to run). */
static uint64_t throttle(struct sampler *sp, uint64_t n)
{
	uint64_t cpu = cpu_time_ns(), samples = sp->stats.samples, used, span, d, k, other;
	uint64_t budget = sp->period_ns / THROTTLE_SHARE;

	if (!sp->throttle_n) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		sp->throttle_cpus = online > 1 ? (uint64_t)online : 1;
		sp->throttle_n = n + 1;
		sp->throttle_cpu = cpu;
		sp->throttle_other = sp->session->other_ns;
		sp->throttle_samples = samples;
		return 0;
	}
	used = cpu - sp->throttle_cpu;
	other = sp->session->other_ns - sp->throttle_other;
	used = used > other ? used - other : 0;
	span = (n + 1 - sp->throttle_n) * sp->period_ns;
	sp->stats.taken_cpu_ns += used;
	sp->stats.taken++;
	if (used > span)
		used = span;
	d = samples - sp->throttle_samples;
	if (d > sp->throttle_cpus)
		d = sp->throttle_cpus;
	if (d > 1)
		used /= d;
	sp->throttle_n = n + 1;
	sp->throttle_cpu = cpu;
	sp->throttle_other = sp->session->other_ns;
	sp->throttle_samples = samples;
	sp->busy_avg_ns += used / 8 - sp->busy_avg_ns / 8;
	if (sp->once || sp->busy_avg_ns <= budget)
		return 0;
	k = (sp->busy_avg_ns + budget - 1) / budget - 1;
	return k < THROTTLE_MAX ? k : THROTTLE_MAX;
}

void sampler_settle(struct sampler *sp)
{
	if (sp->cputime)
		settle_all(sp);
}

/* The sampler must outrank its target: on 2 vCPUs, a woken sampler queued
 * behind a busy target sampled late (626 missed ticks) and wrong (28% where
 * the target was busy 53% of the time); with SCHED_FIFO, 8 and 54%.  Not
 * inherited by anything ctprof starts (SCHED_RESET_ON_FORK).  0, or the
 * errno of the nice value's refusal. */
static int raise_priority(struct sampler *sp)
{
	struct sched_param p = { .sched_priority = SAMPLER_PRIO };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0) {
		sp->stats.realtime = true;
		return 0;
	}
	return setpriority(PRIO_PROCESS, 0, -10) < 0 ? errno : 0;
}

static void lower_priority(void)
{
	struct sched_param p = { .sched_priority = 0 };

	sched_setscheduler(0, SCHED_OTHER, &p);
}

/* The calling thread's CPU time, in nanoseconds. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ctprof's CPU time (user + system), in nanoseconds. */
static uint64_t cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Set the timer of tick N (tfd[N & 1]), unless it is set for it already.
 *
 * Two timers, each set two ticks ahead, because setting a timer that
 * comes before every other one on the CPU reprograms the CPU's timer
 * device, and that is a write to the TSC deadline MSR: 8-10 us on this
 * VM, traced (msr:write_msr), as long as the work of a helper's tick.  The
 * interrupt of tick N programs the device for the next timer queued on
 * the CPU anyway: with the timer of tick N + 1 queued by then, it is
 * that one, and setting tick N + 2's after it programs nothing.  Nor
 * does the wait for the stops where it ends at the next tick's timer
 * rather than at a timeout of its own, which was a write to program it
 * and another to take it back (tick()).  With two busy threads on 2
 * CPUs, that is three writes of five on ctprof's CPU at each tick. */
static int set_timer(struct sampler *sp, uint64_t n)
{
	int i = (int)(n & 1);

	if (sp->tfd_tick[i] == n)
		return 0;
	sp->tfd_tick[i] = n;
	return timerfd_set_at(sp->tfd[i], tick_time(sp->t0, sp->period_ns, n) - lead(sp));
}

static void clear_timers(struct sampler *sp)
{
	for (int i = 0; i < 2; i++) {
		timerfd_set_at(sp->tfd[i], 0);
		sp->tfd_tick[i] = UINT64_MAX;
	}
}

/* Start the helpers that take CPUs from the target at each tick, on
 * the grid that starts at T0; only with a real-time priority, which
 * they need as much as the sampler does.  Not with --wall: it reads
 * every thread at every tick, so its lead would grow with the threads
 * (300 idle ones: ~0.7 ms), and threads read running that long before
 * the tick and blocked by their stop were stopped again at the next
 * tick: 445-745 stops of 300 idle threads where 385-625 were before.
 * A wall-clock profile is about where threads wait. */
static void start_kicking(struct sampler *sp, uint64_t t0)
{
	if (sp->wall || !sp->stats.realtime ||
	    kicker_init(&sp->kick, t0, sp->period_ns, HELPER_PRIO) < 0)
		return;
	sp->want = xcalloc((size_t)sp->kick.ncpus, 1);
	sp->since = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->since));
	sp->going = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->going));
	sp->crowded = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->crowded));
	sp->missed = xcalloc((size_t)sp->kick.ncpus, 1);
	sp->kicking = true;
	sp->need_ns = LEAD_FIRST_NS;
	/* Threads are read once their CPUs are taken if ctprof can tell a
	 * thread taken off its CPU then from one woken up since: by the
	 * moment each last left a CPU, in /proc/PID/task/TID/sched (always
	 * there since Linux 6.15; before, with CONFIG_SCHED_DEBUG).
	 * Otherwise they are read before the tick. */
	if (!sp->once) {
		uint64_t es;

		sp->self_sched_fd = proc_open_task_sched(getpid(), (pid_t)syscall(SYS_gettid));
		if (proc_exec_start(sp->self_sched_fd, &es) == 0) {
			sp->take_es = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->take_es));
			sp->take_known = xcalloc((size_t)sp->kick.ncpus, 1);
			sp->rq_offs = xcalloc((size_t)sp->kick.ncpus * RQ_OFFS, sizeof(*sp->rq_offs));
			sp->at_tick = true;
			sp->cpustat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
			if (sp->cpustat_fd < 0)
				no_cpustat(sp, strerror(errno));
			sp->idle_mark = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->idle_mark));
			sp->idle_now = xcalloc((size_t)sp->kick.ncpus, sizeof(*sp->idle_now));
			sp->clock_tick = sysconf(_SC_CLK_TCK);
		}
	}
}

/* The first tick's holds.  A helper starts when its CPU is first wanted
 * (kicker_want()) and sleeps until the tick after, so every thread's first
 * stop was put off (put_off()), its CPU time left to its next sample: a
 * program run for 1.6 s at 1 Hz (tests/targets/ratio3.c) had no sample
 * at all.  The helpers of the CPUs that the target's threads run on now
 * start a period before the first tick, which holds those CPUs as the
 * ticks after it do (plan_holds()). */
static void plan_first_holds(struct sampler *sp)
{
	struct session *s = sp->session;
	int cpu;

	if (!sp->kicking || sp->once)
		return;
	sp->here = sched_getcpu();
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (proc_state(t->stat_fd, &cpu, NULL) != 'R')
			continue;
		/* Seen running at tick 0, as choose_thread() notes it
		 * (tick_n + 1): plan_holds() holds the CPUs of threads
		 * seen running in the last RECENT_TICKS. */
		t->last_cpu = cpu;
		t->ran_n = 1;
		if (cpu != sp->here)
			kicker_want(&sp->kick, cpu);
	}
	if (sp->at_tick)
		plan_holds(sp, 0);
}

/* Decide what times the samples (--trigger; docs/DESIGN.md, "Choosing
 * the trigger") and, for the perf trigger, give every thread its event.
 * 0, or -errno where --trigger=perf was asked for and the kernel refuses
 * it.  --wall times blocked threads too, and a dump takes one stop of
 * each thread: both are the timer's. */
static int start_trigger(struct sampler *sp)
{
	struct session *s = sp->session;
	int err;

	sp->stats.trigger = TRIGGER_TIMER;
	if (sp->trigger_opt == TRIGGER_TIMER || sp->wall || sp->once)
		return 0;
	err = s->nthreads ? ktrigger_probe(s->threads[0].tid) : -ESRCH;
	if (err < 0) {
		sp->stats.perf_error = -err;
		return sp->trigger_opt != TRIGGER_AUTO ? err : 0;
	}
	sp->timed = true;
	srandom((unsigned)(now_ns() ^ (uint64_t)getpid()));
	sp->stats.trigger = TRIGGER_PERF;
	sp->ktrig.period_ns = sp->stats.timed_period_ns = sp->period_ns;
	/* Samples from rings stop no thread (docs/DESIGN.md, "Rings"). */
	sp->ktrig.user_rings = sp->trigger_opt != TRIGGER_PERF_STOP;
	/* Kernel-mode ticks into rings where the kernel allows it; else the
	 * [kernel] rows. */
	sp->ktrig.kernel = ktrigger_probe_kernel(s->threads[0].tid) == 0;
	sp->stats.kernel_rings = sp->ktrig.kernel;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		t->ev_run0 = t->run_known ? t->run_first : 0;
		ktrigger_open(&sp->ktrig, t, true);
	}
	s->ktrig = &sp->ktrig;
	s->on_timed = capture_timed;
	return 0;
}

/* The perf trigger's end: no event left, none of their signals left
 * for the program, and each thread's time in the kernel in its [kernel] row. */
static void stop_trigger(struct sampler *sp)
{
	struct session *s = sp->session;

	if (!sp->timed)
		return;
	/* No sample after the last read: one would be counted lost. */
	for (size_t i = 0; i < s->nthreads; i++)
		ktrigger_disable(&s->threads[i]);
	drain_rings(sp);
	for (size_t i = 0; i < s->nthreads; i++)
		sp->stats.untimed_threads += s->threads[i].ev_fd < 0 && !s->threads[i].exiting;
	sp->stats.stray_left = session_close_events(s, STRAY_WAIT_NS);
	s->ktrig = NULL;
	s->on_timed = NULL;
	for (size_t i = 0; i < s->nthreads; i++)
		if (!s->threads[i].exiting)
			kernel_row(sp, &s->threads[i]);
	sp->stats.timed_threads = sp->ktrig.opened;
	sp->stats.timed_by[0] = sp->ktrig.by_signal[0];
	sp->stats.timed_by[1] = sp->ktrig.by_signal[1];
	sp->stats.events_failed = sp->ktrig.failed;
	sp->stats.rings_refused = sp->ktrig.rings_refused;
	sp->stats.ring_threads = sp->ktrig.by_ring;
	sp->stats.ring_lost = sp->ktrig.ring_lost;
	sp->stats.kernel_in_stops = sp->ktrig.in_signal;
}

/* The perf trigger: thread T's event is closed, T lives on (it blocks
 * the event's signal now, or its exec's new image does).  Its time so far
 * is its event's samples' and its [kernel] row's; what follows, the
 * timer's samples'. */
static void to_timer(struct sampler *sp, struct thread *t)
{
	/* Seen to block it (ev_unsampled()): its time since it was last
	 * seen sampled is neither its event's nor the kernel's. */
	t->ev_run0 += t->ev_lag;
	kernel_row(sp, t);
	run_known(t);
	if (thread_sched(t) == 0)
		t->run_ns = t->run_mark > t->ev_lag ? t->run_mark - t->ev_lag : 0;
	t->ev_lag = 0;
	t->ev_timed = false;
}

/* The perf trigger: thread T ran three periods without a sample since it
 * was last looked at, EV_LOOK_NS ago or more, and its event's signal is
 * pending and blocked. */
static bool ev_unsampled(struct sampler *sp, struct thread *t, uint64_t now)
{
	uint64_t count;
	bool stuck;

	if (now - t->ev_look_ns < EV_LOOK_NS)
		return false;
	t->ev_look_ns = now;
	count = ktrigger_count(t);
	if (count < t->ev_look_count)
		t->ev_look_count = t->ev_sampled_count = 0;
	/* Its last sample came between the last look and this one: the
	 * middle, as its count goes. */
	if (t->ev_samples != t->ev_look_samples)
		t->ev_sampled_count = t->ev_look_count + (count - t->ev_look_count) / 2;
	stuck = t->ev_samples == t->ev_look_samples && count > t->ev_look_count + 3 * sp->ktrig.period_ns &&
		ktrigger_stuck(t);
	t->ev_look_samples = t->ev_samples;
	t->ev_look_count = count;
	t->ev_lag = stuck && count > t->ev_sampled_count ? count - t->ev_sampled_count : 0;
	return stuck;
}

/* The perf trigger: the timer runs only while a thread has no event (it
 * blocks every signal an event could send, or its event was refused).
 * Its ticks start again from the next one due, none counted missed. */
static void arm_for_untimed(struct sampler *sp, uint64_t *next_n, uint64_t *taken_n)
{
	struct session *s = sp->session;
	bool need = false;

	uint64_t now = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		if (t->exiting)
			continue;
		if (t->ev_fd >= 0) {
			if (!now)
				now = now_ns();
			if (t->ev_check_ns) {
				/* Born with every signal blocked: does it
				 * block its event's now that it runs? */
				if (now - t->ev_check_ns < EV_CHECK_NS)
					continue;
				t->ev_check_ns = 0;
				t->ev_look_ns = now;
			} else if (!ev_unsampled(sp, t, now)) {
				continue;
			}
			if (ktrigger_check(&sp->ktrig, t) == 0) {
				/* It keeps its event: a lag measured for a
				 * move that did not happen must not be taken
				 * off a later one. */
				t->ev_lag = 0;
				continue;
			}
			t->ev_retry_ns = now + EV_RETRY_FIRST_NS;
		}
		if (t->ev_timed)
			to_timer(sp, t);
		/* A thread is born with every signal blocked (glibc's
		 * pthread_create unblocks them as it starts): it is looked
		 * at again, less and less often, until it takes one. */
		if (!now)
			now = now_ns();
		if (now >= t->ev_retry_ns) {
			t->ev_backoff_ns = t->ev_backoff_ns ? t->ev_backoff_ns * 2 : EV_RETRY_FIRST_NS;
			if (t->ev_backoff_ns > EV_RETRY_MAX_NS)
				t->ev_backoff_ns = EV_RETRY_MAX_NS;
			t->ev_retry_ns = now + t->ev_backoff_ns;
			if (ktrigger_open(&sp->ktrig, t, true) == 0) {
				/* The timer's samples so far share the CPU
				 * time so far; the event's each have their own. */
				if (thread_sched(t) == 0) {
					t->ev_run0 = t->run_mark;
					if (sp->cputime && t->unsettled)
						settle(sp, t);
				}
				continue;
			}
		}
		need = true;
	}
	if (need == sp->timer_armed)
		return;
	sp->timer_armed = need;
	if (!need) {
		clear_timers(sp);
		return;
	}
	*next_n = tick_next(sp->t0, sp->period_ns, now_ns());
	*taken_n = *next_n ? *next_n - 1 : 0;
	set_timer(sp, *next_n);
	set_timer(sp, *next_n + 1);
}

/* The captures' buffers held for reuse: stack copies and chains. */
static size_t capture_bytes(const struct sampler *sp)
{
	size_t i, n = 0;

	for (i = 0; i < sp->capcap; i++)
		n += (sp->caps[i].stack ? sp->stack_size : 0) +
		     (sp->caps[i].stack2 ? sp->stack_size : 0) +
		     (sp->caps[i].chain ? KTRIGGER_USER_CHAIN * sizeof(*sp->caps[i].chain) : 0);
	return n;
}

int sampler_run(struct sampler *sp)
{
	struct session *s = sp->session;
	uint64_t period = sp->period_ns = 1000000000ULL / sp->frequency;
	uint64_t start = now_ns(), end = 0, cpu0, tcpu0, next_interval = 0;
	unsigned long fds_short0;
	unsigned long other_stops0, signals0;
	uint64_t other0, cpu_before, next_drain = 0;
	bool others_woke = false;
	int started, prio_err;
	/* Tick n is at tick_time(t0, period, n). */
	uint64_t t0 = sp->t0 = start + period, next_n = 0, taken_n = 0, late_max = period / 4;

	for (int i = 0; i < 2; i++) {
		sp->tfd_tick[i] = UINT64_MAX;
		sp->tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (sp->tfd[i] < 0) {
			int err = -errno;

			if (i)
				close(sp->tfd[0]);
			sp->tfd[0] = -1;
			return err;
		}
	}
	if (sp->duration > 0)
		end = start + (uint64_t)(sp->duration * 1e9);
	if (sp->hooks.interval_ns)
		next_interval = start + sp->hooks.interval_ns;
	cpu0 = cpu_time_ns();
	tcpu0 = thread_cpu_ns();
	sp->stats.fds_before = count_open_fds();
	fds_short0 = proc_fds_short;
	other0 = s->other_ns;
	other_stops0 = s->other_stops;
	signals0 = s->signals_forwarded;
	{
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		sp->stats.start_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	}
	/* CPU time used before profiling is not the profile's. */
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		t->run_known = thread_sched(t) == 0;
		t->run_ns = t->run_first = t->sample_run = t->run_known ? t->run_mark : 0;
	}
	s->on_exit = thread_exits;
	prio_err = raise_priority(sp);
	started = start_trigger(sp);
	if (started < 0) {
		for (int i = 0; i < 2; i++) {
			close(sp->tfd[i]);
			sp->tfd[i] = -1;
		}
		lower_priority();
		return started;
	}
	/* The perf trigger's samples are the kernel's: they do not wait
	 * for ctprof. */
	if (!sp->timed && prio_err)
		verbose_msg("no real-time or raised priority (%s): samples may come late when all CPUs are busy",
			    strerror(prio_err));
	if (!sp->timed) {
		start_kicking(sp, t0);
		plan_first_holds(sp);
	}
	if (!sp->timed && (set_timer(sp, 0) < 0 || (!sp->once && set_timer(sp, 1) < 0))) {
		int err = -errno;

		for (int i = 0; i < 2; i++) {
			close(sp->tfd[i]);
			sp->tfd[i] = -1;
		}
		kicker_release(&sp->kick);
		lower_priority();
		return err;
	}
	if (sp->timed)
		arm_for_untimed(sp, &next_n, &taken_n);
	/* From here on, statuses are reaped after the signalfd says there
	 * are some (SIGCHLD), and only then. */
	session_reap(s);

	for (;;) {
		struct pollfd pfd[4] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = sp->hooks.fd, .events = POLLIN },
			{ .fd = sp->tfd[0], .events = POLLIN },
			{ .fd = sp->tfd[1], .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t now, until;

		if (session_done(s) || s->stop_signal || sp->stop)
			break;
		if (sp->timed)
			arm_for_untimed(sp, &next_n, &taken_n);
		now = now_ns();
		if (end && now >= end)
			break;
		/* A dump's one tick is over when every stop it asked for came. */
		if (sp->once && sp->stats.ticks && (!s->waiting || now >= end))
			break;
		if (next_interval && now >= next_interval) {
			sp->hooks.on_interval(sp, sp->hooks.arg);
			next_interval += sp->hooks.interval_ns;
			if (next_interval <= now)
				next_interval = now + sp->hooks.interval_ns;
			continue;
		}
		until = end;
		if (next_interval && (!until || next_interval < until))
			until = next_interval;
		/* Rings fill without waking ctprof: emptied at least this often. */
		if (sp->ktrig.kernel || sp->ktrig.user_rings) {
			if (now >= next_drain) {
				drain_rings(sp);
				if (sp->ncaps) {
					next_epoch(sp);
					unwind_captures(sp);
				}
				next_drain = now + RING_DRAIN_NS;
			}
			if (!until || next_drain < until)
				until = next_drain;
		}
		if (until) {
			ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
			ts.tv_nsec = (long)((until - now) % 1000000000ULL);
			tsp = &ts;
		}
		/* While the target's own stops wake ctprof, the CPU time
		 * of a wake-up for them alone is timed whole (the kernel's
		 * part too); otherwise only from the wake-up on, which
		 * costs no system call. */
		cpu_before = others_woke ? thread_cpu_ns() : 0;
		/* No hook: its place is left out of the poll (fd -1). */
		if (ppoll(pfd, 4, tsp, NULL) < 0 && errno != EINTR)
			break;
		others_woke = false;
		if (sp->hooks.fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			sp->hooks.on_fd(sp, sp->hooks.arg);
		if (pfd[0].revents & POLLIN) {
			uint64_t woke = now_ns(), other = s->other_ns;
			unsigned waiting = s->waiting;

			session_read_signals(s);
			session_reap(s);
			/* A wake-up for stops ctprof did not ask for
			 * only: reading the signals is theirs too. */
			others_woke = s->waiting == waiting && s->other_ns != other &&
				      !((pfd[1].revents | pfd[2].revents | pfd[3].revents) & (POLLIN | POLLHUP | POLLERR));
			if (others_woke && cpu_before)
				s->other_ns = other + thread_cpu_ns() - cpu_before;
			else if (others_woke)
				s->other_ns += now_ns() - woke - (s->other_ns - other);
			/* Stops that came after their tick stopped waiting,
			 * and the perf trigger's. */
			drain_rings(sp);
			if (sp->ncaps) {
				if (sp->timed)
					next_epoch(sp);
				unwind_captures(sp);
			}
			if (session_done(s))
				continue;
		}
		/* The timers are not read: setting one again (or disarming
		 * it) clears it, and a read cost a system call a tick. */
		if ((pfd[2].revents | pfd[3].revents) & POLLIN) {
			uint64_t woke = now_ns(), n = next_n, skipped = 0, left;

			/* A timer that fired with the run's end, for a
			 * tick at or after it: not the run's. */
			if (end && !sp->once && tick_time(t0, period, n) >= end)
				break;
			/* Too late for tick n (its helpers have let go):
			 * take the latest tick instead, and count those
			 * between as missed, unless ctprof was stopped
			 * with its command (Ctrl-Z): there was nothing
			 * to sample then. */
			if (woke > tick_time(t0, period, n) + late_max) {
				uint64_t m = tick_next(t0, period, woke) - 1;

				/* ... but none from the run's end on. */
				if (end && !sp->once && woke >= end)
					m = tick_next(t0, period, end - 1) - 1;

				skipped = m > n ? m - n : 0;
				n += skipped;
			}
			if (s->resumed_after_stop) {
				s->resumed_after_stop = false;
				skipped = 0;
			}
			sp->stats.ticks += 1 + skipped;
			sp->stats.missed += skipped;
			sp->stats.lead_ns += lead(sp);
			sp->stats.delay_ns += sp->delay_ns;
			/* The next tick's timer, before the tick waits for
			 * it (set already, unless ticks were skipped); the
			 * one after it once the tick's stops are taken, so
			 * as not to delay them. */
			if (!sp->once)
				set_timer(sp, n + 1);
			tick(sp, n, tick_time(t0, period, n), woke);
			left = throttle(sp, n);
			taken_n = n;
			next_n = n + 1 + left;
			if (left) {
				/* The ticks left out wake neither ctprof nor
				 * the helpers: the next tick's timer is the
				 * one taken's. */
				sp->stats.ticks += left;
				sp->stats.throttled += left;
				kicker_from(&sp->kick, next_n);
				set_timer(sp, next_n);
			}
			/* The helpers hold CPUs for the next tick taken
			 * only: planned for one left out, they would wake
			 * for it. */
			if (sp->at_tick) {
				plan_holds(sp, next_n);
				watch_idle(sp);
			}
			if (!sp->once) {
				set_timer(sp, next_n + 1);
			} else {
				/* A thread in uninterruptible sleep
				 * stops when it leaves it: not waited
				 * for longer than a second. */
				end = now_ns() + 1000000000ULL;
				clear_timers(sp);
			}
		}
	}
	/* Ticks left out whose time had not come when sampling ended (or
	 * came with -d's end or after it) were not the run's. */
	{
		uint64_t over = now_ns();

		if (end && !sp->once && end < over)
			over = end;
		for (uint64_t m = next_n; m > taken_n + 1 && tick_time(t0, period, m - 1) >= over; m--) {
			sp->stats.ticks--;
			sp->stats.throttled--;
		}
	}
	stop_trigger(sp);
	/* Stops that came in the last tick, then the unwinder is done: its
	 * caches and file descriptors go now, not at exit. */
	if (sp->ncaps)
		unwind_captures(sp);
	count_short_writes(sp);
	if (sp->cputime) {
		for (size_t i = 0; i < s->nthreads; i++) {
			struct thread *t = &s->threads[i];

			if (!t->exiting && thread_sched(t) == 0) {
				sp->stats.kernel_cpu_ns += t->run_mark - (t->run_known ? t->run_first : 0);
				settle(sp, t);
			}
		}
		settle_rest(sp);
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if (!s->threads[i].exiting)
			name_again(sp, s->threads[i].proc->pid, s->threads[i].tid, false);
	s->on_exit = NULL;
	for (size_t i = 0; i < sp->ntargets; i++) {
		if (sp->targets[i]->unwind_state)
			sp->unwinder->fini(sp->targets[i]->unwind_state);
		sp->targets[i]->unwind_state = NULL;
	}
	sp->stats.wall_ns = now_ns() - start;
	sp->stats.fds_short = proc_fds_short - fds_short0;
	sp->stats.cpu_ns = cpu_time_ns() - cpu0;
	sp->stats.part_ns.sampler_cpu = thread_cpu_ns() - tcpu0;
	sp->stats.part_ns.helpers_cpu = kicker_cpu_ns(&sp->kick);
	sp->stats.part_ns.resume = s->resume_ns;
	sp->stats.part_ns.other = s->other_ns - other0;
	sp->stats.other_stops = s->other_stops - other_stops0;
	sp->stats.signals = s->signals_forwarded - signals0;
	sp->stats.part_ns.wait_spin = s->spin_ns;
	sp->stats.part_ns.wait_sleep = s->sleep_ns;
	sp->stats.rss_kib = resident_kib();
	sp->stats.heap_kib = heap_kib();
	sp->stats.stacks_kib = (long)((stacks_bytes(&sp->stacks) + names_bytes(sp)) / 1024);
	sp->stats.copies_kib = (long)(capture_bytes(sp) / 1024);
	sp->stats.helpers = sp->kick.helpers;
	kicker_release(&sp->kick);
	sp->kicking = false;
	if (sp->cpustat_fd >= 0) {
		close(sp->cpustat_fd);
		sp->cpustat_fd = -1;
	}
	if (sp->self_sched_fd >= 0) {
		close(sp->self_sched_fd);
		sp->self_sched_fd = -1;
	}
	lower_priority();
	for (int i = 0; i < 2; i++) {
		close(sp->tfd[i]);
		sp->tfd[i] = -1;
	}
	return 0;
}

double sampler_stall_percentile(const struct sampler_stats *st, double p)
{
	uint64_t want, seen = 0;
	size_t i;

	if (!st->samples)
		return 0;
	want = (uint64_t)(p / 100.0 * (double)st->samples + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < STALL_BUCKETS; i++) {
		seen += st->stall_hist[i];
		if (seen >= want)
			return (double)i + 0.5;
	}
	return STALL_BUCKETS;
}

void sampler_release(struct sampler *sp)
{
	size_t i;

	for (i = 0; i < sp->capcap; i++) {
		free(sp->caps[i].stack);
		free(sp->caps[i].stack2);
		free(sp->caps[i].chain);
	}
	free(sp->caps);
	free(sp->shorts);
	free(sp->picks);
	free(sp->want);
	free(sp->since);
	free(sp->going);
	free(sp->crowded);
	free(sp->missed);
	free(sp->take_es);
	free(sp->take_known);
	free(sp->rq_offs);
	if (sp->self_sched_fd >= 0)
		close(sp->self_sched_fd);
	if (sp->cpustat_fd >= 0)
		close(sp->cpustat_fd);
	free(sp->idle_mark);
	free(sp->idle_now);
	free(sp->late);
	free(sp->pcs);
	free(sp->names);
	key3_release(&sp->name_index);
	for (i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		if (tgt->unwind_state)
			sp->unwinder->fini(tgt->unwind_state);
		tgt->proc->priv = NULL;
		maps_release(&tgt->maps);
		free(tgt);
	}
	free(sp->targets);
	sp->maps = NULL;
	stacks_release(&sp->stacks);
}
