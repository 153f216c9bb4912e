/* unwind.c - the unwinder backends, by name; see unwind.h. */
#include "unwind.h"
#include "util.h"

#include <gelf.h>
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

	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

/* Go's runtime functions above which a stack holds nothing of the thread's
 * own: the first frames of a goroutine or thread (goexit, mstart, rt0_go)
 * and the switches to the system stack (mcall, systemstack, morestack,
 * asmcgocall), which leave stale words above the frame they start.  Go's
 * own traceback stops at them. */
static const char *const go_top_frames[] = {
	"runtime.goexit", "runtime.mstart", "runtime.rt0_go", "runtime.mcall",
	"runtime.systemstack", "runtime.morestack", "runtime.asmcgocall",
};

static bool is_go_top_frame(const char *name)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(go_top_frames); i++) {
		n = strlen(go_top_frames[i]);
		if (!strncmp(name, go_top_frames[i], n) && (!name[n] || !strcmp(name + n, ".abi0")))
			return true;
	}
	return false;
}

/* The ELF address ranges of MOD's Go top frames, from its symbol table. */
static void read_go_top_frames(struct module *mod)
{
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;

	mod->go_top_read = true;
	if (!mod->image)
		return;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)mod->image, mod->image_size);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Sym sym;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    !is_go_top_frame(name))
				continue;
			GROW(mod->go_top, cap, mod->ngo_top + 1);
			mod->go_top[mod->ngo_top][0] = sym.st_value;
			mod->go_top[mod->ngo_top][1] = sym.st_value + sym.st_size;
			mod->ngo_top++;
		}
	}
	if (elf)
		elf_end(elf);
}

bool unwind_go_top_frame(struct module *mod, uint64_t vaddr)
{
	size_t i;

	if (!mod || mod->has_table)
		return false;
	if (!mod->go_top_read)
		read_go_top_frames(mod);
	for (i = 0; i < mod->ngo_top; i++)
		if (vaddr - mod->go_top[i][0] < mod->go_top[i][1] - mod->go_top[i][0])
			return true;
	return false;
}
