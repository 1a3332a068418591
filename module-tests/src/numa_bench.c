// SPDX-License-Identifier: GPL-2.0
/*
 * numa_bench - autonuma-benchmark shaped workloads, sized for a TCG guest.
 *
 * Shapes (--bench):
 *   numa01               2 processes (--procs), each with nr_cpus/procs
 *                        threads that all write the one buffer of their
 *                        process (--mb MiB per process, default 64).
 *   numa01_THREAD_ALLOC  same processes/threads, but every thread writes only
 *                        its own slice of the process buffer (1/T of it),
 *                        first-touched by that thread.
 *   numa02               1 process, one thread per CPU, each its own slice
 *                        of the --mb MiB buffer.
 *   numa02_SMT           1 process, nr_cpus/2 threads, each its own slice.
 * --threads overrides the threads per process, --procs the process count.
 *
 * Every thread has an "intended" node: for numa01* the node of its process
 * (proc i -> node i % nodes), for numa02* thread j of T -> node j*nodes/T.
 * Binding (--bind):
 *   none     nothing pinned or bound: numa01 buffers are first-touched by the
 *            (unpinned) main thread, slices by their own (unpinned) thread.
 *   hard     threads pinned to their intended node for the whole run, memory
 *            mbind(MPOL_BIND) to the same node before the first touch (the
 *            best case, for reference).
 *   inverse  memory first-touched bound to the wrong node ((intended+1) %
 *            nodes), then the policy is reset to MPOL_DEFAULT; each thread
 *            starts on its intended node and is unpinned before writing, so
 *            the balancer must fix placement (move memory or threads).
 * --touch-node N first-touches all memory bound to node N (then the default
 * policy again), with --bind none.
 * Threads are never pinned except with --bind hard.
 *
 * Each thread writes one 64-byte line per 4K page of its range, looping, and
 * records sched_getcpu() -> node every 256 pages, counting node changes.
 * The main thread of each process samples every --sample-ms (default 500):
 *   locality = numa01: pages of the buffer on the majority node of the
 *              process's threads / present pages;
 *              per-slice shapes: sum over threads of pages of its slice on the
 *              node the thread currently runs on / present pages.
 *
 * OUTPUT (stdout, key=value lines, each written atomically):
 *   config bench=<name> bind=<none|hard|inverse> procs=<P> threads=<T> mb=<M>
 *          nodes=<N> cpus=<C> seconds=<S> sample_ms=<ms>
 *          query=<pagemap|move_pages>   (page->node method, see numa_util.h)
 *   sample bench=<name> proc=<i> t_ms=<ms> local_pct=<x.x> maj_node=<n>
 *          thread_nodes=<n,n,...> node_pages=<n0,n1,...> node_changes=<n>
 *   result bench=<name> bind=<mode> proc=<i> threads=<T> final_pct=<x.x>
 *          avg_pct=<x.x> t90_ms=<ms|-1> maj_node=<n> node_changes=<n>
 *          bytes_per_s=<n>
 *   summary bench=<name> bind=<mode> procs=<P> ok=<n> avg_final_pct=<x.x>
 *          min_final_pct=<x.x> distinct_maj_nodes=<n> node_changes=<n>
 *          bytes_per_s=<n> elapsed_ms=<ms>
 * t_ms counts from the start of the write phase; avg_pct is the mean of all
 * samples; bytes_per_s counts 64 bytes per page write (higher is better);
 * node_changes counts thread migrations between nodes seen by the threads.
 * Exit 0 if it ran, 1 on setup errors, 2 on bad usage.
 */
#include "numa_util.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXP 16
#define MAXT 256
#define LINE 64

enum bench { NUMA01, NUMA01_TA, NUMA02, NUMA02_SMT };
enum bind { BIND_NONE, BIND_HARD, BIND_INVERSE };
static const char *bench_name[] = { "numa01", "numa01_THREAD_ALLOC", "numa02", "numa02_SMT" };
static const char *bind_name[] = { "none", "hard", "inverse" };

static struct {
	enum bench bench;
	enum bind bind;
	int procs, threads, mb, seconds, sample_ms, touch_node;
} opt = { .bench = NUMA01, .bind = BIND_NONE, .mb = 64, .seconds = 20, .sample_ms = 500,
	.touch_node = -1 };

struct shared_state {
	atomic_int stop;
	atomic_int ready;
	atomic_int failed;
	_Atomic uint64_t t0_ms;
	double final_pct[MAXP];
	int maj_node[MAXP];
	long changes[MAXP];
	unsigned long long bps[MAXP];
	int done[MAXP];
};

static struct shared_state *st;
static int nodes, ncpus, proc_idx, per_slice;
static char *buf;
static size_t buf_len;

struct worker {
	pthread_t tid;
	int idx, node;		/* intended node */
	char *start;
	size_t len;
	atomic_int started;
	atomic_int cur_node;
	_Atomic long changes;
	_Atomic uint64_t pages;
};
static struct worker w[MAXT];

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: numa_bench [options]\n"
		"  --bench numa01|numa01_THREAD_ALLOC|numa02|numa02_SMT (default numa01)\n"
		"  --bind none|hard|inverse   (default none)\n"
		"  --procs P       processes (default 2 for numa01*, 1 for numa02*)\n"
		"  --threads T     threads per process (default by shape, see source)\n"
		"  --mb M          MiB per process (default 64)\n"
		"  --seconds S     run time (default 20)\n"
		"  --sample-ms MS  sample period (default 500)\n"
		"  --touch-node N  first-touch all memory on node N (with --bind none)\n"
		"  --help\n"
		"Output format: see the comment at the top of numa_bench.c\n");
	exit(code);
}

static int parse_int(const char *s, const char *name, int min, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "numa_bench: bad %s '%s' (%d..%d)\n", name, s, min, max);
		exit(2);
	}
	return (int)v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bench", required_argument, 0, 'B' },
		{ "bind", required_argument, 0, 'b' },
		{ "procs", required_argument, 0, 'p' },
		{ "threads", required_argument, 0, 't' },
		{ "mb", required_argument, 0, 'm' },
		{ "seconds", required_argument, 0, 's' },
		{ "sample-ms", required_argument, 0, 'i' },
		{ "touch-node", required_argument, 0, 'n' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c, found;

	while ((c = getopt_long(argc, argv, "B:b:p:t:m:s:i:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'B':
			found = 0;
			for (int i = 0; i < 4; i++)
				if (!strcmp(optarg, bench_name[i])) {
					opt.bench = i;
					found = 1;
				}
			if (!found) {
				fprintf(stderr, "numa_bench: bad --bench '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'b':
			found = 0;
			for (int i = 0; i < 3; i++)
				if (!strcmp(optarg, bind_name[i])) {
					opt.bind = i;
					found = 1;
				}
			if (!found) {
				fprintf(stderr, "numa_bench: bad --bind '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'p': opt.procs = parse_int(optarg, "--procs", 1, MAXP); break;
		case 't': opt.threads = parse_int(optarg, "--threads", 1, MAXT); break;
		case 'm': opt.mb = parse_int(optarg, "--mb", 1, 1 << 20); break;
		case 's': opt.seconds = parse_int(optarg, "--seconds", 1, 1 << 20); break;
		case 'i': opt.sample_ms = parse_int(optarg, "--sample-ms", 10, 600000); break;
		case 'n': opt.touch_node = parse_int(optarg, "--touch-node", 0, NU_MAX_NODES - 1); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "numa_bench: unexpected argument '%s'\n", argv[optind]);
		usage(2);
	}
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "numa_bench[proc %d]: %s: %s\n", proc_idx, what, strerror(err));
	atomic_store(&st->failed, 1);
	atomic_store(&st->stop, 1);
	exit(1);
}

static void touch(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += NU_PAGE_SIZE)
		p[off] = 1;
}

/* First-touch [p, p + len) on --touch-node, then back to the default policy. */
static void touch_on_node(char *p, size_t len)
{
	int r = nu_bind_task_node(opt.touch_node);

	if (r)
		fail("set_mempolicy(BIND)", -r);
	touch(p, len);
	r = nu_task_policy_default();
	if (r)
		fail("set_mempolicy(DEFAULT)", -r);
}

static void note_node(struct worker *me)
{
	int n = nu_current_node();
	int old = atomic_exchange_explicit(&me->cur_node, n, memory_order_relaxed);

	if (old != n && old >= 0)
		atomic_fetch_add_explicit(&me->changes, 1, memory_order_relaxed);
}

static void *worker_fn(void *arg)
{
	struct worker *me = arg;
	int wrong = (me->node + 1) % nodes, r;
	uint64_t pass = 0;

	if (opt.bind != BIND_NONE) {
		r = nu_pin_to_node(me->node);
		if (r)
			fail("pin thread", -r);
	}
	if (per_slice) {
		/* THREAD_ALLOC / numa02: each thread first-touches its slice. */
		if (opt.bind == BIND_HARD) {
			r = nu_mbind_node(me->start, me->len, NU_MPOL_BIND, me->node, 0);
			if (r)
				fail("mbind slice", -r);
			touch(me->start, me->len);
		} else if (opt.bind == BIND_INVERSE) {
			r = nu_bind_task_node(wrong);
			if (r)
				fail("set_mempolicy(BIND)", -r);
			touch(me->start, me->len);
			r = nu_task_policy_default();
			if (r)
				fail("set_mempolicy(DEFAULT)", -r);
		} else if (opt.touch_node >= 0) {
			touch_on_node(me->start, me->len);
		} else {
			touch(me->start, me->len);
		}
	}
	atomic_store_explicit(&me->cur_node, nu_current_node(), memory_order_relaxed);
	atomic_store(&me->started, 1);
	while (!atomic_load(&st->t0_ms)) {
		if (atomic_load(&st->stop))
			return NULL;
		usleep(1000);
	}
	if (opt.bind == BIND_INVERSE)
		nu_unpin();
	while (!atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		size_t off = (pass % (NU_PAGE_SIZE / LINE)) * LINE;
		uint64_t n = 0;

		for (char *p = me->start; p < me->start + me->len; p += NU_PAGE_SIZE) {
			memset(p + off, (int)pass, LINE);
			if (++n == 256) {
				atomic_fetch_add_explicit(&me->pages, n, memory_order_relaxed);
				n = 0;
				note_node(me);
				if (atomic_load_explicit(&st->stop, memory_order_relaxed))
					break;
			}
		}
		atomic_fetch_add_explicit(&me->pages, n, memory_order_relaxed);
		note_node(me);
		pass++;
	}
	return NULL;
}

static void run_proc(int i, int nthreads)
{
	int home = i % nodes, r, maj = home;
	long counts[NU_MAX_NODES], tmp[NU_MAX_NODES], absent, present = 0, t90 = -1;
	double pct = 0, sum_pct = 0;
	int nsamples = 0;
	uint64_t t0, now = 0;
	size_t slice;
	char nodes_s[1024], pages_s[512];

	proc_idx = i;
	buf_len = (size_t)opt.mb << 20;
	buf = nu_mmap_aligned(buf_len, MAP_PRIVATE);
	if (buf == MAP_FAILED)
		fail("mmap", errno);
	slice = nu_slice_size(buf_len, nthreads);
	if (!slice)
		fail("buffer too small for the thread count", EINVAL);

	if (!per_slice) {
		/* numa01: the process buffer is first-touched by the main thread. */
		if (opt.bind == BIND_HARD) {
			r = nu_mbind_node(buf, buf_len, NU_MPOL_BIND, home, 0);
			if (r)
				fail("mbind", -r);
		} else if (opt.bind == BIND_INVERSE) {
			r = nu_bind_task_node((home + 1) % nodes);
			if (r)
				fail("set_mempolicy(BIND)", -r);
		}
		if (opt.touch_node >= 0)
			touch_on_node(buf, buf_len);
		else
			touch(buf, buf_len);
		r = nu_task_policy_default();
		if (r)
			fail("set_mempolicy(DEFAULT)", -r);
	}
	for (int t = 0; t < nthreads; t++) {
		w[t].idx = t;
		w[t].node = per_slice && opt.bench != NUMA01_TA ? t * nodes / nthreads : home;
		atomic_store(&w[t].cur_node, -1);
		if (per_slice) {
			w[t].start = buf + slice * t;
			w[t].len = t == nthreads - 1 ? buf_len - slice * t : slice;
		} else {
			w[t].start = buf;
			w[t].len = buf_len;
		}
		r = pthread_create(&w[t].tid, NULL, worker_fn, &w[t]);
		if (r)
			fail("pthread_create", r);
	}
	for (int t = 0; t < nthreads; t++)
		while (!atomic_load(&w[t].started)) {
			if (atomic_load(&st->failed))
				exit(1);
			usleep(1000);
		}
	if (atomic_fetch_add(&st->ready, 1) + 1 == opt.procs)
		atomic_store(&st->t0_ms, nu_now_ms());
	while (!atomic_load(&st->t0_ms)) {
		if (atomic_load(&st->failed))
			exit(1);
		usleep(1000);
	}
	t0 = atomic_load(&st->t0_ms);

	for (uint64_t next = t0 + opt.sample_ms;; next += opt.sample_ms) {
		int cnt[NU_MAX_NODES] = { 0 }, stopping;
		long local = 0, changes = 0;
		size_t off = 0;

		now = nu_now_ms();
		if (next > now)
			usleep((next - now) * 1000);
		now = nu_now_ms();
		stopping = atomic_load(&st->stop) || atomic_load(&st->failed) ||
			   now - t0 >= (uint64_t)opt.seconds * 1000;

		for (int t = 0; t < nthreads; t++) {
			int n = atomic_load(&w[t].cur_node);

			if (n >= 0 && n < NU_MAX_NODES)
				cnt[n]++;
			changes += atomic_load(&w[t].changes);
			off += snprintf(nodes_s + off, sizeof(nodes_s) - off, "%s%d", t ? "," : "", n);
			if (off >= sizeof(nodes_s))
				off = sizeof(nodes_s) - 1;
		}
		maj = home;
		for (int n = 0; n < nodes; n++)
			if (cnt[n] > cnt[maj])
				maj = n;
		if (per_slice) {
			memset(counts, 0, sizeof(counts));
			present = 0;
			for (int t = 0; t < nthreads; t++) {
				long p = nu_page_nodes(w[t].start, w[t].len, tmp, &absent);
				int n = atomic_load(&w[t].cur_node);

				if (p < 0)
					fail("move_pages", (int)-p);
				present += p;
				for (int k = 0; k < NU_MAX_NODES; k++)
					counts[k] += tmp[k];
				if (n >= 0 && n < NU_MAX_NODES)
					local += tmp[n];
			}
		} else {
			present = nu_page_nodes(buf, buf_len, counts, &absent);
			if (present < 0)
				fail("move_pages", (int)-present);
			local = counts[maj];
		}
		pct = nu_pct(local, present);
		sum_pct += pct;
		nsamples++;
		if (t90 < 0 && pct >= 90.0)
			t90 = (long)(now - t0);
		nu_fmt_counts(pages_s, sizeof(pages_s), counts, nodes);
		nu_out("sample bench=%s proc=%d t_ms=%llu local_pct=%.1f maj_node=%d thread_nodes=%s node_pages=%s node_changes=%ld\n",
		       bench_name[opt.bench], i, (unsigned long long)(now - t0), pct, maj, nodes_s,
		       pages_s, changes);
		if (stopping)
			break;
	}
	atomic_store(&st->stop, 1);

	uint64_t pages = 0;
	long changes = 0;

	for (int t = 0; t < nthreads; t++) {
		pthread_join(w[t].tid, NULL);
		pages += atomic_load(&w[t].pages);
		changes += atomic_load(&w[t].changes);
	}
	unsigned long long bps = (unsigned long long)(pages * LINE * 1000 / (now > t0 ? now - t0 : 1));

	nu_out("result bench=%s bind=%s proc=%d threads=%d final_pct=%.1f avg_pct=%.1f t90_ms=%ld maj_node=%d node_changes=%ld bytes_per_s=%llu\n",
	       bench_name[opt.bench], bind_name[opt.bind], i, nthreads, pct,
	       nsamples ? sum_pct / nsamples : 0.0, t90, maj, changes, bps);
	st->final_pct[i] = pct;
	st->maj_node[i] = maj;
	st->changes[i] = changes;
	st->bps[i] = bps;
	st->done[i] = 1;
	exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[MAXP];
	int nthreads, ok = 0, distinct = 0, seen[NU_MAX_NODES] = { 0 };
	double sum = 0, minpct = 101;
	long changes = 0;
	unsigned long long bps = 0;
	uint64_t tstart;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IONBF, 0);
	nodes = nu_init();
	if (nodes < 0)
		return 1;
	ncpus = 0;
	for (int n = 0; n < nodes; n++)
		ncpus += nu_node_cpus(n, NULL);
	per_slice = opt.bench != NUMA01;
	if (!opt.procs)
		opt.procs = (opt.bench == NUMA01 || opt.bench == NUMA01_TA) ? 2 : 1;
	if (opt.threads)
		nthreads = opt.threads;
	else if (opt.bench == NUMA02)
		nthreads = ncpus;
	else if (opt.bench == NUMA02_SMT)
		nthreads = ncpus / 2;
	else
		nthreads = ncpus / opt.procs;
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > MAXT)
		nthreads = MAXT;
	if (opt.touch_node >= nodes || (opt.touch_node >= 0 && opt.bind != BIND_NONE)) {
		fprintf(stderr, "numa_bench: --touch-node %d needs --bind none and < %d\n",
			opt.touch_node, nodes);
		return 2;
	}
	if (opt.bind != BIND_NONE && nodes < 2) {
		fprintf(stderr, "numa_bench: --bind %s needs >= 2 nodes\n", bind_name[opt.bind]);
		return 1;
	}
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		perror("numa_bench: mmap");
		return 1;
	}
	memset(st, 0, sizeof(*st));
	nu_out("config bench=%s bind=%s procs=%d threads=%d mb=%d nodes=%d cpus=%d seconds=%d sample_ms=%d query=%s\n",
	       bench_name[opt.bench], bind_name[opt.bind], opt.procs, nthreads, opt.mb, nodes,
	       ncpus, opt.seconds, opt.sample_ms, nu_page_query_method());
	tstart = nu_now_ms();
	for (int i = 0; i < opt.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("numa_bench: fork");
			atomic_store(&st->failed, 1);
			atomic_store(&st->stop, 1);
			for (int j = 0; j < i; j++)
				waitpid(pids[j], NULL, 0);
			return 1;
		}
		if (!pids[i])
			run_proc(i, nthreads);
	}
	for (int i = 0; i < opt.procs; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) < 0)
			continue;
		if (WIFEXITED(status) && !WEXITSTATUS(status) && st->done[i]) {
			ok++;
			sum += st->final_pct[i];
			if (st->final_pct[i] < minpct)
				minpct = st->final_pct[i];
			changes += st->changes[i];
			bps += st->bps[i];
			if (st->maj_node[i] >= 0 && st->maj_node[i] < NU_MAX_NODES &&
			    !seen[st->maj_node[i]]++)
				distinct++;
		} else {
			fprintf(stderr, "numa_bench: process %d failed (status 0x%x)\n", i, status);
			atomic_store(&st->stop, 1);
		}
	}
	nu_out("summary bench=%s bind=%s procs=%d ok=%d avg_final_pct=%.1f min_final_pct=%.1f distinct_maj_nodes=%d node_changes=%ld bytes_per_s=%llu elapsed_ms=%llu\n",
	       bench_name[opt.bench], bind_name[opt.bind], opt.procs, ok, ok ? sum / ok : 0.0,
	       ok ? minpct : 0.0, distinct, changes, bps,
	       (unsigned long long)(nu_now_ms() - tstart));
	return ok == opt.procs ? 0 : 1;
}
