/* maps.c - see maps.h. */
#define _GNU_SOURCE
#include "arch.h"
#include "maps.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>


#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

int module_read(const struct module *mod, uint64_t vaddr, void *buf, size_t n)
{
	unsigned i;

	if (!mod->phdr)
		return -1;
	for (i = 0; i < mod->phnum; i++) {
		const Elf64_Phdr *ph = &mod->phdr[i];
		uint64_t off;

		if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr ||
		    vaddr - ph->p_vaddr > ph->p_filesz || n > ph->p_filesz - (vaddr - ph->p_vaddr))
			continue;
		off = ph->p_offset + (vaddr - ph->p_vaddr);
		if (off > mod->image_size || n > mod->image_size - off)
			return -1;
		memcpy(buf, mod->image + off, n);
		return 0;
	}
	return -1;
}

/* Look for the GNU build id in the note segment PH. */
static void module_find_build_id(struct module *mod, const Elf64_Phdr *ph)
{
	uint64_t off = ph->p_offset, end = ph->p_offset + ph->p_filesz;

	if (end > mod->image_size || end < off)
		return;
	while (off + sizeof(Elf64_Nhdr) <= end) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(mod->image + off);
		uint64_t name = off + sizeof(*nh);
		uint64_t desc = name + ((nh->n_namesz + 3) & ~3U);
		uint64_t next = desc + ((nh->n_descsz + 3) & ~3U);

		if (next > end || next <= off)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(mod->image + name, "GNU", 4) && nh->n_descsz) {
			mod->build_id = mod->image + desc;
			mod->build_id_len = nh->n_descsz;
			return;
		}
		off = next;
	}
}

/* Check the ELF header and find the program headers and unwind table.
 * Anything malformed leaves mod->phdr NULL: the module is then shown as
 * module+offset and not unwound through, never trusted. */
static void module_parse_elf(struct module *mod)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)mod->image;
	unsigned char hdr[12];
	unsigned i;

	if (mod->image_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > mod->image_size ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > mod->image_size - eh->e_phoff)
		return;
	mod->phdr = (const Elf64_Phdr *)(mod->image + eh->e_phoff);
	mod->phnum = eh->e_phnum;
	mod->e_type = eh->e_type;
	mod->entry = eh->e_entry;
	mod->vaddr_lo = UINT64_MAX;
	mod->vaddr_hi = 0;
	for (i = 0; i < mod->phnum; i++) {
		const Elf64_Phdr *ph = &mod->phdr[i];

		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < mod->vaddr_lo)
				mod->vaddr_lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > mod->vaddr_hi)
				mod->vaddr_hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_RELRO) {
			mod->relro_vaddr = ph->p_vaddr;
			mod->relro_memsz = ph->p_memsz;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			mod->hdr_vaddr = ph->p_vaddr;
		} else if (ph->p_type == PT_NOTE) {
			module_find_build_id(mod, ph);
		}
	}
	if (mod->vaddr_lo == UINT64_MAX) {
		mod->phdr = NULL;
		return;
	}
	/* .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr,
	 * fde_count and the table.  libunwind's remote table search reads the
	 * table as pairs of datarel sdata4, which is what GNU ld and gold write. */
	if (!mod->hdr_vaddr || module_read(mod, mod->hdr_vaddr, hdr, sizeof(hdr)) < 0)
		return;
	if (hdr[0] != 1 || (hdr[1] & 0x0f) != DW_EH_PE_sdata4 ||
	    hdr[2] != DW_EH_PE_udata4 || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return;
	{
		uint32_t count;

		memcpy(&count, hdr + 8, 4);
		mod->fde_count = count;
		mod->has_table = count > 0;
	}
}

static int map_fd(struct module *mod, int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	mod->fd = fd;
	mod->image = p;
	mod->image_size = (size_t)st.st_size;
	module_parse_elf(mod);
	return 0;
}

/* Copy the vdso out of the target once.  It is an ELF image in memory only;
 * in a memfd it can be mapped and handed to libdwfl like a file. */
static int open_vdso(struct maps *m, struct module *mod, uint64_t start, uint64_t end)
{
	size_t len = (size_t)(end - start);
	char *buf = xmalloc(len);
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)start, len };
	int fd = -1;

	if (process_vm_readv(m->mm_tid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		goto fail;
	fd = memfd_create("ctprof-vdso", MFD_CLOEXEC);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || map_fd(mod, fd) < 0)
		goto fail;
	free(buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return -EIO;
}

struct module *module_copy(struct maps *m, uint32_t id)
{
	struct module *mod = maps_module(m, id), *copy;

	if (!mod)
		return NULL;
	module_open(m, mod);
	copy = xmalloc(sizeof(*copy));
	memcpy(copy, mod, sizeof(*copy));
	return copy;
}

void modtab_put(struct modtab *mt, uint32_t id, struct module *copy)
{
	GROW(mt->modules, mt->modcap, (size_t)id + 1);
	free(mt->modules[id]);
	mt->modules[id] = copy;
	if (mt->nmodules < (size_t)id + 1)
		mt->nmodules = (size_t)id + 1;
}

void modtab_free_copies(struct modtab *mt)
{
	size_t i;

	for (i = 0; i < mt->nmodules; i++)
		free(mt->modules[i]);
	free(mt->modules);
	memset(mt, 0, sizeof(*mt));
}

void module_stage(struct module_stage *ms, struct maps *m, uint32_t id)
{
	struct module *copy;

	if (id < ms->ncopied && ms->copied[id])
		return;
	GROW(ms->copied, ms->ncopied, (size_t)id + 1);
	ms->copied[id] = true;
	copy = module_copy(m, id);
	if (!copy)
		return;
	GROW(ms->v, ms->cap, ms->n + 1);
	ms->v[ms->n].id = id;
	ms->v[ms->n].copy = copy;
	ms->n++;
}

void module_stage_take(struct module_stage *ms, struct modtab *mt)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		modtab_put(mt, ms->v[i].id, ms->v[i].copy);
	ms->n = 0;
}

void module_stage_release(struct module_stage *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->v[i].copy);
	free(ms->v);
	free(ms->copied);
	memset(ms, 0, sizeof(*ms));
}

int module_open(struct maps *m, struct module *mod)
{
	char path[96];
	size_t i;
	int fd;

	if (mod->opened)
		return mod->fd >= 0 ? 0 : -ENOENT;
	mod->opened = true;
	if (!strcmp(mod->path, "[vdso]")) {
		for (i = 0; i < m->nmap; i++)
			if (maps_module(m, m->map[i].module) == mod)
				return open_vdso(m, mod, m->map[i].start, m->map[i].end);
		return -ENOENT;
	}
	/* The file as named, if it is still the one mapped (same inode). */
	fd = open(mod->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && st.st_ino == mod->ino && map_fd(mod, fd) == 0)
			return 0;
		close(fd);
	}
	/* Deleted or replaced since it was mapped: the kernel still holds the
	 * mapped file, reachable through map_files (needs CAP_SYS_ADMIN or
	 * CAP_CHECKPOINT_RESTORE). */
	for (i = 0; i < m->nmap; i++) {
		if (maps_module(m, m->map[i].module) != mod)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/map_files/%" PRIx64 "-%" PRIx64,
			 m->pid, m->mm_tid, m->map[i].start, m->map[i].end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (map_fd(mod, fd) == 0)
				return 0;
			close(fd);
		}
		break;
	}
	mod->fd = -1;
	return -ENOENT;
}

static uint32_t module_intern(struct maps *m, const char *path, unsigned long ino)
{
	struct module *mod;
	const char *slash;
	size_t i;

	struct modtab *mt = m->mt;

	for (i = 1; i < mt->nmodules; i++)
		if (!mt->modules[i]->anon && mt->modules[i]->ino == ino &&
		    !strcmp(mt->modules[i]->path, path))
			return (uint32_t)i;
	BUG_ON(mt->nmodules >= 0xffff);
	GROW(mt->modules, mt->modcap, mt->nmodules + 1);
	mod = xcalloc(1, sizeof(*mod));
	mod->path = xstrdup(path);
	slash = strrchr(mod->path, '/');
	mod->name = slash ? slash + 1 : mod->path;
	mod->ino = ino;
	mod->fd = -1;
	mt->modules[mt->nmodules] = mod;
	return (uint32_t)mt->nmodules++;
}

/* Load bias of mapping MP of MOD at file offset PGOFF, from the segment it
 * maps: that segment is loaded at bias + p_vaddr.  The loader maps each
 * PT_LOAD from its offset rounded down to a page, so with segments packed
 * in the file (lld, mold: the text at offset 0x6c0 and address 0x16c0) one
 * file page starts two or three mappings, and every segment holding the
 * offset gives a bias that looks right.  The mapping's permissions are the
 * segment's, but for the RELRO pages the loader made read-only, and its
 * pages are the segment's; that settles it. */
static uint64_t mapping_bias(const struct module *mod, const struct mapping *mp, uint64_t pgoff)
{
	uint64_t best = mp->start - pgoff;
	int best_score = -1;
	unsigned i;

	if (!mod || !mod->phdr)
		return best;
	for (i = 0; i < mod->phnum; i++) {
		const Elf64_Phdr *ph = &mod->phdr[i];
		uint64_t bias, lo, hi, relro_lo, relro_hi;
		bool write;
		int score;

		if (ph->p_type != PT_LOAD || pgoff < (ph->p_offset & ~ARCH_PAGE_LOW) ||
		    pgoff >= ph->p_offset + ph->p_filesz)
			continue;
		bias = mp->start - pgoff - ph->p_vaddr + ph->p_offset;
		lo = bias + (ph->p_vaddr & ~ARCH_PAGE_LOW);
		hi = bias + ((ph->p_vaddr + ph->p_memsz + ARCH_PAGE_LOW) & ~ARCH_PAGE_LOW);
		/* The loader makes the RELRO pages read-only, rounded down. */
		relro_lo = bias + (mod->relro_vaddr & ~ARCH_PAGE_LOW);
		relro_hi = bias + ((mod->relro_vaddr + mod->relro_memsz) & ~ARCH_PAGE_LOW);
		write = (ph->p_flags & PF_W) && !(mp->start >= relro_lo && mp->end <= relro_hi);
		score = (mp->exec == !!(ph->p_flags & PF_X)) * 4 + (mp->write == write) * 2 +
			(mp->start >= lo && mp->end <= hi);
		if (score > best_score) {
			best_score = score;
			best = bias;
		}
	}
	return best;
}

static bool same_mapping(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->module == b->module && a->bias == b->bias;
}

/* The text of the target's maps.  A leader that has exited while other
 * threads run on (pthread_exit in main) is a zombie whose maps are empty:
 * read them through a live thread then. */
static char *read_maps(struct maps *m)
{
	char path[64], *buf;
	pid_t *tids = NULL;
	size_t len = 0;
	int n, i;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", m->pid, m->mm_tid);
	buf = read_file(path, &len);
	if (buf && len)
		return buf;
	free(buf);
	buf = NULL;
	n = proc_tasks(m->pid, &tids);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", m->pid, tids[i]);
		buf = read_file(path, &len);
		if (buf && len) {
			m->mm_tid = tids[i];
			break;
		}
		free(buf);
		buf = NULL;
	}
	free(tids);
	if (!buf)
		errno = ESRCH;
	return buf;
}

int maps_refresh(struct maps *m)
{
	struct mapping *old = m->map;
	size_t nold = m->nmap, i, j;
	char *buf, *line, *next;

	buf = read_maps(m);
	if (!buf)
		return -errno;
	m->map = NULL;
	m->nmap = m->mapcap = 0;
	m->refreshed_epoch = m->epoch;
	m->refreshes++;

	for (line = buf; *line; line = next) {
		unsigned long long start, end, pgoff, ino;
		char perms[8];
		int name_at = 0;
		struct mapping *mp;
		char *name;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n",
			   &start, &end, perms, &pgoff, &ino, &name_at) < 5)
			continue;
		name = name_at ? line + name_at : (char *)"";
		GROW(m->map, m->mapcap, m->nmap + 1);
		mp = &m->map[m->nmap++];
		mp->start = start;
		mp->end = end;
		mp->exec = perms[2] == 'x';
		mp->write = perms[1] == 'w';
		mp->module = 0;
		mp->bias = 0;
		if (!strcmp(name, "[vdso]")) {
			mp->module = module_intern(m, name, 0);
		} else if (name[0] == '/') {
			size_t len = strlen(name);

			/* The kernel appends " (deleted)" to a file removed since. */
			if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
				name[len - 10] = '\0';
			mp->module = module_intern(m, name, (unsigned long)ino);
		}
		if (mp->module) {
			struct module *mod = m->mt->modules[mp->module];

			if (mp->exec)
				mod->exec = true;
			/* The file offset for now; the bias once the file is open. */
			mp->bias = pgoff;
		}
	}
	free(buf);

	/* Open the files of modules with code (an executable mapping) now,
	 * while the target runs and its files are surely still there, then
	 * compute every mapping's load bias from the program headers. */
	for (i = 0; i < m->nmap; i++) {
		struct mapping *mp = &m->map[i];
		struct module *mod = maps_module(m, mp->module);
		uint64_t pgoff = mp->bias;

		if (!mod)
			continue;
		if (mod->exec && !mod->opened)
			module_open(m, mod);
		mp->bias = mapping_bias(mod, mp, pgoff);
		if (mp->exec || !mod->loaded) {
			mod->bias = mp->bias;
			mod->loaded = true;
		}
	}

	/* Code that was unmapped (dlclose) may come back at the same address
	 * as other code: tell the unwinder to forget what it cached. */
	for (i = 0, j = 0; i < nold; i++) {
		if (!old[i].module || !old[i].exec)
			continue;
		while (j < m->nmap && m->map[j].start < old[i].start)
			j++;
		if (j >= m->nmap || !same_mapping(&old[i], &m->map[j])) {
			m->layout_changed = true;
			break;
		}
	}
	/* Callers may still hold mappings of OLD (see maps_find). */
	free(m->retired);
	m->retired = old;
	return 0;
}

/* When PID started, on the wall clock: /proc/PID/stat gives it in clock
 * ticks after boot, which CLOCK_BOOTTIME counts from too.  0 if unknown. */
static int64_t process_start_ns(pid_t pid)
{
	struct timespec real, boot;
	struct proc_stat st;
	long hz = sysconf(_SC_CLK_TCK);

	if (proc_read_stat(pid, 0, &st) < 0 || !st.starttime || hz <= 0 ||
	    clock_gettime(CLOCK_REALTIME, &real) < 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return 0;
	return (int64_t)real.tv_sec * 1000000000 + real.tv_nsec -
	       ((int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec) +
	       (int64_t)(st.starttime * (1000000000 / (unsigned long long)hz));
}

int maps_init_shared(struct maps *m, pid_t pid, struct maps *share)
{
	struct modtab *mt;
	char path[64];
	long ns;

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	m->mm_tid = pid;
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	m->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* The pid its perf map is named by, inside a container too. */
	m->ns_pid = proc_status_last(pid, "NSpid", &ns) == 0 ? (pid_t)ns : pid;
	m->start_ns = process_start_ns(pid);
	if (share) {
		m->mt = share->mt;
		m->mt->refs++;
		m->shared = true;
		return maps_refresh(m);
	}
	m->mt = mt = xcalloc(1, sizeof(*mt));
	mt->refs = 1;
	GROW(mt->modules, mt->modcap, 1);
	mt->modules[0] = xcalloc(1, sizeof(struct module));
	mt->modules[0]->path = xstrdup("[anon]");
	mt->modules[0]->name = mt->modules[0]->path;
	mt->modules[0]->fd = -1;
	mt->nmodules = 1;
	return maps_refresh(m);
}

int maps_init(struct maps *m, pid_t pid)
{
	return maps_init_shared(m, pid, NULL);
}

int maps_exec(struct maps *m)
{
	m->nmap = 0;
	m->layout_changed = true;
	return maps_refresh(m);
}

void maps_release(struct maps *m)
{
	struct modtab *mt = m->mt;
	size_t i;

	for (i = 0; mt && mt->refs == 1 && i < mt->nmodules; i++) {
		struct module *mod = mt->modules[i];

		if (mod->image)
			munmap((void *)mod->image, mod->image_size);
		if (mod->fd >= 0)
			close(mod->fd);
		if (mod->anon && mod->root_fd >= 0)
			close(mod->root_fd);
		free(mod->path);
		free(mod->go_top);
		free(mod);
	}
	if (mt && --mt->refs == 0) {
		free(mt->modules);
		free(mt);
	}
	free(m->map);
	free(m->retired);
	if (m->root_fd > 0)
		close(m->root_fd);
	memset(m, 0, sizeof(*m));
}

const struct mapping *maps_find(const struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->map[mid].start)
			hi = mid;
		else if (addr >= m->map[mid].end)
			lo = mid + 1;
		else
			return &m->map[mid];
	}
	return NULL;
}

const struct mapping *maps_find_refresh(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find(m, addr);

	if (!mp && m->refreshed_epoch != m->epoch && maps_refresh(m) == 0)
		mp = maps_find(m, addr);
	return mp;
}

const struct mapping *maps_find_code(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find(m, addr);

	if ((!mp || !mp->exec) && m->refreshed_epoch != m->epoch && maps_refresh(m) == 0)
		mp = maps_find(m, addr);
	return mp;
}

/* The module of M's anonymous memory, made for a process forked from the
 * first when its first such frame is keyed; 0 for the first, or if the
 * table is full. */
static uint32_t anon_module(struct maps *m)
{
	struct modtab *mt = m->mt;
	struct module *mod;

	if (m->anon_module || !m->shared || mt->nmodules >= 0xfff0)
		return m->anon_module;
	GROW(mt->modules, mt->modcap, mt->nmodules + 1);
	mod = xcalloc(1, sizeof(*mod));
	mod->path = xstrdup("[anon]");
	mod->name = mod->path;
	mod->fd = -1;
	mod->opened = true;             /* there is no file to open */
	mod->anon = true;
	mod->pid = m->pid;
	mod->ns_pid = m->ns_pid;
	mod->root_fd = m->root_fd > 0 ? fcntl(m->root_fd, F_DUPFD_CLOEXEC, 3) : -1;
	mod->start_ns = m->start_ns;
	mt->modules[mt->nmodules] = mod;
	m->anon_module = (uint32_t)mt->nmodules++;
	return m->anon_module;
}

uint64_t maps_frame_key(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find_code(m, addr);

	if (!mp || !mp->module)
		return frame_key(anon_module(m), addr);
	return frame_key(mp->module, addr - mp->bias);
}

/* Are the N bytes at ADDR, read from its module's file, CODE? */
static bool code_is(struct maps *m, uint64_t addr, const unsigned char *code, size_t n)
{
	const struct mapping *mp = maps_find_code(m, addr);
	struct module *mod = mp ? maps_module(m, mp->module) : NULL;
	unsigned char buf[16];

	return n <= sizeof(buf) && mod && mod->image &&
	       module_read(mod, addr - mp->bias, buf, n) == 0 && !memcmp(buf, code, n);
}

bool maps_is_sigreturn(struct maps *m, uint64_t addr)
{
	return code_is(m, addr, arch_sigreturn_code, ARCH_SIGRETURN_LEN);
}

bool maps_after_syscall(struct maps *m, uint64_t addr)
{
	return code_is(m, addr - ARCH_SYSCALL_LEN, arch_syscall_code, ARCH_SYSCALL_LEN);
}

bool maps_is_entry_code(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find(m, addr);
	struct module *mod = mp ? maps_module(m, mp->module) : NULL;

	return mod && mod->entry && addr - mp->bias >= mod->entry &&
	       addr - mp->bias - mod->entry < 64;
}

bool maps_after_call(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find(m, addr - 1);
	struct module *mod = mp ? maps_module(m, mp->module) : NULL;
	unsigned char buf[ARCH_CALL_WINDOW];

	if (!mp || !mp->exec || addr - mp->start < sizeof(buf))
		return false;
	if (mod) {
		if (!mod->image || module_read(mod, addr - sizeof(buf) - mp->bias, buf, sizeof(buf)) < 0)
			return false;
	} else {
		struct iovec local = { buf, sizeof(buf) };
		struct iovec remote = { (void *)(uintptr_t)(addr - sizeof(buf)), sizeof(buf) };

		if (process_vm_readv(m->mm_tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(buf))
			return false;
	}
	return arch_call_ends(buf);
}

bool maps_is_code(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find_code(m, addr);

	return mp && mp->exec;
}

bool maps_may_be_code(struct maps *m, uint64_t addr)
{
	const struct mapping *mp = maps_find_refresh(m, addr);

	return mp && mp->exec;
}
