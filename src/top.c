/* top.c - see top.h.
 *
 * Two threads.  The sampling loop (main's thread) does only what is cheap
 * in its hooks: at each interval it copies the growth of every stack since
 * the last one (stack.mark holds the count seen then) into a batch, with
 * copies of the modules new to the view, and reads keys.  The view thread
 * turns each batch into functions (top-view.c), renders and writes.
 * Symbolizing new code takes libdw tens to hundreds of milliseconds (480
 * ms for libpython's first interval at 999 Hz), and a terminal or pipe may
 * stop reading: done in the sampling loop, either would hold up the ticks
 * and, worse, every traced thread of the target that waits for ctprof at
 * a ptrace event (a new thread, a signal).
 *
 * Off a terminal the view writes a block per interval; if the view thread
 * is still busy when the next interval ends, the batches are merged and
 * the block says so.  On a terminal, it takes the screen and gives it back
 * as it was on every way out (top_end, and exit() through atexit).
 */
#define _GNU_SOURCE
#include "top.h"
#include "top-view.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

struct top {
	struct sampler *sp;
	bool screen;            /* standard output is a terminal: the full view */
	bool keys;              /* reading keys from standard input */

	/* The sampling thread's own. */
	bool key_sort_cum;      /* the order the keys asked for */

	/* Shared, under lock. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct stacks pending;  /* samples the view has not taken yet */
	struct module_stage stage; /* module copies it has not taken yet */
	struct top_info info;   /* as of the last interval handed over */
	bool interval;          /* an interval ended since the view looked */
	bool redraw;            /* the keys changed the order */
	bool sort_cum;
	bool last;              /* the last block, at the end */
	bool closing;
	unsigned merged;        /* intervals beyond one in pending */
	int err;                /* errno of the first write that failed */

	/* The view thread's own. */
	struct top_view view;
	struct buf frame;

	/* What is given back at the end. */
	struct termios saved_tio;
	bool tio_saved;
	int saved_stderr;       /* the terminal, while fd 2 collects messages;
	                         * -1: not redirected */
	bool restored;
};

/* The view whose terminal exit() must give back, if it comes first. */
static struct top *active;

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

/* ---- the view thread ---- */

static void *view_main(void *arg)
{
	struct top *t = arg;
	struct top_view *v = &t->view;
	struct stacks batch;
	int err = 0;

	stacks_init(&batch);
	pthread_mutex_lock(&t->lock);
	for (;;) {
		struct top_info info;
		bool interval, last;
		unsigned merged;

		while (!t->interval && !t->redraw && !t->closing)
			pthread_cond_wait(&t->wake, &t->lock);
		/* A screen about to be left is not worth drawing. */
		if ((!t->interval && !t->redraw) || (t->closing && t->screen))
			break;
		if (t->interval) {
			batch = t->pending;
			stacks_init(&t->pending);
		}
		module_stage_take(&t->stage, &v->modtab);
		info = t->info;
		interval = t->interval;
		last = t->last;
		merged = t->merged;
		v->sort_cum = t->sort_cum;
		t->interval = t->redraw = false;
		t->merged = 0;
		pthread_mutex_unlock(&t->lock);

		if (interval)
			view_take(v, &batch, info.now_ns);
		else
			view_sort(v);
		t->frame.len = 0;
		if (t->screen) {
			struct winsize ws;
			int width = 80, height = 24;

			if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
				width = ws.ws_col;
				height = ws.ws_row;
			}
			view_screen(v, &info, width, height, &t->frame);
		} else {
			view_block(v, &info, CTPROF_TOP_ROWS, last, merged, &t->frame);
		}
		/* After a failed write, frames are thrown away. */
		if (!err)
			err = write_all(STDOUT_FILENO, t->frame.s, t->frame.len);

		pthread_mutex_lock(&t->lock);
		if (err && !t->err)
			t->err = err;
	}
	pthread_mutex_unlock(&t->lock);
	stacks_release(&batch);
	return NULL;
}

/* ---- the sampling thread's side ---- */

static void take_info(struct top *t, struct top_info *in)
{
	struct session *s = t->sp->session;
	const struct sampler_stats *st = &t->sp->stats;
	size_t i;

	in->pid = s->pid;
	snprintf(in->comm, sizeof(in->comm), "%s", s->comm);
	in->nthreads = s->nthreads;
	for (in->nprocs = 0, i = 0; i < s->nprocs; i++)
		in->nprocs += s->procs[i]->nthreads > 0;
	in->frequency = t->sp->frequency;
	in->missed = st->missed;
	in->lost = s->lost;
	in->unwind_failed = st->unwind_failed;
	in->stop_median_us = sampler_stall_percentile(st, 50);
	in->now_ns = now_ns();
}

/* Hand the samples since the last interval to the view. */
static void hand_over(struct top *t, bool last)
{
	struct stacks *all = &t->sp->stacks;
	struct top_info info;
	struct stack *s;
	uint32_t k;

	take_info(t, &info);
	pthread_mutex_lock(&t->lock);
	stacks_for_each(all, s) {
		if (s->count <= s->mark && s->ns <= s->mark_ns)
			continue;
		for (k = 0; k < s->nframes; k++)
			if (frame_key_module(s->frames[k]))
				module_stage(&t->stage, t->sp->maps, frame_key_module(s->frames[k]));
		stacks_add(&t->pending, s->pid, s->tid, s->frames, s->nframes, s->count - s->mark,
			   s->ns - s->mark_ns);
		s->mark = s->count;
		s->mark_ns = s->ns;
	}
	/* After detaching, the session has no threads left to count. */
	if (last) {
		info.nthreads = t->info.nthreads;
		info.nprocs = t->info.nprocs;
	}
	t->info = info;
	if (t->interval)
		t->merged++;
	t->interval = true;
	t->last = last;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

static int write_error(struct top *t)
{
	int err;

	pthread_mutex_lock(&t->lock);
	err = t->err;
	pthread_mutex_unlock(&t->lock);
	return err;
}

static void on_interval(struct sampler *sp, void *arg)
{
	struct top *t = arg;

	/* An output that fails stops the view; the pipe's reader leaving
	 * (EPIPE, as with '| head') is the usual way to say enough. */
	if (write_error(t)) {
		sp->stop = true;
		return;
	}
	/* CPU-time weights: the samples of this interval get theirs now. */
	sampler_settle(sp);
	hand_over(t, false);
}

/* Keys, as they come (non-canonical, VMIN 0: a read never waits, even
 * if a launched command sharing the terminal took the input first).
 * Only lowercase letters count: the escape sequences of arrow and
 * function keys hold uppercase ones, and are skipped. */
static void on_key(struct sampler *sp, void *arg)
{
	struct top *t = arg;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	bool was_cum = t->key_sort_cum, in_escape = false;
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
			t->key_sort_cum = false;
		else if (c == 'c')
			t->key_sort_cum = true;
	}
	if (t->key_sort_cum != was_cum && !sp->stop) {
		pthread_mutex_lock(&t->lock);
		t->sort_cum = t->key_sort_cum;
		t->redraw = true;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->lock);
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
 * ctprof ignores it anyway).  Ctrl-S is off too: it would stop the output
 * and with it the view. */
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
	/* If this fails, the view thread meets the same error and the view
	 * stops at the next interval. */
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
}

/* ---- start and end ---- */

struct top *top_start(struct sampler *sp, const struct options *o)
{
	static bool exit_hook;
	struct top *t = xcalloc(1, sizeof(*t));
	uint64_t interval_ns = (uint64_t)(o->interval * 1e9);
	sigset_t all, old;
	struct stat st;
	int err;

	t->sp = sp;
	t->screen = isatty(STDOUT_FILENO);
	/* Off a terminal no key is read: the output may be a pager, which
	 * reads the same terminal. */
	t->keys = t->screen && isatty(STDIN_FILENO);
	t->sort_cum = t->key_sort_cum = o->sort_cum;
	t->saved_stderr = -1;
	stacks_init(&t->pending);
	view_init(&t->view, now_ns(), interval_ns);
	view_set_target(&t->view, sp->maps);
	t->view.raw_names = o->no_demangle;
	t->view.verbose = o->verbose;
	/* As main does before its report; here before the view thread
	 * starts, which may read the environment. */
	if (!o->debuginfod)
		unsetenv("DEBUGINFOD_URLS");

	if (t->screen)
		take_terminal(t);
	t->view.screen = t->screen;
	t->view.keys = t->keys;
	/* The first frame, before any sample: the header and the keys. */
	take_info(t, &t->info);
	t->redraw = t->screen;

	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	/* Every signal stays with the sampling thread, which reads them
	 * from its signalfd; blocked here, SIGTTOU does not stop a write. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, view_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		restore(t);
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
		view_release(&t->view);
		free(t);
		errno = err;
		return NULL;
	}
	if (!exit_hook && atexit(restore_at_exit) == 0)
		exit_hook = true;

	sp->hooks.interval_ns = interval_ns;
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
	 * interval, and the whole run's shares are complete. */
	if (!t->screen && !write_error(t))
		hand_over(t, true);
	pthread_mutex_lock(&t->lock);
	t->closing = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	err = t->err;
	restore(t);
	if (err && err != EPIPE) {
		error_msg("cannot write to standard output: %s", strerror(err));
		ret = -1;
	}
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	module_stage_release(&t->stage);
	stacks_release(&t->pending);
	view_release(&t->view);
	free(t->frame.s);
	free(t);
	return ret;
}
