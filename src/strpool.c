/* strpool.c - see strpool.h. */
#include "strpool.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void strpool_init(struct strpool *sp)
{
	memset(sp, 0, sizeof(*sp));
}

void strpool_release(struct strpool *sp)
{
	size_t i;

	for (i = 0; i < sp->cap; i++)
		free(sp->tab[i]);
	free(sp->tab);
	memset(sp, 0, sizeof(*sp));
}

static size_t slot(char **tab, size_t cap, const char *s)
{
	size_t i = fnv1a(FNV_OFFSET, s, strlen(s)) & (cap - 1);

	while (tab[i] && strcmp(tab[i], s))
		i = (i + 1) & (cap - 1);
	return i;
}

const char *strpool_intern(struct strpool *sp, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	if ((sp->n + 1) * 2 > sp->cap) {
		size_t ncap = sp->cap ? sp->cap * 2 : 1024, j;
		char **tab = xcalloc(ncap, sizeof(*tab));

		for (j = 0; j < sp->cap; j++)
			if (sp->tab[j])
				tab[slot(tab, ncap, sp->tab[j])] = sp->tab[j];
		free(sp->tab);
		sp->tab = tab;
		sp->cap = ncap;
	}
	i = slot(sp->tab, sp->cap, s);
	if (!sp->tab[i]) {
		sp->tab[i] = xstrdup(s);
		sp->n++;
	}
	return sp->tab[i];
}
