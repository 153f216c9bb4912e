/* report.c - the terminal report, in the lineage of Plan 9's tprof: a
 * header with the totals, one row per function with self and cumulative
 * time, and a line that says what was lost; with -v, the sampler's own
 * figures.  Its interface is in writer.h. */
#include "writer.h"
#include "sampler.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Signals a second from which the report says what they cost: each is
 * ~60 us more of the thread's time traced than not (bench/sigping.c),
 * so a hundred a second slow a thread by ~0.6%. */
#define SIGNALS_NOTE_RATE 100.0

static long long to_ms(uint64_t ns)
{
	return (long long)((ns + 500000) / 1000000);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void report_lost_line(const struct run_info *ri, char *buf, size_t size)
{
	const struct sampler_stats *st = ri->stats;
	size_t n;

	if (!st->missed && !ri->lost && !st->unwind_failed && !st->unwind_truncated)
		snprintf(buf, size, "no ticks missed, no samples lost, no unwind failed or truncated");
	else
		snprintf(buf, size, "lost: %" PRIu64 " %s missed, %lu %s lost, %" PRIu64 " %s failed, %" PRIu64 " truncated%s",
			 st->missed, plural(st->missed, "tick", "ticks"),
			 ri->lost, plural(ri->lost, "sample", "samples"),
			 st->unwind_failed, plural(st->unwind_failed, "unwind", "unwinds"),
			 st->unwind_truncated,
			 st->unwind_truncated ? " (see --stack-size and --max-frames)" : "");
	/* Samples asked for while their thread ran land where it next left
	 * the kernel: say so when they are not the exception. */
	n = strlen(buf);
	if (st->unheld * 10 > st->preempted + st->unheld + st->quiet && n < size)
		snprintf(buf + n, size - n, "; %" PRIu64 " of %" PRIu64 " stops asked for while the thread ran%s: they land where it next left the kernel",
			 st->unheld, st->preempted + st->unheld + st->quiet,
			 st->realtime ? "" : " (no real-time priority)");
}

/* The fallback that gives a wrong table: stops asked of running threads
 * with no helper to take their CPUs first.  They land where a thread next
 * leaves the kernel, not where it was at the tick. */
static bool plain_stops(const struct run_info *ri)
{
	const struct sampler_stats *st = ri->stats;

	return st->trigger == TRIGGER_TIMER && !ri->wall && st->unheld * 10 > st->preempted + st->unheld + st->quiet;
}
#define PLAIN_WARNING "this profile's stops land where each thread next left the kernel, not where it ran: code that enters the kernel often is over-counted. " \
	"The kernel-timed trigger (--trigger=perf) or a real-time priority (root) puts them where it ran; where perf events are refused, " \
	"give ctprof CAP_PERFMON (setcap cap_perfmon=ep) or set kernel.perf_event_paranoid to 2 (see ctprof(1), Permissions)"

static void trigger_line(FILE *f, const struct run_info *ri)
{
	const struct sampler_stats *st = ri->stats;

	if (st->trigger == TRIGGER_PERF) {
		fprintf(f, "trigger: perf: task-clock events on %lu threads (%lu into rings, no stops; %lu by SIGWINCH, %lu by SIGURG), %lu threads that block both by the timer, %lu events refused; %" PRIu64 " samples from rings; %" PRIu64 " samples from stops, %" PRIu64 " of them late (where the thread unblocked the signal); %lu threads kept a signal pending at the end; %.2f s of CPU time in the kernel ([kernel] rows)\n",
			st->timed_threads, st->ring_threads, st->timed_by[0], st->timed_by[1], st->untimed_threads,
			st->events_failed, st->ring_samples, st->timed_samples, st->timed_late, st->stray_left,
			(double)st->kernel_row_ns / 1e9);
		if (st->kernel_rings)
			fprintf(f, "trigger: kernel-mode ticks into rings: %" PRIu64 " samples, %" PRIu64 " more in ctprof's own stops (signal delivery, ptrace events; not counted), %" PRIu64 " lost to a full ring, %lu threads given no ring (more than %d, or no room)\n",
				st->kernel_samples, st->kernel_in_stops, st->ring_lost, st->rings_refused, KTRIGGER_RINGS_MAX);
		else
			fprintf(f, "trigger: kernel-mode ticks not sampled (perf_event_paranoid above 1, no CAP_PERFMON): the rest of each thread's CPU time is its [kernel] row; %" PRIu64 " samples lost to a full ring, %lu threads given no ring (more than %d, or no room in locked memory)\n",
				st->ring_lost, st->rings_refused, KTRIGGER_RINGS_MAX);
		return;
	}
	fprintf(f, "trigger: timer (%s)%s%s\n",
		ri->wall ? "--wall" : st->realtime ? "helpers at real-time priority" : "plain stops: no real-time priority",
		st->perf_error ? "; perf events refused: " : "", st->perf_error ? strerror(st->perf_error) : "");
}

static void verbose_lines(FILE *f, const struct run_info *ri)
{
	const struct sampler_stats *st = ri->stats;
	uint64_t ns = st->samples ? st->samples : 1;

	trigger_line(f, ri);

	fprintf(f, "profiler: %" PRIu64 " ticks, %" PRIu64 " samples, %zu distinct stacks, %zu threads seen, %" PRIu64 " ticks missed\n",
		st->ticks, st->samples, ri->distinct_stacks, ri->threads_seen, st->missed);
	if (ri->wall)
		fprintf(f, "profiler: wall-clock: %" PRIu64 " stops of blocked threads, %" PRIu64 " samples of blocked threads counted without a stop, %" PRIu64 " wait sites read; %" PRIu64 " stacks of blocked threads taken without a stop (%" PRIu64 " that could not be walked so), %" PRIu64 " ticks of blocked threads left alone in a write that a stop would end short, or waking in one (counted in their next samples); %" PRIu64 " writes ended short at stops of blocked threads; %" PRIu64 " stops of threads that woke up as their wait was read\n",
			st->blocked_stops, st->reused, st->site_reads, st->peeks, st->peeks_failed, st->wall_uncut, st->short_blocked,
			st->woke_stops);
	fprintf(f, "profiler: %" PRIu64 " samples asked for with the thread off its CPU (%u helpers), %" PRIu64 " while it ran in code seen not to enter the kernel, %" PRIu64 " while it ran otherwise, %" PRIu64 " put off to the next tick (its CPU not held); %" PRIu64 " probe stops of whether it does, %" PRIu64 " times it was found to after all\n",
		st->preempted, st->helpers, st->quiet, st->unheld, st->put_off, st->probes, st->loud);
	fprintf(f, "profiler: mean lead %.1f us, helpers' mean delay %.1f us, %" PRIu64 " holds given up before the stops were asked for, %" PRIu64 " held stops that found the thread running elsewhere (not counted); %" PRIu64 " runnable threads not stopped (not running at the tick), %" PRIu64 " stops found the thread blocked (not counted), %" PRIu64 " samples of threads that woke up just before the tick, %" PRIu64 " of threads that went to sleep just after it (%" PRIu64 " not counted: they went later, or long before their CPU was taken; %" PRIu64 " left asleep in a write that a stop would end short); %" PRIu64 " reads of idle threads left out (a thread of the target found on every CPU)\n",
		st->ticks ? (double)st->lead_ns / 1e3 / (double)st->ticks : 0.0,
		st->ticks ? (double)st->delay_ns / 1e3 / (double)st->ticks : 0.0, st->gave_up, st->not_held, st->not_run,
		st->blocked_at_tick, st->late, st->slept, st->slept_late, st->slept_short, st->idle_unread);
	fprintf(f, "profiler: target stopped per sample: median %.1f us, mean %.1f us, p99 %.1f us; %" PRIu64 " ticks run through by a thread whose stop was late (counted in its sample)\n",
		sampler_stall_percentile(st, 50), (double)st->stall_ns / 1e3 / (double)ns,
		sampler_stall_percentile(st, 99), st->late_ticks);
	fprintf(f, "profiler: own CPU time: %.1f ms, %.1f us per sample\n",
		(double)st->cpu_ns / 1e6, (double)st->cpu_ns / 1e3 / (double)ns);
	fprintf(f, "profiler: %" PRIu64 " stops ctprof did not ask for (the target's signals, clones, execs, exits), %.1f ms, %.1f us each\n",
		st->other_stops, (double)st->part_ns.other / 1e6,
		st->other_stops ? (double)st->part_ns.other / 1e3 / (double)st->other_stops : 0.0);
	fprintf(f, "profiler: throttle: %" PRIu64 " of %" PRIu64 " ticks left out; ctprof's CPU time from a tick taken to the next, less those stops: mean %.1f us\n",
		st->throttled, st->ticks,
		st->taken ? (double)st->taken_cpu_ns / 1e3 / (double)st->taken : 0.0);
	{
		const typeof(st->part_ns) *p = &st->part_ns;
		uint64_t parts = p->choose + p->holds + p->late + p->interrupt + p->letgo + p->wait_spin +
				 p->regs + p->copy + p->resume + st->unwind_ns + p->intern + p->settle + p->other;
		double d = 1e3 * (double)ns;

		fprintf(f, "profiler: per sample, us: sampler %.1f = choosing %.1f + holds %.1f + reading at the tick %.1f + interrupts %.1f + letting go %.1f + spinning for stops %.1f + registers %.1f + stack copy %.1f + resume %.1f + unwinding %.1f + interning %.1f + settling %.1f + stops not asked for %.1f + the rest %.1f; asleep until the tick %.1f, for stops %.1f; helpers %.1f\n",
			(double)p->sampler_cpu / d, (double)p->choose / d, (double)p->holds / d,
			(double)p->late / d, (double)p->interrupt / d, (double)p->letgo / d,
			(double)p->wait_spin / d, (double)p->regs / d, (double)p->copy / d,
			(double)p->resume / d, (double)st->unwind_ns / d, (double)p->intern / d,
			(double)p->settle / d, (double)p->other / d,
			((double)p->sampler_cpu - (double)parts) / d, (double)p->tick_sleep / d,
			(double)p->wait_sleep / d,
			(double)p->helpers_cpu / d);
	}
	fprintf(f, "profiler: unwind (%s): mean %.1f us per sample, mean %.1f frames; %" PRIu64 " complete, %" PRIu64 " truncated, %" PRIu64 " failed; %" PRIu64 " frames stepped by frame pointer (code without CFI); %" PRIu64 " stops at a signal handler's first instruction taken where the signal came; %" PRIu64 " in a sigreturn trampoline, unwound through its signal frame; %" PRIu64 " in a Go signal handler with the interrupted stack copied too; %" PRIu64 " in another handler on a stack of its own, the same; %" PRIu64 " in the vDSO under Go with the goroutine's stack copied too; %" PRIu64 " ring ticks in Go's vDSO call and %" PRIu64 " in its signal handler with the frames on the other stack from the kernel's call chain; %" PRIu64 " walks past a ring's stack copy gone on by it\n",
		ri->unwinder, (double)st->unwind_ns / 1e3 / (double)ns, (double)st->frames / (double)ns,
		st->unwind_complete, st->unwind_truncated, st->unwind_failed, st->fp_frames, st->handler_entries,
		st->sigreturn_stops, st->go_handler_copies, st->alt_handler_copies, st->go_vdso_copies,
		st->spliced[0], st->spliced[1], st->chained);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(f, "profiler: fds open: %d before sampling, %d after detaching; RSS %ld KiB when sampling ended (heap in use %ld KiB, %ld KiB of it the call chains and thread names, %ld KiB the buffers of stack copies), peak %ld KiB\n",
			st->fds_before, ri->fds_after, st->rss_kib, st->heap_kib, st->stacks_kib, st->copies_kib,
			ru.ru_maxrss);
	}
	fprintf(f, "profiler: priority: %s; maps read %lu times, %zu modules\n",
		st->realtime ? "SCHED_FIFO" : st->trigger == TRIGGER_PERF ? "normal (the kernel times the samples)" :
		"normal (no real-time priority: samples may come late on a busy machine)",
		ri->maps->refreshes, ri->maps->mt->nmodules - 1);
}

void report_location(char *buf, size_t size, const char *file, int line)
{
	if (file && line)
		snprintf(buf, size, "%s:%d", base_name(file), line);
	else if (file)
		snprintf(buf, size, "%s", base_name(file));
	else
		snprintf(buf, size, "?");
}

/* The rows of FL, at most OO->top; by function, or by source line. */
static void table(FILE *f, const struct profile *p, const struct flat *fl, uint64_t total,
		  const struct output_opts *oo)
{
	size_t i, n = oo->top && oo->top < fl->n ? oo->top : fl->n;
	double t = total ? (double)total : 1;

	if (!fl->n)
		return;
	if (oo->lines)
		fprintf(f, "%9s %7s %8s %7s  %-24s  %-24s %s\n",
			"self", "self%", "cum", "cum%", "location", "function", "module");
	else
		fprintf(f, "%9s %7s %8s %7s  %-24s  %-14s %s\n",
			"self", "self%", "cum", "cum%", "function", "location", "module");
	for (i = 0; i < n; i++) {
		const struct flat_row *r = &fl->rows[i];
		const struct pfunc *fn = &p->funcs[r->func];
		const char *module = profile_func_module(p, r->func);
		char loc[256];

		fprintf(f, "%7lldms %6.1f%% %7lldms %6.1f%%  ",
			to_ms(r->self), 100.0 * (double)r->self / t,
			to_ms(r->cum), 100.0 * (double)r->cum / t);
		if (oo->lines) {
			report_location(loc, sizeof(loc), fn->file, r->line);
			fprintf(f, "%-24s  %-24s [%s]\n", loc, func_name(fn, oo), module);
		} else {
			report_location(loc, sizeof(loc), fn->file, fn->line);
			fprintf(f, "%-24s  %-14s [%s]\n", func_name(fn, oo), loc, module);
		}
	}
	if (n < fl->n)
		fprintf(f, "(%zu more rows; see --top)\n", fl->n - n);
}

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = *(const struct edge *const *)a, *y = *(const struct edge *const *)b;

	return (x->count < y->count) - (x->count > y->count);
}

/* For each of the top functions, who called it and what it called, with
 * the share of its cumulative time that each accounts for. */
static void callgraph(FILE *f, const struct profile *p, const struct flat *fl, uint64_t total,
		      const struct output_opts *oo)
{
	size_t top = oo->top ? oo->top : 10, i, j;
	struct callgraph cg;
	const struct edge **sel;
	struct flat byfunc;

	profile_flat(p, 0, PROFILE_ALL_TIDS, SORT_CUM, false, &byfunc);
	profile_callgraph(p, 0, &cg);
	sel = xcalloc(cg.n + 1, sizeof(*sel));
	fprintf(f, "\ncall graph: the %zu functions with the most cumulative time\n",
		top < byfunc.n ? top : byfunc.n);
	for (i = 0; i < byfunc.n && i < top; i++) {
		const struct flat_row *r = &byfunc.rows[i];
		double cum = r->cum ? (double)r->cum : 1;
		size_t n;
		int pass;

		fprintf(f, "\n%s  [%s]  cum %lldms %.1f%%, self %lldms %.1f%%\n",
			func_name(&p->funcs[r->func], oo), profile_map_name(p, p->funcs[r->func].mapping),
			to_ms(r->cum), 100.0 * (double)r->cum / (double)(total ? total : 1),
			to_ms(r->self), 100.0 * (double)r->self / (double)(total ? total : 1));
		for (pass = 0; pass < 2; pass++) {
			for (j = 0, n = 0; j < cg.n; j++)
				if ((pass == 0 ? cg.edges[j].callee : cg.edges[j].caller) == r->func)
					sel[n++] = &cg.edges[j];
			qsort(sel, n, sizeof(*sel), edge_cmp);
			fprintf(f, "    %s\n", pass == 0 ? (n ? "called from:" : "called from: (the root of its stacks)")
						 : (n ? "calls:" : "calls: (nothing: it is a leaf)"));
			for (j = 0; j < n; j++) {
				const struct pfunc *other = &p->funcs[pass == 0 ? sel[j]->caller : sel[j]->callee];

				fprintf(f, "    %7lldms %6.1f%%  %s\n", to_ms(sel[j]->count),
					100.0 * (double)sel[j]->count / cum, func_name(other, oo));
			}
		}
	}
	free(sel);
	callgraph_release(&cg);
	flat_release(&byfunc);
	(void)fl;
}

/* The table of one process's samples, or with BY_THREAD one thread's, under
 * a line that says whose (naming the process of a thread if WITH_PROCESS). */
static void group_table(FILE *f, const struct profile *p, const struct pgroup *g, bool by_thread,
			bool with_process, uint64_t total, const struct output_opts *oo)
{
	const char *pname = profile_process_name(p, g->pid);
	struct flat gf;

	if (by_thread) {
		const char *name = profile_thread_name(p, g->tid);

		fprintf(f, "\nthread %d (%s)", g->tid, name ? name : "?");
		if (with_process)
			fprintf(f, " of process %d (%s)", g->pid, pname ? pname : "?");
	} else {
		fprintf(f, "\nprocess %d (%s)", g->pid, pname ? pname : "?");
	}
	/* Thread 0 is no thread: the CPU time of threads that exited with
	 * no sample since it was last read, which has no sample of its own. */
	if (by_thread && g->tid == 0 && !g->count)
		fprintf(f, ": %.1f%% of all, CPU time of threads after their last sample, charged as they exited\n",
			100.0 * (double)g->ns / (double)(total ? total : 1));
	else
		fprintf(f, ": %" PRIu64 " %s, %.1f%% of all\n", g->count,
			plural(g->count, "sample", "samples"),
			100.0 * (double)g->ns / (double)(total ? total : 1));
	profile_flat(p, g->pid, g->tid, oo->sort, oo->lines, &gf);
	table(f, p, &gf, total, oo);
	flat_release(&gf);
}

static size_t distinct_threads(const struct profile *p)
{
	size_t i, j, n = 0;

	for (i = 0; i < p->nsamples; i++) {
		for (j = 0; j < i && p->samples[j].tid != p->samples[i].tid; j++)
			;
		if (j == i)
			n++;
	}
	return n;
}

/* The notes of what the run did that the tables do not show, to F. */
static void write_notes(FILE *f, const struct profile *p, const struct run_info *ri)
{
	/* JIT code is named only from the map its runtime writes; a
	 * map read that lacks some of it was written before that
	 * code (jcmd's is a snapshot). */
	if (ri->anon_unnamed && ri->perf_map != PERF_MAP_READ)
		fprintf(f, "note: %" PRIu64 " %s in anonymous executable memory (JIT code) %s no name: /tmp/perf-%d.map %s; node writes it with --perf-basic-prof, Java with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit as it exits or on 'jcmd %d Compiler.perfmap' while ctprof runs\n",
			ri->anon_unnamed, plural(ri->anon_unnamed, "address", "addresses"),
			plural(ri->anon_unnamed, "has", "have"), (int)p->pid,
			ri->perf_map == PERF_MAP_STALE
				? "is older than the process (left by another that had its pid), not read"
				: "does not exist",
			(int)p->pid);
	else if (ri->anon_unnamed)
		fprintf(f, "note: %" PRIu64 " %s in anonymous executable memory (JIT code) %s not in /tmp/perf-%d.map, written before that code was compiled; a JVM's map from 'jcmd %d Compiler.perfmap' holds only what was compiled then: run it again later in the run\n",
			ri->anon_unnamed, plural(ri->anon_unnamed, "address", "addresses"),
			plural(ri->anon_unnamed, "is", "are"), (int)p->pid, (int)p->pid);
	if (ri->stats->fds_short) {
		struct rlimit rl;
		char lim[48] = "";

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(lim, sizeof(lim), " (limit %llu)", (unsigned long long)rl.rlim_cur);
		fprintf(f, "note: ctprof ran out of file descriptors%s: %" PRIu64 " %s of threads' /proc files failed or were put off, and those threads were sampled less well (--wall counts a blocked one where it was last stopped, for up to a second); raise the hard limit (ulimit -Hn, or LimitNOFILE= for a service) and run again\n",
			lim, ri->stats->fds_short, plural(ri->stats->fds_short, "open", "opens"));
	}
	if (ri->stats->throttled) {
		const struct sampler_stats *st = ri->stats;

		fprintf(f, "note: ctprof left out %" PRIu64 " of %" PRIu64 " ticks (%.0f%%): its CPU time sampling from one tick to the next (%.0f us, mean) was more than a quarter of the %.0f us between them, time it keeps from the target; samples weigh the CPU time since the thread's last one, so the shares hold, from fewer samples: a lower -F takes every tick\n",
			st->throttled, st->ticks, 100.0 * (double)st->throttled / (double)(st->ticks ? st->ticks : 1),
			st->taken ? (double)st->taken_cpu_ns / 1e3 / (double)st->taken : 0.0, 1e6 / p->frequency);
	}
	/* Under ptrace every signal stops its thread until ctprof
	 * passes it on: a target that signals itself often runs
	 * slower traced, whatever the rate. */
	if (ri->stats->signals && ri->stats->wall_ns &&
	    (double)ri->stats->signals * 1e9 / (double)ri->stats->wall_ns >= SIGNALS_NOTE_RATE) {
		const struct sampler_stats *st = ri->stats;

		fprintf(f, "note: the target took %" PRIu64 " signals (%.0f a second): under ptrace each one stops its thread until ctprof wakes up and passes it on, at any -F (%.0f us of ctprof's time each here); a program that signals itself this often (Go's preemption of goroutines, a timer or a profiler of its own) runs slower while profiled\n",
			st->signals, (double)st->signals * 1e9 / (double)st->wall_ns,
			st->other_stops ? (double)st->part_ns.other / 1e3 / (double)st->other_stops : 0.0);
	}
	/* The perf trigger could not time every thread. */
	if (ri->stats->trigger == TRIGGER_PERF && ri->stats->untimed_threads) {
		const struct sampler_stats *st = ri->stats;

		fprintf(f, "note: %lu %s sampled by the timer, not by an event of %s own: %s blocked both SIGWINCH and SIGURG, the signals an event stops a thread with",
			st->untimed_threads, plural(st->untimed_threads, "thread was", "threads were"),
			plural(st->untimed_threads, "its", "their"), plural(st->untimed_threads, "it", "they"));
		if (st->events_failed)
			fprintf(f, ", or perf_event_open refused (%lu %s)", st->events_failed,
				plural(st->events_failed, "time", "times"));
		fprintf(f, "; their stops were asked for while they ran and land where they next left the kernel\n");
	}
	/* What a stop did to the target that cannot be helped. */
	if (ri->stats->short_writes)
		fprintf(f, "note: %" PRIu64 " %s of the target to a blocking pipe or socket came back short at ctprof's stops: a stop, as a signal does, ends a write that waits for room with the part written; a program that does not write the rest itself loses it\n",
			ri->stats->short_writes, plural(ri->stats->short_writes, "write", "writes"));
}

const char *report_header(const struct run_info *ri)
{
	return plain_stops(ri) ? "warning: " PLAIN_WARNING : NULL;
}

char *report_footer(const struct profile *p, const struct run_info *ri)
{
	char lost[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_lost_line(ri, lost, sizeof(lost));
	if (!f)
		return xstrdup(lost);
	fprintf(f, "%s\n", lost);
	write_notes(f, p, ri);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return xstrdup(lost);
	}
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

int report_write(FILE *f, const struct profile *p, const struct run_info *ri,
		 const struct output_opts *oo)
{
	static const struct output_opts defaults;
	struct flat fl;
	size_t i, threads = ri ? ri->threads_seen : p->threads_seen ? p->threads_seen : p->nthreads;
	struct pgroup *procs, *threads_of;
	size_t nprocs, nt;
	const char *head;
	bool by_proc;

	if (!oo)
		oo = &defaults;
	profile_flat(p, 0, PROFILE_ALL_TIDS, oo->sort, oo->lines, &fl);
	nprocs = profile_groups(p, false, &procs);
	/* Forks followed: tables by process where the samples are of more
	 * than one, or of a child alone (a shell that waited for it); not
	 * where they do not say their process (pid 0). */
	by_proc = nprocs > 1 || (nprocs == 1 && p->pid && procs[0].pid && procs[0].pid != p->pid);
	if (!threads)
		threads = distinct_threads(p);
	head = ri ? report_header(ri) : p->header;
	if (head)
		fprintf(f, "%s\n", head);
	fprintf(f, "total: %" PRIu64 " %s, %.2f s of %s at %u Hz, %zu %s",
		fl.samples, plural(fl.samples, "sample", "samples"),
		(double)fl.total / 1e9, p->wall ? "thread time" : "CPU", p->frequency,
		threads, plural(threads, "thread", "threads"));
	/* A profile from elsewhere may not say which process it was. */
	if (p->pid)
		fprintf(f, ", pid %d (%s)", p->pid, p->comm ? p->comm : "?");
	if (by_proc)
		fprintf(f, " and its children: %zu %s", nprocs, plural(nprocs, "process", "processes"));
	fputc('\n', f);
	if (p->wall) {
		fprintf(f, "wall-clock profile over %.2f s: every thread at every tick; percentages are of all %" PRIu64 " samples\n",
			(double)p->duration_ns / 1e9, fl.samples);
		fprintf(f, "running %.1f%%, waiting in system calls %.1f%%\n",
			100.0 * (double)(fl.total - fl.waiting) / (double)(fl.total ? fl.total : 1),
			100.0 * (double)fl.waiting / (double)(fl.total ? fl.total : 1));
	} else if (p->timed_ns && p->kernel_sampled) {
		fprintf(f, "on-CPU profile over %.2f s, timed by the kernel: a sample every %.3f ms of a thread's CPU, in the kernel as [kernel] under the function that entered it; percentages are of the CPU time\n",
			(double)p->duration_ns / 1e9, (double)p->timed_ns / 1e6);
	} else if (p->timed_ns) {
		fprintf(f, "on-CPU profile over %.2f s, timed by the kernel: a sample every %.3f ms of a thread's CPU in user mode, the rest of its CPU time as [kernel] (%.2f s); percentages are of the CPU time\n",
			(double)p->duration_ns / 1e9, (double)p->timed_ns / 1e6, (double)p->kernel_row_ns / 1e9);
	} else if (p->cputime) {
		fprintf(f, "on-CPU profile over %.2f s, samples weighted by CPU time: %.2f s in samples, %.2f s by %u Hz sampling",
			(double)p->duration_ns / 1e9, (double)fl.total / 1e9,
			(double)fl.samples / p->frequency, p->frequency);
		if (p->kernel_cpu_ns)
			fprintf(f, ", %.2f s accounted by the kernel", (double)p->kernel_cpu_ns / 1e9);
		fprintf(f, "; percentages are of the CPU time in samples\n");
	} else {
		fprintf(f, "on-CPU profile over %.2f s; percentages are of all %" PRIu64 " samples\n",
			(double)p->duration_ns / 1e9, fl.samples);
	}
	if (!oo->per_thread) {
		table(f, p, &fl, fl.total, oo);
		/* Forks followed: the same, process by process. */
		for (i = 0; by_proc && i < nprocs; i++)
			group_table(f, p, &procs[i], false, false, fl.total, oo);
	} else {
		/* Threads by their time, most first. */
		nt = profile_groups(p, true, &threads_of);
		for (i = 0; i < nt; i++)
			group_table(f, p, &threads_of[i], true, by_proc, fl.total, oo);
		free(threads_of);
	}
	free(procs);
	if (oo->callgraph)
		callgraph(f, p, &fl, fl.total, oo);
	flat_release(&fl);
	if (ri) {
		char *foot = report_footer(p, ri);

		fprintf(f, "%s\n", foot);
		free(foot);
		if (ri->verbose)
			verbose_lines(f, ri);
	} else if (p->footer) {
		fprintf(f, "%s\n", p->footer);
	}
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
