/* cli.h - command-line options.  The only module that knows option syntax. */
#ifndef CTPROF_CLI_H
#define CTPROF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { EXIT_USAGE = 2 };

#define CTPROF_FREQ_MIN 1
#define CTPROF_FREQ_MAX 5000
#define CTPROF_FREQ_DEFAULT 99
#define CTPROF_STACK_MIN 1024
#define CTPROF_STACK_MAX (1024 * 1024)
#define CTPROF_STACK_DEFAULT (64 * 1024)
#define CTPROF_FRAMES_MIN 4
#define CTPROF_FRAMES_MAX 4096
#define CTPROF_FRAMES_DEFAULT 256
#define CTPROF_INTERVAL_MIN 0.1
#define CTPROF_INTERVAL_MAX 60.0
#define CTPROF_INTERVAL_DEFAULT 1.0
#define CTPROF_EVERY_MIN 0.1
#define CTPROF_EVERY_MAX 86400.0
#define CTPROF_TOP_ROWS 20      /* rows per block of 'ctprof top' off a terminal */

struct options {
	pid_t pid;              /* -p, 0 when launching a command */
	char **argv;            /* the command (NULL-terminated), NULL in attach mode */
	double duration;        /* -d seconds, 0 = until the target ends or Ctrl-C */
	bool follow_forks;      /* -f: profile the processes it forks too */
	bool wall;              /* --wall: every thread at every tick */
	bool cputime;           /* samples weigh CPU time (the default, but
	                         * for --wall and --weight=samples) */
	const char *weight;     /* --weight as given, NULL if not */
	const char *trigger;    /* --trigger perf or timer, NULL: auto */
	unsigned frequency;     /* -F Hz */
	const char *outputs[8]; /* -o FILE..., none: stdout */
	unsigned noutputs;
	bool stdout_output;     /* ... one of them is "-": stdout */
	double every;           /* --every seconds: a file per interval, each
	                         * -o a pattern of names (every.h); 0: off */
	size_t stack_size;      /* --stack-size bytes copied per sample */
	unsigned max_frames;    /* --max-frames */
	bool debuginfod;        /* --debuginfod */
	const char *unwinder;   /* --unwinder backend name */
	const char *format;     /* --format, NULL: from the output's name */
	bool no_thread;         /* --no-thread: no thread root frame */
	const char *report;     /* 'ctprof report FILE': the FILE */
	bool live;              /* 'ctprof top': the live view */
	bool dump;              /* 'ctprof dump': each thread's stack, once */
	bool diffing;           /* 'ctprof diff BASE NEW' */
	const char *diff[2];    /* ... its BASE and NEW files */
	bool absolute;          /* --absolute: compare times, not shares */
	double interval;        /* --interval seconds between its refreshes */
	unsigned top;           /* --top N rows, 0: all */
	bool sort_cum;          /* --sort cum */
	bool per_thread;        /* --per-thread */
	pid_t tid;              /* --tid: only this thread, 0: all */
	bool lines;             /* --lines: by source line */
	bool callgraph;         /* --callgraph */
	bool no_demangle;       /* --no-demangle */
	int verbose;            /* -v count */
};

/* Parse argv into *opts.  Returns -1 to exit with status *exit_code (usage
 * error, --help, --version; the message is already printed), 0 to go on. */
int cli_parse(int argc, char **argv, struct options *opts, int *exit_code);

#endif
