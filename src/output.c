/* output.c - the table of writers; see output.h. */
#include "output.h"
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

const char *writer_names(void)
{
	return "text, folded, pprof, svg";
}

/* The flame graph: each sample's frames root first (inlined functions as
 * frames of their own), under a frame for its thread, and for its process
 * if there are several. */
int svg_profile_write(FILE *f, const struct profile *p, const struct run_info *ri,
		      const struct output_opts *oo)
{
	struct fg_stack *stacks = xcalloc(p->nsamples + 1, sizeof(*stacks));
	char (*tnames)[64] = xcalloc(p->nsamples + 1, sizeof(*tnames));
	char (*pnames)[80] = xcalloc(p->nsamples + 1, sizeof(*pnames));
	bool procs = profile_multiprocess(p);
	char title[256];
	size_t i, n = 0;
	int ret;

	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		const char **names, **modules;
		unsigned depth = (oo->thread_frames ? 1 : 0) + (procs ? 1 : 0), d = 0;
		uint32_t k;

		for (k = 0; k < s->nlocs; k++)
			depth += p->locs[p->sample_locs[s->first_loc + k]].nlines;
		names = xcalloc(depth + 1, sizeof(*names));
		modules = xcalloc(depth + 1, sizeof(*modules));
		if (procs) {
			const char *pn = profile_process_name(p, s->pid);

			snprintf(pnames[i], sizeof(pnames[i]), "%s-%d", pn ? pn : "process", s->pid);
			names[d++] = pnames[i];
		}
		if (oo->thread_frames) {
			const char *tn = profile_thread_name(p, s->tid);

			snprintf(tnames[i], sizeof(tnames[i]), "%s-%d", tn ? tn : "thread", s->tid);
			names[d++] = tnames[i];
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
		stacks[n].count = profile_sample_weight(p, s);
		stacks[n].nframes = d;
		stacks[n].names = names;
		stacks[n].modules = modules;
		n++;
	}
	snprintf(title, sizeof(title), "ctprof: pid %d (%s), %llu samples at %u Hz",
		 p->pid, p->comm ? p->comm : "?", (unsigned long long)p->total, p->frequency);
	ret = svg_write(f, title, stacks, n);
	for (i = 0; i < n; i++) {
		free((void *)stacks[i].names);
		free((void *)stacks[i].modules);
	}
	free(stacks);
	free(tnames);
	free(pnames);
	return ret;
}
