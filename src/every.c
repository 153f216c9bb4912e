/* every.c - see every.h.
 *
 * Two threads, as in top.c.  The sampling loop, at each interval, gives
 * the samples settled so far their CPU time, moves the whole table of
 * stacks (stacks_take) and the thread names into a batch, stages copies
 * of the modules new to the writer, and queues the batch.  The writer
 * thread symbolizes each batch into a profile and writes its files.
 * Symbolizing new code takes libdw up to hundreds of milliseconds and a
 * file system may stall: in the sampling loop, either would hold up the
 * ticks and every traced thread that waits for ctprof at a ptrace event.
 *
 * Memory stays bounded over hours: the sampler's tables hold one
 * interval's stacks and names, the writer keeps only its module copies
 * and its symbolizer's cache (one entry per code address seen; addresses
 * of JIT code are forgotten at each interval, as a runtime reuses them).
 * If the writer falls behind by MAX_QUEUED intervals, the newest are
 * merged into one file, whose time and duration say so.
 */
#define _GNU_SOURCE
#include "every.h"
#include "output.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_QUEUED 64

struct named {
	pid_t id;
	char name[64];
};

/* One interval's samples, as handed over. */
struct batch {
	struct batch *next;
	struct stacks stacks;
	struct named *threads, *procs;
	size_t nthreads, nprocs;
	int64_t start_ns, end_ns;       /* CLOCK_REALTIME */
	unsigned seq;                   /* %n */
};

struct every {
	const struct options *o;
	struct sampler *sp;
	struct output_opts oo;
	pid_t pid;
	char comm[64];
	mode_t mode;                    /* of the files: 0666 less the umask */

	/* The sampling thread's own. */
	int64_t last_end_ns;            /* where the next interval starts */
	unsigned seq;

	/* Shared, under lock. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct batch *head, *tail;
	size_t queued;
	struct module_stage stage;      /* copies for the writer's modtab */
	bool closing;
	unsigned written, failed;       /* files */
	uint64_t samples;               /* in the profiles written */

	/* The writer's own. */
	struct modtab modtab;
	struct maps maps;               /* .mt, and the target's perf map */
	struct symbolizer *sz;
	int *last_err;                  /* by -o: errno last said, 0 */
};

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* PATTERN with its escapes replaced, into OUT[SIZE].  -1 if it does not
 * fit, or names an escape there is none of. */
static int expand(const char *pattern, int64_t start_ns, unsigned seq, pid_t pid,
		  char *out, size_t size)
{
	size_t len = 0;
	const char *c;

	for (c = pattern; *c; c++) {
		char piece[64];
		size_t n;

		if (*c != '%') {
			piece[0] = *c;
			piece[1] = '\0';
		} else if (c[1] == 't') {
			time_t secs = (time_t)(start_ns / 1000000000LL);
			struct tm tm;

			gmtime_r(&secs, &tm);
			strftime(piece, sizeof(piece), "%Y%m%dT%H%M%SZ", &tm);
			c++;
		} else if (c[1] == 'n') {
			snprintf(piece, sizeof(piece), "%06u", seq);
			c++;
		} else if (c[1] == 'p') {
			snprintf(piece, sizeof(piece), "%d", (int)pid);
			c++;
		} else if (c[1] == '%') {
			strcpy(piece, "%");
			c++;
		} else {
			return -1;
		}
		n = strlen(piece);
		if (len + n >= size)
			return -1;
		memcpy(out + len, piece, n);
		len += n;
	}
	out[len] = '\0';
	return 0;
}

/* The hidden name PATH is written under first: ".NAME.XXXXXX" beside it. */
static int temp_name(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	int dirlen = base ? (int)(base - path + 1) : 0;
	int n;

	base = base ? base + 1 : path;
	n = snprintf(out, size, "%.*s.%s.XXXXXX", dirlen, path, base);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int every_check(const struct options *o)
{
	unsigned i;

	for (i = 0; i < o->noutputs; i++) {
		char path[PATH_MAX], tmp[PATH_MAX];
		int fd;

		if (expand(o->outputs[i], realtime_ns(), 1, 1, path, sizeof(path)) < 0 ||
		    temp_name(path, tmp, sizeof(tmp)) < 0) {
			error_msg("output name '%s' is too long", o->outputs[i]);
			return -1;
		}
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			error_msg("cannot write the files of '%s': %s", o->outputs[i], strerror(errno));
			return -1;
		}
		close(fd);
		unlink(tmp);
	}
	return 0;
}

/* ---- the writer thread ---- */

/* Write P to the file of output I for batch B: aside, then renamed.  0 or
 * -errno. */
static int write_file(struct every *e, unsigned i, const struct profile *p, const struct batch *b)
{
	const struct options *o = e->o;
	char path[PATH_MAX], tmp[PATH_MAX];
	const struct writer *w;
	FILE *f;
	int fd, ret;

	if (expand(o->outputs[i], b->start_ns, b->seq, e->pid, path, sizeof(path)) < 0 ||
	    temp_name(path, tmp, sizeof(tmp)) < 0)
		return -ENAMETOOLONG;
	w = o->format ? writer_find(o->format) : writer_for_file(path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, e->mode) < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		return ret;
	}
	ret = w->write(f, p, NULL, &e->oo);
	/* On disk before its name is: after a crash of the machine, a file
	 * renamed with its data still in memory could read as empty. */
	if (ret == 0 && (fflush(f) == EOF || fdatasync(fileno(f)) < 0))
		ret = -errno;
	if (fclose(f) == EOF && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	return ret;
}

static void write_batch(struct every *e, const struct batch *b)
{
	const struct options *o = e->o;
	struct profile prof;
	unsigned i, ok = 0, bad = 0;
	size_t k;

	if (!e->sz)
		e->sz = symbolizer_new(&e->maps);
	symbolizer_forget_anon(e->sz);
	profile_init(&prof);
	prof.pid = e->pid;
	prof.comm = strpool_intern(&prof.strings, e->comm);
	profile_from_stacks(&prof, &b->stacks, e->sz, &e->maps);
	for (k = 0; k < b->nprocs; k++)
		profile_set_process(&prof, b->procs[k].id, b->procs[k].name);
	for (k = 0; k < b->nthreads; k++)
		profile_set_thread(&prof, b->threads[k].id, b->threads[k].name);
	profile_demangle(&prof);
	prof.frequency = o->frequency;
	prof.wall = o->wall;
	prof.cputime = o->cputime;
	prof.time_ns = b->start_ns;
	prof.duration_ns = b->end_ns - b->start_ns;
	if (o->tid)
		profile_keep_thread(&prof, o->tid);

	for (i = 0; i < o->noutputs; i++) {
		int ret = write_file(e, i, &prof, b);

		if (ret == 0) {
			ok++;
			e->last_err[i] = 0;
			continue;
		}
		bad++;
		/* Said once while it lasts, not once an interval. */
		if (-ret != e->last_err[i])
			error_msg("cannot write profile %u of '%s': %s", b->seq, o->outputs[i],
				  strerror(-ret));
		e->last_err[i] = -ret;
	}
	pthread_mutex_lock(&e->lock);
	e->written += ok;
	e->failed += bad;
	e->samples += prof.total;
	pthread_mutex_unlock(&e->lock);
	profile_release(&prof);
}

static void batch_free(struct batch *b)
{
	stacks_release(&b->stacks);
	free(b->threads);
	free(b->procs);
	free(b);
}

static void *writer_main(void *arg)
{
	struct every *e = arg;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct batch *b;

		while (!e->head && !e->closing)
			pthread_cond_wait(&e->wake, &e->lock);
		if (!e->head)
			break;
		b = e->head;
		e->head = b->next;
		if (!e->head)
			e->tail = NULL;
		e->queued--;
		/* The copies were staged before the batch that needs them. */
		module_stage_take(&e->stage, &e->modtab);
		pthread_mutex_unlock(&e->lock);

		write_batch(e, b);
		batch_free(b);
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* ---- the sampling thread's side ---- */

/* Add batch B to A, which the writer has not taken yet, and free B. */
static void merge(struct batch *a, struct batch *b)
{
	struct stack *s;

	stacks_for_each(&b->stacks, s)
		stacks_add(&a->stacks, s->pid, s->tid, s->frames, s->nframes, s->count, s->ns);
	a->threads = xrealloc(a->threads, (a->nthreads + b->nthreads + 1) * sizeof(*a->threads));
	memcpy(a->threads + a->nthreads, b->threads, b->nthreads * sizeof(*b->threads));
	a->nthreads += b->nthreads;
	a->end_ns = b->end_ns;
	batch_free(b);
}

/* Hand the samples since the last interval to the writer. */
static void hand_over(struct every *e)
{
	struct sampler *sp = e->sp;
	struct session *s = sp->session;
	struct batch *b = xcalloc(1, sizeof(*b));
	struct stack *st;
	uint32_t k;
	size_t i;

	stacks_take(&sp->stacks, &b->stacks);
	/* The names go with the samples; a thread sampled again is named
	 * again (one read of its comm an interval). */
	b->threads = xcalloc(sp->nnames + 1, sizeof(*b->threads));
	for (i = 0; i < sp->nnames; i++) {
		b->threads[i].id = sp->names[i].tid;
		snprintf(b->threads[i].name, sizeof(b->threads[i].name), "%s", sp->names[i].name);
	}
	b->nthreads = sp->nnames;
	sp->nnames = 0;
	key3_release(&sp->name_index);
	b->procs = xcalloc(s->nprocs + 1, sizeof(*b->procs));
	for (i = 0; i < s->nprocs; i++) {
		b->procs[i].id = s->procs[i]->pid;
		snprintf(b->procs[i].name, sizeof(b->procs[i].name), "%s", s->procs[i]->comm);
	}
	b->nprocs = s->nprocs;
	b->start_ns = e->last_end_ns ? e->last_end_ns : sp->stats.start_realtime_ns;
	b->end_ns = e->last_end_ns = realtime_ns();

	pthread_mutex_lock(&e->lock);
	stacks_for_each(&b->stacks, st)
		for (k = 0; k < st->nframes; k++)
			if (frame_key_module(st->frames[k]))
				module_stage(&e->stage, sp->maps, frame_key_module(st->frames[k]));
	if (e->queued >= MAX_QUEUED) {
		merge(e->tail, b);
	} else {
		b->seq = ++e->seq;
		if (e->tail)
			e->tail->next = b;
		else
			e->head = b;
		e->tail = b;
		e->queued++;
	}
	pthread_cond_signal(&e->wake);
	pthread_mutex_unlock(&e->lock);
}

static void on_interval(struct sampler *sp, void *arg)
{
	/* CPU-time weights: the samples of this interval get theirs now. */
	sampler_settle(sp);
	hand_over(arg);
}

/* ---- start and end ---- */

struct every *every_start(struct sampler *sp, const struct options *o)
{
	struct every *e = xcalloc(1, sizeof(*e));
	struct session *s = sp->session;
	sigset_t all, old;
	mode_t mask;
	int err;

	e->o = o;
	e->sp = sp;
	e->pid = s->pid;
	snprintf(e->comm, sizeof(e->comm), "%s", s->comm);
	e->oo = output_opts_of(o);
	mask = umask(0);
	umask(mask);
	e->mode = 0666 & ~mask;
	e->last_err = xcalloc(o->noutputs, sizeof(*e->last_err));
	/* The writer names JIT code from the target's perf map, as main
	 * does at the end of a run. */
	e->maps.mt = &e->modtab;
	e->maps.pid = sp->maps->pid;
	e->maps.ns_pid = sp->maps->ns_pid;
	e->maps.start_ns = sp->maps->start_ns;
	e->maps.root_fd = sp->maps->root_fd >= 0 ? fcntl(sp->maps->root_fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (!o->debuginfod)
		unsetenv("DEBUGINFOD_URLS");

	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->wake, NULL);
	/* Every signal stays with the sampling thread's signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&e->thread, NULL, writer_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&e->wake);
		pthread_mutex_destroy(&e->lock);
		if (e->maps.root_fd >= 0)
			close(e->maps.root_fd);
		free(e->last_err);
		free(e);
		errno = err;
		return NULL;
	}
	sp->hooks.interval_ns = (uint64_t)(o->every * 1e9);
	sp->hooks.on_interval = on_interval;
	sp->hooks.arg = e;
	return e;
}

int every_end(struct every *e)
{
	int ret;

	if (!e)
		return 0;
	e->sp->hooks.interval_ns = 0;
	/* The last interval, cut short: sampling settled all its samples. */
	hand_over(e);
	pthread_mutex_lock(&e->lock);
	e->closing = true;
	pthread_cond_signal(&e->wake);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->thread, NULL);
	ret = e->failed ? -1 : 0;
	if (e->failed)
		error_msg("%u of %u profile files could not be written", e->failed,
			  e->failed + e->written);
	verbose_msg("%u intervals, %u files written; %" PRIu64 " samples in them, of %" PRIu64 " taken",
		    e->seq, e->written, e->samples, e->sp->stats.counted);

	pthread_cond_destroy(&e->wake);
	pthread_mutex_destroy(&e->lock);
	if (e->sz)
		symbolizer_free(e->sz);
	module_stage_release(&e->stage);
	modtab_free_copies(&e->modtab);
	if (e->maps.root_fd >= 0)
		close(e->maps.root_fd);
	free(e->last_err);
	free(e);
	return ret;
}
