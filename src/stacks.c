/* stacks.c - see stacks.h. */
#include "stacks.h"
#include "util.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void stacks_init(struct stacks *st)
{
	memset(st, 0, sizeof(*st));
}

void stacks_release(struct stacks *st)
{
	struct stack *s;

	stacks_for_each(st, s)
		free(s->frames);
	free(st->tab);
	memset(st, 0, sizeof(*st));
}

static void rehash(struct stacks *st)
{
	size_t ncap = st->cap ? st->cap * 2 : 1024, i;
	struct stack *ntab = xcalloc(ncap, sizeof(*ntab));

	for (i = 0; i < st->cap; i++) {
		struct stack *s = &st->tab[i];
		size_t j;

		if (!s->frames)
			continue;
		for (j = s->hash & (ncap - 1); ntab[j].frames; j = (j + 1) & (ncap - 1))
			;
		ntab[j] = *s;
	}
	free(st->tab);
	st->tab = ntab;
	st->cap = ncap;
}

static struct stack *add(struct stacks *st, pid_t pid, pid_t tid, const uint64_t *frames, unsigned n,
			 uint64_t count, uint64_t ns)
{
	uint64_t h = fnv1a(FNV_OFFSET, &tid, sizeof(tid));
	struct stack *s;
	size_t j;

	h = fnv1a(h, &pid, sizeof(pid));
	h = fnv1a(h, frames, n * sizeof(*frames));
	if ((st->n + 1) * 4 > st->cap * 3)
		rehash(st);
	for (j = h & (st->cap - 1);; j = (j + 1) & (st->cap - 1)) {
		s = &st->tab[j];
		if (!s->frames)
			break;
		if (s->hash == h && s->tid == tid && s->pid == pid && s->nframes == n &&
		    !memcmp(s->frames, frames, n * sizeof(*frames))) {
			s->count += count;
			s->ns += ns;
			st->total += count;
			st->total_ns += ns;
			return s;
		}
	}
	s->hash = h;
	s->pid = pid;
	s->tid = tid;
	s->nframes = n;
	s->count = count;
	s->ns = ns;
	s->mark = 0;
	s->mark_ns = 0;
	s->pending = 0;
	s->frames = xmalloc((n ? n : 1) * sizeof(*frames));
	memcpy(s->frames, frames, n * sizeof(*frames));
	st->n++;
	st->total += count;
	st->total_ns += ns;
	return s;
}

void stacks_add(struct stacks *st, pid_t pid, pid_t tid, const uint64_t *frames, unsigned n,
		uint64_t count, uint64_t ns)
{
	add(st, pid, tid, frames, n, count, ns);
}

void stacks_add_pending(struct stacks *st, pid_t pid, pid_t tid, const uint64_t *frames, unsigned n,
			uint64_t count)
{
	add(st, pid, tid, frames, n, count, 0)->pending += count;
}

uint64_t stacks_pending(const struct stacks *st, pid_t pid, pid_t tid)
{
	const struct stack *s;
	uint64_t p = 0;

	stacks_for_each(st, s)
		if (s->pending && s->pid == pid && s->tid == tid)
			p += s->pending;
	return p;
}

uint64_t stacks_settle(struct stacks *st, pid_t pid, pid_t tid, uint64_t ns)
{
	uint64_t p = stacks_pending(st, pid, tid), acc = 0, given = 0;
	struct stack *s;

	if (!p)
		return 0;
	stacks_for_each(st, s) {
		uint64_t upto;

		if (!s->pending || s->pid != pid || s->tid != tid)
			continue;
		acc += s->pending;
		upto = (uint64_t)((unsigned __int128)ns * acc / p);
		s->ns += upto - given;
		st->total_ns += upto - given;
		given = upto;
		s->pending = 0;
	}
	return p;
}

/* Each block as malloc counts it: what it can be used for and the size
 * word before it. */
size_t stacks_bytes(const struct stacks *st)
{
	const struct stack *s;
	size_t b = st->tab ? malloc_usable_size(st->tab) + sizeof(size_t) : 0;

	stacks_for_each(st, s)
		b += malloc_usable_size(s->frames) + sizeof(size_t);
	return b;
}

void stacks_take(struct stacks *st, struct stacks *out)
{
	struct stack *s;

	*out = *st;
	stacks_init(st);
	stacks_for_each(out, s) {
		if (!s->pending)
			continue;
		add(st, s->pid, s->tid, s->frames, s->nframes, s->pending, 0)->pending = s->pending;
		s->count -= s->pending;
		out->total -= s->pending;
		s->pending = 0;
	}
}
