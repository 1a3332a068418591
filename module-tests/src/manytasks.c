// SPDX-License-Identifier: GPL-2.0
/*
 * manytasks - many tasks at once under a NUMA balancing policy.
 *
 * One process with --threads T threads (default 500) and --procs P small
 * single-threaded processes (default 200) run at the same time for
 * --seconds S (default 20), counted from when the last one was created
 * (forking hundreds of processes takes most of a minute on a debug
 * kernel): until then every task waits.  Every task maps its own --kb KiB
 * (default 64) and writes one line per page of it, pass after pass,
 * sleeping 10 ms between passes so that 700 tasks fit on a few CPUs;
 * before each pass it checks that the page still holds the previous
 * pass's value.  passes= and corrupt= count over all tasks.
 *
 * OUTPUT:
 *   manytasks threads=<T> started=<n> procs=<P> forked=<n>
 *             children_failed=<n> passes=<n> corrupt=<n>
 * Exit 0 if every thread and process started, every child exited 0 and no
 * page was found corrupt; 1 otherwise; 2 on bad usage.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PASS_SLEEP_US 10000
#define THREAD_STACK (64 << 10)
#define MAX_THREADS 4096

static int opt_threads = 500, opt_procs = 200, opt_seconds = 20, opt_kb = 64;

static const struct wl_opt opts[] = {
	WL_OPT_INT("threads", 't', opt_threads, 0, MAX_THREADS),
	WL_OPT_INT("procs", 'p', opt_procs, 0, 4096),
	WL_OPT_INT("seconds", 's', opt_seconds, 1, 3600),
	WL_OPT_INT("kb", 'k', opt_kb, 4, 1 << 20),
	WL_OPT_END,
};

static const struct wl_prog prog = {
	.name = "manytasks",
	.usage =
	"usage: manytasks [--threads T] [--procs P] [--seconds S] [--kb K]\n"
	"  --threads T   threads of the main process (default 500)\n"
	"  --procs P     single-threaded processes (default 200)\n"
	"  --seconds S   run time (default 20)\n"
	"  --kb K        KiB each task writes (default 64)\n",
	.opts = opts,
};

/* Shared with the forked processes (MAP_SHARED). */
struct shared {
	_Atomic uint64_t end_ms;	/* 0 until every task was created */
	_Atomic long passes, corrupt;
};

static _Atomic long started;
static struct shared *sh;

/* Write and check the task's own buffer until end_ms; 0 or -1. */
static int task_loop(void)
{
	size_t len = (size_t)opt_kb << 10;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char val = 0;

	if (p == MAP_FAILED)
		return -1;
	while (!atomic_load(&sh->end_ms))
		usleep(PASS_SLEEP_US);
	while (nu_now_ms() < atomic_load(&sh->end_ms)) {
		for (size_t off = 0; off < len; off += NU_PAGE_SIZE) {
			if (p[off] != val)
				atomic_fetch_add(&sh->corrupt, 1);
			p[off] = (char)(val + 1);
		}
		val++;
		atomic_fetch_add(&sh->passes, 1);
		usleep(PASS_SLEEP_US);
	}
	munmap(p, len);
	return 0;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&started, 1);
	task_loop();
	return NULL;
}

static int fork_procs(void)
{
	int forked = 0;

	for (int i = 0; i < opt_procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("manytasks: fork");
			break;
		}
		if (pid == 0)
			_exit(task_loop() ? 3 : 0);
		forked++;
	}
	return forked;
}

int main(int argc, char **argv)
{
	static pthread_t tids[MAX_THREADS];
	pthread_attr_t attr;
	int forked, nthreads = 0, failed = 0, status;

	if (wl_setup(&prog, argc, argv) < 0)
		return 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("manytasks: mmap");
		return 1;
	}
	forked = fork_procs();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (; nthreads < opt_threads; nthreads++) {
		int r = pthread_create(&tids[nthreads], &attr, thread_fn, NULL);

		if (r) {
			fprintf(stderr, "manytasks: pthread_create: %s\n", strerror(r));
			break;
		}
	}
	atomic_store(&sh->end_ms, nu_now_ms() + (uint64_t)opt_seconds * 1000);
	for (int i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	nu_out("manytasks threads=%d started=%ld procs=%d forked=%d children_failed=%d passes=%ld corrupt=%ld\n",
	       opt_threads, atomic_load(&started), opt_procs, forked, failed,
	       atomic_load(&sh->passes), atomic_load(&sh->corrupt));
	return (atomic_load(&started) != opt_threads || forked != opt_procs ||
		failed || atomic_load(&sh->corrupt)) ? 1 : 0;
}
