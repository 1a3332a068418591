// SPDX-License-Identifier: GPL-2.0
/*
 * faultfork - page fault / fork stress, to run while a NUMA balancing policy
 * module is loaded and unloaded underneath.
 *
 * --threads T workers (default 4) loop for --seconds S (default 10):
 *   mmap --mb M MiB (default 8) private anonymous memory, write one line per
 *   page, move to another node's CPUs (round robin, unless --no-hop), write
 *   it again (so NUMA hinting faults see remote accesses), madvise
 *   MADV_DONTNEED the first half, write it again (fresh faults), munmap.
 *   Before each write every page is checked to hold what was written
 *   last (zero after MADV_DONTNEED): pages that do not count as corrupt.
 * One forker thread forks a short-lived child every --fork-ms (default 20):
 *   the child writes every page of a 1 MiB buffer inherited from the parent
 *   (COW faults), mmaps and touches 256 KiB more, and _exit(0)s; the forker
 *   reaps it.  Up to 8 children are alive at once.  With --forks N the run
 *   ends once N children were forked (or after --seconds, if sooner).
 * --churn: the mappings change under the scanner too.  Workers also
 *   mprotect their buffer read-only (and check it) and back between writes;
 *   each child repeats its writes CHURN_LOOPS times, toggling its new
 *   mapping read-only, and munmapping and remapping it, every loop, and
 *   every other child then execs this program again (--exec-child), which
 *   touches a fresh buffer CHURN_LOOPS times and exits 0.
 *
 * OUTPUT:
 *   progress t_ms=<ms> rounds=<n> forks=<n>          (about once a second)
 *   faultfork threads=<T> seconds=<S> rounds=<n> pages=<n> forks=<n>
 *             children_failed=<n> errors=<n> corrupt=<n>
 * Exit 0 if everything ran and every child exited 0, 1 otherwise, 2 on usage.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_BUF (1UL << 20)
#define CHILD_NEW (256UL << 10)
#define MAX_KIDS 8
#define CHURN_LOOPS 20

static int opt_threads = 4, opt_seconds = 10, opt_mb = 8, opt_fork_ms = 20, opt_hop = 1;
static int opt_churn, opt_forks;

static const struct wl_opt opts[] = {
	WL_OPT_INT("threads", 't', opt_threads, 1, 256),
	WL_OPT_INT("seconds", 's', opt_seconds, 1, 1 << 20),
	WL_OPT_INT("mb", 'm', opt_mb, 1, 1 << 16),
	WL_OPT_INT("fork-ms", 'f', opt_fork_ms, 0, 60000),
	WL_OPT_FLAG("no-hop", 'n', opt_hop, 0),
	WL_OPT_FLAG("churn", 'c', opt_churn, 1),
	WL_OPT_INT("forks", 'F', opt_forks, 0, 1 << 30),
	WL_OPT_END,
};

static const struct wl_prog prog = {
	.name = "faultfork",
	.usage =
	"usage: faultfork [--threads T] [--seconds S] [--mb M] [--fork-ms MS] [--no-hop] [--churn]\n"
	"                 [--forks N]\n"
	"  --threads T   worker threads (default 4)\n"
	"  --seconds S   run time (default 10)\n"
	"  --mb M        MiB mapped per worker round (default 8)\n"
	"  --fork-ms MS  fork a child every MS ms (default 20, 0 = no forks)\n"
	"  --no-hop      do not move workers between nodes\n"
	"  --churn       also mprotect, munmap/mmap and exec under the scanner\n"
	"  --forks N     end the run once N children were forked (0 = no limit)\n",
	.opts = opts,
	.flags = WL_BARE_USAGE,
};

static _Atomic long rounds, pages, forks, kids_failed, errors, corrupt;
static char *child_buf;
static int nodes;
static pthread_t tids[256], ftid;

static int stopped(void)
{
	return atomic_load(&wl_st->stop);
}

static long write_pages(char *p, size_t len, int val)
{
	long n = 0;

	for (size_t off = 0; off < len; off += NU_PAGE_SIZE, n++)
		memset(p + off, val, 64);
	return n;
}

/* Pages of [p, p+len) whose written line does not hold @val throughout. */
static long check_pages(const char *p, size_t len, int val)
{
	long bad = 0;

	for (size_t off = 0; off < len; off += NU_PAGE_SIZE)
		for (int i = 0; i < 64; i++)
			if (p[off + i] != (char)val) {
				bad++;
				break;
			}
	return bad;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	size_t len = (size_t)opt_mb << 20;
	int hop = (int)id;

	while (!stopped()) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long n, bad;

		if (p == MAP_FAILED) {
			atomic_fetch_add(&errors, 1);
			usleep(10000);
			continue;
		}
		n = write_pages(p, len, 1);
		if (opt_hop && nodes > 1)
			nu_pin_to_node(hop++ % nodes);
		if (opt_churn && mprotect(p, len, PROT_READ))
			atomic_fetch_add(&errors, 1);
		bad = check_pages(p, len, 1);
		if (opt_churn && mprotect(p, len, PROT_READ | PROT_WRITE))
			atomic_fetch_add(&errors, 1);
		n += write_pages(p, len, 2);
		if (madvise(p, len / 2, MADV_DONTNEED))
			atomic_fetch_add(&errors, 1);
		bad += check_pages(p, len / 2, 0);
		bad += check_pages(p + len / 2, len - len / 2, 2);
		n += write_pages(p, len, 3);
		bad += check_pages(p, len, 3);
		if (bad)
			atomic_fetch_add(&corrupt, bad);
		munmap(p, len);
		atomic_fetch_add(&pages, n);
		atomic_fetch_add(&rounds, 1);
	}
	return NULL;
}

static char *map_new(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* One --churn loop on the child's new mapping: read-only, back, remapped. */
static char *churn_once(char *q)
{
	if (mprotect(q, CHILD_NEW, PROT_READ) || check_pages(q, CHILD_NEW, 8) ||
	    mprotect(q, CHILD_NEW, PROT_READ | PROT_WRITE))
		_exit(4);
	munmap(q, CHILD_NEW);
	q = map_new(CHILD_NEW);
	if (q == MAP_FAILED)
		_exit(3);
	write_pages(q, CHILD_NEW, 8);
	return q;
}

/* A forked child: COW-write the inherited buffer, map and write more. */
static void __attribute__((noreturn)) child(long nr)
{
	int loops = opt_churn ? CHURN_LOOPS : 1;
	char *q = map_new(CHILD_NEW);

	if (q == MAP_FAILED)
		_exit(3);
	write_pages(q, CHILD_NEW, 8);
	for (int i = 0; i < loops; i++) {
		write_pages(child_buf, CHILD_BUF, 7);
		if (opt_churn)
			q = churn_once(q);
	}
	if (opt_churn && (nr & 1)) {
		execl("/proc/self/exe", "faultfork", "--exec-child", (char *)NULL);
		_exit(5);	/* counted as a failed child */
	}
	_exit(0);
}

/* The program exec'd by a --churn child: a new mm, written, then exit. */
static int exec_child(void)
{
	char *q = map_new(CHILD_BUF);

	if (q == MAP_FAILED)
		return 3;
	for (int i = 0; i < CHURN_LOOPS; i++)
		write_pages(q, CHILD_BUF, 9 + i);
	return check_pages(q, CHILD_BUF, 9 + CHURN_LOOPS - 1) ? 4 : 0;
}

static void reap(int *alive, int flags)
{
	int status;
	pid_t pid;

	while (*alive > 0 && (pid = waitpid(-1, &status, flags)) > 0) {
		(*alive)--;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			atomic_fetch_add(&kids_failed, 1);
	}
}

static void *forker(void *arg)
{
	int alive = 0;

	(void)arg;
	while (!stopped()) {
		pid_t pid;

		reap(&alive, WNOHANG);
		if (alive >= MAX_KIDS) {
			usleep(1000);
			continue;
		}
		pid = fork();
		if (pid < 0) {
			atomic_fetch_add(&errors, 1);
			usleep(10000);
			continue;
		}
		if (pid == 0)
			child(atomic_load(&forks));
		alive++;
		if (atomic_fetch_add(&forks, 1) + 1 == opt_forks)
			atomic_store(&wl_st->stop, 1);
		usleep((useconds_t)opt_fork_ms * 1000);
	}
	reap(&alive, 0);
	return NULL;
}

/* The workers and the forker; a worker that does not start ends the run. */
static void start_threads(void)
{
	int r;

	for (long i = 0; i < opt_threads; i++) {
		r = pthread_create(&tids[i], NULL, worker, (void *)i);
		if (r) {
			fprintf(stderr, "faultfork: pthread_create: %s\n", strerror(r));
			atomic_store(&wl_st->stop, 1);
			opt_threads = (int)i;
			break;
		}
	}
	if (opt_fork_ms > 0 && (r = pthread_create(&ftid, NULL, forker, NULL))) {
		fprintf(stderr, "faultfork: pthread_create: %s\n", strerror(r));
		atomic_fetch_add(&errors, 1);
		opt_fork_ms = 0;
	}
}

static int progress(uint64_t t_ms)
{
	nu_out("progress t_ms=%llu rounds=%ld forks=%ld\n", (unsigned long long)t_ms,
	       atomic_load(&rounds), atomic_load(&forks));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child();
	nodes = wl_setup(&prog, argc, argv);
	if (nodes < 0)
		return 1;
	child_buf = mmap(NULL, CHILD_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (child_buf == MAP_FAILED) {
		perror("faultfork: mmap");
		return 1;
	}
	write_pages(child_buf, CHILD_BUF, 5);
	start_threads();
	if (!stopped())
		wl_sample_loop(nu_now_ms(), 1000, 1000, opt_seconds, progress);
	atomic_store(&wl_st->stop, 1);
	for (int i = 0; i < opt_threads; i++)
		pthread_join(tids[i], NULL);
	if (opt_fork_ms > 0)
		pthread_join(ftid, NULL);
	nu_out("faultfork threads=%d seconds=%d rounds=%ld pages=%ld forks=%ld children_failed=%ld errors=%ld corrupt=%ld\n",
	       opt_threads, opt_seconds, atomic_load(&rounds), atomic_load(&pages),
	       atomic_load(&forks), atomic_load(&kids_failed), atomic_load(&errors),
	       atomic_load(&corrupt));
	return (atomic_load(&kids_failed) || atomic_load(&errors) ||
		atomic_load(&corrupt) || !atomic_load(&rounds)) ? 1 : 0;
}
