/* strpool.h - interned strings: equal strings share one copy, so they
 * compare by pointer.  The pool owns them until strpool_release(). */
#ifndef CTPROF_STRPOOL_H
#define CTPROF_STRPOOL_H

#include <stddef.h>

struct strpool {
	char **tab;             /* open addressing */
	size_t cap, n;
};

void strpool_init(struct strpool *sp);
void strpool_release(struct strpool *sp);
/* The pool's copy of S (NULL for NULL); lives until strpool_release(). */
const char *strpool_intern(struct strpool *sp, const char *s);

#endif
