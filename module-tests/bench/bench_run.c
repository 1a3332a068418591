// SPDX-License-Identifier: GPL-2.0
/*
 * bench_run - run one benchmark workload and sample its placement.
 *
 *   bench_run [-i INTERVAL_MS] [-n NAME] -- PROG [ARGS...]
 *
 * Starts PROG with stdout+stderr on a pipe and, every INTERVAL_MS (default
 * 500), samples the NUMA placement of PROG and of its child processes, plus
 * the global counters.  Everything goes to stdout, one line each, the first
 * field a record type and the second CLOCK_MONOTONIC milliseconds:
 *
 *   N <ms> name=<NAME> nodes=<N> cpu_node=<cpu>:<node>,...  (once, first)
 *   W <ms> <line>            a line PROG printed (time it was read)
 *   P <ms> pid=<pid> ppid=<ppid> pages=<n0>,<n1>,... thr=<tid>:<cpu>:<ticks>,...
 *                            one process: resident pages per node summed
 *                            over /proc/<pid>/numa_maps (4 KiB units), and
 *                            per thread the CPU it last ran on and its
 *                            utime+stime in clock ticks (/proc/.../stat)
 *   G <ms> cpu=<user>,<nice>,<system>,<idle>,<iowait>,<irq>,<softirq>
 *          <vmstat numa_pte_updates, numa_huge_pte_updates, numa_hint_faults*,
 *           numa_pages_migrated, pgmigrate_* counters as k=v>
 *          [nc_<name>=<v> ... from /sys/kernel/debug/numacore/stats]
 *   X <ms> rc=<exit status of PROG>
 *
 * Once PROG is forked, bench_run itself opts out of automatic NUMA
 * balancing with set_mempolicy(MPOL_LOCAL): a task policy without
 * MPOL_F_MOF keeps every balancer (stock, numacore, moron) from scanning
 * and migrating the sampler's own pages, so that the counters it reports
 * are the workload's alone.
 *
 * Exit status: PROG's (128+signal if killed), 2 on usage errors.
 *
 * This file runs PROG and relays its lines; the N, P and G samplers are
 * in bench_sample.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_sample.h"

#define USAGE "usage: bench_run [-i MS] [-n NAME] -- PROG [ARGS...]\n"

/* Options; PROG is argv[optind].  0, or 2 after a usage message. */
static int parse_args(int argc, char **argv, int *interval, const char **name)
{
	int c;

	while ((c = getopt(argc, argv, "+i:n:")) != -1) {
		switch (c) {
		case 'i': *interval = atoi(optarg); break;
		case 'n': *name = optarg; break;
		default:
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (optind >= argc || *interval < 10) {
		fprintf(stderr, USAGE);
		return 2;
	}
	return 0;
}

/* Forks and execs prog[0] with stdout+stderr on a pipe; returns its pid and
 * the read end in *fd, or -1 after a message. */
static pid_t spawn(char **prog, int *fd)
{
	int pfd[2];
	pid_t child;

	if (pipe(pfd)) {
		perror("bench_run: pipe");
		return -1;
	}
	child = fork();
	if (child < 0) {
		perror("bench_run: fork");
		return -1;
	}
	if (!child) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(prog[0], prog);
		fprintf(stderr, "bench_run: exec %s: %s\n", prog[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	*fd = pfd[0];
	return child;
}

/* Reads what PROG wrote into buf after the *have bytes kept from before and
 * prints each complete line as a W record; a line that fills all of buf is
 * printed as it is.  Returns read(2)'s result (<= 0: PROG closed the pipe). */
static ssize_t forward_lines(int fd, char *buf, size_t sz, size_t *have)
{
	ssize_t n = read(fd, buf + *have, sz - 1 - *have);
	char *p, *nl;
	uint64_t t;

	if (n <= 0)
		return n;
	*have += n;
	buf[*have] = 0;
	t = now_ms();
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = 0;
		printf("W %llu %s\n", (unsigned long long)t, p);
	}
	*have = buf + *have - p;
	memmove(buf, p, *have);
	if (*have == sz - 1) {
		buf[*have] = 0;
		printf("W %llu %s\n", (unsigned long long)t, buf);
		*have = 0;
	}
	return n;
}

/* Until PROG closes the pipe: its lines as W records, and P and G records
 * every @interval ms. */
static void relay(int fd, pid_t child, int interval)
{
	char buf[65536];
	size_t have = 0;
	uint64_t next = now_ms() + interval;

	for (;;) {
		uint64_t t = now_ms();
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (t >= next) {
			sample_procs(t, child);
			sample_global(t);
			next += interval;
			if (next <= t)
				next = t + interval;
			continue;
		}
		if (poll(&pf, 1, (int)(next - t)) > 0 && forward_lines(fd, buf, sizeof(buf), &have) <= 0)
			break;
	}
	if (have) {
		buf[have] = 0;
		printf("W %llu %s\n", (unsigned long long)now_ms(), buf);
	}
}

int main(int argc, char **argv)
{
	int interval = 500, fd, status = 0;
	const char *name = "run";
	pid_t child;

	if (parse_args(argc, argv, &interval, &name))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sample_topology(name);
	child = spawn(argv + optind, &fd);
	if (child < 0)
		return 1;
	/* MPOL_LOCAL (4), no nodemask: libnuma is not in the guest. */
	if (syscall(SYS_set_mempolicy, 4, NULL, 0UL))
		perror("bench_run: set_mempolicy(MPOL_LOCAL)");
	sample_global(now_ms());
	relay(fd, child, interval);
	waitpid(child, &status, 0);
	sample_global(now_ms());
	printf("X %llu rc=%d\n", (unsigned long long)now_ms(),
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
