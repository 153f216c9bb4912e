/* ktrigger.c - see ktrigger.h. */
#define _GNU_SOURCE
#include "ktrigger.h"
#include "proc.h"
#include "session.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef POLL_HUP
#define POLL_HUP 6
#endif

/* An event's first period: a random part of the period, then the whole
 * (ktrigger_full_period()).  A thread's count starts at 0, and with whole
 * periods from there a thread that runs for less than one was never
 * sampled; with the first overflow at a uniform point of the period, a
 * thread's expected samples are its CPU time over the period, however
 * short it lives (docs/DESIGN.md, "The first period"). */
static uint64_t first_period(uint64_t period_ns)
{
	/* The kernel times a software event no finer than 10 us. */
	return period_ns > 20000 ? 10000 + (uint64_t)random() % (period_ns - 10000) : period_ns;
}

/* Both events' clock: the thread's own CPU time, a tick each period
 * (the first at random), never in a hypervisor. */
static void clock_attr(struct perf_event_attr *a, uint64_t period_ns)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = first_period(period_ns);
	a->exclude_hv = 1;
}

/* The event: the thread's own CPU clock, sampled in user mode only.  A
 * tick in kernel mode would raise the signal while the thread is inside
 * a system call, and a call that then goes to sleep ends at once with
 * EINTR, suppressed signal or not (docs/DESIGN.md, "Kernel time").  No
 * inherit: each thread gets its own at its clone event, routed to it;
 * remove_on_exec: a new image gets a new one at the exec event. */
static int open_event(pid_t tid, uint64_t period_ns)
{
	struct perf_event_attr a;

	clock_attr(&a, period_ns);
	a.exclude_kernel = 1;
	a.remove_on_exec = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The frames a ring sample's call chain keeps (perf_event_max_stack's
 * default), and the most context marks among them. */
#define RING_CHAIN_MAX 127
#define RING_CONTEXTS 8

/* An event with no signal: each tick a sample in a ring, with the user
 * registers and stack (perf record's way); kernel-mode ticks only
 * (beside open_event()'s), or with USER user-mode ticks too, and kernel
 * ones if KERNEL.  Kernel-mode samples carry the kernel's call chain,
 * USER ones the user chain by frame pointer too (ktrigger_drain()).  Its
 * first period into *FIRST. */
static int open_ring_event(pid_t tid, uint64_t period_ns, bool user, bool kernel, uint64_t *first)
{
	struct perf_event_attr a;
	int fd;

	clock_attr(&a, period_ns);
	*first = a.sample_period;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = RING_CHAIN_MAX;
	a.exclude_callchain_user = !user;
	a.exclude_callchain_kernel = !kernel;
	a.sample_regs_user = ARCH_PERF_REGS;     /* what an unwinder may start from */
	a.sample_stack_user = KTRIGGER_RING_STACK;
	a.exclude_user = !user;
	a.exclude_kernel = !kernel;
	a.remove_on_exec = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	/* kernel.perf_event_max_stack set below it refuses the event (no
	 * ring at all at 64): the kernel's own depth then, which is less. */
	if (fd < 0) {
		a.sample_max_stack = 0;
		fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

int ktrigger_probe_kernel(pid_t tid)
{
	uint64_t first;
	int fd = open_ring_event(tid, 1000000, false, true, &first);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* T may not have a ring: counted once a thread. */
static int refused(struct ktrigger *k, struct thread *t)
{
	if (!t->kt.kr_refused)
		k->rings_refused++;
	t->kt.kr_refused = true;
	return -1;
}

/* Give T a ring, if it may have one: of its kernel-mode ticks, or with
 * USER of all its ticks.  0, or -1. */
static int open_ring(struct ktrigger *k, struct thread *t, bool user)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = page * (1 + KTRIGGER_RING_PAGES);
	uint64_t first;
	void *map;
	int fd;

	if (t->kt.kr_fd >= 0)
		return 0;
	if (k->rings >= KTRIGGER_RINGS_MAX)
		return refused(k, t);
	fd = open_ring_event(t->tid, k->period_ns, user, k->kernel, &first);
	if (fd < 0)
		return refused(k, t);
	/* Locked memory: an unprivileged user has perf_event_mlock_kb a
	 * CPU and RLIMIT_MEMLOCK for all its rings. */
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return refused(k, t);
	}
	t->kt.kr_fd = fd;
	t->kt.kr_full = false;
	t->kt.kr_first_ns = first;
	t->kt.kr_short_end = 0;
	t->kt.kr_thin = (uint64_t)random() % k->period_ns;
	t->kt.kr_map = map;
	t->kt.kr_len = len;
	t->kt.kr_used = k->kernel;
	k->rings++;
	return 0;
}

static void close_ring(struct ktrigger *k, struct thread *t)
{
	if (t->kt.kr_fd < 0)
		return;
	munmap(t->kt.kr_map, t->kt.kr_len);
	close(t->kt.kr_fd);
	if (t->kt.ev_fd == t->kt.kr_fd)
		t->kt.ev_fd = -1;
	t->kt.kr_fd = -1;
	t->kt.kr_map = NULL;
	if (k && k->rings)
		k->rings--;
}

/* Copy N bytes at offset OFF of the ring's data (SIZE bytes, wrapping). */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *dst, size_t n)
{
	size_t at = (size_t)(off % size), first = n < size - at ? n : (size_t)(size - at);

	memcpy(dst, data + at, first);
	memcpy((unsigned char *)dst + first, data, n - first);
}

/* N user-mode ticks of T's ring, NS of its time, that are in no stack:
 * for a thread timed by its ring alone they are still user time, not the
 * [kernel] row's. */
static void user_unstacked(struct thread *t, uint64_t n, uint64_t ns)
{
	if (t->kt.ev_fd == t->kt.kr_fd) {
		t->kt.ev_samples += n;
		t->kt.ev_user_ns += ns;
	}
}

/* A sample not unwound: left in a ring that closes (at an exec: the image
 * it was taken in is gone), or longer than a sample can be here.  It is
 * counted as lost. */
static void discard(void *arg, struct thread *t, const struct ktrigger_sample *s)
{
	struct ktrigger *k = arg;

	k->ring_lost++;
	if (!s->kernel)
		user_unstacked(t, 1, s->ran_ns);
}

/* Whether to take a sample of T's ring at offset AT, of mode KERNEL; *RAN
 * the time it stands for if not a period. */
static bool ring_keep_sample(struct ktrigger *k, struct thread *t, uint64_t at, bool kernel, uint64_t *ran)
{
	struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)t->kt.kr_map;

	/* What the sample stands for: the first, at a random
	 * point of the period, one whole period (first_period());
	 * those after it until the whole period is set, as the
	 * first is read (the ring is read well after), each the
	 * first period again; the rest, a whole period.  (A
	 * task-clock sample's PERF_SAMPLE_PERIOD stays the first
	 * period: it cannot tell.)  Of those short ones, one a
	 * whole period of their time is kept, standing for a
	 * whole period, from a random phase: each sample is one
	 * period, as --weight=samples and top's samples a second
	 * count them (docs/DESIGN.md, "The first period"). */
	if (!t->kt.kr_full) {
		ktrigger_full_period(k, t->kt.kr_fd);
		t->kt.kr_full = true;
		t->kt.kr_short_end = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	} else if (at < t->kt.kr_short_end) {
		t->kt.kr_thin += t->kt.kr_first_ns;
		if (t->kt.kr_thin < k->period_ns) {
			if (!kernel)
				user_unstacked(t, 1, t->kt.kr_first_ns);
			return false;
		}
		t->kt.kr_thin -= k->period_ns;
		*ran = t->kt.kr_first_ns;
	}
	return true;
}

/* The call chain at *PP (up to END), its user part into USER (S counts
 * it), *PP moved past it; -1 if it runs past END or is in ctprof's stops. */
static int ring_read_chain(struct ktrigger *k, struct thread *t, const unsigned char **pp,
			   const unsigned char *end, uint64_t *user, struct ktrigger_sample *s)
{
	const unsigned char *p = *pp;
	uint64_t chain = 0, ctx = 0;
	bool in_signal = false;

	/* The call chain, kernel then user, each after its
	 * context mark.  A kernel tick in ctprof's own stops
	 * is not the program's.  A thread sampled by its ring
	 * alone has no such stops: its signal deliveries are
	 * the program's own. */
	memcpy(&chain, p, 8);
	p += 8;
	if (chain > (uint64_t)(end - p) / 8)
		return -1;
	for (uint64_t j = 0; j < chain; j++) {
		uint64_t ip;

		memcpy(&ip, p + 8 * j, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			ctx = ip;
		else if (ctx == (uint64_t)PERF_CONTEXT_USER && s->nchain < KTRIGGER_USER_CHAIN)
			user[s->nchain++] = ip;
		else if (ctx == (uint64_t)PERF_CONTEXT_KERNEL && t->kt.ev_fd != t->kt.kr_fd)
			for (unsigned q = 0; q < k->nstop_code; q++)
				in_signal |= ip >= k->stop_code[q][0] && ip < k->stop_code[q][1];
	}
	p += 8 * chain;
	if (in_signal) {
		k->in_signal++;
		return -1;
	}
	*pp = p;
	return 0;
}

/* The user registers and stack at P (up to END) into S; -1 if they are
 * not whole. */
static int ring_read_regs(const unsigned char *p, const unsigned char *end, struct ktrigger_sample *s)
{
	uint64_t abi, regs[ARCH_PERF_NREGS], ssize = 0, dyn = 0;
	unsigned nr = ARCH_PERF_NREGS;

	memcpy(&abi, p, 8);
	p += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return -1;
	if (p + 8 * nr + 8 > end)
		return -1;
	memcpy(regs, p, 8 * nr);
	p += 8 * nr;
	memcpy(&ssize, p, 8);
	p += 8;
	if (!ssize || p + ssize + 8 > end)
		return -1;
	memcpy(&dyn, p + ssize, 8);
	if (dyn > ssize)
		dyn = ssize;
	regs_from_perf(&s->regs, regs);
	s->stack = p;
	s->len = (size_t)dyn;
	return 0;
}

/* The sample record REC (header H) at offset AT of T's ring, to FN if it
 * is kept and whole.  Whether it went to FN. */
static bool ring_sample(struct ktrigger *k, struct thread *t, const struct perf_event_header *h,
			const unsigned char *rec, uint64_t at, ktrigger_sample_fn fn, void *arg)
{
	static uint64_t user_chain[KTRIGGER_USER_CHAIN];
	const unsigned char *p = rec + sizeof(*h) + 8, *end = rec + h->size;
	uint64_t ns = k->period_ns;
	struct ktrigger_sample s = { .kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) !=
					       PERF_RECORD_MISC_USER,
				     .chain = user_chain };
	uint64_t ran = 0;

	if (!ring_keep_sample(k, t, at, s.kernel, &ran))
		return false;
	if (ring_read_chain(k, t, &p, end, user_chain, &s) < 0 || ring_read_regs(p, end, &s) < 0)
		return false;
	s.ns = ns;
	s.ran_ns = ran ? ran : ns;
	fn(arg, t, &s);
	return true;
}

/* A record of LOST samples the ring had no room for, in REC. */
static void ring_lost(struct ktrigger *k, struct thread *t, const unsigned char *rec)
{
	uint64_t lost;

	memcpy(&lost, rec + sizeof(struct perf_event_header) + 8, sizeof(lost));
	k->ring_lost += lost;
	/* Their mode unknown, their time is left out of the
	 * profile rather than put in the [kernel] row. */
	user_unstacked(t, lost, lost * k->period_ns);
}

unsigned ktrigger_drain(struct ktrigger *k, struct thread *t, ktrigger_sample_fn fn, void *arg, unsigned max)
{
	static unsigned char rec[sizeof(struct perf_event_header) + 8 + 8 + 8 * 24 + 8 + KTRIGGER_RING_STACK + 8 +
				 8 * (1 + RING_CHAIN_MAX + RING_CONTEXTS)];
	struct perf_event_mmap_page *mp;
	const unsigned char *data;
	uint64_t head, tail, size, at;
	unsigned n = 0;

	if (t->kt.kr_fd < 0)
		return 0;
	mp = (struct perf_event_mmap_page *)t->kt.kr_map;
	data = t->kt.kr_map + mp->data_offset;
	size = mp->data_size;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head && (!max || n < max)) {
		struct perf_event_header h;

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h)) {
			tail = head;
			break;
		}
		at = tail;
		tail += h.size;
		/* Longer than a sample can be here: contexts past
		 * RING_CONTEXTS. */
		if (h.size > sizeof(rec)) {
			if (h.type == PERF_RECORD_SAMPLE)
				discard(k, t, &(struct ktrigger_sample){
					.kernel = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER,
					.ns = k->period_ns, .ran_ns = k->period_ns });
			continue;
		}
		ring_copy(data, size, at, rec, h.size);
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
			ring_lost(k, t, rec);
		else if (h.type == PERF_RECORD_SAMPLE && ring_sample(k, t, &h, rec, at, fn, arg))
			n++;
	}
	__atomic_store_n(&mp->data_tail, max ? tail : head, __ATOMIC_RELEASE);
	return n;
}

int ktrigger_find_stop_code(struct ktrigger *k)
{
	/* A signal-delivery stop is taken in get_signal(), an event stop
	 * (clone, exit) in ptrace_notify(), and the event's signal is sent
	 * from an irq_work interrupt. */
	static const char *const names[KTRIGGER_STOP_CODE] = {
		"get_signal", "ptrace_notify", "asm_sysvec_irq_work", "sysvec_irq_work",
	};
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256];
	int open_q = -1;

	if (!f)
		return -1;
	/* One pass: the file lists the kernel's own symbols by address, so
	 * a symbol ends where the next higher address starts.  Lines are
	 * "ADDRESS TYPE NAME [MODULE]", some hundred thousand of them:
	 * compared as text, not scanned, which was a noticeable part of
	 * ctprof's start (docs/DESIGN.md, "Rings: samples without a
	 * stop"). */
	while (fgets(line, sizeof(line), f)) {
		char *end, *name;
		unsigned long long a = strtoull(line, &end, 16);

		if (open_q >= 0 && a > k->stop_code[open_q][0]) {
			k->stop_code[open_q][1] = a;
			k->nstop_code++;
			open_q = -1;
		}
		if (!a || end[0] != ' ' || !end[1] || end[2] != ' ' || k->nstop_code == KTRIGGER_STOP_CODE)
			continue;
		name = end + 3;
		name[strcspn(name, " \t\n")] = '\0';
		for (unsigned q = 0; q < KTRIGGER_STOP_CODE && open_q < 0; q++)
			if (!strcmp(name, names[q])) {
				k->stop_code[k->nstop_code][0] = a;
				open_q = (int)k->nstop_code;
			}
	}
	fclose(f);
	return k->nstop_code ? 0 : -1;
}

void ktrigger_disable(const struct thread *t)
{
	if (t->kt.ev_fd >= 0)
		ioctl(t->kt.ev_fd, PERF_EVENT_IOC_DISABLE, 0);
	if (t->kt.kr_fd >= 0 && t->kt.kr_fd != t->kt.ev_fd)
		ioctl(t->kt.kr_fd, PERF_EVENT_IOC_DISABLE, 0);
}

void ktrigger_full_period(struct ktrigger *k, int fd)
{
	uint64_t p = k->period_ns;

	ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
}

int ktrigger_probe(pid_t tid)
{
	int fd = open_event(tid, 1000000);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The signal masks SigPnd (queued for the thread alone) and SigBlk of
 * thread T, from its status file, as bits 1 << sig.  0, or -1. */
static int masks(const struct thread *t, uint64_t *pnd, uint64_t *blk)
{
	char path[64], *buf, *line;
	int got = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", t->proc->pid, t->tid);
	buf = read_file(path, NULL);
	if (!buf)
		return -1;
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "SigPnd:", 7)) {
			*pnd = strtoull(line + 7, NULL, 16) << 1;
			got++;
		} else if (!strncmp(line, "SigBlk:", 7)) {
			*blk = strtoull(line + 7, NULL, 16) << 1;
			got++;
		}
	}
	free(buf);
	return got == 2 ? 0 : -1;
}

/* Route T's event to the first signal of KTRIGGER_SIGNALS not in BLK.
 * Its index, or -1 if T blocks them all. */
static int route(struct thread *t, uint64_t blk)
{
	static const int sigs[] = KTRIGGER_SIGNALS;

	for (int i = 0; i < (int)ARRAY_SIZE(sigs); i++)
		if (!(blk & (1ULL << sigs[i]))) {
			if (t->kt.ev_fd >= 0 && fcntl(t->kt.ev_fd, F_SETSIG, sigs[i]) < 0)
				return -1;
			t->kt.ev_sig = sigs[i];
			t->kt.ev_sigs |= 1U << sigs[i];
			return i;
		}
	return -1;
}

int ktrigger_open(struct ktrigger *k, struct thread *t, bool check_mask)
{
	struct f_owner_ex own = { F_OWNER_TID, t->tid };
	uint64_t pnd = 0, blk = 0;
	int fd, i;

	if (t->kt.ev_fd >= 0)
		return 0;
	/* A ring's samples need no signal, and no stop. */
	if (k->user_rings && open_ring(k, t, true) == 0) {
		t->kt.ev_fd = t->kt.kr_fd;
		t->kt.ev_num = -1;
		t->kt.ev_sig = 0;
		t->kt.ev_timed = true;
		t->kt.ev_full = true;
		t->kt.ev_look_count = t->kt.ev_sampled_count = t->kt.ev_lag = 0;
		k->opened++;
		k->by_ring++;
		return 0;
	}
	/* A blocked signal is not delivered: the thread would stop only
	 * where it unblocks it, late, or never. */
	if (check_mask && masks(t, &pnd, &blk) < 0)
		blk = 0;
	if (route(t, blk) < 0) {
		k->unroutable++;
		return -EAGAIN;
	}
	fd = open_event(t->tid, k->period_ns);
	if (fd < 0) {
		int err = errno;

		if (!k->error)
			k->error = err;
		k->failed++;
		return -err;
	}
	if (fcntl(fd, F_SETOWN_EX, &own) < 0 || fcntl(fd, F_SETSIG, t->kt.ev_sig) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0) {
		int err = errno;

		close(fd);
		k->failed++;
		return -err;
	}
	t->kt.ev_fd = t->kt.ev_num = fd;
	t->kt.ev_timed = true;
	t->kt.ev_full = false;
	t->kt.ev_look_count = t->kt.ev_sampled_count = t->kt.ev_lag = 0;
	i = t->kt.ev_sig == SIGWINCH ? 0 : 1;
	k->opened++;
	k->by_signal[i]++;
	if (k->kernel) {
		/* Looked up once, for the first thread that stops for its
		 * samples: the kernel's formatting of the file is slow
		 * (docs/DESIGN.md, "Rings: samples without a stop"). */
		if (!k->stop_code_read) {
			k->stop_code_read = true;
			ktrigger_find_stop_code(k);
		}
		open_ring(k, t, false);
	}
	return 0;
}

void ktrigger_close(struct ktrigger *k, struct thread *t)
{
	if (k && t->kt.kr_fd >= 0)
		ktrigger_drain(k, t, discard, k, 0);
	close_ring(k, t);
	if (t->kt.ev_fd < 0)
		return;
	close(t->kt.ev_fd);
	t->kt.ev_fd = -1;
}

int ktrigger_check(struct ktrigger *k, struct thread *t)
{
	uint64_t pnd, blk;

	if (t->kt.ev_fd < 0 || !t->kt.ev_sig || masks(t, &pnd, &blk) < 0 || !(blk & (1ULL << t->kt.ev_sig)))
		return 0;
	if (route(t, blk) >= 0)
		return 0;
	ktrigger_close(k, t);
	k->unroutable++;
	return -EAGAIN;
}

uint64_t ktrigger_count(const struct thread *t)
{
	uint64_t v;

	return t->kt.ev_fd >= 0 && read(t->kt.ev_fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : 0;
}

bool ktrigger_stuck(const struct thread *t)
{
	uint64_t pnd, blk;

	return t->kt.ev_sigs && masks(t, &pnd, &blk) == 0 && (pnd & blk & t->kt.ev_sigs);
}

bool ktrigger_is_ours(const struct thread *t, int sig)
{
	siginfo_t si;

	if (sig <= 0 || sig >= 32 || !(t->kt.ev_sigs & (1U << sig)))
		return false;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return false;
	return si.si_code >= POLL_IN && si.si_code <= POLL_HUP && si.si_fd == t->kt.ev_num;
}

bool ktrigger_pending(const struct thread *t)
{
	uint64_t pnd, blk;

	return t->kt.ev_sigs && masks(t, &pnd, &blk) == 0 && (pnd & t->kt.ev_sigs);
}
