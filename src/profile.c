/* profile.c - see profile.h. */
#include "profile.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t func_hash(const struct sym_frame *f)
{
	uint64_t h = fnv1a(FNV_OFFSET, &f->function, sizeof(f->function));

	h = fnv1a(h, &f->file, sizeof(f->file));
	h = fnv1a(h, &f->line, sizeof(f->line));
	return fnv1a(h, &f->module, sizeof(f->module));
}

static void reindex(struct profile *p)
{
	size_t i, j, cap = p->index_cap ? p->index_cap * 2 : 1024;

	free(p->index);
	p->index = xmalloc(cap * sizeof(*p->index));
	for (i = 0; i < cap; i++)
		p->index[i] = SIZE_MAX;
	p->index_cap = cap;
	for (i = 0; i < p->n; i++) {
		struct sym_frame key = { .function = p->funcs[i].name, .file = p->funcs[i].file,
					 .line = p->funcs[i].line, .module = p->funcs[i].module };

		for (j = func_hash(&key) & (cap - 1); p->index[j] != SIZE_MAX; j = (j + 1) & (cap - 1))
			;
		p->index[j] = i;
	}
}

/* The function of level F; strings are interned, so pointers compare. */
static struct func *func_get(struct profile *p, const struct sym_frame *f)
{
	struct func *fn;
	size_t j;

	if ((p->n + 1) * 2 > p->index_cap)
		reindex(p);
	for (j = func_hash(f) & (p->index_cap - 1); p->index[j] != SIZE_MAX;
	     j = (j + 1) & (p->index_cap - 1)) {
		fn = &p->funcs[p->index[j]];
		if (fn->name == f->function && fn->file == f->file && fn->line == f->line &&
		    fn->module == f->module)
			return fn;
	}
	GROW(p->funcs, p->cap, p->n + 1);
	p->index[j] = p->n;
	fn = &p->funcs[p->n++];
	memset(fn, 0, sizeof(*fn));
	fn->name = f->function;
	fn->file = f->file;
	fn->line = f->line;
	fn->module = f->module;
	return fn;
}

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return strcmp(x->name, y->name);
}

void profile_build(struct profile *p, const struct stacks *st, struct symbolizer *sz)
{
	const struct stack *s;
	uint64_t stamp = 0;

	memset(p, 0, sizeof(*p));
	stacks_for_each(st, s) {
		uint32_t i;

		stamp++;
		p->total += s->count;
		for (i = 0; i < s->nframes; i++) {
			const struct sym_frame *lv;
			unsigned n = symbolizer_lookup(sz, s->frames[i], &lv), j;

			for (j = 0; j < n; j++) {
				struct func *fn = func_get(p, &lv[j]);

				if (i == 0 && j == 0)
					fn->self += s->count;
				/* Recursion: a function counts once per sample. */
				if (fn->stamp != stamp) {
					fn->stamp = stamp;
					fn->cum += s->count;
				}
			}
		}
	}
	free(p->index);
	p->index = NULL;
	p->index_cap = 0;
	if (p->n)
		qsort(p->funcs, p->n, sizeof(*p->funcs), func_cmp);
}

void profile_release(struct profile *p)
{
	free(p->funcs);
	free(p->index);
	memset(p, 0, sizeof(*p));
}
