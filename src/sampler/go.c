/* go.c - Go's stacks: a goroutine's stack apart from the system stack
 * that its vDSO calls and signal handlers run on, and Go's first frames.
 */
#include "internal.h"

/* Is ADDR, in mapping MP, code in Go's call of the vDSO, where another
 * register holds the frame's stack pointer (unwind_go_vdso_caller())?
 * EXACT: ADDR is a PC, not a return address.  Only a module whose symbols the unwinder has read
 * already, after a stop: read here, a large Go binary's would be tens of
 * milliseconds of the thread's stop. */
static bool go_vdso_call_in(struct target *tgt, const struct mapping *mp, uint64_t addr, bool exact)
{
	struct module *mod = mp && mp->exec ? maps_module(&tgt->maps, mp->module) : NULL;

	return mod && mod->go_top_read && unwind_go_vdso_caller(mod, (exact ? addr : addr - 1) - mp->bias);
}

/* The same, ADDR's mapping looked up. */
static bool in_go_vdso_call(struct target *tgt, uint64_t addr, bool exact)
{
	return go_vdso_call_in(tgt, maps_find(&tgt->maps, addr), addr, exact);
}

/* Go calls the vDSO on the thread's system stack, with the goroutine's
 * stack pointer in another register (regs_go_vdso_sp(),
 * unwind_go_vdso_caller()): a thread stopped there, in the vDSO or in the
 * Go function around the call, has its Go frames on another stack than
 * the one copied.  If so (for the vDSO, a return
 * address into such a call lies in the first words copied), and that
 * SP is outside the copy, the stack there is copied too (copy_stack2()).
 * Without it, a loop reading the clock (tests/targets/lang/clock.go) had
 * most of its stacks end at time.now or runtime.nanotime1, counted
 * failed (docs/DESIGN.md, "Unwinding without the usual CFI").  True if
 * it was copied. */
bool copy_go_stack(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp = maps_find(&tgt->maps, regs_pc(&c->regs));
	const struct module *mod = mp ? maps_module(&tgt->maps, mp->module) : NULL;
	uint64_t gsp = regs_go_vdso_sp(&c->regs), w, at;
	bool found;

	if (!mod || !gsp || (gsp >= c->sp && gsp - c->sp < c->stack_len))
		return false;
	found = go_vdso_call_in(tgt, mp, regs_pc(&c->regs), true);
	if (!found && mod->path && !strcmp(mod->path, "[vdso]"))
		for (at = regs_sp(&c->regs); !found && at < regs_sp(&c->regs) + VDSO_SCAN; at += sizeof(w)) {
			if (!capture_read(c, at, &w, sizeof(w)))
				break;
			found = in_go_vdso_call(tgt, w, false);
		}
	if (!found || !copy_stack2(sp, c, gsp))
		return false;
	sp->stats.go_vdso_copies++;
	return true;
}

/* Go runs a signal handler on a stack of its own (the thread's gsignal),
 * and the kernel's frame for it is at that stack's top, above the
 * handler's frames: runtime.sigreturn's address (where the handler
 * returns to), then the ucontext.  A stop in a handler (Go's preemption
 * signal, some thousands a second in a busy program; SIGPROF under Go's
 * own profiler) had the interrupted goroutine's frames on a stack not
 * copied, and its stack ended at runtime.sigreturn (docs/DESIGN.md,
 * "Signal handlers").  So in a Go module's code whose
 * runtime.sigreturn is known (its symbols read by the unwinder, outside
 * any stop), the first GO_SIGFRAME_SCAN bytes of the copy are looked
 * through for that address; where it is, and the interrupted SP is
 * outside the copy, the stack there is copied too (copy_stack2()).  The
 * unwinders step through the frame (unwind_sigframe_regs()).  True if
 * the code is Go's, looked through or not. */
bool copy_go_interrupted(struct sampler *sp, struct target *tgt, struct capture *c)
{
	const struct mapping *mp = maps_find(&tgt->maps, regs_pc(&c->regs));
	const struct module *mod = mp && mp->exec ? maps_module(&tgt->maps, mp->module) : NULL;
	uint64_t ret = unwind_go_sigreturn(mod), w;
	struct user_regs_struct r;
	size_t off, end;

	if (!ret)
		return false;
	if (c->stack2_len || regs_sp(&c->regs) < c->sp || regs_sp(&c->regs) - c->sp >= c->stack_len)
		return true;
	ret += mp->bias;
	off = (size_t)(regs_sp(&c->regs) - c->sp);
	for (end = scan_end(c, off, GO_SIGFRAME_SCAN); off + sizeof(w) <= end; off += sizeof(w)) {
		memcpy(&w, c->stack + off, sizeof(w));
		if (w != ret)
			continue;
		r = c->regs;
		if (!unwind_sigframe_regs(c, c->sp + off + sizeof(w), &r))
			break;
		c->go_sigframe = true;
		c->go_sigregs = r;
		if (!capture_read(c, regs_sp(&r), &w, sizeof(w)) && copy_stack2(sp, c, regs_sp(&r)))
			sp->stats.go_handler_copies++;
		break;
	}
	return true;
}

/* Is PC in one of Go's first frames of a stack (unwind_go_top_frame())? */
bool go_top(struct target *tgt, uint64_t pc)
{
	const struct mapping *mp = maps_find(&tgt->maps, pc);

	return mp && mp->exec && unwind_go_top_frame(maps_module(&tgt->maps, mp->module), pc - mp->bias);
}
