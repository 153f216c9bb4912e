/* write-svg.c - see write-svg.h.
 *
 * Two steps: merge the stacks into a tree (a hash of parent, name and
 * module finds the child to add to, so memory grows with the number of
 * distinct frames), then walk it depth-first and write one <g> per frame.
 * Each <g> carries its position in samples (data-x, data-w, data-d) and its
 * function and module (data-n, data-m); the script at the end works only on
 * those, so the C layout and the script never have to agree on anything but
 * the constants passed in "cfg".
 */
#include "write-svg.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Geometry, in SVG user units (pixels at 100%). */
#define SVG_WIDTH	1200
#define PAD		10
#define FRAME_W		(SVG_WIDTH - 2 * PAD)
#define ROW_H		16	/* the rect is one less: a gap between rows */
#define TOP		56	/* title at 24, controls at 44 */
#define CTL_Y		44
#define LINE_H		18
/* Labels are cut with a fixed advance per character instead of measured:
 * 0.6 em is the advance of the usual monospace fonts (DejaVu Sans Mono,
 * Liberation Mono, Courier New), so the guess holds in any browser. */
#define FONT_PX		12
#define CHAR_W		7.2
/* Frames under 1/ELIDE_DIV of all samples, about one pixel, are left out:
 * they cannot be read or hovered, and a deep profile has thousands. */
#define ELIDE_DIV	1000
#define MAX_LEGEND	40

#define NEUTRAL_RGB	0xc8c8c0u	/* no module: "all", thread roots */
#define MATCH_FILL	"#e600e6"	/* search hits: no module hashes to it */

#define ROOT		0		/* node index of "all" */

struct fg_node {
	const char *name;
	const char *module;             /* NULL: no module */
	uint64_t count;                 /* samples through this frame */
	uint64_t base;                  /* svg_write_diff: the base's, scaled */
	uint64_t hash;
	size_t parent;
	size_t first;                   /* children: kids[first .. first + nkids) */
	size_t nkids;
	unsigned depth;                 /* "all" is 0 */
};

struct fg_tree {
	struct fg_node *nodes;
	size_t n, cap;
	size_t *slots;                  /* open addressing: node index + 1, 0 empty */
	size_t nslots;                  /* a power of two */
	const struct fg_node **kids;
	uint64_t total;
	uint64_t base_total;
	uint64_t min;                   /* narrowest frame drawn, in samples */
};

struct legend_entry {
	const char *module;
	uint64_t self;                  /* samples whose innermost frame is here */
};

struct svg_ctx {
	FILE *f;
	const struct fg_tree *t;
	uint64_t min;                   /* t->min */
	unsigned maxd;                  /* deepest frame drawn */
	bool diff;                      /* svg_write_diff */
	double max_change;              /* the largest change of share drawn */
	struct legend_entry *legend;
	size_t nlegend, legend_cap;
};

/* ---- text ---------------------------------------------------------- */

/* Bytes in the character at S if it is valid UTF-8 and allowed in XML 1.0,
 * else 0.  A NUL inside a sequence fails the continuation test, so this
 * never reads past the end of the string. */
static size_t xml_char_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;               /* overlong, or beyond Unicode */
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;               /* surrogates and non-characters: not XML */
	return len;
}

/* Write at most MAX characters of S, escaped for XML text and attribute
 * values alike.  A byte XML cannot hold becomes '?': one bad symbol name
 * must not make the whole file unreadable. */
static void put_xml(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p && max; max--) {
		size_t len = xml_char_len(p);

		if (!len) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(p, 1, len, f); break;
		}
		p += len;
	}
}

/* Characters put_xml() writes for S: what the script sees as its length. */
static size_t xml_strlen(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	for (; *p; n++) {
		len = xml_char_len(p);
		p += len ? len : 1;
	}
	return n;
}

/* Characters that fit in W pixels, keeping 3 pixels clear on each side. */
static size_t label_fit(double w)
{
	double n = (w - 6) / CHAR_W;

	return n > 0 ? (size_t)n : 0;
}

/* S cut with ".." to fit W pixels; nothing if not even "x.." fits.  The
 * script's label() does the same when zooming. */
static void put_label(FILE *f, const char *s, double w)
{
	size_t fit = label_fit(w);

	if (fit < 3)
		return;
	if (xml_strlen(s) <= fit) {
		put_xml(f, s, SIZE_MAX);
	} else {
		put_xml(f, s, fit - 2);
		fputs("..", f);
	}
}

/* A stable colour per module from the warm side of the wheel: hue from
 * red to amber, with saturation and lightness varied too, since two hues a
 * few degrees apart look the same.  Magenta (search hits) and grey (no
 * module) are out of its reach. */
static unsigned module_rgb(const char *module)
{
	double hue, sat, light, chroma, x, m, rgb[3];
	unsigned i, out = 0;
	uint64_t h;

	if (!module)
		return NEUTRAL_RGB;
	h = fnv1a(FNV_OFFSET, module, strlen(module));
	/* FNV-1a's top bits mix best: take each component from there. */
	hue = (double)((h >> 56) % 58);                 /* degrees */
	sat = 0.70 + (double)((h >> 48) % 26) / 100;
	light = 0.50 + (double)((h >> 40) % 20) / 100;
	/* HSL to RGB, with the hue in the first sixth of the wheel. */
	chroma = (1 - (2 * light - 1 < 0 ? 1 - 2 * light : 2 * light - 1)) * sat;
	x = chroma * hue / 60;
	m = light - chroma / 2;
	rgb[0] = chroma + m;
	rgb[1] = x + m;
	rgb[2] = m;
	for (i = 0; i < 3; i++)
		out = out << 8 | (unsigned)(rgb[i] * 255 + 0.5);
	return out;
}

/* ---- the tree ------------------------------------------------------ */

static int module_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);       /* no module first */
	return strcmp(a, b);
}

static uint64_t node_hash(size_t parent, const char *name, const char *module)
{
	uint64_t h = fnv1a(FNV_OFFSET, &parent, sizeof(parent));

	h = fnv1a(h, name, strlen(name) + 1);
	if (module)
		h = fnv1a(h, module, strlen(module));
	return h;
}

static void slot_put(struct fg_tree *t, size_t idx)
{
	size_t mask = t->nslots - 1, i = t->nodes[idx].hash & mask;

	while (t->slots[i])
		i = (i + 1) & mask;
	t->slots[i] = idx + 1;
}

/* Keep the table at most half full. */
static void tree_reserve(struct fg_tree *t)
{
	size_t i;

	if ((t->n + 1) * 2 <= t->nslots)
		return;
	t->nslots = t->nslots ? t->nslots * 2 : 256;
	free(t->slots);
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	for (i = ROOT + 1; i < t->n; i++)
		slot_put(t, i);
}

/* The child NAME/MODULE of PARENT, added if it is not there yet. */
static size_t tree_child(struct fg_tree *t, size_t parent, const char *name, const char *module)
{
	uint64_t h = node_hash(parent, name, module);
	size_t mask, i, idx;
	struct fg_node *nd;

	tree_reserve(t);
	mask = t->nslots - 1;
	for (i = h & mask; t->slots[i]; i = (i + 1) & mask) {
		nd = &t->nodes[t->slots[i] - 1];
		if (nd->hash == h && nd->parent == parent && !strcmp(nd->name, name) &&
		    !module_cmp(nd->module, module))
			return t->slots[i] - 1;
	}
	GROW(t->nodes, t->cap, t->n + 1);
	idx = t->n++;
	nd = &t->nodes[idx];
	nd->name = name;
	nd->module = module;
	nd->hash = h;
	nd->parent = parent;
	nd->depth = t->nodes[parent].depth + 1;
	t->slots[i] = idx + 1;
	return idx;
}

static int kid_cmp(const void *pa, const void *pb)
{
	const struct fg_node *a = *(const struct fg_node *const *)pa;
	const struct fg_node *b = *(const struct fg_node *const *)pb;
	int c = strcmp(a->name, b->name);

	return c ? c : module_cmp(a->module, b->module);
}

/* Lay the children of each node out contiguously in t->kids, sorted by
 * name then module as flamegraph.pl sorts its folded lines: the output
 * depends only on the multiset of stacks, not on their order. */
static void tree_link(struct fg_tree *t)
{
	size_t i, at = 0;

	for (i = ROOT + 1; i < t->n; i++)
		t->nodes[t->nodes[i].parent].nkids++;
	for (i = 0; i < t->n; i++) {
		t->nodes[i].first = at;
		at += t->nodes[i].nkids;
		t->nodes[i].nkids = 0;
	}
	t->kids = xcalloc(t->n, sizeof(*t->kids));
	for (i = ROOT + 1; i < t->n; i++) {
		struct fg_node *p = &t->nodes[t->nodes[i].parent];

		t->kids[p->first + p->nkids++] = &t->nodes[i];
	}
	for (i = 0; i < t->n; i++)
		if (t->nodes[i].nkids > 1)
			qsort(&t->kids[t->nodes[i].first], t->nodes[i].nkids,
			      sizeof(*t->kids), kid_cmp);
}

/* Merge the stacks one depth at a time, and follow a stack deeper only
 * while its frame is wide enough to draw: the frames under an elided one
 * are never made.  Made in one go, the tree of a long profile with deep,
 * varied stacks has as many nodes as all the stacks have frames, gigabytes
 * for a picture of a few thousand frames. */
static void tree_build(struct fg_tree *t, const struct fg_stack *stacks, size_t n)
{
	size_t *live, nlive = 0, *at, i, k;
	unsigned depth;

	memset(t, 0, sizeof(*t));
	GROW(t->nodes, t->cap, 1);
	t->n = 1;
	t->nodes[ROOT].name = "all";
	t->nodes[ROOT].parent = ROOT;
	for (i = 0; i < n; i++) {
		t->total += stacks[i].count;
		t->base_total += stacks[i].base;
	}
	t->nodes[ROOT].count = t->total;
	t->nodes[ROOT].base = t->base_total;
	/* Rounded up, and never zero: a frame with no samples is not drawn. */
	t->min = t->total / ELIDE_DIV + (t->total % ELIDE_DIV != 0);
	if (!t->min)
		t->min = 1;

	live = xcalloc(n, sizeof(*live));       /* stacks still followed */
	at = xcalloc(n, sizeof(*at));           /* each one's node so far */
	for (i = 0; i < n; i++)
		if (stacks[i].nframes && (stacks[i].count || stacks[i].base))
			live[nlive++] = i;
	for (depth = 0; nlive; depth++) {
		for (k = 0; k < nlive; k++) {
			const struct fg_stack *s = &stacks[live[k]];
			const char *name = s->names[depth] ? s->names[depth] : "[unknown]";
			const char *module = s->modules ? s->modules[depth] : NULL;

			i = tree_child(t, at[live[k]], name, module);
			t->nodes[i].count += s->count;
			t->nodes[i].base += s->base;
			at[live[k]] = i;
		}
		for (i = k = 0; k < nlive; k++)
			if (stacks[live[k]].nframes > depth + 1 &&
			    t->nodes[at[live[k]]].count >= t->min)
				live[i++] = live[k];
		nlive = i;
	}
	free(live);
	free(at);
	tree_link(t);
}

static void tree_release(struct fg_tree *t)
{
	free(t->nodes);
	free(t->slots);
	free(t->kids);
}

/* ---- the legend ---------------------------------------------------- */

static struct legend_entry *legend_find(struct svg_ctx *c, const char *module)
{
	size_t i;

	for (i = 0; i < c->nlegend; i++)
		if (c->legend[i].module == module || !module_cmp(c->legend[i].module, module))
			return &c->legend[i];
	return NULL;
}

static int legend_cmp(const void *pa, const void *pb)
{
	const struct legend_entry *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	return module_cmp(a->module, b->module);
}

/* Every module with a frame drawn, by the samples whose innermost frame
 * lies in it: where the time went, as far as modules can say. */
static void legend_build(struct svg_ctx *c, const struct fg_stack *stacks, size_t n)
{
	const struct fg_tree *t = c->t;
	struct legend_entry *e;
	size_t i;

	for (i = ROOT + 1; i < t->n; i++) {
		if (t->nodes[i].count < c->min || legend_find(c, t->nodes[i].module))
			continue;
		GROW(c->legend, c->legend_cap, c->nlegend + 1);
		c->legend[c->nlegend++].module = t->nodes[i].module;
	}
	for (i = 0; i < n; i++) {
		const struct fg_stack *s = &stacks[i];

		if (!s->nframes)
			continue;
		e = legend_find(c, s->modules ? s->modules[s->nframes - 1] : NULL);
		if (e)
			e->self += s->count;
	}
	if (c->nlegend)
		qsort(c->legend, c->nlegend, sizeof(*c->legend), legend_cmp);
}

#define LEGEND_HEAD "Modules, by self samples:"

/* Lay the legend out from baseline Y, writing it if F is not NULL.
 * Returns the number of lines it takes. */
static unsigned legend_put(const struct svg_ctx *c, FILE *f, double y)
{
	double x = PAD + (sizeof(LEGEND_HEAD) + 1) * CHAR_W;
	unsigned lines = 1;
	size_t i, shown = c->nlegend < MAX_LEGEND ? c->nlegend : MAX_LEGEND;
	char pct[32];

	if (!c->nlegend)
		return 0;
	if (f)
		fprintf(f, "<g id=\"ctprof-legend\">\n<text x=\"%d\" y=\"%.1f\" class=\"ctprof-note\">%s</text>\n",
			PAD, y, LEGEND_HEAD);
	for (i = 0; i < shown; i++) {
		const struct legend_entry *e = &c->legend[i];
		const char *name = e->module ? e->module : "(no module)";
		double w;

		snprintf(pct, sizeof(pct), " %.1f%%", 100.0 * (double)e->self / (double)c->t->total);
		w = 16 + (double)(xml_strlen(name) + strlen(pct)) * CHAR_W + 14;
		if (x + w > PAD + FRAME_W && x > PAD) {
			x = PAD;
			y += LINE_H;
			lines++;
		}
		if (f) {
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#%06x\"/>"
				"<text x=\"%.1f\" y=\"%.1f\">", x, y - 10, module_rgb(e->module), x + 16, y);
			put_xml(f, name, SIZE_MAX);
			fprintf(f, "%s</text>\n", pct);
		}
		x += w;
	}
	if (shown < c->nlegend && f)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ctprof-note\">and %zu more</text>\n",
			x, y, c->nlegend - shown);
	if (f)
		fputs("</g>\n", f);
	return lines;
}

/* ---- the frames ---------------------------------------------------- */

/* A frame's share of its profile, new and base, and the change. */
static double node_share(const struct fg_tree *t, const struct fg_node *nd)
{
	return t->total ? (double)nd->count / (double)t->total : 0;
}

static double node_base_share(const struct fg_tree *t, const struct fg_node *nd)
{
	return t->base_total ? (double)nd->base / (double)t->base_total : 0;
}

static double node_change(const struct fg_tree *t, const struct fg_node *nd)
{
	return node_share(t, nd) - node_base_share(t, nd);
}

/* Pale grey when unchanged, to red as it grew and to blue as it shrank,
 * in proportion to the largest change drawn, MAX. */
static unsigned change_rgb(double change, double max)
{
	static const unsigned pale[3] = { 0xe8, 0xe8, 0xe4 }, red[3] = { 0xe0, 0x30, 0x20 },
			      blue[3] = { 0x28, 0x58, 0xe0 };
	const unsigned *to = change > 0 ? red : blue;
	double k = max > 0 ? (change < 0 ? -change : change) / max : 0;
	unsigned rgb = 0, i;

	if (k > 1)
		k = 1;
	for (i = 0; i < 3; i++)
		rgb = rgb << 8 | (unsigned)(pale[i] + k * ((double)to[i] - (double)pale[i]) + 0.5);
	return rgb;
}

static void put_frame(const struct svg_ctx *c, const struct fg_node *nd, uint64_t x)
{
	FILE *f = c->f;
	double total = (double)c->t->total;
	double px = PAD + (double)x * FRAME_W / total;
	double pw = (double)nd->count * FRAME_W / total;
	double y = TOP + (double)(c->maxd - nd->depth) * ROW_H;

	fprintf(f, "<g data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\" data-n=\"",
		x, nd->count, nd->depth);
	put_xml(f, nd->name, SIZE_MAX);
	fputs("\" data-m=\"", f);
	if (nd->module)
		put_xml(f, nd->module, SIZE_MAX);
	fputs("\"><title>", f);
	put_xml(f, nd->name, SIZE_MAX);
	if (nd->module) {
		fputs("\nmodule: ", f);
		put_xml(f, nd->module, SIZE_MAX);
	}
	if (c->diff)
		fprintf(f, "\n%.2f%% (base %.2f%%, %+.2f points)</title>", 100 * node_share(c->t, nd),
			100 * node_base_share(c->t, nd), 100 * node_change(c->t, nd));
	else
		fprintf(f, "\n%" PRIu64 " %s (%.2f%%)</title>", nd->count,
			nd->count == 1 ? "sample" : "samples", 100.0 * (double)nd->count / total);
	/* Half a pixel of background between neighbours keeps equal
	 * colours (one module) apart; the script draws it the same way. */
	fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"#%06x\"/>",
		px, y, pw > 1 ? pw - 0.5 : pw, ROW_H - 1,
		c->diff ? change_rgb(node_change(c->t, nd), c->max_change) : module_rgb(nd->module));
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", px + 3, y + ROW_H - 4.5);
	put_label(f, nd->name, pw);
	fputs("</text></g>\n", f);
}

/* Every frame wide enough, depth first, callers before callees.  An
 * explicit stack rather than recursion: stacks can be thousands deep. */
static void put_frames(const struct svg_ctx *c)
{
	struct walk {
		const struct fg_node *nd;
		uint64_t x;             /* where the next child starts */
		size_t next;            /* the next child to visit */
	} *st = NULL;
	size_t cap = 0, top = 0;
	const struct fg_node *kid;
	uint64_t x;

	put_frame(c, &c->t->nodes[ROOT], 0);
	GROW(st, cap, 1);
	st[top++] = (struct walk){ &c->t->nodes[ROOT], 0, 0 };
	while (top) {
		struct walk *w = &st[top - 1];

		if (w->next == w->nd->nkids) {
			top--;
			continue;
		}
		kid = c->t->kids[w->nd->first + w->next++];
		x = w->x;
		w->x += kid->count;
		if (kid->count < c->min)
			continue;       /* and so is all under it */
		put_frame(c, kid, x);
		if (kid->nkids) {
			GROW(st, cap, top + 1);
			st[top++] = (struct walk){ kid, x, 0 };
		}
	}
	free(st);
}


/* ---- the script ---------------------------------------------------- */

/* Plain ECMAScript 2015, no library.  It runs once the frames above it are
 * parsed, reads their data-* attributes, adds the controls and the status
 * line, and from then on only moves and recolours the existing elements. */
static const char svg_script[] =
"var NS = 'http://www.w3.org/2000/svg';\n"
"var frames = [], root = null, zoomed = null, lastSearch = '', ui = {};\n"
"var framesG = document.getElementById('ctprof-frames');\n"
"var svg = framesG.ownerSVGElement || document.documentElement;\n"
"\n"
"function el(name, attrs, text) {\n"
"\tvar e = document.createElementNS(NS, name), k;\n"
"\tfor (k in attrs)\n"
"\t\te.setAttribute(k, attrs[k]);\n"
"\tif (text !== undefined)\n"
"\t\te.textContent = text;\n"
"\tsvg.appendChild(e);\n"
"\treturn e;\n"
"}\n"
"\n"
"/* As put_label() in write-svg.c: cut with '..' to fit W pixels. */\n"
"function label(s, w) {\n"
"\tvar n = Math.floor((w - 6) / cfg.cw), cs = Array.from(s);\n"
"\tif (n < 3)\n"
"\t\treturn '';\n"
"\treturn cs.length <= n ? s : cs.slice(0, n - 2).join('') + '..';\n"
"}\n"
"\n"
"function pct(v, of) {\n"
"\treturn (100 * v / of).toFixed(2) + '%';\n"
"}\n"
"\n"
"/* The status line gives way to 'Matched: ...' at its right. */\n"
"function setStatus(s) {\n"
"\tvar m = Array.from(ui.matched.textContent).length;\n"
"\tui.status.textContent = label(s, cfg.width + 6 - (m ? m + 2 : 0) * cfg.cw);\n"
"}\n"
"\n"
"function show(e, on) {\n"
"\te.setAttribute('visibility', on ? 'visible' : 'hidden');\n"
"}\n"
"\n"
"function place(fr, px, pw) {\n"
"\tfr.rect.setAttribute('x', px.toFixed(2));\n"
"\tfr.rect.setAttribute('width', (pw > 1 ? pw - 0.5 : pw).toFixed(2));\n"
"\tfr.text.setAttribute('x', (px + 3).toFixed(2));\n"
"\tfr.text.textContent = label(fr.name, pw);\n"
"}\n"
"\n"
"/* Z fills the width; its ancestors span it, greyed; the rest hides. */\n"
"function zoom(z) {\n"
"\tvar i, fr, scale = cfg.width / z.w;\n"
"\tzoomed = z === root ? null : z;\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tfr = frames[i];\n"
"\t\tif (fr.d < z.d && fr.x <= z.x && fr.x + fr.w >= z.x + z.w) {\n"
"\t\t\tplace(fr, cfg.pad, cfg.width);\n"
"\t\t\tfr.g.setAttribute('class', 'ctprof-anc');\n"
"\t\t\tfr.g.style.display = '';\n"
"\t\t} else if (fr.d >= z.d && fr.x >= z.x && fr.x + fr.w <= z.x + z.w) {\n"
"\t\t\tplace(fr, cfg.pad + (fr.x - z.x) * scale, fr.w * scale);\n"
"\t\t\tfr.g.removeAttribute('class');\n"
"\t\t\tfr.g.style.display = '';\n"
"\t\t} else {\n"
"\t\t\tfr.g.style.display = 'none';\n"
"\t\t}\n"
"\t}\n"
"\tshow(ui.unzoom, zoomed);\n"
"}\n"
"\n"
"function unzoom() {\n"
"\tif (root)\n"
"\t\tzoom(root);\n"
"}\n"
"\n"
"/* Each sample counts once however many of its frames match: the\n"
" * matched ranges [x, x + w) are merged before they are summed. */\n"
"function search(src) {\n"
"\tvar re, i, fr, hits = [], sum = 0, end = 0;\n"
"\ttry {\n"
"\t\tre = new RegExp(src);\n"
"\t} catch (err) {\n"
"\t\tsetStatus('Not a regular expression: ' + src);\n"
"\t\treturn;\n"
"\t}\n"
"\tlastSearch = src;\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tfr = frames[i];\n"
"\t\tif (fr !== root && re.test(fr.name)) {\n"
"\t\t\tfr.rect.setAttribute('fill', cfg.match);\n"
"\t\t\thits.push(fr);\n"
"\t\t} else {\n"
"\t\t\tfr.rect.setAttribute('fill', fr.fill);\n"
"\t\t}\n"
"\t}\n"
"\thits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
"\tfor (i = 0; i < hits.length; i++) {\n"
"\t\tfr = hits[i];\n"
"\t\tif (fr.x + fr.w > end) {\n"
"\t\t\tsum += fr.x + fr.w - Math.max(fr.x, end);\n"
"\t\t\tend = fr.x + fr.w;\n"
"\t\t}\n"
"\t}\n"
"\tui.matched.textContent = 'Matched: ' + (100 * sum / cfg.total).toFixed(sum && sum * 100 < cfg.total ? 2 : 1) +\n"
"\t\t'% (' + sum + ' of ' + cfg.total + ' samples)';\n"
"\tshow(ui.unsearch, true);\n"
"\tsetStatus(ui.help);\n"
"}\n"
"\n"
"function unsearch() {\n"
"\tvar i;\n"
"\tfor (i = 0; i < frames.length; i++)\n"
"\t\tframes[i].rect.setAttribute('fill', frames[i].fill);\n"
"\tui.matched.textContent = '';\n"
"\tshow(ui.unsearch, false);\n"
"\tsetStatus(ui.help);\n"
"}\n"
"\n"
"function askSearch() {\n"
"\tvar s = window.prompt('Search function names (regular expression):', lastSearch);\n"
"\tif (s === null)\n"
"\t\treturn;\n"
"\tif (s === '')\n"
"\t\tunsearch();\n"
"\telse\n"
"\t\tsearch(s);\n"
"}\n"
"\n"
"function describe(fr) {\n"
"\tvar s = fr.name + (fr.m ? ' [' + fr.m + ']' : '') + ': ' + fr.w +\n"
"\t\t(fr.w === 1 ? ' sample, ' : ' samples, ') + pct(fr.w, cfg.total);\n"
"\tif (zoomed && fr.d > zoomed.d)\n"
"\t\ts += ' (' + pct(fr.w, zoomed.w) + ' of ' + zoomed.name + ')';\n"
"\treturn s;\n"
"}\n"
"\n"
"function frameOf(e) {\n"
"\tvar g = e.target && e.target.closest ? e.target.closest('#ctprof-frames > g') : null;\n"
"\treturn g ? g.ctprofFrame : null;\n"
"}\n"
"\n"
"function control(x, anchor, id, text, fn) {\n"
"\tvar e = el('text', { id: id, x: x, y: cfg.ctlY, 'class': 'ctprof-ctl', 'text-anchor': anchor }, text);\n"
"\te.addEventListener('click', fn);\n"
"\treturn e;\n"
"}\n"
"\n"
"function init() {\n"
"\tvar gs = framesG.children, i, g, fr, q, z, best = null;\n"
"\tfor (i = 0; i < gs.length; i++) {\n"
"\t\tg = gs[i];\n"
"\t\tfr = {\n"
"\t\t\tg: g,\n"
"\t\t\trect: g.getElementsByTagNameNS(NS, 'rect')[0],\n"
"\t\t\ttext: g.getElementsByTagNameNS(NS, 'text')[0],\n"
"\t\t\tx: Number(g.getAttribute('data-x')),\n"
"\t\t\tw: Number(g.getAttribute('data-w')),\n"
"\t\t\td: Number(g.getAttribute('data-d')),\n"
"\t\t\tname: g.getAttribute('data-n'),\n"
"\t\t\tm: g.getAttribute('data-m')\n"
"\t\t};\n"
"\t\tfr.fill = fr.rect.getAttribute('fill');\n"
"\t\tg.ctprofFrame = fr;\n"
"\t\tif (fr.d === 0)\n"
"\t\t\troot = fr;\n"
"\t\tframes.push(fr);\n"
"\t}\n"
"\tui.unzoom = control(cfg.pad, 'start', 'ctprof-unzoom', 'Reset zoom', unzoom);\n"
"\tui.search = control(cfg.pad + cfg.width, 'end', 'ctprof-search', 'Search', askSearch);\n"
"\tui.unsearch = control(cfg.pad + cfg.width - 9 * cfg.cw, 'end', 'ctprof-unsearch', 'Reset search', unsearch);\n"
"\tshow(ui.unzoom, false);\n"
"\tshow(ui.unsearch, false);\n"
"\tui.status = el('text', { id: 'ctprof-status', x: cfg.pad, y: cfg.statusY }, '');\n"
"\tui.matched = el('text', { id: 'ctprof-matched', x: cfg.pad + cfg.width, y: cfg.statusY,\n"
"\t\t'text-anchor': 'end' }, '');\n"
"\tui.help = cfg.help;\n"
"\tsetStatus(ui.help);\n"
"\n"
"\tframesG.addEventListener('mouseover', function (e) {\n"
"\t\tvar fr = frameOf(e);\n"
"\t\tif (fr)\n"
"\t\t\tsetStatus(describe(fr));\n"
"\t});\n"
"\tframesG.addEventListener('mouseout', function () { setStatus(ui.help); });\n"
"\tframesG.addEventListener('click', function (e) {\n"
"\t\tvar fr = frameOf(e);\n"
"\t\tif (fr)\n"
"\t\t\tzoom(fr);\n"
"\t});\n"
"\tdocument.addEventListener('keydown', function (e) {\n"
"\t\tif (e.key === 'Escape') {\n"
"\t\t\tunzoom();\n"
"\t\t\tunsearch();\n"
"\t\t}\n"
"\t});\n"
"\n"
"\t/* ?z=NAME zooms to the widest frame of function NAME, ?s=RE searches. */\n"
"\ttry {\n"
"\t\tq = new URLSearchParams(window.location.search);\n"
"\t} catch (err) {\n"
"\t\treturn;\n"
"\t}\n"
"\tz = q.get('z');\n"
"\tfor (i = 0; z !== null && i < frames.length; i++)\n"
"\t\tif (frames[i].name === z && (!best || frames[i].w > best.w))\n"
"\t\t\tbest = frames[i];\n"
"\tif (best)\n"
"\t\tzoom(best);\n"
"\tif (q.get('s'))\n"
"\t\tsearch(q.get('s'));\n"
"}\n"
"\n"
"init();\n";

/* ---- the file ------------------------------------------------------ */

static void put_style(FILE *f)
{
	fprintf(f, "<style type=\"text/css\">\n"
		"text { font-family: monospace; font-size: %dpx; fill: #000; }\n"
		"#ctprof-title { font-size: 16px; text-anchor: middle; }\n"
		"#ctprof-frames > g { cursor: pointer; }\n"
		"#ctprof-frames > g:hover > rect { stroke: #000; stroke-width: 0.5; }\n"
		"#ctprof-frames text { pointer-events: none; }\n"
		"#ctprof-frames > g.ctprof-anc { opacity: 0.55; }\n"
		".ctprof-ctl { cursor: pointer; fill: #1d4f91; }\n"
		".ctprof-ctl:hover { text-decoration: underline; }\n"
		".ctprof-note { fill: #555; }\n"
		"</style>\n", FONT_PX);
}

static void put_cfg(FILE *f, const struct fg_tree *t, double status_y)
{
	fprintf(f, "var cfg = { total: %" PRIu64 ", pad: %d, width: %d, cw: %.2f, ctlY: %d, statusY: %.1f,\n"
		"\tmatch: '%s', help: 'Hover a frame for details, click one to zoom in; Search takes a regular expression.' };\n",
		t->total, PAD, FRAME_W, CHAR_W, CTL_Y, status_y, MATCH_FILL);
}

static int write_graph(FILE *f, const char *title, const struct fg_stack *stacks, size_t n,
		       bool diff)
{
	struct fg_tree t;
	struct svg_ctx c = { .f = f, .t = &t, .diff = diff };
	size_t i, elided = 0;
	uint64_t elided_samples = 0;
	double status_y, note_y, legend_y, height;
	unsigned legend_lines;

	tree_build(&t, stacks, n);
	c.min = t.min;
	for (i = ROOT + 1; i < t.n; i++) {
		const struct fg_node *nd = &t.nodes[i];

		if (nd->count >= c.min) {
			double ch = node_change(&t, nd);

			if (nd->depth > c.maxd)
				c.maxd = nd->depth;
			if ((ch < 0 ? -ch : ch) > c.max_change)
				c.max_change = ch < 0 ? -ch : ch;
		} else if (nd->count) {
			/* The outermost frame left out: tree_build()
			 * made nothing under it. */
			elided++;
			elided_samples += nd->count;
		}
	}
	if (!diff)
		legend_build(&c, stacks, n);

	status_y = TOP + (double)(c.maxd + 1) * ROW_H + 16;
	note_y = status_y + LINE_H;
	legend_y = note_y + LINE_H;
	legend_lines = diff ? 1 : legend_put(&c, NULL, legend_y);
	height = (legend_lines ? legend_y + (legend_lines - 1) * LINE_H : note_y) + 12;

	errno = 0;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fputs("<!-- Flame graph written by ctprof.  Each frame is one function in a\n"
	      "     call stack, as wide as the samples that went through it; callers\n"
	      "     below callees, siblings in alphabetical order, colour by module. -->\n", f);
	put_style(f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f8f8f2\"/>\n",
		SVG_WIDTH, height);
	fprintf(f, "<text id=\"ctprof-title\" x=\"%d\" y=\"24\">", SVG_WIDTH / 2);
	put_xml(f, title ? title : "ctprof", SIZE_MAX);
	fputs("</text>\n<g id=\"ctprof-frames\">\n", f);
	if (t.total)
		put_frames(&c);
	fputs("</g>\n", f);

	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ctprof-note\">", PAD, note_y);
	if (!t.total)
		fputs("No samples were recorded.", f);
	else if (elided)
		fprintf(f, "%zu %s narrower than 0.1%% of all samples %s not drawn (%.2f%% of samples).",
			elided, elided == 1 ? "frame" : "frames", elided == 1 ? "is" : "are",
			100.0 * (double)elided_samples / (double)t.total);
	else
		fputs("Every frame is drawn.", f);
	fputs("</text>\n", f);
	if (diff)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ctprof-note\">Width: the new profile. "
			"Red: a larger share than in the base, blue: a smaller one; the deepest, %.2f points.</text>\n",
			PAD, legend_y, 100 * c.max_change);
	else
		legend_put(&c, f, legend_y);

	fputs("<script type=\"text/ecmascript\"><![CDATA[\n(function () {\n'use strict';\n", f);
	put_cfg(f, &t, status_y);
	fputs(svg_script, f);
	fputs("})();\n]]></script>\n</svg>\n", f);

	free(c.legend);
	tree_release(&t);
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int svg_write(FILE *f, const char *title, const struct fg_stack *stacks, size_t n)
{
	return write_graph(f, title, stacks, n, false);
}

int svg_write_diff(FILE *f, const char *title, const struct fg_stack *stacks, size_t n)
{
	return write_graph(f, title, stacks, n, true);
}
