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
 * earlier once every process reached --target percent locality (0 = never).
 *
 * OUTPUT (stdout, one line each, key=value, written atomically):
 *   config procs=<P> threads=<T> mb=<M> start=<remote|local|cpu-follows>
 *          write=<slices|shared> map=<private|shared> thp=<always|never|default>
 *          mbind_remote=<0|1> interleave=<0|1> nodes=<N> target=<pct> seconds=<S> sample_ms=<ms>
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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXP 64
#define MAXT 256
#define LINE 64

enum start_mode { START_REMOTE, START_LOCAL, START_CPU_FOLLOWS };
enum thp_mode { THP_DEFAULT, THP_ALWAYS, THP_NEVER };

static struct {
	int procs, threads, mb, seconds, target, sample_ms, node;
	enum start_mode start;
	enum thp_mode thp;
	int shared, map_shared, mbind_remote, interleave;
} opt = {
	.procs = 2, .threads = 2, .mb = 64, .seconds = 30, .target = 0,
	.sample_ms = 500, .node = -1, .start = START_REMOTE, .thp = THP_DEFAULT,
};

/* State shared by all processes (MAP_SHARED, created before fork). */
struct shared_state {
	atomic_int touched;		/* processes done with first touch */
	atomic_int failed;
	atomic_int stop;
	atomic_int reached[MAXP];
	_Atomic uint64_t t0_ms;
	double final_pct[MAXP];
	long t90[MAXP];
	int done[MAXP];
};

static struct shared_state *st;
static int nodes;

/* Per-process state. */
static char *region;
static size_t region_len;
static int proc_idx, home, mem_node;

struct worker {
	pthread_t tid;
	int idx;
	char *start;
	size_t len;
	_Atomic uint64_t pages_written;
	atomic_int cur_node;
};
static struct worker workers[MAXT];

static const char *start_name[] = { "remote", "local", "cpu-follows" };
static const char *thp_name[] = { "default", "always", "never" };

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
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
		"  --target PCT       stop once every process reached PCT%% locality (0=off)\n"
		"  --sample-ms MS     sampling period (default 500)\n"
		"  --node N           home node of every process (default: proc %% nodes;\n"
		"                     with --map-shared: 0)\n"
		"  --help\n"
		"Output format: see the comment at the top of numa_mfc.c\n");
	exit(code);
}

static int parse_int(const char *s, const char *name, int min, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "numa_mfc: bad %s '%s' (%d..%d)\n", name, s, min, max);
		exit(2);
	}
	return (int)v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "procs", required_argument, 0, 'p' },
		{ "threads", required_argument, 0, 't' },
		{ "mb", required_argument, 0, 'm' },
		{ "seconds", required_argument, 0, 's' },
		{ "start", required_argument, 0, 'S' },
		{ "shared", no_argument, 0, 'x' },
		{ "map-shared", no_argument, 0, 'M' },
		{ "interleave", no_argument, 0, 'I' },
		{ "mbind-remote", no_argument, 0, 'b' },
		{ "thp", required_argument, 0, 'H' },
		{ "target", required_argument, 0, 'T' },
		{ "sample-ms", required_argument, 0, 'i' },
		{ "node", required_argument, 0, 'n' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "p:t:m:s:S:xMIbH:T:i:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': opt.procs = parse_int(optarg, "--procs", 1, MAXP); break;
		case 't': opt.threads = parse_int(optarg, "--threads", 1, MAXT); break;
		case 'm': opt.mb = parse_int(optarg, "--mb", 1, 1 << 20); break;
		case 's': opt.seconds = parse_int(optarg, "--seconds", 1, 1 << 20); break;
		case 'T': opt.target = parse_int(optarg, "--target", 0, 100); break;
		case 'i': opt.sample_ms = parse_int(optarg, "--sample-ms", 10, 600000); break;
		case 'n': opt.node = parse_int(optarg, "--node", 0, NU_MAX_NODES - 1); break;
		case 'x': opt.shared = 1; break;
		case 'M': opt.map_shared = 1; break;
		case 'I': opt.interleave = 1; break;
		case 'b': opt.mbind_remote = 1; break;
		case 'S':
			if (!strcmp(optarg, "remote"))
				opt.start = START_REMOTE;
			else if (!strcmp(optarg, "local"))
				opt.start = START_LOCAL;
			else if (!strcmp(optarg, "cpu-follows"))
				opt.start = START_CPU_FOLLOWS;
			else {
				fprintf(stderr, "numa_mfc: bad --start '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'H':
			if (!strcmp(optarg, "always"))
				opt.thp = THP_ALWAYS;
			else if (!strcmp(optarg, "never"))
				opt.thp = THP_NEVER;
			else if (!strcmp(optarg, "default"))
				opt.thp = THP_DEFAULT;
			else {
				fprintf(stderr, "numa_mfc: bad --thp '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "numa_mfc: unexpected argument '%s'\n", argv[optind]);
		usage(2);
	}
}

static void die(const char *what, int err)
{
	fprintf(stderr, "numa_mfc[proc %d]: %s: %s\n", proc_idx, what, strerror(err));
	if (st)
		atomic_store(&st->failed, 1);
	exit(1);
}

static void *writer(void *arg)
{
	struct worker *w = arg;
	uint64_t pass = 0;
	int r;

	/* Writers start pinned at home; cpu-follows releases them at once. */
	r = nu_pin_to_node(home);
	if (r)
		die("pin writer to home node", -r);
	if (opt.start == START_CPU_FOLLOWS)
		nu_unpin();
	while (!atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		size_t off = (pass % (NU_PAGE_SIZE / LINE)) * LINE;
		uint64_t n = 0;

		for (char *p = w->start; p < w->start + w->len; p += NU_PAGE_SIZE) {
			memset(p + off, (int)pass, LINE);
			if (++n == 256) {
				atomic_fetch_add_explicit(&w->pages_written, n, memory_order_relaxed);
				n = 0;
				if (atomic_load_explicit(&st->stop, memory_order_relaxed))
					break;
			}
		}
		atomic_fetch_add_explicit(&w->pages_written, n, memory_order_relaxed);
		atomic_store_explicit(&w->cur_node, nu_current_node(), memory_order_relaxed);
		pass++;
	}
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
		die(opt.thp == THP_ALWAYS ? "madvise(MADV_HUGEPAGE)" : "madvise(MADV_NOHUGEPAGE)", errno);
	if (opt.thp == THP_NEVER) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			die("madvise(MADV_NOHUGEPAGE) and prctl(PR_SET_THP_DISABLE)", errno);
		if (proc_idx == 0)
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
		die("madvise(MADV_HUGEPAGE) (and THP is not 'always' system-wide)", ENOSYS);
	if (proc_idx == 0)
		fprintf(stderr, "numa_mfc: madvise unavailable, relying on THP 'always' system-wide\n");
}

static void run_proc(int i)
{
	long counts[NU_MAX_NODES], absent;
	uint64_t t0, now, last_bytes_t = 0;
	long t90 = -1, t95 = -1, present = 0;
	double pct = 0.0;
	int ref = 0, r;
	size_t slice;
	char buf[512];

	proc_idx = i;
	if (opt.node >= 0)
		home = opt.node;
	else
		home = opt.map_shared ? 0 : i % nodes;
	mem_node = opt.start == START_LOCAL ? home : (home + 1) % nodes;

	if (!opt.map_shared) {
		region_len = (size_t)opt.mb << 20;
		region = nu_mmap_aligned(region_len, MAP_PRIVATE);
		if (region == MAP_FAILED)
			die("mmap buffer", errno);
	}
	if (opt.thp != THP_DEFAULT)
		set_thp(region, region_len);

	/* First touch, bound to mem_node, from a thread pinned at home. */
	r = nu_pin_to_node(home);
	if (r)
		die("pin to home node", -r);
	r = nu_bind_task_node(mem_node);
	if (r)
		die("set_mempolicy(MPOL_BIND)", -r);
	for (size_t off = 0; off < region_len; off += NU_PAGE_SIZE)
		region[off] = 1;
	r = opt.interleave ? nu_interleave_task(nodes) : nu_task_policy_default();
	if (r)
		die(opt.interleave ? "set_mempolicy(MPOL_INTERLEAVE)" :
		    "set_mempolicy(MPOL_DEFAULT)", -r);
	if (opt.mbind_remote) {
		r = nu_mbind_node(region, region_len, NU_MPOL_BIND, mem_node, 0);
		if (r)
			die("mbind(MPOL_BIND)", -r);
	}
	nu_out("proc proc=%d pid=%d node=%d mem_node=%d pages=%zu\n", i, (int)getpid(), home,
	       mem_node, region_len / NU_PAGE_SIZE);

	/* Barrier: all processes finished their first touch. */
	if (atomic_fetch_add(&st->touched, 1) + 1 == opt.procs)
		atomic_store(&st->t0_ms, nu_now_ms());
	while (!atomic_load(&st->t0_ms)) {
		if (atomic_load(&st->failed))
			exit(1);
		usleep(1000);
	}
	t0 = atomic_load(&st->t0_ms);

	slice = nu_slice_size(region_len, opt.threads);
	if (!opt.shared && slice == 0) {
		fprintf(stderr, "numa_mfc: buffer too small for %d threads\n", opt.threads);
		atomic_store(&st->failed, 1);
		exit(1);
	}
	for (int t = 0; t < opt.threads; t++) {
		struct worker *w = &workers[t];

		w->idx = t;
		atomic_store(&w->cur_node, home);
		if (opt.shared) {
			w->start = region;
			w->len = region_len;
		} else {
			w->start = region + slice * t;
			w->len = t == opt.threads - 1 ? region_len - slice * t : slice;
		}
		r = pthread_create(&w->tid, NULL, writer, w);
		if (r)
			die("pthread_create", r);
	}

	/* The main thread is the sampler. */
	for (uint64_t next = t0;; next += opt.sample_ms) {
		int stopping;

		now = nu_now_ms();
		if (next > now)
			usleep((next - now) * 1000);
		now = nu_now_ms();
		stopping = atomic_load(&st->stop) || atomic_load(&st->failed) ||
			   now - t0 >= (uint64_t)opt.seconds * 1000;

		present = nu_page_nodes(region, region_len, counts, &absent);
		if (present < 0)
			die("move_pages", (int)-present);
		ref = opt.start == START_CPU_FOLLOWS ? majority_node() : home;
		pct = nu_locality(counts, ref);
		nu_fmt_counts(buf, sizeof(buf), counts, nodes);
		if (opt.start == START_CPU_FOLLOWS)
			nu_out("sample proc=%d t_ms=%llu local_pct=%.1f pages=%ld node_pages=%s ref_node=%d\n",
			       i, (unsigned long long)(now - t0), pct, present, buf, ref);
		else
			nu_out("sample proc=%d t_ms=%llu local_pct=%.1f pages=%ld node_pages=%s\n",
			       i, (unsigned long long)(now - t0), pct, present, buf);
		if (t90 < 0 && pct >= 90.0)
			t90 = (long)(now - t0);
		if (t95 < 0 && pct >= 95.0)
			t95 = (long)(now - t0);
		if (opt.target > 0) {
			atomic_store(&st->reached[i], pct >= opt.target ? 1 : atomic_load(&st->reached[i]));
			int all = 1;

			for (int p = 0; p < opt.procs; p++)
				all &= atomic_load(&st->reached[p]);
			if (all)
				stopping = 1;
		}
		if (stopping) {
			atomic_store(&st->stop, 1);
			last_bytes_t = now;
			break;
		}
	}

	uint64_t pages = 0;

	for (int t = 0; t < opt.threads; t++) {
		pthread_join(workers[t].tid, NULL);
		pages += atomic_load(&workers[t].pages_written);
	}
	{
		uint64_t ms = last_bytes_t > t0 ? last_bytes_t - t0 : 1;
		unsigned long long bps = (unsigned long long)(pages * LINE * 1000 / ms);

		nu_out("result proc=%d node=%d final_pct=%.1f t90_ms=%ld t95_ms=%ld pages=%ld bytes_per_s=%llu\n",
		       i, ref, pct, t90, t95, present, bps);
	}
	st->final_pct[i] = pct;
	st->t90[i] = t90;
	st->done[i] = 1;
	exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[MAXP];
	int ok = 0, reached = 1;
	double minpct = 101.0;
	long maxt90 = 0;
	uint64_t tstart;
	char *shbuf = NULL;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IONBF, 0);
	nodes = nu_init();
	if (nodes < 0)
		return 1;
	if (opt.node >= nodes) {
		fprintf(stderr, "numa_mfc: --node %d but only %d nodes\n", opt.node, nodes);
		return 2;
	}
	if (opt.start != START_LOCAL && nodes < 2) {
		fprintf(stderr, "numa_mfc: --start %s needs >= 2 NUMA nodes (have %d)\n",
			start_name[opt.start], nodes);
		return 1;
	}
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		perror("numa_mfc: mmap state");
		return 1;
	}
	memset(st, 0, sizeof(*st));
	if (opt.map_shared) {
		size_t len = (size_t)opt.mb * opt.procs << 20;

		shbuf = nu_mmap_aligned(len, MAP_SHARED);
		if (shbuf == MAP_FAILED) {
			perror("numa_mfc: mmap shared buffer");
			return 1;
		}
	}
	nu_out("config procs=%d threads=%d mb=%d start=%s write=%s map=%s thp=%s mbind_remote=%d interleave=%d nodes=%d target=%d seconds=%d sample_ms=%d query=%s\n",
	       opt.procs, opt.threads, opt.mb, start_name[opt.start],
	       opt.shared ? "shared" : "slices", opt.map_shared ? "shared" : "private",
	       thp_name[opt.thp], opt.mbind_remote, opt.interleave, nodes, opt.target, opt.seconds,
	       opt.sample_ms, nu_page_query_method());

	tstart = nu_now_ms();
	for (int i = 0; i < opt.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("numa_mfc: fork");
			atomic_store(&st->failed, 1);
			atomic_store(&st->stop, 1);
			for (int j = 0; j < i; j++)
				kill(pids[j], SIGTERM);
			return 1;
		}
		if (pids[i] == 0) {
			if (opt.map_shared) {
				size_t per = (size_t)opt.mb << 20;

				region = opt.shared ? shbuf : shbuf + per * i;
				region_len = opt.shared ? per * opt.procs : per;
			}
			run_proc(i);
		}
	}
	for (int i = 0; i < opt.procs; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) < 0) {
			perror("numa_mfc: waitpid");
			continue;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && st->done[i]) {
			ok++;
			if (st->final_pct[i] < minpct)
				minpct = st->final_pct[i];
			if (st->t90[i] < 0 || maxt90 < 0)
				maxt90 = -1;
			else if (st->t90[i] > maxt90)
				maxt90 = st->t90[i];
		} else {
			fprintf(stderr, "numa_mfc: process %d failed (status 0x%x)\n", i, status);
			atomic_store(&st->stop, 1);
		}
		reached &= atomic_load(&st->reached[i]);
	}
	if (!ok) {
		minpct = 0;
		maxt90 = -1;
	}
	nu_out("summary procs=%d ok=%d min_final_pct=%.1f max_t90_ms=%ld reached_target=%d elapsed_ms=%llu\n",
	       opt.procs, ok, minpct, maxt90, opt.target > 0 && reached,
	       (unsigned long long)(nu_now_ms() - tstart));
	return ok == opt.procs ? 0 : 1;
}
