/* dump.c - 'ctprof dump': each thread's stack at one moment.
 *
 * Text, as eu-stack and pstack print it, a thread then its frames:
 *
 *   thread 4242 (worker): in read
 *     #0  0x00007f1c2a4f1992 __GI___libc_read  read.c:26  [libc.so.6]
 *     #1  0x000055d0c3a0b1c9 inner (inlined)  chain.c:14  [chain]
 *     #2  0x000055d0c3a0b1c9 outer  chain.c:20  [chain]
 *
 * or one JSON object per thread for tools.  The frames are the sample's
 * locations, leaf first; an address with inlined code gives one frame per
 * level, all but the last marked inlined.  A thread blocked in a system
 * call has it as its first location (profile.c): that is its state, not a
 * frame.
 */
#include "dump.h"
#include "sampler.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* The stall histogram's last bucket holds this and more. */
#define STALL_CAP_US ((double)(STALL_BUCKETS - 1))

/* The sample of thread TID, or NULL. */
static const struct psample *sample_of(const struct profile *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].tid == tid)
			return &p->samples[i];
	return NULL;
}

/* The state of a thread whose stack S was taken; *FIRST is then the index
 * of its first real frame in S's locations. */
static const char *thread_state(const struct profile *p, const struct psample *s,
				bool stopped, uint32_t *first, char *buf, size_t n)
{
	const struct ploc *loc;
	const char *name;

	*first = 0;
	if (!s->nlocs)
		return stopped ? "stopped" : "running";
	loc = &p->locs[p->sample_locs[s->first_loc]];
	if (loc->mapping || !loc->nlines)
		return stopped ? "stopped" : "running";
	name = p->funcs[p->lines[loc->first_line].func].name;
	*first = 1;
	if (!strncmp(name, "[syscall: ", 10)) {
		snprintf(buf, n, "%s%s%.*s", stopped ? "stopped, " : "", "in ",
			 (int)(strlen(name) - 11), name + 10);
		return buf;
	}
	return stopped ? "stopped" : "blocked";
}

static const char *func_name(const struct pfunc *fn, bool raw)
{
	return raw && fn->system_name ? fn->system_name : fn->name;
}

static const char *module_name(const struct profile *p, uint32_t mapping)
{
	return mapping && mapping <= p->nmaps ? p->maps[mapping - 1].name : NULL;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void text_thread(FILE *f, const struct profile *p, const struct dump_info *di,
			const struct dump_thread *dt, const char *tname, const struct psample *s)
{
	char buf[96];
	uint32_t first, i, k, depth = 0;
	const char *state;

	fprintf(f, "thread %d (%s): ", (int)dt->tid, tname ? tname : "?");
	if (!s) {
		fprintf(f, "%s, stack not taken (it did not stop within a second: uninterruptible sleep?)\n",
			dt->stopped ? "stopped" : "not stopped");
		return;
	}
	state = thread_state(p, s, dt->stopped, &first, buf, sizeof(buf));
	fprintf(f, "%s\n", state);
	for (i = first; i < s->nlocs; i++) {
		const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + i]];
		const char *mod = module_name(p, loc->mapping);

		for (k = 0; k < loc->nlines; k++) {
			const struct pline *ln = &p->lines[loc->first_line + k];
			const struct pfunc *fn = &p->funcs[ln->func];

			fprintf(f, "  #%-3u 0x%016" PRIx64 " %s%s", depth++, loc->address,
				func_name(fn, di->raw_names), k + 1 < loc->nlines ? " (inlined)" : "");
			if (fn->file)
				fprintf(f, "  %s:%d", fn->file, ln->line);
			fprintf(f, "  [%s]\n", mod ? mod : "?");
		}
	}
}

static void json_thread(FILE *f, const struct profile *p, const struct dump_info *di,
			const struct dump_thread *dt, const char *tname, const struct psample *s)
{
	char buf[96];
	uint32_t first = 0, i, k;
	const char *state = NULL, *sep = "";

	fprintf(f, "{\"pid\":%d,\"tid\":%d,\"name\":", (int)p->pid, (int)dt->tid);
	json_string(f, tname ? tname : "");
	fprintf(f, ",\"stopped\":%s,\"taken\":%s", dt->stopped ? "true" : "false", s ? "true" : "false");
	if (s) {
		state = thread_state(p, s, false, &first, buf, sizeof(buf));
		fprintf(f, ",\"state\":");
		json_string(f, !strncmp(state, "in ", 3) ? "syscall" : state);
		if (!strncmp(state, "in ", 3)) {
			fprintf(f, ",\"syscall\":");
			json_string(f, state + 3);
		}
	}
	fprintf(f, ",\"frames\":[");
	for (i = first; s && i < s->nlocs; i++) {
		const struct ploc *loc = &p->locs[p->sample_locs[s->first_loc + i]];
		const char *mod = module_name(p, loc->mapping);

		for (k = 0; k < loc->nlines; k++) {
			const struct pline *ln = &p->lines[loc->first_line + k];
			const struct pfunc *fn = &p->funcs[ln->func];

			fprintf(f, "%s{\"address\":\"0x%" PRIx64 "\",\"function\":", sep, loc->address);
			json_string(f, func_name(fn, di->raw_names));
			if (fn->file) {
				fprintf(f, ",\"file\":");
				json_string(f, fn->file);
				fprintf(f, ",\"line\":%d", ln->line);
			}
			if (mod) {
				fprintf(f, ",\"module\":");
				json_string(f, mod);
			}
			fprintf(f, ",\"inlined\":%s}", k + 1 < loc->nlines ? "true" : "false");
			sep = ",";
		}
	}
	fprintf(f, "]}\n");
}

int dump_write(FILE *f, const struct profile *p, const struct dump_info *di)
{
	size_t i, shown = 0;

	for (i = 0; i < di->nthreads; i++)
		shown += !di->tid || di->threads[i].tid == di->tid;
	if (!di->json)
		fprintf(f, "pid %d (%s): %zu %s; each stopped once, median %s%.1f us, at most %s%.1f us, all within %.1f ms\n",
			(int)p->pid, p->comm ? p->comm : "?", shown, shown == 1 ? "thread" : "threads",
			di->stall_median_us >= STALL_CAP_US ? ">= " : "",
			di->stall_median_us >= STALL_CAP_US ? STALL_CAP_US : di->stall_median_us,
			di->stall_max_us >= STALL_CAP_US ? ">= " : "",
			di->stall_max_us >= STALL_CAP_US ? STALL_CAP_US : di->stall_max_us,
			(double)di->elapsed_ns / 1e6);
	for (i = 0; i < di->nthreads; i++) {
		const struct dump_thread *dt = &di->threads[i];
		const struct psample *s;
		const char *tname;

		if (di->tid && dt->tid != di->tid)
			continue;
		s = sample_of(p, dt->tid);
		tname = profile_thread_name(p, dt->tid);
		if (di->json)
			json_thread(f, p, di, dt, tname, s);
		else
			text_thread(f, p, di, dt, tname, s);
	}
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
