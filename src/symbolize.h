/* symbolize.h - frame keys to functions, files and lines, with libdwfl.
 *
 * Works on the module files ctprof opened while the target ran (maps.h),
 * never on the live process, so it runs after the target was let go and
 * still works when the target has exited.  Each distinct frame key is
 * looked up once and cached.
 */
#ifndef CTPROF_SYMBOLIZE_H
#define CTPROF_SYMBOLIZE_H

#include "maps.h"

#include <stdbool.h>
#include <stdint.h>

/* One function level at an address.  An address inside inlined code has
 * several levels, innermost first; the last is the real (out-of-line)
 * function.  Strings are interned: equal strings are equal pointers, and
 * they live until symbolizer_release(). */
struct sym_frame {
	const char *function;   /* never NULL: "module+0xOFF" when unknown */
	const char *file;       /* where the function is declared, or NULL */
	int line;               /* its declaration line, 0 if unknown */
	const char *src_file;   /* the source line of this address in it */
	int src_line;
	uint32_t module;
};

struct symbolizer;

/* MAPS must outlive the symbolizer. */
struct symbolizer *symbolizer_new(struct maps *maps);
void symbolizer_free(struct symbolizer *sz);

/* The levels of frame key KEY: returns their count (at least 1) and points
 * *OUT at them; owned by the symbolizer and valid until the next lookup
 * (the strings they point to live until symbolizer_free()). */
unsigned symbolizer_lookup(struct symbolizer *sz, uint64_t key, const struct sym_frame **out);

/* Look up the addresses outside modules (JIT code) afresh from now on: a
 * runtime reuses its code space, and over a long run one address holds
 * many functions in turn.  For a symbolizer kept across profiles. */
void symbolizer_forget_anon(struct symbolizer *sz);

/* The target's perf map (/tmp/perf-PID.map), as the symbolizer found it. */
enum perf_map_state {
	PERF_MAP_NONE,          /* there is none */
	PERF_MAP_STALE,         /* last written before the process started: a
	                         * process that had its pid before left it */
	PERF_MAP_READ,
};

/* The distinct addresses in anonymous executable memory (JIT code) that
 * were looked up and found no name; *MAP says what perf map there was to
 * look in. */
uint64_t symbolizer_anon_unnamed(const struct symbolizer *sz, enum perf_map_state *map);

/* Intern S: the same pointer for equal strings, until symbolizer_free(). */
const char *symbolizer_intern(struct symbolizer *sz, const char *s);

#endif
