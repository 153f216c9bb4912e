/* arch.c - x86-64's instruction checks, and the signal frame's register
 * layout, which needs glibc's REG_* names (_GNU_SOURCE, which arch.h's
 * includers do not all define). */
#define _GNU_SOURCE
#include <string.h>
#include <sys/ucontext.h>

#include "arch.h"

void regs_from_gregs(struct user_regs_struct *r, const greg_t *g)
{
	r->r8 = (uint64_t)g[REG_R8];
	r->r9 = (uint64_t)g[REG_R9];
	r->r10 = (uint64_t)g[REG_R10];
	r->r11 = (uint64_t)g[REG_R11];
	r->r12 = (uint64_t)g[REG_R12];
	r->r13 = (uint64_t)g[REG_R13];
	r->r14 = (uint64_t)g[REG_R14];
	r->r15 = (uint64_t)g[REG_R15];
	r->rdi = (uint64_t)g[REG_RDI];
	r->rsi = (uint64_t)g[REG_RSI];
	r->rbp = (uint64_t)g[REG_RBP];
	r->rbx = (uint64_t)g[REG_RBX];
	r->rdx = (uint64_t)g[REG_RDX];
	r->rax = (uint64_t)g[REG_RAX];
	r->rcx = (uint64_t)g[REG_RCX];
	r->rsp = (uint64_t)g[REG_RSP];
	r->rip = (uint64_t)g[REG_RIP];
	r->eflags = (uint64_t)g[REG_EFL];
	r->orig_rax = (unsigned long long)-1;
}

const unsigned char arch_sigreturn_code[ARCH_SIGRETURN_LEN] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,       /* mov $15,%rax */
	0x0f, 0x05,                                     /* syscall */
};

const unsigned char arch_syscall_code[ARCH_SYSCALL_LEN] = { 0x0f, 0x05 };

/* Are the N bytes at AT of CODE, which ends at END, BYTES? */
static bool code_is(const unsigned char *code, size_t at, size_t end, const char *bytes, size_t n)
{
	return at <= end && end - at >= n && !memcmp(code + at, bytes, n);
}

/* The length of the indirect call (ff /2) at P, AVAIL bytes, or 0. */
static unsigned indirect_call_len(const unsigned char *p, unsigned avail)
{
	unsigned modrm, mod, rm, n = 2;

	if (avail < 2 || p[0] != 0xff || ((p[1] >> 3) & 7) != 2)
		return 0;
	modrm = p[1];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod != 3 && rm == 4) {                      /* a SIB byte */
		if (avail < 3)
			return 0;
		n++;
		if (mod == 0 && (p[2] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)                        /* RIP-relative */
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

bool arch_call_ends(const unsigned char code[ARCH_CALL_WINDOW])
{
	unsigned len;

	if (code[ARCH_CALL_WINDOW - 5] == 0xe8)         /* call rel32 */
		return true;
	for (len = 2; len <= ARCH_CALL_WINDOW; len++) {
		const unsigned char *p = code + ARCH_CALL_WINDOW - len;

		if (indirect_call_len(p, len) == len)
			return true;
		if (p[0] >= 0x40 && p[0] <= 0x4f && indirect_call_len(p + 1, len - 1) == len - 1)
			return true;                    /* with a REX prefix */
	}
	return false;
}

/* glibc's crti.o: sub $8,%rsp ... add $8,%rsp; ret; musl's push %rax ...
 * pop %rax; ret; either after an optional endbr64. */
bool arch_crt_shape(const unsigned char *code, size_t n, size_t *body)
{
	static const char endbr64[] = "\xf3\x0f\x1e\xfa", sub8[] = "\x48\x83\xec\x08",
			  add8_ret[] = "\x48\x83\xc4\x08\xc3", pop_ret[] = "\x58\xc3";
	size_t p = 0;

	if (code_is(code, p, n, endbr64, 4))
		p += 4;
	if (code_is(code, p, n, sub8, 4) && n >= p + 4 + 5 && code_is(code, n - 5, n, add8_ret, 5))
		p += 4;
	else if (code_is(code, p, n, "\x50", 1) && n >= p + 1 + 2 && code_is(code, n - 2, n, pop_ret, 2))
		p += 1;
	else
		return false;
	*body = p;
	return true;
}

/* Go's MOVQ SP, R12 (mov %rsp,%r12) and MOVQ R12, SP (mov %r12,%rsp),
 * after the prologue and before the epilogue (runtime/sys_linux_amd64.s,
 * runtime/time_linux_amd64.s). */
bool arch_go_sp_kept(const unsigned char *code, size_t n, size_t range[2])
{
	static const char save[] = "\x49\x89\xe4", restore[] = "\x4c\x89\xe4";
	size_t i, from = 0;

	for (i = 0; i < n && !from; i++)
		if (code_is(code, i, n, save, 3))
			from = i + 3;
	for (i = from; from && i < n; i++)
		if (code_is(code, i, n, restore, 3)) {
			range[0] = from;
			range[1] = i + 3;
			return true;
		}
	return false;
}
