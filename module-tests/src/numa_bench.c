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
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAXP 16

enum bench { NUMA01, NUMA01_TA, NUMA02, NUMA02_SMT };
enum bind { BIND_NONE, BIND_HARD, BIND_INVERSE };
static const char *const bench_name[] = {
	"numa01", "numa01_THREAD_ALLOC", "numa02", "numa02_SMT", NULL
};
static const char *const bind_name[] = { "none", "hard", "inverse", NULL };

static struct {
	int bench, bind;
	int procs, threads, mb, seconds, sample_ms, touch_node;
} opt = { .bench = NUMA01, .bind = BIND_NONE, .mb = 64, .seconds = 20, .sample_ms = 500,
	.touch_node = -1 };

static const struct wl_opt opts[] = {
	WL_OPT_ENUM("bench", 'B', opt.bench, bench_name),
	WL_OPT_ENUM("bind", 'b', opt.bind, bind_name),
	WL_OPT_INT("procs", 'p', opt.procs, 1, MAXP),
	WL_OPT_INT("threads", 't', opt.threads, 1, WL_MAXT),
	WL_OPT_INT("mb", 'm', opt.mb, 1, 1 << 20),
	WL_OPT_INT("seconds", 's', opt.seconds, 1, 1 << 20),
	WL_OPT_INT("sample-ms", 'i', opt.sample_ms, 10, 600000),
	WL_OPT_INT("touch-node", 'n', opt.touch_node, 0, NU_MAX_NODES - 1),
	WL_OPT_END,
};

static int nodes, ncpus, nthreads, per_slice;

/* Per process: its home node, buffer and threads, and what the sampler saw. */
static int home;
static char *buf;
static size_t buf_len, slice;
static struct wl_worker w[WL_MAXT];
static struct {
	double pct, sum_pct;
	int nsamples, maj;
	long t90;
} smp;

/* The parent's sums for the summary line. */
static struct {
	int distinct, seen[NU_MAX_NODES];
	double sum, minpct;
	long changes;
	unsigned long long bps;
} tot = { .minpct = 101 };

static void touch(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += NU_PAGE_SIZE)
		p[off] = 1;
}

/* First-touch [p, p + len) on @node, then back to the default policy. */
static void touch_bound(char *p, size_t len, int node)
{
	int r = nu_bind_task_node(node);

	if (r)
		wl_die("set_mempolicy(BIND)", -r);
	touch(p, len);
	r = nu_task_policy_default();
	if (r)
		wl_die("set_mempolicy(DEFAULT)", -r);
}

/* THREAD_ALLOC / numa02: each thread first-touches its slice. */
static void touch_slice(struct wl_worker *me)
{
	int r;

	if (opt.bind == BIND_HARD) {
		r = nu_mbind_node(me->start, me->len, NU_MPOL_BIND, me->node, 0);
		if (r)
			wl_die("mbind slice", -r);
		touch(me->start, me->len);
	} else if (opt.bind == BIND_INVERSE) {
		touch_bound(me->start, me->len, (me->node + 1) % nodes);
	} else if (opt.touch_node >= 0) {
		touch_bound(me->start, me->len, opt.touch_node);
	} else {
		touch(me->start, me->len);
	}
}

/* numa01: the process buffer is first-touched by the main thread. */
static void touch_buffer(void)
{
	int r;

	if (opt.bind == BIND_HARD) {
		r = nu_mbind_node(buf, buf_len, NU_MPOL_BIND, home, 0);
		if (r)
			wl_die("mbind", -r);
	} else if (opt.bind == BIND_INVERSE) {
		r = nu_bind_task_node((home + 1) % nodes);
		if (r)
			wl_die("set_mempolicy(BIND)", -r);
	}
	if (opt.touch_node >= 0)
		touch_bound(buf, buf_len, opt.touch_node);
	else
		touch(buf, buf_len);
	r = nu_task_policy_default();
	if (r)
		wl_die("set_mempolicy(DEFAULT)", -r);
}

static void *worker_fn(void *arg)
{
	struct wl_worker *me = arg;
	int r;

	if (opt.bind != BIND_NONE) {
		r = nu_pin_to_node(me->node);
		if (r)
			wl_die("pin thread", -r);
	}
	if (per_slice)
		touch_slice(me);
	atomic_store_explicit(&me->cur_node, nu_current_node(), memory_order_relaxed);
	atomic_store(&me->started, 1);
	while (!atomic_load(&wl_st->t0_ms)) {
		if (atomic_load(&wl_st->stop))
			return NULL;
		usleep(1000);
	}
	if (opt.bind == BIND_INVERSE)
		nu_unpin();
	wl_write_loop(me, 1);
	return NULL;
}

/* thread_nodes=<n,n,...> into @s and smp.maj, the node most threads run on
 * (home on a tie).  Returns the threads' node changes. */
static long thread_nodes(char *s, size_t sz)
{
	int cnt[NU_MAX_NODES] = { 0 };
	long changes = 0;
	size_t off = 0;

	for (int t = 0; t < nthreads; t++) {
		int n = atomic_load(&w[t].cur_node);

		if (n >= 0 && n < NU_MAX_NODES)
			cnt[n]++;
		changes += atomic_load(&w[t].changes);
		off += snprintf(s + off, sz - off, "%s%d", t ? "," : "", n);
		if (off >= sz)
			off = sz - 1;
	}
	smp.maj = home;
	for (int n = 0; n < nodes; n++)
		if (cnt[n] > cnt[smp.maj])
			smp.maj = n;
	return changes;
}

/* Pages per node (@counts) and present (*present); returns the local ones:
 * per slice on the node of its thread, numa01 on smp.maj. */
static long local_pages(long *counts, long *present)
{
	long tmp[NU_MAX_NODES], absent, local = 0;

	if (!per_slice) {
		*present = nu_page_nodes(buf, buf_len, counts, &absent);
		if (*present < 0)
			wl_die("move_pages", (int)-*present);
		return counts[smp.maj];
	}
	memset(counts, 0, sizeof(long) * NU_MAX_NODES);
	*present = 0;
	for (int t = 0; t < nthreads; t++) {
		long p = nu_page_nodes(w[t].start, w[t].len, tmp, &absent);
		int n = atomic_load(&w[t].cur_node);

		if (p < 0)
			wl_die("move_pages", (int)-p);
		*present += p;
		for (int k = 0; k < NU_MAX_NODES; k++)
			counts[k] += tmp[k];
		if (n >= 0 && n < NU_MAX_NODES)
			local += tmp[n];
	}
	return local;
}

static int sample(uint64_t t_ms)
{
	long counts[NU_MAX_NODES], local, present, changes;
	char nodes_s[1024], pages_s[512];

	changes = thread_nodes(nodes_s, sizeof(nodes_s));
	local = local_pages(counts, &present);
	smp.pct = nu_pct(local, present);
	smp.sum_pct += smp.pct;
	smp.nsamples++;
	if (smp.t90 < 0 && smp.pct >= 90.0)
		smp.t90 = (long)t_ms;
	nu_fmt_counts(pages_s, sizeof(pages_s), counts, nodes);
	nu_out("sample bench=%s proc=%d t_ms=%llu local_pct=%.1f maj_node=%d thread_nodes=%s node_pages=%s node_changes=%ld\n",
	       bench_name[opt.bench], wl_proc, (unsigned long long)t_ms, smp.pct, smp.maj,
	       nodes_s, pages_s, changes);
	return 0;
}

static void start_workers(void)
{
	wl_split(w, nthreads, buf, buf_len, per_slice ? slice : 0);
	for (int t = 0; t < nthreads; t++) {
		w[t].node = per_slice && opt.bench != NUMA01_TA ? t * nodes / nthreads : home;
		atomic_store(&w[t].cur_node, -1);
	}
	wl_start(w, nthreads, worker_fn);
}

static void report(int i, uint64_t t0, uint64_t end)
{
	struct wl_result *res = &wl_st->res[i];
	long changes = 0;
	uint64_t pages = wl_join(w, nthreads, &changes);
	unsigned long long bps = wl_bytes_per_s(pages, t0, end);

	nu_out("result bench=%s bind=%s proc=%d threads=%d final_pct=%.1f avg_pct=%.1f t90_ms=%ld maj_node=%d node_changes=%ld bytes_per_s=%llu\n",
	       bench_name[opt.bench], bind_name[opt.bind], i, nthreads, smp.pct,
	       smp.nsamples ? smp.sum_pct / smp.nsamples : 0.0, smp.t90, smp.maj, changes, bps);
	res->final_pct = smp.pct;
	res->maj_node = smp.maj;
	res->changes = changes;
	res->bps = bps;
}

static void run_proc(int i)
{
	uint64_t t0, end;

	home = i % nodes;
	smp.maj = home;
	smp.t90 = -1;
	buf_len = (size_t)opt.mb << 20;
	buf = nu_mmap_aligned(buf_len, MAP_PRIVATE);
	if (buf == MAP_FAILED)
		wl_die("mmap", errno);
	slice = nu_slice_size(buf_len, nthreads);
	if (!slice)
		wl_die("buffer too small for the thread count", EINVAL);
	if (!per_slice)
		touch_buffer();
	start_workers();
	wl_wait_started(w, nthreads);
	t0 = wl_barrier(opt.procs);
	end = wl_sample_loop(t0, opt.sample_ms, opt.sample_ms, opt.seconds, sample);
	report(i, t0, end);
}

static void collect(int i, int ok)
{
	const struct wl_result *res = &wl_st->res[i];

	if (!ok)
		return;
	tot.sum += res->final_pct;
	if (res->final_pct < tot.minpct)
		tot.minpct = res->final_pct;
	tot.changes += res->changes;
	tot.bps += res->bps;
	if (res->maj_node >= 0 && res->maj_node < NU_MAX_NODES && !tot.seen[res->maj_node]++)
		tot.distinct++;
}

static int default_threads(void)
{
	int n;

	if (opt.threads)
		n = opt.threads;
	else if (opt.bench == NUMA02)
		n = ncpus;
	else if (opt.bench == NUMA02_SMT)
		n = ncpus / 2;
	else
		n = ncpus / opt.procs;
	if (n < 1)
		n = 1;
	return n > WL_MAXT ? WL_MAXT : n;
}

/* Shape defaults, option checks, the state and the config line. */
static int prepare(int nr_nodes)
{
	nodes = nr_nodes;
	for (int n = 0; n < nodes; n++)
		ncpus += nu_node_cpus(n, NULL);
	per_slice = opt.bench != NUMA01;
	if (!opt.procs)
		opt.procs = (opt.bench == NUMA01 || opt.bench == NUMA01_TA) ? 2 : 1;
	nthreads = default_threads();
	if (opt.touch_node >= nodes || (opt.touch_node >= 0 && opt.bind != BIND_NONE)) {
		fprintf(stderr, "numa_bench: --touch-node %d needs --bind none and < %d\n",
			opt.touch_node, nodes);
		return 2;
	}
	if (opt.bind != BIND_NONE && nodes < 2) {
		fprintf(stderr, "numa_bench: --bind %s needs >= 2 nodes\n", bind_name[opt.bind]);
		return 1;
	}
	if (wl_state_map("mmap"))
		return 1;
	nu_out("config bench=%s bind=%s procs=%d threads=%d mb=%d nodes=%d cpus=%d seconds=%d sample_ms=%d query=%s\n",
	       bench_name[opt.bench], bind_name[opt.bind], opt.procs, nthreads, opt.mb, nodes,
	       ncpus, opt.seconds, opt.sample_ms, nu_page_query_method());
	return 0;
}

static void summary(int ok, uint64_t elapsed_ms)
{
	nu_out("summary bench=%s bind=%s procs=%d ok=%d avg_final_pct=%.1f min_final_pct=%.1f distinct_maj_nodes=%d node_changes=%ld bytes_per_s=%llu elapsed_ms=%llu\n",
	       bench_name[opt.bench], bind_name[opt.bind], opt.procs, ok, ok ? tot.sum / ok : 0.0,
	       ok ? tot.minpct : 0.0, tot.distinct, tot.changes, tot.bps,
	       (unsigned long long)elapsed_ms);
}

static const struct wl_prog prog = {
	.name = "numa_bench",
	.usage =
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
	"Output format: see the comment at the top of numa_bench.c\n",
	.opts = opts,
	.flags = WL_DIE_STOPS,
	.procs = &opt.procs,
	.prepare = prepare,
	.child = run_proc,
	.collect = collect,
	.summary = summary,
};

int main(int argc, char **argv)
{
	return wl_main(&prog, argc, argv);
}
