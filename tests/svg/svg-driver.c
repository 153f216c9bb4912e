/* svg-driver - writes a flame graph of a fixed set of stacks, for
 * svg-check.sh.
 *
 *   svg-driver FILE       write the flame graph to FILE ("-": stdout)
 *   svg-driver --empty FILE   the same with no stacks at all
 *   svg-driver --reverse FILE the same stacks in reverse order: the
 *                         output must not change
 *   svg-driver --names    print every function name the graph must show,
 *                         one a line, unescaped
 *
 * The stacks are the awkward cases for a writer: C++ names full of < > &
 * and quotes, non-ASCII and invalid UTF-8, a stack 150 frames deep, a
 * frame with 300 children of which most are too narrow to draw, frames
 * without a module, and the same stack given twice.  Exit 0, or 1 with a
 * message when writing failed.
 */
#include "write-svg.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEEP 150
#define SIBLINGS 300

struct driver {
	struct fg_stack *stacks;
	char **copies;          /* the strings the names point into */
	size_t n, cap, cap_copies;
};

/* Add COUNT samples of FOLDED: frames root first, split by '|', each
 * "name" or "name@module". */
static void add(struct driver *d, uint64_t count, const char *folded)
{
	char *copy = xstrdup(folded), *p, *at;
	const char **names = NULL, **modules = NULL;
	size_t cap_n = 0, cap_m = 0;
	unsigned n = 0;

	for (p = strtok(copy, "|"); p; p = strtok(NULL, "|")) {
		GROW(names, cap_n, n + 1);
		GROW(modules, cap_m, n + 1);
		at = strrchr(p, '@');
		if (at)
			*at++ = '\0';
		names[n] = p;
		modules[n] = at;
		n++;
	}
	GROW(d->stacks, d->cap, d->n + 1);
	GROW(d->copies, d->cap_copies, d->n + 1);
	d->copies[d->n] = copy;
	d->stacks[d->n].count = count;
	d->stacks[d->n].nframes = n;
	d->stacks[d->n].names = names;
	d->stacks[d->n].modules = modules;
	d->n++;
}

/* Stacks root first, each with its count in fixed_count[]. */
static const char *const fixed[] = {
	"thread 1001|main@server|serve(int)@server|std::vector<int, std::allocator<int> >::push_back(int const&)@server|operator new(unsigned long)@libstdc++.so.6|malloc@libc.so.6",
	"thread 1001|main@server|serve(int)@server|parse<'\"'>(char const*)@server|memchr@libc.so.6",
	"thread 1001|main@server|serve(int)@server|a && b < c >= d@server",
	"thread 1001|main@server|serve(int)@server|it's \"quoted\"@server",
	"thread 1001|main@server|serve(int)@server|caf\xc3\xa9_\xe2\x82\xac_\xf0\x9f\x94\xa5@libfood.so",
	"thread 1001|main@server|serve(int)@server|read@libc.so.6|[kernel]",
	"thread 1002|start_thread@libc.so.6|worker(void*)@server|compress<std::map<K, V>>@libz.so.1|deflate@libz.so.1",
	"thread 1002|start_thread@libc.so.6|worker(void*)@server|[unknown]",
	"thread 1003|_start@server|__libc_start_main@libc.so.6|main@server|dispatch@server",
};

static const uint64_t fixed_count[] = { 900, 700, 300, 250, 200, 450, 1200, 40, 10 };

static void build(struct driver *d)
{
	char buf[16384];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		add(d, fixed_count[i], fixed[i]);
	/* The same stack again: it must merge, not be drawn twice. */
	add(d, 100, fixed[0]);
	/* Invalid UTF-8 and a control character: written as '?'. */
	add(d, 120, "thread 1001|main@server|bad\xff\x01name\xc0\xaf@server");

	/* A deep recursion. */
	len = (size_t)snprintf(buf, sizeof(buf), "thread 1003|_start@server|__libc_start_main@libc.so.6|main@server");
	for (i = 0; i < DEEP; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "|recurse(int)@server");
	snprintf(buf + len, sizeof(buf) - len, "|leaf_work@server");
	add(d, 800, buf);

	/* Many siblings: a few wide, most far under 0.1% of the total. */
	for (i = 0; i < SIBLINGS; i++) {
		snprintf(buf, sizeof(buf), "thread 1003|_start@server|__libc_start_main@libc.so.6|main@server|dispatch@server|handler_%03zu@%s",
			 i, i % 3 ? "server" : "libplugin.so");
		add(d, i % 50 == 0 ? 60 + i : 1 + i % 4, buf);
	}
}

/* Freed, so that a build with -fsanitize=address finds only real leaks. */
static void release(struct driver *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->copies[i]);
		free((void *)d->stacks[i].names);
		free((void *)d->stacks[i].modules);
	}
	free(d->copies);
	free(d->stacks);
}

static int print_names(const struct driver *d)
{
	size_t i;
	unsigned j;

	for (i = 0; i < d->n; i++)
		for (j = 0; j < d->stacks[i].nframes; j++) {
			const char *s = d->stacks[i].names[j];

			/* Only names drawn for sure: the wide siblings. */
			if (strncmp(s, "bad", 3) && (strncmp(s, "handler_", 8) || d->stacks[i].count >= 60))
				printf("%s\n", s);
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct driver d = { 0 };
	const char *path;
	FILE *f;
	int err, empty = 0;
	size_t i;

	build(&d);
	if (argc == 2 && !strcmp(argv[1], "--names")) {
		err = print_names(&d);
		release(&d);
		return err;
	}
	if (argc == 3 && !strcmp(argv[1], "--empty")) {
		empty = 1;
		path = argv[2];
	} else if (argc == 3 && !strcmp(argv[1], "--reverse")) {
		for (i = 0; i < d.n / 2; i++) {
			struct fg_stack tmp = d.stacks[i];

			d.stacks[i] = d.stacks[d.n - 1 - i];
			d.stacks[d.n - 1 - i] = tmp;
		}
		path = argv[2];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: svg-driver [--empty | --reverse] FILE | --names\n");
		release(&d);
		return 64;
	}
	f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		error_msg("%s: %s", path, strerror(errno));
		release(&d);
		return 1;
	}
	err = svg_write(f, "ctprof: pid 1001 (server), <test> & \"quotes\", 99 Hz",
			d.stacks, empty ? 0 : d.n);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	release(&d);
	if (err) {
		error_msg("writing %s: %s", path, strerror(-err));
		return 1;
	}
	return 0;
}
