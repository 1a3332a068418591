// SPDX-License-Identifier: GPL-2.0
/*
 * numa_mfc - "memory follows CPU" workload for NUMA balancing tests.
 *
 * P processes (fork), each with T writer threads pinned to the CPUs of its
 * home node (process i -> node i % nodes, or --node N for all).  The memory
 * each process writes is first-touched somewhere chosen by --start:
 *   remote       bound (MPOL_BIND task policy) to the node after the home node
 *                ((home+1) % nodes) during first touch, then the policy is
 *                reset to MPOL_DEFAULT, so NUMA balancing may move it home;
 *   local        first-touched on the home node (control: nothing to do);
 *   cpu-follows  like remote, but the writer threads, created on the home
 *                node, are allowed on every CPU before their first write, so
 *                either the memory or the threads may move; locality is then
 *                measured against the node where the majority of the
 *                process's writers run.
 * --mbind-remote keeps the region bound (mbind MPOL_BIND) to the remote node
 * after the first touch: a balancer that respects mempolicy must NOT move it.
 * --interleave sets an MPOL_INTERLEAVE task policy over all nodes after the
 * first touch (instead of MPOL_DEFAULT), which the writer threads inherit:
 * with --map-shared that is the policy of the shmem buffer at fault time,
 * and without MPOL_F_MOF a balancer must NOT move its pages.
 *
 * Memory: by default each process mmaps its own private anonymous buffer of
 * --mb MiB.  With --map-shared one MAP_SHARED|MAP_ANONYMOUS buffer of P*mb MiB
 * is created before fork; process i uses the i-th mb-MiB region of it (the
 * whole buffer with --shared), and all processes run on the same node (node 0,
 * or --node N).  Writers either each write their own 1/T slice of the
 * process's region (default, "slices") or all write the whole region
 * (--shared, "shared").  A write is one 64-byte cache line per 4K page, the
 * line offset rotating every pass, looping until the run stops.
 *
 * A sampler thread per process queries the node of every page of the region
 * with move_pages(2) every --sample-ms.  The run stops after --seconds, or
 * earlier once every process is at --target percent locality or above
 * (0 = never), each of them without a sample below it for the last --hold
 * ms.  A process stopped by another one keeps its last sample as final.
 *
 * OUTPUT (stdout, one line each, key=value, written atomically):
 *   config procs=<P> threads=<T> mb=<M> start=<remote|local|cpu-follows>
 *          write=<slices|shared> map=<private|shared> thp=<always|never|default>
 *          mbind_remote=<0|1> interleave=<0|1> nodes=<N> target=<pct> hold_ms=<ms>
 *          seconds=<S> sample_ms=<ms>
 *          query=<pagemap|move_pages>   (page->node method, see numa_util.h)
 *   proc proc=<i> pid=<pid> node=<home node> mem_node=<first-touch node> pages=<n>
 *   sample proc=<i> t_ms=<ms> local_pct=<x.x> pages=<n> node_pages=<n0>,<n1>,...
 *          [ref_node=<n>]   (ref_node only with cpu-follows)
 *   result proc=<i> node=<n> final_pct=<x.x> t90_ms=<ms|-1> t95_ms=<ms|-1>
 *          pages=<n> bytes_per_s=<n>
 *   summary procs=<P> ok=<n> min_final_pct=<x.x> max_t90_ms=<ms|-1>
 *          reached_target=<0|1> elapsed_ms=<ms>
 * t_ms is measured from the moment all processes finished their first touch
 * (the t_ms=0 sample is the initial placement).  t90/t95 are the first sample
 * times at which local_pct >= 90/95 (-1 if never).  pages counts present
 * pages; node_pages the pages per node 0..N-1.
 *
 * Exit: 0 if the workload ran (tests judge the output), 1 on setup errors,
 * 2 on bad usage.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

enum start_mode { START_REMOTE, START_LOCAL, START_CPU_FOLLOWS };
enum thp_mode { THP_DEFAULT, THP_ALWAYS, THP_NEVER };
static const char *const start_name[] = { "remote", "local", "cpu-follows", NULL };
static const char *const thp_name[] = { "default", "always", "never", NULL };

static struct {
	int procs, threads, mb, seconds, target, hold_ms, sample_ms, node;
	int start, thp;
	int shared, map_shared, mbind_remote, interleave;
} opt = {
	.procs = 2, .threads = 2, .mb = 64, .seconds = 30, .target = 0,
	.sample_ms = 500, .node = -1, .start = START_REMOTE, .thp = THP_DEFAULT,
};

static const struct wl_opt opts[] = {
	WL_OPT_INT("procs", 'p', opt.procs, 1, WL_MAXP),
	WL_OPT_INT("threads", 't', opt.threads, 1, WL_MAXT),
	WL_OPT_INT("mb", 'm', opt.mb, 1, 1 << 20),
	WL_OPT_INT("seconds", 's', opt.seconds, 1, 1 << 20),
	WL_OPT_ENUM("start", 'S', opt.start, start_name),
	WL_OPT_FLAG("shared", 'x', opt.shared, 1),
	WL_OPT_FLAG("map-shared", 'M', opt.map_shared, 1),
	WL_OPT_FLAG("interleave", 'I', opt.interleave, 1),
	WL_OPT_FLAG("mbind-remote", 'b', opt.mbind_remote, 1),
	WL_OPT_ENUM("thp", 'H', opt.thp, thp_name),
	WL_OPT_INT("target", 'T', opt.target, 0, 100),
	WL_OPT_INT("hold", 'o', opt.hold_ms, 0, 600000),
	WL_OPT_INT("sample-ms", 'i', opt.sample_ms, 10, 600000),
	WL_OPT_INT("node", 'n', opt.node, 0, NU_MAX_NODES - 1),
	WL_OPT_END,
};

static int nodes;
static char *shbuf;		/* --map-shared: the buffer of all processes */

/* Per process: its home and memory node, region and writers, and what the
 * sampler saw. */
static char *region;
static size_t region_len;
static int home, mem_node;
static struct wl_worker workers[WL_MAXT];
static struct {
	double pct;
	long t90, t95, present, since;
	int ref, taken;
} smp;

/* The parent's figures for the summary line. */
static struct {
	double minpct;
	long maxt90;
	int reached;
} tot = { .minpct = 101.0, .maxt90 = 0, .reached = 1 };

static void *writer(void *arg)
{
	/* Writers start pinned at home; cpu-follows releases them at once. */
	int r = nu_pin_to_node(home);

	if (r)
		wl_die("pin writer to home node", -r);
	if (opt.start == START_CPU_FOLLOWS)
		nu_unpin();
	wl_write_loop(arg, 0);
	return NULL;
}

/* Majority node of the writers (cpu-follows reference node). */
static int majority_node(void)
{
	int cnt[NU_MAX_NODES] = { 0 }, best = home;

	for (int t = 0; t < opt.threads; t++) {
		int n = atomic_load(&workers[t].cur_node);

		if (n >= 0 && n < NU_MAX_NODES)
			cnt[n]++;
	}
	for (int n = 0; n < nodes; n++)
		if (cnt[n] > cnt[best])
			best = n;
	return best;
}

/* THP mode of the buffer, before its first touch.  Without
 * CONFIG_ADVISE_SYSCALLS madvise() is ENOSYS: "never" then falls back to
 * prctl(PR_SET_THP_DISABLE) (whole process), "always" is accepted only if
 * the system-wide THP mode already is "always". */
static void set_thp(void *addr, size_t len)
{
	int adv = opt.thp == THP_ALWAYS ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
	char mode[128] = "";
	FILE *f;

	if (!madvise(addr, len, adv))
		return;
	if (errno != ENOSYS && errno != EINVAL)
		wl_die(opt.thp == THP_ALWAYS ? "madvise(MADV_HUGEPAGE)" : "madvise(MADV_NOHUGEPAGE)", errno);
	if (opt.thp == THP_NEVER) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			wl_die("madvise(MADV_NOHUGEPAGE) and prctl(PR_SET_THP_DISABLE)", errno);
		if (wl_proc == 0)
			fprintf(stderr, "numa_mfc: madvise unavailable, THP disabled with prctl(PR_SET_THP_DISABLE)\n");
		return;
	}
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	if (!strstr(mode, "[always]"))
		wl_die("madvise(MADV_HUGEPAGE) (and THP is not 'always' system-wide)", ENOSYS);
	if (wl_proc == 0)
		fprintf(stderr, "numa_mfc: madvise unavailable, relying on THP 'always' system-wide\n");
}

/* Home and memory node of process @i, and its region. */
static void place(int i)
{
	size_t per = (size_t)opt.mb << 20;

	if (opt.node >= 0)
		home = opt.node;
	else
		home = opt.map_shared ? 0 : i % nodes;
	mem_node = opt.start == START_LOCAL ? home : (home + 1) % nodes;
	if (opt.map_shared) {
		region = opt.shared ? shbuf : shbuf + per * i;
		region_len = opt.shared ? per * opt.procs : per;
	} else {
		region_len = per;
		region = nu_mmap_aligned(region_len, MAP_PRIVATE);
		if (region == MAP_FAILED)
			wl_die("mmap buffer", errno);
	}
	if (opt.thp != THP_DEFAULT)
		set_thp(region, region_len);
}

/* First touch, bound to mem_node, from a thread pinned at home. */
static void first_touch(void)
{
	int r = nu_pin_to_node(home);

	if (r)
		wl_die("pin to home node", -r);
	r = nu_bind_task_node(mem_node);
	if (r)
		wl_die("set_mempolicy(MPOL_BIND)", -r);
	for (size_t off = 0; off < region_len; off += NU_PAGE_SIZE)
		region[off] = 1;
	r = opt.interleave ? nu_interleave_task(nodes) : nu_task_policy_default();
	if (r)
		wl_die(opt.interleave ? "set_mempolicy(MPOL_INTERLEAVE)" :
		       "set_mempolicy(MPOL_DEFAULT)", -r);
	if (opt.mbind_remote) {
		r = nu_mbind_node(region, region_len, NU_MPOL_BIND, mem_node, 0);
		if (r)
			wl_die("mbind(MPOL_BIND)", -r);
	}
}

static void start_writers(void)
{
	size_t slice = nu_slice_size(region_len, opt.threads);

	if (!opt.shared && slice == 0) {
		fprintf(stderr, "numa_mfc: buffer too small for %d threads\n", opt.threads);
		atomic_store(&wl_st->failed, 1);
		exit(1);
	}
	wl_split(workers, opt.threads, region, region_len, opt.shared ? 0 : slice);
	for (int t = 0; t < opt.threads; t++)
		atomic_store(&workers[t].cur_node, home);
	wl_start(workers, opt.threads, writer);
}

/*
 * Note whether this process has been at --target for --hold ms by @t_ms;
 * true when every process is.
 */
static int all_reached(uint64_t t_ms)
{
	atomic_int *mine = &wl_st->res[wl_proc].reached;
	int all = 1;

	if (smp.pct < opt.target)
		smp.since = -1;
	else if (smp.since < 0)
		smp.since = (long)t_ms;
	atomic_store(mine, smp.since >= 0 && (long)t_ms - smp.since >= opt.hold_ms);
	for (int p = 0; p < opt.procs; p++)
		all &= atomic_load(&wl_st->res[p].reached);
	return all;
}

static int sample(uint64_t t_ms)
{
	long counts[NU_MAX_NODES], absent;
	char buf[512];

	/* Another process stopped the run: its verdict saw this last sample. */
	if (smp.taken && atomic_load(&wl_st->stop))
		return 1;
	smp.taken = 1;
	smp.present = nu_page_nodes(region, region_len, counts, &absent);
	if (smp.present < 0)
		wl_die("move_pages", (int)-smp.present);
	smp.ref = opt.start == START_CPU_FOLLOWS ? majority_node() : home;
	smp.pct = nu_locality(counts, smp.ref);
	nu_fmt_counts(buf, sizeof(buf), counts, nodes);
	if (opt.start == START_CPU_FOLLOWS)
		nu_out("sample proc=%d t_ms=%llu local_pct=%.1f pages=%ld node_pages=%s ref_node=%d\n",
		       wl_proc, (unsigned long long)t_ms, smp.pct, smp.present, buf, smp.ref);
	else
		nu_out("sample proc=%d t_ms=%llu local_pct=%.1f pages=%ld node_pages=%s\n",
		       wl_proc, (unsigned long long)t_ms, smp.pct, smp.present, buf);
	if (smp.t90 < 0 && smp.pct >= 90.0)
		smp.t90 = (long)t_ms;
	if (smp.t95 < 0 && smp.pct >= 95.0)
		smp.t95 = (long)t_ms;
	return opt.target > 0 && all_reached(t_ms);
}

static void run_proc(int i)
{
	uint64_t t0, end, pages;

	smp.t90 = smp.t95 = smp.since = -1;
	place(i);
	first_touch();
	nu_out("proc proc=%d pid=%d node=%d mem_node=%d pages=%zu\n", i, (int)getpid(), home,
	       mem_node, region_len / NU_PAGE_SIZE);
	/* Barrier: all processes finished their first touch. */
	t0 = wl_barrier(opt.procs);
	start_writers();
	/* The main thread is the sampler. */
	end = wl_sample_loop(t0, 0, opt.sample_ms, opt.seconds, sample);
	pages = wl_join(workers, opt.threads, NULL);
	nu_out("result proc=%d node=%d final_pct=%.1f t90_ms=%ld t95_ms=%ld pages=%ld bytes_per_s=%llu\n",
	       i, smp.ref, smp.pct, smp.t90, smp.t95, smp.present,
	       wl_bytes_per_s(pages, t0, end));
	wl_st->res[i].final_pct = smp.pct;
	wl_st->res[i].t90_ms = smp.t90;
}

static void collect(int i, int ok)
{
	const struct wl_result *res = &wl_st->res[i];

	if (ok) {
		if (res->final_pct < tot.minpct)
			tot.minpct = res->final_pct;
		if (res->t90_ms < 0 || tot.maxt90 < 0)
			tot.maxt90 = -1;
		else if (res->t90_ms > tot.maxt90)
			tot.maxt90 = res->t90_ms;
	}
	tot.reached &= atomic_load(&res->reached);
}

/* Option checks, the state, the --map-shared buffer and the config line. */
static int prepare(int nr_nodes)
{
	nodes = nr_nodes;
	if (opt.node >= nodes) {
		fprintf(stderr, "numa_mfc: --node %d but only %d nodes\n", opt.node, nodes);
		return 2;
	}
	if (opt.start != START_LOCAL && nodes < 2) {
		fprintf(stderr, "numa_mfc: --start %s needs >= 2 NUMA nodes (have %d)\n",
			start_name[opt.start], nodes);
		return 1;
	}
	if (wl_state_map("mmap state"))
		return 1;
	if (opt.map_shared) {
		shbuf = nu_mmap_aligned((size_t)opt.mb * opt.procs << 20, MAP_SHARED);
		if (shbuf == MAP_FAILED) {
			perror("numa_mfc: mmap shared buffer");
			return 1;
		}
	}
	nu_out("config procs=%d threads=%d mb=%d start=%s write=%s map=%s thp=%s mbind_remote=%d interleave=%d nodes=%d target=%d hold_ms=%d seconds=%d sample_ms=%d query=%s\n",
	       opt.procs, opt.threads, opt.mb, start_name[opt.start],
	       opt.shared ? "shared" : "slices", opt.map_shared ? "shared" : "private",
	       thp_name[opt.thp], opt.mbind_remote, opt.interleave, nodes, opt.target, opt.hold_ms,
	       opt.seconds, opt.sample_ms, nu_page_query_method());
	return 0;
}

static void summary(int ok, uint64_t elapsed_ms)
{
	if (!ok) {
		tot.minpct = 0;
		tot.maxt90 = -1;
	}
	nu_out("summary procs=%d ok=%d min_final_pct=%.1f max_t90_ms=%ld reached_target=%d elapsed_ms=%llu\n",
	       opt.procs, ok, tot.minpct, tot.maxt90, opt.target > 0 && tot.reached,
	       (unsigned long long)elapsed_ms);
}

static const struct wl_prog prog = {
	.name = "numa_mfc",
	.usage =
	"usage: numa_mfc [options]\n"
	"  --procs P          processes (default 2)\n"
	"  --threads T        writer threads per process (default 2)\n"
	"  --mb M             MiB per process (default 64)\n"
	"  --seconds S        maximum run time (default 30)\n"
	"  --start remote|local|cpu-follows   initial placement (default remote)\n"
	"  --shared           all threads of a process write its whole buffer\n"
	"                     (default: each thread writes its own slice)\n"
	"  --map-shared       one MAP_SHARED anonymous buffer created before fork,\n"
	"                     all processes on the same node\n"
	"  --mbind-remote     keep the buffer mbind(MPOL_BIND) to the remote node\n"
	"  --interleave       MPOL_INTERLEAVE task policy after the first touch\n"
	"  --thp always|never|default   madvise(MADV_HUGEPAGE/NOHUGEPAGE)\n"
	"  --target PCT       stop once every process is at PCT% locality (0=off)\n"
	"  --hold MS          ... and has been for MS ms (default 0)\n"
	"  --sample-ms MS     sampling period (default 500)\n"
	"  --node N           home node of every process (default: proc % nodes;\n"
	"                     with --map-shared: 0)\n"
	"  --help\n"
	"Output format: see the comment at the top of numa_mfc.c\n",
	.opts = opts,
	.flags = WL_FORK_KILL | WL_WAIT_PERROR,
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
