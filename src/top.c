/* top.c - see top.h.
 *
 * The data: at each refresh the stacks whose count grew since the last one
 * (stack.mark holds the count seen then) are copied with their growth into
 * a table of their own, which becomes a profile of the interval alone.  Its
 * flat rows are merged by function into the view's table, which adds them
 * up for the whole run: samples never belong to two intervals, so the sum
 * of the intervals' self and cum counts is the run's.  One symbolizer
 * serves every refresh, as it caches each address it has looked up.
 *
 * The screen: plain ANSI sequences that every terminal emulator in use
 * understands (alternate screen, hide cursor, cursor position, erase),
 * each line placed by position and cleared to its end, so that a frame
 * overwrites the last one without flicker and a frame that is dropped
 * leaves nothing half drawn.
 */
#define _GNU_SOURCE
#include "top.h"
#include "profile.h"
#include "stacks.h"
#include "strpool.h"
#include "symbolize.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 1024     /* a line is clipped to this much */

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		GROW(b->s, b->cap, b->len + (size_t)n + 1);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* ---- the writer thread ---- */

/* One frame waits at most: a newer one replaces it (dropped counts that),
 * since only the latest state is worth showing. */
struct outq {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int fd;
	struct buf pending, writing;
	bool has_pending, closing;
	int err;                /* errno of the first write that failed */
};

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct outq *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct buf tmp;
		int err = 0;

		while (!q->has_pending && !q->closing)
			pthread_cond_wait(&q->wake, &q->lock);
		if (!q->has_pending)
			break;
		tmp = q->writing;
		q->writing = q->pending;
		q->pending = tmp;
		q->pending.len = 0;
		q->has_pending = false;
		if (q->err) /* after a failed write, frames are thrown away */
			continue;
		pthread_mutex_unlock(&q->lock);
		err = write_all(q->fd, q->writing.s, q->writing.len);
		pthread_mutex_lock(&q->lock);
		if (err && !q->err)
			q->err = err;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* 0 or an errno. */
static int outq_start(struct outq *q, int fd)
{
	sigset_t all, old;
	int err;

	memset(q, 0, sizeof(*q));
	q->fd = fd;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->wake, NULL);
	/* Every signal stays with the main thread, which reads them from
	 * its signalfd; blocked here, SIGTTOU does not stop a write either. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->thread, NULL, writer_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&q->wake);
		pthread_mutex_destroy(&q->lock);
	}
	return err;
}

/* Hand FRAME over to be written; FRAME gets a used buffer back, emptied.
 * True if it replaced a frame that had not been written yet. */
static bool outq_put(struct outq *q, struct buf *frame)
{
	struct buf tmp;
	bool dropped;

	pthread_mutex_lock(&q->lock);
	dropped = q->has_pending;
	tmp = q->pending;
	q->pending = *frame;
	*frame = tmp;
	frame->len = 0;
	q->has_pending = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	return dropped;
}

static int outq_error(struct outq *q)
{
	int err;

	pthread_mutex_lock(&q->lock);
	err = q->err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

/* Write what is pending and end the thread.  Its first write error. */
static int outq_finish(struct outq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closing = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->wake);
	pthread_mutex_destroy(&q->lock);
	free(q->pending.s);
	free(q->writing.s);
	return q->err;
}

/* ---- the view ---- */

struct top_func {
	const char *name, *file, *module;       /* interned in top.strings */
	uint64_t self, cum;                     /* samples, last interval */
	uint64_t run_self, run_cum;             /* samples, whole run */
};

struct top {
	struct sampler *sp;
	bool screen;            /* standard output is a terminal: the full view */
	bool keys;              /* reading keys from standard input */
	bool sort_cum;
	bool raw_names;
	int verbose;
	unsigned frequency;

	struct symbolizer *sz;  /* made at the first refresh that needs it */
	struct strpool strings;
	struct top_func *funcs;
	size_t nfuncs, fcap;
	size_t *index;          /* open addressing into funcs, SIZE_MAX: empty */
	size_t icap;
	size_t *order;          /* funcs, in the order shown */

	uint64_t total, run_total;      /* samples: last interval, whole run */
	uint64_t start_ns, last_ns, span_ns;
	size_t nthreads, nprocs;        /* as of the last refresh */
	unsigned long dropped;          /* plain blocks a blocked output lost */

	struct outq out;
	struct buf frame;
	int err;                        /* the writer's error, once seen */

	/* What is given back at the end. */
	struct termios saved_tio;
	bool tio_saved;
	int saved_stderr;               /* the terminal, while fd 2 collects
	                                 * messages; -1: not redirected */
	bool restored;
};

/* The view whose terminal exit() must give back, if it comes first. */
static struct top *active;

static uint64_t key_hash(const char *name, const char *file, const char *module)
{
	uint64_t h = fnv1a(FNV_OFFSET, &name, sizeof(name));

	h = fnv1a(h, &file, sizeof(file));
	return fnv1a(h, &module, sizeof(module));
}

static void reindex(struct top *t)
{
	size_t cap = t->icap ? t->icap * 2 : 1024, i, j;

	free(t->index);
	t->index = xmalloc(cap * sizeof(*t->index));
	for (i = 0; i < cap; i++)
		t->index[i] = SIZE_MAX;
	t->icap = cap;
	for (i = 0; i < t->nfuncs; i++) {
		const struct top_func *f = &t->funcs[i];

		for (j = key_hash(f->name, f->file, f->module) & (cap - 1); t->index[j] != SIZE_MAX;
		     j = (j + 1) & (cap - 1))
			;
		t->index[j] = i;
	}
}

/* The view's entry for a function, by what tells functions apart in a
 * profile (name, declaring file, module): made on first sight. */
static struct top_func *func_get(struct top *t, const char *name, const char *file,
				 const char *module)
{
	struct top_func *f;
	size_t j;

	name = strpool_intern(&t->strings, name);
	file = strpool_intern(&t->strings, file);
	module = strpool_intern(&t->strings, module);
	if ((t->nfuncs + 1) * 2 > t->icap)
		reindex(t);
	for (j = key_hash(name, file, module) & (t->icap - 1); t->index[j] != SIZE_MAX;
	     j = (j + 1) & (t->icap - 1)) {
		f = &t->funcs[t->index[j]];
		if (f->name == name && f->file == file && f->module == module)
			return f;
	}
	if (t->nfuncs == t->fcap) {
		GROW(t->funcs, t->fcap, t->nfuncs + 1);
		t->order = xrealloc(t->order, t->fcap * sizeof(*t->order));
	}
	t->index[j] = t->nfuncs;
	t->order[t->nfuncs] = t->nfuncs;
	f = &t->funcs[t->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->file = file;
	f->module = module;
	return f;
}

/* By the sort key over the last interval, then over the run (so that a
 * function idle now still sits where the run puts it), then the other key,
 * then by name. */
static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct top *t = arg;
	const struct top_func *x = &t->funcs[*(const size_t *)a], *y = &t->funcs[*(const size_t *)b];
	uint64_t kx[3] = { t->sort_cum ? x->cum : x->self, t->sort_cum ? x->run_cum : x->run_self,
			   t->sort_cum ? x->self : x->cum };
	uint64_t ky[3] = { t->sort_cum ? y->cum : y->self, t->sort_cum ? y->run_cum : y->run_self,
			   t->sort_cum ? y->self : y->cum };
	int i;

	for (i = 0; i < 3; i++)
		if (kx[i] != ky[i])
			return kx[i] > ky[i] ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void sort_view(struct top *t)
{
	if (t->nfuncs)
		qsort_r(t->order, t->nfuncs, sizeof(*t->order), order_cmp, t);
}

/* Take the samples counted since the last refresh into the view. */
static void refresh(struct top *t, bool sampling)
{
	struct sampler *sp = t->sp;
	struct stacks delta;
	struct stack *s;
	uint64_t now = now_ns();
	size_t i;

	stacks_init(&delta);
	stacks_for_each(&sp->stacks, s) {
		if (s->count > s->mark) {
			stacks_add_n(&delta, s->pid, s->tid, s->frames, s->nframes, s->count - s->mark);
			s->mark = s->count;
		}
	}
	for (i = 0; i < t->nfuncs; i++)
		t->funcs[i].self = t->funcs[i].cum = 0;
	if (delta.total) {
		struct profile prof;
		struct flat fl;

		if (!t->sz)
			t->sz = symbolizer_new(sp->maps);
		profile_init(&prof);
		profile_from_stacks(&prof, &delta, t->sz, sp->maps);
		if (!t->raw_names)
			profile_demangle(&prof);
		profile_flat(&prof, 0, 0, SORT_SELF, false, &fl);
		for (i = 0; i < fl.n; i++) {
			const struct flat_row *r = &fl.rows[i];
			const struct pfunc *pf = &prof.funcs[r->func];
			struct top_func *f = func_get(t, pf->name, pf->file,
						      profile_map_name(&prof, pf->mapping));

			f->self = r->self;
			f->cum = r->cum;
			f->run_self += r->self;
			f->run_cum += r->cum;
		}
		flat_release(&fl);
		profile_release(&prof);
	}
	t->total = delta.total;
	t->run_total += delta.total;
	stacks_release(&delta);
	t->span_ns = now - t->last_ns;
	t->last_ns = now;
	/* After detaching, the session has no threads left to count. */
	if (sampling) {
		struct session *ss = sp->session;

		t->nthreads = ss->nthreads;
		for (t->nprocs = 0, i = 0; i < ss->nprocs; i++)
			t->nprocs += ss->procs[i]->nthreads > 0;
	}
	sort_view(t);
}

/* ---- rendering ---- */

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* "m:ss", or "h:mm:ss" from an hour on. */
static void clock_str(char *out, size_t size, uint64_t ns)
{
	unsigned long s = (unsigned long)(ns / 1000000000ULL);

	if (s >= 3600)
		snprintf(out, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, size, "%lu:%02lu", s / 60, s % 60);
}

/* Append one line of text: on the screen, at ROW (1-based), clipped to
 * WIDTH - 1 columns (a line that fills the last column leaves the cursor
 * in the terminal's pending-wrap state, where the erase that follows
 * would take that column's character away); plain, with a newline.  Only
 * printable ASCII reaches a terminal, one column per byte: a process may
 * name itself with escape sequences, and a byte of UTF-8 is not a column.
 * Off a terminal only control characters are replaced. */
static void put_line(struct top *t, int row, int width, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put_line(struct top *t, int row, int width, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	size_t n, i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c < 0x20 || c == 0x7f || (t->screen && c >= 0x80))
			line[i] = '?';
	}
	if (!t->screen) {
		buf_printf(&t->frame, "%s\n", line);
		return;
	}
	if (n + 1 > (size_t)width)
		n = width > 1 ? (size_t)width - 1 : 0;
	buf_printf(&t->frame, "\033[%d;1H%.*s\033[K", row, (int)n, line);
}

static void header(struct top *t, char *out, size_t size)
{
	struct sampler *sp = t->sp;
	double span = (double)t->span_ns / 1e9;
	int n;

	n = snprintf(out, size, "ctprof top: pid %d (%s), %zu %s, %u Hz, %.0f samples/s",
		     sp->session->pid, sp->session->comm, t->nthreads,
		     t->nthreads == 1 ? "thread" : "threads", t->frequency,
		     span > 0 ? (double)t->total / span : 0.0);
	if (t->nprocs > 1 && n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, ", %zu processes", t->nprocs);
}

static void when(struct top *t, char *out, size_t size)
{
	char elapsed[32], hms[16];
	time_t now = time(NULL);
	struct tm tm;

	clock_str(elapsed, sizeof(elapsed), t->last_ns - t->start_ns);
	if (localtime_r(&now, &tm))
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	else
		snprintf(hms, sizeof(hms), "?");
	snprintf(out, size, "%s, elapsed %s, sort: %s", hms, elapsed, t->sort_cum ? "cum" : "self");
}

/* The column titles, two lines; the sort column is marked with '*'. */
static void titles(struct top *t, int *row, int width)
{
	char last[32];

	snprintf(last, sizeof(last), "last %.1f s", (double)t->span_ns / 1e9);
	put_line(t, (*row)++, width, "%13s   %13s", last, "whole run");
	put_line(t, (*row)++, width, "%6s %6s   %6s %6s  %s",
		 t->sort_cum ? "self%" : "*self%", t->sort_cum ? "*cum%" : "cum%",
		 "self%", "cum%", "function [module]");
}

static void row(struct top *t, int r, int width, const struct top_func *f)
{
	put_line(t, r, width, "%6.1f %6.1f   %6.1f %6.1f  %s [%s]",
		 pct(f->self, t->total), pct(f->cum, t->total),
		 pct(f->run_self, t->run_total), pct(f->run_cum, t->run_total),
		 f->name, f->module);
}

static void emit(struct top *t)
{
	if (outq_put(&t->out, &t->frame) && !t->screen)
		t->dropped++;
}

static void render_screen(struct top *t)
{
	const struct sampler_stats *st = &t->sp->stats;
	int width = 80, height = 24, r = 1;
	struct winsize ws;
	char line[LINE_MAX_BYTES];
	size_t i;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		width = ws.ws_col;
		height = ws.ws_row;
	}
	header(t, line, sizeof(line));
	put_line(t, r++, width, "%s", line);
	when(t, line, sizeof(line));
	put_line(t, r++, width, "%s; %s", line,
		 t->keys ? "keys: s self, c cum, q quit" : "Ctrl-C stops");
	if (t->verbose && r <= height)
		put_line(t, r++, width, "profiler: %" PRIu64 " ticks missed, %lu samples lost, %" PRIu64
			 " unwinds failed, stop median %.1f us",
			 st->missed, t->sp->session->lost, st->unwind_failed,
			 sampler_stall_percentile(st, 50));
	if (r <= height)
		put_line(t, r++, width, "%s", "");
	if (r + 1 <= height)
		titles(t, &r, width);
	if (!t->run_total && r <= height)
		put_line(t, r++, width, "%s", "(no samples yet)");
	for (i = 0; i < t->nfuncs && r <= height; i++)
		row(t, r++, width, &t->funcs[t->order[i]]);
	/* Whatever the last frame had below. */
	buf_printf(&t->frame, "\033[J");
	emit(t);
}

static void render_plain(struct top *t, bool last)
{
	char line[LINE_MAX_BYTES];
	size_t i;

	header(t, line, sizeof(line));
	put_line(t, 0, 0, "%s", line);
	when(t, line, sizeof(line));
	if (t->dropped)
		put_line(t, 0, 0, "%s%s; %lu blocks dropped while the output was not read", line,
			 last ? ", end" : "", t->dropped);
	else
		put_line(t, 0, 0, "%s%s", line, last ? ", end" : "");
	titles(t, &(int){ 0 }, 0);
	if (!t->run_total)
		put_line(t, 0, 0, "%s", "(no samples yet)");
	for (i = 0; i < t->nfuncs && i < CTPROF_TOP_ROWS; i++)
		row(t, 0, 0, &t->funcs[t->order[i]]);
	if (i < t->nfuncs)
		put_line(t, 0, 0, "(%zu more functions)", t->nfuncs - i);
	put_line(t, 0, 0, "%s", "");
	emit(t);
}

static void render(struct top *t)
{
	if (t->screen)
		render_screen(t);
	else
		render_plain(t, false);
}

/* ---- the hooks ---- */

static void on_interval(struct sampler *sp, void *arg)
{
	struct top *t = arg;

	/* An output that fails stops the view; the pipe's reader leaving
	 * (EPIPE, as with '| head') is the usual way to say enough. */
	t->err = outq_error(&t->out);
	if (t->err) {
		sp->stop = true;
		return;
	}
	refresh(t, true);
	render(t);
}

/* Keys, as they come (non-canonical, VMIN 0: a read never waits, even
 * if a launched command sharing the terminal took the input first).
 * Only lowercase letters count: the escape sequences of arrow and
 * function keys hold uppercase ones, and are skipped. */
static void on_key(struct sampler *sp, void *arg)
{
	struct top *t = arg;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	bool was_cum = t->sort_cum, in_escape = false;
	char keys[64];
	ssize_t n, i;

	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) {
		sp->hooks.fd = -1;      /* the terminal is gone: no more keys */
		return;
	}
	n = read(STDIN_FILENO, keys, sizeof(keys));
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		sp->hooks.fd = -1;
	for (i = 0; i < n; i++) {
		char c = keys[i];

		if (c == '\033') {
			in_escape = true;
			continue;
		}
		if (in_escape) {
			/* ESC [ or ESC O, parameters, then a final byte. */
			if (c != '[' && c != 'O' && (c < '0' || c > '?'))
				in_escape = false;
			continue;
		}
		if (c == 'q')
			sp->stop = true;
		else if (c == 's')
			t->sort_cum = false;
		else if (c == 'c')
			t->sort_cum = true;
	}
	if (t->sort_cum != was_cum && !sp->stop) {
		sort_view(t);
		render(t);
	}
}

/* Off a terminal, standard output a pipe: poll reports POLLERR on its
 * write end as soon as the reader has gone ('| head'), which ends the view
 * then rather than at the next block's EPIPE. */
static void on_output(struct sampler *sp, void *arg)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = 0 };

	(void)arg;
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)))
		sp->stop = true;
}

/* ---- the terminal ---- */

/* Give the terminal back: cursor, main screen, modes, and the messages
 * that came while the view had it.  Safe to call twice. */
static void restore(struct top *t)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (t->restored)
		return;
	t->restored = true;
	/* Nothing more can be done for a terminal that is gone. */
	if (t->screen)
		write_all(STDOUT_FILENO, leave, sizeof(leave) - 1);
	if (t->tio_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved_tio);
	if (t->saved_stderr >= 0) {
		char msg[4096];
		ssize_t n;
		int held = dup(STDERR_FILENO);

		dup2(t->saved_stderr, STDERR_FILENO);
		close(t->saved_stderr);
		t->saved_stderr = -1;
		if (held >= 0) {
			lseek(held, 0, SEEK_SET);
			while ((n = read(held, msg, sizeof(msg))) > 0)
				if (write_all(STDERR_FILENO, msg, (size_t)n))
					break;
			close(held);
		}
	}
	if (active == t)
		active = NULL;
}

/* exit() on a way out that never reaches top_end (an allocation that
 * failed): the terminal is given back all the same. */
static void restore_at_exit(void)
{
	if (active)
		restore(active);
}

/* While the view has the screen, what ctprof writes to standard error
 * (a warning, -v) would land in it and be overwritten: it is kept in a
 * memory file and written out after the view is gone. */
static void hold_stderr(struct top *t)
{
	int fd;

	t->saved_stderr = -1;
	if (!isatty(STDERR_FILENO))
		return;
	fd = memfd_create("ctprof-messages", MFD_CLOEXEC);
	if (fd < 0)
		return;
	t->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (t->saved_stderr < 0 || dup2(fd, STDERR_FILENO) < 0) {
		if (t->saved_stderr >= 0)
			close(t->saved_stderr);
		t->saved_stderr = -1;
	}
	close(fd);
}

/* Keys one at a time without echo; ISIG stays on, so Ctrl-C is SIGINT
 * and ends the view through the session's signalfd.  Ctrl-Z is off: in
 * launch mode it would stop ctprof with the screen still taken (attached,
 * ctprof ignores it anyway).  Ctrl-S is off too: it would stop the
 * output, which then fills up and drops frames for nothing. */
static void take_terminal(struct top *t)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";
	struct termios tio;

	if (t->keys && tcgetattr(STDIN_FILENO, &t->saved_tio) == 0) {
		tio = t->saved_tio;
		tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tio.c_iflag &= ~(tcflag_t)IXON;
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = 0;
		tio.c_cc[VSUSP] = _POSIX_VDISABLE;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &tio) == 0)
			t->tio_saved = true;
		else
			t->keys = false;
	} else {
		t->keys = false;
	}
	hold_stderr(t);
	active = t;
	/* If this fails, the writer meets the same error and stops the view. */
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
}

/* ---- start and end ---- */

struct top *top_start(struct sampler *sp, const struct options *o)
{
	static bool exit_hook;
	struct top *t = xcalloc(1, sizeof(*t));
	struct stat st;
	int err;

	t->sp = sp;
	t->screen = isatty(STDOUT_FILENO);
	/* Off a terminal no key is read: the output may be a pager, which
	 * reads the same terminal. */
	t->keys = t->screen && isatty(STDIN_FILENO);
	t->sort_cum = o->sort_cum;
	t->raw_names = o->no_demangle;
	t->verbose = o->verbose;
	t->frequency = o->frequency;
	t->saved_stderr = -1;
	strpool_init(&t->strings);
	t->start_ns = t->last_ns = now_ns();
	t->span_ns = (uint64_t)(o->interval * 1e9);    /* what the first frame says */
	t->nthreads = sp->session->nthreads;
	t->nprocs = 1;
	/* The view symbolizes between ticks: a debuginfod download would
	 * hold up sampling (cli refuses --debuginfod with top). */
	unsetenv("DEBUGINFOD_URLS");

	err = outq_start(&t->out, STDOUT_FILENO);
	if (err) {
		strpool_release(&t->strings);
		free(t);
		errno = err;
		return NULL;
	}
	if (!exit_hook && atexit(restore_at_exit) == 0)
		exit_hook = true;
	if (t->screen) {
		take_terminal(t);
		render_screen(t);
	}
	sp->hooks.interval_ns = t->span_ns;
	sp->hooks.on_interval = on_interval;
	if (t->keys) {
		sp->hooks.fd = STDIN_FILENO;
		sp->hooks.on_fd = on_key;
	} else if (!t->screen && fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
		/* Only a pipe: a file polls readable all the time. */
		sp->hooks.fd = STDOUT_FILENO;
		sp->hooks.on_fd = on_output;
	}
	sp->hooks.arg = t;
	return t;
}

int top_end(struct top *t)
{
	int err, ret = 0;

	if (!t)
		return 0;
	t->sp->hooks.interval_ns = 0;
	t->sp->hooks.fd = -1;
	/* Off a terminal the last block holds the samples since the last
	 * refresh, and the whole run's shares are complete. */
	if (!t->screen && !outq_error(&t->out)) {
		refresh(t, false);
		render_plain(t, true);
	}
	err = outq_finish(&t->out);
	restore(t);
	if (err && err != EPIPE) {
		error_msg("cannot write to standard output: %s", strerror(err));
		ret = -1;
	}
	if (t->sz)
		symbolizer_free(t->sz);
	strpool_release(&t->strings);
	free(t->funcs);
	free(t->index);
	free(t->order);
	free(t->frame.s);
	free(t);
	return ret;
}
