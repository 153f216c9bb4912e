/* chain.c - a ring's tick's frames from the kernel's frame-pointer chain
 * of that moment, where the stack copied later no longer holds them.
 */
#include "internal.h"

/* Is PC in the vDSO's code? */
static bool in_vdso(struct target *tgt, uint64_t pc)
{
	const struct mapping *mp = maps_find(&tgt->maps, pc);
	const struct module *mod = mp ? maps_module(&tgt->maps, mp->module) : NULL;

	return mod && mod->path && !strcmp(mod->path, "[vdso]");
}

/* The kernel's frame-pointer chain of C's tick from its entry FROM on,
 * as return addresses less one (as a walk leaves them), after the first
 * K frames of PCS: *N becomes their count, at most MAX. */
static void append_chain(const struct capture *c, unsigned from, uint64_t *pcs, unsigned k, unsigned *n,
			 unsigned max)
{
	for (; from < c->nchain && k < max; from++)
		pcs[k++] = c->chain[from] - 1;
	*n = k;
}

/* A ring's tick in Go's call of the vDSO (C's chain, capture.h): the
 * walk's frames up to the first Go one (the vDSO's, and the Go function
 * that called it: read from the system stack the tick copied) are right;
 * those above it came from the goroutine's stack read later, after the
 * thread ran on, often with time.now's frame already gone
 * (docs/DESIGN.md, "Rings: samples without a stop").  They are taken
 * from the chain the kernel read
 * by frame pointer at the tick instead, which Go keeps: after that Go
 * frame's return address in it, or, where the vDSO had not yet pushed a
 * frame pointer of its own and the chain skips that frame, after the
 * vDSO's addresses.  The N frames in PCS (return addresses less one, as
 * the walk leaves them) become at most MAX.  True if any were taken. */
bool splice_chain(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max)
{
	unsigned g = 0, j, from = 0;

	while (g < *n && in_vdso(tgt, pcs[g]))
		g++;
	if (g < *n)
		for (j = 1; j < c->nchain && !from; j++)
			if (c->chain[j] - (g ? 1 : 0) == pcs[g])
				from = j + 1;
	if (!from)
		for (from = 1; from < c->nchain && in_vdso(tgt, c->chain[from]); from++)
			;
	if (from >= c->nchain)
		return false;
	append_chain(c, from, pcs, g < *n ? g + 1 : *n, n, max);
	return true;
}

/* A ring's tick in a Go signal handler on its own stack, at its first
 * instruction, or in a sigreturn trampoline (C's go_sigframe): the
 * walk's frames up to the code the signal interrupted are right, those
 * after its PC came from its stack read later.  They are taken from the
 * chain the kernel read by frame pointer at the tick instead.  That
 * chain goes from the handler's frames (if it has set one up) to the
 * interrupted frame pointer's, and holds the interrupted function's
 * return address only if its frame was set up (the frame pointer 16
 * bytes under its CFA, as Go keeps it): where it was not (a leaf without
 * a frame, or in its prologue), the return address at the CFA, read
 * late, is taken if its caller's CFA is where the frame pointer says,
 * and the chain goes on after it.  Else the walk is left as it was.
 * True if spliced. */
bool splice_signal(struct sampler *sp, struct target *tgt, const struct capture *c, uint64_t *pcs,
			  unsigned *n, unsigned max)
{
	const struct user_regs_struct *r = &c->go_sigregs;
	unsigned k, i, j, from = 0;
	int64_t off, off2;
	uint64_t cfa, ra;

	/* Taken where a handler starts (c->at_handler), the walk starts
	 * at the interrupted code. */
	for (k = c->at_handler ? 0 : 1; k < *n && pcs[k] != regs_pc(r); k++)
		;
	if (k >= *n)
		return false;
	/* The chain's entry for the kernel's frame (the trampoline's
	 * address, exact in the walk), or the last one before it. */
	for (i = k ? k - 1 : 0; i > 0 && !from; i--)
		for (j = 1; j < c->nchain; j++)
			if (c->chain[j] - (i == k - 1 ? 0 : 1) == pcs[i]) {
				from = j + 1;
				break;
			}
	/* None where the handler has not yet set up a frame: its frame
	 * pointer is still the interrupted one, where the chain starts. */
	if (!from && regs_fp(&c->regs) == regs_fp(r))
		from = 1;
	if (!from || from >= c->nchain || !maps_is_code(&tgt->maps, c->chain[from]) ||
	    !sp->unwinder->sp_cfa(tgt->unwind_state, regs_pc(r), true, &off))
		return false;
	cfa = regs_sp(r) + (uint64_t)off;
	k++;
	if (regs_fp(r) != cfa - 16) {
		if (!capture_read(c, cfa - sizeof(ra), &ra, sizeof(ra)) || !maps_is_code(&tgt->maps, ra) ||
		    !sp->unwinder->sp_cfa(tgt->unwind_state, ra, false, &off2) ||
		    regs_fp(r) != cfa + (uint64_t)off2 - 16)
			return false;
		if (k < max)
			pcs[k++] = ra - 1;
	}
	append_chain(c, from, pcs, k, n, max);
	return true;
}

/* A ring's tick whose walk ran past the 16 KiB its stack copy holds: the
 * frames beyond, where the kernel's frame-pointer chain of the tick has
 * the walk's last return address (code that keeps frame pointers, as
 * Go's does: a chain without them has no such entry).  The N frames in
 * PCS become at most MAX.  True if any were added. */
bool chain_on(struct target *tgt, const struct capture *c, uint64_t *pcs, unsigned *n, unsigned max)
{
	unsigned j;

	if (*n < 2)
		return false;
	for (j = 1; j < c->nchain; j++)
		if (c->chain[j] - 1 == pcs[*n - 1])
			break;
	if (j + 1 >= c->nchain || !maps_is_code(&tgt->maps, c->chain[j + 1]))
		return false;
	append_chain(c, j + 1, pcs, *n, n, max);
	return true;
}
