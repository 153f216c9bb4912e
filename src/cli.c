/* cli.c - option parsing and validation; see cli.h. */
#include "cli.h"
#include "config.h"
#include "output.h"
#include "unwind.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ctprof [OPTION]... -p PID\n"
"       ctprof [OPTION]... [--] COMMAND [ARG]...\n"
"       ctprof report [OUTPUT OPTION]... FILE.pb.gz\n"
"       ctprof top [OPTION]... -p PID\n"
"       ctprof top [OPTION]... [--] COMMAND [ARG]...\n"
"       ctprof dump [--tid=TID] [--format=text|json] [--no-demangle] -p PID\n"
"       ctprof diff [--absolute] [--sort=KEY] [--top=N] [-o FILE] BASE NEW\n"
"Sample where the threads of a running process (-p) or of a COMMAND spend\n"
"their CPU time, then print a flat and a cumulative report of functions.\n"
"\n"
"  -p, --pid=PID            attach to the running process PID and all its threads\n"
"  -d, --duration=SECONDS   stop after SECONDS (fractions allowed; default: until\n"
"                           the target exits, or Ctrl-C when attached)\n"
"  -f, --follow-forks       profile the processes the target forks from now on,\n"
"                           and theirs; the report has a table per process\n"
"Sampling:\n"
"  -F, --frequency=HZ       samples per second, %d to %d (default %d); ticks are\n"
"                           left out where ctprof's CPU time sampling would be\n"
"                           over a quarter of the time per CPU the target runs on\n"
"      --wall               wall-clock profile: every thread counts at every tick,\n"
"                           a blocked one with the system call it waits in\n"
"      --weight=WEIGHT      cputime (default): a thread's CPU time, shared\n"
"                           equally among its samples of each second; or\n"
"                           samples: each counts one period (--wall: always)\n"
"      --trigger=TRIGGER    what times the samples: perf, each thread's CPU-time\n"
"                           event, its samples into a ring, no stop; perf-stop,\n"
"                           the same event stops the thread where it runs;\n"
"                           timer, a tick that stops the running threads;\n"
"                           auto (default): perf where the kernel allows it,\n"
"                           else timer\n"
"      --stack-size=BYTES   stack bytes copied per sample, 1k to 1m (default 64k)\n"
"      --max-frames=N       frames unwound per sample, %d to %d (default %d)\n"
"      --unwinder=NAME      libunwind or libdw (default %s)\n"
"      --debuginfod         let libdw download missing debug info from the\n"
"                           servers in DEBUGINFOD_URLS (off: it may block)\n"
"Output:\n"
"  -o, --output=FILE        write to FILE instead of standard output; the format\n"
"                           follows its name: .pb.gz/.pb pprof, .folded folded\n"
"                           stacks, .svg flame graph, anything else text;\n"
"                           give -o several times for several files; - is\n"
"                           standard output (with --format for a format)\n"
"      --format=FORMAT      text, folded, pprof or svg, whatever the file names\n"
"      --every=SECONDS      a complete profile every SECONDS, %g to %g, each -o\n"
"                           then a pattern of names: %%t interval start (UTC),\n"
"                           %%n its number, %%p the pid; e.g. -o 'prof-%%t.pb.gz'\n"
"      --tid=TID            only the samples of thread TID\n"
"      --no-thread          no thread frame at the root of folded stacks and\n"
"                           flame graphs\n"
"      --no-demangle        keep C++ and Rust names as the linker sees them\n"
"  -v, --verbose            add the profiler's own statistics to the report\n"
"Text report:\n"
"      --top=N              show the N first rows only\n"
"      --sort=KEY           order rows by self (default) or cum time\n"
"      --per-thread         one table per thread, with thread names\n"
"      --lines              rows by source line instead of by function\n"
"      --callgraph          callers and callees of the top functions\n"
"Live view (ctprof top):\n"
"      --interval=SECONDS   refresh every SECONDS, %g to %g (default %g)\n"
"\n"
"  -h, --help               show this help and exit\n"
"      --version            show the version and exit\n"
"\n"
"'ctprof report FILE' renders a saved pprof profile (ctprof's, or another\n"
"CPU profile) in any format, as if it had just been taken.\n"
"\n"
"'ctprof top' shows the hottest functions while it samples, over the last\n"
"interval and over the whole run, refreshed every interval; keys: s sort by\n"
"self, c sort by cum, q quit (a COMMAND then runs on, no longer profiled,\n"
"and ctprof waits for it).  It writes no report unless -o is given.  When\n"
"standard output is not a terminal, it prints the first %d rows every\n"
"interval.  --sort sets the first order; --top, --per-thread, --lines,\n"
"--callgraph and --tid do not apply.\n"
"\n"
"'ctprof diff BASE NEW' compares two saved profiles (ctprof's or Go's):\n"
"each function's self and cumulative share in both and the change in points,\n"
"largest change first (--sort=cum: of cumulative share); --absolute compares\n"
"times instead of shares.  -o FILE.folded writes stacks with two counts (the\n"
"base scaled to the new total) for flamegraph.pl; -o FILE.svg a differential\n"
"flame graph: as wide as the new profile, red where a share grew, blue where\n"
"it shrank.  --top, --sort, --no-demangle and --format apply.\n"
"\n"
"With --every, each file appears whole (written aside, then renamed) at the\n"
"end of its interval, and the last, shorter one when profiling ends; no\n"
"sample falls between two files.\n"
"\n"
"'ctprof dump -p PID' prints each thread's stack now, with its state (running,\n"
"the system call it waits in, stopped): each thread is stopped once and let\n"
"go when its stack is copied; a stopped process is left stopped.  --format=json\n"
"writes a JSON object per thread; -o, --tid, --no-demangle, --unwinder,\n"
"--stack-size and --max-frames apply.\n"
"\n"
"Only threads that are running are stopped, for a few microseconds, at each\n"
"tick; blocked threads are not touched (with --wall, each is stopped once per\n"
"wait), but for one that ran at the tick and went to sleep just after it: it\n"
"is stopped in the call, which goes on.  So that a thread stops where it was\n"
"at the tick, its CPU is first taken from it by a real-time helper thread of\n"
"ctprof's on that CPU, unless probes found that its code stays out of the\n"
"kernel (its stops then land where it was anyway).\n"
"Attached processes are detached and left running at the end.\n"
"\n"
"Exit status: 0 attached and reported; 1 could not profile the process;\n"
"2 usage error; with a COMMAND, its own exit status (128+N if killed by signal\n"
"N), 125 if ctprof failed, 126 if COMMAND cannot run, 127 if it is not found.\n"
"Full documentation: man ctprof\n",
		CTPROF_FREQ_MIN, CTPROF_FREQ_MAX, CTPROF_FREQ_DEFAULT,
		CTPROF_FRAMES_MIN, CTPROF_FRAMES_MAX, CTPROF_FRAMES_DEFAULT,
		unwinder_default->name,
		CTPROF_EVERY_MIN, CTPROF_EVERY_MAX,
		CTPROF_INTERVAL_MIN, CTPROF_INTERVAL_MAX, CTPROF_INTERVAL_DEFAULT,
		CTPROF_TOP_ROWS);
}

/* Parse a whole decimal number in [min, max]; -1 if not. */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v *= 1024 * 1024;
		end++;
	}
	if (*end || v < CTPROF_STACK_MIN || v > CTPROF_STACK_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* A finite number as strtod() reads it, and nothing after it; -1 if not. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

enum { OPT_STACK_SIZE = 256, OPT_MAX_FRAMES, OPT_DEBUGINFOD, OPT_VERSION, OPT_UNWINDER, OPT_FORMAT, OPT_NO_THREAD, OPT_TOP, OPT_SORT,
       OPT_PER_THREAD, OPT_TID, OPT_LINES, OPT_CALLGRAPH, OPT_NO_DEMANGLE, OPT_WALL, OPT_WEIGHT,
       OPT_INTERVAL, OPT_EVERY, OPT_ABSOLUTE, OPT_TRIGGER };

static const struct option long_opts[] = {
	{ "pid",        required_argument, NULL, 'p' },
	{ "duration",   required_argument, NULL, 'd' },
	{ "follow-forks", no_argument,     NULL, 'f' },
	{ "frequency",  required_argument, NULL, 'F' },
	{ "output",     required_argument, NULL, 'o' },
	{ "verbose",    no_argument,       NULL, 'v' },
	{ "help",       no_argument,       NULL, 'h' },
	{ "stack-size", required_argument, NULL, OPT_STACK_SIZE },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "debuginfod", no_argument,       NULL, OPT_DEBUGINFOD },
	{ "unwinder",   required_argument, NULL, OPT_UNWINDER },
	{ "format",     required_argument, NULL, OPT_FORMAT },
	{ "no-thread",  no_argument,       NULL, OPT_NO_THREAD },
	{ "top",        required_argument, NULL, OPT_TOP },
	{ "sort",       required_argument, NULL, OPT_SORT },
	{ "per-thread", no_argument,       NULL, OPT_PER_THREAD },
	{ "tid",        required_argument, NULL, OPT_TID },
	{ "lines",      no_argument,       NULL, OPT_LINES },
	{ "callgraph",  no_argument,       NULL, OPT_CALLGRAPH },
	{ "no-demangle", no_argument,      NULL, OPT_NO_DEMANGLE },
	{ "wall",       no_argument,       NULL, OPT_WALL },
	{ "weight",     required_argument, NULL, OPT_WEIGHT },
	{ "trigger",    required_argument, NULL, OPT_TRIGGER },
	{ "interval",   required_argument, NULL, OPT_INTERVAL },
	{ "every",      required_argument, NULL, OPT_EVERY },
	{ "absolute",   no_argument,       NULL, OPT_ABSOLUTE },
	{ "version",    no_argument,       NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(int *exit_code)
{
	*exit_code = EXIT_USAGE;
	return -1;
}

/* 'ctprof top': refuse what shapes the text report on standard output,
 * which the live view replaces, and --tid, as the view is of every
 * thread.  -1 after saying which option. */
static int live_check(struct options *o)
{
	const char *bad = o->top ? "--top" : o->per_thread ? "--per-thread" :
		o->lines ? "--lines" : o->callgraph ? "--callgraph" : o->tid ? "--tid" : NULL;

	if (bad) {
		error_msg("top: %s is not an option of the live view; see 'ctprof --help'", bad);
		return -1;
	}
	if (o->format && !o->noutputs) {
		error_msg("top: --format applies to the files of -o; the view is on standard output");
		return -1;
	}
	if (o->stdout_output) {
		error_msg("top: the view is on standard output; give -o a file name, not -");
		return -1;
	}
	if (!o->interval)
		o->interval = CTPROF_INTERVAL_DEFAULT;
	return 0;
}

/* 'ctprof diff BASE NEW': two files and what shapes its output, no more.
 * 0, or -1 with *EXIT_CODE set after saying what is wrong. */
static int diff_check(struct options *o, int argc, char **argv, int *exit_code)
{
	const char *bad = o->pid ? "-p" : o->duration ? "-d" : o->follow_forks ? "-f" :
		o->wall ? "--wall" : o->weight ? "--weight" : o->trigger ? "--trigger" :
		o->frequency != CTPROF_FREQ_DEFAULT ? "-F" : o->per_thread ? "--per-thread" :
		o->lines ? "--lines" : o->callgraph ? "--callgraph" : o->tid ? "--tid" :
		o->no_thread ? "--no-thread" : o->noutputs > 1 ? "a second -o" : NULL;

	if (bad) {
		error_msg("diff: %s does not apply; see 'ctprof --help'", bad);
		return usage_error(exit_code);
	}
	if (optind != argc - 2) {
		error_msg("diff: give two profiles, the base then the new one, e.g. ctprof diff old.pb.gz new.pb.gz");
		return usage_error(exit_code);
	}
	if (!o->format && o->noutputs && !strcmp(writer_for_file(o->outputs[0])->name, "pprof")) {
		error_msg("diff: writes text, folded stacks (.folded) or a flame graph (.svg), not pprof");
		return usage_error(exit_code);
	}
	o->diff[0] = argv[optind];
	o->diff[1] = argv[optind + 1];
	verbose_level = o->verbose;
	return 0;
}

/* --every: each -o is a pattern of names (every.h); one without %n or
 * %t is a file rewritten every interval.  -1 after saying what is wrong. */
static int every_check_patterns(const struct options *o)
{
	unsigned i;

	if (!o->noutputs || o->stdout_output) {
		error_msg("--every writes a file per interval: give -o with a pattern, e.g. -o 'prof-%%t.pb.gz'");
		return -1;
	}
	for (i = 0; i < o->noutputs; i++) {
		const char *c, *pat = o->outputs[i];
		bool n = false, t = false;

		for (c = strchr(pat, '%'); c; c = strchr(c + 2, '%')) {
			if (!c[1] || !strchr("tnp%", c[1])) {
				error_msg("invalid output pattern '%s': %%%c is none of %%t (time), %%n (number), %%p (pid), %%%%",
					  pat, c[1] ? c[1] : ' ');
				return -1;
			}
			n |= c[1] == 'n';
			t |= c[1] == 't';
		}
		/* %t is to the second: two intervals in one would share a name. */
		if (t && !n && o->every < 1) {
			error_msg("output pattern '%s': with --every under a second, add %%n so that names differ",
				  pat);
			return -1;
		}
	}
	return 0;
}

/* 'ctprof report|dump|diff|top': the subcommand in argv[1], taken off the
 * arguments. */
static void cli_subcommand(int *argc, char ***argv, struct options *o)
{
	if (*argc <= 1)
		return;
	/* 'ctprof report FILE': render a saved profile.  A command called
	 * "report" is run with 'ctprof -- report'. */
	if (!strcmp((*argv)[1], "report")) {
		o->report = "";
	} else if (!strcmp((*argv)[1], "dump")) {
		/* 'ctprof -- dump' runs a command called dump. */
		o->dump = true;
	} else if (!strcmp((*argv)[1], "diff")) {
		/* 'ctprof -- diff' runs a command called diff. */
		o->diffing = true;
	} else if (!strcmp((*argv)[1], "top")) {
		/* The same for 'top': 'ctprof -- top' profiles top(1). */
		o->live = true;
	} else {
		return;
	}
	(*argv)++;
	(*argc)--;
}

/* The options of parse_*_option() below, each one of a group: 0, -1 after
 * saying what is wrong with its argument, 1 if C is not of the group. */

/* What to profile and for how long. */
static int parse_target_option(int c, struct options *o)
{
	long v;
	double d;

	switch (c) {
	case 'p':
		if (parse_long(optarg, 1, INT_MAX, &v) < 0) {
			error_msg("invalid pid '%s': expected a process id, a whole number above 0",
				  optarg);
			return -1;
		}
		o->pid = (pid_t)v;
		return 0;
	case 'd':
		if (parse_seconds(optarg, &d) < 0 || d <= 0 || d > 1e6) {
			error_msg("invalid duration '%s': expected seconds greater than 0, e.g. 30 or 2.5",
				  optarg);
			return -1;
		}
		o->duration = d;
		return 0;
	case 'f':
		o->follow_forks = true;
		return 0;
	}
	return 1;
}

/* How samples are timed, weighed and unwound. */
static int parse_sampling_option(int c, struct options *o)
{
	long v;

	switch (c) {
	case 'F':
		if (parse_long(optarg, CTPROF_FREQ_MIN, CTPROF_FREQ_MAX, &v) < 0) {
			error_msg("invalid frequency '%s': expected a whole number of Hz from %d to %d",
				  optarg, CTPROF_FREQ_MIN, CTPROF_FREQ_MAX);
			return -1;
		}
		o->frequency = (unsigned)v;
		return 0;
	case OPT_WALL:
		o->wall = true;
		return 0;
	case OPT_WEIGHT:
		if (strcmp(optarg, "samples") && strcmp(optarg, "cputime")) {
			error_msg("invalid weight '%s': expected samples or cputime", optarg);
			return -1;
		}
		o->weight = optarg;
		return 0;
	case OPT_TRIGGER:
		if (strcmp(optarg, "auto") && strcmp(optarg, "perf") && strcmp(optarg, "perf-stop") &&
		    strcmp(optarg, "timer")) {
			error_msg("invalid trigger '%s': expected auto, perf, perf-stop or timer", optarg);
			return -1;
		}
		o->trigger = strcmp(optarg, "auto") ? optarg : NULL;
		return 0;
	case OPT_STACK_SIZE:
		if (parse_size(optarg, &o->stack_size) < 0) {
			error_msg("invalid stack size '%s': expected bytes from 1k to 1m, e.g. 65536 or 64k",
				  optarg);
			return -1;
		}
		return 0;
	case OPT_MAX_FRAMES:
		if (parse_long(optarg, CTPROF_FRAMES_MIN, CTPROF_FRAMES_MAX, &v) < 0) {
			error_msg("invalid frame limit '%s': expected a whole number from %d to %d",
				  optarg, CTPROF_FRAMES_MIN, CTPROF_FRAMES_MAX);
			return -1;
		}
		o->max_frames = (unsigned)v;
		return 0;
	case OPT_UNWINDER:
		if (!unwinder_find(optarg)) {
			error_msg("invalid unwinder '%s': expected libunwind or libdw", optarg);
			return -1;
		}
		o->unwinder = optarg;
		return 0;
	case OPT_DEBUGINFOD:
		o->debuginfod = true;
		return 0;
	}
	return 1;
}

/* --format: the writers', or those of 'ctprof diff' or 'ctprof dump'. */
static int parse_format(struct options *o)
{
	if (o->diffing) {
		if (strcmp(optarg, "text") && strcmp(optarg, "folded") && strcmp(optarg, "svg")) {
			error_msg("diff: invalid format '%s': expected text, folded or svg", optarg);
			return -1;
		}
	} else if (o->dump) {
		if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
			error_msg("dump: invalid format '%s': expected text or json", optarg);
			return -1;
		}
	} else if (!writer_find(optarg)) {
		error_msg("invalid format '%s': expected one of %s", optarg, writer_names());
		return -1;
	}
	o->format = optarg;
	return 0;
}

/* Where the profile goes, in what format, of which samples. */
static int parse_output_option(int c, struct options *o)
{
	long v;
	double d;

	switch (c) {
	case 'o':
		if (!*optarg) {
			error_msg("invalid output '': expected a file name");
			return -1;
		}
		if (o->noutputs >= ARRAY_SIZE(o->outputs)) {
			error_msg("too many outputs: at most %zu -o options", ARRAY_SIZE(o->outputs));
			return -1;
		}
		if (output_is_stdout(optarg) && o->stdout_output) {
			error_msg("-o - (standard output) given twice: give it once");
			return -1;
		}
		o->stdout_output |= output_is_stdout(optarg);
		o->outputs[o->noutputs++] = optarg;
		return 0;
	case OPT_FORMAT:
		return parse_format(o);
	case OPT_EVERY:
		if (parse_seconds(optarg, &d) < 0 || d < CTPROF_EVERY_MIN || d > CTPROF_EVERY_MAX) {
			error_msg("invalid interval '%s': expected seconds from %g to %g, e.g. 60",
				  optarg, CTPROF_EVERY_MIN, CTPROF_EVERY_MAX);
			return -1;
		}
		o->every = d;
		return 0;
	case OPT_TID:
		if (parse_long(optarg, 1, INT_MAX, &v) < 0) {
			error_msg("invalid thread id '%s': expected a whole number above 0", optarg);
			return -1;
		}
		o->tid = (pid_t)v;
		return 0;
	case OPT_NO_THREAD:
		o->no_thread = true;
		return 0;
	case OPT_NO_DEMANGLE:
		o->no_demangle = true;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	}
	return 1;
}

/* The shape of the text report, of the live view and of the diff. */
static int parse_report_option(int c, struct options *o)
{
	long v;
	double d;

	switch (c) {
	case OPT_TOP:
		if (parse_long(optarg, 1, INT_MAX, &v) < 0) {
			error_msg("invalid row count '%s': expected a whole number above 0", optarg);
			return -1;
		}
		o->top = (unsigned)v;
		return 0;
	case OPT_SORT:
		if (strcmp(optarg, "self") && strcmp(optarg, "cum")) {
			error_msg("invalid sort '%s': expected self or cum", optarg);
			return -1;
		}
		o->sort_cum = !strcmp(optarg, "cum");
		return 0;
	case OPT_PER_THREAD:
		o->per_thread = true;
		return 0;
	case OPT_LINES:
		o->lines = true;
		return 0;
	case OPT_CALLGRAPH:
		o->callgraph = true;
		return 0;
	case OPT_INTERVAL:
		if (parse_seconds(optarg, &d) < 0 || d < CTPROF_INTERVAL_MIN || d > CTPROF_INTERVAL_MAX) {
			error_msg("invalid interval '%s': expected seconds from %g to %g, e.g. 1 or 0.5",
				  optarg, CTPROF_INTERVAL_MIN, CTPROF_INTERVAL_MAX);
			return -1;
		}
		o->interval = d;
		return 0;
	case OPT_ABSOLUTE:
		o->absolute = true;
		return 0;
	}
	return 1;
}

/* One option C of the scan, of whichever group: 0, or -1 after saying what
 * is wrong. */
static int parse_option(int c, struct options *o)
{
	int ret = parse_target_option(c, o);

	if (ret > 0)
		ret = parse_sampling_option(c, o);
	if (ret > 0)
		ret = parse_output_option(c, o);
	if (ret > 0)
		ret = parse_report_option(c, o);
	if (ret > 0) {
		/* getopt has printed what was wrong. */
		fprintf(stderr, "Try 'ctprof --help' for more information.\n");
		return -1;
	}
	return ret;
}

/* The options that belong to one subcommand, or to none, given with
 * another.  -1 after saying which. */
static int subcommand_check(struct options *o)
{
	if (o->interval && !o->live) {
		error_msg("--interval is for the live view: 'ctprof top --interval=%g ...'", o->interval);
		return -1;
	}
	if (o->live && live_check(o) < 0)
		return -1;
	if (o->every && (o->live || o->report || o->dump || o->diffing)) {
		error_msg("%s: --every is for a profile of a run; see 'ctprof --help'",
			  o->live ? "top" : o->report ? "report" : o->dump ? "dump" : "diff");
		return -1;
	}
	if (o->absolute && !o->diffing) {
		error_msg("--absolute is for 'ctprof diff BASE NEW'");
		return -1;
	}
	return 0;
}

/* 'ctprof report FILE': one file and output options.  -1 after saying
 * what is wrong. */
static int report_check(struct options *o, int argc, char **argv)
{
	if (o->pid || o->duration || o->follow_forks || o->wall || o->weight || o->trigger || optind != argc - 1) {
		error_msg(optind >= argc ? "report: give the profile file to read, e.g. ctprof report out.pb.gz"
			  : "report: give one profile file and output options only; see 'ctprof --help'");
		return -1;
	}
	o->report = argv[optind];
	return 0;
}

/* 'ctprof dump -p PID': no command, nothing of a run's sampling or of the
 * text report.  -1 after saying what is wrong. */
static int dump_check(const struct options *o, int argc)
{
	const char *bad = optind < argc ? "a command" : o->duration ? "-d" :
		o->follow_forks ? "-f" : o->wall ? "--wall" : o->weight ? "--weight" :
		o->trigger ? "--trigger" :
		o->frequency != CTPROF_FREQ_DEFAULT ? "-F" : o->top ? "--top" :
		o->per_thread ? "--per-thread" : o->lines ? "--lines" :
		o->callgraph ? "--callgraph" : o->noutputs > 1 ? "a second -o" : NULL;

	if (bad) {
		error_msg("dump: %s does not apply; see 'ctprof --help'", bad);
		return -1;
	}
	if (!o->pid) {
		error_msg("dump: give the process with -p PID");
		return -1;
	}
	return 0;
}

/* A run (and 'ctprof top'): a pid or a command, and a weight that fits the
 * trigger.  -1 after saying what is wrong. */
static int run_check(struct options *o, int argc, char **argv)
{
	if (optind < argc)
		o->argv = argv + optind;
	if (o->pid && o->argv) {
		error_msg("give either -p PID or a command, not both");
		return -1;
	}
	if (!o->pid && !o->argv) {
		error_msg("nothing to profile: give -p PID or a command; see 'ctprof --help'");
		return -1;
	}
	if (o->wall && o->trigger && !strncmp(o->trigger, "perf", 4)) {
		error_msg("--wall samples blocked threads too, at the timer's ticks: give --trigger=timer or leave it out");
		return -1;
	}
	if (o->wall && o->weight && !strcmp(o->weight, "cputime")) {
		error_msg("--wall counts time, --weight=cputime CPU time: give one of them");
		return -1;
	}
	o->cputime = !o->wall && !(o->weight && !strcmp(o->weight, "samples"));
	return 0;
}

/* The options together, once all are scanned: 0, or -1 with *EXIT_CODE set
 * after saying what is wrong. */
static int cli_check(struct options *o, int argc, char **argv, int *exit_code)
{
	int ret;

	if (subcommand_check(o) < 0)
		return usage_error(exit_code);
	if (o->diffing)
		return diff_check(o, argc, argv, exit_code);
	if (o->every && every_check_patterns(o) < 0)
		return usage_error(exit_code);
	if (o->report)
		ret = report_check(o, argc, argv);
	else if (o->dump)
		ret = dump_check(o, argc);
	else
		ret = run_check(o, argc, argv);
	if (ret < 0)
		return usage_error(exit_code);
	verbose_level = o->verbose;
	return 0;
}

int cli_parse(int argc, char **argv, struct options *o, int *exit_code)
{
	int c;

	memset(o, 0, sizeof(*o));
	cli_subcommand(&argc, &argv, o);
	o->frequency = CTPROF_FREQ_DEFAULT;
	o->stack_size = CTPROF_STACK_DEFAULT;
	o->max_frames = CTPROF_FRAMES_DEFAULT;
	o->unwinder = unwinder_default->name;

	/* '+': stop at the first non-option, which starts the command. */
	while ((c = getopt_long(argc, argv, "+p:d:fF:o:vh", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			*exit_code = 0;
			return -1;
		}
		if (c == OPT_VERSION) {
			printf("ctprof %s\n", CTPROF_VERSION);
			*exit_code = 0;
			return -1;
		}
		if (parse_option(c, o) < 0)
			return usage_error(exit_code);
	}
	return cli_check(o, argc, argv, exit_code);
}
