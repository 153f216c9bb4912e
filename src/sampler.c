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
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* How long a tick waits for an interrupted thread to stop. */
#define STOP_TIMEOUT_NS 100000000ULL
/* How long it polls for the stops before it sleeps. */
#define SPIN_NS 200000ULL

/* The session's callback: the thread is stopped; take only what must be
 * taken while it is. */
static struct capture *capture_thread(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	struct target *tgt = t->proc->priv;
	const struct mapping *mp;
	struct iovec local, remote;
	struct capture *c;
	ssize_t n;
	size_t len;

	GROW(sp->caps, sp->capcap, sp->ncaps + 1);
	c = &sp->caps[sp->ncaps];
	if (!c->stack)
		c->stack = xmalloc(sp->stack_size);
	if (!tgt)
		return NULL;
	c->target = tgt;
	c->tid = t->tid;
	c->stall_ns = 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &c->regs) < 0)
		return NULL;
	c->sp = c->regs.rsp;
	/* Copy from SP up to the end of its mapping (the stack's top), at
	 * most stack_size bytes, in one system call. */
	mp = maps_find(&tgt->maps, c->sp);
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
	n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	c->stack_len = n > 0 ? (size_t)n : 0;
	sp->ncaps++;
	return c;
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
	stacks_init(&sp->stacks);
	sp->hooks.fd = -1;
	sp->unwinder = unwinder;
	if (!target_of(sp, s->procs[0], &ret))
		return ret < 0 ? ret : -ESRCH;
	s->on_sample = capture_thread;
	s->sample_arg = sp;
	return 0;
}

/* Remember the name of thread TID when it is first sampled: once the
 * thread has exited it can no longer be read. */
static void note_thread(struct sampler *sp, pid_t pid, pid_t tid)
{
	char path[64];
	size_t i;
	FILE *f;

	for (i = sp->nnames; i-- > 0;)
		if (sp->names[i].tid == tid)
			return;
	GROW(sp->names, sp->namecap, sp->nnames + 1);
	sp->names[sp->nnames].tid = tid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "re");
	if (!f || !fgets(sp->names[sp->nnames].name, sizeof(sp->names[0].name), f))
		snprintf(sp->names[sp->nnames].name, sizeof(sp->names[0].name), "?");
	if (f)
		fclose(f);
	sp->names[sp->nnames].name[strcspn(sp->names[sp->nnames].name, "\n")] = '\0';
	sp->nnames++;
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

static void unwind_captures(struct sampler *sp)
{
	struct sampler_stats *st = &sp->stats;
	size_t i;

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
		uint64_t t0 = now_ns(), us = c->stall_ns / 1000;
		enum unwind_result res;
		unsigned n = 0, j;

		st->samples++;
		st->stall_ns += c->stall_ns;
		st->stall_hist[us < STALL_BUCKETS ? us : STALL_BUCKETS - 1]++;

		res = sp->unwinder->walk(tgt->unwind_state, c, sp->pcs, sp->max_frames, &n);
		if (res == UNWIND_COMPLETE)
			st->unwind_complete++;
		else if (res == UNWIND_TRUNCATED)
			st->unwind_truncated++;
		else
			st->unwind_failed++;
		st->frames += n;
		for (j = 0; j < n; j++)
			sp->pcs[j] = maps_frame_key(&tgt->maps, sp->pcs[j]);
		stacks_add(&sp->stacks, tgt->proc->pid, c->tid, sp->pcs, n);
		st->unwind_ns += now_ns() - t0;
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

static void tick(struct sampler *sp)
{
	struct session *s = sp->session;
	/* Spin for the stops only if no thread to stop shares our CPU: it
	 * could not run to its stop while ctprof (SCHED_FIFO) spins. */
	uint64_t spin = sp->stats.realtime ? SPIN_NS : 0;
	int here = sched_getcpu();
	size_t i;

	drop_old_image(sp);
	for (i = 0; i < sp->ntargets; i++) {
		struct target *tgt = sp->targets[i];

		tgt->maps.epoch++;
		if (tgt->proc->exec_seen) {
			tgt->proc->exec_seen = false;
			if (tgt->unwind_state)
				maps_exec(&tgt->maps);
		}
	}
	/* The watchdog: a thread that never stops is given up. */
	session_drop_stale(s, STOP_TIMEOUT_NS);
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];
		int cpu = -1;

		if (t->listening || t->sample_wanted || t->exiting)
			continue;
		if (proc_state(t->stat_fd, &cpu) != 'R')
			continue;
		if (!target_of(sp, t->proc, NULL))
			continue;
		if (session_interrupt(s, t) == 0 && (cpu < 0 || cpu == here))
			spin = 0;
	}
	/* A thread that is runnable but waiting for a CPU stops only when it
	 * gets one, which can take a scheduler slice: wait at most half a
	 * period, then take its stop whenever it comes.  Its PC is the same:
	 * it has not run meanwhile. */
	if (s->waiting)
		session_wait_samples(s, spin, sp->period_ns / 2);
	unwind_captures(sp);
}

/* The sampler must outrank its target: on 2 vCPUs, a woken sampler queued
 * behind a busy target sampled late (626 missed ticks) and wrong (28% where
 * the target was busy 53% of the time); with SCHED_FIFO, 8 and 54%.  Not
 * inherited by anything ctprof starts (SCHED_RESET_ON_FORK). */
static void raise_priority(struct sampler *sp)
{
	struct sched_param p = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0) {
		sp->stats.realtime = true;
		return;
	}
	if (setpriority(PRIO_PROCESS, 0, -10) < 0)
		verbose_msg("no real-time or raised priority (%s): samples may come late when all CPUs are busy",
			    strerror(errno));
}

static void lower_priority(void)
{
	struct sched_param p = { .sched_priority = 0 };

	sched_setscheduler(0, SCHED_OTHER, &p);
}

/* ctprof's CPU time (user + system), in nanoseconds. */
static uint64_t cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int sampler_run(struct sampler *sp)
{
	struct session *s = sp->session;
	uint64_t period = sp->period_ns = 1000000000ULL / sp->frequency;
	uint64_t start = now_ns(), end = 0, cpu0, next_interval = 0;
	struct itimerspec its;
	int tfd;

	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0)
		return -errno;
	its.it_interval.tv_sec = (time_t)(period / 1000000000ULL);
	its.it_interval.tv_nsec = (long)(period % 1000000000ULL);
	its.it_value = its.it_interval;
	if (timerfd_settime(tfd, 0, &its, NULL) < 0) {
		close(tfd);
		return -errno;
	}
	if (sp->duration > 0)
		end = start + (uint64_t)(sp->duration * 1e9);
	if (sp->hooks.interval_ns)
		next_interval = start + sp->hooks.interval_ns;
	cpu0 = cpu_time_ns();
	sp->stats.fds_before = count_open_fds();
	{
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		sp->stats.start_realtime_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec;
	}
	raise_priority(sp);
	/* From here on, statuses are reaped after the signalfd says there
	 * are some (SIGCHLD), and only then. */
	session_reap(s);

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = tfd, .events = POLLIN },
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = sp->hooks.fd, .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t now, until;

		if (session_done(s) || s->stop_signal || sp->stop)
			break;
		now = now_ns();
		if (end && now >= end)
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
		if (until) {
			ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
			ts.tv_nsec = (long)((until - now) % 1000000000ULL);
			tsp = &ts;
		}
		if (ppoll(pfd, sp->hooks.fd >= 0 ? 3 : 2, tsp, NULL) < 0 && errno != EINTR)
			break;
		if (sp->hooks.fd >= 0 && (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)))
			sp->hooks.on_fd(sp, sp->hooks.arg);
		if (pfd[1].revents & POLLIN) {
			session_read_signals(s);
			session_reap(s);
			/* Stops that came after their tick stopped waiting. */
			if (sp->ncaps)
				unwind_captures(sp);
			if (session_done(s))
				continue;
		}
		if (pfd[0].revents & POLLIN) {
			uint64_t exp = 0;

			if (read(tfd, &exp, sizeof(exp)) == sizeof(exp) && exp > 0) {
				/* While ctprof was stopped with its command (Ctrl-Z)
				 * there was nothing to sample. */
				if (s->resumed_after_stop) {
					s->resumed_after_stop = false;
					exp = 1;
				}
				sp->stats.ticks += exp;
				sp->stats.missed += exp - 1;
				tick(sp);
			}
		}
	}
	/* Stops that came in the last tick, then the unwinder is done: its
	 * caches and file descriptors go now, not at exit. */
	if (sp->ncaps)
		unwind_captures(sp);
	for (size_t i = 0; i < sp->ntargets; i++) {
		if (sp->targets[i]->unwind_state)
			sp->unwinder->fini(sp->targets[i]->unwind_state);
		sp->targets[i]->unwind_state = NULL;
	}
	sp->stats.wall_ns = now_ns() - start;
	sp->stats.cpu_ns = cpu_time_ns() - cpu0;
	sp->stats.rss_kib = resident_kib();
	lower_priority();
	close(tfd);
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

	for (i = 0; i < sp->capcap; i++)
		free(sp->caps[i].stack);
	free(sp->caps);
	free(sp->pcs);
	free(sp->names);
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
