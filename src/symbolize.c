/* symbolize.c - see symbolize.h.
 *
 * libdwfl facts used here (measured with libdw 0.188, see DESIGN.md):
 * - dwfl_module_addrinfo scans every symbol on each call (~130 us in libc),
 *   so each module's function symbols are sorted once and binary-searched.
 * - dwarf_getscopes stops at the first inlined level: it finds the
 *   innermost DIE, and dwarf_getscopes_die on that DIE gives the whole
 *   chain, each inlined level's DW_AT_call_file/call_line being the line in
 *   the level outside it (as eu-stack -i does).
 * - dwfl_module_addrdie and dwfl_module_getsrc find a CU only through
 *   .debug_aranges, which clang and Go do not write: without them every
 *   address of such a module has no CU.  The CUs' own ranges (DW_AT_low_pc,
 *   DW_AT_high_pc, DW_AT_ranges) are read once per module instead, as
 *   binutils' addr2line does, when the aranges give no CU.
 * - Modules are reported one per Dwfl at their ELF addresses (base 0), so a
 *   frame key's offset is a Dwfl address as it is.
 */
#define _GNU_SOURCE
#include "symbolize.h"
#include "strpool.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fsym {
	uint64_t addr, size;
	const char *name;       /* interned */
	int rank;               /* lower is a better name for an address */
};

/* One address range of a compilation unit. */
struct cu_range {
	uint64_t lo, hi;        /* DWARF addresses [lo, hi) */
	Dwarf_Die cu;
};

struct sym_module {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct fsym *syms;
	size_t nsyms;
	Dwarf *dw;              /* NULL: no DWARF, or not looked for yet */
	Dwarf_Addr dw_bias;
	bool ranges_built;
	struct cu_range *ranges; /* sorted by lo */
	size_t nranges;
};

/* One line of a perf map: code a JIT compiler wrote at [start, start+size). */
struct jit_sym {
	uint64_t start, size;
	const char *name;       /* interned */
	uint32_t seq;           /* line number: a later line wins */
};

struct jit_map {
	int fd;                 /* -2: not opened yet; -1: there is none */
	uint64_t read;          /* bytes parsed so far */
	bool stale;             /* the map is older than the process */
	struct jit_sym *v;      /* sorted by start, then seq */
	size_t n, cap;
};

struct cache_ent {
	uint64_t key;
	uint32_t first, n;
	bool used;
};

struct symbolizer {
	struct maps *maps;
	struct sym_module **mods;       /* by module id, NULL until needed */
	size_t nmods;
	struct cache_ent *cache;
	size_t cache_cap, cache_n;
	struct sym_frame *frames;
	size_t nframes, frames_cap;
	struct strpool strings;
	/* The perf maps, /tmp/perf-PID.map in each process's own root: by
	 * module id, the target's at 0, another process's at the id of its
	 * anonymous memory (maps.h). */
	struct jit_map *jits;
	size_t njits;
	uint64_t anon_unnamed;  /* distinct code addresses left without a name */
};

static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

const char *symbolizer_intern(struct symbolizer *sz, const char *s)
{
	return strpool_intern(&sz->strings, s);
}

struct symbolizer *symbolizer_new(struct maps *maps)
{
	struct symbolizer *sz = xcalloc(1, sizeof(*sz));

	sz->maps = maps;
	strpool_init(&sz->strings);
	return sz;
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

/* Prefer a global name to a weak or local alias, and "malloc" to
 * "__libc_malloc". */
static int name_rank(const char *name, unsigned bind)
{
	int r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 100 : 200;

	while (*name == '_') {
		r += 10;
		name++;
	}
	return r;
}

static void load_symbols(struct symbolizer *sz, struct sym_module *sm)
{
	int n = dwfl_module_getsymtab(sm->mod), i;
	size_t cap = 0, k, out;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(sm->mod, i, &sym, &addr, &shndx, NULL, NULL);
		unsigned type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		GROW(sm->syms, cap, sm->nsyms + 1);
		sm->syms[sm->nsyms].addr = addr;
		sm->syms[sm->nsyms].size = sym.st_size;
		sm->syms[sm->nsyms].name = symbolizer_intern(sz, name);
		sm->syms[sm->nsyms].rank = name_rank(name, GELF_ST_BIND(sym.st_info));
		sm->nsyms++;
	}
	if (!sm->nsyms)
		return;
	qsort(sm->syms, sm->nsyms, sizeof(*sm->syms), fsym_cmp);
	/* Keep the best-ranked name of each address. */
	for (k = 1, out = 1; k < sm->nsyms; k++)
		if (sm->syms[k].addr != sm->syms[out - 1].addr)
			sm->syms[out++] = sm->syms[k];
	sm->nsyms = out;
}

static const struct fsym *find_symbol(const struct sym_module *sm, uint64_t addr)
{
	size_t lo = 0, hi = sm->nsyms;
	const struct fsym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &sm->syms[lo - 1];
	/* A sized symbol covers [addr, addr+size); an unsized one (some
	 * assembly) runs to the next symbol. */
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

static struct sym_module *sym_module_get(struct symbolizer *sz, uint32_t id)
{
	struct module *mod = maps_module(sz->maps, id);
	struct sym_module *sm;
	int fd;

	if (!mod)
		return NULL;
	GROW(sz->mods, sz->nmods, id + 1);
	if (sz->mods[id])
		return sz->mods[id]->mod ? sz->mods[id] : NULL;
	sm = xcalloc(1, sizeof(*sm));
	sz->mods[id] = sm;
	if (module_open(sz->maps, mod) < 0 || !mod->phdr)
		return NULL;
	fd = dup(mod->fd);
	if (fd < 0)
		return NULL;
	sm->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!sm->dwfl) {
		close(fd);
		return NULL;
	}
	dwfl_report_begin(sm->dwfl);
	sm->mod = dwfl_report_elf(sm->dwfl, mod->name, mod->path, fd, 0, true);
	dwfl_report_end(sm->dwfl, NULL, NULL);
	if (!sm->mod) {
		close(fd);
		return NULL;
	}
	load_symbols(sz, sm);
	return sm;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of every CU of the module, once. */
static void build_cu_ranges(struct sym_module *sm)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;
	size_t cap = 0;

	sm->ranges_built = true;
	sm->dw = dwfl_module_getdwarf(sm->mod, &sm->dw_bias);
	if (!sm->dw)
		return;
	while (dwarf_get_units(sm->dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			GROW(sm->ranges, cap, sm->nranges + 1);
			sm->ranges[sm->nranges].lo = lo;
			sm->ranges[sm->nranges].hi = hi;
			sm->ranges[sm->nranges].cu = cudie;
			sm->nranges++;
		}
	}
	if (sm->nranges)
		qsort(sm->ranges, sm->nranges, sizeof(*sm->ranges), cu_range_cmp);
}

/* The CU holding ADDR (a Dwfl address), through the aranges if they have
 * it, else through the CUs' own ranges; *BIAS is what to subtract from ADDR
 * for a DWARF address. */
static Dwarf_Die *cu_of(struct sym_module *sm, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(sm->mod, addr, bias);
	size_t lo = 0, hi, i;

	if (cu)
		return cu;
	if (!sm->ranges_built)
		build_cu_ranges(sm);
	if (!sm->nranges || addr < sm->dw_bias)
		return NULL;
	*bias = sm->dw_bias;
	addr -= sm->dw_bias;
	/* The last range starting at or before ADDR; ranges of different CUs
	 * do not overlap, but a CU's may nest another's (rare): look back. */
	hi = sm->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && lo - i <= 8;)
		if (addr < sm->ranges[i].hi)
			return &sm->ranges[i].cu;
	return NULL;
}

/* The file DIE is declared in.  dwarf_decl_file (libdw 0.188) takes file
 * index 0 for "none", as it was before DWARF 5; in DWARF 5 it is the CU's
 * primary file, where clang declares most functions. */
static const char *decl_file(Dwarf_Die *die, Dwarf_Files *files)
{
	Dwarf_Attribute attr;
	Dwarf_Half version;
	Dwarf_Word idx;

	if (!files || dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) != 0)
		return NULL;
	if (idx == 0 && (dwarf_cu_info(die->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) != 0 ||
			 version < 5))
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_diename(die);
	return name;
}

static struct sym_frame *new_frame(struct symbolizer *sz, uint32_t module)
{
	struct sym_frame *f;

	GROW(sz->frames, sz->frames_cap, sz->nframes + 1);
	f = &sz->frames[sz->nframes++];
	memset(f, 0, sizeof(*f));
	f->module = module;
	return f;
}

#define MAX_LEVELS 64

/* The function at PC under PARENT and the levels inlined in it at PC,
 * outermost first in PATH from index DEPTH on; the new depth, or DEPTH when
 * none.  Unlike dwarf_getscopes (libdw 0.188), it looks into types: rustc
 * puts a method's DIE in its struct's. */
static int find_function(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth)
{
	Dwarf_Die child;
	int found;

	if (depth >= MAX_LEVELS || dwarf_child(parent, &child) != 0)
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			if (dwarf_haspc(&child, pc) <= 0)
				break;
			path[depth] = child;
			return find_function(&child, pc, path, depth + 1);
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) <= 0)
				break;
			return find_function(&child, pc, path, depth);
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_interface_type:
		case DW_TAG_enumeration_type:
			found = find_function(&child, pc, path, depth);
			if (found > depth)
				return found;
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

/* Where DIE's code starts: DW_AT_entry_pc or DW_AT_low_pc, else the
 * start of its first range (code inlined in several pieces). */
static bool die_entry(Dwarf_Die *die, Dwarf_Addr *entry)
{
	Dwarf_Addr base, end;

	return dwarf_entrypc(die, entry) == 0 || dwarf_ranges(die, 0, &base, entry, &end) > 0;
}

/* The inline chain at ADDR from DWARF; the number of levels added. */
static unsigned dwarf_levels(struct symbolizer *sz, Dwarf_Die *cu, Dwarf_Addr bias, uint32_t id,
			     uint64_t addr, const char *src_file, int src_line)
{
	Dwarf_Die *scopes = NULL, *chain = NULL, path[MAX_LEVELS];
	Dwarf_Files *files = NULL;
	unsigned added = 0;
	int n, i, nchain, depth;

	if (!cu)
		return 0;
	/* find_function() first: libdw's dwarf_getscopes (0.188, and
	 * upstream as of this writing) keeps the array it allocated when it
	 * fails to find an inlined instance's abstract origin, returning 0
	 * or -1 (seen with Go's time.now, tests/targets/lang/clock.go).  It
	 * is the fallback, for what find_function() does not look into. */
	depth = find_function(cu, addr - bias, path, 0);
	if (depth > 0) {
		/* Innermost first, as dwarf_getscopes_die gives them. */
		chain = xmalloc(depth * sizeof(*chain));
		for (i = 0; i < depth; i++)
			chain[i] = path[depth - 1 - i];
		nchain = depth;
	} else {
		n = dwarf_getscopes(cu, addr - bias, &scopes);
		for (i = 0; i < n; i++) {
			int tag = dwarf_tag(&scopes[i]);

			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				break;
		}
		if (i >= n) {
			free(scopes);
			return 0;
		}
		nchain = dwarf_getscopes_die(&scopes[i], &chain);
	}
	dwarf_getsrcfiles(cu, &files, NULL);
	for (i = 0; i < nchain; i++) {
		int tag = dwarf_tag(&chain[i]), line = 0;
		const char *name = die_name(&chain[i]);
		struct sym_frame *f;
		Dwarf_Attribute attr;
		Dwarf_Word w;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		f = new_frame(sz, id);
		f->function = symbolizer_intern(sz, name ? name : "?");
		f->file = symbolizer_intern(sz, decl_file(&chain[i], files));
		if (dwarf_decl_line(&chain[i], &line) == 0) {
			f->line = line;
		} else {
			/* Go writes no DW_AT_decl_line: the line where this
			 * level's code starts then, out of line as pprof shows
			 * it, or where it was inlined (Go has functions that
			 * exist inlined only). */
			Dwarf_Addr entry;
			Dwarf_Line *l = die_entry(&chain[i], &entry) ? dwarf_getsrc_die(cu, entry) : NULL;

			if (l && dwarf_lineno(l, &line) == 0) {
				f->line = line;
				if (!f->file)
					f->file = symbolizer_intern(sz, dwarf_linesrc(l, NULL, NULL));
			}
		}
		f->src_file = symbolizer_intern(sz, src_file);
		f->src_line = src_line;
		added++;
		if (tag == DW_TAG_subprogram)
			break;
		/* The next level out was executing the call site of this one. */
		src_file = NULL;
		src_line = 0;
		if (files && dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &attr), &w) == 0)
			src_file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &attr), &w) == 0)
			src_line = (int)w;
	}
	free(chain);
	free(scopes);
	return added;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse the perf map's lines written since the last read: "START SIZE
 * NAME", START and SIZE in hex with or without 0x, as perf reads them.
 * A JIT appends as it compiles; a half-written last line waits for the
 * next read.  False if nothing new was read. */
static bool jit_read(struct symbolizer *sz, uint32_t id)
{
	struct jit_map *jm = &sz->jits[id];
	const struct module *mod = maps_module(sz->maps, id);
	const struct maps *m = sz->maps;
	pid_t pid = mod ? mod->pid : m->pid, ns_pid = mod ? mod->ns_pid : m->ns_pid;
	int64_t start_ns = mod ? mod->start_ns : m->start_ns;
	struct stat st;
	char *buf, *line, *next;
	size_t len, used = 0;
	ssize_t got;

	if (jm->fd == -2) {
		int root_fd = mod ? mod->root_fd : m->root_fd;
		char path[64];

		snprintf(path, sizeof(path), "tmp/perf-%d.map", (int)ns_pid);
		jm->fd = root_fd > 0 ? openat(root_fd, path, O_RDONLY | O_CLOEXEC) : -1;
		if (jm->fd < 0) {
			/* The target's root is gone with it: its /tmp is then
			 * ours, unless it ran in a container. */
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
			jm->fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		}
	}
	if (jm->fd < 0 || fstat(jm->fd, &st) < 0)
		return false;
	/* A map last written before the process started was left by one that
	 * had its pid before: its names are of other code.  A second off
	 * allows for the start time's precision and clock adjustments. */
	jm->stale = start_ns &&
		    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec < start_ns - 1000000000;
	/* A map that shrank was written anew (a runtime's fopen "w"). */
	if (jm->stale || (uint64_t)st.st_size < jm->read) {
		jm->n = 0;
		jm->read = 0;
	}
	if (jm->stale || (uint64_t)st.st_size <= jm->read)
		return false;
	len = (size_t)((uint64_t)st.st_size - jm->read);
	buf = xmalloc(len + 1);
	got = pread(jm->fd, buf, len, (off_t)jm->read);
	if (got <= 0) {
		free(buf);
		return false;
	}
	buf[got] = '\0';
	for (line = buf; (next = strchr(line, '\n')); line = next + 1) {
		unsigned long long start, size;
		int name_at = 0;

		*next = '\0';
		used = (size_t)(next + 1 - buf);
		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || !name_at ||
		    !line[name_at])
			continue;
		GROW(jm->v, jm->cap, jm->n + 1);
		jm->v[jm->n].start = start;
		jm->v[jm->n].size = size;
		jm->v[jm->n].name = symbolizer_intern(sz, line + name_at);
		jm->v[jm->n].seq = (uint32_t)jm->n;
		jm->n++;
	}
	free(buf);
	jm->read += used;
	qsort(jm->v, jm->n, sizeof(*jm->v), jit_cmp);
	return used > 0;
}

/* The name the perf map gives ADDR: of the lines covering it, the last
 * written (code is freed and its addresses reused); NULL if none. */
static const char *jit_lookup(const struct jit_map *jm, uint64_t addr)
{
	const struct jit_sym *best = NULL;
	size_t lo = 0, hi = jm->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (jm->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Overlaps are rare (reused code space): look back a little. */
	for (i = lo; i-- > 0 && lo - i <= 64;)
		if (addr - jm->v[i].start < jm->v[i].size && (!best || jm->v[i].seq > best->seq))
			best = &jm->v[i];
	return best ? best->name : NULL;
}

/* The state of the perf map of anonymous module ID (0: the target's). */
static struct jit_map *jit_map_of(struct symbolizer *sz, uint32_t id)
{
	size_t old = sz->njits, i;

	if (id >= sz->njits) {
		GROW(sz->jits, sz->njits, (size_t)id + 1);
		for (i = old; i < sz->njits; i++)
			sz->jits[i].fd = -2;
	}
	return &sz->jits[id];
}

static const char *jit_name(struct symbolizer *sz, uint32_t id, uint64_t addr)
{
	struct jit_map *jm = jit_map_of(sz, id);
	const char *name;

	if (jm->fd == -2)
		jit_read(sz, id);
	name = jit_lookup(jm, addr);
	if (!name && jit_read(sz, id))
		name = jit_lookup(jm, addr);
	return name;
}

uint64_t symbolizer_anon_unnamed(const struct symbolizer *sz, enum perf_map_state *map)
{
	const struct jit_map *jm = sz->njits ? &sz->jits[0] : NULL;

	*map = !jm || jm->fd < 0 ? PERF_MAP_NONE : jm->stale ? PERF_MAP_STALE : PERF_MAP_READ;
	return sz->anon_unnamed;
}

static void symbolize_key(struct symbolizer *sz, uint64_t key)
{
	uint32_t id = frame_key_module(key);
	uint64_t addr = frame_key_offset(key);
	struct module *mod = maps_module(sz->maps, id);
	struct sym_module *sm = id ? sym_module_get(sz, id) : NULL;
	const char *src_file = NULL;
	int src_line = 0;
	unsigned added = 0;
	struct sym_frame *f;
	char buf[512];

	if (sm) {
		Dwarf_Addr bias = 0;
		Dwarf_Die *cu = cu_of(sm, addr, &bias);
		Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;

		if (l) {
			src_file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &src_line);
		}
		added = cu ? dwarf_levels(sz, cu, bias, id, addr, src_file, src_line) : 0;
		if (added) {
			/* The out-of-line function's name from the symbol table
			 * when DWARF gave none. */
			f = &sz->frames[sz->nframes - 1];
			if (!strcmp(f->function, "?")) {
				const struct fsym *s = find_symbol(sm, addr);

				if (s)
					f->function = s->name;
			}
			return;
		}
	}
	f = new_frame(sz, id);
	f->src_file = symbolizer_intern(sz, src_file);
	f->src_line = src_line;
	if (sm) {
		const struct fsym *s = find_symbol(sm, addr);

		if (s) {
			f->function = s->name;
			return;
		}
	}
	if (!id || (mod && mod->anon)) {
		const char *name = jit_name(sz, id, addr);

		if (name) {
			f->function = name;
			return;
		}
		/* Every such key is code: a leaf's PC, or a return address
		 * the unwinder found in executable memory.  Asking the maps
		 * now would miss code unmapped since (node at exit). */
		sz->anon_unnamed++;
	}
	if (mod)
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, mod->name, addr);
	else
		snprintf(buf, sizeof(buf), "[anon]+0x%" PRIx64, addr);
	f->function = symbolizer_intern(sz, buf);
}

static struct cache_ent *cache_slot(struct symbolizer *sz, uint64_t key)
{
	uint64_t h = fnv1a(FNV_OFFSET, &key, sizeof(key));
	size_t i;

	for (i = h & (sz->cache_cap - 1); sz->cache[i].used; i = (i + 1) & (sz->cache_cap - 1))
		if (sz->cache[i].key == key)
			break;
	return &sz->cache[i];
}

unsigned symbolizer_lookup(struct symbolizer *sz, uint64_t key, const struct sym_frame **out)
{
	struct cache_ent *e;
	size_t first;

	if ((sz->cache_n + 1) * 2 > sz->cache_cap) {
		struct cache_ent *old = sz->cache;
		size_t ocap = sz->cache_cap, i;

		sz->cache_cap = ocap ? ocap * 2 : 4096;
		sz->cache = xcalloc(sz->cache_cap, sizeof(*sz->cache));
		for (i = 0; i < ocap; i++)
			if (old[i].used)
				*cache_slot(sz, old[i].key) = old[i];
		free(old);
	}
	e = cache_slot(sz, key);
	if (!e->used) {
		first = sz->nframes;
		symbolize_key(sz, key);
		e = cache_slot(sz, key);
		e->used = true;
		e->key = key;
		e->first = (uint32_t)first;
		e->n = (uint32_t)(sz->nframes - first);
		sz->cache_n++;
	}
	*out = &sz->frames[e->first];
	return e->n;
}

void symbolizer_forget_anon(struct symbolizer *sz)
{
	struct cache_ent *old = sz->cache;
	struct sym_frame *oldf = sz->frames;
	size_t ocap = sz->cache_cap, i;

	if (!ocap)
		return;
	sz->cache = xcalloc(ocap, sizeof(*sz->cache));
	sz->frames = xmalloc(sz->frames_cap * sizeof(*sz->frames));
	sz->nframes = 0;
	sz->cache_n = 0;
	for (i = 0; i < ocap; i++) {
		const struct module *mod = maps_module(sz->maps, frame_key_module(old[i].key));
		struct cache_ent *e;

		if (!old[i].used || !frame_key_module(old[i].key) || (mod && mod->anon))
			continue;
		e = cache_slot(sz, old[i].key);
		*e = old[i];
		e->first = (uint32_t)sz->nframes;
		memcpy(&sz->frames[sz->nframes], &oldf[old[i].first], old[i].n * sizeof(*oldf));
		sz->nframes += old[i].n;
		sz->cache_n++;
	}
	free(old);
	free(oldf);
}

void symbolizer_free(struct symbolizer *sz)
{
	size_t i;

	if (!sz)
		return;
	for (i = 0; i < sz->nmods; i++) {
		struct sym_module *sm = sz->mods[i];

		if (!sm)
			continue;
		if (sm->dwfl)
			dwfl_end(sm->dwfl);
		free(sm->syms);
		free(sm->ranges);
		free(sm);
	}
	for (i = 0; i < sz->njits; i++) {
		if (sz->jits[i].fd >= 0)
			close(sz->jits[i].fd);
		free(sz->jits[i].v);
	}
	free(sz->jits);
	free(sz->mods);
	strpool_release(&sz->strings);
	free(sz->cache);
	free(sz->frames);
	free(sz);
}
