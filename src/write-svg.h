/* write-svg.h - the flame graph writer: one self-contained, interactive SVG.
 *
 * The stacks are merged into a tree (equal name and module under the same
 * parent are one frame), drawn root at the bottom, siblings in alphabetical
 * order so that equal input gives byte-identical output.  Frames narrower
 * than 0.1% of all samples are left out, and a note at the bottom says how
 * many.  Colour is a stable hash of the module, so one library keeps its
 * colour from one profile to the next; a legend lists the modules.
 *
 * The file needs nothing but itself: inline <style> and <script>, no fonts,
 * no network.  Opened in a browser it supports hover (status line), click to
 * zoom, and a regular-expression search over function names that shows the
 * share of samples matched.  Two URL parameters do the same on load, so a
 * view can be shared or tested: "?s=REGEX" searches and "?z=NAME" zooms to
 * the widest frame whose function is exactly NAME.
 */
#ifndef CTPROF_WRITE_SVG_H
#define CTPROF_WRITE_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fg_stack {
	uint64_t count;                 /* samples with exactly this stack */
	uint64_t base;                  /* svg_write_diff: the same in the base
	                                 * profile, scaled to COUNT's total */
	unsigned nframes;
	const char *const *names;       /* function names, ROOT FIRST (names[0] is the outermost, e.g. "thread 1234" or "main") */
	const char *const *modules;     /* module (ELF file base name) of each frame, same length; may contain NULL entries */
};

/* Write a self-contained interactive flame graph of STACKS[0..N) to F.
 * TITLE is shown at the top (e.g. "ctprof: pid 1234 (server), 2981 samples at 99 Hz").
 * Returns 0, or -errno if writing failed.
 *
 * The strings are only read during the call.  They should be UTF-8: a byte
 * that is not, and a control character, is written as '?' so that the file
 * stays well-formed XML.  A NULL name is drawn as "[unknown]".  The order of
 * STACKS does not matter, and the same stack may appear more than once. */
int svg_write(FILE *f, const char *title, const struct fg_stack *stacks, size_t n);

/* A differential flame graph: frames as wide as COUNT (the new profile),
 * coloured by how their share changed from BASE: red grew, blue shrank,
 * the deeper the more, pale when unchanged.  The title of each frame gives
 * both shares.  The legend of modules gives way to one of the colours.
 * Stacks only in the base (COUNT 0) draw nothing, but count in the shares
 * of the frames they pass through. */
int svg_write_diff(FILE *f, const char *title, const struct fg_stack *stacks, size_t n);

#endif
