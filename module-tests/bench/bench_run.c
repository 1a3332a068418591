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
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXN 64
#define MAXCPU 256

static int nodes;
static int cpu_node[MAXCPU];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int read_file(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, off = 0;

	if (fd < 0)
		return -1;
	while (off < (ssize_t)sz - 1 && (n = read(fd, buf + off, sz - 1 - off)) > 0)
		off += n;
	close(fd);
	buf[off] = 0;
	return (int)off;
}

static void topology(void)
{
	char path[128], buf[4096];

	for (int c = 0; c < MAXCPU; c++)
		cpu_node[c] = -1;
	for (int n = 0; n < MAXN; n++) {
		char *p;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (read_file(path, buf, sizeof(buf)) < 0)
			continue;
		nodes = n + 1;
		p = buf;
		while (*p && *p != '\n') {
			long a = strtol(p, &p, 10), b = a;

			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (long c = a; c <= b && c < MAXCPU; c++)
				if (c >= 0)
					cpu_node[c] = n;
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	if (!nodes)
		nodes = 1;
}

/* Fields of /proc/.../stat after the ")" of comm: index 0 = field 3 (state). */
static int stat_fields(const char *path, long *ppid, long *cpu, unsigned long long *ticks)
{
	char buf[1024], *p;
	int f = 3;

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p += 2;
	*ticks = 0;
	while (*p) {
		if (f == 4)
			*ppid = strtol(p, NULL, 10);
		else if (f == 14 || f == 15)
			*ticks += strtoull(p, NULL, 10);
		else if (f == 39) {
			*cpu = strtol(p, NULL, 10);
			return 0;
		}
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		f++;
	}
	return -1;
}

static char *mapsbuf;
static size_t mapsbuf_sz;

static void sample_proc(uint64_t t, long pid, long ppid)
{
	char path[128], tpath[300];
	long long pages[MAXN] = { 0 };
	FILE *f;
	DIR *d;
	struct dirent *de;
	char *line = NULL;
	size_t cap = 0;
	int off = 0;

	snprintf(path, sizeof(path), "/proc/%ld/numa_maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *tok = strtok(line, " \n");

		while (tok) {
			if (tok[0] == 'N' && isdigit((unsigned char)tok[1])) {
				char *eq = strchr(tok, '=');
				int n = atoi(tok + 1);

				if (eq && n >= 0 && n < MAXN)
					pages[n] += atoll(eq + 1);
			}
			tok = strtok(NULL, " \n");
		}
	}
	free(line);
	fclose(f);

	if (!mapsbuf) {
		mapsbuf_sz = 65536;
		mapsbuf = malloc(mapsbuf_sz);
		if (!mapsbuf)
			return;
	}
	off = snprintf(mapsbuf, mapsbuf_sz, "P %llu pid=%ld ppid=%ld pages=", (unsigned long long)t, pid, ppid);
	for (int n = 0; n < nodes; n++)
		off += snprintf(mapsbuf + off, mapsbuf_sz - off, "%s%lld", n ? "," : "", pages[n]);
	off += snprintf(mapsbuf + off, mapsbuf_sz - off, " thr=");
	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (d) {
		int first = 1;

		while ((de = readdir(d))) {
			long tppid = 0, cpu = -1;
			unsigned long long ticks = 0;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			snprintf(tpath, sizeof(tpath), "/proc/%ld/task/%s/stat", pid, de->d_name);
			if (stat_fields(tpath, &tppid, &cpu, &ticks))
				continue;
			if (off < (int)mapsbuf_sz - 64)
				off += snprintf(mapsbuf + off, mapsbuf_sz - off, "%s%s:%ld:%llu",
						first ? "" : ",", de->d_name, cpu, ticks);
			first = 0;
		}
		closedir(d);
	}
	printf("%s\n", mapsbuf);
}

static void sample_procs(uint64_t t, long root)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[128];

	if (!d)
		return;
	while ((de = readdir(d))) {
		long pid, ppid = -1, cpu;
		unsigned long long ticks;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atol(de->d_name);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (stat_fields(path, &ppid, &cpu, &ticks))
			continue;
		if (pid == root || ppid == root)
			sample_proc(t, pid, ppid);
	}
	closedir(d);
}

static void sample_global(uint64_t t)
{
	static char buf[65536];
	char out[8192], *p, *nl;
	int off;

	off = snprintf(out, sizeof(out), "G %llu", (unsigned long long)t);
	if (read_file("/proc/stat", buf, sizeof(buf)) > 0 && !strncmp(buf, "cpu ", 4)) {
		unsigned long long v[7] = { 0 };

		sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		       &v[4], &v[5], &v[6]);
		off += snprintf(out + off, sizeof(out) - off, " cpu=%llu,%llu,%llu,%llu,%llu,%llu,%llu",
				v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	}
	if (read_file("/proc/vmstat", buf, sizeof(buf)) > 0) {
		for (p = buf; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				break;
			*nl = 0;
			if (!strncmp(p, "numa_pte", 8) || !strncmp(p, "numa_huge_pte", 13) ||
			    !strncmp(p, "numa_hint", 9) || !strncmp(p, "numa_pages", 10) ||
			    !strncmp(p, "pgmigrate_", 10)) {
				char *sp = strchr(p, ' ');

				if (sp && off < (int)sizeof(out) - 128)
					off += snprintf(out + off, sizeof(out) - off, " %.*s=%s",
							(int)(sp - p), p, sp + 1);
			}
		}
	}
	if (read_file("/sys/kernel/debug/numacore/stats", buf, sizeof(buf)) > 0) {
		for (p = buf; *p; p = nl + 1) {
			char *sp;

			nl = strchr(p, '\n');
			if (!nl)
				break;
			*nl = 0;
			sp = strchr(p, ' ');
			if (sp && off < (int)sizeof(out) - 128)
				off += snprintf(out + off, sizeof(out) - off, " nc_%.*s=%s",
						(int)(sp - p), p, sp + 1);
		}
	}
	printf("%s\n", out);
}

int main(int argc, char **argv)
{
	int interval = 500, c, pfd[2], status = 0, done = 0;
	const char *name = "run";
	char buf[65536];
	size_t have = 0;
	pid_t child;
	uint64_t next;

	while ((c = getopt(argc, argv, "+i:n:")) != -1) {
		switch (c) {
		case 'i': interval = atoi(optarg); break;
		case 'n': name = optarg; break;
		default:
			fprintf(stderr, "usage: bench_run [-i MS] [-n NAME] -- PROG [ARGS...]\n");
			return 2;
		}
	}
	if (optind >= argc || interval < 10) {
		fprintf(stderr, "usage: bench_run [-i MS] [-n NAME] -- PROG [ARGS...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	topology();
	{
		int off = snprintf(buf, sizeof(buf), "N %llu name=%s nodes=%d cpu_node=",
				   (unsigned long long)now_ms(), name, nodes);
		int first = 1;

		for (int i = 0; i < MAXCPU; i++)
			if (cpu_node[i] >= 0) {
				off += snprintf(buf + off, sizeof(buf) - off, "%s%d:%d", first ? "" : ",", i, cpu_node[i]);
				first = 0;
			}
		printf("%s\n", buf);
	}
	if (pipe(pfd)) {
		perror("bench_run: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("bench_run: fork");
		return 1;
	}
	if (!child) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "bench_run: exec %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* MPOL_LOCAL (4), no nodemask: libnuma is not in the guest. */
	if (syscall(SYS_set_mempolicy, 4, NULL, 0UL))
		perror("bench_run: set_mempolicy(MPOL_LOCAL)");
	sample_global(now_ms());
	next = now_ms() + interval;
	while (!done) {
		uint64_t t = now_ms();
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		int r;

		if (t >= next) {
			sample_procs(t, child);
			sample_global(t);
			next += interval;
			if (next <= t)
				next = t + interval;
			continue;
		}
		r = poll(&pf, 1, (int)(next - t));
		if (r > 0) {
			ssize_t n = read(pfd[0], buf + have, sizeof(buf) - 1 - have);
			char *p, *nl;

			if (n <= 0) {
				done = 1;
				break;
			}
			have += n;
			buf[have] = 0;
			t = now_ms();
			for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
				*nl = 0;
				printf("W %llu %s\n", (unsigned long long)t, p);
			}
			have = buf + have - p;
			memmove(buf, p, have);
			if (have == sizeof(buf) - 1) {
				buf[have] = 0;
				printf("W %llu %s\n", (unsigned long long)t, buf);
				have = 0;
			}
		}
	}
	if (have) {
		buf[have] = 0;
		printf("W %llu %s\n", (unsigned long long)now_ms(), buf);
	}
	waitpid(child, &status, 0);
	sample_global(now_ms());
	printf("X %llu rc=%d\n", (unsigned long long)now_ms(),
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
