/* unwind.c - the unwinder backends, by name; see unwind.h. */
#include "unwind.h"

#include <string.h>

static const struct unwinder_ops *const backends[] = {
	&unwinder_libunwind,
	&unwinder_libdw,
};

/* libunwind: the benchmark (scripts/bench.sh) measured it cheaper per
 * sample than libdwfl's unwinder; see README.md, Performance. */
const struct unwinder_ops *const unwinder_default = &unwinder_libunwind;

const struct unwinder_ops *unwinder_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
