/* output.c - the table of writers; see output.h. */
#include "output.h"
#include "cli.h"
#include "util.h"
#include "write-svg.h"

#include <stdlib.h>

#include <string.h>

static int text_write(FILE *f, const struct profile *p, const struct run_info *ri,
		      const struct output_opts *oo)
{
	return report_write(f, p, ri, oo);
}

static const struct writer writers[] = {
	{ "text", text_write },
	{ "folded", folded_write },
	{ "pprof", pprof_write },
	{ "svg", svg_profile_write },
};

struct output_opts output_opts_of(const struct options *o)
{
	return (struct output_opts){
		.thread_frames = !o->no_thread,
		.raw_names = o->no_demangle,
		.top = o->top,
		.sort = o->sort_cum ? SORT_CUM : SORT_SELF,
		.per_thread = o->per_thread,
		.lines = o->lines,
		.callgraph = o->callgraph,
	};
}

const struct writer *writer_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (!strcmp(writers[i].name, name))
			return &writers[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

const struct writer *writer_for_file(const char *path)
{
	if (path && (ends_with(path, ".pb.gz") || ends_with(path, ".pb")))
		return writer_find("pprof");
	if (path && ends_with(path, ".folded"))
		return writer_find("folded");
	if (path && ends_with(path, ".svg"))
		return writer_find("svg");
	return writer_find("text");
}

bool output_is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

const char *writer_names(void)
{
	return "text, folded, pprof, svg";
}

/* The flame graph's stacks of P's samples, appended to *STACKS (*N of
 * them so far, room for *CAP): each sample's frames root first (inlined
 * functions as frames of their own), under a frame for its thread, and
 * for its process if there are several.  As BASE (a differential graph's
 * first profile), a sample weighs SCALE times its weight in base and
 * nothing in count.  Each stack's names array is one allocation, labels
 * included: free it alone (fg_stacks_free). */
void fg_stacks_add(struct fg_stack **stacks, size_t *n, size_t *cap, const struct profile *p,
		   const struct output_opts *oo, bool base, double scale)
{
	bool procs = !oo->no_process_frames && profile_multiprocess(p);
	size_t i;

	GROW(*stacks, *cap, *n + p->nsamples + 1);
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		unsigned depth = (oo->thread_frames ? 1 : 0) + (procs ? 1 : 0), d = 0;
		struct fg_stack *st = &(*stacks)[*n];
		const char **names, **modules;
		char *labels;
		uint64_t w = profile_sample_weight(p, s);
		uint32_t k;

		for (k = 0; k < s->nlocs; k++)
			depth += p->locs[p->sample_locs[s->first_loc + k]].nlines;
		/* The pointers, then room for the two labels. */
		names = xcalloc(1, 2 * (depth + 1) * sizeof(*names) + 160);
		modules = names + depth + 1;
		labels = (char *)(modules + depth + 1);
		if (procs) {
			const char *pn = profile_process_name(p, s->pid);

			snprintf(labels, 80, "%s-%d", pn ? pn : "process", s->pid);
			names[d++] = labels;
		}
		if (oo->thread_frames) {
			const char *tn = profile_thread_name(p, s->tid);

			snprintf(labels + 80, 80, "%s-%d", tn ? tn : "thread", s->tid);
			names[d++] = labels + 80;
		}
		for (k = s->nlocs; k-- > 0;) {
			const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + k]];
			uint32_t l;

			for (l = loc->nlines; l-- > 0;) {
				const struct pfunc *fn = &p->funcs[p->lines[loc->first_line + l].func];

				names[d] = func_name(fn, oo);
				modules[d] = fn->mapping ? profile_map_name(p, fn->mapping) : NULL;
				d++;
			}
		}
		st->count = base ? 0 : w;
		st->base = base ? (uint64_t)((double)w * scale + 0.5) : 0;
		st->nframes = d;
		st->names = names;
		st->modules = modules;
		(*n)++;
	}
}

void fg_stacks_free(struct fg_stack *stacks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((void *)stacks[i].names);
	free(stacks);
}

int svg_profile_write(FILE *f, const struct profile *p, const struct run_info *ri,
		      const struct output_opts *oo)
{
	struct fg_stack *stacks = NULL;
	size_t n = 0, cap = 0;
	char title[256];
	int ret;

	fg_stacks_add(&stacks, &n, &cap, p, oo, false, 1);
	snprintf(title, sizeof(title), "ctprof: pid %d (%s), %llu samples at %u Hz",
		 p->pid, p->comm ? p->comm : "?", (unsigned long long)p->total, p->frequency);
	ret = svg_write(f, title, stacks, n);
	fg_stacks_free(stacks, n);
	return ret;
}
