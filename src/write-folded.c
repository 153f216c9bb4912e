/* write-folded.c - folded stacks, as FlameGraph's flamegraph.pl and
 * speedscope read them: one line per distinct stack, root first, frames
 * separated by ';', one space, then the count:
 *     ctprof-demo-1234;_start;main;compute;hash_mix 42
 * With --weight=cputime the number is microseconds of CPU, not samples.
 * With samples of several processes (--follow-forks), a frame for the
 * process comes first: make-1200;cc-1201;main;... 3
 * Inlined functions are frames of their own.  A ';' in a name would split
 * a frame, so it is written as ':'; newlines would end the line, so
 * control characters are written as '?'. */
#define _GNU_SOURCE
#include "writer.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Add W to column COL of the line TEXT (taken over). */
static void lines_add(struct folded *ls, char *text, int col, double w)
{
	size_t i;

	if ((ls->n + 1) * 2 > ls->icap) {
		size_t ncap = ls->icap ? ls->icap * 2 : 1024, k;

		free(ls->index);
		ls->index = xmalloc(ncap * sizeof(*ls->index));
		for (k = 0; k < ncap; k++)
			ls->index[k] = SIZE_MAX;
		ls->icap = ncap;
		for (k = 0; k < ls->n; k++) {
			for (i = fnv1a(FNV_OFFSET, ls->v[k].text, strlen(ls->v[k].text)) & (ncap - 1);
			     ls->index[i] != SIZE_MAX; i = (i + 1) & (ncap - 1))
				;
			ls->index[i] = k;
		}
	}
	for (i = fnv1a(FNV_OFFSET, text, strlen(text)) & (ls->icap - 1); ls->index[i] != SIZE_MAX;
	     i = (i + 1) & (ls->icap - 1)) {
		if (!strcmp(ls->v[ls->index[i]].text, text)) {
			ls->v[ls->index[i]].w[col] += w;
			free(text);
			return;
		}
	}
	GROW(ls->v, ls->cap, ls->n + 1);
	ls->v[ls->n].text = text;
	ls->v[ls->n].w[col] = w;
	ls->v[ls->n].w[!col] = 0;
	ls->index[i] = ls->n++;
}

static void put_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 ? '?' : *s, f);
}

int folded_add(struct folded *ls, const struct profile *p, const struct output_opts *oo, int col,
	       double scale)
{
	bool procs = !oo->no_process_frames && profile_multiprocess(p);
	size_t i;

	/* Stacks that differ only in addresses fold into one line. */
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		bool first = true;
		char *text = NULL;
		size_t len = 0;
		FILE *m;
		uint32_t k;

		if (!profile_sample_weight(p, s))
			continue;
		m = open_memstream(&text, &len);
		if (!m)
			return -ENOMEM;
		if (procs) {
			const char *name = profile_process_name(p, s->pid);
			char buf[80];

			snprintf(buf, sizeof(buf), "%s-%d", name ? name : "process", s->pid);
			put_frame(m, buf);
			first = false;
		}
		if (oo->thread_frames) {
			const char *name = profile_thread_name(p, s->tid);
			char buf[64];

			snprintf(buf, sizeof(buf), "%s-%d", name ? name : "thread", s->tid);
			if (!first)
				fputc(';', m);
			put_frame(m, buf);
			first = false;
		}
		/* Locations are stored leaf first, lines innermost first. */
		for (k = s->nlocs; k-- > 0;) {
			const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + k]];
			uint32_t l;

			for (l = loc->nlines; l-- > 0;) {
				if (!first)
					fputc(';', m);
				put_frame(m, func_name(&p->funcs[p->lines[loc->first_line + l].func], oo));
				first = false;
			}
		}
		fclose(m);
		lines_add(ls, text, col, (double)profile_sample_weight(p, s) * scale);
	}
	return 0;
}

void folded_release(struct folded *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
	free(ls->index);
	memset(ls, 0, sizeof(*ls));
}

int folded_write(FILE *f, const struct profile *p, const struct run_info *ri,
		 const struct output_opts *oo)
{
	struct folded ls = { 0 };
	size_t i;
	int ret = folded_add(&ls, p, oo, 0, 1);

	for (i = 0; ret == 0 && i < ls.n; i++)
		fprintf(f, "%s %.0f\n", ls.v[i].text, ls.v[i].w[0]);
	folded_release(&ls);
	if (ret == 0 && (fflush(f) == EOF || ferror(f)))
		ret = -(errno ? errno : EIO);
	return ret;
}
