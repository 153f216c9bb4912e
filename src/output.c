/* output.c - the table of writers; see output.h. */
#include "output.h"

#include <string.h>

static int text_write(FILE *f, const struct profile *p, const struct run_info *ri,
		      const struct output_opts *oo)
{
	return report_write(f, p, ri);
}

static const struct writer writers[] = {
	{ "text", text_write },
	{ "folded", folded_write },
	{ "pprof", pprof_write },
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
