// SPDX-License-Identifier: GPL-2.0
/* harness.c - see harness.h */
#include "harness.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define WL_MAX_OPTS 32

static const struct wl_prog *prog;
static struct wl_state local_state;
static pid_t pids[WL_MAXP];

struct wl_state *wl_st = &local_state;
int wl_proc;

void wl_usage(int code)
{
	fputs(prog->usage, code ? stderr : stdout);
	exit(code);
}

/* perror("<prog>: <what>") */
static void prog_perror(const char *what)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s: %s", prog->name, what);
	perror(msg);
}

static int parse_int(const struct wl_opt *o, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < o->min || v > o->max) {
		fprintf(stderr, "%s: bad --%s '%s' (%d..%d)\n", prog->name, o->name, s,
			o->min, o->max);
		exit(2);
	}
	return (int)v;
}

static int parse_enum(const struct wl_opt *o, const char *s)
{
	for (int i = 0; o->names[i]; i++)
		if (!strcmp(s, o->names[i]))
			return i;
	fprintf(stderr, "%s: bad --%s '%s'\n", prog->name, o->name, s);
	exit(2);
}

static void set_opt(const struct wl_opt *o, const char *arg)
{
	switch (o->kind) {
	case WL_INT:
		*o->val = parse_int(o, arg);
		break;
	case WL_FLAG:
		*o->val = o->min;
		break;
	case WL_ENUM:
		*o->val = parse_enum(o, arg);
		break;
	}
}

/* getopt_long()'s tables from prog->opts, in their order, --help last. */
static void build_getopt(struct option *lo, char *so)
{
	static const struct option help = { "help", no_argument, NULL, 'h' };
	const struct wl_opt *o = prog->opts;
	int n = 0;

	for (; o->name && n < WL_MAX_OPTS; o++, n++) {
		int arg = o->kind == WL_FLAG ? no_argument : required_argument;

		lo[n] = (struct option){ o->name, arg, NULL, o->key };
		*so++ = (char)o->key;
		if (arg == required_argument)
			*so++ = ':';
	}
	lo[n] = help;
	lo[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	*so++ = 'h';
	*so = 0;
}

static void parse_args(int argc, char **argv)
{
	struct option lo[WL_MAX_OPTS + 2];
	char so[2 * WL_MAX_OPTS + 2];
	int c;

	build_getopt(lo, so);
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct wl_opt *o = prog->opts;

		if (c == 'h')
			wl_usage(0);
		while (o->name && o->key != c)
			o++;
		if (!o->name)
			wl_usage(2);
		set_opt(o, optarg);
	}
	if (optind < argc) {
		if (!(prog->flags & WL_BARE_USAGE))
			fprintf(stderr, "%s: unexpected argument '%s'\n", prog->name,
				argv[optind]);
		wl_usage(2);
	}
}

int wl_setup(const struct wl_prog *p, int argc, char **argv)
{
	prog = p;
	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IONBF, 0);
	return nu_init();
}

void wl_die(const char *what, int err)
{
	fprintf(stderr, "%s[proc %d]: %s: %s\n", prog->name, wl_proc, what, strerror(err));
	atomic_store(&wl_st->failed, 1);
	if (prog->flags & WL_DIE_STOPS)
		atomic_store(&wl_st->stop, 1);
	exit(1);
}

int wl_state_map(const char *what)
{
	struct wl_state *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (st == MAP_FAILED) {
		prog_perror(what);
		return -1;
	}
	memset(st, 0, sizeof(*st));
	wl_st = st;
	return 0;
}

/* fork() failed after @forked children: tell them, and kill or reap them. */
static void fork_failed(int forked)
{
	prog_perror("fork");
	atomic_store(&wl_st->failed, 1);
	atomic_store(&wl_st->stop, 1);
	for (int j = 0; j < forked; j++) {
		if (prog->flags & WL_FORK_KILL)
			kill(pids[j], SIGTERM);
		else
			waitpid(pids[j], NULL, 0);
	}
}

/* Wait for process @i: 1 if it ended well, 0 if not, -1 if waitpid failed. */
static int wait_proc(int i)
{
	int status;

	if (waitpid(pids[i], &status, 0) < 0) {
		if (prog->flags & WL_WAIT_PERROR)
			prog_perror("waitpid");
		return -1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status) && wl_st->done[i])
		return 1;
	fprintf(stderr, "%s: process %d failed (status 0x%x)\n", prog->name, i, status);
	atomic_store(&wl_st->stop, 1);
	return 0;
}

int wl_run(int procs, void (*child)(int i), void (*collect)(int i, int ok))
{
	int ok = 0;

	for (int i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			fork_failed(i);
			return -1;
		}
		if (!pids[i]) {
			wl_proc = i;
			child(i);
			wl_st->done[i] = 1;
			exit(0);
		}
	}
	for (int i = 0; i < procs; i++) {
		int r = wait_proc(i);

		if (r < 0)
			continue;
		ok += r;
		collect(i, r);
	}
	return ok;
}

int wl_main(const struct wl_prog *p, int argc, char **argv)
{
	uint64_t tstart;
	int nodes, r;

	nodes = wl_setup(p, argc, argv);
	if (nodes < 0)
		return 1;
	r = p->prepare(nodes);
	if (r)
		return r;
	tstart = nu_now_ms();
	r = wl_run(*p->procs, p->child, p->collect);
	if (r < 0)
		return 1;
	p->summary(r, nu_now_ms() - tstart);
	return r == *p->procs ? 0 : 1;
}

/* One step of a wait on the other processes: leave quietly if one failed. */
static void wait_step(void)
{
	if (atomic_load(&wl_st->failed))
		exit(1);
	usleep(1000);
}

uint64_t wl_barrier(int procs)
{
	if (atomic_fetch_add(&wl_st->ready, 1) + 1 == procs)
		atomic_store(&wl_st->t0_ms, nu_now_ms());
	while (!atomic_load(&wl_st->t0_ms))
		wait_step();
	return atomic_load(&wl_st->t0_ms);
}

uint64_t wl_sample_loop(uint64_t t0, int first_ms, int period_ms, int seconds,
			int (*sample)(uint64_t t_ms))
{
	uint64_t now = 0;

	for (uint64_t next = t0 + first_ms;; next += period_ms) {
		int stopping;

		now = nu_now_ms();
		if (next > now)
			usleep((next - now) * 1000);
		now = nu_now_ms();
		stopping = atomic_load(&wl_st->stop) || atomic_load(&wl_st->failed) ||
			   now - t0 >= (uint64_t)seconds * 1000;
		if (sample(now - t0) || stopping)
			break;
	}
	atomic_store(&wl_st->stop, 1);
	return now;
}

unsigned long long wl_bytes_per_s(uint64_t pages, uint64_t t0, uint64_t end)
{
	return (unsigned long long)(pages * WL_LINE * 1000 / (end > t0 ? end - t0 : 1));
}

void wl_split(struct wl_worker *ws, int n, char *buf, size_t len, size_t slice)
{
	for (int t = 0; t < n; t++) {
		ws[t].idx = t;
		if (slice) {
			ws[t].start = buf + slice * t;
			ws[t].len = t == n - 1 ? len - slice * t : slice;
		} else {
			ws[t].start = buf;
			ws[t].len = len;
		}
	}
}

void wl_start(struct wl_worker *ws, int n, void *(*fn)(void *))
{
	for (int t = 0; t < n; t++) {
		int r = pthread_create(&ws[t].tid, NULL, fn, &ws[t]);

		if (r)
			wl_die("pthread_create", r);
	}
}

void wl_wait_started(struct wl_worker *ws, int n)
{
	for (int t = 0; t < n; t++)
		while (!atomic_load(&ws[t].started))
			wait_step();
}

uint64_t wl_join(struct wl_worker *ws, int n, long *changes)
{
	uint64_t pages = 0;

	for (int t = 0; t < n; t++) {
		pthread_join(ws[t].tid, NULL);
		pages += atomic_load(&ws[t].pages);
		if (changes)
			*changes += atomic_load(&ws[t].changes);
	}
	return pages;
}

void wl_note_node(struct wl_worker *w)
{
	int n = nu_current_node();
	int old = atomic_exchange_explicit(&w->cur_node, n, memory_order_relaxed);

	if (old != n && old >= 0)
		atomic_fetch_add_explicit(&w->changes, 1, memory_order_relaxed);
}

static int stopped(void)
{
	return atomic_load_explicit(&wl_st->stop, memory_order_relaxed);
}

static void write_pass(struct wl_worker *w, uint64_t pass, int track)
{
	size_t off = (pass % (NU_PAGE_SIZE / WL_LINE)) * WL_LINE;
	uint64_t n = 0;

	for (char *p = w->start; p < w->start + w->len; p += NU_PAGE_SIZE) {
		memset(p + off, (int)pass, WL_LINE);
		if (++n < 256)
			continue;
		atomic_fetch_add_explicit(&w->pages, n, memory_order_relaxed);
		n = 0;
		if (track)
			wl_note_node(w);
		if (stopped())
			break;
	}
	atomic_fetch_add_explicit(&w->pages, n, memory_order_relaxed);
	wl_note_node(w);
}

void wl_write_loop(struct wl_worker *w, int track)
{
	for (uint64_t pass = 0; !stopped(); pass++)
		write_pass(w, pass, track);
}
