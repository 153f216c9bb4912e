/* unwind.c - the unwinder backends, by name; see unwind.h. */
#define _GNU_SOURCE
#include "unwind.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

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
 * own: the first frames of a goroutine or thread (goexit, mstart, rt0_go,
 * and the program's entry before it, where a ring's tick can land) and
 * the switches to the system stack (mcall, systemstack, morestack,
 * asmcgocall), which leave stale words above the frame they start.  Go's
 * own traceback stops at them. */
static const char *const go_top_frames[] = {
	"runtime.goexit", "runtime.mstart", "runtime.rt0_go", "runtime.mcall",
	"runtime.systemstack", "runtime.morestack", "runtime.asmcgocall",
	"_rt0_amd64_linux", "_rt0_amd64",
};

/* Is NAME the Go function FUNC: the assembly ones are FUNC.abi0 in the
 * symbol table. */
static bool is_go_func(const char *name, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(name, func, n) && (!name[n] || !strcmp(name + n, ".abi0"));
}

static bool is_go_top_frame(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(go_top_frames); i++)
		if (is_go_func(name, go_top_frames[i]))
			return true;
	return false;
}

/* MOD's file as libelf reads it, or NULL; elf_end() it. */
static Elf *module_elf(struct module *mod)
{
	if (!mod->image)
		return NULL;
	elf_version(EV_CURRENT);
	return elf_memory((char *)mod->image, mod->image_size);
}

/* Go's functions that call the vDSO on the thread's system stack, with
 * the goroutine's stack pointer kept in another register
 * (regs_go_vdso_sp()): Go 1.17 on, and walltime1 before. */
static const char *const go_vdso_callers[] = {
	"time.now", "runtime.nanotime1", "runtime.walltime", "runtime.walltime1",
};

/* Where another register holds the stack pointer that the CFI of Go's
 * function at [START, END) of MOD is written for (arch_go_sp_kept()).
 * False if the code is not so. */
static bool go_sp_range(struct module *mod, uint64_t start, uint64_t end, uint64_t range[2])
{
	unsigned char code[512];
	size_t n = end - start < sizeof(code) ? (size_t)(end - start) : sizeof(code), at[2];

	if (end <= start || module_read(mod, start, code, n) != 0 || !arch_go_sp_kept(code, n, at))
		return false;
	range[0] = start + at[0];
	range[1] = start + at[1];
	return true;
}

/* The ELF address ranges of MOD's Go top frames, of its
 * runtime.asyncPreempt and of its callers of the vDSO (where another
 * register holds their stack pointer), from its symbol table. */
static void read_go_top_frames(struct module *mod)
{
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;

	mod->go_top_read = true;
	elf = module_elf(mod);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Sym sym;
		size_t i, j, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			/* Named runtime.sigreturn__sigaction since Go 1.21. */
			if (is_go_func(name, "runtime.sigreturn") ||
			    is_go_func(name, "runtime.sigreturn__sigaction")) {
				mod->go_sigreturn = sym.st_value;
				continue;
			}
			if (is_go_func(name, "runtime.asyncPreempt")) {
				mod->go_preempt[0] = sym.st_value;
				mod->go_preempt[1] = sym.st_value + sym.st_size;
				continue;
			}
			for (j = 0; j < ARRAY_SIZE(go_vdso_callers) && mod->ngo_vdso < ARRAY_SIZE(mod->go_vdso); j++)
				if (is_go_func(name, go_vdso_callers[j])) {
					if (go_sp_range(mod, sym.st_value, sym.st_value + sym.st_size,
							 mod->go_vdso[mod->ngo_vdso]))
						mod->ngo_vdso++;
					break;
				}
			if (!is_go_top_frame(name))
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

/* MOD's Go symbols, read once; false for a module with .eh_frame (Go's
 * own linker writes .debug_frame only). */
static bool go_symbols(struct module *mod)
{
	if (!mod || mod->has_table)
		return false;
	if (!mod->go_top_read)
		read_go_top_frames(mod);
	return true;
}

uint64_t unwind_go_sigreturn(const struct module *mod)
{
	return mod && mod->go_top_read ? mod->go_sigreturn : 0;
}

bool unwind_sigframe_regs(const struct capture *c, uint64_t uc, struct user_regs_struct *r)
{
	greg_t g[NGREG];

	if (!capture_read(c, uc + offsetof(ucontext_t, uc_mcontext.gregs), g, sizeof(g)))
		return false;
	regs_from_gregs(r, g);
	return true;
}

/* Is VADDR in one of the N ranges [start, end) of R? */
static bool in_ranges(uint64_t (*r)[2], size_t n, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (vaddr - r[i][0] < r[i][1] - r[i][0])
			return true;
	return false;
}

bool unwind_go_top_frame(struct module *mod, uint64_t vaddr)
{
	return go_symbols(mod) && in_ranges(mod->go_top, mod->ngo_top, vaddr);
}

bool unwind_go_async_preempt(struct module *mod, uint64_t vaddr)
{
	return go_symbols(mod) && in_ranges(&mod->go_preempt, 1, vaddr);
}

bool unwind_go_vdso_caller(struct module *mod, uint64_t vaddr)
{
	return go_symbols(mod) && in_ranges(mod->go_vdso, mod->ngo_vdso, vaddr);
}

/* _init and _fini as crti.o and crtn.o make them (arch_crt_shape()),
 * which neither file gives CFI for.  Any other shape is not recognised. */
static bool read_crt_code(struct module *mod, const GElf_Shdr *sh, struct crt_code *cc)
{
	size_t p, n = sh->sh_size;

	if (sh->sh_offset > mod->image_size || n > mod->image_size - sh->sh_offset ||
	    !arch_crt_shape(mod->image + sh->sh_offset, n, &p))
		return false;
	cc->lo = sh->sh_addr;
	cc->body = sh->sh_addr + p;
	cc->ret = sh->sh_addr + n - 1;
	return true;
}

static void read_crt(struct module *mod)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	mod->crt_read = true;
	elf = module_elf(mod);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn)) && mod->ncrt < ARRAY_SIZE(mod->crt)) {
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(sh.sh_flags & SHF_EXECINSTR) ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    (strcmp(name, ".init") && strcmp(name, ".fini")))
				continue;
			if (read_crt_code(mod, &sh, &mod->crt[mod->ncrt]))
				mod->ncrt++;
		}
	}
	if (elf)
		elf_end(elf);
}

unsigned unwind_crt_cfa(struct module *mod, uint64_t vaddr)
{
	unsigned i;

	if (!mod)
		return 0;
	if (!mod->crt_read)
		read_crt(mod);
	for (i = 0; i < mod->ncrt; i++) {
		const struct crt_code *cc = &mod->crt[i];

		if (vaddr < cc->lo || vaddr > cc->ret)
			continue;
		return vaddr >= cc->body && vaddr < cc->ret ? ARCH_CRT_BODY_CFA : 8;
	}
	return 0;
}

bool unwind_cfi_sp_cfa(Dwarf_CFI *cfi, uint64_t vaddr, int64_t *off)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	bool ok;

	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &frame) < 0)
		return false;
	ok = dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx &&
	     ops[0].number == ARCH_DWARF_SP;
	if (ok)
		*off = (int64_t)ops[0].number2;
	free(frame);
	return ok;
}
