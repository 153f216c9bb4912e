/* threads.c - the sampler's view of processes and threads: their
 * unwinding state, each thread's state of the sampler's own (struct
 * sampler_thread), names, kernel rows and exits.
 */
#include "internal.h"

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		proc_fd_closed();
		*fd = -1;
	}
}

/* The files the sampler opened of T's, which name its tid. */
static void close_thread_files(struct sampler_thread *st)
{
	close_fd(&st->schedstat_fd);
	close_fd(&st->sched_fd);
	close_fd(&st->syscall_fd);
}

void sampler_on_thread(void *arg, struct thread *t, enum thread_event ev)
{
	struct sampler_thread *st = t->st;

	switch (ev) {
	case THREAD_NEW:
		st = t->st = xcalloc(1, sizeof(*st));
		st->schedstat_fd = st->sched_fd = st->syscall_fd = -1;
		st->site = -1;
		st->last_cpu = -1;
		break;
	case THREAD_GONE:
		if (!st)
			break;
		close_thread_files(st);
		forget_waits(t);
		free(st);
		t->st = NULL;
		break;
	case THREAD_EXEC:
		/* Its files named the old leader, whose run time it does not
		 * have. */
		close_thread_files(st);
		forget_waits(t);
		st->run_known = false;
		st->idle_known = false;
		break;
	}
}

/* Asked for by the capture: its CPU time and time waiting for a CPU, read
 * after the resume rather than in the stop.  The thread gets a CPU only
 * after a wake-up, so they are still those of the stop; if it got one
 * first, its wait since the resume is left out, and the sampler's next
 * check of it is only stricter. */
void sampler_on_resumed(void *arg, struct thread *t, uint64_t ns)
{
	struct sampler_thread *st = t->st;

	if (st->resumed_ns)
		st->resumed_ns = proc_schedstat(st->schedstat_fd, &st->stop_run, &st->stop_wait,
						&st->stop_slices) == 0 ? ns : 0;
}

/* The sampler's state for process P, set up when first needed: the maps
 * are read and the unwinder started outside any stop.  NULL if P is gone
 * or cannot be read (its threads are then not sampled). */
struct target *target_of(struct sampler *sp, struct process *p, int *err)
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
void note_thread(struct sampler *sp, pid_t pid, pid_t tid)
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
size_t names_bytes(const struct sampler *sp)
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
void name_again(struct sampler *sp, pid_t pid, pid_t tid, bool add)
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

/* The perf trigger: thread T's CPU time since its event started that its
 * samples do not stand for, as a [kernel] row of its own: its events
 * count user mode only (docs/DESIGN.md, "Kernel time").  Not the kernel's
 * system time (/proc stat's stime): that is counted by the scheduler's
 * tick, too coarse for it (same section). */
void kernel_row(struct sampler *sp, struct thread *t)
{
	uint64_t key = frame_key(FRAME_MODULE_SYSCALL, FRAME_KERNEL), ns, user;

	if (!sp->timed || !t->kt.ev_timed || t->kt.kr_used || thread_sched(t) < 0)
		return;
	user = t->kt.ev_user_ns;
	if (t->st->run_mark <= t->kt.ev_run0 + user)
		return;
	ns = t->st->run_mark - t->kt.ev_run0 - user;
	t->kt.ev_run0 = t->st->run_mark;
	t->kt.ev_samples = 0;
	t->kt.ev_user_ns = 0;
	stacks_add(&sp->stacks, t->proc->pid, t->tid, &key, 1, 0, ns);
	sp->stats.kernel_row_ns += ns;
	note_thread(sp, t->proc->pid, t->tid);
}

/* At a thread's exit (it is stopped there): its name is read once more
 * (name_again()), and, with CPU-time weights, its CPU
 * time goes to its samples not yet settled.  If it has none, the time
 * would be in no sample: it is charged to [unsampled, to exit], in one
 * entry per process for all the threads that exited: where that time
 * went is not known (at its exit stop a thread has left the code it ran),
 * and an entry per thread would grow with every thread a server ever
 * starts. */
void thread_exits(void *arg, struct thread *t)
{
	struct sampler *sp = arg;
	uint64_t key = frame_key(FRAME_MODULE_SYSCALL, FRAME_UNSAMPLED), w;

	/* Its ring's last ticks, RING_BATCH at a time as at any drain: a
	 * server whose threads come and go would otherwise hold a capture
	 * a tick of each one exiting. */
	if (t->kt.kr_fd >= 0) {
		bool epoch = false;

		drain_thread(sp, t, &epoch);
	}
	name_again(sp, t->proc->pid, t->tid, capture_pending(sp, t));
	kernel_row(sp, t);
	sp->stats.untimed_threads += sp->timed && t->kt.ev_fd < 0;
	/* A thread timed by its event has each sample's time exact: none
	 * of its CPU time is left over. */
	if (!sp->cputime || t->kt.ev_timed || thread_sched(t) < 0)
		return;
	sp->stats.kernel_cpu_ns += t->st->run_mark - (t->st->run_known ? t->st->run_first : 0);
	if (settle_exiting(sp, t) || t->st->run_mark <= t->st->run_ns)
		return;
	w = t->st->run_mark - t->st->run_ns;
	t->st->run_ns = t->st->run_mark;
	stacks_add(&sp->stacks, t->proc->pid, EXITED_TID, &key, 1, 0, w);
	note_thread(sp, t->proc->pid, EXITED_TID);
}

/* Captures taken in a process before it exec'd: their addresses mean
 * nothing in the new image. */
void drop_old_image(struct sampler *sp)
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
