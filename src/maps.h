/* maps.h - the target's address space: modules (ELF files) and mappings.
 *
 * A module is one ELF file as the target maps it, identified by path and
 * inode, opened and mapped read-only by ctprof once and kept until the end,
 * so that code and unwind tables can be read without touching the target and
 * a library that was unloaded, or a target that has exited, can still be
 * symbolized.  The vdso is copied once from the target into a memfd and is
 * then a module like any other.
 *
 * A frame is stored as a frame key: the module id and the ELF virtual
 * address inside it (runtime address minus the load bias), so keys stay
 * valid when a library is unloaded, reloaded elsewhere, or the process execs.
 * Module id 0 means "no file": the key then holds the runtime address.
 * So does a module marked anon, one per other process of a run that
 * follows forks.
 */
#ifndef CTPROF_MAPS_H
#define CTPROF_MAPS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* glibc's _init or _fini (crti.o's prologue, crtn.o's epilogue), by ELF
 * address: [lo, body) runs before the prologue's stack adjustment,
 * [body, ret) after it, ret is the epilogue's ret. */
struct crt_code {
	uint64_t lo, body, ret;
};

struct module {
	char *path;                     /* as /proc/PID/maps names it, "[vdso]" */
	const char *name;               /* basename of path, inside path */
	unsigned long ino;
	bool exec;                      /* has an executable mapping */
	bool opened;                    /* open attempted (ok or not) */
	int fd;                         /* read-only fd, -1 if unavailable */
	const unsigned char *image;     /* the whole file, mapped read-only */
	size_t image_size;
	const Elf64_Phdr *phdr;         /* inside image; NULL if not a usable ELF */
	unsigned phnum;
	uint16_t e_type;                /* ET_EXEC or ET_DYN */
	uint64_t entry;                 /* e_entry: _start in an executable */
	uint64_t vaddr_lo, vaddr_hi;    /* extent of the PT_LOAD segments */
	uint64_t relro_vaddr, relro_memsz; /* PT_GNU_RELRO, or 0 */
	bool has_table;                 /* .eh_frame_hdr with a binary search table */
	uint64_t hdr_vaddr;             /* ELF address of .eh_frame_hdr */
	uint64_t fde_count;
	const unsigned char *build_id;  /* NT_GNU_BUILD_ID bytes in image, or NULL */
	size_t build_id_len;
	bool loaded;                    /* has been seen mapped; then: */
	uint64_t bias;                  /* its load bias when last seen */
	/* Go's top frames, its runtime.asyncPreempt and its callers of the
	 * vDSO, by ELF address [start, end), and its runtime.sigreturn
	 * (unwind.c). */
	bool go_top_read;
	uint64_t (*go_top)[2];
	size_t ngo_top;
	uint64_t go_preempt[2];
	uint64_t go_sigreturn;
	uint64_t go_vdso[4][2];
	size_t ngo_vdso;
	/* Its _init and _fini, code with no CFI (unwind.c). */
	bool crt_read;
	struct crt_code crt[2];
	unsigned ncrt;
	/* No file: the anonymous memory (JIT code) of one process of a run
	 * that follows forks, but the first's (whose is module 0, named by
	 * struct maps), so that two processes' addresses are two keys.  The
	 * process's perf map is found by these: */
	bool anon;
	pid_t pid, ns_pid;
	int root_fd;                    /* the module's own; -1 if unknown */
	int64_t start_ns;
};

struct mapping {
	uint64_t start, end;            /* runtime addresses [start, end) */
	uint64_t bias;                  /* runtime address - ELF vaddr */
	uint32_t module;                /* 0: anonymous memory */
	bool exec, write;
};

/* The modules, shared by the processes of a run (--follow-forks): a forked
 * child maps the same files, and one module id then means one file in
 * every process's frame keys. */
struct modtab {
	struct module **modules;        /* [0] is the "no module" placeholder;
	                                 * each module lives until the last
	                                 * maps sharing the table is released */
	size_t nmodules, modcap;
	unsigned refs;
};

struct maps {
	pid_t pid;
	pid_t mm_tid;                   /* a thread whose /proc files show the
	                                 * address space: pid, unless its leader
	                                 * has exited (pthread_exit) */
	struct modtab *mt;
	int root_fd;                    /* the target's root directory (O_PATH),
	                                 * kept for its perf map once it exited;
	                                 * -1 if unknown */
	pid_t ns_pid;                   /* pid in its own namespace (NSpid) */
	int64_t start_ns;               /* when it started, CLOCK_REALTIME ns,
	                                 * to 10 ms; 0 if unknown */
	bool shared;                    /* forked from the first process */
	uint32_t anon_module;           /* the module of its anonymous memory's
	                                 * frame keys: 0 for the first process,
	                                 * its own (made when first needed) for
	                                 * the others */
	struct mapping *map;            /* sorted by start */
	size_t nmap, mapcap;
	struct mapping *retired;        /* the array before the last reread */
	unsigned long epoch;            /* bumped by the caller once per tick */
	unsigned long refreshed_epoch;  /* epoch of the last reread */
	bool layout_changed;            /* code was unmapped since last cleared */
	unsigned long refreshes;
};

#define FRAME_KEY_BITS 48
#define FRAME_KEY_MASK ((1ULL << FRAME_KEY_BITS) - 1)
static inline uint64_t frame_key(uint32_t module, uint64_t off)
{
	return ((uint64_t)module << FRAME_KEY_BITS) | (off & FRAME_KEY_MASK);
}
static inline uint32_t frame_key_module(uint64_t key) { return (uint32_t)(key >> FRAME_KEY_BITS); }
/* Not a module: the leaf frame of a thread blocked in system call NR (a
 * module id never reaches it), or with NR FRAME_WAITING blocked elsewhere,
 * or FRAME_UNSAMPLED: CPU time a thread used after its last sample, charged
 * at its exit (--weight=cputime). */
#define FRAME_MODULE_SYSCALL 0xffffu
#define FRAME_WAITING FRAME_KEY_MASK
#define FRAME_UNSAMPLED (FRAME_KEY_MASK - 1)
/* ... or FRAME_KERNEL: a thread's CPU time its samples do not stand for,
 * where they count user mode only (the perf trigger). */
#define FRAME_KERNEL (FRAME_KEY_MASK - 2)
static inline uint64_t frame_key_syscall(long nr)
{
	return frame_key(FRAME_MODULE_SYSCALL, nr < 0 ? FRAME_WAITING : (uint64_t)nr);
}
static inline uint64_t frame_key_offset(uint64_t key) { return key & FRAME_KEY_MASK; }

/* Set up for process PID and read its maps.  0 or -errno. */
int maps_init(struct maps *m, pid_t pid);
/* The same, sharing the modules of SHARE (a process forked from it). */
int maps_init_shared(struct maps *m, pid_t pid, struct maps *share);
/* Reread /proc/PID/maps.  Modules are kept; mappings are replaced.  0 or -errno. */
int maps_refresh(struct maps *m);
/* The process has exec'd: drop every mapping and reread. */
int maps_exec(struct maps *m);
/* Free the mappings, and the modules if no other maps shares them. */
void maps_release(struct maps *m);

/* The mapping holding ADDR, or NULL.  Valid until the second refresh from
 * now: a reread in the middle of an unwind (maps_find_refresh) leaves the
 * mappings found before it valid, and there is at most one per epoch. */
const struct mapping *maps_find(const struct maps *m, uint64_t addr);
/* Like maps_find, but on a miss reread the maps, at most once per epoch, for
 * code loaded since the last read (dlopen). */
const struct mapping *maps_find_refresh(struct maps *m, uint64_t addr);
/* Like maps_find_refresh, for an address the thread executes (a PC, a
 * return address): a mapping found without execute permission is read
 * again as well, for it was read in the middle of the loader's work.  The
 * loader maps a library's whole span from its first page, read-only, then
 * each segment over it; maps read in between would call every later
 * return into its text "not code" until the next miss. */
const struct mapping *maps_find_code(struct maps *m, uint64_t addr);

/* The frame key of runtime address ADDR. */
uint64_t maps_frame_key(struct maps *m, uint64_t addr);

/* Open and map the module's file if not done yet.  0 or -errno. */
int module_open(struct maps *m, struct module *mod);
/* For a reader in another thread (the live view, --every's writer), whose
 * symbolizer must not see the table while the sampler adds to it: module
 * ID, opened, copied into a struct the reader owns.  The strings, image and
 * fd it points to stay M's and must outlive the copy.  NULL if ID is no
 * module. */
struct module *module_copy(struct maps *m, uint32_t id);
/* Put COPY in MT as module ID, freeing the copy it replaces. */
void modtab_put(struct modtab *mt, uint32_t id, struct module *copy);
/* Free the copies in MT (not what they point to). */
void modtab_free_copies(struct modtab *mt);

/* Module copies on their way from the sampling thread to such a reader:
 * each module staged once, as frames first name it, and taken over in a
 * batch, under the lock the two share. */
struct module_stage {
	bool *copied;                   /* by module id: staged already */
	size_t ncopied;
	struct staged_module {
		uint32_t id;
		struct module *copy;
	} *v;
	size_t n, cap;
};
/* Stage module ID of M, unless it was staged before (sampling thread). */
void module_stage(struct module_stage *ms, struct maps *m, uint32_t id);
/* Put the copies staged so far into MT (the reader's), in order. */
void module_stage_take(struct module_stage *ms, struct modtab *mt);
void module_stage_release(struct module_stage *ms);

/* Copy N bytes at ELF address VADDR from the module's file image.
 * 0, or -1 if they are not all in the file part of one PT_LOAD segment. */
int module_read(const struct module *mod, uint64_t vaddr, void *buf, size_t n);

/* Is ADDR in executable memory (a module's code, or anonymous executable
 * memory such as a JIT's)?  Rereads the maps on a miss or where they say
 * the memory is not executable (see maps_find_code), once per epoch. */
bool maps_is_code(struct maps *m, uint64_t addr);
/* The same for a frame record's return address, checked by a step without
 * CFI: rereads the maps on a miss only (JIT code just mapped), not for
 * each record whose word points into data. */
bool maps_may_be_code(struct maps *m, uint64_t addr);

/* Is ADDR in the first 64 bytes from its module's entry point: an
 * executable's _start, the outermost frame of its main thread? */
bool maps_is_entry_code(struct maps *m, uint64_t addr);

/* Does a call instruction end just before ADDR, as before a return
 * address?  Read from the module file, or from the process for code
 * outside any file. */
bool maps_after_call(struct maps *m, uint64_t addr);

/* Does a syscall instruction end just before ADDR?  Read from the module
 * file. */
bool maps_after_syscall(struct maps *m, uint64_t addr);

/* Is ADDR the rt_sigreturn trampoline (arch_sigreturn_code) that a signal
 * handler returns to?  Read from the module file. */
bool maps_is_sigreturn(struct maps *m, uint64_t addr);

static inline struct module *maps_module(const struct maps *m, uint32_t id)
{
	return id && id < m->mt->nmodules ? m->mt->modules[id] : NULL;
}

#endif
