/* diff.c - see diff.h.
 *
 * Shares are of each profile's own total (the time its samples stand for,
 * as in the report), so a longer or busier run does not read as growth;
 * --absolute compares the times themselves.  Folded stacks and the flame
 * graph are keyed by function names, without the thread and process
 * frames, whose ids differ from run to run.
 */
#define _GNU_SOURCE
#include "diff.h"
#include "output.h"
#include "profile.h"
#include "strpool.h"
#include "util.h"
#include "write-svg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BASE, NEW };

/* A function of either profile, by name, file and module (interned). */
struct dfunc {
	const char *name, *file, *module;
	int line;
	uint64_t self[2], cum[2];       /* ns */
	double key;                     /* what it is sorted by */
};

struct dtable {
	struct strpool strings;
	struct dfunc *v;
	size_t n, cap;
	struct key3_index index;        /* v by name, file and module */
	uint64_t total[2];              /* ns */
};

static struct dfunc *dfunc_get(struct dtable *t, const char *name, const char *file, int line,
			       const char *module)
{
	size_t i;

	name = strpool_intern(&t->strings, name);
	file = file ? strpool_intern(&t->strings, file) : NULL;
	module = strpool_intern(&t->strings, module);
	i = key3_get(&t->index, name, file, module, t->n);
	if (i < t->n)
		return &t->v[i];
	GROW(t->v, t->cap, t->n + 1);
	memset(&t->v[t->n], 0, sizeof(t->v[0]));
	t->v[t->n].name = name;
	t->v[t->n].file = file;
	t->v[t->n].line = line;
	t->v[t->n].module = module;
	return &t->v[t->n++];
}

/* Add profile P's functions to T as side SIDE. */
static void add_side(struct dtable *t, const struct profile *p, int side, const struct output_opts *oo)
{
	struct flat fl;
	size_t i;

	profile_flat(p, 0, PROFILE_ALL_TIDS, SORT_SELF, false, &fl);
	for (i = 0; i < fl.n; i++) {
		const struct flat_row *r = &fl.rows[i];
		const struct pfunc *pf = &p->funcs[r->func];
		struct dfunc *f = dfunc_get(t, func_name(pf, oo), pf->file, pf->line,
					    profile_func_module(p, r->func));

		f->self[side] += r->self;
		f->cum[side] += r->cum;
	}
	t->total[side] = fl.total;
	flat_release(&fl);
}

static double share(uint64_t ns, uint64_t total)
{
	return total ? 100.0 * (double)ns / (double)total : 0;
}

/* The change of F's self (or cum) time, in points of share or in
 * seconds. */
static double change(const struct dtable *t, const struct dfunc *f, bool cum, bool absolute)
{
	const uint64_t *v = cum ? f->cum : f->self;

	if (absolute)
		return ((double)v[NEW] - (double)v[BASE]) / 1e9;
	return share(v[NEW], t->total[NEW]) - share(v[BASE], t->total[BASE]);
}

static int dfunc_cmp(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

static long long to_ms(double ns)
{
	return (long long)(ns / 1e6 + (ns < 0 ? -0.5 : 0.5));
}

/* One header line: which profile, and what it holds. */
static void describe(FILE *f, const char *what, const char *path, const struct profile *p,
		     uint64_t total)
{
	fprintf(f, "%s %s: %llu samples, %.2f s of %s", what, path, (unsigned long long)p->total,
		(double)total / 1e9, p->wall ? "thread time" : "CPU");
	if (p->pid)
		fprintf(f, ", pid %d (%s)", p->pid, p->comm ? p->comm : "?");
	if (p->time_ns > 0) {
		time_t secs = (time_t)(p->time_ns / 1000000000LL);
		struct tm tm;
		char when[64];

		gmtime_r(&secs, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(f, ", %s", when);
	}
	fputc('\n', f);
}

static void write_text(FILE *f, const struct options *o, struct dtable *t, const struct profile *p)
{
	bool cum = o->sort_cum, absolute = o->absolute;
	size_t i, n;

	describe(f, "base:", o->diff[BASE], &p[BASE], t->total[BASE]);
	describe(f, "new: ", o->diff[NEW], &p[NEW], t->total[NEW]);
	if (absolute)
		fprintf(f, "times in each profile, and the change; largest change of %s time first\n",
			cum ? "cumulative" : "self");
	else
		fprintf(f, "shares of each profile's total, and the change in points; largest change of %s share first\n",
			cum ? "cumulative" : "self");
	for (i = 0; i < t->n; i++) {
		double c = change(t, &t->v[i], cum, absolute), d = change(t, &t->v[i], !cum, absolute);

		/* Ties by the other change, then by name. */
		t->v[i].key = (c < 0 ? -c : c) * 1e6 + (d < 0 ? -d : d) * 1e-3;
	}
	qsort(t->v, t->n, sizeof(*t->v), dfunc_cmp);
	/* Sorted, the index is stale: nothing is looked up after this. */
	n = o->top && o->top < t->n ? o->top : t->n;
	if (absolute)
		fprintf(f, "%9s %9s %9s %9s %9s %9s  %-24s  %-14s %s\n", "base", "new", "self",
			"base", "new", "cum", "function", "location", "module");
	else
		fprintf(f, "%7s %7s %7s %7s %7s %7s  %-24s  %-14s %s\n", "base", "new", "self",
			"base", "new", "cum", "function", "location", "module");
	for (i = 0; i < n; i++) {
		const struct dfunc *fn = &t->v[i];
		const char *only = !fn->cum[BASE] ? " (new)" : !fn->cum[NEW] ? " (gone)" : "";
		char loc[256];
		int k;

		for (k = 0; k < 2; k++) {
			const uint64_t *v = k ? fn->cum : fn->self;

			if (absolute)
				fprintf(f, "%7lldms %7lldms %+7lldms ", to_ms((double)v[BASE]),
					to_ms((double)v[NEW]), to_ms((double)v[NEW] - (double)v[BASE]));
			else
				fprintf(f, "%6.1f%% %6.1f%% %+7.1f ", share(v[BASE], t->total[BASE]),
					share(v[NEW], t->total[NEW]), change(t, fn, k, false));
		}
		report_location(loc, sizeof(loc), fn->file, fn->line);
		fprintf(f, " %-24s  %-14s [%s]%s\n", fn->name, loc, fn->module, only);
	}
	if (n < t->n)
		fprintf(f, "(%zu more rows; see --top)\n", t->n - n);
}

/* Folded lines with two counts, base then new, as flamegraph.pl draws a
 * differential graph from: the base scaled to the new one's total unless
 * the times are compared. */
static int write_folded(FILE *f, const struct options *o, const struct profile *p,
			const struct output_opts *oo)
{
	struct folded ls = { 0 };
	double sum[2] = { 0, 0 }, scale = 1;
	size_t i;
	int ret;

	ret = folded_add(&ls, &p[BASE], oo, BASE, 1);
	if (ret == 0)
		ret = folded_add(&ls, &p[NEW], oo, NEW, 1);
	for (i = 0; i < ls.n; i++) {
		sum[BASE] += ls.v[i].w[BASE];
		sum[NEW] += ls.v[i].w[NEW];
	}
	if (!o->absolute && sum[BASE] > 0)
		scale = sum[NEW] / sum[BASE];
	for (i = 0; ret == 0 && i < ls.n; i++)
		fprintf(f, "%s %.0f %.0f\n", ls.v[i].text, ls.v[i].w[BASE] * scale, ls.v[i].w[NEW]);
	folded_release(&ls);
	return ret;
}

static int write_svg(FILE *f, const struct options *o, const struct profile *p,
		     const struct output_opts *oo)
{
	struct fg_stack *stacks = NULL;
	size_t n = 0, cap = 0;
	char title[512];
	int ret;

	fg_stacks_add(&stacks, &n, &cap, &p[NEW], oo, false, 1);
	fg_stacks_add(&stacks, &n, &cap, &p[BASE], oo, true, 1);
	snprintf(title, sizeof(title), "ctprof diff: %s against %s", o->diff[NEW], o->diff[BASE]);
	ret = svg_write_diff(f, title, stacks, n);
	fg_stacks_free(stacks, n);
	return ret;
}

int diff_main(const struct options *o)
{
	const struct output_opts oo = { .raw_names = o->no_demangle, .no_process_frames = true };
	const char *out_path = o->noutputs ? o->outputs[0] : NULL;
	const char *format = o->format ? o->format : writer_for_file(out_path)->name;
	struct profile p[2];
	struct dtable t;
	FILE *f = stdout;
	int ret = 0, k;

	for (k = 0; k < 2; k++) {
		profile_init(&p[k]);
		if (pprof_read(o->diff[k], &p[k]) < 0) {
			while (k >= 0)
				profile_release(&p[k--]);
			return 1;
		}
		profile_demangle(&p[k]);
	}
	if (out_path && !output_is_stdout(out_path)) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			error_msg("cannot open output '%s': %s", out_path, strerror(errno));
			if (fd >= 0)
				close(fd);
			profile_release(&p[BASE]);
			profile_release(&p[NEW]);
			return 1;
		}
	}
	memset(&t, 0, sizeof(t));
	strpool_init(&t.strings);
	if (!strcmp(format, "folded")) {
		ret = write_folded(f, o, p, &oo);
	} else if (!strcmp(format, "svg")) {
		ret = write_svg(f, o, p, &oo);
	} else {
		add_side(&t, &p[BASE], BASE, &oo);
		add_side(&t, &p[NEW], NEW, &oo);
		write_text(f, o, &t, p);
	}
	if (ret == 0 && (fflush(f) == EOF || ferror(f)))
		ret = -(errno ? errno : EIO);
	if (f != stdout && fclose(f) == EOF && ret == 0)
		ret = -(errno ? errno : EIO);
	if (ret < 0)
		error_msg("cannot write to %s: %s", f != stdout ? out_path : "standard output", strerror(-ret));
	strpool_release(&t.strings);
	free(t.v);
	key3_release(&t.index);
	profile_release(&p[BASE]);
	profile_release(&p[NEW]);
	return ret < 0 ? 1 : 0;
}
