// SPDX-License-Identifier: GPL-2.0
/*
 * costbench - page-fault and context-switch microbenchmark for the
 * "cost when unused" part of `make bench`.
 *
 *   costbench [--seconds S]     (default 3 per part)
 *
 * Part 1, faults: mmap 1 MiB of private anonymous memory, write one byte
 * per 4 KiB page (256 page faults), munmap; repeat for S seconds.
 * Part 2, ping-pong: two processes pinned to the same CPU (the first CPU
 * of the caller's affinity mask) pass one byte back and forth over two
 * pipes for S seconds, so every round trip is two context switches.
 *
 * OUTPUT (one line):
 *   cost fault_pages_per_s=<n> pingpong_roundtrips_per_s=<n> cpu=<cpu>
 * Exit 0, 1 on errors.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = 3, t0, t;
	uint64_t pages = 0, trips = 0;
	int a[2], b[2], cpu = 0;
	cpu_set_t set;
	pid_t child;
	char c = 0;

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		secs = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: costbench [--seconds S]\n");
		return 1;
	}
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
			;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("costbench: sched_setaffinity");

	t0 = now_s();
	do {
		for (int i = 0; i < 16; i++) {
			char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				perror("costbench: mmap");
				return 1;
			}
			for (int off = 0; off < (1 << 20); off += 4096)
				p[off] = 1;
			munmap(p, 1 << 20);
			pages += 256;
		}
		t = now_s();
	} while (t - t0 < secs);
	double fault_rate = pages / (t - t0);

	if (pipe(a) || pipe(b)) {
		perror("costbench: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("costbench: fork");
		return 1;
	}
	if (!child) {
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	t0 = now_s();
	do {
		for (int i = 0; i < 256; i++) {
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) {
				perror("costbench: pipe io");
				return 1;
			}
			trips++;
		}
		t = now_s();
	} while (t - t0 < secs);
	close(a[1]);
	waitpid(child, NULL, 0);
	printf("cost fault_pages_per_s=%.0f pingpong_roundtrips_per_s=%.0f cpu=%d\n",
	       fault_rate, trips / (t - t0), cpu);
	return 0;
}
