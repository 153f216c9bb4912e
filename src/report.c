/* report.c - see report.h. */
#include "report.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static long long to_ms(uint64_t samples, unsigned hz)
{
	return (long long)((samples * 1000 + hz / 2) / hz);
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

	if (!st->missed && !ri->lost && !st->unwind_failed && !st->unwind_truncated) {
		snprintf(buf, size, "no ticks missed, no samples lost, no unwind failed or truncated");
		return;
	}
	snprintf(buf, size, "lost: %" PRIu64 " %s missed, %lu %s lost, %" PRIu64 " %s failed, %" PRIu64 " truncated%s",
		 st->missed, plural(st->missed, "tick", "ticks"),
		 ri->lost, plural(ri->lost, "sample", "samples"),
		 st->unwind_failed, plural(st->unwind_failed, "unwind", "unwinds"),
		 st->unwind_truncated,
		 st->unwind_truncated ? " (see --stack-size and --max-frames)" : "");
}

static void verbose_lines(FILE *f, const struct run_info *ri)
{
	const struct sampler_stats *st = ri->stats;
	uint64_t ns = st->samples ? st->samples : 1;

	fprintf(f, "profiler: %" PRIu64 " ticks, %" PRIu64 " samples, %zu threads seen, %" PRIu64 " ticks missed\n",
		st->ticks, st->samples, ri->threads_seen, st->missed);
	fprintf(f, "profiler: target stopped per sample: median %.1f us, mean %.1f us, p99 %.1f us\n",
		sampler_stall_percentile(st, 50), (double)st->stall_ns / 1e3 / (double)ns,
		sampler_stall_percentile(st, 99));
	fprintf(f, "profiler: own CPU time: %.1f ms, %.1f us per sample\n",
		(double)st->cpu_ns / 1e6, (double)st->cpu_ns / 1e3 / (double)ns);
	fprintf(f, "profiler: unwind (%s): mean %.1f us per sample, mean %.1f frames; %" PRIu64 " complete, %" PRIu64 " truncated, %" PRIu64 " failed\n",
		ri->unwinder, (double)st->unwind_ns / 1e3 / (double)ns, (double)st->frames / (double)ns,
		st->unwind_complete, st->unwind_truncated, st->unwind_failed);
	fprintf(f, "profiler: priority: %s; maps read %lu times, %zu modules\n",
		st->realtime ? "SCHED_FIFO" : "normal (no real-time priority: samples may come late on a busy machine)",
		ri->maps->refreshes, ri->maps->nmodules - 1);
}

int report_write(FILE *f, const struct profile *p, const struct run_info *ri)
{
	struct flat fl;
	size_t i, threads = ri ? ri->threads_seen : p->threads_seen ? p->threads_seen : p->nthreads;
	char lost[256];

	profile_flat(p, 0, SORT_SELF, &fl);
	fprintf(f, "total: %" PRIu64 " %s, %.2f s of CPU at %u Hz, %zu %s, pid %d (%s)\n",
		fl.total, plural(fl.total, "sample", "samples"),
		(double)fl.total / p->frequency, p->frequency,
		threads, plural(threads, "thread", "threads"), p->pid, p->comm ? p->comm : "?");
	fprintf(f, "on-CPU profile over %.2f s; percentages are of all %" PRIu64 " samples\n",
		(double)p->duration_ns / 1e9, fl.total);
	if (fl.n)
		fprintf(f, "%9s %7s %8s %7s  %-24s  %-14s %s\n",
			"self", "self%", "cum", "cum%", "function", "location", "module");
	for (i = 0; i < fl.n; i++) {
		const struct flat_row *r = &fl.rows[i];
		const struct pfunc *fn = &p->funcs[r->func];
		double total = fl.total ? (double)fl.total : 1;
		char loc[256];

		if (fn->file && fn->line)
			snprintf(loc, sizeof(loc), "%s:%d", base_name(fn->file), fn->line);
		else if (fn->file)
			snprintf(loc, sizeof(loc), "%s", base_name(fn->file));
		else
			snprintf(loc, sizeof(loc), "?");
		fprintf(f, "%7lldms %6.1f%% %7lldms %6.1f%%  %-24s  %-14s [%s]\n",
			to_ms(r->self, p->frequency), 100.0 * (double)r->self / total,
			to_ms(r->cum, p->frequency), 100.0 * (double)r->cum / total,
			fn->name, loc, profile_map_name(p, fn->mapping));
	}
	flat_release(&fl);
	if (ri) {
		report_lost_line(ri, lost, sizeof(lost));
		fprintf(f, "%s\n", lost);
		if (ri->verbose)
			verbose_lines(f, ri);
	} else if (p->footer) {
		fprintf(f, "%s\n", p->footer);
	}
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
