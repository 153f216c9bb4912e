/* top-view.c - see top-view.h.
 *
 * Each interval's samples (the growth of every stack since the last
 * interval) become a profile of that interval alone; its flat rows are
 * merged by function into the view's table, which adds them up for the
 * whole run: a sample never belongs to two intervals, so the sum of the
 * intervals' self and cum counts is the run's.  One symbolizer serves
 * every interval, as it caches each address it has looked up.
 *
 * The screen is drawn with plain ANSI sequences that every terminal
 * emulator in use understands (cursor position, erase), each line placed
 * by position and cleared to its end, so that a frame overwrites the last
 * one without flicker.
 */
#define _GNU_SOURCE
#include "top-view.h"
#include "profile.h"
#include "util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 1024     /* a line is clipped to this much */

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

void view_init(struct top_view *v, uint64_t start_ns, uint64_t interval_ns)
{
	memset(v, 0, sizeof(*v));
	strpool_init(&v->strings);
	v->maps.mt = &v->modtab;
	v->start_ns = v->last_ns = start_ns;
	v->span_ns = interval_ns;
}

void view_set_target(struct top_view *v, const struct maps *maps)
{
	v->maps.pid = maps->pid;
	v->maps.ns_pid = maps->ns_pid;
	v->maps.start_ns = maps->start_ns;
	v->maps.root_fd = maps->root_fd >= 0 ? fcntl(maps->root_fd, F_DUPFD_CLOEXEC, 3) : -1;
}

void view_release(struct top_view *v)
{
	if (v->maps.root_fd > 0)
		close(v->maps.root_fd);
	if (v->sz)
		symbolizer_free(v->sz);
	modtab_free_copies(&v->modtab);
	strpool_release(&v->strings);
	free(v->funcs);
	key3_release(&v->index);
	free(v->order);
	memset(v, 0, sizeof(*v));
}

/* The view's entry for a function, by what tells functions apart in a
 * profile (name, declaring file, module): made on first sight. */
static struct top_func *func_get(struct top_view *v, const char *name, const char *file,
				 const char *module)
{
	struct top_func *f;
	size_t i;

	name = strpool_intern(&v->strings, name);
	file = strpool_intern(&v->strings, file);
	module = strpool_intern(&v->strings, module);
	i = key3_get(&v->index, name, file, module, v->nfuncs);
	if (i < v->nfuncs)
		return &v->funcs[i];
	if (v->nfuncs == v->fcap) {
		GROW(v->funcs, v->fcap, v->nfuncs + 1);
		v->order = xrealloc(v->order, v->fcap * sizeof(*v->order));
	}
	v->order[v->nfuncs] = v->nfuncs;
	f = &v->funcs[v->nfuncs++];
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
	const struct top_view *v = arg;
	const struct top_func *x = &v->funcs[*(const size_t *)a], *y = &v->funcs[*(const size_t *)b];
	uint64_t kx[3] = { v->sort_cum ? x->cum : x->self, v->sort_cum ? x->run_cum : x->run_self,
			   v->sort_cum ? x->self : x->cum };
	uint64_t ky[3] = { v->sort_cum ? y->cum : y->self, v->sort_cum ? y->run_cum : y->run_self,
			   v->sort_cum ? y->self : y->cum };
	int i;

	for (i = 0; i < 3; i++)
		if (kx[i] != ky[i])
			return kx[i] > ky[i] ? -1 : 1;
	return strcmp(x->name, y->name);
}

void view_sort(struct top_view *v)
{
	if (v->nfuncs)
		qsort_r(v->order, v->nfuncs, sizeof(*v->order), order_cmp, v);
}

void view_take(struct top_view *v, struct stacks *batch, uint64_t now_ns)
{
	size_t i;

	for (i = 0; i < v->nfuncs; i++)
		v->funcs[i].self = v->funcs[i].cum = 0;
	if (batch->total || batch->total_ns) {
		struct profile prof;
		struct flat fl;

		if (!v->sz)
			v->sz = symbolizer_new(&v->maps);
		/* JIT code moves over a run: its names are looked up anew. */
		symbolizer_forget_anon(v->sz);
		profile_init(&prof);
		profile_from_stacks(&prof, batch, v->sz, &v->maps);
		if (!v->raw_names)
			profile_demangle(&prof);
		profile_flat(&prof, 0, PROFILE_ALL_TIDS, SORT_SELF, false, &fl);
		for (i = 0; i < fl.n; i++) {
			const struct flat_row *r = &fl.rows[i];
			const struct pfunc *pf = &prof.funcs[r->func];
			struct top_func *f = func_get(v, pf->name, pf->file,
						      profile_func_module(&prof, r->func));

			f->self = r->self;
			f->cum = r->cum;
			f->run_self += r->self;
			f->run_cum += r->cum;
		}
		flat_release(&fl);
		profile_release(&prof);
	}
	v->total = batch->total_ns;
	v->run_total += batch->total_ns;
	v->samples = batch->total;
	stacks_release(batch);
	v->span_ns = now_ns - v->last_ns;
	v->last_ns = now_ns;
	view_sort(v);
}

/* ---- text ---- */

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

/* Where the lines of a frame go, and how wide they may be. */
struct out {
	const struct top_view *v;
	struct buf *b;
	int width;
};

/* Append one line: on the screen at ROW (1-based), clipped to width - 1
 * columns (a line that fills the last column leaves the cursor in the
 * terminal's pending-wrap state, where the erase that follows would take
 * that column's character away); plain, with a newline.  Only printable
 * ASCII reaches a terminal, one column per byte: a process may name itself
 * with escape sequences, and a byte of UTF-8 is not a column.  Off a
 * terminal only control characters are replaced. */
static void put_line(const struct out *o, int row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_line(const struct out *o, int row, const char *fmt, ...)
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

		if (c < 0x20 || c == 0x7f || (o->v->screen && c >= 0x80))
			line[i] = '?';
	}
	if (!o->v->screen) {
		buf_printf(o->b, "%s\n", line);
		return;
	}
	if (n + 1 > (size_t)o->width)
		n = o->width > 1 ? (size_t)o->width - 1 : 0;
	buf_printf(o->b, "\033[%d;1H%.*s\033[K", row, (int)n, line);
}

static void header(const struct top_view *v, const struct top_info *in, char *out, size_t size)
{
	double span = (double)v->span_ns / 1e9;
	int n;

	n = snprintf(out, size, "ctprof top: pid %d (%s), %zu %s, %u Hz, %.0f samples/s",
		     in->pid, in->comm, in->nthreads, in->nthreads == 1 ? "thread" : "threads",
		     in->frequency, span > 0 ? (double)v->samples / span : 0.0);
	if (in->nprocs > 1 && n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, ", %zu processes", in->nprocs);
}

static void when(const struct top_view *v, const struct top_info *in, char *out, size_t size)
{
	char elapsed[32], hms[16];
	time_t now = time(NULL);
	struct tm tm;

	clock_str(elapsed, sizeof(elapsed), in->now_ns - v->start_ns);
	if (localtime_r(&now, &tm))
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	else
		snprintf(hms, sizeof(hms), "?");
	snprintf(out, size, "%s, elapsed %s, sort: %s", hms, elapsed, v->sort_cum ? "cum" : "self");
}

/* The column titles, two lines; the sort column is marked with '*'. */
static void titles(const struct out *o, int *row)
{
	const struct top_view *v = o->v;
	char last[32];

	snprintf(last, sizeof(last), "last %.1f s", (double)v->span_ns / 1e9);
	put_line(o, (*row)++, "%13s   %13s", last, "whole run");
	put_line(o, (*row)++, "%6s %6s   %6s %6s  %s",
		 v->sort_cum ? "self%" : "*self%", v->sort_cum ? "*cum%" : "cum%",
		 "self%", "cum%", "function [module]");
}

static void row(const struct out *o, int r, const struct top_func *f)
{
	const struct top_view *v = o->v;

	put_line(o, r, "%6.1f %6.1f   %6.1f %6.1f  %s [%s]",
		 pct(f->self, v->total), pct(f->cum, v->total),
		 pct(f->run_self, v->run_total), pct(f->run_cum, v->run_total),
		 f->name, f->module);
}

void view_screen(const struct top_view *v, const struct top_info *info, int width, int height,
		 struct buf *b)
{
	struct out o = { .v = v, .b = b, .width = width };
	char line[LINE_MAX_BYTES];
	int r = 1;
	size_t i;

	header(v, info, line, sizeof(line));
	put_line(&o, r++, "%s", line);
	when(v, info, line, sizeof(line));
	if (r <= height)
		put_line(&o, r++, "%s; %s", line, v->keys ? "keys: s self, c cum, q quit" : "Ctrl-C stops");
	if (v->verbose && r <= height)
		put_line(&o, r++, "profiler: %" PRIu64 " ticks missed, %lu samples lost, %" PRIu64
			 " unwinds failed, stop median %.1f us",
			 info->missed, info->lost, info->unwind_failed, info->stop_median_us);
	if (r <= height)
		put_line(&o, r++, "%s", "");
	if (r + 1 <= height)
		titles(&o, &r);
	if (!v->run_total && r <= height)
		put_line(&o, r++, "%s", "(no samples yet)");
	for (i = 0; i < v->nfuncs && r <= height; i++)
		row(&o, r++, &v->funcs[v->order[i]]);
	/* Whatever the last frame had below. */
	buf_printf(b, "\033[J");
}

void view_block(const struct top_view *v, const struct top_info *info, size_t rows, bool last,
		unsigned merged, struct buf *b)
{
	struct out o = { .v = v, .b = b };
	char line[LINE_MAX_BYTES];
	size_t i;
	int r = 0;

	header(v, info, line, sizeof(line));
	put_line(&o, 0, "%s", line);
	when(v, info, line, sizeof(line));
	if (merged)
		put_line(&o, 0, "%s%s; %u intervals in one, as the output was not read in time", line,
			 last ? ", end" : "", merged + 1);
	else
		put_line(&o, 0, "%s%s", line, last ? ", end" : "");
	if (v->verbose)
		put_line(&o, 0, "profiler: %" PRIu64 " ticks missed, %lu samples lost, %" PRIu64
			 " unwinds failed, stop median %.1f us",
			 info->missed, info->lost, info->unwind_failed, info->stop_median_us);
	titles(&o, &r);
	if (!v->run_total)
		put_line(&o, 0, "%s", "(no samples yet)");
	for (i = 0; i < v->nfuncs && i < rows; i++)
		row(&o, 0, &v->funcs[v->order[i]]);
	if (i < v->nfuncs)
		put_line(&o, 0, "(%zu more functions)", v->nfuncs - i);
	put_line(&o, 0, "%s", "");
}
