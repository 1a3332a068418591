/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - the workload harness shared by numa_bench, numa_mfc and
 * faultfork: option parsing, die(), the state shared by the forked
 * processes, the start barrier, the writer threads, the sample loop and the
 * fork/wait loop.  Each workload keeps only its own placement logic, its
 * output lines and its summary.
 *
 * A run (wl_main()): wl_setup() parses the options and reads the topology,
 * the program's prepare() checks them and makes the state shared
 * (wl_state_map()), wl_run() forks one process per proc and waits for them,
 * the program's summary() prints the last line.  A process places its
 * memory, starts its writers (wl_split(), wl_start()), meets the others at
 * wl_barrier(), samples with wl_sample_loop() until the run stops, then joins
 * its writers (wl_join()) and fills its slot of wl_st->res[].
 */
#ifndef HARNESS_H
#define HARNESS_H

#include "numa_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define WL_MAXP 64		/* processes */
#define WL_MAXT 256		/* writer threads per process */
#define WL_LINE 64		/* bytes a writer writes per page and pass */

/* One command-line option, --name or -key. */
enum wl_kind {
	WL_INT,			/* *val = integer in [min, max] */
	WL_FLAG,		/* no argument: *val = min */
	WL_ENUM,		/* *val = index of the argument in names[] */
};

struct wl_opt {
	const char *name;
	int key;
	enum wl_kind kind;
	int *val;
	int min, max;
	const char *const *names;	/* WL_ENUM: NULL-terminated */
};

#define WL_OPT_INT(name, key, var, min, max) { name, key, WL_INT, &(var), min, max, NULL }
#define WL_OPT_FLAG(name, key, var, value) { name, key, WL_FLAG, &(var), value, value, NULL }
#define WL_OPT_ENUM(name, key, var, names) { name, key, WL_ENUM, &(var), 0, 0, names }
#define WL_OPT_END { NULL, 0, WL_INT, NULL, 0, 0, NULL }

/* wl_prog.flags: the error handling each program has always had. */
#define WL_BARE_USAGE	0x1	/* a stray argument: the usage alone, no message */
#define WL_DIE_STOPS	0x2	/* wl_die() sets ->stop too: all writers end */
#define WL_FORK_KILL	0x4	/* fork error: SIGTERM the children (else reap them) */
#define WL_WAIT_PERROR	0x8	/* report a failed waitpid() (else skip it quietly) */

struct wl_prog {
	const char *name;	/* prefix of every message */
	const char *usage;	/* --help text, printed as is */
	const struct wl_opt *opts;	/* ends with WL_OPT_END; --help is added */
	unsigned int flags;
	/* For wl_main(): a run of *procs processes. */
	const int *procs;
	/* Check the options against @nodes, map the state, print the config
	 * line: 0, or the exit code. */
	int (*prepare)(int nodes);
	void (*child)(int i);		/* process i, see wl_run() */
	void (*collect)(int i, int ok);	/* its result, in the parent */
	void (*summary)(int ok, uint64_t elapsed_ms);
};

/* What a process reports to the parent; each program uses its own fields. */
struct wl_result {
	double final_pct;
	long t90_ms;
	int maj_node;
	long changes;
	unsigned long long bps;
	atomic_int reached;	/* the locality target was reached */
};

/* State of a run.  Process-local until wl_state_map() makes it shared. */
struct wl_state {
	atomic_int stop;	/* writers and samplers end */
	atomic_int failed;	/* a process failed: the others leave */
	atomic_int ready;	/* processes at the start barrier */
	_Atomic uint64_t t0_ms;	/* start of the measured phase, 0 before */
	int done[WL_MAXP];	/* res[i] is filled in */
	struct wl_result res[WL_MAXP];
};

/* One writer thread and the range of memory it writes. */
struct wl_worker {
	pthread_t tid;
	int idx, node;		/* node: the node the program intends for it */
	char *start;
	size_t len;
	atomic_int started;
	atomic_int cur_node;	/* node it last ran on, -1 before */
	_Atomic long changes;	/* node changes seen */
	_Atomic uint64_t pages;	/* pages written */
};

extern struct wl_state *wl_st;
extern int wl_proc;		/* index of this process (0 in the parent) */

/* Parse the options (exit 2 on bad usage), make stdout unbuffered and read
 * the topology: the number of nodes, or -1. */
int wl_setup(const struct wl_prog *prog, int argc, char **argv);
/*
 * The whole run of a forking workload: wl_setup(), ->prepare(), wl_run(),
 * ->summary().  Returns the exit code: 0 if every process ended well, 1 if
 * not or on a setup error, ->prepare()'s code.
 */
int wl_main(const struct wl_prog *prog, int argc, char **argv);
/* Print the usage to stdout (code 0) or stderr, exit(code). */
void wl_usage(int code) __attribute__((noreturn));
/* "<prog>[proc <i>]: <what>: <strerror(err)>", mark the run failed, exit(1). */
void wl_die(const char *what, int err) __attribute__((noreturn));

/* Share wl_st between the processes; 0, or -1 after perror("<prog>: <what>"). */
int wl_state_map(const char *what);
/*
 * Fork @procs processes running @child(i), each exiting 0 with done[i] set
 * once @child returns; wait for them in order and call @collect(i, ok) for
 * each.  Returns the number that ended well, -1 if a fork failed.
 */
int wl_run(int procs, void (*child)(int i), void (*collect)(int i, int ok));
/* Wait until all @procs processes are here (leave if one failed); t0_ms. */
uint64_t wl_barrier(int procs);
/*
 * Every @period_ms from @t0 + @first_ms call @sample(t_ms) until the run
 * stops: ->stop or ->failed set, @seconds passed, or @sample returned
 * non-zero.  Then sets ->stop; returns the time of the last sample.
 */
uint64_t wl_sample_loop(uint64_t t0, int first_ms, int period_ms, int seconds,
			int (*sample)(uint64_t t_ms));
/* 64 bytes a page in @pages writes, per second of [t0, end]. */
unsigned long long wl_bytes_per_s(uint64_t pages, uint64_t t0, uint64_t end);

/* Give @n workers [buf, buf+len): each its @slice (the last one the rest),
 * or all the whole buffer if @slice is 0. */
void wl_split(struct wl_worker *ws, int n, char *buf, size_t len, size_t slice);
/* Start @n threads running @fn(&ws[t]); dies on error. */
void wl_start(struct wl_worker *ws, int n, void *(*fn)(void *));
/* Wait until every worker set ->started (leave if a process failed). */
void wl_wait_started(struct wl_worker *ws, int n);
/* Join @n workers: the pages they wrote; their node changes in *changes. */
uint64_t wl_join(struct wl_worker *ws, int n, long *changes);
/* Record the node @w runs on now, counting a change. */
void wl_note_node(struct wl_worker *w);
/*
 * The write phase of a worker until ->stop: one WL_LINE line per page of its
 * range, the line offset rotating every pass.  Pages are counted every 256;
 * @track notes the node there too, else only at the end of a pass.
 */
void wl_write_loop(struct wl_worker *w, int track);

#endif
