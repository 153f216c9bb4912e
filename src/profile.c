/* profile.c - see profile.h. */
#include "profile.h"
#include "syscalls.h"
#include "util.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	strpool_init(&p->strings);
}

void profile_release(struct profile *p)
{
	free(p->funcs);
	free(p->lines);
	free(p->locs);
	free(p->sample_locs);
	free(p->maps);
	free(p->samples);
	free(p->threads);
	free(p->procs);
	free(p->func_index);
	strpool_release(&p->strings);
	memset(p, 0, sizeof(*p));
}

static uint64_t func_hash(const char *name, const char *file, int line, uint32_t mapping)
{
	uint64_t h = fnv1a(FNV_OFFSET, &name, sizeof(name));

	h = fnv1a(h, &file, sizeof(file));
	h = fnv1a(h, &line, sizeof(line));
	return fnv1a(h, &mapping, sizeof(mapping));
}

static void func_reindex(struct profile *p)
{
	size_t cap = p->func_index_cap ? p->func_index_cap * 2 : 1024, i, j;

	free(p->func_index);
	p->func_index = xmalloc(cap * sizeof(*p->func_index));
	for (i = 0; i < cap; i++)
		p->func_index[i] = SIZE_MAX;
	p->func_index_cap = cap;
	for (i = 0; i < p->nfuncs; i++) {
		const struct pfunc *f = &p->funcs[i];

		for (j = func_hash(f->name, f->file, f->line, f->mapping) & (cap - 1);
		     p->func_index[j] != SIZE_MAX; j = (j + 1) & (cap - 1))
			;
		p->func_index[j] = i;
	}
}

uint32_t profile_add_func(struct profile *p, const char *name, const char *file, int line,
			  uint32_t mapping)
{
	struct pfunc *f;
	size_t j;

	name = strpool_intern(&p->strings, name ? name : "?");
	file = strpool_intern(&p->strings, file);
	if ((p->nfuncs + 1) * 2 > p->func_index_cap)
		func_reindex(p);
	for (j = func_hash(name, file, line, mapping) & (p->func_index_cap - 1);
	     p->func_index[j] != SIZE_MAX; j = (j + 1) & (p->func_index_cap - 1)) {
		f = &p->funcs[p->func_index[j]];
		if (f->name == name && f->file == file && f->line == line && f->mapping == mapping)
			return (uint32_t)p->func_index[j];
	}
	GROW(p->funcs, p->funcs_cap, p->nfuncs + 1);
	p->func_index[j] = p->nfuncs;
	f = &p->funcs[p->nfuncs];
	f->name = name;
	f->system_name = name;
	f->file = file;
	f->line = line;
	f->mapping = mapping;
	return (uint32_t)p->nfuncs++;
}

void profile_set_thread(struct profile *p, pid_t tid, const char *name)
{
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			break;
	if (i == p->nthreads) {
		GROW(p->threads, p->threads_cap, p->nthreads + 1);
		p->nthreads++;
	}
	p->threads[i].tid = tid;
	p->threads[i].name = strpool_intern(&p->strings, name);
}

void profile_set_process(struct profile *p, pid_t pid, const char *comm)
{
	size_t i;

	for (i = 0; i < p->nprocs && p->procs[i].pid != pid; i++)
		;
	if (i == p->nprocs) {
		GROW(p->procs, p->procs_cap, p->nprocs + 1);
		p->nprocs++;
	}
	p->procs[i].pid = pid;
	p->procs[i].comm = strpool_intern(&p->strings, comm);
}

const char *profile_process_name(const struct profile *p, pid_t pid)
{
	size_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return p->procs[i].comm;
	return NULL;
}

static int group_cmp(const void *a, const void *b)
{
	const struct pgroup *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

size_t profile_groups(const struct profile *p, bool by_thread, struct pgroup **out)
{
	struct pgroup *g = xcalloc(p->nsamples + 1, sizeof(*g));
	size_t n = 0, i, j;

	/* Linear: there are few processes and threads next to samples. */
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		pid_t tid = by_thread ? s->tid : PROFILE_ALL_TIDS;

		for (j = 0; j < n && (g[j].pid != s->pid || g[j].tid != tid); j++)
			;
		if (j == n) {
			g[n].pid = s->pid;
			g[n++].tid = tid;
		}
		g[j].count += s->count;
		g[j].ns += s->ns;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	*out = g;
	return n;
}

bool profile_func_is_wait(const struct profile *p, uint32_t f)
{
	const char *n = p->funcs[f].system_name;

	return p->funcs[f].mapping == 0 && (!strncmp(n, "[syscall: ", 10) || !strcmp(n, "[waiting]"));
}

const char *profile_func_module(const struct profile *p, uint32_t f)
{
	const struct pfunc *fn = &p->funcs[f];

	if (profile_func_is_wait(p, f) || (fn->mapping == 0 && !strcmp(fn->system_name, "[kernel]")))
		return "kernel";
	if (fn->mapping == 0 && !strcmp(fn->system_name, "[unsampled, to exit]"))
		return "ctprof";
	return profile_map_name(p, fn->mapping);
}

bool profile_multiprocess(const struct profile *p)
{
	size_t i;

	for (i = 1; i < p->nsamples; i++)
		if (p->samples[i].pid != p->samples[0].pid)
			return true;
	return false;
}

const char *profile_thread_name(const struct profile *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return p->threads[i].name;
	return NULL;
}

const char *profile_map_name(const struct profile *p, uint32_t mapping)
{
	return mapping && mapping <= p->nmaps ? p->maps[mapping - 1].name : "anon";
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Location per distinct frame key, mapping per module: built on demand. */
struct builder {
	struct profile *p;
	struct symbolizer *sz;
	const struct maps *maps;
	uint32_t *map_module;           /* module id of each mapping */
	size_t map_module_cap;
	struct { uint64_t key; uint32_t loc; bool used; } *locs;
	size_t locs_cap, nlocs;
};

/* The executable PT_LOAD of MOD holding VADDR, or its first one. */
static const Elf64_Phdr *exec_segment(const struct module *mod, uint64_t vaddr)
{
	const Elf64_Phdr *first = NULL;
	unsigned i;

	for (i = 0; i < mod->phnum; i++) {
		const Elf64_Phdr *ph = &mod->phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_memsz)
			return ph;
		if (!first)
			first = ph;
	}
	return first;
}

/* The 1-based mapping of the code of MODULE at ELF address VADDR.  A
 * mapping is an executable segment as the loader maps it (whole pages,
 * the file offset of its first), as /proc/PID/maps shows it and as perf
 * writes it: pprof finds the segment by that offset and the load bias from
 * it, which a mapping of the whole module at offset 0 gets wrong when
 * segments' addresses and offsets differ (lld, mold). */
static uint32_t builder_mapping(struct builder *b, uint32_t module, uint64_t vaddr)
{
	const struct module *mod = maps_module(b->maps, module);
	const Elf64_Phdr *ph = mod && mod->phdr ? exec_segment(mod, vaddr) : NULL;
	uint64_t start = 0, limit = 0, offset = 0;
	struct pmap *pm;
	char id[256];
	size_t i;

	/* Anonymous memory (JIT code) is in no file. */
	if (!mod || mod->anon)
		return 0;
	if (ph) {
		uint64_t bias = mod->loaded ? mod->bias : 0;

		start = bias + (ph->p_vaddr & ~0xfffULL);
		limit = bias + ((ph->p_vaddr + ph->p_memsz + 0xfff) & ~0xfffULL);
		offset = ph->p_offset & ~0xfffULL;
	}
	for (i = 0; i < b->p->nmaps; i++)
		if (b->map_module[i] == module && b->p->maps[i].start == start)
			return (uint32_t)i + 1;
	GROW(b->p->maps, b->p->maps_cap, b->p->nmaps + 1);
	GROW(b->map_module, b->map_module_cap, b->p->nmaps + 1);
	b->map_module[b->p->nmaps] = module;
	pm = &b->p->maps[b->p->nmaps++];
	memset(pm, 0, sizeof(*pm));
	pm->file = strpool_intern(&b->p->strings, mod->path);
	pm->name = strpool_intern(&b->p->strings, mod->name);
	if (mod->build_id && mod->build_id_len < sizeof(id) / 2) {
		hex(id, mod->build_id, mod->build_id_len);
		pm->build_id = strpool_intern(&b->p->strings, id);
	}
	pm->start = start;
	pm->limit = limit;
	pm->offset = offset;
	return (uint32_t)b->p->nmaps;
}

static uint32_t builder_loc(struct builder *b, uint64_t key)
{
	struct profile *p = b->p;
	uint32_t module = frame_key_module(key), mapping;
	const struct module *mod = maps_module(b->maps, module);
	const struct sym_frame *lv;
	struct ploc *loc;
	unsigned n, i;
	size_t j;

	if ((b->nlocs + 1) * 2 > b->locs_cap) {
		size_t ocap = b->locs_cap, ncap = ocap ? ocap * 2 : 1024, k;
		void *old = b->locs;

		b->locs = xcalloc(ncap, sizeof(*b->locs));
		b->locs_cap = ncap;
		for (k = 0; k < ocap; k++) {
			typeof(b->locs) o = (typeof(b->locs))old + k;

			if (!o->used)
				continue;
			for (j = fnv1a(FNV_OFFSET, &o->key, 8) & (ncap - 1); b->locs[j].used;
			     j = (j + 1) & (ncap - 1))
				;
			b->locs[j] = *o;
		}
		free(old);
	}
	for (j = fnv1a(FNV_OFFSET, &key, 8) & (b->locs_cap - 1); b->locs[j].used;
	     j = (j + 1) & (b->locs_cap - 1))
		if (b->locs[j].key == key)
			return b->locs[j].loc;

	if (module == FRAME_MODULE_SYSCALL) {
		/* Where a blocked thread waits: a frame of no module. */
		uint64_t nr = frame_key_offset(key);
		const char *name = nr >= FRAME_KERNEL ? NULL : syscall_name((long)nr);
		char buf[64];

		if (nr == FRAME_WAITING)
			snprintf(buf, sizeof(buf), "[waiting]");
		else if (nr == FRAME_UNSAMPLED)
			snprintf(buf, sizeof(buf), "[unsampled, to exit]");
		else if (nr == FRAME_KERNEL)
			snprintf(buf, sizeof(buf), "[kernel]");
		else if (name)
			snprintf(buf, sizeof(buf), "[syscall: %s]", name);
		else
			snprintf(buf, sizeof(buf), "[syscall: %llu]", (unsigned long long)nr);
		GROW(p->locs, p->locs_cap, p->nlocs + 1);
		loc = &p->locs[p->nlocs];
		loc->mapping = 0;
		loc->address = 0;
		loc->first_line = (uint32_t)p->nlines;
		loc->nlines = 1;
		GROW(p->lines, p->lines_cap, p->nlines + 1);
		p->lines[p->nlines].func = profile_add_func(p, buf, NULL, 0, 0);
		p->lines[p->nlines].line = 0;
		p->nlines++;
		goto added;
	}
	mapping = builder_mapping(b, module, frame_key_offset(key));
	n = symbolizer_lookup(b->sz, key, &lv);
	GROW(p->locs, p->locs_cap, p->nlocs + 1);
	loc = &p->locs[p->nlocs];
	loc->mapping = mapping;
	/* The runtime address where the module was last loaded. */
	loc->address = frame_key_offset(key) + (mod && mod->loaded ? mod->bias : 0);
	loc->first_line = (uint32_t)p->nlines;
	loc->nlines = n;
	GROW(p->lines, p->lines_cap, p->nlines + n);
	for (i = 0; i < n; i++) {
		p->lines[p->nlines].func = profile_add_func(p, lv[i].function, lv[i].file,
							    lv[i].line, mapping);
		p->lines[p->nlines].line = lv[i].src_line;
		p->nlines++;
	}
added:
	b->locs[j].used = true;
	b->locs[j].key = key;
	b->locs[j].loc = (uint32_t)p->nlocs;
	b->nlocs++;
	return (uint32_t)p->nlocs++;
}

void profile_from_stacks(struct profile *p, const struct stacks *st,
			 struct symbolizer *sz, const struct maps *maps)
{
	struct builder b = { .p = p, .sz = sz, .maps = maps };
	const struct stack *s;

	stacks_for_each(st, s) {
		struct psample *ps;
		uint32_t i;

		/* Left by stacks_take(). */
		if (!s->count && !s->ns)
			continue;
		GROW(p->samples, p->samples_cap, p->nsamples + 1);
		ps = &p->samples[p->nsamples++];
		ps->count = s->count;
		ps->ns = s->ns;
		ps->pid = s->pid;
		ps->tid = s->tid;
		ps->first_loc = (uint32_t)p->nsample_locs;
		ps->nlocs = s->nframes;
		GROW(p->sample_locs, p->sample_locs_cap, p->nsample_locs + s->nframes);
		for (i = 0; i < s->nframes; i++)
			p->sample_locs[p->nsample_locs++] = builder_loc(&b, s->frames[i]);
		p->total += s->count;
	}
	free(b.map_module);
	free(b.locs);
}

/* ---- flat ---- */

/* qsort has no argument for these. */
static const struct profile *cmp_profile;
static enum flat_sort cmp_sort;

static int row_cmp(const void *a, const void *b)
{
	const struct flat_row *x = a, *y = b;
	uint64_t x1 = cmp_sort == SORT_SELF ? x->self : x->cum, y1 = cmp_sort == SORT_SELF ? y->self : y->cum;
	uint64_t x2 = cmp_sort == SORT_SELF ? x->cum : x->self, y2 = cmp_sort == SORT_SELF ? y->cum : y->self;

	if (x1 != y1)
		return x1 > y1 ? -1 : 1;
	if (x2 != y2)
		return x2 > y2 ? -1 : 1;
	if (x->func != y->func)
		return strcmp(cmp_profile->funcs[x->func].name, cmp_profile->funcs[y->func].name);
	return (x->line > y->line) - (x->line < y->line);
}

/* Row keys for by_line: (function, line) pairs, numbered densely. */
struct keymap {
	struct { uint32_t func; int line; uint32_t id; bool used; } *v;
	size_t cap, n;
};

static uint32_t keymap_get(struct keymap *km, uint32_t func, int line)
{
	uint64_t h;
	size_t i;

	if ((km->n + 1) * 2 > km->cap) {
		typeof(km->v) old = km->v;
		size_t ocap = km->cap, k;

		km->cap = ocap ? ocap * 2 : 1024;
		km->v = xcalloc(km->cap, sizeof(*km->v));
		for (k = 0; k < ocap; k++) {
			if (!old[k].used)
				continue;
			h = ((uint64_t)old[k].func << 32 | (uint32_t)old[k].line) * 0x9e3779b97f4a7c15ULL;
			for (i = h & (km->cap - 1); km->v[i].used; i = (i + 1) & (km->cap - 1))
				;
			km->v[i] = old[k];
		}
		free(old);
	}
	h = ((uint64_t)func << 32 | (uint32_t)line) * 0x9e3779b97f4a7c15ULL;
	for (i = h & (km->cap - 1); km->v[i].used; i = (i + 1) & (km->cap - 1))
		if (km->v[i].func == func && km->v[i].line == line)
			return km->v[i].id;
	km->v[i].used = true;
	km->v[i].func = func;
	km->v[i].line = line;
	km->v[i].id = (uint32_t)km->n++;
	return km->v[i].id;
}

void profile_flat(const struct profile *p, pid_t pid, pid_t tid, enum flat_sort sort,
		  bool by_line, struct flat *out)
{
	struct keymap km = { 0 };
	struct flat_row *rows = NULL;
	size_t *stamp = NULL, cap = 0, i, n = 0, nkeys = by_line ? 0 : p->nfuncs;

	memset(out, 0, sizeof(*out));
	if (!by_line) {
		cap = p->nfuncs + 1;
		rows = xcalloc(cap, sizeof(*rows));
		stamp = xcalloc(cap, sizeof(*stamp));
	}
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		uint32_t k;

		if ((tid != PROFILE_ALL_TIDS && s->tid != tid) || (pid && s->pid != pid))
			continue;
		out->total += s->ns;
		out->samples += s->count;
		if (s->nlocs) {
			const struct ploc *leaf = &p->locs[p->sample_locs[s->first_loc]];

			if (leaf->nlines && profile_func_is_wait(p, p->lines[leaf->first_line].func))
				out->waiting += s->ns;
		}
		for (k = 0; k < s->nlocs; k++) {
			const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + k]];
			uint32_t l;

			for (l = 0; l < loc->nlines; l++) {
				const struct pline *ln = &p->lines[loc->first_line + l];
				uint32_t key = ln->func;

				if (by_line) {
					key = keymap_get(&km, ln->func, ln->line);
					if (key >= nkeys) {
						size_t ocap = cap;

						nkeys = key + 1;
						GROW(rows, cap, nkeys);
						stamp = xrealloc(stamp, cap * sizeof(*stamp));
						memset(stamp + ocap, 0, (cap - ocap) * sizeof(*stamp));
						rows[key].line = ln->line;
					}
				}
				rows[key].func = ln->func;
				if (k == 0 && l == 0)
					rows[key].self += s->ns;
				/* Recursion: a function counts once per sample. */
				if (stamp[key] != i + 1) {
					stamp[key] = i + 1;
					rows[key].cum += s->ns;
				}
			}
		}
	}
	for (i = 0; i < nkeys; i++)
		if (rows[i].cum)
			rows[n++] = rows[i];
	out->rows = rows;
	out->n = n;
	cmp_profile = p;
	cmp_sort = sort;
	if (n)
		qsort(out->rows, n, sizeof(*out->rows), row_cmp);
	free(stamp);
	free(km.v);
}

void flat_release(struct flat *f)
{
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

void profile_keep_thread(struct profile *p, pid_t tid)
{
	size_t i, n = 0;

	p->total = 0;
	for (i = 0; i < p->nsamples; i++) {
		if (p->samples[i].tid != tid)
			continue;
		p->samples[n++] = p->samples[i];
		p->total += p->samples[i].count;
	}
	p->nsamples = n;
}

/* C++ (_Z) and Rust (legacy _ZN..17h<hash>E, and v0 _R) names, by
 * libiberty's demangler as binutils uses it: Rust first, since legacy Rust
 * names are also valid C++ ones, and without DMGL_VERBOSE Rust's hash is
 * dropped.  Other names (C, Go) are left as they are. */
void profile_demangle(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nfuncs; i++) {
		struct pfunc *f = &p->funcs[i];
		char *d;

		if (strncmp(f->system_name, "_Z", 2) && strncmp(f->system_name, "_R", 2))
			continue;
		d = cplus_demangle(f->system_name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
		if (d)
			f->name = strpool_intern(&p->strings, d);
		free(d);
	}
}

/* ---- call graph ---- */

static struct edge *edge_get(struct callgraph *cg, uint32_t caller, uint32_t callee)
{
	uint64_t h;
	size_t i;

	if ((cg->n + 1) * 2 > cg->icap) {
		size_t ncap = cg->icap ? cg->icap * 2 : 1024, k;

		free(cg->index);
		cg->index = xmalloc(ncap * sizeof(*cg->index));
		for (k = 0; k < ncap; k++)
			cg->index[k] = SIZE_MAX;
		cg->icap = ncap;
		for (k = 0; k < cg->n; k++) {
			h = ((uint64_t)cg->edges[k].caller << 32 | cg->edges[k].callee) * 0x9e3779b97f4a7c15ULL;
			for (i = h & (ncap - 1); cg->index[i] != SIZE_MAX; i = (i + 1) & (ncap - 1))
				;
			cg->index[i] = k;
		}
	}
	h = ((uint64_t)caller << 32 | callee) * 0x9e3779b97f4a7c15ULL;
	for (i = h & (cg->icap - 1); cg->index[i] != SIZE_MAX; i = (i + 1) & (cg->icap - 1)) {
		struct edge *e = &cg->edges[cg->index[i]];

		if (e->caller == caller && e->callee == callee)
			return e;
	}
	GROW(cg->edges, cg->cap, cg->n + 1);
	cg->index[i] = cg->n;
	cg->edges[cg->n].caller = caller;
	cg->edges[cg->n].callee = callee;
	cg->edges[cg->n].count = 0;
	return &cg->edges[cg->n++];
}

void profile_callgraph(const struct profile *p, pid_t tid, struct callgraph *cg)
{
	size_t *stamp = NULL, scap = 0, i;
	uint32_t *chain = NULL;
	size_t ccap = 0;

	memset(cg, 0, sizeof(*cg));
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		size_t depth = 0, d;
		uint32_t k;

		if (tid && s->tid != tid)
			continue;
		/* The functions of the sample, leaf first. */
		for (k = 0; k < s->nlocs; k++) {
			const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + k]];
			uint32_t l;

			GROW(chain, ccap, depth + loc->nlines);
			for (l = 0; l < loc->nlines; l++)
				chain[depth++] = p->lines[loc->first_line + l].func;
		}
		for (d = 0; d + 1 < depth; d++) {
			struct edge *e = edge_get(cg, chain[d + 1], chain[d]);
			size_t idx = (size_t)(e - cg->edges);

			/* Recursion: an edge counts once per sample. */
			GROW(stamp, scap, idx + 1);
			if (stamp[idx] != i + 1) {
				stamp[idx] = i + 1;
				e->count += s->ns;
			}
		}
	}
	free(stamp);
	free(chain);
}

void callgraph_release(struct callgraph *cg)
{
	free(cg->edges);
	free(cg->index);
	memset(cg, 0, sizeof(*cg));
}
