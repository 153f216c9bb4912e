/* profile.h - the profile model: functions with self and cumulative
 * sample counts, built from the stacks and the symbolizer. */
#ifndef CTPROF_PROFILE_H
#define CTPROF_PROFILE_H

#include "stacks.h"
#include "symbolize.h"

#include <stddef.h>
#include <stdint.h>

struct func {
	const char *name;       /* interned by the symbolizer */
	const char *file;       /* declaration file or NULL */
	int line;
	uint32_t module;
	uint64_t self;          /* samples with this function innermost */
	uint64_t cum;           /* samples with it anywhere, once per sample */
	uint64_t stamp;         /* last sample that counted it in cum */
};

struct profile {
	struct func *funcs;     /* sorted by self, cum, name after build */
	size_t n, cap;
	size_t *index;          /* open-addressing hash of funcs, during build */
	size_t index_cap;
	uint64_t total;         /* samples */
};

/* Fill P from ST; every frame is symbolized through SZ.  P's strings live
 * as long as SZ. */
void profile_build(struct profile *p, const struct stacks *st, struct symbolizer *sz);
void profile_release(struct profile *p);

#endif
