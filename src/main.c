/* main.c - ctprof: options, then session -> sampler -> profile -> report.
 * The only place that decides the exit status (see cli.h and ctprof(1)). */
#define _GNU_SOURCE
#include "cli.h"
#include "diff.h"
#include "dump.h"
#include "every.h"
#include "ktrigger.h"
#include "maps.h"
#include "output.h"
#include "proc.h"
#include "profile.h"
#include "sampler.h"
#include "session.h"
#include "symbolize.h"
#include "top.h"
#include "unwind.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int command_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

static const struct writer *writer_of(const struct options *o, const char *path)
{
	return o->format ? writer_find(o->format) : writer_for_file(path);
}

/* Open every output named by -o (or take stdout) before any work, so that
 * an unwritable file fails at once.  -1 after saying why. */
static int open_outputs(const struct options *o, FILE **outs)
{
	unsigned i;

	for (i = 0; i < (o->noutputs ? o->noutputs : 1); i++) {
		const char *path = o->noutputs ? o->outputs[i] : NULL;
		int fd;

		if (!path || output_is_stdout(path)) {
			if (!strcmp(writer_of(o, path)->name, "pprof") && isatty(STDOUT_FILENO)) {
				error_msg("pprof output is binary: give a file with -o, e.g. -o out.pb.gz");
				while (i-- > 0)
					if (outs[i] != stdout)
						fclose(outs[i]);
				return -1;
			}
			outs[i] = stdout;
			continue;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

		if (fd < 0 || !(outs[i] = fdopen(fd, "w"))) {
			error_msg("cannot open output '%s': %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			while (i-- > 0)
				if (outs[i] != stdout)
					fclose(outs[i]);
			return -1;
		}
	}
	return 0;
}

/* Write P to every output.  0, or -1 if one could not be written. */
static int emit(const struct options *o, FILE **outs, const struct profile *p,
		const struct run_info *ri)
{
	struct output_opts oo = output_opts_of(o);
	unsigned i, n = o->noutputs ? o->noutputs : 1;
	int failed = 0;

	for (i = 0; i < n; i++) {
		const char *path = o->noutputs ? o->outputs[i] : NULL;
		int ret = writer_of(o, path)->write(outs[i], p, ri, &oo);

		if (outs[i] != stdout && fclose(outs[i]) == EOF && ret == 0)
			ret = -errno;
		if (ret < 0) {
			error_msg("cannot write to %s: %s", path && !output_is_stdout(path) ? path : "standard output",
				  strerror(-ret));
			failed = -1;
		}
	}
	return failed;
}

/* 'ctprof report FILE': a saved profile, rendered again. */
static int report_main(const struct options *o)
{
	FILE *outs[ARRAY_SIZE(o->outputs)];
	struct profile prof;
	int ret;

	profile_init(&prof);
	if (pprof_read(o->report, &prof) < 0) {
		profile_release(&prof);
		return 1;
	}
	if (open_outputs(o, outs) < 0) {
		profile_release(&prof);
		return 1;
	}
	profile_demangle(&prof);
	if (o->tid)
		profile_keep_thread(&prof, o->tid);
	ret = emit(o, outs, &prof, NULL);
	profile_release(&prof);
	return ret < 0 ? 1 : 0;
}

/* The profile of what sampler SP took from session S's target: each frame
 * symbolized (the JIT code left without a name counted in RI, if given),
 * its processes and sampled threads named, the names demangled. */
static void profile_of_run(struct profile *prof, const struct options *o, const struct session *s,
			   const struct sampler *sp, struct run_info *ri)
{
	struct symbolizer *sz;
	size_t i;

	if (!o->debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	sz = symbolizer_new(sp->maps);
	profile_init(prof);
	prof->pid = s->pid;
	prof->comm = strpool_intern(&prof->strings, s->comm);
	profile_from_stacks(prof, &sp->stacks, sz, sp->maps);
	for (i = 0; i < s->nprocs; i++)
		profile_set_process(prof, s->procs[i]->pid, s->procs[i]->comm);
	for (i = 0; i < sp->nnames; i++)
		profile_set_thread(prof, sp->names[i].tid, sp->names[i].name);
	if (ri)
		ri->anon_unnamed = symbolizer_anon_unnamed(sz, &ri->perf_map);
	symbolizer_free(sz);
	profile_demangle(prof);
}

static int cmp_dump_thread(const void *a, const void *b)
{
	const struct dump_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* 'ctprof dump -p PID': each thread stopped once, at one tick, as --wall
 * takes them (the blocked ones with the call they wait in) and those of a
 * group stop too; then detached and symbolized.  0, or 1 if it could not
 * be done. */
static int dump_main(const struct options *o)
{
	struct session s;
	struct sampler sp;
	struct profile prof;
	struct dump_thread *dts;
	struct dump_info di = {
		.json = o->format && !strcmp(o->format, "json"),
		.raw_names = o->no_demangle,
		.tid = o->tid,
	};
	FILE *out = stdout;
	size_t i;
	int ret;

	if (o->noutputs && open_outputs(o, &out) < 0)
		return 1;
	ret = session_init(&s, false);
	if (ret < 0) {
		error_msg("cannot set up signal handling: %s", strerror(-ret));
		return 1;
	}
	s.sample_group_stops = true;
	if (session_attach(&s, o->pid) < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (o->tid && !session_thread(&s, o->tid)) {
		session_detach(&s);
		session_release(&s);
		error_msg("dump: process %d has no thread %d", (int)o->pid, (int)o->tid);
		return 1;
	}
	/* At 1000 Hz the one tick comes a millisecond after the start. */
	ret = sampler_init(&sp, &s, unwinder_find(o->unwinder), 1000, 0, o->stack_size, o->max_frames);
	if (ret == 0) {
		sp.wall = true;
		sp.once = true;
		sp.cputime = false;
		ret = sampler_run(&sp);
	}
	/* The threads as the stops found them, before the detach. */
	dts = xcalloc(s.nthreads + 1, sizeof(*dts));
	di.nthreads = s.nthreads;
	for (i = 0; i < s.nthreads; i++) {
		dts[i].tid = s.threads[i].tid;
		dts[i].stopped = s.threads[i].listening;
	}
	qsort(dts, di.nthreads, sizeof(*dts), cmp_dump_thread);
	di.threads = dts;
	if (s.nthreads)
		session_detach(&s);
	if (ret < 0) {
		error_msg("cannot take the stacks of pid %d: %s", (int)s.pid, strerror(-ret));
		free(dts);
		session_release(&s);
		return 1;
	}
	di.stall_median_us = sampler_stall_percentile(&sp.stats, 50);
	di.stall_max_us = sampler_stall_percentile(&sp.stats, 100);
	di.elapsed_ns = sp.stats.wall_ns;

	profile_of_run(&prof, o, &s, &sp, NULL);
	prof.wall = true;
	/* The threads whose stack was not taken are named too. */
	for (i = 0; i < di.nthreads; i++) {
		char name[64];

		if (profile_thread_name(&prof, dts[i].tid))
			continue;
		/* /proc/TID is the thread's own, as /proc/PID/task/TID. */
		proc_comm(dts[i].tid, name, sizeof(name));
		profile_set_thread(&prof, dts[i].tid, name);
	}
	ret = dump_write(out, &prof, &di);
	if (out != stdout && fclose(out) == EOF && ret == 0)
		ret = -errno;
	if (ret < 0)
		error_msg("cannot write to %s: %s", out != stdout ? o->outputs[0] : "standard output",
			  strerror(-ret));
	profile_release(&prof);
	sampler_release(&sp);
	session_release(&s);
	free(dts);
	return ret < 0 ? 1 : 0;
}

/* A profiling run: what it traces, samples and writes. */
struct run {
	struct options o;
	struct session s;
	struct sampler sp;
	struct top *top;
	struct every *every;
	FILE *outs[ARRAY_SIZE(((struct options *)0)->outputs)];
	pthread_t leader;
	int ret;                /* sampling's result, < 0 if it failed */
	int exit_code;          /* >= 0: nothing was traced, exit with it */
};

/* The part that traces the target: attach to it or launch it, and
 * sample it; main() lets go of it. */
static void trace(struct run *r)
{
	const struct options *o = &r->o;
	struct session *s = &r->s;
	struct sampler *sp = &r->sp;
	int ret, code;

	if (o->pid) {
		if (session_attach(s, o->pid) < 0) {
			r->exit_code = 1;
			return;
		}
		if (isatty(STDERR_FILENO) && !o->duration && !(o->live && isatty(STDOUT_FILENO)))
			error_msg("profiling pid %d (%s) at %u Hz; press Ctrl-C to stop",
				  s->pid, s->comm, o->frequency);
	} else if (session_launch(s, o->argv, &code) < 0) {
		r->exit_code = code;
		return;
	}
	/* A closed pipe on the report must not kill ctprof; it is set after
	 * the launch because an ignored SIGPIPE would be inherited. */
	signal(SIGPIPE, SIG_IGN);

	ret = sampler_init(sp, s, unwinder_find(o->unwinder), o->frequency, o->duration, o->stack_size, o->max_frames);
	sp->wall = o->wall;
	sp->cputime = o->cputime;
	sp->trigger_opt = !o->trigger ? TRIGGER_AUTO : !strcmp(o->trigger, "perf") ? TRIGGER_PERF :
			  !strcmp(o->trigger, "perf-stop") ? TRIGGER_PERF_STOP : TRIGGER_TIMER;
	if (ret < 0) {
		error_msg("cannot start sampling pid %d: %s", s->pid, strerror(-ret));
	} else if (o->live && !(r->top = top_start(sp, o))) {
		ret = -errno;
		error_msg("cannot start the live view: %s", strerror(errno));
	} else if (o->every && !(r->every = every_start(sp, o))) {
		ret = -errno;
		error_msg("cannot start writing profiles: %s", strerror(errno));
	} else if ((ret = sampler_run(sp)) < 0) {
		error_msg("cannot start sampling pid %d: %s", s->pid, strerror(-ret));
	}
	r->ret = ret;
}

/* After the tracing: the report and the outputs, while the target runs
 * free.  Returns the exit code. */
static int finish(struct run *r)
{
	const struct options *o = &r->o;
	struct session *s = &r->s;
	struct sampler *sp = &r->sp;
	struct profile prof;
	struct run_info ri = { 0 };
	int code, fail = o->pid ? 1 : 125, ret = r->ret, live_ret;

	/* Said as it happened too, whatever the output's format. */
	if (sp->stats.fds_short)
		error_msg("warning: ran out of file descriptors: %llu opens of threads' /proc files failed or were put off, and those threads were sampled less well; raise the hard limit (ulimit -Hn) and run again",
			  (unsigned long long)sp->stats.fds_short);
	if (sp->stats.throttled)
		error_msg("warning: %llu of %llu ticks left out: ctprof's CPU time sampling took more than a quarter of the time between ticks; the shares hold, from fewer samples; a lower -F takes every tick",
			  (unsigned long long)sp->stats.throttled, (unsigned long long)sp->stats.ticks);
	/* Once the target runs free: an output that does not drain holds up
	 * nobody but ctprof. */
	live_ret = top_end(r->top);
	if (every_end(r->every) < 0)
		live_ret = -1;
	ri.fds_after = count_open_fds();
	if (ret < 0) {
		if (s->launched && !s->exited)
			session_wait_child(s);
		return fail;
	}

	/* The target runs freely from here on. */
	if ((o->live && !o->noutputs) || o->every) {
		ret = live_ret;
		goto done;
	}
	profile_of_run(&prof, o, s, sp, &ri);
	prof.frequency = o->frequency;
	prof.wall = o->wall;
	prof.cputime = o->cputime;
	prof.timed_ns = sp->stats.timed_period_ns;
	prof.kernel_row_ns = sp->stats.kernel_row_ns;
	prof.kernel_sampled = sp->stats.kernel_rings;
	prof.kernel_cpu_ns = sp->stats.kernel_cpu_ns;
	prof.time_ns = sp->stats.start_realtime_ns;
	prof.duration_ns = (int64_t)sp->stats.wall_ns;
	if (o->tid)
		profile_keep_thread(&prof, o->tid);

	ri.threads_seen = s->threads_seen;
	ri.lost = s->lost;
	ri.stats = &sp->stats;
	ri.maps = sp->maps;
	ri.unwinder = o->unwinder;
	ri.verbose = o->verbose;
	ri.distinct_stacks = sp->stacks.n;
	ri.wall = o->wall;
	ret = emit(o, r->outs, &prof, &ri);
	if (live_ret < 0)
		ret = -1;
	profile_release(&prof);
done:
	sampler_release(sp);

	if (s->launched) {
		int st = s->exited ? s->exit_status : session_wait_child(s);

		code = s->exited ? command_status(st) : 125;
		if (ret < 0 && code == 0)
			code = 125;
	} else {
		code = ret < 0 ? 1 : 0;
	}
	session_release(s);
	return code;
}

/* The thread that writes the outputs once the tracing thread is gone. */
static void *finisher(void *arg)
{
	struct run *r = arg;

	pthread_join(r->leader, NULL);
	exit(finish(r));
}

int main(int argc, char **argv)
{
	/* Static: the finisher uses it after this thread has exited. */
	static struct run r = { .exit_code = -1 };
	struct options *o = &r.o;
	pthread_t fin;
	int code, fail, ret, err;

	if (cli_parse(argc, argv, o, &code) < 0)
		return code;
	if (o->report)
		return report_main(o);
	if (o->dump)
		return dump_main(o);
	if (o->diffing)
		return diff_main(o);
	fail = o->pid ? 1 : 125;
	/* Asked for, the perf trigger must be there before the target is
	 * touched: tried on ctprof's own thread, as the kernel would judge
	 * it for the target's (perf_event_paranoid, a seccomp filter). */
	if (o->trigger && !strncmp(o->trigger, "perf", 4) && (ret = ktrigger_probe(0)) < 0) {
		error_msg("--trigger=%s: perf_event_open refused (%s); %s", o->trigger, strerror(-ret),
			  ret == -ENOSYS ? "perf events are off in this kernel or blocked by a seccomp filter (a container's): give --trigger=timer"
					 : "kernel.perf_event_paranoid is above 2, or a security module refuses: see ctprof(1), Permissions, or give --trigger=timer");
		return fail;
	}

	/* Open the output before touching the target.  The live view is the
	 * output of 'ctprof top', which writes the others only with -o. */
	if (o->every ? every_check(o) < 0 : (!o->live || o->noutputs) && open_outputs(o, r.outs) < 0)
		return 1;
	ret = session_init(&r.s, o->follow_forks);
	if (ret < 0) {
		error_msg("cannot set up signal handling: %s", strerror(-ret));
		return fail;
	}
	/* This thread traces the target, alone where the perf trigger runs
	 * without the live view or --every: killed, it then closes the
	 * events before the kernel lets go of the target's threads, so no
	 * event of ctprof's signals a thread it no longer traces. */
	trace(&r);
	if (r.exit_code >= 0)
		return r.exit_code;
	/* The kernel lets go of the target's threads, with no stop, when the
	 * thread that traces them exits: this one, once a finisher is there
	 * to take over.  Without one, each thread is stopped to be detached. */
	r.leader = pthread_self();
	err = pthread_create(&fin, NULL, finisher, &r);
	if (err == 0) {
		if (r.s.nthreads)
			session_let_go(&r.s);
		pthread_exit(NULL);
	}
	verbose_msg("cannot start a thread to write the report (%s): the target's threads are stopped to be detached",
		    strerror(err));
	if (r.s.nthreads)
		session_detach(&r.s);
	return finish(&r);
}
